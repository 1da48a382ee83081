//! What `methodic diff` shows: the changes between two plans
//! (`methodic_compiler::diff`) and how many steps the new plan has go in;
//! out comes [`Changes`]: the changes grouped by what they do to
//! comparability, and the one-line summary. The exporters
//! (`crate::export`) write it as a table or JSON.

use methodic_compiler::diff::PlanDiff;
use schemars::JsonSchema;
use serde::Serialize;

/// What `methodic diff` prints: the plans' changes, and how many steps the
/// new plan has (for the summary). As JSON, the changes alone.
#[derive(Serialize, JsonSchema)]
#[serde(transparent)]
pub struct Changes {
    pub(crate) diff: PlanDiff,
    #[serde(skip)]
    pub(crate) new_steps: usize,
}

impl Changes {
    /// The changes from an old plan to a new one of `new_steps` steps.
    pub fn new(diff: PlanDiff, new_steps: usize) -> Changes {
        Changes { diff, new_steps }
    }
}

#[cfg(test)]
mod tests {
    use methodic_compiler::Options;
    use methodic_compiler::diff::diff;

    use super::*;
    use crate::export::{Exports, Format};

    fn changes(old: &str, new: &str) -> Changes {
        let compile = |span: &str| {
            let src = format!(
                "methodology \"d\" version \"1\"\ntarget {{ span {span} }}\n\
                 workload r {{ random; block 4KiB; read 100% }}\nmeasure r qd 4 for 2s\n"
            );
            methodic_compiler::compile(&src, &Options::default()).unwrap().plan
        };
        let (old, new) = (compile(old), compile(new));
        Changes::new(diff(&old, &new), new.steps.len())
    }

    #[test]
    fn changes_come_grouped_with_the_summary_last() {
        let c = changes("1GiB", "2GiB");
        let table = c.export(Format::Table).unwrap();
        assert!(table.starts_with("breaks comparability (1):\n"), "{table}");
        assert!(table.contains("│ change"), "{table}");
        assert!(table.ends_with(&format!("\n\n{}\n", c.diff.summary(1))), "{table}");
        let json: serde_json::Value = serde_json::from_str(&c.export(Format::Json).unwrap()).unwrap();
        assert_eq!(json["changes"].as_array().unwrap().len(), 1, "{json}");
        let same = changes("1GiB", "1GiB").export(Format::Table).unwrap();
        assert_eq!(same, format!("{}\n", changes("1GiB", "1GiB").diff.summary(1)));
    }
}
