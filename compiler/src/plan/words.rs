//! Numbers and names in the words a plan is described with, in tables,
//! logs and messages: counts with their noun ([`plural`]), times to the
//! nanosecond ([`fine_name`]), aggregates ([`aggregate_word`]).

use super::Aggregate;

/// `1 pass`, `2 passes`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 { format!("1 {one}") } else { format!("{n} {many}") }
}

/// `median`, `mean`, `max`, `min`.
pub fn aggregate_word(a: Aggregate) -> &'static str {
    match a {
        Aggregate::Mean => "mean",
        Aggregate::Median => "median",
        Aggregate::Max => "max",
        Aggregate::Min => "min",
    }
}

/// A time to the nanosecond in its shortest unit: `500us`, `1.5ms`.
pub fn fine_name(ns: u64) -> String {
    let (value, unit) = match ns {
        n if n >= 1_000_000_000 => (n as f64 / 1e9, "s"),
        n if n >= 1_000_000 => (n as f64 / 1e6, "ms"),
        n if n >= 1_000 => (n as f64 / 1e3, "us"),
        n => (n as f64, "ns"),
    };
    let v = format!("{value:.3}");
    format!("{}{unit}", v.trim_end_matches('0').trim_end_matches('.'))
}
