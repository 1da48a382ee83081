//! Trims end to end, judged by what the kernel counted: a workload with a
//! trim share on a loop device the test sets up (its discards in
//! /sys/block/NAME/stat, fields 12 to 15), and a workload that only trims
//! on a file (its holes, found by SEEK_HOLE and SEEK_DATA, and its blocks);
//! and the run refused before it writes anything when the device takes no
//! discards. The plans are compiled from the language and given their
//! trim share here. Needs root for the devices; without it each device
//! test says why and passes without checking, except under CI=true, where
//! it fails naming what is missing.

mod common;

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;

use methodic_compiler::plan::{Action, Duration, Percent, Plan};
use methodic_results::record::{RunReport, Status};
use methodic_runtime::{EngineChoice, Quiet, RunOptions, run};

/// /sys/block/NAME/stat's discards: completed and merged together (each
/// trim is at least one request, or merged into another), and sectors.
fn discards(name: &str) -> (u64, u64) {
    let text = fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    let f: Vec<u64> = text.split_whitespace().map(|x| x.parse().unwrap()).collect();
    (f[11] + f[12], f[13])
}

/// `src` compiled, its measure step given `trim` and no ramp.
fn plan(src: &str, trim: u32) -> Plan {
    let mut plan =
        methodic_compiler::compile(src, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan;
    for s in &mut plan.steps {
        if let Action::Measure { workload, ramp, .. } = &mut s.action {
            workload.trim = Percent::whole(trim);
            *ramp = Duration::ZERO;
        }
    }
    plan
}

fn options(target: &Path, engine: EngineChoice, name: &str) -> RunOptions {
    RunOptions {
        targets: vec![target.to_path_buf()],
        out: common::temp_path(&format!("trim-{name}")),
        seed: 3,
        engine,
        skip_ceiling: true,
        overwrite: true,
        ..Default::default()
    }
}

fn run_ok(plan: &Plan, opts: &RunOptions) -> RunReport {
    let report = run(plan, opts, &mut Quiet).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.status, Status::Completed, "{:?}", report.error);
    report
}

/// 30% trims, 20% reads, the rest writes, at QD 8 on a loop device, with
/// io_uring (the discard command) and with psync (BLKDISCARD): the device
/// counts at least a discard and every sector for each trim recorded; the
/// summary's trims are apart and in its total; the bytes written leave
/// the trims out; the latency log, the report and its CSV have them.
#[test]
fn trims_on_a_loop_device_are_its_discards() {
    let Some(lock) = common::devices() else { return };
    let Some(dev) = common::Loop::setup(&lock, 64 << 20) else { return };
    let plan = plan(
        "methodology \"t\" version \"1\"\ntarget { span 32MiB }\n\
         measure { random; block 4KiB; read 20% } qd 8 for 200ms\n",
        30,
    );
    for (engine, name) in [(EngineChoice::IoUring, "io_uring"), (EngineChoice::Psync, "psync")] {
        if engine == EngineChoice::IoUring && methodic_runtime::io_uring_available().is_err() {
            common::skip("io_uring is not available", "run on a kernel with io_uring on");
            continue;
        }
        let opts = options(&dev.dev, engine, &format!("loop-{name}"));
        let before = discards(&dev.name());
        let report = run_ok(&plan, &opts);
        let after = discards(&dev.name());
        let step = &report.steps[0];
        let s = step.summary.as_ref().unwrap();
        let trim = s.trim.as_ref().expect("a trim row");
        let (read, write) = (s.read.as_ref().unwrap(), s.write.as_ref().unwrap());
        assert!(trim.ios > 0, "{name}: no trims");
        assert_eq!(trim.bytes, trim.ios * 4096);
        assert!(
            after.0 - before.0 >= trim.ios,
            "{name}: {} discards for {} trims",
            after.0 - before.0,
            trim.ios
        );
        assert!((after.1 - before.1) * 512 >= trim.bytes, "{name}: every trimmed sector discarded");
        assert_eq!(s.total.ios, read.ios + write.ios + trim.ios, "the total counts trims");
        assert_eq!(s.total.bytes, read.bytes + write.bytes, "a trim moves no data");
        // What was written: the writes recorded, and at most those in flight
        // when the record time ended; never the trims.
        let io = step.io.as_ref().unwrap();
        assert!(
            io.bytes_written >= write.bytes && io.bytes_written <= write.bytes + 8 * 4096,
            "{name}: {} bytes written, {} recorded",
            io.bytes_written,
            write.bytes
        );
        let log = fs::read_to_string(opts.out.join(step.latency_log.as_ref().unwrap())).unwrap();
        assert!(log.lines().any(|l| l.starts_with("Tag=trim,")), "the latency log has a trim interval");
        let loaded = methodic_results::manifest::load(&opts.out).unwrap();
        let report = methodic_results::view::report::Report::new(loaded);
        use methodic_results::export::{Exports, Format};
        let csv = report.export(Format::Csv).unwrap();
        let (header, row) =
            (common::csv_cells(csv.lines().next().unwrap()), common::csv_cells(csv.lines().nth(1).unwrap()));
        let at = header.iter().position(|c| c == "trim_iops").expect("a trim_iops column");
        let shown: f64 = row[at].parse().unwrap();
        assert!((shown - trim.iops).abs() < 0.01, "{shown} against {}", trim.iops);
        let table = report.export(Format::Table).unwrap();
        assert!(table.contains(&format!("trims {:.0} IOPS", trim.iops)), "{table}");
        fs::remove_dir_all(&opts.out).unwrap();
    }
}

