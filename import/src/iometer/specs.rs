//! The ACCESS SPECIFICATIONS section, read as `AccessSpecList::LoadConfig`
//! reads it (iometer-org/iometer @ 7243b4d, `src/AccessSpecList.cpp`):
//! from version 1998.05.21 on (`LoadConfigNew`, lines 1001-1129) a name
//! line `name,NONE|ALL|DISK|NET`, a column-header line, and access lines of
//! 8 comma-separated whole numbers (size, % of size, % reads, % random,
//! delay, burst, align, reply) up to the next `'` line; before it
//! (`LoadConfigOld`, lines 1134-1220) lines of 6 numbers separated by
//! blanks, which make a specification each time their shares reach 100.
//! Checks what Iometer checks (shares, reads and random within 0..100, the
//! shares of a specification adding up to 100, at most 100 lines) and what
//! would corrupt its reading (a blank line, fewer than 8 fields).

use super::lines::{Lines, Version, fields, numbers, shown};
use super::model::{AccessLine, Spec};
use crate::ImportErrorKind;
use crate::problem::Problem;

const PLACE: &str = "ACCESS SPECIFICATIONS";

/// The most lines a specification has: `Test_Spec` holds 100, and the
/// reader writes one past the end with exactly 100 (`src/IOTest.h:87-91`,
/// `src/AccessSpecList.cpp:1110`).
const MAX_LINES: usize = 99;

/// The section after its header line.
pub(super) fn read_specs(lines: &mut Lines<'_>, version: u64) -> Result<Vec<Spec>, Vec<Problem>> {
    let specs = if version >= Version::NEW_ACCESS { read_new(lines)? } else { read_old(lines)? };
    let mut problems = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        if let Some(first) = specs[..i].iter().find(|o| o.name.eq_ignore_ascii_case(&s.name)) {
            problems.push(
                Problem::new(
                    ImportErrorKind::Conflict,
                    s.line,
                    format!(
                        "a second specification named \"{}\" (the first is at line {}): Iometer overwrites \
                         the first with it",
                        s.name, first.line
                    ),
                )
                .place(PLACE)
                .hint("rename one of them, or remove the one Iometer would not keep"),
            );
        }
        if s.name.eq_ignore_ascii_case("Idle") {
            problems.push(
                Problem::new(
                    ImportErrorKind::BadValue,
                    s.line,
                    "Idle is Iometer's own specification of no I/O",
                )
                .place(PLACE)
                .hint("rename the specification"),
            );
        }
        problems.extend(check_lines(s));
    }
    if problems.is_empty() { Ok(specs) } else { Err(problems) }
}

/// The new format: name lines, headers, and 8-field access lines.
fn read_new(lines: &mut Lines<'_>) -> Result<Vec<Spec>, Vec<Problem>> {
    let mut specs = Vec::new();
    let mut problems = Vec::new();
    loop {
        let pair = lines.pair(PLACE).map_err(|p| vec![p])?;
        if pair.is("'END access specifications") {
            break;
        }
        if !pair.is("'Access specification name,default assignment") {
            return Err(vec![
                Problem::new(
                    ImportErrorKind::UnknownOption,
                    pair.line,
                    "Iometer has no such key in the ACCESS SPECIFICATIONS section, and refuses the file",
                )
                .place(PLACE)
                .option(pair.key.to_string())
                .hint("each specification starts with 'Access specification name,default assignment"),
            ]);
        }
        let value = pair.value();
        let (name, assignment) = value.split_once(',').unwrap_or((value, "NONE"));
        let name = name.trim().to_string();
        if name.is_empty() {
            problems.push(
                Problem::new(ImportErrorKind::BadValue, pair.value_line, "a specification without a name")
                    .place(PLACE),
            );
        }
        let mut spec = Spec {
            name,
            line: pair.value_line,
            assignment: assignment.trim().to_string(),
            lines: Vec::new(),
        };
        let (n, header) = lines.next_trimmed(PLACE).map_err(|p| vec![p])?;
        if !header.starts_with('\'') {
            return Err(vec![
                Problem::new(
                    ImportErrorKind::Syntax,
                    n,
                    format!(
                        "`{}` where Iometer expects the column headers 'size,% of size,...",
                        shown(header)
                    ),
                )
                .place(format!("access specification \"{}\"", spec.name)),
            ]);
        }
        loop {
            match lines.peek() {
                None => return Err(vec![lines.truncated(PLACE)]),
                Some(l) if l.starts_with('\'') => break,
                Some(_) => {}
            }
            let (n, raw) = lines.next_raw().unwrap_or((0, ""));
            match access_line(raw, n) {
                Ok(a) => spec.lines.push(a),
                Err(detail) => problems.push(
                    Problem::new(ImportErrorKind::Syntax, n, detail)
                        .place(format!("access specification \"{}\"", spec.name))
                        .option(shown(raw))
                        .hint("an access line is size,% of size,% reads,% random,delay,burst,align,reply"),
                ),
            }
        }
        specs.push(spec);
    }
    if problems.is_empty() { Ok(specs) } else { Err(problems) }
}

