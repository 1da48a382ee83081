//! The commands on methodology files themselves: `check`, `compile`,
//! `plan` and `fmt`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::ValueEnum;
use methodic_compiler::plan::{Bytes, Format as Serialization};
use methodic_results::view::plan::PlanSteps;

use crate::common::{count, display_name, load_plan, read_input, report, write_output};
use crate::format::Output;

/// How `compile` writes the plan itself: a plan format, which a run or
/// `methodic plan` reads back; not an output format of results
/// (`crate::format`).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum PlanFormat {
    /// RON, as plan.ron in a results directory.
    Ron,
    /// JSON, the same fields.
    Json,
}

/// How `check` reports what it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum MessageFormat {
    /// Each problem drawn under its source lines, and a count, on stderr.
    Human,
    /// One JSON object a line on stdout: each problem, then a summary
    /// (docs/EDITORS.md describes the fields).
    Json,
}

pub(crate) fn check(files: &[PathBuf], deny_warnings: bool, format: MessageFormat) -> Result<ExitCode> {
    let mut errors = 0;
    let mut warnings = 0;
    let mut failed = 0;
    let mut unreadable = 0;
    for path in files {
        let name = display_name(path);
        // One unreadable file does not hide the problems of the others.
        let src = match read_input(path) {
            Ok(src) => src,
            Err(e) => {
                let message = format!("{e:#}");
                match format {
                    MessageFormat::Human => eprintln!("error: {message}"),
                    MessageFormat::Json => write_output(Path::new("-"), &json::unreadable(&name, &message))?,
                }
                unreadable += 1;
                failed += 1;
                continue;
            }
        };
        let diags = methodic_compiler::check_with(&src, &crate::common::options_for(path, &src, None));
        match format {
            MessageFormat::Human => report(&diags, &name, &src),
            MessageFormat::Json => write_output(Path::new("-"), &json::diagnostics(&diags, &name, &src))?,
        }
        let e = diags.errors().count();
        let w = diags.len() - e;
        errors += e;
        warnings += w;
        if e > 0 || (deny_warnings && w > 0) {
            failed += 1;
        }
    }
    if format == MessageFormat::Json {
        let finished = json::Finished {
            reason: "check-finished",
            success: failed == 0,
            files: files.len(),
            unreadable,
            errors,
            warnings,
            deny_warnings,
        };
        write_output(Path::new("-"), &json::line(&finished))?;
        return Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS });
    }
    let mut summary = format!(
        "checked {}: {}, {}",
        count(files.len() - unreadable, "file"),
        count(errors, "error"),
        count(warnings, "warning")
    );
    if unreadable > 0 {
        summary.push_str(&format!("; {} could not be read", count(unreadable, "file")));
    }
    if deny_warnings && warnings > 0 {
        summary.push_str(" (--deny-warnings: warnings fail the check)");
    }
    eprintln!("{summary}");
    Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// `check --message-format json`: diagnostics go in, lines of JSON come
/// out, one object a diagnostic, shaped like cargo's and rustc's messages
/// (lines and columns 1-based, columns counted in characters, ends
/// exclusive) so that editors and CI read them without knowing methodic.
mod json {
    use methodic_compiler::{Diagnostic, Diagnostics, Severity};
    use serde::Serialize;

