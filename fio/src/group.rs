//! The translated jobs in, in the job file's order; out, the phases they
//! make and the devices fio's `filename`s become. A job without
//! `stonewall` joins the jobs before it, as fio starts it together with
//! them: such a group is one phase with a `together` step, a job each; a
//! job alone is a phase with one measurement. Files are devices in the
//! order the job file first names them, when a group runs on more than
//! one. Checks that a group can be one `together` step: one time and one
//! ramp for all its jobs, none that ends by size or checks its data
//! (`verify`), and one target setting (span, direct or buffered I/O, data
//! written, cache dropped).

use std::collections::HashSet;

use crate::error::{ImportErrorKind, Problem};
use crate::job_file::{Entry, Job, waits};
use crate::translate::{Data, FioSpan, Note, Step, Stop};

/// One phase of the methodology: a job alone, or jobs fio starts together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Phase {
    pub(crate) steps: Vec<Step>,
    /// Each step's device, from 1 (`device 1` is the first `--target`).
    pub(crate) devices: Vec<u32>,
    /// A `together` step: jobs fio starts together, or one job on a device
    /// other than the first (a measurement runs on the first).
    pub(crate) together: bool,
    /// Comments on the phase as a whole.
    pub(crate) notes: Vec<String>,
}

/// A file fio runs jobs on, a device of the methodology's run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Device {
    /// fio's `filename`; `None` for the jobs that give none.
    pub(crate) path: Option<String>,
    /// The jobs on it, as `[section]`.
    pub(crate) jobs: Vec<String>,
    /// The file fio makes for each job without a filename (`name.0.0`).
    pub(crate) own_files: Vec<String>,
}

/// The jobs (and their translations, `None` where a job was refused) to
/// phases and devices; the devices are listed only when there are more
/// than one. Problems are those of the groups; a refused job is left out
/// of its group's checks.
pub(crate) fn steps_to_phases(
    jobs: &[Job],
    steps: Vec<Option<Step>>,
) -> (Vec<Phase>, Vec<Device>, Vec<Problem>) {
    let mut groups: Vec<Vec<(&Job, Step)>> = Vec::new();
    for (i, (job, step)) in jobs.iter().zip(steps).enumerate() {
        if i == 0 || waits(job) {
            groups.push(Vec::new());
        }
        if let Some(step) = step {
            groups.last_mut().expect("a group was started").push((job, step));
        }
    }
    let key = |s: &Step| s.filename.as_ref().map(|f| f.path.clone());
    // Devices only when a group runs on more than one file: otherwise the
    // one target is given when the methodology runs, as for a job alone.
    let several = groups.iter().any(|g| g.iter().map(|(_, s)| key(s)).collect::<HashSet<_>>().len() > 1);
    let mut devices: Vec<Device> = Vec::new();
    if several {
        for (job, step) in groups.iter().flatten() {
            let path = key(step);
            let at = match devices.iter().position(|d| d.path == path) {
                Some(at) => at,
                None => {
                    devices.push(Device { path, jobs: Vec::new(), own_files: Vec::new() });
                    devices.len() - 1
                }
            };
            devices[at].jobs.push(format!("[{}]", job.section));
            if step.filename.is_none() {
                devices[at].own_files.push(format!("{}.0.0", job.name()));
            }
        }
    }
    let device_of = |s: &Step| -> u32 {
        let path = key(s);
        devices.iter().position(|d| d.path == path).map_or(1, |i| i as u32 + 1)
    };

    let mut problems = Vec::new();
    let mut phases = Vec::new();
    for group in groups {
        if group.is_empty() {
            continue;
        }
        let numbers: Vec<u32> = group.iter().map(|(_, s)| device_of(s)).collect();
        let together = group.len() > 1 || numbers[0] != 1;
        if together {
            problems.extend(check_group(&group, numbers[0], devices.len() > 1));
        }
        let mut notes = Vec::new();
        let unnamed: Vec<&Job> =
            group.iter().filter(|(_, s)| s.filename.is_none()).map(|(j, _)| *j).collect();
        if unnamed.len() > 1 {
            notes.push(format!(
                "fio makes each of {} a file of its own, named after the job ({}), as they have no filename; \
                 here they share one target",
                unnamed.iter().map(|j| format!("[{}]", j.section)).collect::<Vec<_>>().join(", "),
                unnamed.iter().map(|j| format!("{}.0.0", j.name())).collect::<Vec<_>>().join(", ")
            ));
        }
        let steps = group
            .into_iter()
            .zip(&numbers)
            .map(|((_, mut step), n)| {
                if let Some(f) = &step.filename {
                    let text = if devices.len() > 1 {
                        format!("device {n}: give it as `--target` number {n} when the methodology runs")
                    } else {
                        format!(
                            "the target is given when the methodology runs: `methodic run FILE.method --target {}`",
                            f.path
                        )
                    };
                    step.notes.push(Note {
                        line: f.line,
                        global: f.global,
                        dropped: true,
                        text: format!("{} (line {}): {text}", f.written, f.line),
                    });
                }
                step
            })
            .collect();
        phases.push(Phase { steps, devices: numbers, together, notes });
    }
    (phases, devices, problems)
}

