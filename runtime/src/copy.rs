//! Copy tests: a dataset goes in, generated once as a tree of files of
//! incompressible data, in parallel (and reused while it matches its
//! definition); a copy of the tree to the target's file system comes out,
//! made as a normal copy tool makes it (buffered reads and writes), with
//! the time to the last sync of the destination and the bytes that reached
//! the devices: read from the source's, written to the destination's.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use methodic_compiler::plan::{Bytes, Dataset};

use crate::devio::Meter;
use crate::error::{Error, Result};
use crate::rng::Rng;
use methodic_results::device_io::DeviceIo;
use methodic_results::record::CopyResult;

/// Files a folder, so that no folder grows huge.
const PER_DIR: u64 = 1000;

/// The description a generated tree is kept with, to know it is current.
/// `v2`: each file's bytes come from its own seed.
fn stamp(d: &Dataset) -> String {
    format!(
        "v2 name={} files={} total={} size_min={} size_max={} seed={}\n",
        d.name, d.files, d.total.0, d.size_min.0, d.size_max.0, d.seed
    )
}

/// Makes the dataset's tree under `dir`, unless it is there already, and
/// returns whether it was made now. Files are written in parallel (each
/// from its own seed, so the bytes do not depend on the order), synced,
/// and dropped from the page cache: the first copy reads them from the
/// device, as a copy of files written long ago would. A tree that is
/// reused is left as the page cache has it. A `stop` (a signal) ends the
/// making between files; the tree's marker says unfinished then, and it is
/// made again next time.
pub fn prepare(d: &Dataset, dir: &Path, stop: &AtomicBool) -> Result<bool> {
    use rayon::prelude::*;
    let marker = dir.join(".methodic-dataset");
    if fs::read_to_string(&marker).is_ok_and(|s| s == stamp(d)) {
        return Ok(false);
    }
    if dir.exists() {
        // Only a tree methodic made (it has the marker) or an empty folder
        // is cleared: --datasets may point anywhere.
        let empty = fs::read_dir(dir).map(|mut e| e.next().is_none()).unwrap_or(false);
        if !marker.exists() && !empty {
            return Err(Error::target(dir, "exists and was not made by methodic; it is left alone")
                .with_hint("give --datasets a folder of its own, or remove this one"));
        }
        fs::remove_dir_all(dir).map_err(|e| Error::io(format!("cannot clear {}", dir.display()), e))?;
    }
    let sizes: Vec<u64> = d.file_sizes().collect();
    // Marked methodic's at once, as not finished: a tree cut off (a signal,
    // a crash) is cleared and made again next time, not refused.
    fs::create_dir_all(dir).map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
    fs::write(&marker, "v2 unfinished\n")
        .map_err(|e| Error::io(format!("cannot write {}", marker.display()), e))?;
    for k in 0..sizes.len().div_ceil(PER_DIR as usize) {
        let sub = dir.join(format!("d{k:04}"));
        fs::create_dir_all(&sub).map_err(|e| Error::io(format!("cannot create {}", sub.display()), e))?;
    }
    sizes.par_iter().enumerate().try_for_each_init(
        || vec![0u8; 1 << 20],
        |buf, (i, &size)| -> Result<()> {
            if stop.load(Ordering::Relaxed) {
                return Err(Error::unsupported("interrupted while the dataset was made"));
            }
            let path = file_path(dir, i as u64);
            let mut f =
                File::create(&path).map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
            let mut rng = Rng::new(crate::rng::derive_seed(d.seed ^ 0xda7a, &d.name, i as u32));
            let mut left = size;
            while left > 0 {
                let n = left.min(buf.len() as u64) as usize;
                rng.fill(&mut buf[..n]);
                f.write_all(&buf[..n])
                    .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))?;
                left -= n as u64;
            }
            f.sync_data().map_err(|e| Error::io(format!("cannot sync {}", path.display()), e))?;
            // SAFETY: posix_fadvise takes a descriptor and numbers, no pointer; `f` keeps the
            // descriptor open for the call.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
            Ok(())
        },
    )?;
    fs::write(&marker, stamp(d)).map_err(|e| Error::io(format!("cannot write {}", marker.display()), e))?;
    Ok(true)
}

