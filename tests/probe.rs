//! The page probe end to end: on a file, its results say what reached the
//! device (O_DIRECT in whole logical blocks, or the page cache in whole
//! pages, or RAM on tmpfs); on a loop device and on zram (4KiB logical
//! blocks), the device's own counts of writes and sectors agree with that
//! note: a 1KiB direct write arrives as two sectors, a 512B buffered write
//! as a whole 4KiB page, and on zram every write as one 4KiB block.

use std::path::Path;

mod common;
use common::{methodic, text};

// The device tests' lock, loop devices and zram (the runtime's tests share them).
#[path = "../runtime/tests/common/mod.rs"]
mod devices;

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// A test that cannot run here says why and passes, except under CI.
fn skip(why: &str) {
    assert!(!ci(), "CI=true, and this test cannot run: {why}");
    eprintln!("skipped: {why}");
}

/// Runs the methodology `source` with `args`; the probe step's record from
/// steps.jsonl and its CSV's offsets.
fn run(dir: &Path, source: &str, args: &[&str]) -> (serde_json::Value, Vec<u64>) {
    let method = dir.join("m.method");
    std::fs::write(&method, source).unwrap();
    let out = dir.join("results");
    let mut all = vec!["run", method.to_str().unwrap(), "--out", out.to_str().unwrap(), "--no-ceiling"];
    all.extend_from_slice(args);
    let o = methodic(&all);
    assert!(o.status.success(), "{}", text(&o.stderr));
    probe_of(&out)
}

fn probe_of(out: &Path) -> (serde_json::Value, Vec<u64>) {
    let journal = std::fs::read_to_string(out.join("steps.jsonl")).unwrap();
    let step: serde_json::Value = journal
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .find(|s: &serde_json::Value| s["kind"] == "probe")
        .unwrap();
    let csv = std::fs::read_to_string(out.join(step["series"].as_str().unwrap())).unwrap();
    let offsets = csv.lines().skip(1).map(|l| l.split(',').next().unwrap().parse().unwrap()).collect();
    (step["probe"].clone(), offsets)
}

fn probe_source(io: &str, step: &str, range: &str, repeats: u32, mode: &str) -> String {
    format!(
        "methodology \"probe\" version \"1\"\ntarget {{ span 1MiB; io {mode} }}\n\
         probe pages {{ io {io}; step {step}; range {range}; repeats {repeats} }}\n"
    )
}

fn page_size() -> u64 {
    // SAFETY: sysconf takes a number and reads no memory of ours.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as u64 }
}

