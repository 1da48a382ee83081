//! Comparing results directories: runs read back go in; out comes a
//! [`Comparison`]: their steps paired by what they did (workload I/O and
//! queue depth, not step ids), the value of each and its ratio to the
//! first run's, the steps with no counterpart, and every difference in the
//! manifests that can explain a gap, each said in a sentence. A pair
//! compares one value kind on both sides (peak with peak, average with
//! average) even when the runs' conventions differ; under `value peak`,
//! each sweep's best step too. A `together` step pairs job by job, by what
//! each job does (not its name or place); an open-loop step at another
//! rate, or a job beside other jobs, still pairs, and the differences name
//! the rate, arrival process or jobs that changed. Where a step spread
//! over several devices, its devices pair by identity (`devices`), each
//! with its own numbers, and a device one run used and another did not is
//! a difference. A run on many hosts is compared by its hosts (how many,
//! which, and each one's target, fio and OS), not by the machine methodic
//! ran on. Pairing is in `pair`, the differences of the
//! runs in `run_differences` and of paired steps in `step_differences`
//! (each a `Difference`, from `difference`), how a run, a status, a value
//! kind and a value are said in `words`; the exporters (`crate::export`)
//! write it as a table, JSON or an HTML page, whose charts are in
//! `charts`.

pub mod charts;
pub mod devices;
mod difference;
mod pair;
pub mod rank;
mod run_differences;
mod step_differences;
mod words;

use std::collections::BTreeMap;
use std::path::PathBuf;

use methodic_compiler::plan::{Units, ValueKind};
use schemars::JsonSchema;
use serde::Serialize;

pub use difference::Difference;
pub(crate) use words::{compact, drive_name, letter, plural_kind, status_name};

use crate::manifest::{Loaded, ManifestStep};
use crate::record::StepResult;
use crate::step_files::{StepFiles, Unreadable};
use crate::view::points::{Point, asked_words, limit_words, points, rate_unit, step_of};

/// Runs compared: their steps paired by what they did, each pair's values
/// and their ratios to the first run's, the steps some run lacks, and every
/// difference in the manifests that can explain a gap.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Comparison {
    pub runs: Vec<RunRef>,
    /// Steps present in every run, in the baseline's order.
    pub pairs: Vec<Pair>,
    /// When some run's value kind is not another's, or a pair compares a
    /// kind some run does not report: which kind the pairs compare.
    pub values_note: Option<String>,
    /// When some run reports peaks: each sweep's best step in each run.
    pub sweep_bests: Vec<SweepBest>,
    /// Each paired measurement's runs from the highest value to the
    /// lowest, with ratios to A, and the spread of a repeated step.
    pub rankings: Vec<rank::Ranking>,
    /// Steps some run has and another lacks.
    pub unpaired: Vec<Unpaired>,
    pub differences: Vec<Difference>,
    /// The devices of each paired step that some run spread over several
    /// devices, paired by identity, each run's numbers on each.
    pub devices: Vec<devices::DeviceRow>,
    /// Files of the runs that the comparison reads (the series of fills,
    /// preconditions and sustained writes, which the page charts) and
    /// could not: whose, where, and what is wrong. What they hold is
    /// missing from the comparison's charts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<RunFile>,
    /// The runs as read, for the HTML page's charts (`charts::page`).
    #[serde(skip)]
    pub(crate) loaded: Vec<Loaded>,
    /// Each run's series, read for the page's charts.
    #[serde(skip)]
    pub(crate) files: Vec<StepFiles>,
}

