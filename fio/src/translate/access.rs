//! The access pattern, shares, block sizes, I/O mode, data and engine of a
//! job: one function per concern, each reading its options through the
//! [`JobReader`].

use methodic_compiler::plan::{Bytes, Percent};

use super::reader::{Got, JobReader, Reported, need};
use super::step::{Data, Filename};
use crate::error::ImportErrorKind;
use crate::job_file::Entry;
use crate::values::{KbBase, Refusal, Split, fio_bssplit, fio_bytes, fio_int, per_direction, refusal};

/// The access pattern `rw` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rw {
    Read,
    Write,
    RandRead,
    RandWrite,
    Mixed,
    RandMixed,
    /// `trim`, `randtrim`: trims alone.
    Trim,
    RandTrim,
}

impl Rw {
    pub(crate) fn random(self) -> bool {
        matches!(self, Rw::RandRead | Rw::RandWrite | Rw::RandMixed | Rw::RandTrim)
    }

    pub(crate) fn mixed(self) -> bool {
        matches!(self, Rw::Mixed | Rw::RandMixed)
    }
}

/// One value, not a value per direction (`4k,8k`).
pub(crate) fn single(v: &str) -> Result<&str, Refusal> {
    if v.contains(',') {
        return Err(refusal("a value for reads, another for writes (`,`): methodic uses one for all I/O")
            .hint("give one value"));
    }
    Ok(v)
}

pub(crate) fn access(r: &mut JobReader<'_>) -> Got<Rw> {
    let Some((e, v)) = r.word("rw")? else { return Ok(Rw::Read) };
    let (kind, modifier) = match v.split_once(':') {
        Some((k, m)) => (k, Some(m)),
        None => (v, None),
    };
    if modifier.is_some() {
        return Err(r.problem(
            ImportErrorKind::Untranslatable,
            e,
            refusal(format!(
                "fio's `:{}` modifier (skip ahead between sequential I/Os, or several I/Os per random offset) \
                 has no methodic equivalent",
                modifier.unwrap_or_default()
            ))
            .hint(format!("write rw={kind}")),
        ));
    }
    match kind {
        "read" => Ok(Rw::Read),
        "write" => Ok(Rw::Write),
        "randread" => Ok(Rw::RandRead),
        "randwrite" => Ok(Rw::RandWrite),
        "rw" | "readwrite" => Ok(Rw::Mixed),
        "randrw" => Ok(Rw::RandMixed),
        "trim" => Ok(Rw::Trim),
        "randtrim" => Ok(Rw::RandTrim),
        "trimwrite" | "randtrimwrite" => Err(r.problem(
            ImportErrorKind::Untranslatable,
            e,
            refusal(format!(
                "fio's {kind} trims each block and then writes it; a methodic workload draws its trims as a \
                 share of its I/Os (`trim N%`), so it has no such pairs"
            ))
            .hint("rw=randtrim for trims alone, or a methodic workload with a trim share"),
        )),
        other => Err(r.problem(
            ImportErrorKind::BadValue,
            e,
            refusal(format!("fio does not know rw={other}"))
                .hint("rw is read, write, randread, randwrite, rw (or readwrite), randrw, trim or randtrim"),
        )),
    }
}

pub(crate) fn read_share(r: &mut JobReader<'_>, rw: Option<Rw>) -> Got<Percent> {
    let read = r.int("rwmixread", 0, 100);
    let write = r.int("rwmixwrite", 0, 100);
    let (read, write) = (read?, write?);
    let Some(rw) = rw else { return Err(Reported) };
    if !rw.mixed() {
        for name in ["rwmixread", "rwmixwrite"] {
            if let Some(e) = r.get(name) {
                r.note(
                    e,
                    false,
                    true,
                    "ignored, as fio ignores it on a job that does not mix reads and writes",
                );
            }
        }
        return Ok(if matches!(rw, Rw::Read | Rw::RandRead) { Percent::HUNDRED } else { Percent::ZERO });
    }
    let share = match (read, write) {
        (Some(rd), Some(wr)) if rd + wr != 100 => {
            let e = r.get("rwmixwrite").expect("read above");
            return Err(r.problem(
                ImportErrorKind::Conflict,
                e,
                refusal(format!("rwmixread={rd} and rwmixwrite={wr} do not add up to 100"))
                    .hint("give one of them"),
            ));
        }
        (Some(rd), _) => rd,
        (None, Some(wr)) => 100 - wr,
        (None, None) => 50,
    };
    Ok(Percent::whole(share as u32))
}

