//! The `Method` out as methodology text (formatted afterwards by
//! `finish`): a header comment naming the source and the devices, the
//! conventions (binary units, queue depth per worker as DiskSpd's `-o`
//! is per thread), a workload a target, and a phase a time span with its
//! notes as comments.

use super::model::Note;
use super::translate::{Job, Method, Phase, is_drive};
use crate::finish::comment;
use crate::text::{one_line, quote};

/// Comment lines are wrapped at this width.
const WIDTH: usize = 100;

/// `- <BlockSize>4096</BlockSize> (line 12): why`.
fn note(n: &Note) -> String {
    let at = if n.at.line > 0 { format!(" (line {})", n.at.line) } else { String::new() };
    format!("- {}{at}: not carried over: {}", one_line(&n.at.said), n.why)
}

/// Notes in the order of their lines.
fn by_line(notes: &[Note]) -> Vec<&Note> {
    let mut out: Vec<&Note> = notes.iter().collect();
    out.sort_by_key(|n| n.at.line);
    out
}

/// Indented comment lines.
fn comment_in(indent: &str, text: &str) -> String {
    comment(text, WIDTH - indent.len()).lines().map(|l| format!("{indent}{l}\n")).collect()
}

/// What a device is, in DiskSpd's terms.
fn device_kind(path: &str) -> String {
    if let Some(n) = path.strip_prefix('#') {
        format!("{path} (DiskSpd's physical drive {n}: give the Linux device, such as /dev/nvme0n1)")
    } else if is_drive(path) {
        format!("{path} (a Windows volume: give the Linux device or a file on it)")
    } else if let Some(n) = path.strip_prefix('*') {
        format!("{path} (the profile's template: the path number {n} given after -X)")
    } else {
        one_line(path)
    }
}

/// The methodology text.
pub(crate) fn method_to_text(m: &Method, file: &str, name: &str, command_line: bool) -> String {
    let mut out = format!(
        "# Imported from {} by methodic {} (`methodic import diskspd`).\n",
        one_line(file),
        env!("CARGO_PKG_VERSION")
    );
    let (what, unit) = if command_line { ("command line", "command") } else { ("profile", "time span") };
    out.push_str(&comment(
        &format!(
            "Each DiskSpd {unit} is a phase, run in order; its targets are a measurement (one target) or a together step with a job a target, all at once as DiskSpd runs them. DiskSpd's -o (RequestCount) and -t (ThreadsPerFile) are I/Os in flight per thread and threads: here the queue depth per worker and the workers."
        ),
        WIDTH,
    ));
    out.push_str(&devices(&m.devices));
    if !m.notes.is_empty() {
        out.push_str(&format!("# From the {what}:\n"));
        for n in by_line(&m.notes) {
            out.push_str(&comment(&note(n), WIDTH));
        }
    }
    let stem =
        std::path::Path::new(file).file_name().map_or(file.to_string(), |f| f.to_string_lossy().into_owned());
    let count = crate::finish::count(m.phases.len(), unit);
    out.push_str(&format!("methodology {} version \"1.0\"\n", quote(name)));
    out.push_str(&format!(
        "describe {}\n\n",
        quote(&format!("imported from the DiskSpd {what} {stem}: {count}"))
    ));
    out.push_str("conventions {\n  units binary\n  queue_depth per_worker\n  value step_average\n}\n\n");
    if m.write_cache_off {
        out.push_str(&comment(
            "DiskSpd's write-through (-Sh, <WriteThrough>) on every target that writes: \"no hardware write caching\", the drives' write cache off for the run.",
            WIDTH,
        ));
        out.push_str("target { write_cache off }\n\n");
    }
    for p in &m.phases {
        for j in &p.jobs {
            out.push_str(&format!("workload {} {{ {} }}\n", j.workload_name, j.workload));
        }
    }
    for p in &m.phases {
        out.push_str(&phase(p));
    }
    out
}

/// The devices, a line each, and the command that runs on them.
fn devices(paths: &[String]) -> String {
    let mut out = String::new();
    if paths.is_empty() {
        return out;
    }
    out.push_str(&comment(
        "Devices: each DiskSpd target is a device here (`device N` is the Nth --target), in the order the file first names them:",
        WIDTH,
    ));
    let mut targets = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        out.push_str(&comment(&format!("- device {}: {}", i + 1, device_kind(p)), WIDTH));
        targets.push(format!("--target PATH{}", i + 1));
    }
    out.push_str(&comment(&format!("Run: `methodic run FILE.method {}`", targets.join(" ")), WIDTH));
    out
}

/// One phase: its notes, a comment a target, its target block and its step.
fn phase(p: &Phase) -> String {
    let mut out = format!("\nphase {} {{\n", quote(&p.title));
    let at = if p.at.line > 0 { format!(", line {}", p.at.line) } else { String::new() };
    out.push_str(&comment_in("  ", &format!("DiskSpd {}{at}", one_line(&p.at.said))));
    for s in &p.said {
        out.push_str(&comment_in("  ", s));
    }
    for n in by_line(&p.notes) {
        out.push_str(&comment_in("  ", &note(n)));
    }
    for j in &p.jobs {
        out.push_str(&job_comment(j));
    }
    let first = &p.jobs[0];
    out.push_str(&format!(
        "  target {{ span {}; workers {}; io {}; data {} }}\n",
        p.shared.span,
        first.workers,
        if p.shared.direct { "direct" } else { "buffered" },
        p.shared.data.unwrap_or("random")
    ));
    let mut timing = format!(" for {}s", p.record);
    if p.ramp > 0 {
        timing.push_str(&format!(" ramp {}s", p.ramp));
    }
    if let Some(ms) = p.series_ms {
        timing.push_str(&format!(" series {ms}ms"));
    }
    if p.jobs.len() == 1 && first.device == 1 {
        out.push_str(&format!("  measure {} qd {}{}{timing}\n", first.workload_name, first.qd, load(first)));
        if let Some(c) = p.cooldown {
            out.push_str(&comment_in(
                "  ",
                "DiskSpd's cool-down: the same I/O after the measurement, not recorded, before the next time span.",
            ));
            out.push_str(&format!("  precondition {} qd {} for {c}s\n", first.workload_name, first.qd));
        }
    } else {
        out.push_str(&format!("  together{timing} {{\n"));
        for j in &p.jobs {
            out.push_str(&format!(
                "    job {} {} qd {} workers {}{} device {}\n",
                j.name,
                j.workload_name,
                j.qd,
                j.workers,
                load(j),
                j.device
            ));
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

/// ` rate 1000 iops think 20ms every 32`, or nothing.
fn load(j: &Job) -> String {
    let mut out = String::new();
    if let Some(r) = &j.rate {
        out.push_str(&format!(" rate {r}"));
    }
    if let Some(t) = &j.think {
        out.push_str(&format!(" {t}"));
    }
    out
}

/// The comment above a phase's step for one target: where it came from and its notes.
fn job_comment(j: &Job) -> String {
    let mut out =
        comment_in("  ", &format!("{}: workload {}, device {}", j.about, j.workload_name, j.device));
    for s in &j.said {
        out.push_str(&comment_in("  ", &format!("  {s}")));
    }
    for n in by_line(&j.notes) {
        out.push_str(&comment_in("  ", &format!("  {}", note(n))));
    }
    out
}
