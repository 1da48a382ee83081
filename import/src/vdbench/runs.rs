//! The `rd=` entries in, the runs out: for each run definition its jobs
//! (a workload on one SD each, WDs that share an SD merged where that is
//! exactly what vdbench runs), its for-loops in vdbench's order, its I/O
//! rates, its timing and what ends it early (from `RD_entry.java`,
//! `For_loop.java`, `HandleSkew.java` and `Reporter.java` in
//! `Hust-Wen/vdbench@e801261:src/Vdb/`). The area of
//! each job (span and offset) is set afterwards by [`super::area`], once
//! every run's transfer sizes are known.

use super::entries::{Entry, Param};
use super::storage::{Io, Sd, Seek, Wd, bad, io_mode, numbers, seekpct, select, wd};
use super::values::{MAX_RATE, Tok, tokens, whole};
use crate::ImportErrorKind;
use crate::problem::Problem;

/// One workload on one SD: a job of a together step, or a measurement.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Job {
    pub(crate) name: String,
    pub(crate) sd: usize,
    /// Its share of the run's rate, in percent.
    pub(crate) share: f64,
    pub(crate) sizes: Vec<(u64, f64)>,
    pub(crate) read: f64,
    pub(crate) seek: Seek,
    pub(crate) align: Option<u64>,
    /// The WD's own range, if it has one.
    pub(crate) range: Option<(f64, f64)>,
    /// The range is a `hotband=`.
    pub(crate) hotband: bool,
    /// Set by [`super::area`] for a hot band: its `bands` text.
    pub(crate) bands: Option<String>,
    /// Set by [`super::area`].
    pub(crate) offset: u64,
    /// The WDs it runs: more than one when WDs sharing its SD were merged.
    pub(crate) wds: Vec<String>,
}

/// A for-loop of a run, with its values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Loop {
    Xfer(Vec<u64>),
    Threads(Vec<u64>),
    Read(Vec<f64>),
    Seek(Vec<f64>),
}

/// The run's I/O rates, its innermost loop.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Rates {
    /// Each value in turn: a number, or none for as fast as it goes.
    Each(Vec<Option<f64>>),
    /// As fast as it goes, then these shares of what that did.
    Curve(Vec<f64>),
}

/// A run definition, translated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Run {
    pub(crate) name: String,
    pub(crate) line: usize,
    pub(crate) jobs: Vec<Job>,
    pub(crate) loops: Vec<Loop>,
    pub(crate) rates: Rates,
    /// `poisson` or `uniform`.
    pub(crate) arrivals: &'static str,
    pub(crate) record: u64,
    pub(crate) ramp: u64,
    pub(crate) series: u64,
    /// The threads of every SD, when the rd gives one value.
    pub(crate) threads: Option<u64>,
    pub(crate) io: Io,
    /// `maxdata=`, `maxdatawritten=`: bytes, or a share of the SD size.
    pub(crate) maxdata: Option<(f64, Param)>,
    pub(crate) pause: u64,
    /// Set by [`super::area`]: the span of every SD of the run.
    pub(crate) span: String,
    /// What the methodology's comments say about this run.
    pub(crate) notes: Vec<String>,
    /// `forcompratio=` (or an rd's `compratio=`): the ratios, the
    /// outermost loop; [`runs`] makes a run of each.
    pub(crate) ratios: Vec<f64>,
    /// The data of this run's phase (`compressible N%`, `random`) when a
    /// ratio of the rd sets it, and what the phase's name adds.
    pub(crate) data: Option<(String, String)>,
}

