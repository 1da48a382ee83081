//! `methodic compare A B [C...]`: results directories in; out come their
//! steps paired by what they did (workload I/O and queue depth, not step
//! ids), the value of each and its ratio to the first directory's, the
//! steps with no counterpart, and every difference in the manifests that
//! can explain a gap, each said in a sentence. A pair compares one value
//! kind on both sides (peak with peak, average with average) even when the
//! runs' conventions differ; under `value peak`, each sweep's best step
//! too. Reads the directories only.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use methodic_compiler::plan::{Action, IoKey, IoMode, QdCounting, Units, ValueKind};
use methodic_results::record::Status;
use methodic_runtime::ceiling::ShapeCeiling;
use methodic_runtime::manifest::{Checklist, Condition, Loaded, Manifest, ManifestStep};
use methodic_runtime::units::human;
use serde::Serialize;
use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Style};

use crate::format::{ExportError, Exporter, Exports, Format, Json, Output, Table};
use crate::points::{Point, kind_short, points, rate_unit, step_of};
use crate::report::load_results;

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Two or more results directories; the first is the baseline every
    /// ratio is taken against.
    #[arg(required = true, num_args = 2.., value_name = "DIR")]
    dirs: Vec<PathBuf>,
    #[command(flatten)]
    output: Output<Comparison>,
}

/// A, B, C... for the directories in command-line order.
fn letter(i: usize) -> String {
    if i < 26 { ((b'A' + i as u8) as char).to_string() } else { format!("R{}", i + 1) }
}

#[derive(Debug, Serialize)]
pub struct Comparison {
    pub runs: Vec<RunRef>,
    /// Steps present in every run, in the baseline's order.
    pub pairs: Vec<Pair>,
    /// When some run's value kind is not another's, or a pair compares a
    /// kind some run does not report: which kind the pairs compare.
    pub values_note: Option<String>,
    /// When some run reports peaks: each sweep's best step in each run.
    pub sweep_bests: Vec<SweepBest>,
    /// Steps some run has and another lacks.
    pub unpaired: Vec<Unpaired>,
    pub differences: Vec<Difference>,
}

#[derive(Debug, Serialize)]
pub struct RunRef {
    pub name: String,
    pub dir: PathBuf,
    pub methodology: String,
    pub status: String,
    pub rehearsal: bool,
    /// The value the run reports (`conventions { value }`): `peak`,
    /// `step average`, `steady-state average`.
    #[serde(serialize_with = "kind_words")]
    pub value_kind: ValueKind,
}

#[derive(Debug, Serialize)]
pub struct Pair {
    /// `rnd4k_read (4KiB random, 100% read) QD 32`.
    pub label: String,
    /// `measure`, `rounds`, `fill`, `precondition`, `copy`.
    pub kind: String,
    /// The value kind compared on every side: the baseline's reported
    /// kind where every run has a value of it, else the step average.
    #[serde(serialize_with = "kind_words")]
    pub value_kind: ValueKind,
    /// One a run, in command-line order.
    pub values: Vec<PairValue>,
    /// Each later run's main value over the first's.
    pub ratios: Vec<Option<f64>>,
}

#[derive(Debug, Serialize)]
pub struct PairValue {
    pub step_id: String,
    /// IOPS, or for a copy the rate, of the pair's `value_kind`.
    pub value: Option<f64>,
    pub unit: String,
    /// The kind this run reports for the step, which `value` may not be
    /// when the runs' conventions differ.
    #[serde(serialize_with = "kind_words")]
    pub reported_kind: ValueKind,
    pub mean_latency_us: Option<f64>,
    /// The step failed or was interrupted: its value is partial and has no ratio.
    pub error: Option<String>,
}

/// One sweep's best step in each run, among its paired steps.
#[derive(Debug, Serialize)]
pub struct SweepBest {
    /// `sweep 2 rnd4k_read`: the baseline's sweep and workload.
    pub label: String,
    #[serde(serialize_with = "kind_words")]
    pub value_kind: ValueKind,
    pub unit: String,
    /// One a run: the best step's id, queue depth and value.
    pub bests: Vec<(String, u32, Option<f64>)>,
    /// Each later run's best over the first's.
    pub ratios: Vec<Option<f64>>,
}

