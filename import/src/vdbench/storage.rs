//! The `sd=` and `wd=` entries in, what they mean out: each storage
//! definition a device with its lun, size, threads, area and how it is
//! opened; each workload definition its SDs, sizes, read share, seek
//! share and skew (from `SD_entry.java`,
//! `WD_entry.java`, `WG_entry.java` and `OpenFlags.java` in
//! `Hust-Wen/vdbench@e801261:src/Vdb/`). Refuses what methodic cannot do
//! the way vdbench does (hit areas, hot bands, strides, streams, priority
//! queues, sync open flags, host subsets) and what vdbench itself refuses.

use super::entries::{Entry, Param};
use super::reader::unquote;
use super::values::{Tok, tokens, whole};
use crate::ImportErrorKind;
use crate::problem::Problem;

/// How vdbench opens an SD.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Io {
    Direct,
    Buffered,
}

/// A storage definition: one methodic device.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sd {
    pub(crate) name: String,
    pub(crate) line: usize,
    pub(crate) lun: String,
    pub(crate) size: Option<u64>,
    pub(crate) threads: u64,
    pub(crate) range: Option<(f64, f64)>,
    pub(crate) offset: u64,
    pub(crate) align: Option<u64>,
    pub(crate) openflags: Option<Param>,
}

impl Sd {
    /// A lun vdbench keeps block zero out of (`SD_entry.canWeUseBlockZero`).
    pub(crate) fn raw_device(&self) -> bool {
        self.lun.starts_with("/dev") || self.lun.starts_with("\\\\")
    }
}

/// Where a workload's I/Os go.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Seek {
    /// The share of random I/Os: 100 random, 0 sequential.
    Random(f64),
    /// Sequential, once to the end of the area (`seekpct=eof`).
    Eof,
}

/// Transfer sizes and their shares of I/Os, in percent.
pub(crate) type Sizes = Vec<(u64, f64)>;

/// A workload definition.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Wd {
    pub(crate) name: String,
    pub(crate) line: usize,
    /// Indexes into the SDs.
    pub(crate) sds: Vec<usize>,
    pub(crate) sizes: Sizes,
    /// `xfersize=(min,max,align)`: the alignment it asks for.
    pub(crate) xfer_align: Option<u64>,
    pub(crate) read: f64,
    pub(crate) seek: Seek,
    pub(crate) skew: Option<f64>,
    pub(crate) range: Option<(f64, f64)>,
    /// `hotband=`: `range` is the band, its random I/Os drawn from
    /// vdbench's cache curve.
    pub(crate) hotband: bool,
    pub(crate) openflags: Option<Param>,
}

/// Problems about one parameter of an entry.
pub(crate) fn bad(p: &Param, e: &Entry, kind: ImportErrorKind, detail: impl Into<String>) -> Problem {
    Problem::new(kind, p.item.line, detail).option(p.item.said()).place(e.place())
}

/// A parameter's numbers, or a problem.
pub(crate) fn numbers(p: &Param, e: &Entry, problems: &mut Vec<Problem>) -> Option<Vec<f64>> {
    match tokens(p.key, &p.item.value) {
        Ok(t) if t.iter().all(|t| t.num().is_some()) => Some(t.iter().filter_map(Tok::num).collect()),
        Ok(t) if t.iter().any(|t| matches!(t, Tok::Percent(_))) => {
            problems.push(
                bad(p, e, ImportErrorKind::BadValue, "vdbench reads N% as the number -N here, not a share")
                    .hint("write the number without %"),
            );
            None
        }
        Ok(_) => {
            problems.push(bad(
                p,
                e,
                ImportErrorKind::BadValue,
                "a number was expected (vdbench's k, m, g, t are 1024^n)",
            ));
            None
        }
        Err(why) => {
            problems.push(bad(p, e, ImportErrorKind::BadValue, why));
            None
        }
    }
}

/// One number.
fn number(p: &Param, e: &Entry, problems: &mut Vec<Problem>) -> Option<f64> {
    let n = numbers(p, e, problems)?;
    if n.len() != 1 {
        problems.push(bad(p, e, ImportErrorKind::BadValue, "one number was expected"));
        return None;
    }
    Some(n[0])
}

