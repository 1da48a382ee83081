//! What lowering makes of each construct, checked on small methodologies.

use crate::plan::*;
use crate::{Code, Options, compile};

const H: &str = "methodology \"t\" version \"1.0\"\n";

fn plan(body: &str) -> Plan {
    let src = format!("{H}{body}");
    match compile(&src, &Options::default()) {
        Ok(c) => c.plan,
        Err(d) => panic!("{}", d.render("t.method", &src, false)),
    }
}

fn codes(body: &str) -> Vec<Code> {
    let src = format!("{H}{body}");
    crate::check(&src).iter().map(|d| d.code).collect()
}

fn measure(step: &Step) -> (&Workload, &Qd) {
    match &step.action {
        Action::Measure { workload, qd, .. } => (workload, qd),
        other => panic!("not a measure: {other:?}"),
    }
}

#[test]
fn for_loops_expand_in_order_with_unique_ids() {
    let p = plan(
        "workload a { random; block 4KiB; read 0% }\nworkload b { random; block 8KiB; read 0% }\n\
         phase \"p\" { for w in [a, b, a] { measure w qd 4 for 10s } }",
    );
    let ids: Vec<&str> = p.steps.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["p/a-qd4", "p/b-qd4", "p/a-qd4-2"]);
    assert_eq!(measure(&p.steps[1]).0.blocks[0].size, Bytes(8192));
}

#[test]
fn sweeps_run_read_shares_outside_queue_depths_inside() {
    let p =
        plan("workload w { random; block 4KiB; read 0% }\nsweep w qd [1, 8] read [0%, 50%, 100%] record 5s");
    let got: Vec<(u32, u32)> =
        p.steps.iter().map(|s| (measure(s).0.read.hundredths() / 100, measure(s).1.total)).collect();
    assert_eq!(got, [(0, 1), (0, 8), (50, 1), (50, 8), (100, 1), (100, 8)]);
    assert!(p.steps.iter().all(|s| s.sweep == Some(1)));
    assert_eq!(measure(&p.steps[2]).0.name, "w read 50%");
    assert_eq!(p.steps[2].id, "w-read-50-qd1");
}

#[test]
fn ranges_count_up_by_adding_or_multiplying() {
    let p = plan(
        "workload w { random; block 4KiB; read 0% }\nsweep w qd 1..256 step x2 read 0%..100% step 25% record 1s",
    );
    assert_eq!(p.steps.len(), 9 * 5);
    let qds: Vec<u32> = p.steps[..9].iter().map(|s| measure(s).1.total).collect();
    assert_eq!(qds, [1, 2, 4, 8, 16, 32, 64, 128, 256]);
    let p = plan("workload w { random; block 4KiB; read 0% }\nsweep w qd 1..100 step x3 record 1s");
    let qds: Vec<u32> = p.steps.iter().map(|s| measure(s).1.total).collect();
    assert_eq!(qds, [1, 3, 9, 27, 81]);
    let p = plan("workload w { random; block 4KiB; read 0% }\nsweep w qd 1..4 record 1s");
    assert_eq!(p.steps.len(), 4);
}

#[test]
fn lets_and_loop_variables_reach_inline_workloads() {
    let p = plan(
        "let sizes = [4KiB, 1MiB]\nfor bs in sizes { for rw in [70%] { measure { random; block bs; read rw } qd 1 for 1s } }",
    );
    let (w, _) = measure(&p.steps[1]);
    assert_eq!(w.blocks, [BlockShare { size: Bytes(1 << 20), share: Percent::HUNDRED }]);
    assert_eq!(w.read, Percent::whole(70));
    assert_eq!(w.name, "1MiB random, 70% read");
    assert_eq!(w.align, Bytes(1 << 20), "alignment defaults to the smallest block");
}

#[test]
fn repeats_number_their_runs() {
    let p = plan(
        "workload w { random; block 4KiB; read 0% }\nrepeat 3 { measure w qd 1 for 1s; idle 1s }\nrepeat 2 aggregate median { measure w qd 1 for 1s }",
    );
    let runs: Vec<(u32, u32, u32)> =
        p.steps.iter().map(|s| s.repeat.map(|r| (r.group, r.run, r.runs)).unwrap()).collect();
    assert_eq!(
        runs,
        [(1, 1, 3), (1, 1, 3), (1, 2, 3), (1, 2, 3), (1, 3, 3), (1, 3, 3), (2, 1, 2), (2, 2, 2)]
    );
    assert_eq!(p.steps[0].repeat.unwrap().aggregate, Aggregate::Mean);
    assert_eq!(p.steps[7].repeat.unwrap().aggregate, Aggregate::Median);
    assert_eq!(p.steps[2].id, "w-qd1-run2");
}

/// `repeat N..M until cv P%` holds M runs, each carrying the rule; a
/// plain count carries none, so plans without the syntax stay as they were.
#[test]
fn a_repeat_until_cv_holds_its_most_runs_and_the_rule() {
    let p = plan(
        "workload w { random; block 4KiB; read 0% }\n\
         repeat 3..5 until cv 2.5% aggregate median { measure w qd 1 for 1s; idle 1s }\nrepeat 2 { idle 1s }",
    );
    assert_eq!(p.steps.len(), 5 * 2 + 2);
    let rule = UntilCv { min_runs: 3, cv: Percent::from_hundredths(250) };
    for (k, s) in p.steps[..10].iter().enumerate() {
        let r = s.repeat.unwrap();
        assert_eq!(
            (r.group, r.run, r.runs, r.aggregate, r.until),
            (1, k as u32 / 2 + 1, 5, Aggregate::Median, Some(rule))
        );
    }
    assert_eq!(p.steps[10].repeat.unwrap().until, None);
    assert_eq!(rule.words(5), "3..5 until cv 2.5%");
    assert!(!p.to_ron().contains("until: None"), "a plain count leaves the rule out");
    // N may equal M: every run is made, and the spread still judged.
    assert_eq!(plan("repeat 2..2 until cv 1% { idle 1s }").steps.len(), 2);
    // Variables give the ends and the limit.
    let p = plan("let lo = 2\nlet hi = 3\nlet p = 5%\nrepeat lo..hi until cv p { idle 1s }");
    assert_eq!(p.steps[0].repeat.unwrap().until, Some(UntilCv { min_runs: 2, cv: Percent::whole(5) }));
}

