//! The methodology text out of the translated jobs: a header comment, the
//! conventions, one workload per job and one phase per job with its notes
//! as comments. Formatted afterwards by `methodic_grammar::format`.

use std::collections::HashSet;
use std::path::Path;

use methodic_compiler::plan::{Duration, Percent};
use methodic_grammar::is_reserved;

use crate::job_file::Section;
use crate::translate::{Data, FioSpan, Note, Step, Stop};

/// `1 job`, `2 jobs`.
fn count(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// A name methodic can use for a workload: letters, digits and `_`, not a
/// keyword, not taken.
fn ident(name: &str, taken: &mut HashSet<String>) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let mut out = out.trim_matches('_').to_string();
    // `job` is a keyword.
    if out.is_empty() {
        out = "fio_job".to_string();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out = format!("job_{out}");
    }
    if is_reserved(&out) {
        out.push_str("_job");
    }
    let mut unique = out.clone();
    let mut n = 2;
    while !taken.insert(unique.clone()) {
        unique = format!("{out}_{n}");
        n += 1;
    }
    unique
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

/// The steps to methodology text (formatted afterwards).
pub(crate) fn steps_to_method(steps: &[Step], file: &str, name: &str, sections: &[Section]) -> String {
    let mut out = String::new();
    let version = env!("CARGO_PKG_VERSION");
    out.push_str(&format!(
        "# Imported from {} by methodic {version} (`methodic import fio`).\n",
        one_line(file)
    ));
    if steps.len() == 1 {
        out.push_str("# The fio job is a phase with one measurement.\n");
    } else {
        out.push_str(
            "# Each fio job is a phase with one measurement; fio runs the jobs one after\n\
             # another (stonewall), and so does this methodology.\n",
        );
    }
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
    let mut phases = HashSet::new();
    let idents: Vec<String> = steps.iter().map(|s| ident(&s.name, &mut names)).collect();
    for (s, w) in steps.iter().zip(&idents) {
        let access = if s.random == Percent::HUNDRED {
            "random".to_string()
        } else if s.random == Percent::ZERO {
            "sequential".to_string()
        } else {
            format!("random {}", s.random)
        };
        let blocks = match s.blocks.as_slice() {
            [(b, _)] => format!("block {b}"),
            many => format!(
                "blocks {{ {} }}",
                many.iter().map(|(b, p)| format!("{b}: {p}")).collect::<Vec<_>>().join(", ")
            ),
        };
        let mut props = vec![access, blocks, format!("read {}", s.read)];
        if let Some(a) = s.align {
            props.push(format!("align {a}"));
        }
        if s.offset.0 > 0 {
            props.push(format!("offset {}", s.offset));
        }
        out.push_str(&format!("workload {w} {{ {} }}\n", props.join("; ")));
    }
    for (s, w) in steps.iter().zip(&idents) {
        out.push('\n');
        out.push_str(&format!("phase {} {{\n", quote(&phase_name(&s.name, &mut phases))));
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
        let data = match s.data {
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
            out.push_str(
                "  # fio drops the file's cached pages when a buffered job starts (invalidate=1).\n",
            );
            out.push_str("  drop_caches\n");
        }
        let mut step = format!("  measure {w} qd {}", s.qd);
        let record = match s.stop {
            Stop::Time(t) => {
                step.push_str(&format!(" for {t}"));
                Some(t)
            }
            Stop::Written { written, time } => {
                step.push_str(&format!(" until written {}", extent(written)));
                if let Some(t) = time {
                    step.push_str(&format!(" for {t}"));
                }
                time
            }
        };
        if !s.ramp.is_zero() {
            step.push_str(&format!(" ramp {}", s.ramp));
        }
        if let Some(t) = record.filter(|t| *t < Duration::from_secs(1)) {
            step.push_str(&format!(" series {t}"));
        }
        out.push_str(&step);
        out.push_str("\n}\n");
    }
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
}
