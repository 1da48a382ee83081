//! Pieces of methodology text every importer writes alike: a name the
//! language takes, a string literal, a line fit for a comment.

use std::collections::HashSet;

use methodic_grammar::is_reserved;

/// A name methodic can use, from a tool's name for the thing: lower-case
/// letters, digits and single `_`s, starting with a letter (`stem_` put
/// before one that would not, `stem` alone for one with no letter or
/// digit), not a keyword (`_stem` put after), not taken (`_2`, `_3` ...;
/// `taken` keeps the names given).
pub(crate) fn ident(name: &str, stem: &str, taken: &mut HashSet<String>) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let mut out = out.trim_matches('_').to_string();
    if out.is_empty() {
        out = stem.to_string();
    } else if out.starts_with(|c: char| c.is_ascii_digit()) {
        out = format!("{stem}_{out}");
    }
    if is_reserved(&out) {
        out = format!("{out}_{stem}");
    }
    let mut unique = out.clone();
    let mut n = 2;
    while !taken.insert(unique.clone()) {
        unique = format!("{out}_{n}");
        n += 1;
    }
    unique
}

/// A string literal of the language, in double quotes; control
/// characters become spaces.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text that can stand in a comment line: control characters as spaces.
pub(crate) fn one_line(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_words_the_language_takes_and_each_is_given_once() {
        let mut taken = HashSet::new();
        assert_eq!(ident("Database", "spec", &mut taken), "database");
        assert_eq!(ident("4 KiB random 70% read", "spec", &mut taken), "spec_4_kib_random_70_read");
        assert_eq!(ident("DATABASE", "spec", &mut taken), "database_2");
        assert_eq!(ident("read", "spec", &mut taken), "read_spec");
        assert_eq!(ident("%%", "spec", &mut taken), "spec");
        assert_eq!(ident("a--b", "w", &mut taken), "a_b");
    }

    #[test]
    fn literals_and_comment_lines_hold_no_line_breaks() {
        assert_eq!(quote("a \"b\"\\\nc"), "\"a \\\"b\\\"\\\\ c\"");
        assert_eq!(one_line("a\tb\r\nc"), "a b  c");
    }
}
