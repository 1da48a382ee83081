//! The language's keywords, listed once: each with its grammar rule
//! (`k_...` in methodology.pest), its word, what it does at the start of a
//! line (for error recovery) and the families it belongs to (for saying a
//! long list of expected words in a few). Reserved words ([`is_reserved`]),
//! the keyword tokens the builder skips ([`is_keyword`]), a keyword rule's
//! words in a message ([`keyword_rule!`], [`words_of`]), the words that start
//! an item ([`item_starts`]) or continue one ([`continues_an_item`]) and a
//! word's families ([`families_of`]) all derive from [`KEYWORDS`].

use super::parser::Rule;

/// One keyword of the language.
pub(super) struct Keyword {
    /// Its grammar rule: `k_` and the word.
    pub(super) rule: Rule,
    pub(super) word: &'static str,
    /// The word as messages write it, in backticks.
    pub(super) quoted: &'static str,
    pub(super) at_line_start: AtLineStart,
    /// The families it belongs to, in expected words: `read` is a step
    /// option and a workload property.
    pub(super) families: &'static [Family],
}

/// What a keyword at the start of a line, outside any block, tells error
/// recovery, which cuts the source into top-level items
/// (`parse::top_level_chunks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AtLineStart {
    /// It starts a top-level item (`workload`, `sweep`); offered for a
    /// misspelt word where a definition or a step was expected.
    Item,
    /// It may continue the item of the line before (`qd`, `record`): a
    /// step's options may run over several lines.
    Continues,
    /// Neither: it starts a new chunk, as an unknown word does.
    Other,
}

/// The groups expected words fall into, so that a long list of
/// alternatives reads short: "a workload property (`block`, `read`)".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Family {
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
    /// `a workload property`.
    pub(super) fn noun(self) -> &'static str {
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

/// Makes [`KEYWORDS`] from its rows, and `keyword_rule!()`, the pattern
/// that matches every keyword rule, so that a `match` over [`Rule`] can
/// stay exhaustive without listing the keywords again.
macro_rules! keywords {
    ($($rule:ident $word:literal $at:ident [$($family:ident),*],)*) => {
        /// Every keyword, in the order "did you mean" prefers them on a tie.
        pub(super) const KEYWORDS: &[Keyword] = &[$(
            Keyword {
                rule: Rule::$rule,
                word: $word,
                quoted: concat!("`", $word, "`"),
                at_line_start: AtLineStart::$at,
                families: &[$(Family::$family),*],
            },
        )*];

        /// A pattern matching every keyword rule of [`KEYWORDS`].
        macro_rules! keyword_rule {
            () => { $(Rule::$rule)|* };
        }
        pub(super) use keyword_rule;
    };
}

