//! Open loop for one worker: its share of a step's rate goes in; out come
//! when each of its I/Os is due ([`Schedule`]: evenly spaced, or a Poisson
//! process), how late each started and which were due but never started
//! (`Pace`, summed up as an [`OpenOutcome`]), and the waits between them
//! (`sleep_until`, `tight_timer`). The worker starts the I/Os that are
//! due, oldest first, as its slots free up; their latency counts from when
//! they were due, so that time spent waiting for a slot is not hidden
//! (coordinated omission).

use hdrhistogram::Histogram;
use methodic_compiler::plan::Arrivals;

use crate::engine::mono_ns;
use crate::rng::Rng;
use crate::stats::histogram;

/// A wait shorter than this is spun on the clock instead of slept. Waking
/// from a sleep goes through the scheduler, which on a loaded machine (or
/// a VM) takes tens of microseconds, even with a timer slack of 1 ns: an
/// I/O due sooner than that would start late by the wake-up alone. A spin
/// costs a CPU for as long as it lasts, so only short waits spin: at rates
/// whose gaps are longer, the worker sleeps and starts each I/O a wake-up
/// late (a few to tens of microseconds, well under one gap, so not late
/// by the count's rule; the lateness percentiles show it).
pub(crate) const SPIN_NS: u64 = 50_000;

/// The longest a worker waits without looking at its stop flags.
pub(crate) const MAX_WAIT_NS: u64 = 100_000_000;

/// A worker's share of a step's rate: I/Os a second and how they arrive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpenRate {
    /// I/Os a second this worker starts (the step's rate over its threads).
    pub iops: f64,
    pub arrivals: Arrivals,
    /// Uniform arrivals: where in the first gap this worker's first I/O
    /// falls, from 0 to 1 (worker k of n: k/n), so that the step's workers
    /// together start I/Os evenly at the step's rate rather than n at a
    /// time. Poisson arrivals need none: independent Poisson processes
    /// together are one, at the sum of their rates.
    pub phase: f64,
}

/// When each of a worker's I/Os is due, in [`mono_ns`] nanoseconds:
/// uniform, `start + (k + phase) * gap`; Poisson, exponential gaps of the
/// same mean drawn from the worker's own seeded stream. Times are kept as
/// an f64 offset from `start` (exact to the nanosecond for 104 days), so
/// that rounding never accumulates.
pub struct Schedule {
    start: u64,
    /// The mean gap, ns; infinite for a rate of 0.
    gap: f64,
    arrivals: Arrivals,
    phase: f64,
    /// I/Os taken so far.
    taken: u64,
    /// The offset of the next one from `start`, ns.
    offset: f64,
    /// `start + offset`, or `u64::MAX` for never.
    next: u64,
    rng: Rng,
}

impl Schedule {
    pub fn new(start: u64, rate: OpenRate, seed: u64) -> Schedule {
        let gap = if rate.iops > 0.0 && rate.iops.is_finite() { 1e9 / rate.iops } else { f64::INFINITY };
        // Another stream than the worker's offsets (Rng::new(seed)) and data.
        let rng = Rng::new(seed.rotate_left(43) ^ 0x6172_7269_7661_6c73);
        let mut s = Schedule {
            start,
            gap,
            arrivals: rate.arrivals,
            phase: rate.phase,
            taken: 0,
            offset: 0.0,
            next: 0,
            rng,
        };
        s.offset = match s.arrivals {
            Arrivals::Uniform => s.phase.clamp(0.0, 1.0) * gap,
            Arrivals::Poisson => gap * s.rng.exponential(),
        };
        s.next = s.at(s.offset);
        s
    }

    fn at(&self, offset: f64) -> u64 {
        if offset.is_finite() { self.start.saturating_add(offset as u64) } else { u64::MAX }
    }

    /// When the next I/O is due.
    #[inline]
    pub fn next(&self) -> u64 {
        self.next
    }

    /// The mean gap between this worker's I/Os, ns.
    pub fn gap(&self) -> f64 {
        self.gap
    }

    /// Takes the next I/O: its due time; the one after it is next.
    #[inline]
    pub fn take(&mut self) -> u64 {
        let due = self.next;
        self.taken += 1;
        self.offset = match self.arrivals {
            Arrivals::Uniform => (self.taken as f64 + self.phase) * self.gap,
            Arrivals::Poisson => self.offset + self.gap * self.rng.exponential(),
        };
        self.next = self.at(self.offset);
        due
    }
}

/// What a worker's open loop did over the record window.
#[derive(Debug, Clone)]
pub struct OpenOutcome {
    /// I/Os due in the record window.
    pub due: u64,
    /// I/Os started in the record window, whenever they were due.
    pub started: u64,
    /// Of those, the ones started one mean gap or more after they were due.
    pub late: u64,
    /// Their lateness added up, ns.
    pub late_ns: u128,
    /// The longest lateness of an I/O started in the window, ns.
    pub max_late_ns: u64,
    /// The lateness of every I/O started in the window, ns (1 ns for one
    /// started on time or early).
    pub lateness: Histogram<u64>,
    /// I/Os due before the window ended (ramp included) that never started.
    pub never_started: u64,
    /// Of those, the ones already late when it ended: due one mean gap or
    /// more before its end. Any means the worker had a backlog it could
    /// not clear: the rate was not kept.
    pub backlog: u64,
    /// The worker's mean gap, ns: how late counts as late.
    pub gap_ns: f64,
}

