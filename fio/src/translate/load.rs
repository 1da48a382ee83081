//! A job's pauses and latency target: `thinktime` (with the
//! `thinktime_*` options and `rate_ignore_thinktime`, which serve it), out
//! as a [`ThinkTime`]: `think P every N drained`, and what methodic cannot
//! say refused; and `latency_target` (with `latency_window`,
//! `latency_percentile` and `latency_run`), out as a [`LatencyTarget`]: the
//! job becomes a `qos ... by qd` step, with a note on how fio's search
//! differs, and what methodic cannot say is refused. The companions of
//! each are noted as ignored where fio ignores them, without the option
//! they serve.
//!
//! Why (fio@f5344384, github:axboe/fio):
//!
//! - `handle_thinktime()` (backend.c:914), once `thinktime_blocks` I/Os
//!   have been issued or completed, waits for every I/O in flight
//!   (`io_u_quiesce()`) and only then sleeps `thinktime`: methodic's
//!   `think P every N drained`, which counts the I/Os it starts, as fio's
//!   `thinktime_blocks_type=issue` does. fio's default type, `complete`,
//!   counts completions (`init_thinktime()`, backend.c:904): the same at
//!   iodepth 1, where each I/O completes before the next starts, and
//!   refused deeper. `thinktime_spin` spins part of the pause on the CPU
//!   (a comment: methodic sleeps it). `thinktime_iotime` runs I/O for a
//!   time and then drains and sleeps, a period that drifts by the drain,
//!   where `bursts ON every PERIOD` keeps a fixed grid: refused.
//!   `rate_ignore_thinktime=1` lets a rate make up for the pauses, which
//!   methodic's rates do not.
//! - `lat_target_*()` (io_u.c:1594-1745) search the queue depth: from 1,
//!   doubling, then bisecting, judging each depth over `latency_window` by
//!   the share of I/Os under the target, and end the job after a final
//!   window at the depth found. methodic's `qos ... by qd` (LANGUAGE.md,
//!   "Latency QoS search") doubles and bisects the same way, but probes
//!   each depth afresh after its ramp, where fio changes the depth within
//!   one stream (draining the I/Os in flight only after a failure,
//!   `io_u_quiesce()`), ramps once, and searches in each clone on its own.
//!   fio's default window, 0, judges at every pass of its loop
//!   (`lat_target_check()`, io_u.c:1719), and its default percentile, 100,
//!   fails a depth at the first slow I/O (`lat_target_failed()`,
//!   io_u.c:1629): neither is a probe methodic can state, so both are
//!   refused; so is `latency_run=1`, which keeps adjusting until the job
//!   ends, and a target with `disable_lat` or `gtod_reduce`, under which
//!   fio measures no latency and no I/O fails (io_u.c:2093-2099).
//!
//! fio ignores the companions without the option: `handle_thinktime()`
//! runs only with `thinktime` set (backend.c:1379), and without
//! `latency_target` the depth is `iodepth` (`lat_target_init()`,
//! io_u.c:1638).

use methodic_compiler::plan::Duration;

use super::reader::{Got, JobReader, Reported, need};
use super::step::{LatencyTarget, ThinkTime};
use crate::error::{ImportErrorKind, Problem};
use crate::job_file::Entry;
use crate::options::canonical;
use crate::values::{fio_decimal, fio_flag, fio_micros, refusal};

/// How methodic's search by queue depth differs from fio's, said above the
/// step an imported latency target makes.
const QOS_DIFFERS: &str = "fio's latency_target searches the queue depth as `qos ... by qd` does (from 1, doubling, \
                           then bisecting, up to iodepth), but changes the depth within one stream: it ramps once, \
                           drains the I/Os in flight only after a depth fails, ends the job after a final window at \
                           the depth found (or runs out its runtime), and each numjobs clone searches on its own. \
                           methodic probes each depth afresh after `ramp`, judges all workers' I/Os together, and \
                           stops when the deepest depth that met the limit and the shallowest that did not are \
                           adjacent; the job's runtime, and its size as a stop, do not apply (its size is \
                           still the region)";

/// Whether a value turns its option off: a number whose digits are all 0
/// (`0`, `0us`).
fn is_off(value: Option<&str>) -> bool {
    let digits: String = value.unwrap_or_default().trim().chars().take_while(char::is_ascii_digit).collect();
    !digits.is_empty() && digits.chars().all(|c| c == '0')
}