/// RD keywords of other models or features methodic lacks: `(keyword,
/// why, hint)`.
const REFUSED: &[(&str, &str, &str)] = &[
    ("forrhpct", "vdbench's cache-hit areas have no methodic equivalent", "leave it out"),
    ("forwhpct", "vdbench's cache-hit areas have no methodic equivalent", "leave it out"),
    ("forhitarea", "vdbench's cache-hit areas have no methodic equivalent", "leave it out"),
    (
        "forcompression",
        "this importer does not translate a loop over data patterns",
        "import an rd per value, or write `target { data compressible N% }` steps by hand",
    ),
    (
        "stopcurve",
        "stopcurve= skips the curve points after one that is too slow; methodic runs every step of a plan",
        "leave it out; compare the latencies in methodic report",
    ),
    ("replay", "replay runs a recorded I/O trace, which methodic cannot", "leave it out"),
    ("mount", "mount commands are not something methodic runs", "mount by hand before the run"),
    (
        "maxdataread",
        "methodic ends a step after bytes written (until written) or bytes read and written together (until transferred), not after bytes read alone",
        "of a workload that only reads, maxdata= says the same (it becomes until transferred); else leave it out: the run's elapsed= ends it",
    ),
];

/// File-system keywords of an rd.
const FILE_SYSTEM: &[&str] = &[
    "fsd",
    "fwd",
    "fwdrate",
    "format",
    "operations",
    "foroperations",
    "fordepth",
    "forwidth",
    "forfiles",
    "forsizes",
    "fortotalsize",
    "forwss",
];

/// The runs of the file.
pub(crate) fn runs(
    rds: &[Entry],
    wd_default: &[Param],
    sds: &[Sd],
    wds: &[Wd],
    problems: &mut Vec<Problem>,
) -> Vec<Run> {
    let sd_names: Vec<&str> = sds.iter().map(|s| s.name.as_str()).collect();
    let wd_names: Vec<&str> = wds.iter().map(|w| w.name.as_str()).collect();
    let mut out = Vec::new();
    for e in rds {
        for p in &e.params {
            if let Some((_, why, hint)) = REFUSED.iter().find(|r| r.0 == p.key) {
                problems.push(bad(p, e, ImportErrorKind::Untranslatable, *why).hint(*hint));
            } else if FILE_SYSTEM.contains(&p.key) {
                problems.push(
                    bad(p, e, ImportErrorKind::Untranslatable, "file-system workloads (fsd=, fwd=) are another model than methodic's block workloads")
                        .hint("methodic's copy step and datasets test files; write them by hand"),
                );
            }
        }
        let Some(sets) = sd_sets(e, &sd_names, problems) else {
            let list = e.get("sd").map(|p| select(p, e, &sd_names, problems));
            let chosen = chosen_wds(e, list, wd_default, &sd_names, &wd_names, wds, problems);
            if let Some(run) = run(e, &chosen, sds, problems) {
                out.extend(by_ratio(run, e));
            }
            continue;
        };
        let said = e.get("sd").map_or(String::new(), |p| p.item.value.clone());
        for set in sets {
            let chosen = chosen_wds(e, Some(set.clone()), wd_default, &sd_names, &wd_names, wds, problems);
            if let Some(mut run) = run(e, &chosen, sds, problems) {
                let names: Vec<&str> = set.iter().map(|i| sd_names[*i]).collect();
                run.notes.insert(
                    0,
                    format!(
                        "rd={} sd={said} (line {}): vdbench repeats the rd for each set of SDs; this one on {}.",
                        e.name,
                        e.line,
                        names.join(", ")
                    ),
                );
                run.name = format!("{}_{}", e.name, names.join("_"));
                if said == "range" {
                    run.name = format!("{}_{}-{}", e.name, names[0], names[set.len() - 1]);
                }
                out.extend(by_ratio(run, e));
            }
        }
    }
    out
}

/// A run of each of its ratios, the data of each said; the run itself
/// when it has none.
fn by_ratio(run: Run, e: &Entry) -> Vec<Run> {
    if run.ratios.is_empty() {
        return vec![run];
    }
    let param =
        e.get("forcompratio").map_or(String::new(), |p| format!("{} (line {})", p.item.said(), p.item.line));
    run.ratios
        .iter()
        .map(|r| {
            let mut one = run.clone();
            let data = super::settings::ratio_data(*r);
            one.notes.insert(
                0,
                format!(
                    "{param}: vdbench runs the rd's other loops at each ratio, the outermost loop; here a phase \
                     a ratio, this one {r}:1, data {data}"
                ),
            );
            one.data = Some((data, format!(" compratio {r}")));
            one.ratios = Vec::new();
            one
        })
        .collect()
}

