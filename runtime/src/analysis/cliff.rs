//! The cache cliff of a sustained write: where throughput falls to a lower
//! plateau and stays there. The series (one rate an interval) is split
//! where a two-level fit leaves the least squared error; the split is a
//! cliff when the level after it is at least 20% lower, the step is large
//! against the noise on either side, the lower level lasts at least three
//! intervals, and the end of the series has not climbed back (a dip that
//! recovers is no cliff). A last interval cut to under half the length of
//! the one before (the step ended within it) is left out of the fit: its
//! rate is over the few I/Os that finished in it, and one such row, at
//! several times the level it ended on, was seen to hide a cliff.

use methodic_results::analysis::Cliff;

use super::{mean, sd};

/// Bytes in GB, or in MB under a gigabyte (a rehearsal or a test writes
/// megabytes, and "0.0 GB" says nothing).
fn gb(bytes: f64) -> String {
    if bytes >= 1e9 { format!("{:.1} GB", bytes / 1e9) } else { format!("{:.0} MB", bytes / 1e6) }
}

/// Finds the cliff in `series`: (end of interval in seconds, MB/s) rows,
/// one an interval, in order. `written` is the step's bytes in all, for the
/// verdict when there is no cliff.
pub fn detect(series: &[(f64, f64)], written: u64) -> Cliff {
    let none = |why: String| Cliff {
        found: false,
        at_seconds: None,
        bytes_before: None,
        before_mb_s: None,
        after_mb_s: None,
        verdict: why,
    };
    let series = match series {
        [.., (t0, _), (t1, _), (t2, _)] if t2 - t1 < (t1 - t0) / 2.0 => &series[..series.len() - 1],
        _ => series,
    };
    let rates: Vec<f64> = series.iter().map(|r| r.1).collect();
    let n = rates.len();
    if n < 6 {
        return none(format!("no cliff within {}: too short a series to tell", gb(written as f64)));
    }
    // The best split k: rates[..k] and rates[k..], each at least 3 long.
    let mut prefix = vec![0.0; n + 1];
    let mut prefix2 = vec![0.0; n + 1];
    for (i, r) in rates.iter().enumerate() {
        prefix[i + 1] = prefix[i] + r;
        prefix2[i + 1] = prefix2[i] + r * r;
    }
    let sse = |a: usize, b: usize| {
        let len = (b - a) as f64;
        let s = prefix[b] - prefix[a];
        (prefix2[b] - prefix2[a]) - s * s / len
    };
    let (mut best_k, mut best) = (0, f64::INFINITY);
    for k in 3..=n - 3 {
        let e = sse(0, k) + sse(k, n);
        if e < best {
            (best_k, best) = (k, e);
        }
    }
    let (before, after) = (&rates[..best_k], &rates[best_k..]);
    let (m1, m2) = (mean(before), mean(after));
    let noise = sd(before).max(sd(after));
    let tail = &after[after.len() - after.len().div_ceil(3)..];
    let stays = mean(tail) < m1 * 0.9;
    if !(m2 < 0.8 * m1 && m1 - m2 > 3.0 * noise && stays) {
        return none(format!(
            "no cliff within {}: the rate held at about {:.0} MB/s",
            gb(written as f64),
            mean(&rates)
        ));
    }
    // Bytes written before the cliff: each interval's rate times its length.
    let mut bytes = 0.0;
    let mut t_prev = 0.0;
    for (t, r) in &series[..best_k] {
        bytes += r * 1e6 * (t - t_prev);
        t_prev = *t;
    }
    let at = series[best_k - 1].0;
    Cliff {
        found: true,
        at_seconds: Some(at),
        bytes_before: Some(bytes as u64),
        before_mb_s: Some(m1),
        after_mb_s: Some(m2),
        verdict: format!("fast for {} at {:.0} MB/s, then {:.0} MB/s (from {at:.0}s)", gb(bytes), m1, m2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jitter(seed: &mut u64) -> f64 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((*seed >> 33) as f64 / (1u64 << 31) as f64) - 1.0
    }

    /// One row a second: `fast` MB/s until `cliff` seconds, then `slow`,
    /// with `noise` (a share) of jitter.
    fn series(n: usize, cliff: usize, fast: f64, slow: f64, noise: f64) -> Vec<(f64, f64)> {
        let mut seed = 7;
        (0..n)
            .map(|i| {
                let level = if i < cliff { fast } else { slow };
                ((i + 1) as f64, level * (1.0 + noise * jitter(&mut seed)))
            })
            .collect()
    }

    #[test]
    fn a_cliff_is_found_within_one_interval() {
        for cliff in [10, 37, 55] {
            let c = detect(&series(60, cliff, 1500.0, 450.0, 0.08), 40_000_000_000);
            assert!(c.found, "{c:?}");
            let at = c.at_seconds.unwrap();
            assert!((at - cliff as f64).abs() <= 1.0, "cliff at {cliff}s, found at {at}s");
            let before = c.bytes_before.unwrap() as f64;
            assert!((before - cliff as f64 * 1500e6).abs() < 0.1 * cliff as f64 * 1500e6, "{before}");
            assert!((c.after_mb_s.unwrap() - 450.0).abs() < 30.0, "{c:?}");
            assert!(c.verdict.starts_with("fast for "), "{}", c.verdict);
        }
    }

    #[test]
    fn a_steady_rate_has_no_cliff() {
        let c = detect(&series(60, 60, 1500.0, 1500.0, 0.1), 90_000_000_000);
        assert!(!c.found, "{c:?}");
        assert_eq!(c.verdict.split(':').next(), Some("no cliff within 90.0 GB"));
    }

    #[test]
    fn a_dip_that_recovers_is_no_cliff() {
        let mut s = series(60, 20, 1500.0, 400.0, 0.05);
        for row in s.iter_mut().skip(40) {
            row.1 = 1500.0;
        }
        assert!(!detect(&s, 1).found);
    }

    /// The step ended 50ms into its last interval, as the last I/Os in
    /// flight finished together: that row's rate, five times the level
    /// after the cliff, is left out of the fit.
    #[test]
    fn a_last_interval_cut_short_does_not_hide_a_cliff() {
        let mut s: Vec<(f64, f64)> =
            (1..=13).map(|i| (f64::from(i) * 0.5, if i <= 4 { 12.5 } else { 3.1 })).collect();
        s.push((6.55, 21.6));
        let c = detect(&s, 36 << 20);
        assert!(c.found, "{c:?}");
        assert_eq!(c.at_seconds, Some(2.0));
        assert!((c.after_mb_s.unwrap() - 3.1).abs() < 1e-9, "{c:?}");
        assert!(c.verdict.starts_with("fast for 25 MB at 12 MB/s"), "{}", c.verdict);
        // A last interval of full length stays in: here a recovery.
        s.pop();
        s.extend((14..=20).map(|i| (f64::from(i) * 0.5, 12.5)));
        assert!(!detect(&s, 1).found, "a dip that recovers");
    }

    #[test]
    fn a_small_step_in_noise_is_no_cliff() {
        assert!(!detect(&series(60, 30, 1500.0, 1350.0, 0.1), 1).found, "a 10% step is not a cliff");
        assert!(!detect(&series(4, 2, 1500.0, 100.0, 0.0), 1).found, "too short");
    }
}
