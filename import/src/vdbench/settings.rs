//! The general parameters and the `hd=` entries in; the data pattern, the
//! hosts file for `methodic run --hosts` and the notes on what is not
//! carried over out (from `MiscParms.java`,
//! `HostParms.java` and `Host.java` in
//! `Hust-Wen/vdbench@e801261:src/Vdb/`). Refuses data validation, dedup,
//! concatenation, `loop=` and hosts that clone themselves or mount.

use super::entries::{Entry, Param};
use super::reader::unquote;
use super::storage::{Sd, bad};
use super::values::{Tok, share, tokens};
use crate::ImportErrorKind;
use crate::problem::Problem;

/// What the general parameters say.
#[derive(Debug, Default)]
pub(crate) struct General {
    /// `compressible N%`, or nothing for vdbench's default random data.
    pub(crate) data: Option<String>,
    pub(crate) notes: Vec<String>,
    pub(crate) dropped: usize,
    /// `formatsds=yes`: where it is written.
    pub(crate) format: Option<Param>,
    /// `formatxfersize=`: bytes.
    pub(crate) format_xfer: Option<u64>,
}

/// General keywords refused: `(keyword, why, hint)`.
const REFUSED: &[(&str, &str, &str)] = &[
    (
        "dedup",
        "methodic writes unique data only and cannot make duplicate blocks (vdbench's dedup also turns on data validation)",
        "leave the dedup parameters out",
    ),
    (
        "validate",
        "vdbench's data validation keeps a key a block and reads before it writes; methodic's verify stamps what a step writes and checks it after the step",
        "add `verify` to the steps by hand (docs/LANGUAGE.md, Verification)",
    ),
    (
        "journal",
        "vdbench's journaling keeps its validation map across a crash; methodic has nothing like it",
        "add `verify` to the steps by hand",
    ),
    ("concatenatesds", "methodic cannot concatenate devices into one", "run the sds as devices of their own"),
    (
        "loop",
        "loop= repeats the whole file; methodic's repeat does not hold phases",
        "import once and copy the phases",
    ),
    ("swat", "swat traces are not something methodic replays", "leave it out"),
    (
        "compression",
        "compression= is vdbench's old share form",
        "write compratio= (compression=P is compratio 100/P)",
    ),
    ("psrset", "Solaris processor sets are not something methodic sets", "leave it out"),
];

/// The general parameters.
pub(crate) fn general(params: &[Param], problems: &mut Vec<Problem>) -> General {
    let mut out = General::default();
    let place = Entry {
        section: super::keywords::Section::General,
        name: String::new(),
        line: 0,
        params: Vec::new(),
    };
    for p in params {
        if let Some((_, why, hint)) = REFUSED.iter().find(|r| r.0 == p.key) {
            problems.push(bad(p, &place, ImportErrorKind::Untranslatable, *why).hint(*hint));
            continue;
        }
        match p.key {
            "compratio" => out.data = compratio(p, &place, &mut out.notes, problems),
            // MiscParms.java:154-161.
            "formatsds" => match p.item.value.to_ascii_lowercase() {
                v if v.starts_with('y') => out.format = Some(p.clone()),
                v if v.starts_with('n') => {
                    out.dropped += 1;
                    out.notes.push(format!(
                        "{} (line {}): not carried over; vdbench then does not make missing files first, and methodic never does",
                        p.item.said(),
                        p.item.line
                    ));
                }
                _ => problems.push(bad(p, &place, ImportErrorKind::BadValue, "formatsds= is yes or no")),
            },
            "formatxfersize" => match tokens(p.key, &p.item.value).ok().as_deref() {
                Some([Tok::Num(n)]) if *n >= 512.0 && n.fract() == 0.0 => out.format_xfer = Some(*n as u64),
                _ => problems.push(bad(
                    p,
                    &place,
                    ImportErrorKind::BadValue,
                    "formatxfersize= takes a size of at least 512 bytes",
                )),
            },
            "startcmd" | "endcmd" => {
                out.dropped += 1;
                out.notes.push(format!(
                    "{} (line {}): not run; vdbench runs this command {} every run",
                    p.item.said(),
                    p.item.line,
                    if p.key == "startcmd" { "before" } else { "after" }
                ));
            }
            _ => {
                out.dropped += 1;
                out.notes.push(format!(
                    "{} (line {}): not carried over; it changes nothing methodic measures",
                    p.item.said(),
                    p.item.line
                ));
            }
        }
    }
    out
}

