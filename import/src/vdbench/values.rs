//! A value as written in, the numbers and words vdbench reads from it out
//! (`Vdb_scan.parms_split`, `parms_alfa_or_num`, `not_numeric` and
//! `Var_parms` in `Hust-Wen/vdbench@e801261:src/Vdb/`): a list in
//! parentheses, `(a-b,s)` and `(a-b,d)` ranges, `(sd1-sd4)` name ranges;
//! `k`/`m`/`g`/`t` as powers of 1024, `m` as minutes and `h` as hours for
//! the time keywords; `%` kept apart (vdbench makes it a negative number
//! that only `iorate` means). Checks what vdbench would misread: a range
//! without its step, text after a number in a list.

use super::reader::unquote;

/// One value of a list.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    Num(f64),
    /// `50%`: only `iorate=` gives it a meaning.
    Percent(f64),
    Text(String),
}

impl Tok {
    /// The number, or nothing for a word or a share.
    pub(crate) fn num(&self) -> Option<f64> {
        match self {
            Tok::Num(n) => Some(*n),
            _ => None,
        }
    }
}

/// `iorate=max` as vdbench holds it (`RD_entry.MAX_RATE`).
pub(crate) const MAX_RATE: f64 = 9_999_988.0;

/// Whether `key` is a time keyword, where `m` means minutes
/// (`Vdb_scan.java:620-630`).
fn is_time(key: &str) -> bool {
    ["el", "in", "pa", "wa", "reset"].iter().any(|p| key.starts_with(p))
}

/// Whether `key` keeps its values as words whatever they look like.
fn is_text_key(key: &str) -> bool {
    ["host", "hd", "system", "histogram", "replay"].contains(&key) || key.starts_with("misc")
}