/// The sets of SDs an rd's `sd=single`, `sd=range` or `sd=setsofN` runs
/// on, one run each (`RD_entry.repeatSdSingles`): each SD alone, in order;
/// the first one, two, ... all; or N at a time from the SDs shuffled as
/// vdbench shuffles them (`java.util.Random(0)`, two draws a swap, eight
/// swaps an SD; `single` is `setsof1`, unshuffled). `None` for any other
/// `sd=`.
fn sd_sets(e: &Entry, sd_names: &[&str], problems: &mut Vec<Problem>) -> Option<Vec<Vec<usize>>> {
    let p = e.get("sd")?;
    let v = p.item.value.as_str();
    let n = sd_names.len();
    if v == "range" {
        return Some((1..=n).map(|k| (0..k).collect()).collect());
    }
    let set = if v == "single" { "1" } else { v.strip_prefix("setsof")? };
    let Some(set) = set.trim().parse::<usize>().ok().filter(|s| *s > 0) else {
        problems.push(
            bad(p, e, ImportErrorKind::BadValue, "setsof takes a number of SDs of 1 or more")
                .hint("write sd=setsof2, for example"),
        );
        return Some(Vec::new());
    };
    let order: Vec<usize> = if set > 1 { shuffled(n) } else { (0..n).collect() };
    Some(order.chunks(set).map(<[usize]>::to_vec).collect())
}

#[cfg(test)]
#[test]
fn java_random_draws_as_java_does() {
    // `new Random(0).nextInt(100)` is 60 in Java.
    assert_eq!(JavaRandom::new(0).below(100), 60);
}

/// `n` SDs in the order vdbench shuffles them for `setsofN`.
pub(crate) fn shuffled(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut random = JavaRandom::new(0);
    for _ in 0..n * 8 {
        let (a, b) = (random.below(n), random.below(n));
        order.swap(a, b);
    }
    order
}

/// `java.util.Random`: the generator vdbench shuffles SDs with.
struct JavaRandom(u64);

impl JavaRandom {
    const MULTIPLIER: u64 = 0x5_DEEC_E66D;
    const MASK: u64 = (1 << 48) - 1;

    fn new(seed: u64) -> JavaRandom {
        JavaRandom((seed ^ Self::MULTIPLIER) & Self::MASK)
    }

    /// `next(31)`.
    fn next31(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(Self::MULTIPLIER).wrapping_add(0xB) & Self::MASK;
        (self.0 >> 17) as u32
    }

    /// `nextInt(bound)`, `bound` from 1 to `i32::MAX`.
    fn below(&mut self, bound: usize) -> usize {
        let bound = bound as u32;
        if bound.is_power_of_two() {
            return ((u64::from(bound) * u64::from(self.next31())) >> 31) as usize;
        }
        loop {
            let bits = self.next31();
            let val = bits % bound;
            // Java's test that `bits - val + (bound - 1)` does not overflow an int.
            if u64::from(bits - val) + u64::from(bound - 1) <= i32::MAX as u64 {
                return val as usize;
            }
        }
    }
}

