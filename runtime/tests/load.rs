//! Load end to end: open loop, jobs at once, pauses and the QoS search,
//! on block devices and files the tests set up themselves (zram0, loop
//! devices, one throttled with the cgroup v1 blkio controller). A rate the
//! device can serve is kept, by methodic's counts and by the device's own;
//! a rate above what it can serve is reported as not kept, and the
//! latency, counted from when each I/O was due, grows with the backlog;
//! the QoS search finds a throttled device's limit; two jobs at once each
//! get their own numbers, which the devices' counters bear out; think time
//! and bursts hold a worker back by count. Decided by counts, never by how
//! fast something ran. The device tests need root; without it (or without
//! zram, a loop device or cgroup v1 blkio) each says why and passes
//! without checking, except under CI=true, where it fails naming what is
//! missing (common::skip). Device tests hold the device lock. One test
//! binary, so that the tests on files run beside those that wait for the
//! lock.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{Loop, Throttle, Zram};

use methodic_compiler::plan::{Action, Arrivals, Plan, Rate, RateAmount};
use methodic_results::record::OpenLoopResult;
use methodic_results::record::{RunReport, Status};
use methodic_runtime::{Quiet, RunOptions, run};

/// /sys/block/NAME/stat: reads completed.
fn reads(name: &str) -> u64 {
    let text = fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    text.split_whitespace().next().unwrap().parse().unwrap()
}

/// 4KiB random reads at `qd` for `seconds`, no ramp, with a series of
/// 1 s, open loop at `iops` with `arrivals`, as the language writes it.
fn plan(qd: u32, seconds: u32, iops: u64, arrivals: Arrivals) -> Plan {
    let src = format!(
        "methodology \"t\" version \"1\"\ntarget {{ span 64MiB }}\n\
         workload r {{ random; block 4KiB; read 100% }}\n\
         measure r qd {qd} for {seconds}s ramp 0s series 1s rate {iops} iops {}",
        arrivals.keyword()
    );
    let plan = methodic_compiler::compile(&src, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan;
    match &plan.steps[0].action {
        Action::Measure { rate, .. } => {
            assert_eq!(*rate, Some(Rate { amount: RateAmount::Iops(iops), arrivals }), "the language's rate")
        }
        other => panic!("a measurement, not {}", other.kind()),
    }
    plan
}

fn run_on(plan: &Plan, target: &Path, name: &str) -> (RunReport, PathBuf) {
    let opts = RunOptions {
        targets: vec![target.to_path_buf()],
        out: common::temp_path(&format!("open-{name}")),
        seed: 7,
        destroy: vec![target.display().to_string()],
        skip_ceiling: true,
        ..Default::default()
    };
    let report = run(plan, &opts, &mut Quiet).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.status, Status::Completed, "{:?}", report.error);
    (report, opts.out)
}

fn rate_of(r: &RunReport) -> &OpenLoopResult {
    r.steps[0].io.as_ref().unwrap().rate.as_ref().expect("an open-loop step reports its rate")
}

/// What every open-loop result must add up to, kept or not: the I/Os due
/// started or never did, but for one a worker slot as the window ended
/// (`slack`: the step's slots); late ones are some of those started, and
/// their share says so; a backlog is some of those never started; kept is
/// what its rule says.
fn assert_accounting(r: &OpenLoopResult, seconds: f64, slack: u64) {
    assert!(
        r.started + r.never_started <= r.due + slack && r.started + r.never_started + slack >= r.due,
        "due {}, started {}, never started {}",
        r.due,
        r.started,
        r.never_started
    );
    assert!(r.late <= r.started && r.backlog <= r.never_started);
    let share = if r.started > 0 { r.late as f64 / r.started as f64 * 100.0 } else { 0.0 };
    assert!((r.late_percent - share).abs() < 1e-9);
    assert!((r.started_iops - r.started as f64 / seconds).abs() < 1e-6);
    assert!((r.completed_iops - r.completed as f64 / seconds).abs() < 1e-6);
    assert_eq!(r.kept, r.started as f64 >= 0.99 * r.due as f64 && r.backlog as f64 <= 0.01 * r.due as f64);
    assert!(r.lateness_p99_us <= r.lateness_max_us * 1.001 + 0.001);
}

