//! `methodic import vdbench`: the parameter files in tests/vdbench/ (our
//! own, in vdbench's layouts) import through the command line, with
//! `--var` for their `$name`s and `include=` files beside them, to
//! methodologies whose plans do what vdbench would run; `hd=` entries
//! give a hosts file beside the methodology; refused files name every
//! problem, exit 1 and write nothing; and an imported file rehearses.

use methodic_compiler::plan::{
    Action, Arrivals, Bytes, DataPattern, Duration, Extent, IoMode, Percent, Plan, Rate, RateAmount,
};

use crate::common::{methodic, run_source, temp_dir, text};

/// `methodic import vdbench tests/vdbench/NAME ARGS...`: the methodology.
fn import(name: &str, args: &[&str]) -> String {
    let file = format!("tests/vdbench/{name}");
    let mut all = vec!["import", "vdbench", file.as_str()];
    all.extend_from_slice(args);
    let o = methodic(&all);
    assert!(o.status.success(), "{name}: {}", text(&o.stderr));
    text(&o.stdout)
}

/// The plan of a methodology, which must check without a warning.
fn plan(method: &str) -> Plan {
    let diags = methodic_compiler::check(method);
    assert!(diags.is_empty(), "{diags}\n{method}");
    methodic_compiler::compile(method, &methodic_compiler::Options::default()).unwrap().plan
}

#[test]
fn the_smallest_file_is_one_measurement_at_its_threads() {
    let method = import("01-simple.vdb", &[]);
    assert!(
        method.starts_with(&format!(
            "# Imported from tests/vdbench/01-simple.vdb by methodic {} (`methodic import vdbench`).",
            env!("CARGO_PKG_VERSION")
        )),
        "{method}"
    );
    assert!(method.contains("--target /dev/nvme0n1"), "{method}");
    let p = plan(&method);
    assert_eq!(p.steps.len(), 1);
    let s = &p.steps[0];
    let Action::Measure { workload: w, qd, ramp, stop, series, rate, .. } = &s.action else {
        panic!("{method}")
    };
    assert_eq!(w.blocks[0].size, Bytes(4096));
    assert_eq!((w.read, w.random), (Percent::HUNDRED, Percent::HUNDRED));
    // vdbench never uses block zero of a /dev lun: 4KiB in.
    assert_eq!(w.offset, Bytes(4096));
    assert_eq!((qd.total, qd.workers), (8, 1));
    // elapsed=60, interval=5, no warmup: the first interval is the ramp.
    assert_eq!(
        (*ramp, stop.time, *series),
        (Duration::from_secs(5), Some(Duration::from_secs(55)), Duration::from_secs(5))
    );
    assert_eq!(*rate, None, "iorate=max is closed loop");
    assert_eq!(s.target.unwrap().io, IoMode::Direct);
}

#[test]
fn defaults_abbreviations_and_two_sds_make_together_steps() {
    let method = import("02-defaults.vdb", &[]);
    assert!(
        method.contains("workload oltp {") && method.contains("workload scan {"),
        "named after the wds:\n{method}"
    );
    let p = plan(&method);
    assert_eq!(p.steps.len(), 2);
    let Action::Together { jobs, ramp, stop, series } = &p.steps[0].action else {
        panic!("{:?}", p.steps[0].action)
    };
    // el=2m, wa=30, in=10: a 30s ramp, 120s recorded.
    assert_eq!(
        (*ramp, stop.time, *series),
        (Duration::from_secs(30), Some(Duration::from_secs(120)), Duration::from_secs(10))
    );
    let each: Vec<(u32, u32, Option<Rate>)> = jobs.iter().map(|j| (j.device, j.qd.total, j.rate)).collect();
    let half = Some(Rate { amount: RateAmount::Iops(10_000), arrivals: Arrivals::Poisson });
    assert_eq!(each, [(0, 16, half), (1, 16, half)], "io=20000 shared by the two sds of wd=oltp");
    let w = &jobs[0].workload;
    assert_eq!((w.blocks[0].size, w.read), (Bytes(8192), Percent::whole(70)));
    // The largest transfer size on the sds is scan's 256k: I/O starts there.
    assert_eq!(w.offset, Bytes(256 << 10));
    let t = p.steps[0].target.unwrap();
    assert_eq!(t.span, Extent::Bytes(Bytes(100 << 30)));
    assert!(matches!(t.data, DataPattern::Compressible(c) if c == Percent::whole(50)), "{:?}", t.data);
    let Action::Together { jobs, .. } = &p.steps[1].action else { panic!() };
    let w = &jobs[1].workload;
    assert_eq!(
        (w.blocks[0].size, w.read, w.random, jobs[1].rate),
        (Bytes(256 << 10), Percent::HUNDRED, Percent::ZERO, None)
    );
}

