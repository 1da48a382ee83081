//! Diagnostics: what every stage reports when a methodology is wrong. A
//! [`Diagnostic`] has a [`Code`] (`M0201`), a message a user understands, a
//! span, optional secondary labels, a hint and notes; `render` draws it
//! under the source line with ariadne.

use std::fmt;

use ariadne::{CharSet, Color, Config, IndexType, Label, Report, ReportKind, Source};

use crate::ast::Span;

/// What went wrong, as a stable code. The codes are documented for users in
/// docs/LANGUAGE.md ("Diagnostics"); each has a test in tests/errors/.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Code {
    /// M0001: a bug in methodic; the message says where.
    Internal,

    /// M0101: the text does not fit the grammar here.
    Syntax,
    /// M0102: a string's closing quote is missing.
    UnterminatedString,
    /// M0103: a unit methodic does not know (`4k`, `5m`, `30sec`).
    UnknownUnit,
    /// M0104: a fraction where a whole number is needed (`1.5B`, `qd 1.5`).
    NotWhole,
    /// M0105: a number too large to hold.
    TooLarge,
    /// M0106: a percentage with more than two decimals.
    TooPrecise,
    /// M0107: a keyword used as a name (`workload fill { ... }`).
    ReservedWord,
    /// M0108: an escape other than `\"`, `\\`, `\n` or `\t` in a string.
    BadEscape,
    /// M0109: blocks nested deeper than methodic reads.
    TooDeep,

    /// M0201: a name that is not defined.
    UnknownName,
    /// M0202: a name defined twice.
    DuplicateName,
    /// M0203: a `use` of a module that does not exist, or of a file that
    /// cannot be read or does not compile.
    UnknownModule,
    /// M0204: no `methodology "name" version "x.y"` header.
    MissingHeader,
    /// M0205: a setting, property or header given twice.
    DuplicateSetting,
    /// M0206: a loop variable that hides another name.
    Shadowing,
    /// M0207: a `let` that refers to itself.
    CyclicLet,
    /// M0208: a header whose name or version cannot be used.
    BadHeader,
    /// M0209: a phase name that cannot make step ids.
    BadName,

    /// M0301: a duration was expected (`30s`, `5min`).
    ExpectedDuration,
    /// M0302: a size was expected (`4KiB`, `16GB`).
    ExpectedSize,
    /// M0303: a percentage was expected (`67%`).
    ExpectedPercent,
    /// M0304: a whole number was expected (a count or a queue depth).
    ExpectedCount,
    /// M0305: a workload was expected.
    ExpectedWorkload,
    /// M0306: a dataset was expected.
    ExpectedDataset,
    /// M0307: a list where one value is needed, or one value where a list is.
    ExpectedList,
    /// M0308: a list whose items are of different kinds.
    MixedList,
    /// M0309: an empty list where values are needed.
    EmptyList,
    /// M0310: a range that cannot be counted (`8..1`, `step 0`).
    BadRange,
    /// M0311: a span was expected (`100%`, `16GiB`).
    ExpectedSpan,

    /// M0401: block-size shares that do not add up to 100%.
    SplitSum,
    /// M0402: a share outside 0%..100%.
    ShareRange,
    /// M0403: a workload without a block size, read share or access pattern.
    MissingProperty,
    /// M0404: properties that contradict each other (`block` and `blocks`).
    ConflictingProperty,
    /// M0405: a size of zero where I/O needs bytes.
    ZeroSize,
    /// M0406: a size or offset that `io direct` cannot issue (not a multiple of 512 B).
    Unaligned,
    /// M0407: the same block size twice in one split.
    DuplicateBlock,
    /// M0408: an access distribution that cannot be drawn as written (`zipf 0`, `pareto 1.5`, bands that do not add up to 100%, a distribution of sequential I/O).
    BadAccess,

    /// M0501: a queue depth of 0 or above 65536.
    QdRange,
    /// M0502: a total queue depth that cannot be spread evenly over the workers.
    QdSplit,
    /// M0503: workers that cannot be spread over the devices.
    WorkerLayout,
    /// M0504: a span of zero or over 100%.
    SpanRange,
    /// M0505: a duration of zero where time must pass.
    ZeroDuration,
    /// M0506: a steady-state window that cannot fit in max_rounds.
    SteadyWindow,
    /// M0507: a steady-state excursion or slope limit outside 0%..100%.
    SteadyThreshold,
    /// M0508: a write in a methodology marked `non_destructive`.
    Destructive,
    /// M0509: a fill whose workload reads.
    FillReads,
    /// M0510: a statement where it cannot go (a phase in a phase, a repeat in a repeat).
    Misplaced,
    /// M0511: a count of zero (`repeat 0`, `passes 0`, `workers 0`).
    ZeroCount,
    /// M0512: a dataset that cannot be generated as written.
    BadDataset,
    /// M0513: a page probe that cannot run as written.
    BadProbe,
    /// M0514: a `track` that does not match exactly one measurement of its rounds.
    BadTrack,
    /// M0515: a step without an option it needs (`sweep` without `record`).
    MissingOption,
    /// M0516: a RAM limit too small to run the system on.
    RamLimit,
    /// M0517: options that contradict each other (`for` and `until steady`).
    ConflictingOption,
    /// M0518: `local` on a step that runs on every host of a run on many
    /// hosts (fill, precondition, sweep, measure, rounds, together, qos,
    /// idle): only the steps fio cannot run (erase, drop_caches, limit_ram,
    /// copy, probe) may run on the conductor instead.
    NotLocal,
    /// M0519: a `repeat N..M until cv P%` that cannot be judged as written:
    /// fewer than 2 runs before the first judgement, more than it may make,
    /// a limit outside 0%..100%, `until cv` on a plain count, or a range of
    /// runs without `until cv`.
    BadRepeatRule,

    /// M0601: a plan written by another plan schema version.
    PlanSchema,
    /// M0602: a plan whose content breaks a rule the compiler enforces.
    PlanInvalid,
    /// M0603: a plan file that is not a readable plan.
    PlanSyntax,

    /// M0701 (warning): a total queue depth below the worker count runs on fewer workers.
    FewerWorkers,
    /// M0702 (warning): a definition nothing uses.
    Unused,
    /// M0703 (warning): a methodology without a single step.
    NoSteps,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    /// The word a person or a program reads: `error` or `warning`, as
    /// rendered diagnostics and `check --message-format json` say it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl Code {
    /// Every code, in order; the docs table and the error tests walk it.
    pub const ALL: [Code; 63] = [
        Code::Internal,
        Code::Syntax,
        Code::UnterminatedString,
        Code::UnknownUnit,
        Code::NotWhole,
        Code::TooLarge,
        Code::TooPrecise,
        Code::ReservedWord,
        Code::BadEscape,
        Code::TooDeep,
        Code::UnknownName,
        Code::DuplicateName,
        Code::UnknownModule,
        Code::MissingHeader,
        Code::DuplicateSetting,
        Code::Shadowing,
        Code::CyclicLet,
        Code::BadHeader,
        Code::BadName,
        Code::ExpectedDuration,
        Code::ExpectedSize,
        Code::ExpectedPercent,
        Code::ExpectedCount,
        Code::ExpectedWorkload,
        Code::ExpectedDataset,
        Code::ExpectedList,
        Code::MixedList,
        Code::EmptyList,
        Code::BadRange,
        Code::ExpectedSpan,
        Code::SplitSum,
        Code::ShareRange,
        Code::MissingProperty,
        Code::ConflictingProperty,
        Code::ZeroSize,
        Code::Unaligned,
        Code::DuplicateBlock,
        Code::BadAccess,
        Code::QdRange,
        Code::QdSplit,
        Code::WorkerLayout,
        Code::SpanRange,
        Code::ZeroDuration,
        Code::SteadyWindow,
        Code::SteadyThreshold,
        Code::Destructive,
        Code::FillReads,
        Code::Misplaced,
        Code::ZeroCount,
        Code::BadDataset,
        Code::BadProbe,
        Code::BadTrack,
        Code::MissingOption,
        Code::RamLimit,
        Code::ConflictingOption,
        Code::NotLocal,
        Code::BadRepeatRule,
        Code::PlanSchema,
        Code::PlanInvalid,
        Code::PlanSyntax,
        Code::FewerWorkers,
        Code::Unused,
        Code::NoSteps,
    ];

    /// The code as users see it: `M0201`.
    pub fn as_str(self) -> &'static str {
        use Code::*;
        match self {
            Internal => "M0001",
            Syntax => "M0101",
            UnterminatedString => "M0102",
            UnknownUnit => "M0103",
            NotWhole => "M0104",
            TooLarge => "M0105",
            TooPrecise => "M0106",
            ReservedWord => "M0107",
            BadEscape => "M0108",
            TooDeep => "M0109",
            UnknownName => "M0201",
            DuplicateName => "M0202",
            UnknownModule => "M0203",
            MissingHeader => "M0204",
            DuplicateSetting => "M0205",
            Shadowing => "M0206",
            CyclicLet => "M0207",
            BadHeader => "M0208",
            BadName => "M0209",
            ExpectedDuration => "M0301",
            ExpectedSize => "M0302",
            ExpectedPercent => "M0303",
            ExpectedCount => "M0304",
            ExpectedWorkload => "M0305",
            ExpectedDataset => "M0306",
            ExpectedList => "M0307",
            MixedList => "M0308",
            EmptyList => "M0309",
            BadRange => "M0310",
            ExpectedSpan => "M0311",
            SplitSum => "M0401",
            ShareRange => "M0402",
            MissingProperty => "M0403",
            ConflictingProperty => "M0404",
            ZeroSize => "M0405",
            Unaligned => "M0406",
            DuplicateBlock => "M0407",
            BadAccess => "M0408",
            QdRange => "M0501",
            QdSplit => "M0502",
            WorkerLayout => "M0503",
            SpanRange => "M0504",
            ZeroDuration => "M0505",
            SteadyWindow => "M0506",
            SteadyThreshold => "M0507",
            Destructive => "M0508",
            FillReads => "M0509",
            Misplaced => "M0510",
            ZeroCount => "M0511",
            BadDataset => "M0512",
            BadProbe => "M0513",
            BadTrack => "M0514",
            MissingOption => "M0515",
            RamLimit => "M0516",
            ConflictingOption => "M0517",
            NotLocal => "M0518",
            BadRepeatRule => "M0519",
            PlanSchema => "M0601",
            PlanInvalid => "M0602",
            PlanSyntax => "M0603",
            FewerWorkers => "M0701",
            Unused => "M0702",
            NoSteps => "M0703",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            Code::FewerWorkers | Code::Unused | Code::NoSteps => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem found in a methodology or a plan.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub code: Code,
    pub message: String,
    /// Where the problem is; `None` for problems of a whole file (a plan).
    pub span: Option<Span>,
    /// What the main span is, said under it; defaults to nothing.
    pub label: Option<String>,
    /// Other places that explain the problem ("first defined here").
    pub labels: Vec<(Span, String)>,
    /// What to do about it.
    pub hint: Option<String>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            span: Some(span),
            label: None,
            labels: Vec::new(),
            hint: None,
            notes: Vec::new(),
        }
    }

    /// A problem with no place in a source file (a plan file, a CLI value).
    pub fn unplaced(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            span: None,
            label: None,
            labels: Vec::new(),
            hint: None,
            notes: Vec::new(),
        }
    }

    /// A bug in methodic, found at `span`.
    pub fn internal(span: Span, what: impl fmt::Display) -> Diagnostic {
        Diagnostic::new(Code::Internal, span, format!("internal error: {what}"))
            .with_hint("this is a bug in methodic; please report it with the methodology file")
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.labels.push((span, label.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }

    /// The diagnostic drawn under its source lines. `color` adds terminal
    /// colours; tests and files use `false`.
    pub fn render(&self, file_name: &str, src: &str, color: bool) -> String {
        let kind = match self.severity() {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
        let Some(span) = self.span else {
            let mut out = format!("{}[{}]: {}\n  in {file_name}\n", kind_word(kind), self.code, self.message);
            if let Some(hint) = &self.hint {
                out.push_str(&format!("  help: {hint}\n"));
            }
            for note in &self.notes {
                out.push_str(&format!("  note: {note}\n"));
            }
            return out;
        };
        let clamp = |s: Span| {
            let start = s.start.min(src.len());
            start..s.end.clamp(start, src.len())
        };
        let config = Config::default()
            .with_color(color)
            .with_index_type(IndexType::Byte)
            .with_char_set(if color { CharSet::Unicode } else { CharSet::Ascii });
        let main_color = if self.is_error() { Color::Red } else { Color::Yellow };
        // ariadne draws no underline for a label without text.
        let main = Label::new((file_name, clamp(span)))
            .with_color(main_color)
            // ariadne starts a new section (with a misleading location)
            // when a label is earlier in the file than the one before it, so
            // labels are ordered by position.
            .with_order(order(span))
            .with_message(self.label.as_deref().unwrap_or(&self.message));
        let mut report = Report::build(kind, (file_name, clamp(span)))
            .with_config(config)
            .with_code(self.code)
            .with_message(&self.message)
            .with_label(main);
        for (s, text) in &self.labels {
            report = report.with_label(
                Label::new((file_name, clamp(*s)))
                    .with_message(text)
                    .with_color(Color::Blue)
                    .with_order(order(*s)),
            );
        }
        if let Some(hint) = &self.hint {
            report = report.with_help(hint);
        }
        for note in &self.notes {
            report = report.with_note(note);
        }
        let mut out = Vec::new();
        match report.finish().write((file_name, Source::from(src)), &mut out) {
            // ariadne pads some lines with spaces; they only get in the way
            // of diffs and golden files.
            Ok(()) => {
                let mut text: String = String::from_utf8_lossy(&out)
                    .lines()
                    .map(|l| l.trim_end())
                    .collect::<Vec<_>>()
                    .join("\n");
                text.push('\n');
                text
            }
            Err(e) => format!("{}[{}]: {} ({e})\n", kind_word(kind), self.code, self.message),
        }
    }
}

fn order(span: Span) -> i32 {
    i32::try_from(span.start).unwrap_or(i32::MAX)
}

fn kind_word(kind: ReportKind) -> &'static str {
    match kind {
        ReportKind::Warning => "warning",
        _ => "error",
    }
}

impl fmt::Display for Diagnostic {
    /// `M0201: unknown workload `rnd4k` (at bytes 120..125)`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)?;
        if let Some(span) = self.span {
            write!(f, " (at bytes {}..{})", span.start, span.end)?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

/// All the diagnostics of one file, errors and warnings, in source order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }

    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| d.is_error())
    }

    pub fn extend(&mut self, other: impl IntoIterator<Item = Diagnostic>) {
        self.0.extend(other);
    }

    /// Sorts by position and drops exact repeats (a loop body reports the
    /// same problem once, not once per iteration).
    pub fn sorted(mut self) -> Diagnostics {
        self.0.sort_by(|a, b| {
            let key = |d: &Diagnostic| (d.span.map(|s| (s.start, s.end)), d.code);
            key(a).cmp(&key(b))
        });
        self.0.dedup_by(|a, b| a.code == b.code && a.span == b.span && a.message == b.message);
        self
    }

    /// Every diagnostic rendered, followed by a one-line count.
    pub fn render(&self, file_name: &str, src: &str, color: bool) -> String {
        let mut out = String::new();
        for d in &self.0 {
            out.push_str(&d.render(file_name, src, color));
        }
        out
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// The known word closest to `word`, if it is close enough to be a typo.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(word, c);
        let limit = match c.len() {
            0..=3 => 1,
            4..=7 => 2,
            _ => 3,
        };
        if d <= limit && d < word.len().max(1) && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Optimal string alignment distance: insertions, deletions, substitutions
/// and swaps of neighbours each count one.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_ordered() {
        let mut seen = std::collections::BTreeSet::new();
        for c in Code::ALL {
            assert!(seen.insert(c.as_str()), "{c:?} repeats {}", c.as_str());
        }
        let strs: Vec<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
        let mut sorted = strs.clone();
        sorted.sort();
        assert_eq!(strs, sorted);
    }

    #[test]
    fn suggestions_find_typos_only() {
        let words = ["sweep", "measure", "precondition", "fill"];
        assert_eq!(did_you_mean("sweeep", words), Some("sweep"));
        assert_eq!(did_you_mean("precondtion", words), Some("precondition"));
        assert_eq!(did_you_mean("mesure", words), Some("measure"));
        assert_eq!(did_you_mean("banana", words), None);
    }

    #[test]
    fn render_shows_code_message_and_hint() {
        let src = "idle 30\n";
        let d = Diagnostic::new(Code::ExpectedDuration, Span::new(5, 7), "expected a duration")
            .with_hint("add a unit: 30s");
        let text = d.render("x.method", src, false);
        assert!(text.contains("[M0301]"), "{text}");
        assert!(text.contains("expected a duration"), "{text}");
        assert!(text.contains("add a unit: 30s"), "{text}");
        assert!(text.contains("idle 30"), "{text}");
    }
}