#[test]
fn a_repeat_until_cv_that_cannot_be_judged_is_refused() {
    let bad = Code::BadRepeatRule;
    assert_eq!(codes("repeat 5 until cv 3% { idle 1s }"), [bad], "a plain count");
    assert_eq!(codes("repeat 3..10 { idle 1s }"), [bad], "a range without the rule");
    assert_eq!(codes("repeat 1..10 until cv 3% { idle 1s }"), [bad], "N < 2");
    assert_eq!(codes("repeat 10..3 until cv 3% { idle 1s }"), [bad], "N > M");
    assert_eq!(codes("repeat 3..10 until cv 0% { idle 1s }"), [bad], "0%");
    assert_eq!(codes("repeat 3..10 until cv 100% { idle 1s }"), [bad], "100%");
    assert_eq!(codes("repeat 3..9 step 3 until cv 3% { idle 1s }"), [bad], "a step");
    assert_eq!(codes("repeat 3..10 until cv 3s { idle 1s }"), [Code::ExpectedPercent]);
    assert_eq!(codes("repeat 3..20000 until cv 3% { idle 1s }"), [Code::TooLarge]);
    // Both ends wrong: both said.
    assert_eq!(codes("repeat 1..10 until cv 0% { idle 1s }"), [bad, bad]);
}

/// The plan-size projection counts the most runs, M.
#[test]
fn a_repeat_until_cv_counts_its_most_runs_against_the_step_limit() {
    let src = format!(
        "{H}repeat 2..10000 until cv 3% {{ for q in [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] {{ idle 1s }} }}"
    );
    let d: Vec<String> =
        crate::check(&src).iter().map(|d| format!("{}: {}", d.code.as_str(), d.message)).collect();
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].starts_with("M0105") && d[0].contains("11 each time round, 10000 times"), "{d:?}");
}

#[test]
fn target_blocks_apply_to_the_rest_of_their_block_and_top_level_everywhere() {
    let p = plan(
        "workload w { random; block 4KiB; read 0% }\n\
         phase \"a\" { measure w qd 1 for 1s; target { span 25% }; measure w qd 1 for 1s }\n\
         phase \"b\" { measure w qd 1 for 1s }\n\
         target { span 50%; io buffered }",
    );
    let spans: Vec<Extent> = p.steps.iter().map(|s| s.target.unwrap().span).collect();
    assert_eq!(
        spans,
        [
            Extent::Percent(Percent::whole(50)),
            Extent::Percent(Percent::whole(25)),
            Extent::Percent(Percent::whole(50))
        ]
    );
    assert!(p.steps.iter().all(|s| s.target.unwrap().io == IoMode::Buffered));
    assert_eq!(p.target.span, Extent::Percent(Percent::whole(50)));
}

#[test]
fn ram_limits_hold_to_the_end_of_their_block() {
    let p = plan(
        "workload w { random; block 4KiB; read 0% }\n\
         phase \"a\" { measure w qd 1 for 1s; limit_ram 16GiB; measure w qd 1 for 1s; limit_ram none; idle 1s }\n\
         phase \"b\" { limit_ram 8GiB; measure w qd 1 for 1s }\n\
         measure w qd 1 for 1s",
    );
    let limits: Vec<Option<u64>> = p.steps.iter().map(|s| s.ram_limit.map(|b| b.0 / Bytes::GIB)).collect();
    assert_eq!(limits, [None, Some(16), Some(16), None, None, Some(8), Some(8), None]);
    assert_eq!(p.steps[1].action, Action::LimitRam { limit: Some(Bytes(16 * Bytes::GIB)) });
}

#[test]
fn queue_depths_split_over_workers_as_counted() {
    let p = plan(
        "conventions { queue_depth per_worker }\ntarget { workers 8; devices 2 }\n\
         workload w { random; block 8KiB; read 100% }\nmeasure w qd 32 for 1s",
    );
    let (_, qd) = measure(&p.steps[0]);
    assert_eq!((qd.total, qd.per_worker, qd.workers, qd.counted), (256, 32, 8, QdCounting::PerWorker));
    let p = plan(
        "target { workers 16; devices 4 }\nworkload w { random; block 8KiB; read 100% }\nmeasure w qd 256 for 1s",
    );
    let (_, qd) = measure(&p.steps[0]);
    assert_eq!((qd.total, qd.per_worker, qd.workers), (256, 16, 16));
    assert_eq!(
        codes("target { workers 16 }\nworkload w { random; block 8KiB; read 100% }\nmeasure w qd 8 for 1s"),
        [Code::FewerWorkers]
    );
}

#[test]
fn fills_default_to_a_queue_depth_the_workers_can_share() {
    let p = plan("target { workers 3 }\nworkload w { sequential; block 128KiB; read 0% }\nfill w");
    match &p.steps[0].action {
        Action::Fill { qd, passes, .. } => {
            assert_eq!((qd.total, qd.per_worker, qd.workers, *passes), (33, 11, 3, 1));
        }
        other => panic!("{other:?}"),
    }
    assert!(p.steps[0].establishes_state);
}

