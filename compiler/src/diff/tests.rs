//! The diff's unit tests: plans compiled from small methodologies and
//! what their diff must say.

use super::*;

fn plan(body: &str) -> Plan {
    let src = format!(
        "methodology \"t\" version \"1\"\n\
         workload r {{ random; block 4KiB; read 100% }}\n\
         workload w {{ random; block 4KiB; read 0% }}\n\
         workload s {{ sequential; block 128KiB; read 0% }}\n{body}"
    );
    crate::compile(&src, &Default::default()).unwrap_or_else(|d| panic!("{d:?}")).plan
}

const BASE: &str = "phase \"prep\" { erase discard\n fill s passes 2\n precondition w qd 32 for 1h }\n\
                    phase \"a\" { sweep r qd [1, 4] ramp 5s record 1min }\n\
                    phase \"b\" { sweep w qd [1, 4] ramp 5s record 1min }\n";

fn classes(d: &PlanDiff) -> Vec<(Class, &str)> {
    d.changes.iter().map(|c| (c.class, c.what.as_str())).collect()
}

#[test]
fn the_same_plan_is_no_change() {
    let d = diff(&plan(BASE), &plan(BASE));
    assert!(d.changes.is_empty(), "{:?}", d.changes);
    assert_eq!((d.exit_code(), d.matched, d.comparable.len()), (0, 7, 7));
}

#[test]
fn a_renamed_workload_is_no_change() {
    let renamed = BASE.replace("sweep r ", "sweep rr ");
    let p = plan(&format!("workload rr {{ random; block 4KiB; read 100% }}\n{renamed}"));
    assert!(diff(&plan(BASE), &p).changes.is_empty());
}

#[test]
fn a_read_share_breaks_the_steps_that_use_it() {
    let p = plan(&format!(
        "workload r2 {{ random; block 4KiB; read 70% }}\n{}",
        BASE.replace("sweep r ", "sweep r2 ")
    ));
    let d = diff(&plan(BASE), &p);
    assert_eq!(classes(&d), [(Class::BreaksComparability, "workload")]);
    assert_eq!(d.changes[0].steps, ["a/r2-qd1", "a/r2-qd4"]);
    assert_eq!(d.changes[0].old, "4KiB random, 100% read");
    assert_eq!(d.changes[0].new, "4KiB random, 70% read");
    assert_eq!(d.exit_code(), 2);
}

#[test]
fn record_and_ramp_times_shift_precision() {
    let d = diff(&plan(BASE), &plan(&BASE.replace("ramp 5s record 1min", "ramp 10s record 30s")));
    assert_eq!(classes(&d), [(Class::ShiftsPrecision, "ramp time"), (Class::ShiftsPrecision, "record time")]);
    assert_eq!(d.changes[1].affected, "all 4 measure steps");
    assert_eq!((d.exit_code(), d.comparable.len()), (1, 7));
}

#[test]
fn a_longer_precondition_breaks_every_step_after_it() {
    let d = diff(&plan(BASE), &plan(&BASE.replace("for 1h", "for 6h")));
    assert_eq!(classes(&d), [(Class::BreaksComparability, "precondition length or stop rule")]);
    let c = &d.changes[0];
    assert_eq!((c.old.as_str(), c.new.as_str()), ("for 1h", "for 6h"));
    assert_eq!(c.steps.len(), 5, "the precondition and the 4 measurements: {:?}", c.steps);
    assert_eq!(d.comparable, ["prep/erase-discard", "prep/fill-s"]);
}

#[test]
fn span_io_and_cache_policy_break_comparability() {
    let span = diff(&plan(BASE), &plan(&format!("target {{ span 25% }}\n{BASE}")));
    assert!(span.changes.iter().all(|c| c.class == Class::BreaksComparability && c.what == "span"));
    assert_eq!(span.changes[0].affected, "every step (7)");
    let io = diff(&plan(BASE), &plan(&format!("target {{ io buffered }}\n{BASE}")));
    assert_eq!(classes(&io), [(Class::BreaksComparability, "io mode")]);
    let buffered = format!("target {{ io buffered }}\n{BASE}");
    let dropped = plan(&buffered.replace("phase \"a\" { sweep", "phase \"a\" { drop_caches\n sweep"));
    let d = diff(&plan(&buffered), &dropped);
    assert_eq!(
        classes(&d),
        [(Class::BreaksComparability, "caches dropped"), (Class::AddsRemovesSteps, "step added")]
    );
    assert_eq!(d.changes[0].steps, ["a/r-qd1"], "only the step right after the drop");
    // Direct I/O bypasses the cache: the same drop moves no number.
    let direct =
        diff(&plan(BASE), &plan(&BASE.replace("phase \"a\" { sweep", "phase \"a\" { drop_caches\n sweep")));
    assert_eq!(
        classes(&direct),
        [(Class::AddsRemovesSteps, "step added"), (Class::PresentationOnly, "caches dropped")]
    );
}

