//! The line rules of Iometer's own reader, `ICF_ifstream`
//! (iometer-org/iometer @ 7243b4da0fc108ea1297f3c1cde0d5e295c597a1,
//! `src/ICF_ifstream.cpp`, `src/ICF_ifstream.h`): lines of at most 199
//! characters (`MAX_ICF_LINE 200`), trimmed of spaces, tabs and line ends;
//! the version line (`GetVersion`, lines 106-150); and the key/value pair
//! (`GetPair`, lines 232-294): a key is a line that starts with `'` in
//! column 1, further `'` lines after it are column headers, and its value
//! is the next line. In: the file's text; out: [`Lines`], a cursor over it
//! that the section readers share, and [`Version`].

use crate::ImportErrorKind;
use crate::problem::Problem;

/// Iometer reads a line into a buffer of 200 characters, its end included:
/// a line of 200 characters or more fails the whole load.
pub(super) const MAX_LINE: usize = 200;

/// The file's lines (line ends taken off, `\r\n` and `\n` alike) and where
/// the reader is.
pub(super) struct Lines<'a> {
    lines: Vec<&'a str>,
    /// Index of the next line to read, from 0.
    pos: usize,
}

/// A key, its line, and its value and the value's line: what `GetPair`
/// returns. `value` is `None` for an `'End ...` or `'Version ...` key,
/// which has none.
pub(super) struct Pair<'a> {
    pub(super) key: &'a str,
    pub(super) line: usize,
    pub(super) value: Option<&'a str>,
    pub(super) value_line: usize,
}

impl<'a> Pair<'a> {
    /// Whether the key is `name`, compared as Iometer compares keys:
    /// case-insensitively, the whole trimmed line.
    pub(super) fn is(&self, name: &str) -> bool {
        self.key.eq_ignore_ascii_case(name)
    }

    /// The value; an empty one for a key that has none.
    pub(super) fn value(&self) -> &'a str {
        self.value.unwrap_or("")
    }
}

/// Whether `line` starts with `start`, case-insensitively (Iometer's
/// `SkipTo` and its `'End` and `'Version` tests).
pub(super) fn starts_with_ci(line: &str, start: &str) -> bool {
    line.len() >= start.len()
        && line.is_char_boundary(start.len())
        && line[..start.len()].eq_ignore_ascii_case(start)
}

