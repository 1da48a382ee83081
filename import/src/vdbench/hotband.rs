//! `hotband=(lo,hi)` as methodic's `random bands`: where vdbench's hot
//! band puts random I/Os (`HotBand.get_rec_index`,
//! `Hust-Wen/vdbench@e801261:src/Vdb/HotBand.java`).
//!
//! vdbench draws a number u in [0, 1), finds the segment i of its cache
//! curve with `PB[i] <= u < PB[i+1]`, and takes the whole number
//! `X = (long)((u - PB[i]) * Slope[i] + CacheSizeMB[i])`; the record is
//! `X * 1000 / xfersize` (the table says megabytes, but the arithmetic
//! makes X thousands of bytes), modulo the records of the band, whose size
//! is counted in whole 1,000,000 bytes. Within a segment X is uniform, so
//! the offsets are a sum of uniform pieces folded into the band: pieces
//! of constant density, which bands say exactly but for their resolution,
//! a hundredth of a percent of the band. Writes land 1% of the band
//! further on (`add_one_pct_to_writes`); bands serve reads and writes
//! alike, so here they follow the reads.

/// `CacheSizeMB`: where each segment starts, in thousands of bytes.
const START: [f64; 28] = [
    0.0,
    16.0,
    32.0,
    64.0,
    128.0,
    256.0,
    512.0,
    1024.0,
    2048.0,
    4096.0,
    8192.0,
    16384.0,
    32768.0,
    65536.0,
    131072.0,
    262144.0,
    524288.0,
    1048576.0,
    2097152.0,
    4194304.0,
    8388608.0,
    16777216.0,
    33554432.0,
    67108864.0,
    134217728.0,
    268435456.0,
    536870912.0,
    1073741824.0,
];

/// `PBCurve`: the share of draws below each segment, and 1.
const CURVE: [f64; 29] = [
    0.0, 0.087217, 0.10101, 0.132206, 0.159946, 0.201713, 0.262602, 0.32645, 0.366902, 0.386175, 0.436941,
    0.482631, 0.523752, 0.56076, 0.594068, 0.624045, 0.651024, 0.675305, 0.697159, 0.716827, 0.734528,
    0.750459, 0.764797, 0.777701, 0.789314, 0.799767, 0.809174, 0.81764, 1.0,
];

/// `Slope`: thousands of bytes a unit of u in each segment (the last
/// segment's is not the distance to the table's last size, so the slope
/// decides where each ends).
const SLOPE: [f64; 28] = [
    183.4511752,
    1159.945628,
    1025.778015,
    2307.172362,
    3064.644852,
    4204.331611,
    8019.055699,
    25313.90019,
    106263.1067,
    80683.52498,
    179296.7222,
    398437.1604,
    885415.912,
    1967590.916,
    4372424.257,
    9716498.348,
    21592218.55,
    47982707.89,
    106628239.8,
    236951643.9,
    526559208.7,
    1170131575.0,
    2600292389.0,
    5778427530.0,
    12840950067.0,
    28535444594.0,
    63412099098.0,
    1313220630.0,
];

/// The cells the band is cut into: a hundredth of a percent each, the
/// finest span share a band takes.
const CELLS: usize = 10_000;

/// The bands of a hot band `width` bytes wide (`bands 30.5% in 0.01%,
/// ...`, without the word), or `None` under 1,000,000 bytes (vdbench
/// refuses a band under a megabyte).
pub(crate) fn bands(width: u64) -> Option<String> {
    let band = (width / 1_000_000 * 1_000_000) as f64;
    if band == 0.0 {
        return None;
    }
    let cell = band / CELLS as f64;
    let mut mass = vec![0.0_f64; CELLS];
    // Adds `m` spread evenly over [from, to), within [0, band).
    let mut spread = |from: f64, to: f64, m: f64| {
        if to <= from {
            return;
        }
        let density = m / (to - from);
        let first = (from / cell) as usize;
        let last = ((to / cell).ceil() as usize).min(CELLS);
        for (c, slot) in mass.iter_mut().enumerate().take(last).skip(first) {
            let (lo, hi) = (c as f64 * cell, (c + 1) as f64 * cell);
            let overlap = hi.min(to) - lo.max(from);
            if overlap > 0.0 {
                *slot += overlap * density;
            }
        }
    };
    for i in 0..START.len() {
        let share = CURVE[i + 1] - CURVE[i];
        let from = START[i] * 1000.0;
        let len = share * SLOPE[i] * 1000.0;
        let wraps = (len / band).floor();
        // Each whole wrap over the band is even.
        spread(0.0, band, share * wraps * band / len);
        // The rest, from where the wraps leave off, folded at the end.
        let rest = len - wraps * band;
        let start = (from + wraps * band) % band;
        let m = share * rest / len;
        if start + rest <= band {
            spread(start, start + rest, m);
        } else {
            let first = band - start;
            spread(start, band, m * first / rest);
            spread(0.0, rest - first, m * (rest - first) / rest);
        }
    }
    // Cells of one density make one band.
    let mut runs: Vec<(usize, f64)> = Vec::new();
    for m in mass {
        match runs.last_mut() {
            Some((n, total)) if ((*total / *n as f64) - m).abs() <= 1e-12_f64.max(m * 1e-9) => {
                *n += 1;
                *total += m;
            }
            _ => runs.push((1, m)),
        }
    }
    // A lone cell between two longer bands, its density between theirs,
    // holds the edge of a piece: it goes to the nearer band (the edge moves
    // by at most a cell, where the rounding of spans puts it anyway).
    let mut k = 1;
    while k + 1 < runs.len() {
        let density = |r: &(usize, f64)| r.1 / r.0 as f64;
        let (before, here, after) = (density(&runs[k - 1]), density(&runs[k]), density(&runs[k + 1]));
        let between = (before.min(after)..=before.max(after)).contains(&here);
        if runs[k].0 == 1 && runs[k - 1].0 > 1 && runs[k + 1].0 > 1 && between {
            let into = if (here - before).abs() <= (here - after).abs() { k - 1 } else { k + 1 };
            let (n, m) = runs.remove(k);
            let into = if into > k { into - 1 } else { into };
            runs[into].0 += n;
            runs[into].1 += m;
        } else {
            k += 1;
        }
    }
    let hundredths = largest_remainder(&runs.iter().map(|(_, m)| m * 10_000.0).collect::<Vec<_>>());
    let said: Vec<String> = runs
        .iter()
        .zip(hundredths)
        .map(|((n, _), h)| format!("{} in {}", percent(h), percent(*n as u64)))
        .collect();
    Some(said.join(", "))
}