/// The options of the job that count (the last of each) whose names
/// `serve` picks, in the job's order.
fn companions<'j>(r: &JobReader<'j>, serve: impl Fn(&str) -> bool) -> Vec<&'j Entry> {
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<&Entry> =
        r.job.entries.iter().rev().filter(|e| serve(&e.key) && seen.insert(canonical(&e.key))).collect();
    out.reverse();
    out
}

/// `thinktime` and the options that serve it at queue depth `qd`: the
/// pause, `None` without one (the companions noted as ignored), or every
/// reason methodic cannot state it.
pub(crate) fn pauses(r: &mut JobReader<'_>, qd: Option<u64>) -> Got<Option<ThinkTime>> {
    let serve = |k: &str| k.starts_with("thinktime_") || k == "rate_ignore_thinktime";
    let pause = r.read("thinktime", |v| fio_micros(need(v)?))?;
    let Some(pause_us) = pause.filter(|p| *p > 0) else {
        for e in companions(r, serve) {
            r.note(e, true, true, "ignored, as fio ignores it without thinktime");
        }
        return Ok(None);
    };
    let main = r.get("thinktime").expect("a think time was read");
    let every = r.int("thinktime_blocks", 1, u64::from(u32::MAX)).map(|n| n.unwrap_or(1));
    let by_issue = match r.word("thinktime_blocks_type") {
        Ok(None) => Ok(false),
        Ok(Some((e, v))) => match v.trim().to_ascii_lowercase().as_str() {
            "issue" => Ok(true),
            "complete" => Ok(false),
            other => Err(r.problem(
                ImportErrorKind::BadValue,
                e,
                refusal(format!("fio's thinktime_blocks_type is complete or issue, not {other}")),
            )),
        },
        Err(e) => Err(e),
    };
    let mut refused = Vec::new();
    if let Some(e) = r.get("thinktime_iotime").filter(|e| !is_off(e.value.as_deref())) {
        refused.push(Problem::at(
            ImportErrorKind::Untranslatable,
            e,
            "fio runs I/O for thinktime_iotime, waits for the I/Os in flight, then pauses, so each period is \
             longer by that wait; methodic's `bursts ON every PERIOD` keeps a fixed grid of periods",
        ).hint("remove it to pause by thinktime_blocks, or write `bursts ON every PERIOD` in the methodology"));
    }
    if let Ok(Some(true)) = r.bool("rate_ignore_thinktime") {
        let e = r.get("rate_ignore_thinktime").expect("read above");
        refused.push(Problem::at(
            ImportErrorKind::Untranslatable,
            e,
            "with rate_ignore_thinktime=1 fio's rate makes up for the pauses; methodic's I/Os that fall due \
             during a pause start when it ends, as fio's default does",
        ).hint("remove it (or write rate_ignore_thinktime=0) to import the job"));
    }
    let (every, by_issue) = (every?, by_issue?);
    if !by_issue && qd.is_some_and(|q| q > 1) {
        refused.push(Problem::at(
            ImportErrorKind::Untranslatable,
            main,
            format!(
                "fio counts thinktime_blocks in completed I/Os (thinktime_blocks_type=complete, its default); \
                 methodic's `think ... drained` counts the I/Os it starts, which is the same only at iodepth=1, \
                 not at iodepth={}",
                qd.unwrap_or(1)
            ),
        ).hint("add thinktime_blocks_type=issue, which methodic's `think ... drained` is, or give iodepth=1"));
    }
    if !refused.is_empty() {
        r.problems.extend(refused);
        return Err(Reported);
    }
    r.note(main, false, false, "as `think ... drained`: fio waits for the I/Os in flight before each pause, as methodic does with `drained`");
    if let Some(e) = r.get("thinktime_spin").filter(|e| !is_off(e.value.as_deref())) {
        r.note(e, true, false, "fio spins this part of the pause on the CPU and sleeps the rest; methodic sleeps the whole pause");
    }
    Ok(Some(ThinkTime { pause_us, every }))
}

