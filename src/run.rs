//! `methodic run`: a methodology or plan and the command line go in; the
//! run's progress is drawn on stderr (a bar on a terminal, a line a step
//! otherwise), its results land in a results directory, and a table of
//! per-step numbers (or, with --format json, the whole report) ends on
//! stdout.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, bail};
use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};
use methodic_compiler::plan::{Plan, Step, TimeRange, Units};
use methodic_results::export::Format;
use methodic_results::record::{RunReport, Status, StepResult};
use methodic_results::view::run::{HostCeilings, Ran, step_line};
use methodic_runtime::{EngineChoice, Observer, RunOptions};

use crate::common::load_plan;
use crate::format::{Choice, Output};

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// A methodology (.method) or a compiled plan (.ron or .json). With
    /// --resume it may be left out; given, it must compile to the run's plan.
    #[arg(required_unless_present = "resume")]
    file: Option<PathBuf>,
    /// Go on with the run in this results directory (interrupted, failed or
    /// crashed): same plan, same targets, checked; from the first step not
    /// finished, or from the step that set the drive state when the step
    /// cut off was changing it. --destroy/--overwrite are asked again.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["out", "rehearse", "engine", "seed", "pin", "no_ceiling", "datasets", "no_latency"])]
    resume: Option<PathBuf>,
    /// A file or block device to run on, once for each device of the plan.
    /// Without it, methodic runs on a scratch file in the results directory.
    #[arg(short, long = "target", value_name = "PATH")]
    targets: Vec<PathBuf>,
    /// The results directory to create [default: results/NAME-DATE].
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run the methodology scaled down to seconds on a small scratch file,
    /// to try it before a drive spends a day on it. Results are marked as a
    /// rehearsal.
    #[arg(long)]
    rehearse: bool,
    /// The I/O engine: psync where a worker keeps one I/O in flight and
    /// io_uring elsewhere (auto), or one of them for every step.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    engine: EngineArg,
    /// Write over this block device, named by its serial (or, for a device
    /// without one, its path): methodic refuses devices that may hold data.
    /// Once for each device a run on several writes over.
    #[arg(long, value_name = "SERIAL")]
    destroy: Vec<String>,
    /// Write over an existing file given as --target: methodic refuses a
    /// file it did not create when the plan writes to it.
    #[arg(long)]
    overwrite: bool,
    /// Keep the scratch file after the run.
    #[arg(long)]
    keep_scratch: bool,
    /// The seed of every random offset and choice [default: from the clock,
    /// and recorded in the results].
    #[arg(long)]
    seed: Option<u64>,
    /// Pin worker threads to CPUs, round robin.
    #[arg(long)]
    pin: bool,
    // What standard output gets when the run ends: the step table, or the
    // whole report as JSON (and then no progress bar on stderr).
    #[command(flatten)]
    format: Choice<Ran>,
    /// Do not record latencies or series (to measure what recording costs).
    #[arg(long, hide = true)]
    no_latency: bool,
    /// Skip the host ceiling (the engine against RAM, 0.6 seconds for each
    /// I/O shape the plan uses, at most 64) measured before the first step.
    #[arg(long)]
    no_ceiling: bool,
    /// Skip the host's pacing floor: the open loop of each open-loop step
    /// and QoS probe run with no device and against RAM, just before and
    /// just after it (a twentieth of its record time each, from 10ms to
    /// 1s, or up to 5s at low rates). Without it, percentiles that the
    /// host's scheduling explains carry no warning. With --resume, for
    /// the steps still to run. See the user guide, "The host's pacing
    /// floor".
    #[arg(long, conflicts_with = "hosts")]
    no_floor: bool,
    /// Where copy tests generate their datasets, such as a tmpfs
    /// (/dev/shm/methodic-datasets) so that the source is not the
    /// bottleneck [default: datasets/ in the results directory]. A dataset
    /// already there is reused while it matches its definition.
    #[arg(long, value_name = "DIR")]
    datasets: Option<PathBuf>,
    /// Run every step's I/O on many hosts at once, through fio's
    /// client/server mode: a file with one host a line as fio's --client
    /// takes it (ip:10.0.0.2,8765 or bench-07), then, after a space, its
    /// target there; --target gives the target of hosts without one. Each
    /// host runs `fio --server`. See README, "Many hosts".
    #[arg(long, value_name = "FILE", conflicts_with_all = ["resume", "destroy", "pin", "datasets", "keep_scratch", "no_ceiling"])]
    hosts: Option<PathBuf>,
    /// The fio that talks to the hosts' fio servers (with --hosts, or
    /// --resume of such a run).
    #[arg(long, value_name = "PATH")]
    fio: Option<PathBuf>,
    /// With --hosts (or --resume of such a run): seconds after its jobs are sent that every host
    /// starts each I/O run, on its own clock, so that all start together
    /// (fio's servers take the start up to a second apart); widened when a
    /// host starts later than that.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.5)]
    start_margin: f64,
    /// With --hosts (or --resume of such a run): the most seconds of ramp
    /// and record of a sweep's or a repeat's timed measurements sent to the
    /// hosts in one fio session, so that the start is paid once; a stop or
    /// a lost host in a session loses its results. 0 sends each step alone.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0)]
    batch_time: f64,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum EngineArg {
    Auto,
    IoUring,
    Psync,
}