#[test]
fn preconditions_until_steady_take_the_snia_defaults() {
    let p = plan("workload w { random; block 4KiB; read 0% }\nprecondition w qd 32 until steady");
    match &p.steps[0].action {
        Action::Precondition { stop: PreconditionStop::Steady { round, rule }, .. } => {
            assert_eq!(*round, Duration::from_secs(60));
            assert_eq!(*rule, SteadyRule::default());
            assert_eq!((rule.window, rule.max_rounds), (5, 25));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        p.steps[0].estimate.time,
        TimeRange { min: Duration::from_secs(300), max: Duration::from_secs(1500) }
    );
}

#[test]
fn rounds_track_one_cell_and_span_window_to_max_rounds() {
    let p = plan(
        "rounds {\n for rw in [100%, 0%] { for bs in [4KiB, 8KiB] { measure { random; block bs; read rw } qd 4 for 1min } }\n\
         } until steady { window 3; max_rounds 10; track { random; block 4KiB; read 0% } }",
    );
    match &p.steps[0].action {
        Action::Rounds { cells, track, rule } => {
            assert_eq!(cells.len(), 4);
            assert_eq!(*track, 2);
            assert_eq!(cells[2].workload.read, Percent::ZERO);
            assert_eq!(rule.window, 3);
        }
        other => panic!("{other:?}"),
    }
    let e = p.steps[0].estimate;
    assert_eq!(
        e.time,
        TimeRange { min: Duration::from_secs(4 * 60 * 3), max: Duration::from_secs(4 * 60 * 10) }
    );
    // Only the two write cells write.
    assert_eq!(
        e.written.timed,
        TimeRange { min: Duration::from_secs(2 * 60 * 3), max: Duration::from_secs(2 * 60 * 10) }
    );
    assert!(p.steps[0].establishes_state);
}

#[test]
fn datasets_resolve_count_and_total_exactly() {
    let p = plan(
        "dataset a { files 10; size 1MiB }\ndataset b { size 1MiB; total 8MiB }\n\
         dataset c { files 50; size 4KiB..64KiB; seed 3 }\ndataset d { size 4KiB..64KiB; total 1MB }\n\
         copy a; copy b; copy c; copy d",
    );
    let ds: Vec<&Dataset> = p
        .steps
        .iter()
        .map(|s| match &s.action {
            Action::Copy { dataset } => dataset,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!((ds[0].files, ds[0].total), (10, Bytes(10 << 20)));
    assert_eq!((ds[1].files, ds[1].total), (8, Bytes(8 << 20)));
    assert_eq!(ds[2].files, 50);
    assert_eq!(ds[2].total.0, ds[2].file_sizes().sum::<u64>());
    assert!(ds[2].file_sizes().all(|s| (4096..=65536).contains(&s)));
    assert_eq!(ds[3].total, Bytes(1_000_000));
    assert_eq!(ds[3].file_sizes().count() as u64, ds[3].files);
    assert_eq!(ds[3].file_sizes().sum::<u64>(), 1_000_000);
    assert_eq!(p.steps[3].estimate.written.bytes, Bytes(1_000_000));
}

#[test]
fn standard_mixes_are_whole_and_documented_shapes() {
    let p = plan(
        "use std.mixes\nfor m in [database, file_server, web_server, workstation, email_server, streaming_read, streaming_write, snia_composite] { measure m qd 1 for 1s }",
    );
    let mixes: Vec<&Workload> = p.steps.iter().map(|s| measure(s).0).collect();
    for w in &mixes {
        let sum: u32 = w.blocks.iter().map(|b| b.share.hundredths()).sum();
        assert_eq!(sum, 10_000, "{}", w.name);
    }
    assert_eq!(
        (mixes[0].blocks[0].size, mixes[0].read, mixes[0].random),
        (Bytes(8192), Percent::whole(67), Percent::HUNDRED)
    );
    assert_eq!((mixes[1].blocks.len(), mixes[1].read), (8, Percent::whole(80)));
    assert_eq!((mixes[2].blocks.len(), mixes[2].read), (10, Percent::HUNDRED));
    assert_eq!((mixes[3].read, mixes[3].random), (Percent::whole(80), Percent::whole(80)));
    assert_eq!((mixes[4].blocks[0].size, mixes[4].read), (Bytes(32768), Percent::whole(68)));
    assert_eq!(mixes[5].random, Percent::ZERO);
    assert_eq!((mixes[7].blocks.len(), mixes[7].read), (12, Percent::whole(40)));
    assert_eq!(mixes[1].align, Bytes(512), "a split aligns to its smallest block");
}

#[test]
fn non_destructive_allows_reads_only() {
    let ok = plan(
        "non_destructive\nworkload r { random; block 4KiB; read 100% }\nmeasure r qd 1 for 1s; drop_caches; idle 1s",
    );
    assert!(ok.methodology.non_destructive);
    assert_eq!(
        codes("non_destructive\nworkload m { random; block 4KiB; read 70% }\nmeasure m qd 1 for 1s"),
        [Code::Destructive]
    );
    assert_eq!(codes("non_destructive\nerase discard"), [Code::Destructive]);
    assert_eq!(codes("non_destructive\nprobe pages { io 512B; step 512B; range 1MiB }"), [Code::Destructive]);
}

#[test]
fn on_error_is_carried_into_the_plan_and_left_out_when_it_is_the_default() {
    let body = "workload r { random; block 4KiB; read 100% }\nmeasure r qd 1 for 1s";
    let default = plan(body);
    assert_eq!(default.methodology.on_error, OnError::Stop);
    assert!(!default.to_ron().contains("on_error"), "old plans and goldens stay as they were");
    assert!(!plan(&format!("on_error stop\n{body}")).to_ron().contains("on_error"));
    let go_on = plan(&format!("on_error continue\n{body}"));
    assert_eq!(go_on.methodology.on_error, OnError::Continue);
    let ron = go_on.to_ron();
    assert!(ron.contains("on_error: continue"), "{ron}");
    assert_eq!(Plan::from_ron(&ron).unwrap(), go_on, "it reads back");
    assert_eq!(Plan::from_ron(&default.to_ron()).unwrap().methodology.on_error, OnError::Stop);
    assert_eq!(codes(&format!("on_error continue\non_error stop\n{body}")), [Code::DuplicateSetting]);
}

#[test]
fn errors_in_loops_are_reported_once_per_place() {
    let c = codes(
        "workload w { random; block 4KiB; read 0% }\nfor i in [1, 2, 3] { sweep w qd [0, 1] record 1s }",
    );
    assert_eq!(c, [Code::QdRange]);
}

#[test]
fn several_semantic_errors_at_once() {
    let c = codes(
        "workload w { random; block 4KiB; read 0% }\nidle 30\nsweep w qd [1, 2] record 0s\nmeasure missing qd 1 for 1s",
    );
    assert_eq!(c, [Code::ExpectedDuration, Code::ZeroDuration, Code::UnknownName]);
}

#[test]
fn until_written_counts_in_the_estimate() {
    let p = plan(
        "target { span 50% }\nworkload w { sequential; block 1MiB; read 0% }\nmeasure w qd 4 until written 400% series 1s\nmeasure w qd 4 until written 300GB",
    );
    assert_eq!(p.steps[0].estimate.written.capacity, Percent::whole(200));
    assert_eq!(p.steps[1].estimate.written.bytes, Bytes(300_000_000_000));
    assert!(p.steps[0].estimate.device_bound);
}

#[test]
fn until_transferred_counts_reads_and_estimates_the_write_share() {
    let p = plan(
        "target { span 50% }\nworkload r { sequential; block 1MiB; read 100% }\nworkload m { random; block 4KiB; read 75% }\nmeasure r qd 4 until transferred 10GB\nmeasure m qd 4 for 1min until transferred 200%",
    );
    let Action::Measure { stop, .. } = &p.steps[0].action else { panic!("not a measurement") };
    assert_eq!(stop.amount(), Some((Extent::Bytes(Bytes(10_000_000_000)), true)));
    assert_eq!(p.steps[0].estimate.written, Written::default());
    assert!(p.steps[0].estimate.device_bound);
    // A quarter of 200% of a 50% span is written.
    assert_eq!(p.steps[1].estimate.written.capacity, Percent::whole(25));
    assert!(
        p.steps[1].describe().contains("until 200% of the span is read or written"),
        "{}",
        p.steps[1].describe()
    );
    assert_eq!(
        codes("workload r { sequential; block 1MiB; read 100% }\nmeasure r qd 4 until transferred 0GB"),
        [Code::ZeroSize]
    );
    assert_eq!(
        codes(
            "workload w { sequential; block 1MiB; read 0% }\nmeasure w qd 4 until written 1GB until transferred 2GB"
        ),
        [Code::ConflictingOption]
    );
}

#[test]
fn a_drained_think_is_said_and_kept_apart_from_one_that_is_not() {
    let p = plan(
        "workload r { random; block 4KiB; read 100% }\nmeasure r qd 8 for 1s think 2ms every 4 drained\nmeasure r qd 8 for 1s think 2ms every 4",
    );
    let thinks: Vec<Option<Think>> = p
        .steps
        .iter()
        .map(|s| match &s.action {
            Action::Measure { pauses, .. } => pauses.think,
            _ => None,
        })
        .collect();
    assert_eq!(
        thinks,
        [
            Some(Think { pause_ns: 2_000_000, every: 4, drained: true }),
            Some(Think { pause_ns: 2_000_000, every: 4, drained: false })
        ]
    );
    assert!(
        p.steps[0].describe().contains("think 2ms every 4 I/Os once those in flight complete"),
        "{}",
        p.steps[0].describe()
    );
}

#[test]
fn writes_of_their_own_sizes_are_kept_apart_and_checked() {
    let p = plan(
        "workload m { random; blocks { 4KiB: 50%, 8KiB: 50% }; write_blocks { 64KiB: 25%, 16KiB: 75% }; read 70% }\nmeasure m qd 4 for 1s",
    );
    let Action::Measure { workload, .. } = &p.steps[0].action else { panic!("not a measurement") };
    let writes: Vec<u64> = workload.write_blocks.as_ref().unwrap().iter().map(|b| b.size.0).collect();
    assert_eq!(writes, [16384, 65536], "smallest first");
    assert_eq!((workload.largest_block(), workload.align), (Bytes(65536), Bytes(4096)));
    assert!(
        workload.describe().starts_with("4KiB..8KiB split reads, 16KiB..64KiB split writes random"),
        "{}",
        workload.describe()
    );
    // The writes' sizes set the default alignment when they are smaller.
    let p = plan("workload m { random; block 8KiB; write_block 4KiB; read 50% }\nmeasure m qd 1 for 1s");
    let Action::Measure { workload, .. } = &p.steps[0].action else { panic!("not a measurement") };
    assert_eq!(workload.align, Bytes(4096));
    assert_eq!(
        codes("workload r { random; block 4KiB; write_block 8KiB; read 100% }\nmeasure r qd 1 for 1s"),
        [Code::ConflictingProperty]
    );
    assert_eq!(
        codes(
            "workload r { random; block 4KiB; write_blocks { 8KiB: 60% }; read 50% }\nmeasure r qd 1 for 1s"
        ),
        [Code::SplitSum]
    );
    assert_eq!(
        codes(
            "workload r { random; block 4KiB; write_block 8KiB; write_block 4KiB; read 50% }\nmeasure r qd 1 for 1s"
        ),
        [Code::DuplicateSetting]
    );
    assert_eq!(
        codes(
            "target { io direct }\nworkload r { random; block 4KiB; write_block 1000B; read 50% }\nmeasure r qd 1 for 1s"
        ),
        [Code::Unaligned]
    );
}

#[test]
fn probes_count_their_offsets() {
    let p = plan(
        "target { io buffered }\nprobe pages { io 512B; step 256B; range 4MiB; repeats 20; statistic median }",
    );
    match &p.steps[0].action {
        Action::Probe(probe) => {
            assert_eq!(probe.offsets, (4 * 1024 * 1024 - 512) / 256 + 1);
            assert_eq!(p.steps[0].estimate.written.bytes, Bytes(probe.offsets * 20 * 512));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn reordering_and_renaming_definitions_changes_no_step_but_names() {
    let a = plan("workload w { random; block 4KiB; read 0% }\nlet q = [1, 2]\nsweep w qd q record 1s");
    let b = plan(
        "let depths = [1, 2]\n# a comment\nworkload renamed {\n  read 0%\n  block 4KiB\n  random\n}\nsweep renamed qd depths record 1s",
    );
    assert_eq!(a.steps.len(), b.steps.len());
    for (x, y) in a.steps.iter().zip(&b.steps) {
        assert!(measure(x).0.same_io(measure(y).0));
        assert_eq!(measure(x).1, measure(y).1);
        assert_eq!(x.estimate, y.estimate);
    }
}

#[test]
fn plans_round_trip_through_ron_and_json_and_validate() {
    let p = plan(
        "use std.mixes\ntarget { workers 4 }\ndataset d { files 5; size 1MiB..2MiB }\n\
         phase \"x\" { erase discard; fill { sequential; block 128KiB; read 0% } passes 2; precondition database qd 64 until steady { round 30s }\n\
         repeat 2 { copy d }; limit_ram 2GiB; drop_caches; idle 5s }",
    );
    let back = Plan::from_ron(&p.to_ron()).unwrap();
    assert_eq!(back, p);
    assert_eq!(back.to_ron(), p.to_ron(), "serialisation is deterministic");
    assert_eq!(Plan::from_json(&p.to_json()).unwrap(), p);
    assert!(crate::validate(&p).is_empty(), "{}", crate::validate(&p));
}

#[test]
fn validation_catches_edited_plans() {
    let good =
        plan("workload w { random; blocks { 4KiB: 50%, 8KiB: 50% }; read 0% }\nmeasure w qd 8 for 10s");
    let mut p = good.clone();
    if let Action::Measure { workload, .. } = &mut p.steps[0].action {
        workload.blocks[0].share = Percent::whole(40);
    }
    let codes: Vec<Code> = crate::validate(&p).iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::SplitSum]);

    let mut p = good.clone();
    p.estimate.time.max = Duration::from_secs(1);
    assert_eq!(crate::validate(&p).iter().map(|d| d.code).collect::<Vec<_>>(), [Code::PlanInvalid]);

    let mut p = good.clone();
    if let Action::Measure { qd, .. } = &mut p.steps[0].action {
        qd.per_worker = 2;
    }
    assert_eq!(crate::validate(&p).iter().map(|d| d.code).collect::<Vec<_>>(), [Code::PlanInvalid]);

    let now = format!("schema: {PLAN_SCHEMA},");
    let text = good.to_ron().replacen(&now, &format!("schema: {},", PLAN_SCHEMA + 1), 1);
    assert_eq!(Plan::from_ron(&text).unwrap_err().code, Code::PlanSchema);
    // A schema 1 plan (before the language's spellings) still reads.
    let old = good.to_ron().replacen(&now, "schema: 1,", 1);
    assert_eq!(Plan::from_ron(&old).map(|p| p.steps), Ok(good.steps.clone()));
    let mut p = good.clone();
    p.schema = 0;
    assert_eq!(crate::validate(&p).iter().map(|d| d.code).collect::<Vec<_>>(), [Code::PlanSchema]);
    assert_eq!(Plan::from_ron("(steps: [])").unwrap_err().code, Code::PlanSyntax);
    assert_eq!(Plan::from_ron("not a plan").unwrap_err().code, Code::PlanSyntax);
    let unknown = good.to_ron().replacen(&now, &format!("{now} extra: 3,"), 1);
    assert_eq!(Plan::from_ron(&unknown).unwrap_err().code, Code::PlanSyntax);
}

#[test]
fn only_steps_that_write_establish_drive_state() {
    let p = plan(
        "workload r { random; block 4KiB; read 100% }\nworkload w { random; block 4KiB; read 0% }\n\
         erase discard\nprecondition r qd 8 for 1min\nprecondition w qd 8 for 1min\nmeasure w qd 1 for 1s",
    );
    let states: Vec<bool> = p.steps.iter().map(|s| s.establishes_state).collect();
    assert_eq!(states, [true, false, true, false]);
}

#[test]
fn runaway_loops_stop_at_the_step_limit() {
    let c = codes(
        "rounds { for a in 1..2000 { for b in 1..1000 { measure { random; block 4KiB; read 0% } qd b for 1s } } } until steady { window 5 }",
    );
    assert_eq!(c, [Code::TooLarge]);
}

/// A loop that would pass the step limit is refused after its first time
/// round, from what that made, before the rest is made: a million times
/// round one measurement, a repeat of a loop, a loop of cells in rounds.
#[test]
fn a_loop_past_the_step_limit_is_refused_after_its_first_time_round() {
    let said = |body: &str| -> Vec<String> {
        let src = format!("{H}{body}");
        crate::check(&src).iter().map(|d| format!("{}: {}", d.code.as_str(), d.message)).collect()
    };
    let w = "{ random; block 4KiB; read 0% }";
    let d = said(&format!("for i in 1..1000000 {{ measure {w} qd 1 for 1s }}"));
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].contains(
            "would lower to more than the 100000 steps and round measurements a methodology may have: this `for` \
             makes 1 each time round, 1000000 times"
        ),
        "{d:?}"
    );
    let d = said(&format!(
        "repeat 10000 {{ for q in [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] {{ measure {w} qd q for 1s }} }}"
    ));
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].contains("this `repeat` makes 11 each time round, 10000 times"), "{d:?}");
    let d = said(&format!(
        "rounds {{ for a in 1..200000 {{ measure {w} qd 1 for 1s }} }} until steady {{ window 5 }}"
    ));
    assert!(d[0].contains("this `for` makes 1 each time round, 200000 times"), "{d:?}");
    // At the limit, not past it: compiles.
    assert!(said(&format!("for i in 1..100000 {{ measure {w} qd 1 for 1s }}")).is_empty());
}

