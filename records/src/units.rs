//! Numbers for people to read: one formatter for every message, manifest
//! line and report cell that names a number of bytes, one for the figures
//! of report tables and charts (thousands separated), and one for a plain
//! figure (`num`).

use methodic_compiler::plan::Bytes;

/// `1.0 GiB`, for messages.
pub fn human(bytes: u64) -> String {
    Bytes(bytes).human(true)
}

/// `123,456` or `1,255.4`: `v` with `decimals` decimals and a comma
/// between each group of three digits, as reviews and SNIA PTS reports
/// print their tables; `-` for a value that is missing or not finite.
pub fn thousands(v: Option<f64>, decimals: usize) -> String {
    let Some(v) = v.filter(|v| v.is_finite()) else { return "-".into() };
    let text = format!("{:.decimals$}", v.abs());
    let (whole, fraction) = text.split_once('.').map_or((text.as_str(), None), |(w, f)| (w, Some(f)));
    let mut out = String::with_capacity(text.len() + whole.len() / 3 + 1);
    // A value that rounds to zero prints without a sign.
    if v.is_sign_negative() && text.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
        out.push('-');
    }
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    if let Some(f) = fraction {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// `59,974`, `37.5`: a figure with its thousands separated, and a
/// decimal where it is under 100.
pub fn figure(v: f64) -> String {
    thousands(Some(v), if v.abs() >= 100.0 { 0 } else { 1 })
}

/// `1234.5`: `v` with `decimals` decimals and no separators; `-` for a
/// value that is missing or not finite.
pub(crate) fn num(v: Option<f64>, decimals: usize) -> String {
    v.filter(|v| v.is_finite()).map_or("-".into(), |v| format!("{v:.decimals$}"))
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn thousands_are_separated_and_decimals_kept() {
        assert_eq!(thousands(Some(0.0), 0), "0");
        assert_eq!(thousands(Some(999.0), 0), "999");
        assert_eq!(thousands(Some(1000.0), 0), "1,000");
        assert_eq!(thousands(Some(123456.4), 0), "123,456");
        assert_eq!(thousands(Some(1255.44), 1), "1,255.4");
        assert_eq!(thousands(Some(1234567.0), 2), "1,234,567.00");
        assert_eq!(thousands(Some(-12345.6), 1), "-12,345.6");
        assert_eq!(thousands(Some(-0.01), 1), "0.0");
        assert_eq!(thousands(None, 1), "-");
        assert_eq!(thousands(Some(f64::NAN), 0), "-");
    }
}
