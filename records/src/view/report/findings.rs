//! What the numbers of a run say beyond their averages, step by step, as
//! warnings and notes: the statistics of repeats (and whether the first
//! run stands apart, and the page cache served some), what the device
//! counted, cache cliffs of sustained writes (and whether the drop came
//! with a temperature rise: throttled), steps the host bounds, page
//! sizes from probes. The terminal table and the HTML page list them.

use methodic_compiler::plan::ValueKind;
use serde::Serialize;

use crate::analysis::{Evidence, PageCache, run_list};
use crate::manifest::Loaded;
use crate::step_files::StepFiles;

#[derive(Serialize)]
pub struct Finding {
    /// `warning` or `note`.
    pub level: &'static str,
    pub step: String,
    pub text: String,
}

/// What the numbers say beyond their averages: repeats whose first run
/// stands apart (and the statistics of every repeat), cache cliffs of
/// sustained writes (with the temperature of the step's series, from
/// `files`), and page sizes from probes.
pub fn findings(run: &Loaded, files: &StepFiles) -> Vec<Finding> {
    let mut out = Vec::new();
    // Repeats are summarized from each run's step average, whatever value
    // the table reports.
    let of =
        if run.manifest.plan.conventions.value == ValueKind::StepAverage { "" } else { "step averages of " };
    for r in &run.steps {
        // Not a repeat `until cv`'s summaries before its last run made.
        if let Some(rep) = run.final_repeats(r) {
            let stats = format!(
                "{of}{} runs: {} {}; mean {:.1}, sd {:.1}, median {:.1}, CV {:.1}%; reported ({}) {:.1} {}",
                rep.runs.len(),
                rep.runs.iter().map(|v| format!("{v:.1}")).collect::<Vec<_>>().join(", "),
                rep.unit,
                rep.mean,
                rep.sd,
                rep.median,
                rep.cv * 100.0,
                methodic_compiler::plan::aggregate_word(rep.aggregate),
                rep.value,
                rep.unit
            );
            let stats = match &rep.page_cache {
                Some(pc) => format!("{stats}; page cache: {}", page_cache_words(pc)),
                None => stats,
            };
            let stats = match &rep.until {
                Some(u) => format!("{stats}; until cv: {}", u.words(rep.cv)),
                None => stats,
            };
            out.push(Finding { level: "note", step: r.id.clone(), text: stats });
            if let Some(w) = rep.until.as_ref().and_then(|u| u.warning(rep.cv)) {
                out.push(Finding { level: "warning", step: r.id.clone(), text: w });
            }
            if let Some(w) = &rep.warning {
                out.push(Finding { level: "warning", step: r.id.clone(), text: w.clone() });
            }
        }
        if let Some(io) = &r.device_io {
            let verb = if r.copy.is_some() { "copied" } else { "read" };
            out.push(Finding {
                level: "note",
                step: r.id.clone(),
                text: format!("device: {}", io.words(verb)),
            });
        }
        if let Some(c) = &r.cliff {
            // What the drop came with: the series' temperature, and the
            // drive's thermal-throttle events over the step (NVMe). A
            // series that cannot be read is named where the files that
            // could not be read are listed: the cliff is said without it.
            let rows = files.series(r).unwrap_or_default();
            out.push(Finding {
                level: "note",
                step: r.id.clone(),
                text: c.finding(rows, r.throttle_events()),
            });
        }
        if let Some(h) = &r.host_bound {
            out.push(Finding { level: "warning", step: r.id.clone(), text: h.clone() });
        }
        if let Some(p) = r.probe.as_ref().filter(|p| !p.note.is_empty()) {
            out.push(Finding { level: "note", step: r.id.clone(), text: p.note.clone() });
        }
        if let Some(pages) = r.probe.as_ref().and_then(|p| p.pages.as_ref()) {
            out.push(Finding { level: "note", step: r.id.clone(), text: pages.verdict.clone() });
        }
    }
    out.sort_by_key(|f| f.level != "warning");
    out
}

/// What decided the page-cache question of a repeat, and the answer:
/// `counted on vda: runs 2..4 served from it`.
fn page_cache_words(pc: &PageCache) -> String {
    let served = match pc.served_runs.as_slice() {
        [] => "no run served from it".to_string(),
        runs => format!("{} served from it", run_list(runs)),
    };
    match pc.decided_by {
        Evidence::Counters => format!("counted on {}: {served}", pc.source),
        Evidence::Ram => format!("the data is in RAM ({}), no device to read", pc.source),
        Evidence::Timing => format!("decided by timing ({})", pc.source),
    }
}
