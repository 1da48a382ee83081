//! A worker: one thread, one engine, one target file, a queue depth to keep
//! full. It issues the generator's I/Os until its time is up, its byte
//! quota is issued or the run is stopped, records each completion's
//! latency (after the ramp) and sends its per-interval counts to the
//! series collector. Closed loop, it starts an I/O as one completes; open
//! loop (a rate, see [`pace`]), it starts each I/O when it is due, and
//! counts its latency from then.

pub mod pace;

use std::io;
use std::os::unix::io::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use methodic_compiler::plan::{Bytes, DataPattern, Pauses, Workload};
use methodic_results::record::FailedIo;

use self::pace::{OpenOutcome, OpenRate, Pace};

use crate::data::{Buffers, Pattern};
use crate::engine::uring::Uring;
use crate::engine::{Completion, Engine, EngineFactory, Request, Setup, mono_ns};
use crate::region::Region;
use crate::series::{Interval, Message};
use crate::stats::{LatencyTally, Recorder};
use crate::verify::{Findings, Stamping, Tracker};
use crate::workload::{Generator, Op};
use methodic_results::engine::EngineKind;

/// When a worker records and stops, counted from the moment every worker
/// of the step is ready.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Completions in the ramp are not recorded.
    pub ramp: Duration,
    /// Stop issuing after this much recording; `None` to stop by bytes only.
    pub record: Option<Duration>,
}

/// The interval a worker counts its I/Os in when its step keeps no series
/// (a rounds cell, a QoS probe): what the noise between its devices and
/// workers is measured over (docs/RESULTS.md, "Devices and workers").
pub const UNSERIED_INTERVAL: Duration = Duration::from_millis(100);

/// `Timing` made absolute once the workers start together, in
/// nanoseconds of the monotonic clock (see [`mono_ns`]).
#[derive(Debug, Clone, Copy)]
struct Clock {
    record_from: u64,
    /// `u64::MAX` for no end.
    until: u64,
}

/// A shared byte budget: workers stop issuing once together they have
/// issued `target` bytes of what it counts.
#[derive(Debug, Clone)]
pub struct SharedBudget {
    pub issued: Arc<AtomicU64>,
    pub target: Bytes,
    pub counts: Counts,
}

/// What a byte budget counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counts {
    /// Bytes written (`until written`): the reads of a mix go on while
    /// writes are left to make.
    Writes,
    /// Every byte read, written or trimmed (`until transferred`).
    Everything,
}

/// Where a worker sends its intervals.
#[derive(Debug, Clone)]
pub struct SeriesLink {
    pub tx: Sender<Message>,
    pub worker: usize,
    pub interval: Duration,
}

/// Everything one worker needs for one run of one step.
pub struct Job {
    pub fd: RawFd,
    pub engine: EngineKind,
    /// io_uring: send every I/O straight to a kernel worker.
    pub force_async: bool,
    /// I/Os kept in flight (open loop: at most).
    pub depth: u32,
    /// Open loop: this worker's share of the step's rate; `None`: closed
    /// loop.
    pub rate: Option<OpenRate>,
    /// Pauses between I/Os: think time after every N started, bursts.
    pub pauses: Pauses,
    pub workload: Workload,
    pub area: Region,
    pub stripe: Region,
    pub seed: u64,
    pub data: DataPattern,
    pub timing: Timing,
    /// Every worker of the step waits here after setting up, so that
    /// setting up a ring or filling buffers eats into no one's ramp.
    pub start: Arc<Barrier>,
    /// Bytes this worker issues at most (a fill's passes over its stripe).
    pub quota: Option<Bytes>,
    pub budget: Option<SharedBudget>,
    pub series: Option<SeriesLink>,
    pub stop: Arc<AtomicBool>,
    /// Set by a worker that cannot start, so that the others, already
    /// past the start barrier, stop too.
    pub abort: Arc<AtomicBool>,
    /// Pin the thread to this CPU.
    pub cpu: Option<usize>,
    /// Record latencies and the series. Off only to measure what recording
    /// costs (`bench/vs-fio.sh`): I/Os and bytes are still counted.
    pub latency: bool,
    /// Makes the worker's engine ([`crate::engine::Real`] but in tests).
    pub engines: Arc<dyn EngineFactory>,
    /// Which of the run's targets `fd` is, from 0.
    pub target: usize,
    /// A step with `verify`: stamp what it writes, and keep what it
    /// wrote whole or check what it reads.
    pub verify: Option<WorkerVerify>,
    /// Tests (the batch-stamp benchmark): also record each completion's
    /// latency stamped on its own, as the worker comes to it.
    #[cfg(test)]
    pub each_stamp: Option<std::sync::Arc<std::sync::Mutex<Recorder>>>,
}

/// A step with `verify`, as one worker does it.
#[derive(Clone)]
pub struct WorkerVerify {
    pub stamping: Stamping,
    /// The worker's number in its stamps.
    pub worker: u32,
    /// A step that writes: its target's record of what was written whole
    /// (and trimmed), to read back once the step's writes end.
    pub tracker: Option<Arc<Tracker>>,
    /// A step that only reads: check each read as it completes.
    pub check_reads: bool,
}

/// What a worker did.
#[derive(Debug)]
pub struct Outcome {
    pub recorder: Recorder,
    /// The engine the factory made.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "the engine tests read it; a step names its engine as chosen")
    )]
    pub engine: EngineKind,
    pub fixed_buffers: bool,
    /// io_uring sent every I/O to a kernel worker (the file has no nowait support).
    pub force_async: bool,
    /// The average number of I/Os in flight over the record window,
    /// weighted by time (see [`InflightClock`]).
    pub mean_inflight: f64,
    /// Failed or short I/Os. The first one stops the step: this worker
    /// issues no more, and tells the step's other workers to stop.
    pub errors: u64,
    pub first_error: Option<IoFailure>,
    /// I/Os that completed in full, recorded or not (ramp included).
    pub completed: u64,
    /// Bytes issued, recorded or not (ramp included).
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "the quota's tests read it; a step counts by its recorder")
    )]
    pub issued_bytes: u64,
    /// Bytes written: those of the writes issued, less what failed writes
    /// did not write.
    pub written_bytes: u64,
    /// When recording began, and when the last recorded I/O completed.
    pub record_from: Instant,
    pub last_recorded: Option<Instant>,
    /// Open loop: what was due, started, late and never started.
    pub open: Option<OpenOutcome>,
    /// I/Os recorded in each series interval of the record window, by the
    /// interval's index from 0 (the last may be cut short by the end).
    pub interval_ios: Vec<u64>,
    /// Bursts (`bursts ON every PERIOD`): the recorded I/Os started in
    /// each burst of the record window, by its index from 0; empty without
    /// bursts.
    pub bursts: Vec<BurstTally>,
    /// Bursts: recorded I/Os started before the record window (in the
    /// ramp's last burst), in no burst of it.
    pub bursts_from_ramp: u64,
    /// A step that checks its reads: what the checks found.
    pub verify: Option<Findings>,
}

