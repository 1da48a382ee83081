//! The report's header, from the manifest: the title and subtitle, the run's
//! status in words, and the tables a SNIA PTS report header shows
//! (`Platform`, `Device`, `Setup`, `Test parameters`), the host ceiling
//! and the CPUs' governor, turbo and C-states among them; a run on many
//! hosts adds a `Hosts` table after `Platform` (see [`super::hosts`]).

use methodic_compiler::plan::Units;

use crate::manifest::{ImportedNote, Manifest};
use crate::record::Status;
use crate::units::human;

/// `Platform`, `Device`, `Setup`, `Test parameters`: what the SNIA PTS
/// report header shows, from the manifest, each table a row a field in
/// the order the specification lists them (a run on many hosts: `Hosts`
/// after `Platform`, and `Device` only where it names a target).
pub fn header(m: &Manifest) -> Vec<(String, Vec<(String, String)>)> {
    if let Some(n) = &m.imported {
        return imported_header(m, n);
    }
    let mut sections = vec![("Platform".to_string(), platform(m))];
    let hosts = super::hosts::header_rows(m);
    // A run on many hosts names each host's target there, and may have
    // no target here.
    let device = device(m);
    let devices = !device.is_empty() || hosts.is_empty();
    if !hosts.is_empty() {
        sections.push(("Hosts".into(), hosts));
    }
    if devices {
        sections.push(("Device".into(), device));
    }
    sections.extend([("Setup".to_string(), setup(m)), ("Test parameters".into(), test_parameters(m))]);
    sections
}

/// An imported result's header: where it came from and what its file
/// states, each field it does not state said so (not `unknown` of a host
/// methodic looked at), then the plan's test parameters.
fn imported_header(m: &Manifest, n: &ImportedNote) -> Vec<(String, Vec<(String, String)>)> {
    let host_stated = !n.not_stated.iter().any(|f| f == "host");
    let h = &m.host;
    let stated = |v: &Option<String>| v.clone().unwrap_or_else(|| "not stated".into());
    let mut platform = vec![("host".to_string(), stated(&h.hostname))];
    if host_stated || h.cpu_model.is_some() {
        platform.push(("CPU".into(), stated(&h.cpu_model)));
    }
    if h.memory_bytes > 0 {
        platform.push(("memory".into(), human(h.memory_bytes)));
    }
    if let Some(os) = &h.os {
        platform.push(("OS".into(), os.clone()));
    }
    if !host_stated {
        platform.push((
            "not stated".into(),
            "the file does not state the host's CPU, memory, kernel or power settings".into(),
        ));
    }
    let mut source = vec![
        ("tool".to_string(), n.tool_words()),
        ("file".into(), format!("{} ({})", n.file, n.format)),
        ("file hash".into(), n.hash.clone()),
        ("ran".into(), stated(&n.ran)),
        ("targets".into(), if n.targets.is_empty() { "not stated".into() } else { n.targets.join(", ") }),
        ("engine".into(), m.engine.choice.clone()),
        ("not stated".into(), if n.not_stated.is_empty() { "-".into() } else { n.not_stated.join(", ") }),
        (
            "imported".into(),
            format!(
                "by {} {}; methodology {} version {} (plan {})",
                m.tool.name,
                m.tool.version,
                m.methodology.name,
                m.methodology.version,
                m.methodology.plan_hash
            ),
        ),
    ];
    for (k, note) in n.notes.iter().enumerate() {
        source.push((if k == 0 { "notes".into() } else { String::new() }, note.clone()));
    }
    vec![
        ("Source".to_string(), source),
        ("Platform".into(), platform),
        ("Test parameters".into(), test_parameters(m)),
    ]
}

/// `unknown` for a field the host did not tell.
fn or_unknown(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "unknown".into())
}