/// One access line of 8 fields (a trailing comma allowed, as in the
/// results file).
fn access_line(raw: &str, line: usize) -> Result<AccessLine, String> {
    if raw.trim().is_empty() {
        return Err("a blank line among the access lines: Iometer reads across it and corrupts the \
                    specification"
            .to_string());
    }
    let mut f = fields(raw);
    if f.len() == 9 && f[8].is_empty() {
        f.pop();
    }
    if f.len() != 8 {
        return Err(format!(
            "{} fields where an access line has 8: Iometer reads the missing ones from the next line",
            f.len()
        ));
    }
    let Some(n) = numbers(&f.join(" ")) else {
        return Err("the fields of an access line are whole numbers".to_string());
    };
    if n.len() != 8 {
        return Err("the fields of an access line are whole numbers".to_string());
    }
    Ok(AccessLine {
        line,
        size: n[0],
        share: n[1],
        reads: n[2],
        random: n[3],
        delay: n[4],
        burst: n[5],
        align: n[6],
        reply: n[7],
    })
}

/// The old format (before 1998.05.21): one line skipped after the header,
/// then lines of `size of_size reads random delay burst`, a specification
/// each time the shares reach 100, up to the next `'` line.
fn read_old(lines: &mut Lines<'_>) -> Result<Vec<Spec>, Vec<Problem>> {
    lines.next_raw();
    let mut specs: Vec<Spec> = Vec::new();
    let mut current: Vec<AccessLine> = Vec::new();
    let mut problems = Vec::new();
    while let Some(l) = lines.peek() {
        if l.starts_with('\'') {
            break;
        }
        let (n, raw) = lines.next_raw().unwrap_or((0, ""));
        if raw.trim().is_empty() {
            continue;
        }
        let Some(v) = numbers(raw).filter(|v| v.len() == 6 && !raw.contains(',')) else {
            problems.push(
                Problem::new(
                    ImportErrorKind::Syntax,
                    n,
                    "a line of the old access format (before 1998.05.21) is 6 whole numbers separated by blanks: \
                     size, % of size, % reads, % random, delay and burst",
                )
                .place(PLACE)
                .option(shown(raw)),
            );
            continue;
        };
        if v[1] == 0 {
            // Iometer drops such a line with a message.
            continue;
        }
        current.push(AccessLine {
            line: n,
            size: v[0],
            share: v[1],
            reads: v[2],
            random: v[3],
            delay: v[4],
            burst: v[5],
            align: 0,
            reply: 0,
        });
        let total: u64 = current.iter().map(|a| a.share).sum();
        if total >= 100 {
            let first = current[0].line;
            specs.push(Spec {
                name: format!("Specification {}", specs.len() + 1),
                line: first,
                assignment: "ALL".to_string(),
                lines: std::mem::take(&mut current),
            });
        }
    }
    if let Some(a) = current.first() {
        problems.push(
            Problem::new(
                ImportErrorKind::BadValue,
                a.line,
                "access lines whose shares do not reach 100 at the end of the section",
            )
            .place(PLACE),
        );
    }
    if problems.is_empty() { Ok(specs) } else { Err(problems) }
}