/// A line as an error quotes it: at most 60 characters, control
/// characters as spaces.
pub(super) fn shown(line: &str) -> String {
    let mut out: String =
        line.trim().chars().take(60).map(|c| if c.is_control() { ' ' } else { c }).collect();
    if line.trim().chars().count() > 60 {
        out.push_str("...");
    }
    out
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Lines<'a> {
        let mut lines: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
        if text.ends_with('\n') || text.is_empty() {
            lines.pop();
        }
        Lines { lines, pos: 0 }
    }

    /// Every line of 200 characters or more, as a problem: Iometer's load
    /// fails there.
    pub(super) fn too_long(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        for (i, l) in self.lines.iter().enumerate() {
            if l.len() >= MAX_LINE {
                out.push(
                    Problem::new(
                        ImportErrorKind::Syntax,
                        i + 1,
                        format!(
                            "a line of {} characters: Iometer reads at most {} characters a line, and its \
                             load fails on a longer one",
                            l.len(),
                            MAX_LINE - 1
                        ),
                    )
                    .hint("shorten the line (a name or a description) to fewer than 200 characters"),
                );
            }
        }
        out
    }

    /// The number of the last line of the file (0 for an empty one).
    pub(super) fn last(&self) -> usize {
        self.lines.len()
    }

    /// The next line, as written, without taking it.
    pub(super) fn peek(&self) -> Option<&'a str> {
        self.lines.get(self.pos).copied()
    }

    /// The next line, as written, and its number.
    pub(super) fn next_raw(&mut self) -> Option<(usize, &'a str)> {
        let line = self.lines.get(self.pos).copied()?;
        self.pos += 1;
        Some((self.pos, line))
    }

    /// Puts the last line read back.
    pub(super) fn back(&mut self) {
        self.pos = self.pos.saturating_sub(1);
    }

    /// The file ended inside `place`: it was cut off.
    pub(super) fn truncated(&self, place: &str) -> Problem {
        Problem::new(
            ImportErrorKind::Syntax,
            self.last(),
            format!("the file ends inside {place}: it was cut off, or its end line is missing"),
        )
        .place(place.to_string())
        .hint("save the file again from Iometer, or add the section's end line")
    }

    /// The next line, trimmed (Iometer's `GetNextLine`); a problem at the
    /// end of the file.
    pub(super) fn next_trimmed(&mut self, place: &str) -> Result<(usize, &'a str), Problem> {
        match self.next_raw() {
            Some((n, l)) => Ok((n, l.trim())),
            None => Err(self.truncated(place)),
        }
    }

    /// Iometer's `GetPair`: a key (a line that starts with `'` in column 1),
    /// the `'` lines after it skipped as column headers, and the next line
    /// as its value. A blank or indented line where a key is expected is a
    /// problem, as it is to Iometer.
    pub(super) fn pair(&mut self, place: &str) -> Result<Pair<'a>, Problem> {
        let Some((line, raw)) = self.next_raw() else { return Err(self.truncated(place)) };
        if !raw.starts_with('\'') {
            let detail = if raw.trim().is_empty() {
                "a blank line where Iometer expects a key (a line that starts with '): Iometer refuses the \
                 file there"
                    .to_string()
            } else {
                format!(
                    "`{}` where Iometer expects a key, a line that starts with ' in its first column",
                    shown(raw)
                )
            };
            return Err(Problem::new(ImportErrorKind::Syntax, line, detail)
                .place(place.to_string())
                .hint("an .icf file has no blank lines and no text of its own; save it again from Iometer"));
        }
        let key = raw.trim();
        if starts_with_ci(key, "'End") || starts_with_ci(key, "'Version") {
            return Ok(Pair { key, line, value: None, value_line: line });
        }
        loop {
            let Some((value_line, raw)) = self.next_raw() else { return Err(self.truncated(place)) };
            if raw.starts_with('\'') {
                let t = raw.trim();
                if starts_with_ci(t, "'End") || starts_with_ci(t, "'Version") {
                    self.back();
                    return Ok(Pair { key, line, value: Some(""), value_line: line });
                }
                continue;
            }
            return Ok(Pair { key, line, value: Some(raw.trim()), value_line });
        }
    }
}

/// The file's version, from its first line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Version {
    /// As written, after `Version`: `1.1.0`, `2006.07.27`.
    pub(super) text: String,
    /// As Iometer's reader computes it: `19981008` for 1998.10.08,
    /// `10000100000` for 1.1.0.
    pub(super) number: u64,
}

impl Version {
    /// Files from this version on write access lines of 8 comma-separated
    /// fields (`src/AccessSpecList.cpp:977`).
    pub(super) const NEW_ACCESS: u64 = 19980521;
    /// From this version on an unknown TEST SETUP key is an error
    /// (`src/PageSetup.cpp:644`).
    pub(super) const STRICT_SETUP: u64 = 19990217;
    /// The oldest version Iometer reads.
    pub(super) const OLDEST: u64 = 19980105;
    /// Iometer 1.1.0, the last release.
    pub(super) const V1_1_0: u64 = 10_000_100_000;
}

