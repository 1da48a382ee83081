//! The `md` format: Markdown, to paste into a review or an issue. A report:
//! its title, the header tables, the result table and each sweep's best
//! step.

use super::{ExportError, Exporter};
use crate::manifest::Loaded;
use crate::view::points::Point;
use crate::view::report::header::{header, subtitle, title};
use crate::view::report::{Report, best_lines, columns, rows, value_line};

/// The `md` exporter: Markdown.
pub struct Markdown;

impl Exporter<Report> for Markdown {
    fn export(&self, r: &Report) -> Result<String, ExportError> {
        Ok(markdown(&r.run, &r.pts))
    }
}

fn markdown(run: &Loaded, pts: &[Point]) -> String {
    let m = &run.manifest;
    let cell = |s: &str| s.replace('|', "\\|");
    let mut out = format!("# {}\n\n{}\n\n", title(m), subtitle(m));
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
    out.push_str("## Results\n\n");
    out.push_str(&format!("Values: {}.\n\n", cell(&value_line(run, pts))));
    let cols = columns(&m.plan.conventions);
    out.push_str(&format!("| {} |\n", cols.join(" | ")));
    let align: Vec<&str> =
        (0..cols.len()).map(|i| if (3..10).contains(&i) || i == 0 { "---:" } else { "---" }).collect();
    out.push_str(&format!("|{}|\n", align.join("|")));
    for r in rows(run, pts, false) {
        let r: Vec<String> = r.iter().map(|c| cell(c)).collect();
        out.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    let bests = best_lines(run, pts);
    if !bests.is_empty() {
        out.push_str("\nThe best step of each sweep:\n\n");
        for line in bests {
            out.push_str(&format!("- {}\n", cell(&line)));
        }
    }
    out
}
