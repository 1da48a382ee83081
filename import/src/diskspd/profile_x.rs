//! A command line with `-X<profile>`: the XML profile it names (read
//! beside the command file), with the paths after the switches put in
//! for its template targets `*1`, `*2`, ... and its `-W`, `-d`, `-C` for
//! every time span, as DiskSpd 2.2 does (`CmdLineParser.cpp:930-1038`
//! for the switches `-X` allows, `XmlProfileParser.cpp:613-657` and
//! `288-298` for the templates, at commit c361eed). Its time spans are
//! phases `command N, time span K`.

use super::cmdline::{Include, is_program};
use super::model::{At, Note, Profile, Set};
use crate::ImportErrorKind;
use crate::problem::Problem;

/// The time spans of the profile `-X` names, into `profile`; problems
/// into `problems`, each on the command's line.
pub(crate) fn read(
    words: &[String],
    x: usize,
    line: usize,
    number: usize,
    include: Include,
    profile: &mut Profile,
    problems: &mut Vec<Problem>,
) {
    let place = format!("command {number}");
    let problem = |kind, word: &str, detail: String| {
        Problem::new(kind, line, detail).option(word.to_string()).place(place.clone())
    };
    let file = &words[x][2..];
    let (paths, overrides, notes) = switches(words, x, line, &place, problems);
    let text = match include(file) {
        Ok(t) => t,
        Err(e) => {
            problems.push(problem(
                ImportErrorKind::Syntax,
                &words[x],
                format!("cannot read the profile: {e}"),
            ));
            return;
        }
    };
    let mut read = match super::xml::read(&text) {
        Ok(p) => p,
        Err(found) => {
            for p in found {
                let detail = format!("in {file}, line {}: {}", p.line, p.detail);
                let mut q = problem(p.kind, p.option.as_deref().unwrap_or(&words[x]), detail);
                q.hint = p.hint;
                problems.push(q);
            }
            return;
        }
    };
    // The profile's own settings name their lines in the profile.
    let notes_of = |n: &mut Note| n.at.said = format!("{file}: {}", n.at.said);
    read.notes.iter_mut().for_each(notes_of);
    for span in &mut read.spans {
        span.notes.iter_mut().for_each(notes_of);
        span.targets.iter_mut().flat_map(|t| &mut t.notes).for_each(notes_of);
    }
    let mut used = vec![false; paths.len()];
    for (k, span) in read.spans.iter_mut().enumerate() {
        span.title = format!("command {number}, time span {}", k + 1);
        span.at = At::new(line, format!("command {number}, {} of {file}", span.at.said));
        for (letter, set) in &overrides {
            let slot = match letter {
                'd' => &mut span.duration,
                'W' => &mut span.warmup,
                _ => &mut span.cooldown,
            };
            *slot = Some(set.clone());
        }
        for t in &mut span.targets {
            let Some(n) = t.path.strip_prefix('*').and_then(|n| n.parse::<usize>().ok()) else { continue };
            if paths.is_empty() {
                continue;
            }
            match paths.get(n.wrapping_sub(1)) {
                Some(p) => {
                    used[n - 1] = true;
                    t.path = p.clone();
                }
                None => problems.push(problem(
                    ImportErrorKind::Syntax,
                    &t.path,
                    format!(
                        "the profile's template target {} has no path: {} given after the switches",
                        t.path,
                        paths.len()
                    ),
                )),
            }
        }
    }
    for (p, used) in paths.iter().zip(&used) {
        if !used {
            problems.push(problem(
                ImportErrorKind::Syntax,
                p,
                "DiskSpd refuses a path no template target (*N) of the profile uses".into(),
            ));
        }
    }
    profile.notes.append(&mut read.notes);
    profile.notes.extend(notes);
    profile.spans.append(&mut read.spans);
}

/// The paths after a `-X` line's switches, the times it sets for every
/// time span, and its switches kept as comments.
type Switches = (Vec<String>, Vec<(char, Set<u64>)>, Vec<Note>);

/// The switches of a `-X` line: the ones `-X` allows, the paths after them.
fn switches(words: &[String], x: usize, line: usize, place: &str, problems: &mut Vec<Problem>) -> Switches {
    let problem = |kind, word: &str, detail: String| {
        Problem::new(kind, line, detail).option(word.to_string()).place(place.to_string())
    };
    let mut paths = Vec::new();
    let mut overrides: Vec<(char, Set<u64>)> = Vec::new();
    let mut notes = Vec::new();
    let skip = usize::from(words.first().is_some_and(|w| is_program(w)));
    for (i, w) in words.iter().enumerate().skip(skip) {
        let Some(body) = w.strip_prefix(['-', '/']) else {
            paths.push(w.clone());
            continue;
        };
        if !paths.is_empty() {
            problems.push(problem(
                ImportErrorKind::Syntax,
                w,
                "DiskSpd takes switches before the targets only".into(),
            ));
            continue;
        }
        let letter = body.chars().next().unwrap_or(' ');
        let value = body.get(1..).unwrap_or("");
        match letter {
            'X' if i == x => {}
            'X' => problems.push(problem(
                ImportErrorKind::Syntax,
                w,
                "DiskSpd refuses a second XML profile".into(),
            )),
            'd' | 'W' | 'C' => match value.parse::<u64>() {
                Ok(n) if value.bytes().all(|b| b.is_ascii_digit()) && n <= i32::MAX as u64 => {
                    overrides.push((letter, Set::new(n, At::new(line, w.clone()))));
                }
                _ => problems.push(problem(
                    ImportErrorKind::BadValue,
                    w,
                    format!("seconds are a whole number here; DiskSpd reads `{value}` with atoi"),
                )),
            },
            'R' | 'v' | 'z' | ':' => notes.push(Note::new(
                At::new(line, w.clone()),
                "DiskSpd's output, seed or experiment flags: change nothing methodic measures",
            )),
            _ => problems.push(
                problem(ImportErrorKind::Conflict, w, format!("DiskSpd refuses -{letter} with -X")).hint(
                    "with -X only -W, -d, -C, -R, -v, -z and -: may be given; the rest is the profile's",
                ),
            ),
        }
    }
    (paths, overrides, notes)
}