/// The recorded I/Os started in one burst, and their latencies summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BurstTally {
    pub ios: u64,
    pub latency_ns: u64,
}

/// A slot's I/O in flight.
#[derive(Clone, Copy)]
struct Pending {
    op: Op,
    offset: u64,
    len: u32,
    /// When its latency counts from, in [`mono_ns`]: when it was handed
    /// to the engine (closed loop) or when it was due (open loop).
    issued_at: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoFailure {
    pub op: Op,
    pub offset: u64,
    pub len: u32,
    /// The result: -errno, or the bytes of a short transfer.
    pub result: i32,
}

/// `read`, `write` or `trim`: an op as results and messages name it.
pub fn op_word(op: Op) -> &'static str {
    match op {
        Op::Read => "read",
        Op::Write => "write",
        Op::Trim => "trim",
    }
}

impl IoFailure {
    /// `write of 65536 bytes at offset 8388608 failed with EIO (Input/output error)`.
    pub fn describe(&self) -> String {
        let what = op_word(self.op);
        if self.result < 0 {
            let errno = -self.result;
            let text = io::Error::from_raw_os_error(errno).to_string();
            // `Input/output error (os error 5)`: the words, without the number.
            let words = text.split(" (os error").next().unwrap_or(&text);
            format!(
                "{what} of {} bytes at offset {} failed with {} ({words})",
                self.len,
                self.offset,
                errno_name(errno)
            )
        } else {
            format!("{what} of {} bytes at offset {} moved only {} bytes", self.len, self.offset, self.result)
        }
    }

    /// The errno name (`EIO`), or `None` for a short transfer.
    pub fn errno(&self) -> Option<String> {
        (self.result < 0).then(|| errno_name(-self.result))
    }

    /// The record of this failed I/O on `target`, as results keep it.
    pub(crate) fn record(&self, target: &std::path::Path) -> FailedIo {
        FailedIo {
            target: target.to_path_buf(),
            op: op_word(self.op).to_string(),
            offset: self.offset,
            len: self.len,
            errno: self.errno(),
            result: self.result,
            error: self.describe(),
        }
    }
}

/// The name of an errno a storage I/O may fail with; others as `errno N`.
fn errno_name(errno: i32) -> String {
    let name = match errno {
        libc::EIO => "EIO",
        libc::ENOSPC => "ENOSPC",
        libc::EINVAL => "EINVAL",
        libc::EAGAIN => "EAGAIN",
        libc::EBADF => "EBADF",
        libc::EFAULT => "EFAULT",
        libc::ENODEV => "ENODEV",
        libc::ENXIO => "ENXIO",
        libc::EROFS => "EROFS",
        libc::EPERM => "EPERM",
        libc::EACCES => "EACCES",
        libc::ENOMEM => "ENOMEM",
        libc::EFBIG => "EFBIG",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::ETIMEDOUT => "ETIMEDOUT",
        libc::ECANCELED => "ECANCELED",
        libc::EILSEQ => "EILSEQ",
        libc::ENODATA => "ENODATA",
        libc::EREMOTEIO => "EREMOTEIO",
        libc::ENOTCONN => "ENOTCONN",
        libc::EDQUOT => "EDQUOT",
        _ => return format!("errno {errno}"),
    };
    name.to_string()
}

pub fn run(job: Job) -> io::Result<Outcome> {
    // One loop, made twice: the closed loop's has none of the open loop's
    // work in it (`if OPEN` goes at compile time). Pauses (think time,
    // bursts) wait on the clock as an open loop does, so they take its
    // loop, without a rate.
    // Verification is made in the same way (`VERIFY`): a loop without
    // it has none of its work in it.
    let open = job.rate.is_some() || !job.pauses.is_none();
    match (open, job.verify.is_some()) {
        (false, false) => drive::<false, false>(job),
        (true, false) => drive::<true, false>(job),
        (false, true) => drive::<false, true>(job),
        (true, true) => drive::<true, true>(job),
    }
}

