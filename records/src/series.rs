//! A step's series: one row a series interval, written to
//! `series/<step-id>.csv` as the step runs and read back by `report` and
//! the analyses. One type writes and reads the row, so the file has one
//! layout and one arithmetic. The last column, the drive's temperature, is
//! empty when the target has none to read (a file, a loop device); series
//! written before it was added read back without it.

use std::fmt::Write as _;
use std::path::Path;

use crate::csv_file::{self, Line};
use crate::error::Result;

/// One interval of fio's per-interval logs, added up over the jobs,
/// clones and hosts whose logs fall in it: what both readers of fio's logs
/// (a run on many hosts, an imported fio result) make their rows of.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct FioInterval {
    /// IOPS by direction (fio's 0 read, 1 write, 2 trim).
    pub iops: [f64; 3],
    /// fio's bandwidth logs' KiB/s.
    pub kib_s: f64,
    /// Completion latency in nanoseconds times the I/Os it is weighted by,
    /// and those I/Os.
    pub lat_weighted_ns: f64,
    pub lat_ios: f64,
}

impl FioInterval {
    /// The rows of intervals numbered from the first (`k` ends at `k`
    /// intervals of `interval_ms`): IOPS added up, bandwidth in MB/s, the
    /// latency's weighted mean; fio logs no percentile an interval, so
    /// `p99_latency_us` is NaN, as is the mean where no I/O weighs it.
    pub fn rows(at: std::collections::BTreeMap<u64, FioInterval>, interval_ms: u64) -> Vec<Row> {
        let seconds = interval_ms as f64 / 1000.0;
        at.into_iter()
            .map(|(k, s)| Row {
                t: k as f64 * seconds,
                seconds,
                iops: s.iops.iter().sum(),
                read_iops: s.iops[0],
                write_iops: s.iops[1],
                mb_s: s.kib_s * 1024.0 / 1e6,
                mean_latency_us: if s.lat_ios > 0.0 {
                    s.lat_weighted_ns / s.lat_ios / 1000.0
                } else {
                    f64::NAN
                },
                p99_latency_us: f64::NAN,
                temperature_c: None,
            })
            .collect()
    }
}

/// A row of the series, as written to CSV and kept for steady-state rounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// Seconds from the start of recording to the end of the interval.
    pub t: f64,
    /// How long the interval lasted: the series interval, or less for a
    /// last interval cut short.
    pub seconds: f64,
    pub iops: f64,
    pub read_iops: f64,
    pub write_iops: f64,
    pub mb_s: f64,
    pub mean_latency_us: f64,
    pub p99_latency_us: f64,
    /// The drive's temperature read at the end of the interval, °C (the
    /// hottest of the step's drives); `None` when none could be read.
    pub temperature_c: Option<f64>,
}

pub const HEADER: &str =
    "t_s,iops,read_iops,write_iops,mb_s,mib_s,mean_latency_us,p99_latency_us,temperature_c";

/// The header of series written before the temperature column.
const HEADER_BEFORE_TEMPERATURE: &str =
    "t_s,iops,read_iops,write_iops,mb_s,mib_s,mean_latency_us,p99_latency_us";

impl Row {
    /// Binary mebibytes a second.
    pub fn mib_s(&self) -> f64 {
        self.mb_s * 1e6 / 1_048_576.0
    }

    /// The row as a line of the CSV (under [`HEADER`]), without the end
    /// of line.
    pub fn csv_line(&self) -> String {
        let mut s = String::with_capacity(64);
        let _ = write!(
            s,
            "{:.3},{:.1},{:.1},{:.1},{:.3},{:.3},{:.2},{:.2},",
            self.t,
            self.iops,
            self.read_iops,
            self.write_iops,
            self.mb_s,
            self.mib_s(),
            self.mean_latency_us,
            self.p99_latency_us
        );
        if let Some(c) = self.temperature_c {
            let _ = write!(s, "{c:.0}");
        }
        s
    }

    /// Reads a line of the CSV, with or without the temperature column
    /// (empty or absent: `None`); `previous_t` is the row before's `t` (0
    /// for the first), as the file keeps no interval length.
    pub fn parse(line: &str, previous_t: f64) -> Option<Row> {
        let mut cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let temperature_c = match cells.len() {
            9 => match cells.pop()? {
                "" => None,
                c => Some(c.parse().ok()?),
            },
            _ => None,
        };
        let f: Vec<f64> = cells.iter().map(|x| x.parse().ok()).collect::<Option<_>>()?;
        let [t, iops, read_iops, write_iops, mb_s, _mib_s, mean_latency_us, p99_latency_us] = f[..] else {
            return None;
        };
        Some(Row {
            t,
            seconds: t - previous_t,
            iops,
            read_iops,
            write_iops,
            mb_s,
            mean_latency_us,
            p99_latency_us,
            temperature_c,
        })
    }

    /// The value of a column of [`HEADER`] by its name (`None` for an
    /// unknown name, and for a temperature not read).
    pub fn column(&self, name: &str) -> Option<f64> {
        Some(match name {
            "t_s" => self.t,
            "iops" => self.iops,
            "read_iops" => self.read_iops,
            "write_iops" => self.write_iops,
            "mb_s" => self.mb_s,
            "mib_s" => self.mib_s(),
            "mean_latency_us" => self.mean_latency_us,
            "p99_latency_us" => self.p99_latency_us,
            "temperature_c" => return self.temperature_c,
            _ => return None,
        })
    }
}

