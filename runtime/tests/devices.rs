//! End to end on block devices the test sets up itself: zram0, sized to
//! 1GiB for the test and reset afterwards, and loop devices over files
//! that carry methodic's scratch mark (so that the guard lets methodic
//! write to them). Needs root; without it (or when zram0 is in use) each
//! test says why and passes without checking, except under CI=true, where
//! it fails naming what is missing (common::skip). Tests that use a device hold
//! a lock file, so that no two use it at once (test binaries run in
//! parallel).

mod common;

use std::fs::{self, File};
use std::path::Path;

use common::{Loop, LoopSpec, Throttle, Zram};

use methodic_compiler::plan::Plan;
use methodic_results::record::{RunReport, Status, StepResult};
use methodic_runtime::{EngineChoice, Quiet, RunOptions, run};

/// /sys/block/NAME/stat: reads, read sectors, writes, written sectors.
fn stat(name: &str) -> (u64, u64, u64, u64) {
    let text = fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    let f: Vec<u64> = text.split_whitespace().map(|x| x.parse().unwrap()).collect();
    (f[0], f[2], f[4], f[6])
}

fn compile(src: &str) -> Plan {
    methodic_compiler::compile(src, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan
}

fn run_on(plan: &Plan, target: &Path, name: &str) -> RunReport {
    let opts = RunOptions {
        targets: vec![target.to_path_buf()],
        out: common::temp_path(&format!("dev-{name}")),
        seed: 7,
        // No test here judges against the host ceiling: a second or more
        // a run saved.
        skip_ceiling: true,
        ..Default::default()
    };
    let report = run(plan, &opts, &mut Quiet).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.status, Status::Completed, "{:?}", report.error);
    let _ = fs::remove_dir_all(&opts.out);
    report
}

/// The mean block size of `ios` I/Os drawn from `split` (size, share) is
/// within 5 standard errors of the split's own mean. The tolerance comes
/// from the count: a loaded machine makes fewer I/Os in a timed step, and
/// a fixed 1% was 1.2 standard errors for the 25,000 of a loop device.
fn assert_mean_block(mean: f64, ios: u64, split: &[(f64, f64)]) {
    let expected: f64 = split.iter().map(|(b, p)| b * p).sum();
    let variance: f64 = split.iter().map(|(b, p)| p * (b - expected).powi(2)).sum();
    let tolerance = 5.0 * (variance / ios as f64).sqrt();
    assert!(
        (mean - expected).abs() < tolerance,
        "mean block {mean} of {ios} I/Os; the split makes {expected} ± {tolerance}"
    );
}

fn step<'a>(r: &'a RunReport, id: &str) -> &'a StepResult {
    r.steps.iter().find(|s| s.id == id).unwrap_or_else(|| panic!("no step {id}"))
}

