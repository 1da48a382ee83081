//! How `methodic compare` pairs steps and names drive states, by "the same
//! I/O" (`IoKey`) as `methodic diff` defines it: a workload's offset keeps
//! steps apart, a workload's name does not, and a precondition renamed but
//! otherwise identical leaves the drive state the same.

mod common;
use common::{methodic, run_source, text};

/// A rehearsal of `source`; the results folder (its parent is the caller's
/// to remove).
fn rehearse(name: &str, source: &str) -> std::path::PathBuf {
    run_source(&format!("compare-pairs-{name}"), source, &["--rehearse", "--seed", "7"])
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
         phase \"measure\" {{ sweep rnd4k_read qd [1, 4] record 1s }}\n"
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
    let a = rehearse("w4", &preconditioned("w4"));
    let b = rehearse("writesmall", &preconditioned("writesmall"));
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
    let a = rehearse("small-state", &preconditioned("w4"));
    let big = preconditioned("w4").replace("block 4KiB; read 0%", "block 128KiB; read 0%");
    let b = rehearse("big-state", &big);
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
         phase \"measure\" {{ sweep r qd [1, 4] record 1s }}\n"
    )
}

#[test]
fn steps_that_differ_in_offset_do_not_pair() {
    let a = rehearse("offset-0", &at_offset(""));
    let b = rehearse("offset-1m", &at_offset("; offset 1MiB"));
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
