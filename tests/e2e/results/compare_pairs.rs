//! How `methodic compare` pairs steps and names drive states, by "the same
//! I/O" (`IoKey`) as `methodic diff` defines it: a workload's offset keeps
//! steps apart, a workload's name does not, and a precondition renamed but
//! otherwise identical leaves the drive state the same. The last tests
//! rehearse in-process and call `methodic_results::view::compare` on the
//! results read back (and changed), with no binary in between.

use crate::common;
use common::{methodic, run_source, text};
use methodic_results::export::{Exports, Format};
use methodic_results::manifest::Loaded;
use methodic_results::view::compare::{Comparison, comparison};
use methodic_runtime::{Quiet, RunOptions};

/// A rehearsal of `source`; the results folder (its parent is the caller's
/// to remove).
fn rehearse(name: &str, source: &str) -> std::path::PathBuf {
    run_source(&format!("compare-pairs-{name}"), source, &["--rehearse", "--no-ceiling", "--seed", "7"])
}

/// Two rehearsals at once: they mostly wait on their steps' timers.
fn both<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    std::thread::scope(|s| {
        let b = s.spawn(b);
        (a(), b.join().unwrap())
    })
}

/// `compare --json A B`.
fn compare_json(a: &std::path::Path, b: &std::path::Path) -> serde_json::Value {
    let o = methodic(&["compare", "--json", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn field_names(v: &serde_json::Value) -> Vec<String> {
    v["differences"].as_array().unwrap().iter().map(|d| d["field"].as_str().unwrap().to_string()).collect()
}

/// A precondition of `name`, then a sweep that reads: only the
/// precondition's workload name varies.
fn preconditioned(name: &str) -> String {
    format!(
        "methodology \"named\" version \"1.0\"\n\
         target {{ span 64MiB }}\n\
         workload {name} {{ random; block 4KiB; read 0% }}\n\
         workload rnd4k_read {{ random; block 4KiB; read 100% }}\n\
         phase \"prepare\" {{ precondition {name} qd 32 for 2s }}\n\
         phase \"measure\" {{ sweep rnd4k_read qd [1, 4] record 200ms }}\n"
    )
}

/// Removes `preconditions_by_io` from every drive state of the run's
/// manifest, as manifests written before it lack it; how many it removed.
fn forget_preconditions_by_io(dir: &std::path::Path) -> usize {
    let path = dir.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut removed = 0;
    for step in m["steps"].as_array_mut().unwrap() {
        if let Some(state) = step["checklist"]["drive_state"].as_object_mut() {
            removed += usize::from(state.remove("preconditions_by_io").is_some());
        }
    }
    std::fs::write(&path, serde_json::to_string_pretty(&m).unwrap()).unwrap();
    removed
}

#[test]
fn a_renamed_but_identical_precondition_is_the_same_drive_state() {
    let (a, b) = both(
        || rehearse("w4", &preconditioned("w4")),
        || rehearse("writesmall", &preconditioned("writesmall")),
    );
    // diff calls the plans the same: a name is presentation.
    let (sa, sb) = (a.parent().unwrap().join("m.method"), b.parent().unwrap().join("m.method"));
    let d = methodic(&["diff", sa.to_str().unwrap(), sb.to_str().unwrap()]);
    assert_eq!(d.status.code(), Some(0), "diff: a renamed workload is no change: {}", text(&d.stdout));

    let v = compare_json(&a, &b);
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 3, "the precondition and both measurements pair: {v}");
    assert!(v["unpaired"].as_array().unwrap().is_empty(), "{v}");
    let fields = field_names(&v);
    assert!(!fields.iter().any(|f| f == "drive state"), "the same drive state: {fields:?}");

    // The text names the drive state by what the precondition does, with
    // no workload name in it.
    let t = text(&methodic(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]).stdout);
    assert!(!t.contains("- drive state"), "{t}");

    // Manifests written before the runtime named preconditions by what
    // they do (no `preconditions_by_io`) read the same way.
    for d in [&a, &b] {
        assert!(forget_preconditions_by_io(d) > 0, "the rehearsal names its precondition by I/O");
    }
    let fields = field_names(&compare_json(&a, &b));
    assert!(!fields.iter().any(|f| f == "drive state"), "old manifests: the same drive state: {fields:?}");
    for d in [a, b] {
        std::fs::remove_dir_all(d.parent().unwrap()).unwrap();
    }
}

#[test]
fn a_drive_state_is_named_by_what_the_precondition_does() {
    // Against a precondition that writes more at a time, the drive states
    // differ, and both are told in I/O, not in workload names.
    let small = preconditioned("w4");
    let big = preconditioned("w4").replace("block 4KiB; read 0%", "block 128KiB; read 0%");
    let (a, b) = both(|| rehearse("small-state", &small), || rehearse("big-state", &big));
    let v = compare_json(&a, &b);
    let state = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["field"] == "drive state")
        .unwrap_or_else(|| panic!("another precondition is another drive state: {v}"));
    let (sa, sb) = (state["a"].as_str().unwrap(), state["b"].as_str().unwrap());
    assert!(sa.starts_with("preconditioned (4KiB random, 0% read at QD 32 for"), "{sa}");
    assert!(sb.starts_with("preconditioned (128KiB random, 0% read at QD 32 for"), "{sb}");
    assert!(!sa.contains("w4") && !sb.contains("w4"), "no workload name: {sa}; {sb}");
    for d in [a, b] {
        std::fs::remove_dir_all(d.parent().unwrap()).unwrap();
    }
}