#[test]
fn io_counts_shares_and_queue_depth_match_what_the_device_saw() {
    let Some(lock) = common::devices() else { return };
    let Some(z) = Zram::setup(&lock, 1 << 30) else { return };
    let plan = compile(
        "methodology \"t\" version \"1\"\ntarget { span 256MiB }\n\
         workload mix { random; block 4KiB; read 67% }\n\
         workload split { random; read 0%; blocks { 4KiB: 50%, 16KiB: 30%, 64KiB: 20% } }\n\
         fill { sequential; block 1MiB; read 0% } qd 8\n\
         measure mix qd 32 for 1s\nmeasure split qd 16 for 1s",
    );
    // Count around the mix alone: run the fill first.
    let fill_only = Plan { steps: plan.steps[..1].to_vec(), ..plan.clone() };
    run_on(&fill_only, &z.path(), "fill");
    let mix_only = Plan { steps: plan.steps[1..2].to_vec(), ..plan.clone() };
    let before = stat("zram0");
    let r = run_on(&mix_only, &z.path(), "mix");
    let after = stat("zram0");
    let s = step(&r, "mix-qd32");
    let summary = s.summary.as_ref().unwrap();
    let io = s.io.as_ref().unwrap();
    let seen = (after.0 - before.0) + (after.2 - before.2);
    let recorded = summary.total.ios;
    // The device also saw the I/Os still in flight when recording ended.
    assert!(recorded > 10_000, "{recorded} I/Os");
    let gap = seen.abs_diff(recorded) as f64 / seen as f64;
    assert!(gap < 0.01, "methodic recorded {recorded} I/Os, the device saw {seen}");
    let read_share = summary.read.as_ref().unwrap().ios as f64 / recorded as f64;
    assert!((read_share - 0.67).abs() < 0.01, "read share {read_share}");
    // zram completes I/O inline: a psync thread an I/O keeps the depth.
    assert_eq!((io.engine.name(), io.threads, io.depth), ("psync", 32, 1));
    // Weighted by time, a psync thread's I/O is in flight only inside its
    // system call: the depth kept is the share of time the threads spend
    // there, which the loop's own work (much larger in a debug build, and
    // under load) lowers. That is what it reports; the 32 threads are the
    // depth methodic kept, and the weighting is checked exactly in
    // worker.rs on made-up times.
    assert!(io.mean_inflight > 0.0 && io.mean_inflight <= 32.0, "QD kept at {} of 32", io.mean_inflight);
    // io_uring keeps it too, from one thread.
    let opts = RunOptions {
        targets: vec![z.path()],
        out: common::temp_path("dev-uring"),
        engine: EngineChoice::IoUring,
        skip_ceiling: true,
        ..Default::default()
    };
    let r = run(&mix_only, &opts, &mut Quiet).unwrap();
    let io = r.steps[0].io.as_ref().unwrap();
    assert_eq!((io.engine.name(), io.threads, io.depth), ("io_uring", 1, 32));
    assert!(
        io.mean_inflight > 0.0 && io.mean_inflight <= 32.0,
        "io_uring kept QD {} of 32",
        io.mean_inflight
    );
    let _ = fs::remove_dir_all(&opts.out);

    let split_only = Plan { steps: plan.steps[2..3].to_vec(), ..plan.clone() };
    let before = stat("zram0");
    let r = run_on(&split_only, &z.path(), "split");
    let after = stat("zram0");
    let summary = step(&r, "split-qd16").summary.as_ref().unwrap();
    let mean = summary.total.bytes as f64 / summary.total.ios as f64;
    assert_mean_block(mean, summary.total.ios, &[(4096.0, 0.5), (16384.0, 0.3), (65536.0, 0.2)]);
    let device_bytes = ((after.3 - before.3) * 512) as f64;
    let gap = (device_bytes - summary.total.bytes as f64).abs() / device_bytes;
    assert!(gap < 0.01, "methodic wrote {}, the device saw {device_bytes}", summary.total.bytes);
}

/// orig_data_size from zram's mm_stat: the bytes it holds.
fn zram_holds() -> u64 {
    let text = fs::read_to_string("/sys/block/zram0/mm_stat").unwrap();
    text.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn erase_discards_on_zram() {
    let Some(lock) = common::devices() else { return };
    let Some(z) = Zram::setup(&lock, 1 << 30) else { return };
    let fill = compile(
        "methodology \"t\" version \"1\"\ntarget { span 256MiB; data random }\nfill { sequential; block 1MiB; read 0% }",
    );
    run_on(&fill, &z.path(), "erase-fill");
    let held = zram_holds();
    assert!(held >= 200 << 20, "zram holds {held} bytes after a 256MiB fill");
    let erase = compile("methodology \"t\" version \"1\"\ntarget { span 256MiB }\nerase discard");
    let r = run_on(&erase, &z.path(), "erase");
    assert!(r.steps[0].actions[0].contains("BLKDISCARD"), "{:?}", r.steps[0].actions);
    let left = zram_holds();
    assert!(left < 16 << 20, "zram still holds {left} bytes after the discard");
    // zram is no drive: `erase purge` is a discard of the whole device,
    // whatever the span, and says so.
    run_on(&fill, &z.path(), "erase-fill-2");
    let purge = compile("methodology \"t\" version \"1\"\ntarget { span 16MiB }\nerase purge");
    let r = run_on(&purge, &z.path(), "purge");
    assert_eq!(
        r.steps[0].actions,
        [
            "BLKDISCARD of the whole device (1.0 GiB): `erase discard`, a discard is all a device that is not a drive \
          takes"
        ]
    );
    let left = zram_holds();
    assert!(left < 16 << 20, "zram still holds {left} bytes after the purge");
    // A secure erase zram cannot do fails with the way out in its hint.
    let secure = compile("methodology \"t\" version \"1\"\nerase secure");
    let opts = RunOptions {
        targets: vec![z.path()],
        out: common::temp_path("dev-secure"),
        skip_ceiling: true,
        ..Default::default()
    };
    let r = run(&secure, &opts, &mut Quiet).unwrap();
    assert_eq!(r.status, Status::Failed);
    assert!(r.error.as_deref().unwrap_or("").contains("erase discard"), "{:?}", r.error);
    let _ = fs::remove_dir_all(&opts.out);
}

#[test]
fn sub_4k_splits_on_a_loop_device_match_the_device_counts() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 256 << 20) else { return };
    let plan = compile(
        "methodology \"t\" version \"1\"\n\
         workload split { random; read 70%; blocks { 512B: 10%, 4KiB: 60%, 64KiB: 30% } }\n\
         measure split qd 16 for 2s",
    );
    let before = stat(&l.name());
    let r = run_on(&plan, &l.dev, "loop-split");
    let after = stat(&l.name());
    let s = r.steps[0].summary.as_ref().unwrap();
    let seen = (after.0 - before.0) + (after.2 - before.2);
    let gap = seen.abs_diff(s.total.ios) as f64 / seen as f64;
    assert!(gap < 0.01, "methodic recorded {} I/Os, the loop device saw {seen}", s.total.ios);
    let mean = s.total.bytes as f64 / s.total.ios as f64;
    assert_mean_block(mean, s.total.ios, &[(512.0, 0.1), (4096.0, 0.6), (65536.0, 0.3)]);
    let reads = s.read.as_ref().unwrap().ios as f64 / s.total.ios as f64;
    let tolerance = 5.0 * (0.7 * 0.3 / s.total.ios as f64).sqrt();
    assert!((reads - 0.70).abs() < tolerance, "read share {reads} of {} I/Os, ± {tolerance}", s.total.ios);
}

