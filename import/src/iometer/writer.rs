//! The methodology text of a translated .icf file: the header comment
//! (where it came from, the devices and how to run it, every note), the
//! methodology's name and description, the conventions Iometer counts by
//! (`queue_depth per_worker`: outstanding I/Os are per worker), the target,
//! a workload an access specification with its comments, and the steps.
//! Formatted afterwards by `finish::finish`.

use super::steps::Run;
use super::workloads::Workload;
use crate::finish::comment;
use crate::text::{one_line, quote};

/// Comments are wrapped to this width, as `import fio` wraps them.
const WIDTH: usize = 100;

/// Everything the text is made of.
pub(super) struct Method<'a> {
    pub(super) file: &'a str,
    pub(super) name: &'a str,
    pub(super) version: &'a str,
    pub(super) description: String,
    pub(super) notes: Vec<String>,
    pub(super) workloads: Vec<&'a Workload>,
    /// The workloads' offset in bytes (the starting sector), 0 for none.
    pub(super) offset: u64,
    /// `None` for a file of access specifications only.
    pub(super) run: Option<&'a Run>,
}

/// The methodology's source (formatted afterwards).
pub(super) fn method_text(m: &Method<'_>) -> String {
    let mut out = format!(
        "# Imported from {} by methodic {} (`methodic import iometer`).\n",
        one_line(m.file),
        env!("CARGO_PKG_VERSION")
    );
    out.push_str(&comment(&format!("Iometer file version {}.", one_line(m.version)), WIDTH));
    match m.run {
        None => out.push_str(&comment(
            "A file of access specifications only: a methodology of workloads, without steps. Another \
             methodology brings them in with `use \"THIS_FILE.method\"` (a path from its own folder).",
            WIDTH,
        )),
        Some(run) => out.push_str(&devices(&run.devices)),
    }
    for n in &m.notes {
        out.push_str(&comment(&format!("- {}", one_line(n)), WIDTH));
    }
    out.push_str(&format!("methodology {} version \"1.0\"\n", quote(m.name)));
    out.push_str(&format!("describe {}\n\n", quote(&m.description)));
    out.push_str("# Iometer counts outstanding I/Os per worker (per target of a worker).\n");
    out.push_str("conventions {\n  units decimal\n  queue_depth per_worker\n  value step_average\n}\n\n");
    if let Some(run) = m.run {
        out.push_str(
            "# Iometer's I/O is unbuffered (O_DIRECT on Linux, FILE_FLAG_NO_BUFFERING on Windows).\n",
        );
        out.push_str(&format!("target {{ {} }}\n\n", run.target));
    }
    for w in &m.workloads {
        out.push_str(&comment(
            &format!("Iometer access specification {} (line {}).", one_line(&quote(&w.name)), w.line),
            WIDTH,
        ));
        for n in &w.notes {
            out.push_str(&comment(&format!("- {}", one_line(n)), WIDTH));
        }
        let offset = if m.offset > 0 {
            format!("; offset {}", methodic_compiler::plan::Bytes(m.offset))
        } else {
            String::new()
        };
        out.push_str(&format!("workload {} {{ {}{offset} }}\n", w.ident, w.body));
    }
    if let Some(run) = m.run {
        for s in &run.steps {
            out.push('\n');
            out.push_str(&comment(&s.comment, WIDTH));
            out.push_str(&s.text);
            out.push('\n');
        }
    }
    out
}

/// The devices, by the targets Iometer names, and the command that runs
/// the methodology on them (the .icf import's words, and the results
/// import's).
pub(crate) fn devices(names: &[String]) -> String {
    let mut out = String::new();
    let targets: Vec<String> = (1..=names.len()).map(|i| format!("--target DISK{i}")).collect();
    if let [one] = names {
        out.push_str(&comment(
            &format!(
                "Iometer's target: {} (the disk the workers run on): give it as `--target` when the \
                 methodology runs.",
                one_line(one)
            ),
            WIDTH,
        ));
    } else {
        out.push_str(&comment(
            "Devices: the workers' Iometer targets, each a device here (`device N` is the Nth --target), in \
             the order the file first names them:",
            WIDTH,
        ));
        for (i, d) in names.iter().enumerate() {
            out.push_str(&comment(&format!("- device {}: {}", i + 1, one_line(d)), WIDTH));
        }
    }
    out.push_str(&comment(&format!("Run: `methodic run FILE.method {}`", targets.join(" ")), WIDTH));
    out
}
