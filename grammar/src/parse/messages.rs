//! Error wording: what went wrong goes in (a failed pest parse, a bad
//! literal, a reserved word), a [`Diagnostic`] in the user's words comes
//! out, with a hint. Every grammar rule has words here (`describe_rule`),
//! so no rule name reaches a user.

use pest::Parser as _;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;

use super::keywords::{Family, families_of, is_reserved, item_starts, keyword_rule, words_of};
use super::parser::{MAX_DEPTH, MethodologyParser, Rule};
use super::text::comment_start;
use crate::ast::Span;
use crate::diagnostic::{Code, Diagnostic, did_you_mean};
use crate::units::QuantityError;

/// How a rule reads to a user, and which family it belongs to so that a
/// long list of alternatives can be said in a few words.
struct Words {
    text: &'static str,
    family: Family,
}

/// Every grammar rule in words. Exhaustive on purpose: a new rule does not
/// compile until it has words. A keyword rule's words are its word, from
/// the one list of keywords (`keywords::KEYWORDS`).
#[expect(clippy::too_many_lines, reason = "exhaustive on purpose: one line of words for every grammar rule")]
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
        Rule::w_write_block => w("`write_block`", WorkloadProperty),
        Rule::w_write_blocks => w("`write_blocks`", WorkloadProperty),
        Rule::split_entry => w("a block-size share such as `4KiB: 60%`", Other),
        Rule::w_read => w("`read`", WorkloadProperty),
        Rule::w_align => w("`align`", WorkloadProperty),
        Rule::w_offset => w("`offset`", WorkloadProperty),
        Rule::w_trim => w("`trim`", WorkloadProperty),
        Rule::a_zipf => w("`zipf THETA`", Other),
        Rule::a_pareto => w("`pareto H`", Other),
        Rule::a_normal => w("`normal SIGMA% around CENTRE%`", Other),
        Rule::a_bands => w("hot bands such as `bands 50% in 5%, 50% in 95%`", Other),
        Rule::band => w("a band such as `50% in 5%`", Other),
        Rule::decimal => w("a number such as 1.2 or 0.9", Value),
        Rule::access_zipf
        | Rule::access_pareto
        | Rule::access_normal
        | Rule::access_bands
        | Rule::access
        | Rule::access_word => w("`zipf`, `pareto`, `normal` or `bands`", Other),
        Rule::access_around => w("`around`", Other),
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
        Rule::repeat_until => w("`until cv`", Other),
        Rule::until_cv => w("`cv`", Other),
        Rule::rounds_block => w("`rounds`", Step),
        Rule::target_block => w("`target`", Step),
        Rule::t_span => w("`span`", TargetSetting),
        Rule::t_workers => w("`workers`", TargetSetting),
        Rule::t_devices => w("`devices`", TargetSetting),
        Rule::t_io => w("`io`", TargetSetting),
        Rule::t_data => w("`data`", TargetSetting),
        Rule::t_write_cache => w("`write_cache`", TargetSetting),
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
        Rule::opt_transferred => w("`until transferred`", StepOption),
        Rule::opt_rate => w("`rate`", StepOption),
        Rule::opt_as => w("`as`", StepOption),
        Rule::qos => w("`qos`", Step),
        Rule::q_limit => w("a latency limit such as `p99.99 under 1ms`", Other),
        Rule::percentile => w("a percentile such as `p99.99`", Other),
        Rule::fine_duration => w("a time such as `100us`, `500us` or `1ms`", Other),
        Rule::opt_think => w("`think`", StepOption),
        Rule::opt_bursts => w("`bursts`", StepOption),
        Rule::bursts_times => w("`times`", Other),
        Rule::think_drained => w("`drained`", Other),
        Rule::opt_verify => w("`verify`", StepOption),
        Rule::opt_local => w("`local`", StepOption),
        // Left out of syntax errors' lists (`pest_error`); named for completeness.
        Rule::stray_local => w("`local`", StepOption),
        Rule::opt_at => w("`at`", StepOption),
        Rule::point_pick => w("`max`, `mid` or `min`", Other),
        Rule::q_probe => w("`probe`", Other),
        Rule::q_ramp => w("`ramp`", Other),
        Rule::q_precision => w("`precision`", Other),
        Rule::q_arrivals => w("`uniform` or `poisson`", Other),
        Rule::q_by => w("`by`", Other),
        Rule::qos_axis => w("`qd` or `rate`", Other),
        Rule::rate_share => w("a share of a named measurement such as `25% of peak_read`", Other),
        Rule::opt_workers => w("`workers`", StepOption),
        Rule::opt_device => w("`device`", StepOption),
        Rule::rate_unit => w("`iops` or a bandwidth such as `200MB/s`", Other),
        Rule::arrivals => w("`uniform` or `poisson`", Other),
        Rule::together => w("`together`", Step),
        Rule::job => w("`job NAME WORKLOAD`", Other),
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
        Rule::erase_method => {
            w("an erase method (`discard`, `purge`, `sanitize`, `format`, `ata_secure`)", Other)
        }
        Rule::erase_option => w("`block`, `crypto`, `overwrite`, `secure` or `enhanced`", Other),
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
        | Rule::together_opt
        | Rule::job_opt
        | Rule::qos_setting
        | Rule::steady_setting
        | Rule::track_opt
        | Rule::probe_setting
        | Rule::expr
        | Rule::list_item
        | Rule::range_end => w("a value", Other),
        Rule::write_cache_mode => w("`off`, `on` or `as_is`", Other),
        keyword_rule!() => w(words_of(rule).unwrap_or("a keyword"), Other),
    }
}

