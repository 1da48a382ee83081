//! `methodic report DIR`: a results directory in, its report out
//! (`methodic_results::view::report`): a terminal table (or Markdown, CSV,
//! JSON), or with `--format html` one self-contained page with charts,
//! written where `-o` says. Reads the directory only. A file of the run
//! that cannot be read (a series, rounds, probe or latency log) is named
//! in the report and on standard error, and the exit code is
//! 3 ([`crate::common::INCOMPLETE`]) unless `--allow-incomplete`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use methodic_results::export::Format;
use methodic_results::view::report::Report;

use crate::common::{Incomplete, count, load_results, unreadable_words, write_output};
use crate::format::Output;

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// A results directory, as `methodic run` printed it.
    dir: PathBuf,
    #[command(flatten)]
    output: Output<Report>,
    /// The older way to write the HTML page (--format html -o FILE), kept
    /// for the pages that show it: the page goes to FILE, and --format to
    /// standard output.
    #[arg(long, value_name = "FILE", hide = true)]
    html: Option<PathBuf>,
    /// Also write the run as fio-plot reads results: into DIR, a folder a
    /// phase and workload, in it a fio JSON file a step named
    /// RW-IODEPTH-NUMJOBS.json (as --format fio-json writes them).
    #[arg(long, value_name = "DIR")]
    fio_plot: Option<PathBuf>,
    #[command(flatten)]
    incomplete: Incomplete,
}

pub fn report(args: ReportArgs) -> Result<ExitCode> {
    let report = Report::new(load_results(&args.dir)?);
    if let Some(path) = &args.html {
        eprintln!("note: --html FILE is now --format html -o FILE (--html still works, but may go)");
        crate::format::write(&report, Format::Html, path)?;
    }
    if let Some(dir) = &args.fio_plot {
        fio_plot(&report, dir)?;
    }
    args.output.write(&report)?;
    let files: Vec<String> = report.unreadable().iter().map(ToString::to_string).collect();
    let why = unreadable_words(files.len(), &args.dir.display().to_string());
    Ok(args.incomplete.end("the report", &why, &files))
}

/// Writes the fio-plot tree of `report` into `dir`, and says what it wrote
/// and how fio-plot reads it.
fn fio_plot(report: &Report, dir: &Path) -> Result<()> {
    let files = methodic_results::export::fio_json::fio_plot_files(report);
    let mut folders: Vec<&Path> = Vec::new();
    for (rel, text) in &files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        }
        write_output(&path, text)?;
        if let Some(f) = rel.parent().filter(|f| !folders.contains(f)) {
            folders.push(f);
        }
    }
    eprintln!(
        "wrote {} into {}, a folder a phase and workload: {}",
        count(files.len(), "fio JSON file"),
        dir.display(),
        folders.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", "),
    );
    // How fio-plot charts the folder with the most files (the first such):
    // its queue depths at its first file's I/O and job count (names are
    // RW-IODEPTH-NUMJOBS.json).
    let in_folder = |f: &Path| files.iter().filter(|(rel, _)| rel.parent() == Some(f)).count();
    let widest = folders.iter().copied().rev().max_by_key(|f| in_folder(f));
    let names: Vec<(String, Vec<String>)> = files
        .iter()
        .filter(|(rel, _)| rel.parent() == widest)
        .filter_map(|(rel, _)| {
            let stem = rel.file_stem()?.to_str()?;
            let parts: Vec<String> = stem.rsplitn(3, '-').map(str::to_string).collect();
            Some((rel.parent()?.display().to_string(), parts))
        })
        .collect();
    if let Some((folder, first)) = names.first().filter(|(_, p)| p.len() == 3) {
        let (rw, jobs) = (&first[2], &first[0]);
        let depths: Vec<&str> = names
            .iter()
            .filter(|(_, p)| p.len() == 3 && p[2] == *rw && p[0] == *jobs)
            .map(|(_, p)| p[1].as_str())
            .collect();
        eprintln!(
            "chart one with fio-plot: fio-plot -i {} -T {folder} -l -r {rw} -d {} -n {jobs}",
            dir.join(folder).display(),
            depths.join(" ")
        );
    }
    Ok(())
}
