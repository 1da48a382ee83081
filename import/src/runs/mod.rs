//! Others' results as runs: a file another tool wrote (fio's JSON,
//! Iometer's results CSV, DiskSpd's XML, a CrystalDiskMark or KDiskMark
//! text report) read into a [`ImportedRun`] that
//! `methodic_results::imported::write` writes as a results directory.
//!
//! Each tool's module makes a methodology of the job the file states (by
//! the same rules as that tool's job import, where there is one), compiles
//! it, and gives a step's numbers for each of its steps with I/O, in order.
//! What the file does not state is named, never guessed: the run's
//! `not_stated` and each step's.

pub mod disk_mark;
pub mod diskspd;
pub mod fio;
pub mod iometer;

use methodic_compiler::plan::Plan;
use methodic_results::host::Host;
use methodic_results::manifest::ImportedNote;

pub use methodic_results::imported::ImportedRun;

/// Why a file cannot be imported as a run, with what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    pub text: String,
    pub hint: Option<String>,
}

impl RunError {
    pub(crate) fn new(text: impl Into<String>) -> RunError {
        RunError { text: text.into(), hint: None }
    }

    pub(crate) fn hint(mut self, hint: impl Into<String>) -> RunError {
        self.hint = Some(hint.into());
        self
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// A results file to import: its text and names.
pub struct ResultsFile<'a> {
    pub text: &'a str,
    /// The file as the user named it.
    pub file: &'a str,
    /// The methodology's name.
    pub name: &'a str,
}

/// The methodology text, formatted and compiled.
pub(crate) fn compiled(source: &str, file: &str) -> Result<(String, Plan), RunError> {
    let text = crate::finish::finish(source, file)
        .map_err(|e| RunError::new(e.into_iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")))?;
    let plan = methodic_compiler::compile(&text, &methodic_compiler::Options::default())
        .map_err(|d| {
            RunError::new(format!("bug in methodic import: the methodology made does not compile: {d}"))
        })?
        .plan;
    Ok((text, plan))
}

/// The note every import starts from: the tool, its version and format,
/// the file and the hash of its text.
pub(crate) fn note(
    tool: &str,
    version: Option<String>,
    format: &str,
    input: &ResultsFile<'_>,
) -> ImportedNote {
    ImportedNote {
        tool: tool.into(),
        version,
        format: format.into(),
        file: input.file.into(),
        hash: methodic_compiler::source_hash(input.text),
        ran: None,
        targets: Vec::new(),
        not_stated: Vec::new(),
        notes: Vec::new(),
    }
}

/// A host of which the file states at most its name: every other field
/// empty, and `host` among the note's `not_stated`.
pub(crate) fn unstated_host(hostname: Option<String>) -> Host {
    Host {
        hostname,
        cpu_model: None,
        cpus: 0,
        cpus_allowed: 0,
        memory_bytes: 0,
        kernel: None,
        kernel_build: None,
        os: None,
        arch: String::new(),
        virtualization: None,
        power: None,
    }
}

/// The body of the `results_runs` fuzz target: any bytes, as text with
/// invalid UTF-8 replaced, through each tool's import. It panics, so that
/// the fuzzer reports the input, when an import does, or when what it
/// makes breaks a promise: a step of numbers for each step of the plan
/// with I/O, the file's hash, errors that name the file, and numbers a
/// results directory can hold.
pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let input = ResultsFile { text: &text, file: "fuzz.txt", name: "fuzz" };
    for made in [
        fio::fio_run(&input),
        iometer::iometer_run(&input),
        diskspd::diskspd_run(&input),
        disk_mark::disk_mark_run(&input),
    ] {
        match made {
            Ok(run) => {
                let with_io = run
                    .plan
                    .steps
                    .iter()
                    .filter(|s| matches!(s.action.kind(), "measure" | "together"))
                    .count();
                assert_eq!(with_io, run.steps.len(), "steps of numbers and of the plan differ:\n{text}");
                assert!(run.note.hash.starts_with("sha256:"));
                for s in &run.steps {
                    let _ = s.summary();
                }
            }
            Err(e) => {
                assert!(e.text.starts_with("fuzz.txt"), "an error that does not name the file: {}", e.text);
                assert!(!e.text.contains("bug in methodic import"), "{}", e.text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every results file in the tree, whole and cut at every tenth, keeps
    /// the fuzz target's promises under every import.
    #[test]
    fn every_results_file_and_its_cuts_keep_the_promises() {
        let files = [
            include_str!("../../../tests/fio-results/fio-3.33.json"),
            include_str!("../../../tests/fio-results/fio-3.33-plus.json"),
            include_str!("../../../tests/fio-results/fio-3.33-client.json"),
            include_str!("../../../tests/fio-results/fio-2-shape.json"),
            include_str!("../../../tests/iometer/results-1.1.0.csv"),
            include_str!("../../../tests/diskspd/results-2.2.xml"),
            include_str!("../../../tests/disk-mark/crystaldiskmark-8-default.txt"),
            include_str!("../../../tests/disk-mark/kdiskmark-3-default.txt"),
        ];
        for f in files {
            for k in 1..=10 {
                let cut = f.len() * k / 10;
                super::fuzz(&f.as_bytes()[..cut]);
            }
        }
    }
}
