//! The methodology text out of the phases: a header comment (with the
//! devices, when there are several), the conventions, one workload per
//! job, and a phase per job alone (one measurement) or per group of jobs
//! fio starts together (a `together` step, a job each), with the notes as
//! comments. Formatted afterwards by `methodic_grammar::format`.

use std::collections::HashSet;
use std::path::Path;

use methodic_compiler::plan::{Arrivals, Duration, Percent, Rate, RateAmount};

use crate::group::{Device, Phase};
use crate::job_file::Section;
use crate::translate::{Data, FioSpan, LatencyTarget, Note, Step, Stop};

/// `1 job`, `2 jobs`.
fn count(n: usize, what: &str) -> String {
    methodic_compiler::plan::plural(n as u64, what, &format!("{what}s"))
}

/// A name methodic can use for a workload: letters, digits and `_`, not a
/// keyword (`job` is one: `_job` after), not taken; `fio_job` for a name
/// with no letter or digit.
fn ident(name: &str, taken: &mut HashSet<String>) -> String {
    let name = if name.chars().any(|c| c.is_ascii_alphanumeric()) { name } else { "fio_job" };
    methodic_grammar::ident(name, "job", taken)
}

/// A phase name whose letters and digits no other phase has.
fn phase_name(name: &str, taken: &mut HashSet<String>) -> String {
    let key = |s: &str| {
        s.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect::<String>()
    };
    let base = if key(name).is_empty() { "job".to_string() } else { name.to_string() };
    let mut unique = base.clone();
    let mut n = 2;
    while !taken.insert(key(&unique)) {
        unique = format!("{base} {n}");
        n += 1;
    }
    unique
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text that can stand in a one-line comment.
fn one_line(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// Comment lines for `text`, broken between words to fit in 100 columns:
/// `{indent}# {first}` and the text, then `{indent}# {more}` and the rest.
fn comment(indent: &str, first: &str, more: &str, text: &str) -> String {
    const WIDTH: usize = 100;
    let mut out = String::new();
    let mut line = format!("{indent}# {first}");
    let mut empty = true;
    for word in one_line(text).split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = format!("{indent}# {more}");
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

fn extent(s: FioSpan) -> String {
    match s {
        FioSpan::Percent(p) => p.to_string(),
        FioSpan::Bytes(b) => b.to_string(),
    }
}

/// The phases to methodology text (formatted afterwards): the header
/// comments, the methodology's name, description and conventions, a
/// workload a job, and the phases in order. `devices` are listed when
/// there are more than one.
pub(crate) fn phases_to_method(
    phases: &[Phase],
    devices: &[Device],
    file: &str,
    name: &str,
    sections: &[Section],
) -> String {
    let steps: Vec<&Step> = phases.iter().flat_map(|p| &p.steps).collect();
    let mut out = header(file, phases, steps.len());
    out.push_str(&devices_comment(devices));
    out.push_str(&global_comments(&steps));

    out.push_str(&format!("methodology {} version \"1.0\"\n", quote(name)));
    let global_description = sections
        .iter()
        .filter(|s| s.is_global())
        .flat_map(|s| &s.entries)
        .filter(|e| e.key == "description")
        .filter_map(|e| e.value.as_deref())
        .next_back();
    let describe = match global_description {
        Some(d) if !d.trim().is_empty() => d.trim().to_string(),
        _ => format!(
            "imported from the fio job file {}: {}",
            Path::new(file).file_name().map_or(file.to_string(), |f| f.to_string_lossy().into_owned()),
            count(steps.len(), "job")
        ),
    };
    out.push_str(&format!("describe {}\n\n", quote(&describe)));
    let binary = steps.iter().any(|s| s.binary) || steps.is_empty();
    out.push_str(&format!(
        "conventions {{\n  units {}\n  queue_depth per_worker\n  value step_average\n}}\n\n",
        if binary { "binary" } else { "decimal" }
    ));
    out.push_str("# fio's iodepth is per job: here the queue depth is per worker, and numjobs\n# is the number of workers.\n");

    let mut names = HashSet::new();
    let mut phase_names = HashSet::new();
    let idents: Vec<String> = steps.iter().map(|s| ident(&s.name, &mut names)).collect();
    for (s, w) in steps.iter().zip(&idents) {
        out.push_str(&format!("workload {w} {{ {} }}\n", workload(s)));
    }
    let mut idents = idents.iter();
    for phase in phases {
        let workloads: Vec<&String> = idents.by_ref().take(phase.steps.len()).collect();
        out.push_str(&phase_block(phase, &workloads, &mut phase_names));
    }
    out
}

/// Where the methodology came from, and how the jobs became phases.
fn header(file: &str, phases: &[Phase], jobs: usize) -> String {
    let mut out = String::new();
    let version = env!("CARGO_PKG_VERSION");
    out.push_str(&format!(
        "# Imported from {} by methodic {version} (`methodic import fio`).\n",
        one_line(file)
    ));
    let groups = phases.iter().filter(|p| p.together).count();
    if jobs == 1 {
        out.push_str("# The fio job is a phase with one measurement.\n");
    } else if groups == 0 {
        out.push_str(
            "# Each fio job is a phase with one measurement; fio runs the jobs one after\n\
             # another (stonewall), and so does this methodology.\n",
        );
    } else if phases.len() == 1 {
        out.push_str(&comment(
            "",
            "",
            "",
            "fio starts the jobs together (no stonewall between them): they are one phase with a together \
             step, a job each.",
        ));
    } else {
        out.push_str(&comment(
            "",
            "",
            "",
            "Jobs that fio starts together (no stonewall between them) are one phase with a together step, a \
             job each; each other fio job is a phase with one measurement. The phases run one after another, \
             as fio runs its jobs after a stonewall.",
        ));
    }
    out
}

/// The devices, a line each, and the command that runs the methodology
/// on them; nothing for one device.
fn devices_comment(devices: &[Device]) -> String {
    let mut out = String::new();
    if devices.len() <= 1 {
        return out;
    }
    out.push_str(&comment(
        "",
        "",
        "",
        &format!(
            "Devices: fio runs the jobs on {} files, each a device here (`device N` is the Nth --target), \
             in the order the job file first names them:",
            devices.len()
        ),
    ));
    let mut targets = Vec::new();
    for (i, d) in devices.iter().enumerate() {
        let text = match &d.path {
            Some(p) => {
                targets.push(format!("--target {p}"));
                format!("device {}: {p} ({})", i + 1, d.jobs.join(", "))
            }
            None => {
                targets.push(format!("--target PATH{}", i + 1));
                format!(
                    "device {}: the jobs without filename ({}); fio makes each a file of its own in the \
                     directory it runs in ({})",
                    i + 1,
                    d.jobs.join(", "),
                    d.own_files.join(", ")
                )
            }
        };
        out.push_str(&comment("", "- ", "  ", &text));
    }
    out.push_str(&comment("", "", "", &format!("Run: `methodic run FILE.method {}`", targets.join(" "))));
    out
}

/// The notes on `[global]` options, once each, and the jobs whose random
/// offsets fio draws otherwise.
fn global_comments(steps: &[&Step]) -> String {
    let mut out = String::new();
    let mut seen = HashSet::new();
    let mut global: Vec<&Note> = steps
        .iter()
        .flat_map(|s| &s.notes)
        .filter(|n| n.global)
        .filter(|n| seen.insert((n.line, &n.text)))
        .collect();
    global.sort_by_key(|n| n.line);
    if !global.is_empty() {
        out.push_str("# From [global]:\n");
        for n in global {
            out.push_str(&comment("", "- ", "  ", &n.text));
        }
    }
    let random: Vec<String> =
        steps.iter().filter(|s| s.random_map).map(|s| format!("[{}]", s.section)).collect();
    if !random.is_empty() {
        out.push_str(&comment(
            "",
            "",
            "",
            &format!(
                "Random offsets: fio (without norandommap) sends each random I/O of {} to a block not yet \
                 touched in this pass; methodic draws offsets independently, so some blocks are hit twice \
                 and others not at all.",
                random.join(", ")
            ),
        ));
    }
    out
}

/// One phase: its notes, each job's comment, the target settings, and
/// its measurement or together step.
fn phase_block(phase: &Phase, workloads: &[&String], phase_names: &mut HashSet<String>) -> String {
    let mut out = String::new();
    out.push('\n');
    let title = phase.steps.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(" + ");
    out.push_str(&format!("phase {} {{\n", quote(&phase_name(&title, phase_names))));
    for n in &phase.notes {
        out.push_str(&comment("  ", "", "  ", n));
    }
    for s in &phase.steps {
        out.push_str(&job_comment(s));
    }
    let s = &phase.steps[0];
    // The jobs of a together step share the target's settings: the
    // import checked that they agree, and that the data is that of
    // the jobs that write.
    let data = phase.steps.iter().find(|s| s.read < Percent::HUNDRED).map_or(s.data, |w| w.data);
    let data = match data {
        Data::Random => "random".to_string(),
        Data::Zeros => "zeros".to_string(),
        Data::Compressible(p) => format!("compressible {p}"),
    };
    out.push_str(&format!(
        "  target {{ span {}; workers {}; io {}; data {data} }}\n",
        extent(s.span),
        s.workers,
        if s.direct { "direct" } else { "buffered" }
    ));
    if s.drop_caches {
        out.push_str("  # fio drops the file's cached pages when a buffered job starts (invalidate=1).\n");
        out.push_str("  drop_caches\n");
    }
    if phase.together {
        out.push_str(&together(phase, workloads));
    } else if let Some(l) = s.latency {
        out.push_str(&qos(s, l, workloads[0]));
    } else {
        out.push_str(&measure(s, workloads[0]));
    }
    out.push_str("}\n");
    out
}

/// A workload's properties: `random; block 4KiB; read 100%`.
fn workload(s: &Step) -> String {
    let mut access = if s.random == Percent::HUNDRED {
        "random".to_string()
    } else if s.random == Percent::ZERO {
        "sequential".to_string()
    } else {
        format!("random {}", s.random)
    };
    if !s.access.is_uniform() {
        access.push_str(&format!(" {}", s.access));
    }
    let sizes = |word: &str, split: &[(methodic_compiler::plan::Bytes, Percent)]| match split {
        [(b, _)] => format!("{word} {b}"),
        many => format!(
            "{word}s {{ {} }}",
            many.iter().map(|(b, p)| format!("{b}: {p}")).collect::<Vec<_>>().join(", ")
        ),
    };
    let blocks = sizes("block", &s.blocks);
    let mut props = vec![access, blocks, format!("read {}", s.read)];
    if let Some(w) = &s.write_blocks {
        props.push(sizes("write_block", w));
    }
    if s.trim > Percent::ZERO {
        props.push(format!("trim {}", s.trim));
    }
    if let Some(a) = s.align {
        props.push(format!("align {a}"));
    }
    if s.offset.0 > 0 {
        props.push(format!("offset {}", s.offset));
    }
    props.join("; ")
}

/// The comment that says where a step came from, and its notes.
fn job_comment(s: &Step) -> String {
    let mut out = String::new();
    let title = if s.name == s.section {
        format!("[{}]", s.section)
    } else {
        format!("[{}] (name={})", s.section, s.name)
    };
    out.push_str(&comment(
        "  ",
        "",
        "  ",
        &format!("fio job {title}, line {}: {}", s.line, s.options.join(" ")),
    ));
    if let Some(d) = &s.description {
        out.push_str(&comment("  ", "", "", d));
    }
    let mut seen = HashSet::new();
    let mut notes: Vec<&Note> =
        s.notes.iter().filter(|n| !n.global).filter(|n| seen.insert((n.line, &n.text))).collect();
    notes.sort_by_key(|n| n.line);
    for n in notes {
        out.push_str(&comment("  ", "- ", "  ", &n.text));
    }
    out
}

/// ` think 2000us every 4 drained` for fio's thinktime, or nothing.
fn think(s: &Step) -> String {
    s.think.map_or(String::new(), |t| format!(" think {}us every {} drained", t.pause_us, t.every))
}

/// ` rate 1000 iops poisson` (uniform arrivals, fio's linear, are the
/// default), or nothing for a closed loop.
fn rate(r: Option<Rate>) -> String {
    let Some(r) = r else { return String::new() };
    let amount = match r.amount {
        RateAmount::Iops(n) => format!("{n} iops"),
        RateAmount::Bandwidth(b) => format!("{b}/s"),
        // An import never makes one: fio has no rate that is a share of
        // another job's result.
        RateAmount::Share { share, of } => format!("{share} of step{}", of + 1),
    };
    match r.arrivals {
        Arrivals::Uniform => format!(" rate {amount}"),
        other => format!(" rate {amount} {}", other.keyword()),
    }
}

/// ` series 500ms` for a record time under a second (a series' default
/// interval), or nothing.
fn series(record: Option<Duration>) -> String {
    record.filter(|t| *t < Duration::from_secs(1)).map_or(String::new(), |t| format!(" series {t}"))
}

/// `  measure w qd 4 for 1min ramp 5s`: one job alone (`verify` last,
/// when it checks its data).
fn measure(s: &Step, workload: &str) -> String {
    let mut step = format!("  measure {workload} qd {}{}{}", s.qd, rate(s.rate), think(s));
    let record = match s.stop {
        Stop::Time(t) => {
            step.push_str(&format!(" for {t}"));
            Some(t)
        }
        Stop::Written { written: amount, time } | Stop::Transferred { transferred: amount, time } => {
            let word = if let Stop::Written { .. } = s.stop { "written" } else { "transferred" };
            step.push_str(&format!(" until {word} {}", extent(amount)));
            if let Some(t) = time {
                step.push_str(&format!(" for {t}"));
            }
            time
        }
    };
    if !s.ramp.is_zero() {
        step.push_str(&format!(" ramp {}", s.ramp));
    }
    step.push_str(&series(record));
    if s.verify {
        step.push_str(" verify");
    }
    step.push('\n');
    step
}

/// `  qos w qd 128 { p99.9 under 500ms; probe 5s; by qd }`: fio's latency
/// target, a search by queue depth up to the job's iodepth (per worker, as
/// the import counts it), with the job's ramp before each probe.
fn qos(s: &Step, l: LatencyTarget, workload: &str) -> String {
    let percentile = format!("{:.4}", l.percentile_ppm as f64 / 10_000.0);
    let percentile = percentile.trim_end_matches('0').trim_end_matches('.');
    let mut settings =
        vec![format!("p{percentile} under {}", exact_time(l.under_ns)), format!("probe {}", l.window)];
    if !s.ramp.is_zero() {
        settings.push(format!("ramp {}", s.ramp));
    }
    settings.push("by qd".to_string());
    format!("  qos {workload} qd {} {{ {} }}\n", s.qd, settings.join("; "))
}

/// A time in nanoseconds in the largest unit that holds it whole
/// (`500ms`, `1500us`), so that fio's target is kept to the microsecond.
fn exact_time(ns: u64) -> String {
    match ns {
        n if n % 1_000_000_000 == 0 => format!("{}s", n / 1_000_000_000),
        n if n % 1_000_000 == 0 => format!("{}ms", n / 1_000_000),
        n if n % 1_000 == 0 => format!("{}us", n / 1_000),
        n => format!("{n}ns"),
    }
}

/// The names of a together step's jobs: their sections, made names, without
/// the start they all share up to a `-`, `.` or `_` when what is left of
/// each is a name as it stands (`2-mix-reads` and `2-mix-writes` are `reads`
/// and `writes`; `seq-read` keeps its `seq`, as `read` is a keyword).
fn job_names(sections: &[&str]) -> Vec<String> {
    let shared = match sections {
        [first, rest @ ..] if !rest.is_empty() => {
            let common = rest.iter().fold(first.len(), |n, s| {
                first.bytes().zip(s.bytes()).take(n).take_while(|(a, b)| a == b).count()
            });
            // A separator is one byte, so the cut falls between characters.
            first.as_bytes()[..common].iter().rposition(|b| b"-._".contains(b)).map_or(0, |i| i + 1)
        }
        _ => 0,
    };
    let short: Vec<&str> = sections.iter().map(|s| &s[shared..]).collect();
    let as_it_stands = |s: &str| {
        let mut taken = HashSet::new();
        ident(s, &mut taken) == s
    };
    let unique = short.iter().collect::<HashSet<_>>().len() == short.len();
    let from =
        if shared > 0 && unique && short.iter().all(|s| as_it_stands(s)) { short } else { sections.to_vec() };
    let mut taken = HashSet::new();
    from.iter().map(|s| ident(s, &mut taken)).collect()
}

/// `  together for 1min ramp 5s { job ... }`: the jobs fio starts
/// together, each named after its section, on its own workers and device.
/// The import checked that they run for one time, after one ramp.
fn together(phase: &Phase, workloads: &[&String]) -> String {
    let s = &phase.steps[0];
    let record = match s.stop {
        Stop::Time(t) => t,
        Stop::Written { .. } | Stop::Transferred { .. } => {
            unreachable!("a job that ends by size is refused in a together step")
        }
    };
    let mut out = format!("  together for {record}");
    if !s.ramp.is_zero() {
        out.push_str(&format!(" ramp {}", s.ramp));
    }
    out.push_str(&series(Some(record)));
    out.push_str(" {\n");
    let several = phase.devices.iter().any(|d| *d != 1);
    let sections: Vec<&str> = phase.steps.iter().map(|s| s.section.as_str()).collect();
    for (((s, w), device), name) in
        phase.steps.iter().zip(workloads).zip(&phase.devices).zip(job_names(&sections))
    {
        out.push_str(&format!(
            "    job {name} {w} qd {} workers {}{}{}",
            s.qd,
            s.workers,
            rate(s.rate),
            think(s)
        ));
        if several {
            out.push_str(&format!(" device {device}"));
        }
        out.push('\n');
    }
    out.push_str("  }\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fit_the_language() {
        let mut taken = HashSet::new();
        assert_eq!(ident("randread-qd32", &mut taken), "randread_qd32");
        assert_eq!(ident("randread qd32", &mut taken), "randread_qd32_2");
        assert_eq!(ident("4k read", &mut taken), "job_4k_read");
        assert_eq!(ident("read", &mut taken), "read_job");
        assert_eq!(ident("---", &mut taken), "fio_job");
        assert_eq!(ident("job", &mut taken), "job_job");
        assert_eq!(ident("rate", &mut taken), "rate_job");
        let mut phases = HashSet::new();
        assert_eq!(phase_name("job-a", &mut phases), "job-a");
        assert_eq!(phase_name("job_a", &mut phases), "job_a 2");
        assert_eq!(phase_name("--", &mut phases), "job");
    }

    #[test]
    fn a_together_steps_jobs_drop_the_start_their_sections_share() {
        assert_eq!(
            job_names(&["2-mix.together-reads-writes-reads", "2-mix.together-reads-writes-writes"]),
            ["reads", "writes"]
        );
        assert_eq!(job_names(&["seq-read", "seq-write"]), ["seq_read", "seq_write"], "read is a keyword");
        assert_eq!(
            job_names(&["db-Reads", "db-writes"]),
            ["db_reads", "db_writes"],
            "not a name as it stands"
        );
        assert_eq!(job_names(&["reader", "writer"]), ["reader", "writer"]);
        assert_eq!(job_names(&["a-x", "b-x"]), ["a_x", "b_x"]);
        assert_eq!(job_names(&["job", "job"]), ["job_job", "job_job_2"]);
        assert_eq!(job_names(&["x-1", "x-2"]), ["x_1", "x_2"], "a name does not start with a digit");
        assert_eq!(job_names(&["é-a", "è-b"]), ["a", "b"], "no cut inside a character");
    }
}
