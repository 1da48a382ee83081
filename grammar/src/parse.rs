//! `parse`: methodology source goes in, a typed [`Methodology`] AST with
//! spans comes out. Checks the grammar and every literal (units, whole
//! numbers, escapes); reports as many syntax errors as it can find at once
//! by re-parsing each top-level item on its own after the first failure.

use pest::Parser as _;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::{Pair, Pairs};

use crate::ast::*;
use crate::diagnostic::{Code, Diagnostic, Diagnostics, did_you_mean};
use crate::units::{Quantity, QuantityError, parse_quantity};

mod parser {
    #[derive(pest_derive::Parser)]
    #[grammar = "methodology.pest"]
    pub struct MethodologyParser;
}

use parser::MethodologyParser;
pub(crate) use parser::Rule;

/// Parses a methodology. On failure, returns every syntax and literal error
/// found, in source order.
pub fn parse(src: &str) -> Result<Methodology, Diagnostics> {
    match MethodologyParser::parse(Rule::file, src) {
        Ok(mut pairs) => {
            let mut b = Builder { offset: 0, diags: Vec::new(), depth: 0 };
            let file = pairs
                .next()
                .ok_or_else(|| Diagnostics(vec![Diagnostic::internal(Span::new(0, 0), "empty parse")]))?;
            let ast = b.file(file);
            match ast {
                Ok(ast) if b.diags.is_empty() => Ok(ast),
                Ok(_) => Err(Diagnostics(b.diags).sorted()),
                Err(d) => {
                    b.diags.push(d);
                    Err(Diagnostics(b.diags).sorted())
                }
            }
        }
        Err(_) => Err(recover(src, syntax_error(src, 0))),
    }
}

/// After a syntax error, parses each top-level item alone so that one
/// mistake does not hide the next. Items that parse are built too, so that
/// their literal errors (`4k`) are reported with the syntax errors.
fn recover(src: &str, first: Diagnostic) -> Diagnostics {
    let first_at = first.span.map(|s| s.start);
    let mut diags = vec![first];
    for (start, end) in top_level_chunks(src) {
        let chunk = &src[start..end];
        match MethodologyParser::parse(Rule::file, chunk) {
            Err(_) => {
                // The first error, seen again from its own item.
                let d = syntax_error(chunk, start);
                if d.span.map(|s| s.start) != first_at {
                    diags.push(d);
                }
            }
            Ok(mut pairs) => {
                let mut b = Builder { offset: start, diags: Vec::new(), depth: 0 };
                if let Some(file) = pairs.next() {
                    if let Err(d) = b.file(file) {
                        b.diags.push(d);
                    }
                }
                diags.extend(b.diags);
            }
        }
    }
    Diagnostics(diags).sorted()
}

/// Words that start a top-level item; a line starting with one at brace
/// depth 0 starts a new chunk for error recovery.
const ITEM_STARTS: [&str; 24] = [
    "methodology",
    "describe",
    "non_destructive",
    "on_error",
    "conventions",
    "use",
    "workload",
    "dataset",
    "let",
    "phase",
    "for",
    "repeat",
    "rounds",
    "target",
    "limit_ram",
    "erase",
    "fill",
    "precondition",
    "sweep",
    "measure",
    "drop_caches",
    "idle",
    "copy",
    "probe",
];

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

/// Words that may start a line that continues the previous item.
const CONTINUATIONS: [&str; 12] = [
    "version",
    "qd",
    "read",
    "ramp",
    "record",
    "series",
    "until",
    "passes",
    "steady",
    "written",
    "aggregate",
    "in",
];

/// Byte ranges of the top-level items, found by scanning brackets, strings
/// and comments; used only to recover after a syntax error.
pub(crate) fn top_level_chunks(src: &str) -> Vec<(usize, usize)> {
    let bytes = src.as_bytes();
    let mut starts = Vec::new();
    let mut depth: usize = 0;
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                i = string_end(bytes, i);
                line_start = false;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {
                if line_start && depth == 0 && (c.is_ascii_alphabetic() || c == b'_') {
                    let end = src[i..]
                        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                        .map_or(src.len(), |n| i + n);
                    // Item keywords start chunks, and so do unknown words
                    // (most likely a misspelt item); step options may
                    // continue a step on the next line.
                    let word = &src[i..end];
                    if ITEM_STARTS.contains(&word) || !CONTINUATIONS.contains(&word) {
                        starts.push(i);
                    }
                }
            }
        }
        line_start = false;
        i += 1;
    }
    let mut chunks = Vec::new();
    for (k, &s) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(src.len());
        chunks.push((s, e));
    }
    chunks
}

// ---------------------------------------------------------------- errors

/// How a rule reads to a user, and which family it belongs to so that a
/// long list of alternatives can be said in a few words.
struct Words {
    text: &'static str,
    family: Family,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Family {
    Definition,
    Step,
    StepOption,
    WorkloadProperty,
    TargetSetting,
    DatasetSetting,
    SteadySetting,
    ProbeSetting,
    Convention,
    Value,
    Other,
}

impl Family {
    fn noun(self) -> &'static str {
        match self {
            Family::Definition => "a definition",
            Family::Step => "a step",
            Family::StepOption => "a step option",
            Family::WorkloadProperty => "a workload property",
            Family::TargetSetting => "a target setting",
            Family::DatasetSetting => "a dataset setting",
            Family::SteadySetting => "a steady-state setting",
            Family::ProbeSetting => "a probe setting",
            Family::Convention => "a convention",
            Family::Value => "a value",
            Family::Other => "something",
        }
    }
}

