//! One fio value (a size, a time, a whole number, a flag, a block split)
//! in, as fio reads it; a typed value out, or a refusal that says how fio
//! would read it otherwise and what to write instead.
//!
//! # How values are read
//!
//! As fio 3.33 reads them (`parse.c`, `options.c`), or refused where that
//! reading is not what the text seems to say:
//!
//! - Sizes: a whole number with an optional unit, any case. With fio's
//!   default `kb_base=1024`, `k`/`kb`, `m`/`mb`, `g`/`gb`, `t`/`tb` and
//!   `p`/`pb` are powers of 1024 (`4k` and `4kB` are 4096 bytes); fio
//!   reads IEC units the opposite way (`4KiB` is 4000 bytes), so those are
//!   refused with `kb_base=1024` and read as powers of 1024 with
//!   `kb_base=1000` (where `k` is 1000). `0x` hexadecimal without a unit
//!   is read. Refused: fractions (fio reads `1.5k` as 1 byte), units fio
//!   guesses from their first letter (`4kilo`), `$` substitutions and
//!   `(...)` arithmetic.
//! - Times: a whole number of seconds, or with `us`/`usec`, `ms`/`msec`,
//!   `s`, `m` (minutes), `h` or `d`. Any other unit fio reads as
//!   microseconds (`30sec` runs 30us, `5min` 5us): refused. Times that are
//!   not whole milliseconds are refused (methodic times to the ms).
//! - A space after `=` stays in fio's value: fio then refuses ` randread`
//!   and ignores units (` 4k` is 4 bytes, ` 500ms` 500 seconds). Such
//!   values are refused unless they are plain numbers; spaces before `=`
//!   are fine. A `;` or `#` and what follows are a comment, cut before
//!   the value is read (`job_file`), as fio cuts them.
//! - Whole numbers (`iodepth`, `numjobs`, shares): digits only; fio would
//!   read `1k` as 1024 and `70.5` as 70. Booleans (`direct`): `0` or `1`,
//!   as fio needs. Flags (`time_based`, `stonewall`): bare, or a number
//!   (0 is off).
//! - Decimals (a distribution's parameters, `zipf:1.2`, `normal:5:0.25`):
//!   digits with an optional fraction, to no more places than methodic
//!   holds there; fio reads them with `strtod`, which would also take
//!   signs, exponents and hexadecimal: refused.

use methodic_compiler::plan::{Bytes, Duration, Percent};

/// A value that cannot be translated, with what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) detail: String,
    pub(crate) hint: Option<String>,
}

pub(crate) fn refusal(detail: impl Into<String>) -> Refusal {
    Refusal { detail: detail.into(), hint: None }
}

impl Refusal {
    pub(crate) fn hint(mut self, hint: impl Into<String>) -> Refusal {
        self.hint = Some(hint.into());
        self
    }
}

/// How fio reads size units (`kb_base`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KbBase {
    /// fio's default: `k` is 1024, and IEC units (`KiB`) are read as
    /// powers of 1000.
    Compat1024,
    /// SI: `k` is 1000, `KiB` 1024.
    Si1000,
}

/// A size as fio reads it: bytes, or a share of the file or device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FioSize {
    Bytes(Bytes),
    Percent(Percent),
}

/// What fio would substitute or compute when it runs.
pub(crate) fn substituted(raw: &str) -> Result<(), Refusal> {
    if raw.contains('$') {
        return Err(refusal(
            "fio substitutes `$` variables when it runs (`${NAME}` from its environment, `$ncpus`, \
             `$pagesize`, `$mb_memory` from the machine); methodic import needs the value",
        )
        .hint("give a `${NAME}` its value with `methodic import fio FILE --var NAME=VALUE`, or write the value out"));
    }
    if raw.trim_start().starts_with('(') {
        return Err(refusal(
            "fio computes `(...)` expressions when it runs; methodic import needs the value written out",
        ));
    }
    Ok(())
}

/// A value's leading digits and the rest; blanks before it dropped.
fn split_number(raw: &str) -> (&str, &str) {
    let s = raw.trim_start();
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s.split_at(end)
}