#[test]
fn empty_rounds_are_reported_once() {
    assert_eq!(codes("rounds { for x in [1] { } } until steady { window 5 }"), [Code::MissingOption]);
    // Rounds whose only measurement is wrong report that, not emptiness.
    assert_eq!(
        codes("rounds { measure missing qd 1 for 1min } until steady { window 5 }"),
        [Code::UnknownName]
    );
}

/// Every erase method the language has, with its step id and words.
#[test]
fn every_erase_method_lowers_with_its_own_id() {
    let all = [
        ("discard", "p/erase-discard"),
        ("purge", "p/erase-purge"),
        ("sanitize block", "p/erase-sanitize-block"),
        ("sanitize crypto", "p/erase-sanitize-crypto"),
        ("sanitize overwrite", "p/erase-sanitize-overwrite"),
        ("format", "p/erase-format"),
        ("format secure", "p/erase-format-secure"),
        ("format crypto", "p/erase-format-crypto"),
        ("ata_secure", "p/erase-ata_secure"),
        ("ata_secure enhanced", "p/erase-ata_secure-enhanced"),
        ("secure", "p/erase-secure"),
    ];
    for (words, id) in all {
        let p = plan(&format!("phase \"p\" {{ erase {words} }}"));
        let Action::Erase { method } = p.steps[0].action else { panic!("not an erase") };
        assert_eq!((method.keyword(), p.steps[0].id.as_str()), (words, id));
        assert!(p.steps[0].describe().starts_with("erase: "));
    }
    assert_eq!(EraseMethod::ALL.len(), all.len());
}

