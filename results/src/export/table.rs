//! The `table` format: text for a terminal, tables drawn with box lines and
//! sentences around them. A report: its header lines, the result table,
//! each sweep's best step and the findings. A comparison: the runs, the
//! paired steps with ratios, the steps with no counterpart and the
//! differences that can explain the gaps.

use methodic_compiler::plan::QdCounting;
use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Style};

use super::{ExportError, Exporter};
use crate::manifest::Loaded;
use crate::record::Status;
use crate::view::compare::{Comparison, letter, plural_kind};
use crate::view::points::{Point, kind_short, rate_unit};
use crate::view::report::findings::findings;
use crate::view::report::header::{ceiling_words, status_sentence, status_word, title};
use crate::view::report::{Report, best_lines, columns, rows, value_line};

/// The `table` exporter: text for a terminal.
pub struct Table;

impl Exporter<Report> for Table {
    fn export(&self, r: &Report) -> Result<String, ExportError> {
        Ok(terminal(&r.run, &r.pts))
    }
}

impl Exporter<Comparison> for Table {
    fn export(&self, c: &Comparison) -> Result<String, ExportError> {
        Ok(text(c))
    }
}

fn terminal(run: &Loaded, pts: &[Point]) -> String {
    let m = &run.manifest;
    let mut out = String::new();
    if m.rehearsal {
        out.push_str("REHEARSAL: scaled down to try the methodology; these numbers are not measurements.\n");
    }
    out.push_str(&format!("{} ({}, {:.1}s)\n", title(m), status_word(m.status), m.seconds));
    for t in &m.targets {
        out.push_str(&format!("target: {} ({})\n", t.path.display(), t.describe()));
    }
    out.push_str(&format!("host: {}\n", m.host.describe()));
    if let Some(c) = ceiling_words(m) {
        out.push_str(&format!("host ceiling: {c}\n"));
    }
    let c = &m.plan.conventions;
    out.push_str(&format!(
        "conventions: rates in {}, queue depth counted {}, value reported: {}; engine {}\n",
        rate_unit(c.units),
        match c.queue_depth {
            QdCounting::Total => "in total",
            QdCounting::PerWorker => "per worker",
        },
        c.value.words(),
        m.engine.choice
    ));
    if m.status != Status::Completed {
        out.push_str(&format!(
            "{}{}: only the steps that finished are shown\n",
            status_sentence(m.status),
            m.error.as_deref().map(|e| format!(" ({e})")).unwrap_or_default()
        ));
    }
    if pts.is_empty() {
        out.push_str("no step measured a rate\n");
    } else {
        out.push_str(&format!("values: {}\n", value_line(run, pts)));
        out.push_str(&table(run, pts));
        for line in best_lines(run, pts) {
            out.push_str(&format!("{line}\n"));
        }
    }
    for f in findings(run) {
        out.push_str(&format!("{}: {}: {}\n", f.level, f.step, f.text));
    }
    out
}

fn table(run: &Loaded, pts: &[Point]) -> String {
    let m = &run.manifest;
    let mut out = String::new();
    let mut b = Builder::default();
    b.push_record(columns(&m.plan.conventions));
    for r in rows(run, pts, true) {
        b.push_record(r);
    }
    let mut t = b.build();
    t.with(Style::sharp());
    t.modify(Columns::new(0..1), Alignment::right());
    t.modify(Columns::new(3..10), Alignment::right());
    out.push_str(&t.to_string());
    out.push('\n');
    out
}

fn fmt_value(v: Option<f64>) -> String {
    match v {
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.2}"),
        None => "-".into(),
    }
}

