//! `methodic import fio JOBFILE`: an fio job file goes in; a `.method`
//! text comes out, formatted as `methodic fmt` formats it, with one phase
//! and one measurement per job in the job file's order. Checks that fio
//! runs the jobs one after another and that every option says something
//! methodic can express the way fio means it; otherwise the file is
//! refused, every problem named with its line, section and option, and
//! nothing is written.
//!
//! The stages: `parse_job_file` (text to `[section]`s of options),
//! `sections_to_jobs` (`[global]` options inherited by the jobs after
//! them), `job_to_step` (a job's options to a workload, target settings
//! and a measurement), `steps_to_method` (the methodology text), then
//! `methodic_grammar::format`, and a compile as a last check.
//!
//! # How values are read
//!
//! As fio 3.33 reads them (`parse.c`, `options.c`), or refused where that
//! reading is not what the text seems to say:
//!
//! - Sizes: a whole number with an optional unit, any case. With fio's
//!   default `kb_base=1024`, `k`/`kb`, `m`/`mb`, `g`/`gb`, `t`/`tb` and
//!   `p`/`pb` are powers of 1024 (`4k` and `4kB` are 4096 bytes); fio
//!   reads IEC units the opposite way (`4KiB` is 4000 bytes), so those are
//!   refused with `kb_base=1024` and read as powers of 1024 with
//!   `kb_base=1000` (where `k` is 1000). `0x` hexadecimal without a unit
//!   is read. Refused: fractions (fio reads `1.5k` as 1 byte), units fio
//!   guesses from their first letter (`4kilo`), `$` substitutions and
//!   `(...)` arithmetic.
//! - Times: a whole number of seconds, or with `us`/`usec`, `ms`/`msec`,
//!   `s`, `m` (minutes), `h` or `d`. Any other unit fio reads as
//!   microseconds (`30sec` runs 30us, `5min` 5us): refused. Times that are
//!   not whole milliseconds are refused (methodic times to the ms).
//! - A space after `=` stays in fio's value: fio then refuses ` randread`
//!   and ignores units (` 4k` is 4 bytes, ` 500ms` 500 seconds). Such
//!   values are refused unless they are plain numbers; spaces before `=`
//!   are fine. fio has no comments after a value (it reads `10s # x` as
//!   10us), so a `#` or `;` inside a value is refused.
//! - Whole numbers (`iodepth`, `numjobs`, shares): digits only; fio would
//!   read `1k` as 1024 and `70.5` as 70. Booleans (`direct`): `0` or `1`,
//!   as fio needs. Flags (`time_based`, `stonewall`): bare, or a number
//!   (0 is off).
//!
//! # Options
//!
//! | fio option | methodic | decision |
//! |---|---|---|
//! | `rw` (`readwrite`) | `random` / `sequential`, `read N%` | `read`, `write`, `randread`, `randwrite`, `rw`/`readwrite`, `randrw`; fio's default is `read`. Trims and the `:N` modifier are refused |
//! | `rwmixread`, `rwmixwrite` | `read N%` | jobs that mix (default 50); on a job that does not mix, noted as ignored, as fio ignores it; both given must add up to 100 |
//! | `percentage_random` | `random N%` | random jobs only, one value |
//! | `bs` (`blocksize`) | `block SIZE` | one size for reads and writes (default 4k); `bs=4k,8k` refused |
//! | `bssplit` | `blocks { SIZE: N%, ... }` | fio's rule for sizes given without a share; the shares must add up to 100; one split for reads and writes; wins over `bs`, as in fio |
//! | `ba` (`blockalign`) | `align SIZE` | one value |
//! | `iodepth` | `qd N`, counted per worker | `conventions { queue_depth per_worker }`: fio's iodepth is per job. Above 1, refused with a synchronous engine (fio caps it at 1; `psync` is fio's default) and with libaio on buffered I/O |
//! | `numjobs` | `target { workers N }` | N workers, each at `iodepth`. On jobs with sequential I/O, refused unless `offset_increment` equals `size`: fio's clones otherwise each walk the whole region from its start, where methodic gives each worker its own stripe |
//! | `size` | `target { span }` | bytes or a share, per clone; absent or 0: `100%` |
//! | `offset` (`fileoffset`) | workload `offset`, span grown by it | bytes; a share refused; with `size` as a share, refused (methodic's offset lies inside the span) |
//! | `offset_increment` | the span holds one stripe a clone | sequential jobs only, equal to `size` (methodic's stripes are adjacent and of one size); ignored with one job |
//! | `runtime` (`timeout`), `time_based` | `measure ... for T` | without `time_based`, fio stops a job once it has moved `size`: write-only jobs become `until written` (with `for T` when a runtime is given, whichever comes first); jobs that read are refused. `time_based` without a runtime refused |
//! | `ramp_time` | `ramp T` | refused on a job that stops by size (fio counts the ramp's I/O towards it) |
//! | `loops`, `io_size` (`io_limit`) | `until written` | on write-only jobs that stop by size: each clone writes `io_size` (or `size`) `loops` times; refused with `time_based`, where fio repeats the job until the runtime ends |
//! | `direct`, `buffered` | `target { io direct }` / `io buffered` | fio's default is buffered; block sizes, alignment and offset of direct jobs must be whole 512B sectors |
//! | `invalidate` | `drop_caches` before a buffered step | fio's default 1: the file's cached pages are dropped when the job starts |
//! | `zero_buffers`, `buffer_compress_percentage` | `target { data zeros }` / `data compressible N%` | noted: both lay out the compressible share per 512B chunk |
//! | `kb_base` | how sizes are read; `units binary` or `decimal` | 1024 (default) or 1000 |
//! | `stonewall` (`wait_for_previous`) | phases in order | every job after the first needs it, itself or from `[global]`: fio runs jobs without it at the same time as the ones before, and methodic runs one step at a time |
//! | `name`, `description` | phase and workload names, comments | |
//! | `filename` | a comment | the target is given when the methodology runs; several files (`a:b`) refused |
//! | `ioengine` | a comment | methodic does its own I/O (io_uring, or psync where io_uring is unavailable); `libaio`, `io_uring`, `posixaio`, `sync`, `psync`, `vsync`, `pvsync`, `pvsync2` are noted, other engines (not plain file or block I/O) refused |
//! | `new_group`, `group_reporting`, `thread`, `randrepeat`, `randseed`, `norandommap`, `refill_buffers`, `scramble_buffers`, `write_bw_log`, `write_iops_log`, `write_lat_log`, `write_hist_log`, `log_*`, `per_job_logs`, `lat_percentiles`, `clat_percentiles`, `slat_percentiles`, `percentile_list`, `iodepth_batch*`, `fixedbufs`, `registerfiles`, `disable_lat`, `disable_slat`, `disable_clat`, `disable_bw_measurement` | comments | reporting, logs, random seeds and submission details, which change nothing methodic measures: dropped, each with a comment saying why |
//! | `verify`, `verify_*`, `do_verify` | refused | methodic does not check data read back (`0` is fine) |
//! | `rate*`, `thinktime*` | refused | methodic keeps the queue full, as fast as the target allows (`0` is fine) |
//! | `zonemode`, `zone*` | refused | one contiguous span, no zones (`zonemode=none` is fine) |
//! | `fsync`, `fdatasync`, `end_fsync`, `fsync_on_close`, `write_barrier`, `sync` | refused | no flushes, no O_SYNC (`0` is fine) |
//! | `number_ios` | refused | a step stops after a time or bytes written |
//! | `nrfiles`, `filesize`, `directory`, `openfiles`, `file_service_type` | refused | one file or device |
//! | `startdelay`, `wait_for` | refused | a step's workers start together, steps run in order |
//! | `cpus_allowed*`, `cpumask`, `numa_*` | refused | methodic places its workers itself (run it under taskset) |
//! | `iodepth_low`, `hipri`, `sqthread_poll` | refused | methodic refills its queue at once and does not poll |
//! | `random_distribution` | refused unless `random` | offsets are uniform |
//! | `steadystate` (`ss`), `steadystate_*`, `ss_*` | refused | methodic's steady state is the SNIA rule over rounds |
//! | `bsrange` (`blocksize_range`), `bs_unaligned`, `buffer_pattern`, `dedupe_percentage`, `buffer_compress_chunk`, `pre_read`, `continue_on_error`, `include` | refused | no equivalent |
//! | anything else | refused as unknown | with a "did you mean" for near misses |

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};
use methodic_compiler::plan::{Bytes, Duration, Percent};
use methodic_grammar::{did_you_mean, is_reserved};

use crate::cli::{count, display_name, read_input, write_output};

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The fio job file (`-` reads standard input).
    pub job: PathBuf,
    /// Where to write the methodology (`-`, the default, is standard output).
    /// Nothing is written when the job file cannot be imported.
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
    /// The methodology's name [default: the job file's name without its extension].
    #[arg(long)]
    pub name: Option<String>,
}

/// Reads the job file, imports it, writes the methodology; exits 1 with
/// every problem on stderr, and nothing written, when it cannot.
pub fn run(args: ImportArgs) -> Result<ExitCode> {
    let text = read_input(&args.job)?;
    let file = display_name(&args.job);
    let name = match &args.name {
        Some(name) => name.clone(),
        None => default_name(&args.job),
    };
    if name.trim().is_empty() {
        bail!("--name needs a name that is not blank");
    }
    match fio_to_method(&text, &file, &name) {
        Ok(imported) => {
            write_output(&args.output, &imported.text)?;
            let mut summary = format!("imported {} from {file}", count(imported.jobs, "job"));
            if args.output != Path::new("-") {
                summary = format!("wrote {}: {summary}", args.output.display());
            }
            if imported.dropped > 0 {
                summary.push_str(&format!(
                    "; {} not carried over (see the comments)",
                    count(imported.dropped, "option")
                ));
            }
            eprintln!("{summary}");
            Ok(ExitCode::SUCCESS)
        }
        Err(errors) => {
            for e in &errors {
                eprintln!("error: {e}");
                if let Some(hint) = &e.hint {
                    eprintln!("  hint: {hint}");
                }
            }
            eprintln!("{file}: {}; nothing written", count(errors.len(), "problem"));
            Ok(ExitCode::from(1))
        }
    }
}

/// The job file's name without its extension; `fio-import` for stdin.
fn default_name(path: &Path) -> String {
    if path == Path::new("-") {
        return "fio-import".to_string();
    }
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "fio-import".to_string())
}

/// A methodology made from a job file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The methodology, formatted as `methodic fmt` formats it.
    pub text: String,
    /// Jobs imported: one phase each.
    pub jobs: usize,
    /// Options left out, each with a comment in `text` saying why.
    pub dropped: usize,
}

/// Something in the job file that keeps it from being imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    pub kind: ImportErrorKind,
    /// The job file as the user named it.
    pub file: String,
    /// The line, from 1; 0 for the file as a whole.
    pub line: usize,
    /// The section the line is in (`global` for `[global]`).
    pub section: Option<String>,
    /// The option as written (`verify=crc32c`, `time_based`).
    pub option: Option<String>,
    pub detail: String,
    pub hint: Option<String>,
}

#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImportErrorKind {
    /// A line that is neither a `[section]`, an option nor a comment.
    Syntax,
    /// An option methodic import does not know: not fio's, or one it has
    /// no translation for.
    UnknownOption,
    /// An fio option whose effect methodic cannot express.
    Untranslatable,
    /// A value fio reads differently from what it says, or one methodic
    /// cannot hold.
    BadValue,
    /// Options of one job that cannot be translated together.
    Conflict,
    /// A job fio runs at the same time as the one before it.
    Concurrent,
    /// A file without a job.
    NoJobs,
    /// The translation does not compile: a bug in methodic import.
    Internal,
}

impl ImportErrorKind {
    fn word(self) -> &'static str {
        match self {
            ImportErrorKind::Syntax => "syntax error",
            ImportErrorKind::UnknownOption => "unknown option",
            ImportErrorKind::Untranslatable => "cannot translate",
            ImportErrorKind::BadValue => "cannot use the value",
            ImportErrorKind::Conflict => "cannot translate",
            ImportErrorKind::Concurrent => "jobs run at the same time",
            ImportErrorKind::NoJobs => "no job",
            ImportErrorKind::Internal => "bug in methodic import (please report it with the job file)",
        }
    }
}

impl fmt::Display for ImportError {
    /// `cannot translate `verify=crc32c`: methodic does not check ... (in job.fio:7, [randread])`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind.word())?;
        if let Some(option) = &self.option {
            write!(f, " `{option}`")?;
        }
        write!(f, ": {} (in {}", self.detail, self.file)?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        if let Some(section) = &self.section {
            write!(f, ", [{section}]")?;
        }
        write!(f, ")")
    }
}

impl std::error::Error for ImportError {}

/// Job file text to a methodology: `file` names the job file in the
/// methodology's header comment and in errors, `name` is the
/// methodology's name. Every problem is returned, not only the first.
pub fn fio_to_method(text: &str, file: &str, name: &str) -> Result<Imported, Vec<ImportError>> {
    let (sections, mut errors) = parse_job_file(text);
    let jobs = sections_to_jobs(&sections);
    if jobs.is_empty() {
        errors.push(
            Problem::new(ImportErrorKind::NoJobs, 0, "the file has no job section, only [global] or nothing")
                .hint("a job is a section such as [randread] with its options below it"),
        );
    }
    let mut steps = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        if i > 0 {
            errors.extend(concurrent(&jobs[i - 1], job));
        }
        let (step, problems) = job_to_step(job);
        errors.extend(problems);
        steps.extend(step);
    }
    let mut seen = HashSet::new();
    errors.retain(|p| seen.insert(p.clone()));
    errors.sort_by_key(|p| p.line);
    if !errors.is_empty() {
        return Err(errors.into_iter().map(|p| p.into_error(file)).collect());
    }
    let source = steps_to_method(&steps, file, name, &sections);
    let internal = |detail: String| vec![Problem::new(ImportErrorKind::Internal, 0, detail).into_error(file)];
    let text = methodic_grammar::format(&source)
        .map_err(|d| internal(format!("the methodology made does not parse: {d}")))?;
    if let Err(d) = methodic_compiler::compile(&text, &methodic_compiler::Options::default()) {
        return Err(internal(format!("the methodology made does not compile: {d}")));
    }
    let dropped = steps
        .iter()
        .flat_map(|s| &s.notes)
        .filter(|n| n.dropped)
        .map(|n| (n.line, &n.text))
        .collect::<HashSet<_>>()
        .len();
    Ok(Imported { text, jobs: steps.len(), dropped })
}

