//! A run's spreads and bursts: its records in, out the views every report
//! format draws. For each I/O spread over several devices or workers (a
//! step's, a `together` job's, a rounds cell's last round): whether its
//! devices, and the workers on each device, differ by more than the noise
//! ([`judge`]), a line that says so, and a row each; for each measurement
//! with bursts, a line, the first, last, slowest and fastest burst, and
//! (HTML) a chart of IOPS by burst. Which rows a format shows is its own
//! choice: the terminal and HTML only those that differ, Markdown all.

use std::path::Path;

use methodic_compiler::plan::{Action, Units};
use serde::Serialize;

use crate::host::TargetInfo;
use crate::manifest::Loaded;
use crate::numbers::Rates;
use crate::record::{BurstResult, DeviceRates, Noise, Spread, StepResult, WorkerRates};
use crate::svg::{Chart, Series};
use crate::units::num;
use crate::view::points::{interval_words, rate_unit};

/// How many standard errors from its group's rate a member must run to
/// differ from it by more than the noise (docs/RESULTS.md, "Devices and
/// workers"): for a member that runs as its group does, over independent
/// intervals, a gap that wide comes by chance less than once in ten
/// thousand times.
pub const NOISE_Z: f64 = 4.0;

/// Whether some of a group's members differ by more than the noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every member within [`NOISE_Z`] standard errors of its group.
    Within,
    /// Some member further from it.
    Differ,
    /// Some member has too few whole intervals to tell its noise.
    Unknown,
}

/// What [`judge`] found of a group.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    pub verdict: Verdict,
    /// The lowest IOPS below the highest, percent of the highest.
    pub apart_percent: f64,
    /// How far apart, in the same measure, the noise lets the lowest and
    /// highest be: each [`NOISE_Z`] of its standard errors from the group,
    /// on either side; `None` when it is unknown.
    pub noise_percent: Option<f64>,
    /// The members with the lowest and highest IOPS, by place.
    pub lowest: usize,
    pub highest: usize,
}

/// Judges a group's members, each by its IOPS and its noise against the
/// group ([`Noise`]): they differ when some member's mean log ratio to
/// the group (`vs_group`) is more than [`NOISE_Z`] of its standard errors
/// from 0; the noise is unknown when a member's standard error is.
pub fn judge(members: &[(f64, &Noise)]) -> Judgement {
    let by = |f: fn(f64, f64) -> bool| {
        (0..members.len())
            .reduce(|best, i| if f(members[i].0, members[best].0) { i } else { best })
            .unwrap_or(0)
    };
    let (lowest, highest) = (by(|a, b| a < b), by(|a, b| a > b));
    let (lo, hi) = (members.get(lowest).map_or(0.0, |m| m.0), members.get(highest).map_or(0.0, |m| m.0));
    let apart_percent = if hi > 0.0 { (hi - lo) / hi * 100.0 } else { 0.0 };
    let se: Option<Vec<f64>> = members.iter().map(|m| m.1.vs_group_se).collect();
    let (verdict, noise_percent) = match se {
        None => (Verdict::Unknown, None),
        Some(se) => {
            let differ = members.iter().zip(&se).any(|(m, se)| m.1.vs_group.abs() > NOISE_Z * se);
            let allowed = 1.0 - (-NOISE_Z * (se[lowest] + se[highest])).exp();
            (if differ { Verdict::Differ } else { Verdict::Within }, Some(allowed * 100.0))
        }
    };
    Judgement { verdict, apart_percent, noise_percent, lowest, highest }
}

