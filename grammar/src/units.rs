//! Units as types: a quantity's text (`4KiB`, `30s`, `67%`, `256`) goes in,
//! a typed value ([`Bytes`], [`Duration`], [`Percent`] or a whole number)
//! comes out; unknown or ambiguous units (`4k`, `5m`) and values that are
//! not exact (`1.5B`, `0.5ms`, `12.345%`) are refused with a hint.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A number of bytes. Serialized as a plain integer.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
pub struct Bytes(pub u64);

/// A length of time, exact to the millisecond. Serialized as a string such
/// as `"30s"`, `"5min"` or `"6h"` in the largest unit that divides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration {
    ms: u64,
}

/// A percentage, exact to a hundredth of a percent (`12.5%`, `33.34%`).
/// Serialized as a number of percent (`67.0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Percent {
    hundredths: u32,
}

/// A queue depth: the number of I/Os kept outstanding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct QueueDepth(pub u32);

impl Bytes {
    pub const KIB: u64 = 1024;
    pub const MIB: u64 = 1024 * 1024;
    pub const GIB: u64 = 1024 * 1024 * 1024;

    pub fn get(self) -> u64 {
        self.0
    }
}

impl Bytes {
    /// A rounded size for people, in decimal (`185.5 GB`) or binary
    /// (`160.0 MiB`) units; bytes below the first unit stay exact.
    pub fn human(self, binary: bool) -> String {
        let (base, units): (f64, [&str; 5]) = if binary {
            (1024.0, ["KiB", "MiB", "GiB", "TiB", "PiB"])
        } else {
            (1000.0, ["KB", "MB", "GB", "TB", "PB"])
        };
        let mut value = self.0 as f64;
        if value < base {
            return format!("{} B", self.0);
        }
        let mut unit = "B";
        for u in units {
            if value < base {
                break;
            }
            value /= base;
            unit = u;
        }
        format!("{value:.1} {unit}")
    }
}

impl fmt::Display for Bytes {
    /// The exact binary or decimal spelling with the smallest number
    /// (`4KiB`, `16GB`), else tenths of a binary unit (`1.5KiB`), else bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        if n == 0 {
            return write!(f, "0B");
        }
        const BIN: [(&str, u64); 5] =
            [("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
        const DEC: [(&str, u64); 5] = [
            ("PB", 1_000_000_000_000_000),
            ("TB", 1_000_000_000_000),
            ("GB", 1_000_000_000),
            ("MB", 1_000_000),
            ("KB", 1_000),
        ];
        // The exact spelling with the smallest number; binary wins a tie.
        let best = BIN
            .iter()
            .chain(DEC.iter())
            .filter(|(_, size)| n.is_multiple_of(*size))
            .min_by_key(|(_, size)| n / size);
        if let Some((unit, size)) = best {
            return write!(f, "{}{unit}", n / size);
        }
        // Half a KiB and the like read better than a long byte count.
        for (unit, size) in BIN {
            // The remainder times ten: n * 10 overflows above 1.8e18.
            if n >= size && (n % size * 10).is_multiple_of(size) {
                return write!(f, "{}.{}{unit}", n / size, n % size * 10 / size);
            }
        }
        write!(f, "{n}B")
    }
}

impl Duration {
    pub const ZERO: Duration = Duration { ms: 0 };

    pub fn from_millis(ms: u64) -> Duration {
        Duration { ms }
    }

    pub fn from_secs(s: u64) -> Duration {
        Duration { ms: s * 1000 }
    }

    pub fn as_millis(self) -> u64 {
        self.ms
    }

    pub fn as_secs_f64(self) -> f64 {
        self.ms as f64 / 1000.0
    }

    pub fn is_zero(self) -> bool {
        self.ms == 0
    }

    pub fn saturating_add(self, other: Duration) -> Duration {
        Duration { ms: self.ms.saturating_add(other.ms) }
    }

    pub fn saturating_mul(self, n: u64) -> Duration {
        Duration { ms: self.ms.saturating_mul(n) }
    }

    /// A reading for people: `6h 30min`, `5min 30s`, `250ms`, `0s`.
    pub fn human(self) -> String {
        if self.ms == 0 {
            return "0s".into();
        }
        let mut parts = Vec::new();
        let mut rest = self.ms;
        for (unit, size) in [("h", 3_600_000), ("min", 60_000), ("s", 1000), ("ms", 1)] {
            if rest >= size {
                parts.push(format!("{}{unit}", rest / size));
                rest %= size;
            }
        }
        parts.join(" ")
    }
}

