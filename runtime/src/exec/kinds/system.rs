//! System steps, which do no I/O of their own: dropping the page cache,
//! idling, and RAM limits (a step's `ram_limit`, put in force or lifted
//! before it runs, and `limit_ram` steps that say which is in force). What
//! was done comes out as the step's actions; the work is
//! `crate::system`'s.

use std::time::{Duration as StdDuration, Instant};

use methodic_compiler::plan::{Bytes, Duration};
use methodic_results::record::StepResult;

use crate::error::Result;
use crate::exec::io::std_duration;
use crate::exec::step::{Executor, StepRun};

/// `drop_caches`: the page cache of the targets and the machine.
pub(super) fn drop_caches(x: &mut Executor<'_>, s: &mut StepRun<'_>) -> Result<()> {
    s.out.actions.extend(crate::system::drop_caches(&x.targets));
    Ok(())
}

/// `idle for T`: sleeps, waking for a stop.
pub(super) fn idle(x: &mut Executor<'_>, time: Duration) -> Result<()> {
    let end = Instant::now() + std_duration(time);
    while Instant::now() < end && !x.workers.stop.load(std::sync::atomic::Ordering::Relaxed) {
        std::thread::sleep((end - Instant::now()).min(StdDuration::from_millis(100)));
    }
    Ok(())
}

/// `limit_ram`: [`apply_ram_limit`] did the work and said so; a limit
/// already in force is said here.
pub(super) fn limit_ram(x: &mut Executor<'_>, s: &mut StepRun<'_>) -> Result<()> {
    if s.out.actions.is_empty() {
        s.out.actions.push(match &x.ram {
            Some(r) => format!("RAM limited to {}: {}", methodic_results::units::human(r.limit.0), r.method),
            None => "RAM not limited".to_string(),
        });
    }
    Ok(())
}

/// Puts a step's RAM limit in force (or lifts it), saying so in `out`.
pub(crate) fn apply_ram_limit(
    x: &mut Executor<'_>,
    wanted: Option<Bytes>,
    out: &mut StepResult,
) -> Result<()> {
    let current = x.ram.as_ref().map(|r| r.limit);
    if current == wanted {
        return Ok(());
    }
    x.ram = None;
    if let Some(limit) = wanted {
        let r = crate::system::limit_ram(limit)?;
        out.actions.push(format!("RAM limited to {}: {}", methodic_results::units::human(limit.0), r.method));
        x.ram = Some(r);
    } else {
        out.actions.push("RAM limit lifted".into());
    }
    Ok(())
}
