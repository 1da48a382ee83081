//! The host ceiling: what the host and the engine reach with no device in
//! the way, for each I/O shape the plan's steps use. A plan goes in; out
//! come its distinct shapes (the engine, its threads and the I/Os each
//! keeps in flight, and the block sizes: the work the host does for an
//! I/O), each measured once per run by reading a file in RAM (tmpfs at
//! /dev/shm) as the step's workers would; and for each step, the ceiling
//! of its own shape, with a sentence when its IOPS or MB/s comes within
//! 10% of it: the number may be the host's, not the drive's.

use std::time::{Duration, Instant};

use methodic_compiler::plan::{Action, Plan, Qd, Step, Target, Workload};
use methodic_results::ceiling::{Ceilings, Shape, StepCeiling};
use methodic_results::record::StepResult;

use crate::rng::Rng;
use methodic_results::engine::EngineKind;

/// The most shapes a run measures. Each records `seconds_each` (0.5s in
/// a run, 0.05s in a rehearsal) after a ramp of a fifth of that: at most
/// about 40s before the first step of a run. The enterprise sweep, with
/// six block mixes at nine queue depths, uses 54.
pub const MAX_SHAPES: usize = 64;

/// One I/O a step does: a workload kept at a queue depth (a rounds step
/// has one a cell), and its shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Use<'p> {
    pub workload: &'p Workload,
    pub qd: Qd,
    pub shape: Shape,
}

/// The I/Os of `step` (run with the plan's `target` settings unless it has
/// its own), with the shape of each; `engine_of` is the engine the
/// executor chooses for a queue on that many devices.
pub fn step_uses<'p>(
    step: &'p Step,
    target: Target,
    engine_of: &dyn Fn(&Qd, usize) -> EngineKind,
) -> Vec<Use<'p>> {
    let devices = step.target.unwrap_or(target).devices.max(1) as usize;
    let uses: Vec<(&Workload, Qd)> = match &step.action {
        Action::Fill { workload, qd, .. }
        | Action::Precondition { workload, qd, .. }
        | Action::Measure { workload, qd, .. } => vec![(workload, *qd)],
        Action::Rounds { cells, .. } => cells.iter().map(|c| (&c.workload, c.qd)).collect(),
        // Jobs at once and a search's probes at set rates are not one
        // shape's closed loop: no ceiling of one shape judges them.
        Action::Together { .. } | Action::Qos(_) => Vec::new(),
        Action::Erase { .. }
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => Vec::new(),
    };
    uses.into_iter()
        .map(|(workload, qd)| Use { workload, qd, shape: Shape::of(engine_of(&qd, devices), &qd, workload) })
        .collect()
}

/// The distinct shapes of the plan's I/O steps, in the order first used.
pub fn plan_shapes(plan: &Plan, engine_of: &dyn Fn(&Qd, usize) -> EngineKind) -> Vec<Shape> {
    let mut out: Vec<Shape> = Vec::new();
    for step in &plan.steps {
        for u in step_uses(step, plan.target, engine_of) {
            if !out.contains(&u.shape) {
                out.push(u.shape);
            }
        }
    }
    out
}

/// The shapes to measure, at most [`MAX_SHAPES`], and those left out.
/// With too many, the smallest blocks go first (the host's cost an I/O
/// shows most where the device's is least), then the shallowest queues
/// (QD1 is where the host shows most in latency); the measured keep the
/// plan's order.
pub fn choose(shapes: Vec<Shape>) -> (Vec<Shape>, Vec<Shape>) {
    if shapes.len() <= MAX_SHAPES {
        return (shapes, Vec::new());
    }
    let mut order: Vec<usize> = (0..shapes.len()).collect();
    let mean = |s: &Shape| s.blocks.iter().map(|b| b.share.of(b.size.0)).sum::<u64>();
    order.sort_by_key(|&i| (mean(&shapes[i]), shapes[i].threads * shapes[i].depth, i));
    let mut keep = vec![false; shapes.len()];
    for &i in &order[..MAX_SHAPES] {
        keep[i] = true;
    }
    let (mut measured, mut left) = (Vec::new(), Vec::new());
    for (s, k) in shapes.into_iter().zip(keep) {
        if k { measured.push(s) } else { left.push(s) }
    }
    (measured, left)
}

