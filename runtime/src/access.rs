//! Where random offsets land: a workload's access distribution ([`Access`])
//! and the number of aligned slots of the area go in; slots come out, one a
//! draw, by zipf, pareto, normal or hot bands, with no allocation and a
//! bounded cost a draw. Uniform access is not drawn here: the generator
//! draws it itself, as it always has, so that its loop costs what it did.
//!
//! Zipf and pareto draw a rank (0 the hottest) and scatter it over the
//! slots by `Scatter`, a fixed permutation of the slots; normal and
//! bands draw a slot directly, so that their hot region is where the
//! workload says. docs/RESULTS.md ("Where random offsets land") says how
//! each draws and how that compares to fio's `random_distribution`.

use methodic_compiler::plan::{Access, Band};

use crate::rng::Rng;

/// Draws slots of `[0, slots)` by a non-uniform access distribution,
/// from a random stream of its own. Made once a worker; every worker of a
/// step over the same area makes the same permutation (it depends on the
/// number of slots only), so that they share one set of hot blocks.
#[derive(Debug, Clone)]
pub struct Drawer {
    kind: Kind,
    rng: Rng,
}

#[derive(Debug, Clone)]
enum Kind {
    Zipf { zipf: Zipf, scatter: Scatter },
    Pareto { pareto: Pareto, scatter: Scatter },
    Normal(Normal),
    Bands(Bands),
}

impl Drawer {
    /// The drawer of `access` over `slots` slots (at least 1), drawing
    /// from the stream of `seed`; `None` for uniform access, which the
    /// generator draws itself.
    pub fn new(access: &Access, slots: u64, seed: u64) -> Option<Drawer> {
        let slots = slots.max(1);
        let kind = match access {
            Access::Uniform => return None,
            Access::Zipf { theta } => {
                Kind::Zipf { zipf: Zipf::new(slots, theta.as_f64()), scatter: Scatter::new(slots) }
            }
            Access::Pareto { h } => {
                Kind::Pareto { pareto: Pareto::new(slots, h.as_f64()), scatter: Scatter::new(slots) }
            }
            Access::Normal { sigma, centre } => {
                Kind::Normal(Normal::new(slots, sigma.as_f64() / 100.0, centre.as_f64() / 100.0))
            }
            Access::Bands(bands) => Kind::Bands(Bands::new(slots, bands)?),
        };
        Some(Drawer { kind, rng: Rng::new(seed) })
    }

    /// One slot of `[0, slots)`. Out of line, and with a random stream of
    /// its own: the generator's loop inlines only its uniform draw, and
    /// keeps its own stream's state in registers.
    #[inline(never)]
    pub fn slot(&mut self) -> u64 {
        let rng = &mut self.rng;
        match &self.kind {
            Kind::Zipf { zipf, scatter } => scatter.apply(zipf.rank(rng) - 1),
            Kind::Pareto { pareto, scatter } => scatter.apply(pareto.rank(rng)),
            Kind::Normal(normal) => normal.slot(rng),
            Kind::Bands(bands) => bands.slot(rng),
        }
    }
}

/// A uniform draw of `[0, 1)` from the top 53 bits: every value a
/// multiple of 2^-53.
#[inline]
fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A fixed permutation of `[0, n)`: `r -> a*r mod n`, `a` the nearest
/// whole number at or above `n * 0.618...` (the golden ratio's fraction)
/// with no factor in common with `n`, so that the map is one-to-one (a
/// bijection: every slot is the image of exactly one rank). Consecutive
/// ranks land about 0.618 of the span apart, so the hottest ranks spread
/// over the whole span as a golden-ratio sequence does: on a span of
/// 100,000 slots or more, no two of the first hundred closer than half of
/// an even spacing. Rank 0 is slot 0.
#[derive(Debug, Clone, Copy)]
struct Scatter {
    n: u64,
    a: u64,
}

