//! Jobs that run at once (`together`), end to end on devices the test sets
//! up itself: a read job on zram0 and a write job on a loop device, each
//! with its own numbers, which the devices' own counters bear out. Needs
//! root, as runtime/tests/devices.rs does (common::skip says why without
//! it, and fails under CI=true); holds the device lock.

mod common;

use std::fs;

use common::{Loop, Zram};

use methodic_runtime::{Quiet, RunOptions, Status, run};

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
    assert_eq!(w.io.threads * w.io.depth, 4);
    assert!(r.io.threads * r.io.depth == 8, "{} x {}", r.io.threads, r.io.depth);
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
