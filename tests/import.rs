//! `methodic import fio`: the job files in tests/fio/ (written for
//! methodic, in the shapes fio users write: comments after values,
//! reporting options, verify, hot zones, splits per direction) import to
//! methodologies that compile to the plans their options say (jobs fio
//! starts together as a together step on their devices, with their
//! rates), through the command line (a file, standard input, `-o`,
//! `--name`); the `err_*` files are refused with every problem named by
//! line and option, exit 1 and nothing written; an imported job exported
//! again imports to the same steps; and fio itself accepts every job file
//! here. Results files import into results directories
//! (`import/results.rs`).

mod common;
#[path = "import/diskspd.rs"]
mod diskspd;
#[path = "import/iometer.rs"]
mod iometer;
#[path = "import/results.rs"]
mod results;
#[path = "import/vdbench.rs"]
mod vdbench;

use std::path::PathBuf;

use common::{fio_parses, methodic, methodic_stdin, root, text};
use methodic_compiler::plan::{
    Access, Action, Arrivals, Band, Bytes, Duration, Extent, IoMode, MeasureStop, Percent, Plan, QdCounting,
    Rate, RateAmount,
};

/// `methodic import fio tests/fio/NAME`: the methodology on stdout.
fn import(name: &str) -> String {
    let o = methodic(&["import", "fio", &format!("tests/fio/{name}")]);
    assert!(o.status.success(), "{name}: {}", text(&o.stderr));
    text(&o.stdout)
}

/// The plan of a methodology, which must check without a warning.
fn plan(method: &str) -> Plan {
    let diags = methodic_compiler::check(method);
    assert!(diags.is_empty(), "{diags}\n{method}");
    methodic_compiler::compile(method, &methodic_compiler::Options::default()).unwrap().plan
}

/// The measurements of a plan, in order.
fn measures(p: &Plan) -> Vec<&methodic_compiler::plan::Step> {
    p.steps.iter().filter(|s| matches!(s.action, Action::Measure { .. })).collect()
}

#[test]
fn fio_accepts_every_job_file_here() {
    let mut jobs: Vec<PathBuf> = std::fs::read_dir(root().join("tests/fio"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "fio"))
        .collect();
    jobs.sort();
    assert!(jobs.len() >= 6, "{jobs:?}");
    for job in &jobs {
        if let Err(e) = fio_parses(job) {
            panic!("fio refuses {}: {e}", job.display());
        }
    }
}

#[test]
fn a_random_read_job_at_qd32() {
    let method = import("randread_qd32.fio");
    let first = method.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "# Imported from tests/fio/randread_qd32.fio by methodic {} (`methodic import fio`).",
            env!("CARGO_PKG_VERSION")
        )
    );
    assert_eq!(methodic_grammar::format(&method).unwrap(), method, "formatted as methodic fmt does");
    assert!(method.contains("methodology \"randread_qd32\""), "named after the file:\n{method}");
    let p = plan(&method);
    let m = measures(&p);
    assert_eq!(m.len(), 1);
    let Action::Measure { workload: w, qd, ramp, stop, .. } = &m[0].action else { unreachable!() };
    assert_eq!(w.blocks.len(), 1);
    assert_eq!(w.blocks[0].size, Bytes(4096));
    assert_eq!((w.read, w.random), (Percent::HUNDRED, Percent::HUNDRED));
    assert_eq!((qd.total, qd.per_worker, qd.workers), (32, 32, 1));
    assert_eq!(*ramp, Duration::from_secs(5));
    assert_eq!(stop.time, Some(Duration::from_secs(60)));
    let t = m[0].target.unwrap();
    assert_eq!((t.io, t.span), (IoMode::Direct, Extent::Percent(Percent::HUNDRED)));
    // What was left out is said, with its line.
    assert!(method.contains("ioengine=libaio (line 4): not carried over"), "{method}");
    assert!(method.contains("filename=/dev/nvme0n1 (line 9)"), "{method}");
}

