//! `methodic crosscheck FILE --step ID --target PATH`: one measured step
//! run by methodic and by fio on the same target, alternately, N times
//! each; both medians and their ratio, flagged when they differ by more
//! than 10%. fio gets the step exported as methodic ran it (the engine,
//! threads and depth of methodic's run before it), so that the two measure
//! the same thing: the honest answer to "does methodic measure what fio
//! measures?".
//!
//! This module runs both tools and hands their numbers to the view
//! (`methodic_results::view::crosscheck`); the job fio gets
//! (`methodic_fio::plan_to_fio`) and the reading of its JSON output
//! (`methodic_fio::fio_json_iops`) are methodic-fio's.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};
use methodic_compiler::plan::Action;
use methodic_results::record::Status;
use methodic_runtime::{EngineChoice, Quiet, RunOptions};

use methodic_fio::{Engine, fio_filename, fio_json_iops, plan_to_fio};
use methodic_results::engine::EngineKind;
use methodic_results::view::crosscheck::Crosscheck;
use methodic_runtime::median;

use crate::common::load_plan;
use crate::format::Output;

#[derive(Debug, clap::Args)]
pub struct CrosscheckArgs {
    /// A methodology (.method) or a compiled plan (.ron or .json).
    file: PathBuf,
    /// The measured step: its id (as `methodic plan` shows it) or number.
    #[arg(long, value_name = "ID")]
    step: String,
    /// The file or block device both run on.
    #[arg(long, value_name = "PATH")]
    target: PathBuf,
    /// Runs of each, alternating methodic and fio.
    #[arg(long, default_value_t = 3)]
    runs: u32,
    /// As for run: write over this block device (its serial, or path).
    #[arg(long, value_name = "SERIAL")]
    destroy: Vec<String>,
    /// As for run: write over an existing file methodic did not create.
    #[arg(long)]
    overwrite: bool,
    /// The fio to run.
    #[arg(long, default_value = "fio", value_name = "PATH")]
    fio: PathBuf,
    #[command(flatten)]
    output: Output<Crosscheck>,
}

pub fn crosscheck(args: CrosscheckArgs) -> Result<ExitCode> {
    if args.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let Some((plan, _)) = load_plan(&args.file, None)? else {
        return Ok(ExitCode::from(1));
    };
    let index = plan.steps.iter().position(|s| s.id == args.step).or_else(|| {
        args.step.parse::<usize>().ok().filter(|n| (1..=plan.steps.len()).contains(n)).map(|n| n - 1)
    });
    let measured: Vec<&str> = plan
        .steps
        .iter()
        .filter(|s| matches!(s.action, Action::Measure { .. }))
        .map(|s| s.id.as_str())
        .collect();
    let Some(index) = index.filter(|&i| matches!(plan.steps[i].action, Action::Measure { .. })) else {
        let some: Vec<&str> = measured.iter().take(8).copied().collect();
        bail!(
            "{} is not a measured step of {} (measured steps: {}{})",
            args.step,
            args.file.display(),
            some.join(", "),
            if measured.len() > some.len() { ", ..." } else { "" }
        );
    };
    if !args.target.exists() {
        bail!(
            "{}: does not exist: give the file or block device both methodic and fio run on (for a file, create \
             it first, e.g. `truncate -s 1G FILE`, and pass --overwrite)",
            args.target.display()
        );
    }
    let version = Command::new(&args.fio).arg("--version").output();
    let Ok(version) = version.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()) else {
        bail!("{} cannot be run: install fio (apt-get install fio) or give --fio PATH", args.fio.display());
    };
    if let Action::Measure { stop, .. } = &plan.steps[index].action
        && let Some((methodic_compiler::plan::Extent::Percent(p), reads_count)) = stop.amount()
    {
        let (done, until) =
            if reads_count { ("read or written", "transferred") } else { ("written", "written") };
        bail!(
            "{} stops when {p} of the span is {done}; fio's io_size takes bytes: give the amount in bytes \
                 (`until {until} 4GiB`) to cross-check it",
            plan.steps[index].id
        );
    }
    let mut single = plan.clone();
    single.steps = vec![plan.steps[index].clone()];
    let work = std::env::temp_dir().join(format!("methodic-crosscheck-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).with_context(|| format!("cannot create {}", work.display()))?;
    let outcome = alternate(&args, &single, &work, &version);
    let _ = std::fs::remove_dir_all(&work);
    let c = outcome?;
    args.output.write(&c)?;
    Ok(if c.agree { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// methodic, then fio, `runs` times.
fn alternate(
    args: &CrosscheckArgs,
    single: &methodic_compiler::plan::Plan,
    work: &Path,
    version: &str,
) -> Result<Crosscheck> {
    let (mut mine, mut theirs) = (Vec::new(), Vec::new());
    // The device's own path, as fio's filename= takes it.
    let target = fio_filename(
        &std::fs::canonicalize(&args.target)
            .with_context(|| format!("cannot resolve {}", args.target.display()))?,
    );
    let mut engine = String::new();
    for k in 0..args.runs {
        let opts = RunOptions {
            targets: vec![args.target.clone()],
            out: work.join(format!("methodic-{}", k + 1)),
            engine: EngineChoice::Auto,
            destroy: args.destroy.clone(),
            overwrite: args.overwrite,
            seed: k as u64 + 1,
            skip_ceiling: true,
            ..RunOptions::default()
        };
        let report = methodic_runtime::run(single, &opts, &mut Quiet)
            .map_err(|e| anyhow::anyhow!(methodic_runtime::describe(&e)))?;
        let step = &report.steps[0];
        if report.status != Status::Completed {
            bail!("methodic's run {} failed: {}", k + 1, report.error.unwrap_or_default());
        }
        let (Some(summary), Some(io)) = (&step.summary, &step.io) else {
            bail!("methodic's run recorded nothing")
        };
        mine.push(summary.total.iops);
        let ran = Engine {
            psync: io.engine == EngineKind::Psync,
            threads: io.threads,
            depth: io.depth,
            registered: io.registered_buffers,
        };
        engine = ran.to_string();
        let job = plan_to_fio(single, Some((0, Some(ran))));
        let path = work.join("step.fio");
        std::fs::write(&path, &job).with_context(|| format!("cannot write {}", path.display()))?;
        let o = Command::new(&args.fio)
            .arg("--output-format=json")
            .arg(&path)
            .env("TARGET", &target)
            .output()
            .with_context(|| format!("cannot run {}", args.fio.display()))?;
        // Ctrl-C reaches fio too, which stops early and reports: a run cut
        // short is no measurement.
        if methodic_runtime::stop_requested() {
            bail!("interrupted");
        }
        if !o.status.success() {
            bail!("{version} failed on run {}: {}", k + 1, String::from_utf8_lossy(&o.stderr).trim());
        }
        theirs.push(fio_json_iops(&String::from_utf8_lossy(&o.stdout)).context("fio's JSON output")?);
        eprintln!(
            "run {}/{}: methodic {:.0} IOPS, fio {:.0} IOPS",
            k + 1,
            args.runs,
            mine[k as usize],
            theirs[k as usize]
        );
    }
    let (m, f) = (median(&mine), median(&theirs));
    let ratio = m / f;
    Ok(Crosscheck {
        step: single.steps[0].id.clone(),
        target: args.target.clone(),
        engine,
        methodic_iops: mine,
        fio_iops: theirs,
        methodic_median: m,
        fio_median: f,
        ratio,
        agree: (ratio - 1.0).abs() <= 0.10,
        fio_version: version.to_string(),
    })
}