/// `compratio=R`: data that compresses R:1, as methodic's compressible share
/// 100 - 100/R (vdbench aims at LZJB on 128KiB records, methodic at
/// zstd-like ratios: an approximation, said in a note).
fn compratio(p: &Param, e: &Entry, notes: &mut Vec<String>, problems: &mut Vec<Problem>) -> Option<String> {
    let r = match tokens(p.key, &p.item.value).ok().as_deref() {
        Some([Tok::Num(r)]) if *r > 0.0 => *r,
        _ => {
            problems.push(bad(p, e, ImportErrorKind::BadValue, "compratio= takes a ratio above 0"));
            return None;
        }
    };
    if r <= 1.0 {
        return None;
    }
    let s = ratio_share(r)?;
    let r = r.min(25.0);
    notes.push(format!(
        "{} (line {}): data compressible {s}; vdbench aims at {r}:1 for LZJB on 128KiB records, methodic's share is what a compressor removes: close, not the same",
        p.item.said(),
        p.item.line
    ));
    Some(s)
}

/// The compressible share of data that compresses `r`:1, `100 - 100/r`
/// to two decimals (vdbench makes nothing above 25:1, `MiscParms`);
/// `None` for 1:1 and below, which is random data.
fn ratio_share(r: f64) -> Option<String> {
    if r <= 1.0 {
        return None;
    }
    let r = r.min(25.0);
    share(((100.0 - 100.0 / r) * 100.0).round() / 100.0)
}

/// What a target's `data` is for a ratio: `compressible N%` or `random`.
pub(crate) fn ratio_data(r: f64) -> String {
    ratio_share(r).map_or("random".to_string(), |s| format!("compressible {s}"))
}

/// The hosts file and what it means for the queue depths.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hosts {
    pub(crate) count: u64,
    pub(crate) text: String,
    pub(crate) notes: Vec<String>,
}

/// The `hd=` entries to a hosts file (one line a host: its system and the
/// lun, docs/many-hosts.md), or nothing for none or a lone localhost.
pub(crate) fn hosts(
    entries: &[Entry],
    sds: &[&Sd],
    file: &str,
    problems: &mut Vec<Problem>,
) -> Option<Hosts> {
    let systems: Vec<String> =
        entries.iter().map(|e| e.get("system").map_or(e.name.clone(), |p| unquote(&p.item.value))).collect();
    if entries.is_empty()
        || (entries.len() == 1 && (systems[0] == "localhost" || entries[0].name == "localhost"))
    {
        return None;
    }
    let mut notes = Vec::new();
    for e in entries {
        for p in &e.params {
            match p.key {
                "clients" | "mount" => problems.push(
                    bad(
                        p,
                        e,
                        ImportErrorKind::Untranslatable,
                        "methodic runs one fio server a host and mounts nothing",
                    )
                    .hint("list each client as a host of its own in the hd= entries"),
                ),
                "system" => {}
                _ => notes.push(format!(
                    "{} (line {}, {}): not carried over; each host runs fio --server (docs/many-hosts.md)",
                    p.item.said(),
                    p.item.line,
                    e.place()
                )),
            }
        }
    }
    let lun = match sds {
        [one] => one.lun.clone(),
        _ => {
            problems.push(
                Problem::new(
                    ImportErrorKind::Untranslatable,
                    entries[0].line,
                    "a run on many hosts takes one device a host; the runs use several sds",
                )
                .place(entries[0].place())
                .hint("import the file once per sd, or leave the hd= entries out to run on one machine"),
            );
            return None;
        }
    };
    let mut text =
        format!("# Hosts of {file} (hd= entries), for methodic run --hosts: each runs fio --server.\n");
    for (e, system) in entries.iter().zip(&systems) {
        text.push_str(&format!("{system}  {lun}    # hd={}\n", e.name));
    }
    Some(Hosts { count: entries.len() as u64, text, notes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vdbench::reader::Item;

    fn param(key: &'static str, value: &str) -> Param {
        Param { key, item: Item { key: key.to_string(), value: value.to_string(), line: 3 } }
    }

    #[test]
    fn compratio_becomes_a_compressible_share() {
        let mut p = Vec::new();
        let g = general(&[param("compratio", "2")], &mut p);
        assert!(p.is_empty());
        assert_eq!(g.data.as_deref(), Some("50%"));
        let g = general(&[param("compratio", "3")], &mut p);
        assert_eq!(g.data.as_deref(), Some("66.67%"));
        let g = general(&[param("compratio", "1")], &mut p);
        assert_eq!(g.data, None);
    }

    #[test]
    fn validation_and_dedup_are_refused_and_reports_noted() {
        let mut p = Vec::new();
        let g = general(
            &[param("validate", "yes"), param("dedup", "2"), param("histogram", "(default,1,2)")],
            &mut p,
        );
        assert_eq!(p.len(), 2);
        assert!(p[0].hint.as_deref().unwrap().contains("verify"));
        assert_eq!(g.dropped, 1);
        assert!(g.notes[0].contains("histogram=(default,1,2) (line 3): not carried over"));
    }
}
