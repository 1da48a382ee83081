//! A plan in, an fio job file out: one section a step that does I/O, run
//! one after another (`stonewall`), as methodic runs them. Each section
//! carries the closest fio options: rw, rwmixread and percentage_random,
//! random_distribution (with a note on how fio's zipf, pareto and normal
//! differ from methodic's), bs or bssplit, blockalign, iodepth and numjobs from the queue depth split,
//! size and offset for the span (and offset_increment, so that the workers
//! of a sequential step take stripes as methodic's do), direct, ioengine,
//! ramp_time, runtime and time_based, loops for fill passes, io_size for
//! `until written`, the buffer options for the data pattern, and ss= for a
//! precondition until steady. What fio cannot say (the SNIA steady-state
//! rule, rounds, erase, drop_caches, limit_ram, copies, probes, idle) is a
//! comment at its place that says what differs.
//!
//! Jobs are threads, as methodic's workers are, and random offsets are
//! drawn with repeats allowed (`norandommap`), as methodic draws them.
//! The target is `${TARGET}` (fio expands environment variables):
//! `TARGET=/dev/nvme0n1 fio FILE.fio`.

use std::fmt::Write as _;

use methodic_compiler::plan::{
    Access, Action, Arrivals, Cell, DataPattern, Duration, EraseMethod, Extent, IoMode, Job, MeasureStop,
    Metric, Pauses, Percent, Plan, Point, PreconditionStop, Qd, Qos, QosAxis, Rate, RateAmount, SteadyRule,
    Step, Target as Settings, Workload, plural,
};

use crate::translate::{normal_differs, pareto_differs, zipf_differs};

/// How methodic ran a step's I/O, when known (a crosscheck runs methodic
/// first): the fio job then uses the same engine, threads and depth.
#[derive(Debug, Clone, Copy)]
pub struct Engine {
    pub psync: bool,
    pub threads: u32,
    pub depth: u32,
    /// io_uring registered its buffers (methodic falls back when it
    /// cannot; fio's fixedbufs would fail the job instead).
    pub registered: bool,
}

impl std::fmt::Display for Engine {
    /// `io_uring 4x32`: the engine, the threads and each one's depth.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}x{}", if self.psync { "psync" } else { "io_uring" }, self.threads, self.depth)
    }
}

/// The whole plan as one job file; with `only`, just that step (from 0),
/// run as methodic ran it when `engine` says how.
pub fn plan_to_fio(plan: &Plan, only: Option<(usize, Option<Engine>)>) -> String {
    let m = &plan.methodology;
    let mut out = String::new();
    let _ = writeln!(out, "; fio jobs for methodology \"{}\" version {}", m.name, m.version);
    let _ = writeln!(
        out,
        "; exported by methodic {} from the methodology whose source is {}",
        env!("CARGO_PKG_VERSION"),
        m.source_hash
    );
    out.push_str(
        "; Run: TARGET=/dev/DEVICE fio THIS_FILE. Steps that write write over the target.\n\
         ; Sections run one after another (stonewall), as methodic runs its steps; what fio\n\
         ; cannot express is said in a comment where the step would be.\n\n\
         [global]\nfilename=${TARGET}\ngroup_reporting=1\nthread\n\
         ; one latency an I/O (submission to completion), as methodic records\n\
         disable_lat=1\ndisable_slat=1\ndisable_bw_measurement=1\n",
    );
    let steps: Vec<usize> = match only {
        Some((i, _)) => vec![i],
        None => (0..plan.steps.len()).collect(),
    };
    let random_writes = steps
        .iter()
        .map(|&i| &plan.steps[i])
        .any(|s| s.action.writes() && s.target.unwrap_or(plan.target).data == DataPattern::Random);
    if random_writes {
        out.push_str(
            "; written data: fio's default buffers (scrambled on each write: no two blocks alike, but\n\
             ; they compress); methodic writes fresh, incompressible bytes in every write. To test a\n\
             ; drive that compresses as methodic does, add refill_buffers=1 (it costs fio speed)\n",
        );
    }
    for i in steps {
        let step = &plan.steps[i];
        out.push('\n');
        if let Some(note) = mixed_trim(i, step) {
            let _ = writeln!(out, "; {note}");
            continue;
        }
        for s in sections(i, step, only.and_then(|o| o.1)) {
            for note in &s.notes {
                let _ = writeln!(out, "; {note}");
            }
            if s.options.is_empty() {
                continue;
            }
            write_section(&mut out, &s);
        }
    }
    out
}

/// Why a step whose workload trims a share of its I/Os, beside reads or
/// writes, has no fio section: fio 3.33's `rw` trims alone (`trim`,
/// `randtrim`) or trims each block before writing it (`trimwrite`), never
/// a share of trims drawn among the I/Os.
fn mixed_trim(i: usize, step: &Step) -> Option<String> {
    let w = step.action.workloads().into_iter().find(|w| {
        w.trim > methodic_compiler::plan::Percent::ZERO && w.trim < methodic_compiler::plan::Percent::HUNDRED
    })?;
    Some(format!(
        "step {} ({}): not exported. Its workload {} trims {} of its I/Os among its reads and writes; fio \
         trims only alone (rw=trim, randtrim) or before each write (trimwrite), so no fio job does the same",
        i + 1,
        step.id,
        w.name,
        w.trim
    ))
}

/// One fio section, or only notes when fio cannot run the step.
struct Section {
    name: String,
    notes: Vec<String>,
    options: Vec<(&'static str, Option<String>)>,
}

/// The drive tools' commands for an erase fio cannot do.
fn erase_command(method: EraseMethod) -> &'static str {
    match method {
        EraseMethod::Purge => {
            "the strongest erase the drive has: `nvme sanitize ${TARGET} --sanact=start-block-erase` or \
             `nvme format ${TARGET} --ses=1` (NVMe), `hdparm --security-erase` (SATA), `sg_sanitize --block` (SCSI), \
             else `blkdiscard ${TARGET}`"
        }
        EraseMethod::SanitizeBlock => {
            "`nvme sanitize ${TARGET} --sanact=start-block-erase` (NVMe), `hdparm --sanitize-block-erase ${TARGET}` \
             (SATA) or `sg_sanitize --block ${TARGET}` (SCSI)"
        }
        EraseMethod::SanitizeCrypto => {
            "`nvme sanitize ${TARGET} --sanact=start-crypto-erase` (NVMe), `hdparm --sanitize-crypto-scramble \
             ${TARGET}` (SATA) or `sg_sanitize --crypto ${TARGET}` (SCSI)"
        }
        EraseMethod::SanitizeOverwrite => {
            "`nvme sanitize ${TARGET} --sanact=start-overwrite --owpass=1` (NVMe), `hdparm --sanitize-overwrite \
             hex:00000000 ${TARGET}` (SATA) or `sg_sanitize --overwrite --zero ${TARGET}` (SCSI)"
        }
        EraseMethod::Format => "`nvme format ${TARGET} --ses=0`",
        EraseMethod::FormatSecure | EraseMethod::Secure => "`nvme format ${TARGET} --ses=1`",
        EraseMethod::FormatCrypto => "`nvme format ${TARGET} --ses=2`",
        EraseMethod::AtaSecure => {
            "`hdparm --user-master u --security-set-pass p ${TARGET}` then `hdparm --user-master u \
             --security-erase p ${TARGET}`"
        }
        EraseMethod::AtaSecureEnhanced => {
            "`hdparm --user-master u --security-set-pass p ${TARGET}` then `hdparm --user-master u \
             --security-erase-enhanced p ${TARGET}`"
        }
        EraseMethod::Discard => "`blkdiscard ${TARGET}`",
    }
}

/// A step on its way to fio sections: its label in notes (`step 3 (id)`),
/// the start of its sections' names, its target settings, and how
/// methodic ran it, when known.
struct StepOut {
    label: String,
    name: String,
    settings: Settings,
    engine: Option<Engine>,
}