/// A QD1 random read sweep whose workload has `offset`.
fn at_offset(offset: &str) -> String {
    format!(
        "methodology \"offset\" version \"1.0\"\n\
         target {{ span 64MiB }}\n\
         workload r {{ random; block 4KiB; read 100%{offset} }}\n\
         phase \"measure\" {{ sweep r qd [1, 4] record 200ms }}\n"
    )
}

#[test]
fn steps_that_differ_in_offset_do_not_pair() {
    let (a, b) =
        both(|| rehearse("offset-0", &at_offset("")), || rehearse("offset-1m", &at_offset("; offset 1MiB")));
    // diff calls them different: the workload's I/O changed.
    let (sa, sb) = (a.parent().unwrap().join("m.method"), b.parent().unwrap().join("m.method"));
    let d = methodic(&["diff", sa.to_str().unwrap(), sb.to_str().unwrap()]);
    assert_eq!(d.status.code(), Some(2), "diff: a breaking change: {}", text(&d.stdout));

    let v = compare_json(&a, &b);
    assert!(v["pairs"].as_array().unwrap().is_empty(), "no step pairs across another offset: {v}");
    let unpaired = v["unpaired"].as_array().unwrap();
    assert_eq!(unpaired.len(), 4, "each run's two steps, on their own: {v}");
    for u in unpaired {
        assert_eq!(u["in_runs"].as_array().unwrap().len(), 1, "{u}");
    }
    // The same offset on both sides pairs again.
    let c = rehearse("offset-1m-again", &at_offset("; offset 1MiB"));
    let v = compare_json(&b, &c);
    assert_eq!(v["pairs"].as_array().unwrap().len(), 2, "{v}");
    for d in [a, b, c] {
        std::fs::remove_dir_all(d.parent().unwrap()).unwrap();
    }
}

/// Rehearses `src` in-process and reads the results back.
fn run(name: &str, src: &str) -> Loaded {
    rehearsed(name, src, false)
}

/// A rehearsal of `src` read back, with the host ceilings measured when
/// `ceiling` (only the ceiling test needs them: they cost a second a run).
fn rehearsed(name: &str, src: &str, ceiling: bool) -> Loaded {
    let plan = methodic_compiler::compile(src, &Default::default()).unwrap().plan;
    let out = common::temp_path(&format!("compare-{name}"));
    let opts = RunOptions {
        out: out.clone(),
        rehearse: true,
        seed: 3,
        skip_ceiling: !ceiling,
        ..Default::default()
    };
    methodic_runtime::run(&plan, &opts, &mut Quiet).unwrap();
    let loaded = methodic_results::manifest::load(&out).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
    loaded
}

const BASE: &str = "methodology \"c\" version \"1\"\n\
    workload r { random; block 4KiB; read 100% }\n\
    workload s { sequential; block 128KiB; read 0% }\n";

#[test]
fn steps_pair_within_their_phase_before_across_phases() {
    let (a, b) = both(
        || {
            run(
                "pair-a",
                &format!(
                    "{BASE}phase \"fill\" {{ fill s passes 1 }}\nphase \"m\" {{ sweep r qd [1, 2] record 200ms }}\n"
                ),
            )
        },
        || {
            run(
                "pair-b",
                &format!(
                    "{BASE}phase \"fresh\" {{ sweep r qd [1, 2] record 200ms }}\nphase \"fill\" {{ fill s passes 1 }}\n\
                     phase \"m\" {{ sweep r qd [1, 2] record 200ms }}\n"
                ),
            )
        },
    );
    let c = comparison(&[a, b]);
    let ids: Vec<(&str, &str)> =
        c.pairs.iter().map(|p| (p.values[0].step_id.as_str(), p.values[1].step_id.as_str())).collect();
    assert_eq!(ids, [("fill/fill-s", "fill/fill-s"), ("m/r-qd1", "m/r-qd1"), ("m/r-qd2", "m/r-qd2"),]);
    let only: Vec<&str> = c.unpaired.iter().flat_map(|u| u.step_ids.iter().map(String::as_str)).collect();
    assert_eq!(only, ["fresh/r-qd1", "fresh/r-qd2"]);
    assert!(c.unpaired.iter().all(|u| u.in_runs == ["B"]));
}

