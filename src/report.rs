//! `methodic report DIR`: a results directory in, its numbers out with the
//! job that made each one: a terminal table (or Markdown, CSV, JSON), or
//! with `--format html` one self-contained page with the setup header and inline
//! SVG charts (IOPS and latency against QD, precondition plots with the
//! steady-state window, read-share x QD maps). Reads the directory only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use methodic_compiler::plan::{Action, Conventions, Units, ValueKind};
use methodic_results::record::Status;
use methodic_runtime::manifest::{self, Loaded, Manifest};
use methodic_runtime::units::human;
use serde::Serialize;
use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Style};

use crate::common::csv_line;
use crate::format::{Csv, ExportError, Exporter, Exports, Format, Html, Json, Markdown, Output, Table};
use crate::points::{Point, interval_words, kind_short, points, rate_unit, step_of, sweep_bests};
use crate::svg::{Chart, Series};

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// A results directory, as `methodic run` printed it.
    dir: PathBuf,
    #[command(flatten)]
    output: Output<Report>,
    /// The older way to write the HTML page (--format html -o FILE), kept
    /// for the pages that show it: the page goes to FILE, and --format to
    /// standard output.
    #[arg(long, value_name = "FILE", hide = true)]
    html: Option<PathBuf>,
}

pub fn report(args: ReportArgs) -> Result<ExitCode> {
    let run = load_results(&args.dir)?;
    let pts = points(&run);
    let report = Report { run, pts };
    if let Some(path) = &args.html {
        eprintln!("note: --html FILE is now --format html -o FILE (--html still works, but may go)");
        crate::format::write(&report, Format::Html, path)?;
    }
    args.output.write(&report)?;
    Ok(ExitCode::SUCCESS)
}

/// What `methodic report` shows: a results directory read, and its
/// numbers.
pub struct Report {
    run: Loaded,
    pts: Vec<Point>,
}

impl Exports for Report {
    fn exporter(format: Format) -> Option<&'static dyn Exporter<Report>> {
        Some(match format {
            Format::Table => &Table,
            Format::Md => &Markdown,
            Format::Csv => &Csv,
            Format::Json => &Json,
            Format::Html => &Html,
        })
    }
}

impl Exporter<Report> for Table {
    fn export(&self, r: &Report) -> Result<String, ExportError> {
        Ok(terminal(&r.run, &r.pts))
    }
}

impl Exporter<Report> for Markdown {
    fn export(&self, r: &Report) -> Result<String, ExportError> {
        Ok(markdown(&r.run, &r.pts))
    }
}

impl Exporter<Report> for Csv {
    fn export(&self, r: &Report) -> Result<String, ExportError> {
        Ok(csv(&r.run, &r.pts))
    }
}

impl Exporter<Report> for Html {
    fn export(&self, r: &Report) -> Result<String, ExportError> {
        html(&r.run, &r.pts)
            .map_err(|e| ExportError::Failed { format: Format::Html, detail: format!("{e:#}") })
    }
}

/// As JSON: [`JsonReport`].
impl Serialize for Report {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        json(&self.run, &self.pts).serialize(s)
    }
}

/// Reads a results directory, with the runtime's error (which names the
/// file) and its hint.
pub fn load_results(dir: &Path) -> Result<Loaded> {
    manifest::load(dir).map_err(|e| anyhow::anyhow!(methodic_runtime::exec::describe(&e.into())))
}

/// The columns of every result table: IOPS and RATE are the reported
/// value, OTHER IOPS and OTHER RATE the kind kept beside it.
const COLUMNS: [&str; 14] = [
    "#",
    "step",
    "workload",
    "QD",
    "IOPS",
    "RATE",
    "OTHER IOPS",
    "OTHER RATE",
    "mean us",
    "p99 us",
    "drive state",
    "span",
    "value",
    "notes",
];

/// The columns, the rate in the run's units and each value column named by
/// its kind: `IOPS (peak)`, `MB/s (peak)`, `IOPS (avg)`, `MB/s (avg)`.
fn columns(c: &Conventions) -> Vec<String> {
    let (head, other) = (kind_short(c.value), kind_short(beside(c.value)));
    let rate = rate_unit(c.units);
    COLUMNS
        .iter()
        .map(|col| match *col {
            "IOPS" => format!("IOPS ({head})"),
            "RATE" => format!("{rate} ({head})"),
            "OTHER IOPS" => format!("IOPS ({other})"),
            "OTHER RATE" => format!("{rate} ({other})"),
            _ => col.to_string(),
        })
        .collect()
}

/// The value kind shown beside the reported one: the step average beside a
/// peak, the peak beside an average.
fn beside(kind: ValueKind) -> ValueKind {
    if kind == ValueKind::Peak { ValueKind::StepAverage } else { ValueKind::Peak }
}

