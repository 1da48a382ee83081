//! The runs in, each job's I/O area out: the span of the run's devices and
//! each workload's offset, from the SD's `size=`, the WD's or SD's `range=`
//! and `offset=`, as vdbench's `WG_entry.calculateContext` computes them
//! (`Hust-Wen/vdbench@e801261:src/Vdb/WG_entry.java:397-684`): a start or
//! end of at most 100 is a share of the size, above that bytes; both ends
//! rounded down to a multiple of the largest transfer size used on the SD
//! anywhere in the file; on a lun under `/dev` a start of 0 moves to that
//! size (vdbench never uses block zero there); `offset=` added to the
//! start.

use super::entries::Entry;
use super::runs::{Job, Loop, Run};
use super::settings::General;
use super::storage::{Io, Sd, Seek, io_mode};
use super::values::{share, size};
use crate::ImportErrorKind;
use crate::problem::Problem;

/// The largest transfer size each SD sees in any run (0 for an SD no run
/// uses).
pub(crate) fn largest(runs: &[Run], sds: &[Sd]) -> Vec<u64> {
    let mut out = vec![0; sds.len()];
    for r in runs {
        let looped = r
            .loops
            .iter()
            .filter_map(|l| if let Loop::Xfer(v) = l { v.iter().max().copied() } else { None })
            .max();
        for j in &r.jobs {
            let own = j.sizes.iter().map(|s| s.0).max().unwrap_or(0);
            out[j.sd] = out[j.sd].max(own).max(looped.unwrap_or(0));
        }
    }
    out
}

/// Each run's span and each job's offset, or the problems. `floor`: the
/// format run's transfer size, which vdbench counts among each SD's
/// (`trackSdXfersizes`), 0 without one.
pub(crate) fn areas(runs: &mut [Run], sds: &[Sd], floor: u64, problems: &mut Vec<Problem>) {
    let x: Vec<u64> = largest(runs, sds).into_iter().map(|x| x.max(floor)).collect();
    for r in runs.iter_mut() {
        let mut spans: Vec<String> = Vec::new();
        for j in r.jobs.iter_mut() {
            let sd = &sds[j.sd];
            let range = j.range.or(sd.range).unwrap_or((0.0, 100.0));
            let problem = |detail: String| {
                Problem::new(ImportErrorKind::Untranslatable, r.line, detail)
                    .place(format!("rd={}, sd={}", r.name, sd.name))
            };
            match area(sd, range, x[j.sd]) {
                Ok((span, offset, note, end)) => {
                    j.offset = offset;
                    if j.hotband {
                        match hot(j, sd, offset, end) {
                            Ok(said) => {
                                if !r.notes.contains(&said) {
                                    r.notes.push(said);
                                }
                            }
                            Err(why) => problems.push(problem(why)),
                        }
                    }
                    if !spans.contains(&span) {
                        spans.push(span);
                    }
                    if let Some(n) = note
                        && !r.notes.contains(&n)
                    {
                        r.notes.push(n);
                    }
                }
                Err(why) => problems.push(problem(why)),
            }
        }
        if spans.len() > 1 {
            problems.push(
                Problem::new(
                    ImportErrorKind::Conflict,
                    r.line,
                    format!("the run's sds have areas ending at {}: methodic has one span for every device of a step", spans.join(" and ")),
                )
                .place(format!("rd={}", r.name))
                .hint("give the sds of one rd the same size= and range="),
            );
        }
        r.span = spans.into_iter().next().unwrap_or_else(|| "100%".to_string());
    }
}

/// The format run `formatsds=yes` puts before the first rd
/// (`CreateSdFile.insertFormatsIfNeeded`): every SD a run uses written
/// once, sequentially to its end (`seekpct=eof`), by 2 threads an SD at
/// the most rate, 128KiB at a time (512 bytes when an SD is smaller;
/// `formatxfersize=` sets it), in the SD's whole area.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Format {
    pub(crate) span: String,
    pub(crate) offset: u64,
    pub(crate) io: Io,
    pub(crate) block: u64,
    pub(crate) devices: usize,
    pub(crate) notes: Vec<String>,
}

