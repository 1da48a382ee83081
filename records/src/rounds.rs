//! A steady-state loop's rounds, written to `series/<step-id>.rounds.csv`
//! a row at a time as each round ends (`crate::csv_file`): a rounds
//! step's [`CellRound`], a cell's numbers in a round, which
//! `view::report::pts` draws the convergence of a rounds step from; and a
//! precondition until steady's [`SteadyRound`], the tracked value of a
//! round and the window checked after it. One type writes and reads each
//! layout; rounds written before a rounds step's p99.99 and maximum
//! latency columns read back without them.

use methodic_compiler::plan::Metric;

use crate::analysis::Window;
use crate::csv_file::Line;
use crate::numbers::Summary;

/// A cell's numbers in one round of a rounds step: a row of its rounds
/// CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct CellRound {
    /// From 1.
    pub round: u32,
    /// From 1, in the plan's order of the step's cells.
    pub cell: u32,
    /// The cell's workload by name; a comma in it is written as `;`.
    pub workload: String,
    /// The cell's total queue depth.
    pub qd: u32,
    pub iops: f64,
    pub mb_s: f64,
    pub mean_latency_us: f64,
    pub p99_latency_us: f64,
    /// `None` in rounds written before the column.
    pub p99_99_latency_us: Option<f64>,
    /// `None` in rounds written before the column.
    pub max_latency_us: Option<f64>,
}

/// The header of a rounds step's rounds.
pub const CELLS_HEADER: &str =
    "round,cell,workload,qd,iops,mb_s,mean_latency_us,p99_latency_us,p99_99_latency_us,max_latency_us";

/// The header of a rounds step's rounds before the p99.99 and maximum
/// latency columns.
const CELLS_HEADER_BEFORE_TAIL: &str = "round,cell,workload,qd,iops,mb_s,mean_latency_us,p99_latency_us";

impl CellRound {
    /// Cell `cell` (from 1) of workload `workload` at total queue depth
    /// `qd`, in round `round`: its numbers from the round's summary.
    pub fn of(round: u32, cell: u32, workload: &str, qd: u32, s: &Summary) -> CellRound {
        let l = &s.total.latency_us;
        CellRound {
            round,
            cell,
            workload: workload.to_string(),
            qd,
            iops: s.total.iops,
            mb_s: s.total.mb_s,
            mean_latency_us: l.mean,
            p99_latency_us: l.p99,
            p99_99_latency_us: Some(l.p99_99),
            max_latency_us: Some(l.max),
        }
    }

    /// The metric as the runtime records it (bandwidth in MB/s).
    pub fn value(&self, metric: Metric) -> f64 {
        match metric {
            Metric::Iops => self.iops,
            Metric::Bandwidth => self.mb_s,
            Metric::Latency => self.mean_latency_us,
        }
    }
}

impl Line for CellRound {
    const HEADER: &'static str = CELLS_HEADER;
    const OLDER_HEADERS: &'static [&'static str] = &[CELLS_HEADER_BEFORE_TAIL];
    const FILE: &'static str = "a methodic rounds record of cells";
    const ROW: &'static str = "a row of a cell in a round";

    fn csv_line(&self) -> String {
        let tail = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.2}"));
        format!(
            "{},{},{},{},{:.1},{:.3},{:.2},{:.2},{},{}",
            self.round,
            self.cell,
            self.workload.replace(',', ";"),
            self.qd,
            self.iops,
            self.mb_s,
            self.mean_latency_us,
            self.p99_latency_us,
            tail(self.p99_99_latency_us),
            tail(self.max_latency_us)
        )
    }

    fn parse(line: &str, _before: Option<&CellRound>) -> Option<CellRound> {
        let f: Vec<&str> = line.split(',').collect();
        let (tail_99_99, tail_max) = match f.len() {
            10 => (optional(f[8])?, optional(f[9])?),
            8 => (None, None),
            _ => return None,
        };
        let number = |i: usize| f[i].parse::<f64>().ok();
        Some(CellRound {
            round: f[0].parse().ok()?,
            cell: f[1].parse().ok()?,
            workload: f[2].to_string(),
            qd: f[3].parse().ok()?,
            iops: number(4)?,
            mb_s: number(5)?,
            mean_latency_us: number(6)?,
            p99_latency_us: number(7)?,
            p99_99_latency_us: tail_99_99,
            max_latency_us: tail_max,
        })
    }
}