impl StepOut {
    /// A section named after the step (and `suffix`) with the options of
    /// its I/O on the step's target.
    fn io(&self, suffix: &str, w: &Workload, qd: &Qd) -> Section {
        io_section(format!("{}{suffix}", self.name), w, qd, &self.settings, self.engine)
    }

    /// The section of a step fio cannot run: a note that says so.
    fn note_only(&self, text: String) -> Vec<Section> {
        vec![Section { name: self.name.clone(), notes: vec![text], options: Vec::new() }]
    }
}

/// A step's fio sections, one arm a step kind: a note for a step fio
/// cannot run, else the sections of its I/O (each kind its function);
/// then what methodic does and fio does not (verify, local).
fn sections(i: usize, step: &Step, engine: Option<Engine>) -> Vec<Section> {
    let x = StepOut {
        label: format!("step {} ({})", i + 1, step.id),
        name: format!("{}-{}", i + 1, file_name(&step.id)),
        settings: step.target.unwrap_or_default(),
        engine,
    };
    let label = &x.label;
    let mut out = match &step.action {
        Action::Erase { method } => x.note_only(erase_note(label, *method)),
        Action::DropCaches => x.note_only(format!(
            "{label}: drop caches. fio cannot: run `sync; echo 3 > /proc/sys/vm/drop_caches` before the next \
             section (fio's invalidate=1, its default, drops only the target's pages)"
        )),
        Action::Idle { time } => x.note_only(format!(
            "{label}: idle {}. fio cannot wait between sections: sleep before the next one",
            time.human()
        )),
        Action::LimitRam { limit } => x.note_only(match limit {
            Some(b) => format!(
                "{label}: RAM limited to {b} for the steps that follow. fio cannot: run fio in a memory cgroup \
                 (systemd-run --scope -p MemoryMax={})",
                b.0
            ),
            None => format!("{label}: the RAM limit is lifted"),
        }),
        Action::Copy { dataset } => x.note_only(format!(
            "{label}: copy of dataset {} ({} files, {}). fio does not copy files: methodic times a copy of a \
             generated tree onto the target's file system",
            dataset.name, dataset.files, dataset.total
        )),
        Action::Probe(p) => x.note_only(format!(
            "{label}: page-size probe ({} writes every {} over {}, {} repeats). fio cannot time each offset on \
             its own",
            p.io, p.step, p.range, p.repeats
        )),
        Action::Fill { workload, qd, passes } => vec![fill_section(&x, workload, qd, *passes)],
        Action::Qos(q) => vec![qos_section(&x, q)],
        Action::Together { jobs, ramp, stop, .. } => together_sections(&x, jobs, *ramp, stop),
        Action::Measure { workload, qd, ramp, stop, rate, at, pauses, .. } => {
            let mut s = measure_section(&x, workload, qd, *ramp, stop, rate.as_ref(), at.as_ref());
            pause_options(&mut s, pauses);
            vec![s]
        }
        Action::Precondition { workload, qd, stop, .. } => vec![precondition_section(&x, workload, qd, stop)],
        Action::Rounds { cells, rule, .. } => rounds_sections(&x, cells, rule),
    };
    if step.verify
        && let Some(s) = out.first_mut()
    {
        s.notes.push(
                "methodic verifies this step (a stamp in every block written, checked when read back); this \
                 section does not: fio's own verify=crc32c with do_verify=1 is the nearest, with another stamp"
                    .into(),
            );
    }
    if step.local
        && let Some(s) = out.first_mut()
    {
        s.notes.push(
            "local: methodic runs this step on the conductor (the machine running methodic), \
                 not on the fio hosts"
                .into(),
        );
    }
    out
}

/// What an erase fio cannot do says to run instead.
fn erase_note(label: &str, method: EraseMethod) -> String {
    match method {
        EraseMethod::Secure => format!(
            "{label}: secure erase. fio cannot erase a drive: run `nvme format --ses=1` (NVMe) or \
             `blkdiscard --secure ${{TARGET}}` before the next section"
        ),
        EraseMethod::Discard => format!(
            "{label}: discard of the span. fio cannot say it here: run `blkdiscard ${{TARGET}}` (on a file, \
             `fallocate --punch-hole`) before the next section"
        ),
        m => format!(
            "{label}: erase {}. fio cannot erase a drive: run {} before the next section",
            m.keyword(),
            erase_command(m)
        ),
    }
}

/// A fill: its passes as `loops`.
fn fill_section(x: &StepOut, workload: &Workload, qd: &Qd, passes: u32) -> Section {
    let label = &x.label;
    let mut s = x.io("", workload, qd);
    s.notes.insert(0, format!("{label}: fill, {} over the span", plural(passes as u64, "pass", "passes")));
    if passes > 1 {
        s.options.push(("loops", Some(passes.to_string())));
    }
    if workload.random > methodic_compiler::plan::Percent::ZERO && qd.workers > 1 {
        s.notes.push(format!(
            "a random fill: methodic's {} workers together write the span {} times; fio's clones each \
             write the whole size: set io_size to the span over numjobs",
            qd.workers, passes
        ));
    }
    s
}

/// A QoS search: by rate, the closed-loop probe that starts it; by queue
/// depth, fio's own search ([`depth_search_section`]).
fn qos_section(x: &StepOut, q: &Qos) -> Section {
    if q.by == QosAxis::Qd {
        return depth_search_section(x, q);
    }
    let label = &x.label;
    let mut s = x.io("", &q.workload, &q.qd);
    s.notes.insert(
        0,
        format!(
            "{label}: latency QoS search for the highest rate with {} under {}. fio's latency_target \
             searches queue depth, not rate (a `qos ... by qd` step exports as it): this section is the \
             closed-loop probe that starts the \
             search; run it again with rate_iops at the rates methodic probed",
            q.percentile_name(),
            q.limit_name()
        ),
    );
    timed(&mut s, q.ramp, &MeasureStop::timed(q.probe), &q.workload, &q.qd, x.engine);
    s
}

/// A QoS search by queue depth as fio's `latency_target`: `iodepth` is the
/// ceiling (per clone, as methodic's depth is per worker),
/// `latency_window` each probe, `latency_percentile` the share of I/Os
/// within the target; the note says how fio's search differs (research
/// traced from fio@f5344384's io_u.c:1594-1745: one stream, no ramp a
/// depth, a drain after a failure, a final window).
fn depth_search_section(x: &StepOut, q: &Qos) -> Section {
    let label = &x.label;
    let mut s = x.io("", &q.workload, &q.qd);
    s.notes.insert(
        0,
        format!(
            "{label}: latency QoS search for the deepest queue depth, up to {} per worker, with {} under {}, \
             as fio's latency_target. fio's search differs: it changes the depth within one stream (the ramp \
             is once, before the search, not before each depth), drains the I/Os in flight only after a depth \
             fails, judges each clone's I/Os on their own, and ends the job after a final window at the depth \
             found; its result is latency_depth in fio's output, not methodic's probes",
            q.qd.per_worker,
            q.percentile_name(),
            q.limit_name()
        ),
    );
    if !q.under_ns.is_multiple_of(1000) {
        s.notes
            .push(format!("fio's latency_target is in whole microseconds: {} is rounded up", q.limit_name()));
    }
    // fio judges the target on its total latency, which [global]'s
    // disable_lat=1 turns off: no I/O would fail (io_u.c:2093-2099).
    s.notes.push("disable_lat=0: fio judges latency_target on the latency disable_lat=1 turns off".into());
    s.options.push(("disable_lat", Some("0".into())));
    s.options.push(("latency_target", Some(format!("{}us", q.under_ns.div_ceil(1000)))));
    s.options.push(("latency_window", Some(format!("{}ms", q.probe.as_millis()))));
    s.options.push(("latency_percentile", Some(q.percentile_name().trim_start_matches('p').to_string())));
    if !q.ramp.is_zero() {
        s.options.push(("ramp_time", Some(format!("{}ms", q.ramp.as_millis()))));
    }
    // fio ends the job itself once its search converges; when the ceiling
    // fails, its search never does, so the time of methodic's most probes
    // and fio's final window caps it.
    let (_, most) = q.probes();
    let cap = q.probe.as_millis().saturating_mul(most as u64 + 1).saturating_add(q.ramp.as_millis());
    s.notes.push(format!(
        "runtime caps fio's search at the time of methodic's most probes ({most}) and a final window"
    ));
    s.options.push(("runtime", Some(format!("{cap}ms"))));
    s.options.push(("time_based", None));
    s
}