keywords! {
    // rule            word               at a line's start   families
    k_methodology      "methodology"      Item                [Definition],
    k_version          "version"          Continues           [],
    k_describe         "describe"         Item                [Definition],
    k_non_destructive  "non_destructive"  Item                [Definition],
    k_on_error         "on_error"         Item                [Definition],
    k_conventions      "conventions"      Item                [Definition],
    k_units            "units"            Other               [Convention],
    k_queue_depth      "queue_depth"      Other               [Convention],
    k_value            "value"            Other               [Convention],
    k_use              "use"              Item                [Definition],
    k_workload         "workload"         Item                [Definition],
    k_dataset          "dataset"          Item                [Definition],
    k_let              "let"              Item                [Definition],
    k_phase            "phase"            Item                [Step],
    k_for              "for"              Item                [Step, StepOption],
    k_in               "in"               Continues           [],
    k_repeat           "repeat"           Item                [Step],
    k_aggregate        "aggregate"        Continues           [],
    k_rounds           "rounds"           Item                [Step],
    k_until            "until"            Continues           [StepOption],
    k_steady           "steady"           Continues           [],
    k_target           "target"           Item                [Step],
    k_span             "span"             Other               [TargetSetting],
    k_workers          "workers"          Other               [StepOption, TargetSetting],
    k_devices          "devices"          Other               [TargetSetting],
    k_io               "io"               Other               [TargetSetting, ProbeSetting],
    k_data             "data"             Other               [TargetSetting],
    k_write_cache      "write_cache"      Other               [TargetSetting],
    k_limit_ram        "limit_ram"        Item                [Step],
    k_none             "none"             Other               [],
    k_erase            "erase"            Item                [Step],
    k_fill             "fill"             Item                [Step],
    k_passes           "passes"           Continues           [StepOption],
    k_precondition     "precondition"     Item                [Step],
    k_sweep            "sweep"            Item                [Step],
    k_measure          "measure"          Item                [Step],
    k_qd               "qd"               Continues           [StepOption],
    k_read             "read"             Continues           [StepOption, WorkloadProperty],
    k_ramp             "ramp"             Continues           [StepOption],
    k_record           "record"           Continues           [StepOption],
    k_written          "written"          Continues           [],
    k_transferred      "transferred"      Continues           [],
    k_series           "series"           Continues           [StepOption],
    k_drop_caches      "drop_caches"      Item                [Step],
    k_idle             "idle"             Item                [Step],
    k_copy             "copy"             Item                [Step],
    k_probe            "probe"            Item                [Step],
    k_pages            "pages"            Other               [],
    k_random           "random"           Other               [WorkloadProperty],
    k_sequential       "sequential"       Other               [WorkloadProperty],
    k_block            "block"            Other               [WorkloadProperty],
    k_blocks           "blocks"           Other               [WorkloadProperty],
    k_write_block      "write_block"      Other               [WorkloadProperty],
    k_write_blocks     "write_blocks"     Other               [WorkloadProperty],
    k_align            "align"            Other               [WorkloadProperty],
    k_offset           "offset"           Other               [WorkloadProperty],
    k_files            "files"            Other               [DatasetSetting],
    k_size             "size"             Other               [DatasetSetting],
    k_total            "total"            Other               [DatasetSetting],
    k_seed             "seed"             Other               [DatasetSetting],
    k_step             "step"             Other               [ProbeSetting],
    k_range            "range"            Other               [ProbeSetting],
    k_repeats          "repeats"          Other               [ProbeSetting],
    k_statistic        "statistic"        Other               [ProbeSetting],
    k_round            "round"            Other               [SteadySetting],
    k_window           "window"           Other               [SteadySetting],
    k_excursion        "excursion"        Other               [SteadySetting],
    k_slope            "slope"            Other               [SteadySetting],
    k_max_rounds       "max_rounds"       Other               [SteadySetting],
    k_metric           "metric"           Other               [SteadySetting],
    k_track            "track"            Other               [SteadySetting],
    k_zeros            "zeros"            Other               [],
    k_compressible     "compressible"     Other               [],
    k_rate             "rate"             Other               [StepOption],
    // `together` and `qos` (below) start steps, but have never been
    // offered for a misspelt item; a line starting with either starts a
    // chunk all the same.
    k_together         "together"         Other               [Step],
    k_job              "job"              Other               [],
    k_device           "device"           Other               [],
    k_of               "of"               Other               [],
    k_as               "as"               Other               [StepOption],
    k_qos              "qos"              Other               [Step],
    k_under            "under"            Other               [],
    k_precision        "precision"        Other               [],
    k_by               "by"               Other               [],
    k_think            "think"            Other               [StepOption],
    k_every            "every"            Other               [],
    k_bursts           "bursts"           Other               [StepOption],
    k_trim             "trim"             Other               [WorkloadProperty],
    k_verify           "verify"           Other               [StepOption],
    k_at               "at"               Other               [StepOption],
    k_local            "local"            Continues           [StepOption],
}

/// Whether `word` is reserved and cannot name anything.
pub fn is_reserved(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.word == word)
}

/// Whether the rule is a keyword token, which carries no value.
pub(super) fn is_keyword(rule: Rule) -> bool {
    matches!(rule, keyword_rule!())
}

/// A keyword rule's word as messages write it: `` `sweep` ``.
pub(super) fn words_of(rule: Rule) -> Option<&'static str> {
    KEYWORDS.iter().find(|k| k.rule == rule).map(|k| k.quoted)
}

/// The words that start a top-level item, in [`KEYWORDS`]' order.
pub(super) fn item_starts() -> impl Iterator<Item = &'static str> {
    KEYWORDS.iter().filter(|k| k.at_line_start == AtLineStart::Item).map(|k| k.word)
}

/// Whether `word` at the start of a line may continue the item before.
pub(super) fn continues_an_item(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.word == word && k.at_line_start == AtLineStart::Continues)
}

/// The families `word` belongs to; none for a word that is no keyword.
pub(super) fn families_of(word: &str) -> &'static [Family] {
    KEYWORDS.iter().find(|k| k.word == word).map_or(&[], |k| k.families)
}

#[cfg(test)]
mod tests {
    use pest::Parser as _;

    use super::super::parser::MethodologyParser;
    use super::*;

    #[test]
    fn each_keyword_is_its_rule_and_reads_as_a_keyword() {
        for k in KEYWORDS {
            assert_eq!(format!("{:?}", k.rule), format!("k_{}", k.word));
            assert!(MethodologyParser::parse(Rule::keyword, k.word).is_ok(), "{}", k.word);
            assert!(is_keyword(k.rule), "{}", k.word);
        }
        let rules = Rule::all_rules().iter().filter(|r| format!("{r:?}").starts_with("k_")).count();
        assert_eq!(rules, KEYWORDS.len(), "a k_ rule of the grammar is not in KEYWORDS");
    }
}
