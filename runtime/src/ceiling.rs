//! The host ceiling: what the host and the engine reach with no device in
//! the way. The engine runs against a file in RAM (tmpfs at /dev/shm) at
//! the plan's smallest block size for IOPS and its largest for bandwidth,
//! both at the plan's deepest queue; and memory is copied from the data
//! buffers to see how fast the data source can be read. A step whose
//! result comes within 10% of the ceiling may be measuring the host, not
//! the drive, and says so.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::rng::Rng;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ceiling {
    /// The RAM-backed file the engine ran against.
    pub target: String,
    /// Random reads of `iops_block` bytes at `qd`.
    #[serde(deserialize_with = "crate::stats::nullable")]
    pub iops: f64,
    pub iops_block: u64,
    /// Sequential reads of `bandwidth_block` bytes at `qd`, decimal MB/s.
    #[serde(deserialize_with = "crate::stats::nullable")]
    pub mb_s: f64,
    pub bandwidth_block: u64,
    pub qd: u32,
    /// The engine the runs used, with its threads and depth.
    pub engine: String,
    /// Copying the data buffers in memory, decimal MB/s.
    pub memory_copy_mb_s: f64,
    /// How long each measurement ran.
    pub seconds_each: f64,
}

/// Share of the ceiling above which a result may be host-bound.
pub const NEAR: f64 = 0.9;

impl Ceiling {
    /// A sentence when `iops` or `mb_s` reaches 90% of the ceiling.
    pub fn host_bound(&self, iops: f64, mb_s: f64) -> Option<String> {
        let say = |value: f64, ceiling: f64, unit: &str, what: String| {
            let pct = 100.0 * value / ceiling;
            let beyond = if pct > 110.0 {
                "; beyond the ceiling itself, which one worker reading RAM through the page cache measured, so it \
                 understates what this step's workers reach"
            } else {
                ""
            };
            format!(
                "{value:.0} {unit} is {pct:.0}% of the host ceiling ({ceiling:.0} {unit} {what} from RAM at QD {}){beyond}: \
                 possibly host-bound",
                self.qd
            )
        };
        if iops.is_finite() && self.iops > 0.0 && iops >= NEAR * self.iops {
            return Some(say(iops, self.iops, "IOPS", format!("reading {} B blocks", self.iops_block)));
        }
        if mb_s.is_finite() && self.mb_s > 0.0 && mb_s >= NEAR * self.mb_s {
            return Some(say(mb_s, self.mb_s, "MB/s", format!("reading {} B blocks", self.bandwidth_block)));
        }
        None
    }
}

/// Decimal MB/s of copying a 64MiB buffer of the data the engines write,
/// for about `seconds`.
pub fn memory_copy_mb_s(seconds: f64) -> f64 {
    let size = 64 << 20;
    let mut src = vec![0u8; size];
    Rng::new(0xca1b).fill(&mut src);
    let mut dst = vec![0u8; size];
    let budget = Duration::from_secs_f64(seconds.max(0.05));
    let start = Instant::now();
    let mut bytes = 0u64;
    while start.elapsed() < budget {
        dst.copy_from_slice(&src);
        std::hint::black_box(&mut dst);
        bytes += size as u64;
    }
    bytes as f64 / start.elapsed().as_secs_f64() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ceiling() -> Ceiling {
        Ceiling {
            target: "/dev/shm".into(),
            iops: 1_000_000.0,
            iops_block: 4096,
            mb_s: 10_000.0,
            bandwidth_block: 1 << 20,
            qd: 32,
            engine: "psync 32x1".into(),
            memory_copy_mb_s: 20_000.0,
            seconds_each: 1.0,
        }
    }

    #[test]
    fn results_near_the_ceiling_are_flagged() {
        let c = ceiling();
        assert!(
            c.host_bound(950_000.0, 3_900.0)
                .unwrap()
                .starts_with("950000 IOPS is 95% of the host ceiling (1000000 IOPS")
        );
        assert!(c.host_bound(3_000_000.0, 1.0).unwrap().contains("understates"), "300% of the ceiling");
        assert!(c.host_bound(5_000.0, 9_500.0).unwrap().contains("MB/s"));
        assert_eq!(c.host_bound(800_000.0, 8_000.0), None);
        assert_eq!(c.host_bound(f64::NAN, f64::NAN), None);
    }

    #[test]
    fn memory_copies_at_some_rate() {
        assert!(memory_copy_mb_s(0.05) > 10.0);
    }
}