/// What the value columns hold, in a sentence: the convention's value and
/// how it is made, and the kind kept beside it.
fn value_line(run: &Loaded, pts: &[Point]) -> String {
    let c = &run.manifest.plan.conventions;
    let rate = rate_unit(c.units);
    let mut intervals: Vec<String> =
        pts.iter().filter_map(|p| p.peak_interval_s).map(interval_words).collect();
    intervals.sort();
    intervals.dedup();
    let interval = match intervals.as_slice() {
        [] => "best series interval (none recorded in these results)".to_string(),
        [one] => format!("best {one} interval"),
        many => format!("best series interval ({})", many.join(", ")),
    };
    match c.value {
        ValueKind::Peak => format!(
            "IOPS (peak) and {rate} (peak) are peaks: each step's {interval} of its record window (a \
             rounds measurement: its best round; a copy has no intervals: its average); beside them, IOPS (avg) \
             and {rate} (avg) are the step averages"
        ),
        ValueKind::StepAverage => format!(
            "IOPS (avg) and {rate} (avg) are step averages over each step's record window (a rounds \
             measurement: the average of its window's rounds); beside them, IOPS (peak) and {rate} (peak) are \
             each step's {interval} (a rounds measurement: its best round)"
        ),
        ValueKind::SteadyStateAverage => format!(
            "IOPS (steady) and {rate} (steady) are steady-state averages: a rounds measurement's window \
             rounds, a precondition until steady's last window (of the metric its rule tracks); a measurement, \
             fill or copy has no window and gives its step average; beside them, IOPS (peak) and {rate} (peak) \
             are each step's {interval} (a rounds measurement: its best round)"
        ),
    }
}

/// Under `value peak`, each sweep's best step, as review charts show a
/// sweep: `sweep 2 rnd4k_read: best step QD 32 (measure/rnd4k_read-qd32):
/// 512345 IOPS, 2098.6 MB/s (peak)`.
fn best_lines(run: &Loaded, pts: &[Point]) -> Vec<String> {
    let units = run.manifest.plan.conventions.units;
    if run.manifest.plan.conventions.value != ValueKind::Peak {
        return Vec::new();
    }
    sweep_bests(pts)
        .into_iter()
        .map(|p| {
            format!(
                "sweep {} {}: best step QD {} ({}): {} IOPS, {} {} ({})",
                p.sweep.unwrap_or(0),
                p.workload.as_ref().map_or("-", |w| w.name.as_str()),
                p.qd.map_or(0, |q| q.total),
                p.id,
                num(p.iops, 0),
                num(Some(p.rate(units)), 1),
                rate_unit(units),
                p.value.words()
            )
        })
        .collect()
}

fn num(v: Option<f64>, decimals: usize) -> String {
    v.filter(|v| v.is_finite()).map_or("-".into(), |v| format!("{v:.decimals$}"))
}

/// One row a point, as text.
fn rows(run: &Loaded, pts: &[Point], short: bool) -> Vec<Vec<String>> {
    let units = run.manifest.plan.conventions.units;
    let other = beside(run.manifest.plan.conventions.value);
    pts.iter()
        .map(|p| {
            let step = step_of(run, p);
            let c = step.map(|s| &s.checklist);
            let qd = p.qd.map_or("-".into(), |q| {
                if q.workers > 1 {
                    format!("{} ({}x{})", q.total, q.workers, q.per_worker)
                } else {
                    q.total.to_string()
                }
            });
            let mut notes = Vec::new();
            if let Some(e) = &p.error {
                notes.push(format!("failed: {e}"));
            }
            if let Some(v) = &p.value_note {
                notes.push(v.clone());
            }
            if let Some(r) = p.repeat {
                notes.push(format!("run {} of {}", r.run, r.runs));
            }
            if p.kind == "rounds" {
                notes.push("rounds: p99 of the last round".into());
            } else if p.kind != "measure" {
                notes.push(p.kind.clone());
            }
            if let Some(st) = step.and_then(|s| s.steady.as_ref()) {
                notes.push(if st.reached {
                    format!("steady at round {}", st.rounds)
                } else {
                    format!("not steady in {} rounds", st.rounds)
                });
            }
            vec![
                p.step.to_string(),
                p.id.clone(),
                p.workload.as_ref().map_or("-".into(), |w| w.label()),
                qd,
                num(p.iops, 0),
                num(Some(p.rate(units)), 1),
                num(p.iops_as(other), 0),
                num(p.rate_as(other, units), 1),
                num(p.mean_latency_us, 1),
                num(p.p99_latency_us, 1),
                c.and_then(|c| c.drive_state.as_ref())
                    .map_or("-".into(), |d| if short { short_state(d) } else { d.description.clone() }),
                c.and_then(|c| c.span.as_ref()).map_or("-".into(), |s| {
                    if short { s.declared.clone() } else { format!("{} ({})", s.declared, human(s.bytes)) }
                }),
                value_short(p, step),
                notes.join("; "),
            ]
        })
        .collect()
}

/// How this number was made, in a few words (the methodology's convention
/// is in the header).
fn value_short(p: &Point, step: Option<&manifest::ManifestStep>) -> String {
    let steady = step.and_then(|s| s.steady.as_ref());
    // A precondition whose steady-state rule tracks one rate reports the
    // other as its step average: the rate that is not says how.
    let kind = if p.value != ValueKind::StepAverage { p.value } else { p.rate_value };
    match (p.kind.as_str(), kind) {
        ("rounds", ValueKind::Peak) => "best round".into(),
        (_, ValueKind::Peak) => {
            format!("best {} interval", p.peak_interval_s.map_or("series".into(), interval_words))
        }
        ("precondition", ValueKind::SteadyStateAverage) if steady.is_some_and(|s| s.reached) => {
            "steady-state window average".into()
        }
        ("precondition", ValueKind::SteadyStateAverage) => "last-window average, not steady".into(),
        _ => value_average(p, steady),
    }
}