// ---------------------------------------------------------------- problems

/// An [`ImportError`] before the file name is known.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Problem {
    kind: ImportErrorKind,
    line: usize,
    section: Option<String>,
    option: Option<String>,
    detail: String,
    hint: Option<String>,
}

impl Problem {
    fn new(kind: ImportErrorKind, line: usize, detail: impl Into<String>) -> Problem {
        Problem { kind, line, section: None, option: None, detail: detail.into(), hint: None }
    }

    /// A problem with an option as it was written.
    fn at(kind: ImportErrorKind, entry: &Entry, detail: impl Into<String>) -> Problem {
        Problem {
            kind,
            line: entry.line,
            section: Some(entry.section.clone()),
            option: Some(entry.written()),
            detail: detail.into(),
            hint: None,
        }
    }

    fn hint(mut self, hint: impl Into<String>) -> Problem {
        self.hint = Some(hint.into());
        self
    }

    fn into_error(self, file: &str) -> ImportError {
        ImportError {
            kind: self.kind,
            file: file.to_string(),
            line: self.line,
            section: self.section,
            option: self.option,
            detail: self.detail,
            hint: self.hint,
        }
    }
}

// ---------------------------------------------------------------- job file

/// One `key=value` or bare `flag` line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// As written (fio's option names are case-sensitive).
    key: String,
    /// The text after `=`, without trailing blanks; leading blanks are
    /// kept, as fio keeps them.
    value: Option<String>,
    line: usize,
    /// The section it was written in.
    section: String,
}

impl Entry {
    /// `bs=4k`, or `time_based` for a flag; a space after `=` is kept.
    fn written(&self) -> String {
        match &self.value {
            Some(v) => format!("{}={v}", self.key),
            None => self.key.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Section {
    name: String,
    line: usize,
    entries: Vec<Entry>,
}

impl Section {
    fn is_global(&self) -> bool {
        self.name == "global"
    }
}

/// Job file text to its sections, as fio reads an ini file: blanks around
/// a line dropped, lines whose first character is `;` or `#` are
/// comments, `[name]` opens a section, every other line is `key=value`
/// or a bare `key`.
fn parse_job_file(text: &str) -> (Vec<Section>, Vec<Problem>) {
    let mut sections: Vec<Section> = Vec::new();
    let mut problems = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with(';') || trimmed.starts_with('#') {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix('[') {
            let Some(name) = rest.strip_suffix(']') else {
                problems.push(
                    Problem::new(
                        ImportErrorKind::Syntax,
                        line,
                        format!("`{trimmed}` opens a section without closing it"),
                    )
                    .hint("write a section header as [name]"),
                );
                continue;
            };
            if name.trim().is_empty() {
                problems.push(Problem::new(ImportErrorKind::Syntax, line, "a section without a name"));
                continue;
            }
            if name.starts_with("global") && name != "global" {
                problems.push(
                    Problem::new(
                        ImportErrorKind::Syntax,
                        line,
                        format!("fio takes [{name}] for a [global] section, as it starts with `global`"),
                    )
                    .hint("name it [global] if it holds defaults for the jobs after it, or rename the job"),
                );
            }
            sections.push(Section { name: name.to_string(), line, entries: Vec::new() });
            continue;
        }
        let Some(section) = sections.last_mut() else {
            problems.push(
                Problem::new(
                    ImportErrorKind::Syntax,
                    line,
                    format!("`{trimmed}` stands before any [section]"),
                )
                .hint("fio refuses options outside a section: put it under [global] or under a job"),
            );
            continue;
        };
        if trimmed.starts_with("include ") || trimmed == "include" {
            problems.push(Problem {
                section: Some(section.name.clone()),
                option: Some(trimmed.to_string()),
                ..Problem::new(
                    ImportErrorKind::Untranslatable,
                    line,
                    "methodic import reads one job file; it does not follow `include`",
                )
                .hint("paste the included options into the job file")
            });
            continue;
        }
        let (key, value) = match trimmed.split_once('=') {
            Some((k, v)) => (k.trim_end(), Some(v.to_string())),
            None => (trimmed, None),
        };
        if key.is_empty() {
            problems.push(Problem::new(
                ImportErrorKind::Syntax,
                line,
                format!("`{trimmed}` has no option name before `=`"),
            ));
            continue;
        }
        section.entries.push(Entry { key: key.to_string(), value, line, section: section.name.clone() });
    }
    (sections, problems)
}

/// A job with the options it runs with.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Job {
    section: String,
    line: usize,
    /// The `[global]` options before the job, then its own; for each
    /// option the last one counts, as in fio.
    entries: Vec<Entry>,
}

impl Job {
    /// The option that counts, by its canonical name.
    fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().rev().find(|e| canonical(&e.key) == name)
    }

    /// The name fio reports the job under: `name=`, or the section's.
    fn name(&self) -> String {
        match self.get("name").and_then(|e| e.value.as_deref()).map(str::trim) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => self.section.clone(),
        }
    }
}

/// Sections to jobs: each job gets the `[global]` options written before
/// it (a later `[global]` changes only the jobs after it, as in fio).
fn sections_to_jobs(sections: &[Section]) -> Vec<Job> {
    let mut globals: Vec<Entry> = Vec::new();
    let mut jobs = Vec::new();
    for s in sections {
        if s.is_global() || s.name.starts_with("global") {
            globals.extend(s.entries.iter().cloned());
        } else {
            let mut entries = globals.clone();
            entries.extend(s.entries.iter().cloned());
            jobs.push(Job { section: s.name.clone(), line: s.line, entries });
        }
    }
    jobs
}

/// fio starts a job together with the ones before it unless it has
/// `stonewall`.
fn concurrent(before: &Job, job: &Job) -> Option<Problem> {
    let stonewall = match job.get("stonewall") {
        Some(e) => fio_flag(e.value.as_deref()).unwrap_or(true),
        None => false,
    };
    if stonewall {
        return None;
    }
    Some(Problem {
        section: Some(job.section.clone()),
        ..Problem::new(
            ImportErrorKind::Concurrent,
            job.line,
            format!(
                "fio starts [{}] at the same time as [{}] (line {}), as [{}] has no `stonewall`; \
                 methodic runs one step at a time, so neither would be measured as fio runs it",
                job.section, before.section, before.line, job.section
            ),
        )
        .hint(format!(
            "add `stonewall` to [{}] (or to [global]) to run the jobs one after another, as the \
             methodology will; or make them one job, with numjobs for parallel workers",
            job.section
        ))
    })
}

// ---------------------------------------------------------------- options

/// What import does with an option.
#[derive(Debug, Clone, Copy)]
enum Handling {
    /// Read into the methodology by [`job_to_step`].
    Translated,
    /// Left out, with a comment saying why that changes nothing measured.
    Dropped(&'static str),
    /// Refused, unless its value is one of `harmless` (fio's default, or off).
    Refused { why: &'static str, harmless: &'static [&'static str] },
}

#[derive(Debug, Clone, Copy)]
struct Opt {
    /// fio's name; ending in `*`, a prefix naming a family of options.
    name: &'static str,
    aliases: &'static [&'static str],
    handling: Handling,
}

const fn translated(name: &'static str, aliases: &'static [&'static str]) -> Opt {
    Opt { name, aliases, handling: Handling::Translated }
}

const fn dropped(name: &'static str, why: &'static str) -> Opt {
    Opt { name, aliases: &[], handling: Handling::Dropped(why) }
}

const fn refused(name: &'static str, why: &'static str, harmless: &'static [&'static str]) -> Opt {
    Opt { name, aliases: &[], handling: Handling::Refused { why, harmless } }
}

const REPORTING_GROUPS: &str = "a reporting group only: methodic reports each step on its own";
const GROUP_REPORTING: &str =
    "methodic reports each step with all its workers together, as group_reporting does";
const THREAD: &str = "methodic's workers are threads";
const SEED: &str =
    "methodic draws random offsets from its own generator (`methodic run --seed N` repeats them)";
const NORANDOMMAP: &str = "methodic draws random offsets independently, as fio does with norandommap";
const BUFFERS: &str =
    "methodic writes fresh, incompressible bytes in every write anyway (no two 512B chunks alike)";
const LOGS: &str = "methodic records a per-second series and a latency histogram of every step itself";
const PERCENTILES: &str = "methodic reports p50, p99, p99.9, p99.99 and the maximum latency itself";
const BATCH: &str = "methodic submits each I/O as it is ready (fio's default) and reaps every completion ready, keeping the queue depth";
const REGISTER: &str = "methodic's io_uring engine registers its buffers and files itself";
const ACCOUNTING: &str =
    "methodic records one latency an I/O, from submission to completion, whatever fio measures";

const VERIFY: &str = "methodic does not check the data it reads back";
const RATE: &str = "methodic runs every step as fast as the target allows: it has no rate limit";
const THINK: &str = "methodic keeps the queue full, with no pause between I/Os";
const ZONES: &str = "methodic works on one contiguous span (`span` and `offset`), without zones";
const FLUSH: &str = "methodic sends no flush (fsync) during a step";
const SYNC_OPEN: &str = "methodic does not open the target with O_SYNC or O_DSYNC";
const IO_COUNT: &str =
    "methodic stops a step after a time, or after bytes written; not after a count of I/Os";
const FILES: &str = "methodic works on one file or device, given when the methodology runs";
const START: &str = "methodic starts the workers of a step together, and runs steps one after another";
const CPUS: &str = "methodic places its workers itself, within the CPUs it may use (run it under taskset \
                    to restrict them)";
const IODEPTH_LOW: &str = "methodic refills its queue as soon as an I/O completes";
const POLL: &str = "methodic waits for completions; it does not poll for them";
const DISTRIBUTION: &str = "methodic draws random offsets uniformly over the span";
const STEADY: &str = "methodic's steady state is the SNIA rule over rounds (`precondition ... until steady`), \
                      a different test from fio's";
const BSRANGE: &str = "methodic takes block sizes with their shares of I/Os (bssplit), not a range";
const UNALIGNED: &str = "methodic aligns I/O to `align` (by default the smallest block size)";
const PATTERN: &str =
    "methodic writes random data, zeros or compressible data (`target { data }`), not a pattern";
const DEDUPE: &str = "methodic's data cannot be deduplicated, by design";
const CHUNK: &str = "methodic lays out compressible data per 512B chunk, fio's default; no other chunk size";
const PRE_READ: &str = "methodic does not read the span into the page cache before a step";
const CONTINUE: &str =
    "methodic ends a step at its first I/O error (`on_error continue` goes on to the next step)";

/// Every option methodic import knows, looked up by name or alias;
/// families (`verify_*`) after the exact names.
const OPTIONS: &[Opt] = &[
    translated("rw", &["readwrite"]),
    translated("rwmixread", &[]),
    translated("rwmixwrite", &[]),
    translated("percentage_random", &[]),
    translated("bs", &["blocksize"]),
    translated("bssplit", &[]),
    translated("ba", &["blockalign"]),
    translated("iodepth", &[]),
    translated("numjobs", &[]),
    translated("size", &[]),
    translated("offset", &["fileoffset"]),
    translated("runtime", &["timeout"]),
    translated("time_based", &[]),
    translated("ramp_time", &[]),
    translated("loops", &[]),
    translated("direct", &[]),
    translated("buffered", &[]),
    translated("invalidate", &[]),
    translated("zero_buffers", &[]),
    translated("buffer_compress_percentage", &[]),
    translated("kb_base", &[]),
    translated("stonewall", &["wait_for_previous"]),
    translated("name", &[]),
    translated("description", &[]),
    translated("filename", &[]),
    translated("ioengine", &[]),
    dropped("new_group", REPORTING_GROUPS),
    dropped("group_reporting", GROUP_REPORTING),
    dropped("thread", THREAD),
    dropped("randrepeat", SEED),
    dropped("randseed", SEED),
    dropped("norandommap", NORANDOMMAP),
    dropped("refill_buffers", BUFFERS),
    dropped("scramble_buffers", BUFFERS),
    dropped("write_bw_log", LOGS),
    dropped("write_iops_log", LOGS),
    dropped("write_lat_log", LOGS),
    dropped("write_hist_log", LOGS),
    dropped("per_job_logs", LOGS),
    dropped("lat_percentiles", PERCENTILES),
    dropped("clat_percentiles", PERCENTILES),
    dropped("slat_percentiles", PERCENTILES),
    dropped("percentile_list", PERCENTILES),
    dropped("disable_lat", ACCOUNTING),
    dropped("disable_slat", ACCOUNTING),
    dropped("disable_clat", ACCOUNTING),
    dropped("disable_bw_measurement", ACCOUNTING),
    dropped("fixedbufs", REGISTER),
    dropped("registerfiles", REGISTER),
    refused("verify", VERIFY, &["0"]),
    refused("do_verify", VERIFY, &["0"]),
    refused("rate", RATE, &["0"]),
    refused("ratemin", RATE, &["0"]),
    refused("thinktime", THINK, &["0"]),
    refused("zonemode", ZONES, &["none"]),
    refused("fsync", FLUSH, &["0"]),
    refused("fdatasync", FLUSH, &["0"]),
    refused("end_fsync", FLUSH, &["0"]),
    refused("fsync_on_close", FLUSH, &["0"]),
    refused("write_barrier", FLUSH, &["0"]),
    refused("sync", SYNC_OPEN, &["0", "none"]),
    translated("offset_increment", &[]),
    translated("io_size", &["io_limit"]),
    refused("number_ios", IO_COUNT, &["0"]),
    Opt { aliases: &["nr_files"], ..refused("nrfiles", FILES, &["1"]) },
    refused("filesize", FILES, &[]),
    refused("directory", FILES, &[]),
    refused("openfiles", FILES, &[]),
    refused("file_service_type", FILES, &[]),
    refused("startdelay", START, &["0"]),
    refused("wait_for", START, &[]),
    refused("cpumask", CPUS, &[]),
    refused("iodepth_low", IODEPTH_LOW, &[]),
    refused("hipri", POLL, &["0"]),
    refused("sqthread_poll", POLL, &["0"]),
    refused("random_distribution", DISTRIBUTION, &["random"]),
    Opt { aliases: &["ss"], ..refused("steadystate", STEADY, &[]) },
    Opt { aliases: &["blocksize_range"], ..refused("bsrange", BSRANGE, &[]) },
    Opt { aliases: &["blocksize_unaligned"], ..refused("bs_unaligned", UNALIGNED, &["0"]) },
    refused("buffer_pattern", PATTERN, &[]),
    refused("dedupe_percentage", DEDUPE, &["0"]),
    refused("buffer_compress_chunk", CHUNK, &["512"]),
    refused("pre_read", PRE_READ, &["0"]),
    refused("continue_on_error", CONTINUE, &["none", "0"]),
    dropped("log_*", LOGS),
    dropped("iodepth_batch*", BATCH),
    refused("verify_*", VERIFY, &[]),
    refused("rate_*", RATE, &["0"]),
    refused("thinktime_*", THINK, &["0"]),
    refused("zone*", ZONES, &[]),
    refused("cpus_allowed*", CPUS, &[]),
    refused("numa_*", CPUS, &[]),
    refused("steadystate_*", STEADY, &[]),
    refused("ss_*", STEADY, &[]),
];

fn lookup(key: &str) -> Option<&'static Opt> {
    OPTIONS.iter().find(|o| o.name == key || o.aliases.contains(&key)).or_else(|| {
        OPTIONS.iter().find(|o| o.name.strip_suffix('*').is_some_and(|prefix| key.starts_with(prefix)))
    })
}

/// The name an option counts under: fio's name for a known option or
/// alias, the key itself for members of a family and unknown options.
fn canonical(key: &str) -> &str {
    match lookup(key) {
        Some(o) if !o.name.ends_with('*') => o.name,
        _ => key,
    }
}

// ---------------------------------------------------------------- values

/// A value that cannot be translated, with what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Refusal {
    detail: String,
    hint: Option<String>,
}