/// A method with the wrong word after it says what it takes.
#[test]
fn an_erase_method_with_a_wrong_word_says_what_it_takes() {
    for (text, hint) in [
        ("erase sanitize", "`sanitize` takes `block`, `crypto` or `overwrite`"),
        ("erase sanitize enhanced", "`sanitize` takes `block`, `crypto` or `overwrite`"),
        ("erase format block", "`format` takes nothing, `secure` or `crypto`"),
        ("erase ata_secure crypto", "`ata_secure` takes nothing or `enhanced`"),
        ("erase purge secure", "`secure`, `discard` and `purge` take nothing after them"),
    ] {
        let src = format!("{H}phase \"p\" {{ {text} }}");
        let d: Vec<_> = crate::check(&src).iter().cloned().collect();
        assert_eq!(d.len(), 1, "{text}");
        assert_eq!(d[0].code, Code::Syntax);
        assert_eq!(d[0].hint.as_deref(), Some(hint), "{text}");
    }
}

/// `write_cache` is the run's: in the plan from the top-level block,
/// refused inside a phase.
#[test]
fn write_cache_is_set_for_the_whole_run() {
    let p = plan("target { write_cache off }\nphase \"p\" { erase discard }");
    assert_eq!(p.write_cache, WriteCache::Off);
    assert_eq!(plan("phase \"p\" { erase discard }").write_cache, WriteCache::AsIs);
    let text = p.write(Format::Ron);
    assert!(text.contains("write_cache: off"), "{text}");
    assert!(!plan("phase \"p\" { erase discard }").write(Format::Ron).contains("write_cache"));
    assert_eq!(codes("phase \"p\" { target { write_cache on } erase discard }"), [Code::Misplaced]);
}