/// The library's probe, rehearsed on a scratch file: every write went with
/// O_DIRECT, in whole logical blocks, at offsets that are multiples of one.
#[test]
fn the_library_probe_writes_direct_in_whole_blocks() {
    let dir = common::temp_dir("probe-spec");
    let out = dir.join("results");
    let o = methodic(&["run", "--rehearse", "specs/page-size-probe.method", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (p, offsets) = probe_of(&out);
    let unit = p["unit_bytes"].as_u64().unwrap();
    assert!(unit >= 512, "{p}");
    assert_eq!(p["durable"], "O_DIRECT writes, each followed by fdatasync");
    assert!(
        p["note"].as_str().unwrap().starts_with("every write reached the device as written, with O_DIRECT"),
        "{p}"
    );
    // The rehearsal's 64KiB range: (65536 - 1024) / 512 + 1 offsets planned.
    assert_eq!(p["offsets"].as_u64().unwrap() + p["skipped"].as_u64().unwrap(), 127, "{p}");
    assert_eq!(offsets.len() as u64, p["offsets"].as_u64().unwrap());
    assert!(offsets.iter().all(|o| o % unit == 0), "{offsets:?}");
    assert_eq!(p["write_bytes"].as_u64().unwrap(), 1024u64.next_multiple_of(unit));
    if unit == 512 {
        assert_eq!(p["skipped"], 0, "{p}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Buffered, 512B writes in 256B steps run at every offset, and the note
/// says that none of that reached the device below a page; the estimate
/// makes none.
#[test]
fn a_buffered_probe_says_it_went_through_the_page_cache() {
    let dir = common::temp_dir("probe-buffered");
    let (p, offsets) = run(&dir, &probe_source("512B", "256B", "64KiB", 2, "buffered"), &[]);
    let page = page_size();
    assert_eq!(p["durable"], "writes through the page cache, each followed by fdatasync");
    let note = p["note"].as_str().unwrap();
    let words = format!(
        "the whole probe went through the page cache, which writes back whole {} KiB pages: writes and steps below {} KiB do not reach the device as such",
        page / 1024,
        page / 1024
    );
    assert!(note.starts_with(&words), "{note}");
    assert_eq!((p["offsets"].as_u64(), p["skipped"].as_u64()), (Some((65536 - 512) / 256 + 1), Some(0)));
    assert_eq!(offsets.len(), 255, "every planned offset is timed");
    assert_eq!(p["unit_bytes"].as_u64(), Some(page));
    let verdict = p["pages"]["verdict"].as_str().unwrap();
    assert!(verdict.starts_with("no estimate: each write reaches the device as one"), "{verdict}");
    assert!(p["pages"]["page_bytes"].is_null());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// On tmpfs there is no device: the note says the target is RAM.
#[test]
fn a_probe_on_tmpfs_says_there_is_no_flash() {
    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        return skip("there is no /dev/shm (tmpfs) to put a target on");
    }
    let dir = common::temp_dir("probe-tmpfs");
    let target = shm.join(format!("methodic-probe-{}.bin", std::process::id()));
    std::fs::File::create(&target).unwrap().set_len(1 << 20).unwrap();
    let (p, _) = run(
        &dir,
        &probe_source("512B", "256B", "16KiB", 1, "buffered"),
        &["--target", target.to_str().unwrap(), "--overwrite"],
    );
    let note = p["note"].as_str().unwrap();
    assert!(note.starts_with("the whole probe went through the page cache"), "{note}");
    assert!(note.ends_with("the target is a file on tmpfs, in RAM: there is no flash behind it"), "{note}");
    std::fs::remove_file(&target).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Sectors written, from /sys/block/NAME/stat. (Its count of writes is
/// no help here: the kernel counts the empty write that carries each
/// fdatasync's cache flush as a write as well.)
fn sectors(name: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    text.split_whitespace().nth(6).unwrap().parse().unwrap()
}

/// On a loop device (512B logical blocks): 1KiB direct writes arrive as
/// two sectors each; 512B buffered writes arrive as whole 4KiB pages (two
/// where the write spans two pages), never as 512B.
#[test]
fn the_device_sees_what_the_note_says() {
    let Some(lock) = devices::devices() else { return skip("not root, so no loop device can be set up") };
    let Some(l) = devices::Loop::setup(&lock, 64 << 20) else {
        return skip("no loop device could be set up (losetup)");
    };
    let dev = l.dev.to_str().unwrap();
    let consent = ["--target", dev, "--destroy", dev];

    let dir = common::temp_dir("probe-loop-direct");
    let before = sectors(&l.name());
    let (p, offsets) = run(&dir, &probe_source("1KiB", "512B", "64KiB", 3, "direct"), &consent);
    let after = sectors(&l.name());
    assert_eq!(p["unit_bytes"], 512, "{p}");
    assert_eq!((p["offsets"].as_u64(), p["skipped"].as_u64()), (Some(127), Some(0)), "{p}");
    assert_eq!(offsets.len(), 127);
    assert_eq!(after - before, 127 * 3 * 2, "each probe write reached the device as its 1KiB, two sectors");
    std::fs::remove_dir_all(&dir).unwrap();

    let dir = common::temp_dir("probe-loop-buffered");
    let before = sectors(&l.name());
    let (p, offsets) = run(&dir, &probe_source("512B", "256B", "16KiB", 2, "buffered"), &consent);
    let after = sectors(&l.name());
    let page = page_size();
    assert_eq!(p["unit_bytes"].as_u64(), Some(page), "{p}");
    assert_eq!(offsets.len(), 63);
    let pages: u64 = offsets.iter().map(|o| (o + 511) / page - o / page + 1).sum();
    let written = after - before;
    assert_eq!(written, 2 * pages * page / 512, "each write went back as whole pages, twice over");
    assert!(written >= 2 * 63 * page / 512, "no write reached the device as 512B");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// zram takes direct I/O only in 4KiB blocks: the probe's 1KiB writes are
/// rounded up to 4KiB, the offsets between blocks are skipped, the device
/// sees 4KiB per probe write, and there is no estimate.
#[test]
fn on_4k_blocks_writes_are_rounded_up_and_offsets_between_skipped() {
    let Some(lock) = devices::devices() else { return skip("not root, so zram cannot be set up") };
    if !Path::new("/sys/block/zram0").exists() {
        return skip("this machine has no zram0 (modprobe zram)");
    }
    let Some(z) = devices::Zram::setup(&lock, 64 << 20) else { return };
    let dev = z.path();
    let dev = dev.to_str().unwrap();
    let dir = common::temp_dir("probe-zram");
    let before = sectors("zram0");
    let (p, offsets) =
        run(&dir, &probe_source("1KiB", "512B", "64KiB", 2, "direct"), &["--target", dev, "--destroy", dev]);
    let after = sectors("zram0");
    assert_eq!((p["unit_bytes"].as_u64(), p["write_bytes"].as_u64()), (Some(4096), Some(4096)), "{p}");
    // Of the 127 planned offsets, those at multiples of 4KiB whose 4KiB
    // write fits in the range: 0, 4KiB, ... 60KiB.
    assert_eq!((p["offsets"].as_u64(), p["skipped"].as_u64()), (Some(16), Some(111)), "{p}");
    assert_eq!(offsets, (0..16).map(|k| k * 4096).collect::<Vec<u64>>());
    let note = p["note"].as_str().unwrap();
    assert!(
        note.contains("the 1 KiB write asked for is rounded up to the target's 4 KiB logical block"),
        "{note}"
    );
    assert!(note.contains("111 of the 127 offsets were not probed"), "{note}");
    assert!(note.ends_with("the target is a zram device, in RAM: there is no flash behind it"), "{note}");
    let verdict = p["pages"]["verdict"].as_str().unwrap();
    assert!(
        verdict.starts_with("no estimate: each write reaches the device as one 4 KiB block"),
        "{verdict}"
    );
    assert_eq!(after - before, 16 * 2 * 8, "each probe write reached the device as one 4KiB block");
    std::fs::remove_dir_all(&dir).unwrap();
}