#[derive(Debug, Serialize)]
pub struct Unpaired {
    pub label: String,
    /// Which runs have it.
    pub in_runs: Vec<String>,
    pub step_ids: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Difference {
    /// `span`, `drive state`, `firmware`, ...
    pub field: String,
    /// The runs compared: `A vs B`.
    pub runs: String,
    /// `run`, or how many paired steps differ: `12 of 90 paired steps`.
    pub scope: String,
    pub a: String,
    pub b: String,
    /// What the difference does to the numbers.
    pub sentence: String,
}

pub fn compare(args: CompareArgs) -> Result<ExitCode> {
    let runs: Vec<Loaded> = args.dirs.iter().map(|d| load_results(d)).collect::<Result<_>>()?;
    let c = comparison(&runs);
    args.output.write(&c)?;
    Ok(ExitCode::SUCCESS)
}

impl Exports for Comparison {
    fn exporter(format: Format) -> Option<&'static dyn Exporter<Comparison>> {
        match format {
            Format::Table => Some(&Table),
            Format::Json => Some(&Json),
            _ => None,
        }
    }
}

impl Exporter<Comparison> for Table {
    fn export(&self, c: &Comparison) -> Result<String, ExportError> {
        Ok(text(c))
    }
}

/// Groups of points, one a run, that did the same thing; and the groups
/// some run lacks. First pass: the same phase, workload I/O, QD and repeat
/// run (the nth such in each run); second pass, for what is left: the same
/// workload I/O and QD in any phase (a renamed or moved phase). Pairs come
/// in the first run's step order.
fn pair_up(all: &[Vec<Point>]) -> (Vec<Vec<&Point>>, Vec<Vec<Option<&Point>>>) {
    let mut used: Vec<Vec<bool>> = all.iter().map(|pts| vec![false; pts.len()]).collect();
    let mut pairs: Vec<Vec<usize>> = Vec::new();
    // The phase (first pass only), what the point did, and its repeat run
    // (first pass only).
    type Key = (Option<String>, IoKey, Option<Option<u32>>);
    let passes: [fn(&Point) -> Key; 2] = [
        |p| (Some(p.phase.clone().unwrap_or_default()), p.io.clone(), Some(p.repeat.map(|r| r.run))),
        |p| (None, p.io.clone(), None),
    ];
    let mut leftover: Vec<(Key, Vec<Option<usize>>)> = Vec::new();
    for (pass, key_of) in passes.iter().enumerate() {
        // Each unused point's key with its occurrence number in its run.
        let keyed: Vec<BTreeMap<(Key, usize), usize>> = all
            .iter()
            .zip(&used)
            .map(|(pts, used)| {
                let mut seen: BTreeMap<Key, usize> = BTreeMap::new();
                let mut out = BTreeMap::new();
                for (i, p) in pts.iter().enumerate().filter(|(i, _)| !used[*i]) {
                    let k = key_of(p);
                    let n = seen.entry(k.clone()).or_default();
                    *n += 1;
                    out.insert((k, *n), i);
                }
                out
            })
            .collect();
        let mut order: Vec<(usize, usize, (Key, usize))> = Vec::new();
        for (r, run) in keyed.iter().enumerate() {
            for (k, i) in run {
                order.push((r, *i, k.clone()));
            }
        }
        order.sort();
        let mut done = std::collections::BTreeSet::new();
        for (_, _, k) in order {
            if !done.insert(k.clone()) {
                continue;
            }
            let found: Vec<Option<usize>> = keyed.iter().map(|run| run.get(&k).copied()).collect();
            if found.iter().all(Option::is_some) {
                let idx: Vec<usize> = found.into_iter().flatten().collect();
                for (r, i) in idx.iter().enumerate() {
                    used[r][*i] = true;
                }
                pairs.push(idx);
            } else if pass == passes.len() - 1 {
                leftover.push((k.0, found));
            }
        }
    }
    pairs.sort_by_key(|idx| idx[0]);
    let paired = pairs.iter().map(|idx| idx.iter().enumerate().map(|(r, i)| &all[r][*i]).collect()).collect();
    let unpaired = leftover
        .into_iter()
        .map(|(_, f)| f.iter().enumerate().map(|(r, i)| i.map(|i| &all[r][i])).collect())
        .collect();
    (paired, unpaired)
}