#[test]
fn a_70_30_mix_with_a_block_split_on_four_workers() {
    let p = plan(&import("oltp_mix.fio"));
    let m = measures(&p);
    assert_eq!(m.len(), 1);
    let Action::Measure { workload: w, qd, ramp, stop, .. } = &m[0].action else { unreachable!() };
    assert_eq!(w.read, Percent::whole(70));
    let blocks: Vec<(u64, Percent)> = w.blocks.iter().map(|b| (b.size.0, b.share)).collect();
    assert_eq!(blocks, [(4096, Percent::whole(10)), (8192, Percent::whole(40)), (65536, Percent::whole(50))]);
    // numjobs=4 x iodepth=8: four workers, eight in flight each.
    assert_eq!(p.conventions.queue_depth, QdCounting::PerWorker);
    assert_eq!((qd.total, qd.per_worker, qd.workers), (32, 8, 4));
    assert_eq!(m[0].target.unwrap().workers, 4);
    // size=16g after offset=1g: a 17GiB span, I/O from 1GiB in.
    assert_eq!(m[0].target.unwrap().span, Extent::Bytes(Bytes(17 << 30)));
    assert_eq!(w.offset, Bytes(1 << 30));
    assert_eq!(*ramp, Duration::from_secs(10));
    assert_eq!(stop.time, Some(Duration::from_secs(120)));
}

#[test]
fn global_options_reach_the_jobs_after_them() {
    let p = plan(&import("qd_sweep.fio"));
    let m = measures(&p);
    assert_eq!(m.len(), 3);
    let each: Vec<(u64, bool, u32, Duration, Option<Duration>)> = m
        .iter()
        .map(|s| {
            let Action::Measure { workload: w, qd, ramp, stop, .. } = &s.action else { unreachable!() };
            (w.blocks[0].size.0, w.random == Percent::HUNDRED, qd.total, *ramp, stop.time)
        })
        .collect();
    let secs = Duration::from_secs;
    assert_eq!(
        each,
        [
            (4096, true, 1, Duration::ZERO, Some(secs(30))),
            (4096, true, 32, Duration::ZERO, Some(secs(30))),
            // After the second [global]: its ramp; the job's own rw, bs and runtime.
            (131072, false, 8, secs(5), Some(secs(20))),
        ]
    );
    let phases: Vec<String> = m.iter().map(|s| s.phase.clone().unwrap()).collect();
    assert_eq!(phases, ["qd1", "qd32", "seq-read"]);
}

#[test]
fn a_striped_fill_stops_when_written() {
    let p = plan(&import("striped_fill.fio"));
    let m = measures(&p);
    let Action::Measure { workload: w, qd, stop, .. } = &m[0].action else { unreachable!() };
    assert_eq!((w.read, w.random), (Percent::ZERO, Percent::ZERO));
    assert_eq!((qd.workers, qd.per_worker), (4, 8));
    // Four stripes of 16GiB, each written twice.
    assert_eq!(m[0].target.unwrap().span, Extent::Bytes(Bytes(64 << 30)));
    assert_eq!(stop.written, Some(Extent::Bytes(Bytes(128 << 30))));
    assert_eq!(stop.time, None);
}

