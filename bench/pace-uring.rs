//! The open loop with its due times handed to the kernel, for an A/B
//! against bench/pace-loop.c (bench/pacing.sh, `ONLY=linked`): one thread
//! keeps up to QD chains armed, each an io_uring timeout at the I/O's
//! absolute due time (CLOCK_MONOTONIC, `IORING_TIMEOUT_ABS`) linked to a
//! 4KiB O_DIRECT read at a random aligned offset of TARGET
//! (`IOSQE_IO_LINK`; `IORING_TIMEOUT_ETIME_SUCCESS`, so that the timeout
//! firing starts the read rather than cancelling it). The kernel issues
//! each read when its timer fires; the thread only waits for completions
//! and arms the next chain. Uniform due times at IOPS.
//!
//! Prints one line, as pace-loop does, over the I/Os due in the record
//! window (after RAMP_S): `started late_p50_us late_p99_us late_max_us
//! lat_p99_us`. The kernel starts each read, so when it started is not
//! seen here: the lateness columns are `-`, and lat (completion minus due
//! time, exact, sorted) is the figure to compare.
//!
//! Usage: pace-uring TARGET IOPS QD SECONDS RAMP_S
//! Build: cargo build --release -p methodic-runtime --example pace-uring

use std::alloc::{Layout, alloc_zeroed};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;

use io_uring::{IoUring, opcode, squeue, types};

fn mono_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given, which lives on this stack.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A read's user data has this bit clear; a timeout's, set.
const TIMEOUT: u64 = 1 << 63;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 6 {
        eprintln!("usage: pace-uring TARGET IOPS QD SECONDS RAMP_S");
        std::process::exit(2);
    }
    let (iops, qd): (f64, usize) = (args[2].parse().expect("IOPS"), args[3].parse().expect("QD"));
    let (seconds, ramp): (f64, f64) = (args[4].parse().expect("SECONDS"), args[5].parse().expect("RAMP_S"));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(&args[1])
        .unwrap_or_else(|e| panic!("{}: {e}", args[1]));
    let size = {
        let mut bytes: u64 = 0;
        // SAFETY: BLKGETSIZE64 writes one u64 to the pointer given, which lives on this stack.
        let r = unsafe { libc::ioctl(file.as_raw_fd(), 0x8008_1272, &mut bytes) };
        if r == 0 { bytes } else { file.metadata().expect("metadata").len() }
    };
    let blocks = size / 4096;
    assert!(blocks > 0, "{} is smaller than 4KiB", args[1]);
    // SAFETY: prctl takes numbers only.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1, 0, 0, 0) };

    let mut ring = IoUring::new((2 * qd).next_power_of_two().max(8) as u32).expect("io_uring");
    let layout = Layout::from_size_align(4096, 4096).expect("layout");
    // SAFETY: a non-zero size; each buffer is kept for the whole run.
    let buffers: Vec<*mut u8> = (0..qd).map(|_| unsafe { alloc_zeroed(layout) }).collect();
    let mut free: Vec<usize> = (0..qd).rev().collect();
    let mut due_of = vec![0u64; qd];
    let mut times = vec![types::Timespec::new(); qd];

    let gap = 1e9 / iops;
    let start = mono_ns() + 20_000_000;
    let record = start + (ramp * 1e9) as u64;
    let until = record + (seconds * 1e9) as u64;
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut lat: Vec<u64> = Vec::with_capacity((iops * seconds) as usize + 16);
    let (mut k, mut armed) = (0u64, 0usize);
    loop {
        while let Some(slot) = free.pop() {
            let due = start + (k as f64 * gap) as u64;
            if due >= until {
                free.push(slot);
                break;
            }
            k += 1;
            due_of[slot] = due;
            times[slot] = types::Timespec::new().sec(due / 1_000_000_000).nsec((due % 1_000_000_000) as u32);
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let timeout = opcode::Timeout::new(&times[slot])
                .flags(types::TimeoutFlags::ABS | types::TimeoutFlags::ETIME_SUCCESS)
                .build()
                .flags(squeue::Flags::IO_LINK)
                .user_data(TIMEOUT | slot as u64);
            let read = opcode::Read::new(types::Fd(file.as_raw_fd()), buffers[slot], 4096)
                .offset((seed % blocks) * 4096)
                .build()
                .user_data(slot as u64);
            // SAFETY: the timespec and the buffer live until the chain completes (the slot is not
            // reused before its read's completion is reaped).
            unsafe {
                let mut sq = ring.submission();
                sq.push(&timeout).expect("room for the timeout");
                sq.push(&read).expect("room for the read");
            }
            armed += 1;
        }
        if armed == 0 {
            break;
        }
        ring.submit_and_wait(1).expect("io_uring_enter");
        let now = mono_ns();
        for cqe in ring.completion() {
            let data = cqe.user_data();
            if data & TIMEOUT != 0 {
                continue;
            }
            assert_eq!(cqe.result(), 4096, "a read failed");
            let slot = data as usize;
            if due_of[slot] >= record {
                lat.push(now - due_of[slot]);
            }
            free.push(slot);
            armed -= 1;
        }
    }
    lat.sort_unstable();
    let n = lat.len();
    if n == 0 {
        println!("0 - - - -");
        return;
    }
    let at = |q: f64| lat[((q * (n - 1) as f64) + 0.5) as usize] as f64 / 1000.0;
    println!("{n} - - - {:.1}", at(0.99));
}
