//! The MANAGER LIST section, read as Iometer reads it (iometer-org/iometer
//! @ 7243b4d): `ManagerList::LoadConfig` (`src/ManagerList.cpp:1466-1540`)
//! expects managers up to `'END manager list`; `Manager::LoadConfig`
//! (`src/Manager.cpp:1749-1870`) its workers, each with a type;
//! `Worker::LoadConfig` (`src/Worker.cpp:2186-2235`) a worker's blocks, by
//! whole trimmed lines: its default target settings (`LoadConfigDefault`,
//! lines 2237-2394, both the pre-1.1.0 3- and 2-value lines and 1.1.0's 5-
//! and 3-value ones), its assigned access specifications, a name a line
//! (`LoadConfigAccess`), and its targets (`LoadConfigTargets`, lines
//! 2421-2611). Anything else is refused, as Iometer refuses it.

use super::lines::{Lines, Pair, fields, numbers, shown};
use super::model::{At, Manager, Worker};
use crate::ImportErrorKind;
use crate::problem::Problem;

const PLACE: &str = "MANAGER LIST";

/// A line or key Iometer does not expect where it stands.
fn unexpected(line: usize, text: &str, place: &str, expected: &str) -> Problem {
    Problem::new(ImportErrorKind::Syntax, line, format!("`{}` where Iometer expects {expected}", shown(text)))
        .place(place.to_string())
        .hint("the manager list is as Iometer saves it: save the file again from Iometer")
}

/// The section after its header line.
pub(super) fn read_managers(lines: &mut Lines<'_>) -> Result<Vec<Manager>, Problem> {
    let mut managers = Vec::new();
    loop {
        let (n, l) = lines.next_trimmed(PLACE)?;
        if l.eq_ignore_ascii_case("'END manager list") {
            return Ok(managers);
        }
        if !l.eq_ignore_ascii_case("'Manager ID, manager name") {
            return Err(unexpected(n, l, PLACE, "'Manager ID, manager name or 'END manager list"));
        }
        managers.push(read_manager(lines, n)?);
    }
}

/// A manager: its id and name, its address and its workers.
fn read_manager(lines: &mut Lines<'_>, line: usize) -> Result<Manager, Problem> {
    let (_, value) = lines.next_trimmed(PLACE)?;
    // The id, then the rest of the line as the name (`GetManagerInfo`).
    let name = value.split_once(',').map_or(value, |(_, n)| n).trim().to_string();
    let place = format!("manager \"{name}\"");
    let address = lines.pair(&place)?;
    if !address.is("'Manager network address") {
        return Err(unexpected(address.line, address.key, &place, "'Manager network address"));
    }
    let mut m = Manager { line, name, address: address.value().to_string(), workers: Vec::new() };
    loop {
        let pair = lines.pair(&place)?;
        if pair.is("'End manager") {
            return Ok(m);
        }
        if !pair.is("'Worker") {
            return Err(unexpected(pair.line, pair.key, &place, "'Worker or 'End manager"));
        }
        let name = pair.value().to_string();
        let wplace = format!("worker \"{name}\"");
        let kind = lines.pair(&wplace)?;
        if !kind.is("'Worker type") {
            return Err(unexpected(kind.line, kind.key, &wplace, "'Worker type"));
        }
        let mut w = Worker {
            line: pair.value_line,
            name,
            kind: At::new(kind.value().to_string(), kind.value_line),
            ..Worker::default()
        };
        read_worker(lines, &mut w, &wplace)?;
        m.workers.push(w);
    }
}

/// A worker's blocks, up to `'End worker`.
fn read_worker(lines: &mut Lines<'_>, w: &mut Worker, place: &str) -> Result<(), Problem> {
    loop {
        let (n, l) = lines.next_trimmed(place)?;
        if l.eq_ignore_ascii_case("'End worker") {
            return Ok(());
        } else if l.eq_ignore_ascii_case("'Default target settings for worker") {
            loop {
                let pair = lines.pair(place)?;
                if pair.is("'End default target settings for worker") {
                    break;
                }
                defaults(w, &pair, place)?;
            }
        } else if l.eq_ignore_ascii_case("'Assigned access specs") {
            loop {
                let (n, name) = lines.next_trimmed(place)?;
                if name.eq_ignore_ascii_case("'End assigned access specs") {
                    break;
                }
                if name.is_empty() || name.starts_with('\'') {
                    return Err(unexpected(n, name, place, "the name of an access specification"));
                }
                w.specs.push(At::new(name.to_string(), n));
            }
        } else if l.eq_ignore_ascii_case("'Target assignments") {
            read_targets(lines, w, place)?;
        } else {
            return Err(unexpected(
                n,
                l,
                place,
                "'Default target settings for worker, 'Assigned access specs, 'Target assignments or 'End worker",
            ));
        }
    }
}

/// A value of a worker's default settings Iometer would refuse.
fn bad(pair: &Pair<'_>, place: &str, detail: &str) -> Problem {
    Problem::new(ImportErrorKind::BadValue, pair.value_line, detail.to_string())
        .place(place.to_string())
        .option(format!("{} {}", pair.key, pair.value()))
}

/// `ENABLED` or `DISABLED`.
fn enabled(word: &str) -> Option<bool> {
    match word.to_ascii_uppercase().as_str() {
        "ENABLED" => Some(true),
        "DISABLED" => Some(false),
        _ => None,
    }
}

