//! Bytes that reached the device: the paths a step reads and writes go in;
//! the kernel's counts of what was read from and written to the storage
//! under them while the step ran come out, beside the bytes the step asked
//! for, with the share of its reads that the page cache served. Where a
//! path lives decides the counter: a block device (its statistics in
//! sysfs), a file system in RAM (tmpfs, ramfs: no device at all), or
//! neither (this process's own counts, /proc/self/io).
//!
//! The counters, from the kernel's documentation:
//! - `/sys/dev/block/MAJ:MIN/stat` (Documentation/block/stat.rst): sectors
//!   read (field 3) and written (field 7), in 512-byte units, of every
//!   process's I/O on that device (a partition has its own). Other I/O on a
//!   shared device adds to them.
//! - `/proc/self/io` (Documentation/filesystems/proc.rst): `read_bytes`,
//!   "the number of bytes which this process really did cause to be
//!   fetched from the storage layer", counted when the read is submitted,
//!   for every thread (io_uring's kernel workers are threads of the
//!   process); `write_bytes`, bytes "caused to be sent to the storage
//!   layer", counted when pages are dirtied, less `cancelled_write_bytes`
//!   (dirty pages truncated before they were written back).
//!
//! Reads that reached a device for this process cannot exceed either
//! count, so on a block device the reads counted are the smaller of the
//! two: the device's alone would blame this step for another process's
//! reads. Writes are the device's count: write-back runs in the kernel's
//! flusher threads, which /proc/self/io does not see, and the journal and
//! metadata written for the step are bytes that reached the device too.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use methodic_compiler::plan::{Bytes, Percent};
use methodic_results::device_io::{Counter, DeviceIo, Flow};

/// Counts the bytes that reach the storage under some paths, from
/// [`Meter::start`] to [`Meter::finish`].
#[derive(Debug, Clone)]
pub struct Meter {
    read: Place,
    write: Place,
    /// Each device, with its sectors read and written at the start.
    devices: Vec<(BlockDev, Option<(u64, u64)>)>,
    process: Option<ProcessIo>,
}

/// A block device: the kernel's name and its statistics file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BlockDev {
    name: String,
    stat: PathBuf,
}

/// Where a path's data lives.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    Devices(Vec<BlockDev>),
    /// In RAM, on a file system of this type.
    Ram(String),
    /// No block device found, and why.
    Unknown(String),
}

/// /proc/self/io's storage counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct ProcessIo {
    read: u64,
    write: u64,
    cancelled: u64,
}

impl Meter {
    /// Starts counting: the reads of `reads` and the writes of `writes`
    /// (files, folders, block devices; a path not made yet counts as the
    /// nearest folder above it).
    pub fn start(reads: &[&Path], writes: &[&Path]) -> Meter {
        let (read, write) = (place_of(reads), place_of(writes));
        let mut devices: Vec<(BlockDev, Option<(u64, u64)>)> = Vec::new();
        for p in [&read, &write] {
            if let Place::Devices(ds) = p {
                for d in ds {
                    if !devices.iter().any(|(known, _)| known == d) {
                        devices.push((d.clone(), None));
                    }
                }
            }
        }
        // The counts last, just before the step's I/O starts.
        let process = process_io();
        for (d, start) in &mut devices {
            *start = sectors(&d.stat);
        }
        Meter { read, write, devices, process }
    }

