//! The `table` format: text for a terminal, tables drawn with box lines and
//! sentences around them. A report: its header lines (each host of a run
//! on many hosts among them), the result table, each sweep's best step,
//! the matrices (the PTS tables: mix x block size, threads x queue depth;
//! each phase's sweeps), each step's hosts (all together, then a row a host), the jobs of each `together` step, each
//! open-loop rate and each QoS search's probes, each step's devices and
//! workers (rows where they differ by more than the noise) and bursts, and
//! the findings. A comparison: the runs, the paired steps with ratios,
//! each device of the paired steps spread over several, the steps with no
//! counterpart and the differences that can explain the gaps. The
//! commands' own results: a plan's steps and phases, a run's end table,
//! the host ceilings, two plans' changes, and methodic's numbers beside
//! fio's.

use methodic_compiler::diff::Class;
use methodic_compiler::plan::QdCounting;
use methodic_compiler::plan::{Percent, Units};
use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Style, Width};

use super::{ExportError, Exporter};
use crate::manifest::Loaded;
use crate::record::Status;
use crate::view::compare::{Comparison, compact, letter, plural_kind};
use crate::view::crosscheck::Crosscheck;
use crate::view::diff::Changes;
use crate::view::plan::{HEADERS, PlanSteps};
use crate::view::points::{Point, rate_unit};
use crate::view::report::findings::findings;
use crate::view::report::header::{ceiling_words, status_sentence, status_word, title};
use crate::view::report::hosts::{HostTable, host_tables, host_words, ran_on};
use crate::view::report::loads::{Loads, loads};
use crate::view::report::matrix::{Matrix, matrices};
use crate::view::report::spread::{Spreads, spreads};
use crate::view::report::{Report, best_lines, columns, rows, unreadable_line, value_line};
use crate::view::run::{HostCeilings, Ran, failure_words, probe_words, trim_words};

/// The `table` exporter: text for a terminal.
pub struct Table;

impl Exporter<Report> for Table {
    fn export(&self, r: &Report) -> Result<String, ExportError> {
        Ok(terminal(r))
    }
}

impl Exporter<Comparison> for Table {
    fn export(&self, c: &Comparison) -> Result<String, ExportError> {
        Ok(text(c))
    }
}

fn terminal(r: &Report) -> String {
    let (run, pts) = (&r.run, r.pts.as_slice());
    let m = &run.manifest;
    let mut out = String::new();
    if m.rehearsal {
        out.push_str("REHEARSAL: scaled down to try the methodology; these numbers are not measurements.\n");
    }
    out.push_str(&format!("{} ({}, {:.1}s)\n", title(m), status_word(m.status), m.seconds));
    for t in &m.targets {
        out.push_str(&format!("target: {} ({})\n", t.path.display(), t.describe()));
    }
    match &m.imported {
        Some(n) => {
            out.push_str(&format!("imported from {}\n", n.describe()));
            let host = m.host.hostname.clone().unwrap_or_else(|| "not stated".into());
            out.push_str(&format!("host: {host}\n"));
            if !n.not_stated.is_empty() {
                out.push_str(&format!("not stated by the file: {}\n", n.not_stated.join(", ")));
            }
        }
        None => out.push_str(&format!("host: {}\n", m.host.describe())),
    }
    if let Some(ran) = ran_on(m) {
        out.push_str(&format!("I/O ran {ran}:\n"));
        for h in &m.hosts {
            out.push_str(&format!("  {}\n", host_words(h)));
        }
    }
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
    let unreadable = r.unreadable();
    if !unreadable.is_empty() {
        out.push_str(&format!(
            "INCOMPLETE: {}:\n",
            unreadable_line(unreadable.len(), "this run", "this report")
        ));
        for u in unreadable {
            out.push_str(&format!("  {u}\n"));
        }
    }
    if pts.is_empty() {
        out.push_str("no step measured a rate\n");
    } else {
        out.push_str(&format!("values: {}\n", value_line(run, pts)));
        out.push_str(&table(run, pts));
        for line in best_lines(run, pts) {
            out.push_str(&format!("{line}\n"));
        }
        out.push_str(&matrices_text(&matrices(run, pts)));
    }
    out.push_str(&hosts_text(&host_tables(run)));
    out.push_str(&loads_text(&loads(run, false)));
    out.push_str(&spreads_text(&spreads(run, false)));
    for f in findings(run, &r.files) {
        out.push_str(&format!("{}: {}: {}\n", f.level, f.step, f.text));
    }
    out
}