/// The machine methodic ran on: host, CPU, memory, kernel, OS, its power
/// settings where recorded, and the host ceiling.
fn platform(m: &Manifest) -> Vec<(String, String)> {
    let h = &m.host;
    let mut platform = vec![
        ("host".to_string(), or_unknown(&h.hostname)),
        (
            "CPU".into(),
            format!("{} ({} CPUs online, {} allowed)", or_unknown(&h.cpu_model), h.cpus, h.cpus_allowed),
        ),
        ("memory".into(), human(h.memory_bytes)),
        (
            "kernel".into(),
            format!("Linux {} {}", or_unknown(&h.kernel), h.kernel_build.as_deref().unwrap_or("")),
        ),
        ("OS".into(), or_unknown(&h.os)),
        ("architecture".into(), h.arch.clone()),
    ];
    if let Some(v) = &h.virtualization {
        platform.push(("virtualization".into(), v.clone()));
    }
    // Results from before the power settings were recorded have no rows.
    if let Some(p) = &h.power {
        platform.push(("CPU frequency governor".into(), p.governor_words()));
        platform.push(("turbo".into(), p.turbo_words()));
        platform.push(("C-states".into(), p.cstate_words()));
    }
    platform.extend(ceiling_rows(m));
    platform
}

/// Each target: its path, capacity, block sizes and what its identity
/// says (model, serial, firmware, ..., its file system).
fn device(m: &Manifest) -> Vec<(String, String)> {
    let mut device = Vec::new();
    for (i, t) in m.targets.iter().enumerate() {
        let n = if m.targets.len() > 1 { format!(" {}", i + 1) } else { String::new() };
        let id = &t.identity;
        device.push((format!("target{n}"), format!("{} ({})", t.path.display(), t.describe())));
        device.push((format!("capacity{n}"), format!("{} ({} bytes)", human(t.capacity), t.capacity)));
        device.push((
            format!("block size{n}"),
            format!("{} B logical, {} B physical", t.logical_block, t.physical_block),
        ));
        let known = [
            ("model", &id.model),
            ("serial", &id.serial),
            ("firmware", &id.firmware),
            ("vendor", &id.vendor),
            ("driver", &id.driver),
            ("I/O scheduler", &id.scheduler),
            ("write cache", &id.write_cache),
            ("loop backing file", &id.backing_file),
        ];
        for (k, v) in known {
            if let Some(v) = v {
                device.push((format!("{k}{n}"), v.clone()));
            }
        }
        if let Some(r) = id.rotational {
            device.push((format!("rotational{n}"), if r { "yes" } else { "no (solid state)" }.into()));
        }
        if let Some(fs) = &id.file_system {
            device.push((
                format!("file system{n}"),
                format!("{} on {} at {} ({})", fs.fs_type, fs.source, fs.mount_point, fs.options),
            ));
        }
    }
    device
}

/// How the run was made: methodology, hashes, tool, engine, status, seed.
fn setup(m: &Manifest) -> Vec<(String, String)> {
    let e = &m.engine;
    vec![
        (
            "methodology".to_string(),
            format!(
                "{} version {}{}",
                m.methodology.name,
                m.methodology.version,
                m.methodology.description.as_deref().map(|d| format!(": {d}")).unwrap_or_default()
            ),
        ),
        ("source hash".into(), m.methodology.source_hash.clone()),
        ("plan hash".into(), format!("{} (schema {})", m.methodology.plan_hash, m.methodology.plan_schema)),
        (
            "tool".into(),
            format!(
                "{} {}{}",
                m.tool.name,
                m.tool.version,
                m.tool.git_revision.as_deref().map(|r| format!(" ({r})")).unwrap_or_default()
            ),
        ),
        (
            "engine".into(),
            format!(
                "{}; io_uring {}; workers {}pinned; latency {}recorded",
                e.choice,
                match &e.io_uring_unavailable {
                    Some(why) => format!("unavailable ({why})"),
                    None if e.io_uring => "available".into(),
                    None => "not used".into(),
                },
                if e.pinned { "" } else { "not " },
                if e.latency_recorded { "" } else { "NOT " }
            ),
        ),
        ("run".into(), format!("{}: started {}, {:.1}s", status_word(m.status), m.started, m.seconds)),
        ("seed".into(), m.seed.to_string()),
    ]
}

