//! Source text read without the grammar: where a string ends, where a
//! comment starts, a piece of text without its trailing comments. Error
//! recovery, building, the messages and the formatter all scan text this
//! way, so that they agree with the grammar on strings and comments.

/// Where the string opening at `open` ends: after its closing quote, or at
/// the end of its line when it has none. Escaped quotes do not close it.
pub(crate) fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
        if bytes[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    i + 1
}

/// `text` without trailing whitespace and comments.
pub(super) fn trim_trivia(mut text: &str) -> &str {
    loop {
        text = text.trim_end();
        let line_start = text.rfind('\n').map_or(0, |i| i + 1);
        match comment_start(&text[line_start..]) {
            Some(i) => text = &text[..line_start + i],
            None => return text,
        }
    }
}

/// Where a `#` comment starts in a line, outside strings.
pub(super) fn comment_start(line: &str) -> Option<usize> {
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '#' if !in_string => return Some(i),
            _ => {}
        }
    }
    None
}