/// Rows under their column heads, the columns in `right` right-aligned.
fn grid<R: std::ops::RangeBounds<usize>>(columns: &[String], rows: &[Vec<String>], right: R) -> String {
    let mut b = Builder::default();
    b.push_record(columns.to_vec());
    for r in rows {
        b.push_record(r.clone());
    }
    let mut t = b.build();
    t.with(Style::sharp());
    t.modify(Columns::new(right), Alignment::right());
    format!("{t}\n")
}

/// Each matrix (the PTS tables: mix x block size, threads x queue depth;
/// each phase's sweeps) under its title and note, its figures
/// right-aligned.
fn matrices_text(ms: &[Matrix]) -> String {
    let mut out = String::new();
    for m in ms {
        out.push_str(&format!("\n{}\n{}\n", m.title, m.note));
        let mut columns = vec![m.corner.clone()];
        columns.extend(m.columns.iter().cloned());
        let rows: Vec<Vec<String>> = m
            .rows
            .iter()
            .map(|r| std::iter::once(r.label.clone()).chain(r.cells.iter().map(|c| c.text.clone())).collect())
            .collect();
        out.push_str(&grid(&columns, &rows, 1..));
    }
    out
}

/// Each step's hosts (a rounds step's: each cell's last round) as a table
/// under a line naming the step and how far apart the hosts ran.
fn hosts_text(tables: &[HostTable]) -> String {
    let mut out = String::new();
    for t in tables {
        let part = if t.part.is_empty() { String::new() } else { format!(", {}", t.part) };
        out.push_str(&format!("\nhosts, step {} ({}{part}): {}\n", t.step, t.id, t.line));
        out.push_str(&grid(&t.columns, &t.rows, 2..));
    }
    out
}

/// Each `together` step's jobs and each QoS search's probes as a table
/// under a line naming the step; each open-loop rate in a line.
fn loads_text(l: &Loads) -> String {
    let mut out = String::new();
    let grid = |columns: &[String], rows: &[Vec<String>]| grid(columns, rows, 2..8);
    for t in &l.together {
        out.push_str(&format!("\nstep {} ({}): {}\n", t.step, t.id, t.describe));
        out.push_str(&grid(&t.columns, &t.rows));
    }
    for o in &l.open_loop {
        out.push_str(&format!(
            "open loop, step {} ({}): {}{}\n",
            o.step,
            o.id,
            o.words,
            o.missed.map_or(String::new(), |m| format!(" ({m})"))
        ));
    }
    for q in &l.qos {
        out.push_str(&format!("\nQoS search, step {} ({}): {}\n", q.step, q.id, q.verdict));
        out.push_str(&grid(&q.columns, &q.rows));
    }
    out
}