fn refusal(detail: impl Into<String>) -> Refusal {
    Refusal { detail: detail.into(), hint: None }
}

impl Refusal {
    fn hint(mut self, hint: impl Into<String>) -> Refusal {
        self.hint = Some(hint.into());
        self
    }
}

/// How fio reads size units (`kb_base`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KbBase {
    /// fio's default: `k` is 1024, and IEC units (`KiB`) are read as
    /// powers of 1000.
    Compat1024,
    /// SI: `k` is 1000, `KiB` 1024.
    Si1000,
}

/// A size as fio reads it: bytes, or a share of the file or device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FioSize {
    Bytes(Bytes),
    Percent(Percent),
}

/// What fio would substitute or compute when it runs.
fn substituted(raw: &str) -> Result<(), Refusal> {
    if raw.contains('$') {
        return Err(refusal(
            "fio substitutes `$` variables when it runs; methodic import needs the value written out",
        ));
    }
    if raw.trim_start().starts_with('(') {
        return Err(refusal(
            "fio computes `(...)` expressions when it runs; methodic import needs the value written out",
        ));
    }
    if raw.contains('#') || raw.contains(';') {
        return Err(refusal(
            "fio has no comments after a value: it reads what follows as part of it (`runtime=10s # x` \
             runs 10 microseconds)",
        )
        .hint("put the comment on a line of its own"));
    }
    Ok(())
}

/// A value's leading digits and the rest; blanks before it dropped.
fn split_number(raw: &str) -> (&str, &str) {
    let s = raw.trim_start();
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s.split_at(end)
}

/// A size, read as fio reads it (see the module docs).
fn fio_size(raw: &str, kb: KbBase, percent_ok: bool) -> Result<FioSize, Refusal> {
    substituted(raw)?;
    let spaced = raw.starts_with(char::is_whitespace);
    let s = raw.trim_start();
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return u64::from_str_radix(hex, 16)
                .map(|n| FioSize::Bytes(Bytes(n)))
                .map_err(|_| refusal(format!("`{s}` is too large")));
        }
        return Err(refusal(format!(
            "fio reads `{s}` as hexadecimal up to its first other character, and ignores a unit after it"
        ))
        .hint("write the size in decimal, with a unit such as k or m"));
    }
    let (number, unit) = split_number(s);
    if number.is_empty() {
        return Err(refusal(format!("`{s}` is not a size")).hint("write a size such as 4k, 128k, 1m or 16g"));
    }
    let n: u64 = number.parse().map_err(|_| refusal(format!("`{s}` is too large")))?;
    if unit.starts_with('.') {
        return Err(refusal(format!(
            "fio reads `{s}` as {}: it stops at the `.`, as a size has no fraction",
            bytes(n)
        ))
        .hint("write it in a smaller unit, such as 1536k for 1.5m"));
    }
    if unit.is_empty() {
        return Ok(FioSize::Bytes(Bytes(n)));
    }
    if spaced {
        return Err(refusal(format!(
            "fio keeps the space after `=` in the value and then ignores the unit: it reads `{raw}` as {}",
            bytes(n)
        ))
        .hint(format!("write the value right after `=`: `={s}`")));
    }
    let lower = unit.to_ascii_lowercase();
    if lower == "%" {
        if !percent_ok {
            return Err(refusal(format!("`{s}` is a share, and a size is needed here")));
        }
        let hundredths = u32::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(100))
            .ok_or_else(|| refusal(format!("`{s}` is too large")))?;
        return Ok(FioSize::Percent(Percent::from_hundredths(hundredths)));
    }
    let (pow, iec) = match lower.as_str() {
        "b" => (0, false),
        "k" | "kb" => (1, false),
        "m" | "mb" => (2, false),
        "g" | "gb" => (3, false),
        "t" | "tb" => (4, false),
        "p" | "pb" => (5, false),
        "kib" => (1, true),
        "mib" => (2, true),
        "gib" => (3, true),
        "tib" => (4, true),
        "pib" => (5, true),
        _ => {
            return Err(refusal(format!(
                "`{unit}` is not a size unit: fio guesses a unit from its first letter, or ignores it"
            ))
            .hint("write k, m, g, t or p (powers of 1024 with fio's default kb_base=1024)"));
        }
    };
    let base: u64 = match (kb, iec) {
        (KbBase::Compat1024, true) => {
            let fio_reads = n.checked_mul(1000u64.pow(pow));
            let meant = n.checked_mul(1024u64.pow(pow));
            let short = &lower[..1];
            return Err(refusal(format!(
                "with kb_base=1024 (fio's default) fio reads `{s}` as {} bytes: in that mode IEC units \
                 mean powers of 1000, the opposite of what they say",
                fio_reads.map_or_else(|| "too many".to_string(), |b| b.to_string())
            ))
            .hint(format!(
                "write `{n}{short}` for {}, or set kb_base=1000, where `{s}` means what it says",
                meant.map_or_else(|| "more".to_string(), bytes)
            )));
        }
        (KbBase::Compat1024, false) | (KbBase::Si1000, true) => 1024,
        (KbBase::Si1000, false) => 1000,
    };
    n.checked_mul(base.pow(pow))
        .map(|b| FioSize::Bytes(Bytes(b)))
        .ok_or_else(|| refusal(format!("`{s}` is too large")))
}

/// `1 byte`, `4 bytes`.
fn bytes(n: u64) -> String {
    if n == 1 { "1 byte".to_string() } else { format!("{n} bytes") }
}

/// A size in bytes, never a share.
fn fio_bytes(raw: &str, kb: KbBase) -> Result<Bytes, Refusal> {
    match fio_size(raw, kb, false)? {
        FioSize::Bytes(b) => Ok(b),
        FioSize::Percent(_) => unreachable!("shares are refused when not asked for"),
    }
}

/// A time (`runtime`, `ramp_time`): seconds without a unit.
fn fio_time(raw: &str) -> Result<Duration, Refusal> {
    substituted(raw)?;
    let spaced = raw.starts_with(char::is_whitespace);
    let s = raw.trim_start();
    let (number, unit) = split_number(s);
    if number.is_empty() {
        return Err(refusal(format!("`{s}` is not a time"))
            .hint("write a time such as 60 (seconds), 500ms, 5m or 1h"));
    }
    let n: u64 = number.parse().map_err(|_| refusal(format!("`{s}` is too long")))?;
    if unit.starts_with('.') {
        return Err(refusal(format!("fio reads `{s}` as {n} seconds: it stops at the `.`"))
            .hint("write it in a smaller unit, such as 1500ms"));
    }
    if !unit.is_empty() && spaced {
        return Err(refusal(format!(
            "fio keeps the space after `=` in the value and then ignores the unit: it reads `{raw}` as {n} seconds"
        ))
        .hint(format!("write the value right after `=`: `={s}`")));
    }
    let micros: u64 = match unit.to_ascii_lowercase().as_str() {
        "us" | "usec" => 1,
        "ms" | "msec" => 1_000,
        "" | "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => {
            return Err(refusal(format!(
                "fio reads `{s}` as {n} microseconds: it knows the units us, ms, s, m, h and d, \
                 and takes any other for microseconds"
            ))
            .hint("write seconds as `s` (or no unit), minutes as `m`, hours as `h`"));
        }
    };
    let us = n.checked_mul(micros).ok_or_else(|| refusal(format!("`{s}` is too long")))?;
    if us % 1000 != 0 {
        return Err(refusal(format!(
            "`{s}` is not a whole number of milliseconds, and methodic times steps to the millisecond"
        )));
    }
    Ok(Duration::from_millis(us / 1000))
}

/// A whole number, digits only.
fn fio_int(raw: &str) -> Result<u64, Refusal> {
    substituted(raw)?;
    let (number, rest) = split_number(raw);
    if number.is_empty() {
        return Err(refusal(format!("`{}` is not a whole number", raw.trim())));
    }
    if !rest.is_empty() {
        return Err(refusal(format!(
            "`{}` is not a plain whole number: fio reads units and fractions here in ways that are easy \
             to misread (`1k` is 1024, `70.5` is 70)",
            raw.trim()
        ))
        .hint("write the number out, such as 32"));
    }
    number.parse().map_err(|_| refusal(format!("`{number}` is too large")))
}

/// A boolean option: `0` or `1`, and fio needs the value.
fn fio_bool(raw: Option<&str>) -> Result<bool, Refusal> {
    let Some(raw) = raw else {
        return Err(refusal("fio needs a value here: 0 or 1"));
    };
    match fio_int(raw)? {
        0 => Ok(false),
        1 => Ok(true),
        n => Err(refusal(format!("fio takes 0 or 1 here, not {n}"))),
    }
}

/// A flag: bare, or a number (0 is off).
fn fio_flag(raw: Option<&str>) -> Result<bool, Refusal> {
    match raw {
        None => Ok(true),
        Some(raw) => Ok(fio_int(raw)? != 0),
    }
}

/// `bssplit=4k/10:64k/50:...`: sizes with their shares of I/Os, smallest
/// first. Sizes without a share (or with `/0`) split what the others leave,
/// as fio splits it.
fn fio_bssplit(raw: &str, kb: KbBase) -> Result<Vec<(Bytes, Percent)>, Refusal> {
    substituted(raw)?;
    let s = raw.trim();
    if s.contains(',') {
        return Err(refusal(
            "a split for reads, another for writes (`,`): methodic uses one split for all I/O",
        )
        .hint("give one split, such as bssplit=4k/50:64k/50"));
    }
    if s.contains(char::is_whitespace) {
        return Err(refusal(
            "a space inside the split: fio then ignores the unit of the size after it (` 64k` is 64 bytes)",
        )
        .hint("write the split without spaces"));
    }
    let parts: Vec<&str> = s.split(':').collect();
    // fio stops at an empty entry: a trailing `:` is harmless, `::` is not.
    let last = parts.iter().rposition(|p| !p.is_empty()).map_or(0, |i| i + 1);
    if parts[..last].iter().any(|p| p.is_empty()) {
        return Err(refusal("fio stops reading the split at `::` and ignores the sizes after it"));
    }
    let mut entries: Vec<(Bytes, Option<u64>)> = Vec::new();
    for part in &parts[..last] {
        let (size, share) = match part.split_once('/') {
            Some((size, share)) => (size, Some(share)),
            None => (*part, None),
        };
        let size = fio_bytes(size, kb)?;
        if size.0 == 0 {
            return Err(refusal("a block size of 0 moves no data"));
        }
        let share = match share {
            None => None,
            Some(share) => {
                if share.is_empty() || !share.chars().all(|c| c.is_ascii_digit()) {
                    return Err(refusal(format!(
                        "the share `{share}` of {size} is not a whole percentage: fio keeps the digits before \
                         anything else (`33.5` is 33)"
                    )));
                }
                match share.parse::<u64>() {
                    Ok(0) => None,
                    Ok(p) if p <= 100 => Some(p),
                    _ => return Err(refusal(format!("a share of {share}% for {size} is over 100%"))),
                }
            }
        };
        entries.push((size, share));
    }
    if entries.is_empty() {
        return Err(refusal("an empty split"));
    }
    let given: u64 = entries.iter().filter_map(|e| e.1).sum();
    let missing = entries.iter().filter(|e| e.1.is_none()).count() as u64;
    if given > 100 {
        return Err(refusal(format!("the shares add up to {given}%, over 100%")));
    }
    // fio gives each size without a share the same whole percent.
    let left = 100 - given;
    let (each, rest) = (left.checked_div(missing).unwrap_or(0), left.checked_rem(missing).unwrap_or(0));
    if rest > 0 {
        return Err(refusal(format!(
            "fio splits the {left}% left over the {missing} sizes without a share by whole percents, \
             {each}% each, and leaves {rest}% to one of the sizes"
        ))
        .hint("give every size its share, adding up to 100"));
    }
    let mut out: Vec<(Bytes, u64)> = Vec::new();
    for (size, share) in entries {
        let share = share.unwrap_or(each);
        if share == 0 {
            return Err(
                refusal(format!("{size} gets no share of the I/Os")).hint("leave it out, or give it a share")
            );
        }
        match out.iter_mut().find(|(s, _)| *s == size) {
            Some((_, p)) => *p += share,
            None => out.push((size, share)),
        }
    }
    let total: u64 = out.iter().map(|(_, p)| p).sum();
    if total != 100 {
        return Err(refusal(format!(
            "the shares add up to {total}%, not 100%: fio gives what is left to one of the sizes"
        ))
        .hint("make the shares add up to 100"));
    }
    out.sort_by_key(|(s, _)| *s);
    Ok(out.into_iter().map(|(s, p)| (s, Percent::whole(p as u32))).collect())
}