/// A file of one of the compared runs that could not be read.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RunFile {
    /// The run, by its letter: `B`.
    pub run: String,
    #[serde(flatten)]
    pub file: Unreadable,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RunRef {
    pub name: String,
    pub dir: PathBuf,
    pub methodology: String,
    pub status: String,
    pub rehearsal: bool,
    /// The value the run reports (`conventions { value }`): `peak`,
    /// `step average`, `steady-state average`.
    #[serde(serialize_with = "kind_words")]
    #[schemars(schema_with = "crate::schema::value_kind_words")]
    pub value_kind: ValueKind,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Pair {
    /// `rnd4k_read (4KiB random, 100% read) QD 32`.
    pub label: String,
    /// `measure`, `rounds`, `fill`, `precondition`, `copy`.
    pub kind: String,
    /// The value kind compared on every side: the baseline's reported
    /// kind where every run has a value of it, else the step average.
    #[serde(serialize_with = "kind_words")]
    #[schemars(schema_with = "crate::schema::value_kind_words")]
    pub value_kind: ValueKind,
    /// One a run, in command-line order.
    pub values: Vec<PairValue>,
    /// Each later run's main value over the first's.
    pub ratios: Vec<Option<f64>>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PairValue {
    pub step_id: String,
    /// IOPS, or for a copy the rate, of the pair's `value_kind`.
    pub value: Option<f64>,
    pub unit: String,
    /// The kind this run reports for the step, which `value` may not be
    /// when the runs' conventions differ.
    #[serde(serialize_with = "kind_words")]
    #[schemars(schema_with = "crate::schema::value_kind_words")]
    pub reported_kind: ValueKind,
    pub mean_latency_us: Option<f64>,
    /// The step failed or was interrupted: its value is partial and has no ratio.
    pub error: Option<String>,
    /// Open loop, and the rate asked was not kept: what the workers did
    /// instead, in words. The value is not a result at the rate asked.
    pub rate_missed: Option<String>,
    /// A `together` step's job: its name in this run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
}

/// One sweep's best step in each run, among its paired steps.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SweepBest {
    /// `sweep 2 rnd4k_read`: the baseline's sweep and workload.
    pub label: String,
    #[serde(serialize_with = "kind_words")]
    #[schemars(schema_with = "crate::schema::value_kind_words")]
    pub value_kind: ValueKind,
    pub unit: String,
    /// One a run: the best step's id, queue depth and value.
    pub bests: Vec<(String, u32, Option<f64>)>,
    /// Each later run's best over the first's.
    pub ratios: Vec<Option<f64>>,
}

impl Pair {
    /// The pair's row of the comparison table, as the terminal and the page
    /// give it: label, unit, each run's value (failed or rate missed said),
    /// each later run's ratio to A, each run's mean latency in µs.
    pub(crate) fn cells(&self) -> Vec<String> {
        let mut row = vec![
            self.label.clone(),
            format!("{} ({})", self.values[0].unit, crate::view::points::kind_short(self.value_kind)),
        ];
        row.extend(self.values.iter().map(|v| match (&v.error, &v.rate_missed) {
            (Some(_), _) => format!("{} (failed)", compact(v.value)),
            (None, Some(_)) => format!("{} (rate missed)", compact(v.value)),
            (None, None) => compact(v.value),
        }));
        row.extend(self.ratios.iter().map(|r| r.map_or("-".into(), |r| format!("{r:.2}x"))));
        row.extend(self.values.iter().map(|v| v.mean_latency_us.map_or("-".into(), |l| format!("{l:.1}"))));
        row
    }
}

impl SweepBest {
    /// `sweep 2 rnd4k_read (step average): A QD 32 (id) 1234 IOPS; B ...;
    /// B/A 1.10x`: the line the table and the page give it.
    pub(crate) fn line(&self) -> String {
        let each: Vec<String> = self
            .bests
            .iter()
            .enumerate()
            .map(|(i, (id, qd, v))| match v {
                Some(v) => format!("{} QD {qd} ({id}) {} {}", letter(i), compact(Some(*v)), self.unit),
                None => format!("{} -", letter(i)),
            })
            .collect();
        let ratios: Vec<String> = self
            .ratios
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.map(|r| format!("{}/A {r:.2}x", letter(i + 1))))
            .collect();
        let ratios = if ratios.is_empty() { String::new() } else { format!("; {}", ratios.join(", ")) };
        format!("{} ({}): {}{ratios}", self.label, self.value_kind.words(), each.join("; "))
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Unpaired {
    pub label: String,
    /// Which runs have it.
    pub in_runs: Vec<String>,
    pub step_ids: Vec<String>,
}

pub fn comparison(runs: &[Loaded]) -> Comparison {
    let all: Vec<Vec<Point>> = runs.iter().map(points).collect();
    let files: Vec<StepFiles> = runs.iter().map(StepFiles::compared).collect();
    let (paired_points, missing) = pair::pair_up(&all);
    let units = runs[0].manifest.plan.conventions.units;
    let pairs: Vec<Pair> = paired_points
        .iter()
        .map(|pts| {
            let (kind, rate) = compared_kind(pts, units);
            let values: Vec<PairValue> = pts
                .iter()
                .map(|p| {
                    let (value, unit) = if rate {
                        (p.rate_as(kind, units), rate_unit(units).to_string())
                    } else {
                        (p.iops_as(kind), "IOPS".to_string())
                    };
                    PairValue {
                        step_id: p.id.clone(),
                        value: value.filter(|v| v.is_finite()),
                        unit,
                        reported_kind: if rate { p.rate_value } else { p.value },
                        mean_latency_us: p.mean_latency_us,
                        error: p.error.clone(),
                        rate_missed: p.open_loop.as_ref().filter(|o| !o.kept).map(|o| o.words()),
                        job: p.job.as_ref().map(|j| j.name.clone()),
                    }
                })
                .collect();
            let ratios =
                pair::ratios(&values.iter().map(|v| (v.value, v.error.is_none())).collect::<Vec<_>>());
            Pair { label: label(pts[0]), kind: pts[0].kind.clone(), value_kind: kind, values, ratios }
        })
        .collect();
    let conventions: Vec<ValueKind> = runs.iter().map(|r| r.manifest.plan.conventions.value).collect();
    let values_note = values_note(&conventions, &pairs);
    let sweep_bests =
        if conventions.contains(&ValueKind::Peak) { sweep_bests(&paired_points, &pairs) } else { Vec::new() };
    let unpaired = missing
        .iter()
        .map(|found| {
            let any = found.iter().flatten().next().expect("a point of some run");
            Unpaired {
                label: label(any),
                in_runs: found
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.is_some())
                    .map(|(i, _)| letter(i))
                    .collect(),
                step_ids: found.iter().flatten().map(|p| p.id.clone()).collect(),
            }
        })
        .collect();
    let labels: Vec<String> = pairs.iter().map(|p| p.label.clone()).collect();
    let targets: Vec<&[crate::host::TargetInfo]> =
        runs.iter().map(|r| r.manifest.targets.as_slice()).collect();
    let (device_rows, device_differences) = devices::device_rows(&targets, &paired_points, &labels);
    let mut differences = Vec::new();
    for j in 1..runs.len() {
        differences.extend(run_differences::run_differences(&runs[0], &runs[j], j));
        // Rounds give a point a measurement; each step counts once.
        let mut steps: Vec<(&ManifestStep, &ManifestStep)> = Vec::new();
        for pts in &paired_points {
            if let (Some(a), Some(b)) = (step_of(&runs[0], pts[0]), step_of(&runs[j], pts[j]))
                && !steps.iter().any(|(x, y)| x.index == a.index && y.index == b.index)
            {
                steps.push((a, b));
            }
        }
        differences.extend(step_differences::step_differences((&runs[0], &runs[j]), &steps, j));
        differences
            .extend(device_differences.iter().filter(|d| d.runs == format!("A vs {}", letter(j))).cloned());
    }
    Comparison {
        runs: runs
            .iter()
            .enumerate()
            .map(|(i, r)| RunRef {
                name: letter(i),
                dir: r.dir.clone(),
                methodology: format!("{} {}", r.manifest.methodology.name, r.manifest.methodology.version),
                status: status_name(r.manifest.status).into(),
                rehearsal: r.manifest.rehearsal,
                value_kind: r.manifest.plan.conventions.value,
            })
            .collect(),
        rankings: rankings(&pairs, runs),
        pairs,
        values_note,
        sweep_bests,
        unpaired,
        differences,
        devices: device_rows,
        unreadable: run_files(&files),
        loaded: runs.to_vec(),
        files,
    }
}

/// Each paired measurement (a measure, rounds, copy, `together` job or
/// QoS step every run has) ranked ([`rank::ranked`]): a repeated step by
/// its last run's record, which holds the runs' aggregate and spread; its
/// other runs are not ranked. A step that failed or missed its rate has
/// no value.
/// The last word of `r`'s repeat on it in `run`: the summary of the same
/// step (its repeat's group, its place among a run's steps) on the last
/// run made that holds one.
fn last_summary<'a>(run: &'a Loaded, r: &StepResult) -> Option<&'a crate::analysis::RepeatSummary> {
    let q = run.plan_step(r)?.repeat?;
    let plan = &run.manifest.plan.steps;
    // Where plan step `index` (from 1) is among its run's steps.
    let place = |index: usize| -> Option<usize> {
        let o = plan.get(index.checked_sub(1)?)?.repeat?;
        plan.iter()
            .enumerate()
            .filter(|(_, s)| s.repeat.is_some_and(|x| x.group == o.group && x.run == o.run))
            .position(|(i, _)| i + 1 == index)
    };
    let at = place(r.index)?;
    run.steps
        .iter()
        .rev()
        .filter(|s| run.plan_step(s).and_then(|p| p.repeat).is_some_and(|o| o.group == q.group))
        .filter(|s| place(s.index) == Some(at))
        .find_map(|s| run.final_repeats(s))
}