/// An empty cell as `None`, a number as itself; `None` (the line does not
/// read) for anything else.
fn optional(cell: &str) -> Option<Option<f64>> {
    if cell.is_empty() { Some(None) } else { cell.parse().ok().map(Some) }
}

/// One round of a precondition until steady: a row of its rounds CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyRound {
    /// From 1.
    pub round: u32,
    /// The tracked metric in the round, as the runtime records it (IOPS,
    /// MB/s or mean latency in µs).
    pub value: f64,
    /// The window checked after the round; `None` before there were
    /// rounds enough for one.
    pub window: Option<Checked>,
}

/// The window a steady-state rule checked after a round: its average,
/// data excursion and slope excursion against their limits (as
/// [`Window`] has them), and whether they held.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Checked {
    pub average: f64,
    pub range: f64,
    pub range_limit: f64,
    pub change: f64,
    pub change_limit: f64,
    pub steady: bool,
}

/// The header of a precondition until steady's rounds.
pub const STEADY_HEADER: &str = "round,value,window_average,range,range_limit,change,change_limit,steady";

impl SteadyRound {
    /// Round `round`, whose tracked metric was `value`, and the window
    /// checked after it (if there was one).
    pub fn new(round: u32, value: f64, window: Option<&Window>) -> SteadyRound {
        SteadyRound {
            round,
            value,
            window: window.map(|w| Checked {
                average: w.average,
                range: w.range,
                range_limit: w.range_limit,
                change: w.change,
                change_limit: w.change_limit,
                steady: w.steady,
            }),
        }
    }
}

impl Line for SteadyRound {
    const HEADER: &'static str = STEADY_HEADER;
    const FILE: &'static str = "a methodic rounds record of a precondition";
    const ROW: &'static str = "a row of a round";

    fn csv_line(&self) -> String {
        let (round, value) = (self.round, self.value);
        match &self.window {
            Some(w) => format!(
                "{round},{value:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{}",
                w.average, w.range, w.range_limit, w.change, w.change_limit, w.steady
            ),
            None => format!("{round},{value:.3},,,,,,false"),
        }
    }