/// How an average was made, in a few words.
fn value_average(p: &Point, steady: Option<&methodic_results::record::SteadyResult>) -> String {
    match p.kind.as_str() {
        "measure" => "step average".into(),
        "fill" => "fill average".into(),
        "precondition" => "precondition average".into(),
        "rounds" if steady.is_some_and(|s| s.reached) => "steady-state window average".into(),
        "rounds" => "last-window average, not steady".into(),
        "copy" => "copy average".into(),
        other => other.to_string(),
    }
}

/// `preconditioned`, `steady (round 7)`, `filled 2x`: the drive state in a word or two.
fn short_state(d: &manifest::DriveState) -> String {
    use manifest::Condition;
    let mut s = match d.condition {
        Condition::AsFound => "as found".to_string(),
        Condition::Fresh if d.erased.is_some() => "erased".into(),
        Condition::Fresh => "fresh".into(),
        Condition::Filled => format!("filled {}x", d.fill_passes),
        Condition::Preconditioned => "preconditioned".into(),
        Condition::Steady => format!("steady (round {})", d.steady.map_or(0, |s| s.rounds)),
    };
    if d.in_doubt {
        s.push_str(", in doubt");
    }
    s
}

/// `Platform`, `Device`, `Setup`, `Test parameters`: what the SNIA PTS
/// report header shows, from the manifest.
fn header(m: &Manifest) -> Vec<(String, Vec<(String, String)>)> {
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "unknown".into());
    let h = &m.host;
    let mut platform = vec![
        ("host".to_string(), opt(&h.hostname)),
        ("CPU".into(), format!("{} ({} CPUs online, {} allowed)", opt(&h.cpu_model), h.cpus, h.cpus_allowed)),
        ("memory".into(), human(h.memory_bytes)),
        ("kernel".into(), format!("Linux {} {}", opt(&h.kernel), h.kernel_build.as_deref().unwrap_or(""))),
        ("OS".into(), opt(&h.os)),
        ("architecture".into(), h.arch.clone()),
    ];
    if let Some(v) = &h.virtualization {
        platform.push(("virtualization".into(), v.clone()));
    }
    platform.extend(ceiling_rows(m));
    let mut device = Vec::new();
    for (i, t) in m.targets.iter().enumerate() {
        let n = if m.targets.len() > 1 { format!(" {}", i + 1) } else { String::new() };
        let id = &t.identity;
        device.push((format!("target{n}"), format!("{} ({})", t.path.display(), t.describe())));
        device.push((format!("capacity{n}"), format!("{} ({} bytes)", human(t.capacity), t.capacity)));
        device.push((
            format!("block size{n}"),
            format!("{} B logical, {} B physical", t.logical_block, t.physical_block),
        ));
        let known = [
            ("model", &id.model),
            ("serial", &id.serial),
            ("firmware", &id.firmware),
            ("vendor", &id.vendor),
            ("driver", &id.driver),
            ("I/O scheduler", &id.scheduler),
            ("write cache", &id.write_cache),
            ("loop backing file", &id.backing_file),
        ];
        for (k, v) in known {
            if let Some(v) = v {
                device.push((format!("{k}{n}"), v.clone()));
            }
        }
        if let Some(r) = id.rotational {
            device.push((format!("rotational{n}"), if r { "yes" } else { "no (solid state)" }.into()));
        }
        if let Some(fs) = &id.file_system {
            device.push((
                format!("file system{n}"),
                format!("{} on {} at {} ({})", fs.fs_type, fs.source, fs.mount_point, fs.options),
            ));
        }
    }
    let e = &m.engine;
    let setup = vec![
        (
            "methodology".to_string(),
            format!(
                "{} version {}{}",
                m.methodology.name,
                m.methodology.version,
                m.methodology.description.as_deref().map(|d| format!(": {d}")).unwrap_or_default()
            ),
        ),
        ("source hash".into(), m.methodology.source_hash.clone()),
        ("plan hash".into(), format!("{} (schema {})", m.methodology.plan_hash, m.methodology.plan_schema)),
        (
            "tool".into(),
            format!(
                "{} {}{}",
                m.tool.name,
                m.tool.version,
                m.tool.git_revision.as_deref().map(|r| format!(" ({r})")).unwrap_or_default()
            ),
        ),
        (
            "engine".into(),
            format!(
                "{}; io_uring {}; workers {}pinned; latency {}recorded",
                e.choice,
                match &e.io_uring_unavailable {
                    Some(why) => format!("unavailable ({why})"),
                    None if e.io_uring => "available".into(),
                    None => "not used".into(),
                },
                if e.pinned { "" } else { "not " },
                if e.latency_recorded { "" } else { "NOT " }
            ),
        ),
        ("run".into(), format!("{}: started {}, {:.1}s", status_word(m.status), m.started, m.seconds)),
        ("seed".into(), m.seed.to_string()),
    ];
    let c = &m.plan.conventions;
    let t = &m.plan.target;
    let params = vec![
        (
            "units".to_string(),
            match c.units {
                Units::Decimal => "decimal: MB = 10^6 bytes".into(),
                Units::Binary => "binary: MiB = 2^20 bytes".to_string(),
            },
        ),
        (
            "queue depth".into(),
            match c.queue_depth {
                methodic_compiler::plan::QdCounting::Total => "counted in total, over all workers".into(),
                methodic_compiler::plan::QdCounting::PerWorker => "counted per worker".to_string(),
            },
        ),
        ("value reported".into(), c.value.words().into()),
        ("span".into(), t.span.to_string()),
        ("workers x devices".into(), format!("{} x {}", t.workers, t.devices)),
        (
            "I/O".into(),
            match t.io {
                methodic_compiler::plan::IoMode::Direct => "direct (O_DIRECT)".into(),
                methodic_compiler::plan::IoMode::Buffered => "buffered (page cache)".to_string(),
            },
        ),
        ("data pattern".into(), t.data.to_string()),
        (
            "steps".into(),
            format!(
                "{} planned, {} recorded",
                m.plan.steps.len(),
                m.steps.iter().filter(|s| s.seconds.is_some()).count()
            ),
        ),
    ];
    vec![
        ("Platform".into(), platform),
        ("Device".into(), device),
        ("Setup".into(), setup),
        ("Test parameters".into(), params),
    ]
}

