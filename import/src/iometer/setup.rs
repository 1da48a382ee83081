//! The TEST SETUP section, read as `CPageSetup::LoadConfig` reads it
//! (iometer-org/iometer @ 7243b4d, `src/PageSetup.cpp:468-665`): the run
//! time (hours, minutes, seconds), the ramp (`'Ramp Up Time` is matched as
//! a prefix), the cycling settings (`LINEAR` or `EXPONENTIAL`, or their
//! codes 0 and 1) and the test type (a word or its code, `src/PageSetup.h:69-77`).
//! An unknown key is refused; files older than 1999.02.17 may end the
//! section at the next section's header instead of `'END test setup`. Also
//! the sequences Iometer's cycling runs (`CycleQueue` and `CycleWorkers`,
//! `src/GalileoView.cpp:1667-1715, 1893-1942`), which the export shares.

use super::lines::{Lines, Pair, Version, numbers, starts_with_ci};
use super::model::{At, Cycling, Setup, TestType};
use crate::ImportErrorKind;
use crate::problem::Problem;

const PLACE: &str = "TEST SETUP";

/// Iometer's longest run: `GetRunTime` is milliseconds in an `int`
/// (`src/PageSetup.cpp:670-676`).
pub(crate) const MAX_RUN: u64 = i32::MAX as u64 / 1000;

/// The section after its header line, up to its end line.
pub(super) fn read_setup(lines: &mut Lines<'_>, line: usize, version: u64) -> Result<Setup, Vec<Problem>> {
    let mut setup = Setup { line, ..Setup::default() };
    let mut problems = Vec::new();
    loop {
        if version < Version::STRICT_SETUP && lines.peek().is_some_and(super::reader::is_section_header) {
            break;
        }
        let pair = lines.pair(PLACE).map_err(|p| vec![p])?;
        if pair.value.is_none() {
            if pair.is("'END test setup") {
                break;
            }
            return Err(vec![unknown(&pair)]);
        }
        if let Err(p) = setup_key(&mut setup, &pair) {
            problems.push(p);
        }
    }
    if problems.is_empty() { Ok(setup) } else { Err(problems) }
}

/// A key Iometer does not have in this section.
fn unknown(pair: &Pair<'_>) -> Problem {
    Problem::new(
        ImportErrorKind::UnknownOption,
        pair.line,
        "Iometer has no such key in the TEST SETUP section, and refuses the file (from version 1999.02.17 on)",
    )
    .place(PLACE)
    .option(pair.key.to_string())
    .hint("keys are spelled as Iometer saves them, such as 'Run Time or 'Test Type")
}

/// A value Iometer would refuse or read otherwise.
fn bad(pair: &Pair<'_>, detail: impl Into<String>) -> Problem {
    Problem::new(ImportErrorKind::BadValue, pair.value_line, detail).place(PLACE).option(format!(
        "{} {}",
        pair.key,
        pair.value()
    ))
}

/// One key and its value into `setup`.
fn setup_key(setup: &mut Setup, pair: &Pair<'_>) -> Result<(), Problem> {
    let value = pair.value();
    let line = pair.value_line;
    if pair.is("'Test Description") {
        setup.description = Some(At::new(value.to_string(), line));
    } else if pair.is("'Run Time") {
        match numbers(value).as_deref() {
            Some([h, m, s]) if *h < 1_000_000 && *m < 1_000_000 && *s < 1_000_000_000 => {
                let total = h * 3600 + m * 60 + s;
                if total > MAX_RUN {
                    return Err(bad(
                        pair,
                        "a run time above 596 hours: Iometer counts it in milliseconds in 32 bits, and it overflows",
                    ));
                }
                setup.run = Some(At::new(total, line))
            }
            _ => return Err(bad(pair, "the run time is three whole numbers: hours, minutes and seconds")),
        }
    } else if starts_with_ci(pair.key, "'Ramp Up Time") {
        match numbers(value).as_deref() {
            Some([s]) if *s <= MAX_RUN => setup.ramp = Some(At::new(*s, line)),
            _ => return Err(bad(pair, "the ramp is a whole number of seconds")),
        }
    } else if pair.is("'Default Workers to Spawn")
        || pair.is("'Default Disk Workers to Spawn")
        || pair.is("'Default Network Workers to Spawn")
        || pair.is("'Record Results")
    {
        setup.other.push((pair.key.trim_start_matches('\'').to_string(), value.to_string(), pair.value_line));
    } else if pair.is("'Worker Cycling") {
        setup.worker_cycling = Some(At::new(cycling(pair, false)?, line));
    } else if pair.is("'Disk Cycling") {
        setup.disk_cycling = Some(At::new(cycling(pair, false)?, line));
    } else if pair.is("'Queue Depth Cycling") {
        setup.queue_cycling = Some(At::new(cycling(pair, true)?, line));
    } else if pair.is("'Test Type") {
        setup.test_type = Some(At::new(test_type(pair)?, line));
    } else {
        return Err(unknown(pair));
    }
    Ok(())
}

