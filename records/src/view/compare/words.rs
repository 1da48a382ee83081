//! How a comparison says its runs and its values, alike in the table, the
//! page, the charts and the differences: a run's letter in, `A`; a status,
//! `completed`; a value kind, `peaks`; a value, `1234` or `0.52`. Names
//! nothing else of the comparison.

use methodic_compiler::plan::ValueKind;

use crate::manifest::Loaded;
use crate::record::Status;

/// A, B, C... for the directories in command-line order.
pub(crate) fn letter(i: usize) -> String {
    if i < 26 { ((b'A' + i as u8) as char).to_string() } else { format!("R{}", i + 1) }
}

/// `completed`, `failed`: a run's status in a word.
pub(crate) fn status_name(s: Status) -> &'static str {
    match s {
        Status::Running => "running",
        Status::Completed => "completed",
        Status::Failed => "failed",
        Status::Interrupted => "interrupted",
    }
}

/// `peaks`, `step averages`, `steady-state averages`.
pub(crate) fn plural_kind(k: ValueKind) -> &'static str {
    match k {
        ValueKind::StepAverage => "step averages",
        ValueKind::SteadyStateAverage => "steady-state averages",
        ValueKind::Peak => "peaks",
    }
}

/// A compared value as the table and the page write it: whole from 100 up,
/// two decimals below, `-` for none.
pub(crate) fn compact(v: Option<f64>) -> String {
    match v {
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.2}"),
        None => "-".into(),
    }
}

/// What ran the run, for a reader: its drives' model and firmware
/// (`Samsung SSD 990 PRO 2TB, firmware 4B2QJXD7`; `4 x ...` for four of
/// one), else its hosts (a run on many), else its target and host
/// (`file scratch.bin on host bench`).
pub(crate) fn run_name(run: &Loaded) -> String {
    let m = &run.manifest;
    let mut drives: Vec<(String, usize)> = Vec::new();
    for t in &m.targets {
        let Some(model) = &t.identity.model else { continue };
        let name = match &t.identity.firmware {
            Some(fw) => format!("{}, firmware {}", model.trim(), fw.trim()),
            None => model.trim().to_string(),
        };
        match drives.iter_mut().find(|(n, _)| *n == name) {
            Some((_, count)) => *count += 1,
            None => drives.push((name, 1)),
        }
    }
    if !drives.is_empty() {
        return drives
            .iter()
            .map(|(n, count)| if *count > 1 { format!("{count} x {n}") } else { n.clone() })
            .collect::<Vec<_>>()
            .join("; ");
    }
    if !m.hosts.is_empty() {
        let names: Vec<&str> = m.hosts.iter().map(|h| h.hostname.as_deref().unwrap_or(&h.host)).collect();
        return format!("{} hosts: {}", names.len(), names.join(", "));
    }
    let host = m.host.hostname.as_deref().unwrap_or("an unnamed host");
    match m.targets.first() {
        Some(t) => {
            let what = t.kind.words();
            let name =
                t.path.file_name().map_or(t.path.display().to_string(), |n| n.to_string_lossy().into());
            format!("{what} {name} on host {host}")
        }
        None => format!("host {host}"),
    }
}

/// A run's drives by model and serial (`2 x` for two of one model, each
/// serial given), else the name `compare` gives the run.
pub(crate) fn drive_name(run: &Loaded) -> String {
    let drives: Vec<String> = run
        .manifest
        .targets
        .iter()
        .filter_map(|t| {
            let model = t.identity.model.as_deref()?.trim();
            Some(match t.identity.serial.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
                Some(serial) => format!("{model}, serial {serial}"),
                None => model.to_string(),
            })
        })
        .collect();
    if drives.is_empty() { run_name(run) } else { drives.join("; ") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_lettered_then_numbered() {
        assert_eq!(letter(0), "A");
        assert_eq!(letter(26), "R27");
    }
}
