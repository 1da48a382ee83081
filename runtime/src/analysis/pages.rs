//! The flash page size from a page probe: the latency of a small write at
//! each offset, and the unit the writes reached the device in (its logical
//! block with O_DIRECT, a page of the page cache through it). A write that
//! straddles a page boundary programs two pages and takes far longer, so
//! the slow offsets come in clusters, one a boundary. Only offsets that are
//! multiples of the unit are used, and each write counts as the whole units
//! it reaches the device as: a write aimed between them reaches the device
//! at the unit it falls in, not where it was aimed, so no structure below
//! the unit is estimated (and none at all when each write is one unit,
//! which never crosses a boundary between units). The estimate is the
//! spacing that best explains where the clusters sit: for each candidate
//! spacing (a multiple of the probe's step, so 100 KiB and 400 KiB pages
//! are found as well as powers of two) and phase, the share of clusters
//! that fall on the comb (precision) and the share of the comb's teeth that
//! have a cluster (recall); the F1 of the two is the score, which a spacing
//! twice or half the true one cannot reach. A best score under 0.7 means no
//! periodic structure. Spacings start at three times the tolerance (a comb
//! finer than that catches everything), and each is scored from the
//! boundaries sorted by their place within it, so a 4MiB probe in 512B
//! steps is estimated in well under a second. A page that is not a multiple
//! of the step drifts off the comb after a few teeth and may not be found.

use methodic_results::analysis::PageEstimate;

use super::median;

/// Scores below this mean the slow offsets have no spacing in common.
const MIN_SCORE: f64 = 0.7;

