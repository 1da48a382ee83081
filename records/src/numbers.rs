//! A step's numbers: operations, bytes, rates and latency percentiles, for
//! reads, writes, trims and all together. The runtime makes them from its histograms;
//! reports, compare and exporters read them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A step's numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// Seconds recorded.
    pub seconds: f64,
    pub total: Rates,
    /// Reads alone, when the step read.
    pub read: Option<Rates>,
    /// Writes alone, when the step wrote.
    pub write: Option<Rates>,
    /// Trims alone, when the step trimmed: their bytes are those
    /// deallocated. The total counts trims' I/Os and latencies, not their
    /// bytes (a trim moves no data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<Rates>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Rates {
    pub ios: u64,
    pub bytes: u64,
    /// NaN (written as JSON `null`) when no time was recorded.
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub iops: f64,
    /// Decimal megabytes (10^6 B) a second.
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub mb_s: f64,
    /// Binary mebibytes (2^20 B) a second.
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub mib_s: f64,
    pub latency_us: Latency,
}

/// A rate read back: JSON has no NaN, serde_json writes it as `null`.
pub fn nullable<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// Latency in microseconds. A figure that is not known (an imported
/// result whose file does not state it) is NaN, written as JSON `null`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Latency {
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub mean: f64,
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub min: f64,
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub p50: f64,
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub p90: f64,
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub p99: f64,
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub p99_9: f64,
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub p99_99: f64,
    /// Results written before these were kept read back as 0.
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub p99_999: f64,
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub p99_9999: f64,
    /// The longest I/O recorded: SNIA PTS's maximum response time.
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub max: f64,
}

impl Latency {
    /// Every figure not known (NaN): an imported result that states no latency.
    pub fn not_stated() -> Latency {
        let n = f64::NAN;
        Latency {
            mean: n,
            min: n,
            p50: n,
            p90: n,
            p99: n,
            p99_9: n,
            p99_99: n,
            p99_999: n,
            p99_9999: n,
            max: n,
        }
    }
}