/// Jobs at once: a section each, all but the first without stonewall, so
/// that fio starts them together; a job on another device on its own
/// `TARGET`.
fn together_sections(x: &StepOut, jobs: &[Job], ramp: Duration, stop: &MeasureStop) -> Vec<Section> {
    let label = &x.label;
    let mut out = Vec::new();
    for (k, job) in jobs.iter().enumerate() {
        let settings = Settings { workers: job.workers, devices: 1, ..x.settings };
        let mut s = io_section(
            format!("{}-{}", x.name, file_name(&job.name)),
            &job.workload,
            &job.qd,
            &settings,
            x.engine,
        );
        if k == 0 {
            s.notes.insert(
                0,
                format!(
                    "{label}: {} at once; the sections after this one leave out stonewall, so that fio \
                     starts them together",
                    plural(jobs.len() as u64, "job", "jobs")
                ),
            );
        } else {
            s.options.retain(|(k, _)| *k != "stonewall");
        }
        s.notes.insert(usize::from(k == 0), format!("job {}", job.name));
        if job.device > 0 {
            s.options.push(("filename", Some(format!("${{TARGET{}}}", job.device + 1))));
            s.notes.push(format!(
                "device {}: give its path in TARGET{} (TARGET{}=/dev/... fio ...)",
                job.device + 1,
                job.device + 1,
                job.device + 1
            ));
        }
        if let Some(r) = &job.rate {
            rate_options(&mut s, r, &job.workload, &job.qd, x.engine);
        }
        timed(&mut s, ramp, stop, &job.workload, &job.qd, x.engine);
        pause_options(&mut s, &job.pauses);
        out.push(s);
    }
    out
}

/// Think time and bursts as fio's thinktime. fio, after
/// `thinktime_blocks` I/Os issued (`thinktime_blocks_type=issue`), waits
/// for every I/O in flight and then sleeps (`handle_thinktime()`,
/// backend.c:914 at axboe/fio@f5344384): methodic's `think ... drained`
/// exactly; a think that is not drained with a note. Bursts are
/// `thinktime_iotime` (I/O for that long, then the pause), with a note.
fn pause_options(s: &mut Section, pauses: &Pauses) {
    if let Some(t) = pauses.think {
        let us = t.pause_ns.div_ceil(1000);
        s.options.push(("thinktime", Some(us.to_string())));
        s.options.push(("thinktime_blocks", Some(t.every.to_string())));
        s.options.push(("thinktime_blocks_type", Some("issue".into())));
        if t.pause_ns % 1000 != 0 {
            s.notes.push(format!(
                "think {}: fio's thinktime counts whole microseconds, so {us}us",
                methodic_compiler::plan::fine_name(t.pause_ns)
            ));
        }
        if !t.drained {
            s.notes.push(format!(
                "{}: fio waits for the I/Os in flight to complete before it pauses, methodic's think (without \
                 `drained`) does not, so fio's pauses here are longer by the I/Os' latency",
                pauses.describe()
            ));
        }
    }
    if let Some(b) = pauses.bursts {
        if pauses.think.is_some() {
            s.notes.push(format!(
                "bursts of {} every {}: fio has one thinktime, taken by the think time; the bursts are left out",
                b.on.human(),
                b.every.human()
            ));
            return;
        }
        let off = b.every.as_millis().saturating_sub(b.on.as_millis());
        s.options.push(("thinktime", Some((off * 1000).to_string())));
        s.options.push(("thinktime_iotime", Some(format!("{}ms", b.on.as_millis()))));
        s.notes.push(format!(
            "bursts of {} every {}: fio runs I/O for thinktime_iotime, waits for the I/Os in flight, then pauses \
             for thinktime, so its periods are longer by that wait; methodic's bursts keep to a fixed grid of periods",
            b.on.human(),
            b.every.human()
        ));
    }
}

/// A measurement: its rate and its time.
fn measure_section(
    x: &StepOut,
    workload: &Workload,
    qd: &Qd,
    ramp: Duration,
    stop: &MeasureStop,
    rate: Option<&Rate>,
    at: Option<&Point>,
) -> Section {
    let label = &x.label;
    let mut s = x.io("", workload, qd);
    s.notes.insert(0, format!("{label}: measure"));
    if let Some(p) = at {
        s.notes.push(format!(
            "methodic chooses this step's queue depth when it runs: {}; fio cannot, so this section \
             runs at the first of them (QD {}): set iodepth and numjobs to the one methodic chose (its \
             results' actions say which)",
            p.describe(),
            qd.total
        ));
    }
    if let Some(r) = rate {
        rate_options(&mut s, r, workload, qd, x.engine);
    }
    timed(&mut s, ramp, stop, workload, qd, x.engine);
    s
}

/// A precondition for a time, or until steady as fio's `ss=` comes
/// closest.
fn precondition_section(x: &StepOut, workload: &Workload, qd: &Qd, stop: &PreconditionStop) -> Section {
    let label = &x.label;
    let mut s = x.io("", workload, qd);
    match stop {
        PreconditionStop::Time(t) => {
            s.notes.insert(0, format!("{label}: precondition for {}", t.human()));
            s.options.push(("runtime", Some(format!("{}ms", t.as_millis()))));
            s.options.push(("time_based", None));
        }
        PreconditionStop::Steady { round, rule } => {
            let metric = match rule.metric {
                Metric::Iops => "iops",
                Metric::Latency => {
                    s.notes.push(
                        "the steady metric is latency: fio's ss= judges IOPS or bandwidth; here IOPS".into(),
                    );
                    "iops"
                }
                _ => "bw",
            };
            s.notes.insert(
                0,
                format!(
                    "{label}: precondition in {} rounds until steady (SNIA: a {}-round window, excursion \
                     within {} and slope within {} of its average, at most {} rounds). fio's ss= judges a \
                     sliding window of samples, not rounds: close, not the same rule",
                    round.human(),
                    rule.window,
                    rule.excursion,
                    rule.slope,
                    rule.max_rounds
                ),
            );
            let window_ms = round.as_millis() * rule.window as u64;
            // SNIA's slope is the change over the whole window; fio's
            // iops_slope, the change a second, as a share of the mean.
            let per_second = rule.slope.as_f64() / (window_ms as f64 / 1000.0).max(1.0);
            s.options.push(("runtime", Some(format!("{}ms", round.as_millis() * rule.max_rounds as u64))));
            s.options.push(("time_based", None));
            s.options.push(("ss", Some(format!("{metric}_slope:{per_second:.6}%"))));
            s.options.push(("ss_dur", Some(format!("{}s", window_ms.div_ceil(1000)))));
        }
    }
    s
}

/// Rounds: a section a cell, each run once.
fn rounds_sections(x: &StepOut, cells: &[Cell], rule: &SteadyRule) -> Vec<Section> {
    let label = &x.label;
    let mut out = Vec::new();
    for (k, cell) in cells.iter().enumerate() {
        let mut s = x.io(&format!("-cell{}", k + 1), &cell.workload, &cell.qd);
        if k == 0 {
            s.notes.insert(
                0,
                format!(
                    "{label}: {} measurements repeated in rounds until the tracked one is steady (a \
                     {}-round window, at most {} rounds). fio runs each once: repeat these sections for \
                     more rounds",
                    cells.len(),
                    rule.window,
                    rule.max_rounds
                ),
            );
        }
        if !cell.ramp.is_zero() {
            s.options.push(("ramp_time", Some(format!("{}ms", cell.ramp.as_millis()))));
        }
        s.options.push(("runtime", Some(format!("{}ms", cell.record.as_millis()))));
        s.options.push(("time_based", None));
        out.push(s);
    }
    out
}