/// The WDs an rd runs: its `wd=` list, with the SDs of its `sd=`
/// (`sd_list`) instead of theirs when it gives one; or `wd=default` on
/// those SDs.
fn chosen_wds(
    e: &Entry,
    sd_list: Option<Vec<usize>>,
    wd_default: &[Param],
    sd_names: &[&str],
    wd_names: &[&str],
    wds: &[Wd],
    problems: &mut Vec<Problem>,
) -> Vec<Wd> {
    let mut chosen: Vec<Wd> = match e.get("wd") {
        Some(p) => select(p, e, wd_names, problems).into_iter().map(|i| wds[i].clone()).collect(),
        None => match &sd_list {
            Some(_) => {
                let entry = Entry {
                    section: super::keywords::Section::Wd,
                    name: "default".to_string(),
                    line: e.line,
                    params: wd_default.to_vec(),
                };
                vec![wd(&entry, sd_names, problems)]
            }
            None => {
                problems.push(
                    Problem::new(
                        ImportErrorKind::Syntax,
                        e.line,
                        "an rd needs wd= or sd= (vdbench refuses it too)",
                    )
                    .place(e.place()),
                );
                Vec::new()
            }
        },
    };
    if let Some(list) = sd_list {
        for w in &mut chosen {
            w.sds = list.clone();
        }
    }
    for w in &chosen {
        if w.sds.is_empty() {
            problems.push(
                Problem::new(ImportErrorKind::Syntax, w.line, "a wd without sd= (vdbench refuses it too)")
                    .place(format!("wd={}", w.name)),
            );
        }
    }
    chosen
}

/// One rd= to a run.
fn run(e: &Entry, wds: &[Wd], sds: &[Sd], problems: &mut Vec<Problem>) -> Option<Run> {
    let before = problems.len();
    let rates = rates(e, problems);
    let arrivals = arrivals(e, problems);
    let (record, ramp, series) = timing(e, problems)?;
    let (mut loops, ratios) = loops(e, problems);
    let (wds, threads) = overrides(wds, &mut loops);
    let wds = wds.as_slice();
    let shares = skews(e, wds, rates.as_ref(), problems);
    let jobs = jobs(e, wds, &shares, rates.as_ref(), arrivals, problems);
    let notes = merged_notes(&jobs, sds);
    let io = run_io(e, wds, &jobs, sds, problems);
    let maxdata = match (e.get("maxdata"), e.get("maxdatawritten")) {
        (Some(p), _) | (None, Some(p)) => {
            numbers(p, e, problems).and_then(|n| n.first().map(|n| (*n, p.clone())))
        }
        _ => None,
    };
    let pause = e
        .get("pause")
        .and_then(|p| numbers(p, e, problems))
        .and_then(|n| n.first().and_then(|n| whole(*n)))
        .unwrap_or(0);
    if problems.len() > before {
        return None;
    }
    Some(Run {
        name: e.name.clone(),
        line: e.line,
        jobs,
        loops,
        rates: rates?,
        arrivals,
        record,
        ramp,
        series,
        threads,
        io: io?,
        maxdata,
        pause,
        span: String::new(),
        notes,
        ratios,
        data: None,
    })
}

/// What the methodology says of WDs merged into one workload.
fn merged_notes(jobs: &[Job], sds: &[Sd]) -> Vec<String> {
    jobs.iter()
        .filter(|j| j.wds.len() > 1)
        .map(|j| {
            format!(
                "wd={} share sd={}: vdbench runs them through one queue of its threads, each at a Poisson rate by its skew; that is one Poisson stream of random I/Os, each a read with a chance of {}% (their rdpct= weighted by skew), which is this one workload",
                j.wds.join(", wd="),
                sds[j.sd].name,
                (j.read * 100.0).round() / 100.0
            )
        })
        .collect()
}

