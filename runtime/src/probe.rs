//! The flash page-size probe: a probe's settings and a target go in; every
//! offset's write latency comes out, as the chosen statistic of its
//! repeats, written as CSV (offset, latency), and the page size those
//! latencies point at. Each write is made durable: with O_DIRECT where the
//! plan uses it and the offset is aligned, else buffered and followed by
//! fdatasync, which sub-sector offsets need.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use methodic_compiler::plan::{Aggregate, Probe};
use serde::{Deserialize, Serialize};

use crate::data::Buffers;
use crate::error::{Error, Result};
use crate::rng::Rng;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeResult {
    pub offsets: u64,
    pub repeats: u32,
    /// How each write was made durable: O_DIRECT, or fdatasync.
    pub durable: String,
    /// Over the offsets' kept values, in microseconds.
    pub min_us: f64,
    pub median_us: f64,
    pub max_us: f64,
    /// The page size the latencies point at, or why none was found.
    #[serde(default)]
    pub pages: Option<crate::analysis::pages::PageEstimate>,
}

/// Runs the probe from `start` on a target, and writes
/// `offset_bytes,latency_us,min_us,max_us` rows to `csv`. Each write is
/// made durable the same way: with O_DIRECT when `direct` is given (the
/// caller checked that every offset and the size are aligned to `align`),
/// else through the page cache with fdatasync.
pub fn run(
    p: &Probe,
    direct: Option<&File>,
    buffered: &File,
    align: u64,
    start: u64,
    csv: &Path,
    stop: &AtomicBool,
) -> Result<ProbeResult> {
    let mut buffers = Buffers::new(1, p.io.0 as usize);
    Rng::new(0x9a9e).fill(buffers.slot(0));
    let offsets = p.offsets as usize;
    let mut samples: Vec<Vec<u64>> = vec![Vec::with_capacity(p.repeats as usize); offsets];
    'outer: for _ in 0..p.repeats {
        for (k, times) in samples.iter_mut().enumerate() {
            if stop.load(Ordering::Relaxed) {
                break 'outer;
            }
            let offset = start + k as u64 * p.step.0;
            let buf = &buffers.slot(0)[..p.io.0 as usize];
            let t = Instant::now();
            match direct {
                Some(f) => f.write_all_at(buf, offset),
                None => buffered.write_all_at(buf, offset).and_then(|()| buffered.sync_data()),
            }
            .map_err(|e| Error::io(format!("probe write at offset {offset}"), e))?;
            times.push(t.elapsed().as_nanos() as u64);
        }
    }
    let mut out = BufWriter::new(
        File::create(csv).map_err(|e| Error::io(format!("cannot create {}", csv.display()), e))?,
    );
    let write = |out: &mut BufWriter<File>, line: String| {
        out.write_all(line.as_bytes()).map_err(|e| Error::io(format!("cannot write {}", csv.display()), e))
    };
    write(&mut out, "offset_bytes,latency_us,min_us,max_us\n".to_string())?;
    let mut kept = Vec::with_capacity(offsets);
    let mut series: (Vec<u64>, Vec<f64>) = (Vec::with_capacity(offsets), Vec::with_capacity(offsets));
    for (k, times) in samples.iter_mut().enumerate() {
        if times.is_empty() {
            continue;
        }
        times.sort_unstable();
        let value = statistic(times, p.statistic);
        kept.push(value);
        series.0.push(k as u64 * p.step.0);
        series.1.push(value / 1000.0);
        write(
            &mut out,
            format!(
                "{},{:.3},{:.3},{:.3}\n",
                k as u64 * p.step.0,
                value / 1000.0,
                times[0] as f64 / 1000.0,
                times[times.len() - 1] as f64 / 1000.0
            ),
        )?;
    }
    out.flush().map_err(|e| Error::io(format!("cannot write {}", csv.display()), e))?;
    kept.sort_by(f64::total_cmp);
    let pick =
        |q: f64| kept.get(((kept.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(0.0) / 1000.0;
    Ok(ProbeResult {
        offsets: p.offsets,
        repeats: p.repeats,
        durable: if direct.is_some() {
            format!("O_DIRECT (every offset aligned to {align} B)")
        } else {
            "fdatasync".into()
        },
        min_us: pick(0.0),
        median_us: pick(0.5),
        max_us: pick(1.0),
        pages: Some(crate::analysis::pages::estimate(&series.0, &series.1, p.io.0, p.step.0)),
    })
}

/// The statistic of sorted samples, in nanoseconds.
fn statistic(sorted: &[u64], a: Aggregate) -> f64 {
    match a {
        Aggregate::Min => sorted[0] as f64,
        Aggregate::Max => sorted[sorted.len() - 1] as f64,
        Aggregate::Mean => sorted.iter().sum::<u64>() as f64 / sorted.len() as f64,
        Aggregate::Median => {
            let n = sorted.len();
            if n % 2 == 1 { sorted[n / 2] as f64 } else { (sorted[n / 2 - 1] + sorted[n / 2]) as f64 / 2.0 }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::OpenOptionsExt;

    use methodic_compiler::plan::Bytes;

    use super::*;

    #[test]
    fn statistics_of_samples() {
        assert_eq!(statistic(&[1, 2, 9], Aggregate::Median), 2.0);
        assert_eq!(statistic(&[1, 2, 4, 9], Aggregate::Median), 3.0);
        assert_eq!(statistic(&[1, 2, 9], Aggregate::Mean), 4.0);
        assert_eq!(statistic(&[1, 2, 9], Aggregate::Max), 9.0);
    }

    #[test]
    fn a_small_probe_writes_a_row_per_offset() {
        let dir = std::env::temp_dir().join(format!("methodic-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(dir.join("t"))
            .unwrap();
        let p = Probe {
            io: Bytes(512),
            step: Bytes(256),
            range: Bytes(4096),
            repeats: 3,
            statistic: Aggregate::Median,
            offsets: 15,
        };
        let r = run(&p, None, &file, 512, 0, &dir.join("p.csv"), &AtomicBool::new(false)).unwrap();
        assert_eq!((r.offsets, r.repeats, r.durable.as_str()), (15, 3, "fdatasync"));
        let csv = std::fs::read_to_string(dir.join("p.csv")).unwrap();
        assert_eq!(csv.lines().count(), 16);
        assert!(csv.lines().nth(2).unwrap().starts_with("256,"));
        assert!(r.min_us > 0.0 && r.min_us <= r.median_us && r.median_us <= r.max_us);
        // With O_DIRECT, at offsets a sector apart.
        let direct = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_DIRECT)
            .open(dir.join("t"));
        if let Ok(direct) = direct {
            let q = Probe { step: Bytes(512), offsets: 7, ..p };
            let r =
                run(&q, Some(&direct), &file, 512, 0, &dir.join("q.csv"), &AtomicBool::new(false)).unwrap();
            assert!(r.durable.starts_with("O_DIRECT"), "{}", r.durable);
            assert_eq!(std::fs::read_to_string(dir.join("q.csv")).unwrap().lines().count(), 8);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