    /// The counts since [`Meter::start`], beside what the step asked:
    /// `asked_read` and `asked_written` bytes.
    pub fn finish(&self, asked_read: Bytes, asked_written: Bytes) -> DeviceIo {
        let now: Vec<Option<(u64, u64)>> = self.devices.iter().map(|(d, _)| sectors(&d.stat)).collect();
        let process = match (self.process, process_io()) {
            (Some(a), Some(b)) => Some(ProcessIo {
                read: b.read.saturating_sub(a.read),
                write: b.write.saturating_sub(a.write),
                cancelled: b.cancelled.saturating_sub(a.cancelled),
            }),
            _ => None,
        };
        // Sectors moved on `place`'s devices: (read, written) bytes.
        let on = |place: &Place| -> Option<(u64, u64)> {
            let Place::Devices(ds) = place else { return None };
            let mut sum = (0u64, 0u64);
            for d in ds {
                let k = self.devices.iter().position(|(known, _)| known == d)?;
                let (a, b) = (self.devices[k].1?, now[k]?);
                sum.0 += b.0.saturating_sub(a.0) * 512;
                sum.1 += b.1.saturating_sub(a.1) * 512;
            }
            Some(sum)
        };
        let read_dev = on(&self.read).map(|s| s.0);
        let write_dev = on(&self.write).map(|s| s.1);
        let proc_read = process.map(|p| p.read);
        let proc_write = process.map(|p| p.write.saturating_sub(p.cancelled));
        let mut read = flow(&self.read, asked_read, read_dev, proc_read);
        if read.counter == Counter::Device {
            // This process's reads on the device: no more than either count.
            read.reached = match (read_dev, proc_read) {
                (Some(d), Some(p)) => Some(Bytes(d.min(p))),
                (d, _) => d.map(Bytes),
            };
        }
        read.cached = match read.reached {
            Some(r) if asked_read.0 > 0 && read.counted() => {
                let served = asked_read.0.saturating_sub(r.0);
                Some(Percent::from_hundredths((served as u128 * 10_000 / asked_read.0 as u128) as u32))
            }
            _ => None,
        };
        let write = flow(&self.write, asked_written, write_dev, proc_write);
        DeviceIo { read, write }
    }
}

/// A flow's counter and counts before the read cap: the device's count on
/// a device, this process's elsewhere.
fn flow(place: &Place, asked: Bytes, device: Option<u64>, process: Option<u64>) -> Flow {
    let (counter, source, reached, note) = match place {
        Place::Devices(ds) => {
            let names = ds.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join(", ");
            match device {
                Some(d) => (Counter::Device, names, Some(d), None),
                None => fallback(format!("the statistics of {names} could not be read"), process),
            }
        }
        Place::Ram(fs) => (Counter::Ram, fs.clone(), None, None),
        Place::Unknown(why) => fallback(why.clone(), process),
    };
    Flow {
        asked,
        counter,
        source,
        reached: reached.map(Bytes),
        device_bytes: device.map(Bytes),
        process_bytes: process.map(Bytes),
        cached: None,
        note,
    }
}

/// This process's count, with why the device's is not used.
fn fallback(why: String, process: Option<u64>) -> (Counter, String, Option<u64>, Option<String>) {
    match process {
        Some(p) => (Counter::Process, "/proc/self/io".into(), Some(p), Some(why)),
        None => (Counter::None, "none".into(), None, Some(format!("{why}, nor /proc/self/io"))),
    }
}

/// Where the data of all `paths` lives: the same place kind for all, else
/// unknown (this process's count covers them all).
fn place_of(paths: &[&Path]) -> Place {
    let mut places = paths.iter().map(|p| place(p));
    let Some(first) = places.next() else { return Place::Unknown("no path".into()) };
    places.fold(first, |acc, p| match (acc, p) {
        (Place::Devices(mut a), Place::Devices(b)) => {
            for d in b {
                if !a.contains(&d) {
                    a.push(d);
                }
            }
            Place::Devices(a)
        }
        (Place::Ram(a), Place::Ram(_)) => Place::Ram(a),
        (Place::Unknown(why), _) | (_, Place::Unknown(why)) => Place::Unknown(why),
        _ => Place::Unknown("the data is partly in RAM and partly on block devices".into()),
    })
}

/// Where one path's data lives: a block device itself; a file system in
/// RAM; the block device a file system's files carry as their device
/// number; the block device mounted (btrfs gives its files an anonymous
/// number: the device it was mounted from, the first of several); else
/// unknown.
fn place(path: &Path) -> Place {
    let existing = path.ancestors().find(|p| p.exists()).unwrap_or(Path::new("/"));
    let Ok(meta) = std::fs::metadata(existing) else {
        return Place::Unknown(format!("{} cannot be read", existing.display()));
    };
    if meta.file_type().is_block_device() {
        return match block_device(meta.rdev()) {
            Some(d) => Place::Devices(vec![d]),
            None => Place::Unknown(format!("{} has no statistics in sysfs", existing.display())),
        };
    }
    let fs = crate::host::file_system(existing);
    let fs_type = fs.as_ref().map_or("an unknown file system", |f| f.fs_type.as_str());
    if matches!(fs_type, "tmpfs" | "ramfs") {
        return Place::Ram(fs_type.to_string());
    }
    if let Some(d) = block_device(meta.dev()) {
        return Place::Devices(vec![d]);
    }
    let mounted = fs
        .as_ref()
        .filter(|f| f.source.starts_with('/'))
        .and_then(|f| std::fs::metadata(&f.source).ok())
        .filter(|m| m.file_type().is_block_device())
        .and_then(|m| block_device(m.rdev()));
    match mounted {
        Some(d) => Place::Devices(vec![d]),
        None => Place::Unknown(format!(
            "no block device under {} ({fs_type}, {})",
            existing.display(),
            fs.as_ref().map_or("not in mountinfo", |f| f.source.as_str())
        )),
    }
}

