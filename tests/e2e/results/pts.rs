//! The constructs SNIA PTS-E's host idle recovery, cross-stimulus
//! recovery, ECW and DIRTH need, run end to end in rehearsals: a thread x
//! queue-depth matrix in rounds named for later, and measurements at the
//! operating points chosen from its results (the most IOPS, the nearest
//! halfway, the fewest, of those under a mean latency), checked against
//! the same choice made here from the rounds' own results; a zipf
//! distribution, hot bands and a trim share run in the same rehearsal.

use std::path::{Path, PathBuf};

use crate::common;

/// Rehearses `source` in `name`'s folder; the results directory.
fn rehearse(name: &str, source: &str) -> PathBuf {
    common::run_source(&format!("pts-{name}"), source, &["--rehearse", "--no-ceiling", "--seed", "3"])
}

fn steps(out: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(out.join("steps.jsonl")).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// A cell of the matrix as the rounds step recorded it: workers, total
/// queue depth, steady-window IOPS and mean latency.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Cell {
    workers: u64,
    qd: u64,
    iops: f64,
    mean_us: f64,
}

/// What the PTS asks of each pick, written out again here: of the cells
/// under the limit, the most IOPS, the fewest, or the IOPS nearest
/// halfway between them; fewer workers, then a lower queue depth, first.
fn choose(cells: &[Cell], pick: &str, under_us: f64) -> Cell {
    let kept: Vec<Cell> = cells.iter().copied().filter(|c| c.mean_us < under_us).collect();
    let most = kept.iter().map(|c| c.iops).fold(f64::MIN, f64::max);
    let fewest = kept.iter().map(|c| c.iops).fold(f64::MAX, f64::min);
    let score = |c: &Cell| match pick {
        "max" => -c.iops,
        "min" => c.iops,
        _ => (c.iops - (most + fewest) / 2.0).abs(),
    };
    let mut sorted = kept.clone();
    sorted
        .sort_by(|a, b| score(a).total_cmp(&score(b)).then(a.workers.cmp(&b.workers)).then(a.qd.cmp(&b.qd)));
    sorted[0]
}

#[test]
fn operating_points_are_chosen_from_the_matrix_as_the_pts_chooses_them() {
    let out = rehearse(
        "points",
        "methodology \"mini-dirth\" version \"1\"\n\
         conventions { queue_depth per_worker }\n\
         target { workers 2 }\n\
         workload w { random; block 4KiB; read 0% }\n\
         workload oltp { random zipf 1.2; block 4KiB; read 65% }\n\
         fill { sequential; block 128KiB; read 0% }\n\
         rounds {\n  measure w qd 4 workers 2 for 300ms\n  \
           for t in [2, 1] { for q in [4, 1] { measure oltp qd q workers t for 300ms } }\n\
         } until steady { window 2; max_rounds 2; track oltp qd 4 workers 2 } as matrix\n\
         measure oltp at max of matrix under 5s for 300ms\n\
         measure oltp at mid of matrix under 5s for 300ms\n\
         measure oltp at min of matrix for 300ms\n\
         measure { random bands 50% in 5%, 50% in 95%; block 4KiB; read 50%; trim 20% } qd 2 for 300ms\n",
    );
    let steps = steps(&out);
    let rounds = steps.iter().find(|s| s["kind"] == "rounds").expect("a rounds step");
    let cells: Vec<Cell> = rounds["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["workload"] == "oltp")
        .map(|c| Cell {
            workers: c["workers"].as_u64().unwrap(),
            qd: c["qd"].as_u64().unwrap(),
            iops: c["window_iops"].as_f64().unwrap(),
            mean_us: c["window_mean_latency_us"].as_f64().unwrap(),
        })
        .collect();
    let layouts: Vec<(u64, u64)> = cells.iter().map(|c| (c.workers, c.qd)).collect();
    assert_eq!(
        layouts,
        [(2, 8), (2, 2), (1, 4), (1, 1)],
        "the matrix as written, each cell on its own workers"
    );
    // The pre-write cell (workload w, the round's first) is no candidate:
    // the points are the tracked workload's.
    let all: Vec<Cell> = cells.clone();
    for (id_part, pick, under) in [
        ("at-max-of-matrix", "max", 5e6),
        ("at-mid-of-matrix", "mid", 5e6),
        ("at-min-of-matrix", "min", f64::MAX),
    ] {
        let step = steps.iter().find(|s| s["id"].as_str().unwrap().contains(id_part)).expect(id_part);
        let io = &step["io"];
        let ran = io["threads"].as_u64().unwrap() * io["depth"].as_u64().unwrap();
        let want = choose(&all, pick, under);
        assert_eq!(ran, want.qd, "{pick}: it ran at QD {ran}, the rounds' results give {want:?} of {all:?}");
        let actions: Vec<&str> =
            step["actions"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        let said = format!("queue depth {} (", want.qd);
        assert!(actions.iter().any(|a| a.starts_with(&said)), "{pick}: {actions:?}");
    }
    // A distribution and a trim share run end to end: the trims are
    // counted on their own and make up the total with reads and writes.
    let last = steps.last().unwrap();
    let count = |op: &str| last["summary"][op]["ios"].as_u64().unwrap_or(0);
    assert!(count("trim") > 0 && count("read") > 0 && count("write") > 0, "{}", last["summary"]);
    assert_eq!(
        count("read") + count("write") + count("trim"),
        last["summary"]["total"]["ios"].as_u64().unwrap()
    );
    let plan = std::fs::read_to_string(out.join("plan.ron")).unwrap();
    assert!(plan.contains("bands") && plan.contains("zipf"), "the plan keeps both distributions");
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
}