/// `iorate=` and `curve=`.
fn rates(e: &Entry, problems: &mut Vec<Problem>) -> Option<Rates> {
    let Some(p) = e.get("iorate") else {
        problems.push(
            Problem::new(
                ImportErrorKind::Syntax,
                e.line,
                "an rd without iorate= (vdbench stops: iorate= parameter is missing)",
            )
            .place(e.place())
            .hint("add iorate=max for as fast as it goes"),
        );
        return None;
    };
    if p.item.value == "curve" {
        let points = match e.get("curve") {
            Some(c) => numbers(c, e, problems)?,
            // RD_entry.java:2905: vdbench's own curve.
            None => vec![10.0, 50.0, 70.0, 80.0, 90.0, 100.0],
        };
        if points.is_empty() || points.iter().any(|p| *p <= 0.0 || *p > 100.0) {
            problems.push(bad(
                e.get("curve")?,
                e,
                ImportErrorKind::BadValue,
                "curve points are shares above 0 and at most 100",
            ));
            return None;
        }
        return Some(Rates::Curve(points));
    }
    // vdbench takes `max` in a list only under iorate= written in full.
    let key = if p.item.key == "iorate" { "iorate" } else { "io" };
    let toks = match tokens(key, &p.item.value) {
        Ok(t) => t,
        Err(why) => {
            problems
                .push(bad(p, e, ImportErrorKind::BadValue, why).hint(
                    "vdbench takes max in a list only under iorate= written in full: iorate=(200,max)",
                ));
            return None;
        }
    };
    let mut each = Vec::new();
    for t in toks {
        match t {
            Tok::Num(n) if n == MAX_RATE => each.push(None),
            Tok::Num(n) if n > 0.0 => each.push(Some(n)),
            Tok::Text(w) if w.eq_ignore_ascii_case("max") => each.push(None),
            Tok::Percent(_) => {
                problems.push(bad(p, e, ImportErrorKind::Untranslatable, "a share of the previous run's rate: vdbench takes whatever run came before").hint("methodic takes `rate N% of NAME` of a measurement named `as NAME`; use iorate=curve, or write it by hand"));
                return None;
            }
            _ => {
                problems.push(bad(
                    p,
                    e,
                    ImportErrorKind::BadValue,
                    "iorate= takes max, curve, numbers above 0, or a list of them",
                ));
                return None;
            }
        }
    }
    Some(Rates::Each(each))
}

/// `distribution=`: how open-loop I/Os arrive.
fn arrivals(e: &Entry, problems: &mut Vec<Problem>) -> &'static str {
    let Some(p) = e.get("distribution") else { return "poisson" };
    let v = p.item.value.to_lowercase();
    if !v.is_empty() && "exponential".starts_with(&v) {
        "poisson"
    } else if !v.is_empty() && "deterministic".starts_with(&v) {
        "uniform"
    } else {
        problems.push(bad(p, e, ImportErrorKind::Untranslatable, "vdbench's uniform gaps are drawn from 0 to twice the mean, and variable and spike are rate profiles: methodic has evenly spaced (uniform) and Poisson arrivals").hint("use distribution=exponential (poisson) or deterministic (uniform)"));
        "poisson"
    }
}

/// `elapsed=`, `interval=`, `warmup=` to the record time, the ramp and the
/// series interval, in seconds, with vdbench's checks
/// (`RD_entry.parserCleanup`, `:742-765`).
fn timing(e: &Entry, problems: &mut Vec<Problem>) -> Option<(u64, u64, u64)> {
    let mut secs = |key: &str, default: u64| -> Option<u64> {
        let Some(p) = e.get(key) else { return Some(default) };
        let n = numbers(p, e, problems)?;
        let s = n.first().copied().and_then(whole);
        if s.is_none() || n.len() != 1 {
            problems.push(bad(
                p,
                e,
                ImportErrorKind::BadValue,
                "a whole number of seconds was expected (vdbench has no s suffix: 30, 2m, 1h)",
            ));
        }
        s
    };
    let elapsed = secs("elapsed", 30)?;
    let warmup = secs("warmup", 0)?;
    let mut interval = secs("interval", 1)?;
    if interval == 0 {
        interval = (elapsed / 2).min(60);
    }
    let said = |detail: String| Problem::new(ImportErrorKind::BadValue, e.line, detail).place(e.place());
    if interval == 0 || elapsed / interval < 2 {
        problems.push(said(format!(
            "elapsed={elapsed} must be at least twice interval={interval} (vdbench stops on it)"
        )));
        return None;
    }
    if elapsed % interval != 0 || warmup % interval != 0 {
        problems.push(said(format!("elapsed={elapsed} and warmup={warmup} must be multiples of interval={interval} (vdbench stops on it)")));
        return None;
    }
    // Reporter.java: without warmup the first interval is the warmup.
    Some(if warmup == 0 { (elapsed - interval, interval, interval) } else { (elapsed, warmup, interval) })
}

