//! Time series: workers send their counts for each interval (one second
//! by default) as it ends; a collector merges the workers' intervals and
//! writes each row of `series/<step-id>.csv` as soon as every worker has
//! reported it, so that nothing is held for a long step and a crash loses
//! at most the last interval. Each row also carries the drive's
//! temperature, read by a [`Thermometer`] once an interval on the
//! collector's thread (never on a worker's), for NVMe and SATA targets.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;

use methodic_results::series::{HEADER, Row};

use crate::stats::Recorder;
use crate::target::Target;

/// Reads the temperature of a step's drives, °C, as a row ending at `t_s`
/// is written: the hottest of them, or `None` when none answers.
pub type Thermometer = Box<dyn FnMut(f64) -> Option<f64> + Send>;

/// How often a step's drives are asked for their temperature and health.
pub const DRIVE_SAMPLE: std::time::Duration = std::time::Duration::from_secs(1);

/// The thermometer of a step on `targets`: each NVMe drive's SMART /
/// health log and each SATA drive's device statistics (or SMART
/// attributes), read through its own descriptor; `None` when no target is
/// such a drive (a file, a loop device, zram and SCSI disks report no
/// temperature here). With `health_log`, each reading goes there whole, a
/// line a target and interval (`series/<step-id>.health.csv`): the drive's
/// counters over the step, not only around it. The drives are asked at
/// most once every [`DRIVE_SAMPLE`]: rows closer together (a short series
/// interval, a rehearsal's 10ms) repeat the last reading, so that the
/// drive's own commands (admin commands on NVMe; on SATA, commands that
/// wait for the queued I/O to drain) do not crowd the drive or the
/// collector.
pub fn drive_thermometer(targets: &[Target], health_log: Option<&Path>) -> Option<Thermometer> {
    use crate::drive::HealthReader;
    let drives: Vec<(String, File, HealthReader)> = targets
        .iter()
        .filter_map(|t| {
            let reader = HealthReader::new(t.file(false), crate::drive::interface(t))?;
            Some((t.path.display().to_string(), t.file(false).try_clone().ok()?, reader))
        })
        .collect();
    if drives.is_empty() {
        return None;
    }
    let mut log = health_log.and_then(|p| {
        let mut w = BufWriter::new(File::create(p).ok()?);
        writeln!(w, "{}", methodic_results::health::SERIES_HEADER).ok()?;
        Some(w)
    });
    let mut last: Option<(std::time::Instant, Option<f64>)> = None;
    Some(Box::new(move |t_s| {
        if let Some((_, reading)) = last.filter(|(at, _)| at.elapsed() < DRIVE_SAMPLE) {
            return reading;
        }
        let mut hottest: Option<f64> = None;
        for (path, f, reader) in &drives {
            let reading = reader.read(f).and_then(|h| {
                if let Some(w) = log.as_mut() {
                    // A line lost to a full disk costs the log, not the run.
                    let _ = writeln!(w, "{}", h.series_line(t_s, path)).and_then(|()| w.flush());
                }
                h.temperature_c
            });
            if let Some(c) = reading.map(f64::from) {
                hottest = Some(hottest.map_or(c, |h| h.max(c)));
            }
        }
        last = Some((std::time::Instant::now(), hottest));
        hottest
    }))
}

/// One worker's counts for one interval.
pub struct Interval {
    pub index: u64,
    /// Counts and latency histograms, reads and writes apart; a worker's
    /// intervals add up to its step's record.
    pub rec: Recorder,
}

impl Interval {
    /// Not inlined, so that a profile can tell it from a worker's I/O
    /// loop (bench/recording-cost.sh).
    #[inline(never)]
    pub fn new(index: u64) -> Interval {
        Interval { index, rec: Recorder::default() }
    }

    fn merge(&mut self, o: &Interval) {
        self.rec.merge(&o.rec);
    }
}

pub enum Message {
    Interval {
        worker: usize,
        interval: Box<Interval>,
    },
    /// The worker has sent its last interval; it recorded for `seconds`.
    Done {
        worker: usize,
        seconds: f64,
    },
}

/// The mean of the latencies recorded, reads, writes and trims together,
/// from their histograms (to their three significant digits), in ns.
fn mean(rec: &Recorder) -> f64 {
    let (r, w, t) = (&rec.read.lat, &rec.write.lat, &rec.trim.lat);
    let n = r.len() + w.len() + t.len();
    if n == 0 {
        return 0.0;
    }
    (r.mean() * r.len() as f64 + w.mean() * w.len() as f64 + t.mean() * t.len() as f64) / n as f64
}