/// A plain decimal number as Java reads one (`1`, `1.5`, `1e3`), not
/// `NaN` or `Infinity`.
fn plain(s: &str) -> Option<f64> {
    let first = s.chars().next()?;
    if !(first.is_ascii_digit() || first == '.' || first == '+' || first == '-') {
        return None;
    }
    if s.chars().any(|c| !(c.is_ascii_digit() || ".+-eE".contains(c))) {
        return None;
    }
    s.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// One token of `key`'s value to a number, a share or a word.
pub(crate) fn token(key: &str, s: &str) -> Tok {
    // Vdb_scan.java:595-596: only under the keyword written in full.
    if key == "iorate" && s == "max" {
        return Tok::Num(MAX_RATE);
    }
    if let Some(n) = plain(s) {
        return Tok::Num(n);
    }
    if is_text_key(key) || s.len() < 2 {
        return Tok::Text(unquote(s));
    }
    let lower = s.to_lowercase();
    let body = if lower.len() > 2 && lower.ends_with('b') { &lower[..lower.len() - 1] } else { &lower[..] };
    let Some((last, _)) = body.char_indices().last() else { return Tok::Text(unquote(s)) };
    let (digits, suffix) = body.split_at(last);
    let Some(n) = plain(digits) else { return Tok::Text(unquote(s)) };
    let times = match suffix {
        "k" => 1024.0,
        "m" if is_time(key) => 60.0,
        "m" => 1024.0 * 1024.0,
        "g" => 1024.0 * 1024.0 * 1024.0,
        "t" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "h" => 3600.0,
        "%" => return Tok::Percent(n),
        _ => return Tok::Text(unquote(s)),
    };
    Tok::Num(n * times)
}

/// A value's tokens: one for a plain value, the expanded list for one in
/// parentheses; or what is wrong with it.
pub(crate) fn tokens(key: &str, value: &str) -> Result<Vec<Tok>, String> {
    if !value.starts_with('(') {
        return Ok(vec![token(key, value)]);
    }
    let dash = !is_text_key(key);
    let mut raw: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in value.chars() {
        if c == ',' || c == '(' || c == ')' || (dash && c == '-') {
            if !word.is_empty() {
                raw.push(std::mem::take(&mut word));
            }
            if dash && c == '-' {
                raw.push("-".to_string());
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        raw.push(word);
    }
    expand(key, &raw)
}

/// Ranges expanded: `a - b step`, `a - b d`, `name1 - name4`.
fn expand(key: &str, raw: &[String]) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == "-" {
            return Err("a `-` with nothing before it".to_string());
        }
        let first = token(key, &raw[i]);
        if raw.get(i + 1).map(String::as_str) != Some("-") {
            if matches!(first, Tok::Text(_)) && out.iter().any(|t| matches!(t, Tok::Num(_))) {
                return Err(format!(
                    "`{}` after a number: vdbench refuses a mix of words and numbers",
                    raw[i]
                ));
            }
            out.push(first);
            i += 1;
            continue;
        }
        let Some(end) = raw.get(i + 2) else { return Err("a range without its end".to_string()) };
        match (first, token(key, end)) {
            (Tok::Num(a), Tok::Num(b)) => {
                let step = raw.get(i + 3).ok_or("a range without its step: vdbench never ends it")?;
                out.extend(numeric_range(key, a, b, step)?);
                i += 4;
            }
            (Tok::Text(a), Tok::Text(b)) => {
                out.extend(name_range(&a, &b)?);
                i += 3;
            }
            _ => return Err(format!("`{}-{end}` is not a range vdbench reads", raw[i])),
        }
    }
    Ok(out)
}

/// `(a-b,s)`: a, a+s, ... up to b; `(a-b,d)`: doubling up to b, or halving
/// down to b when a > b.
fn numeric_range(key: &str, a: f64, b: f64, step: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    if step.eq_ignore_ascii_case("d") {
        if a <= 0.0 {
            return Err("a doubling range must start above 0".to_string());
        }
        let mut v = a;
        while (a <= b && v <= b) || (a > b && v >= b) {
            out.push(Tok::Num(v));
            v = if a <= b { v * 2.0 } else { v / 2.0 };
            if out.len() > 4096 {
                return Err("a range of more than 4096 values".to_string());
            }
        }
        return Ok(out);
    }
    let Tok::Num(s) = token(key, step) else { return Err(format!("the step `{step}` is not a number")) };
    if s <= 0.0 || a > b {
        return Err("a range must go up by a step above 0".to_string());
    }
    let mut k = 0.0;
    while a + k * s <= b {
        out.push(Tok::Num(a + k * s));
        k += 1.0;
        if out.len() > 4096 {
            return Err("a range of more than 4096 values".to_string());
        }
    }
    Ok(out)
}

/// `(sd1-sd4)`: sd1, sd2, sd3, sd4 (the numbers written again without
/// leading zeros, as vdbench does).
fn name_range(a: &str, b: &str) -> Result<Vec<Tok>, String> {
    let split = |s: &str| {
        let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (p, n) = s.split_at(s.len() - digits);
        (p.to_string(), n.parse::<u64>().ok())
    };
    let ((pa, na), (pb, nb)) = (split(a), split(b));
    match (na, nb) {
        (Some(x), Some(y)) if pa == pb && x < y && y - x < 4096 => {
            Ok((x..=y).map(|n| Tok::Text(format!("{pa}{n}"))).collect())
        }
        _ => Err(format!(
            "`{a}-{b}` is not a range of names vdbench reads (same prefix, first number smaller)"
        )),
    }
}

/// A byte count written as methodic writes sizes, exactly, in binary
/// units: `4KiB`, `1536B`.
pub(crate) fn size(bytes: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes != 0 && bytes.is_multiple_of(1u64 << shift) {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    format!("{bytes}B")
}

/// A share with at most two decimals, as methodic writes it, or nothing
/// when it needs more.
pub(crate) fn share(p: f64) -> Option<String> {
    let hundredths = (p * 100.0).round();
    if (p * 100.0 - hundredths).abs() > 1e-6 || !(0.0..=10000.0).contains(&hundredths) {
        return None;
    }
    let h = hundredths as u64;
    Some(match h % 100 {
        0 => format!("{}%", h / 100),
        f if f % 10 == 0 => format!("{}.{}%", h / 100, f / 10),
        f => format!("{}.{f:02}%", h / 100),
    })
}

/// A whole number of bytes, or nothing for a fraction or a negative.
pub(crate) fn whole(n: f64) -> Option<u64> {
    (n >= 0.0 && n.fract() == 0.0 && n < 1.8e19).then_some(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nums(key: &str, v: &str) -> Vec<f64> {
        tokens(key, v).unwrap().iter().map(|t| t.num().unwrap()).collect()
    }

    #[test]
    fn suffixes_are_binary_and_time_keywords_count_minutes() {
        assert_eq!(nums("xfersize", "4k"), [4096.0]);
        assert_eq!(nums("xfersize", "4KB"), [4096.0]);
        assert_eq!(nums("size", "2m"), [2097152.0]);
        assert_eq!(nums("elapsed", "2m"), [120.0]);
        assert_eq!(nums("el", "1h"), [3600.0]);
        assert_eq!(nums("size", "1.5k"), [1536.0]);
        assert_eq!(tokens("elapsed", "30s").unwrap(), [Tok::Text("30s".into())]);
        assert_eq!(tokens("iorate", "50%").unwrap(), [Tok::Percent(50.0)]);
        assert_eq!(tokens("system", "5220h").unwrap(), [Tok::Text("5220h".into())]);
    }

    #[test]
    fn lists_and_ranges_expand_as_vdbench_expands_them() {
        assert_eq!(nums("forthreads", "(1-32,d)"), [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]);
        assert_eq!(nums("forxfersize", "(64k-16k,d)"), [65536.0, 32768.0, 16384.0]);
        assert_eq!(nums("iorate", "(100-300,100)"), [100.0, 200.0, 300.0]);
        assert_eq!(nums("forthreads", "(1,2,4-16,4,32)"), [1.0, 2.0, 4.0, 8.0, 12.0, 16.0, 32.0]);
        let names: Vec<Tok> = tokens("sd", "(sd1-sd3,sd9)").unwrap();
        assert_eq!(names, ["sd1", "sd2", "sd3", "sd9"].map(|s| Tok::Text(s.into())));
        assert_eq!(tokens("hd", "(a-b)").unwrap(), [Tok::Text("a-b".into())]);
    }

    #[test]
    fn max_in_a_rate_list_only_under_iorate_in_full() {
        assert_eq!(nums("iorate", "(200,max)"), [200.0, MAX_RATE]);
        assert!(tokens("io", "(200,max)").unwrap_err().contains("mix of words and numbers"));
    }

    #[test]
    fn ranges_vdbench_misreads_are_refused() {
        assert!(tokens("forthreads", "(1-4)").unwrap_err().contains("without its step"));
        assert!(tokens("forthreads", "(64,1,d)").unwrap_err().contains("mix of words and numbers"));
        assert!(tokens("sd", "(sd3-sd1)").is_err());
    }

    #[test]
    fn sizes_and_shares_are_written_exactly() {
        assert_eq!(size(4096), "4KiB");
        assert_eq!(size(1536), "1536B");
        assert_eq!(size(100 << 30), "100GiB");
        assert_eq!(share(70.0).unwrap(), "70%");
        assert_eq!(share(33.5).unwrap(), "33.5%");
        assert_eq!(share(12.25).unwrap(), "12.25%");
        assert_eq!(share(12.345), None);
    }
}
