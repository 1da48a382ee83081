//! The spec library as a whole: every spec is canonically formatted, the
//! formatter is idempotent and meaning-preserving on it, every plan
//! round-trips and validates, and the enterprise sweep's estimate is the
//! sum of its steps, worked out by hand.

use std::path::{Path, PathBuf};

use methodic_compiler::plan::{Action, Duration, Percent, Plan, PreconditionStop, TimeRange};
use methodic_compiler::{Options, compile, validate};

fn specs() -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
    let mut out: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "method"))
        .map(|p| {
            let src = std::fs::read_to_string(&p).unwrap();
            (p, src)
        })
        .collect();
    out.sort();
    assert!(out.len() >= 15, "the spec library has {} files", out.len());
    out
}

fn plan_of(src: &str) -> Plan {
    compile(src, &Options::default()).unwrap_or_else(|d| panic!("{d}")).plan
}

/// The plan without what depends on the exact bytes of the source.
fn semantic(mut p: Plan) -> Plan {
    p.methodology.source_hash.clear();
    p
}

#[test]
fn the_library_has_the_required_files() {
    let names: Vec<String> =
        specs().iter().map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    for required in
        ["enterprise-sweep.method", "consumer-v1.0.method", "consumer-v1.1.method", "quick.method"]
    {
        assert!(names.iter().any(|n| n == required), "specs/{required} is missing");
    }
    for (path, src) in specs() {
        assert!(
            src.starts_with('#'),
            "{} does not open with a comment citing what it models",
            path.display()
        );
    }
}

#[test]
fn every_spec_is_formatted_and_fmt_is_idempotent() {
    for (path, src) in specs() {
        let once = methodic_grammar::format(&src).unwrap();
        assert_eq!(once, src, "{} is not formatted: run `methodic fmt {}`", path.display(), path.display());
        assert_eq!(methodic_grammar::format(&once).unwrap(), once);
    }
}

#[test]
fn fmt_restores_messy_specs_without_changing_their_meaning() {
    for (path, src) in specs() {
        // Strip indentation, double every space outside comments and strings.
        let messy: String = src
            .lines()
            .map(|l| {
                let l = l.trim_start();
                if l.starts_with('#') || l.contains('"') { l.to_string() } else { l.replace(' ', "  ") }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let formatted =
            methodic_grammar::format(&messy).unwrap_or_else(|d| panic!("{}: {d}", path.display()));
        assert_eq!(formatted, src, "{}", path.display());
        assert_eq!(semantic(plan_of(&messy)), semantic(plan_of(&src)), "{}", path.display());
        let comments = |s: &str| s.lines().filter(|l| l.trim_start().starts_with('#')).count();
        assert_eq!(comments(&formatted), comments(&src), "{} lost comments", path.display());
    }
}

#[test]
fn every_plan_round_trips_and_validates() {
    for (path, src) in specs() {
        let plan = plan_of(&src);
        let problems = validate(&plan);
        assert!(problems.is_empty(), "{}: {problems}", path.display());
        assert_eq!(Plan::from_ron(&plan.to_ron()).unwrap(), plan, "{}", path.display());
        assert_eq!(Plan::from_json(&plan.to_json()).unwrap(), plan, "{}", path.display());
        assert_eq!(plan_of(&src).to_ron(), plan.to_ron(), "{}: compiling twice differs", path.display());
    }
}

/// The enterprise sweep, by hand: three block-size families, each a 6h
/// precondition then two sweeps of 9 queue depths at 30s + 300s; then four
/// server mixes, each a 2-pass fill (device-bound), a 6h precondition and
/// one 9-step sweep.
#[test]
fn enterprise_sweep_estimate_is_the_sum_of_its_steps() {
    let src =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/enterprise-sweep.method"))
            .unwrap();
    let plan = plan_of(&src);

    let step = 30 + 300;
    let family = 6 * 3600 + 2 * 9 * step; // 27,540 s = 7h 39min
    let mix = 6 * 3600 + 9 * step; // 24,570 s
    let total = 3 * family + 4 * mix; // 180,900 s = 50h 15min
    assert_eq!(total, 180_900);
    assert_eq!(plan.estimate.time, TimeRange::exactly(Duration::from_secs(total)));
    assert_eq!(plan.estimate.time.human(), "50h 15min");

    let sum = plan.steps.iter().fold(0u64, |acc, s| acc + s.estimate.time.max.as_millis());
    assert_eq!(sum, total * 1000);
    assert_eq!(plan.steps.len(), 3 * (1 + 18) + 4 * (1 + 1 + 9));
    assert_eq!(plan.estimate.device_bound_steps, 4, "the four fills");
    assert_eq!(plan.estimate.written.capacity, Percent::whole(800), "four fills of two passes");

    let per_phase: Vec<(String, u64)> =
        plan.phases().into_iter().map(|p| (p.phase.unwrap(), p.time.max.as_millis() / 1000)).collect();
    assert_eq!(
        per_phase,
        [
            ("4KiB random".to_string(), family),
            ("8KiB random".to_string(), family),
            ("128KiB sequential".to_string(), family),
            ("server mixes".to_string(), 4 * mix),
        ]
    );
    let preconditions = plan
        .steps
        .iter()
        .filter(|s| matches!(&s.action, Action::Precondition { stop: PreconditionStop::Time(d), .. } if *d == Duration::from_secs(21_600)))
        .count();
    assert_eq!(preconditions, 7);
}
