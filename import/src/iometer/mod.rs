//! Iometer configuration files (`.icf`), both ways: `methodic import
//! iometer FILE.icf` ([`to_method`]) and `methodic export iometer`
//! ([`plan_to_icf`]).
//!
//! The format is what Iometer's own reader and writer make of it, read
//! from Iometer's sources (iometer-org/iometer @
//! 7243b4da0fc108ea1297f3c1cde0d5e295c597a1, the 1.1.0 release; the older
//! releases from BackupTheBerlios/iometer-svn @ cd9ca025). Each module
//! cites the functions it follows:
//!
//! ```text
//! .icf text ──lines──▶ Lines ──reader (setup, specs, managers)──▶ Icf
//!     ──workloads──▶ Workload a specification ──steps──▶ Run (target, steps)
//!     ──writer──▶ methodology text ──finish──▶ Imported
//! Plan ──export──▶ one .icf a group of steps (icf: Iometer 1.1.0's exact layout)
//! ```
//!
//! What each keyword becomes, what is refused and why is the table of
//! docs/iometer.md.

mod cycling;
mod export;
mod icf;
mod lines;
mod managers;
mod mixes;
mod model;
mod reader;
pub mod results;
mod setup;
mod specs;
mod steps;
mod workloads;
pub(crate) mod writer;

use std::collections::HashSet;

use methodic_compiler::plan::Bytes;

pub use export::{Exported, IcfFile, plan_to_icf};

use crate::finish::{count, finish};
use crate::problem::{Problem, into_errors};
use crate::{ImportError, ImportErrorKind, Imported, Input};
use methodic_grammar::ident;
use model::Icf;
use steps::{QD_VAR, Run, managers_to_run};
use workloads::{Workload, spec_to_workload};
use writer::{Method, method_text};

/// An .icf file to a methodology: its workloads and, when it has a manager
/// list, the steps Iometer would run; or every problem that keeps it from
/// being one.
pub fn to_method(input: &Input<'_>) -> Result<Imported, Vec<ImportError>> {
    let icf = reader::read(input.text).map_err(|p| into_errors(p, input.file))?;
    let made = translate(&icf, input).map_err(|p| into_errors(p, input.file))?;
    let text = finish(&made.source, input.file)?;
    Ok(Imported { text, what: made.what, dropped: made.dropped, beside: Vec::new(), warnings: made.warnings })
}

/// The methodology's source and what the command line says of it.
struct Made {
    source: String,
    what: String,
    dropped: usize,
    warnings: Vec<String>,
}

/// The specifications every worker of the file is assigned (lower case).
fn assigned(icf: &Icf) -> HashSet<String> {
    icf.managers
        .iter()
        .flatten()
        .flat_map(|m| &m.workers)
        .flat_map(|w| &w.specs)
        .map(|s| s.value.to_ascii_lowercase())
        .collect()
}