/// A worker's open loop as it runs: its schedule and the counts of its
/// record window.
pub(crate) struct Pace {
    schedule: Schedule,
    record_from: u64,
    until: u64,
    /// One mean gap, ns, rounded up.
    late_after: u64,
    out: OpenOutcome,
    closed: bool,
}

impl Pace {
    /// Starts the schedule at `start` (every worker's start barrier, ramp
    /// included); counts the window from `record_from` to `until`.
    pub(crate) fn new(rate: OpenRate, seed: u64, start: u64, record_from: u64, until: u64) -> Pace {
        let schedule = Schedule::new(start, rate, seed);
        let gap = schedule.gap();
        let late_after = if gap.is_finite() { gap.ceil() as u64 } else { u64::MAX };
        Pace {
            schedule,
            record_from,
            until,
            late_after,
            out: OpenOutcome {
                due: 0,
                started: 0,
                late: 0,
                late_ns: 0,
                max_late_ns: 0,
                lateness: histogram(3),
                never_started: 0,
                backlog: 0,
                gap_ns: gap,
            },
            closed: false,
        }
    }

    /// When the next I/O is due.
    #[inline]
    pub(crate) fn next(&self) -> u64 {
        self.schedule.next()
    }

    /// Takes the next I/O due, oldest first: its due time.
    #[inline]
    pub(crate) fn take(&mut self) -> u64 {
        let due = self.schedule.take();
        if due >= self.record_from && due < self.until {
            self.out.due += 1;
        }
        due
    }

    /// An I/O due at `due` started at `at`.
    #[inline]
    pub(crate) fn started(&mut self, at: u64, due: u64) {
        if at < self.record_from || at >= self.until {
            return;
        }
        let o = &mut self.out;
        o.started += 1;
        let late = at.saturating_sub(due);
        o.lateness.saturating_record(late.max(1));
        o.max_late_ns = o.max_late_ns.max(late);
        if late >= self.late_after {
            o.late += 1;
            o.late_ns += late as u128;
        }
    }

    /// The worker stopped starting I/Os at `end` (the window's end, or
    /// earlier: a stop, a failure, a byte budget spent): every I/O due
    /// before then that it did not start is counted as never started. Once;
    /// later calls change nothing.
    pub(crate) fn close(&mut self, end: u64) {
        if self.closed {
            return;
        }
        self.closed = true;
        let end = end.min(self.until);
        while self.schedule.next() < end {
            let due = self.schedule.take();
            if due >= self.record_from {
                self.out.due += 1;
            }
            self.out.never_started += 1;
            if due.saturating_add(self.late_after) <= end {
                self.out.backlog += 1;
            }
        }
    }

    pub(crate) fn closed(&self) -> bool {
        self.closed
    }

    pub(crate) fn finish(self) -> OpenOutcome {
        self.out
    }
}

/// Sets the calling thread's timer slack to 1 ns (PR_SET_TIMERSLACK): the
/// kernel may otherwise end a sleep (or an io_uring wait with a timeout)
/// up to 50 us late, to batch wake-ups. Open loop only, on the worker's own
/// thread, which ends with the step.
pub(crate) fn tight_timer() {
    // SAFETY: prctl(PR_SET_TIMERSLACK) takes numbers only and changes this thread's timer slack.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
}