/// The plan's conventions and target: units, queue depth counting, value,
/// span, workers and devices, I/O, data pattern, and the steps.
fn test_parameters(m: &Manifest) -> Vec<(String, String)> {
    let c = &m.plan.conventions;
    let t = &m.plan.target;
    vec![
        (
            "units".to_string(),
            match c.units {
                Units::Decimal => "decimal: MB = 10^6 bytes".into(),
                Units::Binary => "binary: MiB = 2^20 bytes".to_string(),
            },
        ),
        (
            "queue depth".into(),
            match c.queue_depth {
                methodic_compiler::plan::QdCounting::Total => "counted in total, over all workers".into(),
                methodic_compiler::plan::QdCounting::PerWorker => "counted per worker".to_string(),
            },
        ),
        ("value reported".into(), c.value.words().into()),
        ("span".into(), t.span.to_string()),
        ("workers x devices".into(), format!("{} x {}", t.workers, t.devices)),
        (
            "I/O".into(),
            match t.io {
                methodic_compiler::plan::IoMode::Direct => "direct (O_DIRECT)".into(),
                methodic_compiler::plan::IoMode::Buffered => "buffered (page cache)".to_string(),
            },
        ),
        ("data pattern".into(), t.data.to_string()),
        (
            "steps".into(),
            format!(
                "{} planned, {} recorded",
                m.plan.steps.len(),
                m.steps.iter().filter(|s| s.seconds.is_some()).count()
            ),
        ),
    ]
}

/// `the run failed`, for the line that says not everything is shown.
pub fn status_sentence(s: Status) -> &'static str {
    match s {
        Status::Running => {
            "the run did not finish (its manifest still says running: cut off by a crash, or still going)"
        }
        Status::Completed => "the run completed",
        Status::Failed => "the run failed",
        Status::Interrupted => "the run was interrupted",
    }
}

/// The most shapes the platform table lists one a row.
const CEILING_ROWS: usize = 16;

/// `54 I/O shapes read from RAM, 0.5s each; memory copy 18181 MB/s`; for
/// an older manifest its one ceiling: `3300000 IOPS (4096 B random reads
/// from RAM at QD 32), 51758 MB/s (...)`.
pub fn ceiling_words(m: &Manifest) -> Option<String> {
    if let Some(c) = &m.ceilings {
        let unmeasured = match c.unmeasured.len() {
            0 => String::new(),
            n => format!(" ({n} more not measured)"),
        };
        return Some(format!(
            "{} read from RAM{unmeasured}, {}s each; memory copy {:.0} MB/s; each step is judged against the ceiling \
             of its own shape",
            methodic_compiler::plan::plural(c.shapes.len() as u64, "I/O shape", "I/O shapes"),
            c.seconds_each,
            c.memory_copy_mb_s
        ));
    }
    m.host_ceiling.as_ref().map(|c| {
        format!(
            "{:.0} IOPS ({} B random reads from RAM at QD {}), {:.0} MB/s ({} B sequential), memory copy {:.0} MB/s; {}",
            c.iops, c.iops_block, c.qd, c.mb_s, c.bandwidth_block, c.memory_copy_mb_s, c.engine
        )
    })
}

/// The platform table's host ceiling: the summary, then a row a shape
/// (up to [`CEILING_ROWS`]) and a row a shape not measured.
fn ceiling_rows(m: &Manifest) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> =
        ceiling_words(m).map(|w| ("host ceiling".into(), w)).into_iter().collect();
    let Some(c) = &m.ceilings else { return rows };
    if c.shapes.len() > CEILING_ROWS {
        rows.push(("ceilings".into(), "each shape's is in manifest.json, under `ceilings`".into()));
        return rows;
    }
    for s in &c.shapes {
        rows.push((format!("ceiling, {}", s.shape), format!("{:.0} IOPS, {:.0} MB/s", s.iops, s.mb_s)));
    }
    for u in &c.unmeasured {
        rows.push((format!("ceiling, {}", u.shape), format!("not measured: {}", u.reason)));
    }
    rows
}

pub fn status_word(s: Status) -> &'static str {
    match s {
        Status::Running => "running (or cut off)",
        Status::Completed => "completed",
        Status::Failed => "failed",
        Status::Interrupted => "interrupted",
    }
}

pub fn title(m: &Manifest) -> String {
    format!("{} version {}", m.methodology.name, m.methodology.version)
}

pub fn subtitle(m: &Manifest) -> String {
    if let Some(n) = &m.imported {
        return format!("imported from {}: {}", n.describe(), status_word(m.status));
    }
    if !m.hosts.is_empty() {
        return format!(
            "{} on {} (fio client/server); methodic on {}",
            status_word(m.status),
            methodic_compiler::plan::plural(m.hosts.len() as u64, "host", "hosts"),
            m.host.describe()
        );
    }
    let target = m.targets.first().map_or("no target".into(), |t| t.describe());
    format!("{} on {}; {}", status_word(m.status), target, m.host.describe())
}