pub(crate) fn random_share(r: &mut JobReader<'_>, rw: Option<Rw>) -> Got<Percent> {
    let share = r.read("percentage_random", |v| single(need(v)?).and_then(fio_int))?;
    let Some(rw) = rw else { return Err(Reported) };
    let e = r.get("percentage_random");
    match (share, e) {
        (Some(p), Some(e)) if rw.random() => {
            if p > 100 {
                return Err(r.problem(
                    ImportErrorKind::BadValue,
                    e,
                    refusal(format!("a random share of {p}% is over 100%")),
                ));
            }
            Ok(Percent::whole(p as u32))
        }
        (Some(_), Some(e)) => {
            r.note(e, false, true, "ignored, as fio ignores it on a sequential job");
            Ok(Percent::ZERO)
        }
        _ => Ok(if rw.random() { Percent::HUNDRED } else { Percent::ZERO }),
    }
}

/// The job's block sizes: `bssplit` (the list of the directions the job
/// does) over `bs`, as in fio; `rw` is the job's access (`None` when it
/// could not be read, a problem already told).
pub(crate) fn blocks(r: &mut JobReader<'_>, kb: KbBase, rw: Option<Rw>) -> Got<(Sizes, Option<Sizes>)> {
    let bs = r.read("bs", |v| {
        // `bs=R,W,T` as fio reads it: a size each direction, an empty one
        // fio's default (HOWTO.rst, blocksize).
        let d = per_direction(need(v)?)?;
        let size = |s: &str| if s.trim().is_empty() { Ok(Bytes(4096)) } else { fio_bytes(s, kb) };
        Ok((size(d.read)?, size(d.write)?, size(d.trim)?))
    });
    let split = split_of(r, kb, rw);
    let (bs, split) = (bs?, split?);
    let Some(rw) = rw else { return Err(Reported) };
    // The job's own direction's size; a job that reads and writes, the
    // reads' (the writes' own when it differs, as write_block).
    let (bs, bs_writes) = match (bs, rw) {
        (None, _) => (None, None),
        (Some((_, w, _)), Rw::Write | Rw::RandWrite) => (Some(w), None),
        (Some((_, _, t)), Rw::Trim | Rw::RandTrim) => (Some(t), None),
        (Some((r, _, _)), Rw::Read | Rw::RandRead) => (Some(r), None),
        (Some((r, w, _)), Rw::Mixed | Rw::RandMixed) => (Some(r), (w != r).then_some(w)),
    };
    if let Some(b) = bs.filter(|b| b.0 == 0) {
        let e = r.get("bs").expect("read above");
        return Err(r.problem(
            ImportErrorKind::BadValue,
            e,
            refusal(format!("a block size of {b} moves no data")),
        ));
    }
    let plain = vec![(bs.unwrap_or(Bytes(4096)), Percent::HUNDRED)];
    let (split, writes) = split;
    // bs counts for a direction whose list is empty.
    let bs_used = split.is_none() || writes.as_ref().is_some_and(Option::is_none);
    if let (Some(_), false) = (bs, bs_used) {
        let e = r.get("bs").expect("read above");
        r.note(e, false, true, "ignored: bssplit sets the block sizes, as in fio");
    }
    let bs_writes = || vec![(bs_writes.unwrap_or(bs.unwrap_or(Bytes(4096))), Percent::HUNDRED)];
    let writes = match writes {
        Some(w) => Some(w.unwrap_or_else(bs_writes)),
        // No per-direction bssplit: bs's own per-direction sizes count
        // where bssplit does not set them.
        None if split.is_none() && bs_writes().first() != plain.first() => Some(bs_writes()),
        None => None,
    };
    Ok((split.unwrap_or(plain), writes))
}

/// Block sizes with their shares of I/Os.
pub(crate) type Sizes = Vec<(Bytes, Percent)>;