/// A whole number of bytes.
pub(crate) fn bytes(p: &Param, e: &Entry, problems: &mut Vec<Problem>) -> Option<u64> {
    let n = number(p, e, problems)?;
    let b = whole(n);
    if b.is_none() {
        problems.push(bad(
            p,
            e,
            ImportErrorKind::BadValue,
            format!("{n} is not a whole number of bytes (vdbench cuts it)"),
        ));
    }
    b
}

/// A `(lo,hi)` range.
fn range(p: &Param, e: &Entry, problems: &mut Vec<Problem>) -> Option<(f64, f64)> {
    let n = numbers(p, e, problems)?;
    if n.len() != 2 || n[0] >= n[1] || n[0] < 0.0 {
        problems.push(bad(p, e, ImportErrorKind::BadValue, "a range is two numbers, the first the smaller"));
        return None;
    }
    if n[0] < 100.0 && n[1] > 100.0 && n[1] <= 200.0 {
        problems.push(
            bad(
                p,
                e,
                ImportErrorKind::Untranslatable,
                "an end between 100 and 200 wraps past the end of the SD in vdbench",
            )
            .hint("methodic's I/O area does not wrap: give an end of at most 100 (%) or in bytes"),
        );
        return None;
    }
    Some((n[0], n[1]))
}

/// Parameters of an sd or wd refused: `(keyword, why, hint)`; `threads=`
/// only in a wd (an sd's threads are its queue depth).
const REFUSED: &[(&str, &str, &str)] = &[
    ("hitarea", "vdbench's cache-hit areas (with rhpct=/whpct=) have no methodic equivalent", "leave it out"),
    ("replay", "replay runs a recorded I/O trace, which methodic cannot", "leave it out"),
    (
        "journal",
        "vdbench's data validation journal has no methodic equivalent",
        "methodic's `verify` on a step stamps and checks the data it writes; add it by hand",
    ),
    ("dedup", "methodic writes unique data only and cannot make duplicate blocks", "leave it out"),
    (
        "streams",
        "methodic has no independent sequential streams within one area",
        "use one sd= (a device) per stream",
    ),
    ("rhpct", "vdbench's cache-hit areas have no methodic equivalent", "leave it out"),
    ("whpct", "vdbench's cache-hit areas have no methodic equivalent", "leave it out"),
    ("stride", "methodic has no strided random offsets", "leave it out"),
    ("priority", "methodic has no priority queues between workloads", "leave it out"),
    (
        "iorate",
        "a wd's own fixed rate, served first by priority, has no methodic equivalent",
        "give the rate on the rd, shared by skew=",
    ),
    ("user", "a user API class is Java code methodic cannot run", "leave it out"),
    (
        "threads",
        "threads= in a wd needs concatenatesds=, which methodic does not have",
        "give threads= on the sd or rd",
    ),
    (
        "kstat",
        "Solaris kstat reporting changes nothing methodic measures but is not carried over",
        "leave it out",
    ),
    ("instance", "Solaris kstat reporting is not carried over", "leave it out"),
    ("resetlun", "SCSI resets are not something methodic does", "leave it out"),
    ("resetbus", "SCSI resets are not something methodic does", "leave it out"),
];

/// A refusal for a parameter listed in [`REFUSED`], or for a host subset.
fn refuse_listed(e: &Entry, problems: &mut Vec<Problem>) {
    for p in &e.params {
        let wd_threads = p.key == "threads" && e.section == super::keywords::Section::Wd;
        if let Some((_, why, hint)) =
            REFUSED.iter().find(|r| r.0 == p.key && (p.key != "threads" || wd_threads))
        {
            problems.push(bad(p, e, ImportErrorKind::Untranslatable, *why).hint(*hint));
        }
        if p.key == "host" {
            problems.push(
                bad(
                    p,
                    e,
                    ImportErrorKind::Untranslatable,
                    "host= keeps an sd or wd to some hosts; every methodic step runs on every host of a run",
                )
                .hint("leave it out to use every hd=, or import a file per set of hosts"),
            );
        }
    }
}