#[test]
fn for_loops_nest_in_vdbench_s_order_with_the_curve_innermost() {
    let p = plan(&import("03-loops-curve.vdb", &[]));
    // 6 thread counts x 5 sizes x (the max run and 4 curve points).
    assert_eq!(p.steps.len(), 150);
    let each: Vec<(u32, u64, Option<RateAmount>)> = p
        .steps
        .iter()
        .map(|s| {
            let Action::Measure { workload: w, qd, rate, .. } = &s.action else { panic!() };
            (qd.total, w.blocks[0].size.0, rate.map(|r| r.amount))
        })
        .collect();
    let share = |n, of| Some(RateAmount::Share { share: Percent::whole(n), of });
    assert_eq!(
        each[..6],
        [
            (1, 4096, None),
            (1, 4096, share(25, 0)),
            (1, 4096, share(50, 0)),
            (1, 4096, share(75, 0)),
            (1, 4096, share(100, 0)),
            (1, 8192, None)
        ]
    );
    assert_eq!(each[149], (32, 65536, share(100, 145)));
}

#[test]
fn variables_hosts_and_a_merged_skew() {
    let dir = temp_dir("import-vdbench-hosts");
    let out = dir.join("skew.method");
    let o = methodic(&[
        "import",
        "vdbench",
        "tests/vdbench/04-skew-hosts-vars.vdb",
        "-o",
        out.to_str().unwrap(),
        "--name",
        "skew",
        "--var",
        "sysa=10.0.0.1",
        "--var",
        "sysb=10.0.0.2",
        "--var",
        "lun=/dev/sdb",
        "--var",
        "rate=5000",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let hosts = std::fs::read_to_string(dir.join("skew.hosts")).unwrap();
    let specs = methodic_runtime::parse_hosts(&hosts, &dir.join("skew.hosts"), None).unwrap();
    let each: Vec<(&str, &str)> = specs.iter().map(|h| (h.client.as_str(), h.target.as_str())).collect();
    assert_eq!(each, [("10.0.0.1", "/dev/sdb"), ("10.0.0.2", "/dev/sdb")]);
    assert!(text(&o.stderr).contains("skew.hosts beside it"), "{}", text(&o.stderr));
    let method = std::fs::read_to_string(&out).unwrap();
    let p = plan(&method);
    let Action::Measure { workload: w, qd, rate, .. } = &p.steps[0].action else { panic!("{method}") };
    // 80% of the I/Os read (skew 80 of rdpct=100, 20 of rdpct=0): one queue.
    assert_eq!((w.read, w.random), (Percent::whole(80), Percent::HUNDRED));
    // threads=16 over two hosts; the rate is the whole run's.
    assert_eq!(qd.total, 8);
    assert_eq!(*rate, Some(Rate { amount: RateAmount::Iops(5000), arrivals: Arrivals::Poisson }));
    std::fs::remove_dir_all(&dir).unwrap();

    let o = methodic(&["import", "vdbench", "tests/vdbench/04-skew-hosts-vars.vdb", "--var", "lun=/dev/sdb"]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("no value for the variable sysa")
            && err.contains("hint: give it as vdbench takes it on its command line: --var sysa=VALUE"),
        "{err}"
    );
}

#[test]
fn refused_files_name_every_problem_and_write_nothing() {
    let dir = temp_dir("import-vdbench-refused");
    let out = dir.join("never.method");
    let o = methodic(&["import", "vdbench", "tests/vdbench/err-refused.vdb", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    for (line, option, why) in [
        (2, "dedupratio=2", "unique data only"),
        (3, "openflags=o_sync", "no synchronous writes"),
        (4, "stride=(4k,8k)", "no strided random offsets"),
        (6, "maxdataread=10g", "not after bytes read alone"),
        (7, "elapsd=60", "no keyword `elapsd=`"),
    ] {
        let at = format!("tests/vdbench/err-refused.vdb:{line}");
        assert!(
            err.lines().any(|l| l.contains(&format!("`{option}`")) && l.contains(why) && l.contains(&at)),
            "{option} at line {line}:\n{err}"
        );
    }
    assert!(err.contains("5 problems; nothing written"), "{err}");
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "nothing written");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_imported_file_with_an_include_rehearses() {
    let method = import("05-file-include.vdb", &["--var", "file=/tmp/scratch.vdb"]);
    let p = plan(&method);
    // The eof pass writes the 64MiB file once; the mixes loop over rdpct.
    let Action::Measure { stop, workload: w, .. } = &p.steps[0].action else { panic!("{method}") };
    assert_eq!((stop.written, w.read), (Some(Extent::Bytes(Bytes(64 << 20))), Percent::ZERO));
    assert_eq!(p.steps[0].target.unwrap().io, IoMode::Buffered);
    // One pass whatever the warmup: no ramp to write before it.
    let Action::Measure { ramp, .. } = &p.steps[0].action else { unreachable!() };
    assert_eq!(*ramp, Duration::ZERO);
    assert!(method.contains("for rdp in [100%, 50%]"), "{method}");
    let results = run_source("import-vdbench-rehearse", &method, &["--rehearse", "--no-ceiling"]);
    assert!(results.join("manifest.json").exists());
    std::fs::remove_dir_all(results.parent().unwrap()).unwrap();
}