/// A loop device made to take no discards: the user's cap on its
/// discards (queue/discard_max_bytes) set to 0. The kernel cannot lift
/// that cap again (with discards off it reports a granularity of 0, and
/// then takes no cap but 0), so when dropped the loop device is detached
/// and made anew: removed and added through /dev/loop-control, with fresh
/// queue limits for the next test that uses its number.
struct NoDiscards<'a> {
    dev: Option<common::Loop<'a>>,
}

const LOOP_CTL_ADD: libc::c_ulong = 0x4C80;
const LOOP_CTL_REMOVE: libc::c_ulong = 0x4C81;

impl<'a> NoDiscards<'a> {
    fn new(dev: common::Loop<'a>) -> NoDiscards<'a> {
        fs::write(format!("/sys/block/{}/queue/discard_max_bytes", dev.name()), "0").unwrap();
        NoDiscards { dev: Some(dev) }
    }

    fn dev(&self) -> &common::Loop<'a> {
        self.dev.as_ref().unwrap()
    }
}

impl Drop for NoDiscards<'_> {
    fn drop(&mut self) {
        let Some(dev) = self.dev.take() else { return };
        let n: libc::c_long = dev.name().trim_start_matches("loop").parse().unwrap();
        drop(dev);
        let control = fs::OpenOptions::new().read(true).write(true).open("/dev/loop-control").unwrap();
        // The detach may finish a moment after losetup returns.
        let removed = (0..100).any(|_| {
            // SAFETY: LOOP_CTL_REMOVE takes the loop device's number as its argument, no pointer;
            // `control` keeps /dev/loop-control open.
            let rc = unsafe { libc::ioctl(control.as_raw_fd(), LOOP_CTL_REMOVE as _, n) };
            rc >= 0 || {
                std::thread::sleep(std::time::Duration::from_millis(20));
                false
            }
        });
        // SAFETY: LOOP_CTL_ADD takes the loop device's number as its argument, no pointer;
        // `control` keeps /dev/loop-control open.
        let added = unsafe { libc::ioctl(control.as_raw_fd(), LOOP_CTL_ADD as _, n) } >= 0;
        if !removed || !added {
            eprintln!("warning: loop{n} could not be made anew: it may take no discards until reboot");
        }
    }
}