/// The parsed file to the methodology's source.
fn translate(icf: &Icf, input: &Input<'_>) -> Result<Made, Vec<Problem>> {
    let specs = icf.specs.clone().unwrap_or_default();
    let with_workers = icf.managers.as_ref().is_some_and(|m| !m.is_empty());
    let assigned = assigned(icf);
    let mut notes = Vec::new();
    let mut problems = Vec::new();
    let (mut workloads, failed) =
        specs_to_workloads(&specs, with_workers, &assigned, &mut problems, &mut notes);
    let mut dropped = notes.len();
    let mut warnings = notes.clone();
    if specs.is_empty() {
        problems.push(
            Problem::new(ImportErrorKind::Empty, 0, "the file has no access specification")
                .hint("save the file from Iometer with \"Global access specs\" checked"),
        );
    } else if workloads.is_empty() && problems.is_empty() {
        problems.push(Problem::new(
            ImportErrorKind::Empty,
            0,
            format!("none of the access specifications can be a methodic workload: {}", notes.join(" ")),
        ));
    }
    let run: Option<Run> = if with_workers {
        let managers = icf.managers.as_deref().unwrap_or_default();
        match managers_to_run(managers, icf.setup.as_ref(), &workloads, &failed) {
            Ok(run) if problems.is_empty() => Some(run),
            Ok(_) => return Err(problems),
            Err(more) => {
                problems.extend(more);
                return Err(problems);
            }
        }
    } else if !problems.is_empty() {
        return Err(problems);
    } else {
        None
    };
    dropped += setup_notes(icf, run.is_some(), &mut notes, &mut warnings);
    let offset = run.as_ref().map_or(0, |r| r.offset);
    note_mixes(&mut workloads, offset);
    let written: Vec<&Workload> = match &run {
        Some(r) => {
            for w in workloads.iter().filter(|w| !r.used.contains(&w.name.to_ascii_lowercase())) {
                notes.push(format!(
                    "Access specification \"{}\" (line {}) is assigned to no worker: left out.",
                    w.name, w.line
                ));
                dropped += 1;
            }
            workloads.iter().filter(|w| r.used.contains(&w.name.to_ascii_lowercase())).collect()
        }
        None => workloads.iter().collect(),
    };
    for spec in specs.iter().filter(|s| run.is_some() && !s.assignment.eq_ignore_ascii_case("NONE")) {
        notes.push(format!(
            "Access specification \"{}\" has the default assignment {}: Iometer gives it to workers it \
             creates; the workers here run their own lists. Not carried over.",
            spec.name, spec.assignment
        ));
        dropped += 1;
    }
    dropped += written.iter().map(|w| w.dropped).sum::<usize>();
    if let Some(r) = &run {
        notes.extend(r.notes.iter().cloned());
        warnings.extend(r.warnings.iter().cloned());
        dropped += r.dropped;
    }
    let file_name = std::path::Path::new(input.file)
        .file_name()
        .map_or(input.file.to_string(), |f| f.to_string_lossy().into_owned());
    let description = match icf.setup.as_ref().and_then(|s| s.description.as_ref()) {
        Some(d) if !d.value.trim().is_empty() && run.is_some() => d.value.trim().to_string(),
        _ => format!(
            "imported from the Iometer file {file_name}: {}",
            count(written.len(), "access specification")
        ),
    };
    let version = icf.version.as_ref().map_or(String::new(), |v| v.text.clone());
    let method = Method {
        file: input.file,
        name: input.name,
        version: &version,
        description,
        notes,
        workloads: written.clone(),
        offset,
        run: run.as_ref(),
    };
    Ok(Made {
        source: method_text(&method),
        what: count(written.len(), "access specification"),
        dropped,
        warnings,
    })
}

/// The specifications as workloads; those assigned to a worker (when
/// the file has workers) must be, the others are left out with a note.
/// Also the names of those refused.
fn specs_to_workloads(
    specs: &[model::Spec],
    with_workers: bool,
    assigned: &HashSet<String>,
    problems: &mut Vec<Problem>,
    notes: &mut Vec<String>,
) -> (Vec<Workload>, HashSet<String>) {
    let mut taken: HashSet<String> = HashSet::from([QD_VAR.to_string()]);
    let mut workloads: Vec<Workload> = Vec::new();
    let mut failed = HashSet::new();
    for spec in specs {
        let strict = with_workers && assigned.contains(&spec.name.to_ascii_lowercase());
        match spec_to_workload(spec, ident(&spec.name, "spec", &mut taken)) {
            Ok(w) => workloads.push(w),
            Err(p) if strict => {
                failed.insert(spec.name.to_ascii_lowercase());
                problems.extend(p)
            }
            Err(p) => {
                let why = p.iter().map(|p| p.detail.clone()).collect::<Vec<_>>().join("; ");
                notes.push(format!(
                    "Access specification \"{}\" (line {}) is left out: {why}",
                    spec.name, spec.line
                ));
            }
        }
    }
    (workloads, failed)
}

/// A note on each workload that does a standard mix's I/O (with the
/// workloads' offset, `offset` bytes), or all of it but the alignment.
fn note_mixes(workloads: &mut [Workload], offset: u64) {
    let bodies: Vec<String> = workloads
        .iter()
        .map(|w| if offset > 0 { format!("{}; offset {}", w.body, Bytes(offset)) } else { w.body.clone() })
        .collect();
    for (w, m) in workloads.iter_mut().zip(mixes::matches(&bodies)) {
        if let Some(m) = m {
            w.notes.push(m.note());
        }
    }
}

