//! The flash page-size probe: a probe's settings and a route to the
//! target go in; every probed offset's write latency comes out, as the
//! chosen statistic of its repeats, written as CSV (a row an offset,
//! `methodic_results::probe::Row`), with the page size those latencies
//! point at and a note saying what reached the device. Each write is
//! followed by fdatasync, as "Microbenchmarking Flash Drives" synced each
//! one. With O_DIRECT a write reaches the device as written, but only in
//! whole logical blocks: the write is rounded up to one, and offsets
//! between blocks are not probed. Through the page cache every write
//! reaches the device as whole pages of the page cache, so steps below a
//! page never reach it as such: the note says so, and the page-size
//! estimate uses only offsets that are multiples of a page.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use methodic_compiler::plan::{Aggregate, Bytes, Probe};
use methodic_results::csv_file::Writer;
use methodic_results::probe;

use crate::analysis::pages::kib;
use crate::data::Buffers;
use crate::error::{Error, Result};
use crate::rng::Rng;
use methodic_results::record::ProbeResult;

/// How the probe's writes reach the target.
pub struct Route<'a> {
    pub file: &'a File,
    /// `file` was opened with O_DIRECT.
    pub direct: bool,
    /// The smallest write that reaches the device as such: the direct-I/O
    /// alignment (the logical block) with O_DIRECT, else a page of the
    /// page cache (or the logical block, if larger).
    pub unit: u64,
    /// Said at the end of the note: the target is RAM, with no flash to
    /// find (tmpfs, zram).
    pub caveat: Option<String>,
}

/// The page cache's page size, in bytes.
pub fn page_size() -> u64 {
    // SAFETY: sysconf takes a number and reads no memory of ours.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 { n as u64 } else { 4096 }
}