/// The kernel's name and statistics file of the block device numbered `dev`.
fn block_device(dev: u64) -> Option<BlockDev> {
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    if major == 0 {
        return None;
    }
    let stat = PathBuf::from(format!("/sys/dev/block/{major}:{minor}/stat"));
    if !stat.is_file() {
        return None;
    }
    Some(BlockDev { name: crate::sysfs::sysfs_name(dev)?, stat })
}

/// Sectors read and written (fields 3 and 7) of a block device's `stat`.
fn sectors(stat: &Path) -> Option<(u64, u64)> {
    parse_stat(&std::fs::read_to_string(stat).ok()?)
}

fn parse_stat(text: &str) -> Option<(u64, u64)> {
    let f: Vec<&str> = text.split_whitespace().collect();
    Some((f.get(2)?.parse().ok()?, f.get(6)?.parse().ok()?))
}

fn process_io() -> Option<ProcessIo> {
    parse_process_io(&std::fs::read_to_string("/proc/self/io").ok()?)
}

fn parse_process_io(text: &str) -> Option<ProcessIo> {
    let field = |name: &str| -> Option<u64> {
        text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(':')?.trim().parse().ok())
    };
    Some(ProcessIo {
        read: field("read_bytes")?,
        write: field("write_bytes")?,
        cancelled: field("cancelled_write_bytes").unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counters_files_are_read_by_field() {
        let stat = "   39351     6354  3744458    24650    12444    47032 27817808    85849        0     \
                    8048   112310     4514       45  1537296     1786      837       23\n";
        assert_eq!(parse_stat(stat), Some((3_744_458, 27_817_808)));
        assert_eq!(parse_stat("1 2\n"), None);
        let io = "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 4096\nwrite_bytes: 8192\n\
                  cancelled_write_bytes: 4096\n";
        assert_eq!(parse_process_io(io), Some(ProcessIo { read: 4096, write: 8192, cancelled: 4096 }));
    }

    #[test]
    fn a_file_system_in_ram_has_no_device() {
        let shm = Path::new("/dev/shm");
        if crate::host::file_system(shm).is_some_and(|f| f.fs_type == "tmpfs") {
            assert_eq!(place(&shm.join("not-made-yet/x")), Place::Ram("tmpfs".into()));
            let io = Meter::start(&[shm], &[shm]).finish(Bytes(100), Bytes(0));
            assert_eq!((io.read.counter, io.read.reached, io.read.cached), (Counter::Ram, None, None));
            assert_eq!(
                io.read_words("copied").unwrap(),
                "100 B copied from tmpfs (in RAM: no device under it)"
            );
            assert_eq!(io.write_words(), None);
        }
    }

    #[test]
    fn reads_are_shared_out_between_the_device_and_the_page_cache() {
        let flow = |reached: u64| Flow {
            asked: Bytes(256 << 20),
            counter: Counter::Device,
            source: "vda".into(),
            reached: Some(Bytes(reached)),
            device_bytes: Some(Bytes(reached)),
            process_bytes: Some(Bytes(reached)),
            cached: Some(Percent::from_hundredths(
                ((256u64 << 20).saturating_sub(reached) * 10_000 / (256 << 20)) as u32,
            )),
            note: None,
        };
        let io = |reached: u64| DeviceIo {
            read: flow(reached),
            write: Flow { asked: Bytes(0), cached: None, ..flow(0) },
        };
        assert_eq!(
            io(0).read_words("copied").unwrap(),
            "256.0 MiB copied, 0 B read from vda: served from the page cache"
        );
        assert!(io(20 << 20).read.served_from_cache(), "less than a tenth from the device");
        assert_eq!(
            io(128 << 20).read_words("read").unwrap(),
            "256.0 MiB read, 128.0 MiB read from vda: 50% served from the page cache"
        );
        assert!(!io(128 << 20).read.served_from_cache());
        assert_eq!(io(256 << 20).words("copied"), "256.0 MiB copied, 256.0 MiB read from vda");
    }
}