/// A series CSV, a row a line: written by the runtime's collector (with
/// [`HEADER`] and [`Row::csv_line`]) or by [`csv_file::Writer`].
impl Line for Row {
    const HEADER: &'static str = HEADER;
    const OLDER_HEADERS: &'static [&'static str] = &[HEADER_BEFORE_TEMPERATURE];
    const FILE: &'static str = "a methodic series";
    const ROW: &'static str = "a series row";

    fn csv_line(&self) -> String {
        Row::csv_line(self)
    }

    fn parse(line: &str, before: Option<&Row>) -> Option<Row> {
        Row::parse(line, before.map_or(0.0, |r| r.t))
    }
}

/// Reads a series CSV: its rows in order. A file whose head is not
/// [`HEADER`] (or the header before the temperature column), or with a
/// line that does not read (a row cut off by a crash among them), is
/// refused, saying where.
pub fn read(path: &Path) -> Result<Vec<Row>> {
    csv_file::read(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `csv_line` writes, `parse` reads back to the precision written.
    #[test]
    fn a_row_written_reads_back() {
        let row = Row {
            t: 2.0,
            seconds: 1.0,
            iops: 1234.5,
            read_iops: 1000.0,
            write_iops: 234.5,
            mb_s: 5.056,
            mean_latency_us: 81.25,
            p99_latency_us: 250.5,
            temperature_c: None,
        };
        let line = row.csv_line();
        assert_eq!(line, "2.000,1234.5,1000.0,234.5,5.056,4.822,81.25,250.50,");
        assert_eq!(Row::parse(&line, 1.0), Some(row));
        let hot = Row { temperature_c: Some(51.0), ..row };
        assert_eq!(hot.csv_line(), "2.000,1234.5,1000.0,234.5,5.056,4.822,81.25,250.50,51");
        assert_eq!(Row::parse(&hot.csv_line(), 1.0), Some(hot));
        assert_eq!(hot.column("temperature_c"), Some(51.0));
        assert_eq!(row.column("temperature_c"), None);
        // A line from before the temperature column.
        assert_eq!(Row::parse("2.000,1234.5,1000.0,234.5,5.056,4.822,81.25,250.50", 1.0), Some(row));
        assert_eq!(Row::parse(&format!("{line}x"), 1.0), None, "a temperature that is no number");
        assert_eq!(row.column("mib_s").map(|v| (v * 1000.0).round()), Some(4822.0));
        assert_eq!(row.column("nope"), None);
        assert_eq!(Row::parse("1,2,3", 0.0), None);
    }

    #[test]
    fn a_series_file_reads_back_and_a_cut_line_is_refused() {
        let dir = std::env::temp_dir().join(format!("methodic-results-series-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("s.csv");
        let rows = "1.000,100,100,0,1,1,10,20,40\n2.000,200,0,200,2,2,10,20,\n";
        std::fs::write(&p, format!("{HEADER}\n{rows}")).unwrap();
        let back = read(&p).unwrap();
        assert_eq!(
            back.iter().map(|r| (r.t, r.seconds, r.iops, r.temperature_c)).collect::<Vec<_>>(),
            [(1.0, 1.0, 100.0, Some(40.0)), (2.0, 1.0, 200.0, None)]
        );
        // Rows written through the writer read back as they were.
        let mut w = csv_file::Writer::<Row>::create(&p).unwrap();
        for r in &back {
            w.row(r).unwrap();
        }
        drop(w);
        assert_eq!(read(&p).unwrap(), back);
        // A row cut off by a crash: the file says where it ends.
        std::fs::write(&p, format!("{HEADER}\n{rows}3.0,1")).unwrap();
        let e = read(&p).unwrap_err().to_string();
        assert!(e.ends_with("ends part way through line 4, `3.0,1`"), "{e}");
        // A series written before the temperature column reads back.
        std::fs::write(&p, format!("{HEADER_BEFORE_TEMPERATURE}\n1.000,100,100,0,1,1,10,20\n")).unwrap();
        let rows = read(&p).unwrap();
        assert_eq!(rows.iter().map(|r| (r.iops, r.temperature_c)).collect::<Vec<_>>(), [(100.0, None)]);
        std::fs::write(&p, "a,b\n1,2\n").unwrap();
        assert!(read(&p).unwrap_err().to_string().contains("is not a methodic series"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// What methodic 0.1.0's runtime wrote, byte for byte: a fill's
    /// series (one interval) and a precondition until steady's (a row a
    /// round, one after another).
    #[test]
    fn series_the_runtime_wrote_still_read() {
        let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/runtime-0.1.0");
        let fill = read(&testdata.join("fill-rnd4k_write.csv")).unwrap();
        assert_eq!(fill.len(), 1);
        assert_eq!(
            (fill[0].t, fill[0].iops, fill[0].p99_latency_us, fill[0].temperature_c),
            (0.065, 63105.2, 627.2, None)
        );
        let rounds = read(&testdata.join("precondition-rnd4k_write-qd4.csv")).unwrap();
        assert_eq!(
            rounds.iter().map(|r| (r.t, r.iops)).collect::<Vec<_>>(),
            [(0.833, 24517.4), (1.666, 979.6)]
        );
        assert!((rounds[1].seconds - 0.833).abs() < 1e-9);
    }
}