/// `the run failed`, for the line that says not everything is shown.
fn status_sentence(s: Status) -> &'static str {
    match s {
        Status::Running => {
            "the run did not finish (its manifest still says running: cut off by a crash, or still going)"
        }
        Status::Completed => "the run completed",
        Status::Failed => "the run failed",
        Status::Interrupted => "the run was interrupted",
    }
}

/// The most shapes the platform table lists one a row.
const CEILING_ROWS: usize = 16;

/// `54 I/O shapes read from RAM, 0.5s each; memory copy 18181 MB/s`; for
/// an older manifest its one ceiling: `3300000 IOPS (4096 B random reads
/// from RAM at QD 32), 51758 MB/s (...)`.
fn ceiling_words(m: &Manifest) -> Option<String> {
    if let Some(c) = &m.ceilings {
        let unmeasured = match c.unmeasured.len() {
            0 => String::new(),
            n => format!(" ({n} more not measured)"),
        };
        return Some(format!(
            "{} read from RAM{unmeasured}, {}s each; memory copy {:.0} MB/s; each step is judged against the ceiling \
             of its own shape",
            methodic_compiler::plan::plural(c.shapes.len() as u64, "I/O shape", "I/O shapes"),
            c.seconds_each,
            c.memory_copy_mb_s
        ));
    }
    m.host_ceiling.as_ref().map(|c| {
        format!(
            "{:.0} IOPS ({} B random reads from RAM at QD {}), {:.0} MB/s ({} B sequential), memory copy {:.0} MB/s; {}",
            c.iops, c.iops_block, c.qd, c.mb_s, c.bandwidth_block, c.memory_copy_mb_s, c.engine
        )
    })
}

/// The platform table's host ceiling: the summary, then a row a shape
/// (up to [`CEILING_ROWS`]) and a row a shape not measured.
fn ceiling_rows(m: &Manifest) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> =
        ceiling_words(m).map(|w| ("host ceiling".into(), w)).into_iter().collect();
    let Some(c) = &m.ceilings else { return rows };
    if c.shapes.len() > CEILING_ROWS {
        rows.push(("ceilings".into(), "each shape's is in manifest.json, under `ceilings`".into()));
        return rows;
    }
    for s in &c.shapes {
        rows.push((format!("ceiling, {}", s.shape), format!("{:.0} IOPS, {:.0} MB/s", s.iops, s.mb_s)));
    }
    for u in &c.unmeasured {
        rows.push((format!("ceiling, {}", u.shape), format!("not measured: {}", u.reason)));
    }
    rows
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Running => "running (or cut off)",
        Status::Completed => "completed",
        Status::Failed => "failed",
        Status::Interrupted => "interrupted",
    }
}

fn title(m: &Manifest) -> String {
    format!("{} version {}", m.methodology.name, m.methodology.version)
}

