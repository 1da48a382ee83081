//! A job's pauses and latency target: `thinktime` (with the
//! `thinktime_*` options and `rate_ignore_thinktime`, which serve it) and
//! `latency_target` (with `latency_window`, `latency_percentile` and
//! `latency_run`). Out, nothing: each is refused where it changes what fio
//! runs, saying what methodic has instead, and its companions are noted as
//! ignored where fio ignores them, without the option they serve.
//!
//! Why neither translates (fio@f5344384, github:axboe/fio):
//!
//! - `handle_thinktime()` (backend.c:914), once `thinktime_blocks` I/Os
//!   have been issued or completed, waits for every I/O in flight
//!   (`io_u_quiesce()`) and only then sleeps `thinktime`. methodic's
//!   `think P every N` holds new I/Os until P after the Nth one started,
//!   while those in flight go on (`Gate::started`, runtime/src/worker.rs),
//!   so its pauses are shorter than fio's by the I/Os' latency, at any
//!   depth. `thinktime_iotime` runs I/O for a time and then drains and
//!   sleeps, a period that drifts by the drain, where `bursts ON every
//!   PERIOD` keeps a fixed grid.
//! - `lat_target_*()` (io_u.c:1594-1745) search the queue depth: from 1,
//!   doubling, then bisecting, judging each depth over `latency_window` by
//!   the share of I/Os under the target, and end the job at the depth
//!   found. methodic's `qos` step (LANGUAGE.md, "Latency QoS search")
//!   searches the open-loop rate at a fixed depth instead.
//!
//! fio ignores the companions without the option: `handle_thinktime()`
//! runs only with `thinktime` set (backend.c:1379), and without
//! `latency_target` the depth is `iodepth` (`lat_target_init()`,
//! io_u.c:1638).

use super::reader::{Got, JobReader, Reported};
use crate::error::{ImportErrorKind, Problem};
use crate::job_file::Entry;
use crate::options::canonical;

/// fio's thinktime, and why methodic's `think` is not it.
const THINK: &str = "fio waits for every I/O in flight to complete and then pauses for thinktime (after every \
                     thinktime_blocks I/Os); methodic's `think P every N` holds new I/Os until P after the Nth \
                     started while the I/Os in flight go on, so its pauses are shorter than fio's by the I/Os' \
                     latency";
const THINK_HINT: &str = "remove it to import the job; in the methodology, `think P every N` (or `bursts ON every \
                          PERIOD` for thinktime_iotime) adds methodic's own pauses, if they suit the test";

/// fio's latency target, and what methodic's `qos` does instead.
const QOS: &str = "fio searches for the queue depth at which latency_percentile of the I/Os complete within the \
                   target, trying each depth for latency_window; methodic's `qos` step finds the highest rate \
                   under a latency percentile at a fixed queue depth: a search by queue depth is not in methodic";
const QOS_HINT: &str = "remove latency_target (fio then runs at iodepth, as the import does), or write a `qos` \
                        step in the methodology for the highest rate under a latency limit";

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

/// `main` refused when on; its companions noted as ignored when it is
/// off (when it is on, its refusal says enough).
fn refused_with_companions(
    r: &mut JobReader<'_>,
    main: &str,
    serve: impl Fn(&str) -> bool,
    (why, hint): (&str, &str),
) -> Got<()> {
    match r.get(main) {
        Some(e) if !is_off(e.value.as_deref()) => {
            r.problems.push(Problem::at(ImportErrorKind::Untranslatable, e, why).hint(hint));
            Err(Reported)
        }
        _ => {
            for e in companions(r, serve) {
                r.note(e, true, true, format!("ignored, as fio ignores it without {main}"));
            }
            Ok(())
        }
    }
}

/// `thinktime` and the options that serve it.
pub(crate) fn pauses(r: &mut JobReader<'_>) -> Got<()> {
    refused_with_companions(
        r,
        "thinktime",
        |k| k.starts_with("thinktime_") || k == "rate_ignore_thinktime",
        (THINK, THINK_HINT),
    )
}

/// `latency_target` and the options that serve it.
pub(crate) fn latency(r: &mut JobReader<'_>) -> Got<()> {
    refused_with_companions(
        r,
        "latency_target",
        |k| k.starts_with("latency_") && k != "latency_target",
        (QOS, QOS_HINT),
    )
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