/// Every grammar rule in words. Exhaustive on purpose: a new rule does not
/// compile until it has words.
fn describe_rule(rule: Rule) -> Words {
    use Family::*;
    let w = |text, family| Words { text, family };
    match rule {
        Rule::EOI => w("end of file", Other),
        Rule::WHITESPACE => w("a space", Other),
        Rule::COMMENT => w("a comment", Other),
        Rule::file => w("a definition or a step", Other),
        Rule::header => w("`methodology \"name\" version \"1.0\"`", Definition),
        Rule::describe => w("`describe \"...\"`", Definition),
        Rule::non_destructive => w("`non_destructive`", Definition),
        Rule::on_error => w("`on_error`", Definition),
        Rule::on_error_action => w("`stop` or `continue`", Other),
        Rule::conventions => w("`conventions { ... }`", Definition),
        Rule::conv_units => w("`units`", Convention),
        Rule::conv_queue_depth => w("`queue_depth`", Convention),
        Rule::conv_value => w("`value`", Convention),
        Rule::use_decl => w("`use std.mixes`", Definition),
        Rule::module_path => w("a module such as `std.mixes`", Other),
        Rule::workload_def => w("`workload NAME { ... }`", Definition),
        Rule::workload_body => w("a workload in braces such as `{ random; block 4KiB; read 0% }`", Other),
        Rule::w_random => w("`random`", WorkloadProperty),
        Rule::w_sequential => w("`sequential`", WorkloadProperty),
        Rule::w_block => w("`block`", WorkloadProperty),
        Rule::w_blocks => w("`blocks`", WorkloadProperty),
        Rule::split_entry => w("a block-size share such as `4KiB: 60%`", Other),
        Rule::w_read => w("`read`", WorkloadProperty),
        Rule::w_align => w("`align`", WorkloadProperty),
        Rule::w_offset => w("`offset`", WorkloadProperty),
        Rule::dataset_def => w("`dataset NAME { ... }`", Definition),
        Rule::d_files => w("`files`", DatasetSetting),
        Rule::d_size => w("`size`", DatasetSetting),
        Rule::d_total => w("`total`", DatasetSetting),
        Rule::d_seed => w("`seed`", DatasetSetting),
        Rule::let_def => w("`let NAME = ...`", Definition),
        Rule::block => w("a block in braces `{ ... }`", Other),
        Rule::phase => w("`phase`", Step),
        Rule::for_loop => w("`for`", Step),
        Rule::repeat_block => w("`repeat`", Step),
        Rule::rounds_block => w("`rounds`", Step),
        Rule::target_block => w("`target`", Step),
        Rule::t_span => w("`span`", TargetSetting),
        Rule::t_workers => w("`workers`", TargetSetting),
        Rule::t_devices => w("`devices`", TargetSetting),
        Rule::t_io => w("`io`", TargetSetting),
        Rule::t_data => w("`data`", TargetSetting),
        Rule::data_random => w("`random`", Other),
        Rule::data_zeros => w("`zeros`", Other),
        Rule::data_compressible => w("`compressible N%`", Other),
        Rule::limit_ram => w("`limit_ram`", Step),
        Rule::erase => w("`erase`", Step),
        Rule::fill => w("`fill`", Step),
        Rule::precondition => w("`precondition`", Step),
        Rule::sweep => w("`sweep`", Step),
        Rule::measure => w("`measure`", Step),
        Rule::opt_passes => w("`passes`", StepOption),
        Rule::opt_qd => w("`qd`", StepOption),
        Rule::opt_read => w("`read`", StepOption),
        Rule::opt_ramp => w("`ramp`", StepOption),
        Rule::opt_record => w("`record`", StepOption),
        Rule::opt_series => w("`series`", StepOption),
        Rule::opt_for => w("`for`", StepOption),
        Rule::opt_steady => w("`until steady`", StepOption),
        Rule::opt_written => w("`until written`", StepOption),
        Rule::steady_body => w("a steady-state rule in braces such as `{ round 60s }`", Other),
        Rule::s_round => w("`round`", SteadySetting),
        Rule::s_window => w("`window`", SteadySetting),
        Rule::s_excursion => w("`excursion`", SteadySetting),
        Rule::s_slope => w("`slope`", SteadySetting),
        Rule::s_max_rounds => w("`max_rounds`", SteadySetting),
        Rule::s_metric => w("`metric`", SteadySetting),
        Rule::s_track => w("`track`", SteadySetting),
        Rule::drop_caches => w("`drop_caches`", Step),
        Rule::idle => w("`idle`", Step),
        Rule::copy => w("`copy`", Step),
        Rule::probe => w("`probe`", Step),
        Rule::p_io => w("`io`", ProbeSetting),
        Rule::p_step => w("`step`", ProbeSetting),
        Rule::p_range => w("`range`", ProbeSetting),
        Rule::p_repeats => w("`repeats`", ProbeSetting),
        Rule::p_statistic => w("`statistic`", ProbeSetting),
        Rule::list => w("a list such as `[1, 2, 4]`", Value),
        Rule::range => w("a range such as `1..256 step x2`", Value),
        Rule::ratio => w("a factor such as `x2`", Other),
        Rule::quantity => w("a number such as 32, 4KiB, 30s or 67%", Value),
        Rule::ident => w("a name", Value),
        Rule::string => w("a string in double quotes", Other),
        Rule::string_inner => w("the text of a string", Other),
        Rule::units_kind => w("`decimal` or `binary`", Other),
        Rule::qd_counting => w("`total` or `per_worker`", Other),
        Rule::value_kind => w("`step_average`, `steady_state_average` or `peak`", Other),
        Rule::io_mode => w("`direct` or `buffered`", Other),
        Rule::erase_method => w("`secure` or `discard`", Other),
        Rule::aggregate => w("`mean`, `median`, `max` or `min`", Other),
        Rule::metric => w("`iops`, `bandwidth` or `latency`", Other),
        Rule::keyword => w("a keyword", Other),
        // Silent rules never appear in errors; listed to keep the match exhaustive.
        Rule::ident_char
        | Rule::item
        | Rule::convention
        | Rule::workload_prop
        | Rule::workload_ref
        | Rule::dataset_setting
        | Rule::statement
        | Rule::target_setting
        | Rule::data_pattern
        | Rule::fill_opt
        | Rule::precondition_opt
        | Rule::sweep_opt
        | Rule::measure_opt
        | Rule::steady_setting
        | Rule::probe_setting
        | Rule::expr
        | Rule::list_item
        | Rule::range_end => w("a value", Other),
        Rule::k_methodology => w("`methodology`", Other),
        Rule::k_version => w("`version`", Other),
        Rule::k_describe => w("`describe`", Other),
        Rule::k_non_destructive => w("`non_destructive`", Other),
        Rule::k_on_error => w("`on_error`", Other),
        Rule::k_conventions => w("`conventions`", Other),
        Rule::k_units => w("`units`", Other),
        Rule::k_queue_depth => w("`queue_depth`", Other),
        Rule::k_value => w("`value`", Other),
        Rule::k_use => w("`use`", Other),
        Rule::k_workload => w("`workload`", Other),
        Rule::k_dataset => w("`dataset`", Other),
        Rule::k_let => w("`let`", Other),
        Rule::k_phase => w("`phase`", Other),
        Rule::k_for => w("`for`", Other),
        Rule::k_in => w("`in`", Other),
        Rule::k_repeat => w("`repeat`", Other),
        Rule::k_aggregate => w("`aggregate`", Other),
        Rule::k_rounds => w("`rounds`", Other),
        Rule::k_until => w("`until`", Other),
        Rule::k_steady => w("`steady`", Other),
        Rule::k_target => w("`target`", Other),
        Rule::k_span => w("`span`", Other),
        Rule::k_workers => w("`workers`", Other),
        Rule::k_devices => w("`devices`", Other),
        Rule::k_io => w("`io`", Other),
        Rule::k_data => w("`data`", Other),
        Rule::k_limit_ram => w("`limit_ram`", Other),
        Rule::k_none => w("`none`", Other),
        Rule::k_erase => w("`erase`", Other),
        Rule::k_fill => w("`fill`", Other),
        Rule::k_passes => w("`passes`", Other),
        Rule::k_precondition => w("`precondition`", Other),
        Rule::k_sweep => w("`sweep`", Other),
        Rule::k_measure => w("`measure`", Other),
        Rule::k_qd => w("`qd`", Other),
        Rule::k_read => w("`read`", Other),
        Rule::k_ramp => w("`ramp`", Other),
        Rule::k_record => w("`record`", Other),
        Rule::k_written => w("`written`", Other),
        Rule::k_series => w("`series`", Other),
        Rule::k_drop_caches => w("`drop_caches`", Other),
        Rule::k_idle => w("`idle`", Other),
        Rule::k_copy => w("`copy`", Other),
        Rule::k_probe => w("`probe`", Other),
        Rule::k_pages => w("`pages`", Other),
        Rule::k_random => w("`random`", Other),
        Rule::k_sequential => w("`sequential`", Other),
        Rule::k_block => w("`block`", Other),
        Rule::k_blocks => w("`blocks`", Other),
        Rule::k_align => w("`align`", Other),
        Rule::k_offset => w("`offset`", Other),
        Rule::k_files => w("`files`", Other),
        Rule::k_size => w("`size`", Other),
        Rule::k_total => w("`total`", Other),
        Rule::k_seed => w("`seed`", Other),
        Rule::k_step => w("`step`", Other),
        Rule::k_range => w("`range`", Other),
        Rule::k_repeats => w("`repeats`", Other),
        Rule::k_statistic => w("`statistic`", Other),
        Rule::k_round => w("`round`", Other),
        Rule::k_window => w("`window`", Other),
        Rule::k_excursion => w("`excursion`", Other),
        Rule::k_slope => w("`slope`", Other),
        Rule::k_max_rounds => w("`max_rounds`", Other),
        Rule::k_metric => w("`metric`", Other),
        Rule::k_track => w("`track`", Other),
        Rule::k_zeros => w("`zeros`", Other),
        Rule::k_compressible => w("`compressible`", Other),
    }
}