/// The for-loops in vdbench's order: `rd=default`'s first, then the rd's
/// own as written, a keyword given again moving to the end
/// (`For_loop.java:70-133`).
fn loops(e: &Entry, problems: &mut Vec<Problem>) -> (Vec<Loop>, Vec<f64>) {
    let mut order: Vec<&Param> = Vec::new();
    for p in &e.params {
        if ["forxfersize", "forthreads", "forrdpct", "forseekpct", "forcompratio"].contains(&p.key) {
            order.retain(|q| q.key != p.key);
            order.push(p);
        }
    }
    let mut ratios = Vec::new();
    if let Some(at) = order.iter().position(|p| p.key == "forcompratio") {
        let p = order.remove(at);
        if at > 0 {
            problems.push(
                bad(
                    p,
                    e,
                    ImportErrorKind::Untranslatable,
                    format!(
                        "{} inside {}: methodic sets the data of a phase's target, so each ratio is a phase, \
                         which can only be the outermost loop",
                        p.item.said(),
                        order[0].item.said()
                    ),
                )
                .hint(
                    "give forcompratio= before the rd's other for-loops (and rd=default's), or an rd a ratio",
                ),
            );
        } else if let Some(n) = numbers(p, e, problems) {
            if n.iter().any(|r| !r.is_finite() || *r <= 0.0) {
                problems.push(bad(p, e, ImportErrorKind::BadValue, "compratio= takes ratios above 0"));
            }
            ratios = n;
        }
    }
    let mut out = Vec::new();
    for p in order {
        if p.key == "forseekpct" {
            let mut values = Vec::new();
            for t in tokens(p.key, &p.item.value).unwrap_or_default() {
                let one = Param {
                    key: "seekpct",
                    item: super::reader::Item {
                        value: match &t {
                            Tok::Num(n) => n.to_string(),
                            Tok::Text(w) => w.clone(),
                            Tok::Percent(n) => format!("{n}%"),
                        },
                        ..p.item.clone()
                    },
                };
                match seekpct(&one, e, problems) {
                    Some(Seek::Random(s)) => values.push(s),
                    Some(Seek::Eof) => problems.push(
                        bad(
                            p,
                            e,
                            ImportErrorKind::Untranslatable,
                            "eof in a loop: a pass to the end of the area ends a run by size, not time",
                        )
                        .hint("give eof on a wd of its own rd"),
                    ),
                    None => {}
                }
            }
            out.push(Loop::Seek(values));
            continue;
        }
        let Some(n) = numbers(p, e, problems) else { continue };
        let whole_all = |n: &[f64], problems: &mut Vec<Problem>| -> Vec<u64> {
            let w: Vec<u64> = n.iter().filter_map(|v| whole(*v).filter(|v| *v > 0)).collect();
            if w.len() != n.len() {
                problems.push(bad(
                    p,
                    e,
                    ImportErrorKind::BadValue,
                    "whole numbers above 0 were expected (threads at most 65536, methodic's deepest queue)",
                ));
            }
            w
        };
        let l = match p.key {
            "forxfersize" => Loop::Xfer(whole_all(&n, problems)),
            // RD_entry.java:591-595: 0 threads run as 1.
            "forthreads" => {
                // Above methodic's deepest queue: not a value whole_all keeps.
                let t: Vec<f64> =
                    n.iter().map(|t| if *t > 65_536.0 { f64::NAN } else { t.max(1.0) }).collect();
                Loop::Threads(whole_all(&t, problems))
            }
            _ => {
                if n.iter().any(|r| !(0.0..=100.0).contains(r)) {
                    problems.push(bad(p, e, ImportErrorKind::BadValue, "shares from 0 to 100 were expected"));
                }
                Loop::Read(n)
            }
        };
        out.push(l);
    }
    (out, ratios)
}

