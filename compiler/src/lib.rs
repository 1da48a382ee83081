#![doc = include_str!("../ARCHITECTURE.md")]

pub mod diff;
pub mod estimate;
mod hash;
mod lower;
pub mod plan;
mod resolve;
mod rules;
mod stdlib;
mod used;
mod validate;

use methodic_grammar::ast::Methodology;
pub use methodic_grammar::{Code, Diagnostic, Diagnostics, Severity};

pub use crate::hash::source_hash;
use crate::plan::{Bytes, Header, PLAN_SCHEMA, Plan};
pub use crate::stdlib::MIXES_SOURCE;
pub use crate::used::file_uses;
pub use crate::validate::validate;

/// The compiler's name and version, as plans record it.
pub const COMPILER: &str = concat!("methodic-compiler ", env!("CARGO_PKG_VERSION"));

/// Choices that are not in the methodology, and the files it uses.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The target's capacity, to give the bytes written in the estimate.
    pub capacity: Option<Bytes>,
    /// The text of each file a `use "FILE"` names ([`file_uses`]), by the
    /// path as written, or why it could not be read. The compiler reads
    /// no files itself.
    pub used: std::collections::BTreeMap<String, Result<String, String>>,
}

/// A plan and the warnings met while making it.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub plan: Plan,
    pub warnings: Diagnostics,
}

/// Source to plan: `parse`, then `ast_to_plan`.
pub fn compile(src: &str, options: &Options) -> Result<Compiled, Diagnostics> {
    methodic_grammar::parse(src).and_then(|ast| ast_to_plan(&ast, src, options))
}

/// AST to plan: resolve the definitions, lower the statements to steps,
/// add up the estimate. `src` is the source the AST came from, for its hash.
pub fn ast_to_plan(ast: &Methodology, src: &str, options: &Options) -> Result<Compiled, Diagnostics> {
    let mut diags = Vec::new();
    let used =
        used::load(ast, &options.used, |a, t| ast_to_plan(a, t, &Options::default()).map(|_| ()), &mut diags);
    let defs = resolve::resolve(ast, &used, &mut diags);
    let lowered = lower::lower(ast, &defs, &mut diags);
    let mut diags = Diagnostics(diags).sorted();
    if let Some(capacity) = options.capacity {
        diags.extend(fits_capacity(&lowered.steps, capacity));
    }
    if diags.has_errors() {
        return Err(diags);
    }
    let estimate = estimate::plan(&lowered.steps, options.capacity);
    let plan = Plan {
        schema: PLAN_SCHEMA,
        compiler: COMPILER.to_string(),
        methodology: Header {
            name: defs.name,
            version: defs.version,
            description: defs.description,
            source_hash: source_hash(src),
            non_destructive: defs.non_destructive.is_some(),
            on_error: defs.on_error.map(|o| o.node).unwrap_or_default(),
            uses: defs.uses,
            used_files: used.iter().map(used::Loaded::record).collect(),
        },
        conventions: defs.conventions,
        target: lowered.target,
        write_cache: lowered.write_cache,
        steps: lowered.steps,
        estimate,
    };
    Ok(Compiled { plan, warnings: diags })
}

/// Steps whose span, given in bytes, is larger than a target of
/// `capacity`: such a plan cannot run there.
pub fn fits_capacity(steps: &[plan::Step], capacity: Bytes) -> Diagnostics {
    // One diagnostic a span size, naming its first step and how many more.
    let mut too_large: Vec<(Bytes, &str, usize)> = Vec::new();
    for step in steps {
        if let Some(plan::Target { span: plan::Extent::Bytes(span), .. }) = step.target
            && span > capacity
        {
            match too_large.iter_mut().find(|(s, _, _)| *s == span) {
                Some((_, _, n)) => *n += 1,
                None => too_large.push((span, &step.id, 1)),
            }
        }
    }
    let mut out = Diagnostics::default();
    for (span, first, n) in too_large {
        let who = if n == 1 { format!("step `{first}`") } else { format!("{n} steps, from `{first}` on,") };
        out.push(
            Diagnostic::unplaced(
                Code::SpanRange,
                format!(
                    "{who} {} in a span of {span}, more than the capacity of {capacity}",
                    if n == 1 { "works" } else { "work" }
                ),
            )
            .with_hint("give the capacity of the target the plan will run on, or make the span smaller"),
        );
    }
    out
}

/// Every diagnostic of a methodology, errors and warnings, in source order.
pub fn check(src: &str) -> Diagnostics {
    check_with(src, &Options::default())
}

/// [`check`] with the files the methodology uses, and a capacity.
pub fn check_with(src: &str, options: &Options) -> Diagnostics {
    match compile(src, options) {
        Ok(c) => c.warnings,
        Err(d) => d,
    }
}

/// Reads a plan written as RON (or JSON, when it starts with `{`) and
/// validates it.
pub fn load_plan(text: &str) -> Result<Plan, Diagnostics> {
    let plan = if text.trim_start().starts_with('{') { Plan::from_json(text) } else { Plan::from_ron(text) };
    let plan = plan.map_err(|d| Diagnostics(vec![*d]))?;
    let problems = validate(&plan);
    if problems.has_errors() {
        return Err(problems);
    }
    Ok(plan)
}