    fn parse(line: &str, _before: Option<&SteadyRound>) -> Option<SteadyRound> {
        let f: Vec<&str> = line.split(',').collect();
        let [round, value, average, range, range_limit, change, change_limit, steady] = f[..] else {
            return None;
        };
        let steady: bool = steady.parse().ok()?;
        let numbers = [average, range, range_limit, change, change_limit];
        let window = if numbers.iter().all(|n| n.is_empty()) && !steady {
            None
        } else {
            let n: Vec<f64> = numbers.iter().map(|n| n.parse().ok()).collect::<Option<_>>()?;
            Some(Checked {
                average: n[0],
                range: n[1],
                range_limit: n[2],
                change: n[3],
                change_limit: n[4],
                steady,
            })
        };
        Some(SteadyRound { round: round.parse().ok()?, value: value.parse().ok()?, window })
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::csv_file::{Writer, read};

    fn testdata(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/runtime-0.1.0").join(name)
    }

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("methodic-results-rounds-{}-{name}", std::process::id()))
    }

    /// A value that the file's decimals keep whole.
    fn cell(round: u32, cell: u32, tail: bool) -> CellRound {
        CellRound {
            round,
            cell,
            workload: "rnd4k_write".into(),
            qd: 4,
            iops: 1476.5,
            mb_s: 6.048,
            mean_latency_us: 2431.25,
            p99_latency_us: 60030.5,
            p99_99_latency_us: tail.then_some(118_161.25),
            max_latency_us: tail.then_some(118_161.75),
        }
    }

    #[test]
    fn cells_written_read_back() {
        let p = temp("cells.csv");
        let rows = [cell(1, 1, true), cell(1, 2, true), cell(2, 1, false)];
        let mut w = Writer::<CellRound>::create(&p).unwrap();
        for r in &rows {
            w.row(r).unwrap();
        }
        drop(w);
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            text.lines().nth(1),
            Some("1,1,rnd4k_write,4,1476.5,6.048,2431.25,60030.50,118161.25,118161.75")
        );
        assert_eq!(text.lines().nth(3), Some("2,1,rnd4k_write,4,1476.5,6.048,2431.25,60030.50,,"));
        assert_eq!(read::<CellRound>(&p).unwrap(), rows);
        // A comma in a workload's name would split its row: it is written
        // as `;`, and reads back so.
        let odd = CellRound { workload: "a,b".into(), ..cell(1, 1, true) };
        let back = CellRound::parse(&odd.csv_line(), None).unwrap();
        assert_eq!(back, CellRound { workload: "a;b".into(), ..odd });
        assert_eq!(CellRound::parse("1,1,w,4,1,2,3,4,x,", None), None, "a latency that is no number");
        assert_eq!((back.value(Metric::Iops), back.value(Metric::Bandwidth)), (1476.5, 6.048));
        assert_eq!(back.value(Metric::Latency), 2431.25);
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn steady_rounds_written_read_back() {
        let p = temp("steady.csv");
        let window = Window {
            first: 1,
            last: 2,
            average: 12748.5,
            range: 23537.75,
            range_limit: 2549.625,
            slope: -23537.75,
            change: 23537.75,
            change_limit: 1274.875,
            steady: false,
        };
        let rows = [
            SteadyRound::new(1, 24517.375, None),
            SteadyRound::new(2, 979.5, Some(&window)),
            SteadyRound::new(3, 1000.0, Some(&Window { steady: true, ..window })),
        ];
        let mut w = Writer::<SteadyRound>::create(&p).unwrap();
        for r in &rows {
            w.row(r).unwrap();
        }
        drop(w);
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text.lines().nth(1), Some("1,24517.375,,,,,,false"));
        assert_eq!(
            text.lines().nth(3),
            Some("3,1000.000,12748.500,23537.750,2549.625,23537.750,1274.875,true")
        );
        assert_eq!(read::<SteadyRound>(&p).unwrap(), rows);
        assert_eq!(SteadyRound::parse("1,5.0,,,,,,true", None), None, "steady without a window");
        assert_eq!(SteadyRound::parse("1,5.0,1,2,3,4,5,maybe", None), None);
        std::fs::remove_file(&p).unwrap();
    }

    /// What methodic 0.1.0's runtime wrote, byte for byte: a rounds step's
    /// rounds and a precondition until steady's; and a rounds step's
    /// rounds from before the p99.99 and maximum latency columns.
    #[test]
    fn rounds_the_runtime_wrote_still_read() {
        let cells = read::<CellRound>(&testdata("rounds-rnd4k_write.rounds.csv")).unwrap();
        assert_eq!(cells.len(), 4, "two cells, two rounds");
        assert_eq!(
            (cells[1].round, cells[1].cell, cells[1].workload.as_str(), cells[1].qd, cells[1].iops),
            (1, 2, "rnd4k_read", 4, 623.0)
        );
        assert_eq!((cells[3].p99_99_latency_us, cells[3].max_latency_us), (Some(260964.35), Some(260964.35)));
        let steady = read::<SteadyRound>(&testdata("precondition-rnd4k_write-qd4.rounds.csv")).unwrap();
        assert_eq!(steady.len(), 2);
        assert_eq!((steady[0].round, steady[0].value, steady[0].window), (1, 24517.407, None));
        let w = steady[1].window.unwrap();
        assert_eq!((w.average, w.range_limit, w.steady), (12748.499, 2549.7, false));

        let p = temp("older.csv");
        std::fs::write(
            &p,
            "round,cell,workload,qd,iops,mb_s,mean_latency_us,p99_latency_us\n1,1,rnd4k_write,4,1476.6,6.048,2431.26,60030.97\n",
        )
        .unwrap();
        let older = read::<CellRound>(&p).unwrap();
        assert_eq!(
            (older[0].iops, older[0].p99_99_latency_us, older[0].max_latency_us),
            (1476.6, None, None)
        );
        std::fs::remove_file(&p).unwrap();
    }
}