/// Parses `text` again with pest's detailed error tracking (slower, so
/// only done once a parse has failed) and turns the failure into a
/// diagnostic in the user's words. `offset` is where `text` starts in the
/// file.
pub(super) fn syntax_error(text: &str, offset: usize) -> Diagnostic {
    pest::set_error_detail(true);
    let result = MethodologyParser::parse(Rule::file, text);
    pest::set_error_detail(false);
    match result {
        Ok(_) => Diagnostic::internal(Span::new(offset, offset), "a failed parse succeeded on retry"),
        Err(e) => pest_error(text, offset, &e),
    }
}

/// Pest's error in the user's words: an unclosed string, a keyword where
/// a name belongs, or what was expected and what was found, with a hint
/// about braces or the word found.
fn pest_error(text: &str, offset: usize, e: &pest::error::Error<Rule>) -> Diagnostic {
    let pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let positives: Vec<Rule> = match &e.variant {
        // `local` where the compiler refuses it is no suggestion.
        ErrorVariant::ParsingError { positives, .. } => {
            positives.iter().copied().filter(|r| *r != Rule::stray_local).collect()
        }
        ErrorVariant::CustomError { message } => return custom_error(message, offset + pos),
    };
    let Expected { pos, positives, mut punctuation } = furthest_expected(e, pos, positives);
    let found = Found::at(text, pos);
    let span = Span::new(offset + pos, offset + pos + found.len);
    if let Some(d) = unterminated_string(text, offset, &found, &punctuation) {
        return d;
    }
    // A keyword where a name belongs.
    if !found.word.is_empty() && positives.contains(&Rule::ident) && is_reserved(found.word) {
        let word = found.word;
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
    let d = Diagnostic::new(Code::Syntax, span, format!("expected {expected}, found {}", found.words()))
        .with_label(format!("expected {expected}"));
    let d = brace_hint(d, text, offset, &found, &punctuation);
    word_hint(d, text, &found, &positives)
}

/// An error pest made itself rather than from the grammar, at `at`.
fn custom_error(message: &str, at: usize) -> Diagnostic {
    // pest's own guard against running out of stack.
    if message.contains("stack limit") {
        return Diagnostic::new(Code::TooDeep, Span::new(at, at + 1), "this nests too deeply to be read")
            .with_hint(format!("blocks may nest {MAX_DEPTH} deep; flatten the methodology"));
    }
    Diagnostic::new(Code::Syntax, Span::new(at, at), message.to_string())
}

/// What the parser expected, and where.
struct Expected {
    pos: usize,
    positives: Vec<Rule>,
    /// Punctuation it wanted there (`,`, `}`, ...).
    punctuation: Vec<String>,
}

/// What the parser expected at the furthest point it reached, with the
/// punctuation it wanted there, which pest's rule list leaves out (`,` or
/// `]` in an unclosed list). Past `pos`, only punctuation is known.
fn furthest_expected(e: &pest::error::Error<Rule>, pos: usize, positives: Vec<Rule>) -> Expected {
    let mut out = Expected { pos, positives, punctuation: Vec::new() };
    if let Some(attempts) = e.parse_attempts() {
        let wanted: Vec<String> = attempts
            .expected_tokens()
            .into_iter()
            .map(|t| t.to_string())
            .filter(|t| PUNCTUATION.contains(&t.as_str()))
            .collect();
        if attempts.max_position > out.pos && !wanted.is_empty() {
            out.pos = attempts.max_position;
            out.positives.clear();
        }
        if attempts.max_position == out.pos {
            out.punctuation = wanted;
        }
    }
    out
}

/// The text where a parse failed: the word there, or the one character.
struct Found<'t> {
    /// Where in the text.
    pos: usize,
    /// The text from there on.
    rest: &'t str,
    /// The word starting there; empty at punctuation or the end.
    word: &'t str,
    /// Bytes of the word, or of the one character when there is none.
    len: usize,
}

