//! Fill steps: a workload written over each worker's stripe a number of
//! times (`fill W passes N`), as fast as the target takes it; its summary,
//! series and latency log come out, and with `verify` what its writes
//! read back as.

use std::time::Duration as StdDuration;

use methodic_compiler::plan::{Qd, Workload};

use crate::error::Result;
use crate::exec::io::spread::Part;
use crate::exec::io::{At, IoSpec};
use crate::exec::step::{Executor, StepRun};

/// Runs `fill workload passes passes qd qd`.
pub(super) fn run(
    x: &mut Executor<'_>,
    s: &mut StepRun<'_>,
    workload: &Workload,
    qd: Qd,
    passes: u32,
) -> Result<()> {
    let csv = x.results.series_path(&s.step.id, "")?;
    let verify = x.step_verify(s.step, workload);
    let run = x.io(
        s.step,
        IoSpec {
            workload,
            qd,
            settings: s.settings,
            ramp: StdDuration::ZERO,
            record: None,
            passes: Some(passes),
            budget: None,
            series: Some((StdDuration::from_secs(1), Some(csv.clone()))),
            at: At::ONCE,
            rate: None,
            pauses: Default::default(),
            verify: verify.as_ref(),
        },
    )?;
    run.keep_spread(&x.targets, Part::STEP, s.out);
    x.finish_io(s, run, &csv)?;
    x.finish_verify(s, verify)
}