/// The 99th percentile of reads, writes and trims together, in nanoseconds.
fn p99(rec: &Recorder) -> f64 {
    if rec.trim.ios > 0 {
        return rec.percentile_ns(990_000).unwrap_or(0) as f64;
    }
    if rec.write.ios == 0 {
        return rec.read.lat.value_at_quantile(0.99) as f64;
    }
    if rec.read.ios == 0 {
        return rec.write.lat.value_at_quantile(0.99) as f64;
    }
    let mut both = rec.read.lat.clone();
    let _ = both.add(&rec.write.lat);
    both.value_at_quantile(0.99) as f64
}

/// The collector's thread: joined, it gives the rows it wrote.
pub type Collector = JoinHandle<io::Result<Vec<Row>>>;

/// Starts a collector for `workers` workers writing to `path` (or only
/// counting, for `None`), reading `thermometer` (if any) once a row.
/// Returns the sender to give the workers and the handle that yields the
/// rows when every worker is done.
pub fn collector(
    path: Option<&Path>,
    workers: usize,
    interval_s: f64,
    thermometer: Option<Thermometer>,
) -> io::Result<(Sender<Message>, Collector)> {
    let out = match path {
        Some(p) => {
            let mut w = BufWriter::new(File::create(p)?);
            writeln!(w, "{HEADER}")?;
            w.flush()?;
            Some(w)
        }
        None => None,
    };
    let (tx, rx) = channel();
    let handle = std::thread::Builder::new()
        .name("methodic-series".into())
        .spawn(move || collect(rx, out, workers, interval_s, thermometer))?;
    Ok((tx, handle))
}