#[test]
fn an_inserted_step_leaves_the_others_matched() {
    let p = plan(&BASE.replace("phase \"b\" {", "phase \"b\" { measure r qd 8 for 1min\n"));
    let d = diff(&plan(BASE), &p);
    assert_eq!(classes(&d), [(Class::AddsRemovesSteps, "step added")]);
    assert_eq!(d.changes[0].steps, ["b/r-qd8"]);
    assert_eq!((d.matched, d.exit_code()), (7, 1));
}

#[test]
fn a_deleted_step_is_named_from_the_old_plan() {
    let p = plan(&BASE.replace("sweep w qd [1, 4]", "sweep w qd [4]"));
    let d = diff(&plan(BASE), &p);
    assert_eq!(classes(&d), [(Class::AddsRemovesSteps, "step removed")]);
    assert_eq!(d.changes[0].steps, ["b/w-qd1"]);
    assert_eq!(d.matched, 6);
}

#[test]
fn reordered_phases_match_and_only_the_order_changes() {
    let swapped = "phase \"prep\" { erase discard\n fill s passes 2\n precondition w qd 32 for 1h }\n\
                   phase \"b\" { sweep w qd [1, 4] ramp 5s record 1min }\n\
                   phase \"a\" { sweep r qd [1, 4] ramp 5s record 1min }\n";
    let d = diff(&plan(BASE), &plan(swapped));
    assert_eq!(d.matched, 7);
    assert_eq!(classes(&d), [(Class::PresentationOnly, "step order")]);
    assert_eq!(d.exit_code(), 1);
    // Moving the precondition after the sweeps changes their drive state.
    let late = "phase \"prep\" { erase discard\n fill s passes 2 }\n\
                phase \"a\" { sweep r qd [1, 4] ramp 5s record 1min }\n\
                phase \"b\" { sweep w qd [1, 4] ramp 5s record 1min }\n\
                phase \"prep2\" { precondition w qd 32 for 1h }\n";
    let d = diff(&plan(BASE), &plan(late));
    let state = d.changes.iter().find(|c| c.what == "drive state before the step").expect("drive state");
    assert_eq!(state.steps.len(), 4, "{:?}", state.steps);
    assert!(state.old.contains("precondition w QD 32 for 1h") && !state.new.contains("precondition"));
    assert_eq!(d.exit_code(), 2);
}

#[test]
fn on_error_is_a_run_level_change_that_keeps_every_result_comparable() {
    let d = diff(&plan(BASE), &plan(&format!("on_error continue\n{BASE}")));
    assert_eq!(classes(&d), [(Class::PresentationOnly, "on error")]);
    let c = &d.changes[0];
    assert_eq!((c.old.as_str(), c.new.as_str()), ("on_error stop", "on_error continue"));
    assert!(c.steps.is_empty(), "no step's numbers change: {:?}", c.steps);
    assert_eq!((d.exit_code(), d.comparable.len()), (1, 7));
    // Spelling out the default is no change.
    assert!(diff(&plan(BASE), &plan(&format!("on_error stop\n{BASE}"))).changes.is_empty());
}

#[test]
fn a_changed_write_cache_breaks_comparability() {
    let a = plan(&format!("target {{ write_cache off }}\n{BASE}"));
    let d = diff(&a, &plan(BASE));
    assert_eq!(classes(&d), [(Class::BreaksComparability, "write cache")]);
    assert!(diff(&plan(BASE), &plan(&format!("target {{ write_cache as_is }}\n{BASE}"))).changes.is_empty());
}