#[test]
fn a_device_with_a_file_system_is_refused_unless_named() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(()) = common::tool("mkfs.ext4", &["-q".as_ref(), "-F".as_ref(), l.dev.as_os_str()]) else {
        return;
    };
    let before = fs::read(&l.dev).unwrap();
    let plan = compile("methodology \"t\" version \"1\"\nfill { sequential; block 1MiB; read 0% }");
    let opts = RunOptions {
        targets: vec![l.dev.clone()],
        out: common::temp_path("dev-guard"),
        skip_ceiling: true,
        ..Default::default()
    };
    let err = run(&plan, &opts, &mut Quiet).unwrap_err().to_string();
    assert!(err.contains("ext2/3/4 file system"), "{err}");
    assert!(!opts.out.exists(), "a refused run leaves no results directory");
    assert!(fs::read(&l.dev).unwrap() == before, "not one byte of the device changed");
    let wrong = RunOptions { destroy: vec!["/dev/not-this-one".into()], ..opts.clone() };
    let err = run(&plan, &wrong, &mut Quiet).unwrap_err().to_string();
    assert!(err.contains("does not name this device"), "{err}");
    let named = RunOptions { destroy: vec![l.dev.display().to_string()], ..opts.clone() };
    let r = run(&plan, &named, &mut Quiet).unwrap();
    assert_eq!(r.status, Status::Completed, "{:?}", r.error);
    assert!(fs::read(&l.dev).unwrap() != before);
    let _ = fs::remove_dir_all(&opts.out);
}