#[test]
fn a_rate_makes_a_measurement_open_loop_with_its_arrivals() {
    let p = plan(
        "target { workers 4 }\nworkload r { random; block 4KiB; read 100% }\n\
         workload s { blocks { 4KiB: 50%, 12KiB: 50% }; random; read 0% }\n\
         measure r qd 32 rate 50000 iops for 10s\nmeasure s qd 8 rate 80MB/s poisson for 10s",
    );
    let rate = |s: &Step| match &s.action {
        Action::Measure { rate, .. } => *rate,
        other => panic!("not a measure: {other:?}"),
    };
    let uniform = rate(&p.steps[0]).expect("a rate");
    assert_eq!((uniform.amount, uniform.arrivals), (RateAmount::Iops(50_000), Arrivals::Uniform));
    let poisson = rate(&p.steps[1]).expect("a rate");
    assert_eq!(poisson.arrivals, Arrivals::Poisson);
    // 80MB/s over a mean block of 8KiB (4KiB and 12KiB, half each).
    let (w, _) = measure(&p.steps[1]);
    assert_eq!(poisson.iops(w), Some(80e6 / 8192.0));
    assert_eq!(p.steps[0].id, "r-qd32-rate-50000iops");
    assert!(
        p.steps[1].describe().contains("open loop at 80MB/s, Poisson arrivals"),
        "{}",
        p.steps[1].describe()
    );
    assert_eq!(
        codes("workload r { random; block 4KiB; read 100% }\nmeasure r qd 4 rate 0 iops for 1s"),
        [Code::ZeroCount]
    );
    assert_eq!(
        codes("workload r { random; block 4KiB; read 100% }\nmeasure r qd 4 rate 10 /s for 1s"),
        [Code::ExpectedSize]
    );
}

#[test]
fn a_together_step_keeps_each_jobs_workers_depth_rate_and_device() {
    let p = plan(
        "target { workers 4 }\nworkload r { random; block 4KiB; read 100% }\n\
         workload w { sequential; block 128KiB; read 0% }\n\
         together for 1min ramp 5s {\n  job reads r qd 16\n  job writes w qd 8 workers 1 rate 200MB/s device 2\n}",
    );
    let step = &p.steps[0];
    assert_eq!(step.id, "together-reads-writes");
    let Action::Together { jobs, ramp, stop, .. } = &step.action else { panic!("not together") };
    assert_eq!((*ramp, stop.time), (Duration::from_secs(5), Some(Duration::from_secs(60))));
    assert_eq!((jobs[0].qd.workers, jobs[0].qd.per_worker, jobs[0].device), (4, 4, 0));
    assert_eq!((jobs[1].qd.workers, jobs[1].qd.per_worker, jobs[1].device, jobs[1].workers), (1, 8, 1, 1));
    assert_eq!(jobs[1].rate.map(|r| r.amount), Some(RateAmount::Bandwidth(Bytes(200_000_000))));
    assert!(step.action.writes() && !step.establishes_state, "as a measurement that writes");
    assert_eq!(step.estimate.time, TimeRange::exactly(Duration::from_secs(65)));
    assert!(crate::validate(&p).is_empty(), "{}", crate::validate(&p));
    // What a together step needs, and names that clash.
    let w = "workload r { random; block 4KiB; read 100% }\n";
    assert_eq!(codes(&format!("{w}together {{ job a r qd 1 }}")), [Code::MissingOption]);
    assert_eq!(codes(&format!("{w}together for 1s {{ job a r }}")), [Code::MissingOption]);
    assert_eq!(codes(&format!("{w}together for 1s {{ job a r qd 1; job a r qd 2 }}")), [Code::DuplicateName]);
    assert_eq!(codes(&format!("{w}together for 1s {{ job a r qd 1 device 0 }}")), [Code::ZeroCount]);
    assert_eq!(codes(&format!("{w}together for 1s {{ job a r qd 1 workers 0 }}")), [Code::ZeroCount]);
    assert_eq!(codes(&format!("{w}together for 1s {{ }}")), [Code::MissingOption]);
    assert_eq!(codes(&format!("{w}measure r qd 1 for 1s device 2")), [Code::Syntax], "device is a job's");
}

#[test]
fn a_rate_can_be_a_share_of_a_named_measurement_before_it() {
    let p = plan(
        "workload r { random; block 4KiB; read 100% }\n\
         for q in [8, 32] {\n  measure r qd q for 10s as peak\n  \
         for share in [25%, 50%] { measure r qd q rate share of peak for 10s }\n}",
    );
    let shares: Vec<(u32, u32)> = p
        .steps
        .iter()
        .filter_map(|s| match &s.action {
            Action::Measure { rate: Some(Rate { amount: RateAmount::Share { share, of }, .. }), .. } => {
                Some((share.hundredths() / 100, *of))
            }
            _ => None,
        })
        .collect();
    // Each time round the loop, `peak` is that round's closed-loop step.
    assert_eq!(shares, [(25, 0), (50, 0), (25, 3), (50, 3)]);
    assert!(crate::validate(&p).is_empty(), "{}", crate::validate(&p));
    let w = "workload r { random; block 4KiB; read 100% }\n";
    assert_eq!(codes(&format!("{w}measure r qd 4 rate 50% of peak for 1s")), [Code::UnknownName]);
    assert_eq!(
        codes(&format!("{w}measure r qd 4 rate 10 iops for 1s as peak")),
        [Code::ConflictingOption],
        "an open-loop measurement is no peak"
    );
    assert_eq!(
        codes(&format!("{w}measure r qd 4 for 1s as peak\nmeasure r qd 4 rate 0% of peak for 1s")),
        [Code::ZeroCount]
    );
}