impl EngineArg {
    pub(crate) fn choice(self) -> EngineChoice {
        match self {
            EngineArg::Auto => EngineChoice::Auto,
            EngineArg::IoUring => EngineChoice::IoUring,
            EngineArg::Psync => EngineChoice::Psync,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// Block sizes to read, each at every --qd (several: --block 4KiB,128KiB
    /// or --block again); 4KiB and 1MiB when none is given.
    #[arg(long, value_delimiter = ',', value_parser = crate::common::parse_size)]
    block: Vec<methodic_compiler::plan::Bytes>,
    /// One more block size (the older spelling of a second --block).
    #[arg(long, hide = true, value_parser = crate::common::parse_size)]
    large_block: Option<methodic_compiler::plan::Bytes>,
    /// Outstanding I/Os of one worker, each with every --block (several:
    /// --qd 1,32 or --qd again).
    #[arg(long, value_delimiter = ',', default_values_t = [1u32, 32])]
    qd: Vec<u32>,
    /// Seconds each shape records (after a ramp of a fifth of that).
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// The engine, as for run.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    engine: EngineArg,
    #[command(flatten)]
    output: Output<HostCeilings>,
}

/// `methodic calibrate`: the host ceiling on its own, for each queue
/// depth and block size asked.
pub fn calibrate(args: CalibrateArgs) -> Result<ExitCode> {
    use methodic_compiler::plan::Bytes;
    use methodic_runtime::MAX_SHAPES;
    if !(args.seconds > 0.0 && args.seconds <= 600.0) || args.qd.contains(&0) {
        bail!("--seconds must be above 0 and at most 600, and each --qd at least 1");
    }
    let mut blocks = args.block.clone();
    if blocks.is_empty() {
        blocks.push(Bytes(4 << 10));
        if args.large_block.is_none() {
            blocks.push(Bytes(1 << 20));
        }
    }
    blocks.extend(args.large_block);
    if blocks.len() * args.qd.len() > MAX_SHAPES {
        bail!(
            "{} block sizes at {} queue depths make {} shapes; a run measures at most {MAX_SHAPES}, and so does calibrate",
            blocks.len(),
            args.qd.len(),
            blocks.len() * args.qd.len()
        );
    }
    let c = methodic_runtime::calibrate(&blocks, &args.qd, args.seconds, args.engine.choice())
        .map_err(|e| anyhow::anyhow!(methodic_runtime::describe(&e)))?;
    if c.shapes.is_empty() {
        let why: Vec<String> = c.unmeasured.iter().map(|u| format!("{}: {}", u.shape, u.reason)).collect();
        bail!("no host ceiling could be measured ({})", why.join("; "));
    }
    args.output.write(&HostCeilings(c))?;
    Ok(ExitCode::SUCCESS)
}

pub fn run(args: RunArgs) -> Result<ExitCode> {
    if let Some(dir) = &args.resume {
        return resume(dir, &args);
    }
    let Some(file) = &args.file else { bail!("give the methodology to run") };
    let Some((plan, source)) = load_plan(file, None)? else {
        return Ok(ExitCode::from(1));
    };
    let hosts = match &args.hosts {
        Some(path) => hosts_of(path, &args, &plan)?,
        None => Vec::new(),
    };
    let now = methodic_runtime::unix_now();
    let out = match &args.out {
        Some(o) => o.clone(),
        None => default_out(&plan, args.rehearse, now),
    };
    let seed = args.seed.unwrap_or_else(|| (now * 1e6) as u64 ^ std::process::id() as u64);
    let opts = RunOptions {
        targets: args.targets.clone(),
        out,
        rehearse: args.rehearse,
        engine: args.engine.choice(),
        destroy: args.destroy.clone(),
        overwrite: args.overwrite,
        keep_scratch: args.keep_scratch,
        seed,
        pin: args.pin,
        source,
        no_latency: args.no_latency,
        skip_ceiling: args.no_ceiling,
        skip_floor: args.no_floor,
        datasets: args.datasets.clone(),
        engines: None,
        hosts,
        fio: args.fio.clone(),
        start_margin_ms: Some(margin_ms(args.start_margin)?),
        batch_ms: Some(batch_ms(args.batch_time)?),
    };
    let format = args.format.format();
    let report = with_progress(format, plan.conventions.units, |progress| {
        if args.rehearse {
            progress.line("rehearsal: durations and sizes are scaled down; the numbers are not measurements");
        }
        methodic_runtime::run(&plan, &opts, progress)
    })?;
    finish(plan, report, format)
}

/// Runs `go` with the progress drawn on stderr, and clears it however the
/// run ends.
fn with_progress(
    format: Format,
    units: Units,
    go: impl FnOnce(&mut Progress) -> methodic_runtime::Result<RunReport>,
) -> Result<RunReport> {
    let mut progress = Progress::new(
        format != Format::Json && std::io::stderr().is_terminal() && std::io::stdout().is_terminal(),
        units,
    );
    let report = go(&mut progress);
    progress.finish();
    report.map_err(|e| anyhow::anyhow!("{}", methodic_runtime::describe(&e)))
}

/// `methodic run --resume DIR [FILE]`.
fn resume(dir: &std::path::Path, args: &RunArgs) -> Result<ExitCode> {
    let given = match &args.file {
        Some(f) => match load_plan(f, None)? {
            Some((plan, _)) => Some(plan),
            None => return Ok(ExitCode::from(1)),
        },
        None => None,
    };
    // The run's own plan, for the progress and the table; resume says what
    // is wrong with it when it cannot be read.
    let plan = std::fs::read_to_string(dir.join("plan.ron")).ok().and_then(|t| Plan::from_ron(&t).ok());
    let opts = RunOptions {
        targets: args.targets.clone(),
        out: dir.to_path_buf(),
        fio: args.fio.clone(),
        start_margin_ms: Some(margin_ms(args.start_margin)?),
        batch_ms: Some(batch_ms(args.batch_time)?),
        destroy: args.destroy.clone(),
        overwrite: args.overwrite,
        keep_scratch: args.keep_scratch,
        skip_floor: args.no_floor,
        ..RunOptions::default()
    };
    let units = plan.as_ref().map_or(Units::Decimal, |p| p.conventions.units);
    let format = args.format.format();
    let report = with_progress(format, units, |progress| {
        methodic_runtime::resume(dir, given.as_ref(), &opts, progress)
    })?;
    let plan = plan.or(given).ok_or_else(|| anyhow::anyhow!("the run's plan.ron cannot be read"))?;
    finish(plan, report, format)
}

/// `--start-margin` in milliseconds: from 0 to a minute.
fn margin_ms(seconds: f64) -> Result<u64> {
    if !(0.0..=60.0).contains(&seconds) {
        bail!("--start-margin is seconds from 0 to 60 (1.5 when left out)");
    }
    Ok((seconds * 1000.0).round() as u64)
}

/// `--batch-time` in milliseconds: from 0 to a day.
fn batch_ms(seconds: f64) -> Result<u64> {
    if !(0.0..=86_400.0).contains(&seconds) {
        bail!("--batch-time is seconds from 0 to 86400 (300 when left out; 0 sends each step alone)");
    }
    Ok((seconds * 1000.0).round() as u64)
}

/// The hosts of `--hosts FILE`, each with its target (its own, or
/// `--target`'s); and, for a methodology that writes, `--overwrite`: what
/// the hosts' targets hold cannot be checked from here.
fn hosts_of(path: &std::path::Path, args: &RunArgs, plan: &Plan) -> Result<Vec<methodic_runtime::HostSpec>> {
    if args.targets.len() > 1 {
        bail!(
            "with --hosts, --target gives the one target of every host the hosts file gives none; give it once"
        );
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot be read: {e}", path.display()))?;
    let target = args.targets.first().map(|t| t.to_string_lossy().into_owned());
    let hosts = methodic_runtime::parse_hosts(&text, path, target.as_deref())
        .map_err(|e| anyhow::anyhow!("{}", methodic_runtime::describe(&e)))?;
    if plan.steps.iter().any(|s| s.action.writes()) && !args.overwrite {
        bail!(
            "{} writes over the target of {}, whose contents methodic cannot check from here: give --overwrite \
             to agree that what they hold is lost",
            plan.methodology.name,
            if hosts.len() == 1 {
                "the host".to_string()
            } else {
                format!("each of the {} hosts", hosts.len())
            }
        );
    }
    Ok(hosts)
}

/// Prints the report and says how the run ended, in the exit code too.
fn finish(plan: Plan, report: RunReport, format: Format) -> Result<ExitCode> {
    let ran = Ran::new(report, plan.conventions.units);
    crate::format::write(&ran, format, std::path::Path::new("-"))?;
    let report = ran.report();
    match report.status {
        Status::Completed => Ok(ExitCode::SUCCESS),
        Status::Failed | Status::Running => {
            eprintln!("error: {}", report.error.as_deref().unwrap_or("the run failed"));
            eprintln!(
                "the steps that finished are in {0}; after fixing the cause, go on with `methodic run --resume {0}`",
                report.results.display()
            );
            Ok(ExitCode::from(1))
        }
        Status::Interrupted => {
            eprintln!(
                "{}: the steps that finished, and the one in flight with its partial numbers, are in {1}; \
                 go on with `methodic run --resume {1}`",
                report.error.as_deref().unwrap_or("interrupted"),
                report.results.display()
            );
            // The shell's convention: 128 + the signal (130 SIGINT, 143 SIGTERM).
            Ok(ExitCode::from(128 + report.signal.unwrap_or(2).clamp(1, 127) as u8))
        }
    }
}

/// `results/NAME-20261130-065415`, with `-rehearsal` for a rehearsal.
fn default_out(plan: &Plan, rehearse: bool, now: f64) -> PathBuf {
    let name: String = plan
        .methodology
        .name
        .chars()
        .map(|c| if c.is_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '-' })
        .collect();
    let base = format!(
        "results/{name}-{}{}",
        methodic_runtime::compact(now),
        if rehearse { "-rehearsal" } else { "" }
    );
    let mut out = PathBuf::from(&base);
    let mut n = 2;
    while out.exists() {
        out = PathBuf::from(format!("{base}-{n}"));
        n += 1;
    }
    out
}

/// Progress on stderr: a bar on a terminal, a line a finished step
/// otherwise (so that logs show how a run went).
struct Progress {
    bar: Option<ProgressBar>,
    /// The methodology's units: rates in MiB/s or MB/s.
    units: Units,
    /// The last share of a drive's erase shown, in percent.
    last_percent: Option<u32>,
}

impl Progress {
    fn new(terminal: bool, units: Units) -> Progress {
        let bar = terminal.then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template("{spinner} {elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress { bar, units, last_percent: None }
    }

    fn line(&self, text: &str) {
        match &self.bar {
            Some(b) => b.println(text),
            None => eprintln!("{text}"),
        }
    }

    fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

impl Observer for Progress {
    fn step_started(&mut self, index: usize, total: usize, step: &Step, remaining: TimeRange) {
        if let Some(b) = &self.bar {
            b.set_length(total as u64);
            b.set_position(index as u64);
            let phase = step.phase.as_deref().map(|p| format!("{p}: ")).unwrap_or_default();
            b.set_message(format!("{phase}{} (about {} left)", step.describe(), remaining.human()));
        }
    }

    fn step_finished(&mut self, index: usize, _step: &Step, result: &StepResult) {
        let line = format!("[{}] {}: {}", index + 1, result.id, step_line(result, self.units));
        match &self.bar {
            Some(b) => {
                b.println(line);
                b.set_position(index as u64 + 1);
            }
            None => eprintln!("{line}"),
        }
    }

    fn note(&mut self, message: &str) {
        self.line(&format!("note: {message}"));
    }

    /// A drive's erase reports how far it is: in the bar's message on a
    /// terminal, else a line each tenth passed (logs show it went on).
    fn progress(&mut self, what: &str, share: f64) {
        let percent = (share.clamp(0.0, 1.0) * 100.0).floor() as u32;
        match &self.bar {
            Some(b) => b.set_message(format!("{what}: {percent}% done")),
            None if self.last_percent.map(|p| p / 10) != Some(percent / 10) => {
                eprintln!("{what}: {percent}% done");
            }
            None => {}
        }
        self.last_percent = Some(percent);
    }
}