/// One group of a spread: its devices, or its workers.
#[derive(Debug, Serialize)]
pub struct Group {
    pub verdict: Verdict,
    /// `2 devices within 1.2% of each other in IOPS (the noise allows
    /// 9.8%)`, `2 devices differ by more than the noise: ...`.
    pub line: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Group {
    /// Its rows are worth showing where only differences are: they differ,
    /// or the noise is unknown and they are few (a short step on 32 psync
    /// threads would print 32 rows a cell; its line says how far apart they
    /// are, and the exports carry every row).
    pub fn shown(&self) -> bool {
        match self.verdict {
            Verdict::Differ => true,
            Verdict::Unknown => self.rows.len() <= 4,
            Verdict::Within => false,
        }
    }
}

/// One spread of a step, as every format draws it.
#[derive(Debug, Serialize)]
pub struct SpreadView {
    pub step: usize,
    pub id: String,
    /// `job reads`, `cell 2 (rnd4k_read QD 32), its last round`; empty for
    /// the step's own I/O.
    pub part: String,
    /// Present when the workers used several devices.
    pub devices: Option<Group>,
    /// Present with several workers.
    pub workers: Option<Group>,
}

/// A measurement's bursts, as every format draws them.
#[derive(Debug, Serialize)]
pub struct BurstView {
    pub step: usize,
    pub id: String,
    /// A `together` job's name.
    pub job: Option<String>,
    /// `12 bursts of 100ms every 300ms: 5400 to 6100 IOPS, mean latency
    /// 160 to 190 us`, with the I/Os started in the ramp when there are.
    pub line: String,
    pub columns: Vec<String>,
    /// The first, last, slowest and fastest burst.
    pub rows: Vec<Vec<String>>,
    /// Every burst, in order, in the same columns.
    pub all: Vec<Vec<String>>,
    /// Inline SVG (HTML only): IOPS by burst.
    pub svg: String,
}

/// Every spread and every set of bursts of a run, in step order.
#[derive(Debug, Serialize, Default)]
pub struct Spreads {
    pub spreads: Vec<SpreadView>,
    pub bursts: Vec<BurstView>,
}

impl Spreads {
    pub fn is_empty(&self) -> bool {
        self.spreads.is_empty() && self.bursts.is_empty()
    }
}

/// The spread and burst views of `run`; the burst charts drawn only when
/// `charts`.
pub fn spreads(run: &Loaded, charts: bool) -> Spreads {
    let units = run.manifest.plan.conventions.units;
    let mut out = Spreads::default();
    for r in &run.steps {
        for s in &r.spread {
            out.spreads.push(SpreadView {
                step: r.index,
                id: r.id.clone(),
                part: part_words(run, r, s),
                devices: (!s.devices.is_empty()).then(|| devices(run, &s.devices, units)),
                workers: (!s.workers.is_empty()).then(|| workers(run, &s.workers, units)),
            });
        }
        let mut jobs: Vec<Option<&str>> = Vec::new();
        for b in &r.bursts {
            if !jobs.contains(&b.job.as_deref()) {
                jobs.push(b.job.as_deref());
            }
        }
        for job in jobs {
            let each: Vec<&BurstResult> = r.bursts.iter().filter(|b| b.job.as_deref() == job).collect();
            out.bursts.push(bursts(run, r, job, &each, charts));
        }
    }
    out
}

/// `job reads`, `cell 2 (rnd4k_read QD 32), its last round`, or nothing
/// for the step's own I/O.
pub fn part_words(run: &Loaded, r: &StepResult, s: &Spread) -> String {
    if let Some(j) = &s.job {
        return format!("job {j}");
    }
    match s.cell {
        Some(c) => cell_words(run, r, c),
        None => String::new(),
    }
}

/// `cell 2 (rnd4k_read QD 32), its last round`: a rounds step's cell `c`
/// (from 1, in the plan's order), of which a record keeps the last round.
pub fn cell_words(run: &Loaded, r: &StepResult, c: u32) -> String {
    let cell = run.plan_step(r).and_then(|step| match &step.action {
        Action::Rounds { cells, .. } => cells.get(c.wrapping_sub(1) as usize),
        Action::Erase { .. }
        | Action::Fill { .. }
        | Action::Precondition { .. }
        | Action::Measure { .. }
        | Action::Together { .. }
        | Action::Qos(_)
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => None,
    });
    match cell {
        Some(cell) => format!("cell {c} ({} QD {}), its last round", cell.workload.name, cell.qd.total),
        None => format!("cell {c}, its last round"),
    }
}

/// A target by path, with its model and serial where the manifest knows
/// them: `/dev/nvme0n1 (Samsung SSD 990 PRO 2TB, serial S7KHNJ0W)`.
pub fn device_words(targets: &[TargetInfo], target: u32, path: &Path) -> String {
    let id = targets.get(target.wrapping_sub(1) as usize).map(|t| &t.identity);
    let mut known = Vec::new();
    if let Some(m) = id.and_then(|i| i.model.as_ref()) {
        known.push(m.clone());
    }
    if let Some(s) = id.and_then(|i| i.serial.as_ref()) {
        known.push(format!("serial {s}"));
    }
    if known.is_empty() {
        path.display().to_string()
    } else {
        format!("{} ({})", path.display(), known.join(", "))
    }
}

/// The columns of a device's or worker's row after its name.
fn number_columns(units: Units) -> Vec<String> {
    let rate = rate_unit(units);
    ["IOPS", rate, "mean us", "p50 us", "p99 us", "p99.9 us", "max us", "vs group", "intervals"]
        .iter()
        .map(|c| c.to_string())
        .collect()
}

/// A row's numbers, as [`number_columns`] names them.
fn numbers(rates: &Rates, noise: &Noise, units: Units) -> Vec<String> {
    let l = &rates.latency_us;
    vec![
        num(Some(rates.iops), 0),
        num(Some(if units == Units::Binary { rates.mib_s } else { rates.mb_s }), 1),
        num(Some(l.mean), 1),
        num(Some(l.p50), 1),
        num(Some(l.p99), 1),
        num(Some(l.p99_9), 1),
        num(Some(l.max), 1),
        vs_group(noise),
        format!("{} x {}", noise.intervals, interval_words(noise.interval_s)),
    ]
}

/// `+3.1% ± 0.8%`: how far a member ran from its group's rate (the
/// exponent of its mean log ratio), and one standard error of it.
pub fn vs_group(noise: &Noise) -> String {
    let pct = |x: f64| (x.exp() - 1.0) * 100.0;
    if noise.intervals == 0 {
        return "-".into();
    }
    match noise.vs_group_se {
        Some(se) => format!("{:+.1}% ± {:.1}%", pct(noise.vs_group), pct(se)),
        None => format!("{:+.1}% (noise unknown)", pct(noise.vs_group)),
    }
}

/// `2 devices within 1.2% of each other in IOPS (the noise allows 9.8%)`.
fn line(n: usize, what: &str, j: &Judgement, lowest: &str, highest: &str) -> String {
    let allows = j.noise_percent.map_or(String::new(), |p| format!("the noise allows {p:.1}%"));
    match j.verdict {
        Verdict::Within => {
            format!("{n} {what} within {:.1}% of each other in IOPS ({allows})", j.apart_percent)
        }
        Verdict::Differ => format!(
            "{n} {what} differ by more than the noise: {lowest} has the fewest IOPS, {highest} the most, {:.1}% \
             apart ({allows})",
            j.apart_percent
        ),
        Verdict::Unknown => format!(
            "{n} {what} {:.1}% apart in IOPS; the noise is unknown (fewer than {} whole series intervals)",
            j.apart_percent,
            Noise::MIN_INTERVALS
        ),
    }
}

fn devices(run: &Loaded, devices: &[DeviceRates], units: Units) -> Group {
    let j = judge(&devices.iter().map(|d| (d.rates.iops, &d.noise)).collect::<Vec<_>>());
    let name = |d: &DeviceRates| device_words(&run.manifest.targets, d.target, &d.path);
    let mut columns = vec!["device".to_string(), "workers".into()];
    columns.extend(number_columns(units));
    let rows = devices
        .iter()
        .map(|d| {
            let mut row = vec![name(d), d.workers.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")];
            row.extend(numbers(&d.rates, &d.noise, units));
            row
        })
        .collect();
    Group {
        verdict: j.verdict,
        line: line(devices.len(), "devices", &j, &name(&devices[j.lowest]), &name(&devices[j.highest])),
        columns,
        rows,
    }
}

/// The workers, judged a device at a time (workers on different devices
/// differ as their devices do, which the devices' group says).
fn workers(run: &Loaded, workers: &[WorkerRates], units: Units) -> Group {
    let mut targets: Vec<u32> = workers.iter().map(|w| w.target).collect();
    targets.sort_unstable();
    targets.dedup();
    // Each device's workers judged; the one furthest apart against its noise speaks for all.
    let mut worst: Option<(Judgement, Vec<&WorkerRates>)> = None;
    let mut verdict = Verdict::Within;
    for t in &targets {
        let on: Vec<&WorkerRates> = workers.iter().filter(|w| w.target == *t).collect();
        if on.len() < 2 {
            continue;
        }
        let j = judge(&on.iter().map(|w| (w.rates.iops, &w.noise)).collect::<Vec<_>>());
        verdict = match (verdict, j.verdict) {
            (Verdict::Differ, _) | (_, Verdict::Differ) => Verdict::Differ,
            (Verdict::Unknown, _) | (_, Verdict::Unknown) => Verdict::Unknown,
            _ => Verdict::Within,
        };
        let ratio = |j: &Judgement| j.noise_percent.map_or(f64::INFINITY, |n| j.apart_percent / n.max(1e-9));
        if worst.as_ref().is_none_or(|(w, _)| ratio(&j) > ratio(w)) {
            worst = Some((j, on));
        }
    }
    let name = |w: &WorkerRates| format!("worker {}", w.worker);
    let text = match &worst {
        Some((j, on)) => {
            let j = Judgement { verdict, ..j.clone() };
            let what = if targets.len() > 1 {
                format!("workers on each of {} devices", targets.len())
            } else {
                "workers".to_string()
            };
            let n = if targets.len() > 1 { on.len() } else { workers.len() };
            line(n, &what, &j, &name(on[j.lowest]), &name(on[j.highest]))
        }
        None => format!("{} workers, one on each device", workers.len()),
    };
    let mut columns = vec!["worker".to_string(), "device".into()];
    columns.extend(number_columns(units));
    let rows = workers
        .iter()
        .map(|w| {
            let mut row = vec![w.worker.to_string(), device_words(&run.manifest.targets, w.target, &w.path)];
            row.extend(numbers(&w.rates, &w.noise, units));
            row
        })
        .collect();
    Group { verdict: if worst.is_some() { verdict } else { Verdict::Within }, line: text, columns, rows }
}

fn bursts(run: &Loaded, r: &StepResult, job: Option<&str>, each: &[&BurstResult], charts: bool) -> BurstView {
    let step = run.plan_step(r);
    let pauses = step.and_then(|s| match &s.action {
        Action::Measure { pauses, .. } => Some(*pauses),
        Action::Together { jobs, .. } => jobs.iter().find(|j| Some(j.name.as_str()) == job).map(|j| j.pauses),
        Action::Erase { .. }
        | Action::Fill { .. }
        | Action::Precondition { .. }
        | Action::Qos(_)
        | Action::Rounds { .. }
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => None,
    });
    let shape = pauses
        .and_then(|p| p.bursts)
        .map_or(String::new(), |b| format!(" of {} every {}", b.on.human(), b.every.human()));
    // The last burst may be cut short by the window's end: the others
    // speak for the range.
    let whole: Vec<&&BurstResult> = {
        let longest = each.iter().map(|b| b.on_s).fold(0.0, f64::max);
        each.iter().filter(|b| b.on_s >= longest - 1e-9).collect()
    };
    let range = |f: &dyn Fn(&BurstResult) -> Option<f64>| {
        let v: Vec<f64> = whole.iter().filter_map(|b| f(b)).collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (!v.is_empty()).then_some((lo, hi))
    };
    let mut parts = vec![format!("{} bursts{shape}", each.len())];
    if let Some((lo, hi)) = range(&|b| Some(b.iops)) {
        parts.push(format!("{lo:.0} to {hi:.0} IOPS"));
    }
    if let Some((lo, hi)) = range(&|b| b.mean_latency_us) {
        parts.push(format!("mean latency {lo:.1} to {hi:.1} us"));
    }
    let mut line = parts.join(", ");
    if let (Some(last), Some(first)) = (each.last(), whole.first())
        && last.on_s < first.on_s - 1e-9
    {
        line.push_str(&format!(
            "; the last is cut by the end of the record window ({} of its on)",
            interval_words(last.on_s)
        ));
    }
    if r.bursts_from_ramp > 0 {
        line.push_str(&format!(
            "; {} I/Os started in the ramp's last burst completed in the record window: in the summary, in no burst",
            r.bursts_from_ramp
        ));
    }
    let columns: Vec<String> =
        ["burst", "number", "starts at s", "I/Os", "IOPS", "mean us"].iter().map(|c| c.to_string()).collect();
    let pick = |f: &dyn Fn(f64, f64) -> bool| {
        whole.iter().copied().reduce(|best, b| if f(b.iops, best.iops) { b } else { best })
    };
    let row = |name: String, b: &BurstResult| {
        vec![
            name,
            (b.index + 1).to_string(),
            format!("{:.3}", b.start_s),
            b.ios.to_string(),
            num(Some(b.iops), 0),
            num(b.mean_latency_us, 1),
        ]
    };
    let all = each.iter().map(|b| row(String::new(), b)).collect();
    let mut rows = Vec::new();
    for (name, b) in [
        ("first", each.first()),
        ("last", each.last()),
        ("fewest IOPS", pick(&|a, b| a < b)),
        ("most IOPS", pick(&|a, b| a > b)),
    ] {
        if let Some(b) = b {
            rows.push(row(name.to_string(), b));
        }
    }
    let svg = if charts && each.len() > 1 {
        let title = match job {
            Some(j) => format!("{} job {j}: IOPS by burst", r.id),
            None => format!("{}: IOPS by burst", r.id),
        };
        Chart {
            title: &title,
            x_label: "burst",
            y_label: "IOPS",
            log2_x: false,
            series: vec![Series {
                name: "IOPS".into(),
                points: each.iter().map(|b| ((b.index + 1) as f64, b.iops)).collect(),
            }],
            band: None,
            rules: Vec::new(),
        }
        .render()
    } else {
        String::new()
    };
    BurstView { step: r.index, id: r.id.clone(), job: job.map(str::to_string), line, columns, rows, all, svg }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noise(vs_group: f64, se: Option<f64>) -> Noise {
        Noise {
            intervals: 10,
            interval_s: 1.0,
            sd_iops: 0.0,
            vs_group,
            autocorrelation: 0.0,
            vs_group_se: se,
        }
    }

    #[test]
    fn a_member_differs_beyond_four_standard_errors_from_its_group() {
        // 0.035 from the group, a standard error of 0.01: within 0.04.
        let (a, b) = (noise(-0.035, Some(0.01)), noise(0.035, Some(0.01)));
        let j = judge(&[(100.0, &a), (107.0, &b)]);
        assert_eq!((j.verdict, j.lowest, j.highest), (Verdict::Within, 0, 1));
        assert!((j.apart_percent - 7.0 / 107.0 * 100.0).abs() < 1e-9);
        assert!((j.noise_percent.unwrap() - (1.0 - (-0.08f64).exp()) * 100.0).abs() < 1e-9);
        // 0.045: more than the noise.
        let (a, b) = (noise(-0.045, Some(0.01)), noise(0.045, Some(0.01)));
        assert_eq!(judge(&[(100.0, &a), (109.0, &b)]).verdict, Verdict::Differ);
        // A member without enough intervals: unknown, however far apart.
        let (a, b) = (noise(-2.0, Some(0.01)), noise(2.0, None));
        let unknown = judge(&[(100.0, &a), (5000.0, &b)]);
        assert_eq!((unknown.verdict, unknown.noise_percent), (Verdict::Unknown, None));
        assert_eq!(vs_group(&noise(0.0953, Some(0.0099))), "+10.0% ± 1.0%");
    }

    /// A group's noise: what moves every member alike (the machine) cancels;
    /// what moves one alone does not; a member that runs slower every
    /// interval differs whatever the machine does.
    #[test]
    fn the_noise_is_each_members_log_ratio_to_its_group() {
        // The machine halves both devices' rate now and then: alike, so no
        // noise at all, and no difference.
        let machine = [100, 50, 100, 50, 100, 100];
        let both = Noise::of_group(&[machine.to_vec(), machine.to_vec()], 0.1);
        assert_eq!((both[0].vs_group, both[0].vs_group_se), (0.0, Some(0.0)));
        assert_eq!(both[0].intervals, 6);
        // One device at a tenth of the other whatever the machine does.
        let slow: Vec<u64> = machine.iter().map(|n| n / 10).collect();
        let apart = Noise::of_group(&[slow, machine.to_vec()], 0.1);
        let j = judge(&[(75.0, &apart[0]), (750.0, &apart[1])]);
        assert_eq!((j.verdict, j.lowest), (Verdict::Differ, 0), "{apart:?}");
        // Alternating which one is ahead: the noise is wide, the mean 0.
        let up = vec![110, 90, 110, 90, 110, 90];
        let down = vec![90, 110, 90, 110, 90, 110];
        let swap = Noise::of_group(&[up, down], 0.1);
        assert!(swap[0].vs_group.abs() < 1e-12 && swap[0].autocorrelation < 0.0);
        assert_eq!(judge(&[(1000.0, &swap[0]), (1000.0, &swap[1])]).verdict, Verdict::Within);
        // A drift apart: positively correlated.
        let drift = Noise::of_group(&[vec![100; 8], vec![100, 104, 108, 112, 116, 120, 124, 128]], 1.0);
        assert!(drift[1].autocorrelation > 0.0);
        // Too few intervals, or alone: unknown.
        assert_eq!(Noise::of_group(&[vec![1, 2, 3], vec![1, 2, 3]], 1.0)[0].vs_group_se, None);
        assert_eq!(Noise::of_group(&[vec![1, 2, 3, 4, 5]], 1.0)[0].vs_group_se, None);
        // The shortest series sets the intervals counted.
        assert_eq!(Noise::of_group(&[vec![1; 9], vec![1; 5]], 1.0)[0].intervals, 5);
    }
}
