//! The `html` format: one self-contained HTML page (no network), with a
//! print stylesheet so that it prints to PDF whole. A report: the setup
//! header, findings, inline SVG charts (IOPS and latency against QD,
//! preparation plots, probes), the matrices with their bar charts, the PTS
//! steady-state convergence, measurement window and write-saturation
//! charts, the result table grouped by phase with the drive state said
//! once a group, and its checklist; the jobs run at
//! once, open-loop rates and QoS searches (each with its chart of latency
//! percentiles against IOPS), each step's devices and workers (their rows
//! where they differ by more than the noise) and bursts (with a chart of
//! IOPS by burst), each step's hosts of a run on many hosts (all
//! together, then a row a host), rendered with
//! minijinja from `templates/report.html`.
//!
//! Either page names, at its head, the files of the runs that could not
//! be read, and each chart that one of them would have drawn says so.
//!
//! A comparison: the differences that can explain the gaps first, then a
//! legend (a colour a run), each phase's charts with every run on the same
//! axes (`crate::view::compare::charts`), a bar chart a paired step with
//! its ratios, and the table the terminal shows; rendered from
//! `templates/compare.html`.

use methodic_compiler::plan::Units;
use serde::Serialize;

use super::{ExportError, Exporter, Format};
use crate::view::compare::charts::{and_words, page, ranking_bars};
use crate::view::compare::{Comparison, compact, letter};
use crate::view::report::charts::{preparation, probes, repeats, sweeps};
use crate::view::report::findings::findings;
use crate::view::report::header::{header, status_sentence, status_word, subtitle, title};
use crate::view::report::hosts::host_tables;
use crate::view::report::latency::distributions;
use crate::view::report::loads::loads;
use crate::view::report::matrix::matrices;
use crate::view::report::pts;
use crate::view::report::spread::spreads;
use crate::view::report::{
    Report, best_lines, checklist, grouped_columns, grouped_rows, unreadable_line, value_line,
};

/// The `html` exporter: one page.
pub struct Html;

impl Exporter<Report> for Html {
    fn export(&self, r: &Report) -> Result<String, ExportError> {
        html(r)
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

/// A cell of the page's checklist table: its text and the rows it spans
/// (0: a cell above spans this row).
#[derive(Serialize)]
struct Spanning {
    text: String,
    rows: usize,
}

/// The checklist's rows (each point: its step, id, drive state, span,
/// queue depth, cache, value and data), results made alike in turn one
/// row, and each column's run of the same text in turn written once,
/// over those rows: a PTS step's 56 cells say its drive state once, not
/// 56 times.
fn spanned(mut rows: Vec<[String; 8]>) -> Vec<Vec<Spanning>> {
    rows.dedup();
    let mut out: Vec<Vec<Spanning>> = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let cells = row
            .iter()
            .enumerate()
            .map(|(col, text)| {
                let same_above = i > 0 && rows[i - 1][col] == *text;
                let spans = if same_above {
                    0
                } else {
                    1 + rows[i + 1..].iter().take_while(|r| r[col] == *text).count()
                };
                Spanning { text: text.clone(), rows: spans }
            })
            .collect();
        out.push(cells);
    }
    out
}

/// `name` as HTML that breaks only after a separator (`/`, `_`, `-`,
/// `.`, `:`): escaped, with a `<wbr>` after each separator, so that a
/// step's or workload's name in a narrow column wraps between its parts,
/// never letter by letter.
fn breakable(name: &str) -> minijinja::Value {
    let mut out = String::with_capacity(name.len() + 16);
    for c in name.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
        if matches!(c, '/' | '_' | '-' | '.' | ':') {
            out.push_str("<wbr>");
        }
    }
    minijinja::Value::from_safe_string(out)
}

fn html(r: &Report) -> Result<String, ExportError> {
    let (run, pts, files) = (&r.run, r.pts.as_slice(), &r.files);
    let m = &run.manifest;
    let mut env = minijinja::Environment::new();
    env.add_template("report.html", include_str!("../../templates/report.html"))
        .map_err(|e| failed("the report template", e))?;
    env.add_filter("breakable", |name: String| breakable(&name));
    let checklist = spanned(checklist(run, pts));
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
        unreadable_line => unreadable_line(files.unreadable().len(), "this run", "this report"),
        unreadable => files.unreadable(),
        header => header(m).into_iter().map(|(name, rows)| minijinja::context! { name, rows }).collect::<Vec<_>>(),
        units_note,
        sweeps => sweeps(run, pts),
        distributions => distributions(run, files),
        matrices => matrices(run, pts),
        pts => [
            minijinja::context! { heading => "Steady-state convergence", plots => pts::convergence(run, files) },
            minijinja::context! { heading => "Steady-state measurement window", plots => pts::window(run) },
            minijinja::context! { heading => "Write saturation", plots => pts::saturation(run, files) },
        ],
        preparation => preparation(run, files),
        repeats => repeats(run),
        findings => findings(run, files),
        loads => loads(run, true),
        spreads => spreads(run, true),
        hosts => host_tables(run),
        probes => probes(run, files),
        columns => grouped_columns(&m.plan.conventions),
        value_line => value_line(run, pts),
        bests => best_lines(run, pts),
        groups => grouped_rows(run, pts),
        checklist,
    };
    let template = env.get_template("report.html").map_err(|e| failed("the report template", e))?;
    template.render(ctx).map_err(|e| failed("cannot render the report", e))
}