/// What Iometer checks of a specification's lines, and its line limit.
fn check_lines(s: &Spec) -> Vec<Problem> {
    let place = format!("access specification \"{}\"", s.name);
    let mut out = Vec::new();
    for a in &s.lines {
        for (what, v) in [("% of size", a.share), ("% reads", a.reads), ("% random", a.random)] {
            if v > 100 {
                out.push(
                    Problem::new(
                        ImportErrorKind::BadValue,
                        a.line,
                        format!("{what} is {v}: Iometer takes 0 to 100"),
                    )
                    .place(place.clone()),
                );
            }
        }
    }
    let total: u64 = s.lines.iter().map(|a| a.share).sum();
    if total != 100 {
        out.push(
            Problem::new(
                ImportErrorKind::BadValue,
                s.line,
                format!("the shares (% of size) add up to {total}: Iometer refuses a specification whose shares do not add up to 100"),
            )
            .place(place.clone()),
        );
    }
    if s.lines.len() > MAX_LINES {
        out.push(
            Problem::new(
                ImportErrorKind::BadValue,
                s.line,
                format!("{} access lines: Iometer holds at most {MAX_LINES} safely", s.lines.len()),
            )
            .place(place),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, version: u64) -> Result<Vec<Spec>, Vec<Problem>> {
        read_specs(&mut Lines::new(text), version)
    }

    const HEAD: &str = "'Access specification name,default assignment\n";
    const COLS: &str = "'size,% of size,% reads,% random,delay,burst,align,reply\n";

    #[test]
    fn eight_fields_a_line_and_a_spec_per_name() {
        let text = format!(
            "{HEAD}\tDatabase,NONE\n{COLS}\t8192,100,67,100,0,1,0,0\n{HEAD}\tSplit,ALL\n{COLS}\t512,40,80,100,0,1,0,0,\n\t4096,60,80,100,0,1,0,0\n'END access specifications\n"
        );
        let specs = read(&text, Version::V1_1_0).unwrap();
        assert_eq!(specs.len(), 2);
        assert_eq!((specs[0].name.as_str(), specs[0].lines[0].reads), ("Database", 67));
        assert_eq!(specs[1].assignment, "ALL");
        assert_eq!(
            specs[1].lines.iter().map(|a| (a.size, a.share)).collect::<Vec<_>>(),
            [(512, 40), (4096, 60)]
        );
        assert_eq!(specs[1].lines[1].line, 9);
    }

    #[test]
    fn what_iometer_refuses_is_refused() {
        let short = format!("{HEAD}\tx,NONE\n{COLS}\t8192,100,67,100\n'END access specifications\n");
        assert!(read(&short, Version::V1_1_0).unwrap_err()[0].detail.contains("4 fields"));
        let sum = format!("{HEAD}\tx,NONE\n{COLS}\t8192,90,67,100,0,1,0,0\n'END access specifications\n");
        assert!(read(&sum, Version::V1_1_0).unwrap_err()[0].detail.contains("add up to 90"));
        let blank =
            format!("{HEAD}\tx,NONE\n{COLS}\t8192,100,67,100,0,1,0,0\n\n'END access specifications\n");
        assert!(read(&blank, Version::V1_1_0).unwrap_err()[0].detail.contains("blank line"));
        let cut = format!("{HEAD}\tx,NONE\n{COLS}\t8192,100,67,100,0,1,0,0\n");
        assert!(read(&cut, Version::V1_1_0).unwrap_err()[0].detail.contains("cut off"));
        let twice = format!(
            "{HEAD}\tx,NONE\n{COLS}\t512,100,0,0,0,1,0,0\n{HEAD}\tX,NONE\n{COLS}\t512,100,0,0,0,1,0,0\n'END access specifications\n"
        );
        assert!(read(&twice, Version::V1_1_0).unwrap_err()[0].detail.contains("overwrites"));
    }

    #[test]
    fn the_old_format_makes_a_spec_each_hundred() {
        let text = "skipped line\n8192 100 67 100 0 1\n512 50 100 0 0 1\n4096 50 100 0 0 1\n'END access specifications\n";
        let specs = read(text, 19980105).unwrap();
        assert_eq!(specs.len(), 2);
        assert_eq!(specs[1].lines.len(), 2);
        assert_eq!(specs[0].lines[0].align, 0);
    }
}
