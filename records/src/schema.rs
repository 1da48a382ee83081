//! The JSON Schemas of what methodic writes as JSON: the types that write
//! each document (a plan, `manifest.json`, a step's record, `results.json`,
//! and every command's `--format json`) go in; out come their schemas,
//! JSON Schema draft 2020-12, generated from the types and their serde
//! attributes for what is written (not what is read back: no aliases of
//! older spellings), each with its `$id` under `docs/schema/`, a title, and
//! the type's doc comment as its description. The test in
//! `tests/e2e/results/schema.rs` keeps `docs/schema/` equal to these, and
//! validates the documents of a real rehearsal against them.

use methodic_compiler::diff::PlanDiff;
use methodic_compiler::plan::{Plan, ValueKind};
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::Value;

use crate::ceiling::Ceilings;
use crate::export::json::PlanStepLine;
use crate::manifest::Manifest;
use crate::record::{RunReport, StepResult};
use crate::view::compare::Comparison;
use crate::view::crosscheck::Crosscheck;
use crate::view::report::Report;

/// Where the schemas are published: each one's `$id` is this and its file
/// name.
pub const BASE_ID: &str = "https://github.com/methodic/methodic/raw/main/docs/schema/";

/// One document methodic writes, and its schema.
pub struct Document {
    /// The schema's file in `docs/schema/`: `manifest.schema.json`.
    pub file: &'static str,
    /// Which document it is, and where methodic writes it.
    pub title: &'static str,
    pub schema: Schema,
}

impl Document {
    /// The schema's `$id`: [`BASE_ID`] and the file name.
    pub fn id(&self) -> String {
        format!("{BASE_ID}{}", self.file)
    }

    /// The schema as its file holds it: pretty JSON, a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.schema)
            .unwrap_or_else(|e| format!("{{\"error\": \"the schema cannot be written: {e}\"}}"));
        text.push('\n');
        text
    }
}

/// Every document's schema, in the order `docs/RESULTS.md` lists them.
pub fn documents() -> Vec<Document> {
    vec![
        document::<Plan>("plan.schema.json", "methodic plan (methodic compile --format json)"),
        document::<Manifest>("manifest.schema.json", "methodic manifest.json"),
        document::<StepResult>("step-result.schema.json", "methodic step record (a line of steps.jsonl)"),
        document::<RunReport>(
            "results.schema.json",
            "methodic results.json (and methodic run --format json)",
        ),
        document::<Report>("report.schema.json", "methodic report --format json"),
        document::<Comparison>("compare.schema.json", "methodic compare --format json"),
        document::<PlanStepLine>("plan-steps.schema.json", "methodic plan --format json (a line a step)"),
        document::<PlanDiff>("diff.schema.json", "methodic diff --format json"),
        document::<Ceilings>("ceilings.schema.json", "methodic calibrate --format json"),
        document::<Crosscheck>("crosscheck.schema.json", "methodic crosscheck --format json"),
    ]
}

/// The schema of `T` as written, with its `$id` and `title`.
fn document<T: JsonSchema>(file: &'static str, title: &'static str) -> Document {
    let generator = SchemaGenerator::new(SchemaSettings::draft2020_12().for_serialize());
    let mut schema = generator.into_root_schema_for::<T>();
    let mut doc = Document { file, title, schema: Schema::default() };
    schema.insert("$id".into(), doc.id().into());
    schema.insert("title".into(), title.into());
    let mut value = schema.to_value();
    unwrap_descriptions(&mut value);
    doc.schema = Schema::try_from(value).unwrap_or_default();
    doc
}

/// Doc comments made into descriptions for people who read JSON, not
/// Rust: lines joined within a paragraph, and intra-doc links (``[`Qd`]``,
/// ``[`words`](Self::words)``) left as their code text.
fn unwrap_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match (key.as_str(), v) {
                    ("description", Value::String(text)) => *text = plain(text),
                    // Values, not schemas: left as they are.
                    ("default" | "const" | "enum" | "examples", _) => {}
                    (_, v) => unwrap_descriptions(v),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// A doc comment's text with its paragraphs' lines joined and its links
/// unlinked.
fn plain(doc: &str) -> String {
    let joined =
        doc.split("\n\n").map(|p| p.lines().map(str::trim).collect::<Vec<_>>().join(" ")).collect::<Vec<_>>();
    let mut text = joined.join("\n\n");
    // [`x`] and [`x`](path): the code `x`.
    while let Some(start) = text.find("[`") {
        let Some(close) = text[start..].find("`]").map(|i| start + i) else { break };
        let code = text[start + 1..close + 1].to_string();
        let mut end = close + 2;
        if text[end..].starts_with('(')
            && let Some(paren) = text[end..].find(')')
        {
            end += paren + 1;
        }
        text.replace_range(start..end, &code);
    }
    text
}

/// The schema of a value kind as `compare` writes it: in words (`step
/// average`), not the plan's spelling.
pub(crate) fn value_kind_words(_: &mut SchemaGenerator) -> Schema {
    // A match, so that a new kind is a compile error here until listed.
    let words: Vec<&str> = [ValueKind::StepAverage, ValueKind::SteadyStateAverage, ValueKind::Peak]
        .into_iter()
        .map(|k| match k {
            ValueKind::StepAverage | ValueKind::SteadyStateAverage | ValueKind::Peak => k.words(),
        })
        .collect();
    json_schema!({ "type": "string", "enum": words })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_comments_read_as_prose() {
        assert_eq!(
            plain("Workers declared; a step may use fewer (see\n[`Qd::workers`]).\n\nSecond [`x`](Self::x)."),
            "Workers declared; a step may use fewer (see `Qd::workers`).\n\nSecond `x`."
        );
    }

    #[test]
    fn every_document_has_its_id_title_and_the_draft() {
        let docs = documents();
        assert_eq!(docs.len(), 10);
        for d in &docs {
            let v = d.schema.as_value();
            assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema", "{}", d.file);
            assert_eq!(v["$id"], d.id());
            assert!(d.file.ends_with(".schema.json"), "{}", d.file);
            assert!(
                v["description"].as_str().is_some_and(|s| !s.is_empty()),
                "{} has no description",
                d.file
            );
        }
    }
}
