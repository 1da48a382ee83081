//! Many drives ranked: for a paired measurement, the runs from the
//! highest value to the lowest, each with its ratio to the first run (the
//! baseline) and, where the step was repeated, the standard deviation of
//! its runs beside their aggregate; the words the terminal and the page
//! give each. The comparison (`super::rankings`) picks the measurements
//! and each run's value and name.

use schemars::JsonSchema;
use serde::Serialize;

/// One paired step's runs, ranked.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Ranking {
    /// The pair's label: `rnd4k_read (4KiB random, 100% read) QD 32`.
    pub label: String,
    /// `IOPS`, `MB/s`.
    pub unit: String,
    /// The value kind compared: `peak`, `step average`, `steady-state
    /// average`.
    pub value_kind: String,
    /// Highest first; a run with no value (failed, rate not kept) last,
    /// unranked.
    pub ranked: Vec<Ranked>,
}

/// A run's place in a ranking.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Ranked {
    /// From 1; none for a run with no value.
    pub rank: Option<usize>,
    /// The run, by its letter: `B`.
    pub run: String,
    /// Its drives by model and serial (`Samsung SSD 990 PRO 2TB, serial
    /// S7KHNJ0W123456`), else what `compare` names the run by.
    pub name: String,
    pub value: Option<f64>,
    /// Its value over the baseline's (the first run's).
    pub ratio: Option<f64>,
    /// A repeated step: the standard deviation of its runs' values, and
    /// how many runs; `value` is then the methodology's aggregate of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeats: Option<usize>,
}

