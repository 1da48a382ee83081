//! A job's open-loop rate: `rate_iops` (I/Os a second) or `rate` (bytes a
//! second), each a cap for reads and another for writes on every clone,
//! and `rate_process`; out, one methodic rate over all the job's workers
//! with its arrivals. Checks that fio's caps make the mix the job asks
//! for: fio caps each direction on its own (`rate_iops=1000` on a 70/30
//! job starts 1000 reads and 1000 writes a second, a 50/50 mix), where
//! methodic starts I/Os at one rate and keeps the read share.

use methodic_compiler::plan::{Arrivals, Bytes, Percent, Rate, RateAmount};

use super::reader::{Got, JobReader, Reported, need};
use crate::error::ImportErrorKind;
use crate::job_file::Entry;
use crate::values::{KbBase, Refusal, fio_bytes, fio_int, refusal};

/// One direction's cap for each clone: I/Os or bytes a second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cap {
    Iops(u64),
    Bytes(u64),
}

impl Cap {
    fn amount(self) -> u64 {
        match self {
            Cap::Iops(n) | Cap::Bytes(n) => n,
        }
    }

    /// `1000 I/Os` or `1MiB`, a second understood.
    fn said(self) -> String {
        match self {
            Cap::Iops(n) => format!("{n} I/Os"),
            Cap::Bytes(b) => Bytes(b).to_string(),
        }
    }
}

/// fio's caps as written: for reads and for writes, and whether the value
/// named them apart (`R,W`) rather than one for both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Caps {
    read: Option<u64>,
    write: Option<u64>,
    apart: bool,
}

/// `N` caps reads and writes alike; `R,W` each (an empty side, or 0,
/// leaves that direction uncapped; a third value, for trims, is allowed
/// and unused, as methodic's workloads do not trim).
fn per_direction(raw: &str, parse: impl Fn(&str) -> Result<u64, Refusal>) -> Result<Caps, Refusal> {
    let parts: Vec<&str> = raw.split(',').collect();
    if parts.len() > 3 {
        return Err(refusal("fio takes at most three values here: for reads, writes and trims"));
    }
    let value = |s: &str| -> Result<Option<u64>, Refusal> {
        if s.trim().is_empty() { Ok(None) } else { parse(s).map(|n| Some(n).filter(|n| *n > 0)) }
    };
    let read = value(parts[0])?;
    if parts.len() == 1 {
        return Ok(Caps { read, write: read, apart: false });
    }
    let write = value(parts[1])?;
    if let Some(trim) = parts.get(2) {
        value(trim)?;
    }
    Ok(Caps { read, write, apart: true })
}

