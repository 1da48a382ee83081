//! A whole .icf file into an [`Icf`]: the version line first, then the
//! sections Iometer's writer emits (`CGalileoView::SaveConfigFile`,
//! iometer-org/iometer @ 7243b4d, `src/GalileoView.cpp:1462-1534`), each
//! found by its header (matched as a case-insensitive prefix, as
//! `ICF_ifstream::SkipTo` does) and read by its own module; RESULTS
//! DISPLAY is passed over up to its end line, and the version line Iometer
//! writes again at the end is taken. Iometer skips any other text between
//! sections; methodic refuses it, so that a file that is not an .icf is
//! not read as one. Every section may be missing, and each appears at most
//! once.

use super::lines::{Lines, Version, shown, starts_with_ci, version};
use super::managers::read_managers;
use super::model::Icf;
use super::setup::read_setup;
use super::specs::read_specs;
use crate::ImportErrorKind;
use crate::problem::Problem;

/// The four section headers, as Iometer matches them.
const HEADERS: [&str; 4] = ["'TEST SETUP", "'RESULTS DISPLAY", "'ACCESS SPECIFICATIONS", "'MANAGER LIST"];

/// Whether a line is one of the four section headers.
pub(super) fn is_section_header(line: &str) -> bool {
    HEADERS.iter().any(|h| starts_with_ci(line.trim(), h))
}

/// The file, or every problem found before the reading had to stop.
pub(super) fn read(text: &str) -> Result<Icf, Vec<Problem>> {
    let mut lines = Lines::new(text);
    let long = lines.too_long();
    if !long.is_empty() {
        return Err(long);
    }
    let Some((_, first)) = lines.next_raw() else {
        return Err(vec![
            Problem::new(ImportErrorKind::Empty, 0, "the file is empty")
                .hint("an .icf file starts with its version line, such as `Version 1.1.0`"),
        ]);
    };
    let v = version(first).map_err(|p| vec![p])?;
    let number = v.number;
    let mut icf = Icf { version: Some(v), ..Icf::default() };
    let mut problems = Vec::new();
    let mut seen: Vec<(&str, usize)> = Vec::new();
    while let Some((n, raw)) = lines.next_raw() {
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        let Some(header) = HEADERS.iter().find(|h| starts_with_ci(l, h)) else {
            if version(l).is_ok_and(|v| v.number == number) {
                continue;
            }
            problems.push(
                Problem::new(
                    ImportErrorKind::Syntax,
                    n,
                    format!(
                        "`{}` outside any section: an .icf file holds its version line and the sections TEST \
                         SETUP, RESULTS DISPLAY, ACCESS SPECIFICATIONS and MANAGER LIST",
                        shown(l)
                    ),
                )
                .hint("Iometer skips text between sections; methodic refuses it so as not to read another file as an .icf: remove it"),
            );
            continue;
        };
        if let Some((_, first)) = seen.iter().find(|(h, _)| h == header) {
            return Err(vec![
                Problem::new(
                    ImportErrorKind::Conflict,
                    n,
                    format!(
                        "a second {} section (the first is at line {first}): Iometer reads only the first",
                        &header[1..]
                    ),
                )
                .hint("keep one of them"),
            ]);
        }
        seen.push((header, n));
        match *header {
            "'TEST SETUP" => match read_setup(&mut lines, n, number) {
                Ok(s) => icf.setup = Some(s),
                Err(p) => return Err(p),
            },
            "'RESULTS DISPLAY" => {
                skip_display(&mut lines)?;
                icf.display = Some(n);
            }
            "'ACCESS SPECIFICATIONS" => {
                icf.specs = Some(read_specs(&mut lines, number)?);
                if number < Version::NEW_ACCESS
                    && lines
                        .peek()
                        .is_some_and(|l| l.trim().eq_ignore_ascii_case("'END access specifications"))
                {
                    lines.next_raw();
                }
            }
            _ => icf.managers = Some(read_managers(&mut lines).map_err(|p| vec![p])?),
        }
    }
    if problems.is_empty() { Ok(icf) } else { Err(problems) }
}

/// RESULTS DISPLAY, up to its end line: what Iometer's window shows, which
/// changes nothing a test does.
fn skip_display(lines: &mut Lines<'_>) -> Result<(), Vec<Problem>> {
    loop {
        let (n, l) = lines.next_trimmed("RESULTS DISPLAY").map_err(|p| vec![p])?;
        if l.eq_ignore_ascii_case("'END results display") {
            return Ok(());
        }
        if is_section_header(l) {
            return Err(vec![Problem::new(
                ImportErrorKind::Syntax,
                n,
                "a section starts inside RESULTS DISPLAY, which has no end line: the file was cut or edited",
            )
            .place("RESULTS DISPLAY")
            .hint("add 'END results display before it, or save the file again from Iometer")]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_in_any_order_and_case_with_crlf() {
        let text = "Version 2006.07.27 \r\n'access specifications ===\r\n'Access specification name,default assignment\r\n\
                    \tx,NONE\r\n'size,% of size,% reads,% random,delay,burst,align,reply\r\n\t512,100,0,0,0,1,0,0\r\n\
                    'END access specifications\r\n'TEST SETUP ====\r\n'Run Time\r\n\t0 1 0\r\n'END test setup\r\n\
                    Version 2006.07.27 \r\n";
        let icf = read(text).unwrap();
        assert_eq!(icf.specs.unwrap().len(), 1);
        assert_eq!(icf.setup.unwrap().run.unwrap().value, 60);
        assert!(icf.managers.is_none());
    }

    #[test]
    fn foreign_text_is_refused_at_its_line() {
        assert_eq!(read("[global]\nrw=randread\n").unwrap_err()[0].line, 1);
        let e = read("Version 1.1.0\nhello\n").unwrap_err();
        assert_eq!(e[0].line, 2);
        assert!(read("").is_err());
    }

    #[test]
    fn a_cut_off_section_is_refused() {
        let e = read("Version 1.1.0\n'TEST SETUP ===\n'Run Time\n").unwrap_err();
        assert!(e[0].detail.contains("cut off"), "{}", e[0].detail);
        let e = read("Version 1.1.0\n'RESULTS DISPLAY ===\n'Bar chart 1 statistic\n").unwrap_err();
        assert!(e[0].detail.contains("cut off"), "{}", e[0].detail);
    }

    #[test]
    fn an_old_setup_may_end_at_the_next_header() {
        let text =
            "Version 1998.10.08\n'TEST SETUP ===\n'Run Time\n\t0 1 0\n'MANAGER LIST ===\n'END manager list\n";
        let icf = read(text).unwrap();
        assert_eq!(icf.setup.unwrap().run.unwrap().value, 60);
        assert_eq!(icf.managers.unwrap().len(), 0);
    }
}