fn subtitle(m: &Manifest) -> String {
    let target = m.targets.first().map_or("no target".into(), |t| t.describe());
    format!("{} on {}; {}", status_word(m.status), target, m.host.describe())
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
            methodic_compiler::plan::QdCounting::Total => "in total",
            methodic_compiler::plan::QdCounting::PerWorker => "per worker",
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

fn csv(run: &Loaded, pts: &[Point]) -> String {
    let mut out = String::new();
    out.push_str(&csv_line(&[
        "step",
        "id",
        "phase",
        "kind",
        "workload",
        "blocks",
        "read_percent",
        "random_percent",
        "qd_total",
        "workers",
        "per_worker",
        "iops",
        "mb_s",
        "mib_s",
        "reported_value",
        "average_iops",
        "average_mb_s",
        "average_mib_s",
        "peak_iops",
        "peak_mb_s",
        "peak_mib_s",
        "peak_interval_s",
        "mean_latency_us",
        "p99_latency_us",
        "max_latency_us",
        "seconds",
        "drive_state",
        "span_bytes",
        "span_percent",
        "value_kind",
        "io",
        "error",
    ]));
    for p in pts {
        let c = step_of(run, p).map(|s| &s.checklist);
        let w = p.workload.as_ref();
        let blocks = w.map_or(String::new(), |w| {
            w.blocks
                .iter()
                .map(|b| format!("{}:{}", b.size.0, b.share.as_f64()))
                .collect::<Vec<_>>()
                .join(" ")
        });
        let f = |v: Option<f64>| v.filter(|v| v.is_finite()).map_or(String::new(), |v| format!("{v:.3}"));
        out.push_str(&csv_line(&[
            p.step.to_string(),
            p.id.clone(),
            p.phase.clone().unwrap_or_default(),
            p.kind.clone(),
            w.map_or(String::new(), |w| w.name.clone()),
            blocks,
            w.map_or(String::new(), |w| w.read.as_f64().to_string()),
            w.map_or(String::new(), |w| w.random.as_f64().to_string()),
            p.qd.map_or(String::new(), |q| q.total.to_string()),
            p.qd.map_or(String::new(), |q| q.workers.to_string()),
            p.qd.map_or(String::new(), |q| q.per_worker.to_string()),
            f(p.iops),
            f(Some(p.mb_s)),
            f(Some(p.mib_s)),
            if p.value == p.rate_value {
                p.value.words().to_string()
            } else {
                format!("IOPS {}, rate {}", p.value.words(), p.rate_value.words())
            },
            f(p.average_iops),
            f(Some(p.average_mb_s)),
            f(Some(p.average_mib_s)),
            f(p.peak_iops),
            f(p.peak_mb_s),
            f(p.peak_mib_s),
            f(p.peak_interval_s),
            f(p.mean_latency_us),
            f(p.p99_latency_us),
            f(p.max_latency_us),
            format!("{:.3}", p.seconds),
            c.and_then(|c| c.drive_state.as_ref()).map_or(String::new(), |d| d.description.clone()),
            c.and_then(|c| c.span.as_ref()).map_or(String::new(), |s| s.bytes.to_string()),
            c.and_then(|c| c.span.as_ref()).map_or(String::new(), |s| s.percent_of_capacity.to_string()),
            c.map_or(String::new(), |c| c.value_kind.kind.words().to_string()),
            c.and_then(|c| c.cache.io).map_or(String::new(), |io| {
                match io {
                    methodic_compiler::plan::IoMode::Direct => "direct",
                    methodic_compiler::plan::IoMode::Buffered => "buffered",
                }
                .to_string()
            }),
            p.error.clone().unwrap_or_default(),
        ]));
    }
    out
}

#[derive(Serialize)]
struct JsonReport<'a> {
    dir: &'a Path,
    manifest_schema: u32,
    methodology: &'a manifest::Methodology,
    status: Status,
    rehearsal: bool,
    host: &'a methodic_runtime::host::Host,
    targets: &'a [methodic_results::host::TargetInfo],
    units: Units,
    /// The methodology's value convention, and what the value columns hold.
    value: ValueKind,
    value_note: String,
    points: Vec<JsonPoint<'a>>,
    /// Under `value peak`, each sweep's best step (by its id).
    sweep_bests: Vec<JsonBest<'a>>,
}

#[derive(Serialize)]
struct JsonBest<'a> {
    sweep: Option<u32>,
    workload: Option<&'a str>,
    qd: Option<u32>,
    id: &'a str,
    iops: Option<f64>,
    mb_s: f64,
    mib_s: f64,
}

#[derive(Serialize)]
struct JsonPoint<'a> {
    #[serde(flatten)]
    point: &'a Point,
    checklist: Option<&'a manifest::Checklist>,
}

fn json<'a>(run: &'a Loaded, pts: &'a [Point]) -> JsonReport<'a> {
    let m = &run.manifest;
    JsonReport {
        dir: &run.dir,
        manifest_schema: m.schema,
        methodology: &m.methodology,
        status: m.status,
        rehearsal: m.rehearsal,
        host: &m.host,
        targets: &m.targets,
        units: m.plan.conventions.units,
        value: m.plan.conventions.value,
        value_note: value_line(run, pts),
        points: pts
            .iter()
            .map(|p| JsonPoint { point: p, checklist: step_of(run, p).map(|s| &s.checklist) })
            .collect(),
        sweep_bests: if m.plan.conventions.value == ValueKind::Peak {
            sweep_bests(pts)
                .into_iter()
                .map(|p| JsonBest {
                    sweep: p.sweep,
                    workload: p.workload.as_ref().map(|w| w.name.as_str()),
                    qd: p.qd.map(|q| q.total),
                    id: &p.id,
                    iops: p.iops,
                    mb_s: p.mb_s,
                    mib_s: p.mib_s,
                })
                .collect()
        } else {
            Vec::new()
        },
    }
}

#[derive(Serialize)]
struct SweepView {
    title: String,
    note: String,
    iops_svg: String,
    latency_svg: String,
}

#[derive(Serialize)]
struct PlotView {
    title: String,
    note: String,
    svgs: Vec<String>,
}

#[derive(Serialize)]
struct MapView {
    title: String,
    units: String,
    qds: Vec<u32>,
    rows: Vec<MapRow>,
}

