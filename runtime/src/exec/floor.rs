//! The host's pacing floor: an open-loop I/O run goes in (its rate,
//! arrivals, pauses, engine, threads and depth); the same open loop is
//! run with no device (the null engine: every I/O done as it starts) and
//! against a file in RAM (tmpfs), and what comes out is how late the
//! host alone starts I/Os at that rate, and the least latency it adds to
//! each ([`PacingFloor`]). [`Floor::beside`] runs it just before and just
//! after the step's own run and keeps it in the step's open-loop result,
//! with a warning when the step's p99 latency is within
//! [`PacingFloor::FACTOR`] of the floor's: that percentile is the host's
//! scheduling, not the device.

use std::sync::{Arc, Mutex};

use std::time::Duration as StdDuration;

use methodic_compiler::plan::{Bytes, Extent, IoMode, Percent, Target as Settings, Workload};
use methodic_results::engine::EngineKind;
use methodic_results::record::{FloorRun, FloorTarget, FloorWhen, PacingFloor};

use super::ceiling::ram_file;
use super::io::{IoRun, IoSpec, Workers};
use crate::engine::null::NullEngines;
use crate::error::{Error, Result, describe};
use crate::stats::Recorder;
use crate::target::Target;

/// A floor run records a twentieth of the step's record time, from 10ms
/// to 1s, or long enough for 200 I/Os at the step's rate (up to 5s),
/// whichever is longer; never more than a tenth of the step's record time
/// (10ms at least): four runs and their ramps add at most about half of
/// a step, a quarter for most.
fn floor_seconds(record: f64, iops: f64) -> f64 {
    let share = (record / 20.0).clamp(0.01, 1.0);
    let for_200 = if iops > 0.0 { (200.0 / iops).min(5.0) } else { 0.0 };
    share.max(for_200).min((record / 10.0).max(0.01))
}

/// A floor run's ramp: a fifth of its record time, and at least 20ms, so
/// that its threads have started (a loaded host takes milliseconds to
/// start a few) before its record window opens.
fn floor_ramp(seconds: f64) -> f64 {
    (seconds / 5.0).max(0.02)
}

/// The file in RAM the floor runs against, made at a step's first
/// open-loop run and kept for its others (a QoS search's probes), let go
/// when the step ends ([`Floor::release`]); its name is removed as soon
/// as it is open, so that nothing is left behind.
#[derive(Default)]
pub(crate) struct Floor {
    ram: Mutex<Ram>,
}

/// The floor's file in RAM, as far as the step has got with it.
#[derive(Default)]
enum Ram {
    #[default]
    Unmade,
    Made(Box<Target>),
    /// It could not be made, and why: not tried again in this step.
    Failed(String),
}

/// What the floor runs beside one step found.
pub(crate) struct Beside {
    pub(crate) floor: PacingFloor,
    /// The runs against RAM, for a percentile other than p99 (a QoS
    /// search's).
    pub(crate) ram: Vec<Recorder>,
}

impl Floor {
    /// Runs the floor of `spec` before `step` (the step's own I/O run),
    /// then after it, and puts it in the step's open-loop result with its
    /// warning; a closed-loop `spec` runs `step` alone. The step's error,
    /// if any, is the outcome; a floor that cannot run is noted in it.
    pub(crate) fn beside<'w>(
        &self,
        workers: &Workers,
        targets: &[Target],
        spec: IoSpec<'w>,
        step: impl FnOnce(IoSpec<'w>) -> Result<IoRun>,
    ) -> Result<IoRun> {
        let Some(rate) = spec.rate else { return step(spec) };
        let (engine, _) = workers.engine_for(targets, &spec.qd, spec.settings.devices.max(1) as usize);
        let record = spec.record.map_or(1.0, |r| r.as_secs_f64());
        let asked = rate.iops(spec.workload).unwrap_or(0.0);
        let seconds = floor_seconds(record, asked);
        let mut beside = Beside::new(seconds);
        // The workload from the file's start: an offset is the target's.
        let workload = Workload { offset: Bytes(0), ..spec.workload.clone() };
        let floor = floor_spec(&spec, &workload, seconds);
        self.measure(workers, targets, &floor, engine, FloorWhen::Before, &mut beside);
        let mut run = step(spec)?;
        self.measure(workers, targets, &floor, engine, FloorWhen::After, &mut beside);
        beside.keep_in(&mut run);
        Ok(run)
    }