/// 2000 IOPS, uniform, for 2 s at QD8 on zram (psync, 8 threads of 250
/// IOPS each), far below what zram serves: exactly 4000 I/Os are due (each
/// thread's 500, evenly spaced); the rate is kept, within 1%, by
/// methodic's count and by zram's own count of the reads it served. A
/// loaded machine can delay a thread past an I/O's due time now and then:
/// late ones may be counted, but the backlog is cleared.
#[test]
fn a_rate_the_device_can_serve_is_kept_and_the_device_agrees() {
    let Some(lock) = common::devices() else { return };
    let Some(z) = Zram::setup(&lock, 256 << 20) else { return };
    let before = reads("zram0");
    let (report, out) = run_on(&plan(8, 2, 2000, Arrivals::Uniform), &z.path(), "zram-uniform");
    let seen = reads("zram0") - before;
    let s = &report.steps[0];
    let io = s.io.as_ref().unwrap();
    assert_eq!((io.engine.name(), io.threads, io.depth), ("psync", 8, 1));
    let r = rate_of(&report);
    let summary = s.summary.as_ref().unwrap();
    assert_eq!(summary.seconds, 2.0);
    assert_accounting(r, summary.seconds, 8);
    assert_eq!((r.asked_iops, r.asked_bytes_s, r.arrivals), (2000.0, None, Arrivals::Uniform));
    assert_eq!(r.due, 4000, "8 threads, 500 I/Os each, 4 ms apart");
    assert!(r.kept, "{}", r.words());
    assert!((r.started_iops / 2000.0 - 1.0).abs() <= 0.01, "started {} a second", r.started_iops);
    assert_eq!(r.completed, summary.total.ios);
    // psync completes each I/O in its call: a thread's I/O started before
    // the window's end completes, recorded or just after it.
    assert!(r.completed <= r.started && r.completed + 8 >= r.started, "{} of {}", r.completed, r.started);
    // zram served every read methodic started (and the few the target's
    // checks read before the step).
    assert!(seen >= r.started, "zram served {seen} reads, methodic started {}", r.started);
    assert!(
        seen as f64 <= r.started as f64 * 1.01,
        "zram served {seen} reads, methodic started {}",
        r.started
    );
    let _ = fs::remove_dir_all(out);
}

/// 2000 IOPS, Poisson, for 1 s at QD8 on zram: the I/Os due are a Poisson
/// count, within 4 standard deviations (sqrt(2000)) of 2000 (the gaps'
/// mean and coefficient of variation are checked on 100,000 draws in
/// worker::pace); the rate is kept, and zram agrees.
#[test]
fn poisson_arrivals_are_kept_at_their_count() {
    let Some(lock) = common::devices() else { return };
    let Some(z) = Zram::setup(&lock, 256 << 20) else { return };
    let before = reads("zram0");
    let (report, out) = run_on(&plan(8, 1, 2000, Arrivals::Poisson), &z.path(), "zram-poisson");
    let seen = reads("zram0") - before;
    let r = rate_of(&report);
    let summary = report.steps[0].summary.as_ref().unwrap();
    assert_accounting(r, summary.seconds, 8);
    assert_eq!(r.arrivals, Arrivals::Poisson);
    let sd = 2000f64.sqrt();
    assert!((r.due as f64 - 2000.0).abs() < 4.0 * sd, "{} due, 2000 ± {:.0}", r.due, 4.0 * sd);
    assert!(r.kept, "{}", r.words());
    assert!(
        seen >= r.started && seen as f64 <= r.started as f64 * 1.01,
        "zram {seen}, started {}",
        r.started
    );
    let _ = fs::remove_dir_all(out);
}