#[derive(Serialize)]
struct MapRow {
    read: String,
    cells: Vec<MapCell>,
}

#[derive(Serialize)]
struct MapCell {
    value: String,
    shade: String,
}

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

/// The lines of one phase's charts: (sweep, line) to its points.
type Lines<'a> = BTreeMap<(u32, usize), Vec<&'a Point>>;

/// IOPS and latency against QD for each phase's sweeps: one line a sweep.
fn sweeps(run: &Loaded, pts: &[Point]) -> Vec<SweepView> {
    // A line for each sweep and workload (a sweep over read shares gives a
    // line a share), in plan order, its points by QD.
    let mut groups: BTreeMap<(usize, String), Lines> = BTreeMap::new();
    for p in pts.iter().filter(|p| p.kind == "measure" && p.error.is_none()) {
        let (Some(sweep), Some(_), Some(w)) = (p.sweep, p.qd, &p.workload) else { continue };
        let phase = p.phase.clone().unwrap_or_else(|| "steps".into());
        // Keep phases in plan order: key by the first step of the phase.
        let first = pts.iter().find(|q| q.phase == p.phase).map_or(0, |q| q.step);
        let lines = groups.entry((first, phase)).or_default();
        let same = |q: &&Point| q.workload.as_ref().is_some_and(|v| v.name == w.name && v.same_io(w));
        let line =
            lines.iter().find(|((s, _), l)| *s == sweep && l.first().is_some_and(same)).map(|(k, _)| *k);
        let key = line.unwrap_or((sweep, lines.len()));
        lines.entry(key).or_default().push(p);
    }
    for lines in groups.values_mut() {
        for points in lines.values_mut() {
            points.sort_by_key(|p| p.qd.map_or(0, |q| q.total));
        }
    }
    let units = run.manifest.plan.conventions.units;
    let kind = run.manifest.plan.conventions.value;
    let iops_label = format!("IOPS ({})", kind_short(kind));
    groups
        .into_iter()
        .map(|((_, phase), sweeps)| {
            let mut iops = Vec::new();
            let mut lat = Vec::new();
            let mut names = Vec::new();
            let many = sweeps.len() > 6;
            for points in sweeps.values() {
                let name = points[0].workload.as_ref().map_or("?".into(), |w| w.name.clone());
                let xy = |f: &dyn Fn(&Point) -> Option<f64>| -> Vec<(f64, f64)> {
                    points.iter().filter_map(|p| Some((p.qd?.total as f64, f(p)?))).collect()
                };
                iops.push(Series { name: name.clone(), points: xy(&|p| p.iops) });
                lat.push(Series { name: format!("{name} mean"), points: xy(&|p| p.mean_latency_us) });
                // Many lines: the means alone keep the chart readable.
                if !many {
                    lat.push(Series { name: format!("{name} p99"), points: xy(&|p| p.p99_latency_us) });
                }
                let w = points[0].workload.as_ref().map_or(String::new(), |w| w.label());
                names.push(w);
            }
            let first = sweeps.values().next().and_then(|v| v.first()).and_then(|p| step_of(run, p));
            let qd_note = first.and_then(|s| s.checklist.queue_depth.as_ref()).map_or(String::new(), |q| {
                match q.counted {
                    methodic_compiler::plan::QdCounting::Total => {
                        "QD counts outstanding I/Os over all workers".into()
                    }
                    methodic_compiler::plan::QdCounting::PerWorker => {
                        "QD counts outstanding I/Os in each worker".to_string()
                    }
                }
            });
            let state = first
                .and_then(|s| s.checklist.drive_state.as_ref())
                .map_or(String::new(), |d| d.description.clone());
            let title_iops = format!("{phase}: IOPS by queue depth ({})", kind.words());
            let title_lat = format!("{phase}: latency by queue depth");
            SweepView {
                title: phase.clone(),
                note: format!(
                    "{}. {qd_note}. Drive state before the first sweep: {state}. Rates in {}.",
                    names.join("; "),
                    rate_unit(units)
                ),
                iops_svg: Chart {
                    title: &title_iops,
                    x_label: "queue depth (outstanding I/Os)",
                    y_label: &iops_label,
                    log2_x: true,
                    series: iops,
                    band: None,
                }
                .render(),
                latency_svg: Chart {
                    title: &title_lat,
                    x_label: "queue depth (outstanding I/Os)",
                    y_label: "latency (µs)",
                    log2_x: true,
                    series: lat,
                    band: None,
                }
                .render(),
            }
        })
        .collect()
}

#[derive(Serialize)]
struct Finding {
    /// `warning` or `note`.
    level: &'static str,
    step: String,
    text: String,
}

