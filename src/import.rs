//! `methodic import FORMAT JOBFILE`: reads the job file (or standard
//! input), imports it (fio with `methodic_fio::fio_to_method`, Iometer,
//! vdbench and DiskSpd with the methodic-import crate), and writes the
//! methodology (standard output or `-o FILE`) and any file it needs
//! beside it; or prints every problem on stderr, writes nothing and exits
//! 1. The tools' formats and their translations live in those crates.
//!
//! A file of the tool's results rather than its job (fio's JSON, an
//! Iometer results CSV, DiskSpd's XML results, any CrystalDiskMark or
//! KDiskMark file) is imported into the results directory `-o DIR`
//! (`methodic_import::runs`, written by `methodic_results::imported`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};
use methodic_fio::{fio_to_method_with, text_uses};
use methodic_import::{Imported, Input};

use crate::common::{count, display_name, read_input, write_output};

/// The tools whose job files (and results) `methodic import` reads.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ImportFormat {
    /// An fio job file, or fio's JSON results (--output-format=json or json+).
    Fio,
    /// An Iometer configuration file (.icf), Iometer 1998.10.08 to 1.1.0;
    /// or an Iometer results CSV.
    Iometer,
    /// A vdbench parameter file (block workloads: sd, wd, rd, hd).
    Vdbench,
    /// A DiskSpd XML profile, or a file of DiskSpd command lines; or
    /// DiskSpd's XML results (-Rxml).
    Diskspd,
    /// A CrystalDiskMark or KDiskMark text result (results only).
    #[value(name = "crystaldiskmark", alias = "kdiskmark")]
    CrystalDiskMark,
}

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The job file (`-` reads standard input).
    pub job: PathBuf,
    /// Where to write the methodology (`-`, the default, is standard output);
    /// for a results file, the results directory to create. Nothing is
    /// written when the file cannot be imported.
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
    /// The methodology's name [default: the job file's name without its extension].
    #[arg(long)]
    pub name: Option<String>,
    /// A value for a variable of a vdbench parameter file (`$lun`), as
    /// vdbench takes `lun=/dev/sdb` on its command line, or of an fio job
    /// file (`${FIO_BS}`), as fio takes it from its environment; repeat
    /// for more.
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
}

/// `lun=/dev/sdb` to its name and value.
fn parse_var(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().trim_start_matches('$').to_string(), value.to_string()))
        }
        _ => Err(format!("`{s}` is not NAME=VALUE (such as lun=/dev/sdb)")),
    }
}

/// What an import made, whatever the tool.
struct Made {
    text: String,
    what: String,
    dropped: usize,
    /// What a dropped thing is called in the tool: fio's options,
    /// the others' settings.
    dropped_word: &'static str,
    beside: Vec<(String, String)>,
    warnings: Vec<String>,
}

/// An error of either crate: its words and its hint.
struct Said {
    text: String,
    hint: Option<String>,
}