fn rankings(pairs: &[Pair], runs: &[Loaded]) -> Vec<rank::Ranking> {
    let names: Vec<String> = runs.iter().map(words::drive_name).collect();
    pairs
        .iter()
        .filter(|p| matches!(p.kind.as_str(), "measure" | "rounds" | "copy" | "together" | "qos"))
        .filter_map(|p| {
            let mut entries = Vec::with_capacity(p.values.len());
            for (i, v) in p.values.iter().enumerate() {
                let run = runs.get(i);
                let record = run.and_then(|r| r.steps.iter().find(|s| s.id == v.step_id));
                let repeat = run.zip(record).and_then(|(run, r)| run.plan_step(r)).and_then(|s| s.repeat);
                // A repeat is ranked once, on its first run's pair, by each
                // run's last word on the step: a plain repeat's last run, a
                // repeat `until cv`'s wherever that run stopped.
                if repeat.is_some_and(|q| q.run != 1) {
                    return None;
                }
                let summary = run.zip(record).and_then(|(run, r)| last_summary(run, r));
                let value = match (repeat, summary) {
                    (_, Some(s)) => Some(s.value),
                    // A repeat with no summary (its last run failed) has
                    // no aggregate to rank.
                    (Some(_), None) => None,
                    (None, None) if v.error.is_some() || v.rate_missed.is_some() => None,
                    (None, None) => v.value,
                };
                entries.push(rank::Ranked {
                    rank: None,
                    run: letter(i),
                    name: names.get(i).cloned().unwrap_or_default(),
                    value,
                    ratio: None,
                    sd: summary.map(|s| s.sd),
                    repeats: summary.map(|s| s.runs.len()),
                });
            }
            let unit = p.values.first().map_or(String::new(), |v| v.unit.clone());
            Some(rank::ranked(p.label.clone(), unit, p.value_kind.words().to_string(), entries))
        })
        .collect()
}