/// A size, read as fio reads it (see the module docs).
pub(crate) fn fio_size(raw: &str, kb: KbBase, percent_ok: bool) -> Result<FioSize, Refusal> {
    substituted(raw)?;
    let spaced = raw.starts_with(char::is_whitespace);
    let s = raw.trim_start();
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return u64::from_str_radix(hex, 16)
                .map(|n| FioSize::Bytes(Bytes(n)))
                .map_err(|_| refusal(format!("`{s}` is too large")));
        }
        return Err(refusal(format!(
            "fio reads `{s}` as hexadecimal up to its first other character, and ignores a unit after it"
        ))
        .hint("write the size in decimal, with a unit such as k or m"));
    }
    let (number, unit) = split_number(s);
    if number.is_empty() {
        return Err(refusal(format!("`{s}` is not a size")).hint("write a size such as 4k, 128k, 1m or 16g"));
    }
    let n: u64 = number.parse().map_err(|_| refusal(format!("`{s}` is too large")))?;
    if unit.starts_with('.') {
        return Err(refusal(format!(
            "fio reads `{s}` as {}: it stops at the `.`, as a size has no fraction",
            bytes(n)
        ))
        .hint("write it in a smaller unit, such as 1536k for 1.5m"));
    }
    if unit.is_empty() {
        return Ok(FioSize::Bytes(Bytes(n)));
    }
    if spaced {
        return Err(refusal(format!(
            "fio keeps the space after `=` in the value and then ignores the unit: it reads `{raw}` as {}",
            bytes(n)
        ))
        .hint(format!("write the value right after `=`: `={s}`")));
    }
    let lower = unit.to_ascii_lowercase();
    if lower == "%" {
        if !percent_ok {
            return Err(refusal(format!("`{s}` is a share, and a size is needed here")));
        }
        let hundredths = u32::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(100))
            .ok_or_else(|| refusal(format!("`{s}` is too large")))?;
        return Ok(FioSize::Percent(Percent::from_hundredths(hundredths)));
    }
    let (pow, iec) = match lower.as_str() {
        "b" => (0, false),
        "k" | "kb" => (1, false),
        "m" | "mb" => (2, false),
        "g" | "gb" => (3, false),
        "t" | "tb" => (4, false),
        "p" | "pb" => (5, false),
        "kib" => (1, true),
        "mib" => (2, true),
        "gib" => (3, true),
        "tib" => (4, true),
        "pib" => (5, true),
        _ => {
            return Err(refusal(format!(
                "`{unit}` is not a size unit: fio guesses a unit from its first letter, or ignores it"
            ))
            .hint("write k, m, g, t or p (powers of 1024 with fio's default kb_base=1024)"));
        }
    };
    let base: u64 = match (kb, iec) {
        (KbBase::Compat1024, true) => {
            let fio_reads = n.checked_mul(1000u64.pow(pow));
            let meant = n.checked_mul(1024u64.pow(pow));
            let short = &lower[..1];
            return Err(refusal(format!(
                "with kb_base=1024 (fio's default) fio reads `{s}` as {} bytes: in that mode IEC units \
                 mean powers of 1000, the opposite of what they say",
                fio_reads.map_or_else(|| "too many".to_string(), |b| b.to_string())
            ))
            .hint(format!(
                "write `{n}{short}` for {}, or set kb_base=1000, where `{s}` means what it says",
                meant.map_or_else(|| "more".to_string(), bytes)
            )));
        }
        (KbBase::Compat1024, false) | (KbBase::Si1000, true) => 1024,
        (KbBase::Si1000, false) => 1000,
    };
    n.checked_mul(base.pow(pow))
        .map(|b| FioSize::Bytes(Bytes(b)))
        .ok_or_else(|| refusal(format!("`{s}` is too large")))
}

/// `1 byte`, `4 bytes`.
pub(crate) fn bytes(n: u64) -> String {
    if n == 1 { "1 byte".to_string() } else { format!("{n} bytes") }
}

/// A size in bytes as fio reads it, with the job's `kb_base` (`None`:
/// fio's default, 1024); `None` for what the job import refuses (a share,
/// an IEC unit under kb_base=1024, a value fio reads otherwise than it
/// says). For readers of fio's results, which hold the job's options.
pub fn size_in_bytes(raw: &str, kb_base: Option<&str>) -> Option<u64> {
    let kb = match kb_base.map(str::trim) {
        None | Some("1024") => KbBase::Compat1024,
        Some("1000") => KbBase::Si1000,
        Some(_) => return None,
    };
    fio_bytes(raw, kb).ok().map(|b| b.0)
}

/// A size in bytes, never a share.
pub(crate) fn fio_bytes(raw: &str, kb: KbBase) -> Result<Bytes, Refusal> {
    match fio_size(raw, kb, false)? {
        FioSize::Bytes(b) => Ok(b),
        FioSize::Percent(_) => unreachable!("shares are refused when not asked for"),
    }
}