impl Scatter {
    fn new(n: u64) -> Scatter {
        let n = n.max(1);
        let fraction = (5f64.sqrt() - 1.0) / 2.0;
        let mut a = ((n as f64 * fraction).round() as u64).min(n - 1);
        // Coprime numbers are dense (more than a third of any run of
        // whole numbers near n, for n of 64 bits): this ends in a few steps.
        while gcd(a, n) != 1 {
            a = if a + 1 >= n { 1 } else { a + 1 };
        }
        Scatter { n, a }
    }

    #[inline]
    fn apply(&self, r: u64) -> u64 {
        if self.n <= 1 << 32 {
            // a and r are below n <= 2^32: the product fits 64 bits.
            (self.a * r) % self.n
        } else {
            ((self.a as u128 * r as u128) % self.n as u128) as u64
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Zipf over ranks 1..=n: rank k drawn with probability proportional to
/// 1/k^theta, exactly, by rejection-inversion (W. Hörmann and G.
/// Derflinger, "Rejection-inversion to generate variates from monotone
/// discrete distributions", ACM TOMACS 6(3), 1996), in the form Apache
/// Commons RNG's RejectionInversionZipfSampler gives it: the integral of
/// the hat function is taken as (x^(1-theta) - 1)/(1 - theta), which has
/// a limit (ln x) at theta = 1, so that every theta > 0 works, 1 included.
/// A try costs a logarithm and an exponential, and two more of each when
/// the quick acceptance test does not settle it. Counted over theta 0.1 to
/// 10 and 2 to 2^40 ranks: at most 1.015 tries a draw on average, and the
/// slower test in at most 2.3% of them.
#[derive(Debug, Clone, Copy)]
struct Zipf {
    n: u64,
    theta: f64,
    /// H(1.5) - 1.
    h_x1: f64,
    /// H(n + 0.5).
    h_n: f64,
    /// The quick acceptance bound: 2 - H^-1(H(2.5) - h(2)).
    s: f64,
}

impl Zipf {
    fn new(n: u64, theta: f64) -> Zipf {
        let mut z = Zipf { n, theta, h_x1: 0.0, h_n: 0.0, s: 0.0 };
        z.h_x1 = z.h_integral(1.5) - 1.0;
        z.h_n = z.h_integral(n as f64 + 0.5);
        z.s = 2.0 - z.h_integral_inverse(z.h_integral(2.5) - z.h(2.0));
        z
    }

    /// A rank in 1..=n.
    #[inline]
    fn rank(&self, rng: &mut Rng) -> u64 {
        loop {
            // Uniform in (h_x1, h_n].
            let u = self.h_n + unit(rng) * (self.h_x1 - self.h_n);
            let x = self.h_integral_inverse(u);
            // Rounding can put x a hair outside [0.5, n + 0.5].
            let k = ((x + 0.5) as u64).clamp(1, self.n);
            if k as f64 - x <= self.s || u >= self.h_integral(k as f64 + 0.5) - self.h(k as f64) {
                return k;
            }
        }
    }

    /// h(x) = x^-theta, the hat function.
    fn h(&self, x: f64) -> f64 {
        (-self.theta * x.ln()).exp()
    }

    /// H(x) = (x^(1-theta) - 1) / (1 - theta), or ln x at theta = 1.
    fn h_integral(&self, x: f64) -> f64 {
        let log_x = x.ln();
        expm1_over_x((1.0 - self.theta) * log_x) * log_x
    }

    /// H^-1(y) = (1 + y (1 - theta))^(1/(1-theta)), or e^y at theta = 1.
    fn h_integral_inverse(&self, y: f64) -> f64 {
        // Below -1 only by rounding.
        let t = (y * (1.0 - self.theta)).max(-1.0);
        (ln1p_over_x(t) * y).exp()
    }
}

/// ln(1 + x)/x, 1 at x = 0 (its series near 0, where the quotient loses
/// precision).
fn ln1p_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 { x.ln_1p() / x } else { 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x)) }
}

/// (e^x - 1)/x, 1 at x = 0.
fn expm1_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 { x.exp_m1() / x } else { 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x)) }
}

