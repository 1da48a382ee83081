# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_methodic_global_optspecs
    string join \n h/help V/version
end

function __fish_methodic_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_methodic_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_methodic_using_subcommand
    set -l cmd (__fish_methodic_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c methodic -n "__fish_methodic_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c methodic -n "__fish_methodic_needs_command" -s V -l version -d 'Print version'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "check" -d 'Check methodology files and report every problem found'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "compile" -d 'Compile a methodology to a step plan'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "plan" -d 'Show the steps of a methodology or plan, with time and writes per phase'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "run" -d 'Run a methodology or plan on a file or block device, writing a results directory'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "calibrate" -d 'Measure the host ceiling: the engine against a file in RAM, and a memory copy, with no device in the way'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "report" -d 'Show a results directory: each number with the job that made it, as a table (or Markdown, CSV, JSON), or one HTML page with charts'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "diff" -d 'What changed between two methodologies or plans, and whether old results stay comparable'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "compare" -d 'Compare results directories: steps paired by workload and queue depth, ratios, and every manifest difference that can explain a gap'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "crosscheck" -d 'Run one measured step with methodic and with fio on the same target, alternately, and compare their medians'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "export" -d 'Export a methodology or plan as fio jobs: a section a step, with the closest fio options and a comment where fio differs'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "import" -d 'Turn another tool\'s job file (fio, Iometer, vdbench, DiskSpd) into a methodology, refusing clearly what it cannot translate; or its results (fio JSON, an Iometer results CSV, DiskSpd XML results, a CrystalDiskMark or KDiskMark text report) into a results directory (-o DIR) that report and compare read like a methodic run\'s'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "fmt" -d 'Format methodology files in place, keeping every comment'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "completions" -d 'Print a completion script for a shell, to source or install'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "man" -d 'Print the man page methodic(1), or write it and a page a command (methodic-run(1), ...) into a folder'
complete -c methodic -n "__fish_methodic_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c methodic -n "__fish_methodic_using_subcommand check" -l message-format -d 'How to report: `human` draws each problem under its source line on stderr; `json` writes one JSON object a line on stdout, each problem and then a summary, for editors and CI' -r -f -a "human\t'Each problem drawn under its source lines, and a count, on stderr'
json\t'One JSON object a line on stdout: each problem, then a summary (docs/EDITORS.md describes the fields)'"
complete -c methodic -n "__fish_methodic_using_subcommand check" -l deny-warnings -d 'Treat warnings as errors'
complete -c methodic -n "__fish_methodic_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c methodic -n "__fish_methodic_using_subcommand compile" -s o -l output -d 'Where to write the plan (`-`, the default, is standard output)' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand compile" -l format -d 'The plan\'s format (how the plan itself is written; results commands take --format for their output)' -r -f -a "ron\t'RON, as plan.ron in a results directory'
json\t'JSON, the same fields'"
complete -c methodic -n "__fish_methodic_using_subcommand compile" -l capacity -d 'The target\'s capacity (such as 2TB or 1.6TB), to estimate bytes written' -r
complete -c methodic -n "__fish_methodic_using_subcommand compile" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c methodic -n "__fish_methodic_using_subcommand plan" -l capacity -d 'The target\'s capacity (such as 2TB), to estimate bytes written' -r
complete -c methodic -n "__fish_methodic_using_subcommand plan" -l format -d 'The output format' -r -f -a "table\t'text for a terminal: tables and sentences'
csv\t'comma-separated values, a header then a row each'
json\t'JSON, for programs'"
complete -c methodic -n "__fish_methodic_using_subcommand plan" -s o -l output -d 'Write the output to FILE (atomically) [default: standard output]' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand plan" -l json -d 'The older spelling of --format json'
complete -c methodic -n "__fish_methodic_using_subcommand plan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c methodic -n "__fish_methodic_using_subcommand run" -l resume -d 'Go on with the run in this results directory (interrupted, failed or crashed): same plan, same targets, checked; from the first step not finished, or from the step that set the drive state when the step cut off was changing it. --destroy/--overwrite are asked again' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand run" -s t -l target -d 'A file or block device to run on, once for each device of the plan. Without it, methodic runs on a scratch file in the results directory' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand run" -s o -l out -d 'The results directory to create [default: results/NAME-DATE]' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand run" -l engine -d 'The I/O engine: psync where a worker keeps one I/O in flight and io_uring elsewhere (auto), or one of them for every step' -r -f -a "auto\t''
io-uring\t''
psync\t''"
complete -c methodic -n "__fish_methodic_using_subcommand run" -l destroy -d 'Write over this block device, named by its serial (or, for a device without one, its path): methodic refuses devices that may hold data. Once for each device a run on several writes over' -r
complete -c methodic -n "__fish_methodic_using_subcommand run" -l seed -d 'The seed of every random offset and choice [default: from the clock, and recorded in the results]' -r
complete -c methodic -n "__fish_methodic_using_subcommand run" -l format -d 'The output format' -r -f -a "table\t'text for a terminal: tables and sentences'
json\t'JSON, for programs'"
complete -c methodic -n "__fish_methodic_using_subcommand run" -l datasets -d 'Where copy tests generate their datasets, such as a tmpfs (/dev/shm/methodic-datasets) so that the source is not the bottleneck [default: datasets/ in the results directory]. A dataset already there is reused while it matches its definition' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand run" -l hosts -d 'Run every step\'s I/O on many hosts at once, through fio\'s client/server mode: a file with one host a line as fio\'s --client takes it (ip:10.0.0.2,8765 or bench-07), then, after a space, its target there; --target gives the target of hosts without one. Each host runs `fio --server`. See README, "Many hosts"' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand run" -l fio -d 'The fio that talks to the hosts\' fio servers (with --hosts, or --resume of such a run)' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand run" -l start-margin -d 'With --hosts (or --resume of such a run): seconds after its jobs are sent that every host starts each I/O run, on its own clock, so that all start together (fio\'s servers take the start up to a second apart); widened when a host starts later than that' -r
complete -c methodic -n "__fish_methodic_using_subcommand run" -l batch-time -d 'With --hosts (or --resume of such a run): the most seconds of ramp and record of a sweep\'s or a repeat\'s timed measurements sent to the hosts in one fio session, so that the start is paid once; a stop or a lost host in a session loses its results. 0 sends each step alone' -r
complete -c methodic -n "__fish_methodic_using_subcommand run" -l rehearse -d 'Run the methodology scaled down to seconds on a small scratch file, to try it before a drive spends a day on it. Results are marked as a rehearsal'
complete -c methodic -n "__fish_methodic_using_subcommand run" -l overwrite -d 'Write over an existing file given as --target: methodic refuses a file it did not create when the plan writes to it'
complete -c methodic -n "__fish_methodic_using_subcommand run" -l keep-scratch -d 'Keep the scratch file after the run'
complete -c methodic -n "__fish_methodic_using_subcommand run" -l pin -d 'Pin worker threads to CPUs, round robin'
complete -c methodic -n "__fish_methodic_using_subcommand run" -l json -d 'The older spelling of --format json'
complete -c methodic -n "__fish_methodic_using_subcommand run" -l no-latency -d 'Do not record latencies or series (to measure what recording costs)'
complete -c methodic -n "__fish_methodic_using_subcommand run" -l no-ceiling -d 'Skip the host ceiling (the engine against RAM, 0.6 seconds for each I/O shape the plan uses, at most 64) measured before the first step'
complete -c methodic -n "__fish_methodic_using_subcommand run" -l no-floor -d 'Skip the host\'s pacing floor: the open loop of each open-loop step and QoS probe run with no device and against RAM, just before and just after it (a twentieth of its record time each, from 10ms to 1s, or up to 5s at low rates). Without it, percentiles that the host\'s scheduling explains carry no warning. With --resume, for the steps still to run. See the user guide, "The host\'s pacing floor"'
complete -c methodic -n "__fish_methodic_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c methodic -n "__fish_methodic_using_subcommand calibrate" -l block -d 'Block sizes to read, each at every --qd (several: --block 4KiB,128KiB or --block again); 4KiB and 1MiB when none is given' -r
complete -c methodic -n "__fish_methodic_using_subcommand calibrate" -l large-block -d 'One more block size (the older spelling of a second --block)' -r
complete -c methodic -n "__fish_methodic_using_subcommand calibrate" -l qd -d 'Outstanding I/Os of one worker, each with every --block (several: --qd 1,32 or --qd again)' -r
complete -c methodic -n "__fish_methodic_using_subcommand calibrate" -l seconds -d 'Seconds each shape records (after a ramp of a fifth of that)' -r
complete -c methodic -n "__fish_methodic_using_subcommand calibrate" -l engine -d 'The engine, as for run' -r -f -a "auto\t''
io-uring\t''
psync\t''"
complete -c methodic -n "__fish_methodic_using_subcommand calibrate" -l format -d 'The output format' -r -f -a "table\t'text for a terminal: tables and sentences'
json\t'JSON, for programs'"
complete -c methodic -n "__fish_methodic_using_subcommand calibrate" -s o -l output -d 'Write the output to FILE (atomically) [default: standard output]' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand calibrate" -l json -d 'The older spelling of --format json'
complete -c methodic -n "__fish_methodic_using_subcommand calibrate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c methodic -n "__fish_methodic_using_subcommand report" -l format -d 'The output format' -r -f -a "table\t'text for a terminal: tables and sentences'
md\t'Markdown, to paste into a review or an issue'
csv\t'comma-separated values, a header then a row each'
json\t'JSON, for programs'
html\t'one self-contained HTML page (no network)'
fio-json\t'fio\'s JSON output (json+), a job a step, for fio-plot and other fio readers'
xlsx\t'a spreadsheet workbook with native charts, for Excel and LibreOffice (binary: to -o FILE or a pipe)'"
complete -c methodic -n "__fish_methodic_using_subcommand report" -s o -l output -d 'Write the output to FILE (atomically) [default: standard output]' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand report" -l html -d 'The older way to write the HTML page (--format html -o FILE), kept for the pages that show it: the page goes to FILE, and --format to standard output' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand report" -l fio-plot -d 'Also write the run as fio-plot reads results: into DIR, a folder a phase and workload, in it a fio JSON file a step named RW-IODEPTH-NUMJOBS.json (as --format fio-json writes them)' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand report" -l json -d 'The older spelling of --format json'
complete -c methodic -n "__fish_methodic_using_subcommand report" -l allow-incomplete -d 'Exit 0 even when some file of a run (a series, rounds, probe or latency log) could not be read. Either way the output names each such file and what is wrong with it, and so does standard error; without this flag the exit code is then 3'
complete -c methodic -n "__fish_methodic_using_subcommand report" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c methodic -n "__fish_methodic_using_subcommand diff" -l format -d 'The output format' -r -f -a "table\t'text for a terminal: tables and sentences'
json\t'JSON, for programs'"
complete -c methodic -n "__fish_methodic_using_subcommand diff" -s o -l output -d 'Write the output to FILE (atomically) [default: standard output]' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand diff" -l json -d 'The older spelling of --format json'
complete -c methodic -n "__fish_methodic_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c methodic -n "__fish_methodic_using_subcommand compare" -l format -d 'The output format' -r -f -a "table\t'text for a terminal: tables and sentences'
json\t'JSON, for programs'
html\t'one self-contained HTML page (no network)'
xlsx\t'a spreadsheet workbook with native charts, for Excel and LibreOffice (binary: to -o FILE or a pipe)'"
complete -c methodic -n "__fish_methodic_using_subcommand compare" -s o -l output -d 'Write the output to FILE (atomically) [default: standard output]' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand compare" -l html -d 'Also write the comparison as one HTML page (charts, no script, no network) to FILE, while --format goes where -o says: the same page as --format html -o FILE' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand compare" -l json -d 'The older spelling of --format json'
complete -c methodic -n "__fish_methodic_using_subcommand compare" -l allow-incomplete -d 'Exit 0 even when some file of a run (a series, rounds, probe or latency log) could not be read. Either way the output names each such file and what is wrong with it, and so does standard error; without this flag the exit code is then 3'
complete -c methodic -n "__fish_methodic_using_subcommand compare" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c methodic -n "__fish_methodic_using_subcommand crosscheck" -l step -d 'The measured step: its id (as `methodic plan` shows it) or number' -r
complete -c methodic -n "__fish_methodic_using_subcommand crosscheck" -l target -d 'The file or block device both run on' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand crosscheck" -l runs -d 'Runs of each, alternating methodic and fio' -r
complete -c methodic -n "__fish_methodic_using_subcommand crosscheck" -l destroy -d 'As for run: write over this block device (its serial, or path)' -r
complete -c methodic -n "__fish_methodic_using_subcommand crosscheck" -l fio -d 'The fio to run' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand crosscheck" -l format -d 'The output format' -r -f -a "table\t'text for a terminal: tables and sentences'
json\t'JSON, for programs'"
complete -c methodic -n "__fish_methodic_using_subcommand crosscheck" -s o -l output -d 'Write the output to FILE (atomically) [default: standard output]' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand crosscheck" -l overwrite -d 'As for run: write over an existing file methodic did not create'
complete -c methodic -n "__fish_methodic_using_subcommand crosscheck" -l json -d 'The older spelling of --format json'
complete -c methodic -n "__fish_methodic_using_subcommand crosscheck" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c methodic -n "__fish_methodic_using_subcommand export" -s o -l out -d 'The folder to write `NAME-VERSION.fio` (or the .icf files) in [default: standard output]' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand export" -l iometer-target -d 'Iometer: the disk target of each device, as Iometer names it (`1:` for physical disk 1 in Iometer 1.1.0 on Windows, `sdb` for Dynamo on Linux); once for each device. Without it the files assign no disk' -r
complete -c methodic -n "__fish_methodic_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c methodic -n "__fish_methodic_using_subcommand import" -s o -l output -d 'Where to write the methodology (`-`, the default, is standard output); for a results file, the results directory to create. Nothing is written when the file cannot be imported' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand import" -l name -d 'The methodology\'s name [default: the job file\'s name without its extension]' -r
complete -c methodic -n "__fish_methodic_using_subcommand import" -l var -d 'A value for a variable of a vdbench parameter file (`$lun`), as vdbench takes `lun=/dev/sdb` on its command line, or of an fio job file (`${FIO_BS}`), as fio takes it from its environment; repeat for more' -r
complete -c methodic -n "__fish_methodic_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c methodic -n "__fish_methodic_using_subcommand fmt" -l check -d 'Change nothing; exit 1 and list the files that are not formatted'
complete -c methodic -n "__fish_methodic_using_subcommand fmt" -s h -l help -d 'Print help'
complete -c methodic -n "__fish_methodic_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c methodic -n "__fish_methodic_using_subcommand man" -l out -d 'Write every page into DIR instead of printing methodic(1)' -r -F
complete -c methodic -n "__fish_methodic_using_subcommand man" -s h -l help -d 'Print help'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "check" -d 'Check methodology files and report every problem found'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "compile" -d 'Compile a methodology to a step plan'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "plan" -d 'Show the steps of a methodology or plan, with time and writes per phase'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "run" -d 'Run a methodology or plan on a file or block device, writing a results directory'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "calibrate" -d 'Measure the host ceiling: the engine against a file in RAM, and a memory copy, with no device in the way'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "report" -d 'Show a results directory: each number with the job that made it, as a table (or Markdown, CSV, JSON), or one HTML page with charts'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "diff" -d 'What changed between two methodologies or plans, and whether old results stay comparable'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "compare" -d 'Compare results directories: steps paired by workload and queue depth, ratios, and every manifest difference that can explain a gap'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "crosscheck" -d 'Run one measured step with methodic and with fio on the same target, alternately, and compare their medians'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "export" -d 'Export a methodology or plan as fio jobs: a section a step, with the closest fio options and a comment where fio differs'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "import" -d 'Turn another tool\'s job file (fio, Iometer, vdbench, DiskSpd) into a methodology, refusing clearly what it cannot translate; or its results (fio JSON, an Iometer results CSV, DiskSpd XML results, a CrystalDiskMark or KDiskMark text report) into a results directory (-o DIR) that report and compare read like a methodic run\'s'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "fmt" -d 'Format methodology files in place, keeping every comment'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "completions" -d 'Print a completion script for a shell, to source or install'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "man" -d 'Print the man page methodic(1), or write it and a page a command (methodic-run(1), ...) into a folder'
complete -c methodic -n "__fish_methodic_using_subcommand help; and not __fish_seen_subcommand_from check compile plan run calibrate report diff compare crosscheck export import fmt completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
