//! A parameter file's text in, its `keyword=value` items out, each with
//! its line, read as vdbench 5.04.07's `Vdb_scan` reads them
//! (`Hust-Wen/vdbench@e801261:src/Vdb/Vdb_scan.java`):
//! `$name`/`!name` substituted on the raw line first, then the line
//! trimmed; a line starting `eof` ends the file; lines starting `*`, `#`
//! or `/` and blank lines dropped; `include=FILE` spliced in; quotes
//! protect blanks, commas, `=` and `-`; the text after the first blank is
//! a comment; line breaks carry no meaning except that an item ends with
//! its line, unless a `(` is still open after a trailing comma. Checks
//! what vdbench would refuse (a variable without a value or never used,
//! an empty item, an unmatched parenthesis) and what it would misread (a
//! TAB inside an item, a variable named as the start of another, `$host`).

use crate::problem::Problem;
use crate::{ImportErrorKind, Input};

/// A quoted blank, comma, `=` and `-`, kept apart from the real ones until
/// the value is read (vdbench's `specialize` does the same with `[`, `^`,
/// `{` and `}`).
pub(crate) const QUOTED: [(char, char); 4] =
    [(' ', '\u{E000}'), (',', '\u{E001}'), ('=', '\u{E002}'), ('-', '\u{E003}')];

/// A line that holds parameters, after substitution and trimming.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Line {
    pub(crate) text: String,
    /// Its line in the parameter file (for an included line, the line of
    /// the `include=`).
    pub(crate) line: usize,
}

/// One `keyword=value` item.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Item {
    /// The keyword, lowercased as vdbench lowercases it.
    pub(crate) key: String,
    /// The value as written, quoted characters still marked ([`QUOTED`]).
    pub(crate) value: String,
    pub(crate) line: usize,
}

impl Item {
    /// `key=value` as written, for errors and comments.
    pub(crate) fn said(&self) -> String {
        format!("{}={}", self.key, unquote(&self.value))
    }
}

/// A value with its quoted characters as they were written.
pub(crate) fn unquote(s: &str) -> String {
    s.chars().map(|c| QUOTED.iter().find(|q| q.1 == c).map_or(c, |q| q.0)).collect()
}

/// The parameter file's items, and what vdbench would refuse or misread.
pub(crate) fn items(input: &Input<'_>, problems: &mut Vec<Problem>) -> Vec<Item> {
    check_vars(input, problems);
    let mut used = vec![false; input.vars.len()];
    let lines = lines(input, &mut used, problems);
    for ((name, value), used) in input.vars.iter().zip(&used) {
        if !*used {
            problems.push(
                Problem::new(
                    ImportErrorKind::BadValue,
                    0,
                    format!("the variable {name} is used nowhere in the file (vdbench stops on it too)"),
                )
                .option(format!("--var {name}={value}"))
                .hint(format!("drop --var {name}=..., or write ${name} where the value belongs")),
            );
        }
    }
    split_items(&lines, problems)
}

/// Variables methodic would substitute differently from vdbench: a name
/// that starts another (`lun` and `lun2`: vdbench's result depends on a
/// hash order) and names starting with `host` (vdbench's host replication).
fn check_vars(input: &Input<'_>, problems: &mut Vec<Problem>) {
    for (a, _) in input.vars {
        for (b, _) in input.vars {
            if a != b && b.starts_with(a.as_str()) {
                problems.push(
                    Problem::new(
                        ImportErrorKind::Conflict,
                        0,
                        format!(
                            "the variable {a} is the start of {b}: vdbench replaces ${a} inside ${b} or not \
                             depending on a hash order"
                        ),
                    )
                    .option(format!("--var {a}")),
                );
            }
        }
    }
}

/// Whether a trimmed line is one vdbench drops as a comment.
fn is_comment(trimmed: &str) -> bool {
    trimmed.is_empty() || trimmed.starts_with(['/', '#', '*'])
}

/// The lines that hold parameters, variables substituted and includes
/// spliced in.
fn lines(input: &Input<'_>, used: &mut [bool], problems: &mut Vec<Problem>) -> Vec<Line> {
    let mut out = Vec::new();
    for (i, raw) in input.text.lines().enumerate() {
        let n = i + 1;
        let Some(text) = one_line(raw, n, input, used, problems) else { continue };
        if text.starts_with("eof") {
            break;
        }
        if let Some(name) = text.strip_prefix("include=") {
            include(name, n, input, used, problems, &mut out);
            continue;
        }
        out.push(Line { text, line: n });
    }
    out
}