#[test]
fn an_erase_method_change_breaks_comparability() {
    let purge = BASE.replacen("erase discard", "erase purge", 1);
    assert_ne!(purge, BASE, "the base plan erases first");
    let d = diff(&plan(BASE), &plan(&purge));
    assert!(classes(&d).contains(&(Class::BreaksComparability, "erase method")), "{:?}", classes(&d));
}

#[test]
fn repeats_units_and_descriptions() {
    let a = plan(&format!("conventions {{ units decimal }}\n{BASE}"));
    let b = plan(&format!("conventions {{ units binary }}\ndescribe \"x\"\n{BASE}"));
    let d = diff(&a, &b);
    assert_eq!(classes(&d), [(Class::PresentationOnly, "description"), (Class::PresentationOnly, "units")]);
    assert_eq!(d.exit_code(), 1);
}

#[test]
fn swapped_preparation_steps_change_the_drive_state_of_what_follows() {
    let swapped = BASE.replace(
        " fill s passes 2\n precondition w qd 32 for 1h }",
        " precondition w qd 32 for 1h\n fill s passes 2 }",
    );
    let d = diff(&plan(BASE), &plan(&swapped));
    let flagged: Vec<&String> =
        d.changes.iter().filter(|c| c.what == "drive state before the step").flat_map(|c| &c.steps).collect();
    assert!(flagged.contains(&&"a/r-qd1".to_string()), "{flagged:?}");
    assert!(!d.comparable.contains(&"a/r-qd1".to_string()));
    assert_eq!(d.exit_code(), 2);
}

#[test]
fn a_renamed_phase_with_a_changed_workload_still_breaks() {
    let p = plan(&format!(
        "workload r70 {{ random; block 4KiB; read 70% }}\n{}",
        BASE.replace("phase \"a\" { sweep r ", "phase \"4KiB random\" { sweep r70 ")
    ));
    let d = diff(&plan(BASE), &p);
    assert!(
        d.changes.iter().any(|c| c.what == "workload" && c.class == Class::BreaksComparability),
        "{:?}",
        classes(&d)
    );
    assert!(d.changes.iter().any(|c| c.what == "phase name"));
    assert!(!d.changes.iter().any(|c| c.class == Class::AddsRemovesSteps), "{:?}", classes(&d));
    assert_eq!(d.exit_code(), 2);
}

#[test]
fn idle_and_sustained_writes_count_as_drive_state() {
    let idle = diff(&plan(BASE), &plan(&BASE.replace("phase \"a\" {", "phase \"a\" { idle 1h\n")));
    assert_eq!(idle.exit_code(), 2, "{:?}", classes(&idle));
    let longer = diff(
        &plan(&BASE.replace("phase \"a\" {", "phase \"a\" { idle 1s\n")),
        &plan(&BASE.replace("phase \"a\" {", "phase \"a\" { idle 1h\n")),
    );
    let c = longer.changes.iter().find(|c| c.what == "idle time").unwrap();
    assert!(c.steps.len() > 1, "the steps after the idle: {:?}", c.steps);
    let capped = diff(
        &plan("measure s qd 32 until written 400%\n"),
        &plan("measure s qd 32 for 1min until written 400%\n"),
    );
    assert_eq!(classes(&capped), [(Class::BreaksComparability, "record time")]);
    let reads = diff(
        &plan("measure r qd 1 until transferred 1GB\n"),
        &plan("measure r qd 1 until transferred 2GB\n"),
    );
    assert_eq!(classes(&reads), [(Class::ShiftsPrecision, "until transferred")]);
    let writes = diff(
        &plan("measure s qd 1 until transferred 1GB\n"),
        &plan("measure s qd 1 until transferred 2GB\n"),
    );
    assert_eq!(classes(&writes), [(Class::BreaksComparability, "until transferred")]);
    let other =
        diff(&plan("measure s qd 1 until written 1GB\n"), &plan("measure s qd 1 until transferred 1GB\n"));
    assert_eq!(other.exit_code(), 2, "{:?}", classes(&other));
}