#[test]
fn random_offsets_take_a_distribution_and_a_workload_a_trim_share() {
    let p = plan(
        "workload z { random zipf 1.2; block 4KiB; read 100% }\n\
         workload q { random 80% pareto 0.9; block 4KiB; read 50%; trim 10% }\n\
         workload n { random normal 5%; block 4KiB; read 100% }\n\
         workload m { random normal 2.5% around 25%; block 4KiB; read 100% }\n\
         workload b { random bands 50% in 5%, 30% in 15%, 20% in 80%; block 4KiB; read 0% }\n\
         for w in [z, q, n, m, b] { measure w qd 1 for 1s }",
    );
    let got: Vec<(Access, Percent)> =
        p.steps.iter().map(|s| (measure(s).0.access.clone(), measure(s).0.trim)).collect();
    let band = |io, span| Band { io: Percent::whole(io), span: Percent::whole(span) };
    assert_eq!(
        got,
        [
            (Access::Zipf { theta: Milli(1200) }, Percent::ZERO),
            (Access::Pareto { h: Milli(900) }, Percent::whole(10)),
            (Access::Normal { sigma: Percent::whole(5), centre: Percent::whole(50) }, Percent::ZERO),
            (
                Access::Normal { sigma: Percent::from_hundredths(250), centre: Percent::whole(25) },
                Percent::ZERO
            ),
            (Access::Bands(vec![band(50, 5), band(30, 15), band(20, 80)]), Percent::ZERO),
        ]
    );
    let (q, _) = measure(&p.steps[1]);
    assert_eq!(q.write_share(), Percent::whole(40), "writes are what reads and trims leave");
    assert_eq!(q.describe(), "4KiB 80% random (pareto 0.9), 50% read, 10% trim");
    // The distribution and the trim share are part of the I/O: another one is
    // another measurement for diff and compare.
    assert!(!measure(&p.steps[2]).0.same_io(measure(&p.steps[3]).0));
    let plain = plan("measure { random; block 4KiB; read 100% } qd 1 for 1s");
    assert!(!measure(&plain.steps[0]).0.same_io(measure(&p.steps[0]).0));
    // std.mixes' composite has the SNIA hot bands.
    let std = plan("use std.mixes\nmeasure snia_composite qd 1 for 1s");
    assert!(matches!(&measure(&std.steps[0]).0.access, Access::Bands(b) if b.len() == 3));
    // Errors.
    let w = |body: &str| format!("workload w {{ {body}; block 4KiB }}\nmeasure w qd 1 for 1s");
    assert_eq!(codes(&w("random zipf 0; read 100%")), [Code::BadAccess]);
    assert_eq!(codes(&w("random pareto 1; read 100%")), [Code::BadAccess]);
    assert_eq!(codes(&w("random normal 0%; read 100%")), [Code::BadAccess]);
    assert_eq!(codes(&w("random normal 5% around 101%; read 100%")), [Code::BadAccess]);
    assert_eq!(codes(&w("random 0% zipf 1.1; read 100%")), [Code::BadAccess]);
    assert_eq!(codes(&w("random bands 50% in 50%, 40% in 50%; read 100%")), [Code::BadAccess]);
    assert_eq!(codes(&w("random zipf 1.2345; read 100%")), [Code::TooPrecise]);
    // A distribution without its parameter is that, not a variable named `zipf`.
    assert_eq!(codes(&w("random zipf; read 100%")), [Code::Syntax]);
    assert_eq!(codes(&w("random; read 95%; trim 10%")), [Code::ShareRange]);
    // `zipf` is a keyword only after `random`.
    assert!(codes("let zipf = 4\nmeasure { random; block 4KiB; read 100% } qd zipf for 1s").is_empty());
}

#[test]
fn verify_marks_the_step_and_changes_what_it_measures() {
    let p = plan(
        "workload s { sequential; block 128KiB; read 0% }\nworkload r { random; block 4KiB; read 100% }\n\
         fill s verify\nmeasure r qd 4 for 1s verify\nsweep r qd [1, 2] record 1s verify\nmeasure r qd 4 for 1s",
    );
    let verify: Vec<bool> = p.steps.iter().map(|s| s.verify).collect();
    assert_eq!(verify, [true, true, true, true, false]);
    let keys = |i: usize| IoKey::of_step(&p.steps[i]);
    assert_ne!(keys(1), keys(4), "verification is part of what a step measures");
    assert!(keys(1)[0].describe().ends_with(", verified"));
    assert_eq!(
        codes(
            "rounds { measure { random; block 4KiB; read 0% } qd 1 for 1s verify } until steady { window 2; max_rounds 3 }"
        ),
        [Code::Misplaced]
    );
    assert_eq!(
        codes(
            "rounds { sweep { random; block 4KiB; read 0% } qd [1, 2] record 1s as s } until steady { window 2; max_rounds 3; \
             track { random; block 4KiB; read 0% } qd 2 }"
        ),
        [Code::Misplaced]
    );
}

#[test]
fn measurements_take_their_own_workers_and_an_operating_point_from_named_rounds() {
    let p = plan(
        "conventions { queue_depth per_worker }\ntarget { workers 2 }\n\
         workload mix { random; block 8KiB; read 65% }\n\
         rounds {\n  for t in [1, 2, 4] { for q in [1, 4] { measure mix qd q workers t for 1s } }\n\
         } until steady { window 2; max_rounds 3; track mix qd 4 workers 4 } as dirth\n\
         measure mix at max of dirth under 5ms for 1s\nmeasure mix at mid of dirth for 1s\n\
         measure mix at min of dirth for 1s\nsweep mix qd [1, 2] workers 4 record 1s as s2\n\
         measure mix at max of s2 for 1s\nmeasure mix qd 2 for 1s",
    );
    let Action::Rounds { cells, track, .. } = &p.steps[0].action else { panic!("rounds first") };
    let layout: Vec<(u32, u32)> = cells.iter().map(|c| (c.qd.workers, c.qd.per_worker)).collect();
    assert_eq!(layout, [(1, 1), (1, 4), (2, 1), (2, 4), (4, 1), (4, 4)]);
    assert_eq!(*track, 5, "track picks the cell by its queue depth and workers");
    let point = |i: usize| match &p.steps[i].action {
        Action::Measure { at: Some(pt), .. } => (pt.pick, pt.of.clone(), pt.under_ns),
        other => panic!("no operating point: {other:?}"),
    };
    assert_eq!(point(1), (Pick::Max, vec![0], Some(5_000_000)));
    assert_eq!(point(2), (Pick::Mid, vec![0], None));
    assert_eq!(point(3), (Pick::Min, vec![0], None));
    assert_eq!(point(6), (Pick::Max, vec![4, 5], None), "a sweep names every point it measures");
    assert_eq!(measure(&p.steps[4]).1.workers, 4);
    assert_eq!(measure(&p.steps[7]).1.workers, 2, "the target's workers otherwise");
    assert_eq!(p.steps[1].qd().as_deref(), Some("max of dirth"));
    assert!(crate::validate(&p).is_empty(), "{}", crate::validate(&p));
    // Errors: an unknown name, `at` with `qd`, a track that stays ambiguous.
    let w = "workload mix { random; block 8KiB; read 65% }\n";
    assert_eq!(codes(&format!("{w}measure mix at max of nothing for 1s")), [Code::UnknownName]);
    assert_eq!(
        codes(&format!("{w}sweep mix qd [1, 2] record 1s as s\nmeasure mix qd 4 at max of s for 1s")),
        [Code::ConflictingOption]
    );
    assert_eq!(
        codes(&format!(
            "{w}target {{ workers 2 }}\nrounds {{ for t in [1, 2] {{ measure mix qd 2 workers t for 1s }} }} \
             until steady {{ window 2; max_rounds 3; track mix qd 2 }}"
        )),
        [Code::BadTrack]
    );
    assert_eq!(
        codes(&format!("{w}target {{ devices 2; workers 2 }}\nmeasure mix qd 4 workers 3 for 1s")),
        [Code::WorkerLayout]
    );
}