impl fmt::Display for Duration {
    /// The canonical spelling: the largest unit that divides the duration.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (unit, size) in [("h", 3_600_000), ("min", 60_000), ("s", 1000)] {
            if self.ms != 0 && self.ms.is_multiple_of(size) {
                return write!(f, "{}{unit}", self.ms / size);
            }
        }
        if self.ms == 0 {
            return write!(f, "0s");
        }
        write!(f, "{}ms", self.ms)
    }
}

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

/// As it is written: a string such as `"30s"`, not the milliseconds held.
impl JsonSchema for Duration {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Duration".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A length of time, exact to the millisecond, in the largest unit that divides it: `250ms`, `30s`, `5min`, `6h`.",
            "type": "string",
            "pattern": "^[0-9]+(ms|s|min|h)$"
        })
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        match parse_quantity(&text) {
            Ok(Quantity::Duration(v)) => Ok(v),
            _ => Err(serde::de::Error::custom(format!(
                "expected a duration such as \"30s\" or \"5min\", found {text:?}"
            ))),
        }
    }
}

impl Percent {
    pub const ZERO: Percent = Percent { hundredths: 0 };
    pub const HUNDRED: Percent = Percent { hundredths: 10_000 };

    pub const fn from_hundredths(hundredths: u32) -> Percent {
        Percent { hundredths }
    }

    pub fn whole(p: u32) -> Percent {
        Percent { hundredths: p * 100 }
    }

    pub fn hundredths(self) -> u32 {
        self.hundredths
    }

    /// By reference, for serde's `skip_serializing_if`.
    pub fn is_zero(&self) -> bool {
        self.hundredths == 0
    }

    pub fn as_f64(self) -> f64 {
        self.hundredths as f64 / 100.0
    }

    /// `n` times this share, saturating: 25% times 2 is 50%.
    pub fn times(self, n: u64) -> Percent {
        Percent { hundredths: (self.hundredths as u64).saturating_mul(n).min(u32::MAX as u64) as u32 }
    }

    /// This share of another: 25% of 400% is 100%.
    pub fn times_percent(self, other: Percent) -> Percent {
        let product = self.hundredths as u64 * other.hundredths as u64 / 10_000;
        Percent { hundredths: product.min(u32::MAX as u64) as u32 }
    }

    /// `fraction * value`, exact in integers: `25%` of 2000 is 500.
    pub fn of(self, value: u64) -> u64 {
        ((value as u128 * self.hundredths as u128) / 10_000) as u64
    }
}

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = self.hundredths / 100;
        let frac = self.hundredths % 100;
        if frac == 0 {
            write!(f, "{whole}%")
        } else if frac.is_multiple_of(10) {
            write!(f, "{whole}.{}%", frac / 10)
        } else {
            write!(f, "{whole}.{frac:02}%")
        }
    }
}

impl Serialize for Percent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.as_f64())
    }
}

/// As it is written: a number of percent, not the hundredths held.
impl JsonSchema for Percent {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Percent".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A percentage, exact to a hundredth of a percent: `67.0`, `12.5`, `33.34`.",
            "type": "number",
            "minimum": 0
        })
    }
}

impl<'de> Deserialize<'de> for Percent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        let hundredths = (v * 100.0).round();
        if !(0.0..=u32::MAX as f64).contains(&hundredths) || ((v * 100.0) - hundredths).abs() > 1e-6 {
            return Err(serde::de::Error::custom(format!(
                "expected a percentage with at most two decimals, found {v}"
            )));
        }
        Ok(Percent { hundredths: hundredths as u32 })
    }
}

impl fmt::Display for QueueDepth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What a quantity literal stands for once its unit is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// A whole number without a unit: a count or a queue depth.
    Int(u64),
    Size(Bytes),
    Duration(Duration),
    Percent(Percent),
}

/// Why a quantity literal could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuantityError {
    /// The unit is not one methodic knows; the hint says what to write.
    UnknownUnit { unit: String, hint: String },
    /// The value is not a whole number of the smallest unit (a fraction of
    /// a byte or of a millisecond, or a fractional count).
    NotWhole { smallest: &'static str },
    /// A percentage with more than two decimals.
    TooPrecise,
    /// The value does not fit.
    TooLarge,
}