#[test]
fn identical_steps_pair_by_their_drive_state() {
    let old =
        "erase discard\nmeasure r qd 1 for 1min\nprecondition w qd 32 for 1h\nmeasure r qd 1 for 1min\n";
    let new = "erase discard\nprecondition w qd 32 for 1h\nmeasure r qd 1 for 1min\n";
    let d = diff(&plan(old), &plan(new));
    assert_eq!(classes(&d), [(Class::AddsRemovesSteps, "step removed")], "{:?}", d.changes);
    assert_eq!(d.changes[0].steps, [plan(old).steps[1].id.clone()]);
    assert_eq!(d.exit_code(), 1);
}

#[test]
fn counting_the_same_queue_depth_another_way_is_presentation() {
    let a = plan("conventions { queue_depth total }\ntarget { workers 4 }\nmeasure r qd 128 for 1min\n");
    let b = plan("conventions { queue_depth per_worker }\ntarget { workers 4 }\nmeasure r qd 32 for 1min\n");
    let d = diff(&a, &b);
    assert_eq!(classes(&d), [(Class::PresentationOnly, "QD counting")]);
    let one =
        diff(&plan("measure r qd 1 for 1min\n"), &plan("target { workers 4 }\nmeasure r qd 1 for 1min\n"));
    assert!(one.changes.is_empty(), "QD 1 runs on one worker either way: {:?}", one.changes);
}

#[test]
fn a_changed_rate_or_concurrent_job_breaks_comparability() {
    let open = |rate: &str| plan(&format!("measure r qd 8 rate {rate} for 1min\n"));
    let d = diff(&open("1000 iops"), &open("2000 iops poisson"));
    assert!(d.exit_code() != 0, "{:?}", d.changes);
    assert!(
        d.changes.iter().all(|c| c.class == Class::BreaksComparability),
        "a new rate is another load: {:?}",
        classes(&d)
    );
    let closed = plan("measure r qd 8 for 1min\n");
    assert!(diff(&closed, &open("1000 iops")).changes.iter().any(|c| c.class == Class::BreaksComparability));
    let together = |second: &str| {
        plan(&format!("together for 1min {{\n  job reads r qd 4\n  job writes {second}\n}}\n"))
    };
    let d = diff(&together("s qd 8 rate 200MB/s"), &together("s qd 8 rate 400MB/s"));
    assert!(
        d.changes.iter().any(|c| c.class == Class::BreaksComparability),
        "another background load: {:?}",
        classes(&d)
    );
    assert!(diff(&together("s qd 8"), &together("s qd 8")).changes.is_empty());
}

#[test]
fn renamed_and_reordered_jobs_doing_the_same_are_no_change() {
    let a = plan("together for 1min {\n  job reads r qd 4\n  job writes s qd 8 rate 200MB/s\n}\n");
    let b = plan(
        "workload r2 { random; block 4KiB; read 100% }\n\
         together for 1min {\n  job background s qd 8 rate 200MB/s\n  job foreground r2 qd 4\n}\n",
    );
    let d = diff(&a, &b);
    assert!(d.changes.iter().all(|c| c.class != Class::BreaksComparability), "{:?}", classes(&d));
}

#[test]
fn a_distribution_a_trim_share_verification_or_operating_point_breaks_comparability() {
    let zipf = plan(&format!(
        "workload rz {{ random zipf 1.2; block 4KiB; read 100% }}\n{}",
        BASE.replace("sweep r ", "sweep rz ")
    ));
    let d = diff(&plan(BASE), &zipf);
    assert_eq!(classes(&d), [(Class::BreaksComparability, "workload")]);
    assert_eq!(
        (d.changes[0].old.as_str(), d.changes[0].new.as_str()),
        ("4KiB random, 100% read", "4KiB random (zipf 1.2), 100% read")
    );
    let trim = plan(&format!(
        "workload wt {{ random; block 4KiB; read 0%; trim 10% }}\n{}",
        BASE.replace("sweep w ", "sweep wt ")
    ));
    let d = diff(&plan(BASE), &trim);
    assert_eq!(d.changes[0].new, "4KiB random, 0% read, 10% trim");
    assert_eq!(d.exit_code(), 2);
    let verified = plan(
        &BASE.replace("ramp 5s record 1min }\nphase \"b\"", "ramp 5s record 1min verify }\nphase \"b\""),
    );
    let d = diff(&plan(BASE), &verified);
    assert_eq!(classes(&d), [(Class::BreaksComparability, "verification")]);
    assert_eq!(d.changes[0].steps, ["a/r-qd1", "a/r-qd4"]);
    let fixed = format!("{BASE}sweep r qd [1, 4] record 1s as s\nmeasure r qd 4 for 1s");
    let chosen = format!("{BASE}sweep r qd [1, 4] record 1s as s\nmeasure r at max of s for 1s");
    let d = diff(&plan(&fixed), &plan(&chosen));
    assert_eq!(classes(&d), [(Class::BreaksComparability, "operating point")]);
}