/// Whole numbers adding up to the sum of `values` rounded, each its value
/// rounded down and the largest remainders rounded up.
fn largest_remainder(values: &[f64]) -> Vec<u64> {
    let total = values.iter().sum::<f64>().round() as u64;
    let mut out: Vec<u64> = values.iter().map(|v| v.floor() as u64).collect();
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|a, b| (values[*b] - values[*b].floor()).total_cmp(&(values[*a] - values[*a].floor())));
    let short = total.saturating_sub(out.iter().sum());
    for i in order.into_iter().take(short as usize) {
        out[i] += 1;
    }
    out
}

/// Hundredths of a percent as methodic writes a share: `30.5%`, `0.01%`.
fn percent(h: u64) -> String {
    match h % 100 {
        0 => format!("{}%", h / 100),
        f if f % 10 == 0 => format!("{}.{}%", h / 100, f / 10),
        f => format!("{}.{f:02}%", h / 100),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bands as (io, span) in hundredths of a percent.
    fn parsed(b: &str) -> Vec<(u64, u64)> {
        let h = |s: &str| (s.trim_end_matches('%').parse::<f64>().unwrap() * 100.0).round() as u64;
        b.split(", ")
            .map(|band| {
                let (io, span) = band.split_once(" in ").unwrap();
                (h(io), h(span))
            })
            .collect()
    }

    #[test]
    fn the_curve_pieces_meet_where_the_table_says() {
        // Each segment but the last ends where the next starts, to what
        // the curve's six decimals make of its slope.
        for i in 0..START.len() - 1 {
            let end = START[i] + (CURVE[i + 1] - CURVE[i]) * SLOPE[i];
            assert!((end - START[i + 1]).abs() <= SLOPE[i] * 1e-6 + 0.01, "segment {i} ends at {end}");
        }
    }

    #[test]
    fn bands_add_up_and_put_the_curve_where_vdbench_does() {
        for width in [1_000_000, 10_000_000_000, 999_999_999_999, 50_000_000_000_000] {
            let b = parsed(&bands(width).unwrap());
            assert_eq!(b.iter().map(|(io, _)| io).sum::<u64>(), 10_000, "{width}");
            assert_eq!(b.iter().map(|(_, span)| span).sum::<u64>(), 10_000, "{width}");
        }
        // A band of 10GB: the curve's first 1,024,000 bytes hold 32.645% of
        // the draws (PBCurve up to 1024) and lie inside the first 0.01%
        // (1,000,000 bytes) and a little of the next.
        let b = parsed(&bands(10_000_000_000).unwrap());
        assert!(b[0].1 == 1 && b[0].0 >= 3_200 && b[0].0 <= 3_265, "{b:?}");
        // The hottest hundredth holds far more than an even share.
        assert!(b.iter().all(|(io, span)| *io <= b[0].0 * span), "{b:?}");
        // Draws reach past 1.3e12 bytes: a 50TB band is hot at its start
        // and untouched beyond that.
        let big = parsed(&bands(50_000_000_000_000).unwrap());
        let untouched: u64 = big.iter().filter(|(io, _)| *io == 0).map(|(_, span)| span).sum();
        assert!(untouched >= 9_700, "{big:?}");
        assert_eq!(bands(999_999), None);
    }

    /// The bands against vdbench's own draws, by simulation: the same
    /// arithmetic as `get_rec_index` on a million draws.
    #[test]
    fn a_simulation_of_vdbench_draws_falls_in_the_bands_as_said() {
        let width: u64 = 2_000_000_000;
        let records = width / 4096;
        let b = parsed(&bands(width).unwrap());
        let mut hits = vec![0u64; b.len()];
        let mut state: u64 = 7;
        let draws = 1_000_000;
        for _ in 0..draws {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            let i = (0..START.len()).rev().find(|i| CURVE[*i] <= u).unwrap();
            let x = ((u - CURVE[i]) * SLOPE[i] + START[i]) as u64;
            let rec = (x * 1000 / 4096) % records;
            let at = rec as f64 / records as f64 * 10_000.0;
            let mut edge = 0;
            let band = b.iter().position(|(_, span)| {
                edge += span;
                at < edge as f64
            });
            hits[band.unwrap()] += 1;
        }
        for (k, (io, _)) in b.iter().enumerate() {
            let seen = hits[k] as f64 / draws as f64 * 10_000.0;
            assert!((seen - *io as f64).abs() < 40.0, "band {k}: {seen} seen, {io} said; {b:?}");
        }
    }
}