fn text(c: &Comparison) -> String {
    let mut out = String::new();
    for r in &c.runs {
        out.push_str(&format!(
            "{}: {} ({}, {}{}, reports {})\n",
            r.name,
            r.dir.display(),
            r.methodology,
            r.status,
            if r.rehearsal { ", rehearsal" } else { "" },
            plural_kind(r.value_kind)
        ));
    }
    out.push('\n');
    if c.pairs.is_empty() {
        out.push_str(
            "no step of A has a counterpart in the others (steps pair by workload I/O and queue depth)\n",
        );
    } else {
        let mut b = Builder::default();
        let mut head = vec!["step (workload, QD)".to_string(), "unit".into()];
        head.extend(c.runs.iter().map(|r| r.name.clone()));
        head.extend(c.runs[1..].iter().map(|r| format!("{}/A", r.name)));
        head.extend(c.runs.iter().map(|r| format!("{} mean us", r.name)));
        b.push_record(head);
        for p in &c.pairs {
            let mut row =
                vec![p.label.clone(), format!("{} ({})", p.values[0].unit, kind_short(p.value_kind))];
            row.extend(p.values.iter().map(|v| match &v.error {
                Some(_) => format!("{} (failed)", fmt_value(v.value)),
                None => fmt_value(v.value),
            }));
            row.extend(p.ratios.iter().map(|r| r.map_or("-".into(), |r| format!("{r:.2}x"))));
            row.extend(p.values.iter().map(|v| v.mean_latency_us.map_or("-".into(), |l| format!("{l:.1}"))));
            b.push_record(row);
        }
        let mut t = b.build();
        t.with(Style::sharp());
        t.modify(Columns::new(2..), Alignment::right());
        out.push_str(&t.to_string());
        out.push('\n');
        // Measurements only: fills and preconditions prepare the drive.
        let ratios: Vec<f64> = c
            .pairs
            .iter()
            .filter(|p| matches!(p.kind.as_str(), "measure" | "rounds" | "copy"))
            .filter_map(|p| p.ratios.first().copied().flatten())
            .collect();
        if let Some(n) = &c.values_note {
            out.push_str(&format!("values: {n}\n"));
        }
        let failed = c.pairs.iter().filter(|p| p.values.iter().any(|v| v.error.is_some())).count();
        if failed > 0 {
            out.push_str(&format!(
                "{failed} paired {} failed or was interrupted in some run: partial values, no ratio\n",
                if failed == 1 { "step" } else { "steps" }
            ));
        }
        if !ratios.is_empty() && c.runs.len() == 2 {
            let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
            out.push_str(&format!(
                "{} paired measurements; B/A geometric mean {:.2}x (from {:.2}x to {:.2}x)\n",
                ratios.len(),
                geo,
                ratios.iter().copied().fold(f64::INFINITY, f64::min),
                ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            ));
        }
    }
    if !c.sweep_bests.is_empty() {
        out.push_str("\nthe best step of each sweep, among its paired steps:\n");
        for s in &c.sweep_bests {
            let each: Vec<String> = s
                .bests
                .iter()
                .enumerate()
                .map(|(i, (id, qd, v))| match v {
                    Some(v) => format!("{} QD {qd} ({id}) {} {}", letter(i), fmt_value(Some(*v)), s.unit),
                    None => format!("{} -", letter(i)),
                })
                .collect();
            let ratios: Vec<String> = s
                .ratios
                .iter()
                .enumerate()
                .filter_map(|(i, r)| r.map(|r| format!("{}/A {r:.2}x", letter(i + 1))))
                .collect();
            out.push_str(&format!(
                "  {} ({}): {}{}\n",
                s.label,
                s.value_kind.words(),
                each.join("; "),
                if ratios.is_empty() { String::new() } else { format!("; {}", ratios.join(", ")) }
            ));
        }
    }
    if !c.unpaired.is_empty() {
        out.push_str(&format!("\nsteps with no counterpart ({}):\n", c.unpaired.len()));
        for u in &c.unpaired {
            out.push_str(&format!(
                "  only in {}: {} ({})\n",
                u.in_runs.join(", "),
                u.label,
                u.step_ids.join(", ")
            ));
        }
    }
    if c.differences.is_empty() {
        out.push_str(
            "\nno manifest difference found: same methodology, host, target, engine and checklist in every paired \
             step; the gaps are the drive's own variation\n",
        );
    } else {
        out.push_str(&format!("\ndifferences that can explain the gaps ({}):\n", c.differences.len()));
        for d in &c.differences {
            out.push_str(&format!(
                "- {} ({}, {}): A {}; {} {}\n",
                d.field,
                d.runs,
                d.scope,
                d.a,
                &d.runs[5..],
                d.b
            ));
            out.push_str(&format!("  {}\n", d.sentence));
        }
    }
    out
}