/// Keyword tokens: the builder skips them, as they carry no value.
fn is_keyword(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::k_methodology
            | Rule::k_version
            | Rule::k_describe
            | Rule::k_non_destructive
            | Rule::k_on_error
            | Rule::k_conventions
            | Rule::k_units
            | Rule::k_queue_depth
            | Rule::k_value
            | Rule::k_use
            | Rule::k_workload
            | Rule::k_dataset
            | Rule::k_let
            | Rule::k_phase
            | Rule::k_for
            | Rule::k_in
            | Rule::k_repeat
            | Rule::k_aggregate
            | Rule::k_rounds
            | Rule::k_until
            | Rule::k_steady
            | Rule::k_target
            | Rule::k_span
            | Rule::k_workers
            | Rule::k_devices
            | Rule::k_io
            | Rule::k_data
            | Rule::k_limit_ram
            | Rule::k_none
            | Rule::k_erase
            | Rule::k_fill
            | Rule::k_passes
            | Rule::k_precondition
            | Rule::k_sweep
            | Rule::k_measure
            | Rule::k_qd
            | Rule::k_read
            | Rule::k_ramp
            | Rule::k_record
            | Rule::k_written
            | Rule::k_series
            | Rule::k_drop_caches
            | Rule::k_idle
            | Rule::k_copy
            | Rule::k_probe
            | Rule::k_pages
            | Rule::k_random
            | Rule::k_sequential
            | Rule::k_block
            | Rule::k_blocks
            | Rule::k_align
            | Rule::k_offset
            | Rule::k_files
            | Rule::k_size
            | Rule::k_total
            | Rule::k_seed
            | Rule::k_step
            | Rule::k_range
            | Rule::k_repeats
            | Rule::k_statistic
            | Rule::k_round
            | Rule::k_window
            | Rule::k_excursion
            | Rule::k_slope
            | Rule::k_max_rounds
            | Rule::k_metric
            | Rule::k_track
            | Rule::k_zeros
            | Rule::k_compressible
    )
}

/// Parses `text` again with pest's detailed error tracking (slower, so
/// only done once a parse has failed) and turns the failure into a
/// diagnostic in the user's words. `offset` is where `text` starts in the
/// file.
fn syntax_error(text: &str, offset: usize) -> Diagnostic {
    pest::set_error_detail(true);
    let result = MethodologyParser::parse(Rule::file, text);
    pest::set_error_detail(false);
    match result {
        Ok(_) => Diagnostic::internal(Span::new(offset, offset), "a failed parse succeeded on retry"),
        Err(e) => pest_error(text, offset, &e),
    }
}

fn pest_error(text: &str, offset: usize, e: &pest::error::Error<Rule>) -> Diagnostic {
    let mut pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let mut positives: Vec<Rule> = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } => positives.clone(),
        // pest's own guard against running out of stack.
        ErrorVariant::CustomError { message } if message.contains("stack limit") => {
            return Diagnostic::new(
                Code::TooDeep,
                Span::new(offset + pos, offset + pos + 1),
                "this nests too deeply to be read",
            )
            .with_hint(format!("blocks may nest {MAX_DEPTH} deep; flatten the methodology"));
        }
        ErrorVariant::CustomError { message } => {
            return Diagnostic::new(Code::Syntax, Span::new(offset + pos, offset + pos), message.clone());
        }
    };
    // Punctuation the parser wanted at the furthest point it reached, which
    // pest's rule list leaves out (`,` or `]` in an unclosed list).
    let mut punctuation: Vec<String> = Vec::new();
    if let Some(attempts) = e.parse_attempts() {
        let wanted: Vec<String> = attempts
            .expected_tokens()
            .into_iter()
            .map(|t| t.to_string())
            .filter(|t| PUNCTUATION.contains(&t.as_str()))
            .collect();
        if attempts.max_position > pos && !wanted.is_empty() {
            pos = attempts.max_position;
            positives.clear();
        }
        if attempts.max_position == pos {
            punctuation = wanted;
        }
    }

    let rest = &text[pos.min(text.len())..];
    let word_len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    let word = &rest[..word_len];
    let found_len = if word_len > 0 { word_len } else { rest.chars().next().map_or(0, char::len_utf8) };
    let span = Span::new(offset + pos, offset + pos + found_len);

    // An opening quote with no closing quote on its line: the parser wanted
    // the closing quote at the end of the line, or failed at the opening one.
    let line_start = text[..pos.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let opening = if punctuation.iter().any(|p| p == "\"") {
        text[line_start..pos.min(text.len())].rfind('"').map(|i| line_start + i)
    } else if rest.starts_with('"') && !rest[1..].split('\n').next().unwrap_or("").contains('"') {
        Some(pos)
    } else {
        None
    };
    if let Some(open) = opening {
        let line_end = text[open..].find('\n').map_or(text.len(), |i| open + i);
        return Diagnostic::new(
            Code::UnterminatedString,
            Span::new(offset + open, offset + line_end),
            "this string has no closing quote",
        )
        .with_label("the string starts here")
        .with_hint("strings end on the line they start; add a closing `\"`");
    }

    let found = if rest.is_empty() {
        "the end of the file".to_string()
    } else if word_len > 0 {
        format!("`{word}`")
    } else {
        format!("`{}`", rest.chars().next().unwrap_or(' '))
    };

    // A keyword where a name belongs.
    if word_len > 0 && positives.contains(&Rule::ident) && is_reserved(word) {
        return Diagnostic::new(
            Code::ReservedWord,
            span,
            format!("`{word}` is a keyword and cannot be used as a name"),
        )
        .with_label("a name is expected here")
        .with_hint(format!("choose another name, such as `{word}_wl` or `my_{word}`"));
    }

    // "a string in double quotes or `"`" says the same thing twice.
    if positives.contains(&Rule::string) {
        punctuation.retain(|p| p != "\"");
    }
    let expected = expected_words(&positives, &punctuation);
    let mut d = Diagnostic::new(Code::Syntax, span, format!("expected {expected}, found {found}"))
        .with_label(format!("expected {expected}"));
    if rest.is_empty() && punctuation.iter().any(|p| p == "}") {
        d = d.with_hint("a `{` is not closed: add the `}` that ends its block");
        if let Some(open) = unclosed_by_indentation(text) {
            d = d.with_secondary(
                Span::new(offset + open, offset + open + 1),
                "this `{` seems to be the one not closed: no `}` lines up under it",
            );
        }
    } else if rest.starts_with('}') && !punctuation.iter().any(|p| p == "}") {
        d = d.with_hint("this `}` closes no block: remove it, or the `}` before it");
    }
    let before = text[..pos.min(text.len())].trim_end_matches([' ', '\t']);
    if word == "steady" && positives.contains(&Rule::k_written) {
        d = d.with_hint(
            "a measurement stops after a time or an amount written; to run until steady, use \
             `precondition W qd N until steady`, or `rounds { ... } until steady`",
        );
    } else if positives.contains(&Rule::string) && word_len > 0 {
        d = d.with_hint(format!("names of phases and methodologies are quoted: \"{word}\""));
    } else if word_len > 0 {
        let keywords = keywords_of(&positives);
        if let Some(s) = did_you_mean(word, keywords.iter().copied()) {
            d = d.with_hint(format!("did you mean `{s}`?"));
        } else if before.len() < pos
            && before.ends_with(|c: char| c.is_ascii_digit())
            && crate::units::parse_quantity(&format!("1{word}")).is_ok()
        {
            d = d.with_hint(format!(
                "write the unit right after the number, without a space: `{}{word}`",
                &before[before.rfind(|c: char| !(c.is_ascii_digit() || c == '.')).map_or(0, |i| i + 1)..]
            ));
        }
    }
    d
}

