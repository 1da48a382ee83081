//! `methodic run` end to end on scratch files: every spec of the library
//! compiles to a rehearsal plan that validates, the fewest specs that use
//! every feature any spec uses rehearse to completion, results directories
//! hold what they promise, and --format json prints nothing but JSON;
//! and on many hosts through fio's servers (`run/hosts.rs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use methodic_compiler::plan::{Action, Percent, Plan};

use crate::common::{self, methodic, root, text};

#[path = "run/hosts.rs"]
mod hosts;

/// Every spec of the library, by its path.
fn specs() -> Vec<PathBuf> {
    let mut specs: Vec<PathBuf> = std::fs::read_dir(root().join("specs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "method"))
        .collect();
    specs.sort();
    specs
}

/// What a plan asks of the runtime, in words: its kinds of step, how they
/// stop, the shapes of their workloads and targets, repeats, sweeps, and
/// the conventions its results are reported in. A spec rehearsed end to
/// end runs each of its features.
fn features(plan: &Plan) -> BTreeSet<String> {
    use methodic_compiler::plan::{
        DataPattern, EraseMethod, Extent, IoMode, OnError, PreconditionStop, Units, ValueKind,
    };
    let mut f = BTreeSet::new();
    let c = &plan.conventions;
    f.insert(format!("units {}", if c.units == Units::Binary { "binary" } else { "decimal" }));
    f.insert(format!(
        "value {}",
        match c.value {
            ValueKind::StepAverage => "step average",
            ValueKind::SteadyStateAverage => "steady-state average",
            ValueKind::Peak => "peak",
        }
    ));
    if plan.methodology.on_error == OnError::Continue {
        f.insert("on_error continue".into());
    }
    for step in &plan.steps {
        f.insert(format!("step {}", step.action.kind()));
        let t = step.target.unwrap_or(plan.target);
        f.insert(if t.io == IoMode::Direct { "direct I/O" } else { "buffered I/O" }.into());
        f.insert(
            match t.data {
                DataPattern::Random => "random data",
                DataPattern::Zeros => "zeros",
                DataPattern::Compressible(_) => "compressible data",
            }
            .into(),
        );
        if !matches!(t.span, Extent::Percent(p) if p == Percent::HUNDRED) {
            f.insert("a span less than the target".into());
        }
        if t.devices > 1 {
            f.insert("several devices".into());
        }
        if step.repeat.is_some() {
            f.insert("repeated steps".into());
        }
        if step.sweep.is_some() {
            f.insert("sweeps".into());
        }
        let share = |p: Percent, none: &'static str, all: &'static str, some: &'static str| {
            if p == Percent::ZERO {
                none
            } else if p == Percent::HUNDRED {
                all
            } else {
                some
            }
        };
        let depths: Vec<u32> = match &step.action {
            Action::Fill { qd, .. } | Action::Precondition { qd, .. } | Action::Measure { qd, .. } => {
                vec![qd.workers]
            }
            Action::Rounds { cells, .. } => cells.iter().map(|c| c.qd.workers).collect(),
            _ => Vec::new(),
        };
        if depths.iter().any(|w| *w > 1) {
            f.insert("several workers".into());
        }
        for w in step.action.workloads() {
            f.insert(share(w.random, "sequential I/O", "random I/O", "partly random I/O").into());
            f.insert(share(w.read, "writes", "reads", "mixed reads and writes").into());
            if w.blocks.len() > 1 {
                f.insert("several block sizes".into());
            }
            if w.align.0 != 0 || w.offset.0 != 0 {
                f.insert("aligned or offset I/O".into());
            }
        }
        match &step.action {
            Action::Erase { method } => {
                f.insert(if *method == EraseMethod::Secure { "secure erase" } else { "discard" }.into());
            }
            Action::Precondition { stop, .. } => {
                f.insert(match stop {
                    PreconditionStop::Time(_) => "precondition for a time".into(),
                    PreconditionStop::Steady { .. } => "precondition until steady".into(),
                });
            }
            Action::Measure { ramp, stop, .. } => {
                if !ramp.is_zero() {
                    f.insert("measure with a ramp".into());
                }
                f.insert(match (stop.time.is_some(), stop.written.is_some()) {
                    (true, true) => "measure for a time or until written".into(),
                    (false, true) => "measure until written".into(),
                    _ => "measure for a time".into(),
                });
            }
            Action::Rounds { cells, .. } if cells.len() > 1 => {
                f.insert("rounds of several measurements".into());
            }
            _ => {}
        }
    }
    f
}

/// Every spec at the plan level (it compiles, and its rehearsal plan
/// validates, keeps every step and fits the rehearsal's time), and end to
/// end the fewest specs that together use every feature any spec uses
/// ([`features`]): rehearsing each of the others would run nothing those
/// do not, at a minute of the machine for the lot. A spec that brings
/// something new is rehearsed from then on, chosen here.
#[test]
fn every_spec_rehearses_to_completion() {
    let mut plans = Vec::new();
    for spec in specs() {
        let name = spec.file_stem().unwrap().to_string_lossy().to_string();
        let plan = methodic_compiler::compile(&std::fs::read_to_string(&spec).unwrap(), &Default::default())
            .unwrap_or_else(|d| panic!("{name}: {d}"))
            .plan;
        let rehearsal = methodic_runtime::rehearse(&plan, false);
        let problems = methodic_compiler::validate(&rehearsal);
        assert!(problems.is_empty(), "{name}: the rehearsal plan: {problems}");
        assert_eq!(rehearsal.steps.len(), plan.steps.len(), "{name}");
        assert!(
            rehearsal.estimate.time.max.as_millis() <= 30_000,
            "{name}: {}",
            rehearsal.estimate.time.human()
        );
        // What a rehearsal costs: its steps' time, and about a quarter
        // second for what each step, or each measurement of a round, does
        // besides (a debug build).
        let records: u64 = rehearsal
            .steps
            .iter()
            .map(|s| match &s.action {
                Action::Rounds { cells, rule, .. } => cells.len() as u64 * rule.max_rounds as u64,
                _ => 1,
            })
            .sum();
        let cost = rehearsal.estimate.time.max.as_secs_f64() + 0.25 * records as f64;
        plans.push((spec, name, features(&plan), cost));
    }
    let mut uncovered: BTreeSet<String> = plans.iter().flat_map(|p| p.2.iter().cloned()).collect();
    let mut chosen = Vec::new();
    while !uncovered.is_empty() {
        // The spec that covers the most of what is left for its cost.
        let (spec, name, new, cost) = plans
            .iter()
            .map(|(spec, name, f, cost)| {
                (spec, name, f, *cost, f.intersection(&uncovered).count() as f64 / cost)
            })
            .max_by(|a, b| a.4.total_cmp(&b.4).then_with(|| b.1.cmp(a.1)))
            .map(|(spec, name, f, cost, _)| {
                (spec, name, f.intersection(&uncovered).cloned().collect::<Vec<_>>(), cost)
            })
            .unwrap();
        eprintln!("rehearsing {name} for {}", new.join(", "));
        for f in &new {
            uncovered.remove(f);
        }
        chosen.push((spec.clone(), cost));
    }
    // Four at a time, the longest first: a rehearsal mostly waits on its
    // steps' timers, so the specs share the machine's two cores without
    // slowing each other much.
    chosen.sort_by(|a, b| a.1.total_cmp(&b.1));
    let queue = std::sync::Mutex::new(chosen.into_iter().map(|(spec, _)| spec).collect::<Vec<_>>());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                while let Some(spec) = { queue.lock().unwrap().pop() } {
                    rehearse_spec(&spec);
                }
            });
        }
    });
}

