//! An fio job file in; a `.method` text out, formatted as `methodic fmt`
//! formats it, in the job file's order: a phase with one measurement per
//! job alone, and a phase with a `together` step per group of jobs fio
//! starts together (no `stonewall`). Checks that every option says
//! something methodic can express the way fio means it, and that the jobs
//! of a group can run as one step; otherwise the file is refused, every
//! problem named with its line, section and option.
//!
//! The stages: `parse_job_file` (text to `[section]`s of options),
//! `sections_to_jobs` (`[global]` options inherited by the jobs after
//! them), `job_to_step` (a job's options to a workload, target settings,
//! a measurement and its rate), `steps_to_phases` (jobs alone and groups,
//! files to devices), `phases_to_method` (the methodology text), then
//! `methodic_grammar::format`, and a compile as a last check.

use std::collections::HashSet;

use crate::error::{ImportError, ImportErrorKind, Problem};
use crate::group::steps_to_phases;
use crate::job_file::{parse_job_file, sections_to_jobs};
use crate::translate::job_to_step;
use crate::writer::phases_to_method;

/// A methodology made from a job file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The methodology, formatted as `methodic fmt` formats it.
    pub text: String,
    /// fio jobs imported: a phase each, or a `together` step's job.
    pub jobs: usize,
    /// Options left out, each with a comment in `text` saying why.
    pub dropped: usize,
}

/// Job file text to a methodology: `file` names the job file in the
/// methodology's header comment and in errors, `name` is the
/// methodology's name. Every problem is returned, not only the first.
pub fn fio_to_method(text: &str, file: &str, name: &str) -> Result<Imported, Vec<ImportError>> {
    fio_to_method_with(text, file, name, &[])
}

/// [`fio_to_method`] with values for the file's `${NAME}` variables,
/// which fio takes from its environment (`methodic import fio --var
/// NAME=VALUE`). The methodology's header says which were given.
pub fn fio_to_method_with(
    text: &str,
    file: &str,
    name: &str,
    vars: &[(String, String)],
) -> Result<Imported, Vec<ImportError>> {
    let original = text;
    let expanded = expand_vars(text, vars);
    let text = expanded.as_str();
    let (sections, mut errors) = parse_job_file(text);
    let jobs = sections_to_jobs(&sections);
    if jobs.is_empty() {
        errors.push(
            Problem::new(ImportErrorKind::NoJobs, 0, "the file has no job section, only [global] or nothing")
                .hint("a job is a section such as [randread] with its options below it"),
        );
    }
    let mut steps = Vec::new();
    for job in &jobs {
        let (step, problems) = job_to_step(job);
        errors.extend(problems);
        steps.push(step);
    }
    let (phases, devices, problems) = steps_to_phases(&jobs, steps);
    errors.extend(problems);
    let mut seen = HashSet::new();
    errors.retain(|p| seen.insert(p.clone()));
    errors.sort_by_key(|p| p.line);
    if !errors.is_empty() {
        return Err(errors.into_iter().map(|p| p.into_error(file)).collect());
    }
    let mut source = phases_to_method(&phases, &devices, file, name, &sections);
    let used: Vec<String> =
        vars.iter().filter(|(n, _)| text_uses(original, n)).map(|(n, v)| format!("{n}={v}")).collect();
    if !used.is_empty() {
        // After the header's first line, which names the job file.
        let at = source.find('\n').map_or(0, |i| i + 1);
        source.insert_str(at, &format!("# fio variables given with --var: {}.\n", used.join(", ")));
    }
    let internal = |detail: String| vec![Problem::new(ImportErrorKind::Internal, 0, detail).into_error(file)];
    let text = methodic_grammar::format(&source)
        .map_err(|d| internal(format!("the methodology made does not parse: {d}")))?;
    if let Err(d) = methodic_compiler::compile(&text, &methodic_compiler::Options::default()) {
        return Err(internal(format!("the methodology made does not compile: {d}")));
    }
    let steps: Vec<_> = phases.iter().flat_map(|p| &p.steps).collect();
    let dropped = steps
        .iter()
        .flat_map(|s| &s.notes)
        .filter(|n| n.dropped)
        .map(|n| (n.line, &n.text))
        .collect::<HashSet<_>>()
        .len();
    Ok(Imported { text, jobs: steps.len(), dropped })
}

/// The job file with each `${NAME}` of `vars` replaced by its value, as
/// fio replaces it from its environment on every option line
/// (`fio_option_dup_subs()`, options.c:6007 at axboe/fio@f5344384). A
/// variable not given stays, for the value's check to refuse; section
/// headers and comments are left alone.
pub(crate) fn expand_vars(text: &str, vars: &[(String, String)]) -> String {
    if vars.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let head = line.trim_start();
        if head.starts_with('[') || head.starts_with(';') || head.starts_with('#') {
            out.push_str(line);
            continue;
        }
        let mut line = line.to_string();
        for (name, value) in vars {
            line = line.replace(&format!("${{{name}}}"), value);
        }
        out.push_str(&line);
    }
    out
}

/// Whether the job file names `${name}`.
pub fn text_uses(text: &str, name: &str) -> bool {
    text.contains(&format!("${{{name}}}"))
}
