//! Wall-clock times for results: seconds since the epoch, and the same
//! moment as an RFC 3339 string in UTC (`2026-11-30T06:54:15Z`).

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the epoch, now.
pub fn unix_now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// Milliseconds since the epoch, now.
pub fn unix_now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// `2026-11-30T06:54:15Z`.
pub fn rfc3339(unix: f64) -> String {
    let (date, secs) = civil(unix);
    format!("{date}T{:02}:{:02}:{:02}Z", secs / 3600, secs / 60 % 60, secs % 60)
}

/// `20261130-065415`, for directory names.
pub fn compact(unix: f64) -> String {
    let (date, secs) = civil(unix);
    format!("{}-{:02}{:02}{:02}", date.replace('-', ""), secs / 3600, secs / 60 % 60, secs % 60)
}

/// The date (`2026-11-30`) and the seconds into that day.
fn civil(unix: f64) -> (String, u64) {
    let t = unix.max(0.0) as u64;
    let (days, secs) = (t / 86_400, t % 86_400);
    // Howard Hinnant's days-to-civil algorithm.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (format!("{y:04}-{m:02}-{d:02}"), secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(rfc3339(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400.0), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_021_655.0), "2026-11-30T06:54:15Z");
        assert_eq!(compact(1_796_021_655.0), "20261130-065415");
    }
}
