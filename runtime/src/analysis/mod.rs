//! What a step's numbers say beyond their averages: the flash page size
//! from a page probe, the cache cliff of a sustained write, a step's peak
//! interval, and whether the first of repeated runs stands apart from the
//! rest (the page-cache trap).

pub mod cliff;
pub mod pages;
pub mod peak;
pub mod repeats;

/// The mean of `v` (NaN when empty).
pub(crate) fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The sample standard deviation of `v`; 0 for fewer than two values.
pub(crate) fn sd(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let m = mean(v);
    (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

/// The median of the finite values of `v` (NaN when there are none).
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return f64::NAN;
    }
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 { s[n / 2] } else { (s[n / 2 - 1] + s[n / 2]) / 2.0 }
}
