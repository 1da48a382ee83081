//! Steady state as the SNIA PTS defines it: per-round values and a rule go
//! in; whether the last `window` rounds are steady comes out, with the
//! numbers that decide it. The window is steady when its maximum minus
//! its minimum is within `excursion` of its average, and the least-squares
//! line through it changes by at most `slope` of the average across the
//! window (its slope times the window's width).

use methodic_compiler::plan::SteadyRule;
use methodic_results::analysis::Window;

/// Checks the last `rule.window` of `values` (one per round, in order).
/// `None` until there are that many rounds.
pub fn check(values: &[f64], rule: &SteadyRule) -> Option<Window> {
    let w = rule.window.max(2) as usize;
    if values.len() < w {
        return None;
    }
    let window = &values[values.len() - w..];
    let n = w as f64;
    let average = window.iter().sum::<f64>() / n;
    let max = window.iter().copied().fold(f64::MIN, f64::max);
    let min = window.iter().copied().fold(f64::MAX, f64::min);
    let x_mean = (n - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in window.iter().enumerate() {
        let dx = i as f64 - x_mean;
        sxy += dx * (y - average);
        sxx += dx * dx;
    }
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let change = slope.abs() * (n - 1.0);
    let range_limit = rule.excursion.as_f64() / 100.0 * average.abs();
    let change_limit = rule.slope.as_f64() / 100.0 * average.abs();
    // A tiny tolerance, so that a window exactly at a limit counts as within it.
    let eps = 1e-9 * average.abs().max(1.0);
    let steady = average > 0.0 && max - min <= range_limit + eps && change <= change_limit + eps;
    Some(Window {
        first: (values.len() - w + 1) as u32,
        last: values.len() as u32,
        average,
        range: max - min,
        range_limit,
        slope,
        change,
        change_limit,
        steady,
    })
}

#[cfg(test)]
mod tests {
    use methodic_compiler::plan::Percent;

    use super::*;

    fn rule() -> SteadyRule {
        SteadyRule::default()
    }

    #[test]
    fn converging_series_become_steady_and_report_when() {
        // A drive settling: falling fast, then flat.
        let values = [300.0, 200.0, 150.0, 120.0, 101.0, 100.0, 99.0, 100.0, 100.5, 99.5];
        let first =
            (1..=values.len()).find(|&n| check(&values[..n], &rule()).is_some_and(|w| w.steady)).unwrap();
        assert_eq!(first, 9, "rounds 5..9 are the first steady window");
        let w = check(&values[..first], &rule()).unwrap();
        assert_eq!((w.first, w.last), (5, 9));
    }

    #[test]
    fn too_few_rounds_and_diverging_series_are_not_steady() {
        assert!(check(&[100.0; 4], &rule()).is_none());
        let falling: Vec<f64> = (0..25).map(|i| 1000.0 - 30.0 * i as f64).collect();
        assert!(!check(&falling, &rule()).unwrap().steady);
        let noisy = [100.0, 130.0, 100.0, 130.0, 100.0];
        let w = check(&noisy, &rule()).unwrap();
        assert!(!w.steady && w.range > w.range_limit);
        assert!(!check(&[0.0; 5], &rule()).unwrap().steady, "no I/O is not a steady state");
    }

    #[test]
    fn the_edges_of_each_threshold() {
        // Range exactly 20% of the average, no slope: steady.
        let at_range = [90.0, 110.0, 100.0, 110.0, 90.0];
        let w = check(&at_range, &rule()).unwrap();
        assert!((w.range - 20.0).abs() < 1e-9 && (w.range_limit - 20.0).abs() < 1e-9);
        assert!(w.steady, "{w:?}");
        // Just past it: not steady.
        let past_range = [89.9, 110.0, 100.0, 110.0, 90.1];
        assert!(!check(&past_range, &rule()).unwrap().steady);
        // A straight line whose change across the window is exactly 10%
        // of the average: steady on the slope, and the range is the same 10%.
        let line = [95.0, 97.5, 100.0, 102.5, 105.0];
        let w = check(&line, &rule()).unwrap();
        assert!((w.change - 10.0).abs() < 1e-9 && (w.change_limit - 10.0).abs() < 1e-9, "{w:?}");
        assert!(w.steady);
        // A steeper line: not steady on the slope although within the range limit.
        let steeper = [94.9, 97.45, 100.0, 102.55, 105.1];
        let w = check(&steeper, &rule()).unwrap();
        assert!(w.range <= w.range_limit && w.change > w.change_limit && !w.steady, "{w:?}");
        // Tighter rules from the plan are honoured.
        let tight = SteadyRule { excursion: Percent::whole(5), ..rule() };
        assert!(!check(&at_range, &tight).unwrap().steady);
    }
}
