//! What a failed step says: the failed I/Os of a step (where, what, the
//! errno, how many) as results record them, the error a step whose I/Os
//! failed ends with (carrying what it measured until then), and the run's
//! error when steps failed and the run went on past them (`on_error
//! continue`).

use std::path::PathBuf;

use methodic_compiler::plan::Plan;

use methodic_results::numbers::Summary;
use methodic_results::record::{IoInfo, StepResult};

/// A step whose I/Os failed, and what it measured until it stopped: the
/// counts of the I/Os that completed, their rates over the time recorded,
/// and how the I/O ran (with [`IoErrors`](methodic_results::record::IoErrors)).
#[derive(Debug)]
pub struct IoFailed {
    pub step: String,
    pub summary: Summary,
    pub info: IoInfo,
    /// The series CSV written until the failure, relative to the results.
    pub series: Option<PathBuf>,
}

impl IoFailed {
    /// Keeps what the step measured in its result, where the step had not
    /// recorded more already.
    pub fn keep_in(&self, out: &mut StepResult) {
        out.summary.get_or_insert_with(|| self.summary.clone());
        out.io.get_or_insert_with(|| self.info.clone());
        if out.series.is_none() {
            out.series.clone_from(&self.series);
        }
    }
}

impl std::fmt::Display for IoFailed {
    /// `step fill on /dev/loop0: write of 65536 bytes at offset 8388608
    /// failed with EIO (Input/output error); 1 of 129 I/Os failed`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some(e) = &self.info.errors else { return write!(f, "step {}: I/O failed", self.step) };
        write!(
            f,
            "step {} on {}: {}; {} of {} I/Os failed",
            self.step,
            e.first.target.display(),
            e.first.error,
            e.failed,
            e.failed + e.completed
        )?;
        if !e.also_on.is_empty() {
            let others: Vec<String> = e.also_on.iter().map(|p| p.display().to_string()).collect();
            write!(f, " (I/Os failed on {} too)", others.join(", "))?;
        }
        Ok(())
    }
}

/// The run's error when steps failed and it went on past them: how many,
/// which, the first one's error, and whose drive state is in doubt.
pub(crate) fn failed_steps(plan: &Plan, steps: &[StepResult]) -> Option<String> {
    let failed: Vec<&StepResult> = steps.iter().filter(|r| r.error.is_some()).collect();
    let first = failed.first()?;
    let ids: Vec<&str> = failed.iter().map(|r| r.id.as_str()).collect();
    let mut text = format!(
        "{} of {} steps failed and the run went on past {} (on_error continue): {}; the first: {}",
        failed.len(),
        steps.len(),
        if failed.len() == 1 { "it" } else { "them" },
        ids.join(", "),
        first.error.as_deref().unwrap_or_default()
    );
    // The first failed step that sets the drive's state, with steps after it.
    let state = failed.iter().find(|r| {
        plan.steps.get(r.index - 1).is_some_and(|s| s.establishes_state)
            && steps.last().is_some_and(|l| r.index < l.index)
    });
    if let Some(r) = state {
        text.push_str(&format!(
            "; {} sets the drive's state and did not finish, so the drive state of the steps after it is in doubt",
            r.id
        ));
    }
    Some(text)
}