/// The notes on what the test setup and results display say that no step
/// carries; how many settings that leaves out.
fn setup_notes(icf: &Icf, steps: bool, notes: &mut Vec<String>, warnings: &mut Vec<String>) -> usize {
    let mut dropped = 0;
    if let Some(line) = icf.display {
        notes.push(format!("RESULTS DISPLAY (line {line}): what Iometer's window shows. Not carried over."));
        dropped += 1;
    }
    let Some(setup) = &icf.setup else { return dropped };
    if !steps {
        let text = format!(
            "The TEST SETUP (line {}) is not carried over: without a manager list no worker is assigned a \
             specification, so there is nothing to run.",
            setup.line
        );
        warnings.push(text.clone());
        notes.push(text);
        return dropped + 1;
    }
    for (key, value, line) in &setup.other {
        let why = if key.eq_ignore_ascii_case("Record Results") {
            "which rows Iometer's results file gets; methodic records every step"
        } else {
            "the workers Iometer starts for a manager the file does not list"
        };
        notes.push(format!("{key} {value} (line {line}): {why}. Not carried over."));
        dropped += 1;
    }
    dropped
}

/// The body of the fuzz target `fuzz/fuzz_targets/iometer_import.rs`: any
/// text, never a panic; a refused file names problems at lines it has; an
/// imported one is formatted and compiles (which `finish` checks, and an
/// internal error would say).
pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let input = Input { text: &text, file: "fuzz", name: "fuzz", vars: &[], include: &|_| Err("no".into()) };
    match to_method(&input) {
        Ok(i) => assert_eq!(methodic_grammar::format(&i.text).ok().as_deref(), Some(i.text.as_str())),
        Err(errors) => {
            let lines = text.lines().count().max(1);
            for e in errors {
                assert_ne!(e.kind, ImportErrorKind::Internal, "{e}");
                assert!(e.line <= lines, "{e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The .icf files of the workspace's tests, as written.
    const FILES: [&str; 7] = [
        include_str!("../../../tests/iometer/full-1.1.0.icf"),
        include_str!("../../../tests/iometer/access-specs-1.1.0.icf"),
        include_str!("../../../tests/iometer/old-2004.07.30.icf"),
        include_str!("../../../tests/iometer/cycle-workers-2006.07.27.icf"),
        include_str!("../../../tests/iometer/paced-writes-1.1.0.icf"),
        include_str!("../../../tests/iometer/err_refused.icf"),
        include_str!("../../../tests/iometer/err_truncated.icf"),
    ];

    /// Every file cut after each of its lines, and with each line left
    /// out: imported or refused at lines it has, never a panic or a
    /// methodology that does not compile (what the fuzz target checks).
    #[test]
    fn cut_and_edited_files_are_imported_or_refused() {
        for file in FILES {
            let lines: Vec<&str> = file.split_inclusive('\n').collect();
            for n in 0..=lines.len() {
                fuzz(lines[..n].concat().as_bytes());
                if n < lines.len() {
                    let mut without = lines.clone();
                    without.remove(n);
                    fuzz(without.concat().as_bytes());
                }
            }
        }
    }

    /// `full-1.1.0.icf` with a second target on Worker 1.
    fn two_targets_on_worker_1(test_type: Option<&str>) -> String {
        let one = "'Target\r\n\t1: \"ATA EXAMPLE-SSD 1.0\"\r\n'Target type\r\n\tDISK\r\n'End target\r\n";
        let two = format!(
            "{one}'Target\r\n\t3: \"ATA OTHER-SSD 2.0\"\r\n'Target type\r\n\tDISK\r\n'End target\r\n"
        );
        assert!(FILES[0].contains(one), "the test file's layout changed");
        let mut text = FILES[0].replacen(one, &two, 1);
        if let Some(t) = test_type {
            text = text.replacen("\tCYCLE_OUTSTANDING_IOS\r\n", &format!("\t{t}\r\n"), 1);
        }
        text
    }

    fn import(text: &str) -> Result<Imported, Vec<ImportError>> {
        to_method(&Input { text, file: "t.icf", name: "t", vars: &[], include: &|_| Err("no".into()) })
    }

    /// The jobs of each together step of a methodology.
    fn jobs_of(method: &str) -> Vec<usize> {
        let plan = methodic_compiler::compile(method, &Default::default()).unwrap().plan;
        plan.steps
            .iter()
            .filter_map(|s| match &s.action {
                methodic_compiler::plan::Action::Together { jobs, .. } => Some(jobs.len()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_worker_of_several_targets_is_a_worker_on_each() {
        let i = import(&two_targets_on_worker_1(None)).unwrap();
        assert!(i.text.contains("Worker \"Worker 1\" has 2 targets"), "{}", i.text);
        // Three devices, in the order the file names them; Worker 1's
        // specification runs on the first and the third.
        let plan = methodic_compiler::compile(&i.text, &Default::default()).unwrap().plan;
        let devices: Vec<Vec<u32>> = plan
            .steps
            .iter()
            .filter_map(|s| match &s.action {
                methodic_compiler::plan::Action::Together { jobs, .. } => {
                    Some(jobs.iter().map(|j| j.device).collect())
                }
                _ => None,
            })
            .collect();
        assert!(devices.iter().all(|d| d == &[0, 1, 2]), "{devices:?}\n{}", i.text);
        assert!(i.text.contains("--target DISK1 --target DISK2 --target DISK3"), "{}", i.text);
        // Worker cycling counts Iometer's workers, not their targets.
        let i = import(&two_targets_on_worker_1(Some("CYCLE_WORKERS"))).unwrap();
        assert!(i.text.contains("CYCLE_WORKERS: the first 1, then 2 of them"), "{}", i.text);
        assert_eq!(
            jobs_of(&i.text),
            [2, 3],
            "Worker 1 on its two targets, then Worker 2 as well: {}",
            i.text
        );
        // Cycling targets: every worker on its first target, then on two.
        let i = import(&two_targets_on_worker_1(Some("CYCLE_TARGETS"))).unwrap();
        assert!(
            i.text.contains("CYCLE_TARGETS: each worker on its first 1, then 2 of its targets"),
            "{}",
            i.text
        );
        assert_eq!(jobs_of(&i.text), [2, 3], "{}", i.text);
    }

    /// Worker 1 on targets 1 and 3, Worker 2 on target 2: the types that
    /// hand targets to workers run by run, as `cycling` steps them.
    #[test]
    fn targets_handed_down_the_workers_run_by_run() {
        // The comments unwrapped.
        let said = |i: &Imported| i.text.replace("\n#   ", " ");
        let i = import(&two_targets_on_worker_1(Some("INCREMENT_TARGETS_PARALLEL"))).unwrap();
        assert!(
            said(&i).contains("the first 1, then 2, then 3 targets counted down the workers"),
            "{}",
            i.text
        );
        // A measurement on the first target, then two jobs, then three.
        assert_eq!(jobs_of(&i.text), [2, 3], "{}", i.text);
        assert_eq!(i.text.matches("\nmeasure ").count(), 1, "{}", i.text);
        let serial = import(&two_targets_on_worker_1(Some("INCREMENT_TARGETS_SERIAL"))).unwrap();
        assert_eq!(said(&serial).replace("_SERIAL:", "_PARALLEL:"), said(&i));

        let i = import(&two_targets_on_worker_1(Some("CYCLE_WORKERS_AND_TARGETS"))).unwrap();
        assert!(said(&i).contains("(n, t) = (1, 1), (1, 2), (2, 1), (2, 2)."), "{}", i.text);
        assert_eq!(jobs_of(&i.text), [2, 2, 3], "{}", i.text);

        let i = import(&two_targets_on_worker_1(Some("CYCLE_OUTSTANDING_IOS_AND_TARGETS"))).unwrap();
        assert!(
            said(&i).contains(
                "first 1, then 2 of its targets; at each, queue depths 1, 2, 4, 8, 16, 32 on every"
            ),
            "{}",
            i.text
        );
        // Two depth sweeps of together steps: 2 jobs at each depth, then 3.
        assert_eq!(jobs_of(&i.text), [[2; 6], [3; 6]].concat(), "{}", i.text);
    }

    #[test]
    fn a_specs_only_file_is_workloads_and_names_what_it_leaves_out() {
        let text = FILES[1].replace("\t8192,100,80,80,0,1,0,0", "\t8192,100,80,80,0,1,0,4096");
        let input =
            Input { text: &text, file: "s.icf", name: "s", vars: &[], include: &|_| Err("no".into()) };
        let i = to_method(&input).unwrap();
        assert_eq!(i.what, "2 access specifications");
        assert!(i.text.contains("\"Workstation\" (line 19) is left out: reply 4096"), "{}", i.text);
        assert_eq!(i.warnings.len(), 1);
        assert!(!i.text.contains("measure"));
    }
}