pub fn comparison(runs: &[Loaded]) -> Comparison {
    let all: Vec<Vec<Point>> = runs.iter().map(points).collect();
    let (paired_points, missing) = pair_up(&all);
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
                    }
                })
                .collect();
            let ratios = ratios(&values.iter().map(|v| (v.value, v.error.is_none())).collect::<Vec<_>>());
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
    let mut differences = Vec::new();
    for j in 1..runs.len() {
        differences.extend(run_differences(&runs[0], &runs[j], j));
        // Rounds give a point a measurement; each step counts once.
        let mut steps: Vec<(&ManifestStep, &ManifestStep)> = Vec::new();
        for pts in &paired_points {
            if let (Some(a), Some(b)) = (step_of(&runs[0], pts[0]), step_of(&runs[j], pts[j])) {
                if !steps.iter().any(|(x, y)| x.index == a.index && y.index == b.index) {
                    steps.push((a, b));
                }
            }
        }
        differences.extend(step_differences((&runs[0], &runs[j]), &steps, j));
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
        pairs,
        values_note,
        sweep_bests,
        unpaired,
        differences,
    }
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

/// Each later value over the first, where both are whole (no error) and
/// the first is above zero.
fn ratios(values: &[(Option<f64>, bool)]) -> Vec<Option<f64>> {
    let base = values[0].0.filter(|_| values[0].1);
    values[1..]
        .iter()
        .map(|(v, whole)| match (base, v) {
            (Some(a), Some(b)) if a > 0.0 && *whole => Some(b / a),
            _ => None,
        })
        .collect()
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
                ratios: ratios(&bests.iter().map(|b| (b.2, true)).collect::<Vec<_>>()),
                bests,
            }
        })
        .collect()
}

/// `peaks`, `step averages`, `steady-state averages`.
fn plural_kind(k: ValueKind) -> &'static str {
    match k {
        ValueKind::StepAverage => "step averages",
        ValueKind::SteadyStateAverage => "steady-state averages",
        ValueKind::Peak => "peaks",
    }
}

/// A value kind as JSON: its words (`peak`, `step average`).
fn kind_words<S: serde::Serializer>(k: &ValueKind, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(k.words())
}

/// `completed`, `failed`: a run's status in a word.
fn status_name(s: Status) -> &'static str {
    match s {
        Status::Running => "running",
        Status::Completed => "completed",
        Status::Failed => "failed",
        Status::Interrupted => "interrupted",
    }
}

fn label(p: &Point) -> String {
    match (&p.workload, &p.qd) {
        (Some(w), Some(qd)) => {
            let kind = if p.kind == "measure" { String::new() } else { format!("{} ", p.kind) };
            format!("{kind}{} QD {}", w.label(), qd.total)
        }
        _ => p.label.clone(),
    }
}

fn diff(field: &str, j: usize, a: String, b: String, sentence: String) -> Difference {
    Difference {
        field: field.into(),
        runs: format!("A vs {}", letter(j)),
        scope: "run".into(),
        a,
        b,
        sentence,
    }
}