/// A measurement's ramp, record time and `until written` or `until
/// transferred` budget, as fio options.
fn timed(
    s: &mut Section,
    ramp: Duration,
    stop: &MeasureStop,
    workload: &Workload,
    qd: &Qd,
    engine: Option<Engine>,
) {
    if !ramp.is_zero() {
        s.options.push(("ramp_time", Some(format!("{}ms", ramp.as_millis()))));
    }
    // Until an amount: io_size (a clone's share of it) ends the job,
    // and a time limit is a cap, not a length (no time_based).
    if let Some(t) = stop.time {
        s.options.push(("runtime", Some(format!("{}ms", t.as_millis()))));
        if stop.amount().is_none() {
            s.options.push(("time_based", None));
        }
    }
    let clones = engine.map_or(qd.workers, |e| e.threads).max(1) as u64;
    // fio's io_size counts reads too; methodic's budget, writes only.
    let write_share = 100.0 - workload.read.as_f64();
    match stop.written {
        Some(Extent::Bytes(b)) if write_share > 0.0 => {
            let total = (b.0 as f64 * 100.0 / write_share) as u64;
            if write_share < 100.0 {
                s.notes.push(format!(
                    "until {b} written: fio's io_size counts reads as well, so it is the I/O that writes \
                     about that much at {}% writes",
                    write_share
                ));
            }
            s.options.push(("io_size", Some((total / clones).to_string())));
        }
        Some(Extent::Bytes(_)) => {}
        Some(Extent::Percent(p)) => {
            s.notes.push(format!("until {p} of the span is written: fio's io_size takes bytes, set it"))
        }
        None => {}
    }
    // Until transferred is fio's io_size itself: reads, writes and trims.
    match stop.transferred {
        Some(Extent::Bytes(b)) => s.options.push(("io_size", Some((b.0 / clones).to_string()))),
        Some(Extent::Percent(p)) => s
            .notes
            .push(format!("until {p} of the span is read or written: fio's io_size takes bytes, set it")),
        None => {}
    }
}

/// An open-loop rate as fio's: `rate_iops` (or `rate`) for each clone,
/// `rate_process=poisson` for Poisson arrivals. fio caps reads and writes
/// each on its own (one value caps both alike, so that a 70/30 mix would
/// run at twice the rate, half reads): a mixed workload's rate is split
/// by its read share, `rate_iops=READS,WRITES`.
fn rate_options(s: &mut Section, r: &Rate, w: &Workload, qd: &Qd, engine: Option<Engine>) {
    let clones = engine.map_or(qd.workers, |e| e.threads).max(1) as u64;
    let (total, option, unit) = match r.amount {
        RateAmount::Iops(n) => (n, "rate_iops", "IOPS"),
        RateAmount::Bandwidth(b) => (b.0, "rate", "bytes a second"),
        RateAmount::Share { share, of } => {
            s.notes.push(format!(
                "open loop at {share} of the IOPS step {} did: fio cannot take a rate from another job's \
                 result; set rate_iops to that share of step {}'s IOPS, each clone's part",
                of + 1,
                of + 1
            ));
            if r.arrivals == Arrivals::Poisson {
                s.options.push(("rate_process", Some("poisson".into())));
            }
            return;
        }
    };
    let read = u64::from(w.read.hundredths());
    let value = if read == 0 || read == 10_000 {
        let each = total.div_ceil(clones);
        if each * clones != total {
            s.notes.push(format!(
                "{total} {unit} over {clones} clones: fio's {option} is each clone's, rounded up"
            ));
        }
        each.to_string()
    } else {
        let reads = (u128::from(total) * u128::from(read) / 10_000) as u64;
        let (r_each, w_each) = (reads.div_ceil(clones), (total - reads).div_ceil(clones));
        if (r_each + w_each) * clones != total {
            s.notes.push(format!(
                "{total} {unit} over {clones} clones, split by the read share: fio's {option} is each clone's, \
                 rounded up"
            ));
        }
        format!("{r_each},{w_each}")
    };
    s.options.push((option, Some(value)));
    if r.arrivals == Arrivals::Poisson {
        s.options.push(("rate_process", Some("poisson".into())));
    }
    s.notes.push(
        "open loop: methodic counts latency from when each I/O was due; fio, from when it was submitted (a \
         late I/O's wait is not in fio's latency)"
            .into(),
    );
}

/// The options every section with I/O shares, in this order: what it does,
/// its blocks, where, how deep and on what, direct or buffered, and the
/// data it writes.
fn io_section(name: String, w: &Workload, qd: &Qd, settings: &Settings, engine: Option<Engine>) -> Section {
    let mut s = Section { name, notes: Vec::new(), options: vec![("stonewall", None)] };
    pattern_options(&mut s, w);
    block_options(&mut s, w);
    let workers = engine.map_or(qd.workers, |e| e.threads).max(1);
    span_options(&mut s, w, settings.span, workers);
    engine_options(&mut s, qd, engine);
    s.options.push(("direct", Some(if settings.io == IoMode::Direct { "1" } else { "0" }.into())));
    data_options(&mut s, w, settings.data);
    if settings.devices > 1 {
        s.notes.push(format!(
            "methodic spreads the workers over {} devices: give fio each with filename=DEV1:DEV2:...",
            settings.devices
        ));
    }
    s
}

/// What the I/O does: `rw` (with `rwmixread` and `percentage_random` for
/// a mix) and where random offsets land.
fn pattern_options(s: &mut Section, w: &Workload) {
    let read = w.read.as_f64();
    let random = w.random.as_f64();
    // Trims alone are fio's trim and randtrim; fio has no share of trims
    // among reads and writes (see `mixed_trim`).
    let trims = w.trim.as_f64() >= 100.0;
    let rw = match (read, random > 0.0) {
        _ if trims && random > 0.0 => "randtrim",
        _ if trims => "trim",
        (r, false) if r >= 100.0 => "read",
        (r, true) if r >= 100.0 => "randread",
        (r, false) if r <= 0.0 => "write",
        (r, true) if r <= 0.0 => "randwrite",
        (_, false) => "rw",
        (_, true) => "randrw",
    };
    s.options.push(("rw", Some(rw.into())));
    if read > 0.0 && read < 100.0 {
        s.options.push(("rwmixread", Some(format!("{}", read.round() as u32))));
        if read.fract() != 0.0 {
            s.notes.push(format!("read share {read}%: fio's rwmixread takes whole percents"));
        }
    }
    if random > 0.0 && random < 100.0 {
        s.options.push(("percentage_random", Some(format!("{}", random.round() as u32))));
    }
    // methodic draws random offsets uniformly, repeats allowed; fio by
    // default visits each block once a pass (and pays to track it).
    if random > 0.0 {
        s.options.push(("norandommap", None));
        if let Some(d) = distribution(&w.access, &mut s.notes) {
            s.options.push(("random_distribution", Some(d)));
        }
    }
}

/// The block size, or the sizes and their shares (for reads, then writes
/// and trims, when the writes have their own: fio's `bssplit=R,W,T`), and
/// the alignment when it is not the smallest block.
fn block_options(s: &mut Section, w: &Workload) {
    let Some(writes) = &w.write_blocks else {
        match w.blocks.as_slice() {
            [one] => s.options.push(("bs", Some(one.size.0.to_string()))),
            _ => {
                let split = fio_split(s, &w.blocks);
                s.options.push(("bssplit", Some(split)));
            }
        }
        return block_align(s, w);
    };
    let (reads, writes) = (fio_split(s, &w.blocks), fio_split(s, writes));
    s.options.push(("bssplit", Some(format!("{reads},{writes},{writes}"))));
    block_align(s, w);
}