/// The ceilings of a step's I/Os (`uses`, from [`step_uses`]), one a
/// workload and queue depth, and a sentence when what `result` recorded
/// comes within 10% of them: a step's summary, or each cell's window
/// average of a rounds step.
pub fn judge(
    ceilings: &Ceilings,
    uses: &[Use<'_>],
    result: &StepResult,
) -> (Vec<StepCeiling>, Option<String>) {
    let mut named: Vec<StepCeiling> = Vec::new();
    let mut flags: Vec<(f64, String)> = Vec::new();
    for u in uses {
        let (name, qd) = (&u.workload.name, u.qd.total);
        if named.iter().any(|n| &n.workload == name && n.qd == qd) {
            continue;
        }
        let Some(c) = ceilings.of(&u.shape) else { continue };
        named.push(StepCeiling { workload: name.clone(), qd, ceiling: c.clone() });
        let value = match &result.cells {
            Some(cells) => cells
                .iter()
                .find(|cell| &cell.workload == name && cell.qd == qd)
                .map(|cell| (cell.window_iops, cell.window_mb_s)),
            None => result.summary.as_ref().map(|s| (s.total.iops, s.total.mb_s)),
        };
        if let Some(flag) = value.and_then(|(iops, mb_s)| c.host_bound(iops, mb_s)) {
            let share = value.map_or(0.0, |(iops, mb_s)| (iops / c.iops).max(mb_s / c.mb_s));
            let flag = if result.cells.is_some() { format!("{name} at QD {qd}: {flag}") } else { flag };
            flags.push((share, flag));
        }
    }
    let sentence = match flags.len() {
        0 => None,
        1 => flags.pop().map(|f| f.1),
        n => {
            let highest =
                flags.iter().max_by(|a, b| a.0.total_cmp(&b.0)).map(|f| f.1.clone()).unwrap_or_default();
            Some(format!(
                "{n} of its {} measurements reach 90% of their host ceilings; the highest, {highest}",
                named.len()
            ))
        }
    };
    (named, sentence)
}

/// Decimal MB/s of copying a 64MiB buffer of the data the engines write,
/// for about `seconds`.
pub fn memory_copy_mb_s(seconds: f64) -> f64 {
    let size = 64 << 20;
    let mut src = vec![0u8; size];
    Rng::new(0xca1b).fill(&mut src);
    let mut dst = vec![0u8; size];
    let budget = Duration::from_secs_f64(seconds.max(0.05));
    let start = Instant::now();
    let mut bytes = 0u64;
    while start.elapsed() < budget {
        dst.copy_from_slice(&src);
        std::hint::black_box(&mut dst);
        bytes += size as u64;
    }
    bytes as f64 / start.elapsed().as_secs_f64() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;
    use methodic_compiler::plan::{BlockShare, Bytes};
    use methodic_results::ceiling::{Legacy, ShapeCeiling};

    fn legacy() -> Legacy {
        Legacy {
            target: "/dev/shm".into(),
            iops: 1_000_000.0,
            iops_block: 4096,
            mb_s: 10_000.0,
            bandwidth_block: 1 << 20,
            qd: 32,
            engine: "psync 32x1".into(),
            memory_copy_mb_s: 20_000.0,
            seconds_each: 1.0,
        }
    }

    #[test]
    fn results_near_the_legacy_ceiling_are_flagged() {
        let c = legacy();
        assert!(
            c.host_bound(950_000.0, 3_900.0)
                .unwrap()
                .starts_with("950000 IOPS is 95% of the host ceiling (1000000 IOPS")
        );
        assert!(c.host_bound(3_000_000.0, 1.0).unwrap().contains("understates"), "300% of the ceiling");
        assert!(c.host_bound(5_000.0, 9_500.0).unwrap().contains("MB/s"));
        assert_eq!(c.host_bound(800_000.0, 8_000.0), None);
        assert_eq!(c.host_bound(f64::NAN, f64::NAN), None);
    }

    fn plan(body: &str) -> Plan {
        let src = format!("methodology \"shapes\" version \"1\"\n{body}");
        methodic_compiler::compile(&src, &Default::default()).unwrap().plan
    }

    /// As `engine_for` on a device, io_uring available: psync for one I/O
    /// in flight a worker, io_uring deeper.
    fn auto(qd: &Qd, _devices: usize) -> EngineKind {
        if qd.per_worker == 1 { EngineKind::Psync } else { EngineKind::IoUring }
    }

    fn shape(engine: EngineKind, threads: u32, depth: u32, kib: u64) -> Shape {
        Shape {
            engine,
            threads,
            depth,
            blocks: vec![BlockShare {
                size: Bytes(kib << 10),
                share: methodic_compiler::plan::Percent::HUNDRED,
            }],
        }
    }

    const WORKLOADS: &str = "workload rnd4k_read { random; block 4KiB; read 100% }\n\
        workload rnd4k_write { random; block 4KiB; read 0% }\n\
        workload seq4k_read { sequential; block 4KiB; read 100% }\n\
        workload seq128k_read { sequential; block 128KiB; read 100% }\n\
        workload seq128k_write { sequential; block 128KiB; read 0% }\n";

    #[test]
    fn a_plans_shapes_are_collected_once_each_in_order() {
        let p = plan(&format!(
            "{WORKLOADS}\
             fill seq128k_write passes 1\n\
             precondition rnd4k_write qd 32 for 1min\n\
             measure rnd4k_read qd 1 for 10s\n\
             measure rnd4k_read qd 32 for 10s\n\
             measure seq128k_read qd 32 for 10s\n\
             measure rnd4k_read qd 1 for 10s\n\
             measure rnd4k_write qd 1 for 10s\n\
             measure seq4k_read qd 32 for 10s\n\
             idle 1s\n"
        ));
        use EngineKind::{IoUring, Psync};
        assert_eq!(
            plan_shapes(&p, &auto),
            vec![
                // The fill's 128KiB writes at QD 32 (a fill's default):
                // the 128KiB reads at QD 32 share its shape.
                shape(IoUring, 1, 32, 128),
                // The precondition's; the later 4KiB at QD 32, random or
                // in sequence, reads or writes, share it.
                shape(IoUring, 1, 32, 4),
                // QD1 has its own.
                shape(Psync, 1, 1, 4),
            ]
        );
        // The engine decides the threads: psync keeps a queue of 32 with
        // 32 threads, whether one worker asked for it or 32 workers did.
        let psync = |_: &Qd, _: usize| Psync;
        let p = plan(&format!(
            "{WORKLOADS}measure rnd4k_read qd 32 for 10s\n\
             phase \"wide\" {{ target {{ workers 32 }}\nmeasure rnd4k_read qd 32 for 10s }}\n"
        ));
        assert_eq!(plan_shapes(&p, &psync), vec![shape(Psync, 32, 1, 4)]);
        assert_eq!(plan_shapes(&p, &auto), vec![shape(IoUring, 1, 32, 4), shape(Psync, 32, 1, 4)]);
        // A rounds step has a shape a cell.
        let p = plan(&format!(
            "{WORKLOADS}rounds {{\n\
               for bs in [4KiB, 128KiB] {{ measure {{ random; block bs; read 0% }} qd 1 for 1min }}\n\
               measure rnd4k_read qd 1 for 1min\n\
             }} until steady {{ window 2\n excursion 20%\n slope 10%\n max_rounds 4\n metric iops\n\
               track {{ random; block 4KiB; read 0% }} }}\n"
        ));
        assert_eq!(plan_shapes(&p, &auto), vec![shape(Psync, 1, 1, 4), shape(Psync, 1, 1, 128)]);
        assert_eq!(step_uses(&p.steps[0], p.target, &auto).len(), 3, "one use a cell");
    }

    #[test]
    fn too_many_shapes_keep_the_smallest_blocks_and_shallowest_queues() {
        let mut all = Vec::new();
        for kib in [1024, 4, 128] {
            for qd in 1..=40u32 {
                all.push(shape(EngineKind::Psync, qd, 1, kib));
            }
        }
        let (measured, left) = choose(all.clone());
        assert_eq!((measured.len(), left.len()), (MAX_SHAPES, all.len() - MAX_SHAPES));
        // Every 4KiB shape, then 128KiB from QD1 up; none of 1MiB.
        assert!(measured.iter().filter(|s| s.largest_block() == Bytes(4 << 10)).count() == 40);
        assert!(measured.contains(&shape(EngineKind::Psync, 1, 1, 128)));
        assert!(!measured.contains(&shape(EngineKind::Psync, 40, 1, 128)));
        assert!(measured.iter().all(|s| s.largest_block() != Bytes(1 << 20)));
        // In the plan's order.
        let pos = |s: &Shape| all.iter().position(|a| a == s).unwrap();
        assert!(measured.windows(2).all(|w| pos(&w[0]) < pos(&w[1])));
        let few = all[..3].to_vec();
        assert_eq!(choose(few.clone()), (few, Vec::new()));
    }

    fn ceilings() -> Ceilings {
        let at = |engine, threads, depth, kib, iops: f64| ShapeCeiling {
            shape: shape(engine, threads, depth, kib),
            iops,
            mb_s: iops * (kib << 10) as f64 / 1e6,
        };
        Ceilings {
            target: "/dev/shm/x (tmpfs)".into(),
            seconds_each: 0.5,
            memory_copy_mb_s: 20_000.0,
            shapes: vec![
                at(EngineKind::Psync, 1, 1, 4, 400_000.0),
                at(EngineKind::IoUring, 1, 32, 4, 1_000_000.0),
                at(EngineKind::IoUring, 1, 32, 128, 100_000.0),
            ],
            unmeasured: Vec::new(),
        }
    }

    fn summary(iops: f64, kib: u64) -> methodic_results::numbers::Summary {
        let mut s = crate::stats::Recorder::default().summary(1.0);
        s.total.iops = iops;
        s.total.mb_s = iops * (kib << 10) as f64 / 1e6;
        s
    }

    #[test]
    fn a_qd1_step_is_judged_against_its_own_ceiling() {
        let p = plan(&format!(
            "{WORKLOADS}measure rnd4k_read qd 1 for 10s\nmeasure seq128k_read qd 32 for 10s\n"
        ));
        let c = ceilings();
        let judge = |i: usize, iops: f64, kib: u64| {
            let mut r = StepResult::new(i, &p.steps[i], false, String::new());
            r.summary = Some(summary(iops, kib));
            judge(&c, &step_uses(&p.steps[i], p.target, &auto), &r)
        };
        // 380000 IOPS at QD1: far below the QD32 ceiling, 95% of QD1's.
        let (named, flag) = judge(0, 380_000.0, 4);
        assert_eq!(named.len(), 1);
        assert_eq!((named[0].workload.as_str(), named[0].qd), ("rnd4k_read", 1));
        assert_eq!(named[0].ceiling, c.shapes[0]);
        assert_eq!(
            flag.as_deref(),
            Some(
                "380000 IOPS is 95% of the host ceiling of its own shape (400000 IOPS reading 4KiB blocks at QD 1 \
                 (psync 1x1) from RAM): possibly host-bound"
            )
        );
        assert_eq!(judge(0, 300_000.0, 4).1, None, "75% of its ceiling");
        // MB/s flags too, and beyond the ceiling says what it understates.
        let (named, flag) = judge(1, 95_000.0, 128);
        assert_eq!(named[0].ceiling, c.shapes[2]);
        assert!(flag.unwrap().starts_with("95000 IOPS is 95%"));
        assert!(judge(1, 200_000.0, 128).1.unwrap().contains("understates"));
        // No measured ceiling of its shape: nothing named, nothing flagged.
        let mut r = StepResult::new(0, &p.steps[0], false, String::new());
        r.summary = Some(summary(f64::NAN, 4));
        assert_eq!(super::judge(&c, &step_uses(&p.steps[0], p.target, &auto), &r).1, None, "no rate");
        let none = |_: &Qd, _: usize| EngineKind::IoUring;
        assert_eq!(super::judge(&c, &step_uses(&p.steps[0], p.target, &none), &r), (Vec::new(), None));
    }

    #[test]
    fn each_cell_of_a_rounds_step_is_judged_against_its_own_ceiling() {
        let p = plan(&format!(
            "{WORKLOADS}rounds {{\n\
               measure rnd4k_read qd 1 for 1min\n\
               measure rnd4k_write qd 32 for 1min\n\
               measure seq128k_read qd 32 for 1min\n\
             }} until steady {{ window 2\n excursion 20%\n slope 10%\n max_rounds 4\n metric iops\n\
               track rnd4k_read }}\n"
        ));
        let c = ceilings();
        let cell = |name: &str, qd: u32, iops: f64, kib: u64| methodic_results::record::CellResult {
            workload: name.into(),
            qd,
            workers: 1,
            window_iops: iops,
            window_mb_s: iops * (kib << 10) as f64 / 1e6,
            window_mean_latency_us: 10.0,
            window_latency_us: Default::default(),
            rounds_latency_us: Vec::new(),
            peak_iops: iops,
            peak_mb_s: iops * (kib << 10) as f64 / 1e6,
            last: summary(iops, kib),
        };
        let mut r = StepResult::new(0, &p.steps[0], false, String::new());
        let uses = step_uses(&p.steps[0], p.target, &auto);
        r.cells = Some(vec![
            cell("rnd4k_read", 1, 390_000.0, 4),
            cell("rnd4k_write", 32, 500_000.0, 4),
            cell("seq128k_read", 32, 95_000.0, 128),
        ]);
        let (named, flag) = judge(&c, &uses, &r);
        assert_eq!(named.iter().map(|n| &n.ceiling).collect::<Vec<_>>(), c.shapes.iter().collect::<Vec<_>>());
        let flag = flag.unwrap();
        assert!(
            flag.starts_with(
                "2 of its 3 measurements reach 90% of their host ceilings; the highest, \
                 rnd4k_read at QD 1: 390000 IOPS is 98%"
            ),
            "{flag}"
        );
        // A cell that did not run (the step failed before it) is named, not judged.
        r.cells = Some(vec![cell("rnd4k_write", 32, 950_000.0, 4)]);
        let (named, flag) = judge(&c, &uses, &r);
        assert_eq!(named.len(), 3);
        assert!(flag.unwrap().starts_with("rnd4k_write at QD 32: 950000 IOPS is 95%"));
    }

    #[test]
    fn memory_copies_at_some_rate() {
        assert!(memory_copy_mb_s(0.05) > 10.0);
    }
}