/// A time (`runtime`, `ramp_time`): seconds without a unit.
pub(crate) fn fio_time(raw: &str) -> Result<Duration, Refusal> {
    let us = time_micros(raw, 1_000_000, "60 (seconds), 500ms, 5m or 1h")?;
    if us % 1000 != 0 {
        return Err(refusal(format!(
            "`{}` is not a whole number of milliseconds, and methodic times steps to the millisecond",
            raw.trim()
        )));
    }
    Ok(Duration::from_millis(us / 1000))
}

/// A time fio reads in microseconds without a unit (`latency_target`,
/// `latency_window`), in microseconds.
pub(crate) fn fio_micros(raw: &str) -> Result<u64, Refusal> {
    time_micros(raw, 1, "500 (microseconds), 2ms or 1s")
}

/// A time in microseconds: a whole number and fio's unit, `default_us`
/// microseconds a unit without one; `example` shows such times in a hint.
fn time_micros(raw: &str, default_us: u64, example: &str) -> Result<u64, Refusal> {
    substituted(raw)?;
    let spaced = raw.starts_with(char::is_whitespace);
    let s = raw.trim_start();
    let (number, unit) = split_number(s);
    let default = if default_us == 1 { "microseconds" } else { "seconds" };
    if number.is_empty() {
        return Err(refusal(format!("`{s}` is not a time")).hint(format!("write a time such as {example}")));
    }
    let n: u64 = number.parse().map_err(|_| refusal(format!("`{s}` is too long")))?;
    if unit.starts_with('.') {
        return Err(refusal(format!("fio reads `{s}` as {n} {default}: it stops at the `.`"))
            .hint("write it in a smaller unit, such as 1500ms"));
    }
    if !unit.is_empty() && spaced {
        return Err(refusal(format!(
            "fio keeps the space after `=` in the value and then ignores the unit: it reads `{raw}` as {n} {default}"
        ))
        .hint(format!("write the value right after `=`: `={s}`")));
    }
    let micros: u64 = match unit.to_ascii_lowercase().as_str() {
        "" => default_us,
        "us" | "usec" => 1,
        "ms" | "msec" => 1_000,
        "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => {
            return Err(refusal(format!(
                "fio reads `{s}` as {n} microseconds: it knows the units us, ms, s, m, h and d, \
                 and takes any other for microseconds"
            ))
            .hint("write seconds as `s` (or no unit), minutes as `m`, hours as `h`"));
        }
    };
    n.checked_mul(micros).ok_or_else(|| refusal(format!("`{s}` is too long")))
}

/// A whole number, digits only.
pub(crate) fn fio_int(raw: &str) -> Result<u64, Refusal> {
    substituted(raw)?;
    let (number, rest) = split_number(raw);
    if number.is_empty() {
        return Err(refusal(format!("`{}` is not a whole number", raw.trim())));
    }
    if !rest.is_empty() {
        return Err(refusal(format!(
            "`{}` is not a plain whole number: fio reads units and fractions here in ways that are easy \
             to misread (`1k` is 1024, `70.5` is 70)",
            raw.trim()
        ))
        .hint("write the number out, such as 32"));
    }
    number.parse().map_err(|_| refusal(format!("`{number}` is too large")))
}

/// A plain decimal (`1.2`, `0.25`, `5`) as a whole number of
/// 10^-`places`: `1.2` to 3 places is 1200. More places than that are
/// refused with the value rounded as the hint.
pub(crate) fn fio_decimal(raw: &str, places: u32) -> Result<u64, Refusal> {
    substituted(raw)?;
    let (whole, frac) = raw.split_once('.').unwrap_or((raw, ""));
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if (whole.is_empty() && frac.is_empty()) || !digits(whole) || !digits(frac) {
        return Err(refusal(format!("`{raw}` is not a plain decimal number such as 1.2")));
    }
    if frac.len() > places as usize {
        let rounded = raw.parse::<f64>().map_or(String::new(), |v| format!(" (`{v:.0$}`)", places as usize));
        return Err(refusal(format!(
            "`{raw}` has more than {places} decimals, which methodic does not hold"
        ))
        .hint(format!("round it to {places} decimals{rounded}")));
    }
    let scale = 10u64.pow(places);
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| refusal(format!("`{raw}` is too large")))?
    };
    let frac: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse::<u64>().unwrap_or(0) * 10u64.pow(places - frac.len() as u32)
    };
    whole
        .checked_mul(scale)
        .and_then(|w| w.checked_add(frac))
        .ok_or_else(|| refusal(format!("`{raw}` is too large")))
}