/// The version line, as Iometer's `GetVersion` reads it: the first three
/// runs of digits. `major > 1900` makes a date (`major*10000 + middle*100 +
/// minor`), else a release number (`major*10^10 + middle*10^5 + minor`).
/// The line must start with `Version` (or `'Version`), as every Iometer
/// writes it: a file that does not is not an .icf file.
pub(super) fn version(line: &str) -> Result<Version, Problem> {
    let t = line.trim();
    let word = t.strip_prefix('\'').unwrap_or(t);
    let not_icf = || {
        Problem::new(
            ImportErrorKind::Syntax,
            1,
            format!(
                "the first line is `{}`, not a version line: this is not an Iometer .icf file",
                shown(line)
            ),
        )
        .hint("an .icf file starts with its version line, such as `Version 1.1.0`, as Iometer saves it")
    };
    if !starts_with_ci(word, "version") {
        return Err(not_icf());
    }
    let rest = &word["version".len()..];
    let runs: Vec<&str> =
        rest.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).take(3).collect();
    if runs.len() < 3 || runs.iter().any(|r| r.len() > 9) {
        return Err(not_icf());
    }
    let n: Vec<u64> = runs.iter().map(|r| r.parse().unwrap_or(0)).collect();
    let number = if n[0] > 1900 {
        n[0] * 10_000 + n[1] * 100 + n[2]
    } else {
        n[0] * 10_000_000_000 + n[1] * 100_000 + n[2]
    };
    let text = rest.trim().to_string();
    if number < Version::OLDEST {
        return Err(Problem::new(
            ImportErrorKind::BadValue,
            1,
            format!("version {text}: Iometer reads files from version 1998.01.05 on"),
        )
        .option(shown(line)));
    }
    if number > Version::V1_1_0 && n[0] < 1900 {
        return Err(Problem::new(
            ImportErrorKind::BadValue,
            1,
            format!("version {text}: methodic reads the files of Iometer releases up to 1.1.0, the last one"),
        )
        .option(shown(line))
        .hint("save the file from Iometer 1.1.0"));
    }
    Ok(Version { text, number })
}

/// The numbers of a value separated by commas or blanks (`0          1
/// 0`, `0,0,2`); `None` when one is not a whole number. Stricter than
/// Iometer, whose `ExtractFirstInt` skips text before a number.
pub(super) fn numbers(value: &str) -> Option<Vec<u64>> {
    value
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u64>().ok())
        .collect()
}

/// The comma-separated fields of a value, each trimmed.
pub(super) fn fields(value: &str) -> Vec<&str> {
    value.split(',').map(str::trim).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_1998_dates_to_1_1_0() {
        assert_eq!(version("Version 1.1.0 ").unwrap().number, 10_000_100_000);
        assert_eq!(version("Version 2006.07.27 ").unwrap().number, 20060727);
        assert_eq!(version("'Version 1998.10.08").unwrap().number, 19981008);
        assert_eq!(version("version 2004.07.30-post").unwrap().text, "2004.07.30-post");
        assert_eq!(version("VERSION 2008.06.18-RC2").unwrap().number, 20080618);
        assert!(version("Version 1997.01.01").is_err(), "before 1998.01.05");
        assert!(version("Version 1.2.0").is_err(), "after 1.1.0");
        assert!(version("[global]").is_err());
        assert!(version("Version 1.1").is_err(), "three numbers");
        assert!(version("").is_err());
    }

    #[test]
    fn a_pair_skips_column_headers_and_keeps_blank_values() {
        let mut l = Lines::new(
            "'Run Time\r\n'\thours minutes seconds\r\n\t0 1 0\r\n'Test Description\r\n\t\r\n'End x\r\n",
        );
        let p = l.pair("TEST SETUP").unwrap();
        assert_eq!((p.key, p.line, p.value, p.value_line), ("'Run Time", 1, Some("0 1 0"), 3));
        let p = l.pair("TEST SETUP").unwrap();
        assert_eq!((p.value, p.value_line), (Some(""), 5));
        let p = l.pair("TEST SETUP").unwrap();
        assert!(p.is("'END X") && p.value.is_none());
        assert!(l.pair("TEST SETUP").is_err(), "the end of the file");
    }

    #[test]
    fn a_blank_or_indented_key_is_refused() {
        assert!(Lines::new("\n'x\n1\n").pair("p").is_err());
        assert!(Lines::new(" 'x\n1\n").pair("p").is_err());
    }

    #[test]
    fn long_lines_are_named() {
        let long = format!("'x\n{}\n", "a".repeat(200));
        let p = Lines::new(&long).too_long();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].line, 2);
        assert!(Lines::new(&"a".repeat(199)).too_long().is_empty());
    }

    #[test]
    fn numbers_are_whole_and_separated_by_commas_or_blanks() {
        assert_eq!(numbers("0          1          0"), Some(vec![0, 1, 0]));
        assert_eq!(numbers("0,0 , 2"), Some(vec![0, 0, 2]));
        assert_eq!(numbers("abc 12"), None);
        assert_eq!(numbers("-1"), None);
    }
}
