//! The host ceiling, measured: I/O shapes go in (an engine, its threads
//! and depth, block sizes); each is run against a file in RAM (tmpfs at
//! /dev/shm) with no device in the way, and what the host reached for
//! each comes out as [`Ceilings`], with a memory copy. Used before a
//! run's first step and by `methodic calibrate` ([`calibrate`]), which
//! builds its shapes from block sizes and queue depths. Choosing a plan's
//! shapes and judging steps against them is `crate::ceiling`'s.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration as StdDuration;

use methodic_compiler::plan::{
    BlockShare, Bytes, Extent, IoMode, Percent, Qd, QdCounting, Target as Settings, Workload,
};

use super::io::{At, IoSpec, Workers};
use super::options::EngineChoice;
use super::signals::stop_flag;
use crate::engine::Real;
use crate::error::describe;
use crate::error::{Error, Result};
use crate::system;
use crate::target::{OpenOptionsT, Target};
use crate::worker;
use methodic_results::ceiling::{Ceilings, Shape};
use methodic_results::engine::EngineKind;

/// Measures the host ceiling on its own (`methodic calibrate`): one
/// worker keeping each of `qds` in flight, reading blocks of each of
/// `blocks` at random from a file in RAM, `seconds` each, with the engine
/// a run would choose for that queue on a file in RAM; and a memory copy.
pub fn calibrate(blocks: &[Bytes], qds: &[u32], seconds: f64, engine: EngineChoice) -> Result<Ceilings> {
    let workers = Workers {
        engine,
        uring: worker::io_uring_available().is_ok() && engine != EngineChoice::Psync,
        seed: 0,
        pin: false,
        latency: true,
        stop: stop_flag(),
        engines: Arc::new(Real),
    };
    let mut shapes: Vec<Shape> = Vec::new();
    for &qd in qds {
        let qd = Qd { total: qd.max(1), per_worker: qd.max(1), workers: 1, counted: QdCounting::Total };
        // No targets: the engine a file in RAM would get.
        let engine = workers.engine_for(&[], &qd, 0).0;
        let (threads, depth) = methodic_results::ceiling::threads_and_depth(engine, &qd);
        for &size in blocks {
            let shape =
                Shape { engine, threads, depth, blocks: vec![BlockShare { size, share: Percent::HUNDRED }] };
            if !shapes.contains(&shape) {
                shapes.push(shape);
            }
        }
    }
    measure(&shapes, seconds, &workers)
}

/// Runs the engine against a file in RAM (tmpfs at /dev/shm) instead of
/// the targets, as `workers` say: random reads of each shape, `seconds` each after a
/// ramp of a fifth of that, with the shape's engine, threads and depth;
/// and a memory copy. A shape that cannot run is left unmeasured, and
/// says why.
pub(crate) fn measure(shapes: &[Shape], seconds: f64, workers: &Workers) -> Result<Ceilings> {
    // Room for every thread's stripe to hold blocks.
    let need = shapes.iter().map(|s| s.largest_block().0.saturating_mul(s.threads as u64 * 2)).max();
    let size = Bytes(need.unwrap_or(0).clamp(64 << 20, 512 << 20));
    let ram = ram_file(size, "ceiling")?;
    let path = ram.path.clone();
    let mut targets = vec![ram];
    let mut measured = Vec::new();
    let mut unmeasured = Vec::new();
    for shape in shapes {
        if workers.stop.load(Ordering::SeqCst) {
            break;
        }
        // The engine the steps of this shape run with: `engine_for`
        // chooses psync for a file that completes inline, io_uring for
        // one that does not, as it does on the targets.
        targets[0].inline_completion = shape.engine == EngineKind::Psync;
        let workload = ceiling_workload(shape);
        let run = workers.run(&targets, "calibrate/iops", 1, ceiling_spec(&workload, shape.queue(), seconds));
        let ran = run.and_then(|r| {
            let (engine, threads, depth) = (r.info.engine, r.info.threads, r.info.depth);
            if (engine, threads, depth) != (shape.engine, shape.threads, shape.depth) {
                return Err(Error::unsupported(format!(
                    "it ran as {} {threads}x{depth}, not as the steps do",
                    engine.name()
                )));
            }
            let s = r.recorder.summary(r.seconds);
            // A loaded host can leave a short shape without one I/O done:
            // no ceiling is better than a ceiling of 0 IOPS, which every
            // step would then be judged against.
            if s.total.ios == 0 || s.total.iops.is_nan() || s.total.iops <= 0.0 {
                return Err(Error::unsupported(format!(
                    "no I/O completed in its {seconds}s (the host was busy)"
                )));
            }
            Ok(methodic_results::ceiling::ShapeCeiling {
                shape: shape.clone(),
                iops: s.total.iops,
                mb_s: s.total.mb_s,
            })
        });
        match ran {
            Ok(c) => measured.push(c),
            Err(e) => unmeasured
                .push(methodic_results::ceiling::Unmeasured { shape: shape.clone(), reason: describe(&e) }),
        }
    }
    let _ = targets[0].remove_scratch();
    Ok(Ceilings {
        target: format!("{} (tmpfs)", path.display()),
        seconds_each: seconds,
        memory_copy_mb_s: crate::ceiling::memory_copy_mb_s(seconds.min(0.5)),
        shapes: measured,
        unmeasured,
    })
}