/// The `{` most likely left unclosed, judged by layout: the last line that
/// ends with `{` whose next line at the same or a lesser indentation is not
/// a `}` at exactly its indentation. `None` when the layout does not tell.
fn unclosed_by_indentation(text: &str) -> Option<usize> {
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .scan(0, |at, line| {
            let start = *at;
            *at += line.len();
            Some((start, line.trim_end_matches(['\n', '\r'])))
        })
        .collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut found = None;
    for (i, (start, line)) in lines.iter().enumerate() {
        let code = comment_start(line).map_or(*line, |c| &line[..c]).trim_end();
        if !code.ends_with('{') {
            continue;
        }
        let own = indent(line);
        let next = lines[i + 1..]
            .iter()
            .map(|(_, l)| *l)
            .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#') && indent(l) <= own);
        match next {
            Some(l) if indent(l) == own && l.trim_start().starts_with('}') => {}
            _ => found = Some(start + code.len() - 1),
        }
    }
    found
}

/// Punctuation worth naming when the parser expected it.
const PUNCTUATION: [&str; 8] = [",", "]", "}", ":", "=", "{", "[", "\""];

/// The groups alternatives fall into, so that a long list reads short.
fn keyword_families(word: &str) -> &'static [Family] {
    use Family::*;
    match word {
        "methodology" | "describe" | "non_destructive" | "on_error" | "conventions" | "use" | "workload"
        | "dataset" | "let" => &[Definition],
        "phase" | "repeat" | "rounds" | "limit_ram" | "erase" | "fill" | "precondition" | "sweep"
        | "measure" | "drop_caches" | "idle" | "copy" | "probe" => &[Step],
        "for" => &[Step, StepOption],
        "target" => &[Step],
        "passes" | "qd" | "ramp" | "record" | "series" | "until" => &[StepOption],
        "read" => &[StepOption, WorkloadProperty],
        "random" | "sequential" | "block" | "blocks" | "align" | "offset" => &[WorkloadProperty],
        "span" | "workers" | "devices" | "data" => &[TargetSetting],
        "io" => &[TargetSetting, ProbeSetting],
        "files" | "size" | "total" | "seed" => &[DatasetSetting],
        "round" | "window" | "excursion" | "slope" | "max_rounds" | "metric" | "track" => &[SteadySetting],
        "step" | "range" | "repeats" | "statistic" => &[ProbeSetting],
        "units" | "queue_depth" | "value" => &[Convention],
        _ => &[],
    }
}