#[test]
fn output_name_and_standard_input() {
    let dir = common::temp_dir("import-out");
    let out = dir.join("imported.method");
    let o = methodic(&[
        "import",
        "fio",
        "tests/fio/randread_qd32.fio",
        "-o",
        out.to_str().unwrap(),
        "--name",
        "nvme \"qd32\"",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty(), "nothing on stdout with -o");
    assert!(text(&o.stderr).contains(&format!("wrote {}", out.display())), "{}", text(&o.stderr));
    let method = std::fs::read_to_string(&out).unwrap();
    assert_eq!(plan(&method).methodology.name, "nvme \"qd32\"");

    let job = std::fs::read(root().join("tests/fio/randread_qd32.fio")).unwrap();
    let o = methodic_stdin(&["import", "fio", "-"], &job);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let from_stdin = text(&o.stdout);
    assert!(from_stdin.starts_with("# Imported from <stdin> by methodic"), "{from_stdin}");
    assert!(from_stdin.contains("methodology \"fio-import\""), "{from_stdin}");
    assert_eq!(measures(&plan(&from_stdin)).len(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn refused_options_are_each_named_and_nothing_is_written() {
    let dir = common::temp_dir("import-refused");
    let out = dir.join("never.method");
    let kept = dir.join("kept.method");
    std::fs::write(&kept, "# an earlier file\n").unwrap();
    for target in [&out, &kept] {
        let o =
            methodic(&["import", "fio", "tests/fio/err_refused_options.fio", "-o", target.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1));
        let err = text(&o.stderr);
        for (line, option, why) in [
            (7, "runtime=30sec", "30 microseconds"),
            (8, "thinktime=250", "which is the same only at iodepth=1, not at iodepth=32"),
            (13, "bs=4KiB", "4000 bytes"),
            (15, "exitall", "unknown option"),
        ] {
            let at = format!("tests/fio/err_refused_options.fio:{line}");
            assert!(
                err.lines().any(|l| l.contains(&format!("`{option}`")) && l.contains(why) && l.contains(&at)),
                "{option} at line {line}:\n{err}"
            );
        }
        assert!(err.contains("4 problems; nothing written"), "{err}");
        assert!(o.stdout.is_empty());
    }
    assert!(!out.exists(), "no file made");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "# an earlier file\n", "the earlier file is kept");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file is left");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn jobs_fio_starts_together_are_one_together_step_on_their_devices() {
    let method = import("together.fio");
    let p = plan(&method);
    assert_eq!(p.steps.len(), 1, "{method}");
    let Action::Together { jobs, ramp, stop, .. } = &p.steps[0].action else { panic!("{method}") };
    assert_eq!((*ramp, stop.time), (Duration::from_secs(30), Some(Duration::from_secs(300))));
    let each: Vec<(&str, u32, u32, Option<Rate>, u32)> =
        jobs.iter().map(|j| (j.name.as_str(), j.qd.total, j.workers, j.rate, j.device)).collect();
    assert_eq!(
        each,
        [
            // numjobs=2 clones, each at iodepth=16 and capped at 25000 IOPS.
            ("reads", 32, 2, Some(Rate { amount: RateAmount::Iops(50_000), arrivals: Arrivals::Poisson }), 0),
            // rate=200m: 200MiB a second; on the second file, device 2.
            (
                "writes",
                8,
                1,
                Some(Rate { amount: RateAmount::Bandwidth(Bytes(200 << 20)), arrivals: Arrivals::Uniform }),
                1
            ),
        ]
    );
    assert!(
        method.contains("# - device 1: /dev/nvme0n1 ([reads])\n# - device 2: /dev/nvme1n1 ([writes])\n"),
        "{method}"
    );
    assert!(
        method.contains("`methodic run FILE.method --target /dev/nvme0n1 --target /dev/nvme1n1`"),
        "{method}"
    );
}

#[test]
fn groups_and_rates_fio_means_otherwise_are_refused_and_nothing_is_written() {
    let o = methodic(&["import", "fio", "tests/fio/err_together.fio"]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    for (line, option, why) in [
        (
            15,
            "rate_iops=10000",
            "caps reads and writes alike, each at 10000 I/Os a second for each clone, a 50% read mix where the job asks for 70% reads",
        ),
        (
            26,
            "runtime=30",
            "fio starts [scan] together with [reads] (line 17), but [reads] runs for 1min (runtime=60) and [scan] for 30s (runtime=30)",
        ),
        (32, "latency_target=2ms", "methodic judges each depth over a probe of a stated length"),
        (32, "latency_target=2ms", "methodic's percentiles stop below p100"),
    ] {
        let at = format!("tests/fio/err_together.fio:{line}");
        assert!(
            err.lines().any(|l| l.contains(&format!("`{option}`")) && l.contains(why) && l.contains(&at)),
            "{option} at line {line}:\n{err}"
        );
    }
    assert!(
        err.contains("hint: cap both in the job's mix: rate_iops=7000,3000 is 10000 I/Os a second in all"),
        "{err}"
    );
    assert!(err.contains("hint: give the jobs fio starts together one runtime"), "{err}");
    assert!(err.contains("4 problems; nothing written"), "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn jobs_that_read_until_their_size_stop_after_bytes_transferred() {
    let method = import("size_bound_reads.fio");
    let p = plan(&method);
    let stops: Vec<_> = measures(&p)
        .iter()
        .map(|s| match &s.action {
            Action::Measure { stop, .. } => (stop.amount(), stop.time),
            _ => unreachable!("measures are measurements"),
        })
        .collect();
    assert_eq!(
        stops,
        [
            (Some((Extent::Bytes(Bytes(256 << 20)), true)), None),
            (Some((Extent::Bytes(Bytes(25600 << 10)), true)), Some(Duration::from_secs(120))),
        ],
        "{method}"
    );
}

#[test]
fn fio_variables_are_given_with_var() {
    let job = b"[j]\nrw=randread\nbs=${BS}\nsize=${SIZE}\n";
    let o =
        methodic_stdin(&["import", "fio", "-", "--var", "BS=16k", "--var", "SIZE=1g", "--var", "QD=4"], job);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let method = text(&o.stdout);
    assert!(method.contains("# fio variables given with --var: BS=16k, SIZE=1g."), "{method}");
    assert!(method.contains("block 16KiB") && method.contains("until transferred 1GiB"), "{method}");
    assert!(text(&o.stderr).contains("warning: --var QD: the job file has no ${QD}"), "{}", text(&o.stderr));
    // A variable not given is refused, saying how to give it.
    let o = methodic_stdin(&["import", "fio", "-", "--var", "BS=16k"], job);
    let err = text(&o.stderr);
    assert!(!o.status.success() && o.stdout.is_empty(), "{err}");
    assert!(err.contains("size=${SIZE}") && err.contains("--var NAME=VALUE"), "{err}");
}

#[test]
fn a_missing_job_file_is_an_error() {
    let o = methodic(&["import", "fio", "tests/fio/no-such.fio"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("cannot read tests/fio/no-such.fio"), "{}", text(&o.stderr));
}

/// `fio --parse-only JOB` with a target for each device an export names
/// (`${TARGET}`, `${TARGET2}`, ...).
fn fio_parses_devices(job: &std::path::Path) -> Result<(), String> {
    let o = std::process::Command::new("fio")
        .arg("--parse-only")
        .arg(job)
        .envs([("TARGET", "/dev/null"), ("TARGET2", "/dev/null"), ("TARGET3", "/dev/null")])
        .output()
        .expect("fio runs (apt-get install fio; .ci/run installs it)");
    if o.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&o.stderr).into_owned()) }
}

/// Imported, exported with `methodic export fio` (checked by fio), imported
/// again: the steps of `tests/fio/NAME.fio` each time.
fn round_trip(name: &str) {
    let dir = common::temp_dir(&format!("import-round-trip-{name}"));
    let method = dir.join(format!("{name}.method"));
    let o = methodic(&["import", "fio", &format!("tests/fio/{name}.fio"), "-o", method.to_str().unwrap()]);
    assert!(o.status.success(), "{name}: {}", text(&o.stderr));
    let o = methodic(&["export", "fio", method.to_str().unwrap()]);
    assert!(o.status.success(), "{name}: {}", text(&o.stderr));
    let exported = dir.join(format!("{name}.fio"));
    std::fs::write(&exported, &o.stdout).unwrap();
    if let Err(e) = fio_parses_devices(&exported) {
        panic!("fio refuses the export of {name}: {e}");
    }
    let o = methodic(&["import", "fio", exported.to_str().unwrap()]);
    let job = std::fs::read_to_string(&exported).unwrap();
    assert!(o.status.success(), "{name} exported as\n{job}\ndoes not import: {}", text(&o.stderr));
    let again = plan(&text(&o.stdout));
    let first = plan(&std::fs::read_to_string(&method).unwrap());
    // What each step does, without the ids and names the trip changes.
    let what = |p: &Plan| -> Vec<String> {
        p.steps
            .iter()
            .map(|s| match &s.action {
                Action::Measure { workload: w, qd, ramp, stop, series, rate, .. } => format!(
                    "{:?} read {} random {} align {} offset {} {qd:?} ramp {ramp} {stop:?} series {series} {rate:?} {:?}",
                    w.blocks, w.read, w.random, w.align, w.offset, s.target
                ),
                Action::Together { jobs, ramp, stop, series } => {
                    let jobs: Vec<String> = jobs
                        .iter()
                        .map(|j| format!("{:?} {:?} workers {} {:?} device {}", j.workload.io(), j.qd, j.workers, j.rate, j.device))
                        .collect();
                    let t = s.target.unwrap();
                    format!("together {jobs:?} ramp {ramp} {stop:?} series {series} {:?} {:?} {:?}", t.span, t.io, t.data)
                }
                other => other.kind().to_string(),
            })
            .collect()
    };
    assert_eq!(what(&again), what(&first), "{name} exported as\n{job}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_imported_then_exported_job_round_trips_its_options() {
    for name in ["randread_qd32", "oltp_mix", "qd_sweep"] {
        round_trip(name);
    }
}

/// Jobs at once on two devices, with rates: each job's workload, depth,
/// workers, rate and device survive the trip.
#[test]
fn a_together_step_with_rates_round_trips() {
    round_trip("together");
}

/// A sequential job over four workers with adjacent stripes
/// (`offset_increment` = `size`) that stops when written: the stripes and
/// each clone's `io_size` survive the trip.
#[test]
fn a_striped_job_round_trips_its_stripes() {
    round_trip("striped_fill");
}

// ------------------------------------------------- job files as people write them

/// The one step's workload, queue depth and stop of a measurement.
fn measure_of(s: &methodic_compiler::plan::Step) -> (&methodic_compiler::plan::Workload, u32, &MeasureStop) {
    let Action::Measure { workload, qd, stop, .. } = &s.action else { panic!("not a measurement") };
    (workload, qd.total, stop)
}

#[test]
fn comments_after_values_and_reporting_options_as_fio_reads_them() {
    let method = import("inline_comments.fio");
    let p = plan(&method);
    let m = measures(&p);
    assert_eq!(m.len(), 1);
    let (w, qd, stop) = measure_of(m[0]);
    assert_eq!((w.blocks[0].size, w.read, qd), (Bytes(4096), Percent::HUNDRED, 256), "{method}");
    assert_eq!(stop.time, Some(Duration::from_secs(60)), "`runtime=60 ; seconds` is 60 seconds");
    for option in [
        "group_reporting (line 9)",
        "gtod_reduce=0 (line 10)",
        "random_generator=tausworthe64 (line 11)",
        "clat_percentiles=1 (line 12)",
        "percentile_list=50:99:99.9:99.99 (line 13)",
        "write_lat_log=randread (line 14)",
        "log_avg_msec=1000 (line 15)",
        "disable_bw=1 (line 16)",
    ] {
        assert!(method.contains(&format!("{option}: not carried over")), "{option}:\n{method}");
    }
}

#[test]
fn verify_imports_as_methodics_verify_and_rehearses() {
    let method = import("verify_fill.fio");
    let p = plan(&method);
    let m = measures(&p);
    assert_eq!(m.len(), 2, "{method}");
    let (w, qd, stop) = measure_of(m[0]);
    assert_eq!((w.read, w.random, qd), (Percent::ZERO, Percent::ZERO, 16));
    assert_eq!(stop.written, Some(Extent::Bytes(Bytes(8 << 30))), "written once: {method}");
    let (w, _, stop) = measure_of(m[1]);
    assert_eq!((w.read, stop.time), (Percent::HUNDRED, Some(Duration::from_secs(60))));
    assert!(m.iter().all(|s| s.verify), "both steps check their data: {method}");
    assert!(method.contains("verify_fatal=1 (line 7): not carried over"), "{method}");
    // The writes are stamped and read back, the reads checked against the
    // stamps: a rehearsal that finds a mismatch fails.
    let out = common::run_source("import-verify-rehearsal", &method, &["--rehearse", "--no-ceiling"]);
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
}

#[test]
fn hot_zones_and_splits_per_direction() {
    let method = import("hot_zones.fio");
    let p = plan(&method);
    let m = measures(&p);
    assert_eq!(m.len(), 2, "{method}");
    let (reads, _, _) = measure_of(m[0]);
    let sizes = |w: &methodic_compiler::plan::Workload| -> Vec<(u64, Percent)> {
        w.blocks.iter().map(|b| (b.size.0, b.share)).collect()
    };
    // `64k/` takes what 60 and 30 leave; the reads' list, not the writes'.
    assert_eq!(
        sizes(reads),
        [(4096, Percent::whole(60)), (16384, Percent::whole(30)), (65536, Percent::whole(10))]
    );
    let band = |io, span| Band { io: Percent::whole(io), span: Percent::whole(span) };
    assert_eq!(reads.access, Access::Bands(vec![band(60, 10), band(30, 20), band(10, 70)]), "{method}");
    let (writes, _, _) = measure_of(m[1]);
    assert_eq!(sizes(writes), [(131072, Percent::HUNDRED)]);
}

#[test]
fn shapes_methodic_cannot_run_as_fio_does_are_refused_saying_why() {
    let o = methodic(&["import", "fio", "tests/fio/err_real_world.fio"]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    for (line, section, why) in [
        (11, "[seq-read]", "modifier (skip ahead between sequential I/Os"),
        (19, "[oltp]", "not a range"),
        (28, "[paced]", "which is the same only at iodepth=1, not at iodepth=8"),
        (38, "[qd-for-1ms]", "methodic's percentiles stop below p100"),
    ] {
        let at = format!("tests/fio/err_real_world.fio:{line}, {section}");
        assert!(err.contains(&at) && err.contains(why), "{section} at line {line}: {why}\n{err}");
    }
    assert!(err.contains("4 problems; nothing written"), "{err}");
}