/// Waits until the monotonic clock reaches `deadline` (ns): spins when it
/// is closer than [`SPIN_NS`], else sleeps to it (an absolute sleep, so
/// that a signal does not lengthen it).
pub(crate) fn sleep_until(deadline: u64) {
    loop {
        let now = mono_ns();
        if now >= deadline {
            return;
        }
        if deadline - now <= SPIN_NS {
            std::hint::spin_loop();
            continue;
        }
        let ts = libc::timespec {
            tv_sec: (deadline / 1_000_000_000) as libc::time_t,
            tv_nsec: (deadline % 1_000_000_000) as libc::c_long,
        };
        // EINTR: go round and sleep the rest.
        // SAFETY: `ts` is a valid timespec alive for the call, and the remainder pointer may be
        // null with TIMER_ABSTIME.
        unsafe {
            libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut())
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(iops: f64, arrivals: Arrivals) -> OpenRate {
        OpenRate { iops, arrivals, phase: 0.0 }
    }

    #[test]
    fn uniform_gaps_are_exact_and_a_phase_shifts_them() {
        let mut s = Schedule::new(1_000, rate(4000.0, Arrivals::Uniform), 1);
        let dues: Vec<u64> = (0..5).map(|_| s.take()).collect();
        assert_eq!(dues, [1_000, 251_000, 501_000, 751_000, 1_001_000]);
        // The millionth I/O is where k * gap puts it, to the nanosecond: no
        // drift from adding gaps up.
        let mut s = Schedule::new(0, rate(3.0, Arrivals::Uniform), 1);
        for _ in 0..999_999 {
            s.take();
        }
        assert!(s.take().abs_diff(333_333_000_000_000) <= 1);
        // Worker 1 of 4: a quarter gap in.
        let mut s = Schedule::new(0, OpenRate { iops: 1000.0, arrivals: Arrivals::Uniform, phase: 0.25 }, 1);
        assert_eq!((s.take(), s.take()), (250_000, 1_250_000));
        // A rate of 0 starts nothing.
        assert_eq!(Schedule::new(0, rate(0.0, Arrivals::Uniform), 1).next(), u64::MAX);
    }

    /// 100,000 Poisson arrivals at 10,000 a second: their gaps have a mean
    /// of 100 us and a coefficient of variation of 1 (an exponential's),
    /// each within 5 standard errors; the same seed gives the same times.
    #[test]
    fn poisson_gaps_have_the_mean_gap_and_a_cv_of_one() {
        let n = 100_000;
        let mut s = Schedule::new(0, rate(10_000.0, Arrivals::Poisson), 9);
        let mut last = 0u64;
        let gaps: Vec<f64> = (0..n)
            .map(|_| {
                let t = s.take();
                let g = (t - last) as f64;
                last = t;
                g
            })
            .collect();
        let mean = gaps.iter().sum::<f64>() / n as f64;
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
        let se = 1.0 / (n as f64).sqrt();
        assert!((mean / 100_000.0 - 1.0).abs() < 5.0 * se, "mean gap {mean} ns");
        assert!((sd / mean - 1.0).abs() < 5.0 * 2f64.sqrt() * se, "cv {}", sd / mean);
        let mut again = Schedule::new(0, rate(10_000.0, Arrivals::Poisson), 9);
        let mut other = Schedule::new(0, rate(10_000.0, Arrivals::Poisson), 10);
        let (a, b): (Vec<u64>, Vec<u64>) = (0..10).map(|_| (again.take(), other.take())).unzip();
        let mut first = Schedule::new(0, rate(10_000.0, Arrivals::Poisson), 9);
        assert_eq!(a, (0..10).map(|_| first.take()).collect::<Vec<_>>());
        assert_ne!(a, b);
    }

    /// Lateness on a made-up clock: 1000 IOPS (a gap of 1 ms), recording
    /// from 10 ms to 20 ms. I/Os started within a gap of when they were
    /// due are on time; those started a gap or more after are late; the
    /// ones due before the end that never started are counted, and those
    /// already a gap late at the end are the backlog.
    #[test]
    fn lateness_and_the_backlog_are_counted_in_the_window() {
        let ms = |n: u64| n * 1_000_000;
        let mut p = Pace::new(rate(1000.0, Arrivals::Uniform), 1, 0, ms(10), ms(20));
        // Due at 0..9 ms, in the ramp: started on time, not counted.
        for k in 0..10 {
            assert_eq!(p.take(), ms(k));
            p.started(ms(k) + 1_000, ms(k));
        }
        // Due at 10..14 ms: started 0.5 ms late (on time), then 2 ms, 3 ms,
        // 1 ms (exactly a gap: late) and 0.
        for (k, late) in [(10, 500_000), (11, ms(2)), (12, ms(3)), (13, ms(1)), (14, 0)] {
            let due = p.take();
            assert_eq!(due, ms(k));
            p.started(due + late, due);
        }
        // Due at 15 ms, started after the window: not counted as started.
        let due = p.take();
        p.started(ms(21), due);
        // The worker stops at 20 ms: I/Os due at 16, 17, 18 and 19 ms never
        // started; those due at 16..19 are a gap or more before the end.
        p.close(ms(20));
        p.close(ms(30));
        let o = p.finish();
        assert_eq!(o.due, 10, "due at 10..19 ms");
        assert_eq!(o.started, 5);
        assert_eq!(o.late, 3);
        assert_eq!(o.late_ns, (ms(2) + ms(3) + ms(1)) as u128);
        assert_eq!(o.max_late_ns, ms(3));
        assert_eq!(o.lateness.len(), 5);
        assert_eq!((o.never_started, o.backlog), (4, 4));
        assert_eq!(o.gap_ns, 1e6);

        // Stopped early (a signal at 12.5 ms): due at 12 ms never started,
        // and is not a gap late yet.
        let mut p = Pace::new(rate(1000.0, Arrivals::Uniform), 1, 0, ms(10), ms(20));
        for _ in 0..12 {
            let due = p.take();
            p.started(due, due);
        }
        p.close(ms(12) + 500_000);
        let o = p.finish();
        assert_eq!((o.due, o.started, o.late, o.never_started, o.backlog), (3, 2, 0, 1, 0));
    }
}