/// `bssplit` for the directions the job does: fio keeps a split for
/// reads, one for writes and one for trims (`R,W,T`; one for all without
/// a comma). A job that does one direction takes its list, exactly; a job
/// that reads and writes with two lists takes the reads' as `blocks` and
/// the writes' as `write_blocks` (the second: `Some`, holding `None` for
/// an empty list, which is `bs`'s). `None`: no split (or an empty list),
/// so `bs` counts.
fn split_of(
    r: &mut JobReader<'_>,
    kb: KbBase,
    rw: Option<Rw>,
) -> Got<(Option<Sizes>, Option<Option<Sizes>>)> {
    let Some(e) = r.get("bssplit") else { return Ok((None, None)) };
    let raw = match need(e.value.as_deref()).and_then(per_direction) {
        Ok(d) => d,
        Err(why) => return Err(r.problem(ImportErrorKind::BadValue, e, why)),
    };
    let parse = |list: &str| -> Result<Option<Split>, Refusal> {
        if list.trim().is_empty() { Ok(None) } else { fio_bssplit(list, kb).map(Some) }
    };
    let lists = [raw.read, raw.write, raw.trim].map(parse);
    let [read, write, trim] = match lists {
        [Ok(a), Ok(b), Ok(c)] => [a, b, c],
        lists => {
            for why in lists.into_iter().filter_map(Result::err) {
                r.problem(ImportErrorKind::BadValue, e, why);
            }
            return Err(Reported);
        }
    };
    let Some(rw) = rw else { return Err(Reported) };
    let apart = e.value.as_deref().is_some_and(|v| v.contains(','));
    let (split, list, direction) = match rw {
        Rw::Read | Rw::RandRead => (read, raw.read, "reads"),
        Rw::Write | Rw::RandWrite => (write, raw.write, "writes"),
        Rw::Trim | Rw::RandTrim => (trim, raw.trim, "trims"),
        Rw::Mixed | Rw::RandMixed => {
            if read != write {
                r.note(
                    e,
                    false,
                    false,
                    format!(
                        "fio draws the sizes of the job's reads from `{}` and of its writes from `{}`: `blocks` and \
                         `write_blocks`",
                        said_list(raw.read),
                        said_list(raw.write)
                    ),
                );
                let reads = read.map(|s| rounded(r, e, s));
                let writes = write.map(|s| rounded(r, e, s));
                return Ok((reads, Some(writes)));
            }
            (read, raw.read, "reads and writes")
        }
    };
    if apart {
        r.note(
            e,
            false,
            false,
            format!("fio uses the split for {direction}, `{}`, on this job", said_list(list)),
        );
    }
    Ok((split.map(|s| rounded(r, e, s)), None))
}

/// A split's sizes as fio issues them, with a note when fio rounds one.
fn rounded(r: &mut JobReader<'_>, e: &Entry, split: Split) -> Sizes {
    if !split.rounded.is_empty() {
        let smallest = split.blocks[0].0;
        let each: Vec<String> = split.rounded.iter().map(|(from, to)| format!("{from} as {to}")).collect();
        r.note(
            e,
            false,
            false,
            format!(
                "fio rounds each size down to a multiple of the smallest, {smallest} (without bs_unaligned), and \
                 issues {}: the split here is what fio issues",
                each.join(", ")
            ),
        );
    }
    split.blocks
}

/// A direction's list as a note or refusal shows it; an empty one is
/// `bs`'s.
fn said_list(list: &str) -> String {
    if list.trim().is_empty() { "bs (its list is empty)".to_string() } else { list.trim().to_string() }
}

pub(crate) fn io_mode(r: &mut JobReader<'_>) -> Got<bool> {
    let direct = r.bool("direct");
    let buffered = r.bool("buffered");
    match (direct?, buffered?) {
        (Some(d), Some(b)) if d == b => {
            let e = r.get("buffered").expect("read above");
            Err(r.problem(
                ImportErrorKind::Conflict,
                e,
                refusal(format!("direct={} and buffered={} contradict each other", d as u8, b as u8))
                    .hint("give one of them"),
            ))
        }
        (Some(d), _) => Ok(d),
        (None, Some(b)) => Ok(!b),
        (None, None) => Ok(false),
    }
}