/// A boolean option: `0` or `1`, and fio needs the value.
pub(crate) fn fio_bool(raw: Option<&str>) -> Result<bool, Refusal> {
    let Some(raw) = raw else {
        return Err(refusal("fio needs a value here: 0 or 1"));
    };
    match fio_int(raw)? {
        0 => Ok(false),
        1 => Ok(true),
        n => Err(refusal(format!("fio takes 0 or 1 here, not {n}"))),
    }
}

/// A flag: bare, or a number (0 is off).
pub(crate) fn fio_flag(raw: Option<&str>) -> Result<bool, Refusal> {
    match raw {
        None => Ok(true),
        Some(raw) => Ok(fio_int(raw)? != 0),
    }
}

/// One direction's block split as fio issues it: the sizes with their
/// shares of I/Os, smallest first, and the sizes fio rounds down, each
/// with the size it issues instead (as written, as issued).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split {
    pub(crate) blocks: Vec<(Bytes, Percent)>,
    pub(crate) rounded: Vec<(Bytes, Bytes)>,
}

/// A value given for reads, writes and trims apart (`bssplit=R,W,T`), cut
/// as fio's `str_split_parse()` cuts it (options.c:209 at fio@f5344384):
/// without a comma one value for all three; `R,W` gives trims the writes'
/// value; an empty one leaves that direction to its default (for
/// `bssplit`, to `bs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PerDirection<'a> {
    pub(crate) read: &'a str,
    pub(crate) write: &'a str,
    pub(crate) trim: &'a str,
}

/// `raw` cut into its directions' values.
pub(crate) fn per_direction(raw: &str) -> Result<PerDirection<'_>, Refusal> {
    match *raw.split(',').collect::<Vec<_>>().as_slice() {
        [all] => Ok(PerDirection { read: all, write: all, trim: all }),
        [read, write] => Ok(PerDirection { read, write, trim: write }),
        [read, write, trim] => Ok(PerDirection { read, write, trim }),
        _ => Err(refusal("fio takes at most three lists here: for reads, writes and trims")),
    }
}

/// One direction's `bssplit` (`4k/10:64k/50:...`): sizes with their shares
/// of I/Os, smallest first, as fio's `split_parse_ddir()` and
/// `bssplit_ddir()` read them (options.c:77, :136). A share left out,
/// empty (`1k/`) or 0 means "missing": the missing ones split what the
/// others leave. Each size is then rounded down to a multiple of the
/// smallest, as fio's `get_next_buflen()` (io_u.c:615) issues it unless
/// `bs_unaligned` (which is refused): `4k/50:6k/50` issues only 4KiB.
pub(crate) fn fio_bssplit(raw: &str, kb: KbBase) -> Result<Split, Refusal> {
    substituted(raw)?;
    let s = raw.trim();
    if s.contains(char::is_whitespace) {
        return Err(refusal(
            "a space inside the split: fio then ignores the unit of the size after it (` 64k` is 64 bytes)",
        )
        .hint("write the split without spaces"));
    }
    let parts: Vec<&str> = s.split(':').collect();
    // fio stops at an empty entry: a trailing `:` is harmless, `::` is not.
    let last = parts.iter().rposition(|p| !p.is_empty()).map_or(0, |i| i + 1);
    if parts[..last].iter().any(|p| p.is_empty()) {
        return Err(refusal("fio stops reading the split at `::` and ignores the sizes after it"));
    }
    let mut entries: Vec<(Bytes, Option<u64>)> = Vec::new();
    for part in &parts[..last] {
        entries.push(split_entry(part, kb)?);
    }
    if entries.is_empty() {
        return Err(refusal("an empty split"));
    }
    let given: u64 = entries.iter().filter_map(|e| e.1).sum();
    let missing = entries.iter().filter(|e| e.1.is_none()).count() as u64;
    if given > 100 {
        return Err(refusal(format!("the shares add up to {given}%, over 100%")));
    }
    // fio gives each size without a share the same whole percent.
    let left = 100 - given;
    let (each, rest) = (left.checked_div(missing).unwrap_or(0), left.checked_rem(missing).unwrap_or(0));
    if rest > 0 {
        return Err(refusal(format!(
            "fio splits the {left}% left over the {missing} sizes without a share by whole percents, \
             {each}% each, and leaves {rest}% to one of the sizes"
        ))
        .hint("give every size its share, adding up to 100"));
    }
    let mut out: Vec<(Bytes, u64)> = Vec::new();
    for (size, share) in entries {
        let share = share.unwrap_or(each);
        if share == 0 {
            return Err(
                refusal(format!("{size} gets no share of the I/Os")).hint("leave it out, or give it a share")
            );
        }
        match out.iter_mut().find(|(s, _)| *s == size) {
            Some((_, p)) => *p += share,
            None => out.push((size, share)),
        }
    }
    let total: u64 = out.iter().map(|(_, p)| p).sum();
    if total != 100 {
        return Err(refusal(format!(
            "the shares add up to {total}%, not 100%: fio gives what is left to one of the sizes"
        ))
        .hint("make the shares add up to 100"));
    }
    out.sort_by_key(|(s, _)| *s);
    Ok(rounded_down(out))
}