/// Differences in what the two runs ran on and with.
fn run_differences(a: &Loaded, b: &Loaded, j: usize) -> Vec<Difference> {
    let (ma, mb) = (&a.manifest, &b.manifest);
    let l = letter(j);
    let mut out = Vec::new();
    let mut plan_changes = Vec::new();
    let mut check = |field: &str, va: String, vb: String, why: &str| {
        if va != vb {
            out.push(diff(field, j, va, vb, why.to_string()));
        }
    };
    check(
        "rehearsal",
        rehearsal_word(ma.rehearsal),
        rehearsal_word(mb.rehearsal),
        "a rehearsal scales sizes and times down on a scratch file: its numbers are not measurements and compare with nothing",
    );
    check(
        "run status",
        status_name(ma.status).to_string(),
        status_name(mb.status).to_string(),
        "a run that did not complete lacks its later steps, and its last step may have been cut short",
    );
    check(
        "methodology",
        format!("{} {}", ma.methodology.name, ma.methodology.version),
        format!("{} {}", mb.methodology.name, mb.methodology.version),
        "the runs followed different methodologies; the step differences below say where they part",
    );
    // What the plans changed, as `methodic diff` says it (presentation
    // aside: it moves no number).
    if ma.methodology.plan_hash != mb.methodology.plan_hash {
        for c in methodic_compiler::diff::diff(&ma.plan, &mb.plan).changes {
            if c.class == methodic_compiler::diff::Class::PresentationOnly {
                continue;
            }
            plan_changes.push(Difference {
                field: format!("plan: {}", c.what),
                runs: String::new(),
                scope: format!("{}: {}", c.class.word(), c.affected),
                a: c.old,
                b: c.new,
                sentence: c.reason,
            });
        }
    }
    // Equal plans written in another spelling (results from before the
    // plan's enums took the language's words) hash apart: the plans decide.
    if ma.methodology.plan_hash != mb.methodology.plan_hash
        && ma.plan != mb.plan
        && ma.methodology.name == mb.methodology.name
        && ma.methodology.version == mb.methodology.version
    {
        check(
            "plan",
            ma.methodology.plan_hash.clone(),
            mb.methodology.plan_hash.clone(),
            "the same methodology name and version compiled to different plans: its source was edited without a new \
             version; what changed in the plan is listed below",
        );
    }
    let ca = &ma.plan.conventions;
    let cb = &mb.plan.conventions;
    let units = |u: Units| match u {
        Units::Decimal => "decimal (MB)".to_string(),
        Units::Binary => "binary (MiB)".to_string(),
    };
    check(
        "units",
        units(ca.units),
        units(cb.units),
        "MB/s (10^6) and MiB/s (2^20) differ by 4.9%: the rates compared above are all in A's units",
    );
    check(
        "value kind",
        ca.value.words().to_string(),
        cb.value.words().to_string(),
        "the runs report different values (a peak is above the step average of the same step): the pairs above \
         compare one kind on both sides where both runs have it, as their values line says; each run's own \
         report shows its convention's value",
    );
    let ha = &ma.host;
    let hb = &mb.host;
    check(
        "host CPU",
        format!("{} x{}", ha.cpu_model.clone().unwrap_or_default(), ha.cpus),
        format!("{} x{}", hb.cpu_model.clone().unwrap_or_default(), hb.cpus),
        "the host's CPU sets how many IOPS one core can submit and complete: at high IOPS it can be the limit",
    );
    check(
        "host memory",
        human(ha.memory_bytes),
        human(hb.memory_bytes),
        "with more RAM the page cache holds more: buffered tests and copies can read from memory instead of the drive",
    );
    check(
        "kernel",
        ha.kernel.clone().unwrap_or_default(),
        hb.kernel.clone().unwrap_or_default(),
        "kernels differ in their block layer, schedulers and io_uring: latency and IOPS at high QD move with them",
    );
    check(
        "host",
        ha.hostname.clone().unwrap_or_default(),
        hb.hostname.clone().unwrap_or_default(),
        "the runs ran on different machines (slots, PCIe links, cooling differ even when the parts match)",
    );
    check(
        "targets",
        ma.targets.len().to_string(),
        mb.targets.len().to_string(),
        "another number of devices: a step spread over more devices has more parallelism",
    );
    for (ta, tb) in ma.targets.iter().zip(&mb.targets) {
        let (ia, ib) = (&ta.identity, &tb.identity);
        let s = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        let kind = |t: &methodic_results::host::TargetInfo| t.kind.words().to_string();
        check(
            "target kind",
            kind(ta),
            kind(tb),
            "a file goes through a file system, a block device does not: allocation and metadata work add to each I/O",
        );
        check(
            "device model",
            s(&ia.model),
            s(&ib.model),
            "different drive models: this is the comparison itself, not a flaw, if nothing else differs",
        );
        check(
            "firmware",
            s(&ia.firmware),
            s(&ib.firmware),
            "firmware changes garbage collection, caching and power states: the same model can measure differently",
        );
        check(
            "capacity",
            human(ta.capacity),
            human(tb.capacity),
            "larger drives of one family have more dies to spread I/O over and a larger cache: they are usually faster",
        );
        check(
            "write cache",
            s(&ia.write_cache),
            s(&ib.write_cache),
            "a write-back cache acknowledges writes before they are on flash: write latency drops",
        );
        check(
            "I/O scheduler",
            s(&ia.scheduler),
            s(&ib.scheduler),
            "a scheduler reorders and merges requests and costs CPU a request",
        );
        let fs = |t: &methodic_results::host::TargetInfo| {
            t.identity.file_system.as_ref().map_or("-".into(), |f| format!("{} ({})", f.fs_type, f.options))
        };
        check(
            "file system",
            fs(ta),
            fs(tb),
            "file systems and their mount options change how I/O reaches the device (journaling, discard, atime)",
        );
    }
    let (ea, eb) = (&ma.engine, &mb.engine);
    check(
        "engine",
        engine_word(ea),
        engine_word(eb),
        "the engine that submits I/O sets the host's overhead a request; at QD1 it is part of the latency",
    );
    check(
        "CPU pinning",
        if ea.pinned { "pinned" } else { "not pinned" }.to_string(),
        if eb.pinned { "pinned" } else { "not pinned" }.to_string(),
        "pinned workers keep their caches and avoid migrations: latency is steadier and often lower",
    );
    check(
        "latency recording",
        ea.latency_recorded.to_string(),
        eb.latency_recorded.to_string(),
        "recording latencies costs a clock read an I/O",
    );
    check(
        "tool",
        format!("{} {}", ma.tool.version, ma.tool.git_revision.clone().unwrap_or_default()),
        format!("{} {}", mb.tool.version, mb.tool.git_revision.clone().unwrap_or_default()),
        "different methodic builds; the engine's own speed may differ",
    );
    out.extend(ceiling_difference(ma, mb, j));
    out.extend(plan_changes);
    for d in &mut out {
        d.runs = format!("A vs {l}");
    }
    out
}