/// A ranking of `entries` (a run each, its value, spread and name, in
/// the runs' order, the baseline first): each one's ratio to the
/// baseline, then highest first, ranked from 1; one with no value last,
/// unranked.
pub(super) fn ranked(label: String, unit: String, value_kind: String, mut entries: Vec<Ranked>) -> Ranking {
    let base = entries.first().and_then(|e| e.value).filter(|b| *b > 0.0);
    for e in &mut entries {
        e.ratio = e.value.zip(base).map(|(v, b)| v / b);
    }
    entries.sort_by(|a, b| match (a.value, b.value) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    for (k, e) in entries.iter_mut().enumerate() {
        e.rank = e.value.map(|_| k + 1);
    }
    Ranking { label, unit, value_kind, ranked: entries }
}

impl Ranked {
    /// `1,000`, or `no value`.
    pub(crate) fn value_text(&self) -> String {
        self.value.map_or("no value".to_string(), |v| crate::units::thousands(Some(v), 0))
    }

    /// `± 100 (3 runs)` for a repeated step, else nothing.
    pub(crate) fn spread_text(&self) -> String {
        match (self.sd, self.repeats) {
            (Some(sd), Some(n)) => format!("± {} ({n} runs)", crate::units::thousands(Some(sd), 0)),
            _ => String::new(),
        }
    }
}

impl Ranking {
    /// The ranking as the terminal prints it: a heading, then a line a
    /// run: its rank, letter, value (± its standard deviation over its
    /// repeats), ratio to A and name.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut out = vec![format!("{} ({}, {}), highest first:", self.label, self.unit, self.value_kind)];
        let cells: Vec<[String; 4]> = self
            .ranked
            .iter()
            .map(|e| {
                [
                    e.rank.map_or("-".to_string(), |r| r.to_string()),
                    e.value_text(),
                    e.spread_text(),
                    e.ratio.map_or("-".to_string(), |r| format!("{r:.2}x A")),
                ]
            })
            .collect();
        let width = |k: usize| cells.iter().map(|c| c[k].chars().count()).max().unwrap_or(0);
        let (w1, w2, w3) = (width(1), width(2), width(3));
        for (e, [rank, value, spread, ratio]) in self.ranked.iter().zip(&cells) {
            // The spread's column only where some run was repeated.
            let spread = if w2 == 0 { String::new() } else { format!("  {spread:<w2$}") };
            out.push(format!("  {rank:>3}  {}  {value:>w1$}{spread}  {ratio:>w3$}  {}", e.run, e.name));
        }
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::PathBuf;

    use methodic_compiler::plan::Aggregate;

    use crate::analysis::RepeatSummary;
    use crate::view::compare::comparison;
    use crate::view::testing::{of_source, rates, summary};

    /// A run of a measurement and a repeat of 3, on a drive of `model`,
    /// serial `SN{i}`: the measurement at `one` IOPS, the repeat's runs at
    /// `runs`.
    pub(crate) fn run(i: usize, model: &str, one: f64, runs: [f64; 3]) -> crate::manifest::Loaded {
        let src = "methodology \"r\" version \"1\"\nworkload w { random; block 4KiB; read 100% }\n\
                   measure w qd 1 for 1s\nrepeat 3 { measure w qd 4 for 1s }\n";
        let mut run = of_source(src, PathBuf::from(format!("/nonexistent/rank-{i}")));
        run.manifest.targets[0].identity.model = Some(model.into());
        run.manifest.targets[0].identity.serial = Some(format!("SN{i}"));
        for (r, iops) in run.steps.iter_mut().zip([one, runs[0], runs[1], runs[2]]) {
            r.summary = Some(summary(1.0, rates(iops, 1.0, [10.0, 20.0, 30.0, 40.0]), true));
        }
        run.steps[3].repeats = Some(spread(&runs));
        run
    }

    /// The three drives the comparison tests rank: the measurement at
    /// 1000, 1500 and 800 IOPS; the repeat's runs 500/600/700 (mean 600, sd
    /// 100), 400 three times, and 900/1000/1100 (mean 1000, sd 100).
    pub(crate) fn three_drives() -> [crate::manifest::Loaded; 3] {
        [
            run(0, "Drive A", 1000.0, [500.0, 600.0, 700.0]),
            run(1, "Drive B", 1500.0, [400.0, 400.0, 400.0]),
            run(2, "Drive C", 800.0, [900.0, 1000.0, 1100.0]),
        ]
    }

    /// A repeat's summary of `runs` (IOPS, their mean reported): the mean,
    /// the sample standard deviation and the median, as the runtime makes
    /// them.
    fn spread(runs: &[f64]) -> RepeatSummary {
        let n = runs.len() as f64;
        let mean = runs.iter().sum::<f64>() / n;
        let sd = (runs.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let mut sorted = runs.to_vec();
        sorted.sort_by(f64::total_cmp);
        let k = sorted.len() / 2;
        let median = if sorted.len() % 2 == 1 { sorted[k] } else { (sorted[k - 1] + sorted[k]) / 2.0 };
        RepeatSummary {
            runs: runs.to_vec(),
            unit: "IOPS".into(),
            mean,
            sd,
            median,
            cv: sd / mean,
            aggregate: Aggregate::Mean,
            value: mean,
            first_run_apart: false,
            warning: None,
            page_cache: None,
            until: None,
        }
    }

    /// Each paired measurement's runs, highest first, with ratios to A;
    /// a repeat ranked once, by the aggregate of its runs, with their
    /// standard deviation; each drive by model and serial.
    #[test]
    fn runs_are_ranked_highest_first_a_repeat_by_its_aggregate_and_spread() {
        let c = comparison(&three_drives());
        assert_eq!(c.rankings.len(), 2, "the measurement and the repeat, once");
        let order = |k: usize| c.rankings[k].ranked.iter().map(|e| e.run.clone()).collect::<Vec<_>>();
        assert_eq!(order(0), ["B", "A", "C"]);
        assert_eq!(order(1), ["C", "A", "B"]);
        let first = &c.rankings[0].ranked[0];
        assert_eq!((first.rank, first.value, first.ratio), (Some(1), Some(1500.0), Some(1.5)));
        assert_eq!(first.name, "Drive B, serial SN1");
        let top = &c.rankings[1].ranked[0];
        assert_eq!((top.value, top.repeats), (Some(1000.0), Some(3)));
        assert!((top.sd.unwrap() - 100.0).abs() < 1e-9 && (top.ratio.unwrap() - 1000.0 / 600.0).abs() < 1e-9);
        let lines = c.rankings[1].lines();
        assert_eq!(lines[1], "    1  C  1,000  ± 100 (3 runs)  1.67x A  Drive C, serial SN2", "{lines:?}");
    }

    /// A run of `repeat 2..4 until cv 5%` that stopped after `made` runs
    /// of these values: the runs not made have no record, each run from 2
    /// on holds a summary of the runs so far, the last made the final one.
    fn until_run(i: usize, values: &[f64]) -> crate::manifest::Loaded {
        use crate::analysis::SpreadCheck;
        let src = "methodology \"u\" version \"1\"\nworkload w { random; block 4KiB; read 100% }\n\
                   repeat 2..4 until cv 5% { measure w qd 4 for 1s }\n";
        let mut run = of_source(src, PathBuf::from(format!("/nonexistent/until-{i}")));
        run.manifest.targets[0].identity.model = Some(format!("Drive {i}"));
        run.steps.truncate(values.len());
        for (k, r) in run.steps.iter_mut().enumerate() {
            r.summary = Some(summary(1.0, rates(values[k], 1.0, [10.0, 20.0, 30.0, 40.0]), true));
            let so_far = &values[..=k];
            if so_far.len() < 2 {
                continue;
            }
            let mut rep = spread(so_far);
            rep.until = Some(SpreadCheck {
                planned: 4,
                ran: so_far.len() as u32,
                min_runs: 2,
                limit: methodic_compiler::plan::Percent::from_hundredths(500),
                met: rep.cv <= 0.05,
            });
            r.repeats = Some(rep);
        }
        run
    }

    /// Three drives whose repeats `until cv` stopped after 2, 3 and 4 runs:
    /// each is ranked once, by the mean of the runs it made.
    #[test]
    fn a_repeat_until_cv_is_ranked_where_each_run_stopped() {
        let runs = [
            until_run(0, &[1000.0, 1010.0]),
            until_run(1, &[2000.0, 1500.0, 1520.0]),
            until_run(2, &[500.0, 900.0, 700.0, 710.0]),
        ];
        let c = comparison(&runs);
        assert_eq!(c.rankings.len(), 1, "{:?}", c.rankings);
        let r = &c.rankings[0].ranked;
        let seen: Vec<(String, Option<usize>)> = r.iter().map(|e| (e.run.clone(), e.repeats)).collect();
        assert_eq!(seen, [("B".into(), Some(3)), ("A".into(), Some(2)), ("C".into(), Some(4))]);
        assert!((r[0].value.unwrap() - 5020.0 / 3.0).abs() < 1e-9, "B's mean of its 3 runs");
        assert!((r[1].value.unwrap() - 1005.0).abs() < 1e-9);
        assert!((r[2].value.unwrap() - 702.5).abs() < 1e-9);
    }
}
