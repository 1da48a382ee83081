//! `methodic run --resume`: a run killed at random points (SIGKILL, no
//! chance to clean up) keeps every step it recorded, whole, and resumes to
//! the end with the same plan; a resume refuses a finished run, another
//! plan, another target and a run that is still going.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use common::{methodic, spawn, text};
use methodic_results::manifest::{self, StepStatus};
use methodic_results::record::Status;

/// Waits until the run has written its manifest (it can be resumed from
/// then on).
fn wait_for_manifest(dir: &Path) {
    let t0 = Instant::now();
    while !dir.join("manifest.json").exists() && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(dir.join("manifest.json").exists(), "the run never wrote its manifest");
}

/// Every whole line of a JSONL file, with a superseded record's series
/// path put back where it was before the resume moved it aside.
fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| unmoved(&unmoved(l, "series"), "latency_log"))
        .collect()
}

/// `line` with its `field` path as it was before a resume moved it aside
/// (`superseded/N/series/...` back to `series/...`).
fn unmoved(line: &str, field: &str) -> String {
    let moved = format!("\"{field}\":\"superseded/");
    match line.find(&moved) {
        Some(at) => {
            let rest = &line[at + moved.len()..];
            let after = rest.find('/').map_or(rest, |k| &rest[k + 1..]);
            format!("{}\"{field}\":\"{after}", &line[..at])
        }
        None => line.to_string(),
    }
}