/// A value of a job as a problem names it: `1min (runtime=60)`, or
/// `100% (fio's default)` when no option gives it.
fn said(value: String, entry: Option<&Entry>) -> String {
    match entry {
        Some(e) => format!("{value} ({})", e.written()),
        None => format!("{value} (fio's default)"),
    }
}

/// A problem of a job against the first of its group, at the option that
/// sets it (or at the job).
fn against(job: &Job, entry: Option<&Entry>, detail: String, hint: String) -> Problem {
    Problem {
        kind: ImportErrorKind::Concurrent,
        line: entry.map_or(job.line, |e| e.line),
        section: Some(entry.map_or(job.section.clone(), |e| e.section.clone())),
        option: entry.map(Entry::written),
        detail,
        hint: Some(hint),
    }
}

/// What keeps the jobs of a group from one `together` step, job by job in
/// the group's order: a job that ends by size, then each job against the
/// first (time, ramp, target settings), then the data the writers write.
fn check_group(group: &[(&Job, Step)], device: u32, several: bool) -> Vec<Problem> {
    let check = Check { group, device, several };
    let mut problems = check.ends_by_size();
    problems.extend(check.verify());
    problems.extend(check.latency());
    for (job, step) in &group[1..] {
        problems.extend(check.time_and_ramp(job, step));
        problems.extend(check.settings(job, step));
    }
    problems.extend(check.data());
    problems
}

/// A group under check: its jobs (the first leads), the device of its
/// first job, and whether the methodology has several devices.
struct Check<'g> {
    group: &'g [(&'g Job, Step)],
    device: u32,
    several: bool,
}