/// Reads a quantity literal as the grammar lexes it: digits, an optional
/// fraction, and an optional unit.
pub fn parse_quantity(text: &str) -> Result<Quantity, QuantityError> {
    let digits_end = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(digits_end);
    let (int_part, frac_part) = match number.split_once('.') {
        Some((i, f)) => (i, f),
        None => (number, ""),
    };
    // The value as a fraction: mantissa / 10^scale.
    let mut mantissa: u128 = 0;
    for c in int_part.chars().chain(frac_part.chars()) {
        let d = c.to_digit(10).ok_or(QuantityError::TooLarge)? as u128;
        mantissa = mantissa.checked_mul(10).and_then(|m| m.checked_add(d)).ok_or(QuantityError::TooLarge)?;
    }
    let scale = 10u128.pow(frac_part.len().min(30) as u32);
    let exact = |multiplier: u128, smallest: &'static str| -> Result<u64, QuantityError> {
        let scaled = mantissa.checked_mul(multiplier).ok_or(QuantityError::TooLarge)?;
        if scaled % scale != 0 {
            return Err(QuantityError::NotWhole { smallest });
        }
        u64::try_from(scaled / scale).map_err(|_| QuantityError::TooLarge)
    };
    match unit {
        "" => Ok(Quantity::Int(exact(1, "whole number")?)),
        "%" => {
            let scaled = mantissa.checked_mul(100).ok_or(QuantityError::TooLarge)?;
            if scaled % scale != 0 {
                return Err(QuantityError::TooPrecise);
            }
            let hundredths = u32::try_from(scaled / scale).map_err(|_| QuantityError::TooLarge)?;
            Ok(Quantity::Percent(Percent { hundredths }))
        }
        "ms" => Ok(Quantity::Duration(Duration { ms: exact(1, "millisecond")? })),
        "s" => Ok(Quantity::Duration(Duration { ms: exact(1000, "millisecond")? })),
        "min" => Ok(Quantity::Duration(Duration { ms: exact(60_000, "millisecond")? })),
        "h" => Ok(Quantity::Duration(Duration { ms: exact(3_600_000, "millisecond")? })),
        _ => match size_multiplier(unit) {
            Some(m) => Ok(Quantity::Size(Bytes(exact(m as u128, "byte")?))),
            None => Err(QuantityError::UnknownUnit { unit: unit.to_string(), hint: unit_hint(number, unit) }),
        },
    }
}