/// The SD entries; an sd with `count=(start,n)` becomes its n clones,
/// after every other sd, as vdbench adds them.
pub(crate) fn sds(entries: &[Entry], problems: &mut Vec<Problem>) -> Vec<Sd> {
    let mut out = Vec::new();
    let mut clones = Vec::new();
    for e in entries {
        refuse_listed(e, problems);
        let luns: Vec<&Param> = e.params.iter().filter(|p| p.key == "lun").collect();
        let lun = match luns.as_slice() {
            [one] => unquote(&one.item.value),
            [] => {
                problems.push(
                    Problem::new(ImportErrorKind::Syntax, e.line, "an sd without lun=").place(e.place()),
                );
                String::new()
            }
            [_, more, ..] => {
                problems.push(
                    bad(more, e, ImportErrorKind::Untranslatable, "several luns (one a host) on one sd")
                        .hint("give each host its target in the hosts file"),
                );
                String::new()
            }
        };
        let size = e.get("size").and_then(|p| bytes(p, e, problems));
        let threads = match e.get("threads") {
            Some(p) => {
                let t = number(p, e, problems).and_then(|t| whole(t).filter(|t| *t >= 1 && *t <= 65_536));
                if t.is_none() {
                    problems.push(bad(
                        p,
                        e,
                        ImportErrorKind::BadValue,
                        "threads= takes a whole number from 1 to 65536",
                    ));
                }
                t
            }
            None => Some(8),
        };
        let offset = e.get("offset").and_then(|p| bytes(p, e, problems)).unwrap_or(0);
        let align = e.get("align").and_then(|p| bytes(p, e, problems)).filter(|a| *a > 0);
        out.push(Sd {
            name: e.name.clone(),
            line: e.line,
            lun,
            size,
            threads: threads.unwrap_or(8),
            range: e.get("range").and_then(|p| range(p, e, problems)),
            offset,
            align,
            openflags: e.get("openflags").cloned(),
        });
        if let Some(p) = e.get("count") {
            let sd = out.pop().expect("pushed above");
            clones.extend(counted(&sd, p, e, problems));
        }
    }
    out.extend(clones);
    out
}

/// `count=(start,n)`: the sd's n clones, named its name and `start + k`,
/// each lun made from the sd's as vdbench makes it: a `%` mask formats
/// the number (`/f%03d`: `/f000`), else the first `*` becomes it, else it
/// is appended (`SD_entry.handleFileCount` and `createCountingName`).
fn counted(sd: &Sd, p: &Param, e: &Entry, problems: &mut Vec<Problem>) -> Vec<Sd> {
    let pair = numbers(p, e, problems).and_then(|n| match n.as_slice() {
        [start, n] => Some((whole(*start)?, whole(*n).filter(|n| (1..=256).contains(n))?)),
        _ => None,
    });
    let Some((start, n)) = pair else {
        problems.push(bad(
            p,
            e,
            ImportErrorKind::BadValue,
            "count= takes (start,n): a whole start and n from 1 to 256",
        ));
        return Vec::new();
    };
    let mut out = Vec::new();
    for k in start..start + n {
        let lun = if sd.lun.contains('%') {
            match mask(&sd.lun, k) {
                Some(l) => l,
                None => {
                    problems.push(
                        bad(
                            p,
                            e,
                            ImportErrorKind::Untranslatable,
                            format!("the lun mask `{}` is not %d, %Nd or %0Nd", sd.lun),
                        )
                        .hint("write each sd= out"),
                    );
                    return Vec::new();
                }
            }
        } else if sd.lun.contains('*') {
            sd.lun.replacen('*', &k.to_string(), 1)
        } else {
            format!("{}{k}", sd.lun)
        };
        out.push(Sd { name: format!("{}{k}", sd.name), lun, ..sd.clone() });
    }
    out
}

/// A lun with one Java `%d`, `%Nd` or `%0Nd` in it, formatted with `k`;
/// `None` for any other mask.
pub(crate) fn mask(lun: &str, k: u64) -> Option<String> {
    let at = lun.find('%')?;
    let rest = &lun[at + 1..];
    let end = rest.find('d')?;
    let spec = &rest[..end];
    if !spec.chars().all(|c| c.is_ascii_digit()) || rest[end + 1..].contains('%') {
        return None;
    }
    let width: usize = if spec.is_empty() { 0 } else { spec.parse().ok()? };
    let number = if spec.starts_with('0') { format!("{k:0width$}") } else { format!("{k:width$}") };
    Some(format!("{}{number}{}", &lun[..at], &rest[end + 1..]))
}