impl Check<'_> {
    fn first(&self) -> &Job {
        self.group[0].0
    }

    fn lead(&self) -> &Step {
        &self.group[0].1
    }

    /// Why the job is in a together step, which each problem starts with.
    fn with(&self, job: &Job, step: &Step) -> String {
        if self.group.len() == 1 {
            let file = step.filename.as_ref().map_or("a file of its own".to_string(), |f| f.path.clone());
            let here = if self.several { format!(", device {} here", self.device) } else { String::new() };
            format!(
                "fio runs [{}] on {file}{here}, not on the first file the job file names, and a job runs on another \
                 device than the first only in a together step",
                job.section
            )
        } else {
            // The first job is told against the one after it, not itself.
            let other = if std::ptr::eq(job, self.first()) { self.group[1].0 } else { self.first() };
            format!("fio starts [{}] together with [{}] (line {})", job.section, other.section, other.line)
        }
    }

    /// The other way out, which the hints end with.
    fn stonewall(&self, job: &Job) -> String {
        format!("or add stonewall to [{}] to run it after [{}]", job.section, self.first().section)
    }

    /// Jobs that end once they have written (or read) their size.
    fn ends_by_size(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        for (job, step) in self.group {
            if let Stop::Written { .. } | Stop::Transferred { .. } = step.stop {
                let done = if let Stop::Written { .. } = step.stop { "written" } else { "moved" };
                problems.push(against(
                    job,
                    None,
                    format!(
                        "{}, and [{}] ends once it has {done} its size (it has no time_based); methodic's jobs at \
                         once run for a time",
                        self.with(job, step),
                        job.section
                    ),
                    format!(
                        "add time_based (with a runtime) to [{}], so that fio runs it for the runtime too",
                        job.section
                    ),
                ));
            }
        }
        problems
    }

    /// Jobs that check their data: methodic's `verify` is an option of
    /// a measurement, not of a together step's job.
    fn verify(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        for (job, step) in self.group.iter().filter(|(_, s)| s.verify) {
            problems.push(against(
                job,
                job.get("verify"),
                format!(
                    "{}, and [{}] checks its data (verify); methodic's `verify` is an option of fill, \
                     precondition, measure and sweep, not of a together step's jobs",
                    self.with(job, step),
                    job.section
                ),
                format!(
                    "drop verify, or run [{}] on its own (stonewall on it and on the job after it) on the first file",
                    job.section
                ),
            ));
        }
        problems
    }

    /// Jobs with a latency target: each is a `qos` step, which runs
    /// alone, not as a together step's job.
    fn latency(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        for (job, step) in self.group.iter().filter(|(_, s)| s.latency.is_some()) {
            problems.push(against(
                job,
                job.get("latency_target"),
                format!(
                    "{}, and [{}] searches its queue depth (latency_target); methodic's search by queue depth \
                     is a `qos` step, which runs alone",
                    self.with(job, step),
                    job.section
                ),
                format!(
                    "run [{}] on its own (stonewall on it and on the job after it) on the first file",
                    job.section
                ),
            ));
        }
        problems
    }

    /// A job's time and ramp against the first job's.
    fn time_and_ramp(&self, job: &Job, step: &Step) -> Vec<Problem> {
        let (first, lead) = (self.first(), self.lead());
        let mut problems = Vec::new();
        // The time: only where both run for one (a job that ends by size
        // is told above).
        if let (Stop::Time(a), Stop::Time(b)) = (lead.stop, step.stop)
            && a != b
        {
            problems.push(against(
                job,
                job.get("runtime"),
                format!(
                    "{}, but [{}] runs for {} and [{}] for {}: a together step runs its jobs for one time",
                    self.with(job, step),
                    first.section,
                    said(a.to_string(), first.get("runtime")),
                    job.section,
                    said(b.to_string(), job.get("runtime"))
                ),
                format!(
                    "give the jobs fio starts together one runtime (in [global], say), {}",
                    self.stonewall(job)
                ),
            ));
        }
        if lead.ramp != step.ramp {
            problems.push(against(
                job,
                job.get("ramp_time").or_else(|| first.get("ramp_time")),
                format!(
                    "{}, but [{}] ramps up for {} and [{}] for {}: a together step has one ramp for its jobs",
                    self.with(job, step),
                    first.section,
                    said(lead.ramp.to_string(), first.get("ramp_time")),
                    job.section,
                    said(step.ramp.to_string(), job.get("ramp_time"))
                ),
                format!("give the jobs fio starts together one ramp_time, {}", self.stonewall(job)),
            ));
        }
        problems
    }

    /// A job's target settings against the first job's: span, direct or
    /// buffered I/O, and (for buffered I/O alike) the cache dropped.
    fn settings(&self, job: &Job, step: &Step) -> Vec<Problem> {
        let (first, lead) = (self.first(), self.lead());
        let mut problems = Vec::new();
        // `[a] does direct I/O (direct=1) and [b] buffered I/O (fio's default)`.
        let setting = |a: String, b: String, entry: Option<&Entry>, option: &str| {
            against(
                job,
                entry,
                format!(
                    "{}, but [{}] {a} and [{}] {b}: the jobs of a together step share the target's settings",
                    self.with(job, step),
                    first.section,
                    job.section
                ),
                format!("give the jobs fio starts together the same {option}, {}", self.stonewall(job)),
            )
        };
        if lead.span != step.span {
            let entry = |j| either(j, "size", "offset_increment");
            problems.push(setting(
                format!("works over {}", said(span_words(lead.span), entry(first))),
                format!("over {}", said(span_words(step.span), entry(job))),
                entry(job),
                "size",
            ));
        }
        let io = |j| either(j, "direct", "buffered");
        if lead.direct != step.direct {
            problems.push(setting(
                format!("does {}", said(io_words(lead.direct), io(first))),
                said(io_words(step.direct), io(job)),
                io(job),
                "direct",
            ));
        } else if lead.drop_caches != step.drop_caches {
            let pages = |d: bool, j| {
                said(if d { "drops" } else { "keeps" }.to_string(), either(j, "invalidate", "invalidate"))
            };
            problems.push(setting(
                format!("{} the file's cached pages when it starts", pages(lead.drop_caches, first)),
                format!("{} them", pages(step.drop_caches, job)),
                job.get("invalidate").or_else(|| first.get("invalidate")),
                "invalidate",
            ));
        }
        problems
    }

    /// What is written: only jobs that write say it, each against the
    /// first of them.
    fn data(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let writers: Vec<&(&Job, Step)> =
            self.group.iter().filter(|(_, s)| s.read < methodic_compiler::plan::Percent::HUNDRED).collect();
        let Some(((w0, s0), rest)) = writers.split_first().map(|(f, r)| ((&f.0, &f.1), r)) else {
            return problems;
        };
        let data = |j| either(j, "zero_buffers", "buffer_compress_percentage");
        for (job, step) in rest.iter().map(|p| (&p.0, &p.1)) {
            if s0.data != step.data {
                problems.push(against(
                    job,
                    data(job).or_else(|| data(w0)),
                    format!(
                        "{}, but [{}] writes {} and [{}] {}: the jobs of a together step write the data the \
                         target's settings say",
                        self.with(job, step),
                        w0.section,
                        said(data_words(s0.data), data(w0)),
                        job.section,
                        said(data_words(step.data), data(job))
                    ),
                    format!(
                        "give the jobs fio starts together that write the same data options, or add stonewall to [{}] \
                         to run it after [{}]",
                        job.section, w0.section
                    ),
                ));
            }
        }
        problems
    }
}

/// The option that sets something: `a`, else `b`.
fn either<'j>(job: &'j Job, a: &str, b: &str) -> Option<&'j Entry> {
    job.get(a).or_else(|| job.get(b))
}

fn span_words(s: FioSpan) -> String {
    match s {
        FioSpan::Percent(p) => format!("{p} of the target"),
        FioSpan::Bytes(b) => b.to_string(),
    }
}

fn io_words(direct: bool) -> String {
    if direct { "direct I/O" } else { "buffered I/O" }.to_string()
}

fn data_words(d: Data) -> String {
    match d {
        Data::Random => "random data".to_string(),
        Data::Zeros => "zeros".to_string(),
        Data::Compressible(p) => format!("data compressible by {p}"),
    }
}