/// The host ceilings of the I/O shapes both runs measured, when some
/// differ by more than 10%: the host itself moved, and a step near its
/// ceiling moves with it. The widest gap is shown.
fn ceiling_difference(a: &Manifest, b: &Manifest, j: usize) -> Option<Difference> {
    let (ca, cb) = (a.ceilings.as_ref()?, b.ceilings.as_ref()?);
    let both: Vec<(&ShapeCeiling, &ShapeCeiling)> =
        ca.shapes.iter().filter_map(|x| cb.of(&x.shape).map(|y| (x, y))).collect();
    let gap = |(x, y): &(&ShapeCeiling, &ShapeCeiling)| (y.iops / x.iops).ln().abs();
    let apart: Vec<&(&ShapeCeiling, &ShapeCeiling)> = both
        .iter()
        .filter(|(x, y)| x.iops > 0.0 && y.iops > 0.0 && (y.iops / x.iops - 1.0).abs() > 0.1)
        .collect();
    let (x, y) = apart.iter().max_by(|p, q| gap(p).total_cmp(&gap(q)))?;
    Some(diff(
        "host ceiling",
        j,
        format!("{:.0} IOPS", x.iops),
        format!("{:.0} IOPS", y.iops),
        format!(
            "reading RAM with no device in the way, the host reached another rate at {} of the {} I/O shapes both \
             runs measured (the widest gap shown, at {}): a step near its ceiling measures the host, and moves \
             with it",
            apart.len(),
            both.len(),
            x.shape
        ),
    ))
}

/// `auto (io_uring available)`, `psync (chosen; io_uring available)`.
fn engine_word(e: &methodic_runtime::manifest::EngineNote) -> String {
    let uring = match &e.io_uring_unavailable {
        _ if e.io_uring => "io_uring available".to_string(),
        Some(why) if e.choice == "psync" && why == "--engine psync" => "io_uring not used".to_string(),
        Some(why) => format!("io_uring unavailable: {why}"),
        None => "io_uring unavailable".to_string(),
    };
    format!("{} ({uring})", e.choice)
}

