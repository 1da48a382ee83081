//! The peak of a step: its series rows go in, the best interval of its
//! record window comes out, for IOPS and for bandwidth apart (the two may
//! peak in different intervals). Only whole intervals count: a last
//! interval cut short holds too few I/Os for its rate to mean anything,
//! unless the step lasted less than one interval.

use methodic_results::analysis::Peak;

use methodic_results::series::Row;

/// The best whole interval of `rows` (a series of `interval_s` intervals);
/// `None` when there is no row. The rule is `Peak::of`'s, which imported
/// results use too.
pub fn of(rows: &[Row], interval_s: f64) -> Option<Peak> {
    Peak::of(rows, interval_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(t: f64, seconds: f64, iops: f64, mb_s: f64) -> Row {
        Row {
            t,
            seconds,
            iops,
            read_iops: iops,
            write_iops: 0.0,
            mb_s,
            mean_latency_us: 1.0,
            p99_latency_us: 1.0,
            temperature_c: None,
        }
    }

    #[test]
    fn the_best_whole_interval_for_each_rate_and_a_short_last_one_left_out() {
        let rows = [row(1.0, 1.0, 100.0, 5.0), row(2.0, 1.0, 300.0, 4.0), row(2.1, 0.1, 900.0, 90.0)];
        let p = of(&rows, 1.0).unwrap();
        assert_eq!((p.iops, p.iops_at_s, p.mb_s, p.mb_s_at_s, p.intervals), (300.0, 2.0, 5.0, 1.0, 2));
        // A step shorter than one interval: its one row is its peak.
        let p = of(&[row(0.5, 0.5, 40.0, 2.0)], 1.0).unwrap();
        assert_eq!((p.iops, p.intervals), (40.0, 1));
        assert_eq!(of(&[], 1.0), None);
    }
}