/// A raw line substituted and trimmed, or nothing for a comment.
fn one_line(
    raw: &str,
    n: usize,
    input: &Input<'_>,
    used: &mut [bool],
    problems: &mut Vec<Problem>,
) -> Option<String> {
    if is_comment(raw.trim()) {
        return None;
    }
    let mut text = raw.to_string();
    for (i, (name, value)) in input.vars.iter().enumerate() {
        for sigil in ['$', '!'] {
            let reference = format!("{sigil}{name}");
            if text.contains(&reference) {
                used[i] = true;
                text = text.replace(&reference, value);
            }
        }
    }
    let text = text.trim().to_string();
    if is_comment(&text) {
        return None;
    }
    let said = text.split(' ').next().unwrap_or("").to_string();
    if ["$host", "!host", "#host"].iter().any(|h| said.contains(h)) {
        problems.push(
            Problem::new(
                ImportErrorKind::Untranslatable,
                n,
                "vdbench repeats a parameter group once a host for $host, !host and #host; this importer does \
                 not",
            )
            .option(said.clone())
            .hint("write the entries for each host out, or run one workload on every host of a hosts file"),
        );
    } else if let Some(at) = said.find("=$").or_else(|| said.find("=!")) {
        let name: String =
            said[at + 2..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        problems.push(
            Problem::new(ImportErrorKind::BadValue, n, format!("no value for the variable {name}"))
                .option(said.clone())
                .hint(format!("give it as vdbench takes it on its command line: --var {name}=VALUE")),
        );
    }
    Some(text)
}

/// The lines of an included file, spliced in at the `include=` line.
fn include(
    name: &str,
    n: usize,
    input: &Input<'_>,
    used: &mut [bool],
    problems: &mut Vec<Problem>,
    out: &mut Vec<Line>,
) {
    let text = match (input.include)(name) {
        Ok(t) => t,
        Err(e) => {
            problems.push(
                Problem::new(ImportErrorKind::Syntax, n, format!("the included file cannot be read: {e}"))
                    .option(format!("include={name}")),
            );
            return;
        }
    };
    for raw in text.lines() {
        let Some(t) = one_line(raw, n, input, used, problems) else { continue };
        if t.starts_with("eof") {
            break;
        }
        if t.starts_with("include=") {
            problems.push(
                Problem::new(
                    ImportErrorKind::Syntax,
                    n,
                    "an included file includes another; vdbench refuses that",
                )
                .option(t.split(' ').next().unwrap_or("").to_string())
                .place(format!("in {name}")),
            );
            continue;
        }
        out.push(Line { text: t, line: n });
    }
}

/// A line's parameter text: quoted characters marked, cut at the first
/// blank; a TAB before it is refused (vdbench keeps it in the value).
fn cut(line: &Line, problems: &mut Vec<Problem>) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in line.text.chars() {
        if c == '"' {
            quoted = !quoted;
        } else if quoted {
            out.push(QUOTED.iter().find(|q| q.0 == c).map_or(c, |q| q.1));
        } else if c == ' ' {
            break;
        } else {
            out.push(c);
        }
    }
    if out.contains('\t') {
        problems.push(
            Problem::new(
                ImportErrorKind::Syntax,
                line.line,
                "a TAB inside the parameters: vdbench ends them only at a blank and reads the TAB and what \
                 follows as part of the value",
            )
            .option(out.replace('\t', "<TAB>"))
            .hint("put a blank (or a comma) where the TAB is"),
        );
    }
    out
}

/// The items of the lines: split at commas outside parentheses; an item
/// ends with its line unless a `(` is open after a trailing comma.
fn split_items(lines: &[Line], problems: &mut Vec<Problem>) -> Vec<Item> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    let mut start_line = 0;
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        let text = cut(line, problems);
        if current.is_empty() {
            start_line = line.line;
        }
        let trailing = text.ends_with(',');
        for c in text.chars() {
            match c {
                ',' if depth == 0 => {
                    push_item(&mut items, &current, start_line, problems);
                    current.clear();
                    start_line = line.line;
                    continue;
                }
                '(' => depth += 1,
                ')' if depth == 0 => {
                    problems.push(
                        Problem::new(ImportErrorKind::Syntax, line.line, "a `)` without its `(`")
                            .option(text.clone()),
                    );
                    continue;
                }
                ')' => depth -= 1,
                _ => {}
            }
            current.push(c);
        }
        if depth > 0 && trailing && i < last {
            continue;
        }
        if depth > 0 {
            problems.push(
                Problem::new(ImportErrorKind::Syntax, line.line, "a `(` that is not closed")
                    .option(current.clone()),
            );
            depth = 0;
        }
        if !current.is_empty() {
            push_item(&mut items, &current, start_line, problems);
            current.clear();
        } else if trailing && i == last {
            problems.push(
                Problem::new(
                    ImportErrorKind::Syntax,
                    line.line,
                    "the file ends in a comma: vdbench expects another \
                             keyword=",
                )
                .option(text.clone()),
            );
        }
    }
    items
}