/// One key of a worker's default target settings.
fn defaults(w: &mut Worker, pair: &Pair<'_>, place: &str) -> Result<(), Problem> {
    let line = pair.value_line;
    let f = fields(pair.value());
    let key = pair.key.to_ascii_lowercase();
    if key == "'number of outstanding ios,test connection rate,transactions per connection"
        || key
            == "'number of outstanding ios,test connection rate,transactions per connection,use fixed seed,fixed seed value"
    {
        let five = key.ends_with("seed value");
        let ok = f.len() == if five { 5 } else { 3 };
        let qd = f.first().and_then(|v| v.parse::<u64>().ok());
        let rate = f.get(1).and_then(|v| enabled(v));
        let per = f.get(2).and_then(|v| v.parse::<u64>().ok());
        let (Some(qd), Some(rate), Some(_), true) = (qd, rate, per, ok) else {
            return Err(bad(
                pair,
                place,
                "outstanding I/Os, ENABLED or DISABLED, and transactions per connection (and in 1.1.0, ENABLED or DISABLED and a seed)",
            ));
        };
        w.qd = Some(At::new(qd, line));
        w.connection_rate = Some(At::new(rate, line));
        if five {
            let seed_on = enabled(f[3]);
            let seed = f[4].parse::<u64>().ok();
            let (Some(on), Some(seed)) = (seed_on, seed) else {
                return Err(bad(
                    pair,
                    place,
                    "use fixed seed is ENABLED or DISABLED, and the seed a whole number",
                ));
            };
            if on {
                w.fixed_seed = Some(At::new(seed, line));
            }
        }
    } else if key == "'disk maximum size,starting sector"
        || key == "'disk maximum size,starting sector,data pattern"
    {
        let three = key.ends_with("data pattern");
        match numbers(pair.value()) {
            Some(v) if v.len() == if three { 3 } else { 2 } => {
                w.max_size = Some(At::new(v[0], line));
                w.start = Some(At::new(v[1], line));
                if three {
                    w.pattern = Some(At::new(v[2], line));
                }
            }
            _ => {
                return Err(bad(
                    pair,
                    place,
                    "the maximum size and starting sector (and in 1.1.0 the data pattern) are whole numbers",
                ));
            }
        }
    } else if key == "'local network interface" || key == "'vi outstanding ios" {
        // Network workers' settings: the worker is refused for its type.
    } else {
        return Err(Problem::new(
            ImportErrorKind::UnknownOption,
            pair.line,
            "Iometer has no such key in a worker's default target settings, and refuses the file",
        )
        .place(place.to_string())
        .option(pair.key.to_string()));
    }
    Ok(())
}

/// A worker's targets, up to `'End target assignments`.
fn read_targets(lines: &mut Lines<'_>, w: &mut Worker, place: &str) -> Result<(), Problem> {
    loop {
        let pair = lines.pair(place)?;
        if pair.is("'End target assignments") {
            return Ok(());
        }
        if !pair.is("'Target") {
            return Err(unexpected(pair.line, pair.key, place, "'Target or 'End target assignments"));
        }
        let name = pair.value().to_string();
        let kind = lines.pair(place)?;
        if !kind.is("'Target type") {
            return Err(unexpected(kind.line, kind.key, place, "'Target type"));
        }
        if !kind.value().eq_ignore_ascii_case("DISK") {
            let manager = lines.pair(place)?;
            if !manager.is("'Target manager ID, manager name") {
                return Err(unexpected(manager.line, manager.key, place, "'Target manager ID, manager name"));
            }
        }
        let (n, end) = lines.next_trimmed(place)?;
        if !end.eq_ignore_ascii_case("'End target") {
            return Err(unexpected(n, end, place, "'End target"));
        }
        w.targets.push(At::new(name, pair.value_line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORKER: &str = "'Manager ID, manager name\n\t1,HOST\n'Manager network address\n\t\n'Worker\n\tWorker 1\n\
        'Worker type\n\tDISK\n'Default target settings for worker\n\
        'Number of outstanding IOs,test connection rate,transactions per connection\n\t16,DISABLED,1\n\
        'Disk maximum size,starting sector\n\t2048,64\n'End default target settings for worker\n\
        'Assigned access specs\n\tDatabase\n\tIdle\n'End assigned access specs\n\
        'Target assignments\n'Target\n\tsdb\n'Target type\n\tDISK\n'End target\n'End target assignments\n\
        'End worker\n'End manager\n'END manager list\n";

    #[test]
    fn a_manager_with_a_disk_worker() {
        let m = read_managers(&mut Lines::new(WORKER)).unwrap();
        assert_eq!((m.len(), m[0].name.as_str(), m[0].address.as_str()), (1, "HOST", ""));
        let w = &m[0].workers[0];
        assert!(w.is_disk());
        assert_eq!(w.qd.as_ref().unwrap().value, 16);
        assert_eq!((w.max_size.as_ref().unwrap().value, w.start.as_ref().unwrap().value), (2048, 64));
        assert_eq!(w.pattern, None);
        assert_eq!(w.specs.iter().map(|s| s.value.as_str()).collect::<Vec<_>>(), ["Database", "Idle"]);
        assert_eq!(w.targets[0].value, "sdb");
        assert_eq!(w.targets[0].line, 21);
    }

    #[test]
    fn a_cut_off_list_and_a_stray_line_are_refused() {
        let cut = &WORKER[..WORKER.find("'End worker").unwrap()];
        assert!(read_managers(&mut Lines::new(cut)).unwrap_err().detail.contains("cut off"));
        let stray = WORKER.replace("'End worker", "hello\n'End worker");
        let e = read_managers(&mut Lines::new(&stray)).unwrap_err();
        assert_eq!(e.line, 26);
        let bad = WORKER.replace("16,DISABLED,1", "16,MAYBE,1");
        assert_eq!(read_managers(&mut Lines::new(&bad)).unwrap_err().kind, ImportErrorKind::BadValue);
    }
}