fn rehearsal_word(r: bool) -> String {
    if r { "rehearsal".into() } else { "measurement".into() }
}

/// What the step differences compare: a short value (of a step of the
/// run given), and what to say.
struct Field {
    name: &'static str,
    get: fn(&Loaded, &ManifestStep) -> Option<String>,
    sentence: &'static str,
}

fn checklist(s: &ManifestStep) -> &Checklist {
    &s.checklist
}

const FIELDS: &[Field] = &[
    Field {
        name: "span",
        get: |_, s| {
            checklist(s).span.as_ref().map(|sp| {
                format!("{} ({}% of {})", human(sp.bytes), sp.percent_of_capacity, human(sp.capacity))
            })
        },
        sentence: "the span is how much of the drive the I/O covers: a small span leaves spare area free and fits \
                   in caches, so random writes and reads look faster than over the whole drive",
    },
    Field {
        name: "drive state",
        get: |run, s| {
            checklist(s).drive_state.as_ref().map(|d| {
                let steady = match d.steady {
                    Some(st) if st.reached => ", steady",
                    Some(_) => ", not steady",
                    None => "",
                };
                let mut parts = Vec::new();
                if d.erased.is_some() {
                    parts.push("erased".to_string());
                }
                if d.fill_passes > 0 {
                    parts.push(format!("filled {}x", d.fill_passes));
                }
                if d.preconditions_by_io.len() == d.preconditions.len() {
                    parts.extend(d.preconditions_by_io.iter().cloned());
                } else {
                    // Written before the runtime named preconditions by what they do.
                    parts.extend(d.preconditions.iter().map(|p| precondition_by_io(run, p)));
                }
                let condition = match d.condition {
                    Condition::AsFound => "as found",
                    Condition::Fresh => "fresh",
                    Condition::Filled => "filled",
                    Condition::Preconditioned => "preconditioned",
                    Condition::Steady => "steady",
                };
                if parts.is_empty() {
                    format!("{condition}{steady}")
                } else {
                    format!("{condition}{steady} ({})", parts.join(", then "))
                }
            })
        },
        sentence: "a fresh (erased) or lightly written drive writes far faster than one in steady state, reads of \
                   never-written blocks may not touch the flash at all, and a precondition of another length or \
                   workload leaves the drive in another state",
    },
    Field {
        name: "queue depth counting",
        get: |_, s| {
            checklist(s).queue_depth.as_ref().map(|q| {
                let counted = match q.counted {
                    QdCounting::Total => "total",
                    QdCounting::PerWorker => "per worker",
                };
                format!(
                    "{} workers x {} on {} devices (counted {counted})",
                    q.workers, q.per_worker, q.devices
                )
            })
        },
        sentence: "the same total queue depth spread over more workers or devices is another job: more threads \
                   submit in parallel, and per-worker counting multiplies the outstanding I/Os",
    },
    Field {
        name: "cache policy",
        get: |_, s| {
            let c = &checklist(s).cache;
            let io = match c.io {
                Some(IoMode::Direct) => "direct",
                Some(IoMode::Buffered) => "buffered",
                None => "-",
            };
            Some(format!(
                "{io}, caches {}dropped, RAM {}",
                if c.caches_dropped { "" } else { "not " },
                c.ram_limit.map_or("not limited".into(), |r| format!("limited to {}", human(r)))
            ))
        },
        sentence: "buffered I/O and data that fits in RAM are served by the page cache, not the drive; dropping \
                   caches or limiting RAM takes the cache out",
    },
    Field {
        name: "data pattern",
        get: |_, s| checklist(s).data_pattern.map(|d| d.to_string()),
        sentence: "drives that compress or deduplicate write zeros and compressible data faster than random data",
    },
    Field {
        name: "value kind",
        get: |_, s| {
            let v = &checklist(s).value_kind;
            Some(format!("{}: {}", v.kind.words(), v.computed))
        },
        sentence: "the value is made another way (record time, ramp, repeats, statistic): a short record time \
                   catches a drive's burst rather than its sustained rate; where only the kind differs (a peak \
                   against an average), the pairs above already compare one kind on both sides",
    },
    Field {
        name: "steady state",
        get: |_, s| {
            s.steady
                .as_ref()
                .map(|st| if st.reached { "reached".to_string() } else { "not reached".to_string() })
        },
        sentence: "a step whose steady-state rule was not met reports values that were still moving: they \
                   depend on when the step gave up",
    },
    Field {
        name: "engine",
        get: |_, s| s.io.as_ref().map(|io| format!("{} {}x{}", io.engine.name(), io.threads, io.depth)),
        sentence: "another engine or thread layout submits the same queue depth with other overhead",
    },
];