impl<'t> Found<'t> {
    fn at(text: &'t str, pos: usize) -> Found<'t> {
        let rest = &text[pos.min(text.len())..];
        let word_len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let word = &rest[..word_len];
        let len = if word_len > 0 { word_len } else { rest.chars().next().map_or(0, char::len_utf8) };
        Found { pos, rest, word, len }
    }

    /// `` `sweeep` ``, `` `}` `` or `the end of the file`.
    fn words(&self) -> String {
        if self.rest.is_empty() {
            "the end of the file".to_string()
        } else if !self.word.is_empty() {
            format!("`{}`", self.word)
        } else {
            format!("`{}`", self.rest.chars().next().unwrap_or(' '))
        }
    }
}

/// An opening quote with no closing quote on its line: the parser wanted
/// the closing quote at the end of the line, or failed at the opening one.
fn unterminated_string(
    text: &str,
    offset: usize,
    found: &Found<'_>,
    punctuation: &[String],
) -> Option<Diagnostic> {
    let pos = found.pos;
    let line_start = text[..pos.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let open = if punctuation.iter().any(|p| p == "\"") {
        text[line_start..pos.min(text.len())].rfind('"').map(|i| line_start + i)
    } else if found.rest.starts_with('"') && !found.rest[1..].split('\n').next().unwrap_or("").contains('"') {
        Some(pos)
    } else {
        None
    }?;
    let line_end = text[open..].find('\n').map_or(text.len(), |i| open + i);
    Some(
        Diagnostic::new(
            Code::UnterminatedString,
            Span::new(offset + open, offset + line_end),
            "this string has no closing quote",
        )
        .with_label("the string starts here")
        .with_hint("strings end on the line they start; add a closing `\"`"),
    )
}

/// A hint when a `{` is not closed at the end of the file (pointing at the
/// one the layout suggests), or when a `}` closes no block.
fn brace_hint(
    d: Diagnostic,
    text: &str,
    offset: usize,
    found: &Found<'_>,
    punctuation: &[String],
) -> Diagnostic {
    let wants_close = punctuation.iter().any(|p| p == "}");
    if found.rest.is_empty() && wants_close {
        let d = d.with_hint("a `{` is not closed: add the `}` that ends its block");
        match unclosed_by_indentation(text) {
            Some(open) => d.with_secondary(
                Span::new(offset + open, offset + open + 1),
                "this `{` seems to be the one not closed: no `}` lines up under it",
            ),
            None => d,
        }
    } else if found.rest.starts_with('}') && !wants_close {
        d.with_hint("this `}` closes no block: remove it, or the `}` before it")
    } else {
        d
    }
}

/// A hint about the word found: `steady` after `until` in a measurement, a
/// name that should be quoted, a misspelt keyword, or a unit parted from
/// its number by a space.
fn word_hint(d: Diagnostic, text: &str, found: &Found<'_>, positives: &[Rule]) -> Diagnostic {
    let (word, pos) = (found.word, found.pos);
    if word == "steady" && positives.contains(&Rule::k_written) {
        return d.with_hint(
            "a measurement stops after a time or an amount written or transferred; to run until steady, use \
             `precondition W qd N until steady`, or `rounds { ... } until steady`",
        );
    }
    if word.is_empty() {
        return d;
    }
    if positives.contains(&Rule::string) {
        return d.with_hint(format!("names of phases and methodologies are quoted: \"{word}\""));
    }
    let keywords = keywords_of(positives);
    if let Some(s) = did_you_mean(word, keywords.iter().copied()) {
        return d.with_hint(format!("did you mean `{s}`?"));
    }
    let before = text[..pos.min(text.len())].trim_end_matches([' ', '\t']);
    if before.len() < pos
        && before.ends_with(|c: char| c.is_ascii_digit())
        && crate::units::parse_quantity(&format!("1{word}")).is_ok()
    {
        let number =
            &before[before.rfind(|c: char| !(c.is_ascii_digit() || c == '.')).map_or(0, |i| i + 1)..];
        return d
            .with_hint(format!("write the unit right after the number, without a space: `{number}{word}`"));
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

/// "a workload property (`block`, `read`) or `}`": the expected
/// alternatives in a few words.
pub(super) fn expected_words(positives: &[Rule], punctuation: &[String]) -> String {
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
            (Some(k), _) if !families_of(k).is_empty() => families_of(k),
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
            out.extend(item_starts());
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

/// Blocks nested more than [`MAX_DEPTH`] deep, at the brace that opens
/// the one too many.
pub(super) fn too_deep(open: Span) -> Diagnostic {
    Diagnostic::new(Code::TooDeep, open, format!("blocks nest more than {MAX_DEPTH} deep here"))
        .with_hint("flatten the methodology: a list of values in one `for` replaces loops inside loops")
}

/// A range's factor (`*N`) too large for a number; `text` as written.
pub(super) fn factor_too_large(span: Span, text: &str) -> Diagnostic {
    Diagnostic::new(Code::TooLarge, span, format!("the factor `{text}` is too large"))
}

/// A quantity literal (`text`, as written) that does not read.
pub(super) fn bad_quantity(span: Span, text: &str, e: QuantityError) -> Diagnostic {
    match e {
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
        QuantityError::TooPrecise => {
            Diagnostic::new(Code::TooPrecise, span, format!("`{text}` has more than two decimals"))
                .with_hint("percentages are exact to a hundredth: 33.33%")
        }
        QuantityError::TooLarge => Diagnostic::new(Code::TooLarge, span, format!("`{text}` is too large")),
    }
}

/// `erase` words that name no erase method (`option` is the second word,
/// if any); `why` is the hint.
pub(super) fn bad_erase(span: Span, method: &str, option: Option<&str>, why: &'static str) -> Diagnostic {
    let message = match option {
        Some(o) => format!("`erase {method} {o}` is not an erase method"),
        None => format!("`erase {method}` needs a word after it"),
    };
    Diagnostic::new(Code::Syntax, span, message).with_hint(why)
}

/// An escape a string does not know (`\x`), at the escape.
pub(super) fn bad_escape(span: Span, other: char) -> Diagnostic {
    Diagnostic::new(Code::BadEscape, span, format!("unknown escape `\\{other}` in a string"))
        .with_hint("strings know \\\" \\\\ \\n and \\t; write \\\\ for a backslash")
}

/// The grammar promised a child that is not there: a bug, not the user's.
pub(super) fn missing_child(parent: Span, parent_rule: Rule, what: &str) -> Diagnostic {
    Diagnostic::internal(parent, format!("{:?} has no {what}", parent_rule))
}

/// A pair the builder did not expect where it stands: a bug, not the user's.
pub(super) fn unexpected(span: Span, pair: &Pair<'_, Rule>, context: &str) -> Diagnostic {
    Diagnostic::internal(span, format!("unexpected {:?} in {context}", pair.as_rule()))
}