/// The WDs as the run's loops leave them: a loop of one value is a plain
/// setting of every WD (and the threads of every SD); a loop of more
/// leaves the value to the loop. The threads an rd gives for every SD.
fn overrides(wds: &[Wd], loops: &mut Vec<Loop>) -> (Vec<Wd>, Option<u64>) {
    let mut wds = wds.to_vec();
    let mut threads = None;
    for l in loops.iter() {
        for w in &mut wds {
            match l {
                Loop::Xfer(v) if v.len() == 1 => w.sizes = vec![(v[0], 100.0)],
                // The loop decides: equal in every WD.
                Loop::Xfer(_) => w.sizes = Vec::new(),
                Loop::Threads(_) => {}
                Loop::Read(v) if v.len() == 1 => w.read = v[0],
                Loop::Read(_) => w.read = 0.0,
                Loop::Seek(v) if v.len() == 1 => w.seek = Seek::Random(v[0]),
                // Not a seek share: WDs on one SD are then never merged.
                Loop::Seek(_) => w.seek = Seek::Random(-1.0),
            }
            if matches!(l, Loop::Xfer(_)) {
                w.xfer_align = None;
            }
        }
        if let Loop::Threads(v) = l
            && v.len() == 1
        {
            threads = Some(v[0]);
        }
    }
    loops.retain(|l| match l {
        Loop::Xfer(v) | Loop::Threads(v) => v.len() > 1,
        Loop::Read(v) | Loop::Seek(v) => v.len() > 1,
    });
    (wds, threads)
}

/// Each WD's share of the run's rate (`HandleSkew.java:26-181`): its
/// `skew=`, and what is left shared equally by those without.
fn skews(e: &Entry, wds: &[Wd], rates: Option<&Rates>, problems: &mut Vec<Problem>) -> Vec<f64> {
    let given: f64 = wds.iter().filter_map(|w| w.skew).sum();
    let without = wds.iter().filter(|w| w.skew.is_none()).count();
    let rest = if without > 0 { (100.0 - given) / without as f64 } else { 0.0 };
    let shares: Vec<f64> = wds.iter().map(|w| w.skew.unwrap_or(rest)).collect();
    let total: f64 = shares.iter().sum();
    if !wds.is_empty() && ((total - 100.0).abs() > 0.0001 || shares.iter().any(|s| *s < 0.0)) {
        problems.push(
            Problem::new(
                ImportErrorKind::BadValue,
                e.line,
                format!("the skews of the run's wds add up to {total}%, not 100% (vdbench stops on it)"),
            )
            .place(e.place()),
        );
    }
    let max = match rates {
        Some(Rates::Each(v)) => v.contains(&None),
        Some(Rates::Curve(_)) => true,
        None => false,
    };
    if max && wds.iter().any(|w| w.skew.is_some()) && wds.len() > 1 {
        problems.push(
            Problem::new(ImportErrorKind::Untranslatable, e.line, "iorate=max with skew= is vdbench's controlled max: as fast as the slowest share allows, keeping the skew; methodic's closed-loop jobs each go as fast as they can")
                .place(e.place())
                .hint("give iorate= a number, or leave skew= out for each job at its own maximum"),
        );
    }
    shares
}