// ---------------------------------------------------------------- translation

/// One job, translated.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Step {
    /// The name fio reports the job under.
    name: String,
    section: String,
    line: usize,
    /// The translated options that count for the job, as written.
    options: Vec<String>,
    description: Option<String>,
    notes: Vec<Note>,
    random: Percent,
    read: Percent,
    blocks: Vec<(Bytes, Percent)>,
    align: Option<Bytes>,
    offset: Bytes,
    span: FioSpan,
    workers: u64,
    qd: u64,
    direct: bool,
    data: Data,
    drop_caches: bool,
    ramp: Duration,
    stop: Stop,
    /// Binary units unless the job reads sizes as fio's kb_base=1000.
    binary: bool,
    /// fio tracks which blocks random I/O has touched (no `norandommap`).
    random_map: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FioSpan {
    Percent(Percent),
    Bytes(Bytes),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Data {
    Random,
    Zeros,
    Compressible(Percent),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// `time_based`: for the runtime.
    Time(Duration),
    /// Until this much is written, or after the runtime if one is given.
    Written { written: FioSpan, time: Option<Duration> },
}

/// Something left out or read differently, said in a comment.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Note {
    line: usize,
    /// Whether it concerns an option of `[global]` as a whole, said once at
    /// the top, rather than this job.
    global: bool,
    /// Whether an option was left out (counted in [`Imported::dropped`]).
    dropped: bool,
    text: String,
}

/// The access pattern `rw` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rw {
    Read,
    Write,
    RandRead,
    RandWrite,
    Mixed,
    RandMixed,
}

impl Rw {
    fn random(self) -> bool {
        matches!(self, Rw::RandRead | Rw::RandWrite | Rw::RandMixed)
    }

    fn mixed(self) -> bool {
        matches!(self, Rw::Mixed | Rw::RandMixed)
    }
}

/// Marks a value whose problem is already recorded.
struct Reported;

type Got<T> = Result<T, Reported>;

/// Reads a job's options, collecting problems and notes.
struct JobReader<'j> {
    job: &'j Job,
    problems: Vec<Problem>,
    notes: Vec<Note>,
}

impl<'j> JobReader<'j> {
    fn get(&self, name: &str) -> Option<&'j Entry> {
        self.job.get(name)
    }

    fn problem(&mut self, kind: ImportErrorKind, entry: &Entry, r: Refusal) -> Reported {
        let mut p = Problem::at(kind, entry, r.detail);
        p.hint = r.hint;
        self.problems.push(p);
        Reported
    }

    fn note(&mut self, entry: &Entry, global: bool, dropped: bool, text: impl AsRef<str>) {
        let global = global && entry.section == "global";
        self.notes.push(Note {
            line: entry.line,
            global,
            dropped,
            text: format!("{} (line {}): {}", entry.written(), entry.line, text.as_ref()),
        });
    }

    /// The option `name` read with `parse`; `None` when not given.
    fn read<T>(
        &mut self,
        name: &str,
        parse: impl FnOnce(Option<&str>) -> Result<T, Refusal>,
    ) -> Got<Option<T>> {
        let Some(e) = self.get(name) else { return Ok(None) };
        parse(e.value.as_deref()).map(Some).map_err(|r| self.problem(ImportErrorKind::BadValue, e, r))
    }

    fn int(&mut self, name: &str, min: u64, max: u64) -> Got<Option<u64>> {
        let n = self.read(name, |v| fio_int(need(v)?))?;
        match n {
            Some(n) if n < min || n > max => {
                let e = self.get(name).expect("read above");
                let range =
                    if max == u64::MAX { format!("at least {min}") } else { format!("{min} to {max}") };
                Err(self.problem(
                    ImportErrorKind::BadValue,
                    e,
                    refusal(format!("{name} is {range}, not {n}")),
                ))
            }
            n => Ok(n),
        }
    }

    fn time(&mut self, name: &str) -> Got<Option<Duration>> {
        self.read(name, |v| fio_time(need(v)?))
    }

    fn bool(&mut self, name: &str) -> Got<Option<bool>> {
        self.read(name, fio_bool)
    }

    fn flag(&mut self, name: &str) -> Got<bool> {
        Ok(self.read(name, fio_flag)?.unwrap_or(false))
    }

    /// A value that must start right after `=` (fio refuses it otherwise).
    fn word(&mut self, name: &str) -> Got<Option<(&'j Entry, &'j str)>> {
        let Some(e) = self.get(name) else { return Ok(None) };
        match e.value.as_deref() {
            None => Err(self.problem(
                ImportErrorKind::BadValue,
                e,
                refusal(format!("fio needs a value: `{name}=...`")),
            )),
            Some(v) if v.starts_with(char::is_whitespace) => Err(self.problem(
                ImportErrorKind::BadValue,
                e,
                refusal(format!("fio keeps the space after `=` in the value, and then does not know `{v}`"))
                    .hint(format!("write the value right after `=`: `{name}={}`", v.trim())),
            )),
            Some(v) => {
                substituted(v).map_err(|r| self.problem(ImportErrorKind::BadValue, e, r))?;
                Ok(Some((e, v)))
            }
        }
    }

    /// Unknown, refused and dropped options: what counts of each.
    fn other_options(&mut self) {
        let mut seen = HashSet::new();
        let mut effective: Vec<&'j Entry> =
            self.job.entries.iter().rev().filter(|e| seen.insert(canonical(&e.key))).collect();
        effective.reverse();
        for e in effective {
            match lookup(&e.key).map(|o| o.handling) {
                None => {
                    let candidates = OPTIONS
                        .iter()
                        .filter(|o| !o.name.ends_with('*'))
                        .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()));
                    let mut p = Problem::at(
                        ImportErrorKind::UnknownOption,
                        e,
                        "it is not an fio option, or not one methodic import translates",
                    );
                    p.hint = Some(match did_you_mean(&e.key, candidates) {
                        Some(near) => format!("did you mean `{near}`?"),
                        None => "remove it, or run the job with fio itself".to_string(),
                    });
                    self.problems.push(p);
                }
                Some(Handling::Translated) => {}
                Some(Handling::Dropped(why)) => self.note(e, true, true, format!("not carried over: {why}")),
                Some(Handling::Refused { why, harmless }) => {
                    let value = e.value.as_deref().map(str::trim).unwrap_or("1");
                    if !harmless.contains(&value) {
                        let mut p = Problem::at(ImportErrorKind::Untranslatable, e, why);
                        if let Some(off) = harmless.first() {
                            p.hint = Some(format!("remove it (or write {}={off}) to import the job", e.key));
                        } else {
                            p.hint = Some("remove it to import the job".to_string());
                        }
                        self.problems.push(p);
                    }
                }
            }
        }
    }
}

fn need(v: Option<&str>) -> Result<&str, Refusal> {
    match v {
        Some(v) if !v.trim().is_empty() => Ok(v),
        _ => Err(refusal("fio needs a value here")),
    }
}

/// A job's options to a step, or the problems that keep it from one.
fn job_to_step(job: &Job) -> (Option<Step>, Vec<Problem>) {
    let mut r = JobReader { job, problems: Vec::new(), notes: Vec::new() };
    r.other_options();
    let step = translate(&mut r).ok();
    if !r.problems.is_empty() {
        return (None, r.problems);
    }
    (step, Vec::new())
}

fn translate(r: &mut JobReader<'_>) -> Got<Step> {
    let job = r.job;
    let kb = match r.int("kb_base", 0, u64::MAX) {
        Ok(None | Some(1024)) => Ok(KbBase::Compat1024),
        Ok(Some(1000)) => Ok(KbBase::Si1000),
        Ok(Some(n)) => {
            let e = r.get("kb_base").expect("read above");
            Err(r.problem(
                ImportErrorKind::BadValue,
                e,
                refusal(format!("fio takes kb_base=1024 or 1000, not {n}")),
            ))
        }
        Err(e) => Err(e),
    };
    // Sizes cannot be read without knowing kb_base; the rest still is.
    let kb_ok = kb.is_ok();
    let kb = kb.unwrap_or(KbBase::Compat1024);

    let rw = access(r);
    let read = read_share(r, rw.as_ref().ok().copied());
    let random = random_share(r, rw.as_ref().ok().copied());
    let blocks = if kb_ok { blocks(r, kb) } else { Err(Reported) };
    let align =
        if kb_ok { r.read("ba", |v| single(need(v)?).and_then(|v| fio_bytes(v, kb))) } else { Err(Reported) };
    let qd = r.int("iodepth", 1, 65_536).map(|d| d.unwrap_or(1));
    let workers = r.int("numjobs", 1, 65_536).map(|n| n.unwrap_or(1));
    let direct = io_mode(r);
    let invalidate = r.bool("invalidate").map(|v| v.unwrap_or(true));
    let region = if kb_ok { region(r, kb) } else { Err(Reported) };
    let increment =
        if kb_ok { r.read("offset_increment", |v| fio_size(need(v)?, kb, true)) } else { Err(Reported) };
    let io_size = if kb_ok { r.read("io_size", |v| fio_bytes(need(v)?, kb)) } else { Err(Reported) };
    let data = data(r);
    let time_based = r.flag("time_based");
    let runtime = r.time("runtime").map(|t| t.filter(|t| !t.is_zero()));
    let ramp = r.time("ramp_time").map(|t| t.unwrap_or(Duration::ZERO));
    let loops = r.int("loops", 1, u64::MAX).map(|l| l.unwrap_or(1));
    // A [global] description describes the methodology, not each job.
    let description = r
        .get("description")
        .filter(|e| e.section != "global")
        .and_then(|e| e.value.as_deref())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty());
    let stonewall = r.flag("stonewall");
    if let Some(e) = r.get("filename") {
        filename(r, e);
    }
    let engine = match (&qd, &direct) {
        (Ok(qd), Ok(direct)) => engine(r, *qd, *direct),
        _ => Ok(()),
    };

    let (rw, read, random, blocks, align, qd, workers, direct, invalidate, region, data) =
        (rw?, read?, random?, blocks?, align?, qd?, workers?, direct?, invalidate?, region?, data?);
    let (time_based, runtime, ramp, loops) = (time_based?, runtime?, ramp?, loops?);
    let ((), _, increment, io_size) = (engine?, stonewall?, increment?, io_size?);
    // methodic's stripes are whole multiples of the alignment and of the
    // largest block.
    let smallest = blocks.iter().map(|(b, _)| *b).min().unwrap_or(Bytes(4096));
    let largest = blocks.iter().map(|(b, _)| *b).max().unwrap_or(Bytes(4096));
    let layout = layout(r, region, increment, workers, random, align.unwrap_or(smallest).max(largest))?;
    let Layout { span, offset, .. } = layout;
    if qd * workers > 65_536 {
        let e = r.get("iodepth").expect("a depth above 1 was given");
        return Err(r.problem(
            ImportErrorKind::BadValue,
            e,
            refusal(format!(
                "{qd} per job over {workers} jobs is {} I/Os in flight; methodic keeps at most 65536",
                qd * workers
            )),
        ));
    }

    // Sizes direct I/O can issue, and a region that holds a block.
    if direct {
        let mut bad = Vec::new();
        for (b, _) in &blocks {
            if b.0 % 512 != 0 {
                bad.push((
                    if r.get("bssplit").is_some() { "bssplit" } else { "bs" },
                    format!("block size {}B", b.0),
                ));
            }
        }
        if let Some(a) = align.filter(|a| a.0 % 512 != 0) {
            bad.push(("ba", format!("alignment {}B", a.0)));
        }
        if offset.0 % 512 != 0 {
            bad.push(("offset", format!("offset {}B", offset.0)));
        }
        for (name, what) in &bad {
            let e = r.get(name).expect("a value that was read");
            r.problem(
                ImportErrorKind::BadValue,
                e,
                refusal(format!("with direct=1 the {what} is not a whole number of 512B sectors, which O_DIRECT needs (fio would fail too)"))
                    .hint("use a multiple of 512 bytes, or direct=0"),
            );
        }
        if !bad.is_empty() {
            return Err(Reported);
        }
    }
    if let Some(FioSize::Bytes(size)) = layout.size.filter(|s| matches!(s, FioSize::Bytes(b) if *b < largest))
    {
        let e = r.get("size").expect("a size in bytes was given");
        return Err(r.problem(
            ImportErrorKind::BadValue,
            e,
            refusal(format!("a region of {}B holds no {largest} block", size.0)),
        ));
    }

    let stop = stop(r, rw, time_based, runtime, ramp, loops, io_size, workers, layout)?;

    let random_map = random > Percent::ZERO && !r.flag("norandommap").unwrap_or(false);

    let options = {
        let mut seen = HashSet::new();
        let mut v: Vec<String> = job
            .entries
            .iter()
            .rev()
            .filter(|e| seen.insert(canonical(&e.key)))
            .filter(|e| {
                matches!(lookup(&e.key).map(|o| o.handling), Some(Handling::Translated))
                    && !["name", "description", "filename", "ioengine"].contains(&canonical(&e.key))
            })
            .map(|e| e.written())
            .collect();
        v.reverse();
        v
    };
    Ok(Step {
        name: job.name(),
        section: job.section.clone(),
        line: job.line,
        options,
        description,
        notes: std::mem::take(&mut r.notes),
        random,
        read,
        blocks,
        align,
        offset,
        span,
        workers,
        qd,
        direct,
        data,
        drop_caches: !direct && invalidate,
        ramp,
        stop,
        binary: kb == KbBase::Compat1024,
        random_map,
    })
}