/// A worker's run, closed loop (`OPEN` false: an I/O starts as one
/// completes) or open loop (`OPEN` true: an I/O starts when it is due and
/// a slot is free, and its latency counts from when it was due).
/// With `VERIFY`, writes are stamped and, once done, kept in the step's
/// tracker; a step that only reads checks each read.
#[expect(
    clippy::too_many_lines,
    reason = "the per-I/O loop, kept whole: its set-up and an interval's end are functions, but a call in the loop is paid on every I/O, and even splits off that path moved instructions an I/O by up to 4% with what the compiler inlined (callgrind, psync QD1)"
)]
fn drive<const OPEN: bool, const VERIFY: bool>(job: Job) -> io::Result<Outcome> {
    if let Some(cpu) = job.cpu {
        pin(cpu);
    }
    let depth = job.depth.max(1) as usize;
    let mut generator = Generator::new(&job.workload, job.area, job.stripe, job.seed);
    let mut buffers = Buffers::new(depth, generator.largest_block() as usize);
    // Every write sets all its bytes (`prepare_write`) and every read
    // overwrites its buffer: nothing in them needs filling first.
    let mut pattern = Pattern::new(job.data, job.seed.rotate_left(29));
    let mut engine = start_engine(&job, &buffers, depth)?;
    let (engine_kind, fixed_buffers, force_async) =
        (engine.kind(), engine.fixed_buffers(), engine.force_async());
    // The same moment on both clocks, to give Instants back at the end.
    let (start, start_ns) = (Instant::now(), mono_ns());
    let record_from = start_ns + job.timing.ramp.as_nanos() as u64;
    let clock = Clock {
        record_from,
        until: job.timing.record.map_or(u64::MAX, |r| record_from.saturating_add(r.as_nanos() as u64)),
    };
    let instant = |ns: u64| start + Duration::from_nanos(ns.saturating_sub(start_ns));
    let mut last_recorded = None;

    let mut free: Vec<u16> = (0..depth as u16).rev().collect();
    // What each slot's I/O is, and when it was issued: one entry, one
    // bounds check where a completion looks both up.
    let mut pending: Vec<Pending> = vec![Pending { op: Op::Read, offset: 0, len: 0, issued_at: 0 }; depth];
    let mut reqs: Vec<Request> = Vec::with_capacity(depth);
    let mut done: Vec<Completion> = Vec::with_capacity(depth);
    let mut recorder = Recorder::default();
    let mut inflight = 0usize;
    let mut depth_kept = InflightClock::new(clock.record_from, clock.until);
    let mut issued_bytes = 0u64;
    let mut written_bytes = 0u64;
    let mut errors = 0u64;
    let mut first_error = None;
    let mut completed = 0u64;
    let mut issuing = true;
    // Verify: the writes this worker made (their sequence numbers), and
    // what checking its reads found.
    let mut writes_made = 0u64;
    let mut findings = Findings::default();

    // Completions are recorded once, into the current interval; at each
    // interval's end it is added to the worker's total (and sent to the
    // series when there is one).
    #[cfg(test)]
    let mut each_stamp = job.each_stamp.as_ref().map(|_| Recorder::default());
    let mut interval = Interval::new(0);
    // Latencies are counted here, cheaply, and added to the interval's
    // histograms at its end.
    let mut tally = LatencyTally::default();
    let interval_len = job.series.as_ref().map_or(UNSERIED_INTERVAL, |s| s.interval).as_nanos().max(1) as u64;
    let mut next_boundary = clock.record_from + interval_len;
    // Open loop: the schedule starts at the start barrier, ramp included.
    let mut pace = job.rate.filter(|_| OPEN).map(|r| {
        pace::tight_timer();
        Pace::new(r, job.seed, start_ns, clock.record_from, clock.until)
    });
    // Pauses: no I/O starts before `gate.hold` (think time), nor outside a
    // burst's first `on` of each period, counted from the record window's
    // start (a ramp's bursts on the same grid, before it).
    let mut gate = Gate::new(job.pauses, clock.record_from);
    // Bursts: the burst each slot's I/O started in (`None`: before the
    // record window), and what each burst's recorded I/Os came to.
    let counting_bursts = OPEN && job.pauses.bursts.is_some();
    let mut burst_of: Vec<Option<u32>> = vec![None; if counting_bursts { depth } else { 0 }];
    let mut bursts: Vec<BurstTally> = Vec::new();
    let mut bursts_from_ramp = 0u64;
    let mut interval_ios: Vec<u64> = Vec::new();
    if OPEN && !job.pauses.is_none() {
        pace::tight_timer();
    }

    loop {
        // Open loop: the I/Os due by now start, oldest first, while a
        // slot is free; the others wait (a backlog), their latency running.
        let due_by = if OPEN { mono_ns() } else { 0 };
        if OPEN && inflight == 0 {
            // A drained think's pause starts once the last I/O is back.
            gate.drained(due_by);
        }
        if issuing {
            while let Some(slot) = free.pop() {
                if OPEN
                    && (pace.as_ref().is_some_and(|p| p.next() > due_by)
                        || gate.closed_until(due_by) > due_by)
                {
                    free.push(slot);
                    break;
                }
                let over_quota = job.quota.is_some_and(|q| issued_bytes >= q.0);
                if over_quota || job.stop.load(Ordering::Relaxed) || job.abort.load(Ordering::Relaxed) {
                    free.push(slot);
                    issuing = false;
                    break;
                }
                let mut io = generator.next_io();
                if let Some(q) = job.quota {
                    // The remainder can exceed 4GiB: a plain cast would wrap it.
                    io.len = io.len.min(u32::try_from(q.0 - issued_bytes).unwrap_or(u32::MAX)).max(1);
                }
                if let Some(b) = &job.budget {
                    let spent = if io.op == Op::Write || b.counts == Counts::Everything {
                        b.issued.fetch_add(io.len as u64, Ordering::Relaxed)
                    } else {
                        b.issued.load(Ordering::Relaxed)
                    };
                    if spent >= b.target.0 {
                        free.push(slot);
                        issuing = false;
                        break;
                    }
                }
                if io.op == Op::Write {
                    pattern.prepare_write(&mut buffers.slot(slot as usize)[..io.len as usize]);
                    if VERIFY && let Some(v) = &job.verify {
                        writes_made += 1;
                        let buf = &mut buffers.slot(slot as usize)[..io.len as usize];
                        v.stamping.stamp(buf, io.offset, v.worker, writes_made);
                    }
                    written_bytes += io.len as u64;
                }
                issued_bytes += io.len as u64;
                let due = if OPEN { pace.as_mut().map_or(due_by, |p| p.take()) } else { 0 };
                if OPEN {
                    gate.started(due_by);
                    if counting_bursts {
                        burst_of[slot as usize] = gate.burst(due_by);
                    }
                }
                pending[slot as usize] =
                    Pending { op: io.op, offset: io.offset, len: io.len, issued_at: due };
                reqs.push(Request { slot, io });
            }
        }
        if inflight + reqs.len() == 0 {
            if !OPEN || !issuing {
                break;
            }
            // Open loop, nothing in flight, nothing due: wait for the next
            // I/O's due time, or the end of a pause (or the window's end, or
            // the stop flags).
            let next = match pace.as_ref() {
                Some(p) => p.next().max(gate.closed_until(due_by)),
                None => gate.closed_until(due_by).max(due_by),
            };
            pace::sleep_until(next.min(clock.until).min(due_by.saturating_add(pace::MAX_WAIT_NS)));
        } else {
            let now = mono_ns();
            if OPEN {
                if let Some(p) = pace.as_mut() {
                    for r in &reqs {
                        p.started(now, pending[r.slot as usize].issued_at);
                    }
                }
            } else {
                for r in &reqs {
                    pending[r.slot as usize].issued_at = now;
                }
            }
            depth_kept.advance(now, inflight);
            inflight += reqs.len();
            if OPEN && issuing && !free.is_empty() {
                // A slot is free and nothing more is due: wait for a
                // completion or the next due time, whichever comes first;
                // a wait too short to sleep through is spun, polling.
                // Without a rate, an I/O is due as soon as the gate opens.
                let next = pace.as_ref().map_or(now, |p| p.next()).max(gate.closed_until(now));
                let deadline = next.min(clock.until).min(now.saturating_add(pace::MAX_WAIT_NS));
                if deadline <= now.saturating_add(pace::SPIN_NS) {
                    engine.run(&reqs, 0, &mut done)?;
                } else {
                    engine.run_until(&reqs, deadline, &mut done)?;
                }
            } else {
                engine.run(&reqs, 1, &mut done)?;
            }
            reqs.clear();
        }
        let now = mono_ns();
        // Until the completions were reaped, every I/O counts as in flight:
        // as for their latency, their reaping is when they are known done.
        depth_kept.advance(now, inflight);
        let recording = now >= clock.record_from && now <= clock.until;
        if recording && now >= next_boundary {
            let index = (now - clock.record_from) / interval_len;
            let finished = std::mem::replace(&mut interval, Interval::new(index));
            end_interval(finished, &mut tally, &mut recorder, &mut interval_ios, job.series.as_ref());
            next_boundary = clock.record_from + interval_len * (index + 1);
        }
        let completed_before = completed;
        for c in done.drain(..) {
            inflight -= 1;
            free.push(c.slot);
            let Pending { op, offset, len, issued_at } = pending[c.slot as usize];
            // Done in full: a read or write moved its length; a trim says
            // its length too (the engines make the kernel's 0 so).
            if c.result != len as i32 {
                errors += 1;
                first_error.get_or_insert(IoFailure { op, offset, len, result: c.result });
                if op == Op::Write {
                    written_bytes -= len as u64 - c.result.max(0) as u64;
                }
                // The step has failed: no worker of it issues more, and
                // what is in flight completes and is counted.
                issuing = false;
                job.abort.store(true, Ordering::SeqCst);
                continue;
            }
            completed += 1;
            if VERIFY && let Some(v) = &job.verify {
                match (op, &v.tracker) {
                    (Op::Write, Some(t)) => t.wrote(offset, len as u64),
                    (Op::Trim, Some(t)) => t.trimmed(offset, len as u64),
                    (Op::Read, _) if v.check_reads => {
                        let buf = &buffers.slot(c.slot as usize)[..len as usize];
                        v.stamping.check(buf, offset, &mut findings);
                    }
                    _ => {}
                }
            }
            if recording {
                interval.rec.count(op, len as u64);
                if counting_bursts {
                    match burst_of[c.slot as usize] {
                        Some(b) => {
                            let b = b as usize;
                            if bursts.len() <= b {
                                bursts.resize(b + 1, BurstTally::default());
                            }
                            bursts[b].ios += 1;
                            bursts[b].latency_ns = bursts[b].latency_ns.saturating_add(now - issued_at);
                        }
                        None => bursts_from_ramp += 1,
                    }
                }
                if job.latency {
                    // Both stamps come from the monotonic clock, the issue's first.
                    let latency = now - issued_at;
                    tally.record(op, latency);
                    #[cfg(test)]
                    if let Some(each) = each_stamp.as_mut() {
                        let own = mono_ns() - issued_at;
                        each.record(op, len as u64, own);
                    }
                }
            }
        }
        if recording && completed > completed_before {
            last_recorded = Some(now);
        }
        if now >= clock.until || job.stop.load(Ordering::Relaxed) || job.abort.load(Ordering::Relaxed) {
            issuing = false;
        }
        if OPEN && !issuing {
            // Whatever stopped it, the worker starts no more: what was due
            // and not started by now never will be.
            if let Some(p) = pace.as_mut().filter(|p| !p.closed()) {
                p.close(now);
            }
        }
    }
    // A worker that stopped issuing with nothing in flight left the loop
    // before closing its schedule (a no-op when it was closed).
    if let Some(p) = pace.as_mut() {
        p.close(mono_ns());
    }
    #[cfg(test)]
    if let (Some(each), Some(shared)) = (each_stamp, job.each_stamp.as_ref()) {
        shared.lock().unwrap().merge(&each);
    }
    end_interval(interval, &mut tally, &mut recorder, &mut interval_ios, job.series.as_ref());
    if let Some(link) = job.series.as_ref() {
        let recorded = match job.timing.record {
            Some(r) => r.as_secs_f64(),
            None => last_recorded.map_or(0.0, |l: u64| l.saturating_sub(clock.record_from) as f64 / 1e9),
        };
        let _ = link.tx.send(Message::Done { worker: link.worker, seconds: recorded });
    }
    Ok(Outcome {
        recorder,
        engine: engine_kind,
        fixed_buffers,
        force_async,
        mean_inflight: depth_kept.mean(),
        errors,
        first_error,
        completed,
        issued_bytes,
        written_bytes,
        record_from: instant(clock.record_from),
        last_recorded: last_recorded.map(instant),
        open: pace.map(Pace::finish),
        interval_ios,
        bursts,
        bursts_from_ramp,
        verify: job.verify.as_ref().filter(|v| v.check_reads).map(|_| findings),
    })
}

