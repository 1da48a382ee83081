//! A page probe's latencies: a row an offset probed, written to the
//! probe step's `series/<step-id>.csv` once the probe ends
//! (`crate::csv_file`), and read back by the report's chart of write
//! latency by offset (`view::report::charts::probes`). The latencies are
//! of each offset's writes, each followed by fdatasync: the statistic the
//! probe asked for over its repeats, and the fastest and slowest of them.

use methodic_compiler::plan::Bytes;

use crate::csv_file::Line;

/// One offset probed: a row of the probe's CSV.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// From the probe's start on the target.
    pub offset: Bytes,
    /// The probe's statistic (median, mean, ...) of the offset's writes.
    pub latency_us: f64,
    pub min_us: f64,
    pub max_us: f64,
}

/// The header of a probe's CSV.
pub const HEADER: &str = "offset_bytes,latency_us,min_us,max_us";

impl Line for Row {
    const HEADER: &'static str = HEADER;
    const FILE: &'static str = "a methodic page probe's latencies";
    const ROW: &'static str = "a row of an offset";

    fn csv_line(&self) -> String {
        format!("{},{:.3},{:.3},{:.3}", self.offset.0, self.latency_us, self.min_us, self.max_us)
    }

    fn parse(line: &str, _before: Option<&Row>) -> Option<Row> {
        let f: Vec<&str> = line.split(',').collect();
        let [offset, latency, min, max] = f[..] else { return None };
        Some(Row {
            offset: Bytes(offset.parse().ok()?),
            latency_us: latency.parse().ok()?,
            min_us: min.parse().ok()?,
            max_us: max.parse().ok()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::csv_file::{Writer, read};

    #[test]
    fn offsets_written_read_back() {
        let p = std::env::temp_dir().join(format!("methodic-results-probe-{}.csv", std::process::id()));
        let rows = [
            Row { offset: Bytes(0), latency_us: 404.125, min_us: 296.75, max_us: 511.5 },
            Row { offset: Bytes(512), latency_us: 179.875, min_us: 128.5, max_us: 231.25 },
        ];
        let mut w = Writer::<Row>::create(&p).unwrap();
        for r in &rows {
            w.row(r).unwrap();
        }
        drop(w);
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            format!("{HEADER}\n0,404.125,296.750,511.500\n512,179.875,128.500,231.250\n")
        );
        assert_eq!(read::<Row>(&p).unwrap(), rows);
        assert_eq!(Row::parse("-1,1,1,1", None), None, "an offset before the start");
        assert_eq!(Row::parse("0,1,1", None), None);
        std::fs::remove_file(&p).unwrap();
    }

    /// What methodic 0.1.0's runtime wrote, byte for byte.
    #[test]
    fn a_probe_the_runtime_wrote_still_reads() {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/runtime-0.1.0/probe-pages.csv");
        let rows = read::<Row>(&p).unwrap();
        assert_eq!(rows.len(), 31);
        assert_eq!(rows[0], Row { offset: Bytes(0), latency_us: 404.125, min_us: 296.741, max_us: 511.51 });
        assert_eq!(rows[1].offset, Bytes(512));
    }
}
