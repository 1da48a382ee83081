//! Pieces of methodology text every importer writes alike: a string
//! literal, a line fit for a comment (a name the language takes is
//! `methodic_grammar::ident`, which `import fio` uses too).

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
    fn literals_and_comment_lines_hold_no_line_breaks() {
        assert_eq!(quote("a \"b\"\\\nc"), "\"a \\\"b\\\"\\\\ c\"");
        assert_eq!(one_line("a\tb\r\nc"), "a b  c");
    }
}