/// One value, not a value per direction (`4k,8k`).
fn single(v: &str) -> Result<&str, Refusal> {
    if v.contains(',') {
        return Err(refusal("a value for reads, another for writes (`,`): methodic uses one for all I/O")
            .hint("give one value"));
    }
    Ok(v)
}

fn access(r: &mut JobReader<'_>) -> Got<Rw> {
    let Some((e, v)) = r.word("rw")? else { return Ok(Rw::Read) };
    let (kind, modifier) = match v.split_once(':') {
        Some((k, m)) => (k, Some(m)),
        None => (v, None),
    };
    if modifier.is_some() {
        return Err(r.problem(
            ImportErrorKind::Untranslatable,
            e,
            refusal(format!(
                "fio's `:{}` modifier (skip ahead between sequential I/Os, or several I/Os per random offset) \
                 has no methodic equivalent",
                modifier.unwrap_or_default()
            ))
            .hint(format!("write rw={kind}")),
        ));
    }
    match kind {
        "read" => Ok(Rw::Read),
        "write" => Ok(Rw::Write),
        "randread" => Ok(Rw::RandRead),
        "randwrite" => Ok(Rw::RandWrite),
        "rw" | "readwrite" => Ok(Rw::Mixed),
        "randrw" => Ok(Rw::RandMixed),
        "trim" | "randtrim" | "trimwrite" | "randtrimwrite" => Err(r.problem(
            ImportErrorKind::Untranslatable,
            e,
            refusal("methodic workloads read and write; they do not trim (`erase discard` trims the span as a step of its own)"),
        )),
        other => Err(r.problem(
            ImportErrorKind::BadValue,
            e,
            refusal(format!("fio does not know rw={other}"))
                .hint("rw is read, write, randread, randwrite, rw (or readwrite) or randrw"),
        )),
    }
}

fn read_share(r: &mut JobReader<'_>, rw: Option<Rw>) -> Got<Percent> {
    let read = r.int("rwmixread", 0, 100);
    let write = r.int("rwmixwrite", 0, 100);
    let (read, write) = (read?, write?);
    let Some(rw) = rw else { return Err(Reported) };
    if !rw.mixed() {
        for name in ["rwmixread", "rwmixwrite"] {
            if let Some(e) = r.get(name) {
                r.note(
                    e,
                    false,
                    true,
                    "ignored, as fio ignores it on a job that does not mix reads and writes",
                );
            }
        }
        return Ok(if matches!(rw, Rw::Read | Rw::RandRead) { Percent::HUNDRED } else { Percent::ZERO });
    }
    let share = match (read, write) {
        (Some(rd), Some(wr)) if rd + wr != 100 => {
            let e = r.get("rwmixwrite").expect("read above");
            return Err(r.problem(
                ImportErrorKind::Conflict,
                e,
                refusal(format!("rwmixread={rd} and rwmixwrite={wr} do not add up to 100"))
                    .hint("give one of them"),
            ));
        }
        (Some(rd), _) => rd,
        (None, Some(wr)) => 100 - wr,
        (None, None) => 50,
    };
    Ok(Percent::whole(share as u32))
}

fn random_share(r: &mut JobReader<'_>, rw: Option<Rw>) -> Got<Percent> {
    let share = r.read("percentage_random", |v| single(need(v)?).and_then(fio_int))?;
    let Some(rw) = rw else { return Err(Reported) };
    let e = r.get("percentage_random");
    match (share, e) {
        (Some(p), Some(e)) if rw.random() => {
            if p > 100 {
                return Err(r.problem(
                    ImportErrorKind::BadValue,
                    e,
                    refusal(format!("a random share of {p}% is over 100%")),
                ));
            }
            Ok(Percent::whole(p as u32))
        }
        (Some(_), Some(e)) => {
            r.note(e, false, true, "ignored, as fio ignores it on a sequential job");
            Ok(Percent::ZERO)
        }
        _ => Ok(if rw.random() { Percent::HUNDRED } else { Percent::ZERO }),
    }
}

fn blocks(r: &mut JobReader<'_>, kb: KbBase) -> Got<Vec<(Bytes, Percent)>> {
    let bs = r.read("bs", |v| single(need(v)?).and_then(|v| fio_bytes(v, kb)));
    let split = r.read("bssplit", |v| fio_bssplit(need(v)?, kb))?;
    let bs = bs?;
    if let Some(b) = bs.filter(|b| b.0 == 0) {
        let e = r.get("bs").expect("read above");
        return Err(r.problem(
            ImportErrorKind::BadValue,
            e,
            refusal(format!("a block size of {b} moves no data")),
        ));
    }
    match (split, bs) {
        (Some(split), bs) => {
            if bs.is_some() {
                let e = r.get("bs").expect("read above");
                r.note(e, false, true, "ignored: bssplit sets the block sizes, as in fio");
            }
            Ok(split)
        }
        (None, Some(b)) => Ok(vec![(b, Percent::HUNDRED)]),
        (None, None) => Ok(vec![(Bytes(4096), Percent::HUNDRED)]),
    }
}

fn io_mode(r: &mut JobReader<'_>) -> Got<bool> {
    let direct = r.bool("direct");
    let buffered = r.bool("buffered");
    match (direct?, buffered?) {
        (Some(d), Some(b)) if d == b => {
            let e = r.get("buffered").expect("read above");
            Err(r.problem(
                ImportErrorKind::Conflict,
                e,
                refusal(format!("direct={} and buffered={} contradict each other", d as u8, b as u8))
                    .hint("give one of them"),
            ))
        }
        (Some(d), _) => Ok(d),
        (None, Some(b)) => Ok(!b),
        (None, None) => Ok(false),
    }
}

/// `size` (per clone, `None` for the whole target) and `offset`.
fn region(r: &mut JobReader<'_>, kb: KbBase) -> Got<(Option<FioSize>, Bytes)> {
    let size = r.read("size", |v| fio_size(need(v)?, kb, true));
    let offset = r.read("offset", |v| fio_size(need(v)?, kb, true));
    let (size, offset) = (size?, offset?);
    let offset = match offset {
        None | Some(FioSize::Percent(Percent::ZERO)) => Bytes(0),
        Some(FioSize::Bytes(b)) => b,
        Some(FioSize::Percent(_)) => {
            let e = r.get("offset").expect("read above");
            return Err(r.problem(
                ImportErrorKind::Untranslatable,
                e,
                refusal("methodic's offset is a size; an offset as a share of the target has no equivalent")
                    .hint("give the offset in bytes, such as offset=1g"),
            ));
        }
    };
    match size {
        None | Some(FioSize::Bytes(Bytes(0))) => Ok((None, offset)),
        Some(FioSize::Bytes(b)) => Ok((Some(FioSize::Bytes(b)), offset)),
        Some(FioSize::Percent(p)) => {
            let e = r.get("size").expect("read above");
            if p == Percent::ZERO || p > Percent::HUNDRED {
                return Err(r.problem(
                    ImportErrorKind::BadValue,
                    e,
                    refusal(format!("a size of {p} is not a share of the target between 0% and 100%")),
                ));
            }
            if offset.0 > 0 {
                let o = r.get("offset").expect("a non-zero offset was given");
                return Err(r.problem(
                    ImportErrorKind::Conflict,
                    o,
                    refusal(format!(
                        "fio works from the offset over {p} of the target; methodic's span starts at the \
                         start of the target and its offset lies inside the span, so a share cannot be moved"
                    ))
                    .hint("give size in bytes, or drop the offset"),
                ));
            }
            Ok((Some(FioSize::Percent(p)), offset))
        }
    }
}

/// Where a job works, as methodic says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    /// From the start of the target to the end of the last clone's region.
    span: FioSpan,
    offset: Bytes,
    /// Each clone's region (`size`); `None`: to the end of the target.
    size: Option<FioSize>,
    /// Each clone works in its own stripe (`offset_increment` = `size`),
    /// as methodic's workers do with sequential I/O.
    striped: bool,
}

/// The span and stripes of a job's clones. fio's clones of a sequential
/// job each start at the same offset unless `offset_increment` moves them
/// apart; methodic gives each worker its own stripe of the span.
fn layout(
    r: &mut JobReader<'_>,
    (size, offset): (Option<FioSize>, Bytes),
    increment: Option<FioSize>,
    workers: u64,
    random: Percent,
    unit: Bytes,
) -> Got<Layout> {
    let increment =
        increment.filter(|i| !matches!(i, FioSize::Bytes(Bytes(0)) | FioSize::Percent(Percent::ZERO)));
    let striped = match (increment, r.get("offset_increment")) {
        (Some(i), Some(e)) if workers > 1 => {
            if random > Percent::ZERO {
                return Err(r.problem(
                    ImportErrorKind::Conflict,
                    e,
                    refusal(
                        "fio's clones would each send their random I/O to their own stripe; methodic's \
                         workers send random I/O anywhere in the span",
                    )
                    .hint("drop offset_increment"),
                ));
            }
            if size != Some(i) {
                return Err(r.problem(
                    ImportErrorKind::Conflict,
                    e,
                    refusal(
                        "methodic's workers work in adjacent stripes of one size: offset_increment must be \
                         the job's size",
                    )
                    .hint("set offset_increment to the size, or drop it and numjobs"),
                ));
            }
            match i {
                FioSize::Bytes(b) if b.0 % unit.0.max(1) > 0 => {
                    return Err(r.problem(
                        ImportErrorKind::Conflict,
                        e,
                        refusal(format!(
                            "stripes of {b} are not whole {unit} blocks, and methodic's stripes are"
                        )),
                    ));
                }
                _ => {}
            }
            true
        }
        (Some(_), Some(e)) => {
            r.note(e, false, true, "ignored: it moves every clone after the first, and numjobs=1 makes none");
            false
        }
        _ => false,
    };
    if workers > 1 && random < Percent::HUNDRED && !striped {
        let e = r.get("numjobs").expect("numjobs above 1 was given");
        return Err(r.problem(
            ImportErrorKind::Conflict,
            e,
            refusal(format!(
                "fio runs {workers} clones of the job that each go through the region sequentially from its \
                 start, over the same blocks; methodic gives each worker its own stripe of the span"
            ))
            .hint(
                "give each clone its own stripe with offset_increment equal to size (sequential jobs), or \
                 import it with numjobs=1 (iodepth sets the depth)",
            ),
        ));
    }
    let clones = if striped { workers } else { 1 };
    let span = match size {
        None => FioSpan::Percent(Percent::HUNDRED),
        Some(FioSize::Bytes(b)) => match b.0.checked_mul(clones).and_then(|s| s.checked_add(offset.0)) {
            Some(end) => FioSpan::Bytes(Bytes(end)),
            None => {
                let e = r.get("size").expect("read above");
                return Err(r.problem(
                    ImportErrorKind::BadValue,
                    e,
                    refusal("the region ends beyond what a number holds"),
                ));
            }
        },
        Some(FioSize::Percent(p)) => {
            let total = p.times(clones);
            if total > Percent::HUNDRED {
                let e = r.get("offset_increment").expect("only stripes grow a share");
                return Err(r.problem(
                    ImportErrorKind::BadValue,
                    e,
                    refusal(format!("{clones} stripes of {p} end past the end of the target ({total})")),
                ));
            }
            FioSpan::Percent(total)
        }
    };
    Ok(Layout { span, offset, size, striped })
}

fn data(r: &mut JobReader<'_>) -> Got<Data> {
    let zeros = r.flag("zero_buffers");
    let compress = r.int("buffer_compress_percentage", 0, 100);
    match (zeros?, compress?) {
        (true, Some(p)) if p > 0 => {
            let e = r.get("buffer_compress_percentage").expect("read above");
            Err(r.problem(
                ImportErrorKind::Conflict,
                e,
                refusal("zero_buffers and buffer_compress_percentage ask for different data")
                    .hint("give one of them"),
            ))
        }
        (true, _) => Ok(Data::Zeros),
        (false, Some(p)) if p > 0 => {
            let e = r.get("buffer_compress_percentage").expect("read above");
            r.note(
                e,
                false,
                false,
                format!(
                    "as `data compressible {p}%`: the same share of zeros in every 512B chunk, as fio lays \
                     it out by default"
                ),
            );
            Ok(Data::Compressible(Percent::whole(p as u32)))
        }
        _ => Ok(Data::Random),
    }
}

fn filename(r: &mut JobReader<'_>, e: &Entry) {
    let name = e.value.as_deref().unwrap_or("").trim();
    let several = name.replace("\\:", "").contains(':');
    if several {
        r.problem(
            ImportErrorKind::Untranslatable,
            e,
            refusal("fio spreads the job over several files (`:`); methodic works on one target")
                .hint("give one file or device"),
        );
        return;
    }
    r.note(
        e,
        true,
        true,
        format!("the target is given when the methodology runs: `methodic run FILE.method --target {name}`"),
    );
}