/// A loop device throttled to N = 250 reads a second, asked for 2N, uniform,
/// for 3 s at QD8 (io_uring, one worker): the result says the rate was
/// not kept, the device served no more than N a second, most I/Os started
/// late and a backlog was left. Coordinated omission is not hidden: each
/// I/O's latency counts from when it was due, so it grows with the
/// backlog. The bound comes from the counts: the worker starts I/Os in the
/// order they were due, so the one that completes at the end was due when
/// the I/Os started by then were (`started` / rate), and waited for the
/// `never_started` due after it: its latency is about never_started /
/// rate. With service at an even pace the latency grows linearly, and the
/// last 1 s interval's mean is above the first's by never_started / rate
/// times (T - 1) / T; the test asks for half of that.
#[test]
fn a_rate_above_what_the_device_serves_is_not_kept_and_latency_grows_with_the_backlog() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(t) = Throttle::setup() else { return };
    let dev = fs::read_to_string(format!("/sys/block/{}/dev", l.name())).unwrap().trim().to_string();
    let n = 250u64;
    t.read_iops(&dev, n);
    let before = reads(&l.name());
    let seconds = 3u32;
    let (report, out) = run_on(&plan(8, seconds, 2 * n, Arrivals::Uniform), &l.dev, "loop-throttled");
    let seen = reads(&l.name()) - before;
    drop(t);
    let s = &report.steps[0];
    let io = s.io.as_ref().unwrap();
    assert_eq!((io.engine.name(), io.threads, io.depth), ("io_uring", 1, 8));
    let r = rate_of(&report);
    let summary = s.summary.as_ref().unwrap();
    let secs = summary.seconds;
    assert_eq!(secs, seconds as f64);
    assert_accounting(r, secs, 8);
    assert_eq!(r.due, 2 * n * seconds as u64, "one worker, evenly spaced");
    assert!(!r.kept, "{}", r.words());
    assert!(r.words().starts_with("asked 500 IOPS (uniform), kept "), "{}", r.words());
    // The device served at most N a second (and the 8 in flight at the end
    // after the window), by its own count and by methodic's.
    let most = (n as f64 * secs * 1.05) as u64 + 8;
    assert!(seen <= most + 8, "the loop device served {seen} reads in {secs} s, throttled to {n} a second");
    assert!(
        r.completed <= most && r.started <= r.completed + 8,
        "{} started, {} completed",
        r.started,
        r.completed
    );
    assert!(r.started_iops <= n as f64 * 1.05 + 2.0, "{} a second", r.started_iops);
    assert!(r.late_percent > 50.0, "{}", r.words());
    assert!(r.backlog > 0 && r.never_started as f64 >= r.due as f64 * 0.4, "{}", r.words());
    // The series, as written: mean latency (from when each I/O was due) by
    // interval.
    let rows = methodic_results::series::read(&out.join(s.series.as_ref().unwrap())).unwrap();
    let whole: Vec<_> = rows.iter().filter(|r| r.seconds >= 0.999).collect();
    assert!(whole.len() >= 3, "{} whole intervals", whole.len());
    let (first, last) = (whole[0].mean_latency_us, whole[whole.len() - 1].mean_latency_us);
    let backlog_s = r.never_started as f64 / r.asked_iops;
    let bound_us = 0.5 * backlog_s * (secs - 1.0) / secs * 1e6;
    assert!(
        last - first >= bound_us,
        "mean latency {first:.0} us in the first second, {last:.0} us in the last: the backlog of {} I/Os \
         at {} a second asks for {bound_us:.0} us more",
        r.never_started,
        r.asked_iops
    );
    // And the summary's latency is the I/Os' waits, not the device's.
    assert!(summary.total.latency_us.max >= backlog_s * 1e6 * 0.5, "{} us", summary.total.latency_us.max);
    let _ = fs::remove_dir_all(out);
}

/// The QoS search finds a known limit: a loop device throttled to N = 400
/// reads a second serves any rate below N on time and none above it, so
/// the highest rate at which 4KiB random reads keep p99 under 200ms is N,
/// within the search's precision (10%) and what the throttle lets through
/// (its slices run a little over). Every probe is recorded; the first is
/// the closed loop's, which the throttle holds to N too.
#[test]
fn the_qos_search_finds_the_limit_of_a_throttled_device() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(t) = Throttle::setup() else { return };
    let dev = fs::read_to_string(format!("/sys/block/{}/dev", l.name())).unwrap().trim().to_string();
    let n = 400.0;
    t.read_iops(&dev, n as u64);
    let src = "methodology \"t\" version \"1\"\ntarget { span 64MiB }\n\
               workload r { random; block 4KiB; read 100% }\n\
               qos r qd 8 { p99 under 200ms; probe 1s; precision 10% }";
    let plan = methodic_compiler::compile(src, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan;
    let (report, out) = run_on(&plan, &l.dev, "qos-throttled");
    drop(t);
    let q = report.steps[0].qos.as_ref().expect("a QoS result");
    let points: Vec<String> = q
        .points
        .iter()
        .map(|p| {
            format!(
                "{:?} asked, {:.0} done, kept {}, p99 {:?}us",
                p.rate_iops, p.achieved_iops, p.kept, p.percentile_us
            )
        })
        .collect();
    assert!(q.points[0].rate_iops.is_none(), "the closed-loop probe first: {points:?}");
    assert!(q.closed_loop_iops <= n * 1.1, "the throttle holds the closed loop too: {points:?}");
    let found = q.found_iops.unwrap_or_else(|| panic!("no rate met the limit: {points:?}"));
    assert!(
        found >= n * 0.8 && found <= n * 1.1,
        "found {found:.0} IOPS for a device throttled to {n}: {points:?}"
    );
    // Bracketed: a rate that did not meet it is just above the one found.
    let failed = q.failed_iops.expect("an upper end");
    assert!(failed > found && (failed - found) / failed <= 0.10 + 1e-9, "{found} .. {failed}: {points:?}");
    // Every rate above what the throttle lets through failed, kept or not.
    for p in &q.points {
        if let Some(r) = p.rate_iops.filter(|r| *r > n * 1.1) {
            assert!(!p.met, "{r} IOPS met the limit on a device throttled to {n}: {points:?}");
        }
    }
    assert!(q.verdict.starts_with("p99 under 200ms up to "), "{}", q.verdict);
    let _ = fs::remove_dir_all(out);
}