#[test]
fn bursts_can_be_counted_in_periods() {
    let p = plan("measure { random; block 4KiB; read 0% } qd 4 bursts 5s every 10s times 360");
    let Action::Measure { stop, pauses, .. } = &p.steps[0].action else { panic!("a measure") };
    assert_eq!(stop.time, Some(Duration::from_secs(3600)));
    assert_eq!(pauses.bursts.map(|b| b.on), Some(Duration::from_secs(5)));
    let w = "workload w { random; block 4KiB; read 0% }\n";
    assert_eq!(
        codes(&format!("{w}measure w qd 4 bursts 5s every 10s times 3 for 1min")),
        [Code::ConflictingOption]
    );
    assert_eq!(codes(&format!("{w}measure w qd 4 bursts 5s every 10s times 0")), [Code::ZeroCount]);
}

#[test]
fn local_marks_the_steps_fio_cannot_run_and_nothing_else() {
    let p = plan(
        "dataset d { files 2; size 1MiB }\n\
         phase \"x\" { erase discard local; drop_caches local; limit_ram 2GiB local; copy d local\n\
         probe pages { io 1KiB; step 512B; range 64KiB } local; drop_caches; limit_ram none }",
    );
    let local: Vec<(&str, bool)> = p.steps.iter().map(|s| (s.action.kind(), s.local)).collect();
    assert_eq!(
        local,
        [
            ("erase", true),
            ("drop_caches", true),
            ("limit_ram", true),
            ("copy", true),
            ("probe", true),
            ("drop_caches", false),
            ("limit_ram", false)
        ]
    );
    assert!(p.steps.iter().all(|s| s.action.may_be_local()));
    assert_eq!(p.steps[1].describe(), "drop caches (local: on the conductor)");
    assert_eq!(p.steps[5].describe(), "drop caches");
    assert_eq!(p.steps[1].id, "x/drop-caches", "local leaves the id alone");
    assert_eq!(p.steps[2].ram_limit, Some(Bytes(2 << 30)), "a local limit holds for the steps after it");
    // In the plan only when set, so that plans without it stay as they were.
    let ron = p.to_ron();
    assert_eq!(ron.matches("local: true").count(), 5, "{ron}");
    assert!(!ron.contains("local: false"), "{ron}");
    assert_eq!(Plan::from_ron(&ron).unwrap(), p);
    assert_eq!(Plan::from_json(&p.to_json()).unwrap(), p);
    assert!(crate::validate(&p).is_empty(), "{}", crate::validate(&p));
    // A plan edited to make a step local that runs on every host is refused.
    let mut edited = plan("measure { random; block 4KiB; read 0% } qd 1 for 1s");
    edited.steps[0].local = true;
    assert_eq!(crate::validate(&edited).iter().map(|d| d.code).collect::<Vec<_>>(), [Code::PlanInvalid]);
}

#[test]
fn local_on_a_step_that_runs_on_every_host_is_refused() {
    let w = "workload w { random; block 4KiB; read 0% }\n";
    for step in [
        "fill w local",
        "precondition w qd 4 for 1s local",
        "sweep w qd [1, 2] record 1s local",
        "measure w local qd 1 for 1s",
        "idle 1s local",
        "together for 1s local { job a w qd 1 }",
        "qos w qd 1 { p99 under 1ms; probe 1s } local",
        "rounds { measure w qd 1 for 1s } until steady { window 2; max_rounds 3; track w } local",
        "rounds { measure w qd 1 for 1s local } until steady { window 2; max_rounds 3; track w }",
    ] {
        let src = format!("{H}{w}{step}");
        let diags = crate::check(&src);
        let codes: Vec<Code> = diags.iter().map(|d| d.code).collect();
        assert_eq!(codes, [Code::NotLocal], "{step}: {diags}");
        let d = &diags.0[0];
        let at = d.span.expect("a place");
        assert_eq!(&src[at.start..at.end], "local", "{step}");
        assert!(d.message.ends_with("cannot be `local`: it runs on every host"), "{}", d.message);
        assert!(d.hint.as_deref().is_some_and(|h| h.contains("erase, drop_caches, limit_ram, copy, probe")));
    }
    // The step is still checked.
    let mut got = codes(&format!("{w}measure w qd 0 for 1s local"));
    got.sort();
    assert_eq!(got, [Code::QdRange, Code::NotLocal]);
}

#[test]
fn a_qos_search_by_queue_depth_takes_the_ceiling_and_refuses_rate_settings() {
    let w = "workload r { random; block 4KiB; read 100% }\n";
    let p = plan(&format!("{w}qos r qd 128 {{ p99.9 under 1ms; probe 10s; ramp 2s; by qd }}"));
    let Action::Qos(q) = &p.steps[0].action else { panic!("not a qos step") };
    assert_eq!((q.by, q.qd.per_worker, q.percentile_ppm, q.under_ns), (QosAxis::Qd, 128, 999_000, 1_000_000));
    assert_eq!(p.steps[0].id, "qos-r-qd128-p99.9-under-1ms-by-qd");
    assert_eq!(q.probes(), depth_probes(128));
    let by_rate = plan(&format!("{w}qos r qd 8 {{ p99 under 1ms; probe 1s; by rate }}"));
    let Action::Qos(q) = &by_rate.steps[0].action else { panic!("not a qos step") };
    assert_eq!(q.by, QosAxis::Rate);
    for setting in ["precision 2%", "poisson", "uniform"] {
        let src = format!("{H}{w}qos r qd 8 {{ p99 under 1ms; probe 1s; {setting}; by qd }}");
        let diags = crate::check(&src);
        assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), [Code::ConflictingOption], "{setting}");
        let d = &diags.0[0];
        let at = d.span.expect("a place");
        assert_eq!(&src[at.start..at.end], setting);
        assert!(d.hint.as_deref().is_some_and(|h| h.contains("leave it out with `by qd`")), "{:?}", d.hint);
    }
    assert_eq!(
        codes(&format!("{w}qos r qd 8 {{ p99 under 1ms; probe 1s; by qd; by rate }}")),
        [Code::DuplicateSetting]
    );
    // A plan edited by hand to give a search by queue depth arrivals is refused.
    let mut edited = p.clone();
    if let Action::Qos(q) = &mut edited.steps[0].action {
        q.arrivals = Arrivals::Poisson;
    }
    assert!(crate::validate(&p).is_empty());
    assert_eq!(crate::validate(&edited).iter().map(|d| d.code).collect::<Vec<_>>(), [Code::PlanInvalid]);
}