/// Runs the probe from `start` on a target, and writes a row an offset
/// probed to `csv` (`methodic_results::probe::Row`: the offset from
/// `start`, the statistic of its latencies, the fastest and the slowest).
pub fn run(p: &Probe, route: &Route, start: u64, csv: &Path, stop: &AtomicBool) -> Result<ProbeResult> {
    let unit = route.unit.max(1);
    let planned = (0..p.offsets).map(|k| k * p.step.0);
    let (size, offsets): (u64, Vec<u64>) = if route.direct {
        let size = p.io.0.next_multiple_of(unit);
        (size, planned.filter(|o| o % unit == 0 && o + size <= p.range.0).collect())
    } else {
        (p.io.0, planned.collect())
    };
    let mut buffers = Buffers::new(1, size as usize);
    Rng::new(0x9a9e).fill(buffers.slot(0));
    let mut samples: Vec<Vec<u64>> = vec![Vec::with_capacity(p.repeats as usize); offsets.len()];
    'outer: for _ in 0..p.repeats {
        for (times, o) in samples.iter_mut().zip(&offsets) {
            if stop.load(Ordering::Relaxed) {
                break 'outer;
            }
            let offset = start + o;
            let buf = &buffers.slot(0)[..size as usize];
            let t = Instant::now();
            route
                .file
                .write_all_at(buf, offset)
                .and_then(|()| route.file.sync_data())
                .map_err(|e| Error::io(format!("probe write at offset {offset}"), e))?;
            times.push(t.elapsed().as_nanos() as u64);
        }
    }
    let mut out = Writer::<probe::Row>::create(csv)?;
    let mut kept = Vec::with_capacity(offsets.len());
    let mut series: (Vec<u64>, Vec<f64>) =
        (Vec::with_capacity(offsets.len()), Vec::with_capacity(offsets.len()));
    for (times, o) in samples.iter_mut().zip(&offsets) {
        if times.is_empty() {
            continue;
        }
        times.sort_unstable();
        let value = statistic(times, p.statistic);
        kept.push(value);
        series.0.push(*o);
        series.1.push(value / 1000.0);
        out.row(&probe::Row {
            offset: Bytes(*o),
            latency_us: value / 1000.0,
            min_us: times[0] as f64 / 1000.0,
            max_us: times[times.len() - 1] as f64 / 1000.0,
        })?;
    }
    kept.sort_by(f64::total_cmp);
    let pick =
        |q: f64| kept.get(((kept.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(0.0) / 1000.0;
    let skipped = p.offsets - offsets.len() as u64;
    Ok(ProbeResult {
        offsets: offsets.len() as u64,
        repeats: p.repeats,
        skipped,
        write_bytes: size,
        unit_bytes: unit,
        durable: if route.direct {
            "O_DIRECT writes, each followed by fdatasync"
        } else {
            "writes through the page cache, each followed by fdatasync"
        }
        .to_string(),
        note: note(p, route, unit, size, offsets.len() as u64),
        min_us: pick(0.0),
        median_us: pick(0.5),
        max_us: pick(1.0),
        pages: Some(crate::analysis::pages::estimate(&series.0, &series.1, size, p.step.0, unit)),
    })
}

/// What reached the device, in words.
fn note(p: &Probe, route: &Route, unit: u64, size: u64, probed: u64) -> String {
    let mut parts = Vec::new();
    if route.direct {
        parts.push(format!(
            "every write reached the device as written, with O_DIRECT: {} at each of {probed} offsets {} apart",
            kib(size),
            kib(lcm(p.step.0, unit))
        ));
        if size != p.io.0 {
            parts.push(format!(
                "the {} write asked for is rounded up to the target's {} logical block, the smallest write it takes",
                kib(p.io.0),
                kib(unit)
            ));
        }
        let skipped = p.offsets - probed;
        if skipped > 0 {
            parts.push(format!(
                "{skipped} of the {} offsets were not probed: they are not multiples of the target's {} logical \
                 block, so a write there cannot go with O_DIRECT, and through the page cache it would reach the \
                 device as whole blocks, not at that offset",
                p.offsets,
                kib(unit)
            ));
        }
    } else {
        parts.push(format!(
            "the whole probe went through the page cache, which writes back whole {} pages: writes and steps \
             below {} do not reach the device as such, and the page-size estimate uses only the offsets that are \
             multiples of {} and makes none below it",
            kib(unit),
            kib(unit),
            kib(unit)
        ));
    }
    if let Some(c) = &route.caveat {
        parts.push(c.clone());
    }
    parts.join("; ")
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn lcm(a: u64, b: u64) -> u64 {
    if a == 0 || b == 0 { a.max(b) } else { a / gcd(a, b) * b }
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
        file.set_len(64 << 10).unwrap();
        let p = Probe {
            io: Bytes(512),
            step: Bytes(256),
            range: Bytes(4096),
            repeats: 3,
            statistic: Aggregate::Median,
            offsets: 15,
        };
        // Through the page cache: every offset, and a note that says the
        // device saw whole pages.
        let route = Route { file: &file, direct: false, unit: 4096, caveat: None };
        let r = run(&p, &route, 0, &dir.join("p.csv"), &AtomicBool::new(false)).unwrap();
        assert_eq!((r.offsets, r.skipped, r.repeats, r.write_bytes, r.unit_bytes), (15, 0, 3, 512, 4096));
        assert_eq!(r.durable, "writes through the page cache, each followed by fdatasync");
        assert!(
            r.note.starts_with(
                "the whole probe went through the page cache, which writes back whole 4 KiB pages"
            ),
            "{}",
            r.note
        );
        let csv = std::fs::read_to_string(dir.join("p.csv")).unwrap();
        assert_eq!(csv.lines().count(), 16);
        assert!(csv.lines().nth(2).unwrap().starts_with("256,"));
        let rows = methodic_results::csv_file::read::<probe::Row>(&dir.join("p.csv")).unwrap();
        assert_eq!(rows.len(), 15, "a row an offset, as the report reads them");
        assert!(rows.iter().all(|r| r.min_us <= r.latency_us && r.latency_us <= r.max_us), "{rows:?}");
        assert!(r.min_us > 0.0 && r.min_us <= r.median_us && r.median_us <= r.max_us);
        assert!(r.pages.unwrap().verdict.starts_with("no estimate"));
        // With O_DIRECT in 512 B blocks: the offsets between blocks are
        // not probed, and the note says why.
        let direct = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_DIRECT)
            .open(dir.join("t"));
        if let Ok(direct) = direct {
            let route = Route { file: &direct, direct: true, unit: 512, caveat: Some("a caveat".into()) };
            let r = run(&p, &route, 0, &dir.join("q.csv"), &AtomicBool::new(false)).unwrap();
            assert_eq!((r.offsets, r.skipped, r.write_bytes, r.unit_bytes), (8, 7, 512, 512));
            assert_eq!(r.durable, "O_DIRECT writes, each followed by fdatasync");
            assert!(r.note.starts_with("every write reached the device as written, with O_DIRECT: 512 B at each of 8 offsets 512 B apart"), "{}", r.note);
            assert!(r.note.contains("7 of the 15 offsets were not probed"), "{}", r.note);
            assert!(r.note.ends_with("; a caveat"), "{}", r.note);
            let csv = std::fs::read_to_string(dir.join("q.csv")).unwrap();
            let offsets: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
            assert_eq!(offsets, ["0", "512", "1024", "1536", "2048", "2560", "3072", "3584"]);
            // A write smaller than the block is rounded up to one; the last
            // offsets, where a whole block would pass the range, are left out.
            let q = Probe { io: Bytes(256), offsets: 16, ..p };
            let r = run(&q, &route, 0, &dir.join("r.csv"), &AtomicBool::new(false)).unwrap();
            assert_eq!((r.offsets, r.skipped, r.write_bytes), (8, 8, 512));
            assert!(
                r.note
                    .contains("the 256 B write asked for is rounded up to the target's 512 B logical block"),
                "{}",
                r.note
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
