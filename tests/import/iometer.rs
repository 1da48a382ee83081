//! `methodic import iometer` and `methodic export iometer`: the .icf files
//! in tests/iometer/ (our own, in Iometer's layouts: CRLF, 80-character
//! headers, versions 2004.07.30 to 1.1.0) import to methodologies that
//! compile to the steps Iometer would run; the `err_*` files are refused
//! with every problem at its line, exit 1 and nothing written; Iometer's
//! classic Database, File Server and Workstation specifications are
//! std.mixes' I/O (alignment aside, as std.mixes says); a plan exported and
//! imported again does the same I/O; and an import rehearses.

use methodic_compiler::plan::{Action, Bytes, DataPattern, Duration, Extent, Percent, Plan, WorkloadIo};

use crate::common::{self, methodic, methodic_stdin, root, text};

/// `methodic import iometer tests/iometer/NAME`: the methodology on stdout.
fn import(name: &str) -> String {
    let o = methodic(&["import", "iometer", &format!("tests/iometer/{name}")]);
    assert!(o.status.success(), "{name}: {}", text(&o.stderr));
    text(&o.stdout)
}

/// The plan of a methodology.
fn plan(method: &str) -> Plan {
    methodic_compiler::compile(method, &methodic_compiler::Options::default())
        .unwrap_or_else(|d| panic!("{d}\n{method}"))
        .plan
}

/// A methodology with steps must check without a warning.
fn checked(method: &str) -> Plan {
    let diags = methodic_compiler::check(method);
    assert!(diags.is_empty(), "{diags}\n{method}");
    plan(method)
}

#[test]
fn a_queue_depth_cycle_of_two_workers_on_two_disks() {
    let method = import("full-1.1.0.icf");
    assert!(method.starts_with(&format!(
        "# Imported from tests/iometer/full-1.1.0.icf by methodic {} (`methodic import iometer`).\n",
        env!("CARGO_PKG_VERSION")
    )));
    assert_eq!(methodic_grammar::format(&method).unwrap(), method, "formatted as methodic fmt does");
    assert!(
        method
            .contains("# - device 1: 1: \"ATA EXAMPLE-SSD 1.0\"\n# - device 2: 2: \"ATA EXAMPLE-SSD 1.0\"\n"),
        "{method}"
    );
    assert!(method.contains("`methodic run FILE.method --target DISK1 --target DISK2`"), "{method}");
    let p = checked(&method);
    assert_eq!(p.steps.len(), 6, "{method}");
    for (s, q) in p.steps.iter().zip([1, 2, 4, 8, 16, 32]) {
        let Action::Together { jobs, ramp, stop, .. } = &s.action else { panic!("{method}") };
        assert_eq!((*ramp, stop.time), (Duration::from_secs(30), Some(Duration::from_secs(60))));
        let each: Vec<(u64, Percent, Percent, u32, u32, u32)> = jobs
            .iter()
            .map(|j| {
                (
                    j.workload.blocks[0].size.0,
                    j.workload.read,
                    j.workload.random,
                    j.qd.per_worker,
                    j.workers,
                    j.device,
                )
            })
            .collect();
        assert_eq!(
            each,
            [
                (4096, Percent::whole(70), Percent::HUNDRED, q, 1, 0),
                (65536, Percent::HUNDRED, Percent::ZERO, q, 1, 1)
            ]
        );
    }
    assert!(method.contains("RESULTS DISPLAY (line 28)"), "{method}");
}

#[test]
fn a_2004_file_with_one_worker() {
    let method = import("old-2004.07.30.icf");
    let p = checked(&method);
    let [s] = p.steps.as_slice() else { panic!("{method}") };
    let Action::Measure { workload: w, qd, ramp, stop, .. } = &s.action else { panic!("{method}") };
    assert_eq!((w.blocks[0].size, w.read, w.random), (Bytes(8192), Percent::whole(67), Percent::HUNDRED));
    assert_eq!(w.align, Bytes(512), "align 0 is the sector size, 512B said");
    assert_eq!((qd.per_worker, qd.workers), (16, 1));
    assert_eq!((*ramp, stop.time), (Duration::ZERO, Some(Duration::from_secs(300))));
    let t = s.target.unwrap();
    assert_eq!((t.span, t.data), (Extent::Percent(Percent::HUNDRED), DataPattern::Random));
    assert!(method.contains("align 0: Iometer aligns to the target's sector size"), "{method}");
    assert!(method.contains("Iometer file version 2004.07.30."), "{method}");
    assert!(method.contains("Iometer's target: PHYSICALDRIVE:1"), "{method}");
}

