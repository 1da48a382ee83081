//! Names for things other tools named: what `methodic import` writes for
//! a workload, job or worker a tool called something the language does
//! not take.

use std::collections::HashSet;

use crate::is_reserved;

/// A name methodic can use, from a tool's name for the thing: lower-case
/// letters, digits and single `_`s, starting with a letter (`stem_` put
/// before one that would not, `stem` alone for one with no letter or
/// digit), not a keyword (`_stem` put after), not taken (`_2`, `_3` ...;
/// `taken` keeps the names given).
pub fn ident(name: &str, stem: &str, taken: &mut HashSet<String>) -> String {
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
}