/// Reads the job file, imports it, writes the methodology; exits 1 with
/// every problem on stderr, and nothing written, when it cannot.
pub fn run(format: ImportFormat, args: ImportArgs) -> Result<ExitCode> {
    if !args.vars.is_empty() && !matches!(format, ImportFormat::Vdbench | ImportFormat::Fio) {
        bail!("--var gives the variables of a vdbench parameter file or an fio job file; this is neither");
    }
    let text = read_input(&args.job)?;
    let file = display_name(&args.job);
    let name = match &args.name {
        Some(name) => name.clone(),
        None => default_name(&args.job, format),
    };
    if name.trim().is_empty() {
        bail!("--name needs a name that is not blank");
    }
    if is_results(format, &text) {
        // DiskSpd's results embed the profile they ran, which imports as
        // a methodology too (docs/diskspd.md): that, to standard output
        // or a .method file; the numbers, into a results directory.
        let to_method =
            args.output == Path::new("-") || args.output.extension().is_some_and(|e| e == "method");
        if !(matches!(format, ImportFormat::Diskspd) && to_method) {
            return import_results(format, &args, &text, &file, &name);
        }
        eprintln!(
            "note: {file} holds DiskSpd's results: this imports the <Profile> they ran as a methodology; \
             `-o DIR` imports their numbers into a results directory"
        );
    }
    match import(format, &args, &text, &file, &name) {
        Ok(made) => {
            write_made(&args, &made, &file)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(errors) => {
            for e in &errors {
                eprintln!("error: {}", e.text);
                if let Some(hint) = &e.hint {
                    eprintln!("  hint: {hint}");
                }
            }
            eprintln!("{file}: {}; nothing written", count(errors.len(), "problem"));
            Ok(ExitCode::from(1))
        }
    }
}

/// The job file through its tool's importer.
fn import(
    format: ImportFormat,
    args: &ImportArgs,
    text: &str,
    file: &str,
    name: &str,
) -> Result<Made, Vec<Said>> {
    let folder = match args.job.parent() {
        Some(p) if args.job != Path::new("-") => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let include = move |written: &str| -> Result<String, String> {
        let path = folder.join(written);
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let input = Input { text, file, name, vars: &args.vars, include: &include };
    let said = |errors: Vec<methodic_import::ImportError>| -> Vec<Said> {
        errors.into_iter().map(|e| Said { text: e.to_string(), hint: e.hint.clone() }).collect()
    };
    let made = |i: Imported| Made {
        text: i.text,
        what: i.what,
        dropped: i.dropped,
        dropped_word: "setting",
        beside: i.beside,
        warnings: i.warnings,
    };
    match format {
        ImportFormat::Fio => match fio_to_method_with(text, file, name, &args.vars) {
            Ok(i) => Ok(Made {
                text: i.text,
                what: count(i.jobs, "job"),
                dropped: i.dropped,
                dropped_word: "option",
                beside: Vec::new(),
                warnings: args
                    .vars
                    .iter()
                    .filter(|(n, _)| !text_uses(text, n))
                    .map(|(n, _)| format!("--var {n}: the job file has no ${{{n}}}"))
                    .collect(),
            }),
            Err(errors) => {
                Err(errors.into_iter().map(|e| Said { text: e.to_string(), hint: e.hint.clone() }).collect())
            }
        },
        ImportFormat::Iometer => methodic_import::iometer::to_method(&input).map(made).map_err(said),
        ImportFormat::Vdbench => methodic_import::vdbench::to_method(&input).map(made).map_err(said),
        ImportFormat::Diskspd => methodic_import::diskspd::to_method(&input).map(made).map_err(said),
        ImportFormat::CrystalDiskMark => unreachable!("a CrystalDiskMark file is always results"),
    }
}

/// Whether `text` is the tool's results rather than its job: fio's JSON
/// (a line that opens a JSON object), Iometer's results CSV (it opens with
/// a test's `'Test Type` line, an .icf with `Version`), DiskSpd's XML
/// results (a `<Results>` element, a profile is `<Profile>`), and any
/// CrystalDiskMark or KDiskMark file.
fn is_results(format: ImportFormat, text: &str) -> bool {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    match format {
        ImportFormat::Fio => text.lines().any(|l| l.starts_with('{')),
        ImportFormat::Iometer => first.starts_with("'Test Type"),
        ImportFormat::Diskspd => text.contains("<Results>"),
        ImportFormat::CrystalDiskMark => true,
        ImportFormat::Vdbench => false,
    }
}

/// Imports a results file into the results directory `-o DIR`; nothing
/// written when it cannot be imported.
fn import_results(
    format: ImportFormat,
    args: &ImportArgs,
    text: &str,
    file: &str,
    name: &str,
) -> Result<ExitCode> {
    if !args.vars.is_empty() {
        bail!("--var gives a job file's variables; {file} is a results file, which has none");
    }
    if args.output == Path::new("-") {
        bail!(
            "{file} is a results file: it imports into a results directory; give -o DIR (a new directory), \
             then `methodic report DIR`"
        );
    }
    let holds = |d: &Path| std::fs::read_dir(d).is_ok_and(|mut e| e.next().is_some());
    if args.output.is_file() || holds(&args.output) {
        bail!(
            "{} already exists and is not an empty directory: give -o a new directory for the imported results",
            args.output.display()
        );
    }
    let input = methodic_import::runs::ResultsFile { text, file, name };
    let run = match format {
        // fio's per-interval logs, by the names fio gave them, beside the
        // JSON file (fio writes them in its working folder).
        ImportFormat::Fio => {
            let beside = match args.job.parent() {
                Some(p) if args.job != Path::new("-") => Some(p.to_path_buf()),
                _ => None,
            };
            let log =
                |name: &str| beside.as_ref().and_then(|dir| std::fs::read_to_string(dir.join(name)).ok());
            methodic_import::runs::fio::fio_run_with_logs(&input, &log)
        }
        ImportFormat::Iometer => methodic_import::runs::iometer::iometer_run(&input),
        ImportFormat::Diskspd => methodic_import::runs::diskspd::diskspd_run(&input),
        ImportFormat::CrystalDiskMark => methodic_import::runs::disk_mark::disk_mark_run(&input),
        ImportFormat::Vdbench => unreachable!("vdbench has no results import"),
    };
    let run = match run {
        Ok(run) => run,
        Err(e) => {
            eprintln!("error: {}", e.text);
            if let Some(hint) = &e.hint {
                eprintln!("  hint: {hint}");
            }
            eprintln!("{file}: not imported; nothing written");
            return Ok(ExitCode::from(1));
        }
    };
    methodic_results::imported::write(&run, &args.output)?;
    let n = &run.note;
    eprintln!(
        "wrote {}: {} of {} from {file} ({}); not stated: {}",
        args.output.display(),
        count(run.steps.len(), "step"),
        n.tool_words(),
        n.format,
        if n.not_stated.is_empty() { "nothing".to_string() } else { n.not_stated.join(", ") },
    );
    eprintln!(
        "  next: methodic report {0}; methodic compare YOUR-RUN {0} (the manifest's `imported` says what was \
         worked out)",
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The methodology, the files beside it, and a line saying what was done.
fn write_made(args: &ImportArgs, made: &Made, file: &str) -> Result<()> {
    // Beside the methodology's file; in the working folder when it goes
    // to standard output or into something that is not a file (`-o
    // /dev/null` must not write into /dev).
    let to_file =
        args.output != Path::new("-") && !std::fs::metadata(&args.output).is_ok_and(|m| !m.is_file());
    let beside_dir = match args.output.parent() {
        Some(p) if to_file => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // The files beside first: a methodology whose hosts file is missing
    // would name a file that is not there.
    let mut wrote = Vec::new();
    for (name, text) in &made.beside {
        let path = beside_dir.join(name);
        if args.output == Path::new("-") && path.exists() {
            bail!(
                "{} exists: give -o FILE to write the methodology and {name} into another folder",
                path.display()
            );
        }
        let mut text = text.clone();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        write_output(&path, &text)?;
        wrote.push(path.display().to_string());
    }
    write_output(&args.output, &made.text)?;
    for w in &made.warnings {
        eprintln!("warning: {w}");
    }
    let mut summary = format!("imported {} from {file}", made.what);
    if args.output != Path::new("-") {
        summary = format!("wrote {}: {summary}", args.output.display());
    }
    if made.dropped > 0 {
        summary.push_str(&format!(
            "; {} not carried over (see the comments)",
            count(made.dropped, made.dropped_word)
        ));
    }
    for w in &wrote {
        summary.push_str(&format!("; wrote {w} beside it"));
    }
    eprintln!("{summary}");
    Ok(())
}

/// The job file's name without its extension; `<tool>-import` for stdin.
fn default_name(path: &Path, format: ImportFormat) -> String {
    let fallback = match format {
        ImportFormat::Fio => "fio-import",
        ImportFormat::Iometer => "iometer-import",
        ImportFormat::Vdbench => "vdbench-import",
        ImportFormat::Diskspd => "diskspd-import",
        ImportFormat::CrystalDiskMark => "disk-mark-import",
    };
    if path == Path::new("-") {
        return fallback.to_string();
    }
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| fallback.to_string())
}