#[test]
fn worker_cycling_runs_one_then_two_then_four_workers() {
    let method = import("cycle-workers-2006.07.27.icf");
    let p = checked(&method);
    let counts: Vec<(u32, u32)> = p
        .steps
        .iter()
        .map(|s| match &s.action {
            Action::Measure { qd, .. } => (qd.workers, qd.per_worker),
            _ => panic!("{method}"),
        })
        .collect();
    assert_eq!(counts, [(1, 8), (2, 8), (4, 8)]);
    assert_eq!(p.target.workers, 4);
}

#[test]
fn think_time_span_offset_and_an_idle_worker() {
    let method = import("paced-writes-1.1.0.icf");
    let p = checked(&method);
    let [first, second] = p.steps.as_slice() else { panic!("{method}") };
    let Action::Measure { workload: w, qd, pauses, .. } = &first.action else { panic!("{method}") };
    let think = pauses.think.unwrap();
    assert_eq!((think.pause_ns, think.every), (5_000_000, 8));
    assert_eq!((qd.workers, qd.per_worker), (2, 4));
    assert_eq!(w.offset, Bytes(1 << 20), "starting sector 2048 of 512 bytes");
    let t = first.target.unwrap();
    assert_eq!(t.span, Extent::Bytes(Bytes((8 << 30) + (1 << 20))));
    assert_eq!(t.data, DataPattern::Zeros);
    let Action::Measure { workload: w, qd, .. } = &second.action else { panic!("{method}") };
    assert_eq!((w.blocks[0].size, w.random), (Bytes(65536), Percent::ZERO));
    assert_eq!(qd.workers, 1, "the other worker is Idle");
    assert!(method.contains("\"Unused spec\" (line"), "{method}");
    assert!(method.contains("each Iometer write repeats one random byte"), "{method}");
}

