//! Compiler benchmarks (`cargo bench --bench compile`): compiling the whole
//! spec library, and a generated methodology that lowers to 100,000 steps,
//! broken down by stage. Prints the median and the spread of repeated runs;
//! it asserts nothing about time. Figures go in README.md ("Performance").

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use methodic_compiler::plan::Plan;
use methodic_compiler::{Options, compile, load_plan, validate};

/// Runs `f` until `budget` has passed (at least `min_runs` times) and
/// returns the sorted run times.
fn time<T>(min_runs: usize, budget: Duration, mut f: impl FnMut() -> T) -> Vec<Duration> {
    let mut runs = Vec::new();
    let start = Instant::now();
    while runs.len() < min_runs || start.elapsed() < budget {
        let t = Instant::now();
        black_box(f());
        runs.push(t.elapsed());
    }
    runs.sort();
    runs
}

fn report(name: &str, runs: &[Duration], per: Option<(u64, &str)>) {
    let median = runs[runs.len() / 2];
    let (min, max) = (runs[0], runs[runs.len() - 1]);
    let mut line = format!(
        "{name:<44} median {:>10.3} ms  (min {:.3}, max {:.3}, {} runs)",
        median.as_secs_f64() * 1e3,
        min.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3,
        runs.len()
    );
    if let Some((n, unit)) = per {
        line.push_str(&format!("  {:.0} {unit}/s", n as f64 / median.as_secs_f64()));
    }
    println!("{line}");
}

/// A methodology whose read-share sweep lowers to 100 x 1000 = 100,000 steps.
const GENERATED: &str = r#"methodology "generated" version "1.0"
describe "100 read shares x 1000 queue depths"
target { workers 1 }
workload w { random; block 4KiB; read 0% }
sweep w qd 1..1000 read 0%..99% step 1% ramp 1s record 1s
"#;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut specs: Vec<(String, String)> = std::fs::read_dir(root.join("specs"))
        .expect("specs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "method"))
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).expect("readable spec")))
        .collect();
    specs.sort();
    let budget = Duration::from_secs(3);

    println!("methodic compiler benchmarks ({} specs)", specs.len());
    let steps: u64 = specs
        .iter()
        .map(|(_, s)| compile(s, &Options::default()).expect("spec compiles").plan.steps.len() as u64)
        .sum();
    let runs = time(20, budget, || {
        for (_, src) in &specs {
            black_box(compile(src, &Options::default()).expect("spec compiles"));
        }
    });
    report(&format!("compile all {} specs ({steps} steps)", specs.len()), &runs, Some((steps, "steps")));

    let runs = time(20, budget, || {
        for (_, src) in &specs {
            black_box(methodic_grammar::parse(src).expect("spec parses"));
        }
    });
    report("parse all specs", &runs, None);

    let runs = time(20, budget, || {
        for (_, src) in &specs {
            black_box(methodic_grammar::format(src).expect("spec formats"));
        }
    });
    report("format all specs", &runs, None);

    let compiled = compile(GENERATED, &Options::default()).expect("generated methodology compiles");
    let n = compiled.plan.steps.len() as u64;
    assert_eq!(n, 100_000, "the generated methodology lowers to 100,000 steps");
    let runs = time(5, budget, || compile(GENERATED, &Options::default()).expect("compiles"));
    report("compile generated (100,000 steps)", &runs, Some((n, "steps")));

    let runs = time(5, budget, || compiled.plan.to_ron());
    let ron = compiled.plan.to_ron();
    report(&format!("write plan as RON ({:.1} MB)", ron.len() as f64 / 1e6), &runs, Some((n, "steps")));

    let runs = time(5, budget, || compiled.plan.to_json());
    report("write plan as JSON", &runs, Some((n, "steps")));

    let runs = time(5, budget, || Plan::from_ron(&ron).expect("plan reads"));
    report("read plan from RON", &runs, Some((n, "steps")));

    let runs = time(5, budget, || validate(&compiled.plan));
    report("validate plan", &runs, Some((n, "steps")));

    let runs = time(5, budget, || load_plan(&ron).expect("plan loads"));
    report("read and validate plan from RON", &runs, Some((n, "steps")));
}