    /// One problem: in a file, or with the file itself (unreadable).
    #[derive(Serialize)]
    struct Message<'a> {
        reason: &'static str,
        file: &'a str,
        /// `M0103`; none for a file that could not be read.
        code: Option<&'static str>,
        severity: &'static str,
        message: &'a str,
        /// The main span first (`primary`), then the places that explain it.
        spans: Vec<Span<'a>>,
        hint: Option<&'a str>,
        notes: &'a [String],
        /// The diagnostic as `--message-format human` draws it, without colour.
        rendered: String,
    }

    #[derive(Serialize)]
    struct Span<'a> {
        byte_start: usize,
        byte_end: usize,
        line_start: usize,
        column_start: usize,
        line_end: usize,
        column_end: usize,
        primary: bool,
        label: Option<&'a str>,
    }

    /// The last line: what was checked and whether the check passed (the
    /// exit code says the same).
    #[derive(Serialize)]
    pub(super) struct Finished {
        pub reason: &'static str,
        pub success: bool,
        pub files: usize,
        pub unreadable: usize,
        pub errors: usize,
        pub warnings: usize,
        pub deny_warnings: bool,
    }

    /// `value` as one line of JSON.
    pub(super) fn line(value: &impl Serialize) -> String {
        // Serializing these structs (strings, numbers, no maps) cannot fail.
        let mut text = serde_json::to_string(value).unwrap_or_default();
        text.push('\n');
        text
    }

    pub(super) fn diagnostics(diags: &Diagnostics, file: &str, src: &str) -> String {
        let lines = Lines::new(src);
        diags.iter().map(|d| line(&message(d, file, src, &lines))).collect()
    }

    pub(super) fn unreadable(file: &str, message: &str) -> String {
        line(&Message {
            reason: "diagnostic",
            file,
            code: None,
            severity: Severity::Error.as_str(),
            message,
            spans: Vec::new(),
            hint: None,
            notes: &[],
            rendered: format!("error: {message}\n"),
        })
    }

    fn message<'a>(d: &'a Diagnostic, file: &'a str, src: &str, lines: &Lines) -> Message<'a> {
        let primary = d.span.map(|s| lines.span(s, true, d.label.as_deref()));
        let secondary = d.labels.iter().map(|(s, label)| lines.span(*s, false, Some(label)));
        Message {
            reason: "diagnostic",
            file,
            code: Some(d.code.as_str()),
            severity: d.severity().as_str(),
            message: &d.message,
            spans: primary.into_iter().chain(secondary).collect(),
            hint: d.hint.as_deref(),
            notes: &d.notes,
            rendered: d.render(file, src, false),
        }
    }

    /// Where each line of a source starts, to turn byte offsets into lines
    /// and columns.
    struct Lines<'s> {
        src: &'s str,
        starts: Vec<usize>,
    }

    impl<'s> Lines<'s> {
        fn new(src: &'s str) -> Lines<'s> {
            let starts = std::iter::once(0).chain(src.match_indices('\n').map(|(i, _)| i + 1)).collect();
            Lines { src, starts }
        }

        /// 1-based line and column (in characters) of a byte offset,
        /// clamped to the source and moved back to a character boundary.
        fn position(&self, byte: usize) -> (usize, usize) {
            let mut byte = byte.min(self.src.len());
            while !self.src.is_char_boundary(byte) {
                byte -= 1;
            }
            let line = self.starts.partition_point(|&s| s <= byte);
            let start = self.starts[line - 1];
            (line, self.src[start..byte].chars().count() + 1)
        }

        /// A span as JSON, clamped to the source (as `render` clamps it).
        fn span<'a>(
            &self,
            s: methodic_grammar::ast::Span,
            primary: bool,
            label: Option<&'a str>,
        ) -> Span<'a> {
            let byte_start = s.start.min(self.src.len());
            let byte_end = s.end.clamp(byte_start, self.src.len());
            let (line_start, column_start) = self.position(byte_start);
            let (line_end, column_end) = self.position(byte_end);
            Span { byte_start, byte_end, line_start, column_start, line_end, column_end, primary, label }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn columns_count_characters_from_one() {
            let src = "ab\n\"µs\" x\n";
            let lines = Lines::new(src);
            assert_eq!(lines.position(0), (1, 1));
            assert_eq!(lines.position(2), (1, 3));
            assert_eq!(lines.position(3), (2, 1));
            // `µ` is two bytes and one character: `x` is at byte 9, column 6.
            assert_eq!(lines.position(9), (2, 6));
            // Inside `µ`: the character's own column.
            assert_eq!(lines.position(5), (2, 2));
            assert_eq!(lines.position(100), (3, 1));
        }
    }
}

pub(crate) fn compile(
    path: &Path,
    output: &Path,
    format: PlanFormat,
    capacity: Option<Bytes>,
) -> Result<ExitCode> {
    let src = read_input(path)?;
    let name = display_name(path);
    match methodic_compiler::compile(&src, &crate::common::options_for(path, &src, capacity)) {
        Ok(compiled) => {
            report(&compiled.warnings, &name, &src);
            let format = match format {
                PlanFormat::Ron => Serialization::Ron,
                PlanFormat::Json => Serialization::Json,
            };
            write_output(output, &compiled.plan.write(format))?;
            if output != Path::new("-") {
                eprintln!(
                    "wrote {} ({}, {})",
                    output.display(),
                    count(compiled.plan.steps.len(), "step"),
                    compiled.plan.estimate.time.human()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(diags) => {
            report(&diags, &name, &src);
            eprintln!("{name}: {}; no plan written", count(diags.errors().count(), "error"));
            Ok(ExitCode::from(1))
        }
    }
}

pub(crate) fn plan(path: &Path, capacity: Option<Bytes>, output: &Output<PlanSteps>) -> Result<ExitCode> {
    let Some((plan, _)) = load_plan(path, capacity)? else {
        return Ok(ExitCode::from(1));
    };
    output.write(&PlanSteps::new(plan))?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn fmt(files: &[PathBuf], check: bool) -> Result<ExitCode> {
    let mut unformatted = Vec::new();
    let mut failed = false;
    for path in files {
        let name = display_name(path);
        let src = match read_input(path) {
            Ok(src) => src,
            Err(e) => {
                eprintln!("error: {e:#}");
                failed = true;
                continue;
            }
        };
        let formatted = match methodic_grammar::format(&src) {
            Ok(f) => f,
            Err(diags) => {
                report(&diags, &name, &src);
                eprintln!("{name}: not formatted, as it does not parse");
                failed = true;
                continue;
            }
        };
        if path == Path::new("-") {
            if check {
                if formatted != src {
                    unformatted.push(name);
                }
            } else {
                write_output(path, &formatted)?;
            }
            continue;
        }
        if formatted == src {
            continue;
        }
        if check {
            unformatted.push(name);
        } else {
            write_output(path, &formatted)?;
            eprintln!("formatted {name}");
        }
    }
    if !unformatted.is_empty() {
        for name in &unformatted {
            eprintln!("{name} is not formatted");
        }
        eprintln!("run `methodic fmt {}` to format", unformatted.join(" "));
        return Ok(ExitCode::from(1));
    }
    if failed {
        bail!("some files could not be read or formatted");
    }
    Ok(ExitCode::SUCCESS)
}