/// A precondition of a drive state, named by what it does rather than by
/// its workload's name: `4KiB random, 0% read at QD 32 for 6h` for the
/// runtime's `w4 (4KiB random, 0% read) at QD 32 for 6h`, so that a
/// renamed but identical precondition is the same drive state (as `methodic
/// diff` says it is). The runtime writes a precondition as its workload's
/// label, ` at QD ` and the depth, then its length: the run's own plan says
/// which precondition step a note is of. A note of no precondition step in
/// the plan (the rounds' own rounds) stays as written.
fn precondition_by_io(run: &Loaded, note: &str) -> String {
    let by_io = run
        .manifest
        .plan
        .steps
        .iter()
        .filter_map(|s| match &s.action {
            Action::Precondition { workload, qd, .. } => {
                let written = format!("{} at QD {} ", workload.label(), qd.total);
                let rest = note.strip_prefix(&written)?;
                Some((written.len(), IoKey::of_step(s).into_iter().next()?, rest))
            }
            _ => None,
        })
        // Of labels that are prefixes of one another, the longest is the step's.
        .max_by_key(|(len, _, _)| *len);
    match by_io {
        Some((_, key, rest)) => format!("{} {rest}", key.describe()),
        None => note.to_string(),
    }
}

/// Differences in the checklists of paired steps, grouped by field and
/// by the pair of values.
fn step_differences(
    (run_a, run_b): (&Loaded, &Loaded),
    steps: &[(&ManifestStep, &ManifestStep)],
    j: usize,
) -> Vec<Difference> {
    let mut out = Vec::new();
    for f in FIELDS {
        let mut groups: BTreeMap<(String, String), Vec<&str>> = BTreeMap::new();
        for (a, b) in steps {
            // Another value kind is the run's convention, said once for the
            // run; the pairs compare one kind on both sides.
            if f.name == "value kind" && a.checklist.value_kind.kind != b.checklist.value_kind.kind {
                continue;
            }
            let (va, vb) = ((f.get)(run_a, a), (f.get)(run_b, b));
            if va != vb {
                let show = |v: Option<String>| v.unwrap_or_else(|| "-".into());
                groups.entry((show(va), show(vb))).or_default().push(&a.id);
            }
        }
        for ((va, vb), ids) in groups {
            let example = if ids.len() > 3 {
                format!("{}, {}, ... {}", ids[0], ids[1], ids[ids.len() - 1])
            } else {
                ids.join(", ")
            };
            out.push(Difference {
                field: f.name.into(),
                runs: format!("A vs {}", letter(j)),
                scope: format!("{} of {} paired steps ({example})", ids.len(), steps.len()),
                a: va,
                b: vb,
                sentence: f.sentence.into(),
            });
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use methodic_runtime::{Quiet, RunOptions};

    /// Rehearses `src` in-process and reads the results back.
    fn run(name: &str, src: &str) -> Loaded {
        let plan = methodic_compiler::compile(src, &Default::default()).unwrap().plan;
        let out = std::env::temp_dir().join(format!("methodic-compare-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let opts = RunOptions { out: out.clone(), rehearse: true, seed: 3, ..Default::default() };
        methodic_runtime::run(&plan, &opts, &mut Quiet).unwrap();
        let loaded = methodic_runtime::manifest::load(&out).unwrap();
        std::fs::remove_dir_all(&out).unwrap();
        loaded
    }

    const BASE: &str = "methodology \"c\" version \"1\"\n\
        workload r { random; block 4KiB; read 100% }\n\
        workload s { sequential; block 128KiB; read 0% }\n";

    #[test]
    fn steps_pair_within_their_phase_before_across_phases() {
        let a = run(
            "pair-a",
            &format!(
                "{BASE}phase \"fill\" {{ fill s passes 1 }}\nphase \"m\" {{ sweep r qd [1, 2] record 1s }}\n"
            ),
        );
        let b = run(
            "pair-b",
            &format!(
                "{BASE}phase \"fresh\" {{ sweep r qd [1, 2] record 1s }}\nphase \"fill\" {{ fill s passes 1 }}\n\
                 phase \"m\" {{ sweep r qd [1, 2] record 1s }}\n"
            ),
        );
        let c = comparison(&[a, b]);
        let ids: Vec<(&str, &str)> =
            c.pairs.iter().map(|p| (p.values[0].step_id.as_str(), p.values[1].step_id.as_str())).collect();
        assert_eq!(ids, [("fill/fill-s", "fill/fill-s"), ("m/r-qd1", "m/r-qd1"), ("m/r-qd2", "m/r-qd2"),]);
        let only: Vec<&str> = c.unpaired.iter().flat_map(|u| u.step_ids.iter().map(String::as_str)).collect();
        assert_eq!(only, ["fresh/r-qd1", "fresh/r-qd2"]);
        assert!(c.unpaired.iter().all(|u| u.in_runs == ["B"]));
    }

    #[test]
    fn host_ceilings_apart_by_more_than_a_tenth_are_a_difference() {
        let a = run("ceiling", &format!("{BASE}sweep r qd [1, 2] record 1s\n"));
        let shapes = a.manifest.ceilings.as_ref().expect("a rehearsal measures the ceilings").shapes.len();
        assert_eq!(shapes, 2, "QD1 and QD2 of 4KiB");
        let field = |c: &Comparison| {
            c.differences.iter().find(|d| d.field == "host ceiling").map(|d| d.sentence.clone())
        };
        let mut b = a.clone();
        let c = b.manifest.ceilings.as_mut().unwrap();
        c.shapes[0].iops *= 1.05;
        assert_eq!(field(&comparison(&[a.clone(), b.clone()])), None, "within 10%: noise");
        let c = b.manifest.ceilings.as_mut().unwrap();
        c.shapes[1].iops *= 0.5;
        let sentence = field(&comparison(&[a.clone(), b.clone()])).expect("half the ceiling at one shape");
        assert!(sentence.contains("at 1 of the 2 I/O shapes both runs measured"), "{sentence}");
        assert!(
            sentence.contains(&a.manifest.ceilings.as_ref().unwrap().shapes[1].shape.to_string()),
            "{sentence}"
        );
        b.manifest.ceilings = None;
        assert_eq!(field(&comparison(&[a, b])), None, "nothing to compare with");
    }

    #[test]
    fn a_renamed_phase_still_pairs_and_a_failed_step_has_no_ratio() {
        let a = run("renamed-a", &format!("{BASE}phase \"one\" {{ sweep r qd [1, 2] record 1s }}\n"));
        let mut b = run("renamed-b", &format!("{BASE}phase \"two\" {{ sweep r qd [1, 2] record 1s }}\n"));
        b.steps[1].error = Some("interrupted".into());
        let c = comparison(&[a, b]);
        assert_eq!(c.pairs.len(), 2, "paired by workload and QD across the rename");
        assert!(c.unpaired.is_empty());
        assert!(c.pairs[0].ratios[0].is_some_and(|r| r > 0.0));
        assert_eq!(c.pairs[1].ratios[0], None, "a failed step gets no ratio");
        let t = text(&c);
        assert!(t.contains("(failed)") && t.contains("1 paired step failed or was interrupted"), "{t}");
        assert!(t.contains("1 paired measurements; B/A geometric mean"), "{t}");
    }
}
