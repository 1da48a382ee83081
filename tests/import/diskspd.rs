//! `methodic import diskspd` from the command line: the profiles and
//! command lines in tests/diskspd/ import to methodologies that check
//! clean and compile to what DiskSpd would run; the `err_*` files are
//! refused with every problem named by line and option, exit 1 and
//! nothing written; and an imported command line rehearses.

use methodic_compiler::plan::{Action, Bytes, Duration, Extent, IoMode, Percent, RateAmount};

use crate::common::{self, methodic, text};

/// `methodic import diskspd tests/diskspd/NAME`: the methodology, and
/// what was said on stderr.
fn import(name: &str) -> (String, String) {
    let o = methodic(&["import", "diskspd", &format!("tests/diskspd/{name}")]);
    assert!(o.status.success(), "{name}: {}", text(&o.stderr));
    (text(&o.stdout), text(&o.stderr))
}

fn plan(method: &str) -> methodic_compiler::plan::Plan {
    let diags = methodic_compiler::check(method);
    assert!(diags.is_empty(), "{diags}\n{method}");
    methodic_compiler::compile(method, &methodic_compiler::Options::default()).unwrap().plan
}

#[test]
fn an_xml_profile_of_one_time_span() {
    let (method, err) = import("random4k-oltp.xml");
    assert!(method.starts_with("# Imported from tests/diskspd/random4k-oltp.xml by methodic"), "{method}");
    let p = plan(&method);
    assert_eq!(p.steps.len(), 1);
    let Action::Measure { workload: w, qd, ramp, stop, series, .. } = &p.steps[0].action else {
        panic!("{method}")
    };
    assert_eq!((w.blocks[0].size, w.read, w.random), (Bytes(4096), Percent::whole(70), Percent::HUNDRED));
    assert_eq!((qd.workers, qd.per_worker), (4, 32));
    assert_eq!(
        (*ramp, stop.time, *series),
        (Duration::from_secs(30), Some(Duration::from_secs(120)), Duration::from_secs(1))
    );
    assert_eq!(p.steps[0].target.unwrap().io, IoMode::Direct);
    assert!(method.contains("  write_cache off\n"), "{method}");
    assert!(method.contains("<Cooldown>10</Cooldown> (line 26): not carried over"), "{method}");
    assert!(err.contains("imported 1 time span from tests/diskspd/random4k-oltp.xml"), "{err}");
}

#[test]
fn diskspds_own_xml_output_imports() {
    let (method, err) = import("rpxml-output.xml");
    let p = plan(&method);
    let s = &p.steps[0];
    let Action::Measure { workload: w, rate, series, .. } = &s.action else { panic!("{method}") };
    // -g2500i on 4 threads of 4KiB: 10000 IOPS in all; -c8G: an 8GiB span.
    assert_eq!(rate.unwrap().amount, RateAmount::Iops(10_000));
    assert_eq!(s.target.unwrap().span, Extent::Bytes(Bytes(8 << 30)));
    assert_eq!(*series, Duration::from_millis(500));
    assert!(method.contains("random bands 80% in 10%, 0% in 10%, 20% in 80%"), "{method}");
    assert!(!w.access.is_uniform());
    assert!(err.contains("warning: DiskSpd caps each thread's I/O"), "{err}");
}

#[test]
fn a_file_of_command_lines_is_a_phase_a_command() {
    let (method, _) = import("command-lines.txt");
    let p = plan(&method);
    let phases: Vec<&str> = p.steps.iter().filter_map(|s| s.phase.as_deref()).collect();
    assert_eq!(phases, ["command 1", "command 2"], "{method}");
    // -si -t2 -o8: one stream of 16 in flight, on the second device.
    let Action::Together { jobs, .. } = &p.steps[1].action else { panic!("{method}") };
    assert_eq!((jobs[0].workers, jobs[0].qd.per_worker, jobs[0].device), (1, 16, 1));
    assert!(method.contains("-C5 (line 10): not carried over: I/O after the measurement"), "{method}");
    assert!(method.contains("- device 2: D:\\bench\\seq file.dat"), "{method}");
}

#[test]
fn refused_files_name_each_problem_and_write_nothing() {
    let dir = common::temp_dir("import-diskspd-refused");
    let out = dir.join("never.method");
    for (file, problems, said) in [
        (
            "err_refused.txt",
            4,
            vec![
                (":2", "`-d10s`", "reads `10s` as 10"),
                (":2", "`-a0,1`", "affinity setting"),
                (":2", "`-Sm`", "memory-mapped"),
                (":2", "`-p`", "own sequential stream"),
            ],
        ),
        (
            "err_two-phases-two-targets.xml",
            2,
            vec![(":55", "<Target> *2", "share one span"), (":81", "<Distribution>", "-rdabs")],
        ),
        (
            "err_five-commands.txt",
            2,
            vec![(":14", "`-Sh`", "write_cache off"), (":20", "`-C10`", "a precondition here")],
        ),
    ] {
        let o =
            methodic(&["import", "diskspd", &format!("tests/diskspd/{file}"), "-o", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{file}");
        let err = text(&o.stderr);
        for (line, option, why) in said {
            let at = format!("tests/diskspd/{file}{line}");
            assert!(
                err.lines().any(|l| l.contains(option) && l.contains(why) && l.contains(&at)),
                "{option} at {at}:\n{err}"
            );
        }
        assert!(err.contains(&format!("{problems} problems; nothing written")), "{err}");
        assert!(o.stdout.is_empty());
        assert!(!out.exists(), "no file made");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_imported_command_line_rehearses() {
    let o = common::methodic_stdin(
        &["import", "diskspd", "-"],
        b"diskspd -b4K -r -w30 -t2 -o4 -Su -Zr -W0 -d1 test.dat\n",
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let method = text(&o.stdout);
    assert!(method.contains("methodology \"diskspd-import\""), "{method}");
    let results = common::run_source("import-diskspd-rehearse", &method, &["--rehearse", "--no-ceiling"]);
    let done = std::fs::read_to_string(results.join("results.json")).unwrap();
    assert!(done.contains("\"command-1/"), "{done}");
    std::fs::remove_dir_all(results.parent().unwrap()).unwrap();
}