/// The run's jobs: a job a (WD, SD), WDs that share an SD merged into one
/// job where that is exact.
fn jobs(
    e: &Entry,
    wds: &[Wd],
    shares: &[f64],
    rates: Option<&Rates>,
    arrivals: &str,
    problems: &mut Vec<Problem>,
) -> Vec<Job> {
    let mut out: Vec<Job> = Vec::new();
    let mut merged: Vec<Vec<usize>> = Vec::new();
    for (i, w) in wds.iter().enumerate() {
        let count = w.sds.len().max(1) as f64;
        for &sd in &w.sds {
            let job = Job {
                name: if w.sds.len() > 1 { format!("{}_{}", w.name, sd + 1) } else { w.name.clone() },
                sd,
                share: shares[i] / count,
                sizes: w.sizes.clone(),
                read: w.read,
                seek: w.seek,
                align: w.xfer_align,
                range: w.range,
                hotband: w.hotband,
                bands: None,
                offset: 0,
                wds: vec![w.name.clone()],
            };
            match out.iter().position(|j| j.sd == sd) {
                None => {
                    out.push(job);
                    merged.push(vec![i]);
                }
                Some(k) => {
                    merge(e, &mut out[k], &job, wds, &merged[k], i, rates, arrivals, problems);
                    merged[k].push(i);
                }
            }
        }
    }
    out
}

/// A second WD on a job's SD, merged in when vdbench's run is exactly one
/// workload: both random, the same sizes and area, Poisson arrivals at a
/// set rate (two Poisson streams are one, each I/O of either kind by its
/// share), differing at most in their read share; otherwise refused.
#[allow(clippy::too_many_arguments)]
fn merge(
    e: &Entry,
    into: &mut Job,
    job: &Job,
    wds: &[Wd],
    earlier: &[usize],
    wd: usize,
    rates: Option<&Rates>,
    arrivals: &str,
    problems: &mut Vec<Problem>,
) {
    let first = &wds[earlier[0]];
    let same_sds = earlier.iter().all(|k| wds[*k].sds == wds[wd].sds);
    let rated = matches!(rates, Some(Rates::Each(v)) if !v.contains(&None));
    let exact = same_sds
        && rated
        && arrivals == "poisson"
        && into.seek == Seek::Random(100.0)
        && job.seek == Seek::Random(100.0)
        && into.sizes == job.sizes
        && into.range == job.range
        && into.hotband == job.hotband
        && into.align == job.align;
    if !exact {
        problems.push(
            Problem::new(
                ImportErrorKind::Conflict,
                e.line,
                format!(
                    "wd={} and wd={} share an sd: vdbench runs them through one queue of the sd's threads, which \
                     methodic can say only for random workloads of one size split and area, at a set rate with \
                     Poisson arrivals, that differ in their read share alone",
                    first.name, wds[wd].name
                ),
            )
            .place(e.place())
            .hint("give each wd an sd of its own (a together step runs a job per device), or make them differ only in rdpct="),
        );
        return;
    }
    let total = into.share + job.share;
    into.read = (into.read * into.share + job.read * job.share) / total;
    into.share = total;
    into.name = format!("{}_{}", into.name, wds[wd].name);
    into.wds.push(wds[wd].name.clone());
}

/// The run's io mode: RD beats WD beats SD flags; one mode for the run.
fn run_io(e: &Entry, wds: &[Wd], jobs: &[Job], sds: &[Sd], problems: &mut Vec<Problem>) -> Option<Io> {
    let mut io = None;
    for j in jobs {
        let sd = &sds[j.sd];
        let wd_flags = wds.iter().find(|w| w.sds.contains(&j.sd)).and_then(|w| w.openflags.as_ref());
        let flags = e.get("openflags").or(wd_flags).or(sd.openflags.as_ref());
        let this = io_mode(sd, flags, e, problems)?;
        if io.is_some_and(|io| io != this) {
            problems.push(
                Problem::new(
                    ImportErrorKind::Conflict,
                    e.line,
                    "the run opens some sds direct and others buffered; methodic sets one io mode a step",
                )
                .place(e.place())
                .hint("give every sd of the run the same openflags="),
            );
            return None;
        }
        io = Some(this);
    }
    io.or(Some(Io::Direct))
}