/// The worker's engine, made as `job` says over `buffers`, `depth` I/Os
/// deep, once every worker of the step is ready: all of them wait at the
/// start barrier, so that setting up eats into no one's ramp.
fn start_engine(job: &Job, buffers: &Buffers, depth: usize) -> io::Result<Box<dyn Engine>> {
    let made = job.engines.make(&Setup {
        kind: job.engine,
        fd: job.fd,
        buffers,
        depth: depth as u32,
        force_async: job.force_async,
        target: job.target,
        trims: job.workload.trim > methodic_compiler::plan::Percent::ZERO,
    });
    // Every worker reaches the barrier, the one that failed too, or the
    // others would wait for it forever; it tells them to stop at once.
    if made.is_err() {
        job.abort.store(true, Ordering::SeqCst);
    }
    job.start.wait();
    made
}

/// Ends an interval: its I/Os noted by its index in `counts`, the
/// latencies `tally` counted in it added to its histograms, it added to
/// the worker's total, and sent to the series when there is one.
fn end_interval(
    mut finished: Interval,
    tally: &mut LatencyTally,
    recorder: &mut Recorder,
    counts: &mut Vec<u64>,
    series: Option<&SeriesLink>,
) {
    count_interval(counts, &finished);
    tally.drain_into(&mut finished.rec);
    recorder.merge(&finished.rec);
    if let Some(link) = series {
        let _ = link.tx.send(Message::Interval { worker: link.worker, interval: Box::new(finished) });
    }
}

/// Notes the I/Os of a finished interval at its index (intervals with no
/// completion in them are never made: they stay 0).
fn count_interval(counts: &mut Vec<u64>, interval: &Interval) {
    let ios = interval.rec.ios();
    let at = interval.index as usize;
    if ios == 0 && at >= counts.len() {
        return;
    }
    if counts.len() <= at {
        counts.resize(at + 1, 0);
    }
    counts[at] += ios;
}

/// Where a worker's pauses stand: when it may start I/Os again after its
/// think time, and the bursts' period, from the start of the record window
/// (monotonic nanoseconds; periods in the ramp count back from it).
struct Gate {
    pauses: Pauses,
    start_ns: u64,
    /// No I/O starts before this (think time).
    hold: u64,
    /// I/Os started since the last think.
    started: u32,
    /// A drained think is waiting for the I/Os in flight to complete.
    draining: bool,
}

impl Gate {
    fn new(pauses: Pauses, start_ns: u64) -> Gate {
        Gate { pauses, start_ns, hold: 0, started: 0, draining: false }
    }

    /// When I/Os may start again, seen at `now`: `now` or before when they
    /// may start now.
    #[inline]
    fn closed_until(&self, now: u64) -> u64 {
        let mut until = self.hold;
        if let Some(b) = self.pauses.bursts {
            let period = (b.every.as_millis() * 1_000_000).max(1);
            let on = b.on.as_millis() * 1_000_000;
            let into = if now >= self.start_ns {
                (now - self.start_ns) % period
            } else {
                (period - (self.start_ns - now) % period) % period
            };
            if into >= on {
                until = until.max(now + (period - into));
            }
        }
        until
    }

    /// The burst of the record window an I/O started at `now` is in, from
    /// 0: the period it falls in (the gate admits I/Os only in a period's
    /// `on`); `None` before the window, or without bursts.
    #[inline]
    fn burst(&self, now: u64) -> Option<u32> {
        let b = self.pauses.bursts?;
        let period = (b.every.as_millis() * 1_000_000).max(1);
        now.checked_sub(self.start_ns).map(|into| u32::try_from(into / period).unwrap_or(u32::MAX))
    }

    /// An I/O started at `now`: after every `every`, the think time; a
    /// drained one holds every I/O until those in flight are back.
    #[inline]
    fn started(&mut self, now: u64) {
        if let Some(t) = self.pauses.think {
            self.started += 1;
            if self.started >= t.every {
                self.started = 0;
                if t.drained {
                    self.draining = true;
                    self.hold = u64::MAX;
                } else {
                    self.hold = now.saturating_add(t.pause_ns);
                }
            }
        }
    }