/// `4096/70:65536/30`: a split as fio's bssplit takes it, whole percents.
fn fio_split(s: &mut Section, split: &[methodic_compiler::plan::BlockShare]) -> String {
    let exact: Vec<u32> = split.iter().map(|b| b.share.hundredths()).collect();
    let shares = whole_percents(&exact);
    if exact.iter().any(|h| h % 100 != 0) {
        let note = "block shares rounded to whole percents, as fio takes them".to_string();
        if !s.notes.contains(&note) {
            s.notes.push(note);
        }
    }
    split.iter().zip(&shares).map(|(b, s)| format!("{}/{s}", b.size.0)).collect::<Vec<_>>().join(":")
}

/// `blockalign` when the alignment is not the smallest block.
fn block_align(s: &mut Section, w: &Workload) {
    let smallest = w.smallest_block().0;
    if w.align.0 != 0 && w.align.0 != smallest {
        s.options.push(("blockalign", Some(w.align.0.to_string())));
    }
}

/// Where the I/O goes: `size` for the span, `offset_increment` for the
/// stripes of a sequential step's `workers`, and `offset`.
fn span_options(s: &mut Section, w: &Workload, span: Extent, workers: u32) {
    // methodic gives each worker of a sequential step its own stripe of
    // the span; fio's clones would each walk the same blocks.
    let striped = w.random == methodic_compiler::plan::Percent::ZERO && workers > 1;
    let start = w.offset.0;
    match span {
        Extent::Bytes(b) => {
            let span = b.0.saturating_sub(start);
            // Whole blocks a stripe, as methodic's stripes are, so that
            // direct I/O in the later stripes stays aligned.
            let largest = w.largest_block().0;
            let unit = w.align.0.max(largest).max(4096);
            let size = if striped { span / workers as u64 / unit * unit } else { span };
            s.options.push(("size", Some(size.to_string())));
            if striped {
                s.options.push(("offset_increment", Some(size.to_string())));
            }
        }
        Extent::Percent(p) => {
            // fio takes whole percents only (12.5% reads as 12 bytes).
            let whole = p.hundredths() % 100 == 0 && (p.hundredths() / 100) % workers == 0;
            let size = if striped && whole {
                p.hundredths() / 100 / workers
            } else {
                (p.as_f64().round() as u32).max(1)
            };
            if striped && !whole {
                s.notes.push(format!(
                    "methodic gives each of the {workers} workers a stripe of the {p} span; fio takes whole \
                     percents, so here every job walks the whole span"
                ));
            }
            if p.hundredths() % 100 != 0 {
                s.notes.push(format!("span {p}: fio takes whole percents"));
            }
            s.options.push(("size", Some(format!("{size}%"))));
            if striped && whole {
                s.options.push(("offset_increment", Some(format!("{size}%"))));
            }
            if start > 0 {
                s.notes.push(format!("I/O starts {start} bytes in: fio takes the size from there"));
            }
        }
    }
    if start > 0 {
        s.options.push(("offset", Some(start.to_string())));
    }
}

/// How deep and on what: the engine methodic ran, when known, else the
/// one it would choose for the queue depth; `iodepth` and `numjobs`.
fn engine_options(s: &mut Section, qd: &Qd, engine: Option<Engine>) {
    let (psync, threads, depth) = match engine {
        Some(e) => (e.psync, e.threads, e.depth),
        None => (qd.per_worker == 1, qd.workers, qd.per_worker),
    };
    if engine.is_none() && qd.per_worker > 1 {
        s.notes.push(
            "methodic keeps this queue depth with one psync thread an I/O on targets that complete I/O in the \
             submitting thread (zram, tmpfs); `methodic crosscheck` exports the job as methodic ran it"
                .into(),
        );
    }
    s.options.push(("ioengine", Some(if psync { "psync" } else { "io_uring" }.into())));
    if !psync {
        // methodic registers its buffers and the file with the ring.
        if engine.is_none_or(|e| e.registered) {
            s.options.push(("fixedbufs", None));
        }
        s.options.push(("registerfiles", None));
    }
    s.options.push(("iodepth", Some(depth.max(1).to_string())));
    s.options.push(("numjobs", Some(threads.max(1).to_string())));
}

/// What is written: fresh random data for each write, zeros, or data
/// that compresses by a share; nothing for a workload that does not
/// write.
fn data_options(s: &mut Section, w: &Workload, data: DataPattern) {
    match data {
        _ if !w.writes() => {}
        // fio's default (random buffers, scrambled on each write:
        // scramble_buffers=1) defeats deduplication but compresses well;
        // methodic writes fresh bytes into every write, as refill_buffers
        // would have fio do, at a cost to fio of 11% (4KiB) to 47%
        // (128KiB). The export keeps fio's default, so that crosscheck
        // compares the engines, and says so in the job file.
        DataPattern::Random => {}
        DataPattern::Zeros => s.options.push(("zero_buffers", None)),
        DataPattern::Compressible(p) => {
            s.options.push(("buffer_compress_percentage", Some(format!("{}", p.as_f64().round() as u32))));
            s.options.push(("refill_buffers", None));
        }
    }
}

/// Shares in hundredths of a percent (adding up to 100%) as the whole
/// percents fio takes, adding up to 100: the largest remainders get the
/// percents that rounding down leaves over.
fn whole_percents(exact: &[u32]) -> Vec<u32> {
    let mut shares: Vec<u32> = exact.iter().map(|h| h / 100).collect();
    let mut order: Vec<usize> = (0..exact.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(exact[k] % 100));
    let left = 100u32.saturating_sub(shares.iter().sum());
    for &k in order.iter().cycle().take(left as usize) {
        shares[k] += 1;
    }
    shares
}

const SHARED: &str = "The centre 0 gives fio's clones one set of hot blocks, as methodic's workers share \
                      one (without a centre each clone has its own).";

/// fio's `random_distribution` for a workload's access, with a note on
/// what fio draws otherwise; `None` for uniform access (fio's default).
fn distribution(access: &Access, notes: &mut Vec<String>) -> Option<String> {
    match access {
        Access::Uniform => None,
        // The centre 0: fio's clones then start the hash at one place and
        // share hot blocks, as methodic's workers do (without a centre,
        // each clone starts it at a random place of its own).
        Access::Zipf { theta } if theta.0 == 1000 => {
            notes.push(format!(
                "random zipf 1: fio refuses zipf:1 (its approximation divides by 1 - theta): 1.001 here. {} {SHARED}",
                zipf_differs()
            ));
            Some("zipf:1.001:0".into())
        }
        Access::Zipf { theta } => {
            notes.push(format!("random zipf {theta}: {} {SHARED}", zipf_differs()));
            Some(format!("zipf:{theta}:0"))
        }
        Access::Pareto { h } => {
            notes.push(format!("random pareto {h}: {} {SHARED}", pareto_differs()));
            Some(format!("pareto:{h}:0"))
        }
        Access::Normal { sigma, centre } => {
            notes.push(format!("random {access}: {}", normal_differs(*sigma)));
            // fio takes a deviation below 100.
            let dev = if *sigma >= Percent::HUNDRED {
                notes.push(format!("fio takes a deviation below 100: 99.99 here for {sigma}"));
                "99.99".to_string()
            } else {
                sigma.as_f64().to_string()
            };
            let c = centre.hundredths();
            let frac = format!("{:04}", c % 10_000);
            let centre = match frac.trim_end_matches('0') {
                "" => (c / 10_000).to_string(),
                f => format!("{}.{f}", c / 10_000),
            };
            Some(format!("normal:{dev}:{centre}"))
        }
        Access::Bands(bands) => {
            // fio's zones are whole percents; a span share of 0 would read
            // as "a share of the rest", so a band keeps at least 1% of the
            // span, taken from the band rounded up the most.
            let bands: Vec<_> = bands.iter().filter(|b| !b.span.is_zero() || !b.io.is_zero()).collect();
            let io = whole_percents(&bands.iter().map(|b| b.io.hundredths()).collect::<Vec<_>>());
            let exact: Vec<u32> = bands.iter().map(|b| b.span.hundredths()).collect();
            let mut span = whole_percents(&exact);
            for k in 0..span.len() {
                if span[k] == 0 {
                    let up = |j: usize| span[j] as i64 * 100 - exact[j] as i64;
                    if let Some(from) = (0..span.len()).filter(|&j| span[j] > 1).max_by_key(|&j| up(j)) {
                        span[from] -= 1;
                        span[k] = 1;
                    }
                }
            }
            let rounded = bands
                .iter()
                .zip(io.iter().zip(&span))
                .any(|(b, (i, s))| b.io.hundredths() != i * 100 || b.span.hundredths() != s * 100);
            if rounded {
                notes.push(format!(
                    "random {access}: fio's zones are whole percents, so the shares are rounded"
                ));
            }
            let zones: Vec<String> = io.iter().zip(&span).map(|(i, s)| format!("{i}/{s}")).collect();
            Some(format!("zoned:{}", zones.join(":")))
        }
    }
}

