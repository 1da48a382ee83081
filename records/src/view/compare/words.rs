//! How a comparison says its runs and its values, alike in the table, the
//! page, the charts and the differences: a run's letter in, `A`; a status,
//! `completed`; a value kind, `peaks`; a value, `1234` or `0.52`. Names
//! nothing else of the comparison.

use methodic_compiler::plan::ValueKind;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_lettered_then_numbered() {
        assert_eq!(letter(0), "A");
        assert_eq!(letter(26), "R27");
    }
}