impl Exporter<Comparison> for Html {
    fn export(&self, c: &Comparison) -> Result<String, ExportError> {
        compare_html(c)
    }
}

/// The page's rankings (three runs or more): each paired measurement's
/// runs, highest first, in words, each run in its colour.
fn rankings(c: &Comparison) -> Vec<minijinja::Value> {
    if c.runs.len() < 3 {
        return Vec::new();
    }
    let color = |run: &str| crate::svg::color(c.runs.iter().position(|r| r.name == run).unwrap_or(0));
    c.rankings
        .iter()
        .map(|r| {
            let rows: Vec<minijinja::Value> = r
                .ranked
                .iter()
                .map(|e| {
                    minijinja::context! {
                        rank => e.rank.map_or("-".to_string(), |k| k.to_string()),
                        run => e.run,
                        color => color(&e.run),
                        value => e.value_text(),
                        spread => e.spread_text(),
                        ratio => e.ratio.map_or("-".to_string(), |x| format!("{x:.2}x")),
                        name => e.name,
                    }
                })
                .collect();
            let svg = ranking_bars(c, r);
            minijinja::context! { label => r.label, unit => r.unit, rows, svg }
        })
        .collect()
}

fn compare_html(c: &Comparison) -> Result<String, ExportError> {
    let mut env = minijinja::Environment::new();
    // A block tag leaves no blank line behind.
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.add_template("compare.html", include_str!("../../templates/compare.html"))
        .map_err(|e| failed("the comparison template", e))?;
    let page = page(c, &c.loaded);
    let names: Vec<String> = c.runs.iter().map(|r| r.name.clone()).collect();
    let methodologies: Vec<String> = c.runs.iter().map(|r| format!("{} {}", r.name, r.methodology)).collect();
    let rehearsals: Vec<String> = c.runs.iter().filter(|r| r.rehearsal).map(|r| r.name.clone()).collect();
    let differences: Vec<minijinja::Value> = c
        .differences
        .iter()
        .map(|d| {
            minijinja::context! {
                field => d.field,
                runs => d.runs,
                scope => d.scope,
                a => d.a,
                other => d.runs.strip_prefix("A vs ").unwrap_or("B"),
                b => d.b,
                sentence => d.sentence,
            }
        })
        .collect();
    // The terminal's table: each pair, its values, ratios and latencies.
    let mut columns = vec!["step (workload, QD)".to_string(), "unit".into()];
    columns.extend(names.iter().cloned());
    columns.extend(names[1..].iter().map(|n| format!("{n}/A")));
    columns.extend(names.iter().map(|n| format!("{n} mean µs")));
    let rows: Vec<Vec<String>> = c.pairs.iter().map(|p| p.cells()).collect();
    // Each later run against the first over the measurements (fills and
    // preconditions prepare the drive).
    let means: Vec<String> = (1..c.runs.len())
        .filter_map(|j| {
            let ratios: Vec<f64> = c
                .pairs
                .iter()
                .filter(|p| matches!(p.kind.as_str(), "measure" | "rounds" | "copy" | "together" | "qos"))
                .filter_map(|p| p.ratios[j - 1])
                .collect();
            if ratios.is_empty() {
                return None;
            }
            let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
            Some(format!(
                "{}/A: geometric mean {geo:.2}x over {} paired measurements (from {:.2}x to {:.2}x)",
                letter(j),
                ratios.len(),
                ratios.iter().copied().fold(f64::INFINITY, f64::min),
                ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            ))
        })
        .collect();
    let mut device_columns = vec!["step (workload, QD)".to_string(), "device".into()];
    device_columns.extend(names.iter().map(|n| format!("{n} IOPS")));
    device_columns.extend(names[1..].iter().map(|n| format!("{n}/A")));
    device_columns.extend(names.iter().map(|n| format!("{n} mean µs")));
    let device_rows: Vec<Vec<String>> = c
        .devices
        .iter()
        .map(|d| {
            let mut row = vec![d.step.clone(), d.device.clone()];
            row.extend(d.iops.iter().map(|v| compact(*v)));
            row.extend(d.ratios.iter().map(|r| r.map_or("-".into(), |r| format!("{r:.2}x"))));
            row.extend(
                d.mean_latency_us
                    .iter()
                    .map(|v| v.filter(|v| v.is_finite()).map_or("-".into(), |l| format!("{l:.1}"))),
            );
            row
        })
        .collect();
    let bests: Vec<String> = c.sweep_bests.iter().map(|s| s.line()).collect();
    let ctx = minijinja::context! {
        title => format!("Comparison of {}", and_words(&names)),
        subtitle => methodologies.join("; "),
        rehearsals => rehearsals,
        rehearsals_words => and_words(&rehearsals),
        unreadable_line => unreadable_line(c.unreadable.len(), "these runs", "this comparison"),
        unreadable => c.unreadable,
        differences,
        values_note => c.values_note,
        legend => page.legend,
        colors_note => page.colors_note,
        phases => page.phases,
        bars => page.bars,
        unpaired => c.unpaired,
        columns,
        rows,
        means,
        device_columns,
        device_rows,
        bests,
        rankings => rankings(c),
    };
    let template = env.get_template("compare.html").map_err(|e| failed("the comparison template", e))?;
    template.render(ctx).map_err(|e| failed("cannot render the comparison", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(step: &str, state: &str, qd: &str) -> [String; 8] {
        [step, "s/x", state, "1GiB", qd, "O_DIRECT", "step average", "random"].map(String::from)
    }

    /// Results made alike in turn are one row; a column's run of the same
    /// text is one cell over its rows, and a row whose cells are all
    /// spanned from above has none of its own.
    #[test]
    fn checklist_rows_made_alike_are_one_and_a_column_s_run_is_one_cell() {
        let rows = vec![
            row("1", "erased", "QD 1"),
            row("1", "erased", "QD 1"),
            row("2", "erased", "QD 2"),
            row("3", "filled", "QD 2"),
        ];
        let t = spanned(rows);
        let spans: Vec<Vec<usize>> = t.iter().map(|r| r.iter().map(|c| c.rows).collect()).collect();
        assert_eq!(
            spans,
            [vec![1, 3, 2, 3, 1, 3, 3, 3], vec![1, 0, 0, 0, 2, 0, 0, 0], vec![1, 0, 1, 0, 0, 0, 0, 0]]
        );
        assert_eq!(t[2][2].text, "filled");
    }

    /// A name breaks after its separators only, and is escaped.
    #[test]
    fn a_name_breaks_after_its_separators_and_is_escaped() {
        assert_eq!(breakable("measure/rnd4k_read-qd1").to_string(), "measure/<wbr>rnd4k_<wbr>read-<wbr>qd1");
        assert_eq!(breakable("a<b&c").to_string(), "a&lt;b&amp;c");
    }

    /// Three drives, a step repeated 3 times on each: the comparison's
    /// ranking of the repeat draws each run's aggregate with ± its
    /// standard deviation as an error bar (the measurement, not
    /// repeated, has a table only); the report of one draws its runs and
    /// their mean ± sd.
    #[test]
    fn a_repeated_step_is_drawn_with_error_bars_on_both_pages() {
        let runs = crate::view::compare::rank::tests::three_drives();
        let page = compare_html(&crate::view::compare::comparison(&runs)).unwrap();
        let ranked = &page[page.find("id=\"ranked\"").unwrap()..];
        let ranked = &ranked[..ranked.find("<h2").unwrap_or(ranked.len())];
        assert_eq!(ranked.matches("<svg").count(), 1, "a chart for the repeat's ranking alone");
        let bars: Vec<&str> = ranked.split("class=\"error-bar\"").skip(1).collect();
        assert_eq!(bars.len(), 3, "one a drive");
        assert!(bars[0].contains("<title>± 100</title>"), "C first, ± 100: {}", bars[0]);
        assert!(bars[2].contains("<title>± 0.0</title>"), "B, runs alike: {}", bars[2]);

        let report = html(&Report::new(runs[0].clone())).unwrap();
        let repeats = &report[report.find("id=\"repeats\"").unwrap()..];
        let repeats = &repeats[..repeats.find("<h2").unwrap_or(repeats.len())];
        assert!(repeats.contains("<h3>w-qd4-run3: 3 runs</h3>"), "{repeats}");
        assert!(repeats.contains("CV 16.7%; the methodology reports their mean (600 IOPS)."), "{repeats}");
        assert_eq!(repeats.matches("class=\"error-bar\"").count(), 1, "the mean's");
        assert!(repeats.contains("<title>± 100</title>"));
    }
}