/// A device that takes no discards (discard_max_bytes 0) fails a run that
/// trims on it before the run writes anything, naming the step and the
/// device; nothing reached the device.
#[test]
fn a_device_that_takes_no_discards_is_refused_before_the_run() {
    let Some(lock) = common::devices() else { return };
    let Some(dev) = common::Loop::setup(&lock, 16 << 20) else { return };
    let guard = NoDiscards::new(dev);
    let dev = guard.dev();
    let plan = plan(
        "methodology \"t\" version \"1\"\n\
         measure { random; block 4KiB; read 100% } qd 1 for 100ms\n\
         measure { random; block 4KiB; read 0% } qd 1 for 100ms\n",
        50,
    );
    let opts = options(&dev.dev, EngineChoice::Auto, "refused");
    let writes = || fs::read_to_string(format!("/sys/block/{}/stat", dev.name())).unwrap();
    let before = writes();
    let e = run(&plan, &opts, &mut Quiet).expect_err("refused").to_string();
    assert!(e.contains(&dev.dev.display().to_string()), "{e}");
    assert!(e.contains("step 1 (") && e.contains("trims, but the device does not take discards"), "{e}");
    assert_eq!(before.split_whitespace().nth(4), writes().split_whitespace().nth(4), "nothing written");
    assert!(!opts.out.exists(), "a run that cannot start leaves nothing behind");
}

/// A workload that only trims, sequentially at QD 1 (one worker, from the
/// file's start), on a file the test wrote (through the page cache too):
/// with psync (fallocate) and io_uring (IORING_OP_FALLOCATE), every byte
/// the trims recorded is a hole from the start of the file on, and the
/// file keeps its size and frees blocks.
#[test]
fn trims_on_a_file_punch_holes() {
    let trims = |io: &str| {
        plan(
            &format!(
                "methodology \"t\" version \"1\"\ntarget {{ io {io} }}\n\
                 measure {{ sequential; block 64KiB; read 0% }} qd 1 for 200ms\n"
            ),
            100,
        )
    };
    for (engine, name, io) in [
        (EngineChoice::Psync, "psync", "direct"),
        (EngineChoice::IoUring, "io_uring", "direct"),
        (EngineChoice::Psync, "psync-buffered", "buffered"),
    ] {
        let plan = trims(io);
        if engine == EngineChoice::IoUring && methodic_runtime::io_uring_available().is_err() {
            common::skip("io_uring is not available", "run on a kernel with io_uring on");
            continue;
        }
        let dir = common::temp_dir(&format!("trim-file-{name}"));
        let path = dir.join("target.bin");
        let size = 64u64 << 20;
        // Written, not only allocated: SEEK_DATA takes blocks never
        // written for holes.
        fs::write(&path, vec![0x5au8; size as usize]).unwrap();
        fs::File::open(&path).unwrap().sync_all().unwrap();
        let blocks_before = fs::metadata(&path).unwrap().blocks();
        let mut opts = options(&path, engine, &format!("file-results-{name}"));
        opts.out = dir.join("results");
        let report = run_ok(&plan, &opts);
        let s = report.steps[0].summary.as_ref().unwrap();
        let trim = s.trim.as_ref().expect("a trim row");
        assert!(trim.ios > 0 && s.read.is_none() && s.write.is_none(), "only trims");
        assert_eq!(report.steps[0].io.as_ref().unwrap().bytes_written, 0);
        let f = fs::File::open(&path).unwrap();
        // SAFETY: lseek takes a descriptor and numbers; `f` keeps the descriptor open.
        let hole = unsafe { libc::lseek(f.as_raw_fd(), 0, libc::SEEK_HOLE) };
        // ENXIO: no data left at all, the whole file is a hole.
        // SAFETY: lseek takes a descriptor and numbers; `f` keeps the descriptor open.
        let data = unsafe { libc::lseek(f.as_raw_fd(), 0, libc::SEEK_DATA) };
        let data = if data < 0 { size as i64 } else { data };
        assert_eq!(hole, 0, "{name}: the trims start at the file's start");
        assert!(
            data as u64 >= trim.bytes.min(size),
            "{name}: {} bytes trimmed from the start, data again at {data}",
            trim.bytes
        );
        let meta = fs::metadata(&path).unwrap();
        assert_eq!(meta.len(), size, "the file keeps its size");
        assert!(meta.blocks() < blocks_before, "{name}: blocks freed");
        fs::remove_dir_all(&dir).unwrap();
    }
}