    /// Nothing is in flight at `now`: a drained think's pause starts.
    #[inline]
    fn drained(&mut self, now: u64) {
        if self.draining {
            self.draining = false;
            self.hold = now.saturating_add(self.pauses.think.map_or(0, |t| t.pause_ns));
        }
    }
}

/// The queue depth a worker kept, weighted by time: the number of I/Os in
/// flight integrated over the record window, divided by its length. A
/// psync thread keeps its one I/O in flight only while in the system
/// call, so its mean is below 1 by the share of time spent between calls;
/// an io_uring worker's mean falls below its depth while it prepares the
/// next batch. (Sampling at each submission, as before, always read the
/// full depth.)
#[derive(Debug, Clone)]
pub struct InflightClock {
    /// Monotonic nanoseconds.
    from: u64,
    until: u64,
    last: u64,
    /// I/O-nanoseconds in flight, and nanoseconds counted.
    area: u128,
    span: u128,
}

impl InflightClock {
    /// Counts time between `from` and `until` (nanoseconds; `u64::MAX`
    /// for no end).
    pub fn new(from: u64, until: u64) -> InflightClock {
        InflightClock { from, until, last: from, area: 0, span: 0 }
    }

    /// `inflight` I/Os were in flight since the last call (or since `from`).
    #[inline]
    pub fn advance(&mut self, now: u64, inflight: usize) {
        let start = self.last.max(self.from);
        let end = now.min(self.until);
        if end > start {
            let ns = (end - start) as u128;
            self.area += ns * inflight as u128;
            self.span += ns;
        }
        self.last = self.last.max(now);
    }

    pub fn mean(&self) -> f64 {
        if self.span == 0 { 0.0 } else { self.area as f64 / self.span as f64 }
    }
}