/// "a workload property (`block`, `read`) or `}`": the expected
/// alternatives in a few words.
fn expected_words(positives: &[Rule], punctuation: &[String]) -> String {
    use Family::*;
    // (text, keyword if the rule is a keyword, families it may belong to)
    let mut entries: Vec<(&'static str, Option<&'static str>, &'static [Family])> = Vec::new();
    for rule in positives {
        let words = describe_rule(*rule);
        let keyword = words
            .text
            .strip_prefix('`')
            .and_then(|t| t.strip_suffix('`'))
            .filter(|k| k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        let families: &'static [Family] = match (keyword, *rule) {
            (_, Rule::file) => &[Definition, Step],
            (Some(k), _) if !keyword_families(k).is_empty() => keyword_families(k),
            _ => match words.family {
                Definition => &[Definition],
                Step => &[Step],
                Value => &[Value],
                _ => &[],
            },
        };
        if !entries.iter().any(|(t, _, _)| *t == words.text) {
            entries.push((words.text, keyword, families));
        }
    }
    let count = |f: Family| entries.iter().filter(|(_, _, fs)| fs.contains(&f)).count();
    let order = [
        Definition,
        Step,
        StepOption,
        WorkloadProperty,
        TargetSetting,
        DatasetSetting,
        SteadySetting,
        ProbeSetting,
        Convention,
        Value,
    ];
    let mut grouped: Vec<(Family, Vec<&'static str>)> = Vec::new();
    let mut singles: Vec<String> = Vec::new();
    let mut end_of_file = false;
    for (text, keyword, families) in &entries {
        if *text == "end of file" {
            end_of_file = true;
            continue;
        }
        // The family with the most members present wins an ambiguous keyword.
        let best = families.iter().copied().max_by_key(|f| (count(*f), std::cmp::Reverse(*f)));
        match best {
            Some(f) if count(f) >= 3 || matches!(f, Definition | Step) && count(f) >= 2 => {
                match grouped.iter_mut().find(|(g, _)| *g == f) {
                    Some((_, members)) => members.push(keyword.unwrap_or(text)),
                    None => grouped.push((f, vec![keyword.unwrap_or(text)])),
                }
            }
            _ => singles.push(text.to_string()),
        }
    }
    grouped.sort_by_key(|(f, _)| order.iter().position(|o| o == f));
    let mut phrases: Vec<String> = Vec::new();
    let has = |f: Family| grouped.iter().any(|(g, _)| *g == f);
    if has(Definition) && has(Step) {
        phrases.push("a definition".to_string());
        phrases.push("a step".to_string());
    }
    for (family, members) in &grouped {
        let phrase = match family {
            Definition if has(Step) => continue,
            Step if has(Definition) => continue,
            Definition => "a definition (`workload`, `dataset`, `let`, ...)".to_string(),
            Step => "a step (`sweep`, `measure`, `precondition`, ...)".to_string(),
            Value => "a value (a number such as 32, 4KiB, 30s or 67%, a name, a list or a range)".to_string(),
            f => {
                let list: Vec<String> = members.iter().map(|m| format!("`{m}`")).collect();
                format!("{} ({})", f.noun(), list.join(", "))
            }
        };
        phrases.push(phrase);
    }
    phrases.extend(singles);
    phrases.extend(punctuation.iter().map(|p| format!("`{p}`")));
    if end_of_file {
        phrases.push("the end of the file".to_string());
    }
    match phrases.len() {
        0 => "something else".to_string(),
        1 => phrases.remove(0),
        n => format!("{} or {}", phrases[..n - 1].join(", "), phrases[n - 1]),
    }
}

/// The keywords the expected rules start with, for "did you mean".
fn keywords_of(positives: &[Rule]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for rule in positives {
        if *rule == Rule::file {
            out.extend(ITEM_STARTS);
            continue;
        }
        // Every backticked word of the rule's text: "`decimal` or `binary`".
        let text = describe_rule(*rule).text;
        for (i, part) in text.split('`').enumerate() {
            if i % 2 == 1 {
                let word =
                    part.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or("");
                if !word.is_empty() {
                    out.push(word);
                }
            }
        }
    }
    out
}

const ALL_KEYWORDS: [&str; 67] = [
    "methodology",
    "version",
    "describe",
    "non_destructive",
    "on_error",
    "conventions",
    "units",
    "queue_depth",
    "value",
    "use",
    "workload",
    "dataset",
    "let",
    "phase",
    "for",
    "in",
    "repeat",
    "aggregate",
    "rounds",
    "until",
    "steady",
    "target",
    "span",
    "workers",
    "devices",
    "io",
    "data",
    "limit_ram",
    "none",
    "erase",
    "fill",
    "passes",
    "precondition",
    "sweep",
    "measure",
    "qd",
    "read",
    "ramp",
    "record",
    "written",
    "series",
    "drop_caches",
    "idle",
    "copy",
    "probe",
    "pages",
    "random",
    "sequential",
    "block",
    "blocks",
    "align",
    "offset",
    "files",
    "size",
    "total",
    "seed",
    "step",
    "range",
    "repeats",
    "statistic",
    "round",
    "window",
    "excursion",
    "slope",
    "max_rounds",
    "metric",
    "track",
];

/// Whether `word` is reserved and cannot name anything.
pub fn is_reserved(word: &str) -> bool {
    ALL_KEYWORDS.contains(&word) || word == "zeros" || word == "compressible"
}

// ---------------------------------------------------------------- building

/// `text` without trailing whitespace and comments.
fn trim_trivia(mut text: &str) -> &str {
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
fn comment_start(line: &str) -> Option<usize> {
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

type BuildResult<T> = std::result::Result<T, Diagnostic>;

/// Builds AST nodes from pest pairs. Literal errors are collected in
/// `diags` so that one bad unit does not hide the next; an unexpected tree
/// shape is an internal error with the span where it was found.
struct Builder {
    /// Where the parsed text starts in the file.
    offset: usize,
    diags: Vec<Diagnostic>,
    /// How many blocks enclose the one being built.
    depth: usize,
}

/// How deep blocks may nest. Deeper methodologies are refused rather than
/// risk the stack of every stage that walks the tree.
pub const MAX_DEPTH: usize = 64;

/// The children of a pair with keyword tokens skipped.
struct Children<'i> {
    inner: Pairs<'i, Rule>,
    parent: Span,
    parent_rule: Rule,
}

impl<'i> Children<'i> {
    fn next(&mut self) -> Option<Pair<'i, Rule>> {
        self.inner.by_ref().find(|p| !is_keyword(p.as_rule()))
    }

    /// The next child, which the grammar guarantees.
    fn expect(&mut self, what: &str) -> BuildResult<Pair<'i, Rule>> {
        self.next()
            .ok_or_else(|| Diagnostic::internal(self.parent, format!("{:?} has no {what}", self.parent_rule)))
    }

    /// The next child if it is of `rule`.
    fn next_if(&mut self, rule: Rule) -> Option<Pair<'i, Rule>> {
        let mut peek = self.inner.clone();
        let next = peek.find(|p| !is_keyword(p.as_rule()))?;
        if next.as_rule() == rule { self.next() } else { None }
    }
}

impl Builder {
    /// The pair's span without trailing whitespace and comments, which pest
    /// includes when a rule ends in an optional part (`random` then `# x`).
    fn span(&self, pair: &Pair<'_, Rule>) -> Span {
        let s = pair.as_span();
        let end = s.start() + trim_trivia(s.as_str()).len();
        Span::new(self.offset + s.start(), self.offset + end)
    }