fn collect(
    rx: Receiver<Message>,
    mut out: Option<BufWriter<File>>,
    workers: usize,
    interval_s: f64,
    mut thermometer: Option<Thermometer>,
) -> io::Result<Vec<Row>> {
    // Intervals waiting for a worker, by index; what each worker has sent up to.
    let mut pending: BTreeMap<u64, Interval> = BTreeMap::new();
    let mut reported: Vec<u64> = vec![0; workers];
    let mut done = vec![false; workers];
    let mut next = 0u64;
    let mut rows = Vec::new();
    // How long the workers recorded, once all are done: the last interval
    // may be cut short, and its rates are over what it lasted.
    let mut recorded = 0.0f64;
    let mut emit = |iv: &Interval, out: &mut Option<BufWriter<File>>, recorded: f64| -> io::Result<()> {
        let (read_ios, write_ios, bytes) = (iv.rec.read.ios, iv.rec.write.ios, iv.rec.bytes());
        // Trims count in the interval's IOPS and latencies (not its bytes).
        let ios = iv.rec.ios();
        let start = iv.index as f64 * interval_s;
        let end = if recorded > start {
            ((iv.index + 1) as f64 * interval_s).min(recorded)
        } else {
            start + interval_s
        };
        let span = (end - start).max(1e-9);
        let row = Row {
            t: end,
            seconds: span,
            iops: ios as f64 / span,
            read_iops: read_ios as f64 / span,
            write_iops: write_ios as f64 / span,
            mb_s: bytes as f64 / span / 1e6,
            mean_latency_us: mean(&iv.rec) / 1000.0,
            p99_latency_us: if ios > 0 { p99(&iv.rec) / 1000.0 } else { 0.0 },
            temperature_c: thermometer.as_mut().and_then(|read| read(end)),
        };
        if let Some(w) = out.as_mut() {
            writeln!(w, "{}", row.csv_line())?;
            w.flush()?;
        }
        rows.push(row);
        Ok(())
    };
    for msg in rx {
        match msg {
            Message::Interval { worker, interval } => {
                // An interval is sent when the worker moves past it, or as its
                // last, which may end early: only the ones before it are final.
                reported[worker] = reported[worker].max(interval.index);
                match pending.get_mut(&interval.index) {
                    Some(iv) => iv.merge(&interval),
                    None => {
                        pending.insert(interval.index, *interval);
                    }
                }
            }
            Message::Done { worker, seconds } => {
                done[worker] = true;
                recorded = recorded.max(seconds);
            }
        }
        // Every interval all workers have moved past is complete; once all
        // are done, everything left is.
        let complete = (0..workers).map(|w| if done[w] { u64::MAX } else { reported[w] }).min().unwrap_or(0);
        let upto =
            if complete == u64::MAX { pending.keys().next_back().map_or(next, |k| k + 1) } else { complete };
        while next < upto {
            let iv = pending.remove(&next).unwrap_or_else(|| Interval::new(next));
            let all_done = complete == u64::MAX;
            emit(&iv, &mut out, if all_done { recorded } else { f64::INFINITY })?;
            next += 1;
        }
        if done.iter().all(|d| *d) {
            break;
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Op;

    #[test]
    fn intervals_of_several_workers_merge_in_order() {
        let dir = std::env::temp_dir().join(format!("methodic-series-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.csv");
        let (tx, handle) = collector(Some(&path), 2, 1.0, None).unwrap();
        let iv = |index, ios: u64| {
            let mut i = Interval::new(index);
            for _ in 0..ios {
                i.rec.record(Op::Read, 4096, 100_000);
            }
            Box::new(i)
        };
        tx.send(Message::Interval { worker: 0, interval: iv(0, 10) }).unwrap();
        tx.send(Message::Interval { worker: 0, interval: iv(1, 20) }).unwrap();
        tx.send(Message::Interval { worker: 1, interval: iv(0, 5) }).unwrap();
        // Worker 1 skipped interval 1 (no completion) and reports 2.
        tx.send(Message::Interval { worker: 1, interval: iv(2, 7) }).unwrap();
        tx.send(Message::Done { worker: 0, seconds: 2.5 }).unwrap();
        tx.send(Message::Done { worker: 1, seconds: 2.5 }).unwrap();
        let rows = handle.join().unwrap().unwrap();
        let iops: Vec<f64> = rows.iter().map(|r| r.iops).collect();
        // The last interval lasted half a second: 7 I/Os are 14 a second.
        assert_eq!(iops, [15.0, 20.0, 14.0]);
        // 100us to the histogram's three significant digits.
        assert!((rows[0].mean_latency_us - 100.0).abs() < 0.1, "{}", rows[0].mean_latency_us);
        let csv = std::fs::read_to_string(&path).unwrap();
        assert_eq!(csv.lines().count(), 4);
        assert!(csv.starts_with(HEADER));
        assert!(rows.iter().all(|r| r.temperature_c.is_none()), "no thermometer, no temperature");
        assert!(csv.lines().nth(1).unwrap().ends_with(','), "an empty temperature cell: {csv}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A thermometer is read once a row, on the collector's thread, and its
    /// reading goes in the row and the CSV; a reading that fails leaves the
    /// cell empty.
    #[test]
    fn each_row_carries_the_thermometer_reading() {
        let dir = std::env::temp_dir().join(format!("methodic-series-temp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.csv");
        let readings = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let counted = readings.clone();
        let thermometer: Thermometer = Box::new(move |_| {
            let n = counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            // 40 C, 45 C, then no answer.
            (n < 2).then_some(40.0 + 5.0 * n as f64)
        });
        let (tx, handle) = collector(Some(&path), 1, 1.0, Some(thermometer)).unwrap();
        for index in 0..3 {
            let mut i = Interval::new(index);
            i.rec.record(Op::Write, 4096, 20_000);
            tx.send(Message::Interval { worker: 0, interval: Box::new(i) }).unwrap();
        }
        tx.send(Message::Done { worker: 0, seconds: 3.0 }).unwrap();
        let rows = handle.join().unwrap().unwrap();
        assert_eq!(rows.iter().map(|r| r.temperature_c).collect::<Vec<_>>(), [Some(40.0), Some(45.0), None]);
        assert_eq!(readings.load(std::sync::atomic::Ordering::SeqCst), 3, "once a row");
        let back = methodic_results::series::read(&path).unwrap();
        assert_eq!(
            back.iter().map(|r| r.column("temperature_c")).collect::<Vec<_>>(),
            [Some(40.0), Some(45.0), None]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A series that cannot be written (here /dev/full: no space left) is
    /// an error, whether at its header or at a row, which the step then
    /// fails with (exec's io_as: `cannot write PATH`), not an empty series.
    #[test]
    fn a_series_that_cannot_be_written_is_an_error() {
        let e =
            collector(Some(Path::new("/dev/full")), 1, 1.0, None).expect_err("the header cannot be written");
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
        // The header went through; the first row does not.
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let (tx, rx) = channel();
        let mut iv = Interval::new(0);
        iv.rec.record(Op::Write, 4096, 50_000);
        tx.send(Message::Interval { worker: 0, interval: Box::new(iv) }).unwrap();
        tx.send(Message::Done { worker: 0, seconds: 1.0 }).unwrap();
        drop(tx);
        let e = collect(rx, Some(BufWriter::new(full)), 1, 1.0, None).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
    }
}