/// `4 KiB`, `100 KiB`, `512 B`.
pub(crate) fn kib(b: u64) -> String {
    if b.is_multiple_of(1024) { format!("{} KiB", b / 1024) } else { format!("{b} B") }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Estimates the page size from `latency_us[i]` measured at `offsets[i]`
/// (ascending, `step` apart) for writes of `io` bytes that reached the
/// device in whole `unit`s. Offsets that are not multiples of `unit` are
/// left out; the rest are `lcm(step, unit)` apart, and each write counts as
/// `io` rounded up to whole units.
pub fn estimate(offsets: &[u64], latency_us: &[f64], io: u64, step: u64, unit: u64) -> PageEstimate {
    if step == 0 {
        return none(0, f64::NAN, "no periodic structure found: too few offsets probed".into());
    }
    let unit = unit.max(1);
    let io = io.max(1).next_multiple_of(unit);
    if io <= unit {
        return none(
            0,
            f64::NAN,
            format!(
                "no estimate: each write reaches the device as one {} block, which never crosses a \
                 boundary between blocks; write more than {} at a time",
                kib(unit),
                kib(unit)
            ),
        );
    }
    let step = step / gcd(step, unit) * unit;
    let (offsets, latency_us): (Vec<u64>, Vec<f64>) =
        offsets.iter().zip(latency_us).filter(|(o, _)| *o % unit == 0).map(|(o, l)| (*o, *l)).unzip();
    let n = offsets.len();
    if n < 8 {
        return none(0, f64::NAN, "no periodic structure found: too few offsets probed".into());
    }
    let threshold = threshold(&latency_us);
    let boundaries = boundaries(&offsets, &latency_us, threshold, io, step);
    let e = boundaries.len();
    if e < 3 {
        return none(
            e,
            threshold,
            format!("no periodic structure found: {e} slow spots, too few for a spacing"),
        );
    }
    // Slow everywhere is no structure: the probe is mostly noise.
    if e > n / 8 {
        return none(e, threshold, format!("no periodic structure found: {e} slow spots in {n} offsets"));
    }
    let lo = offsets[0] as f64 + io as f64 / 2.0;
    let hi = offsets[n - 1] as f64 + io as f64 / 2.0;
    let tol = (io.max(2 * step)) as f64;
    let (score, page, first) = best_spacing(&boundaries, lo, hi, step, tol);
    if score < MIN_SCORE {
        return PageEstimate {
            confidence: score,
            ..none(
                e,
                threshold,
                format!("no periodic structure found: {e} slow spots with no common spacing"),
            )
        };
    }
    // Round the first boundary to the probe's step.
    let first = ((first / step as f64).round() as u64) * step;
    PageEstimate {
        page_bytes: Some(page),
        first_boundary: Some(first),
        confidence: (score * 100.0).round() / 100.0,
        spikes: e,
        threshold_us: threshold,
        verdict: format!("page size {} (confidence {:.2}, {e} boundaries seen)", kib(page), score),
    }
}

/// No page size: `spikes` slow spots above `threshold` microseconds, and
/// why.
fn none(spikes: usize, threshold: f64, why: String) -> PageEstimate {
    PageEstimate {
        page_bytes: None,
        first_boundary: None,
        confidence: 0.0,
        spikes,
        threshold_us: threshold,
        verdict: why,
    }
}

/// The latency above which a write is slow: five median absolute
/// deviations above the median, and a quarter of the median at least.
fn threshold(latency_us: &[f64]) -> f64 {
    let base = median(latency_us);
    let deviations: Vec<f64> = latency_us.iter().map(|x| (x - base).abs()).collect();
    let mad = median(&deviations) * 1.4826;
    base + (5.0 * mad).max(0.25 * base)
}

/// Where the page boundaries the slow writes crossed are, in bytes:
/// clusters of writes slower than `threshold` (runs of them no further
/// apart than a write's length), each pointing at one boundary.
fn boundaries(offsets: &[u64], latency_us: &[f64], threshold: f64, io: u64, step: u64) -> Vec<f64> {
    // Clusters: runs of slow offsets no further apart than a write's length.
    let gap = io.max(step);
    let mut clusters: Vec<(u64, u64)> = Vec::new();
    for i in (0..offsets.len()).filter(|&i| latency_us[i] > threshold) {
        match clusters.last_mut() {
            Some((_, last)) if offsets[i] - *last <= gap => *last = offsets[i],
            _ => clusters.push((offsets[i], offsets[i])),
        }
    }
    // A write at o straddles boundary b when o < b < o + io: a cluster
    // [first, last] points at a boundary about io/2 past its middle.
    clusters.iter().map(|(a, b)| (*a + *b) as f64 / 2.0 + io as f64 / 2.0).collect()
}

/// The spacing that best explains where the `boundaries` sit in the
/// probed range `lo..hi`: each multiple of `step` from three tolerances
/// (`tol`) up to half the range, scored by its comb ([`comb`]). Its
/// score, the spacing and its first tooth; a score of 0 when no comb had
/// three teeth in the range.
fn best_spacing(boundaries: &[f64], lo: f64, hi: f64, step: u64, tol: f64) -> (f64, u64, f64) {
    let range = hi - lo;
    let mut best = (0.0f64, 0u64, 0.0f64);
    // A spacing within a few tolerances would catch everything.
    let mut p = (2 * step).max(((3.0 * tol) as u64 / step + 1) * step);
    while (p as f64) * 2.0 <= range {
        if let Some((f1, first)) = comb(boundaries, lo, hi, p as f64, tol)
            && f1 > best.0 + 1e-9
        {
            best = (f1, p, first);
        }
        p += step;
    }
    best
}

/// The comb of spacing `pf` laid where it catches the most `boundaries`
/// (within `tol` of a tooth): the F1 of its precision (the share of the
/// boundaries it catches) and its recall (the share of its teeth in
/// `lo..hi` with a boundary near them), and its first tooth. `None` when
/// fewer than three teeth fit in the range.
fn comb(boundaries: &[f64], lo: f64, hi: f64, pf: f64, tol: f64) -> Option<(f64, f64)> {
    // Each boundary's place within the spacing, three laps laid out so
    // that a window around any of them needs no wrapping.
    let mut laps: Vec<f64> = boundaries.iter().map(|b| (b - lo).rem_euclid(pf)).collect();
    laps.sort_by(f64::total_cmp);
    let ring: Vec<f64> =
        laps.iter().map(|r| r - pf).chain(laps.iter().copied()).chain(laps.iter().map(|r| r + pf)).collect();
    let (mut hits, mut phase) = (0, 0.0);
    for &r in &laps {
        let h = ring.partition_point(|x| *x <= r + tol) - ring.partition_point(|x| *x < r - tol);
        if h > hits {
            (hits, phase) = (h, r);
        }
    }
    let precision = hits as f64 / boundaries.len() as f64;
    // The comb's teeth inside the probed range, and how many have a
    // boundary near them (the boundaries are in order).
    let first = lo + phase;
    let teeth = ((hi - first) / pf).floor() as usize + 1;
    if teeth < 3 {
        return None;
    }
    let found = (0..teeth)
        .filter(|k| {
            let t = first + *k as f64 * pf;
            let at = boundaries.partition_point(|b| *b < t - tol);
            boundaries.get(at).is_some_and(|b| *b <= t + tol)
        })
        .count();
    let recall = found as f64 / teeth as f64;
    let f1 = if precision + recall > 0.0 { 2.0 * precision * recall / (precision + recall) } else { 0.0 };
    Some((f1, first))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic noise source (SplitMix64), in [-1, 1).
    fn noise(seed: &mut u64) -> f64 {
        *seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// A probe of `io` writes every `step` over `range`, pages of `page`
    /// bytes starting at `phase`: 100 µs, 2000 µs across a boundary, with
    /// `jitter` (a share) of noise, `miss` of the spikes lost and `false_`
    /// of the offsets slow for no reason.
    #[allow(clippy::too_many_arguments)]
    fn series(
        page: u64,
        phase: u64,
        io: u64,
        step: u64,
        range: u64,
        jitter: f64,
        miss: f64,
        false_: f64,
    ) -> (Vec<u64>, Vec<f64>) {
        let mut seed = page ^ 0x5eed;
        let offsets: Vec<u64> = (0..).map(|k| k * step).take_while(|o| o + io <= range).collect();
        let lat = offsets
            .iter()
            .map(|&o| {
                // The first boundary past o, and whether the write reaches it.
                let next = if o < phase { phase } else { phase + ((o - phase) / page + 1) * page };
                let crosses = next < o + io;
                let r = noise(&mut seed);
                let spike = crosses && (r.abs() >= miss);
                let wrong = !crosses && noise(&mut seed).abs() < false_;
                let base = 100.0 * (1.0 + jitter * noise(&mut seed));
                if spike || wrong { base + 1900.0 } else { base }
            })
            .collect();
        (offsets, lat)
    }

    #[test]
    fn a_clean_power_of_two_page_is_found() {
        let (o, l) = series(64 << 10, 0, 1024, 512, 4 << 20, 0.0, 0.0, 0.0);
        let e = estimate(&o, &l, 1024, 512, 512);
        assert_eq!(e.page_bytes, Some(64 << 10), "{e:?}");
        assert!(e.confidence > 0.95 && e.spikes >= 60, "{e:?}");
        assert!(e.verdict.starts_with("page size 64 KiB"), "{}", e.verdict);
    }

    #[test]
    fn pages_that_are_not_powers_of_two_are_found() {
        for page in [100 << 10, 400 << 10] {
            let (o, l) = series(page, 0, 1024, 512, 4 << 20, 0.05, 0.0, 0.0);
            let e = estimate(&o, &l, 1024, 512, 512);
            assert_eq!(e.page_bytes, Some(page), "{e:?}");
        }
    }

    #[test]
    fn a_noisy_probe_with_missed_and_false_spikes_still_finds_the_page() {
        let (o, l) = series(128 << 10, 8 << 10, 1024, 512, 4 << 20, 0.2, 0.15, 0.0003);
        let e = estimate(&o, &l, 1024, 512, 512);
        assert_eq!(e.page_bytes, Some(128 << 10), "{e:?}");
        assert!(e.confidence >= 0.7 && e.confidence < 1.0, "{e:?}");
        let first = e.first_boundary.unwrap();
        assert!(first.abs_diff(8 << 10) <= 512, "the first boundary near 8 KiB: {first}");
    }

    #[test]
    fn noise_alone_has_no_periodic_structure() {
        let (o, l) = series(u64::MAX / 4, 0, 1024, 512, 4 << 20, 0.3, 0.0, 0.003);
        let e = estimate(&o, &l, 1024, 512, 512);
        assert_eq!(e.page_bytes, None, "{e:?}");
        assert!(e.verdict.starts_with("no periodic structure found"), "{}", e.verdict);
        let flat = vec![100.0; 64];
        let offsets: Vec<u64> = (0..64).map(|k| k * 512).collect();
        assert_eq!(estimate(&offsets, &flat, 1024, 512, 512).page_bytes, None);
        assert_eq!(estimate(&offsets[..4], &flat[..4], 1024, 512, 512).page_bytes, None, "too few offsets");
    }

    /// The old probe's shape, 512B writes in 256B steps: with a 512 B
    /// logical block, the offsets between blocks are left out, and a
    /// one-block write at a block boundary never crosses a page boundary, so
    /// there is no estimate, though the same series read at a 256 B unit
    /// (as if those writes had reached the device) shows 64 KiB pages.
    #[test]
    fn no_estimate_from_writes_of_one_logical_block() {
        let (o, l) = series(64 << 10, 0, 512, 256, 4 << 20, 0.0, 0.0, 0.0);
        assert_eq!(estimate(&o, &l, 512, 256, 256).page_bytes, Some(64 << 10), "the control");
        let e = estimate(&o, &l, 512, 256, 512);
        assert_eq!(e.page_bytes, None, "{e:?}");
        assert!(
            e.verdict.starts_with("no estimate: each write reaches the device as one 512 B block"),
            "{}",
            e.verdict
        );
        // Through the page cache (4 KiB pages) a 1 KiB write is one page too.
        let (o, l) = series(64 << 10, 0, 1024, 512, 4 << 20, 0.0, 0.0, 0.0);
        let e = estimate(&o, &l, 1024, 512, 4096);
        assert_eq!(e.page_bytes, None, "{e:?}");
        assert!(e.verdict.contains("one 4 KiB block"), "{}", e.verdict);
    }

    /// Slow offsets that lie between logical blocks are not used: spikes
    /// only at offsets 256 B past a block boundary, 64 KiB apart, are found
    /// at a 256 B unit and ignored at a 512 B one, where the offsets that
    /// remain are all fast.
    #[test]
    fn offsets_between_logical_blocks_are_not_used() {
        let io = 1024;
        let offsets: Vec<u64> = (0..).map(|k| k * 256).take_while(|o| o + io <= 4 << 20).collect();
        let latency: Vec<f64> = offsets
            .iter()
            .map(|&o| if o % 512 == 256 && o % (64 << 10) >= (64 << 10) - io { 2000.0 } else { 100.0 })
            .collect();
        assert_eq!(estimate(&offsets, &latency, io, 256, 256).page_bytes, Some(64 << 10), "the control");
        let e = estimate(&offsets, &latency, io, 256, 512);
        assert_eq!((e.page_bytes, e.spikes), (None, 0), "{e:?}");
    }

    /// A page that is a whole number of 4 KiB units is still found from
    /// 8 KiB writes through the page cache, from the 4 KiB-aligned offsets.
    #[test]
    fn pages_above_the_unit_are_found_from_the_aligned_offsets() {
        let (o, l) = series(128 << 10, 0, 8192, 512, 4 << 20, 0.05, 0.0, 0.0);
        let e = estimate(&o, &l, 8192, 512, 4096);
        assert_eq!(e.page_bytes, Some(128 << 10), "{e:?}");
    }
}