/// A step id or name as a file or section name: `4kib-random/rnd4k_read-qd1`
/// becomes `4kib-random.rnd4k_read-qd1`.
pub fn file_name(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '.' })
        .collect()
}

/// Per-interval logs a host job writes, which fio's client brings back
/// to the conductor (`PREFIX_iops.N.log.HOST`, `_bw`, `_clat`, one a
/// clone), each interval's average over `interval_ms`.
#[derive(Debug, Clone)]
pub struct HostLogs {
    pub prefix: String,
    pub interval_ms: u64,
}

/// One I/O run of a step on one host of a run on many hosts: the step (a
/// fill or a measurement with the run's own queue depth, times and
/// rate), the engine it runs with, its logs, the command it waits on
/// first and its seed.
pub struct HostRun<'s> {
    pub step: &'s Step,
    pub engine: Engine,
    /// Its IOPS, bandwidth and mean latency each interval.
    pub logs: Option<HostLogs>,
    /// A command the host runs before the run starts (fio's
    /// `exec_prerun`), such as a wait for a set start time.
    pub prerun: Option<String>,
    /// Seeds the run's random offsets and choices (`randseed`).
    pub seed: Option<u64>,
    /// Checked by fio's own verify: `verify=crc32c` and the options
    /// that go with it, as `VERIFY_OPTIONS` in this module says.
    pub verify: bool,
}

/// fio's own verify, for a run on many hosts of a step with `verify`
/// that only writes, for an amount: fio's header (with a crc32c of the
/// block) at the head of each block written, read back once the writes
/// end (`do_verify`, fio's default) and counted in the job's reads;
/// `continue_on_error=verify` checks every block past a mismatch and
/// counts them (`total_err`); `verify_state_save=0` leaves no state file
/// on the host. The interval is the block (fio's `verify_interval`
/// default): with a smaller one, fio 3.33 passes a block whose checksum
/// fails in any chunk but the last (verify.c, `verify_io_u`).
const VERIFY_OPTIONS: [(&str, &str); 3] =
    [("verify", "crc32c"), ("continue_on_error", "verify"), ("verify_state_save", "0")];

/// How the I/O runs of one host's job file run: one after another, or
/// all at once (a `together` step's jobs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Each behind a `stonewall` (which also starts a reporting group of
    /// its own; on the first run it is fio's no-op).
    InTurn,
    /// Started together, each in a reporting group of its own
    /// (`new_group`).
    AtOnce,
}