    /// Runs the floors of a `together` step's open-loop jobs (`jobs`: each
    /// job's device, from 0, and its I/O; a closed-loop job has none) all
    /// at once, as the jobs run, before `step` (the jobs themselves) and
    /// after it, and keeps each job's in its open-loop result. Each job's
    /// floor runs against a file in RAM of its own, made for the step and
    /// removed after it.
    pub(crate) fn beside_jobs(
        workers: &Workers,
        targets: &[Target],
        jobs: &[(usize, IoSpec<'_>)],
        step: impl FnOnce() -> Vec<Result<IoRun>>,
    ) -> Vec<Result<IoRun>> {
        let open: Vec<usize> = (0..jobs.len()).filter(|&j| jobs[j].1.rate.is_some()).collect();
        if open.is_empty() {
            return step();
        }
        // One floor time for all, the longest any job asks.
        let seconds = open
            .iter()
            .map(|&j| {
                let spec = &jobs[j].1;
                let asked = spec.rate.and_then(|r| r.iops(spec.workload)).unwrap_or(0.0);
                floor_seconds(spec.record.map_or(1.0, |r| r.as_secs_f64()), asked)
            })
            .fold(0.0, f64::max);
        let workloads: Vec<Workload> =
            open.iter().map(|&j| Workload { offset: Bytes(0), ..jobs[j].1.workload.clone() }).collect();
        let floors: Vec<IoSpec<'_>> =
            open.iter().zip(&workloads).map(|(&j, w)| floor_spec(&jobs[j].1, w, seconds)).collect();
        let rams: Vec<std::result::Result<Target, String>> = open
            .iter()
            .zip(&floors)
            .map(|(&j, floor)| {
                let (device, spec) = (jobs[j].0, &jobs[j].1);
                let engine = workers.engine_for(&targets[device..=device], &spec.qd, 1).0;
                ram_file(Bytes(ram_size(floor)), "floor")
                    .map(|mut t| {
                        t.inline_completion = engine == EngineKind::Psync;
                        t
                    })
                    .map_err(|e| format!("no run against RAM: {}", describe(&e)))
            })
            .collect();
        let each: Vec<OpenLoop<'_, '_>> = open
            .iter()
            .zip(&floors)
            .zip(&rams)
            .map(|((&j, spec), ram)| OpenLoop {
                device: jobs[j].0,
                spec,
                ram: ram.as_ref().map_err(String::as_str),
            })
            .collect();
        let mut besides: Vec<Beside> = open.iter().map(|_| Beside::new(seconds)).collect();
        at_once(workers, targets, &each, &mut besides, FloorWhen::Before);
        let mut runs = step();
        at_once(workers, targets, &each, &mut besides, FloorWhen::After);
        for (&j, beside) in open.iter().zip(besides) {
            if let Some(Ok(run)) = runs.get_mut(j) {
                beside.keep_in(run);
            }
        }
        runs
    }

    /// Lets go of the file in RAM: the step that used it is over.
    pub(crate) fn release(&self) {
        *self.lock() = Ram::Unmade;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Ram> {
        match self.ram.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// One floor run of each kind, `spec` (from [`floor_spec`]), at `when`,
    /// into `out`: with no device on the file in RAM (on the step's
    /// `targets` when there is none: the null engine touches neither),
    /// and against the file in RAM.
    fn measure(
        &self,
        workers: &Workers,
        targets: &[Target],
        spec: &IoSpec<'_>,
        engine: EngineKind,
        when: FloorWhen,
        out: &mut Beside,
    ) {
        if workers.stop.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        let mut ram = self.lock();
        let size = ram_size(spec);
        if matches!(&*ram, Ram::Unmade) || matches!(&*ram, Ram::Made(t) if t.capacity < size) {
            *ram = match ram_file(Bytes(size), "floor") {
                Ok(t) => Ram::Made(Box::new(t)),
                Err(e) => Ram::Failed(format!("no run against RAM: {}", describe(&e))),
            };
        }
        if let Ram::Made(t) = &mut *ram {
            // The step's engine: `engine_for` chooses psync for a file
            // that completes inline, io_uring for one that does not.
            t.inline_completion = engine == EngineKind::Psync;
        }
        let on = match &*ram {
            Ram::Made(t) => Ok(&**t),
            Ram::Failed(why) => Err(why.as_str()),
            Ram::Unmade => return,
        };
        at_once(workers, targets, &[OpenLoop { device: 0, spec, ram: on }], std::slice::from_mut(out), when);
    }
}

impl Beside {
    fn new(seconds: f64) -> Beside {
        Beside { floor: PacingFloor { seconds, runs: Vec::new(), not_measured: None }, ram: Vec::new() }
    }

    /// Says why a run is missing (`why`), before what was said already,
    /// once: the floor runs before and after the step, and a file in RAM
    /// that could not be made is missing both times.
    fn note(&mut self, why: &str) {
        self.floor.not_measured = Some(match self.floor.not_measured.take() {
            Some(also) if also.split("; ").any(|w| w == why) => also,
            Some(also) => format!("{why}; {also}"),
            None => why.to_string(),
        });
    }

    /// One floor run's outcome, `against` what at `when`: its lateness
    /// and latency, or why it did not run.
    fn keep(&mut self, against: FloorTarget, when: FloorWhen, ran: Result<IoRun>) {
        match ran {
            Ok(r) => {
                let o = r.info.rate.as_ref();
                let us = |ns: Option<u64>| ns.map_or(0.0, |n| n as f64 / 1000.0);
                self.floor.runs.push(FloorRun {
                    against,
                    when,
                    started: o.map_or(0, |o| o.started),
                    lateness_p50_us: o.map_or(0.0, |o| o.lateness_p50_us),
                    lateness_p99_us: o.map_or(0.0, |o| o.lateness_p99_us),
                    lateness_max_us: o.map_or(0.0, |o| o.lateness_max_us),
                    latency_p99_us: us(r.recorder.percentile_ns(990_000)),
                    latency_max_us: us(r.recorder.percentile_ns(1_000_000)),
                });
                if against == FloorTarget::Ram {
                    self.ram.push(r.recorder);
                }
            }
            Err(e) => {
                self.floor.not_measured =
                    Some(format!("the {} run {}: {}", against.label(), when.words(), describe(&e)))
            }
        }
    }

    /// The floor put in `run`'s open-loop result, with its warning when
    /// the run's p99 latency is within the floor's factor; a floor short
    /// of its four runs with no reason said was stopped.
    fn keep_in(mut self, run: &mut IoRun) {
        if self.floor.runs.len() < 4 && self.floor.not_measured.is_none() {
            self.floor.not_measured = Some("the run was stopped".into());
        }
        let p99 = run.recorder.percentile_ns(990_000).map_or(f64::NAN, |ns| ns as f64 / 1000.0);
        if let Some(open) = run.info.rate.as_mut() {
            open.floor_warning = self.floor.warning(p99);
            open.floor = Some(self.floor);
        }
        run.floor = self.ram;
    }
}

/// One open loop while its floor runs: its device (from 0), its floor's
/// I/O, and the file in RAM it runs against (or why there is none).
struct OpenLoop<'a, 'w> {
    device: usize,
    spec: &'a IoSpec<'w>,
    ram: std::result::Result<&'a Target, &'a str>,
}

/// The floor runs of every open loop of `each` at `when`, all at once,
/// into its place in `besides`: with no device (on its file in RAM, or on
/// its device where it has none: the null engine touches neither), then
/// against its file in RAM. One that has no file in RAM says why.
fn at_once(
    workers: &Workers,
    targets: &[Target],
    each: &[OpenLoop<'_, '_>],
    besides: &mut [Beside],
    when: FloorWhen,
) {
    if workers.stop.load(std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    let null = Workers { engines: Arc::new(NullEngines), ..workers.clone() };
    for against in [FloorTarget::NoIo, FloorTarget::Ram] {
        let w = if against == FloorTarget::NoIo { &null } else { workers };
        let ran: Vec<Option<Result<IoRun>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = each
                .iter()
                .map(|f| {
                    let on = match (f.ram, against) {
                        (Ok(t), _) => Some(std::slice::from_ref(t)),
                        (Err(_), FloorTarget::NoIo) => targets.get(f.device..=f.device),
                        (Err(_), FloorTarget::Ram) => None,
                    };
                    let spec = f.spec;
                    on.map(|t| scope.spawn(move || w.run(t, "floor", 1, spec.clone())))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.map(|h| h.join().unwrap_or_else(|_| Err(Error::unsupported("a floor run panicked"))))
                })
                .collect()
        });
        for (beside, r) in besides.iter_mut().zip(ran) {
            if let Some(r) = r {
                beside.keep(against, when, r);
            }
        }
    }
    for (f, beside) in each.iter().zip(besides) {
        if let Err(why) = f.ram {
            beside.note(why);
        }
    }
}

/// The size of the file in RAM a floor run of `spec` needs: room for
/// every thread's stripe to hold its blocks, from 16MiB to 256MiB.
fn ram_size(spec: &IoSpec<'_>) -> u64 {
    let need = spec.workload.largest_block().0.saturating_mul(spec.qd.total.max(1) as u64 * 2);
    need.clamp(16 << 20, 256 << 20)
}

/// The step's open loop on the file in RAM, for `seconds` after its
/// ramp ([`floor_ramp`]): its rate, arrivals, pauses and queue, `workload`
/// (the step's, from the file's start), over the whole file, buffered,
/// with nothing else (no series, no verify).
fn floor_spec<'w>(spec: &IoSpec<'_>, workload: &'w Workload, seconds: f64) -> IoSpec<'w> {
    IoSpec {
        workload,
        qd: spec.qd,
        settings: Settings {
            span: Extent::Percent(Percent::HUNDRED),
            workers: spec.qd.workers,
            devices: 1,
            io: IoMode::Buffered,
            data: spec.settings.data,
        },
        ramp: StdDuration::from_secs_f64(floor_ramp(seconds)),
        record: Some(StdDuration::from_secs_f64(seconds)),
        passes: None,
        budget: None,
        series: None,
        at: spec.at,
        rate: spec.rate,
        pauses: spec.pauses,
        verify: None,
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::path::PathBuf;
    use std::time::Duration;

    use methodic_results::record::{QosResult, StepResult};

    use super::*;
    use crate::engine::psync::Psync;
    use crate::engine::{Completion, Engine, EngineFactory, Request, Setup};
    use crate::exec::{Quiet, RunOptions, run};

    /// psync, each I/O taking at least `delay` (a sleep before it): a
    /// slow device, and a slow host when the floor's RAM runs use it too.
    #[derive(Debug)]
    struct Slow {
        delay: Duration,
    }

    struct SlowEngine {
        inner: Psync,
        delay: Duration,
    }

    impl Engine for SlowEngine {
        fn kind(&self) -> EngineKind {
            EngineKind::Psync
        }

        fn run(&mut self, reqs: &[Request], wait: usize, done: &mut Vec<Completion>) -> io::Result<()> {
            for _ in reqs {
                std::thread::sleep(self.delay);
            }
            self.inner.run(reqs, wait, done)
        }

        fn run_until(&mut self, reqs: &[Request], _: u64, done: &mut Vec<Completion>) -> io::Result<()> {
            self.run(reqs, 0, done)
        }
    }

    impl EngineFactory for Slow {
        fn make(&self, s: &Setup<'_>) -> io::Result<Box<dyn Engine>> {
            Ok(Box::new(SlowEngine { inner: Psync::new(s.fd, s.buffers), delay: self.delay }))
        }
    }

    /// Runs `body` (steps on a 4MiB scratch file, over `workers`) with
    /// `opts`' engines and floor choice: the run's step records.
    fn ran(name: &str, workers: u32, body: &str, opts: RunOptions) -> Vec<StepResult> {
        let src = format!(
            "methodology \"floor\" version \"1\"\ntarget {{ span 4MiB; workers {workers}; io buffered }}\n\
             workload r {{ random; block 4KiB; read 100% }}\n{body}"
        );
        let plan = methodic_compiler::compile(&src, &Default::default()).unwrap().plan;
        let out: PathBuf = std::env::temp_dir().join(format!("methodic-floor-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let opts = RunOptions { out: out.clone(), seed: 1, skip_ceiling: true, ..opts };
        let report = run(&plan, &opts, &mut Quiet).unwrap();
        let steps = report.steps.clone();
        std::fs::remove_dir_all(&out).unwrap();
        assert!(
            steps.iter().all(|s| s.error.is_none()),
            "{:?}",
            steps.iter().map(|s| &s.error).collect::<Vec<_>>()
        );
        steps
    }

    /// A reason a run is missing is said once, however many times it is
    /// met, before what was said already.
    #[test]
    fn a_floor_says_each_reason_a_run_is_missing_once() {
        let mut b = Beside {
            floor: PacingFloor { seconds: 0.1, runs: Vec::new(), not_measured: None },
            ram: Vec::new(),
        };
        b.note("no run against RAM: /dev/shm is full");
        b.note("no run against RAM: /dev/shm is full");
        assert_eq!(b.floor.not_measured.as_deref(), Some("no run against RAM: /dev/shm is full"));
        b.floor.not_measured = Some("the no-I/O run after: EIO".into());
        b.note("no run against RAM: /dev/shm is full");
        b.note("no run against RAM: /dev/shm is full");
        assert_eq!(
            b.floor.not_measured.as_deref(),
            Some("no run against RAM: /dev/shm is full; the no-I/O run after: EIO")
        );
    }

    /// A floor measured in full: with no device, then against RAM, before
    /// the step and after it.
    const FOUR_RUNS: [(FloorTarget, FloorWhen); 4] = [
        (FloorTarget::NoIo, FloorWhen::Before),
        (FloorTarget::Ram, FloorWhen::Before),
        (FloorTarget::NoIo, FloorWhen::After),
        (FloorTarget::Ram, FloorWhen::After),
    ];

    /// The floor's runs, each as what it ran against and when.
    fn order(floor: &PacingFloor) -> Vec<(FloorTarget, FloorWhen)> {
        floor.runs.iter().map(|r| (r.against, r.when)).collect()
    }

    #[test]
    fn the_floor_records_a_twentieth_of_the_step_and_enough_for_200_ios() {
        assert_eq!(floor_seconds(60.0, 100_000.0), 1.0);
        assert_eq!(floor_seconds(10.0, 100_000.0), 0.5);
        assert_eq!(floor_seconds(0.04, 100_000.0), 0.01);
        // 200 I/Os at 100 IOPS: 2s, more than a twentieth of a minute.
        assert_eq!(floor_seconds(60.0, 100.0), 2.0);
        // At most 5s for those, and never more than a tenth of the step.
        assert_eq!(floor_seconds(600.0, 1.0), 5.0);
        assert_eq!(floor_seconds(20.0, 1.0), 2.0);
        assert_eq!(floor_seconds(0.5, 100.0), 0.05);
        assert_eq!(floor_seconds(0.04, 100.0), 0.01);
        assert_eq!((floor_ramp(1.0), floor_ramp(0.01)), (0.2, 0.02));
    }

    #[test]
    fn an_open_loop_step_keeps_its_floor_before_and_after_and_a_closed_loop_has_none() {
        let body = "measure r qd 1 rate 2000 iops for 200ms\nmeasure r qd 1 for 100ms\n";
        let steps = ran("kept", 1, body, RunOptions::default());
        let open = steps[0].io.as_ref().unwrap().rate.as_ref().unwrap();
        let floor = open.floor.as_ref().expect("an open-loop step has its floor");
        assert_eq!(floor.not_measured, None);
        // 200 I/Os at 2000 IOPS take 100ms: more than a tenth of 200ms.
        assert_eq!(floor.seconds, 0.02);
        assert_eq!(order(floor), FOUR_RUNS);
        for r in &floor.runs {
            // At 2000 IOPS, 40 are due in the ramp and 40 in the 20ms
            // window: it starts at most those 80 (a busy host starts late
            // ones of the ramp in it).
            assert!(r.started <= 81, "{r:?}");
            assert!(
                r.lateness_p50_us <= r.lateness_p99_us && r.lateness_p99_us <= r.lateness_max_us,
                "{r:?}"
            );
        }
        assert!(open.lateness_p50_us <= open.lateness_p99_us);
        assert!(open.words().contains("the host's pacing floor: started late by p99"), "{}", open.words());
        assert!(steps[1].io.as_ref().unwrap().rate.is_none());
        let skipped = ran("skipped", 1, body, RunOptions { skip_floor: true, ..Default::default() });
        assert_eq!(skipped[0].io.as_ref().unwrap().rate.as_ref().unwrap().floor, None);
    }

    /// A together step's open-loop jobs have their floors run at once,
    /// before and after the jobs, each its own; a closed-loop job none.
    #[test]
    fn a_together_step_s_open_loop_jobs_each_keep_a_floor_run_at_once() {
        let body = "together for 200ms { job a r qd 1 rate 2000 iops\n job b r qd 1 rate 1000 iops\n \
                    job c r qd 1 }\n";
        let steps = ran("jobs", 1, body, RunOptions::default());
        let jobs = &steps[0].jobs;
        let floor = |k: usize| jobs[k].io.as_ref().unwrap().rate.as_ref().and_then(|o| o.floor.clone());
        // 200 I/Os at 1000 IOPS take 200ms, over a tenth of the step: both
        // floors are the longest either asks, a tenth.
        for (k, job) in jobs.iter().enumerate().take(2) {
            let f = floor(k).unwrap_or_else(|| panic!("job {} has no floor", job.name));
            assert_eq!(f.not_measured, None, "{}", job.name);
            assert_eq!(f.seconds, 0.02);
            assert_eq!(order(&f), FOUR_RUNS);
            // Each job's own rate: at most what is due in its ramp and
            // window (20ms each) at that rate, and one more.
            let most = if k == 0 { 81 } else { 41 };
            assert!(f.runs.iter().all(|r| r.started <= most), "{}: {:?}", job.name, f.runs);
        }
        assert!(jobs[2].io.as_ref().unwrap().rate.is_none(), "a closed-loop job has no open loop");
        let skipped = ran("jobs-skipped", 1, body, RunOptions { skip_floor: true, ..Default::default() });
        assert_eq!(skipped[0].jobs[0].io.as_ref().unwrap().rate.as_ref().unwrap().floor, None);
    }

    #[test]
    fn a_qos_probe_whose_host_floor_takes_over_half_the_limit_cannot_judge_the_drive() {
        // Every I/O takes 3ms or more, against the scratch file and
        // against RAM alike: the floor's p99 is over half of 1ms, and no
        // probe meets it. Eight workers a slot each: about 2600 IOPS
        // closed loop, so that the first rate probe's 10ms floor windows
        // each hold a few I/Os that complete in them.
        let slow = Slow { delay: Duration::from_millis(3) };
        let opts = RunOptions { engines: Some(Arc::new(slow)), ..Default::default() };
        let steps = ran("cannot-judge", 8, "qos r qd 8 { p99 under 1ms; probe 40ms; ramp 0s }\n", opts);
        let q = steps[0].qos.as_ref().unwrap();
        assert_eq!(q.found_iops, None);
        assert!(q.points.iter().all(|p| !p.met));
        let closed = &q.points[0];
        assert_eq!((closed.rate_iops, closed.floor_us, closed.host_limited), (None, None, false));
        // Every probe whose floor's windows held an I/O (the low rates'
        // may hold none) saw 3ms or more there: limited by the host.
        let floored: Vec<_> = q.points.iter().filter(|p| p.floor_us.is_some()).collect();
        assert!(!floored.is_empty(), "{:?}", q.points);
        for p in &floored {
            assert!(p.floor_us.is_some_and(|f| f >= 3000.0) && p.host_limited, "{p:?}");
        }
        assert!(q.verdict.starts_with("cannot judge here: p99 stayed over 1ms down to"), "{}", q.verdict);
        assert!(q.verdict.contains("limited by the host's scheduling, not the drive"), "{}", q.verdict);
        const { assert!(QosResult::HOST_SHARE * 1000.0 < 3000.0) };
    }

    #[test]
    fn a_closed_loop_probe_that_completes_nothing_runs_again_for_twice_as_long() {
        // The first I/O takes 60ms: a 40ms probe completes none, as a
        // rehearsal's did on a busy host.
        let slow = Slow { delay: Duration::from_millis(60) };
        let opts = RunOptions { engines: Some(Arc::new(slow)), skip_floor: true, ..Default::default() };
        let steps = ran("retry", 1, "qos r qd 1 { p99 under 1ms; probe 40ms; ramp 0s }\n", opts);
        let q = steps[0].qos.as_ref().unwrap();
        let closed: Vec<_> = q.points.iter().take_while(|p| p.rate_iops.is_none()).collect();
        assert!(closed.len() >= 2, "{closed:?}");
        assert_eq!(closed[0].achieved_iops, 0.0);
        assert!(closed.last().unwrap().achieved_iops > 0.0);
        assert!(q.closed_loop_iops > 0.0);
        assert!(
            q.verdict.contains(&format!(
                "the closed-loop probe ran {} times, until one completed I/Os",
                closed.len()
            )),
            "{}",
            q.verdict
        );
        // The step's numbers are the probe that completed I/Os.
        assert!(steps[0].summary.as_ref().unwrap().total.ios > 0);
    }
}