// ---------------------------------------------------------------- jobs at once

/// /sys/block/NAME/stat: reads, read sectors, writes, written sectors.
fn stat(name: &str) -> (u64, u64, u64, u64) {
    let text = fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    let f: Vec<u64> = text.split_whitespace().map(|x| x.parse().unwrap()).collect();
    (f[0], f[2], f[4], f[6])
}

#[test]
fn two_jobs_at_once_each_get_their_own_numbers_and_the_devices_agree() {
    let Some(lock) = common::devices() else { return };
    let Some(z) = Zram::setup(&lock, 256 << 20) else { return };
    let Some(l) = Loop::setup(&lock, 128 << 20) else { return };
    let plan = methodic_compiler::compile(
        "methodology \"t\" version \"1\"\ntarget { span 64MiB; workers 2 }\n\
         workload reads { random; block 4KiB; read 100% }\n\
         workload writes { sequential; block 64KiB; read 0% }\n\
         together for 1s {\n  job r reads qd 8\n  job w writes qd 4 workers 1 device 2\n}\n",
        &Default::default(),
    )
    .unwrap_or_else(|d| panic!("{d}"))
    .plan;
    let opts = RunOptions {
        targets: vec![z.path(), l.dev.clone()],
        out: common::temp_path("together"),
        skip_ceiling: true,
        ..Default::default()
    };
    let (zb, lb) = (stat("zram0"), stat(&l.name()));
    let report = run(&plan, &opts, &mut Quiet).unwrap_or_else(|e| panic!("{e}"));
    let (za, la) = (stat("zram0"), stat(&l.name()));
    assert_eq!(report.status, Status::Completed, "{:?}", report.error);
    let step = &report.steps[0];
    let [r, w] = step.jobs.as_slice() else { panic!("two jobs: {:?}", step.jobs) };
    assert_eq!((r.name.as_str(), w.name.as_str()), ("r", "w"));
    assert_eq!(r.device, z.path().display().to_string());
    assert_eq!(w.device, l.dev.display().to_string());
    // Each job ran as it asked: its own workers and depth.
    assert_eq!(r.qd, 8);
    let (rio, wio) =
        (r.io.as_ref().expect("a run's job records its I/O"), w.io.as_ref().expect("and this one"));
    assert_eq!(wio.threads * wio.depth, 4);
    assert!(rio.threads * rio.depth == 8, "{} x {}", rio.threads, rio.depth);
    // The read job only read, from zram; the write job only wrote, to the loop device.
    let reads = r.summary.read.as_ref().expect("the read job read").ios;
    assert!(r.summary.write.is_none() && w.summary.read.is_none());
    let written = w.summary.write.as_ref().expect("the write job wrote").bytes;
    assert!(reads > 1000 && written > 0, "{reads} reads, {written} bytes written");
    // No ramp: the devices saw what was recorded, what was in flight when
    // recording ended (a queue depth's worth), and the few blocks methodic
    // reads when it opens a device (the guard's look for a file system).
    let zram_reads = za.0 - zb.0;
    assert!(
        zram_reads >= reads && (zram_reads - reads) as f64 <= 8.0 + reads as f64 * 0.001,
        "zram saw {zram_reads} reads, the job {reads}"
    );
    assert_eq!(za.2 - zb.2, 0, "nothing was written to zram");
    let loop_written = (la.3 - lb.3) * 512;
    assert!(
        loop_written >= written && loop_written <= written + 4 * 65536,
        "the loop device saw {loop_written} bytes written, the job {written}"
    );
    assert!(la.0 - lb.0 <= 16, "the loop device was read only as it was opened: {} reads", la.0 - lb.0);
    // The step's numbers are the jobs' together.
    let total = step.summary.as_ref().unwrap();
    assert_eq!(total.total.ios, r.summary.total.ios + w.summary.total.ios);
    let _ = fs::remove_dir_all(&opts.out);
}

// ---------------------------------------------------------------- pauses