/// The job file one host's fio server runs in a run on many hosts: each
/// of `runs` as its step's one section (as [`plan_to_fio`] writes it, run
/// as its engine says), in the `order` asked, on `target`, each reporting
/// one job over its clones (`group_reporting`), a reporting group each.
/// `Err` says why fio cannot run a step as methodic would: a step fio
/// cannot run at all, one with more than one section (a `together` or
/// `rounds` step: run its cells one at a time), or one fio runs otherwise
/// (a share of trims, think time that is not drained, bursts).
pub fn host_job(target: &str, runs: &[HostRun<'_>], order: Order) -> Result<String, String> {
    let mut out = String::new();
    match runs {
        [] => return Err("no I/O run to send".into()),
        [one] => {
            let _ = writeln!(
                out,
                "; methodic {}: step {} on one host of a run on many hosts",
                env!("CARGO_PKG_VERSION"),
                one.step.id
            );
        }
        [first, ..] => {
            let _ = writeln!(
                out,
                "; methodic {}: {} I/O runs of step {} {}, on one host of a run on many hosts",
                env!("CARGO_PKG_VERSION"),
                runs.len(),
                first.step.id,
                if order == Order::AtOnce { "at once" } else { "in turn" }
            );
        }
    }
    let _ = writeln!(out, "[global]\nfilename={}\ngroup_reporting=1\nthread", target.replace(':', "\\:"));
    out.push_str("disable_lat=1\ndisable_slat=1\ndisable_bw_measurement=1\n");
    // The server calibrates its clock as it parses the job, not when the
    // client says run (see CLOCKSOURCE in methodic-runtime's hosts).
    out.push_str("clocksource=clock_gettime\n");
    for (k, run) in runs.iter().enumerate() {
        let mut s = host_section(run.step, run.engine)?;
        if runs.len() > 1 {
            s.name = format!("{}-run{}", s.name, k + 1);
        }
        // `sections` gives each a stonewall, as `methodic export` runs
        // steps in turn.
        match order {
            Order::InTurn if !s.options.iter().any(|(key, _)| *key == "stonewall") => {
                s.options.push(("stonewall", None));
            }
            Order::InTurn => {}
            Order::AtOnce => {
                s.options.retain(|(key, _)| *key != "stonewall");
                if k > 0 {
                    s.options.push(("new_group", None));
                }
            }
        }
        if let Some(p) = &run.prerun {
            s.options.push(("exec_prerun", Some(p.clone())));
        }
        if let Some(seed) = run.seed {
            s.options.push(("randseed", Some(seed.to_string())));
        }
        if run.verify {
            s.options.extend(VERIFY_OPTIONS.map(|(k, v)| (k, Some(v.to_string()))));
        }
        if let Some(l) = &run.logs {
            for key in ["write_iops_log", "write_bw_log", "write_lat_log"] {
                s.options.push((key, Some(l.prefix.clone())));
            }
            s.options.push(("log_avg_msec", Some(l.interval_ms.max(1).to_string())));
            s.options.push(("log_unix_epoch", Some("1".into())));
        }
        out.push('\n');
        for note in &s.notes {
            let _ = writeln!(out, "; {note}");
        }
        write_section(&mut out, &s);
    }
    Ok(out)
}

/// `step`'s one section, run as `engine` says, or why fio cannot run it
/// on a host as methodic would.
fn host_section(step: &Step, engine: Engine) -> Result<Section, String> {
    if let Some(note) = mixed_trim(0, step) {
        return Err(note);
    }
    let mut runnable: Vec<Section> = sections(0, step, Some(engine));
    if runnable.len() != 1 || runnable[0].options.is_empty() {
        let why: Vec<String> = runnable.iter().flat_map(|s| s.notes.iter().cloned()).collect();
        return Err(why.join("; "));
    }
    Ok(runnable.remove(0))
}

/// The fio options of each section `methodic export` writes for `step`
/// that runs I/O (one for most steps, one a cell for a rounds step), in
/// order: (option, value), a flag without a value. What fio's JSON output
/// lists as a job's "job options" (`methodic report --format fio-json`).
pub fn job_options(step: &Step, engine: Option<Engine>) -> Vec<Vec<(&'static str, Option<String>)>> {
    sections(0, step, engine).into_iter().filter(|s| !s.options.is_empty()).map(|s| s.options).collect()
}

/// A section's head and options, a line each (`KEY=VALUE`, or `KEY` for
/// a flag).
fn write_section(out: &mut String, s: &Section) {
    let _ = writeln!(out, "[{}]", s.name);
    for (k, v) in &s.options {
        match v {
            Some(v) => {
                let _ = writeln!(out, "{k}={v}");
            }
            None => {
                let _ = writeln!(out, "{k}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use methodic_compiler::plan::depth_probes;

    fn job(src: &str) -> String {
        let plan =
            methodic_compiler::compile(src, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan;
        plan_to_fio(&plan, None)
    }

    fn has(job: &str, line: &str) -> bool {
        job.lines().any(|l| l == line)
    }

    /// A host's job: the step's one section on that host's target (its
    /// colons escaped), one report over its clones, the clock named, and
    /// the logs asked; a step fio cannot run, or runs as several sections,
    /// is no host job, and says why.
    #[test]
    fn a_host_job_is_the_step_s_one_section_on_the_host_s_target() {
        let src = "methodology \"h\" version \"1\"\nworkload r { random; block 4KiB; read 70% }\n\
                   erase secure\nmeasure r qd 8 ramp 1s for 5s\n";
        let plan =
            methodic_compiler::compile(src, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan;
        let engine = Engine { psync: false, threads: 2, depth: 4, registered: false };
        let run = |step, prerun: &str, seed| HostRun {
            step,
            engine,
            logs: Some(HostLogs { prefix: "series".into(), interval_ms: 250 }),
            prerun: Some(prerun.into()),
            seed: Some(seed),
            verify: false,
        };
        let job = host_job(
            "/dev/disk/by-path/pci-0000:01:00.0",
            &[run(&plan.steps[1], "sleep 1", 7)],
            Order::InTurn,
        )
        .unwrap();
        for line in [
            "filename=/dev/disk/by-path/pci-0000\\:01\\:00.0",
            "group_reporting=1",
            "clocksource=clock_gettime",
            "write_iops_log=series",
            "log_avg_msec=250",
            "log_unix_epoch=1",
            "exec_prerun=sleep 1",
            "randseed=7",
            "rw=randrw",
            "rwmixread=70",
            "iodepth=4",
            "numjobs=2",
            "ramp_time=1000ms",
            "runtime=5000ms",
        ] {
            assert!(has(&job, line), "{line} missing:\n{job}");
        }
        assert_eq!(job.matches("\n[").count(), 2, "[global] and one section:\n{job}");
        assert!(!job.contains("verify"), "{job}");
        let why = host_job("/dev/sdb", &[run(&plan.steps[0], "true", 1)], Order::InTurn).unwrap_err();
        assert!(why.contains("fio cannot erase a drive"), "{why}");
        // Checked by fio's own verify: its header in each block, every
        // mismatch counted, no state file left.
        let checked = HostRun { verify: true, ..run(&plan.steps[1], "true", 1) };
        let job = host_job("/dev/sdb", &[checked], Order::InTurn).unwrap();
        for line in ["verify=crc32c", "continue_on_error=verify", "verify_state_save=0"] {
            assert!(has(&job, line), "{line} missing:\n{job}");
        }
    }

    /// Several I/O runs in one host's job file run in turn: a section
    /// each, named apart, each after the first behind a stonewall, each
    /// with its own wait, seed and logs.
    #[test]
    fn a_host_job_of_several_runs_runs_them_in_turn() {
        let src = "methodology \"h\" version \"1\"\nworkload r { random; block 4KiB; read 100% }\n\
                   sweep r qd [1, 8] record 2s\n";
        let plan =
            methodic_compiler::compile(src, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan;
        let engine = Engine { psync: false, threads: 1, depth: 1, registered: false };
        let runs: Vec<HostRun<'_>> = plan
            .steps
            .iter()
            .enumerate()
            .map(|(k, step)| HostRun {
                step,
                engine,
                logs: Some(HostLogs { prefix: format!("host-1-run{}", k + 1), interval_ms: 500 }),
                prerun: Some(format!("sleep {k}")),
                seed: Some(k as u64 + 10),
                verify: false,
            })
            .collect();
        let job = host_job("/tmp/t", &runs, Order::InTurn).unwrap();
        let sections: Vec<&str> = job.split("\n[").skip(1).collect();
        assert_eq!(sections.len(), 3, "[global] and a section a run:\n{job}");
        for (k, s) in sections[1..].iter().enumerate() {
            assert!(s.lines().next().is_some_and(|h| h.ends_with(&format!("-run{}]", k + 1))), "{s}");
            assert_eq!(s.lines().filter(|l| *l == "stonewall").count(), 1, "run {}: {s}", k + 1);
            for line in [
                format!("exec_prerun=sleep {k}"),
                format!("randseed={}", k + 10),
                format!("write_iops_log=host-1-run{}", k + 1),
            ] {
                assert!(has(s, &line), "run {}: {line} missing:\n{s}", k + 1);
            }
        }
        assert!(host_job("/tmp/t", &[], Order::InTurn).is_err());
        // At once: no stonewall, a reporting group each.
        let job = host_job("/tmp/t", &runs, Order::AtOnce).unwrap();
        assert!(!has(&job, "stonewall"), "{job}");
        let sections: Vec<&str> = job.split("\n[").skip(2).collect();
        assert_eq!(sections.iter().map(|s| has(s, "new_group")).collect::<Vec<_>>(), [false, true], "{job}");
        assert!(
            job.starts_with(&format!(
                "; methodic {}: 2 I/O runs of step r-qd1 at once",
                env!("CARGO_PKG_VERSION")
            )),
            "{job}"
        );
    }

    /// A search by queue depth is fio's latency_target at iodepth = the
    /// ceiling per clone, the probe as the window, and a note on how
    /// fio's search differs; a search by rate stays a closed-loop probe.
    #[test]
    fn a_qos_search_by_queue_depth_exports_as_fios_latency_target() {
        let src = |by: &str| {
            format!(
                "methodology \"q\" version \"1\"\nconventions {{ queue_depth per_worker }}\n\
                 target {{ workers 2 }}\nworkload r {{ random; block 4KiB; read 100% }}\n\
                 qos r qd 128 {{ p99.9 under 500ms; probe 5s; ramp 2s{by} }}\n"
            )
        };
        let j = job(&src("; by qd"));
        let (_, most) = depth_probes(128);
        for line in [
            "iodepth=128",
            "numjobs=2",
            "latency_target=500000us",
            "latency_window=5000ms",
            "latency_percentile=99.9",
            "disable_lat=0",
            "ramp_time=2000ms",
            &format!("runtime={}ms", 2000 + 5000 * (most as u64 + 1)),
            "time_based",
        ] {
            assert!(has(&j, line), "{line} missing:\n{j}");
        }
        assert!(
            j.contains(
                "as fio's latency_target. fio's search differs: it changes the depth within one stream"
            ),
            "{j}"
        );
        let by_rate = job(&src(""));
        assert!(
            !by_rate.contains("latency_target=") && by_rate.contains("the closed-loop probe"),
            "{by_rate}"
        );
    }

    #[test]
    fn stripes_are_whole_blocks_so_direct_io_stays_aligned() {
        let j = job("methodology \"s\" version \"1\"\ntarget { span 1GiB; workers 3 }\n\
                     measure { sequential; block 128KiB; read 100% } qd 3 for 1s\n");
        // 1GiB / 3 rounded down to 128KiB blocks.
        let stripe = (1u64 << 30) / 3 / (128 << 10) * (128 << 10);
        assert!(has(&j, &format!("size={stripe}")) && has(&j, &format!("offset_increment={stripe}")), "{j}");
        assert_eq!(stripe % 4096, 0);
    }

    #[test]
    fn a_local_step_says_it_runs_on_the_conductor() {
        let j = job("methodology \"l\" version \"1\"\ndrop_caches local\ndrop_caches\n");
        let local = "; local: methodic runs this step on the conductor (the machine running methodic), \
                     not on the fio hosts";
        assert_eq!(j.lines().filter(|l| *l == local).count(), 1, "{j}");
        let notes: Vec<&str> = j.lines().filter(|l| l.contains(": drop caches. fio cannot")).collect();
        assert_eq!(notes.len(), 2, "both keep their comment: {j}");
        let after_first = j.lines().skip_while(|l| !l.starts_with("; step 1 ")).nth(1);
        assert_eq!(after_first, Some(local), "{j}");
    }

    #[test]
    fn io_size_counts_the_reads_fio_counts_and_is_a_clones_share() {
        let j = job("methodology \"w\" version \"1\"\ntarget { span 1GiB; workers 2 }\n\
                     measure { random; block 4KiB; read 50% } qd 2 for 1min until written 100MiB\n");
        // 100MiB written at 50% writes is 200MiB of I/O, 100MiB a clone.
        assert!(has(&j, &format!("io_size={}", 100u64 << 20)), "{j}");
        assert!(has(&j, "runtime=60000ms") && !has(&j, "time_based"), "a time cap, not a length: {j}");
        // Until transferred is io_size itself, reads and writes.
        let j = job("methodology \"t\" version \"1\"\ntarget { span 1GiB; workers 2 }\n\
                     measure { sequential; block 1MiB; read 100% } qd 2 until transferred 1GiB\n");
        assert!(has(&j, &format!("io_size={}", 512u64 << 20)) && !has(&j, "time_based"), "{j}");
    }

    #[test]
    fn think_time_is_fios_thinktime_and_says_where_fio_differs() {
        let j = job("methodology \"t\" version \"1\"\nworkload r { random; block 4KiB; read 100% }\n\
                     measure r qd 8 for 1s think 2ms every 4 drained\n");
        for o in ["thinktime=2000", "thinktime_blocks=4", "thinktime_blocks_type=issue"] {
            assert!(has(&j, o), "{o}: {j}");
        }
        assert!(!j.contains("fio waits for the I/Os in flight"), "drained is fio's way: {j}");
        let j = job("methodology \"t\" version \"1\"\nworkload r { random; block 4KiB; read 100% }\n\
                     measure r qd 8 for 1s think 1500ns\n");
        assert!(has(&j, "thinktime=2") && has(&j, "thinktime_blocks=1"), "{j}");
        assert!(j.contains("fio waits for the I/Os in flight to complete before it pauses"), "{j}");
        assert!(j.contains("so 2us"), "{j}");
        let j = job("methodology \"t\" version \"1\"\nworkload r { random; block 4KiB; read 100% }\n\
                     measure r qd 8 bursts 2s every 10s times 3\n");
        assert!(has(&j, "thinktime=8000000") && has(&j, "thinktime_iotime=2000ms"), "{j}");
    }

    #[test]
    fn a_mixed_rate_is_split_by_the_read_share_as_fio_caps_each_direction() {
        let j = job("methodology \"r\" version \"1\"\ntarget { workers 2 }\n\
                     measure { random; block 4KiB; read 70% } qd 4 rate 10000 iops poisson for 1s\n");
        // 7000 reads and 3000 writes a second, over two clones.
        assert!(has(&j, "rate_iops=3500,1500") && has(&j, "rate_process=poisson"), "{j}");
        let j = job("methodology \"r\" version \"1\"\n\
                     measure { random; block 4KiB; read 100% } qd 4 rate 1MiB/s for 1s\n");
        assert!(has(&j, "rate=1048576") && !has(&j, "rate_process=poisson"), "{j}");
    }

    #[test]
    fn the_snia_slope_becomes_fios_slope_a_second() {
        let j = job("methodology \"p\" version \"1\"\nworkload w { random; block 4KiB; read 0% }\n\
                     precondition w qd 4 until steady { round 60s; window 5; slope 10%; max_rounds 25; metric iops }\n");
        // 10% over a 300s window is 0.0333% a second.
        assert!(has(&j, "ss=iops_slope:0.033333%") && has(&j, "ss_dur=300s"), "{j}");
    }

    /// Trims alone are fio's trim or randtrim; a share of trims among
    /// reads and writes has no fio job, and says so in place of one.
    #[test]
    fn trims_alone_export_as_fios_trim_and_a_mix_is_refused() {
        let with_trim = |src: &str, trim: u32| {
            let mut plan =
                methodic_compiler::compile(src, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan;
            for s in &mut plan.steps {
                if let Action::Measure { workload, .. } = &mut s.action {
                    workload.trim = methodic_compiler::plan::Percent::whole(trim);
                }
            }
            plan_to_fio(&plan, None)
        };
        let src = |access: &str| {
            format!(
                "methodology \"t\" version \"1\"\nmeasure {{ {access}; block 4KiB; read 0% }} qd 4 for 1s\n"
            )
        };
        let j = with_trim(&src("random"), 100);
        assert!(has(&j, "rw=randtrim") && has(&j, "bs=4096"), "{j}");
        assert!(has(&with_trim(&src("sequential"), 100), "rw=trim"));
        let j = with_trim(&src("random"), 30);
        assert!(!j.lines().any(|l| l.starts_with("rw=")), "no job for a mix: {j}");
        assert!(
            j.contains("; step 1 (") && j.contains("trims 30% of its I/Os among its reads and writes"),
            "{j}"
        );
    }

    #[test]
    fn access_distributions_become_random_distribution_with_what_fio_draws_otherwise() {
        let j = job("methodology \"d\" version \"1\"\n\
                     workload z { random zipf 1.2; block 4KiB; read 100% }\n\
                     workload one { random 80% zipf 1; block 4KiB; read 100% }\n\
                     workload p { random pareto 0.9; block 4KiB; read 0% }\n\
                     workload n { random normal 2.5% around 25%; block 4KiB; read 100% }\n\
                     workload m { random normal 100%; block 4KiB; read 100% }\n\
                     workload b { random bands 50% in 5%, 30% in 15%, 20% in 80%; block 4KiB; read 0% }\n\
                     workload r { random bands 33.34% in 0.4%, 33.33% in 49.6%, 33.33% in 50%; block 4KiB; read 0% }\n\
                     workload s { sequential; block 128KiB; read 0% }\n\
                     for w in [z, one, p, n, m, b, r, s] { measure w qd 1 for 1s }\n");
        let options: Vec<&str> = j.lines().filter(|l| l.starts_with("random_distribution=")).collect();
        assert_eq!(
            options,
            [
                "random_distribution=zipf:1.2:0",
                "random_distribution=zipf:1.001:0",
                "random_distribution=pareto:0.9:0",
                "random_distribution=normal:2.5:0.25",
                "random_distribution=normal:99.99:0.5",
                "random_distribution=zoned:50/5:30/15:20/80",
                "random_distribution=zoned:34/1:33/49:33/50",
            ],
            "{j}"
        );
        assert!(j.contains("; random zipf 1.2: methodic draws zipf exactly"), "{j}");
        assert!(j.contains("fio refuses zipf:1"), "{j}");
        assert!(j.contains("fio takes a deviation below 100: 99.99 here for 100%"), "{j}");
        assert!(
            j.contains("a standard deviation of 8.4% of the range"),
            "normal:2.5 is fio's 12-draw mean: {j}"
        );
        assert!(j.contains("fio's zones are whole percents, so the shares are rounded"), "{j}");
        assert_eq!(j.matches("shares are rounded").count(), 1, "the exact bands are not rounded: {j}");
    }

    #[test]
    fn block_shares_round_to_whole_percents_adding_up_to_100() {
        let j = job("methodology \"b\" version \"1\"\n\
                     measure { random; blocks { 4KiB: 33.34%, 8KiB: 33.33%, 16KiB: 33.33% }; read 100% } qd 1 for 1s\n");
        assert!(has(&j, "bssplit=4096/34:8192/33:16384/33"), "{j}");
        assert!(j.contains("block shares rounded to whole percents"), "{j}");
    }
}