/// Pins the calling thread to `cpu` (best effort).
fn pin(cpu: usize) {
    // SAFETY: cpu_set_t is a plain bit mask (all zeroes: no CPU); CPU_SET sets one bit of it, and
    // sched_setaffinity reads it with its own size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// Whether io_uring works here: a ring can be made and a file registered.
pub fn io_uring_available() -> Result<(), String> {
    let buffers = Buffers::new(1, 4096);
    let file = std::fs::File::open("/proc/self/stat").map_err(|e| e.to_string())?;
    use std::os::unix::io::AsRawFd;
    Uring::new(file.as_raw_fd(), &buffers, 2, false, false).map(|_| ()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use std::os::unix::io::AsRawFd;

    use methodic_compiler::plan::{BlockShare, Bytes, Percent};

    use super::*;
    use crate::engine::fault::{Fault, FaultyEngines};
    use crate::rng::Rng;

    fn job(fd: RawFd, engine: EngineKind, depth: u32, read: u32, until: Duration) -> Job {
        Job {
            fd,
            engine,
            force_async: false,
            depth,
            rate: None,
            pauses: Pauses::default(),
            workload: Workload {
                name: "t".into(),
                blocks: vec![BlockShare { size: Bytes(4096), share: Percent::HUNDRED }],
                read: Percent::whole(read),
                random: Percent::HUNDRED,
                align: Bytes(4096),
                offset: Bytes(0),
                access: Default::default(),
                trim: Percent::ZERO,
                write_blocks: None,
            },
            area: Region { start: 0, len: 16 << 20 },
            stripe: Region { start: 0, len: 16 << 20 },
            seed: 5,
            data: DataPattern::Random,
            timing: Timing { ramp: Duration::ZERO, record: Some(until) },
            start: Arc::new(Barrier::new(1)),
            quota: None,
            budget: None,
            series: None,
            stop: Arc::new(AtomicBool::new(false)),
            abort: Arc::new(AtomicBool::new(false)),
            cpu: None,
            latency: true,
            engines: Arc::new(crate::engine::Real),
            target: 0,
            verify: None,
            each_stamp: None,
        }
    }

    fn scratch(name: &str) -> (std::path::PathBuf, std::fs::File) {
        let path = std::env::temp_dir().join(format!("methodic-worker-{name}-{}", std::process::id()));
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        f.set_len(16 << 20).unwrap();
        (path, f)
    }

    #[test]
    fn both_engines_run_a_mix_and_keep_the_queue_full() {
        let (path, f) = scratch("engines");
        for (engine, depth) in [(EngineKind::Psync, 1), (EngineKind::IoUring, 8)] {
            if engine == EngineKind::IoUring && !crate::testing::io_uring_or_skip() {
                continue;
            }
            let out = run(job(f.as_raw_fd(), engine, depth, 50, Duration::from_millis(200))).unwrap();
            assert_eq!(out.engine, engine);
            assert_eq!(out.errors, 0);
            assert!(out.recorder.ios() > 100, "{engine:?}: {} I/Os", out.recorder.ios());
            assert!(out.recorder.read.ios > 0 && out.recorder.write.ios > 0);
            // Weighted by time: never above the depth, and the queue was
            // kept most of the time it was recorded (what is left is the
            // worker's own time between reaping and submitting).
            assert!(
                out.mean_inflight > 0.0 && out.mean_inflight <= depth as f64,
                "{engine:?}: {}",
                out.mean_inflight
            );
        }
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn the_depth_kept_is_weighted_by_time_within_the_record_window() {
        let ms = |n: u64| 1_000_000_000 + n * 1_000_000;
        // Recording from 10ms to 110ms.
        let mut c = InflightClock::new(ms(10), ms(110));
        c.advance(ms(5), 0); // before the window: not counted
        c.advance(ms(20), 8); // 8 in flight 10..20 (only from 10)
        c.advance(ms(60), 2); // 2 in flight 20..60
        c.advance(ms(200), 4); // 4 in flight 60..110 (to the window's end)
        // (8*10 + 2*40 + 4*50) / 100
        assert!((c.mean() - 3.6).abs() < 1e-9, "{}", c.mean());
        assert_eq!(InflightClock::new(ms(10), u64::MAX).mean(), 0.0);
    }

    #[test]
    fn a_quota_issues_exactly_its_bytes() {
        let (path, f) = scratch("quota");
        let mut j = job(f.as_raw_fd(), EngineKind::Psync, 1, 0, Duration::from_secs(60));
        j.timing.record = None;
        j.quota = Some(Bytes(1 << 20));
        let out = run(j).unwrap();
        assert_eq!(out.issued_bytes, 1 << 20);
        assert_eq!(out.recorder.write.bytes, 1 << 20);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn an_until_written_budget_counts_only_writes() {
        let (path, f) = scratch("budget");
        let mut j = job(f.as_raw_fd(), EngineKind::Psync, 1, 50, Duration::from_secs(60));
        j.timing.record = None;
        let budget = SharedBudget {
            issued: Arc::new(AtomicU64::new(0)),
            target: Bytes(1 << 20),
            counts: Counts::Writes,
        };
        j.budget = Some(budget.clone());
        let out = run(j).unwrap();
        // One worker, one I/O at a time: it stops with the write that
        // reaches the budget.
        assert_eq!(out.written_bytes, 1 << 20);
        assert_eq!(out.recorder.write.bytes, 1 << 20);
        assert!(
            out.recorder.read.bytes > 0 && out.issued_bytes == out.written_bytes + out.recorder.read.bytes
        );
        assert!(budget.issued.load(Ordering::Relaxed) >= 1 << 20);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn an_until_transferred_budget_counts_reads_and_writes() {
        let (path, f) = scratch("transferred");
        let mut j = job(f.as_raw_fd(), EngineKind::Psync, 1, 50, Duration::from_secs(60));
        j.timing.record = None;
        let budget = SharedBudget {
            issued: Arc::new(AtomicU64::new(0)),
            target: Bytes(1 << 20),
            counts: Counts::Everything,
        };
        j.budget = Some(budget.clone());
        let out = run(j).unwrap();
        // One worker, one I/O at a time, blocks that divide 1MiB: it stops
        // with the I/O that reaches the budget, read or write.
        assert_eq!(out.issued_bytes, 1 << 20);
        assert_eq!(out.recorder.read.bytes + out.recorder.write.bytes, 1 << 20);
        assert!(out.recorder.read.bytes > 0 && out.recorder.write.bytes > 0);
        // The I/O that found the budget spent added its bytes, and did not start.
        assert_eq!(budget.issued.load(Ordering::Relaxed), (1 << 20) + 4096);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_drained_think_holds_every_io_until_those_in_flight_are_back() {
        use methodic_compiler::plan::Think;
        let think = Think { pause_ns: 5_000, every: 2, drained: true };
        let mut gate = Gate::new(Pauses { think: Some(think), bursts: None }, 0);
        gate.started(100);
        assert_eq!(gate.closed_until(100), 0, "one I/O of two: no pause yet");
        gate.started(200);
        assert_eq!(gate.closed_until(300), u64::MAX, "closed while the two are in flight");
        gate.drained(900);
        assert_eq!(gate.closed_until(900), 5_900, "the pause runs from the last completion");
        gate.drained(2_000);
        assert_eq!(gate.closed_until(2_000), 5_900, "once");
        // Not drained: the pause runs from the second start.
        let mut gate = Gate::new(Pauses { think: Some(Think { drained: false, ..think }), bursts: None }, 0);
        gate.started(100);
        gate.started(200);
        assert_eq!(gate.closed_until(300), 5_200);
    }

    /// An engine that completes one I/O a call, the oldest, so that I/Os
    /// stay in flight as long as the worker lets them; it notes the most it
    /// ever held.
    #[derive(Debug, Default)]
    struct Lagging {
        held: std::sync::Mutex<std::collections::VecDeque<Request>>,
        most: AtomicU64,
    }

    impl Lagging {
        fn step(&self, reqs: &[Request], done: &mut Vec<Completion>) {
            let mut held = self.held.lock().unwrap();
            held.extend(reqs.iter().copied());
            self.most.fetch_max(held.len() as u64, Ordering::Relaxed);
            if let Some(r) = held.pop_front() {
                done.push(Completion { slot: r.slot, result: r.io.len as i32 });
            }
        }
    }

    impl crate::engine::Engine for Arc<Lagging> {
        fn kind(&self) -> EngineKind {
            EngineKind::IoUring
        }

        fn run(&mut self, reqs: &[Request], _wait: usize, done: &mut Vec<Completion>) -> io::Result<()> {
            self.step(reqs, done);
            Ok(())
        }

        fn run_until(
            &mut self,
            reqs: &[Request],
            _deadline: u64,
            done: &mut Vec<Completion>,
        ) -> io::Result<()> {
            self.step(reqs, done);
            Ok(())
        }
    }

    impl crate::engine::EngineFactory for Arc<Lagging> {
        fn make(&self, _setup: &crate::engine::Setup<'_>) -> io::Result<Box<dyn crate::engine::Engine>> {
            Ok(Box::new(Arc::clone(self)))
        }
    }

    #[test]
    fn a_drained_think_keeps_no_more_in_flight_than_it_starts_between_pauses() {
        let most_held = |drained: bool| {
            let (path, f) = scratch(&format!("drained-{drained}"));
            let mut j = job(f.as_raw_fd(), EngineKind::IoUring, 8, 100, Duration::from_secs(3600));
            // No pause at all: what holds I/Os back is the draining alone.
            let think = methodic_compiler::plan::Think { pause_ns: 0, every: 2, drained };
            j.pauses = Pauses { think: Some(think), bursts: None };
            j.timing.record = None;
            j.quota = Some(Bytes(400 * 4096));
            let lagging = Arc::new(Lagging::default());
            j.engines = Arc::new(Arc::clone(&lagging));
            let out = run(j).unwrap();
            std::fs::remove_file(path).unwrap();
            assert_eq!(out.issued_bytes, 400 * 4096);
            lagging.most.load(Ordering::Relaxed)
        };
        // Two start, both come back, then the next two: never more than
        // two in flight, whatever the queue depth. Without draining, the
        // queue fills as the engine gives back one I/O at a time.
        assert_eq!(most_held(true), 2);
        assert!(most_held(false) > 2);
    }

    #[test]
    fn a_worker_that_cannot_start_stops_the_others() {
        if !crate::testing::io_uring_or_skip() {
            return;
        }
        let (path, f) = scratch("abort");
        let start = Arc::new(Barrier::new(2));
        let abort = Arc::new(AtomicBool::new(false));
        let mut good = job(f.as_raw_fd(), EngineKind::Psync, 1, 100, Duration::from_secs(3600));
        let mut bad = job(1 << 20, EngineKind::IoUring, 4, 100, Duration::from_secs(3600));
        for j in [&mut good, &mut bad] {
            j.start = start.clone();
            j.abort = abort.clone();
        }
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(move || run(good));
            let b = s.spawn(move || run(bad));
            (a.join().unwrap(), b.join().unwrap())
        });
        assert!(b.is_err(), "no file behind fd 1<<20");
        assert!(a.is_ok(), "the good worker stopped when told, instead of running its hour");
        assert!(abort.load(Ordering::SeqCst));
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn io_errors_are_counted_with_their_offset() {
        let (path, f) = scratch("errors");
        let mut j = job(f.as_raw_fd(), EngineKind::Psync, 1, 100, Duration::from_secs(5));
        // Reading past the end of the file moves 0 bytes: a short transfer.
        j.area = Region { start: 32 << 20, len: 4096 };
        let out = run(j).unwrap();
        assert_eq!(out.errors, 1);
        let e = out.first_error.unwrap();
        assert_eq!((e.offset, e.result), (32 << 20, 0));
        assert!(e.describe().contains("moved only 0 bytes"), "{}", e.describe());
        std::fs::remove_file(path).unwrap();
    }

    /// A fill (sequential writes of 64KiB over a 16MiB stripe) whose write
    /// at 8MiB fails with EIO.
    fn failing_fill(fd: RawFd, engine: EngineKind, depth: u32) -> Job {
        let mut j = job(fd, engine, depth, 0, Duration::from_secs(60));
        j.workload.random = Percent::ZERO;
        j.workload.blocks[0].size = Bytes(64 << 10);
        j.timing.record = None;
        j.quota = Some(Bytes(16 << 20));
        let fault = Fault::eio(Some(Op::Write), (8 << 20) + 512..(8 << 20) + 1024);
        j.engines = Arc::new(FaultyEngines { on: 0, fault });
        j
    }

    #[test]
    fn an_injected_eio_fails_the_io_at_its_offset_and_stops_the_worker() {
        use std::os::unix::fs::FileExt;
        for (engine, depth) in [(EngineKind::Psync, 1), (EngineKind::IoUring, 8)] {
            if engine == EngineKind::IoUring && !crate::testing::io_uring_or_skip() {
                continue;
            }
            let (path, f) = scratch(&format!("eio-{}", engine.name()));
            let out = run(failing_fill(f.as_raw_fd(), engine, depth)).unwrap();
            assert_eq!(out.engine, engine);
            assert_eq!(out.errors, 1, "{engine:?}: only the write over the bad bytes fails");
            let e = out.first_error.unwrap();
            assert_eq!((e.op, e.offset, e.len, e.result), (Op::Write, 8 << 20, 64 << 10, -libc::EIO));
            assert_eq!(
                e.describe(),
                "write of 65536 bytes at offset 8388608 failed with EIO (Input/output error)"
            );
            // The worker stopped issuing at the failure: what was in flight
            // completed, nothing after it was started.
            assert!(
                out.issued_bytes <= (8 << 20) + depth as u64 * (64 << 10),
                "{engine:?}: {}",
                out.issued_bytes
            );
            assert_eq!(out.completed, out.issued_bytes / (64 << 10) - 1, "{engine:?}");
            assert_eq!(out.written_bytes, out.issued_bytes - (64 << 10), "the failed write wrote nothing");
            assert_eq!(
                out.recorder.write.bytes, out.written_bytes,
                "{engine:?}: every write that completed is counted"
            );
            // The failed write never reached the file; the one before it did.
            let mut block = vec![0u8; 64 << 10];
            f.read_exact_at(&mut block, 8 << 20).unwrap();
            assert!(block.iter().all(|b| *b == 0), "{engine:?}");
            f.read_exact_at(&mut block, (8 << 20) - (64 << 10)).unwrap();
            assert!(block.iter().any(|b| *b != 0), "{engine:?}");
            std::fs::remove_file(path).unwrap();
        }
    }

    #[test]
    fn a_failed_io_stops_the_other_workers_of_the_step() {
        let (path, f) = scratch("eio-others");
        let start = Arc::new(Barrier::new(2));
        let abort = Arc::new(AtomicBool::new(false));
        let mut failing = failing_fill(f.as_raw_fd(), EngineKind::Psync, 1);
        let mut other = job(f.as_raw_fd(), EngineKind::Psync, 1, 100, Duration::from_secs(3600));
        for j in [&mut failing, &mut other] {
            j.start = start.clone();
            j.abort = abort.clone();
        }
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(move || run(failing));
            let b = s.spawn(move || run(other));
            (a.join().unwrap().unwrap(), b.join().unwrap().unwrap())
        });
        assert_eq!(a.errors, 1);
        assert!(abort.load(Ordering::SeqCst), "the failing worker raised the abort");
        assert_eq!(b.errors, 0, "the other worker stopped when told, instead of reading for an hour");
        std::fs::remove_file(path).unwrap();
    }

    /// A target that holds every I/O until `stall` after the engine's first
    /// call, then completes each at once: a device that stops serving for
    /// a while. Nothing completes in a wait that ends before then.
    #[derive(Debug)]
    struct StallEngines {
        stall: Duration,
    }

    struct Stalled {
        stall_ns: u64,
        first_call: Option<u64>,
        held: Vec<Completion>,
    }

    impl Stalled {
        fn hold(&mut self, reqs: &[Request]) -> u64 {
            let first = *self.first_call.get_or_insert_with(mono_ns);
            self.held.extend(reqs.iter().map(|r| Completion { slot: r.slot, result: r.io.len as i32 }));
            first + self.stall_ns
        }
    }

    impl crate::engine::Engine for Stalled {
        fn kind(&self) -> EngineKind {
            EngineKind::IoUring
        }

        fn run(&mut self, reqs: &[Request], wait: usize, done: &mut Vec<Completion>) -> io::Result<()> {
            let serving = self.hold(reqs);
            if wait > 0 && !self.held.is_empty() {
                pace::sleep_until(serving);
            }
            if mono_ns() >= serving {
                done.append(&mut self.held);
            }
            Ok(())
        }

        fn run_until(
            &mut self,
            reqs: &[Request],
            deadline: u64,
            done: &mut Vec<Completion>,
        ) -> io::Result<()> {
            let serving = self.hold(reqs);
            if !self.held.is_empty() {
                pace::sleep_until(deadline.min(serving));
            }
            if mono_ns() >= serving {
                done.append(&mut self.held);
            }
            Ok(())
        }
    }

    impl EngineFactory for StallEngines {
        fn make(&self, _: &Setup<'_>) -> io::Result<Box<dyn crate::engine::Engine>> {
            Ok(Box::new(Stalled {
                stall_ns: self.stall.as_nanos() as u64,
                first_call: None,
                held: Vec::new(),
            }))
        }
    }

    fn open_job(depth: u32, iops: f64, record: Duration, stall: Duration) -> Job {
        let mut j = job(-1, EngineKind::IoUring, depth, 100, record);
        j.rate = Some(OpenRate { iops, arrivals: methodic_compiler::plan::Arrivals::Uniform, phase: 0.0 });
        j.engines = Arc::new(StallEngines { stall });
        j
    }

    /// 1000 IOPS for 1 s at depth 4 on a target that serves nothing for its
    /// first 100 ms: the I/Os due then wait for a slot (a backlog) and
    /// start late, and their latency counts from when they were due, not
    /// from when a slot freed. The bounds follow from the counts: the
    /// first 4 I/Os take the slots; every one due from 4 ms to 99 ms can
    /// only start once the target serves again, at 100 ms or later, so a
    /// gap (1 ms) or more late; the one due at 0 completes no sooner than
    /// 100 ms after it was due.
    #[test]
    fn a_stalled_target_makes_a_backlog_whose_lateness_is_counted() {
        let out = run(open_job(4, 1000.0, Duration::from_secs(1), Duration::from_millis(100))).unwrap();
        let o = out.open.expect("an open-loop outcome");
        // Uniform, phase 0: due at 0, 1, .. 999 ms, exactly.
        assert_eq!(o.due, 1000);
        assert!(o.late + o.never_started >= 96, "{} late, {} never started", o.late, o.never_started);
        // Every I/O due in the window started in it or never did, but for
        // one a slot that crossed its end as it started.
        assert!(
            o.started + o.never_started <= o.due + 4 && o.started + o.never_started + 4 >= o.due,
            "{o:?}"
        );
        assert_eq!(o.lateness.len(), o.started);
        assert!(o.max_late_ns >= 96_000_000, "the I/O due at 4 ms started {} ns late", o.max_late_ns);
        assert_eq!(o.gap_ns, 1e6);
        let max = out.recorder.read.lat.max();
        assert!(max >= 100_000_000, "the first I/O's latency, from when it was due: {max} ns");
        assert_eq!(out.recorder.ios(), out.completed, "no ramp: every completion is recorded");
    }

    /// Bursts of 350ms every 400ms, counted from the record window's start
    /// after a 300ms ramp, on a target that holds every I/O for its first
    /// 350ms: the ramp's last burst (from 100ms before the start to 250ms
    /// after) starts the worker's 2 I/Os, which complete at 350ms, in the
    /// record window: recorded, in no burst of it. The I/Os after are in
    /// bursts 0 and 1 (the window is two periods), and every recorded I/O
    /// is in a burst or counted as from the ramp; the series intervals
    /// add up to the record too.
    #[test]
    fn each_recorded_io_is_in_the_burst_it_started_in_or_from_the_ramp() {
        let mut j = open_job(2, 1.0, Duration::from_millis(800), Duration::from_millis(350));
        j.rate = None;
        j.timing.ramp = Duration::from_millis(300);
        j.pauses = Pauses {
            think: None,
            bursts: Some(methodic_compiler::plan::Bursts {
                on: methodic_compiler::plan::Duration::from_millis(350),
                every: methodic_compiler::plan::Duration::from_millis(400),
            }),
        };
        let out = run(j).unwrap();
        assert_eq!(out.bursts_from_ramp, 2, "the two slots' I/Os, started in the ramp");
        assert_eq!(out.bursts.len(), 2, "{:?}", out.bursts);
        assert!(out.bursts.iter().all(|b| b.ios > 0), "{:?}", out.bursts);
        let in_bursts: u64 = out.bursts.iter().map(|b| b.ios).sum();
        assert_eq!(in_bursts + out.bursts_from_ramp, out.recorder.ios());
        assert_eq!(out.interval_ios.iter().sum::<u64>(), out.recorder.ios());
    }

    /// A target that serves nothing for the whole window: the worker
    /// starts as many I/Os as it has slots, and the rest of what was due
    /// never starts, counted, most of it as a backlog.
    #[test]
    fn a_target_that_never_serves_leaves_every_other_io_never_started() {
        let out = run(open_job(4, 2000.0, Duration::from_millis(300), Duration::from_secs(2))).unwrap();
        let o = out.open.unwrap();
        assert_eq!(o.due, 600);
        assert!(o.started <= 4, "{} started with 4 slots", o.started);
        // Each I/O due started or never did (4: the slots, in case one
        // started as the window ended).
        assert!(o.started + o.never_started <= o.due && o.started + o.never_started + 4 >= o.due, "{o:?}");
        // All but those due in the last gap before the end are a backlog.
        assert!(o.backlog + 1 >= o.never_started && o.backlog > 0, "{o:?}");
        assert_eq!(out.recorder.ios(), 0, "the 4 completed after the window");
    }

    /// Open loop, an injected EIO fails its I/O and stops the worker as in
    /// closed loop (through the fault engine's `run_until`): one failure,
    /// nothing started after it beyond what was in flight, and what was
    /// due and not started by then counted as never started.
    #[test]
    fn an_injected_eio_stops_an_open_loop_worker() {
        for (engine, depth) in [(EngineKind::Psync, 1), (EngineKind::IoUring, 8)] {
            if engine == EngineKind::IoUring && !crate::testing::io_uring_or_skip() {
                continue;
            }
            let (path, f) = scratch(&format!("eio-open-{}", engine.name()));
            let mut j = failing_fill(f.as_raw_fd(), engine, depth);
            j.rate = Some(OpenRate {
                iops: 4000.0,
                arrivals: methodic_compiler::plan::Arrivals::Poisson,
                phase: 0.0,
            });
            j.timing.record = Some(Duration::from_secs(60));
            let out = run(j).unwrap();
            assert_eq!(out.errors, 1, "{engine:?}");
            assert_eq!(out.first_error.unwrap().offset, 8 << 20);
            assert!(
                out.issued_bytes <= (8 << 20) + depth as u64 * (64 << 10),
                "{engine:?}: {}",
                out.issued_bytes
            );
            let o = out.open.unwrap();
            assert_eq!(
                o.started,
                out.issued_bytes / (64 << 10),
                "{engine:?}: every I/O started in the window"
            );
            assert_eq!(o.due, o.started + o.never_started, "{engine:?}");
            std::fs::remove_file(path).unwrap();
        }
    }

    /// A benchmark, not a check (run it by hand, release build:
    /// `cargo test --release -p methodic-runtime --lib batch_stamp -- --ignored --nocapture`):
    /// io_uring at QD32 and psync at QD1 on O_DIRECT reads of a file in
    /// the temp folder, every completion's latency recorded both with the
    /// stamp of its reap batch (what methodic records) and with a stamp of
    /// its own, taken as the worker comes to it; prints each percentile
    /// under both and their difference against the histogram's 0.1%.
    #[test]
    #[ignore]
    fn batch_stamp() {
        let path = std::env::temp_dir().join(format!("methodic-batch-stamp-{}", std::process::id()));
        {
            use std::io::Write;
            let mut f = std::fs::File::create(&path).unwrap();
            let mut chunk = vec![0u8; 1 << 20];
            Rng::new(1).fill(&mut chunk);
            for _ in 0..256 {
                f.write_all(&chunk).unwrap();
            }
            f.sync_all().unwrap();
        }
        use std::os::unix::fs::OpenOptionsExt;
        let f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(&path).unwrap();
        for (engine, depth) in [(EngineKind::IoUring, 32), (EngineKind::Psync, 1)] {
            let mut j = job(f.as_raw_fd(), engine, depth, 100, Duration::from_secs(5));
            j.area = Region { start: 0, len: 256 << 20 };
            let each = std::sync::Arc::new(std::sync::Mutex::new(Recorder::default()));
            j.each_stamp = Some(each.clone());
            let out = run(j).unwrap();
            let each = each.lock().unwrap();
            let (batch, own) = (&out.recorder.read.lat, &each.read.lat);
            println!("{} QD{depth}: {} I/Os", engine.name(), batch.len());
            println!("quantile  batch stamp us  own stamp us  difference");
            for q in [0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999, 0.999999, 1.0] {
                let (a, b) = (batch.value_at_quantile(q) as f64 / 1e3, own.value_at_quantile(q) as f64 / 1e3);
                println!("{q:<9} {a:>14.2} {b:>13.2}  {:+.3}%", (b / a - 1.0) * 100.0);
            }
        }
        std::fs::remove_file(&path).unwrap();
    }
}