#[test]
fn a_step_made_local_is_listed_and_keeps_results_comparable() {
    let local = plan(&BASE.replace("erase discard\n", "erase discard local\n"));
    let d = diff(&plan(BASE), &local);
    assert_eq!(classes(&d), [(Class::PresentationOnly, "local")]);
    let c = &d.changes[0];
    assert_eq!((c.old.as_str(), c.new.as_str()), ("not local", "local"));
    assert_eq!(
        c.steps,
        ["prep/erase-discard"],
        "the erase's drive state is the same: no later step is touched"
    );
    assert_eq!((d.exit_code(), d.matched, d.comparable.len()), (1, 7, 7));
    // And back again.
    let d = diff(&local, &plan(BASE));
    assert_eq!(classes(&d), [(Class::PresentationOnly, "local")]);
    assert_eq!((d.changes[0].old.as_str(), d.changes[0].new.as_str()), ("local", "not local"));
    assert_eq!(d.exit_code(), 1);
}

#[test]
fn a_qos_search_by_queue_depth_instead_of_rate_breaks_comparability() {
    let rate = plan("qos r qd 32 { p99 under 1ms; probe 10s }");
    let depth = plan("qos r qd 32 { p99 under 1ms; probe 10s; by qd }");
    let d = diff(&rate, &depth);
    assert_eq!(classes(&d), [(Class::BreaksComparability, "latency QoS search")]);
    assert!(d.changes[0].reason.contains("answer different questions"), "{}", d.changes[0].reason);
    assert!(d.changes[0].new.contains("by queue depth up to 32 per worker"), "{}", d.changes[0].new);
    let longer = plan("qos r qd 32 { p99 under 1ms; probe 20s; by qd }");
    assert_eq!(classes(&diff(&depth, &longer)), [(Class::ShiftsPrecision, "latency QoS search")]);
}

/// `repeat 3` and `repeat 3..10 until cv 3%` are not the same repeat: the
/// rule is said, beside the count; a changed least run or limit too.
#[test]
fn a_repeat_rule_is_said_apart_from_the_count() {
    let m = |head: &str| plan(&format!("phase \"a\" {{ {head} {{ measure r qd 1 for 1s }} }}"));
    let what = |d: &PlanDiff| -> Vec<(Class, String, String, String)> {
        d.changes.iter().map(|c| (c.class, c.what.clone(), c.old.clone(), c.new.clone())).collect()
    };
    let d = diff(&m("repeat 3"), &m("repeat 3..3 until cv 3%"));
    assert_eq!(
        what(&d),
        [(Class::ShiftsPrecision, "repeat rule".into(), "3 runs".into(), "3..3 until cv 3%".into())]
    );
    assert!(d.changes[0].reason.contains("rests on their spread"), "{}", d.changes[0].reason);
    let d = diff(&m("repeat 3..10 until cv 3%"), &m("repeat 2..10 until cv 5%"));
    assert_eq!(
        what(&d),
        [(
            Class::ShiftsPrecision,
            "repeat rule".into(),
            "3..10 until cv 3%".into(),
            "2..10 until cv 5%".into()
        )]
    );
    assert_eq!(d.exit_code(), 1);
    // M alone is the repeat count, with the runs added or removed.
    let d = diff(&m("repeat 3..10 until cv 3%"), &m("repeat 3..12 until cv 3%"));
    assert!(d.changes.iter().any(|c| c.what == "repeat count" && c.class == Class::ShiftsPrecision));
    assert!(!d.changes.iter().any(|c| c.what == "repeat rule"), "{:?}", classes(&d));
    assert!(diff(&m("repeat 3..10 until cv 3%"), &m("repeat 3..10 until cv 3%")).changes.is_empty());
}