/// What `ioengine` (fio's default: psync) means for the queue depth.
fn engine(r: &mut JobReader<'_>, qd: u64, direct: bool) -> Got<()> {
    let given = r.word("ioengine")?;
    let name = given.map_or("psync".to_string(), |(_, v)| v.trim().to_ascii_lowercase());
    const QUEUED: [&str; 3] = ["libaio", "io_uring", "posixaio"];
    const SYNCHRONOUS: [&str; 5] = ["sync", "psync", "vsync", "pvsync", "pvsync2"];
    let own_io =
        "not carried over: methodic does its own I/O (io_uring, or psync where io_uring is unavailable)";
    if SYNCHRONOUS.contains(&name.as_str()) {
        if qd > 1 {
            let e = r.get("iodepth").expect("a depth above 1 was given");
            let engine = match given {
                Some((g, _)) => format!("ioengine={name} (line {})", g.line),
                None => "psync, fio's default engine when none is given,".to_string(),
            };
            return Err(r.problem(
                ImportErrorKind::Conflict,
                e,
                refusal(format!(
                    "fio runs {engine} with one I/O in flight per job: it caps iodepth={qd} at 1, so the job \
                     does not measure what it says"
                ))
                .hint("give ioengine=libaio or io_uring (with direct=1) for a deeper queue, or iodepth=1 to import what fio measures"),
            ));
        }
        if let Some((g, _)) = given {
            r.note(g, true, true, format!("{own_io}, at the same single I/O in flight"));
        }
        return Ok(());
    }
    let Some((g, _)) = given else { unreachable!("fio's default engine is synchronous") };
    if !QUEUED.contains(&name.as_str()) {
        return Err(r.problem(
            ImportErrorKind::Untranslatable,
            g,
            refusal(format!(
                "methodic reads and writes a file or block device with io_uring or psync; ioengine={name} \
                 measures another path"
            ))
            .hint("use ioengine=libaio or io_uring"),
        ));
    }
    if name == "libaio" && !direct && qd > 1 {
        let e = r.get("iodepth").expect("a depth above 1 was given");
        return Err(r.problem(
            ImportErrorKind::Conflict,
            e,
            refusal(format!(
                "Linux queues only direct I/O through libaio: on buffered I/O (fio's default without \
                 direct=1) each submission completes before it returns, so iodepth={qd} is not kept"
            ))
            .hint("add direct=1, or use ioengine=io_uring for buffered I/O"),
        ));
    }
    r.note(g, true, true, own_io);
    Ok(())
}

/// When the measurement stops: time-based, or once each clone has written
/// its `size` (or `io_size`) `loops` times.
#[allow(clippy::too_many_arguments)]
fn stop(
    r: &mut JobReader<'_>,
    rw: Rw,
    time_based: bool,
    runtime: Option<Duration>,
    ramp: Duration,
    loops: u64,
    io_size: Option<Bytes>,
    workers: u64,
    layout: Layout,
) -> Got<Stop> {
    let io_size = io_size.filter(|b| b.0 > 0);
    if time_based {
        let Some(t) = runtime else {
            let e = r.get("time_based").expect("time_based was given");
            return Err(r.problem(
                ImportErrorKind::Conflict,
                e,
                refusal("time_based without a runtime runs until fio is stopped")
                    .hint("give runtime=, such as runtime=60"),
            ));
        };
        for (name, what) in [("loops", loops > 1), ("io_size", io_size.is_some())] {
            if what {
                let e = r.get(name).expect("given");
                return Err(r.problem(
                    ImportErrorKind::Conflict,
                    e,
                    refusal(format!(
                        "with time_based, fio repeats the job until the runtime ends, whatever {name} says"
                    ))
                    .hint(format!("drop {name}, or time_based")),
                ));
            }
        }
        return Ok(Stop::Time(t));
    }
    if !matches!(rw, Rw::Write | Rw::RandWrite) {
        let why = "without time_based, fio stops a job that reads once it has moved `size` bytes (the whole \
                   region), even before the runtime ends; methodic stops a step after a time, or after bytes \
                   written, not read";
        let hint = "add time_based (and a runtime): fio then runs for the whole runtime, as methodic does";
        // At the runtime fio would cut short, or at the job.
        let job = r.job;
        let problem = match r.get("runtime") {
            Some(e) => Problem::at(ImportErrorKind::Untranslatable, e, why),
            None => Problem {
                section: Some(job.section.clone()),
                ..Problem::new(ImportErrorKind::Untranslatable, job.line, why)
            },
        };
        r.problems.push(problem.hint(hint));
        return Err(Reported);
    }
    if !ramp.is_zero() {
        let e = r.get("ramp_time").expect("a ramp was given");
        return Err(r.problem(
            ImportErrorKind::Conflict,
            e,
            refusal(
                "without time_based, fio counts the ramp's writes towards `size`; methodic starts counting \
                 what it writes after the ramp",
            )
            .hint("add time_based with a runtime, or drop ramp_time"),
        ));
    }
    let times = loops.saturating_mul(workers);
    let written = match (io_size, layout.size) {
        (Some(b), _) | (None, Some(FioSize::Bytes(b))) => FioSpan::Bytes(Bytes(b.0.saturating_mul(times))),
        (None, _) if layout.offset.0 > 0 => {
            let e = r.get("offset").expect("a non-zero offset was given");
            return Err(r.problem(
                ImportErrorKind::Conflict,
                e,
                refusal(
                    "without time_based, fio writes from the offset to the end of the target; methodic counts \
                     what it writes in bytes or in shares of a span that starts at the start of the target",
                )
                .hint("give size in bytes, or add time_based with a runtime"),
            ));
        }
        // Each clone writes its share of the span: all of it, or its stripe.
        (None, _) => FioSpan::Percent(Percent::HUNDRED.times(if layout.striped { loops } else { times })),
    };
    Ok(Stop::Written { written, time: runtime })
}

// ---------------------------------------------------------------- text

/// A name methodic can use for a workload: letters, digits and `_`, not a
/// keyword, not taken.
fn ident(name: &str, taken: &mut HashSet<String>) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let mut out = out.trim_matches('_').to_string();
    if out.is_empty() {
        out = "job".to_string();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out = format!("job_{out}");
    }
    if is_reserved(&out) {
        out.push_str("_job");
    }
    let mut unique = out.clone();
    let mut n = 2;
    while !taken.insert(unique.clone()) {
        unique = format!("{out}_{n}");
        n += 1;
    }
    unique
}

