//! The run loop when a step's I/O fails: EIO injected into the engine
//! (`engine::fault`) under runs on scratch files. The failed step says
//! where and on what; every earlier step stays recorded; with `on_error
//! continue` the later steps run too and the run still ends failed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use methodic_results::record::{Status, StepResult};

use super::*;
use crate::engine::EngineFactory;
use crate::engine::fault::{Fault, FaultyEngines};
use crate::engine::trace::Tracing;
use crate::workload::Op;
use methodic_results::manifest::StepStatus;

const EIGHT_MIB: u64 = 8 << 20;

/// Reads, a fill whose write at 8MiB fails (one worker: the 128 writes
/// before it complete), reads again.
fn source(on_error: &str) -> String {
    format!(
        "methodology \"faults\" version \"1\"\n{on_error}\n\
         target {{ span 16MiB; io buffered }}\n\
         workload r {{ random; block 4KiB; read 100% }}\n\
         workload s {{ sequential; block 64KiB; read 0% }}\n\
         measure r qd 1 for 200ms\n\
         fill s passes 1 qd 1\n\
         measure r qd 4 for 200ms\n"
    )
}

/// Runs `src` on scratch files with writes to the 512 bytes at 8MiB of
/// target `on` failing with EIO; the report and the results directory.
fn run_failing_on(on: usize, name: &str, src: &str) -> (RunReport, PathBuf) {
    let plan = methodic_compiler::compile(src, &Default::default()).unwrap().plan;
    let out = std::env::temp_dir().join(format!("methodic-exec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let fault = Fault::eio(Some(Op::Write), EIGHT_MIB..EIGHT_MIB + 512);
    let opts = RunOptions {
        out: out.clone(),
        seed: 1,
        skip_ceiling: true,
        engines: Some(Arc::new(FaultyEngines { on, fault })),
        ..Default::default()
    };
    (run(&plan, &opts, &mut Quiet).unwrap(), out)
}

fn run_failing(name: &str, src: &str) -> (RunReport, PathBuf) {
    run_failing_on(0, name, src)
}

fn journal(out: &Path) -> Vec<StepResult> {
    std::fs::read_to_string(out.join("steps.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The fill's record: failed at 8MiB with EIO on the scratch file, the
/// 128 writes before it counted.
fn assert_the_fill_failed_at_8mib(fill: &StepResult, scratch: &Path) {
    let error = fill.error.as_deref().expect("the fill failed");
    let words = format!(
        "step fill-s on {}: write of 65536 bytes at offset 8388608 failed with EIO (Input/output error); 1 of 129 \
         I/Os failed",
        scratch.display()
    );
    assert_eq!(error, words);
    let io = fill.io.as_ref().expect("how its I/O ran is kept");
    let errors = io.errors.as_ref().expect("the failed I/Os are recorded");
    assert_eq!((errors.failed, errors.completed), (1, 128));
    let first = &errors.first;
    assert_eq!((first.op.as_str(), first.offset, first.len), ("write", EIGHT_MIB, 65536));
    assert_eq!((first.errno.as_deref(), first.result, first.target.as_path()), (Some("EIO"), -5, scratch));
    assert_eq!(io.bytes_written, EIGHT_MIB, "what was written before the failure, and no more");
    let summary = fill.summary.as_ref().expect("what the fill measured is kept");
    assert_eq!((summary.total.ios, summary.total.bytes), (128, EIGHT_MIB));
    assert!(fill.series.is_some());
}

#[test]
fn an_eio_mid_step_fails_the_run_there_with_its_offset_and_keeps_what_came_before() {
    let (report, out) = run_failing("stop", &source(""));
    let scratch = out.join("scratch.bin");
    assert_eq!(report.status, Status::Failed);
    assert_eq!(report.steps.len(), 2, "the run ended at the failed step");
    assert!(
        report.error.as_deref().unwrap().contains("offset 8388608 failed with EIO"),
        "{:?}",
        report.error
    );
    let [before, fill] = &report.steps[..] else { unreachable!() };
    assert!(before.error.is_none() && before.summary.as_ref().unwrap().total.ios > 0);
    assert_the_fill_failed_at_8mib(fill, &scratch);
    // On disk: both steps journaled as reported, the manifest says which
    // step failed and that the last never ran, results.json is whole.
    let journaled = journal(&out);
    assert_eq!(journaled.len(), 2);
    // JSON keeps the numbers (a float's last digit aside).
    let ios = |r: &StepResult| r.summary.as_ref().map(|s| (s.total.ios, s.total.bytes));
    assert_eq!(ios(&journaled[0]), ios(before));
    assert_the_fill_failed_at_8mib(&journaled[1], &scratch);
    let m = methodic_results::manifest::load(&out).unwrap().manifest;
    assert_eq!(m.status, Status::Failed);
    let statuses: Vec<StepStatus> = m.steps.iter().map(|s| s.status).collect();
    assert_eq!(statuses, [StepStatus::Completed, StepStatus::Failed, StepStatus::Pending]);
    assert_eq!(m.steps[1].io.as_ref().unwrap().errors.as_ref().unwrap().first.offset, EIGHT_MIB);
    let results: RunReport =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!((results.status, results.steps.len()), (Status::Failed, 2));
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn on_error_continue_runs_the_later_steps_and_still_ends_failed() {
    let (report, out) = run_failing("continue", &source("on_error continue"));
    let scratch = out.join("scratch.bin");
    assert_eq!(report.status, Status::Failed, "a step failed: so did the run");
    assert_eq!(report.steps.len(), 3, "the run went on past the failed fill");
    assert_the_fill_failed_at_8mib(&report.steps[1], &scratch);
    let after = &report.steps[2];
    assert!(after.error.is_none(), "{:?}", after.error);
    assert!(after.summary.as_ref().unwrap().total.ios > 0, "the step after the failure measured");
    let error = report.error.unwrap();
    assert!(
        error.starts_with("1 of 3 steps failed and the run went on past it (on_error continue): fill-s;"),
        "{error}"
    );
    assert!(error.contains("offset 8388608"), "{error}");
    assert!(error.contains("the drive state of the steps after it is in doubt"), "{error}");
    assert_eq!(journal(&out).len(), 3);
    let m = methodic_results::manifest::load(&out).unwrap().manifest;
    let statuses: Vec<StepStatus> = m.steps.iter().map(|s| s.status).collect();
    assert_eq!(statuses, [StepStatus::Completed, StepStatus::Failed, StepStatus::Completed]);
    let state = m.steps[2].checklist.drive_state.as_ref().unwrap();
    assert!(state.in_doubt, "the fill did not finish: {}", state.description);
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn the_error_names_the_target_the_failing_worker_drove() {
    // Two scratch files, a worker on each; the second one's writes fail.
    let src = "methodology \"two\" version \"1\"\ntarget { span 16MiB; io buffered; workers 2; devices 2 }\n\
               workload s { sequential; block 64KiB; read 0% }\nfill s passes 1 qd 2\n";
    let (report, out) = run_failing_on(1, "two", src);
    let second = out.join("scratch-1.bin");
    let error = report.error.unwrap();
    assert!(
        error.starts_with(&format!(
            "step fill-s on {}: write of 65536 bytes at offset 8388608",
            second.display()
        )),
        "{error}"
    );
    let errors = report.steps[0].io.as_ref().unwrap().errors.clone().unwrap();
    assert_eq!((errors.first.target, errors.failed, errors.also_on), (second, 1, vec![]));
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_run_whose_steps_all_finish_is_not_failed_under_on_error_continue() {
    let src = "methodology \"ok\" version \"1\"\non_error continue\ntarget { span 16MiB; io buffered }\n\
               workload r { random; block 4KiB; read 100% }\nmeasure r qd 1 for 100ms\n";
    let plan = methodic_compiler::compile(src, &Default::default()).unwrap().plan;
    let out = std::env::temp_dir().join(format!("methodic-exec-ok-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let opts = RunOptions { out: out.clone(), seed: 1, skip_ceiling: true, ..Default::default() };
    let report = run(&plan, &opts, &mut Quiet).unwrap();
    assert_eq!((report.status, report.error), (Status::Completed, None));
    std::fs::remove_dir_all(&out).unwrap();
}

/// A precondition until steady whose third round fails (its worker's
/// engine is the third made): the step fails with the EIO, and the two
/// rounds before it stay in the record, with the failed round's errors.
#[test]
fn a_round_that_fails_keeps_the_rounds_before_it() {
    let src = "methodology \"rounds\" version \"1\"\ntarget { span 16MiB; io buffered }\n\
               workload w { random; block 4KiB; read 0% }\n\
               precondition w qd 1 until steady { round 50ms; window 5; max_rounds 10 }\n";
    let plan = methodic_compiler::compile(src, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan;
    let out = std::env::temp_dir().join(format!("methodic-exec-rounds-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let fault = Fault::eio(Some(Op::Write), 0..u64::MAX).on_engines_from(2);
    let opts = RunOptions {
        out: out.clone(),
        seed: 1,
        skip_ceiling: true,
        engines: Some(Arc::new(FaultyEngines { on: 0, fault })),
        ..Default::default()
    };
    let report = run(&plan, &opts, &mut Quiet).unwrap();
    assert_eq!(report.status, Status::Failed);
    let step = &journal(&out)[0];
    assert!(step.error.as_deref().unwrap_or("").contains("failed with EIO"), "{:?}", step.error);
    let steady = step.steady.as_ref().expect("the rounds before the failure are kept");
    assert_eq!(steady.rounds, 2, "{steady:?}");
    assert!(!steady.reached);
    assert!(step.summary.as_ref().is_some_and(|s| s.total.ios > 0));
    assert!(step.io.as_ref().and_then(|io| io.errors.as_ref()).is_some(), "the failed round's errors");
    std::fs::remove_dir_all(&out).unwrap();
}

/// Two rounds of two cells (a write and a read mix) on a 64MiB scratch
/// file; every call's I/Os as its one worker's engine was handed them.
fn traced_rounds(seed: u64, name: &str) -> (Vec<Vec<crate::workload::Io>>, StepResult, String) {
    let src = "methodology \"streams\" version \"1\"\n\
               target { span 64MiB; io buffered }\n\
               rounds {\n\
                 measure { random; block 4KiB; read 0% } qd 1 for 500ms\n\
                 measure { random; block 4KiB; read 70% } qd 1 for 500ms\n\
               } until steady { window 2; max_rounds 2; track { random; block 4KiB; read 0% } }\n";
    let plan = methodic_compiler::compile(src, &Default::default()).unwrap().plan;
    let out = std::env::temp_dir().join(format!("methodic-exec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let tracing = Arc::new(Tracing::default());
    let engines: Arc<dyn EngineFactory> = tracing.clone();
    let opts = RunOptions {
        out: out.clone(),
        seed,
        skip_ceiling: true,
        engines: Some(engines),
        ..Default::default()
    };
    let report = run(&plan, &opts, &mut Quiet).unwrap();
    // One engine a call, each call's one worker's.
    let calls = tracing.logs();
    assert_eq!(report.status, Status::Completed);
    let step = report.steps[0].clone();
    let log = std::fs::read_to_string(out.join(step.latency_log.as_ref().expect("the step's latency log")))
        .unwrap();
    std::fs::remove_dir_all(&out).unwrap();
    // One worker a call: round 1 cell 1, round 1 cell 2, round 2 cell 1, round 2 cell 2.
    assert_eq!(calls.len(), 4, "two rounds of two cells");
    (calls, step, log)
}

/// How many offsets `a` and `b` share (as sets) and at the same position,
/// over their first `n` I/Os.
fn shared(a: &[crate::workload::Io], b: &[crate::workload::Io], n: usize) -> (usize, usize) {
    let set: std::collections::HashSet<u64> = a[..n].iter().map(|io| io.offset).collect();
    let other: std::collections::HashSet<u64> = b[..n].iter().map(|io| io.offset).collect();
    let same_place = a[..n].iter().zip(&b[..n]).filter(|(x, y)| x.offset == y.offset).count();
    (set.intersection(&other).count(), same_place)
}

#[test]
fn rounds_and_cells_draw_their_own_offsets_and_the_seed_repeats_them() {
    let (calls, _, _) = traced_rounds(11, "streams");
    // The first 10,000 I/Os of each call, or all of them on a slow machine.
    let n = calls.iter().map(Vec::len).min().unwrap().min(10_000);
    assert!(n >= 1000, "each call issued at least 1000 I/Os in 500ms ({n})");
    // Two independent uniform draws of n offsets from the 16,384 4KiB slots
    // of 64MiB share N*p^2 distinct offsets, p = 1-(1-1/N)^n, with a
    // standard deviation below sqrt(N*p^2), and 0.6 at the same position.
    let slots = 16_384f64;
    let p = 1.0 - (1.0 - 1.0 / slots).powf(n as f64);
    let expected = slots * p * p;
    let bound = expected + 6.0 * expected.sqrt();
    for (what, a, b) in [
        ("two rounds of the write cell", 0, 2),
        ("two rounds of the read-mix cell", 1, 3),
        ("the write cell and the read-mix cell of one round", 0, 1),
    ] {
        let (common, same_place) = shared(&calls[a], &calls[b], n);
        assert!(
            (common as f64) < bound,
            "{what}: {common} of their first {n} offsets in common, independent draws share {expected:.0}"
        );
        assert!(same_place <= 10, "{what}: {same_place} of the first {n} I/Os at the same offset");
    }
    // The same seed gives the same streams, I/O for I/O.
    let (again, _, _) = traced_rounds(11, "streams-again");
    for (k, (a, b)) in calls.iter().zip(&again).enumerate() {
        let m = a.len().min(b.len());
        assert_eq!(&a[..m], &b[..m], "call {k} differs under the same seed");
    }
}

#[test]
fn rounds_keep_every_rounds_latency_the_windows_maximum_and_a_histogram_log() {
    let (_, step, log) = traced_rounds(3, "round-latency");
    let cells = step.cells.as_ref().unwrap();
    assert_eq!(cells.len(), 2);
    for cell in cells {
        assert_eq!(cell.rounds_latency_us.len(), 2, "{}: a distribution a round", cell.workload);
        // The window is both rounds: its maximum is the larger round maximum,
        // and its percentiles lie within the rounds'.
        let maxes: Vec<f64> = cell.rounds_latency_us.iter().map(|l| l.max).collect();
        assert_eq!(cell.window_latency_us.max, maxes[0].max(maxes[1]), "{}", cell.workload);
        let w = &cell.window_latency_us;
        assert!(w.p50 > 0.0 && w.p50 <= w.p99_99 && w.p99_99 <= w.p99_9999 && w.p99_9999 <= w.max);
        assert_eq!(cell.rounds_latency_us[1], cell.last.total.latency_us);
    }
    // Round by round, cell by cell: writes of cell 1, reads and writes of
    // cell 2 (its 70% read mix).
    let tags: Vec<&str> =
        log.lines().filter(|l| l.starts_with("Tag=")).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(
        tags,
        [
            "Tag=cell1.write",
            "Tag=cell2.read",
            "Tag=cell2.write",
            "Tag=cell1.write",
            "Tag=cell2.read",
            "Tag=cell2.write"
        ]
    );
    assert!(log.contains("#[BaseTime: "), "{log}");
}

/// A file has no drive to purge nor a write cache to set: `erase purge`
/// punches holes over the span and says so, `write_cache off` is noted as
/// left as it is, and the run completes.
#[test]
fn a_file_target_takes_purge_as_holes_and_leaves_the_write_cache() {
    let src = "methodology \"file\" version \"1\"\ntarget { span 4MiB; write_cache off }\n\
               workload s { sequential; block 64KiB; read 0% }\nerase purge\nfill s\n";
    let plan = methodic_compiler::compile(src, &Default::default()).unwrap().plan;
    let out = std::env::temp_dir().join(format!("methodic-exec-file-purge-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let opts = RunOptions { out: out.clone(), seed: 1, skip_ceiling: true, ..Default::default() };
    let report = run(&plan, &opts, &mut Quiet).unwrap();
    assert_eq!(report.status, Status::Completed, "{:?}", report.error);
    assert_eq!(
        report.steps[0].actions,
        ["punched holes over 4.0 MiB of the file (a file cannot `erase purge`)"]
    );
    let m = methodic_results::manifest::load(&out).unwrap().manifest;
    let note = &m.write_cache[0];
    assert_eq!((note.asked.as_str(), note.was_on), ("off", None));
    assert_eq!(note.done, "not a drive whose cache methodic can read or set: left as it is");
    assert_eq!(note.restored.as_deref(), Some("nothing to put back"));
    std::fs::remove_dir_all(&out).unwrap();
}