/// One item split at its first `=`, or the problem vdbench would have
/// with it.
fn push_item(items: &mut Vec<Item>, text: &str, line: usize, problems: &mut Vec<Problem>) {
    let Some((key, value)) = text.split_once('=').filter(|(_, v)| !v.is_empty()) else {
        problems.push(
            Problem::new(ImportErrorKind::Syntax, line, "vdbench expects keyword=value here")
                .option(unquote(text)),
        );
        return;
    };
    let key = key.to_lowercase();
    if key.chars().count() < 2 {
        problems.push(
            Problem::new(ImportErrorKind::Syntax, line, "a keyword needs at least 2 characters")
                .option(unquote(text)),
        );
        return;
    }
    items.push(Item { key, value: value.to_string(), line });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, vars: &[(&str, &str)]) -> (Vec<Item>, Vec<Problem>) {
        let vars: Vec<(String, String)> = vars.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        let include = |name: &str| -> Result<String, String> {
            match name {
                "inc.vdb" => Ok("* included\nwd=w1,sd=sd1\neof\nwd=never".to_string()),
                "nest.vdb" => Ok("include=inc.vdb".to_string()),
                _ => Err(format!("no file {name}")),
            }
        };
        let input = Input { text, file: "t.vdb", name: "t", vars: &vars, include: &include };
        let mut problems = Vec::new();
        let items = items(&input, &mut problems);
        (items, problems)
    }

    fn said(items: &[Item]) -> Vec<(String, usize)> {
        items.iter().map(|i| (i.said(), i.line)).collect()
    }

    #[test]
    fn comments_blanks_and_the_text_after_the_first_blank_are_dropped() {
        let (items, p) = read("* one\n# two\n/ three\n\n  sd=sd1,lun=/x  the drive\n", &[]);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(said(&items), [("sd=sd1".to_string(), 5), ("lun=/x".to_string(), 5)]);
    }

    #[test]
    fn line_breaks_end_items_and_open_parentheses_continue_them() {
        let (items, p) = read("sd=sd1,\n  lun=/x\nsize=1m\nwd=w,xf=(4k,50,\n 8k,50)\neof\nrd=never", &[]);
        assert!(p.is_empty(), "{p:?}");
        let s: Vec<String> = items.iter().map(Item::said).collect();
        assert_eq!(s, ["sd=sd1", "lun=/x", "size=1m", "wd=w", "xf=(4k,50,8k,50)"]);
    }

    #[test]
    fn quotes_keep_blanks_commas_and_dashes_and_keywords_are_lowercased() {
        let (items, p) = read("SD=sd1,LUN=\"/x/a b-c,d\"", &[]);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(items[1].key, "lun");
        assert_eq!(unquote(&items[1].value), "/x/a b-c,d");
        assert!(!items[1].value.contains('-'), "the quoted dash is not a range");
    }

    #[test]
    fn variables_are_substituted_and_checked() {
        let (items, p) = read("sd=sd1,lun=$lun,threads=!th", &[("lun", "/dev/sdb"), ("th", "4")]);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(items[1].said(), "lun=/dev/sdb");
        assert_eq!(items[2].said(), "threads=4");
        let (_, p) = read("sd=sd1,lun=$lun", &[("other", "1")]);
        let details: Vec<&str> = p.iter().map(|p| p.detail.as_str()).collect();
        assert!(details.iter().any(|d| d.contains("no value for the variable lun")), "{details:?}");
        assert!(details.iter().any(|d| d.contains("other is used nowhere")), "{details:?}");
        let (_, p) = read("sd=sd1,lun=$lun2", &[("lun", "a"), ("lun2", "b")]);
        assert!(p.iter().any(|p| p.detail.contains("lun is the start of lun2")), "{p:?}");
    }

    #[test]
    fn includes_are_spliced_in_and_may_not_nest() {
        let (items, p) = read("sd=sd1,lun=/x\ninclude=inc.vdb\nrd=r1", &[]);
        assert!(p.is_empty(), "{p:?}");
        let s: Vec<String> = items.iter().map(Item::said).collect();
        assert_eq!(s, ["sd=sd1", "lun=/x", "wd=w1", "sd=sd1", "rd=r1"]);
        assert_eq!(items[2].line, 2);
        let (_, p) = read("include=nest.vdb\ninclude=none.vdb", &[]);
        assert!(p.iter().any(|p| p.detail.contains("includes another")), "{p:?}");
        assert!(p.iter().any(|p| p.detail.contains("no file none.vdb")), "{p:?}");
    }

    #[test]
    fn what_vdbench_refuses_or_misreads_is_named() {
        for (text, why) in [
            ("wd=w,sd=sd1\trdpct=0", "a TAB"),
            ("sd=sd1,,lun=/x", "keyword=value"),
            ("sd=sd1,lun=", "keyword=value"),
            ("s=sd1", "at least 2"),
            ("wd=w,xf=4k)", "without its"),
            ("wd=w,xf=(4k,8k", "not closed"),
            ("sd=sd1,", "ends in a comma"),
            ("sd=sd$host,lun=/x", "$host"),
        ] {
            let (_, p) = read(text, &[]);
            assert!(p.iter().any(|p| p.detail.contains(why)), "{text}: {p:?}");
        }
    }
}