/// Rehearses `spec` (once for all test binaries: [`common::rehearsal`])
/// and checks its results and report.
fn rehearse_spec(spec: &Path) {
    {
        let name = spec.file_stem().unwrap().to_string_lossy().to_string();
        let started = std::time::Instant::now();
        // No host ceiling: the quick rehearsal below measures it.
        let out = common::rehearsal(&name);
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report["status"], "completed", "{name}");
        assert_eq!(report["rehearsal"], true, "{name}");
        let plan_steps =
            methodic_compiler::compile(&std::fs::read_to_string(spec).unwrap(), &Default::default())
                .unwrap()
                .plan
                .steps
                .len();
        // A repeat `until cv` whose runs agreed early passes over its
        // later runs (how many depends on the spread the rehearsal met):
        // those steps are `skipped` in the manifest, with no record.
        use methodic_results::manifest::StepStatus;
        let loaded = methodic_results::manifest::load(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        let skipped = loaded.manifest.steps.iter().filter(|s| s.status == StepStatus::Skipped).count();
        let ran = plan_steps - skipped;
        let steps = report["steps"].as_array().unwrap();
        assert_eq!(steps.len(), ran, "{name}: {skipped} skipped");
        assert!(steps.iter().all(|s| s["rehearsal"] == true && s["error"].is_null()), "{name}");
        let lines = std::fs::read_to_string(out.join("steps.jsonl")).unwrap().lines().count();
        assert_eq!(lines, ran, "{name}: steps.jsonl");
        assert!(!out.join("scratch.bin").exists(), "{name}: the scratch file is removed");
        // The manifest reads back, every step finished (or passed over as
        // above); the report renders.
        assert_eq!(loaded.manifest.status, methodic_results::record::Status::Completed, "{name}");
        assert!(
            loaded.manifest.steps.iter().all(|s| s.status == StepStatus::Completed
                || (s.status == StepStatus::Skipped && s.skipped.is_some())),
            "{name}"
        );
        let o = methodic(&["report", out.to_str().unwrap(), "--format", "html"]);
        assert!(o.status.success(), "{name}: {}", text(&o.stderr));
        assert!(text(&o.stdout).contains("</html>"), "{name}");
        // How long each took is printed, not asserted: tests make no timing
        // claims (bench/ measures speed).
        eprintln!("{name}: rehearsed (or read) in {:.1}s", started.elapsed().as_secs_f64());
    }
}