/// Drops a generated tree's files from the page cache.
pub fn evict(dir: &Path, files: u64) {
    for i in 0..files {
        if let Ok(f) = File::open(file_path(dir, i)) {
            // SAFETY: posix_fadvise takes a descriptor and numbers, no pointer; `f` keeps the
            // descriptor open for the call.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        }
    }
}

fn file_path(dir: &Path, i: u64) -> PathBuf {
    dir.join(format!("d{:04}", i / PER_DIR)).join(format!("f{i:07}"))
}

/// Copies the tree at `src` (made by [`prepare`]) to `dst`, which is
/// removed first, and syncs the destination's file system; with what the
/// copy did, the bytes that reached the devices meanwhile: reads counted on
/// the source's device, writes on the destination's (synced, so they have
/// reached it when the copy ends).
pub fn copy_tree(src: &Path, dst: &Path, files: u64, stop: &AtomicBool) -> Result<(CopyResult, DeviceIo)> {
    if dst.exists() {
        fs::remove_dir_all(dst).map_err(|e| Error::io(format!("cannot clear {}", dst.display()), e))?;
    }
    fs::create_dir_all(dst).map_err(|e| Error::io(format!("cannot create {}", dst.display()), e))?;
    let mut buf = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    let meter = Meter::start(&[src], &[dst]);
    let start = Instant::now();
    for i in 0..files {
        if stop.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        let from = file_path(src, i);
        let to = file_path(dst, i);
        if let Some(parent) = to.parent()
            && !parent.exists()
        {
            fs::create_dir(parent)
                .map_err(|e| Error::io(format!("cannot create {}", parent.display()), e))?;
        }
        let mut r = File::open(&from).map_err(|e| Error::io(format!("cannot read {}", from.display()), e))?;
        let mut w = File::create(&to).map_err(|e| Error::io(format!("cannot create {}", to.display()), e))?;
        loop {
            let n = r.read(&mut buf).map_err(|e| Error::io(format!("cannot read {}", from.display()), e))?;
            if n == 0 {
                break;
            }
            w.write_all(&buf[..n]).map_err(|e| Error::io(format!("cannot write {}", to.display()), e))?;
            bytes += n as u64;
        }
    }
    let d = File::open(dst).map_err(|e| Error::io(format!("cannot open {}", dst.display()), e))?;
    // SAFETY: syncfs takes a descriptor, no pointer; `d` keeps it open for the call.
    if unsafe { libc::syncfs(d.as_raw_fd()) } != 0 {
        return Err(Error::io(format!("cannot sync {}", dst.display()), std::io::Error::last_os_error()));
    }
    let seconds = start.elapsed().as_secs_f64();
    let device_io = meter.finish(Bytes(bytes), Bytes(bytes));
    let result = CopyResult {
        files,
        bytes,
        seconds,
        mb_s: bytes as f64 / seconds / 1e6,
        mib_s: bytes as f64 / seconds / 1_048_576.0,
        method: "buffered read/write loop with a 1MiB buffer, then syncfs of the destination".into(),
        source: src.to_path_buf(),
        destination: dst.to_path_buf(),
    };
    Ok((result, device_io))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dataset_is_made_once_and_copied_whole() {
        let dir = std::env::temp_dir().join(format!("methodic-copy-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let d = Dataset::of_files("d", Bytes(1000), Bytes(100_000), 30, 4);
        let go = AtomicBool::new(false);
        // Stopped, it is not finished (no marker), and is made next time.
        let e = prepare(&d, &dir.join("src"), &AtomicBool::new(true)).unwrap_err();
        assert!(e.to_string().contains("interrupted"), "{e}");
        assert_eq!(fs::read_to_string(dir.join("src/.methodic-dataset")).unwrap(), "v2 unfinished\n");
        assert!(prepare(&d, &dir.join("src"), &go).unwrap(), "made the first time");
        assert!(!prepare(&d, &dir.join("src"), &go).unwrap(), "reused the second time");
        fs::create_dir_all(dir.join("mine")).unwrap();
        fs::write(dir.join("mine/keep.txt"), "x").unwrap();
        assert!(
            prepare(&d, &dir.join("mine"), &go).is_err(),
            "a folder methodic did not make is not cleared"
        );
        assert!(dir.join("mine/keep.txt").exists());
        let (r, io) =
            copy_tree(&dir.join("src"), &dir.join("dst"), d.files, &AtomicBool::new(false)).unwrap();
        assert_eq!((r.files, r.bytes), (30, d.total.0));
        assert_eq!((io.read.asked, io.write.asked), (d.total, d.total), "what the copy asked, both ways");
        assert_eq!(
            fs::read(file_path(&dir.join("src"), 7)).unwrap(),
            fs::read(file_path(&dir.join("dst"), 7)).unwrap()
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