#[test]
fn host_ceilings_apart_by_more_than_a_tenth_are_a_difference() {
    let mut a = rehearsed("ceiling", &format!("{BASE}sweep r qd [1, 2] record 200ms\n"), true);
    let ceilings = a.manifest.ceilings.as_mut().expect("a rehearsal measures the ceilings");
    assert_eq!(ceilings.shapes.len(), 2, "QD1 and QD2 of 4KiB");
    // Known rates, so that what is compared does not hang on how fast this
    // machine read RAM in 50ms (a loaded machine may measure next to nothing).
    for s in &mut ceilings.shapes {
        s.iops = 100_000.0;
    }
    let field =
        |c: &Comparison| c.differences.iter().find(|d| d.field == "host ceiling").map(|d| d.sentence.clone());
    let mut b = a.clone();
    let c = b.manifest.ceilings.as_mut().unwrap();
    c.shapes[0].iops *= 1.05;
    assert_eq!(field(&comparison(&[a.clone(), b.clone()])), None, "within 10%: noise");
    let c = b.manifest.ceilings.as_mut().unwrap();
    c.shapes[1].iops *= 0.5;
    let sentence = field(&comparison(&[a.clone(), b.clone()])).expect("half the ceiling at one shape");
    assert!(sentence.contains("at 1 of the 2 I/O shapes both runs measured"), "{sentence}");
    assert!(
        sentence.contains(&a.manifest.ceilings.as_ref().unwrap().shapes[1].shape.to_string()),
        "{sentence}"
    );
    b.manifest.ceilings = None;
    assert_eq!(field(&comparison(&[a, b])), None, "nothing to compare with");
}

#[test]
fn a_renamed_phase_still_pairs_and_a_failed_step_has_no_ratio() {
    let (a, mut b) = both(
        || run("renamed-a", &format!("{BASE}phase \"one\" {{ sweep r qd [1, 2] record 200ms }}\n")),
        || run("renamed-b", &format!("{BASE}phase \"two\" {{ sweep r qd [1, 2] record 200ms }}\n")),
    );
    b.steps[1].error = Some("interrupted".into());
    let c = comparison(&[a, b]);
    assert_eq!(c.pairs.len(), 2, "paired by workload and QD across the rename");
    assert!(c.unpaired.is_empty());
    assert!(c.pairs[0].ratios[0].is_some_and(|r| r > 0.0));
    assert_eq!(c.pairs[1].ratios[0], None, "a failed step gets no ratio");
    let t = c.export(Format::Table).unwrap();
    assert!(t.contains("(failed)") && t.contains("1 paired step failed or was interrupted"), "{t}");
    assert!(t.contains("1 paired measurements; B/A geometric mean"), "{t}");
}

/// Two runs whose hosts differ in CPU frequency governor and C-states:
/// compare names each with what it does to the numbers; a run from before
/// the power settings were recorded differs in none of them.
#[test]
fn a_governor_and_c_states_that_differ_are_named() {
    let mut a = run("governor", &format!("{BASE}sweep r qd [1] record 200ms\n"));
    assert!(a.manifest.host.power.is_some(), "a run records its host's power settings");
    let power = |governor: &str, c6_disabled: bool| methodic_results::host::Power {
        governor: Some(governor.into()),
        frequency_driver: Some("intel_pstate".into()),
        turbo: Some(true),
        idle_driver: Some("intel_idle".into()),
        idle_states: vec![methodic_results::host::IdleState { name: "C6".into(), disabled: c6_disabled }],
        ..Default::default()
    };
    a.manifest.host.power = Some(power("performance", false));
    let mut b = a.clone();
    b.manifest.host.power = Some(power("powersave", true));
    let c = comparison(&[a.clone(), b.clone()]);
    let found = |field: &str| c.differences.iter().find(|d| d.field == field);
    let g = found("CPU frequency governor").expect("the governors differ");
    assert_eq!((g.a.as_str(), g.b.as_str()), ("performance (intel_pstate)", "powersave (intel_pstate)"));
    assert!(g.sentence.contains("latency at low queue depth rises"), "{}", g.sentence);
    let cs = found("C-states").expect("C6 is disabled in B");
    assert_eq!((cs.a.as_str(), cs.b.as_str()), ("intel_idle: C6", "intel_idle: C6 disabled"));
    assert!(cs.sentence.contains("wake-up time"), "{}", cs.sentence);
    assert!(found("turbo").is_none(), "turbo is on in both");
    b.manifest.host.power = None;
    let c = comparison(&[a, b]);
    let power_fields = ["CPU frequency governor", "turbo", "C-states"];
    assert!(
        !c.differences.iter().any(|d| power_fields.contains(&d.field.as_str())),
        "an older run recorded none: nothing to compare"
    );
}