/// A file of `size` bytes of random data in RAM (tmpfs at /dev/shm),
/// open for buffered reads and writes, its name already removed so that
/// no crash leaves it holding RAM; `what` names it while it is made.
pub(crate) fn ram_file(size: Bytes, what: &str) -> Result<Target> {
    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        return Err(Error::unsupported("there is no /dev/shm to hold a file in RAM"));
    }
    // A name of this file's own: two runs in one process (tests, a
    // library user) must not remove each other's file.
    static FILES: AtomicU64 = AtomicU64::new(0);
    let n = FILES.fetch_add(1, Ordering::Relaxed);
    let path = shm.join(format!("methodic-{what}-{}-{n}.bin", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let open = OpenOptionsT {
        create_size: Some(size.0),
        need_direct: false,
        write: true,
        destroy: Vec::new(),
        overwrite: false,
    };
    let free = system::free_bytes(shm).map_or(Bytes(0), |f| f.0);
    if free.0 < size.0 * 2 {
        return Err(Error::unsupported(format!(
            "/dev/shm has {} free, too little for a {} file in RAM",
            methodic_results::units::human(free.0),
            methodic_results::units::human(size.0)
        )));
    }
    let ram = Target::open(&path, &open)?;
    // The workers use the open file: its name can go now.
    let _ = std::fs::remove_file(&path);
    // Real data: tmpfs reads unwritten pages without copying them.
    let written = {
        use std::os::unix::fs::FileExt;
        let mut chunk = vec![0u8; 1 << 20];
        crate::rng::Rng::new(0xce11).fill(&mut chunk);
        (0..size.0 / chunk.len() as u64)
            .try_for_each(|k| ram.file(false).write_all_at(&chunk, k * chunk.len() as u64))
    };
    if let Err(e) = written {
        let _ = ram.remove_scratch();
        return Err(Error::io(format!("cannot write {}", path.display()), e));
    }
    Ok(ram)
}

/// What a ceiling run reads: the shape's blocks, at random, each aligned
/// to the smallest.
fn ceiling_workload(shape: &Shape) -> Workload {
    Workload {
        name: "ceiling".into(),
        blocks: shape.blocks.clone(),
        read: Percent::HUNDRED,
        random: Percent::HUNDRED,
        align: shape.smallest_block(),
        offset: Bytes(0),
        access: Default::default(),
        trim: Percent::ZERO,
        write_blocks: None,
    }
}

/// The one place a ceiling run's I/O is specified: `qd` of `w` on the file
/// in RAM, buffered (tmpfs), `seconds` after a ramp of a fifth of that.
fn ceiling_spec(w: &Workload, qd: Qd, seconds: f64) -> IoSpec<'_> {
    IoSpec {
        workload: w,
        qd,
        settings: Settings {
            span: Extent::Percent(Percent::HUNDRED),
            workers: qd.workers,
            devices: 1,
            io: IoMode::Buffered,
            data: methodic_compiler::plan::DataPattern::Random,
        },
        ramp: StdDuration::from_secs_f64(seconds / 5.0),
        record: Some(StdDuration::from_secs_f64(seconds)),
        passes: None,
        budget: None,
        series: None,
        at: At::ONCE,
        rate: None,
        pauses: Default::default(),
        verify: None,
    }
}