/// What the numbers say beyond their averages: repeats whose first run
/// stands apart (and the statistics of every repeat), cache cliffs of
/// sustained writes, and page sizes from probes.
fn findings(run: &Loaded) -> Vec<Finding> {
    let mut out = Vec::new();
    // Repeats are summarized from each run's step average, whatever value
    // the table reports.
    let of =
        if run.manifest.plan.conventions.value == ValueKind::StepAverage { "" } else { "step averages of " };
    for r in &run.steps {
        if let Some(rep) = &r.repeats {
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
            out.push(Finding { level: "note", step: r.id.clone(), text: stats });
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
            out.push(Finding { level: "note", step: r.id.clone(), text: c.verdict.clone() });
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
fn page_cache_words(pc: &methodic_runtime::analysis::repeats::PageCache) -> String {
    use methodic_runtime::analysis::repeats::Evidence;
    let served = match pc.served_runs.as_slice() {
        [] => "no run served from it".to_string(),
        runs => format!("{} served from it", methodic_runtime::analysis::repeats::run_list(runs)),
    };
    match pc.decided_by {
        Evidence::Counters => format!("counted on {}: {served}", pc.source),
        Evidence::Ram => format!("the data is in RAM ({}), no device to read", pc.source),
        Evidence::Timing => format!("decided by timing ({})", pc.source),
    }
}

/// Each page probe's latency by offset, with its estimate.
fn probes(run: &Loaded) -> Vec<PlotView> {
    run.steps
        .iter()
        .filter_map(|r| {
            let p = r.probe.as_ref()?;
            let path = run.dir.join(r.series.as_ref()?);
            let pts: Vec<(f64, f64)> = read_columns(&path, "offset_bytes", "latency_us")
                .into_iter()
                .map(|(x, y)| (x / 1024.0, y))
                .collect();
            let title = format!("{}: write latency by offset", r.id);
            let svg = Chart {
                title: &title,
                x_label: "offset (KiB)",
                y_label: "latency (µs)",
                log2_x: false,
                series: vec![Series { name: "latency".into(), points: pts }],
                band: None,
            }
            .render();
            let verdict = p.pages.as_ref().map_or("no estimate".into(), |e| e.verdict.clone());
            Some(PlotView {
                title: r.id.clone(),
                note: format!(
                    "{} offsets, {} of {} repeats each, made durable with {}. {verdict}.",
                    p.offsets, "the statistic", p.repeats, p.durable
                ),
                svgs: vec![svg],
            })
        })
        .collect()
}

/// Two columns of a CSV with a header (a probe's offsets and latencies):
/// `x` and `column`.
fn read_columns(path: &Path, x: &str, column: &str) -> Vec<(f64, f64)> {
    let Ok(text) = std::fs::read_to_string(path) else { return Vec::new() };
    let mut lines = text.lines();
    let Some(head) = lines.next() else { return Vec::new() };
    let cols: Vec<&str> = head.split(',').collect();
    let (Some(t), Some(c)) = (cols.iter().position(|c| *c == x), cols.iter().position(|c| *c == column))
    else {
        return Vec::new();
    };
    lines
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Some((f.get(t)?.parse().ok()?, f.get(c)?.parse().ok()?))
        })
        .collect()
}

/// Each fill, precondition and rounds step: its per-second series and, for
/// the steady-state rule, the tracked value by round with the window shaded.
fn preparation(run: &Loaded) -> Vec<PlotView> {
    let units = run.manifest.plan.conventions.units;
    let mut out = Vec::new();
    for r in &run.steps {
        let Some(step) = run.plan_step(r) else { continue };
        let sustained = matches!(&step.action, Action::Measure { stop, .. } if stop.written.is_some());
        if !sustained
            && !matches!(
                step.action,
                Action::Fill { .. } | Action::Precondition { .. } | Action::Rounds { .. }
            )
        {
            continue;
        }
        let mut svgs = Vec::new();
        if !matches!(step.action, Action::Rounds { .. }) {
            if let Some(series) = &r.series {
                let path = run.dir.join(series);
                let (column, y_label) = if sustained || matches!(step.action, Action::Fill { .. }) {
                    (if units == Units::Binary { "mib_s" } else { "mb_s" }, rate_unit(units).to_string())
                } else {
                    ("iops", "IOPS".to_string())
                };
                let pts: Vec<(f64, f64)> = methodic_results::series::read(&path)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|r| Some((r.t, r.column(column)?)))
                    .collect();
                // The cliff of a sustained write: the lower plateau shaded.
                let band = r.cliff.as_ref().filter(|c| c.found).and_then(|c| {
                    let end = pts.last()?.0;
                    Some((c.at_seconds?, end, format!("after the cliff: {:.0} MB/s", c.after_mb_s?)))
                });
                if !pts.is_empty() {
                    let title = format!("{}: {y_label} each interval", r.id);
                    svgs.push(
                        Chart {
                            title: &title,
                            x_label: "time (s)",
                            y_label: &y_label,
                            log2_x: false,
                            series: vec![Series { name: y_label.clone(), points: pts }],
                            band,
                        }
                        .render(),
                    );
                }
            }
        }
        let mut note = step.describe();
        if let Some(c) = &r.cliff {
            note.push_str(&format!(". {}.", c.verdict));
        }
        if let Some(st) = &r.steady {
            let metric = match st.metric {
                methodic_compiler::plan::Metric::Iops => "IOPS".to_string(),
                methodic_compiler::plan::Metric::Bandwidth => rate_unit(units).to_string(),
                methodic_compiler::plan::Metric::Latency => "mean latency (µs)".to_string(),
            };
            let band = st.window.as_ref().map(|w| {
                let label = if w.steady {
                    format!("steady-state window, rounds {}-{}", w.first, w.last)
                } else {
                    format!("last window checked, rounds {}-{} (not steady)", w.first, w.last)
                };
                (w.first as f64, w.last as f64, label)
            });
            let mut series = vec![Series {
                name: metric.clone(),
                points: st.values.iter().enumerate().map(|(i, v)| ((i + 1) as f64, *v)).collect(),
            }];
            if let Some(w) = st.window.as_ref() {
                series.push(Series {
                    name: "window average".into(),
                    points: vec![(w.first as f64, w.average), (w.last as f64, w.average)],
                });
            }
            let title = format!("{}: {metric} each round", r.id);
            svgs.push(
                Chart { title: &title, x_label: "round", y_label: &metric, log2_x: false, series, band }
                    .render(),
            );
            note.push_str(&if st.reached {
                format!(". Steady state reached at round {}.", st.rounds)
            } else {
                format!(". Steady state not reached in {} rounds.", st.rounds)
            });
        }
        if !svgs.is_empty() {
            out.push(PlotView { title: r.id.clone(), note, svgs });
        }
    }
    out
}