#[test]
fn refused_files_name_each_problem_and_write_nothing() {
    let dir = common::temp_dir("import-iometer-refused");
    let out = dir.join("never.method");
    let o = methodic(&["import", "iometer", "tests/iometer/err_refused.icf", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    for (line, words) in [
        (32, "reply 4096"),
        (37, "its lines differ in % reads"),
        (50, "test connection rate"),
        (69, "a network worker (NETWORK,TCP)"),
    ] {
        let at = format!("tests/iometer/err_refused.icf:{line}");
        assert!(err.lines().any(|l| l.contains(words) && l.contains(&at)), "{words} at line {line}:\n{err}");
    }
    assert!(err.contains("4 problems; nothing written"), "{err}");
    let o = methodic(&["import", "iometer", "tests/iometer/err_truncated.icf", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("it was cut off"), "{}", text(&o.stderr));
    let o = methodic_stdin(&["import", "iometer", "-"], b"[global]\r\nrw=randread\r\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("<stdin>:1"), "{}", text(&o.stderr));
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The I/O of the named workloads of a methodology, each run once.
fn workload_io(method: &str, names: &[&str]) -> Vec<WorkloadIo> {
    let mut m = method.to_string();
    for n in names {
        m.push_str(&format!("measure {n} qd 1 for 1s\n"));
    }
    plan(&m).steps.iter().map(|s| s.action.workloads()[0].io()).collect()
}

#[test]
fn the_classic_specs_are_std_mixes_io_but_for_the_alignment_std_mixes_states() {
    let names = ["database", "file_server", "workstation"];
    let std = workload_io("methodology \"m\" version \"1\"\nuse std.mixes\n", &names);
    let method = import("access-specs-1.1.0.icf");
    assert!(method.contains("A file of access specifications only"), "{method}");
    assert!(method.contains("The same I/O as std.mixes' file_server"), "{method}");
    assert!(method.contains("std.mixes' database is this workload aligned to 8KiB"), "{method}");
    let classic = workload_io(&method, &names);
    // File Server: the same I/O (512B is its smallest block and the sector).
    assert_eq!(classic[1], std[1]);
    // Database and Workstation: align 0, the sector, where std.mixes
    // aligns to the block; everything else the same.
    for i in [0, 2] {
        assert_eq!((classic[i].align, std[i].align), (Bytes(512), Bytes(8192)));
        assert_eq!(WorkloadIo { align: std[i].align, ..classic[i].clone() }, std[i]);
    }
    let mixes = methodic_compiler::MIXES_SOURCE;
    assert!(mixes.contains("Iometer's classic spec (align 0)"), "std.mixes says how it differs");
    // Written with Iometer 1.1.0's "request size" alignment, they are std.mixes' I/O.
    let icf = std::fs::read_to_string(root().join("tests/iometer/access-specs-1.1.0.icf")).unwrap();
    let request = icf
        .replace("\t8192,100,67,100,0,1,0,0", "\t8192,100,67,100,0,1,8192,0")
        .replace("\t8192,100,80,80,0,1,0,0", "\t8192,100,80,80,0,1,8192,0");
    let o = methodic_stdin(&["import", "iometer", "-"], request.as_bytes());
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(workload_io(&text(&o.stdout), &names), std);
}

/// What each step does, without names and ids.
fn what(p: &Plan) -> Vec<String> {
    p.steps
        .iter()
        .map(|s| match &s.action {
            Action::Measure { workload: w, qd, ramp, stop, pauses, .. } => format!(
                "measure {} qd {}x{} ramp {ramp} {:?} {:?} {:?}",
                w.io().in_full(),
                qd.workers,
                qd.per_worker,
                stop,
                pauses,
                s.target.map(|t| (t.span, t.io, t.data))
            ),
            Action::Together { jobs, ramp, stop, .. } => {
                let jobs: Vec<String> = jobs
                    .iter()
                    .map(|j| {
                        format!(
                            "{} {}x{} {:?} device {}",
                            j.workload.io().in_full(),
                            j.qd.workers,
                            j.qd.per_worker,
                            j.pauses,
                            j.device
                        )
                    })
                    .collect();
                format!("together {jobs:?} ramp {ramp} {stop:?}")
            }
            other => other.kind().to_string(),
        })
        .collect()
}

#[test]
fn an_exported_plan_imports_to_the_same_io() {
    let source = "methodology \"trip\" version \"1.0\"\n\
        conventions { queue_depth per_worker }\n\
        target { workers 2; data random }\n\
        workload mix { random; blocks { 4KiB: 70%, 64KiB: 30% }; write_block 16KiB; read 70%; align 4KiB }\n\
        workload seq { sequential; block 128KiB; read 100% }\n\
        erase discard\n\
        sweep mix qd 1..32 step x2 ramp 5s record 30s\n\
        measure seq qd 4 for 30s ramp 5s\n\
        measure mix qd 4 for 30s ramp 5s think 2ms every 8\n\
        together for 1min { job a mix qd 2 workers 1 device 1; job b seq qd 8 workers 1 device 2 }\n";
    let dir = common::temp_dir("export-iometer-trip");
    let file = dir.join("trip.method");
    std::fs::write(&file, source).unwrap();
    let out = dir.join("icf");
    let o = methodic(&[
        "export",
        "iometer",
        file.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--iometer-target",
        "1:",
        "--iometer-target",
        "2:",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(err.lines().any(|l| l.starts_with("warning: step ") && l.ends_with("is left out: Iometer has no erase step")), "{err}");
    let mut files: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "icf"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "a cycled sweep, two measures of one shape, a together step: {files:?}");
    let mut again = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        assert!(bytes.starts_with(b"Version 1.1.0 \r\n'TEST SETUP ="), "{}", f.display());
        let o = methodic(&["import", "iometer", f.to_str().unwrap()]);
        assert!(o.status.success(), "{}: {}", f.display(), text(&o.stderr));
        again.extend(what(&checked(&text(&o.stdout))));
    }
    let mut first = what(&plan(source));
    first.remove(0);
    assert_eq!(again, first);
    let batch = std::fs::read_to_string(out.join("run-iometer.cmd")).unwrap();
    assert!(batch.starts_with("IOmeter.exe /c trip-1.0-01.icf /r trip-1.0-01.csv\r\n"), "{batch}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Imported, then rehearsed on a scratch file: the paced writes and the
/// sequential read, each for the one second its run time is cut to here.
#[test]
fn an_import_rehearses() {
    let icf = std::fs::read_to_string(root().join("tests/iometer/paced-writes-1.1.0.icf")).unwrap();
    let short = icf
        .replace("\t0          2          0\r\n", "\t0          0          1\r\n")
        .replace("'Ramp Up Time (s)\r\n\t10\r\n", "'Ramp Up Time (s)\r\n\t0\r\n");
    assert_ne!(short, icf);
    let o = methodic_stdin(&["import", "iometer", "-"], short.as_bytes());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let method = text(&o.stdout);
    assert!(method.contains("for 1s think 5ms every 8"), "{method}");
    let out = common::run_source(
        "import-iometer-rehearse",
        &method,
        &["--rehearse", "--no-ceiling", "--seed", "1"],
    );
    let results = std::fs::read_to_string(out.join("results.json")).unwrap();
    assert!(results.contains("\"rehearsal\": true"), "{results}");
    assert!(results.contains("paced_4k_writes") && results.contains("spec_64k_sequential_read"), "{results}");
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
}