#[test]
fn workers_spread_over_two_targets() {
    let dir = common::temp_path("dev-two");
    fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.bin"), dir.join("b.bin"));
    for p in [&a, &b] {
        File::create(p).unwrap().set_len(64 << 20).unwrap();
    }
    let plan = compile(
        "methodology \"t\" version \"1\"\ntarget { workers 2; devices 2; io buffered }\n\
         fill { sequential; block 1MiB; read 0% } qd 2",
    );
    // Files the test made: methodic refuses them without --overwrite.
    let refused = RunOptions {
        targets: vec![a.clone(), b.clone()],
        out: dir.join("out0"),
        skip_ceiling: true,
        ..Default::default()
    };
    let err = run(&plan, &refused, &mut Quiet).unwrap_err().to_string();
    assert!(err.contains("existing file methodic did not create"), "{err}");
    let opts = RunOptions {
        targets: vec![a.clone(), b.clone()],
        out: dir.join("out"),
        overwrite: true,
        skip_ceiling: true,
        ..Default::default()
    };
    let r = run(&plan, &opts, &mut Quiet).unwrap();
    assert_eq!(r.status, Status::Completed, "{:?}", r.error);
    let m = methodic_results::manifest::load(&opts.out).unwrap().manifest;
    assert_eq!(m.targets.len(), 2);
    for p in [&a, &b] {
        let data = fs::read(p).unwrap();
        assert!(data.iter().filter(|&&x| x != 0).count() > data.len() / 2, "{} was not written", p.display());
    }
    let one = RunOptions {
        targets: vec![a.clone()],
        out: dir.join("out1"),
        overwrite: true,
        skip_ceiling: true,
        ..Default::default()
    };
    let err = run(&plan, &one, &mut Quiet).unwrap_err().to_string();
    assert!(err.contains("2 devices"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

/// A sustained write whose device slows down part-way: the loop device is
/// throttled to 12 MB/s, then to 3 MB/s once it has written 24MiB (cgroup
/// v1 blkio; this kernel has no device-mapper). The change is set by the
/// device's own count of written sectors, not by a clock, so a loaded
/// machine that starts the run late moves it nowhere; and both throttles
/// are far below what a loaded machine writes to a loop device whose file
/// is in RAM (34 MB/s was seen with two builds beside the test, where 200
/// MB/s and 50 MB/s throttles left no cliff; a file on a disk that another
/// process kept busy wrote 5 MB/s). 256KiB writes and a 500ms series keep
/// it to about 6 s with four intervals before the change and eight after,
/// each of several I/Os. The cliff must be found within one series
/// interval of the change (the bytes written before it, within one
/// interval's bytes at the fast rate and what was in flight), and its two
/// levels must be the device's own rates before and after the change,
/// from its counts (not exactly what the throttles set), within a tenth,
/// give or take the one interval in which the throttle changed, which the
/// fit may put on either side.
///
/// The same run answers for `value peak` on a device whose speed changes
/// during the step (one throttled run rather than two, each some seconds
/// of the device tests, which run one at a time): the peak is the best
/// whole interval of the series, the step average the bytes over the
/// time, peak > step average > 0, each equal to what the series and the
/// counts say, and the manifest says which value the methodology reports
/// and how it is made.
#[test]
fn a_sustained_write_finds_the_cliff_where_the_device_slowed_and_its_peak() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Instant;
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::with(&lock, LoopSpec::in_ram(128 << 20)) else { return };
    let Some(t) = Throttle::setup() else { return };
    let dev = fs::read_to_string(format!("/sys/block/{}/dev", l.name())).unwrap().trim().to_string();
    Throttle::limit(&t.dir, &dev, 12_000_000);
    let plan = compile(
        "methodology \"t\" version \"1\"\n\
         conventions { value peak }\n\
         workload seq { sequential; block 256KiB; read 0% }\n\
         measure seq qd 4 until written 36MiB series 500ms",
    );
    let switch_at: u64 = 24 << 20;
    let dir = t.dir.clone();
    let name = l.name();
    let written = move || stat(&name).3 * 512;
    let base = written();
    let done = Arc::new(AtomicBool::new(false));
    let stop = done.clone();
    let counts = written.clone();
    // When the device wrote its first bytes, and when and after how many
    // bytes the harder throttle took effect; `None` if the run ended first.
    let slow = std::thread::spawn(move || {
        let written = counts;
        let mut first = None;
        while !stop.load(Ordering::Relaxed) {
            let now = written() - base;
            if first.is_none() && now > 0 {
                first = Some(Instant::now());
            }
            if now >= switch_at {
                Throttle::limit(&dir, &dev, 3_000_000);
                return Some((first?, Instant::now(), written() - base));
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        None
    });
    let opts = RunOptions {
        targets: vec![l.dev.clone()],
        out: common::temp_path("dev-cliff"),
        seed: 7,
        destroy: vec![l.dev.display().to_string()],
        skip_ceiling: true,
        ..Default::default()
    };
    let report = run(&plan, &opts, &mut Quiet);
    let (ended, total) = (Instant::now(), written() - base);
    done.store(true, Ordering::Relaxed);
    let (first, changed, changed_at) =
        slow.join().unwrap().expect("the device wrote 24MiB before the run ended");
    drop(t);
    let report = report.unwrap_or_else(|e| panic!("{e}"));
    let step = &report.steps[0];
    let series = fs::read_to_string(opts.out.join(step.series.as_ref().unwrap())).unwrap();
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(opts.out.join("manifest.json")).unwrap()).unwrap();
    let _ = fs::remove_dir_all(&opts.out);
    // Each interval's MB/s, for the messages below.
    let rates: Vec<&str> = series.lines().skip(1).filter_map(|l| l.split(',').nth(4)).collect();
    let intervals = rates.len();
    let cliff = step.cliff.clone().expect("a cliff verdict");
    assert!(cliff.found, "{cliff:?}; the series' MB/s: {}", rates.join(" "));
    let before = cliff.bytes_before.unwrap() as f64;
    // One series interval (500ms) at the fast rate, and the 1MiB in flight.
    let interval = cliff.before_mb_s.unwrap() * 1e6 / 2.0 + (1 << 20) as f64;
    assert!(
        (before - changed_at as f64).abs() <= interval,
        "the device slowed after {changed_at} bytes, the cliff is after {before} (one interval is {interval} bytes): {cliff:?}"
    );
    // The levels against the device's own rates before and after: each
    // side's intervals at its rate, but for one that may be the interval
    // the throttle changed in (anywhere between its own rate and halfway
    // to the other's).
    let mb_s = |bytes: u64, from: Instant, to: Instant| bytes as f64 / (to - from).as_secs_f64() / 1e6;
    let (fast, slow) = (mb_s(changed_at, first, changed), mb_s(total - changed_at, changed, ended));
    // The intervals before it (each 500ms).
    let split = (cliff.at_seconds.unwrap() * 2.0).round() as usize;
    for (what, level, own, other, n) in [
        ("before", cliff.before_mb_s, fast, slow, split),
        ("after", cliff.after_mb_s, slow, fast, intervals - split),
    ] {
        let (level, n) = (level.unwrap(), n as f64);
        let mixed = (own * (n - 1.0) + (own + other) / 2.0) / n;
        let (low, high) = (own.min(mixed) * 0.9, own.max(mixed) * 1.1);
        assert!(
            (low..=high).contains(&level),
            "{what} the cliff: {level:.2} MB/s over {n} intervals, the device wrote {own:.2} MB/s \
             ({low:.2} to {high:.2} allowed): {cliff:?}"
        );
    }

    the_peak_is_the_best_whole_interval(step, &series, &manifest);
}

/// `value peak` in the cliff test's step: the peak is the best whole
/// (500ms) interval of the series as written, the step average is the
/// bytes over the time, and the manifest says which value it reports.
fn the_peak_is_the_best_whole_interval(step: &StepResult, series: &str, manifest: &serde_json::Value) {
    let summary = step.summary.as_ref().unwrap();
    let peak = step.peak.as_ref().expect("a measurement has a peak");
    let rows: Vec<(f64, f64)> = series
        .lines()
        .skip(1)
        .map(|l| {
            // t_s and mb_s; the temperature cell after them is empty on a loop device.
            let f: Vec<f64> = l.split(',').take(5).map(|x| x.parse().unwrap()).collect();
            (f[0], f[4])
        })
        .collect();
    let whole: Vec<&(f64, f64)> = rows
        .iter()
        .enumerate()
        .filter(|(i, r)| (r.0 - (*i as f64 + 1.0) * 0.5).abs() < 1e-6)
        .map(|x| x.1)
        .collect();
    let best = whole.iter().map(|r| r.1).fold(0.0, f64::max);
    assert_eq!(peak.intervals as usize, whole.len());
    assert!(
        (peak.mb_s - best).abs() <= 0.001,
        "peak {} MB/s, the series' best whole interval {best}",
        peak.mb_s
    );
    assert_eq!(peak.interval_s, 0.5);
    assert_eq!(summary.total.bytes, 36 << 20);
    assert!((summary.total.mb_s - (36 << 20) as f64 / summary.seconds / 1e6).abs() < 1e-6);
    assert!(summary.total.mb_s > 0.0);
    // The device ran at two speeds, 4:1, 24MiB then 12MiB: the best
    // interval is well above the average over both (about twice).
    assert!(
        peak.mb_s > 1.5 * summary.total.mb_s,
        "peak {:.1} MB/s against a step average of {:.1} MB/s",
        peak.mb_s,
        summary.total.mb_s
    );
    let value = &manifest["steps"][0]["checklist"]["value_kind"];
    assert_eq!(value["kind"], "peak");
    assert!(value["computed"].as_str().unwrap().starts_with("the peak: the best 500ms interval"), "{value}");
}

/// zram takes direct I/O only in 4KiB multiples: a 512B direct step is
/// refused at the start, naming the step and the alignment, before any
/// I/O; buffered, the same step runs.
#[test]
fn direct_io_the_device_cannot_align_is_refused_at_the_start() {
    let Some(lock) = common::devices() else { return };
    let Some(z) = Zram::setup(&lock, 256 << 20) else { return };
    let src = |io: &str| {
        format!(
            "methodology \"t\" version \"1\"\ntarget {{ span 64MiB; io {io} }}\n\
             measure {{ random; block 512B; read 100% }} qd 1 for 100ms\n"
        )
    };
    let before = stat("zram0");
    let opts = RunOptions {
        targets: vec![z.path()],
        out: common::temp_path("dev-align"),
        skip_ceiling: true,
        ..Default::default()
    };
    let e = run(&compile(&src("direct")), &opts, &mut Quiet).unwrap_err().to_string();
    assert!(e.contains("step 1") && e.contains("multiples of 512B") && e.contains("4KiB"), "{e}");
    assert_eq!(stat("zram0").0, before.0, "no I/O before the refusal");
    assert!(!opts.out.exists(), "a run that cannot start leaves nothing behind");
    run_on(&compile(&src("buffered")), &z.path(), "align-buffered");
}