/// The transfer size of the format run on the SDs `used`: 128KiB, 512
/// bytes when an SD is smaller, or `formatxfersize=`; 0 without
/// `formatsds=yes`.
pub(crate) fn format_block(general: &General, sds: &[Sd], used: &[usize]) -> u64 {
    if general.format.is_none() {
        return 0;
    }
    let smallest = used.iter().filter_map(|i| sds[*i].size).min();
    general.format_xfer.unwrap_or(if smallest.is_some_and(|s| s < 128 * 1024) { 512 } else { 128 * 1024 })
}

/// The format run of `general`'s `formatsds=yes` on the SDs `used`, or
/// why methodic cannot run it as one fill.
pub(crate) fn format(
    general: &General,
    runs: &[Run],
    sds: &[Sd],
    used: &[usize],
    problems: &mut Vec<Problem>,
) -> Option<Format> {
    let p = general.format.as_ref()?;
    let place = Entry {
        section: super::keywords::Section::General,
        name: String::new(),
        line: 0,
        params: Vec::new(),
    };
    let problem = |detail: String| {
        super::storage::bad(p, &place, ImportErrorKind::Conflict, detail)
            .hint("give the sds the same size=, offset= and openflags=, or leave formatsds= out and write a fill phase for each by hand")
    };
    let block = format_block(general, sds, used);
    let x = largest(runs, sds);
    let mut areas: Vec<(String, u64)> = Vec::new();
    let mut ios: Vec<Io> = Vec::new();
    let mut notes = Vec::new();
    for i in used {
        let sd = &sds[*i];
        match area(sd, (0.0, 100.0), x[*i].max(block)) {
            Ok((span, offset, note, _)) => {
                if !areas.contains(&(span.clone(), offset)) {
                    areas.push((span, offset));
                }
                notes.extend(note.filter(|n| !notes.contains(n)));
            }
            Err(why) => {
                problems.push(problem(format!("the format of sd={}: {why}", sd.name)));
                return None;
            }
        }
        let io = io_mode(sd, sd.openflags.as_ref(), &place, problems)?;
        if !ios.contains(&io) {
            ios.push(io);
        }
    }
    if areas.len() > 1 || ios.len() > 1 {
        let said: Vec<String> = areas.iter().map(|(s, o)| format!("{} from {}", s, size(*o))).collect();
        problems.push(problem(format!(
            "{}: the sds {} methodic formats them in one fill, with one span, offset and io mode for every device",
            p.item.said(),
            if areas.len() > 1 { format!("have areas {}", said.join(", ")) } else { "open direct and buffered".to_string() }
        )));
        return None;
    }
    let (span, offset) = areas.pop()?;
    Some(Format { span, offset, io: ios.pop()?, block, devices: used.len(), notes })
}

/// A hot band's bands on `j`, and what the run's comment says of them;
/// or why there are none.
fn hot(j: &mut Job, sd: &Sd, offset: u64, end: Option<u64>) -> Result<String, String> {
    if matches!(j.seek, Seek::Eof) || matches!(j.seek, Seek::Random(s) if s <= 0.0) {
        return Ok(format!(
            "hotband= on wd={}: vdbench draws only random I/Os from the hot band, and these are sequential; the band is the area",
            j.wds.join(", wd=")
        ));
    }
    let Some(end) = end else {
        return Err(format!(
            "hotband= on sd={}, whose size the file does not give: vdbench's curve is in bytes, so where the hot spots fall depends on the band's size",
            sd.name
        ));
    };
    let width = end.saturating_sub(offset);
    j.bands = Some(super::hotband::bands(width).ok_or_else(|| {
        format!("a hot band of {} bytes: vdbench needs at least 1,000,000 (HotBand.java)", width)
    })?);
    Ok(format!(
        "hotband= on wd={}: vdbench's hot band draws random offsets from its cache curve folded into the band's {} whole megabytes of 1,000,000 bytes (HotBand.get_rec_index); the bands say where they fall, to a hundredth of a percent of the band. vdbench moves writes 1% of the band further on; the bands follow the reads",
        j.wds.join(", wd="),
        width / 1_000_000
    ))
}