/// A phase name whose letters and digits no other phase has.
fn phase_name(name: &str, taken: &mut HashSet<String>) -> String {
    let key = |s: &str| {
        s.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect::<String>()
    };
    let base = if key(name).is_empty() { "job".to_string() } else { name.to_string() };
    let mut unique = base.clone();
    let mut n = 2;
    while !taken.insert(key(&unique)) {
        unique = format!("{base} {n}");
        n += 1;
    }
    unique
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text that can stand in a one-line comment.
fn one_line(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// Comment lines for `text`, broken between words to fit in 100 columns:
/// `{indent}# {first}` and the text, then `{indent}# {more}` and the rest.
fn comment(indent: &str, first: &str, more: &str, text: &str) -> String {
    const WIDTH: usize = 100;
    let mut out = String::new();
    let mut line = format!("{indent}# {first}");
    let mut empty = true;
    for word in one_line(text).split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = format!("{indent}# {more}");
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

fn extent(s: FioSpan) -> String {
    match s {
        FioSpan::Percent(p) => p.to_string(),
        FioSpan::Bytes(b) => b.to_string(),
    }
}

/// The steps to methodology text (formatted afterwards).
fn steps_to_method(steps: &[Step], file: &str, name: &str, sections: &[Section]) -> String {
    let mut out = String::new();
    let version = env!("CARGO_PKG_VERSION");
    out.push_str(&format!(
        "# Imported from {} by methodic {version} (`methodic import fio`).\n",
        one_line(file)
    ));
    if steps.len() == 1 {
        out.push_str("# The fio job is a phase with one measurement.\n");
    } else {
        out.push_str(
            "# Each fio job is a phase with one measurement; fio runs the jobs one after\n\
             # another (stonewall), and so does this methodology.\n",
        );
    }
    let mut seen = HashSet::new();
    let mut global: Vec<&Note> = steps
        .iter()
        .flat_map(|s| &s.notes)
        .filter(|n| n.global)
        .filter(|n| seen.insert((n.line, &n.text)))
        .collect();
    global.sort_by_key(|n| n.line);
    if !global.is_empty() {
        out.push_str("# From [global]:\n");
        for n in global {
            out.push_str(&comment("", "- ", "  ", &n.text));
        }
    }
    let random: Vec<String> =
        steps.iter().filter(|s| s.random_map).map(|s| format!("[{}]", s.section)).collect();
    if !random.is_empty() {
        out.push_str(&comment(
            "",
            "",
            "",
            &format!(
                "Random offsets: fio (without norandommap) sends each random I/O of {} to a block not yet \
                 touched in this pass; methodic draws offsets independently, so some blocks are hit twice \
                 and others not at all.",
                random.join(", ")
            ),
        ));
    }
    out.push_str(&format!("methodology {} version \"1.0\"\n", quote(name)));
    let global_description = sections
        .iter()
        .filter(|s| s.is_global())
        .flat_map(|s| &s.entries)
        .filter(|e| e.key == "description")
        .filter_map(|e| e.value.as_deref())
        .next_back();
    let describe = match global_description {
        Some(d) if !d.trim().is_empty() => d.trim().to_string(),
        _ => format!(
            "imported from the fio job file {}: {}",
            Path::new(file).file_name().map_or(file.to_string(), |f| f.to_string_lossy().into_owned()),
            count(steps.len(), "job")
        ),
    };
    out.push_str(&format!("describe {}\n\n", quote(&describe)));
    let binary = steps.iter().any(|s| s.binary) || steps.is_empty();
    out.push_str(&format!(
        "conventions {{\n  units {}\n  queue_depth per_worker\n  value step_average\n}}\n\n",
        if binary { "binary" } else { "decimal" }
    ));
    out.push_str("# fio's iodepth is per job: here the queue depth is per worker, and numjobs\n# is the number of workers.\n");

    let mut names = HashSet::new();
    let mut phases = HashSet::new();
    let idents: Vec<String> = steps.iter().map(|s| ident(&s.name, &mut names)).collect();
    for (s, w) in steps.iter().zip(&idents) {
        let access = if s.random == Percent::HUNDRED {
            "random".to_string()
        } else if s.random == Percent::ZERO {
            "sequential".to_string()
        } else {
            format!("random {}", s.random)
        };
        let blocks = match s.blocks.as_slice() {
            [(b, _)] => format!("block {b}"),
            many => format!(
                "blocks {{ {} }}",
                many.iter().map(|(b, p)| format!("{b}: {p}")).collect::<Vec<_>>().join(", ")
            ),
        };
        let mut props = vec![access, blocks, format!("read {}", s.read)];
        if let Some(a) = s.align {
            props.push(format!("align {a}"));
        }
        if s.offset.0 > 0 {
            props.push(format!("offset {}", s.offset));
        }
        out.push_str(&format!("workload {w} {{ {} }}\n", props.join("; ")));
    }
    for (s, w) in steps.iter().zip(&idents) {
        out.push('\n');
        out.push_str(&format!("phase {} {{\n", quote(&phase_name(&s.name, &mut phases))));
        let title = if s.name == s.section {
            format!("[{}]", s.section)
        } else {
            format!("[{}] (name={})", s.section, s.name)
        };
        out.push_str(&comment(
            "  ",
            "",
            "  ",
            &format!("fio job {title}, line {}: {}", s.line, s.options.join(" ")),
        ));
        if let Some(d) = &s.description {
            out.push_str(&comment("  ", "", "", d));
        }
        let mut seen = HashSet::new();
        let mut notes: Vec<&Note> =
            s.notes.iter().filter(|n| !n.global).filter(|n| seen.insert((n.line, &n.text))).collect();
        notes.sort_by_key(|n| n.line);
        for n in notes {
            out.push_str(&comment("  ", "- ", "  ", &n.text));
        }
        let data = match s.data {
            Data::Random => "random".to_string(),
            Data::Zeros => "zeros".to_string(),
            Data::Compressible(p) => format!("compressible {p}"),
        };
        out.push_str(&format!(
            "  target {{ span {}; workers {}; io {}; data {data} }}\n",
            extent(s.span),
            s.workers,
            if s.direct { "direct" } else { "buffered" }
        ));
        if s.drop_caches {
            out.push_str(
                "  # fio drops the file's cached pages when a buffered job starts (invalidate=1).\n",
            );
            out.push_str("  drop_caches\n");
        }
        let mut step = format!("  measure {w} qd {}", s.qd);
        let record = match s.stop {
            Stop::Time(t) => {
                step.push_str(&format!(" for {t}"));
                Some(t)
            }
            Stop::Written { written, time } => {
                step.push_str(&format!(" until written {}", extent(written)));
                if let Some(t) = time {
                    step.push_str(&format!(" for {t}"));
                }
                time
            }
        };
        if !s.ramp.is_zero() {
            step.push_str(&format!(" ramp {}", s.ramp));
        }
        if let Some(t) = record.filter(|t| *t < Duration::from_secs(1)) {
            step.push_str(&format!(" series {t}"));
        }
        out.push_str(&step);
        out.push_str("\n}\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use methodic_compiler::plan::{Action, Extent, IoMode, MeasureStop, Plan, QdCounting, Units};

    use super::*;

    fn import(text: &str) -> String {
        match fio_to_method(text, "job.fio", "job") {
            Ok(i) => i.text,
            Err(errors) => panic!("{}", errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")),
        }
    }

    fn plan(text: &str) -> Plan {
        let method = import(text);
        methodic_compiler::compile(&method, &methodic_compiler::Options::default())
            .unwrap_or_else(|d| panic!("{d}\n{method}"))
            .plan
    }

    fn errors(text: &str) -> Vec<ImportError> {
        match fio_to_method(text, "job.fio", "job") {
            Ok(i) => panic!("imported:\n{}", i.text),
            Err(e) => e,
        }
    }

    /// The one measurement of each step, with its target.
    fn measures(
        p: &Plan,
    ) -> Vec<(
        &methodic_compiler::plan::Workload,
        &methodic_compiler::plan::Qd,
        Duration,
        &MeasureStop,
        methodic_compiler::plan::Target,
    )> {
        p.steps
            .iter()
            .filter_map(|s| match &s.action {
                Action::Measure { workload, qd, ramp, stop, .. } => {
                    Some((workload, qd, *ramp, stop, s.target.unwrap()))
                }
                _ => None,
            })
            .collect()
    }

    const RANDREAD: &str = "\
; 4KiB random reads at QD32
[global]
ioengine=libaio
direct=1
time_based
runtime=60
ramp_time=5
filename=/dev/nvme0n1

[randread-qd32]
rw=randread
bs=4k
iodepth=32
";

    #[test]
    fn a_random_read_job_at_qd32() {
        let p = plan(RANDREAD);
        let m = measures(&p);
        assert_eq!(m.len(), 1);
        let (w, qd, ramp, stop, target) = m[0];
        assert_eq!(w.blocks.len(), 1);
        assert_eq!(w.blocks[0].size, Bytes(4096));
        assert_eq!(w.read, Percent::HUNDRED);
        assert_eq!(w.random, Percent::HUNDRED);
        assert_eq!((qd.total, qd.per_worker, qd.workers), (32, 32, 1));
        assert_eq!(ramp, Duration::from_secs(5));
        assert_eq!(stop.time, Some(Duration::from_secs(60)));
        assert_eq!(stop.written, None);
        assert_eq!(target.io, IoMode::Direct);
        assert_eq!(target.span, Extent::Percent(Percent::HUNDRED));
        assert_eq!(p.conventions.queue_depth, QdCounting::PerWorker);
        assert_eq!(p.conventions.units, Units::Binary);
        assert_eq!(p.steps.len(), 1, "a direct job needs no drop_caches");
    }

    #[test]
    fn the_output_is_formatted_and_says_where_it_came_from() {
        let out = import(RANDREAD);
        assert_eq!(methodic_grammar::format(&out).unwrap(), out);
        let first = out.lines().next().unwrap();
        assert_eq!(
            first,
            format!(
                "# Imported from job.fio by methodic {} (`methodic import fio`).",
                env!("CARGO_PKG_VERSION")
            )
        );
        assert!(out.contains("methodology \"job\" version \"1.0\""), "{out}");
        assert!(out.contains("ioengine=libaio (line 3): not carried over"), "{out}");
        assert!(out.contains("--target /dev/nvme0n1"), "{out}");
        assert!(out.contains("# fio job [randread-qd32], line 10:"), "{out}");
        assert!(out.contains("measure randread_qd32 qd 32 for 1min ramp 5s"), "{out}");
    }

    #[test]
    fn a_whole_import_reads_as_expected() {
        let out = import(
            "[seq]\nrw=write\nbs=128k\niodepth=4\nioengine=io_uring\ndirect=1\nsize=16g\ntime_based\nruntime=30\n",
        );
        let expected = format!(
            r#"# Imported from job.fio by methodic {} (`methodic import fio`).
# The fio job is a phase with one measurement.
methodology "job" version "1.0"
describe "imported from the fio job file job.fio: 1 job"

conventions {{
  units binary
  queue_depth per_worker
  value step_average
}}

# fio's iodepth is per job: here the queue depth is per worker, and numjobs
# is the number of workers.
workload seq {{ sequential; block 128KiB; read 0% }}

phase "seq" {{
  # fio job [seq], line 1: rw=write bs=128k iodepth=4 direct=1 size=16g time_based runtime=30
  # - ioengine=io_uring (line 5): not carried over: methodic does its own I/O (io_uring, or psync
  #   where io_uring is unavailable)
  target {{ span 16GiB; workers 1; io direct; data random }}
  measure seq qd 4 for 30s
}}
"#,
            env!("CARGO_PKG_VERSION")
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn a_mixed_job_with_a_block_split() {
        let p = plan(
            "[oltp]\nrw=randrw\nrwmixread=70\nbssplit=4k/10:64k/50:8k/40\nioengine=io_uring\niodepth=16\n\
             direct=1\ntime_based\nruntime=2m\n",
        );
        let (w, qd, _, stop, _) = measures(&p)[0];
        assert_eq!(w.read, Percent::whole(70));
        let blocks: Vec<(u64, Percent)> = w.blocks.iter().map(|b| (b.size.0, b.share)).collect();
        assert_eq!(
            blocks,
            vec![(4096, Percent::whole(10)), (8192, Percent::whole(40)), (65536, Percent::whole(50))]
        );
        assert_eq!(
            w.align,
            Bytes(4096),
            "fio aligns random I/O to the smallest block size, as methodic does"
        );
        assert_eq!(qd.per_worker, 16);
        assert_eq!(stop.time, Some(Duration::from_secs(120)));
    }

    #[test]
    fn rwmixwrite_gives_the_read_share_too() {
        let p = plan("[j]\nrw=rw\nrwmixwrite=30\ntime_based\nruntime=10\n");
        let (w, ..) = measures(&p)[0];
        assert_eq!(w.read, Percent::whole(70));
        assert_eq!(w.random, Percent::ZERO);
    }

    #[test]
    fn numjobs_are_workers_each_at_iodepth() {
        let p = plan(
            "[j]\nrw=randwrite\nbs=8k\nnumjobs=4\niodepth=8\nioengine=libaio\ndirect=1\ntime_based\nruntime=30\n",
        );
        let (w, qd, _, _, target) = measures(&p)[0];
        assert_eq!(w.read, Percent::ZERO);
        assert_eq!((qd.total, qd.per_worker, qd.workers), (32, 8, 4));
        assert_eq!(target.workers, 4);
    }

    #[test]
    fn global_options_reach_the_jobs_after_them_and_jobs_override_them() {
        let p = plan(
            "[global]\nioengine=libaio\ndirect=1\nbs=8k\ntime_based\nruntime=20\nstonewall\n\n\
             [a]\nrw=randread\niodepth=4\n\n[b]\nrw=randwrite\nbs=16k\nruntime=40\n\n\
             [global]\nramp_time=2\n\n[c]\nrw=read\n",
        );
        let m = measures(&p);
        assert_eq!(m.len(), 3);
        assert_eq!(m[0].0.blocks[0].size, Bytes(8192));
        assert_eq!(m[0].1.total, 4);
        assert_eq!(m[0].2, Duration::ZERO, "[a] comes before the second [global]");
        assert_eq!(m[1].0.blocks[0].size, Bytes(16384));
        assert_eq!(m[1].3.time, Some(Duration::from_secs(40)));
        assert_eq!(m[1].1.total, 1, "fio's default iodepth");
        assert_eq!(m[2].0.random, Percent::ZERO);
        assert_eq!(m[2].2, Duration::from_secs(2));
        assert_eq!(m[2].3.time, Some(Duration::from_secs(20)));
        assert!(m.iter().all(|m| m.4.io == IoMode::Direct));
        let phases: Vec<_> = p.steps.iter().map(|s| s.phase.clone().unwrap()).collect();
        assert_eq!(phases, ["a", "b", "c"]);
    }

    #[test]
    fn size_and_offset_make_the_span() {
        let p = plan(
            "[j]\nrw=randread\nioengine=io_uring\ndirect=1\nsize=10g\noffset=1g\ntime_based\nruntime=5\n",
        );
        let (w, _, _, _, target) = measures(&p)[0];
        assert_eq!(target.span, Extent::Bytes(Bytes(11 << 30)));
        assert_eq!(w.offset, Bytes(1 << 30));
        let p = plan("[j]\nrw=randread\nsize=25%\ntime_based\nruntime=5\n");
        assert_eq!(measures(&p)[0].4.span, Extent::Percent(Percent::whole(25)));
    }

    #[test]
    fn a_buffered_job_drops_the_cache_first_as_fio_invalidates() {
        let p = plan("[j]\nrw=read\nbs=1m\ntime_based\nruntime=10\n");
        assert!(matches!(p.steps[0].action, Action::DropCaches));
        assert_eq!(measures(&p)[0].4.io, IoMode::Buffered);
        let p = plan("[j]\nrw=read\nbs=1m\ninvalidate=0\ntime_based\nruntime=10\n");
        assert!(matches!(p.steps[0].action, Action::Measure { .. }));
    }

    #[test]
    fn a_write_job_without_time_based_stops_when_its_size_is_written() {
        let p = plan("[fill]\nrw=write\nbs=128k\nioengine=libaio\niodepth=32\ndirect=1\nsize=4g\nloops=2\n");
        let (_, _, _, stop, target) = measures(&p)[0];
        assert_eq!(stop.written, Some(Extent::Bytes(Bytes(8 << 30))));
        assert_eq!(stop.time, None);
        assert_eq!(target.span, Extent::Bytes(Bytes(4 << 30)));
        let p = plan("[fill]\nrw=randwrite\nnumjobs=2\nruntime=60\n");
        let (_, _, _, stop, _) = measures(&p)[0];
        assert_eq!(stop.written, Some(Extent::Percent(Percent::whole(200))));
        assert_eq!(stop.time, Some(Duration::from_secs(60)));
    }

    #[test]
    fn clones_in_stripes_of_their_size_are_workers_in_stripes() {
        let p = plan(
            "[fill]\nrw=write\nbs=1m\nnumjobs=4\nsize=1g\noffset_increment=1g\nioengine=libaio\niodepth=8\n\
             direct=1\n",
        );
        let (w, qd, _, stop, target) = measures(&p)[0];
        assert_eq!(w.random, Percent::ZERO);
        assert_eq!((target.workers, qd.per_worker), (4, 8));
        assert_eq!(target.span, Extent::Bytes(Bytes(4 << 30)));
        assert_eq!(stop.written, Some(Extent::Bytes(Bytes(4 << 30))), "each clone writes its stripe once");
        let p = plan("[seq]\nrw=read\nnumjobs=4\nsize=20%\noffset_increment=20%\ntime_based\nruntime=5\n");
        assert_eq!(measures(&p)[0].4.span, Extent::Percent(Percent::whole(80)));
        let p = plan("[fill]\nrw=write\nnumjobs=2\nsize=50%\noffset_increment=50%\nloops=3\n");
        assert_eq!(measures(&p)[0].3.written, Some(Extent::Percent(Percent::whole(300))));
        for (text, words) in [
            (
                "[j]\nrw=write\nnumjobs=2\nsize=1g\noffset_increment=2g\ntime_based\nruntime=5\n",
                "must be the job's size",
            ),
            (
                "[j]\nrw=randwrite\nnumjobs=2\nsize=1g\noffset_increment=1g\ntime_based\nruntime=5\n",
                "anywhere in the span",
            ),
            (
                "[j]\nrw=write\nnumjobs=3\nsize=40%\noffset_increment=40%\ntime_based\nruntime=5\n",
                "past the end",
            ),
            (
                "[j]\nrw=write\nbs=64k\nnumjobs=2\nsize=96k\noffset_increment=96k\ntime_based\nruntime=5\n",
                "whole 64KiB blocks",
            ),
        ] {
            let e = errors(text);
            let line = text.lines().position(|l| l.starts_with("offset_increment")).unwrap() + 1;
            let option = text.lines().nth(line - 1).unwrap();
            assert!(has(&e, line, option, words), "{text}: {e:?}");
        }
        let out = import("[j]\nrw=write\nsize=1g\noffset_increment=1g\ntime_based\nruntime=5\n");
        assert!(out.contains("offset_increment=1g (line 4): ignored"), "{out}");
    }

    #[test]
    fn io_size_is_what_a_write_job_writes() {
        let p = plan("[j]\nrw=randwrite\nsize=1g\nio_size=10g\n");
        let (_, _, _, stop, target) = measures(&p)[0];
        assert_eq!(stop.written, Some(Extent::Bytes(Bytes(10 << 30))));
        assert_eq!(target.span, Extent::Bytes(Bytes(1 << 30)));
        let e = errors("[j]\nrw=randwrite\nio_size=10g\ntime_based\nruntime=5\n");
        assert!(has(&e, 3, "io_size=10g", "whatever io_size says"), "{e:?}");
    }

    #[test]
    fn data_options_set_the_data() {
        let p = plan("[j]\nrw=write\nbuffer_compress_percentage=50\ntime_based\nruntime=5\n");
        assert_eq!(
            measures(&p)[0].4.data,
            methodic_compiler::plan::DataPattern::Compressible(Percent::whole(50))
        );
        let p = plan("[j]\nrw=write\nzero_buffers\ntime_based\nruntime=5\n");
        assert_eq!(measures(&p)[0].4.data, methodic_compiler::plan::DataPattern::Zeros);
    }

    #[test]
    fn kb_base_1000_reads_si_units() {
        let p = plan("[j]\nkb_base=1000\nrw=randread\nbs=4KiB\nsize=10g\ntime_based\nruntime=5\n");
        let (w, _, _, _, target) = measures(&p)[0];
        assert_eq!(w.blocks[0].size, Bytes(4096));
        assert_eq!(target.span, Extent::Bytes(Bytes(10_000_000_000)));
        assert_eq!(p.conventions.units, Units::Decimal);
    }

    #[test]
    fn harmless_and_reporting_options_are_noted_not_refused() {
        let out = import(
            "[global]\ngroup_reporting\nrandrepeat=0\nnorandommap\nverify=0\nthread\n\
             [j]\nrw=randread\nwrite_iops_log=j\nlog_avg_msec=1000\niodepth_batch_submit=8\n\
             ioengine=io_uring\ndirect=1\ntime_based\nruntime=5\n",
        );
        for said in [
            "group_reporting (line 2)",
            "randrepeat=0 (line 3)",
            "norandommap (line 4)",
            "thread (line 6)",
            "write_iops_log=j (line 9)",
            "log_avg_msec=1000 (line 10)",
            "iodepth_batch_submit=8 (line 11)",
        ] {
            assert!(out.contains(said), "{said} is not noted:\n{out}");
        }
        assert!(!out.contains("verify"), "verify=0 is fio's default and needs no note:\n{out}");
        assert!(!out.contains("not yet touched"), "norandommap makes fio draw as methodic does:\n{out}");
        let i = fio_to_method("[g]\nrw=read\ngroup_reporting\ntime_based\nruntime=1\n", "f", "n").unwrap();
        assert_eq!(i.dropped, 1);
    }

    #[test]
    fn ini_syntax_as_fio_reads_it() {
        let p =
            plan("# comment\n; another\n  [j]  \n  rw   =randread\n\tbs =8k\ntime_based\r\nruntime=5\r\n");
        let (w, ..) = measures(&p)[0];
        assert_eq!(w.blocks[0].size, Bytes(8192));
        let e = errors("rw=read\n[j]\nrw=read\ntime_based\nruntime=1\n[k\n");
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!((e[0].line, e[0].kind), (1, ImportErrorKind::Syntax));
        assert_eq!((e[1].line, e[1].kind), (6, ImportErrorKind::Syntax));
        let e = errors("[global]\nrw=read\n");
        assert_eq!(e[0].kind, ImportErrorKind::NoJobs);
    }

    fn has(errors: &[ImportError], line: usize, option: &str, words: &str) -> bool {
        errors
            .iter()
            .any(|e| e.line == line && e.option.as_deref() == Some(option) && e.to_string().contains(words))
    }

    #[test]
    fn every_problem_is_named_with_its_line_and_option() {
        let e = errors(
            "[global]\nverify=crc32c\ntime_based\nruntime=30sec\n\n[a]\nrw=randread\nbs=4KiB\niodepht=32\n\
             thinktime=10\n\n[b]\nrw=randwrite\n",
        );
        let all = e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n");
        assert!(has(&e, 2, "verify=crc32c", "does not check the data"), "{all}");
        assert!(has(&e, 4, "runtime=30sec", "30 microseconds"), "{all}");
        assert!(has(&e, 8, "bs=4KiB", "4000 bytes"), "{all}");
        assert!(has(&e, 9, "iodepht=32", "unknown option `iodepht=32`: it is not an fio option"), "{all}");
        assert_eq!(e.iter().find(|e| e.line == 9).unwrap().hint.as_deref(), Some("did you mean `iodepth`?"));
        assert!(has(&e, 10, "thinktime=10", "no pause"), "{all}");
        let c = e.iter().find(|e| e.kind == ImportErrorKind::Concurrent).expect(&all);
        assert_eq!(c.line, 12);
        assert!(c.to_string().contains("[b] at the same time as [a] (line 6)"), "{all}");
        assert!(c.to_string().contains("stonewall"), "{all}");
        assert_eq!(e.iter().filter(|e| e.line == 2).count(), 1, "an inherited problem is told once: {all}");
        assert!(all.contains("(in job.fio:2, [global])"), "{all}");
        let lines: Vec<usize> = e.iter().map(|e| e.line).collect();
        assert!(lines.windows(2).all(|w| w[0] <= w[1]), "in line order: {lines:?}");
    }

    #[test]
    fn values_fio_reads_otherwise_are_refused() {
        for (option, words) in [
            ("bs=1.5k", "as 1 byte:"),
            ("bs= 4k", "as 4 bytes"),
            ("bs=4kilo", "not a size unit"),
            ("bs=4k,8k", "another for writes"),
            ("rw= randread", "does not know ` randread`"),
            ("rw=randread:8", "modifier"),
            ("rw=trim", "do not trim"),
            ("iodepth=1k", "1024"),
            ("rwmixread=70.5", "not a plain whole number"),
            ("runtime=5min", "5 microseconds"),
            ("ramp_time= 500ms", "500 seconds"),
            ("runtime=1500us", "whole number of milliseconds"),
            ("runtime=10s # ten", "no comments after a value"),
            ("size=${SIZE}", "substitutes"),
            ("direct", "0 or 1"),
            ("size=150%", "between 0% and 100%"),
            ("offset=10%", "share of the target"),
            ("bssplit=4k/10:64k/50", "add up to 60%"),
            ("bssplit=4k/50:8k:16k:32k", "leaves 2%"),
            ("bssplit=4k/33.5:8k", "not a whole percentage"),
        ] {
            let text = format!("[j]\ntime_based\nruntime=10\nrw=randrw\n{option}\n");
            let text = if option.starts_with("rw") || option.starts_with("runtime") {
                format!(
                    "[j]\ntime_based\n{}{option}\n",
                    if option.starts_with("rw") { "runtime=10\n" } else { "" }
                )
            } else {
                text
            };
            let e = errors(&text);
            let line = text.lines().position(|l| l == option).unwrap() + 1;
            assert!(
                has(&e, line, option, words),
                "{option}: {}",
                e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
            );
        }
    }

    #[test]
    fn refusals_that_depend_on_the_whole_job() {
        let cases = [
            ("[j]\nrw=randread\niodepth=32\ntime_based\nruntime=5\n", 3, "fio's default engine"),
            (
                "[j]\nrw=randread\nioengine=psync\niodepth=8\ntime_based\nruntime=5\n",
                4,
                "caps iodepth=8 at 1",
            ),
            ("[j]\nrw=randread\nioengine=libaio\niodepth=8\ntime_based\nruntime=5\n", 4, "only direct I/O"),
            ("[j]\nrw=read\nnumjobs=4\ntime_based\nruntime=5\n", 3, "own stripe"),
            ("[j]\nrw=randread\nruntime=5\n", 3, "add time_based"),
            ("[j]\nrw=randread\n", 1, "add time_based"),
            ("[j]\nrw=randread\ntime_based\n", 3, "until fio is stopped"),
            ("[j]\nrw=write\nramp_time=5\n", 3, "ramp's writes"),
            ("[j]\nrw=randread\nbs=1000\ndirect=1\ntime_based\nruntime=5\n", 3, "512B sectors"),
            ("[j]\nrw=randread\nioengine=null\ntime_based\nruntime=5\n", 3, "another path"),
            ("[j]\nrw=randread\nfilename=/a:/b\ntime_based\nruntime=5\n", 3, "several files"),
            ("[j]\nrw=randread\nsize=50%\noffset=1g\ntime_based\nruntime=5\n", 4, "cannot be moved"),
            ("[j]\nrw=randread\ndirect=1\nbuffered=1\ntime_based\nruntime=5\n", 4, "contradict"),
            ("[j]\nrw=randrw\nrwmixread=70\nrwmixwrite=40\ntime_based\nruntime=5\n", 4, "add up to 100"),
            ("[j]\nrw=randread\nzonemode=zbd\ntime_based\nruntime=5\n", 3, "without zones"),
            ("[j]\nrw=randread\nrate_iops=1000\ntime_based\nruntime=5\n", 3, "no rate limit"),
            ("[globalx]\nrw=read\n[j]\ntime_based\nruntime=5\n", 1, "[global] section"),
        ];
        for (text, line, words) in cases {
            let e = errors(text);
            let said = |e: &ImportError| format!("{e} {}", e.hint.as_deref().unwrap_or_default());
            assert!(
                e.iter().any(|e| e.line == line && said(e).contains(words)),
                "{text}: {}",
                e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
            );
        }
    }

    #[test]
    fn fio_sizes() {
        let b = |raw| fio_size(raw, KbBase::Compat1024, true);
        assert_eq!(b("4k"), Ok(FioSize::Bytes(Bytes(4096))));
        assert_eq!(b("4K"), Ok(FioSize::Bytes(Bytes(4096))));
        assert_eq!(b("4kB"), Ok(FioSize::Bytes(Bytes(4096))));
        assert_eq!(b("1m"), Ok(FioSize::Bytes(Bytes(1 << 20))));
        assert_eq!(b("2g"), Ok(FioSize::Bytes(Bytes(2 << 30))));
        assert_eq!(b("4096"), Ok(FioSize::Bytes(Bytes(4096))));
        assert_eq!(b("512b"), Ok(FioSize::Bytes(Bytes(512))));
        assert_eq!(b(" 4096"), Ok(FioSize::Bytes(Bytes(4096))), "fio reads a plain number after a space");
        assert_eq!(b("0x1000"), Ok(FioSize::Bytes(Bytes(4096))));
        assert_eq!(b("50%"), Ok(FioSize::Percent(Percent::whole(50))));
        assert!(b("4KiB").is_err());
        assert!(b("0x10k").is_err());
        assert!(fio_size("50%", KbBase::Compat1024, false).is_err());
        let si = |raw| fio_size(raw, KbBase::Si1000, true);
        assert_eq!(si("4k"), Ok(FioSize::Bytes(Bytes(4000))));
        assert_eq!(si("4KiB"), Ok(FioSize::Bytes(Bytes(4096))));
        assert!(b("99999999999999p").is_err());
    }

    #[test]
    fn fio_times() {
        assert_eq!(fio_time("60"), Ok(Duration::from_secs(60)));
        assert_eq!(fio_time("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(fio_time("2000us"), Ok(Duration::from_millis(2)));
        assert_eq!(fio_time("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(fio_time("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(fio_time("1d"), Ok(Duration::from_secs(86_400)));
        assert_eq!(fio_time("30S"), Ok(Duration::from_secs(30)));
        assert_eq!(fio_time(" 30"), Ok(Duration::from_secs(30)));
        assert!(fio_time("30sec").is_err());
        assert!(fio_time("1.5").is_err());
    }

    #[test]
    fn fio_splits() {
        let s = |raw| fio_bssplit(raw, KbBase::Compat1024);
        let four = |p| (Bytes(4096), Percent::whole(p));
        assert_eq!(s("4k/100"), Ok(vec![four(100)]));
        assert_eq!(s("4k"), Ok(vec![four(100)]));
        assert_eq!(
            s("4k/50:8k:16k"),
            Ok(vec![four(50), (Bytes(8192), Percent::whole(25)), (Bytes(16384), Percent::whole(25))])
        );
        assert_eq!(
            s("4k/50:4k/50:"),
            Ok(vec![four(100)]),
            "sizes given twice add up; a trailing `:` ends it"
        );
        assert!(s("4k/0:8k/100").is_err(), "4k gets nothing");
        assert!(s("4k/50,8k/100").is_err());
        assert!(s("4k/50: 8k/50").is_err());
        assert!(s("4k/60:8k/50").is_err());
    }

    #[test]
    fn names_fit_the_language() {
        let mut taken = HashSet::new();
        assert_eq!(ident("randread-qd32", &mut taken), "randread_qd32");
        assert_eq!(ident("randread qd32", &mut taken), "randread_qd32_2");
        assert_eq!(ident("4k read", &mut taken), "job_4k_read");
        assert_eq!(ident("read", &mut taken), "read_job");
        assert_eq!(ident("---", &mut taken), "job");
        let mut phases = HashSet::new();
        assert_eq!(phase_name("job-a", &mut phases), "job-a");
        assert_eq!(phase_name("job_a", &mut phases), "job_a 2");
        assert_eq!(phase_name("--", &mut phases), "job");
    }

    #[test]
    fn duplicate_job_names_make_distinct_phases_and_workloads() {
        let p = plan("[global]\nstonewall\nrw=randread\ntime_based\nruntime=1\n[job]\n[job]\n[read]\n");
        let ids: Vec<_> = p
            .steps
            .iter()
            .filter(|s| matches!(s.action, Action::Measure { .. }))
            .map(|s| s.id.clone())
            .collect();
        assert_eq!(ids.len(), 3);
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 3, "{ids:?}");
    }

    /// A plan's steps without ids and names: what each does.
    fn what_runs(p: &Plan) -> Vec<String> {
        p.steps
            .iter()
            .map(|s| match &s.action {
                Action::Measure { workload: w, qd, ramp, stop, series } => format!(
                    "measure {:?} read {} random {} align {} offset {} {qd:?} ramp {ramp} {stop:?} series {series} \
                     {:?}",
                    w.blocks, w.read, w.random, w.align, w.offset, s.target
                ),
                other => other.kind().to_string(),
            })
            .collect()
    }

    /// An imported job exported with `methodic export fio` imports to the
    /// same steps: rw, rwmixread, percentage_random, bs, bssplit, ba,
    /// iodepth, numjobs, size, offset, runtime, ramp_time, direct, data,
    /// and io_size for a write job that stops by size, survive the trip.
    #[test]
    fn an_imported_then_exported_job_round_trips_its_options() {
        let jobs = [
            RANDREAD.to_string(),
            "[global]\nioengine=io_uring\ndirect=1\ntime_based\nruntime=2m\nramp_time=10s\n\
             [oltp]\nrw=randrw\nrwmixread=70\nbssplit=4k/10:64k/50:8k/40\nnumjobs=4\niodepth=8\n\
             size=16g\noffset=1g\n"
                .to_string(),
            "[mostly-random]\nrw=randrw\nrwmixwrite=35\npercentage_random=80\nbs=8k\nba=4k\n\
             ioengine=io_uring\niodepth=4\ndirect=1\ntime_based\nruntime=30\n"
                .to_string(),
            "[cached-read]\nrw=read\nbs=1m\nsize=50%\ntime_based\nruntime=20\n".to_string(),
            "[fill]\nrw=write\nbs=128k\nioengine=libaio\niodepth=32\ndirect=1\nsize=4g\nloops=2\n"
                .to_string(),
            "[compressible]\nrw=randwrite\nbuffer_compress_percentage=50\nioengine=io_uring\niodepth=16\n\
             direct=1\ntime_based\nruntime=1m\n\n[zeros]\nstonewall\nrw=write\nzero_buffers\nbs=64k\n\
             time_based\nruntime=500ms\n"
                .to_string(),
        ];
        for job in &jobs {
            let first = plan(job);
            let exported = crate::export::job_file(&first, None);
            let second = match fio_to_method(&exported, "exported.fio", "job") {
                Ok(i) => {
                    methodic_compiler::compile(&i.text, &methodic_compiler::Options::default()).unwrap().plan
                }
                Err(e) => panic!(
                    "{job}\nexported as\n{exported}\ndoes not import: {}",
                    e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
                ),
            };
            assert_eq!(what_runs(&second), what_runs(&first), "{job}\nexported as\n{exported}");
        }
    }
}
