//! The `methodic` command end to end: exit codes, what goes to stdout and
//! stderr, files written whole or not at all.

use std::path::Path;

mod common;
use common::{methodic, methodic_stdin, root, temp_dir, text};

fn all_specs() -> Vec<String> {
    let mut specs: Vec<String> = std::fs::read_dir(root().join("specs"))
        .unwrap()
        .map(|e| format!("specs/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|n| n.ends_with(".method"))
        .collect();
    specs.sort();
    specs
}

#[test]
fn check_accepts_every_spec() {
    let specs = all_specs();
    let mut args = vec!["check"];
    args.extend(specs.iter().map(String::as_str));
    let out = methodic(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(&format!("checked {} files: 0 errors, 0 warnings", specs.len())));
    assert!(out.stdout.is_empty());
}

#[test]
fn check_reports_errors_with_codes_and_fails() {
    let out = methodic(&["check", "specs/quick.method", "tests/errors/err_several_at_once.method"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("[M0103]") && err.contains("[M0101]"), "{err}");
    assert!(err.contains("did you mean `sweep`?"), "{err}");
    assert!(err.contains("checked 2 files: 2 errors"), "{err}");
    assert!(
        !err.contains("quantity") && !err.contains("opt_"),
        "a grammar rule name reached the user: {err}"
    );
}

#[test]
fn check_passes_warnings_unless_denied() {
    let out = methodic(&["check", "tests/errors/err_w_unused.method"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("[M0702] Warning"));
    let out = methodic(&["check", "--deny-warnings", "tests/errors/err_w_unused.method"]);
    assert_eq!(out.status.code(), Some(1));
}

/// `check --message-format json`'s lines, each parsed.
fn json_lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    text(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect()
}

/// The text a message's span covers, found through its lines and columns
/// (1-based, in characters, the end exclusive), not its bytes.
fn text_at(src: &str, span: &serde_json::Value) -> String {
    let at = |line: &serde_json::Value, column: &serde_json::Value| {
        let (line, column) = (line.as_u64().unwrap() as usize, column.as_u64().unwrap() as usize);
        let start: usize = src.split_inclusive('\n').take(line - 1).map(str::len).sum();
        start + src[start..].chars().take(column - 1).map(char::len_utf8).sum::<usize>()
    };
    src[at(&span["line_start"], &span["column_start"])..at(&span["line_end"], &span["column_end"])]
        .to_string()
}

#[test]
fn check_speaks_json_lines_for_editors() {
    let bad = "tests/errors/err_several_at_once.method";
    let out = methodic(&["check", "--message-format", "json", bad, "no/such.method", "specs/quick.method"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stderr.is_empty(), "json mode wrote to stderr: {}", text(&out.stderr));
    let lines = json_lines(&out.stdout);
    let (summary, messages) = lines.split_last().unwrap();
    let src = std::fs::read_to_string(root().join(bad)).unwrap();
    let in_bad: Vec<&serde_json::Value> = messages.iter().filter(|m| m["file"] == bad).collect();
    let codes: Vec<&str> = in_bad.iter().map(|m| m["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["M0103", "M0101"], "{lines:?}");
    for (m, covered, line) in [(in_bad[0], "4k", 2), (in_bad[1], "sweeep", 6)] {
        assert_eq!(m["reason"], "diagnostic");
        assert_eq!(m["severity"], "error");
        let span = &m["spans"][0];
        assert_eq!(span["primary"], true);
        assert_eq!(span["line_start"], line);
        assert_eq!(text_at(&src, span), covered, "{m}");
        let (start, end) =
            (span["byte_start"].as_u64().unwrap() as usize, span["byte_end"].as_u64().unwrap() as usize);
        assert_eq!(&src[start..end], covered);
        let rendered = m["rendered"].as_str().unwrap();
        assert!(rendered.contains(m["code"].as_str().unwrap()) && !rendered.contains('\x1b'), "{rendered}");
    }
    assert_eq!(in_bad[0]["hint"], "sizes are binary or decimal: write 4KiB or 4KB");
    assert_eq!(in_bad[1]["hint"], "did you mean `sweep`?");
    // The unreadable file is a message too, without a code or a place.
    let unreadable: Vec<_> = messages.iter().filter(|m| m["file"] == "no/such.method").collect();
    assert_eq!(unreadable.len(), 1, "{lines:?}");
    assert!(unreadable[0]["code"].is_null() && unreadable[0]["spans"].as_array().unwrap().is_empty());
    assert!(unreadable[0]["message"].as_str().unwrap().contains("cannot read no/such.method"));
    assert!(messages.iter().all(|m| m["file"] != "specs/quick.method"), "quick.method has no problem");
    // The summary's counts are the messages'.
    assert_eq!(summary["reason"], "check-finished");
    assert_eq!(summary["success"], false);
    assert_eq!(summary["files"], 3);
    assert_eq!(summary["unreadable"], 1);
    let errors = messages.iter().filter(|m| m["severity"] == "error" && !m["code"].is_null()).count();
    assert_eq!(summary["errors"], errors);
    assert_eq!(summary["warnings"], 0);

    // A good spec: only the summary.
    let out = methodic(&["check", "--message-format", "json", "specs/enterprise-sweep.method"]);
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["success"], true);
    assert_eq!(lines[0]["errors"], 0);

    // A warning passes, unless denied; the exit code follows.
    for (deny, code) in [(false, 0), (true, 1)] {
        let mut args = vec!["check", "--message-format", "json", "tests/errors/err_w_unused.method"];
        if deny {
            args.push("--deny-warnings");
        }
        let out = methodic(&args);
        assert_eq!(out.status.code(), Some(code));
        let lines = json_lines(&out.stdout);
        assert_eq!(lines[0]["severity"], "warning");
        assert_eq!(lines[0]["code"], "M0702");
        assert_eq!(lines[1]["warnings"], 1);
        assert_eq!(lines[1]["success"], !deny);
    }
}

#[test]
fn compile_writes_ron_to_stdout_and_json_or_files_on_request() {
    let out = methodic(&["compile", "specs/quick.method"]);
    assert!(out.status.success());
    let ron = text(&out.stdout);
    assert!(ron.starts_with("(\n  schema: 2,"), "{ron}");
    let golden = std::fs::read_to_string(root().join("golden/plan@quick.method.snap")).unwrap();
    assert!(golden.ends_with(&ron), "compile output differs from the golden plan");

    let out = methodic(&["compile", "specs/quick.method", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["methodology"]["name"], "quick");

    let dir = temp_dir("cli-compile");
    let plan = dir.join("quick.ron");
    let out = methodic(&["compile", "specs/quick.method", "-o", plan.to_str().unwrap(), "--capacity", "2TB"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("wrote"));
    let written = std::fs::read_to_string(&plan).unwrap();
    assert!(written.contains("capacity: Some(2000000000000)"), "{written}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file is left");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compile_of_a_bad_methodology_writes_nothing() {
    let dir = temp_dir("cli-bad");
    let plan = dir.join("out.ron");
    let out = methodic(&["compile", "tests/errors/err_split_sum.method", "-o", plan.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("[M0401]"));
    assert!(text(&out.stderr).contains("no plan written"));
    assert!(!plan.exists());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compile_reads_standard_input() {
    let src = std::fs::read_to_string(root().join("specs/quick.method")).unwrap();
    let out = methodic_stdin(&["compile", "-"], src.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("name: \"quick\""));
}

#[test]
fn plan_shows_steps_and_phases_with_totals() {
    let out = methodic(&["plan", "specs/enterprise-sweep.method"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.starts_with("enterprise-sweep version 1.0"), "{table}");
    for phase in ["4KiB random", "8KiB random", "128KiB sequential", "server mixes"] {
        assert!(table.contains(phase), "{phase} missing:\n{table}");
    }
    assert!(
        table.contains("7h 39min") && table.contains("27h 18min") && table.contains("50h 15min"),
        "{table}"
    );
    assert!(table.contains("4 steps depend on the device's speed"), "{table}");

    let out = methodic(&["plan", "specs/enterprise-sweep.method", "--capacity", "2TB"]);
    assert!(
        text(&out.stdout).contains("On a 2.0 TB target the plan writes 16.0 TB"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn plan_speaks_csv_and_json_lines() {
    let out = methodic(&["plan", "specs/quick.method", "--format", "csv"]);
    let csv = text(&out.stdout);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "#,step,what,qd,time,writes");
    assert_eq!(lines.len(), 1 + 10);
    let out = methodic(&["plan", "specs/quick.method", "--format", "json"]);
    let rows: Vec<serde_json::Value> =
        text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 10);
    assert_eq!(rows[0]["kind"], "erase");
    assert_eq!(rows[2]["time_max_ms"], 3000);
}

/// `--format` takes only the formats a command offers, names them when
/// refused, and `-o FILE` gets what standard output would have.
#[test]
fn format_is_chosen_by_name_and_output_goes_to_a_file_on_request() {
    let out = methodic(&["plan", "specs/quick.method", "--format", "html"]);
    assert_eq!(out.status.code(), Some(2));
    let e = text(&out.stderr);
    assert!(e.contains("'html'") && e.contains("table, csv, json"), "{e}");
    let dir = temp_dir("cli-format-output");
    let file = dir.join("steps.csv");
    let out = methodic(&["plan", "specs/quick.method", "--format", "csv", "-o", file.to_str().unwrap()]);
    assert!(out.status.success() && out.stdout.is_empty(), "{}", text(&out.stderr));
    let stdout = methodic(&["plan", "specs/quick.method", "--format", "csv"]).stdout;
    assert_eq!(std::fs::read(&file).unwrap(), stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plan_reads_a_compiled_plan_and_rejects_a_bad_one() {
    let dir = temp_dir("cli-plans");
    let good = dir.join("quick.ron");
    assert!(methodic(&["compile", "specs/quick.method", "-o", good.to_str().unwrap()]).status.success());
    let out = methodic(&["plan", good.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("measure/rnd4k_read-qd32"));

    let ron = std::fs::read_to_string(&good).unwrap();
    let old = dir.join("old.ron");
    std::fs::write(&old, ron.replacen("schema: 2", "schema: 7", 1)).unwrap();
    let out = methodic(&["plan", old.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("[M0601]"), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("schema version 7"));

    let edited = dir.join("edited.ron");
    std::fs::write(&edited, ron.replacen("total: 32, per_worker: 32", "total: 0, per_worker: 0", 1)).unwrap();
    let out = methodic(&["plan", edited.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("[M0501]"), "{}", text(&out.stderr));

    let garbage = dir.join("garbage.ron");
    std::fs::write(&garbage, "(schema: 1, steps: [)").unwrap();
    let out = methodic(&["plan", garbage.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("[M0603]"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fmt_check_then_fmt_then_check_again() {
    let dir = temp_dir("cli-fmt");
    let file = dir.join("messy.method");
    std::fs::write(&file, "methodology \"m\" version \"1\"\nworkload w {random;block 4KiB;read 0%} # keep me\nmeasure w qd 1 for 1s\n").unwrap();
    let path = file.to_str().unwrap();
    let out = methodic(&["fmt", "--check", path]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("is not formatted"));
    assert!(methodic(&["fmt", path]).status.success());
    let formatted = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        formatted,
        "methodology \"m\" version \"1\"\nworkload w { random; block 4KiB; read 0% } # keep me\nmeasure w qd 1 for 1s\n"
    );
    assert!(methodic(&["fmt", "--check", path]).status.success());
    let out = methodic(&["fmt", "--check", "tests/errors/err_syntax_typo_step.method"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("does not parse"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_goes_on_past_an_unreadable_file() {
    let out = methodic(&["check", "no/such.method", "tests/errors/err_split_sum.method"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("cannot read no/such.method"), "{err}");
    assert!(err.contains("[M0401]"), "the second file was not checked: {err}");
    assert!(err.contains("checked 1 file: 1 error, 0 warnings; 1 file could not be read"), "{err}");
}

#[test]
fn a_span_larger_than_the_capacity_is_refused() {
    let out = methodic(&["plan", "specs/kitguru-style.method", "--capacity", "8GB"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("[M0504]") && err.contains("12 steps"), "{err}");
    assert!(out.stdout.is_empty());
    assert!(methodic(&["plan", "specs/kitguru-style.method", "--capacity", "1.6TB"]).status.success());
}

#[test]
fn bad_command_lines_are_usage_errors() {
    let out = methodic(&["plan", "specs/quick.method", "--capacity", "2T"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("2TB"), "{}", text(&out.stderr));
    let out = methodic(&["compile", "no/such/file.method"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("error: cannot read no/such/file.method"), "{}", text(&out.stderr));
    let out = methodic(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Every input `run` takes, when wrong, gets an error that names it and a
/// non-zero exit, never a panic, and leaves nothing behind.
#[test]
fn run_refuses_bad_inputs_clearly_and_leaves_nothing() {
    let dir = temp_dir("cli-bad-run-inputs");
    std::fs::create_dir_all(dir.join("a-dir")).unwrap();
    std::fs::write(dir.join("binary.method"), b"\x00\xff\xfe").unwrap();
    std::fs::write(dir.join("empty.method"), "").unwrap();
    std::fs::write(dir.join("cut.ron"), "(schema: 1").unwrap();
    std::fs::write(dir.join("future.json"), "{\"schema\": 99}").unwrap();
    let d = |p: &str| dir.join(p).to_str().unwrap().to_string();
    let out = d("results");
    let cases: Vec<(Vec<String>, i32, &str)> = vec![
        (vec![d("missing.method")], 1, "cannot read"),
        (vec![d("a-dir")], 1, "Is a directory"),
        (vec![d("binary.method")], 1, "is not UTF-8 text"),
        (vec![d("empty.method")], 1, "the methodology has no header"),
        (vec![d("cut.ron")], 1, "not a readable plan"),
        (vec![d("future.json")], 1, "schema version 99"),
        (
            vec!["specs/quick.method".into(), "--target".into(), d("a-dir")],
            1,
            "is neither a regular file nor a block device",
        ),
        (vec!["specs/quick.method".into(), "--target".into(), d("missing.bin")], 1, "does not exist"),
        (vec!["specs/quick.method".into(), "--seed".into(), "abc".into()], 2, "invalid value 'abc'"),
        (vec!["--resume".into(), d("a-dir")], 1, "is not a methodic results directory"),
        (vec!["--resume".into(), d("missing")], 1, "does not exist"),
        (vec!["--resume".into(), d("a-dir"), "--seed".into(), "3".into()], 2, "cannot be used with"),
        (vec![], 2, "required"),
    ];
    for (args, code, says) in cases {
        let mut all = vec!["run".to_string()];
        all.extend(args.iter().cloned());
        if code == 1 && args.first().is_some_and(|a| a != "--resume") {
            all.extend(["--out".to_string(), out.clone()]);
        }
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let o = methodic(&refs);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{all:?}: {err}");
        assert!(err.contains(says), "{all:?} should say {says:?}: {err}");
        assert!(!err.contains("panicked"), "{all:?}: {err}");
        assert!(!Path::new(&out).exists(), "{all:?} left {out}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `-o` naming something that is not a regular file (a pipe here, as
/// `/dev/null` would be) is written into and left what it was: the
/// write-then-rename that keeps a file whole would, as root, have put a
/// regular file in place of /dev/null.
#[test]
fn output_into_a_pipe_writes_into_it_and_leaves_it_a_pipe() {
    use std::os::unix::fs::FileTypeExt;
    let dir = temp_dir("cli-fifo");
    let fifo = dir.join("out");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", fifo.display());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(&fifo).unwrap())
    };
    let o = methodic(&["compile", "specs/quick.method", "-o", fifo.to_str().unwrap()]);
    // Checked before waiting on the reader: had the pipe been replaced,
    // the reader would wait on it for ever.
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo(), "the pipe is still a pipe");
    let written = reader.join().unwrap();
    assert!(written.contains("quick"), "the plan went into the pipe: {written}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_of_workloads_is_used_from_the_folder_of_the_file_that_uses_it() {
    let dir = temp_dir("use-file");
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::write(
        dir.join("lib/specs.method"),
        "methodology \"specs\" version \"1\"\nworkload spec_db { random; block 8KiB; read 67% }\n",
    )
    .unwrap();
    let main = dir.join("main.method");
    std::fs::write(
        &main,
        "methodology \"m\" version \"1\"\nuse \"lib/specs.method\"\nmeasure spec_db qd 4 for 1s\n",
    )
    .unwrap();
    // From another working folder: the path is the using file's.
    let o = methodic(&["check", main.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = methodic(&["compile", main.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let ron = text(&o.stdout);
    assert!(ron.contains("used_files: [") && ron.contains("path: \"lib/specs.method\""), "{ron}");
    std::fs::remove_file(dir.join("lib/specs.method")).unwrap();
    let o = methodic(&["check", main.to_str().unwrap()]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot read `lib/specs.method`") && err.contains("M0203"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