/// Read share x QD maps: where one phase measured the same block sizes at
/// two or more read shares and two or more queue depths.
fn maps(run: &Loaded, pts: &[Point]) -> Vec<MapView> {
    let units = run.manifest.plan.conventions.units;
    let mut groups: BTreeMap<(usize, String), Vec<&Point>> = BTreeMap::new();
    for p in pts.iter().filter(|p| matches!(p.kind.as_str(), "measure" | "rounds") && p.error.is_none()) {
        let (Some(w), Some(_)) = (&p.workload, p.qd) else { continue };
        let blocks: Vec<String> = w.blocks.iter().map(|b| format!("{}", b.size)).collect();
        let first = pts.iter().find(|q| q.phase == p.phase).map_or(0, |q| q.step);
        let key = format!(
            "{}: {} {}",
            p.phase.clone().unwrap_or_else(|| "steps".into()),
            blocks.join("/"),
            if w.random.as_f64() >= 100.0 { "random".to_string() } else { format!("{} random", w.random) }
        );
        groups.entry((first, key)).or_default().push(p);
    }
    let mut out = Vec::new();
    for ((_, title), points) in groups {
        let mut reads: Vec<(u32, String)> = points
            .iter()
            .filter_map(|p| {
                p.workload.as_ref().map(|w| ((w.read.as_f64() * 100.0) as u32, w.read.to_string()))
            })
            .collect();
        reads.sort();
        reads.dedup();
        let mut qds: Vec<u32> = points.iter().filter_map(|p| p.qd.map(|q| q.total)).collect();
        qds.sort();
        qds.dedup();
        if reads.len() < 2 || qds.len() < 2 {
            continue;
        }
        let max = points.iter().filter_map(|p| p.iops).fold(0.0f64, f64::max);
        let rows = reads
            .iter()
            .rev()
            .map(|(key, label)| MapRow {
                read: label.clone(),
                cells: qds
                    .iter()
                    .map(|qd| {
                        let v = points
                            .iter()
                            .rev()
                            .filter(|p| {
                                p.qd.is_some_and(|q| q.total == *qd)
                                    && p.workload
                                        .as_ref()
                                        .is_some_and(|w| (w.read.as_f64() * 100.0) as u32 == *key)
                            })
                            .find_map(|p| p.iops);
                        MapCell {
                            value: v.map_or("-".into(), |v| format!("{v:.0}")),
                            shade: v.map_or("0".into(), |v| {
                                format!("{:.2}", if max > 0.0 { 0.08 + 0.5 * v / max } else { 0.0 })
                            }),
                        }
                    })
                    .collect(),
            })
            .collect();
        out.push(MapView {
            title,
            units: format!(
                "IOPS ({}) at each read share (rows) and queue depth (columns); rates elsewhere in {}.",
                run.manifest.plan.conventions.value.words(),
                rate_unit(units)
            ),
            qds,
            rows,
        });
    }
    out
}

fn html(run: &Loaded, pts: &[Point]) -> Result<String> {
    let m = &run.manifest;
    let mut env = minijinja::Environment::new();
    env.add_template("report.html", include_str!("templates/report.html")).context("the report template")?;
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
        probes => probes(run),
        columns => columns(&m.plan.conventions),
        value_line => value_line(run, pts),
        bests => best_lines(run, pts),
        rows => rows(run, pts, false),
        checklist,
    };
    env.get_template("report.html")?.render(ctx).context("cannot render the report")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_dashes_when_missing() {
        assert_eq!(num(None, 1), "-");
        assert_eq!(num(Some(f64::NAN), 1), "-");
        assert_eq!(num(Some(1.26), 1), "1.3");
    }

    #[test]
    fn series_columns_are_found_by_name() {
        let p = std::env::temp_dir().join(format!("methodic-report-series-{}.csv", std::process::id()));
        std::fs::write(&p, "t_s,iops,mb_s\n1.0,100,0.4\n2.0,200,0.8\n").unwrap();
        assert_eq!(read_columns(&p, "t_s", "iops"), vec![(1.0, 100.0), (2.0, 200.0)]);
        assert_eq!(read_columns(&p, "t_s", "nope"), vec![]);
        std::fs::remove_file(&p).unwrap();
    }
}