#[test]
fn a_run_leaves_its_results_and_prints_a_table() {
    let out = common::temp_path("table-quick");
    let o = methodic(&["run", "--rehearse", "specs/quick.method", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let table = text(&o.stdout);
    assert!(table.starts_with("REHEARSAL"), "{table}");
    assert!(
        table.contains("measure/rnd4k_read-qd32") && table.contains("io_uring 1x32")
            || table.contains("psync"),
        "{table}"
    );
    assert!(table.contains(&format!("results in {}", out.display())), "{table}");
    for f in ["plan.ron", "rehearsal-plan.ron", "methodology.method", "steps.jsonl", "results.json"] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let csv = std::fs::read_to_string(out.join("series/measure/rnd4k_read-qd32.csv")).unwrap();
    assert!(csv.starts_with("t_s,iops,"), "{csv}");
    // results.json names the manifest and does not repeat what it holds.
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["manifest"], "manifest.json");
    for repeated in ["tool", "seed", "started", "engine", "targets"] {
        assert!(results.get(repeated).is_none(), "results.json repeats the manifest's {repeated}");
    }
    assert_eq!(results["steps"].as_array().unwrap().len(), 10, "every step of quick.method: {results}");
    let err = text(&o.stderr);
    assert!(err.contains("[3] measure/rnd4k_read-qd1:"), "progress lines on stderr: {err}");
    // The same directory again is refused, not overwritten.
    let again = methodic(&["run", "--rehearse", "specs/quick.method", "--out", out.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(1));
    assert!(text(&again.stderr).contains("already holds results"), "{}", text(&again.stderr));
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_missing_target_is_a_clear_error() {
    let out = common::temp_path("run-missing");
    let o = methodic(&[
        "run",
        "specs/quick.method",
        "--target",
        "/no/such/device",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("/no/such/device: does not exist"), "{err}");
    assert!(!out.exists(), "a run that cannot start leaves no results directory");
}

/// A child process killed (and reaped) when dropped, however the test ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A methodology that writes through the page cache, so that no O_DIRECT
/// refusal comes first; in `dir`.
fn buffered_writes(dir: &Path) -> PathBuf {
    let method = dir.join("buffered.method");
    std::fs::write(
        &method,
        "methodology \"b\" version \"1\"\ntarget { io buffered }\n\
         measure { random; block 4KiB; read 0% } qd 1 for 1s\n",
    )
    .unwrap();
    method
}

/// `methodic run METHOD --target TARGET --overwrite` is refused because
/// TARGET is on `fs`, before anything runs: exit 1, the refusal and its
/// hint said, no results directory, the target as it was.
fn refused_as_kernel_file(dir: &Path, method: &Path, target: &Path, fs: &str) {
    let before = std::fs::read(target).unwrap();
    let out = dir.join("results");
    let o = methodic(&[
        "run",
        method.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
        "--overwrite",
        "--no-ceiling",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let words = format!(
        "refusing to write to {}: it is on {fs}, one of the kernel's own file systems",
        target.display()
    );
    assert!(err.contains(&words), "{err}");
    assert!(err.contains("--overwrite and --destroy do not lift this"), "{err}");
    assert!(!out.exists(), "a refused run leaves no results directory");
    assert_eq!(std::fs::read(target).unwrap(), before, "{} changed", target.display());
}

/// A file on procfs or sysfs is the kernel's state, and a write to it a
/// command (renaming a process, sending a device event): never a target,
/// whatever --overwrite says. Refused for a direct-I/O methodology (the
/// README's quick one) and a buffered one alike.
#[test]
fn a_target_on_procfs_or_sysfs_is_refused_whatever_overwrite_says() {
    let dir = common::temp_path("run-kernel-files");
    std::fs::create_dir_all(&dir).unwrap();
    let buffered = buffered_writes(&dir);
    let sleeper = Killed(std::process::Command::new("sleep").arg("600").spawn().unwrap());
    let comm = PathBuf::from(format!("/proc/{}/comm", sleeper.0.id()));
    // Until the child has exec'd, its comm is the test thread's name: wait
    // for `sleep` (the exec is a matter of milliseconds; the bound only
    // keeps a broken spawn from hanging the test).
    for _ in 0..1000 {
        if std::fs::read_to_string(&comm).is_ok_and(|c| c == "sleep\n") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(std::fs::read_to_string(&comm).unwrap(), "sleep\n", "the sleeper started");
    let uevent = Path::new("/sys/devices/virtual/mem/null/uevent");
    for (target, fs) in [(comm.as_path(), "procfs"), (uevent, "sysfs")] {
        for method in [root().join("specs/quick.method"), buffered.clone()] {
            refused_as_kernel_file(&dir, &method, target, fs);
        }
    }
    assert_eq!(std::fs::read_to_string(&comm).unwrap(), "sleep\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The refusal asks the file's file system, not its path: a sysfs file
/// bind-mounted over a file in the temporary folder is refused as sysfs,
/// and the file under the mount is untouched.
#[test]
fn a_sysfs_file_bind_mounted_elsewhere_is_refused_too() {
    if !common::require_root("bind-mounting a sysfs file") || !common::require_tool("mount") {
        return;
    }
    let dir = common::temp_path("run-kernel-bind");
    std::fs::create_dir_all(&dir).unwrap();
    let buffered = buffered_writes(&dir);
    let file = dir.join("disk.img");
    std::fs::write(&file, vec![7u8; 1 << 20]).unwrap();
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
        }
    }
    let mounted = std::process::Command::new("mount")
        .args(["--bind", "/sys/devices/virtual/mem/null/uevent"])
        .arg(&file)
        .status()
        .unwrap();
    assert!(mounted.success(), "mount --bind");
    let bind = Unmount(file.clone());
    refused_as_kernel_file(&dir, &buffered, &file, "sysfs");
    drop(bind);
    assert_eq!(std::fs::read(&file).unwrap(), vec![7u8; 1 << 20], "the file under the mount is untouched");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// --pin pins each worker to one of the CPUs the process may use: under a
/// mask of the last CPU alone (what taskset or a cgroup sets), both
/// workers' masks are that CPU, not CPU 0 and 1 as when --pin counted from 0.
#[test]
fn pin_keeps_every_worker_within_the_cpus_the_process_may_use() {
    let allowed = methodic_runtime::allowed_cpus();
    let Some(&last) = allowed.last().filter(|_| allowed.len() >= 2) else {
        common::skip(
            "fewer than two CPUs, so no mask leaves one out",
            "run on a machine with two or more CPUs",
        );
        return;
    };
    let dir = common::temp_path("run-pin");
    std::fs::create_dir_all(&dir).unwrap();
    let method = dir.join("two.method");
    std::fs::write(
        &method,
        "methodology \"two\" version \"1\"\ntarget { span 64MiB; io buffered; workers 2 }\n\
         measure { random; block 4KiB; read 100% } qd 2 for 10min\n",
    )
    .unwrap();
    let out = dir.join("results");
    let args = ["run", method.to_str().unwrap(), "--pin", "--no-ceiling", "--out", out.to_str().unwrap()];
    let mut command = common::command(&args);
    command.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    // SAFETY: the closure runs in the child between fork and exec and only fills a cpu_set_t on its
    // stack (all zeroes is a valid, empty mask) and calls sched_setaffinity with it and its size,
    // which is async-signal-safe and allocates nothing.
    unsafe {
        use std::os::unix::process::CommandExt;
        command.pre_exec(move || {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(last, &mut set);
            match libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let child = Killed(command.spawn().expect("methodic starts"));
    // A series row means every worker has started, and pinned itself first.
    let rows = || {
        walk(&out.join("series"))
            .iter()
            .any(|p| std::fs::read_to_string(p).is_ok_and(|csv| csv.lines().count() >= 2))
    };
    let mut waited = 0;
    while !rows() {
        assert!(waited < 1200, "no series row in 2 minutes");
        std::thread::sleep(std::time::Duration::from_millis(100));
        waited += 1;
    }
    let tasks = std::fs::read_dir(format!("/proc/{}/task", child.0.id())).unwrap();
    let mut masks = Vec::new();
    for task in tasks.map(|t| t.unwrap().path()) {
        if std::fs::read_to_string(task.join("comm")).is_ok_and(|c| c.starts_with("methodic-worke")) {
            let status = std::fs::read_to_string(task.join("status")).unwrap();
            let mask = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap();
            masks.push(mask.trim().to_string());
        }
    }
    drop(child);
    assert_eq!(masks, [last.to_string(), last.to_string()], "the workers' CPUs under a mask of CPU {last}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every file under `dir`, however deep.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files = Vec::new();
    for p in entries.map(|e| e.unwrap().path()) {
        if p.is_dir() { files.extend(walk(&p)) } else { files.push(p) }
    }
    files
}

/// SIGTERM (and SIGINT) stop a run: the step in flight is recorded as
/// interrupted with its partial numbers, the manifest says interrupted and
/// by what, later steps stay pending, and the exit code is 128 + the signal.
#[test]
fn a_signal_stops_the_run_and_keeps_the_step_in_flight() {
    for (sig, name, code) in [("TERM", "SIGTERM", 143), ("INT", "SIGINT", 130)] {
        let dir = common::temp_path(&format!("run-signal-{sig}"));
        std::fs::create_dir_all(&dir).unwrap();
        let method = dir.join("long.method");
        std::fs::write(
            &method,
            "methodology \"long\" version \"1\"\ntarget { span 64MiB }\n\
             workload r { random; block 4KiB; read 100% }\nmeasure r qd 4 for 60s\nmeasure r qd 8 for 60s\n",
        )
        .unwrap();
        let out = dir.join("results");
        let child =
            common::spawn(&["run", method.to_str().unwrap(), "--out", out.to_str().unwrap(), "--no-ceiling"]);
        // Wait until the first step is running (the manifest says so).
        for _ in 0..200 {
            let running = std::fs::read_to_string(out.join("manifest.json"))
                .is_ok_and(|m| m.contains("\"status\": \"running\",\n      \"started\""));
            if running {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
        let killed =
            std::process::Command::new("kill").args([&format!("-{sig}"), &child.id().to_string()]).status();
        assert!(killed.unwrap().success());
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(code), "{name}: {}", text(&o.stderr));
        assert!(text(&o.stderr).contains(&format!("interrupted by {name}")), "{}", text(&o.stderr));
        let loaded = methodic_results::manifest::load(&out).unwrap();
        assert_eq!(loaded.manifest.status, methodic_results::record::Status::Interrupted);
        assert_eq!(loaded.manifest.error.as_deref(), Some(format!("interrupted by {name}").as_str()));
        use methodic_results::manifest::StepStatus;
        let statuses: Vec<StepStatus> = loaded.manifest.steps.iter().map(|s| s.status).collect();
        assert_eq!(statuses, [StepStatus::Interrupted, StepStatus::Pending]);
        let step = &loaded.steps[0];
        let partial = step.summary.as_ref().expect("the partial numbers of the step in flight");
        assert!(partial.total.ios > 0 && partial.seconds < 60.0, "{partial:?}");
        assert_eq!(step.error.as_deref(), Some(format!("interrupted by {name}").as_str()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A measurement with a time limit that ends by its byte budget first
/// reports its rates over the time it ran, not over the limit.
#[test]
fn a_step_ended_by_its_budget_reports_rates_over_the_time_it_ran() {
    let out = common::run_source(
        "budget",
        "methodology \"tw\" version \"1\"\ntarget { span 64MiB }\n\
         workload w { sequential; block 1MiB; read 0% }\nmeasure w qd 4 for 10min until written 128MiB\n",
        &["--no-ceiling"],
    );
    let loaded = methodic_results::manifest::load(&out).unwrap();
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
    let step = &loaded.steps[0];
    let s = step.summary.as_ref().unwrap();
    assert_eq!(step.io.as_ref().unwrap().bytes_written, 128 << 20);
    assert!(s.seconds < 600.0, "the budget ended it: {}", s.seconds);
    let implied = s.total.mb_s * 1e6 * s.seconds;
    assert!((implied / s.total.bytes as f64 - 1.0).abs() < 0.01, "rate x time = bytes: {s:?}");
}

/// A file given as --target that methodic did not create is not written
/// over without --overwrite (and is left as it was); a scratch file methodic
/// kept is its own; a plan that claims non_destructive but writes is refused.
#[test]
fn existing_files_are_written_only_with_consent() {
    let dir = common::temp_path("run-overwrite");
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("mine.bin");
    let before: Vec<u8> = (0..4u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(&target, &before).unwrap();
    let method = dir.join("w.method");
    std::fs::write(
        &method,
        "methodology \"w\" version \"1\"\ntarget { io buffered }\n\
         workload w { random; block 4KiB; read 0% }\nmeasure w qd 1 for 200ms\n",
    )
    .unwrap();
    let run_on = |out: &str, extra: &[&str]| {
        let out = dir.join(out);
        let mut args =
            vec!["run", method.to_str().unwrap(), "--target", target.to_str().unwrap(), "--no-ceiling"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--out", out.to_str().unwrap()]);
        (methodic(&args), out)
    };
    let (o, out) = run_on("refused", &[]);
    assert_eq!(o.status.code(), Some(1));
    let e = text(&o.stderr);
    assert!(e.contains("existing file methodic did not create") && e.contains("--overwrite"), "{e}");
    assert_eq!(std::fs::read(&target).unwrap(), before, "not one byte changed");
    assert!(!out.exists(), "a run that cannot start leaves nothing behind");
    let (o, _) = run_on("consented", &["--overwrite"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_ne!(std::fs::read(&target).unwrap(), before, "written with consent");

    // A kept scratch file carries methodic's mark (where the file system
    // has user xattrs) and needs no consent. Its smallest size: unlinking a
    // 1GiB file whose pages are still being written back took from 7 to 30
    // seconds here.
    let small = dir.join("small.method");
    std::fs::write(
        &small,
        "methodology \"w\" version \"1\"\ntarget { io buffered; span 64MiB }\n\
         workload w { random; block 4KiB; read 0% }\nmeasure w qd 1 for 200ms\n",
    )
    .unwrap();
    let kept = dir.join("kept");
    let o = methodic(&[
        "run",
        small.to_str().unwrap(),
        "--keep-scratch",
        "--no-ceiling",
        "--out",
        kept.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let scratch = kept.join("scratch.bin");
    if common::require_tool("getfattr") {
        let m = std::process::Command::new("getfattr").arg("-n").arg("user.methodic").arg(&scratch).output();
        let m = m.expect("getfattr runs");
        if m.status.success() && text(&m.stdout).contains("scratch") {
            let again = dir.join("again");
            let o = methodic(&[
                "run",
                small.to_str().unwrap(),
                "--target",
                scratch.to_str().unwrap(),
                "--no-ceiling",
                "--out",
                again.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{}", text(&o.stderr));
        } else if takes_user_xattrs(&dir) {
            panic!("the kept {} carries no mark: {}", scratch.display(), text(&m.stderr));
        } else {
            common::skip(
                &format!("{} takes no user xattrs, so a kept scratch file carries no mark", dir.display()),
                "set TMPDIR to a folder on ext4, xfs or btrfs",
            );
        }
    }

    // A plan edited to claim non_destructive while it writes.
    let plan = dir.join("w.ron");
    assert!(methodic(&["compile", method.to_str().unwrap(), "-o", plan.to_str().unwrap()]).status.success());
    let ron =
        std::fs::read_to_string(&plan).unwrap().replace("non_destructive: false", "non_destructive: true");
    std::fs::write(&plan, ron).unwrap();
    let bad = dir.join("bad");
    let o = methodic(&["run", plan.to_str().unwrap(), "--out", bad.to_str().unwrap(), "--no-ceiling"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("non_destructive"), "{}", text(&o.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Whether the file system holding `dir` takes user xattrs (a file made
/// there can carry one).
fn takes_user_xattrs(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let probe = dir.join("xattr-probe");
    std::fs::write(&probe, b"").unwrap();
    let c = std::ffi::CString::new(probe.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` and the name are NUL-terminated strings alive for the call; the value is 1 byte,
    // as the length says.
    let rc = unsafe { libc::setxattr(c.as_ptr(), c"user.probe".as_ptr(), b"1".as_ptr().cast(), 1, 0) };
    std::fs::remove_file(&probe).unwrap();
    rc == 0
}

/// A results directory on a file system without room for the run (a 8MiB
/// tmpfs; a rehearsal's scratch file is 128MiB), on a read-only one, or
/// given as a file, is refused before anything is made, saying why.
#[test]
fn a_results_directory_without_room_or_write_access_is_refused_up_front() {
    if !common::require_root("mounting a small tmpfs") {
        return;
    }
    let dir = common::temp_path("run-space");
    std::fs::create_dir_all(&dir).unwrap();
    struct Mounts(Vec<PathBuf>);
    impl Drop for Mounts {
        fn drop(&mut self) {
            for m in &self.0 {
                let _ = std::process::Command::new("umount").arg(m).status();
            }
        }
    }
    let mut mounts = Mounts(Vec::new());
    for (name, options) in [("small", "size=8m"), ("ro", "ro,size=512m")] {
        let m = dir.join(name);
        std::fs::create_dir_all(&m).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(&m)
            .status();
        assert!(ok.unwrap().success(), "mount {name}");
        mounts.0.push(m);
    }
    let run = |out: &Path| {
        let o = methodic(&["run", "specs/quick.method", "--rehearse", "--out", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1));
        assert!(!out.exists() || out.is_file(), "nothing made at {}", out.display());
        text(&o.stderr)
    };
    let err = run(&dir.join("small/results"));
    assert!(
        err.contains("its file system has 8.0 MiB free") && err.contains("the scratch file 128.0 MiB"),
        "{err}"
    );
    assert!(std::fs::read_dir(dir.join("small")).unwrap().next().is_none(), "the small tmpfs is left empty");
    let err = run(&dir.join("ro/results"));
    assert!(err.contains("is on a read-only file system"), "{err}");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let err = run(&file);
    assert!(err.contains("is a file, not a directory"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
    drop(mounts);
    std::fs::remove_dir_all(&dir).unwrap();
}