/// One SD's area under `range` with the largest transfer size `x`: the
/// span, the offset, a note and the end in bytes where the SD's size
/// gives it.
#[allow(clippy::type_complexity)]
pub(crate) fn area(
    sd: &Sd,
    (lo, hi): (f64, f64),
    x: u64,
) -> Result<(String, u64, Option<String>, Option<u64>), String> {
    let x = x.max(1);
    let down = |b: f64| (b as u64) / x * x;
    let mut note = None;
    let (mut start, span, end) = match sd.size {
        Some(s) => {
            let start = if lo <= 100.0 { s as f64 * lo / 100.0 } else { lo };
            let end = if hi <= 100.0 { s as f64 * hi / 100.0 } else { hi };
            if end > s as f64 {
                return Err(format!("the area ends at {} bytes, past size={}", end, s));
            }
            (down(start), size(down(end)), Some(down(end)))
        }
        None => {
            let start = if lo <= 100.0 {
                if lo > 0.0 {
                    return Err(format!(
                        "range= starts at {lo}% of an sd whose size the file does not give: methodic needs the offset in bytes"
                    ));
                }
                0
            } else {
                down(lo)
            };
            if hi <= 100.0 {
                let span = share(hi).ok_or_else(|| format!("{hi}% has more than two decimals"))?;
                note = (hi < 100.0).then(|| format!(
                    "vdbench ends the area of sd={} at a multiple of {} (its largest transfer size); methodic's span {span} ends where the share of the target ends",
                    sd.name,
                    size(x)
                ));
                (start, span, None)
            } else {
                (start, size(down(hi)), Some(down(hi)))
            }
        }
    };
    if sd.raw_device() && start == 0 {
        start = x;
        note = Some(format!(
            "vdbench never uses block zero of a lun under /dev: I/O on sd={} starts {} in (its largest transfer size in the file)",
            sd.name,
            size(x)
        ));
    }
    start = start.saturating_add(sd.offset);
    if let Some(end) = end
        && end < start.saturating_add(x.saturating_mul(2))
    {
        return Err(format!(
            "the area from {start} to {end} bytes holds fewer than two of the largest transfer size {x} (vdbench stops on it)"
        ));
    }
    Ok((span, start, note, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sd(lun: &str, size: Option<u64>, offset: u64) -> Sd {
        Sd {
            name: "sd1".into(),
            line: 1,
            lun: lun.into(),
            size,
            threads: 8,
            range: None,
            offset,
            align: None,
            openflags: None,
        }
    }

    #[test]
    fn a_file_uses_its_whole_size_from_block_zero() {
        assert_eq!(area(&sd("/tmp/f", None, 0), (0.0, 100.0), 4096).unwrap(), ("100%".into(), 0, None, None));
        assert_eq!(
            area(&sd("/tmp/f", Some(1 << 30), 0), (0.0, 100.0), 4096).unwrap(),
            ("1GiB".into(), 0, None, Some(1 << 30))
        );
    }

    #[test]
    fn a_dev_lun_starts_after_its_largest_transfer_size() {
        let (span, offset, note, _) = area(&sd("/dev/sdb", Some(100 << 30), 0), (0.0, 100.0), 65536).unwrap();
        assert_eq!((span.as_str(), offset), ("100GiB", 65536));
        assert!(note.unwrap().contains("never uses block zero"));
    }

    #[test]
    fn ranges_are_shares_up_to_100_and_bytes_above_rounded_down() {
        // 10% to 50% of 1000000 bytes, rounded down to 4096.
        let (span, offset, _, end) = area(&sd("/tmp/f", Some(1_000_000), 512), (10.0, 50.0), 4096).unwrap();
        assert_eq!((span.as_str(), offset, end), ("488KiB", 98304 + 512, Some(499712)));
        let (span, offset, _, _) = area(&sd("/tmp/f", None, 0), (1048576.0, 2097152.0), 4096).unwrap();
        assert_eq!((span.as_str(), offset), ("2MiB", 1048576));
        assert!(
            area(&sd("/tmp/f", None, 0), (10.0, 50.0), 4096)
                .unwrap_err()
                .contains("size the file does not give")
        );
    }
}