/// Names matched by a list of names, ranges and trailing-`*` wildcards,
/// in the list's order: indexes into `names`.
pub(crate) fn select(p: &Param, e: &Entry, names: &[&str], problems: &mut Vec<Problem>) -> Vec<usize> {
    let toks = match tokens(p.key, &p.item.value) {
        Ok(t) => t,
        Err(why) => {
            problems.push(bad(p, e, ImportErrorKind::BadValue, why));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for t in toks {
        let word = match t {
            Tok::Text(w) => w,
            Tok::Num(n) => n.to_string(),
            Tok::Percent(n) => format!("{n}%"),
        };
        let found: Vec<usize> = match word.strip_suffix('*') {
            Some(prefix) => (0..names.len()).filter(|i| names[*i].starts_with(prefix)).collect(),
            None => (0..names.len()).filter(|i| names[*i] == word).collect(),
        };
        if found.is_empty() {
            problems.push(bad(p, e, ImportErrorKind::Syntax, format!("no {}={word} is defined", p.key)));
        }
        for i in found {
            if !out.contains(&i) {
                out.push(i);
            }
        }
    }
    out
}

/// `xfersize=`: one size, `(min,max,align)`, or `(size,share,...)` pairs.
fn xfersize(p: &Param, e: &Entry, problems: &mut Vec<Problem>) -> Option<(Sizes, Option<u64>)> {
    let n = numbers(p, e, problems)?;
    let size = |v: f64, problems: &mut Vec<Problem>| {
        let b = whole(v).filter(|b| *b > 0);
        if b.is_none() {
            problems.push(bad(
                p,
                e,
                ImportErrorKind::BadValue,
                format!("{v} is not a whole number of bytes above 0"),
            ));
        }
        b
    };
    match n.len() {
        1 => Some((vec![(size(n[0], problems)?, 100.0)], None)),
        3 => {
            let (min, max, align) = (size(n[0], problems)?, size(n[1], problems)?, size(n[2], problems)?);
            let count = if max > min { (max - min) / align + 1 } else { 0 };
            if !(2..=64).contains(&count) {
                problems.push(bad(
                    p,
                    e,
                    ImportErrorKind::Untranslatable,
                    "(min,max,align) must give 2 to 64 sizes here, min below max",
                ));
                return None;
            }
            let hundredths = 10_000 / count;
            let mut out: Vec<(u64, f64)> =
                (0..count).map(|k| (min + k * align, hundredths as f64 / 100.0)).collect();
            // The rest of 100% on the first sizes, a hundredth each.
            for item in out.iter_mut().take((10_000 - hundredths * count) as usize) {
                item.1 += 0.01;
            }
            Some((out, Some(align)))
        }
        k if k % 2 == 0 => {
            let mut out = Vec::new();
            for pair in n.chunks(2) {
                out.push((size(pair[0], problems)?, pair[1]));
            }
            let total: f64 = out.iter().map(|s| s.1).sum();
            if (total - 100.0).abs() > 1e-9 {
                problems.push(
                    bad(
                        p,
                        e,
                        ImportErrorKind::BadValue,
                        format!("the shares add up to {total}%, not 100% (vdbench lets 99.5 to 100.49 pass)"),
                    )
                    .hint("make the shares add up to exactly 100"),
                );
                return None;
            }
            Some((out, None))
        }
        _ => {
            problems.push(bad(
                p,
                e,
                ImportErrorKind::BadValue,
                "xfersize= takes one size, (min,max,align) or (size,share,...) pairs",
            ));
            None
        }
    }
}

/// `seekpct=`: words and numbers as vdbench's `WD_entry.parseSeekpct`.
pub(crate) fn seekpct(p: &Param, e: &Entry, problems: &mut Vec<Problem>) -> Option<Seek> {
    let v = unquote(&p.item.value);
    if v.starts_with("seq") && !v.ends_with("nz") {
        return Some(Seek::Random(0.0));
    }
    if v.eq_ignore_ascii_case("eof") {
        return Some(Seek::Eof);
    }
    if !v.is_empty() && "random".starts_with(v.as_str()) {
        return Some(Seek::Random(100.0));
    }
    if v.starts_with("seq") || v.starts_with('(') || (!v.is_empty() && "poisson".starts_with(v.as_str())) {
        problems.push(
            bad(
                p,
                e,
                ImportErrorKind::Untranslatable,
                "a random sequential start (seqnz) or a Poisson seek distance has no methodic equivalent",
            )
            .hint("use seekpct=seq, random or a share"),
        );
        return None;
    }
    match tokens(p.key, &p.item.value).ok().as_deref() {
        Some([Tok::Num(n)]) if *n == -1.0 => Some(Seek::Eof),
        Some([Tok::Num(n)]) if (0.0..=100.0).contains(n) => Some(Seek::Random(*n)),
        _ => {
            problems.push(bad(
                p,
                e,
                ImportErrorKind::BadValue,
                "seekpct= takes seq, random, eof, or a share from 0 to 100",
            ));
            None
        }
    }
}

/// The WD entries (`sd_names` in the SDs' order).
pub(crate) fn wds(entries: &[Entry], sd_names: &[&str], problems: &mut Vec<Problem>) -> Vec<Wd> {
    entries.iter().map(|e| wd(e, sd_names, problems)).collect()
}

/// One WD entry (or a copy of `wd=default` an rd runs).
pub(crate) fn wd(e: &Entry, sd_names: &[&str], problems: &mut Vec<Problem>) -> Wd {
    refuse_listed(e, problems);
    let sds = match e.get("sd") {
        Some(p) => select(p, e, sd_names, problems),
        None => Vec::new(),
    };
    let (sizes, xfer_align) = match e.get("xfersize") {
        Some(p) => xfersize(p, e, problems).unwrap_or((vec![(4096, 100.0)], None)),
        None => (vec![(4096, 100.0)], None),
    };
    let mut read = 100.0;
    for p in e.params.iter().filter(|p| p.key == "rdpct" || p.key == "writepct") {
        if let Some(n) = number(p, e, problems) {
            if !(0.0..=100.0).contains(&n) {
                problems.push(bad(p, e, ImportErrorKind::BadValue, "a share from 0 to 100 was expected"));
            }
            // vdbench keeps the whole part (`WD_entry.java:191-192`).
            read = if p.key == "rdpct" { n.trunc() } else { 100.0 - n.trunc() };
        }
    }
    let seek = e.get("seekpct").and_then(|p| seekpct(p, e, problems)).unwrap_or(Seek::Random(100.0));
    let skew = e.get("skew").and_then(|p| number(p, e, problems));
    Wd {
        name: e.name.clone(),
        line: e.line,
        sds,
        sizes,
        xfer_align,
        read,
        seek,
        skew,
        // WD_entry.java:209-218: hotband= sets the range, as range= does.
        range: e.get("hotband").or(e.get("range")).and_then(|p| range(p, e, problems)),
        hotband: e.get("hotband").is_some(),
        openflags: e.get("openflags").cloned(),
    }
}

/// How an SD is opened under `flags` (RD beats WD beats SD): direct,
/// buffered, or a problem; `fsync` is noted by the caller.
pub(crate) fn io_mode(sd: &Sd, flags: Option<&Param>, e: &Entry, problems: &mut Vec<Problem>) -> Option<Io> {
    let Some(p) = flags else {
        if sd.lun.starts_with("/dev/") {
            problems.push(
                Problem::new(
                    ImportErrorKind::BadValue,
                    sd.line,
                    "vdbench on Linux refuses a lun under /dev/ without openflags=o_direct",
                )
                .place(format!("sd={}", sd.name))
                .option(format!("lun={}", sd.lun))
                .hint("add openflags=o_direct to the sd"),
            );
            return None;
        }
        return Some(Io::Buffered);
    };
    let toks = tokens(p.key, &p.item.value).unwrap_or_default();
    let mut io = Io::Buffered;
    for t in toks {
        let Tok::Text(w) = t else { continue };
        match w.to_lowercase().as_str() {
            "o_direct" | "directio" => io = Io::Direct,
            "fsync" => {}
            other => {
                problems.push(
                    bad(p, e, ImportErrorKind::Untranslatable, format!("the open flag {other}: methodic opens targets direct or buffered only, with no synchronous writes"))
                        .place(format!("sd={}", sd.name))
                        .hint("use openflags=o_direct (io direct) or leave the flags out (io buffered)"),
                );
                return None;
            }
        }
    }
    if io == Io::Buffered && sd.lun.starts_with("/dev/") {
        problems.push(
            bad(
                p,
                e,
                ImportErrorKind::BadValue,
                "vdbench on Linux refuses a lun under /dev/ without o_direct",
            )
            .place(format!("sd={}", sd.name))
            .hint("add o_direct to the flags"),
        );
        return None;
    }
    Some(io)
}