fn compile(step: &str) -> Plan {
    let src = format!(
        "methodology \"t\" version \"1\"\ntarget {{ span 16MiB; workers 1; io buffered }}\n\
         workload r {{ random; block 4KiB; read 100% }}\n{step}\n"
    );
    methodic_compiler::compile(&src, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan
}

fn run_plan(plan: &Plan, name: &str) -> (RunReport, std::path::PathBuf) {
    let opts = RunOptions { out: common::temp_path(name), skip_ceiling: true, ..Default::default() };
    let report = run(plan, &opts, &mut Quiet).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.status, Status::Completed, "{:?}", report.error);
    (report, opts.out)
}

#[test]
fn think_time_caps_the_ios_a_worker_starts() {
    // 10 I/Os, then 20ms of nothing: in 1s at most 50 pauses end, so at
    // most 51 runs of 10 I/Os start; a busy machine starts fewer.
    let plan = compile("measure r qd 2 for 1s think 20ms every 10");
    let (report, out) = run_plan(&plan, "pauses-think");
    let ios = report.steps[0].summary.as_ref().unwrap().total.ios;
    assert!(ios > 0 && ios <= 510 + 2, "{ios} I/Os in 1s with 20ms of think time after every 10");
    // Without it, a file in the page cache serves far more.
    let free = compile("measure r qd 2 for 1s");
    let (report, out2) = run_plan(&free, "pauses-free");
    assert!(report.steps[0].summary.as_ref().unwrap().total.ios > 512 * 4, "the cap is the think time's");
    let _ = std::fs::remove_dir_all(out);
    let _ = std::fs::remove_dir_all(out2);
}

#[test]
fn bursts_start_ios_only_in_the_first_part_of_each_period() {
    let plan = compile("measure r qd 2 for 2s series 100ms bursts 200ms every 1s");
    let (report, out) = run_plan(&plan, "pauses-bursts");
    let step = &report.steps[0];
    let csv = std::fs::read_to_string(out.join(step.series.as_ref().unwrap())).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let (t, ios) = (
        header.iter().position(|h| *h == "t_s").expect("a t_s column"),
        header.iter().position(|h| *h == "iops").expect("an iops column"),
    );
    let rows: Vec<(f64, f64)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[t].parse().unwrap(), f[ios].parse().unwrap())
        })
        .collect();
    assert!(rows.len() >= 15, "{csv}");
    for (at, n) in &rows {
        // An interval that ends at `at` covers (at - 0.1, at]: those wholly
        // between 0.3s and 1.0s, or 1.3s and 2.0s, are outside a burst and
        // its tail (the I/Os in flight as it ended complete by 0.3s).
        let into = (at - 0.1) % 1.0;
        if into > 0.29 && into < 0.9 {
            assert_eq!(*n, 0.0, "I/Os completed at {at}s, outside a burst: {csv}");
        }
    }
    assert!(rows.iter().any(|r| r.1 > 0.0), "{csv}");
    let _ = std::fs::remove_dir_all(out);
}

// ---------------------------------------------------------------- amounts

/// A step that stops by an amount and does it within its ramp has nothing
/// left to record: it fails, saying so, where it recorded zeros that read
/// as a measurement.
#[test]
fn an_amount_done_within_the_ramp_fails_the_step_and_keeps_what_it_wrote() {
    // 64KiB against a ten-minute ramp: the amount, not the clock, ends it.
    let plan = compile("measure { random; block 4KiB; read 0% } qd 2 until written 64KiB ramp 10min");
    let opts = RunOptions { out: common::temp_path("ramp-amount"), skip_ceiling: true, ..Default::default() };
    let report = run(&plan, &opts, &mut Quiet).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.status, Status::Failed);
    let step = &report.steps[0];
    let error = step.error.as_deref().expect("the step failed");
    assert!(error.contains("within its 10min ramp: nothing was left to record"), "{error}");
    assert!(error.contains("shorten the ramp"), "{error}");
    assert_eq!(step.summary.as_ref().unwrap().total.ios, 0);
    assert_eq!(step.io.as_ref().unwrap().bytes_written, 64 * 1024, "what the ramp wrote is kept");
    // Without the ramp the same amount is the step's record.
    let (report, out) = run_plan(
        &compile("measure { random; block 4KiB; read 0% } qd 2 until written 64KiB"),
        "no-ramp-amount",
    );
    assert_eq!(report.steps[0].summary.as_ref().unwrap().total.ios, 16);
    let _ = fs::remove_dir_all(&opts.out);
    let _ = fs::remove_dir_all(out);
}
