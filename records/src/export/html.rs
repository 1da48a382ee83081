//! The `html` format: one self-contained HTML page (no network). A report:
//! the setup header, the result table with its checklist, findings, and
//! inline SVG charts (IOPS and latency against QD, preparation plots with
//! the steady-state window, probes, read-share x QD maps), the jobs run at
//! once, open-loop rates and QoS searches (each with its chart of latency
//! percentiles against IOPS), each step's devices and workers (their rows
//! where they differ by more than the noise) and bursts (with a chart of
//! IOPS by burst), each step's hosts of a run on many hosts (all
//! together, then a row a host), rendered with
//! minijinja from `templates/report.html`.

use methodic_compiler::plan::Units;
use serde::Serialize;

use super::{ExportError, Exporter, Format};
use crate::manifest::Loaded;
use crate::units::human;
use crate::view::points::{Point, step_of};
use crate::view::report::charts::{maps, preparation, probes, sweeps};
use crate::view::report::findings::findings;
use crate::view::report::header::{header, status_sentence, status_word, subtitle, title};
use crate::view::report::hosts::host_tables;
use crate::view::report::loads::loads;
use crate::view::report::spread::spreads;
use crate::view::report::{Report, best_lines, columns, rows, value_line};

/// The `html` exporter: one page.
pub struct Html;

impl Exporter<Report> for Html {
    fn export(&self, r: &Report) -> Result<String, ExportError> {
        html(&r.run, &r.pts)
    }
}

/// A template error and the errors under it, as `what: error: cause`.
fn failed(what: &str, e: minijinja::Error) -> ExportError {
    let mut detail = format!("{what}: {e}");
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        detail.push_str(&format!(": {s}"));
        source = s.source();
    }
    ExportError::Failed { format: Format::Html, detail }
}

/// A row of the page's checklist table: how one point was made.
#[derive(Serialize)]
struct ChecklistRow {
    step: usize,
    id: String,
    drive_state: String,
    span: String,
    qd: String,
    cache: String,
    value: String,
    data: String,
}

fn html(run: &Loaded, pts: &[Point]) -> Result<String, ExportError> {
    let m = &run.manifest;
    let mut env = minijinja::Environment::new();
    env.add_template("report.html", include_str!("../../templates/report.html"))
        .map_err(|e| failed("the report template", e))?;
    let checklist: Vec<ChecklistRow> = pts
        .iter()
        .filter_map(|p| {
            let c = &step_of(run, p)?.checklist;
            Some(ChecklistRow {
                step: p.step,
                id: p.id.clone(),
                drive_state: c.drive_state.as_ref().map_or("-".into(), |d| d.description.clone()),
                span: c.span.as_ref().map_or("-".into(), |s| {
                    format!(
                        "{} = {} ({:.1}% of {})",
                        s.declared,
                        human(s.bytes),
                        s.percent_of_capacity,
                        human(s.capacity)
                    )
                }),
                qd: c.queue_depth.as_ref().map_or("-".into(), |q| q.description.clone()),
                cache: c.cache.description.clone(),
                value: format!("{}: {}", c.value_kind.kind.words(), c.value_kind.computed),
                data: c.data_pattern.map_or("-".into(), |d| d.to_string()),
            })
        })
        .collect();
    let units_note = match m.plan.conventions.units {
        Units::Decimal => "decimal, MB/s = 10^6 bytes a second",
        Units::Binary => "binary, MiB/s = 2^20 bytes a second",
    };
    let ctx = minijinja::context! {
        title => title(m),
        subtitle => subtitle(m),
        tool => format!("{} {}", m.tool.name, m.tool.version),
        dir => run.dir.display().to_string(),
        rehearsal => m.rehearsal,
        status => status_word(m.status),
        status_sentence => status_sentence(m.status),
        error => m.error,
        header => header(m).into_iter().map(|(name, rows)| minijinja::context! { name, rows }).collect::<Vec<_>>(),
        units_note,
        sweeps => sweeps(run, pts),
        maps => maps(run, pts),
        preparation => preparation(run),
        findings => findings(run),
        loads => loads(run, true),
        spreads => spreads(run, true),
        hosts => host_tables(run),
        probes => probes(run),
        columns => columns(&m.plan.conventions),
        value_line => value_line(run, pts),
        bests => best_lines(run, pts),
        rows => rows(run, pts, false),
        checklist,
    };
    let template = env.get_template("report.html").map_err(|e| failed("the report template", e))?;
    template.render(ctx).map_err(|e| failed("cannot render the report", e))
}