/// `1          32         2          EXPONENTIAL`: start, (end,) step and
/// the kind of step, a word or its code (0 linear, 1 exponential).
fn cycling(pair: &Pair<'_>, with_end: bool) -> Result<Cycling, Problem> {
    let words: Vec<&str> =
        pair.value().split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()).collect();
    let n = if with_end { 3 } else { 2 };
    let shape = if with_end {
        "start, end, step and LINEAR or EXPONENTIAL"
    } else {
        "start, step and LINEAR or EXPONENTIAL"
    };
    if words.len() != n + 1 {
        return Err(bad(pair, format!("a cycling setting is {shape}")));
    }
    let Some(values) = numbers(&words[..n].join(" ")) else {
        return Err(bad(pair, format!("a cycling setting is {shape}, the numbers whole")));
    };
    let exponential = match words[n].to_ascii_uppercase().as_str() {
        "LINEAR" | "0" => false,
        "EXPONENTIAL" | "1" => true,
        _ => {
            return Err(bad(
                pair,
                format!(
                    "`{}` is neither LINEAR nor EXPONENTIAL: Iometer reads an unknown word as LINEAR, and \
                     methodic does not guess",
                    words[n]
                ),
            ));
        }
    };
    let (start, end, step) =
        if with_end { (values[0], Some(values[1]), values[2]) } else { (values[0], None, values[1]) };
    Ok(Cycling { start, end, step, exponential })
}

/// The test type: one of Iometer's 8 words, or its code.
fn test_type(pair: &Pair<'_>) -> Result<TestType, Problem> {
    let v = pair.value().trim();
    if let Ok(code) = v.parse::<usize>() {
        return TestType::ALL
            .get(code)
            .map(|(t, _)| *t)
            .ok_or_else(|| bad(pair, "Iometer's test types are numbered 0 to 7"));
    }
    TestType::ALL.iter().find(|(_, w)| w.eq_ignore_ascii_case(v)).map(|(t, _)| *t).ok_or_else(|| {
        bad(pair, "not one of Iometer's test types (NORMAL, CYCLE_OUTSTANDING_IOS, CYCLE_WORKERS, ...)")
    })
}

/// The most values a cycling setting may make here: a longer sweep is
/// more likely a mistake than a plan.
pub(crate) const MAX_CYCLE: usize = 256;

/// The values Iometer's cycling runs through: `start` (0 read as 1, as
/// `CheckData` makes it before a run), then [`advance`]d, up to `end`
/// included. `None` when it would make more than [`MAX_CYCLE`] values.
pub(crate) fn cycle(start: u64, end: u64, step: u64, exponential: bool) -> Option<Vec<u64>> {
    let c = Cycling { start: start.max(1), end: Some(end), step: step.max(1), exponential };
    let mut out = Vec::new();
    let (mut q, mut k) = (c.start, 1);
    while q <= end {
        if out.len() == MAX_CYCLE {
            return None;
        }
        out.push(q);
        match advance(c, q, &mut k) {
            Some(next) => q = next,
            None => break,
        }
    }
    Some(out)
}

/// The value after `value` by Iometer's cycling rule
/// (`src/GalileoView.cpp:1649-1653` and alike): `+ step` when linear or
/// when the step is 1, else `start * step^k`, `k` the `exponent`, which
/// counts up from 1 (`InitAccessSpecRun` sets it so). `None` past `u64`,
/// where Iometer's `int` would overflow.
pub(crate) fn advance(c: Cycling, value: u64, exponent: &mut u32) -> Option<u64> {
    if !c.exponential || c.step == 1 {
        return value.checked_add(c.step);
    }
    let next = c.step.checked_pow(*exponent).and_then(|p| p.checked_mul(c.start));
    *exponent += 1;
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_cycling_as_iometer_runs_it() {
        assert_eq!(cycle(1, 32, 2, true), Some(vec![1, 2, 4, 8, 16, 32]));
        assert_eq!(cycle(3, 100, 2, true), Some(vec![3, 6, 12, 24, 48, 96]));
        assert_eq!(cycle(1, 32, 2, false).unwrap(), (0..16).map(|i| 1 + 2 * i).collect::<Vec<_>>());
        assert_eq!(cycle(0, 3, 1, true), Some(vec![1, 2, 3]), "0 read as 1, step 1 is linear");
        assert_eq!(cycle(1, 100_000, 1, false), None, "too many");
        assert_eq!(cycle(4, 2, 2, true), Some(vec![]));
    }

    #[test]
    fn setup_keys_in_any_case_and_codes_for_words() {
        let text = "'test description\n\tx\n'RUN TIME\n'\th m s\n\t1 2 3\n'Ramp Up Time (s)\n\t5\n\
                    'Queue Depth Cycling\n\t1 32 2 1\n'Test Type\n\t6\n'END test setup\n";
        let mut l = Lines::new(text);
        let s = read_setup(&mut l, 1, Version::V1_1_0).unwrap();
        assert_eq!(s.run.unwrap().value, 3723);
        assert_eq!(s.ramp.unwrap().value, 5);
        assert_eq!(s.test_type.unwrap().value, TestType::CycleOutstandingIos);
        let q = s.queue_cycling.unwrap().value;
        assert_eq!((q.start, q.end, q.step, q.exponential), (1, Some(32), 2, true));
    }

    #[test]
    fn unknown_keys_and_words_are_refused() {
        let mut l = Lines::new("'Run Tim\n\t1 2 3\n'END test setup\n");
        assert!(read_setup(&mut l, 1, Version::V1_1_0).is_err());
        let mut l = Lines::new("'Worker Cycling\n\t1 1 LINEARLY\n'END test setup\n");
        let e = read_setup(&mut l, 1, Version::V1_1_0).unwrap_err();
        assert!(e[0].detail.contains("does not guess"), "{}", e[0].detail);
        let mut l = Lines::new("'Test Type\n\t9\n'END test setup\n");
        assert!(read_setup(&mut l, 1, Version::V1_1_0).is_err());
    }
}