/// The files each run's series (`files`, a run's each) could not be
/// read from, with the run's letter.
fn run_files(files: &[StepFiles]) -> Vec<RunFile> {
    let mut out = Vec::new();
    for (i, f) in files.iter().enumerate() {
        out.extend(f.unreadable().iter().map(|u| RunFile { run: letter(i), file: u.clone() }));
    }
    out
}

/// The value kind a pair compares, and whether by rate (a copy, which has
/// no IOPS) rather than IOPS: the baseline's reported kind where every run
/// has a value of that kind (each keeps its step average and its peak
/// beside the reported value), else the step average, which all have.
fn compared_kind(pts: &[&Point], units: Units) -> (ValueKind, bool) {
    let rate = pts.iter().any(|p| p.iops.is_none());
    let has =
        |p: &&Point, k: ValueKind| if rate { p.rate_as(k, units).is_some() } else { p.iops_as(k).is_some() };
    let wanted = if rate { pts[0].rate_value } else { pts[0].value };
    (if pts.iter().all(|p| has(p, wanted)) { wanted } else { ValueKind::StepAverage }, rate)
}

/// `A reports the peak, B the step average: each pair compares one kind on
/// both sides ...`, when the runs' conventions differ or some pair compares
/// a kind a run does not report for it.
fn values_note(conventions: &[ValueKind], pairs: &[Pair]) -> Option<String> {
    let differ = conventions.iter().any(|c| *c != conventions[0]);
    // Each run's values that are not what it reports: (run, reported,
    // compared) to how many pairs.
    let mut kept: BTreeMap<(usize, &str, &str), usize> = BTreeMap::new();
    for p in pairs {
        for (r, v) in p.values.iter().enumerate().filter(|(_, v)| v.reported_kind != p.value_kind) {
            *kept.entry((r, plural_kind(v.reported_kind), plural_kind(p.value_kind))).or_default() += 1;
        }
    }
    if !differ && kept.is_empty() {
        return None;
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for p in pairs {
        *counts.entry(plural_kind(p.value_kind)).or_default() += 1;
    }
    let counts: Vec<String> = counts
        .iter()
        .map(|(k, n)| {
            format!(
                "{n} {} compare{} {k}",
                if *n == 1 { "pair" } else { "pairs" },
                if *n == 1 { "s" } else { "" }
            )
        })
        .collect();
    let reports: Vec<String> = conventions
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{} reports {}", letter(i), plural_kind(*c)))
        .collect();
    let kept: Vec<String> = kept
        .iter()
        .map(|((r, reported, compared), n)| {
            format!(
                "{}'s are the {compared} it keeps beside the {reported} it reports ({n} of them)",
                letter(*r)
            )
        })
        .collect();
    Some(format!(
        "{}; each pair compares one kind on both sides, A's where every run has it, else step averages: {}{}",
        reports.join(", "),
        counts.join(", "),
        if kept.is_empty() { String::new() } else { format!("; {}", kept.join("; ")) }
    ))
}

/// Each of the baseline's sweeps (a workload at a time), its best paired
/// step in each run by the pair's compared value.
fn sweep_bests(paired: &[Vec<&Point>], pairs: &[Pair]) -> Vec<SweepBest> {
    let mut groups: Vec<((u32, String), Vec<usize>)> = Vec::new();
    for (i, pts) in paired.iter().enumerate() {
        let a = pts[0];
        let (Some(sweep), Some(w), "measure") = (a.sweep, &a.workload, a.kind.as_str()) else { continue };
        let key = (sweep, w.name.clone());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    groups
        .into_iter()
        .filter(|(_, g)| g.len() > 1)
        .map(|((sweep, name), g)| {
            let bests: Vec<(String, u32, Option<f64>)> = (0..paired[g[0]].len())
                .map(|r| {
                    let whole = g.iter().filter(|i| pairs[**i].values[r].error.is_none());
                    let best = whole
                        .filter_map(|i| Some((*i, pairs[*i].values[r].value?)))
                        .max_by(|x, y| x.1.total_cmp(&y.1));
                    match best {
                        Some((i, v)) => {
                            (paired[i][r].id.clone(), paired[i][r].qd.map_or(0, |q| q.total), Some(v))
                        }
                        None => ("-".into(), 0, None),
                    }
                })
                .collect();
            let first = &pairs[g[0]];
            SweepBest {
                label: format!("sweep {sweep} {name}"),
                value_kind: first.value_kind,
                unit: first.values[0].unit.clone(),
                ratios: pair::ratios(&bests.iter().map(|b| (b.2, true)).collect::<Vec<_>>()),
                bests,
            }
        })
        .collect()
}

/// A value kind as JSON: its words (`peak`, `step average`).
fn kind_words<S: serde::Serializer>(k: &ValueKind, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(k.words())
}

/// `rnd4k_read (4KiB random, 100% read) QD 32`, with what else says what
/// the step did: `... at 50000 IOPS` (open loop), `qos ...: p99.99 under
/// 1ms`, `together ... (job reads, with writes)`.
fn label(p: &Point) -> String {
    match (&p.workload, &p.qd) {
        (Some(w), Some(qd)) => {
            let kind = if p.kind == "measure" { String::new() } else { format!("{} ", p.kind) };
            // A search by queue depth: the plan's depth is its ceiling.
            let by_qd = p.qos.as_ref().filter(|q| q.by == methodic_compiler::plan::QosAxis::Qd);
            let up_to = if by_qd.is_some() { "up to " } else { "" };
            let mut out = format!("{kind}{} QD {up_to}{}", w.label(), qd.total);
            if let Some(q) = &p.qos {
                out.push_str(&format!(": {} under {}", q.percentile, limit_words(q.limit_us)));
                if by_qd.is_some() {
                    out.push_str(", by queue depth");
                }
            } else if let Some(o) = &p.open_loop {
                out.push_str(&format!(" at {}", asked_words(o)));
            }
            if let Some(j) = &p.job {
                out.push_str(&format!(" (job {}, with {})", j.name, j.with.join(", ")));
            }
            out
        }
        _ => p.label.clone(),
    }
}
