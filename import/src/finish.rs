//! The last stage every importer shares: the methodology text it wrote,
//! formatted as `methodic fmt` formats it and compiled as a last check,
//! into an [`Imported`].

use crate::problem::{ImportError, ImportErrorKind, Problem};

/// A methodology made from another tool's job file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The methodology, formatted as `methodic fmt` formats it.
    pub text: String,
    /// What was imported, counted in the tool's words: `3 access
    /// specifications`, `2 run definitions`, `1 time span`.
    pub what: String,
    /// Settings left out, each with a comment in `text` saying why.
    pub dropped: usize,
    /// Files to write beside the methodology (a hosts file for
    /// `--hosts`): a name and the text.
    pub beside: Vec<(String, String)>,
    /// What the user must know that the methodology's comments say too
    /// (a default the tool has and methodic states, an approximation).
    pub warnings: Vec<String>,
}

/// `1 access specification`, `3 access specifications`.
pub(crate) fn count(n: usize, what: &str) -> String {
    methodic_compiler::plan::plural(n as u64, what, &format!("{what}s"))
}

/// The methodology `source` formatted, and compiled to check it: `file`
/// names the job file in the error should either fail (a bug here).
pub(crate) fn finish(source: &str, file: &str) -> Result<String, Vec<ImportError>> {
    let internal = |detail: String| vec![Problem::new(ImportErrorKind::Internal, 0, detail).into_error(file)];
    let text = methodic_grammar::format(source)
        .map_err(|d| internal(format!("the methodology made does not parse: {d}\n{source}")))?;
    if let Err(d) = methodic_compiler::compile(&text, &methodic_compiler::Options::default()) {
        return Err(internal(format!("the methodology made does not compile: {d}\n{text}")));
    }
    Ok(text)
}

/// Lines of `#` comments, each at most `width` characters, from a text
/// that may be long: words wrapped, a line's indent kept after the `# `.
pub(crate) fn comment(text: &str, width: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let mut current = format!("# {}", &line[..indent]);
        let start = current.len();
        for word in line.split_whitespace() {
            if current.len() > start && current.len() + 1 + word.len() > width {
                out.push_str(current.trim_end());
                out.push('\n');
                current = format!("# {}  ", &line[..indent]);
            } else if current.len() > start {
                current.push(' ');
            }
            current.push_str(word);
        }
        out.push_str(current.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_wrap_at_words_and_keep_indents() {
        let c = comment("one two three four\n- five six seven", 14);
        assert_eq!(c, "# one two\n#   three four\n# - five six\n#   seven\n");
    }

    #[test]
    fn a_methodology_that_does_not_compile_is_a_bug_named_as_such() {
        let e =
            finish("methodology \"x\" version \"1\"\nmeasure nothing qd 1 for 1s\n", "a.icf").unwrap_err();
        assert_eq!(e[0].kind, ImportErrorKind::Internal);
        assert!(e[0].to_string().starts_with("bug in methodic import"), "{}", e[0]);
    }
}