/// `latency_target` and the options that serve it: the search it asks
/// for, `None` without a target (the companions noted as ignored), or
/// every reason methodic cannot state it.
pub(crate) fn latency(r: &mut JobReader<'_>) -> Got<Option<LatencyTarget>> {
    let target = r.read("latency_target", |v| fio_micros(need(v)?))?;
    let Some(target_us) = target.filter(|t| *t > 0) else {
        for e in companions(r, |k| k.starts_with("latency_") && k != "latency_target") {
            r.note(e, true, true, "ignored, as fio ignores it without latency_target");
        }
        return Ok(None);
    };
    let main = r.get("latency_target").expect("a target was read");
    let window = window(r, main);
    let percentile = percentile(r, main);
    let run = match r.bool("latency_run") {
        Ok(Some(true)) => {
            let e = r.get("latency_run").expect("read above");
            let why = refusal(
                "with latency_run=1 fio keeps adjusting the depth until the job ends; methodic's search by \
                 queue depth ends at the depth found",
            )
            .hint("write latency_run=0 (fio's default) or remove it, to import the search");
            Err(r.problem(ImportErrorKind::Untranslatable, e, why))
        }
        other => other.map(|_| ()),
    };
    let unmeasured = unmeasured(r);
    let (window, percentile, (), ()) = (window?, percentile?, run?, unmeasured?);
    r.note(main, false, false, QOS_DIFFERS);
    Ok(Some(LatencyTarget { percentile_ppm: percentile, under_ns: target_us.saturating_mul(1000), window }))
}

/// `latency_window`: each depth's probe, in whole milliseconds; fio's
/// default, 0, judges at every pass of its loop and is refused.
fn window(r: &mut JobReader<'_>, main: &Entry) -> Got<Duration> {
    let us = r.read("latency_window", |v| fio_micros(need(v)?))?.unwrap_or(0);
    let e = r.get("latency_window").unwrap_or(main);
    if us == 0 {
        let why = refusal(
            "without latency_window (or at 0, fio's default) fio judges the depth at every pass of its loop, \
             over whatever I/Os completed since; methodic judges each depth over a probe of a stated length",
        )
        .hint("give latency_window, such as latency_window=5s: the length of each depth's probe");
        return Err(r.problem(ImportErrorKind::Untranslatable, e, why));
    }
    if us % 1000 != 0 {
        let why = refusal(format!(
            "a window of {us} microseconds is not a whole number of milliseconds, and methodic times probes to \
             the millisecond"
        ))
        .hint("round latency_window to whole milliseconds, such as 5000ms");
        return Err(r.problem(ImportErrorKind::BadValue, e, why));
    }
    Ok(Duration::from_millis(us / 1000))
}

/// `latency_percentile` (fio's default 100) in parts per million: above
/// 0 and below 100, as methodic's percentiles are.
fn percentile(r: &mut JobReader<'_>, main: &Entry) -> Got<u32> {
    let ppm = r.read("latency_percentile", |v| fio_decimal(need(v)?.trim(), 4))?.unwrap_or(1_000_000);
    let e = r.get("latency_percentile").unwrap_or(main);
    let why = match ppm {
        0 => refusal("at latency_percentile=0 every depth meets the target: there is nothing to search")
            .hint("give the share of I/Os that must complete within the target, such as latency_percentile=99.9"),
        1_000_000 => refusal(
            "at latency_percentile=100 (fio's default) fio fails a depth at its first I/O over the target; \
             methodic's percentiles stop below p100",
        )
        .hint("give latency_percentile below 100, such as latency_percentile=99.99"),
        p if p > 1_000_000 => refusal(format!("fio takes a latency_percentile from 0 to 100, not {}", p / 10_000))
            .hint("give latency_percentile below 100, such as latency_percentile=99.99"),
        p => return Ok(p as u32),
    };
    Err(r.problem(ImportErrorKind::Untranslatable, e, why))
}

/// `disable_lat=1`, `gtod_reduce=1` or `stats=0` with a latency target:
/// fio measures no latency then, so no I/O ever fails the target.
fn unmeasured(r: &mut JobReader<'_>) -> Got<()> {
    let mut refused = false;
    for (name, off) in [("disable_lat", true), ("gtod_reduce", true), ("stats", false)] {
        let Some(e) = r.get(name) else { continue };
        if fio_flag(e.value.as_deref()).is_ok_and(|v| v == off) {
            let why = refusal(format!(
                "with {name}={} fio measures no completion latency, so no I/O fails latency_target and its \
                 search only doubles to iodepth",
                u8::from(off)
            ))
            .hint(format!("remove {name} to import the latency target"));
            r.problem(ImportErrorKind::Untranslatable, e, why);
            refused = true;
        }
    }
    if refused { Err(Reported) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_is_a_zero_with_or_without_a_unit() {
        assert!(is_off(Some("0")) && is_off(Some(" 0us")) && is_off(Some("00")));
        assert!(!is_off(Some("10")) && !is_off(Some("2ms")) && !is_off(None) && !is_off(Some("")));
    }
}