/// The units a size may carry, with their multipliers.
pub const SIZE_UNITS: [(&str, u64); 11] = [
    ("B", 1),
    ("KB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("TB", 1_000_000_000_000),
    ("PB", 1_000_000_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
    ("TiB", 1 << 40),
    ("PiB", 1 << 50),
];

fn size_multiplier(unit: &str) -> Option<u64> {
    if unit == "kB" {
        return Some(1_000);
    }
    SIZE_UNITS.iter().find(|(u, _)| *u == unit).map(|(_, m)| *m)
}

/// What to write instead of a unit methodic does not know.
fn unit_hint(number: &str, unit: &str) -> String {
    let lower = unit.to_ascii_lowercase();
    let size_pair =
        |bin: &str, dec: &str| format!("sizes are binary or decimal: write {number}{bin} or {number}{dec}");
    match lower.as_str() {
        "k" | "kb" | "kib" | "ki" => size_pair("KiB", "KB"),
        "g" | "gb" | "gib" | "gi" => size_pair("GiB", "GB"),
        "t" | "tb" | "tib" | "ti" => size_pair("TiB", "TB"),
        "p" | "pb" | "pib" | "pi" => size_pair("PiB", "PB"),
        "m" => {
            format!("`{unit}` could be minutes or megabytes: write {number}min, or {number}MiB or {number}MB")
        }
        "mb" | "mib" | "mi" => size_pair("MiB", "MB"),
        "b" | "byte" | "bytes" => format!("write {number}B for bytes"),
        "sec" | "secs" | "second" | "seconds" => format!("write {number}s for seconds"),
        "mins" | "minute" | "minutes" => format!("write {number}min for minutes"),
        "hr" | "hrs" | "hour" | "hours" => format!("write {number}h for hours"),
        "d" | "day" | "days" => "write days as hours, such as 24h".to_string(),
        "us" | "µs" | "ns" => "durations are counted in ms, s, min or h".to_string(),
        _ => "sizes use B, KiB, MiB, GiB, TiB (binary) or KB, MB, GB, TB (decimal); \
              durations use ms, s, min or h; shares use %"
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Quantity {
        parse_quantity(text).unwrap()
    }

    #[test]
    fn sizes_read_binary_and_decimal_suffixes() {
        assert_eq!(q("512B"), Quantity::Size(Bytes(512)));
        assert_eq!(q("4KiB"), Quantity::Size(Bytes(4096)));
        assert_eq!(q("4KB"), Quantity::Size(Bytes(4000)));
        assert_eq!(q("4kB"), Quantity::Size(Bytes(4000)));
        assert_eq!(q("16GB"), Quantity::Size(Bytes(16_000_000_000)));
        assert_eq!(q("2TB"), Quantity::Size(Bytes(2_000_000_000_000)));
        assert_eq!(q("1MiB"), Quantity::Size(Bytes(1 << 20)));
        assert_eq!(q("7.4GB"), Quantity::Size(Bytes(7_400_000_000)));
        assert_eq!(q("0.5KiB"), Quantity::Size(Bytes(512)));
    }

    /// The tenth after the point comes from the remainder: the whole count
    /// times ten overflowed above 1.8e18 bytes.
    #[test]
    fn the_largest_sizes_print_without_overflowing() {
        assert_eq!(Bytes(u64::MAX).to_string(), "18446744073709551615B");
        assert_eq!(Bytes(1 << 62).to_string(), "4096PiB");
        // No unit divides it; half a KiB does (n * 10 overflowed here).
        assert_eq!(Bytes((1 << 62) + 512).to_string(), "4503599627370496.5KiB");
        assert_eq!(Bytes(1536).to_string(), "1.5KiB");
    }

    #[test]
    fn durations_percent_and_counts() {
        assert_eq!(q("30s"), Quantity::Duration(Duration::from_secs(30)));
        assert_eq!(q("5min"), Quantity::Duration(Duration::from_secs(300)));
        assert_eq!(q("6h"), Quantity::Duration(Duration::from_secs(21_600)));
        assert_eq!(q("250ms"), Quantity::Duration(Duration::from_millis(250)));
        assert_eq!(q("1.5h"), Quantity::Duration(Duration::from_secs(5400)));
        assert_eq!(q("67%"), Quantity::Percent(Percent::whole(67)));
        assert_eq!(q("33.34%"), Quantity::Percent(Percent::from_hundredths(3334)));
        assert_eq!(q("256"), Quantity::Int(256));
    }

    #[test]
    fn inexact_and_unknown_are_refused() {
        assert_eq!(parse_quantity("1.5B"), Err(QuantityError::NotWhole { smallest: "byte" }));
        assert_eq!(parse_quantity("0.5ms"), Err(QuantityError::NotWhole { smallest: "millisecond" }));
        assert_eq!(parse_quantity("1.5"), Err(QuantityError::NotWhole { smallest: "whole number" }));
        assert_eq!(parse_quantity("12.345%"), Err(QuantityError::TooPrecise));
        assert_eq!(parse_quantity("99999999999999999999999"), Err(QuantityError::TooLarge));
        assert!(matches!(parse_quantity("20EiB"), Err(QuantityError::UnknownUnit { .. })));
        match parse_quantity("4k") {
            Err(QuantityError::UnknownUnit { hint, .. }) => {
                assert!(hint.contains("4KiB") && hint.contains("4KB"), "{hint}")
            }
            other => panic!("{other:?}"),
        }
        match parse_quantity("5m") {
            Err(QuantityError::UnknownUnit { hint, .. }) => {
                assert!(hint.contains("5min"), "{hint}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn display_is_canonical_and_round_trips() {
        assert_eq!(Bytes(4096).to_string(), "4KiB");
        assert_eq!(Bytes(16_000_000_000).to_string(), "16GB");
        assert_eq!(Bytes(512).to_string(), "512B");
        assert_eq!(Bytes(1536).to_string(), "1.5KiB");
        assert_eq!(Bytes(1000).to_string(), "1KB");
        assert_eq!(Bytes(1001).to_string(), "1001B");
        assert_eq!(Bytes(185_500_000_000).human(false), "185.5 GB");
        assert_eq!(Bytes(167_761_920).human(true), "160.0 MiB");
        assert_eq!(Bytes(999).human(false), "999 B");
        for d in [0, 1, 999, 1000, 30_000, 90_000, 300_000, 5_400_000, 21_600_000] {
            let d = Duration::from_millis(d);
            assert_eq!(q(&d.to_string()), Quantity::Duration(d), "{d}");
        }
        assert_eq!(Duration::from_secs(300).to_string(), "5min");
        assert_eq!(Duration::from_secs(5400).to_string(), "90min");
        assert_eq!(Duration::from_secs(5430).human(), "1h 30min 30s");
        assert_eq!(Percent::from_hundredths(1250).to_string(), "12.5%");
        assert_eq!(Percent::from_hundredths(3334).to_string(), "33.34%");
        assert_eq!(Percent::whole(25).of(2_000), 500);
    }
}