/// The rate options as written, read before the job's mix is known.
pub(crate) struct Given {
    iops: Option<(&'static str, Caps)>,
    bytes: Option<(&'static str, Caps)>,
    arrivals: Arrivals,
}

/// Reads `rate_iops`, `rate` and `rate_process`; every bad value is
/// reported.
pub(crate) fn rate_options(r: &mut JobReader<'_>, kb: Option<KbBase>) -> Got<Given> {
    let iops = r.read("rate_iops", |v| per_direction(need(v)?, fio_int));
    let bytes = match kb {
        Some(kb) => r.read("rate", |v| per_direction(need(v)?, |s| fio_bytes(s, kb).map(|b| b.0))),
        None => Err(Reported),
    };
    let process = r.word("rate_process");
    let arrivals = match process? {
        None => Arrivals::Uniform,
        Some((_, "linear")) => Arrivals::Uniform,
        Some((_, "poisson")) => Arrivals::Poisson,
        Some((e, other)) => {
            return Err(r.problem(
                ImportErrorKind::BadValue,
                e,
                refusal(format!("fio does not know rate_process={other}"))
                    .hint("rate_process is linear (evenly spaced, fio's default) or poisson"),
            ));
        }
    };
    Ok(Given { iops: iops?.map(|c| ("rate_iops", c)), bytes: bytes?.map(|c| ("rate", c)), arrivals })
}

/// The job's rate over its `clones`, for a job that reads `read` of its
/// I/Os; `None`: closed loop.
pub(crate) fn job_rate(r: &mut JobReader<'_>, given: Given, read: Percent, clones: u64) -> Got<Option<Rate>> {
    let reads = read > Percent::ZERO;
    let writes = read < Percent::HUNDRED;
    // For each direction `rate` counts where it is given, as in fio.
    let pick = |d: fn(&Caps) -> Option<u64>| -> Option<(&'static str, Cap)> {
        given
            .bytes
            .and_then(|(n, c)| d(&c).map(|b| (n, Cap::Bytes(b))))
            .or_else(|| given.iops.and_then(|(n, c)| d(&c).map(|i| (n, Cap::Iops(i)))))
    };
    let read_cap = pick(|c| c.read);
    let write_cap = pick(|c| c.write);
    note_ignored(r, &given, (reads, read_cap), (writes, write_cap));

    let (per_clone, named) = match (reads, writes, read_cap, write_cap) {
        (true, false, None, _) | (false, true, _, None) | (true, true, None, None) => {
            if given.arrivals == Arrivals::Poisson {
                let e = entry(r, "rate_process");
                r.note(e, false, true, "ignored: the job has no rate, so fio has no arrivals to space");
            }
            return Ok(None);
        }
        (true, false, Some((n, c)), _) | (false, true, _, Some((n, c))) => (c, n),
        (true, true, Some((n, c)), None) | (true, true, None, Some((n, c))) => {
            let (capped, free) = if read_cap.is_some() { ("reads", "writes") } else { ("writes", "reads") };
            let e = entry(r, n);
            return Err(r.problem(
                ImportErrorKind::Untranslatable,
                e,
                refusal(format!(
                    "fio caps only the job's {capped} ({} a second for each clone) and lets its {free} go as fast \
                     as the target allows; methodic starts all of a step's I/O at one rate",
                    c.said()
                ))
                .hint(split_hint(n, c, read)),
            ));
        }
        (true, true, Some(rc), Some(wc)) => both_capped(r, &given, read, rc, wc)?,
        (false, false, ..) => unreachable!("a job reads, writes or both"),
    };
    let Some(total) = per_clone.amount().checked_mul(clones) else {
        let e = entry(r, named);
        return Err(r.problem(
            ImportErrorKind::BadValue,
            e,
            refusal(format!(
                "{} a second over {clones} clones is more than a number holds",
                per_clone.said()
            )),
        ));
    };
    let amount = match per_clone {
        Cap::Iops(_) => RateAmount::Iops(total),
        Cap::Bytes(_) => RateAmount::Bandwidth(Bytes(total)),
    };
    Ok(Some(Rate { amount, arrivals: given.arrivals }))
}

/// Notes for the caps fio ignores: `rate_iops` where `rate` caps the same
/// direction, and a cap for a direction the job does not do. Each
/// direction: whether the job does it, and its cap.
fn note_ignored(
    r: &mut JobReader<'_>,
    given: &Given,
    (reads, read_cap): (bool, Option<(&'static str, Cap)>),
    (writes, write_cap): (bool, Option<(&'static str, Cap)>),
) {
    if let (Some(_), Some((_, ic))) = (given.bytes, given.iops) {
        let shadowed = (reads && ic.read.is_some() && read_cap.is_some_and(|(n, _)| n == "rate"))
            || (writes && ic.write.is_some() && write_cap.is_some_and(|(n, _)| n == "rate"));
        if shadowed {
            let e = entry(r, "rate_iops");
            r.note(e, false, true, "ignored where rate is given too: rate sets the cap, as in fio");
        }
    }
    for (name, caps) in [given.iops, given.bytes].into_iter().flatten() {
        if !caps.apart {
            continue;
        }
        let unused = if !writes && caps.write.is_some() {
            Some("the write cap is ignored, as fio ignores it on a job that only reads")
        } else if !reads && caps.read.is_some() {
            Some("the read cap is ignored, as fio ignores it on a job that only writes")
        } else {
            None
        };
        if let Some(text) = unused {
            let e = entry(r, name);
            r.note(e, false, false, text);
        }
    }
}

/// Both directions capped: by the same option (else refused), in the
/// job's own mix (else refused); their sum for each clone, and the
/// option that gives it.
fn both_capped(
    r: &mut JobReader<'_>,
    given: &Given,
    read: Percent,
    (rn, rc): (&'static str, Cap),
    (wn, wc): (&'static str, Cap),
) -> Got<(Cap, &'static str)> {
    if std::mem::discriminant(&rc) != std::mem::discriminant(&wc) {
        let e = entry(r, "rate_iops");
        return Err(r.problem(
            ImportErrorKind::Conflict,
            e,
            refusal(format!(
                "the job's reads are capped by {rn} ({} a second) and its writes by {wn} ({} a second); \
                 methodic's rate is I/Os or bytes a second for all of a step's I/O",
                rc.said(),
                wc.said()
            ))
            .hint("cap both directions with the same option"),
        ));
    }
    let (a, b) = (rc.amount(), wc.amount());
    let both = a.saturating_add(b);
    // fio's rwmixread is whole percents: the caps' own mix, rounded
    // half up, must be it.
    let share = ((200u128 * a as u128 + both as u128) / (2 * both as u128)) as u32;
    if Percent::whole(share) != read {
        let e = entry(r, rn);
        let apart = caps_apart(given, rn);
        let caps = if apart {
            format!("{rn} caps reads at {} and writes at {} a second", rc.said(), wc.said())
        } else {
            format!("{} caps reads and writes alike, each at {} a second", e.written(), rc.said())
        };
        return Err(r.problem(
            ImportErrorKind::Untranslatable,
            e,
            refusal(format!(
                "fio caps each direction on its own: {caps} for each clone, a {share}% read mix where the \
                 job asks for {read} reads; methodic starts I/Os at one rate and keeps the read share"
            ))
            .hint(split_hint(rn, if apart { add(rc, b) } else { rc }, read)),
        ));
    }
    Ok((add(rc, b), rn))
}

fn entry<'j>(r: &JobReader<'j>, name: &str) -> &'j Entry {
    r.get(name).expect("a rate option was given")
}

fn caps_apart(given: &Given, name: &str) -> bool {
    [given.iops, given.bytes].into_iter().flatten().any(|(n, c)| n == name && c.apart)
}

fn add(c: Cap, more: u64) -> Cap {
    match c {
        Cap::Iops(n) => Cap::Iops(n.saturating_add(more)),
        Cap::Bytes(n) => Cap::Bytes(n.saturating_add(more)),
    }
}

/// What to write for `total` a second in all at the job's read share:
/// `rate_iops=700,300`.
fn split_hint(name: &str, total: Cap, read: Percent) -> String {
    let t = total.amount();
    let reads = (t as u128 * read.hundredths() as u128 / 10_000) as u64;
    let writes = t - reads;
    let all = match total {
        Cap::Iops(_) => format!("{t} I/Os"),
        Cap::Bytes(_) => format!("{t} bytes"),
    };
    format!(
        "cap both in the job's mix: {name}={reads},{writes} is {all} a second in all for each clone, {read} of \
         them reads"
    )
}
