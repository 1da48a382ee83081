//! Any text through plan loading (`methodic run PLAN.ron`, `--resume`):
//! nothing may panic; a plan that loads survives RON and JSON round trips
//! unchanged, its rehearsal is a valid plan too, and it differs from
//! itself in nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use methodic_compiler::plan::Plan;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(plan) = methodic_compiler::load_plan(text) else { return };
    let ron = plan.to_ron();
    assert_eq!(Plan::from_ron(&ron).expect("a written plan reads back"), plan, "RON round trip");
    assert_eq!(Plan::from_json(&plan.to_json()).expect("JSON reads back"), plan, "JSON round trip");
    assert_eq!(methodic_compiler::source_hash(&Plan::from_ron(&ron).unwrap().to_ron()), methodic_compiler::source_hash(&ron));
    let rehearsal = methodic_runtime::rehearse(&plan, false);
    let problems = methodic_compiler::validate(&rehearsal);
    assert!(!problems.has_errors(), "a valid plan's rehearsal is invalid: {problems:?}");
    let d = methodic_compiler::diff::diff(&plan, &plan);
    assert!(d.changes.is_empty(), "a plan differs from itself: {:?}", d.changes);
});