/// Pareto as fio draws it (lib/zipf.c, pareto_next): the rank
/// `floor(n * u^power)` for a uniform u in [0, 1), `power = ln(h) /
/// ln(1 - h)`; so rank < k with probability (k/n)^(1/power). One power
/// a draw. h and 1 - h give mirrored distributions (ranks near 0 for h
/// below 0.5, near n for h above): the same skew.
#[derive(Debug, Clone, Copy)]
struct Pareto {
    n: u64,
    power: f64,
}

impl Pareto {
    fn new(n: u64, h: f64) -> Pareto {
        // The limits of the formula: h at 0 sends every draw to rank 0,
        // h at 1 to rank n - 1 (the compiler accepts only 0 < h < 1).
        let power = if h <= 0.0 {
            f64::INFINITY
        } else if h >= 1.0 {
            0.0
        } else {
            h.ln() / (1.0 - h).ln()
        };
        Pareto { n, power }
    }

    /// A rank in 0..n.
    #[inline]
    fn rank(&self, rng: &mut Rng) -> u64 {
        ((self.n as f64 * unit(rng).powf(self.power)) as u64).min(self.n - 1)
    }
}

/// Normal around `mean` with standard deviation `sd`, both in slots,
/// truncated to [0, n): a draw outside is drawn again. Marsaglia's polar
/// method gives two normal values a try (a try succeeds with probability
/// pi/4); the second is used when the first falls outside. With the
/// centre inside the span and sigma at most 100% of it, at least a third
/// of the values fall inside: fewer than two tries a slot on average.
#[derive(Debug, Clone, Copy)]
struct Normal {
    n: f64,
    mean: f64,
    sd: f64,
}

impl Normal {
    fn new(n: u64, sigma: f64, centre: f64) -> Normal {
        let n = n as f64;
        // The centre lies in the span (the compiler takes 0% to 100%).
        Normal { n, mean: centre.clamp(0.0, 1.0) * n, sd: sigma * n }
    }

    #[inline]
    fn slot(&self, rng: &mut Rng) -> u64 {
        let last = self.n as u64 - 1;
        if self.sd <= 0.0 {
            return (self.mean as u64).min(last);
        }
        loop {
            let (a, b) = (2.0 * unit(rng) - 1.0, 2.0 * unit(rng) - 1.0);
            let s = a * a + b * b;
            if s >= 1.0 || s == 0.0 {
                continue;
            }
            let f = (-2.0 * s.ln() / s).sqrt();
            for z in [a * f, b * f] {
                let x = self.mean + self.sd * z;
                if x >= 0.0 && x < self.n {
                    // x < n, but the conversion rounds nothing up: a
                    // floor of x below n is at most n - 1.
                    return (x as u64).min(last);
                }
            }
        }
    }
}

/// Hot bands: a band picked by its share of I/Os, then a slot uniformly
/// within the band's slots. The bands lie one after another from slot 0;
/// band j ends at slot floor(n * (its span share and those before it) /
/// 100%), computed exactly in integers, and the last ends at n, so that
/// the bands' slots add up to the whole area.
#[derive(Debug, Clone)]
struct Bands {
    /// Cumulative I/O shares in hundredths of a percent.
    io: Vec<u32>,
    /// Where each band starts; the next band's start ends it.
    starts: Vec<u64>,
    /// The number of slots: where the last band ends.
    n: u64,
}

impl Bands {
    /// `None` when no band takes I/O (the compiler refuses such bands).
    fn new(n: u64, bands: &[Band]) -> Option<Bands> {
        let (mut io, mut starts) = (Vec::with_capacity(bands.len()), Vec::with_capacity(bands.len()));
        let (mut io_sum, mut span_sum) = (0u32, 0u64);
        for b in bands {
            starts.push((n as u128 * span_sum as u128 / 10_000) as u64);
            span_sum += b.span.hundredths() as u64;
            io_sum += b.io.hundredths();
            io.push(io_sum);
        }
        (io_sum > 0).then_some(Bands { io, starts, n })
    }