/// One `SIZE[/SHARE]` of a split: the share `None` when fio counts it
/// missing (left out, empty or 0).
fn split_entry(part: &str, kb: KbBase) -> Result<(Bytes, Option<u64>), Refusal> {
    let (size, share) = match part.split_once('/') {
        Some((size, share)) => (size, Some(share)),
        None => (part, None),
    };
    let size = fio_bytes(size, kb)?;
    if size.0 == 0 {
        return Err(refusal("a block size of 0 moves no data"));
    }
    let share = match share {
        None | Some("") => None,
        Some(share) => {
            if !share.chars().all(|c| c.is_ascii_digit()) {
                return Err(refusal(format!(
                    "the share `{share}` of {size} is not a whole percentage: fio keeps the digits before \
                     anything else (`33.5` is 33)"
                )));
            }
            match share.parse::<u64>() {
                Ok(0) => None,
                Ok(p) if p <= 100 => Some(p),
                _ => return Err(refusal(format!("a share of {share}% for {size} is over 100%"))),
            }
        }
    };
    Ok((size, share))
}

/// The sizes of a split (smallest first) rounded down to multiples of the
/// smallest, as fio issues them; sizes that meet add their shares.
fn rounded_down(sorted: Vec<(Bytes, u64)>) -> Split {
    let smallest = sorted[0].0;
    let mut blocks: Vec<(Bytes, u64)> = Vec::new();
    let mut rounded = Vec::new();
    for (size, share) in sorted {
        let issued = Bytes(size.0 - size.0 % smallest.0);
        if issued != size {
            rounded.push((size, issued));
        }
        match blocks.iter_mut().find(|(s, _)| *s == issued) {
            Some((_, p)) => *p += share,
            None => blocks.push((issued, share)),
        }
    }
    Split { blocks: blocks.into_iter().map(|(s, p)| (s, Percent::whole(p as u32))).collect(), rounded }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_sizes() {
        let b = |raw| fio_size(raw, KbBase::Compat1024, true);
        assert_eq!(b("4k"), Ok(FioSize::Bytes(Bytes(4096))));
        assert_eq!(b("4K"), Ok(FioSize::Bytes(Bytes(4096))));
        assert_eq!(b("4kB"), Ok(FioSize::Bytes(Bytes(4096))));
        assert_eq!(b("1m"), Ok(FioSize::Bytes(Bytes(1 << 20))));
        assert_eq!(b("2g"), Ok(FioSize::Bytes(Bytes(2 << 30))));
        assert_eq!(b("4096"), Ok(FioSize::Bytes(Bytes(4096))));
        assert_eq!(b("512b"), Ok(FioSize::Bytes(Bytes(512))));
        assert_eq!(b(" 4096"), Ok(FioSize::Bytes(Bytes(4096))), "fio reads a plain number after a space");
        assert_eq!(b("0x1000"), Ok(FioSize::Bytes(Bytes(4096))));
        assert_eq!(b("50%"), Ok(FioSize::Percent(Percent::whole(50))));
        assert!(b("4KiB").is_err());
        assert!(b("0x10k").is_err());
        assert!(fio_size("50%", KbBase::Compat1024, false).is_err());
        let si = |raw| fio_size(raw, KbBase::Si1000, true);
        assert_eq!(si("4k"), Ok(FioSize::Bytes(Bytes(4000))));
        assert_eq!(si("4KiB"), Ok(FioSize::Bytes(Bytes(4096))));
        assert!(b("99999999999999p").is_err());
    }

    #[test]
    fn fio_times() {
        assert_eq!(fio_time("60"), Ok(Duration::from_secs(60)));
        assert_eq!(fio_time("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(fio_time("2000us"), Ok(Duration::from_millis(2)));
        assert_eq!(fio_time("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(fio_time("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(fio_time("1d"), Ok(Duration::from_secs(86_400)));
        assert_eq!(fio_time("30S"), Ok(Duration::from_secs(30)));
        assert_eq!(fio_time(" 30"), Ok(Duration::from_secs(30)));
        assert!(fio_time("30sec").is_err());
        assert!(fio_time("1.5").is_err());
        // latency_target and latency_window: microseconds without a unit.
        assert_eq!(fio_micros("500000"), Ok(500_000));
        assert_eq!(fio_micros("2ms"), Ok(2_000));
        assert_eq!(fio_micros("5s"), Ok(5_000_000));
        assert!(fio_micros("1.5ms").is_err());
    }

    #[test]
    fn fio_decimals() {
        assert_eq!(fio_decimal("1.2", 3), Ok(1200));
        assert_eq!(fio_decimal("0.999", 3), Ok(999));
        assert_eq!(fio_decimal("5", 2), Ok(500));
        assert_eq!(fio_decimal(".25", 4), Ok(2500));
        assert_eq!(fio_decimal("2.", 3), Ok(2000));
        let e = fio_decimal("1.2345", 3).unwrap_err();
        assert!(e.detail.contains("more than 3 decimals") && e.hint.unwrap().contains("`1.234`"), "rounded");
        for bad in ["", ".", "-1", "+1", "1e3", "0x1", " 1.2", "1.2.3", "1,2", "$T", "99999999999999999999"] {
            assert!(fio_decimal(bad, 3).is_err(), "{bad}");
        }
    }

    #[test]
    fn fio_splits() {
        let s = |raw| fio_bssplit(raw, KbBase::Compat1024).map(|s| s.blocks);
        let four = |p| (Bytes(4096), Percent::whole(p));
        assert_eq!(s("4k/100"), Ok(vec![four(100)]));
        assert_eq!(s("4k"), Ok(vec![four(100)]));
        assert_eq!(
            s("4k/50:8k:16k"),
            Ok(vec![four(50), (Bytes(8192), Percent::whole(25)), (Bytes(16384), Percent::whole(25))])
        );
        assert_eq!(
            s("4k/50:4k/50:"),
            Ok(vec![four(100)]),
            "sizes given twice add up; a trailing `:` ends it"
        );
        assert!(s("4k/0:8k/100").is_err(), "4k gets nothing");
        assert_eq!(
            s("4k/50:1k/:32k/"),
            Ok(vec![(Bytes(1024), Percent::whole(25)), four(50), (Bytes(32768), Percent::whole(25))]),
            "an empty share is missing: the HOWTO's own example"
        );
        assert!(s("4k/50: 8k/50").is_err());
        assert!(s("4k/60:8k/50").is_err());
    }

    #[test]
    fn splits_round_each_size_down_to_a_multiple_of_the_smallest_as_fio_issues_them() {
        let split = fio_bssplit("4k/50:6k/30:16k/20", KbBase::Compat1024).unwrap();
        assert_eq!(split.blocks, [(Bytes(4096), Percent::whole(80)), (Bytes(16384), Percent::whole(20))]);
        assert_eq!(split.rounded, [(Bytes(6144), Bytes(4096))]);
        let split = fio_bssplit("3k/50:8k/50", KbBase::Compat1024).unwrap();
        assert_eq!(split.blocks, [(Bytes(3072), Percent::whole(50)), (Bytes(6144), Percent::whole(50))]);
        assert!(fio_bssplit("4k/10:64k/90", KbBase::Compat1024).unwrap().rounded.is_empty());
    }

    #[test]
    fn values_per_direction_as_fio_cuts_them() {
        let d = |raw| per_direction(raw).map(|d| (d.read, d.write, d.trim));
        assert_eq!(d("4k"), Ok(("4k", "4k", "4k")));
        assert_eq!(d("4k,8k"), Ok(("4k", "8k", "8k")), "trims take the writes' value");
        assert_eq!(d("4k,8k,"), Ok(("4k", "8k", "")));
        assert_eq!(d(",8k"), Ok(("", "8k", "8k")));
        assert!(d("1,2,3,4").is_err());
    }
}
