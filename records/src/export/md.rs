//! The `md` format: Markdown, to paste into a review or an issue. A report:
//! its title, the header tables (a run on many hosts: each host), the
//! files of the run that could not be read, the
//! result table, each step's hosts (all together, then a row a host), the
//! jobs of each
//! `together` step, each open-loop rate, each QoS search's probes, every
//! device's and worker's numbers of each step spread over several, each
//! measurement's bursts, and each sweep's best step.

use super::{ExportError, Exporter};
use crate::manifest::{Loaded, Manifest};
use crate::step_files::Unreadable;
use crate::view::points::Point;
use crate::view::report::header::{header, subtitle, title};
use crate::view::report::hosts::host_tables;
use crate::view::report::loads::{Loads, loads};
use crate::view::report::spread::{Spreads, spreads};
use crate::view::report::{Report, best_lines, columns, rows, unreadable_line, value_line};

/// The `md` exporter: Markdown.
pub struct Markdown;

impl Exporter<Report> for Markdown {
    fn export(&self, r: &Report) -> Result<String, ExportError> {
        Ok(markdown(&r.run, &r.pts, r.unreadable()))
    }
}

/// The report top to bottom: its title and header tables (and the files
/// of the run that could not be read), the result table, each step's
/// hosts, the loads, the devices and workers, the bursts, and each
/// sweep's best step.
fn markdown(run: &Loaded, pts: &[Point], unreadable: &[Unreadable]) -> String {
    let mut out = String::new();
    head(&mut out, &run.manifest);
    if !unreadable.is_empty() {
        out.push_str(&format!(
            "**Incomplete**: {}:\n\n",
            cell(&unreadable_line(unreadable.len(), "this run", "this report"))
        ));
        for u in unreadable {
            out.push_str(&format!(
                "- `{}` ({} of step {}): {}\n",
                u.path.display(),
                u.holds,
                cell(&u.step),
                cell(&u.error)
            ));
        }
        out.push('\n');
    }
    results(&mut out, run, pts);
    each_host(&mut out, run);
    load_sections(&mut out, &loads(run, false));
    spread_sections(&mut out, &spreads(run, false));
    let bests = best_lines(run, pts);
    if !bests.is_empty() {
        out.push_str("\nThe best step of each sweep:\n\n");
        for line in bests {
            out.push_str(&format!("- {}\n", cell(&line)));
        }
    }
    out
}

/// Text in a table cell, its `|` escaped.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// A table: its header row, the rule under it, a line a row.
fn grid(out: &mut String, columns: &[String], rows: &[Vec<String>]) {
    out.push_str(&format!("| {} |\n", columns.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")));
    out.push_str(&format!("|{}|\n", vec!["---"; columns.len()].join("|")));
    for r in rows {
        out.push_str(&format!("| {} |\n", r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")));
    }
}

/// A step's table of its hosts, devices or workers, under its line:
/// `Step 3 (measure/rnd4k-qd32, cell 2): ...`.
fn step_grid(
    out: &mut String,
    (step, id, part): (usize, &str, &str),
    line: &str,
    columns: &[String],
    rows: &[Vec<String>],
) {
    let part = if part.is_empty() { String::new() } else { format!(", {part}") };
    out.push_str(&format!("\nStep {step} ({}{}): {}.\n\n", cell(id), cell(&part), cell(line)));
    grid(out, columns, rows);
}

/// The title, the subtitle, a rehearsal said, and the header tables
/// (platform, device, setup, test; a run on many hosts: each host).
fn head(out: &mut String, m: &Manifest) {
    out.push_str(&format!("# {}\n\n{}\n\n", title(m), subtitle(m)));
    if m.rehearsal {
        out.push_str("**Rehearsal**: scaled down; these numbers are not measurements.\n\n");
    }
    for (name, rows) in header(m) {
        out.push_str(&format!("## {name}\n\n| | |\n|---|---|\n"));
        for (k, v) in rows {
            out.push_str(&format!("| {} | {} |\n", cell(&k), cell(&v)));
        }
        out.push('\n');
    }
}

/// What the values are, and the result table, its numbers aligned right.
fn results(out: &mut String, run: &Loaded, pts: &[Point]) {
    out.push_str("## Results\n\n");
    out.push_str(&format!("Values: {}.\n\n", cell(&value_line(run, pts))));
    let cols = columns(&run.manifest.plan.conventions);
    out.push_str(&format!("| {} |\n", cols.join(" | ")));
    let align: Vec<&str> =
        (0..cols.len()).map(|i| if (3..10).contains(&i) || i == 0 { "---:" } else { "---" }).collect();
    out.push_str(&format!("|{}|\n", align.join("|")));
    for r in rows(run, pts, false) {
        let r: Vec<String> = r.iter().map(|c| cell(c)).collect();
        out.push_str(&format!("| {} |\n", r.join(" | ")));
    }
}

/// A run on many hosts: each step's hosts, all together then a row a host.
fn each_host(out: &mut String, run: &Loaded) {
    let hosts = host_tables(run);
    if !hosts.is_empty() {
        out.push_str("\n### Each host\n");
        for t in &hosts {
            step_grid(out, (t.step, &t.id, &t.part), &t.line, &t.columns, &t.rows);
        }
    }
}

/// The jobs of each `together` step, each open-loop rate, and each QoS
/// search's probes.
fn load_sections(out: &mut String, l: &Loads) {
    for t in &l.together {
        out.push_str(&format!(
            "\n### Step {} ({}): jobs at once\n\n{}\n\n",
            t.step,
            cell(&t.id),
            cell(&t.describe)
        ));
        grid(out, &t.columns, &t.rows);
    }
    if !l.open_loop.is_empty() {
        out.push_str("\n### Open-loop rates\n\n");
        for o in &l.open_loop {
            let missed = if o.kept { "" } else { " (rate not kept: not a result at the rate asked)" };
            out.push_str(&format!("- step {} ({}): {}{missed}\n", o.step, cell(&o.id), cell(&o.words)));
        }
    }
    for q in &l.qos {
        out.push_str(&format!(
            "\n### Step {} ({}): QoS search\n\n{}\n\n",
            q.step,
            cell(&q.id),
            cell(&q.verdict)
        ));
        grid(out, &q.columns, &q.rows);
    }
}

/// Every device's and worker's numbers, whether they differ or not, and
/// each measurement's bursts.
fn spread_sections(out: &mut String, sp: &Spreads) {
    if !sp.spreads.is_empty() {
        out.push_str("\n### Devices and workers\n");
        for v in &sp.spreads {
            for g in [&v.devices, &v.workers].into_iter().flatten() {
                step_grid(out, (v.step, &v.id, &v.part), &g.line, &g.columns, &g.rows);
            }
        }
    }
    for b in &sp.bursts {
        let job = b.job.as_ref().map_or(String::new(), |j| format!(", job {j}"));
        out.push_str(&format!(
            "\n### Step {} ({}{}): bursts\n\n{}.\n\n",
            b.step,
            cell(&b.id),
            cell(&job),
            cell(&b.line)
        ));
        grid(out, &b.columns, &b.all);
    }
}
