//! Pauses between I/Os, end to end on a file: think time caps how many
//! I/Os a worker starts (at most `every` between two pauses), and bursts
//! leave the series' intervals outside each burst empty but for the I/Os
//! in flight when the burst ended. Decided by counts: a slower machine
//! starts fewer I/Os, never more.

mod common;

use methodic_compiler::plan::Plan;
use methodic_runtime::{Quiet, RunOptions, RunReport, Status, run};

fn compile(step: &str) -> Plan {
    let src = format!(
        "methodology \"t\" version \"1\"\ntarget {{ span 16MiB; workers 1; io buffered }}\n\
         workload r {{ random; block 4KiB; read 100% }}\n{step}\n"
    );
    methodic_compiler::compile(&src, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan
}

fn run_plan(plan: &Plan, name: &str) -> (RunReport, std::path::PathBuf) {
    let opts = RunOptions { out: common::temp_path(name), skip_ceiling: true, ..Default::default() };
    let report = run(plan, &opts, &mut Quiet).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.status, Status::Completed, "{:?}", report.error);
    (report, opts.out)
}

#[test]
fn think_time_caps_the_ios_a_worker_starts() {
    // 10 I/Os, then 20ms of nothing: in 1s at most 50 pauses end, so at
    // most 51 runs of 10 I/Os start; a busy machine starts fewer.
    let plan = compile("measure r qd 2 for 1s think 20ms every 10");
    let (report, out) = run_plan(&plan, "pauses-think");
    let ios = report.steps[0].summary.as_ref().unwrap().total.ios;
    assert!(ios > 0 && ios <= 510 + 2, "{ios} I/Os in 1s with 20ms of think time after every 10");
    // Without it, a file in the page cache serves far more.
    let free = compile("measure r qd 2 for 1s");
    let (report, out2) = run_plan(&free, "pauses-free");
    assert!(report.steps[0].summary.as_ref().unwrap().total.ios > 512 * 4, "the cap is the think time's");
    let _ = std::fs::remove_dir_all(out);
    let _ = std::fs::remove_dir_all(out2);
}

#[test]
fn bursts_start_ios_only_in_the_first_part_of_each_period() {
    let plan = compile("measure r qd 2 for 2s series 100ms bursts 200ms every 1s");
    let (report, out) = run_plan(&plan, "pauses-bursts");
    let step = &report.steps[0];
    let csv = std::fs::read_to_string(out.join(step.series.as_ref().unwrap())).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let (t, ios) = (
        header.iter().position(|h| *h == "t_s").expect("a t_s column"),
        header.iter().position(|h| *h == "iops").expect("an iops column"),
    );
    let rows: Vec<(f64, f64)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[t].parse().unwrap(), f[ios].parse().unwrap())
        })
        .collect();
    assert!(rows.len() >= 15, "{csv}");
    for (at, n) in &rows {
        // An interval that ends at `at` covers (at - 0.1, at]: those wholly
        // between 0.3s and 1.0s, or 1.3s and 2.0s, are outside a burst and
        // its tail (the I/Os in flight as it ended complete by 0.3s).
        let into = (at - 0.1) % 1.0;
        if into > 0.29 && into < 0.9 {
            assert_eq!(*n, 0.0, "I/Os completed at {at}s, outside a burst: {csv}");
        }
    }
    assert!(rows.iter().any(|r| r.1 > 0.0), "{csv}");
    let _ = std::fs::remove_dir_all(out);
}