pub(crate) fn data(r: &mut JobReader<'_>) -> Got<Data> {
    let zeros = r.flag("zero_buffers");
    let compress = r.int("buffer_compress_percentage", 0, 100);
    match (zeros?, compress?) {
        (true, Some(p)) if p > 0 => {
            let e = r.get("buffer_compress_percentage").expect("read above");
            Err(r.problem(
                ImportErrorKind::Conflict,
                e,
                refusal("zero_buffers and buffer_compress_percentage ask for different data")
                    .hint("give one of them"),
            ))
        }
        (true, _) => Ok(Data::Zeros),
        (false, Some(p)) if p > 0 => {
            let e = r.get("buffer_compress_percentage").expect("read above");
            r.note(
                e,
                false,
                false,
                format!(
                    "as `data compressible {p}%`: the same share of zeros in every 512B chunk, as fio lays \
                     it out by default"
                ),
            );
            Ok(Data::Compressible(Percent::whole(p as u32)))
        }
        _ => Ok(Data::Random),
    }
}

/// The file fio runs the job on; several (`a:b`) are refused.
pub(crate) fn filename(r: &mut JobReader<'_>, e: &Entry) -> Option<Filename> {
    let path = e.value.as_deref().unwrap_or("").trim();
    let several = path.replace("\\:", "").contains(':');
    if several {
        r.problem(
            ImportErrorKind::Untranslatable,
            e,
            refusal(
                "fio spreads the job's I/O over several files (`:`); methodic spreads a step's workers over \
                 devices (`target { devices N }`) and puts a together job on one (`device N`), but each worker \
                 works on one device, not over several files",
            )
            .hint(
                "give the job one file or device; jobs fio starts together (no stonewall) on files of their own \
                 become a together step with a device each",
            ),
        );
        return None;
    }
    Some(Filename {
        path: path.to_string(),
        written: e.written(),
        line: e.line,
        global: e.section == "global",
    })
}

/// What `ioengine` (fio's default: psync) means for the queue depth.
pub(crate) fn engine(r: &mut JobReader<'_>, qd: u64, direct: bool) -> Got<()> {
    let given = r.word("ioengine")?;
    let name = given.map_or("psync".to_string(), |(_, v)| v.trim().to_ascii_lowercase());
    const QUEUED: [&str; 3] = ["libaio", "io_uring", "posixaio"];
    const SYNCHRONOUS: [&str; 5] = ["sync", "psync", "vsync", "pvsync", "pvsync2"];
    let own_io =
        "not carried over: methodic does its own I/O (io_uring, or psync where io_uring is unavailable)";
    if SYNCHRONOUS.contains(&name.as_str()) {
        if qd > 1 {
            let e = r.get("iodepth").expect("a depth above 1 was given");
            let engine = match given {
                Some((g, _)) => format!("ioengine={name} (line {})", g.line),
                None => "psync, fio's default engine when none is given,".to_string(),
            };
            return Err(r.problem(
                ImportErrorKind::Conflict,
                e,
                refusal(format!(
                    "fio runs {engine} with one I/O in flight per job: it caps iodepth={qd} at 1, so the job \
                     does not measure what it says"
                ))
                .hint("give ioengine=libaio or io_uring (with direct=1) for a deeper queue, or iodepth=1 to import what fio measures"),
            ));
        }
        if let Some((g, _)) = given {
            r.note(g, true, true, format!("{own_io}, at the same single I/O in flight"));
        }
        return Ok(());
    }
    let Some((g, _)) = given else { unreachable!("fio's default engine is synchronous") };
    if !QUEUED.contains(&name.as_str()) {
        return Err(r.problem(
            ImportErrorKind::Untranslatable,
            g,
            refusal(format!(
                "methodic reads and writes a file or block device with io_uring or psync; ioengine={name} \
                 measures another path"
            ))
            .hint("use ioengine=libaio or io_uring"),
        ));
    }
    if name == "libaio" && !direct && qd > 1 {
        let e = r.get("iodepth").expect("a depth above 1 was given");
        return Err(r.problem(
            ImportErrorKind::Conflict,
            e,
            refusal(format!(
                "Linux queues only direct I/O through libaio: on buffered I/O (fio's default without \
                 direct=1) each submission completes before it returns, so iodepth={qd} is not kept"
            ))
            .hint("add direct=1, use ioengine=io_uring for a queue of buffered I/O, or give iodepth=1 to import what fio measures"),
        ));
    }
    r.note(g, true, true, own_io);
    Ok(())
}