    fn children<'i>(&self, pair: &Pair<'i, Rule>) -> Children<'i> {
        Children { inner: pair.clone().into_inner(), parent: self.span(pair), parent_rule: pair.as_rule() }
    }

    fn unexpected(&self, pair: &Pair<'_, Rule>, context: &str) -> Diagnostic {
        Diagnostic::internal(self.span(pair), format!("unexpected {:?} in {context}", pair.as_rule()))
    }

    fn file(&mut self, pair: Pair<'_, Rule>) -> BuildResult<Methodology> {
        let span = self.span(&pair);
        let mut items = Vec::new();
        let mut children = self.children(&pair);
        while let Some(p) = children.next() {
            if p.as_rule() == Rule::EOI {
                break;
            }
            items.push(self.item(p)?);
        }
        Ok(Methodology { items, span })
    }

    fn item(&mut self, pair: Pair<'_, Rule>) -> BuildResult<Item> {
        let span = self.span(&pair);
        let mut c = self.children(&pair);
        let kind = match pair.as_rule() {
            Rule::header => {
                let name = self.string(c.expect("name")?);
                let version = self.string(c.expect("version")?);
                ItemKind::Header { name, version }
            }
            Rule::describe => ItemKind::Describe(self.string(c.expect("text")?)),
            Rule::non_destructive => ItemKind::NonDestructive,
            Rule::on_error => {
                let value = c.expect("action")?;
                let action = match value.as_str() {
                    "stop" => OnError::Stop,
                    "continue" => OnError::Continue,
                    _ => return Err(self.unexpected(&value, "on_error")),
                };
                ItemKind::OnError(Spanned::new(action, self.span(&value)))
            }
            Rule::conventions => {
                let mut conventions = Vec::new();
                while let Some(p) = c.next() {
                    let mut pc = self.children(&p);
                    let value = pc.expect("value")?;
                    let vspan = self.span(&value);
                    let text = value.as_str();
                    let conv = match (p.as_rule(), text) {
                        (Rule::conv_units, "decimal") => {
                            Convention::Units(Spanned::new(Units::Decimal, vspan))
                        }
                        (Rule::conv_units, "binary") => Convention::Units(Spanned::new(Units::Binary, vspan)),
                        (Rule::conv_queue_depth, "total") => {
                            Convention::QueueDepth(Spanned::new(QdCounting::Total, vspan))
                        }
                        (Rule::conv_queue_depth, "per_worker") => {
                            Convention::QueueDepth(Spanned::new(QdCounting::PerWorker, vspan))
                        }
                        (Rule::conv_value, "step_average") => {
                            Convention::Value(Spanned::new(ValueKind::StepAverage, vspan))
                        }
                        (Rule::conv_value, "steady_state_average") => {
                            Convention::Value(Spanned::new(ValueKind::SteadyStateAverage, vspan))
                        }
                        (Rule::conv_value, "peak") => Convention::Value(Spanned::new(ValueKind::Peak, vspan)),
                        _ => return Err(self.unexpected(&p, "conventions")),
                    };
                    conventions.push(conv);
                }
                ItemKind::Conventions(conventions)
            }
            Rule::use_decl => {
                let path = c.expect("module")?;
                ItemKind::Use(Spanned::new(path.as_str().to_string(), self.span(&path)))
            }
            Rule::workload_def => {
                let name = self.ident(c.expect("name")?);
                let body = self.workload_body(c.expect("body")?)?;
                ItemKind::Workload { name, body }
            }
            Rule::dataset_def => {
                let name = self.ident(c.expect("name")?);
                let mut settings = Vec::new();
                while let Some(p) = c.next() {
                    let key = match p.as_rule() {
                        Rule::d_files => DatasetKey::Files,
                        Rule::d_size => DatasetKey::Size,
                        Rule::d_total => DatasetKey::Total,
                        Rule::d_seed => DatasetKey::Seed,
                        _ => return Err(self.unexpected(&p, "dataset")),
                    };
                    settings.push(self.setting(p, key)?);
                }
                ItemKind::Dataset { name, settings }
            }
            Rule::let_def => {
                let name = self.ident(c.expect("name")?);
                let value = self.expr(c.expect("value")?)?;
                ItemKind::Let { name, value }
            }
            _ => ItemKind::Stmt(self.stmt(pair)?),
        };
        Ok(Item { kind, span })
    }

    /// A `key value` setting; the key token is the first inner pair.
    fn setting<K>(&mut self, pair: Pair<'_, Rule>, key: K) -> BuildResult<Setting<K>> {
        let span = self.span(&pair);
        let mut inner = pair.clone().into_inner();
        let key_pair = inner.next().ok_or_else(|| self.unexpected(&pair, "setting"))?;
        let key_span = self.span(&key_pair);
        let value = inner.next().ok_or_else(|| self.unexpected(&pair, "setting value"))?;
        Ok(Setting { key: Spanned::new(key, key_span), value: self.expr(value)?, span })
    }

    fn block(&mut self, pair: Pair<'_, Rule>) -> BuildResult<Block> {
        let span = self.span(&pair);
        if self.depth >= MAX_DEPTH {
            let open = Span::new(span.start, span.start + 1);
            return Err(Diagnostic::new(
                Code::TooDeep,
                open,
                format!("blocks nest more than {MAX_DEPTH} deep here"),
            )
            .with_hint(
                "flatten the methodology: a list of values in one `for` replaces loops inside loops",
            ));
        }
        self.depth += 1;
        let mut stmts = Vec::new();
        let mut c = self.children(&pair);
        let result = (|| {
            while let Some(p) = c.next() {
                stmts.push(self.stmt(p)?);
            }
            Ok(())
        })();
        self.depth -= 1;
        result.map(|()| Block { stmts, span })
    }

    fn stmt(&mut self, pair: Pair<'_, Rule>) -> BuildResult<Stmt> {
        let span = self.span(&pair);
        let mut c = self.children(&pair);
        let kind = match pair.as_rule() {
            Rule::phase => {
                let name = self.string(c.expect("name")?);
                StmtKind::Phase { name, body: self.block(c.expect("body")?)? }
            }
            Rule::for_loop => {
                let var = self.ident(c.expect("variable")?);
                let list = self.expr(c.expect("list")?)?;
                StmtKind::For { var, list, body: self.block(c.expect("body")?)? }
            }
            Rule::repeat_block => {
                let count = self.expr(c.expect("count")?)?;
                let aggregate = match c.next_if(Rule::aggregate) {
                    Some(a) => Some(self.aggregate(&a)?),
                    None => None,
                };
                StmtKind::Repeat { count, aggregate, body: self.block(c.expect("body")?)? }
            }
            Rule::rounds_block => {
                let body = self.block(c.expect("body")?)?;
                let rule = self.steady_body(c.expect("steady rule")?)?;
                StmtKind::Rounds { body, rule }
            }
            Rule::target_block => {
                let mut settings = Vec::new();
                while let Some(p) = c.next() {
                    settings.push(self.target_setting(p)?);
                }
                StmtKind::Target(settings)
            }
            Rule::limit_ram => match c.next() {
                Some(p) => StmtKind::LimitRam(Some(self.expr(p)?)),
                None => StmtKind::LimitRam(None),
            },
            Rule::erase => {
                let m = c.expect("method")?;
                let method = match m.as_str() {
                    "secure" => EraseMethod::Secure,
                    "discard" => EraseMethod::Discard,
                    _ => return Err(self.unexpected(&m, "erase")),
                };
                StmtKind::Erase(Spanned::new(method, self.span(&m)))
            }
            Rule::fill | Rule::precondition | Rule::sweep | Rule::measure => {
                let workload = self.workload_ref(c.expect("workload")?)?;
                let mut opts = Vec::new();
                while let Some(p) = c.next() {
                    opts.push(self.step_opt(p)?);
                }
                match pair.as_rule() {
                    Rule::fill => StmtKind::Fill { workload, opts },
                    Rule::precondition => StmtKind::Precondition { workload, opts },
                    Rule::sweep => StmtKind::Sweep { workload, opts },
                    _ => StmtKind::Measure { workload, opts },
                }
            }
            Rule::drop_caches => StmtKind::DropCaches,
            Rule::idle => StmtKind::Idle(self.expr(c.expect("duration")?)?),
            Rule::copy => StmtKind::Copy(self.ident(c.expect("dataset")?)),
            Rule::probe => {
                let mut settings = Vec::new();
                while let Some(p) = c.next() {
                    let pspan = self.span(&p);
                    let rule = p.as_rule();
                    let mut pc = self.children(&p);
                    let v = pc.expect("value")?;
                    let kind = match rule {
                        Rule::p_io => ProbeSettingKind::Io(self.expr(v)?),
                        Rule::p_step => ProbeSettingKind::Step(self.expr(v)?),
                        Rule::p_range => ProbeSettingKind::Range(self.expr(v)?),
                        Rule::p_repeats => ProbeSettingKind::Repeats(self.expr(v)?),
                        Rule::p_statistic => ProbeSettingKind::Statistic(self.aggregate(&v)?),
                        _ => return Err(self.unexpected(&p, "probe")),
                    };
                    settings.push(ProbeSetting { kind, span: pspan });
                }
                StmtKind::Probe(settings)
            }
            _ => return Err(self.unexpected(&pair, "a block")),
        };
        Ok(Stmt { kind, span })
    }

    fn target_setting(&mut self, pair: Pair<'_, Rule>) -> BuildResult<TargetSetting> {
        let span = self.span(&pair);
        let mut c = self.children(&pair);
        let v = c.expect("value")?;
        let kind = match pair.as_rule() {
            Rule::t_span => TargetSettingKind::Span(self.expr(v)?),
            Rule::t_workers => TargetSettingKind::Workers(self.expr(v)?),
            Rule::t_devices => TargetSettingKind::Devices(self.expr(v)?),
            Rule::t_io => {
                let mode = match v.as_str() {
                    "direct" => IoMode::Direct,
                    "buffered" => IoMode::Buffered,
                    _ => return Err(self.unexpected(&v, "io")),
                };
                TargetSettingKind::Io(Spanned::new(mode, self.span(&v)))
            }
            Rule::t_data => TargetSettingKind::Data(match v.as_rule() {
                Rule::data_random => DataPatternExpr::Random,
                Rule::data_zeros => DataPatternExpr::Zeros,
                Rule::data_compressible => {
                    let mut vc = self.children(&v);
                    DataPatternExpr::Compressible(self.expr(vc.expect("share")?)?)
                }
                _ => return Err(self.unexpected(&v, "data")),
            }),
            _ => return Err(self.unexpected(&pair, "target")),
        };
        Ok(TargetSetting { kind, span })
    }

    fn step_opt(&mut self, pair: Pair<'_, Rule>) -> BuildResult<StepOpt> {
        let span = self.span(&pair);
        let mut c = self.children(&pair);
        let kind = match pair.as_rule() {
            Rule::opt_steady => match c.next() {
                Some(body) => StepOptKind::Steady(Some(self.steady_body(body)?)),
                None => StepOptKind::Steady(None),
            },
            rule => {
                let v = self.expr(c.expect("value")?)?;
                match rule {
                    Rule::opt_passes => StepOptKind::Passes(v),
                    Rule::opt_qd => StepOptKind::Qd(v),
                    Rule::opt_read => StepOptKind::Read(v),
                    Rule::opt_ramp => StepOptKind::Ramp(v),
                    Rule::opt_record => StepOptKind::Record(v),
                    Rule::opt_series => StepOptKind::Series(v),
                    Rule::opt_for => StepOptKind::For(v),
                    Rule::opt_written => StepOptKind::Written(v),
                    _ => return Err(self.unexpected(&pair, "step options")),
                }
            }
        };
        Ok(StepOpt { kind, span })
    }

    fn steady_body(&mut self, pair: Pair<'_, Rule>) -> BuildResult<Vec<SteadySetting>> {
        let mut settings = Vec::new();
        let mut c = self.children(&pair);
        while let Some(p) = c.next() {
            let span = self.span(&p);
            let rule = p.as_rule();
            let mut pc = self.children(&p);
            let v = pc.expect("value")?;
            let kind = match rule {
                Rule::s_round => SteadySettingKind::Round(self.expr(v)?),
                Rule::s_window => SteadySettingKind::Window(self.expr(v)?),
                Rule::s_excursion => SteadySettingKind::Excursion(self.expr(v)?),
                Rule::s_slope => SteadySettingKind::Slope(self.expr(v)?),
                Rule::s_max_rounds => SteadySettingKind::MaxRounds(self.expr(v)?),
                Rule::s_metric => {
                    let metric = match v.as_str() {
                        "iops" => Metric::Iops,
                        "bandwidth" => Metric::Bandwidth,
                        "latency" => Metric::Latency,
                        _ => return Err(self.unexpected(&v, "metric")),
                    };
                    SteadySettingKind::Metric(Spanned::new(metric, self.span(&v)))
                }
                Rule::s_track => SteadySettingKind::Track(self.workload_ref(v)?),
                _ => return Err(self.unexpected(&p, "steady rule")),
            };
            settings.push(SteadySetting { kind, span });
        }
        Ok(settings)
    }

    fn aggregate(&mut self, pair: &Pair<'_, Rule>) -> BuildResult<Spanned<Aggregate>> {
        let a = match pair.as_str() {
            "mean" => Aggregate::Mean,
            "median" => Aggregate::Median,
            "max" => Aggregate::Max,
            "min" => Aggregate::Min,
            _ => return Err(self.unexpected(pair, "aggregate")),
        };
        Ok(Spanned::new(a, self.span(pair)))
    }

    fn workload_ref(&mut self, pair: Pair<'_, Rule>) -> BuildResult<WorkloadRef> {
        match pair.as_rule() {
            Rule::ident => Ok(WorkloadRef::Named(self.ident(pair))),
            Rule::workload_body => Ok(WorkloadRef::Inline(self.workload_body(pair)?)),
            _ => Err(self.unexpected(&pair, "a workload")),
        }
    }

    fn workload_body(&mut self, pair: Pair<'_, Rule>) -> BuildResult<WorkloadBody> {
        let span = self.span(&pair);
        let mut props = Vec::new();
        let mut c = self.children(&pair);
        while let Some(p) = c.next() {
            let pspan = self.span(&p);
            let rule = p.as_rule();
            let mut pc = self.children(&p);
            let kind = match rule {
                Rule::w_random => match pc.next() {
                    Some(v) => WorkloadPropKind::Random(Some(self.expr(v)?)),
                    None => WorkloadPropKind::Random(None),
                },
                Rule::w_sequential => WorkloadPropKind::Sequential,
                Rule::w_block => WorkloadPropKind::Block(self.expr(pc.expect("size")?)?),
                Rule::w_blocks => {
                    let mut entries = Vec::new();
                    while let Some(e) = pc.next() {
                        let espan = self.span(&e);
                        let mut ec = self.children(&e);
                        let size = self.expr(ec.expect("size")?)?;
                        let share = self.expr(ec.expect("share")?)?;
                        entries.push(SplitEntry { size, share, span: espan });
                    }
                    WorkloadPropKind::Blocks(entries)
                }
                Rule::w_read => WorkloadPropKind::Read(self.expr(pc.expect("share")?)?),
                Rule::w_align => WorkloadPropKind::Align(self.expr(pc.expect("size")?)?),
                Rule::w_offset => WorkloadPropKind::Offset(self.expr(pc.expect("size")?)?),
                _ => return Err(self.unexpected(&p, "a workload")),
            };
            props.push(WorkloadProp { kind, span: pspan });
        }
        Ok(WorkloadBody { props, span })
    }

    fn expr(&mut self, pair: Pair<'_, Rule>) -> BuildResult<Expr> {
        let span = self.span(&pair);
        let kind = match pair.as_rule() {
            Rule::quantity => self.quantity(&pair),
            Rule::ident => ExprKind::Ident(pair.as_str().to_string()),
            Rule::list => {
                let mut items = Vec::new();
                let mut c = self.children(&pair);
                while let Some(p) = c.next() {
                    items.push(self.expr(p)?);
                }
                ExprKind::List(items)
            }
            Rule::range => {
                let mut c = self.children(&pair);
                let from = Box::new(self.expr(c.expect("start")?)?);
                let to = Box::new(self.expr(c.expect("end")?)?);
                let step = match c.next() {
                    None => None,
                    Some(p) if p.as_rule() == Rule::ratio => {
                        let text = &p.as_str()[1..];
                        let factor = match text.parse::<u64>() {
                            Ok(f) => f,
                            Err(_) => {
                                self.diags.push(Diagnostic::new(
                                    Code::TooLarge,
                                    self.span(&p),
                                    format!("the factor `{}` is too large", p.as_str()),
                                ));
                                2
                            }
                        };
                        Some(RangeStep::Mul(Spanned::new(factor, self.span(&p))))
                    }
                    Some(p) => Some(RangeStep::Add(Box::new(self.expr(p)?))),
                };
                ExprKind::Range { from, to, step }
            }
            _ => return Err(self.unexpected(&pair, "a value")),
        };
        Ok(Expr { kind, span })
    }

    /// Reads a quantity literal; a bad one is reported and stands as 0.
    fn quantity(&mut self, pair: &Pair<'_, Rule>) -> ExprKind {
        let text = pair.as_str();
        let span = self.span(pair);
        match parse_quantity(text) {
            Ok(Quantity::Int(n)) => ExprKind::Int(n),
            Ok(Quantity::Size(b)) => ExprKind::Size(b),
            Ok(Quantity::Duration(d)) => ExprKind::Duration(d),
            Ok(Quantity::Percent(p)) => ExprKind::Percent(p),
            Err(e) => {
                let d = match e {
                    QuantityError::UnknownUnit { unit, hint } => {
                        Diagnostic::new(Code::UnknownUnit, span, format!("unknown unit `{unit}` in `{text}`"))
                            .with_hint(hint)
                    }
                    QuantityError::NotWhole { smallest } => {
                        let message = if smallest == "whole number" {
                            format!("`{text}` must be a whole number here")
                        } else {
                            format!("`{text}` is not a whole number of {smallest}s")
                        };
                        Diagnostic::new(Code::NotWhole, span, message).with_hint(match smallest {
                            "byte" => "a size must come to whole bytes: try a smaller unit, such as 1536B for 1.5KiB",
                            "millisecond" => "durations are exact to the millisecond",
                            _ => "counts and queue depths are whole numbers; add a unit for sizes or durations",
                        })
                    }
                    QuantityError::TooPrecise => Diagnostic::new(
                        Code::TooPrecise,
                        span,
                        format!("`{text}` has more than two decimals"),
                    )
                    .with_hint("percentages are exact to a hundredth: 33.33%"),
                    QuantityError::TooLarge => {
                        Diagnostic::new(Code::TooLarge, span, format!("`{text}` is too large"))
                    }
                };
                self.diags.push(d);
                ExprKind::Int(0)
            }
        }
    }

    fn ident(&mut self, pair: Pair<'_, Rule>) -> Spanned<String> {
        Spanned::new(pair.as_str().to_string(), self.span(&pair))
    }

    /// A string's text with escapes resolved.
    fn string(&mut self, pair: Pair<'_, Rule>) -> Spanned<String> {
        let span = self.span(&pair);
        let raw = pair.as_str();
        let inner = raw.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(raw);
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.char_indices();
        while let Some((i, c)) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some((_, '"')) => out.push('"'),
                Some((_, '\\')) => out.push('\\'),
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((j, other)) => {
                    let at = span.start + 1 + i;
                    self.diags.push(
                        Diagnostic::new(
                            Code::BadEscape,
                            Span::new(at, span.start + 1 + j + other.len_utf8()),
                            format!("unknown escape `\\{other}` in a string"),
                        )
                        .with_hint("strings know \\\" \\\\ \\n and \\t; write \\\\ for a backslash"),
                    );
                }
                None => {}
            }
        }
        Spanned::new(out, span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(src: &str) -> Methodology {
        match parse(src) {
            Ok(m) => m,
            Err(d) => panic!("{}", d.render("t.method", src, false)),
        }
    }

    fn err(src: &str) -> Diagnostics {
        match parse(src) {
            Ok(m) => panic!("parsed: {m:?}"),
            Err(d) => d,
        }
    }

    #[test]
    fn parses_the_design_sketch() {
        let src = r#"
methodology "enterprise-sweep" version "1.0"
describe "6h precondition at QD256, then QD1..QD256, 30s ramp, 300s record"
conventions { units decimal; queue_depth total; value step_average }
target { span 100%; workers 16; devices 4; io direct; data random }
use std.mixes
workload rnd4k_write   { random; block 4KiB; read 0% }
workload my_mix        { random 80%; read 80%; blocks { 512B: 10%, 4KiB: 60%, 64KiB: 30% } }
let qds = [1, 2, 4, 8, 16, 32, 64, 128, 256]
phase "4KiB random" {
  erase secure
  fill rnd4k_write passes 2
  precondition rnd4k_write qd 256 for 6h
  sweep rnd4k_write qd qds ramp 30s record 300s
}
phase "server mixes" {
  for mix in [database, email_server] {
    precondition mix qd 256 until steady { round 60s window 5 excursion 20% slope 10% max_rounds 25 }
    sweep mix qd qds ramp 30s record 300s
  }
}
dataset small_files { files 1000; size 16KiB..2MiB; seed 7 }
repeat 5 aggregate median { copy small_files }
drop_caches; idle 30s; limit_ram 16GiB
probe pages { io 512B step 256B range 4MiB repeats 20 statistic median }
"#;
        let m = ok(src);
        assert_eq!(m.items.len(), 16);
        match &m.items[0].kind {
            ItemKind::Header { name, version } => {
                assert_eq!(name.node, "enterprise-sweep");
                assert_eq!(version.node, "1.0");
                assert_eq!(&src[name.span.start..name.span.end], "\"enterprise-sweep\"");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn for_option_does_not_swallow_a_following_loop() {
        let m = ok("measure w qd 1 for 5s\nfor x in [1] { idle 1s }");
        assert_eq!(m.items.len(), 2);
    }

    #[test]
    fn ranges_and_lists() {
        let m = ok("let a = 1..256 step x2\nlet b = 0%..100% step 10%\nlet c = []");
        match &m.items[0].kind {
            ItemKind::Let {
                value: Expr { kind: ExprKind::Range { step: Some(RangeStep::Mul(f)), .. }, .. },
                ..
            } => {
                assert_eq!(f.node, 2)
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn typo_gets_a_suggestion_and_no_rule_names() {
        let d = err("methodology \"x\" version \"1\"\nsweeep w qd 1 record 1s\n");
        let text = d.render("t.method", "", false);
        assert_eq!(d.0[0].code, Code::Syntax);
        assert_eq!(d.0[0].hint.as_deref(), Some("did you mean `sweep`?"), "{text}");
        assert!(!d.0[0].message.contains("_def"), "{}", d.0[0].message);
    }

    #[test]
    fn several_errors_at_once() {
        let src = "methodology \"x\" version \"1\"\nidle 30 s\nworkload w { block 4k; read 0% }\nsweeep w\n";
        let d = err(src);
        let codes: Vec<_> = d.iter().map(|d| d.code).collect();
        assert!(codes.contains(&Code::UnknownUnit), "{codes:?}");
        assert!(codes.iter().filter(|c| **c == Code::Syntax).count() >= 2, "{codes:?}\n{d}");
    }

    #[test]
    fn on_error_takes_stop_or_continue() {
        let m = ok("methodology \"x\" version \"1\"\non_error continue\n");
        assert!(matches!(&m.items[1].kind, ItemKind::OnError(a) if a.node == OnError::Continue));
        let m = ok("on_error stop");
        assert!(matches!(&m.items[0].kind, ItemKind::OnError(a) if a.node == OnError::Stop));
        let d = err("on_error retry\n");
        assert_eq!(d.0[0].code, Code::Syntax, "{d}");
        assert!(d.to_string().contains("`stop` or `continue`"), "{d}");
    }

    #[test]
    fn keyword_as_name() {
        let d = err("workload fill { random }");
        assert_eq!(d.0[0].code, Code::ReservedWord, "{d}");
    }

    #[test]
    fn unterminated_string() {
        let d = err("methodology \"x\nversion \"1\"\n");
        assert_eq!(d.0[0].code, Code::UnterminatedString, "{d}");
    }

    #[test]
    fn every_rule_has_words_without_rule_names() {
        // describe_rule is exhaustive; check that no phrase leaks a rule name.
        for text in [
            expected_words(&[Rule::quantity, Rule::ident, Rule::list, Rule::range], &[]),
            expected_words(&[Rule::opt_qd, Rule::opt_ramp, Rule::opt_record, Rule::EOI], &[]),
        ] {
            assert!(!text.contains("opt_") && !text.contains("quantity"), "{text}");
        }
    }
}