/// Each spread's devices and workers, each in a line that says whether
/// they differ by more than the noise, with their rows under it where
/// they do (or where the noise is unknown); each measurement's bursts in
/// a line and a table of its first, last, slowest and fastest.
fn spreads_text(s: &Spreads) -> String {
    let mut out = String::new();
    let grid = |columns: &[String], rows: &[Vec<String>]| grid(columns, rows, 2..);
    for v in &s.spreads {
        let part = if v.part.is_empty() { String::new() } else { format!(", {}", v.part) };
        for g in [&v.devices, &v.workers].into_iter().flatten() {
            out.push_str(&format!("step {} ({}{part}): {}\n", v.step, v.id, g.line));
            if g.shown() {
                out.push_str(&grid(&g.columns, &g.rows));
            }
        }
    }
    for b in &s.bursts {
        let job = b.job.as_ref().map_or(String::new(), |j| format!(", job {j}"));
        out.push_str(&format!("\nbursts, step {} ({}{job}): {}\n", b.step, b.id, b.line));
        out.push_str(&grid(&b.columns, &b.rows));
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

/// The comparison top to bottom: the runs, the paired steps with their
/// ratios, each device of the paired steps spread over several, each
/// sweep's best step, the steps with no counterpart and the differences.
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
    if !c.unreadable.is_empty() {
        let n = c.unreadable.len();
        out.push_str(&format!("INCOMPLETE: {}:\n", unreadable_line(n, "these runs", "this comparison")));
        for u in &c.unreadable {
            out.push_str(&format!("  {}: {}\n", u.run, u.file));
        }
    }
    out.push('\n');
    pairs(&mut out, c);
    devices(&mut out, c);
    if !c.sweep_bests.is_empty() {
        out.push_str("\nthe best step of each sweep, among its paired steps:\n");
        for s in &c.sweep_bests {
            out.push_str(&format!("  {}\n", s.line()));
        }
    }
    // Three runs or more (many drives): each paired measurement's runs
    // from the highest value down.
    if c.runs.len() >= 3 && !c.rankings.is_empty() {
        out.push_str("\neach paired measurement, ranked:\n");
        for r in &c.rankings {
            for line in r.lines() {
                out.push_str(&format!("{line}\n"));
            }
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
    differences(&mut out, c);
    out
}

/// The paired steps: a row a pair, then what the values are, the pairs
/// that failed, the rates missed and, for two runs, the ratios' geometric
/// mean.
fn pairs(out: &mut String, c: &Comparison) {
    if c.pairs.is_empty() {
        out.push_str(
            "no step of A has a counterpart in the others (steps pair by workload I/O and queue depth)\n",
        );
    } else {
        let mut head = vec!["step (workload, QD)".to_string(), "unit".into()];
        head.extend(c.runs.iter().map(|r| r.name.clone()));
        head.extend(c.runs[1..].iter().map(|r| format!("{}/A", r.name)));
        head.extend(c.runs.iter().map(|r| format!("{} mean us", r.name)));
        let mut rows = Vec::with_capacity(c.pairs.len());
        for p in &c.pairs {
            rows.push(p.cells());
        }
        out.push_str(&grid(&head, &rows, 2..));
        // Measurements only: fills and preconditions prepare the drive.
        let ratios: Vec<f64> = c
            .pairs
            .iter()
            .filter(|p| matches!(p.kind.as_str(), "measure" | "rounds" | "copy" | "together" | "qos"))
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
        for p in &c.pairs {
            for (i, v) in p.values.iter().enumerate() {
                if let Some(words) = &v.rate_missed {
                    out.push_str(&format!(
                        "{} {} missed its rate ({words}): not a result at the rate asked\n",
                        letter(i),
                        v.step_id
                    ));
                }
            }
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
}

/// Each device of the paired steps spread over several, a row a device.
fn devices(out: &mut String, c: &Comparison) {
    if !c.devices.is_empty() {
        out.push_str("\neach device of the paired steps spread over several (paired by model and serial, else path):\n");
        let mut head = vec!["step (workload, QD)".to_string(), "device".into()];
        head.extend(c.runs.iter().map(|r| format!("{} IOPS", r.name)));
        head.extend(c.runs[1..].iter().map(|r| format!("{}/A", r.name)));
        head.extend(c.runs.iter().map(|r| format!("{} mean us", r.name)));
        let mut rows = Vec::with_capacity(c.devices.len());
        for d in &c.devices {
            let mut row = vec![d.step.clone(), d.device.clone()];
            row.extend(d.iops.iter().map(|v| v.map_or("-".into(), |v| compact(Some(v)))));
            row.extend(d.ratios.iter().map(|r| r.map_or("-".into(), |r| format!("{r:.2}x"))));
            row.extend(
                d.mean_latency_us
                    .iter()
                    .map(|v| v.filter(|v| v.is_finite()).map_or("-".into(), |l| format!("{l:.1}"))),
            );
            rows.push(row);
        }
        out.push_str(&grid(&head, &rows, 2..));
    }
}

/// The differences that can explain the gaps, each with its sentence.
fn differences(out: &mut String, c: &Comparison) {
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
}

/// The plan's title, a row a step, the phases with their totals, and what
/// the time and bytes written leave out.
impl Exporter<PlanSteps> for Table {
    fn export(&self, p: &PlanSteps) -> Result<String, ExportError> {
        let plan = &p.plan;
        let mut out = String::new();
        let m = &plan.methodology;
        out.push_str(&format!("{} version {}", m.name, m.version));
        if let Some(d) = &m.description {
            out.push_str(&format!(": {d}"));
        }
        out.push('\n');
        let mut b = Builder::default();
        b.push_record(HEADERS);
        for r in p.rows() {
            b.push_record(r);
        }
        let mut table = b.build();
        table.with(Style::sharp());
        table.modify(Columns::first(), Alignment::right());
        out.push_str(&table.to_string());
        out.push_str("\n\n");
        let mut b = Builder::default();
        b.push_record(["phase", "steps", "time", "device-bound steps", "writes"]);
        for p in plan.phases() {
            b.push_record([
                p.phase.unwrap_or_else(|| "(no phase)".into()),
                p.steps.to_string(),
                p.time.human(),
                p.device_bound_steps.to_string(),
                p.written.human(plan.conventions.units),
            ]);
        }
        let e = &plan.estimate;
        b.push_record([
            "total".to_string(),
            plan.steps.len().to_string(),
            e.time.human(),
            e.device_bound_steps.to_string(),
            e.written.human(plan.conventions.units),
        ]);
        let mut table = b.build();
        table.with(Style::sharp());
        out.push_str(&table.to_string());
        out.push('\n');
        if e.device_bound_steps > 0 {
            let n = e.device_bound_steps;
            out.push_str(&format!(
                "\n{} on the device's speed (erase, fill, until written or transferred, copy, probe) \
                 and {} to the time above.\n",
                if n == 1 { "1 step depends".to_string() } else { format!("{n} steps depend") },
                if n == 1 { "adds" } else { "add" },
            ));
        }
        match (e.capacity, e.written_bytes) {
            (Some(c), Some(w)) => {
                let binary = plan.conventions.units == Units::Binary;
                out.push_str(&format!(
                    "On a {} target the plan writes {}, besides its timed writes.\n",
                    c.human(binary),
                    w.human(binary)
                ))
            }
            _ if e.written.capacity != Percent::ZERO => {
                out.push_str("Give --capacity (such as --capacity 2TB) for the bytes written as a size.\n")
            }
            _ => {}
        }
        Ok(out)
    }
}

/// A line a shape measured or not, and the memory copy rate.
impl Exporter<HostCeilings> for Table {
    fn export(&self, HostCeilings(c): &HostCeilings) -> Result<String, ExportError> {
        let mut out =
            format!("host ceiling against {}, random reads, {:.1}s each:\n", c.target, c.seconds_each);
        for s in &c.shapes {
            out.push_str(&format!("  {:.0} IOPS, {:.0} MB/s reading {}\n", s.iops, s.mb_s, s.shape));
        }
        for u in &c.unmeasured {
            out.push_str(&format!("  not measured, {}: {}\n", u.shape, u.reason));
        }
        out.push_str(&format!(
            "  {:.0} MB/s copying the data buffers in memory\n\
             A result within 10% of the ceiling of its own shape may measure the host, not the drive.\n",
            c.memory_copy_mb_s
        ));
        Ok(out)
    }
}

/// How the run ended, a row a step, and where its results are.
impl Exporter<Ran> for Table {
    fn export(&self, ran: &Ran) -> Result<String, ExportError> {
        let report = &ran.report;
        let binary = ran.units == Units::Binary;
        let mut b = Builder::default();
        b.push_record(["#", "step", "IOPS", rate_unit(ran.units), "mean us", "p99 us", "notes"]);
        for r in &report.steps {
            let (iops, rate, mean, p99) = match (&r.summary, &r.copy, &r.probe) {
                (Some(s), _, _) => (
                    format!("{:.0}", s.total.iops),
                    format!("{:.1}", if binary { s.total.mib_s } else { s.total.mb_s }),
                    format!("{:.1}", s.total.latency_us.mean),
                    format!("{:.1}", s.total.latency_us.p99),
                ),
                (None, Some(c), _) => (
                    "-".into(),
                    format!("{:.1}", if binary { c.mib_s } else { c.mb_s }),
                    "-".into(),
                    "-".into(),
                ),
                _ => ("-".into(), "-".into(), "-".into(), "-".into()),
            };
            let mut notes = Vec::new();
            if let Some(e) = &r.error {
                notes.push(failure_words(e));
            }
            if let Some(io) = &r.io {
                let async_ = if io.forced_async { " async" } else { "" };
                notes.push(format!("{}{async_} {}x{}", io.engine.name(), io.threads, io.depth));
                if let Some(open) = &io.rate {
                    notes.push(open.words());
                }
            }
            if let Some(t) = r.summary.as_ref().and_then(|s| s.trim.as_ref()) {
                notes.push(trim_words(t));
            }
            // A mismatch fails the step, and its error says it.
            if let Some(v) = r.verify.as_ref().filter(|_| r.error.is_none()) {
                notes.push(v.words());
            }
            if let Some(st) = &r.steady {
                notes.push(if st.reached {
                    format!("steady at round {}", st.rounds)
                } else {
                    format!("not steady in {} rounds", st.rounds)
                });
            }
            if let Some(p) = &r.probe {
                notes.push(probe_words(p));
            }
            if let Some(c) = &r.cells {
                notes.push(format!("{} cells", c.len()));
            }
            b.push_record([r.index.to_string(), r.id.clone(), iops, rate, mean, p99, notes.join("; ")]);
        }
        let mut t = b.build();
        t.with(Style::sharp());
        t.modify(Columns::new(0..1), Alignment::right());
        t.modify(Columns::new(2..6), Alignment::right());
        let mut out = String::new();
        if report.rehearsal {
            out.push_str(
                "REHEARSAL: scaled down to try the methodology; these numbers are not measurements.\n",
            );
        }
        out.push_str(&format!(
            "{} version {}: {} step{} in {:.1}s, {}\n",
            report.methodology.name,
            report.methodology.version,
            report.steps.len(),
            if report.steps.len() == 1 { "" } else { "s" },
            report.seconds,
            match report.status {
                Status::Completed => "completed",
                Status::Failed => "failed",
                Status::Interrupted => "interrupted",
                Status::Running => "running",
            }
        ));
        out.push_str(&t.to_string());
        out.push_str(&format!("\nresults in {}\n", report.results.display()));
        out.push_str(&format!(
            "read them with: methodic report {0} [--format html -o report.html]; methodic compare {0} OTHER_RESULTS\n",
            report.results.display()
        ));
        Ok(out)
    }
}

/// A table a class of change (breaking first), then the summary.
impl Exporter<Changes> for Table {
    fn export(&self, c: &Changes) -> Result<String, ExportError> {
        let d = &c.diff;
        let mut out = String::new();
        for class in [
            Class::BreaksComparability,
            Class::AddsRemovesSteps,
            Class::ShiftsPrecision,
            Class::PresentationOnly,
        ] {
            let changes: Vec<_> = d.changes.iter().filter(|c| c.class == class).collect();
            if changes.is_empty() {
                continue;
            }
            out.push_str(&format!("{} ({}):\n", class.word(), changes.len()));
            let mut b = Builder::default();
            b.push_record(["change", "old", "new", "affected steps", "why"]);
            for c in changes {
                b.push_record([
                    c.what.clone(),
                    c.old.clone(),
                    c.new.clone(),
                    c.affected.clone(),
                    c.reason.clone(),
                ]);
            }
            let mut t = b.build();
            t.with(Style::sharp());
            t.with(Width::wrap(150).keep_words(true).priority(tabled::settings::peaker::Priority::max(true)));
            out.push_str(&t.to_string());
            out.push_str("\n\n");
        }
        out.push_str(&d.summary(c.new_steps));
        out.push('\n');
        Ok(out)
    }
}

/// Each run's IOPS by both tools, then the medians and whether they agree.
impl Exporter<Crosscheck> for Table {
    fn export(&self, c: &Crosscheck) -> Result<String, ExportError> {
        let mut out = format!(
            "{} on {} ({}, {}), {} runs each:\n",
            c.step,
            c.target.display(),
            c.engine,
            c.fio_version,
            c.methodic_iops.len()
        );
        for (k, (m, f)) in c.methodic_iops.iter().zip(&c.fio_iops).enumerate() {
            out.push_str(&format!("  run {}: methodic {m:.0} IOPS, fio {f:.0} IOPS\n", k + 1));
        }
        out.push_str(&format!(
            "median: methodic {:.0} IOPS, fio {:.0} IOPS, ratio {:.3}: {}\n",
            c.methodic_median,
            c.fio_median,
            c.ratio,
            if c.agree { "within 10%" } else { "DIFFERENT by more than 10%" }
        ));
        Ok(out)
    }
}
