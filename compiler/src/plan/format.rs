//! A plan written out and read back: RON (the same bytes for the same
//! plan) or JSON, and the schema version checked before anything else.

use methodic_grammar::{Code, Diagnostic};
use serde::Deserialize;

use super::{PLAN_SCHEMA, PLAN_SCHEMA_OLDEST, Plan};

/// How a plan is written out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Ron,
    Json,
}

impl Plan {
    /// The plan as RON, the same bytes for the same plan.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new()
            .indentor("  ".to_string())
            .struct_names(false)
            .separate_tuple_members(false)
            .enumerate_arrays(false)
            .new_line("\n".to_string())
            // Steps, actions and estimates one field a line; workloads, queue
            // depths and target settings on one line each.
            .depth_limit(4);
        let mut out = ron::ser::to_string_pretty(self, config)
            .unwrap_or_else(|e| format!("// internal error: the plan cannot be written as RON: {e}\n"));
        out.push('\n');
        out
    }

    pub fn to_json(&self) -> String {
        let mut out = serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| format!("{{\"error\": \"the plan cannot be written as JSON: {e}\"}}"));
        out.push('\n');
        out
    }

    pub fn write(&self, format: Format) -> String {
        match format {
            Format::Ron => self.to_ron(),
            Format::Json => self.to_json(),
        }
    }

    /// Reads a plan written by [`Plan::to_ron`]. Checks the schema version
    /// first, so that a plan from another methodic says so plainly. Does
    /// not validate the content: use `crate::validate` for that. The
    /// diagnostic is boxed, as it is large and rarely made.
    pub fn from_ron(text: &str) -> Result<Plan, Box<Diagnostic>> {
        let options = ron::Options::default();
        match options.from_str::<Plan>(text) {
            Ok(plan) => check_schema(plan.schema).map(|()| plan),
            // A plan of another schema fails on its first difference; read
            // its schema alone to say so. Done only on failure, as it costs
            // a second parse.
            Err(e) => {
                if let Ok(s) = options.from_str::<SchemaOnly>(text) {
                    check_schema(s.schema)?;
                }
                Err(Box::new(ron_error(e)))
            }
        }
    }

    /// Reads a plan written by [`Plan::to_json`]; see [`Plan::from_ron`].
    pub fn from_json(text: &str) -> Result<Plan, Box<Diagnostic>> {
        let json_error = |e: serde_json::Error| {
            Diagnostic::unplaced(Code::PlanSyntax, format!("not a readable plan: {e}"))
        };
        match serde_json::from_str::<Plan>(text) {
            Ok(plan) => check_schema(plan.schema).map(|()| plan),
            Err(e) => {
                if let Ok(s) = serde_json::from_str::<SchemaOnly>(text) {
                    check_schema(s.schema)?;
                }
                Err(Box::new(json_error(e)))
            }
        }
    }
}

/// The one field read before the rest, so that a plan of another schema
/// version is named as such rather than failing on its first difference.
#[derive(Deserialize)]
struct SchemaOnly {
    #[serde(default)]
    schema: u32,
}

fn check_schema(schema: u32) -> Result<(), Box<Diagnostic>> {
    let wrong = match schema {
        PLAN_SCHEMA_OLDEST..=PLAN_SCHEMA => return Ok(()),
        0 => Diagnostic::unplaced(Code::PlanSyntax, "this file has no plan schema version").with_hint(format!(
            "a plan starts with `(schema: {PLAN_SCHEMA}, ...`; write one with `methodic compile`"
        )),
        other => Diagnostic::unplaced(
            Code::PlanSchema,
            format!(
                "this plan has schema version {other}; this methodic reads schemas {PLAN_SCHEMA_OLDEST} to {PLAN_SCHEMA}"
            ),
        )
        .with_hint("compile the methodology again with this methodic: `methodic compile FILE.method`"),
    };
    Err(Box::new(wrong))
}

fn ron_error(e: ron::error::SpannedError) -> Diagnostic {
    Diagnostic::unplaced(
        Code::PlanSyntax,
        format!("not a readable plan: {} (line {}, column {})", e.code, e.span.start.line, e.span.start.col),
    )
}