    /// A linear search over the bands: a handful, fixed by the workload.
    #[inline]
    fn slot(&self, rng: &mut Rng) -> u64 {
        let total = *self.io.last().expect("a band that takes I/O");
        let pick = rng.below(total as u64) as u32;
        let j = self.io.iter().position(|&c| pick < c).expect("pick is below the last cumulative share");
        let start = self.starts[j];
        let end = self.starts.get(j + 1).copied().unwrap_or(self.n);
        if end > start {
            start + rng.below(end - start)
        } else {
            // A band too narrow for a slot of this span (a span of fewer
            // slots than the bands need): its I/O goes to the slot where
            // it would start.
            start.min(self.n - 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use methodic_compiler::plan::{Milli, Percent};

    use super::*;

    /// The standard normal's distribution function, from erf's series
    /// erf(x) = 2/sqrt(pi) e^(-x^2) sum 2^k x^(2k+1) / (1*3*...*(2k+1)),
    /// whose terms are all positive (no cancellation): accurate to about
    /// 1e-15, well within the 1e-7 the expected bin shares need.
    fn phi(z: f64) -> f64 {
        let x = z.abs() / 2f64.sqrt();
        let erf = if x > 6.0 {
            1.0
        } else {
            let (mut term, mut sum, mut k) = (x, x, 0.0);
            while term > 1e-17 * sum {
                k += 1.0;
                term *= 2.0 * x * x / (2.0 * k + 1.0);
                sum += term;
            }
            2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp() * sum
        };
        if z >= 0.0 { 0.5 * (1.0 + erf) } else { 0.5 * (1.0 - erf) }
    }

    #[test]
    fn phi_matches_known_values() {
        for (z, p) in [
            (0.0, 0.5),
            (1.0, 0.841_344_746_068_542_9),
            (-1.96, 0.024_997_895_148_220_435),
            (3.090_232_306_167_813, 0.999),
            (-5.0, 2.866_515_718_791_939e-7),
        ] {
            assert!((phi(z) - p).abs() < 1e-12, "phi({z}) = {} not {p}", phi(z));
        }
    }

    #[test]
    fn the_critical_values_are_wilson_hilfertys_close_to_the_exact_ones() {
        // The chi-square distribution's 0.999 quantiles, from tables.
        for (df, exact, within) in
            [(1, 10.828, 0.04), (10, 29.588, 0.01), (30, 59.703, 0.003), (100, 149.449, 0.001)]
        {
            let p = vec![1.0 / (df + 1) as f64; df + 1];
            let (_, critical, _) = chi_square(&vec![1000; df + 1], &p, 1000 * (df + 1) as u64);
            assert!(
                critical >= exact && critical < exact * (1.0 + within),
                "{df}: {critical} against {exact}"
            );
        }
    }

    /// The chi-square statistic of `observed` against the expected shares
    /// `p` (adding up to 1) over `draws`, with adjacent bins merged until
    /// each expects at least 5 draws; and the critical value at p = 0.001
    /// for its degrees of freedom (bins - 1), by the Wilson-Hilferty
    /// approximation k (1 - 2/(9k) + z sqrt(2/(9k)))^3 with z the normal's
    /// 0.999 quantile. It is a little above the exact value (3% at one
    /// degree of freedom, under 1% from ten up): a little more lenient.
    fn chi_square(observed: &[u64], p: &[f64], draws: u64) -> (f64, f64, usize) {
        assert_eq!(observed.len(), p.len());
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9, "shares add up to {}", p.iter().sum::<f64>());
        assert_eq!(observed.iter().sum::<u64>(), draws, "every draw is in a bin");
        let mut bins: Vec<(f64, f64)> = Vec::new();
        let mut acc = (0.0, 0.0);
        for (o, p) in observed.iter().zip(p) {
            acc = (acc.0 + *o as f64, acc.1 + p * draws as f64);
            if acc.1 >= 5.0 {
                bins.push(acc);
                acc = (0.0, 0.0);
            }
        }
        match bins.last_mut() {
            Some(last) => *last = (last.0 + acc.0, last.1 + acc.1),
            None => bins.push(acc),
        }
        let stat: f64 = bins.iter().map(|(o, e)| (o - e) * (o - e) / e).sum();
        let k = (bins.len() - 1).max(1) as f64;
        let z = 3.090_232_306_167_813;
        let critical = k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3);
        (stat, critical, bins.len())
    }

    fn assert_fits(what: &str, observed: &[u64], p: &[f64], draws: u64) {
        let (stat, critical, bins) = chi_square(observed, p, draws);
        assert!(
            stat < critical,
            "{what}: chi-square {stat:.1} over {bins} bins is above {critical:.1}, its critical value at p = 0.001"
        );
    }

    fn assert_misfits(what: &str, observed: &[u64], p: &[f64], draws: u64) {
        let (stat, critical, bins) = chi_square(observed, p, draws);
        assert!(
            stat > critical,
            "{what}: chi-square {stat:.1} over {bins} bins is below {critical:.1}: the test cannot tell them apart"
        );
    }

    /// How many draws the large tests make: a million, as the issue asks;
    /// a debug build (cargo test) makes a quarter million, so that the
    /// suite stays quick (about 0.3 s for all four there).
    const DRAWS: u64 = 1_000_000;

    /// Ranks 1..=16 one a bin, then [2^j, 2^(j+1)), up to n.
    fn rank_bins(n: u64) -> Vec<(u64, u64)> {
        let mut bins: Vec<(u64, u64)> = (1..=16.min(n)).map(|k| (k, k + 1)).collect();
        let mut lo = 17;
        while lo <= n {
            let hi = (lo.next_power_of_two().max(lo + 1)).min(n + 1);
            let hi = if hi == lo { (2 * lo).min(n + 1) } else { hi };
            bins.push((lo, hi));
            lo = hi;
        }
        bins
    }

    /// The exact zipf shares of `bins` of ranks over n ranks: 1/k^theta
    /// over the generalized harmonic number H(n, theta).
    fn zipf_shares(n: u64, theta: f64, bins: &[(u64, u64)]) -> Vec<f64> {
        let w = |k: u64| (k as f64).powf(-theta);
        // Summed from the smallest terms up, for precision.
        let harmonic: f64 = (1..=n).rev().map(w).sum();
        bins.iter().map(|&(a, b)| (a..b).rev().map(w).sum::<f64>() / harmonic).collect()
    }

    fn zipf_counts(n: u64, theta: f64, draws: u64, seed: u64) -> (Vec<(u64, u64)>, Vec<u64>) {
        let z = Zipf::new(n, theta);
        let mut rng = Rng::new(seed);
        let bins = rank_bins(n);
        let mut per_rank = vec![0u64; n as usize + 1];
        for _ in 0..draws {
            let k = z.rank(&mut rng);
            assert!((1..=n).contains(&k), "rank {k} of {n}");
            per_rank[k as usize] += 1;
        }
        let counts = bins.iter().map(|&(a, b)| per_rank[a as usize..b as usize].iter().sum()).collect();
        (bins, counts)
    }

    #[test]
    fn zipf_ranks_fit_the_generalized_harmonic_shares() {
        let n = 10_000;
        let (bins, counts) = zipf_counts(n, 1.2, DRAWS, 1);
        assert_fits("zipf 1.2", &counts, &zipf_shares(n, 1.2, &bins), DRAWS);
        // The test tells zipf 1.2 from zipf 1.15.
        assert_misfits("zipf 1.2 against 1.15", &counts, &zipf_shares(n, 1.15, &bins), DRAWS);
    }

    #[test]
    fn zipf_at_theta_one_and_below_it_fits_too() {
        for (theta, seed) in [(1.0, 2), (0.5, 3), (3.0, 4)] {
            let n = 1000;
            let (bins, counts) = zipf_counts(n, theta, 100_000, seed);
            assert_fits(&format!("zipf {theta}"), &counts, &zipf_shares(n, theta, &bins), 100_000);
        }
    }

    /// Bin edges of ranks (or slots) 0..n at the quantiles of a
    /// distribution function: `bins` edges where `quantile(i / bins)` falls.
    fn edges(n: u64, bins: u32, quantile: impl Fn(f64) -> f64) -> Vec<u64> {
        let mut e: Vec<u64> =
            (0..=bins).map(|i| (quantile(i as f64 / bins as f64).round() as u64).min(n)).collect();
        e[0] = 0;
        *e.last_mut().unwrap() = n;
        e.dedup();
        e
    }

    fn binned(values: impl Iterator<Item = u64>, edges: &[u64]) -> Vec<u64> {
        let mut counts = vec![0u64; edges.len() - 1];
        for v in values {
            let i = edges.partition_point(|&e| e <= v) - 1;
            counts[i] += 1;
        }
        counts
    }

    /// Pareto's shares of rank ranges [a, b): (b/n)^(1/power) - (a/n)^(1/power).
    fn pareto_shares(n: u64, h: f64, edges: &[u64]) -> Vec<f64> {
        let inv = (1.0 - h).ln() / h.ln();
        edges
            .windows(2)
            .map(|w| (w[1] as f64 / n as f64).powf(inv) - (w[0] as f64 / n as f64).powf(inv))
            .collect()
    }

    #[test]
    fn pareto_ranks_fit_fios_formula() {
        let n = 1_000_000;
        let h = 0.9;
        let p = Pareto::new(n, h);
        let power = h.ln() / (1.0 - h).ln();
        let e = edges(n, 50, |q| n as f64 * q.powf(power));
        let mut rng = Rng::new(5);
        let mut top = 0;
        let counts =
            binned((0..DRAWS).map(|_| p.rank(&mut rng)).inspect(|&r| top += u64::from(r >= n / 10 * 9)), &e);
        assert_fits("pareto 0.9", &counts, &pareto_shares(n, h, &e), DRAWS);
        assert_misfits("pareto 0.9 against 0.89", &counts, &pareto_shares(n, 0.89, &e), DRAWS);
        // h and 1 - h: the same skew, mirrored. The top 10% of the ranks
        // take 90% of the draws for 0.9, as the bottom 10% do for 0.1.
        let share = top as f64 / DRAWS as f64;
        assert!((share - 0.9).abs() < 0.01, "{share}");
        let low = Pareto::new(n, 0.1);
        let bottom = (0..100_000).filter(|_| low.rank(&mut rng) < n / 10).count();
        assert!((bottom as f64 / 100_000.0 - 0.9).abs() < 0.01, "{bottom}");
    }

    /// The truncated normal's shares of slot ranges [a, b) of [0, n).
    fn normal_shares(n: u64, sigma: f64, centre: f64, edges: &[u64]) -> Vec<f64> {
        let (mean, sd) = (centre * n as f64, sigma * n as f64);
        let cdf = |x: u64| phi((x as f64 - mean) / sd);
        let inside = cdf(n) - cdf(0);
        edges.windows(2).map(|w| (cdf(w[1]) - cdf(w[0])) / inside).collect()
    }

    #[test]
    fn normal_slots_fit_the_truncated_normal() {
        let n = 10_000;
        // Centred, and near the start, where a third of the draws fall
        // outside and are drawn again.
        for (sigma, centre, seed, draws) in [(0.05, 0.5, 6, DRAWS), (0.10, 0.05, 7, DRAWS / 4)] {
            let d = Normal::new(n, sigma, centre);
            let e: Vec<u64> = (0..=100).map(|i| i * n / 100).collect();
            let mut rng = Rng::new(seed);
            let counts = binned((0..draws).map(|_| d.slot(&mut rng)), &e);
            let what = format!("normal {sigma} around {centre}");
            assert_fits(&what, &counts, &normal_shares(n, sigma, centre, &e), draws);
            assert_misfits(
                &format!("{what} against 1.03 sigma"),
                &counts,
                &normal_shares(n, sigma * 1.03, centre, &e),
                draws,
            );
        }
    }

    fn band(io: u32, span: u32) -> Band {
        Band { io: Percent::whole(io), span: Percent::whole(span) }
    }

    #[test]
    fn bands_fit_their_shares_and_are_uniform_inside() {
        // The SNIA composite's bands, over a count of slots that no share
        // divides evenly.
        let n = 99_991;
        let bands = [band(50, 5), band(30, 15), band(20, 80)];
        let b = Bands::new(n, &bands).unwrap();
        let bounds = [0, n * 5 / 100, n * 20 / 100, n];
        assert_eq!(b.starts, bounds[..3]);
        // Each band in 10 pieces: its share split by their slots.
        let mut e = Vec::new();
        let mut p = Vec::new();
        for (j, w) in bounds.windows(2).enumerate() {
            let len = w[1] - w[0];
            for i in 0..10 {
                let (a, z) = (w[0] + len * i / 10, w[0] + len * (i + 1) / 10);
                e.push(a);
                p.push(bands[j].io.as_f64() / 100.0 * (z - a) as f64 / len as f64);
            }
        }
        e.push(n);
        let mut rng = Rng::new(8);
        let counts = binned((0..DRAWS).map(|_| b.slot(&mut rng)), &e);
        assert_fits("bands 50% in 5%, 30% in 15%, 20% in 80%", &counts, &p, DRAWS);
        // The test tells 50/30/20 from 49/31/20.
        let mut off = p.clone();
        for v in &mut off[..10] {
            *v *= 49.0 / 50.0;
        }
        for v in &mut off[10..20] {
            *v *= 31.0 / 30.0;
        }
        assert_misfits("bands against 49/31/20", &counts, &off, DRAWS);
    }

    #[test]
    fn scattering_is_a_bijection() {
        let sizes = (1..=300).chain([1024, 4096, 65_536, 99_991, 1_000_000]);
        for n in sizes {
            let s = Scatter::new(n);
            let mut hit = vec![false; n as usize];
            for r in 0..n {
                let slot = s.apply(r);
                assert!(slot < n && !hit[slot as usize], "n {n}: rank {r} to slot {slot} twice or outside");
                hit[slot as usize] = true;
            }
        }
        // Above 2^32 slots (a 16TiB span of 4KiB blocks, say) the product
        // is taken in 128 bits; a bijection still, as gcd(a, n) = 1.
        for n in [(1u64 << 32) + 1, 1 << 40, (1 << 44) + 7, u64::MAX] {
            let s = Scatter::new(n);
            assert_eq!(gcd(s.a, n), 1);
            assert!([0, 1, n / 2, n - 1].iter().all(|&r| s.apply(r) < n));
            assert_eq!(s.apply(n - 1), ((s.a as u128 * (n - 1) as u128) % n as u128) as u64);
        }
        // The hottest ranks spread over the span: no two of the first m
        // closer than 0.7 of an even spacing (n/m) for m = 8 and 13, 0.5
        // for m = 100.
        for n in [99_991, 262_144, 1_000_000, 16_777_216] {
            let s = Scatter::new(n);
            for (m, least) in [(8, 0.7), (13, 0.7), (100, 0.5)] {
                let mut at: Vec<u64> = (0..m).map(|r| s.apply(r)).collect();
                at.sort_unstable();
                let wrap = n - at[m as usize - 1] + at[0];
                let gap = at.windows(2).map(|w| w[1] - w[0]).chain([wrap]).min().unwrap();
                assert!(gap as f64 >= least * (n / m) as f64, "n {n}: the first {m} ranks {gap} slots apart");
            }
        }
    }

    fn accesses() -> Vec<Access> {
        vec![
            Access::Zipf { theta: Milli(1200) },
            Access::Zipf { theta: Milli(1000) },
            Access::Pareto { h: Milli(1) },
            Access::Pareto { h: Milli(999) },
            Access::Normal { sigma: Percent::whole(5), centre: Percent::whole(50) },
            Access::Normal { sigma: Percent::whole(20), centre: Percent::HUNDRED },
            Access::Bands(vec![band(50, 5), band(30, 15), band(20, 80)]),
        ]
    }

    #[test]
    fn tiny_areas_of_one_and_two_slots() {
        for access in accesses() {
            let mut one = Drawer::new(&access, 1, 9).unwrap();
            let mut two = Drawer::new(&access, 2, 10).unwrap();
            assert!((0..1000).all(|_| one.slot() == 0), "{access}");
            let mut counts = [0u64; 2];
            for _ in 0..10_000 {
                counts[two.slot() as usize] += 1;
            }
            // The exact shares of the two slots.
            let first = match &access {
                Access::Zipf { theta } => 1.0 / (1.0 + 0.5f64.powf(theta.as_f64())),
                Access::Pareto { h } => 0.5f64.powf((1.0 - h.as_f64()).ln() / h.as_f64().ln()),
                Access::Normal { sigma, centre } => {
                    normal_shares(2, sigma.as_f64() / 100.0, centre.as_f64() / 100.0, &[0, 1, 2])[0]
                }
                // 5% and 15% of 2 slots are none: their I/O goes to
                // slot 0, with half of the last band's.
                Access::Bands(_) => 0.9,
                Access::Uniform => unreachable!(),
            };
            assert_fits(&format!("{access} over 2 slots"), &counts, &[first, 1.0 - first], 10_000);
        }
    }

    #[test]
    fn pareto_near_zero_and_one_and_zipf_at_one_are_drawn() {
        // h = 0.001: all but 0.1% at rank 0 of 1000 (rank 0 with
        // probability (1/1000)^(1/power)); h = 0.999 the mirror.
        let n = 1000;
        for (h, edges) in [(0.001, [0, 1, n]), (0.999, [0, n - 1, n])] {
            let p = Pareto::new(n, h);
            let mut rng = Rng::new(10);
            let counts = binned((0..100_000).map(|_| p.rank(&mut rng)), &edges);
            assert_fits(&format!("pareto {h}"), &counts, &pareto_shares(n, h, &edges), 100_000);
        }
        let z = Zipf::new(1, 1.0);
        let mut rng = Rng::new(11);
        assert!((0..100).all(|_| z.rank(&mut rng) == 1));
    }

    #[test]
    fn a_split_stays_aligned_and_inside_the_area() {
        use methodic_compiler::plan::{BlockShare, Bytes, Workload};

        use crate::region::Region;
        use crate::workload::Generator;
        // An area whose length is no multiple of the alignment or the
        // blocks, so that the 64KiB blocks have fewer slots than the 512B.
        let area = Region { start: 1 << 20, len: (8 << 20) + 1536 + 100 };
        for access in accesses() {
            let w = Workload {
                name: "t".into(),
                blocks: [(512, 10), (4096, 60), (65_536, 30)]
                    .iter()
                    .map(|&(s, p)| BlockShare { size: Bytes(s), share: Percent::whole(p) })
                    .collect(),
                read: Percent::HUNDRED,
                random: Percent::HUNDRED,
                align: Bytes(512),
                offset: Bytes(0),
                access: access.clone(),
                trim: Percent::ZERO,
                write_blocks: None,
            };
            let mut g = Generator::new(&w, area, area, 12);
            let mut last_fit = false;
            for _ in 0..20_000 {
                let io = g.next_io();
                assert_eq!(io.offset % 512, 0, "{access}");
                let end = io.offset + io.len as u64;
                assert!(
                    io.offset >= area.start && end <= area.end(),
                    "{access}: {} + {} outside",
                    io.offset,
                    io.len
                );
                last_fit |= io.len == 65_536 && area.end() - end < 512;
            }
            // Normal around 100% draws the last slots, where a 64KiB block
            // starts at the last slot it fits.
            if matches!(&access, Access::Normal { centre, .. } if *centre == Percent::HUNDRED) {
                assert!(last_fit, "{access}: no 64KiB block at the end");
            }
        }
        // Tiny areas: one and two slots of the smallest block.
        for len in [512u64, 1024] {
            let area = Region { start: 4096, len };
            for access in accesses() {
                let w = Workload {
                    name: "t".into(),
                    blocks: vec![BlockShare { size: Bytes(512), share: Percent::HUNDRED }],
                    read: Percent::HUNDRED,
                    random: Percent::HUNDRED,
                    align: Bytes(512),
                    offset: Bytes(0),
                    access,
                    trim: Percent::ZERO,
                    write_blocks: None,
                };
                let mut g = Generator::new(&w, area, area, 13);
                assert!((0..200).all(|_| {
                    let io = g.next_io();
                    io.offset >= area.start && io.offset + 512 <= area.end()
                }));
            }
        }
    }
}