/// xorshift, seeded from the clock (printed, to replay a failure).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A rehearsal of the enterprise sweep (101 steps, preconditions in every
/// phase) is killed with SIGKILL 12 times at random points, each time
/// resumed; after every kill each recorded step is whole and parses, and no
/// record made before is lost (a resume moves the records of steps it runs
/// again to superseded.jsonl). The last resume completes the run with the
/// plan hash it started with.
#[test]
fn a_run_killed_at_random_points_resumes_to_the_end() {
    // Each kill is one more random point; 6 reach into most phases of the
    // rehearsal (about 7 seconds of steps) without waiting out the rest.
    const KILLS: u32 = 6;
    let dir = common::temp_dir("resume-crash");
    let out = dir.join("results");
    let out_s = out.to_str().unwrap().to_string();
    let seed =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    println!("kill points seeded with {seed}");
    let mut rng = Rng(seed);
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut plan_hash = None;
    let mut kills = 0;
    let mut attempts = 0;
    while kills < KILLS {
        attempts += 1;
        assert!(attempts < 60, "the run makes no progress between kills");
        let mut child = if attempts == 1 {
            spawn(&["run", "specs/enterprise-sweep.method", "--rehearse", "--no-ceiling", "--out", &out_s])
        } else {
            spawn(&["run", "--resume", &out_s])
        };
        if attempts == 1 {
            wait_for_manifest(&out);
        }
        // Somewhere in the next 0.05 to 1.25 seconds.
        let delay = Duration::from_millis(50 + rng.next() % 1200);
        let t0 = Instant::now();
        let mut ended = None;
        while t0.elapsed() < delay {
            if let Some(status) = child.try_wait().unwrap() {
                ended = Some(status);
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        if ended.is_none() {
            child.kill().unwrap();
            child.wait().unwrap();
            kills += 1;
        } else {
            let o = child.wait_with_output().unwrap();
            assert!(o.status.success(), "a resume failed: {}", text(&o.stderr));
        }

        // The manifest is whole (it is replaced atomically) and keeps its plan.
        let m = manifest::read_manifest(&out.join("manifest.json")).expect("the manifest is whole");
        assert_eq!(plan_hash.get_or_insert(m.methodology.plan_hash.clone()), &m.methodology.plan_hash);
        // Each recorded step is whole and is the plan's step at its index.
        let steps = manifest::read_steps(&out.join("steps.jsonl")).expect("every record is whole");
        for (k, s) in steps.iter().enumerate() {
            assert_eq!(s.index, k + 1, "records are in plan order");
            assert_eq!(m.plan.steps[k].id, s.id);
        }
        // Nothing recorded before is lost.
        let now: BTreeSet<String> =
            lines(&out.join("steps.jsonl")).into_iter().chain(lines(&out.join("superseded.jsonl"))).collect();
        let lost: Vec<&String> = seen.difference(&now).collect();
        assert!(lost.is_empty(), "records lost after kill {kills}: {lost:?}");
        seen = now;
        if m.status == Status::Completed {
            break;
        }
    }
    if kills < KILLS {
        println!("the run completed after {kills} kills");
    }
    let o = methodic(&["run", "--resume", &out_s]);
    let m = manifest::load(&out).unwrap();
    if m.manifest.status != Status::Completed {
        assert!(o.status.success(), "the last resume: {}", text(&o.stderr));
    }
    let m = manifest::load(&out).unwrap();
    assert_eq!(m.manifest.status, Status::Completed);
    assert_eq!(Some(&m.manifest.methodology.plan_hash), plan_hash.as_ref());
    assert!(m.manifest.steps.iter().all(|s| s.status == StepStatus::Completed));
    assert_eq!(m.steps.len(), m.manifest.plan.steps.len());
    assert!(!m.manifest.resumed.is_empty());
    // The results read as any others.
    let r = methodic(&["report", &out_s, "--format", "json"]);
    assert!(r.status.success(), "{}", text(&r.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Three steps; the second is the one a signal cuts off. It runs long
/// enough that the signal, sent as soon as the manifest says the step is
/// running, lands in it however loaded the machine; a resume runs it again
/// whole, so it is not longer than that.
const SHORT: &str = "methodology \"short\" version \"1\"\ntarget { span 64MiB }\n\
                     workload r { random; block 4KiB; read 100% }\n\
                     measure r qd 1 for 200ms\nmeasure r qd 4 for 3s\nmeasure r qd 8 for 200ms\n";

/// Starts SHORT in `dir`: the run, its methodology and its results folder,
/// once the run has written its manifest.
fn start_short(dir: &Path) -> (Child, PathBuf, PathBuf) {
    let method = dir.join("short.method");
    std::fs::write(&method, SHORT).unwrap();
    let out = dir.join("results");
    let child = spawn(&["run", method.to_str().unwrap(), "--no-ceiling", "--out", out.to_str().unwrap()]);
    wait_for_manifest(&out);
    (child, method, out)
}

/// Waits until the manifest in `out` says the second step is running, and
/// sends `signal` to the run at once.
fn signal_in_step_2(child: &Child, out: &Path, signal: libc::c_int) {
    let t0 = Instant::now();
    loop {
        // The manifest is replaced whole, so it reads whole or not at all.
        let m = manifest::read_manifest(&out.join("manifest.json"));
        if m.is_ok_and(|m| m.steps[1].status == StepStatus::Running) {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "the second step never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: kill takes numbers only; `child` has not been waited for, so its pid is still its
    // own.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0, "the signal was sent");
}

/// A run still going cannot be resumed; stopped by SIGTERM, it keeps its
/// scratch file and goes on from the step that was cut off, the cut-off
/// record moved to superseded.jsonl; a finished run is not resumed again.
#[test]
fn a_stopped_run_goes_on_from_the_step_cut_off() {
    let dir = common::temp_dir("resume-term");
    let (child, _, out) = start_short(&dir);
    let out_s = out.to_str().unwrap();
    // Still going: the run holds its results folder from before the
    // manifest until it ends, 3 seconds later at the soonest.
    let busy = methodic(&["run", "--resume", out_s]);
    assert_eq!(busy.status.code(), Some(1));
    assert!(
        text(&busy.stderr).contains("is in use: a methodic run is still writing to it"),
        "{}",
        text(&busy.stderr)
    );
    signal_in_step_2(&child, &out, libc::SIGTERM);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(143));
    let err = text(&o.stderr);
    assert!(err.contains(&format!("go on with `methodic run --resume {out_s}`")), "{err}");
    assert!(out.join("scratch.bin").exists(), "an interrupted run keeps its scratch file: {err}");

    let o = methodic(&["run", "--resume", out_s, "--format", "json"]);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("step 2 (r-qd4) is the first step not finished"), "{err}");
    let loaded = manifest::load(&out).unwrap();
    assert_eq!(loaded.manifest.status, Status::Completed);
    let ids: Vec<&str> = loaded.steps.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["r-qd1", "r-qd4", "r-qd8"]);
    assert!(loaded.steps.iter().all(|s| s.error.is_none()));
    let superseded = lines(&out.join("superseded.jsonl"));
    assert_eq!(superseded.len(), 1);
    assert!(superseded[0].contains("interrupted by SIGTERM"), "{}", superseded[0]);
    // Its series moved aside with it; the step's own series is the new run's.
    let raw = std::fs::read_to_string(out.join("superseded.jsonl")).unwrap();
    assert!(raw.contains("\"series\":\"superseded/1/series/r-qd4.csv\""), "{raw}");
    assert!(out.join("superseded/1/series/r-qd4.csv").is_file());
    assert!(out.join("series/r-qd4.csv").is_file());
    let note = &loaded.manifest.resumed[0];
    assert_eq!((note.from_step, note.from_id.as_str(), note.superseded), (2, "r-qd4", 1));
    assert!(!out.join("scratch.bin").exists(), "the completed run removed its scratch file");

    let again = methodic(&["run", "--resume", out_s]);
    assert_eq!(again.status.code(), Some(1));
    assert!(text(&again.stderr).contains("holds a run that completed: there is nothing to resume"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A resume checks what it is given: a methodology that compiles to
/// another plan, or a target that is not the run's, is refused and
/// changes nothing.
#[test]
fn a_resume_refuses_another_plan_or_another_target() {
    let dir = common::temp_dir("resume-refuse");
    let (child, method, out) = start_short(&dir);
    let out_s = out.to_str().unwrap();
    signal_in_step_2(&child, &out, libc::SIGINT);
    assert_eq!(child.wait_with_output().unwrap().status.code(), Some(130));
    let before =
        (std::fs::read(out.join("manifest.json")).unwrap(), std::fs::read(out.join("steps.jsonl")).unwrap());

    let other = dir.join("other.method");
    std::fs::write(&other, SHORT.replace("qd 8 for 200ms", "qd 16 for 200ms")).unwrap();
    let o = methodic(&["run", "--resume", out_s, other.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("compiles to another plan than the one the run") && err.contains("methodic diff"),
        "{err}"
    );

    let elsewhere = dir.join("elsewhere.bin");
    std::fs::write(&elsewhere, vec![0u8; 32 << 20]).unwrap();
    let o = methodic(&["run", "--resume", out_s, "--target", elsewhere.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("is not the target the run started on") && err.contains("held 67108864 bytes"),
        "{err}"
    );

    let after =
        (std::fs::read(out.join("manifest.json")).unwrap(), std::fs::read(out.join("steps.jsonl")).unwrap());
    assert!(before == after, "a refused resume changes nothing");
    // The methodology itself is accepted.
    let o = methodic(&["run", "--resume", out_s, method.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}
