//! A job's `random_distribution` in, where its random offsets land out: an
//! [`Access`]. fio's zipf, pareto and normal become methodic's, with a
//! note on how fio draws them otherwise; zoned becomes hot bands, exactly.
//! Refused: `zoned_abs` (zones in bytes), a distribution for reads and
//! another for writes, values fio refuses or reads otherwise, and a
//! distribution on a job with no random I/O.
//!
//! fio 3.33's drawing, for the notes (`lib/zipf.c`, `lib/gauss.c`,
//! `io_u.c`): zipf draws ranks 1 and 2 exactly and the rest by Gray et
//! al.'s approximation; pareto is `(n - 1) * u^(ln h / ln(1 - h))`; normal
//! is the mean of 12 uniform draws over the range (a standard deviation of
//! a twelfth of it) plus a uniform spread of DEV% of the range; all three
//! then scatter the value over the blocks by a multiplicative hash modulo
//! the block count, which sends some values to one block and none to
//! others. Zoned picks a zone by whole percents and draws uniformly in it,
//! as methodic's bands do.

use methodic_compiler::plan::{Access, Band, Milli, Percent};

use super::reader::{Got, JobReader, Reported};
use crate::error::ImportErrorKind;
use crate::job_file::Entry;
use crate::values::{Refusal, fio_decimal, refusal};

/// fio's default zipf exponent and pareto shape, when the value is left
/// out (`random_distribution=zipf`).
const DEFAULT_THETA: Milli = Milli(1100);
const DEFAULT_H: Milli = Milli(200);

/// Where the job's random offsets land; `random` is the job's random
/// share and `clones` its numjobs (`None` when they could not be read, a
/// problem already told).
pub(crate) fn distribution(
    r: &mut JobReader<'_>,
    random: Option<Percent>,
    clones: Option<u64>,
) -> Got<Access> {
    let Some((e, v)) = r.word("random_distribution")? else { return Ok(Access::Uniform) };
    let (name, rest) = match v.split_once(':') {
        Some((n, rest)) => (n, Some(rest)),
        None => (v, None),
    };
    let parsed = match name {
        "random" => Ok(Access::Uniform),
        "zipf" | "pareto" | "normal" => value(r, e, name, rest, clones.unwrap_or(1)),
        "zoned" => zoned(r, e, rest.unwrap_or("")),
        "zoned_abs" => Err(r.problem(
            ImportErrorKind::Untranslatable,
            e,
            refusal("zoned_abs gives its zones in bytes; methodic's hot bands are shares of the span")
                .hint("give the zones as shares of the span: random_distribution=zoned:IO/SPAN:..."),
        )),
        // parse_sequence_distribution(), options.c:1343 at axboe/fio@f5344384.
        "sequence" => Err(r.problem(
            ImportErrorKind::Untranslatable,
            e,
            refusal(
                "fio's sequence distribution visits the blocks it lists in that order, again and again; methodic \
                 draws each random offset from a distribution, in no stated order",
            )
            .hint("use rw=read or rw=write for blocks in order, or another random_distribution"),
        )),
        other => Err(r.problem(
            ImportErrorKind::BadValue,
            e,
            refusal(format!("fio does not know random_distribution={other}")).hint(
                "random_distribution is random, zipf:THETA, pareto:H, normal:DEV[:CENTRE] or zoned:IO/SPAN:...",
            ),
        )),
    }?;
    let Some(random) = random else { return Err(Reported) };
    if !parsed.is_uniform() && random.is_zero() {
        return Err(r.problem(
            ImportErrorKind::Conflict,
            e,
            refusal(format!(
                "the job has no random I/O (a sequential rw, or percentage_random=0), so {} has no offsets \
                 to shape: fio ignores it",
                e.written()
            ))
            .hint("leave random_distribution out, or make the job random (rw=randread, randwrite or randrw)"),
        ));
    }
    Ok(parsed)
}

fn bad(r: &mut JobReader<'_>, e: &Entry, why: Refusal) -> Reported {
    r.problem(ImportErrorKind::BadValue, e, why)
}

/// `zipf[:THETA[:CENTRE]]`, `pareto[:H[:CENTRE]]`, `normal[:DEV[:CENTRE]]`:
/// the parameter and the centre read as fio reads them, then each
/// distribution's own checks.
fn value(r: &mut JobReader<'_>, e: &Entry, name: &str, rest: Option<&str>, clones: u64) -> Got<Access> {
    // fio reads the value after `zipf:` with sscanf's %lf, which skips
    // blanks before a number.
    let given = rest.is_some();
    let rest = rest.unwrap_or("").trim();
    if rest.contains(',') {
        return Err(r.problem(
            ImportErrorKind::Untranslatable,
            e,
            refusal(
                "a distribution for reads, another for writes (`,`): methodic draws all random I/O from one",
            )
            .hint(format!("give one: random_distribution={name}:...")),
        ));
    }
    let (param, centre) = match rest.split_once(':') {
        Some((p, c)) => (p.trim(), Some(c.trim())),
        None => (rest, None),
    };
    // A centre is a share of the range, 0 to 1, to four places (a
    // hundredth of a percent).
    let centre = match centre {
        None => None,
        Some(c) => match fio_decimal(c, 4) {
            Ok(c) if c <= 10_000 => Some(Percent::from_hundredths(c as u32)),
            Ok(_) => {
                return Err(bad(r, e, refusal(format!("fio takes a centre from 0 to 1, not {c}"))));
            }
            Err(why) => return Err(bad(r, e, why)),
        },
    };
    let written = param;
    let param = if given {
        let places = if name == "normal" { 2 } else { 3 };
        Some(fio_decimal(param, places).map_err(|why| bad(r, e, why))?)
    } else {
        None
    };
    match name {
        "zipf" => zipf(r, e, param, centre, clones),
        "pareto" => pareto(r, e, param, centre, clones),
        _ => normal(r, e, param, centre, written),
    }
}

/// `zipf`: an exponent above 0, not 1 (fio refuses it), up to 10.
fn zipf(
    r: &mut JobReader<'_>,
    e: &Entry,
    param: Option<u64>,
    centre: Option<Percent>,
    clones: u64,
) -> Got<Access> {
    let theta = param.map_or(DEFAULT_THETA, |t| Milli(t as u32));
    match theta.0 {
        0 => {
            return Err(bad(
                r,
                e,
                refusal("a zipf exponent of 0 draws every block alike")
                    .hint("random_distribution=random says so"),
            ));
        }
        1000 => {
            return Err(bad(
                r,
                e,
                refusal("fio refuses zipf:1 (its approximation divides by 1 - theta)").hint(
                    "methodic draws an exponent of exactly 1: write `random zipf 1` in the methodology",
                ),
            ));
        }
        t if t > 10_000 => {
            return Err(bad(r, e, refusal(format!("methodic takes zipf exponents up to 10, not {theta}"))));
        }
        _ => {}
    }
    if param.is_none() {
        r.note(e, false, false, format!("fio's default exponent, {DEFAULT_THETA}"));
    }
    centre_dropped(r, e, centre, clones);
    r.note(e, false, false, format!("as `random zipf {theta}`: {}", zipf_differs()));
    Ok(Access::Zipf { theta })
}

/// `pareto`: a shape above 0 and below 1.
fn pareto(
    r: &mut JobReader<'_>,
    e: &Entry,
    param: Option<u64>,
    centre: Option<Percent>,
    clones: u64,
) -> Got<Access> {
    let h = param.map_or(DEFAULT_H, |h| Milli(h as u32));
    if h.0 == 0 || h.0 >= 1000 {
        return Err(bad(r, e, refusal(format!("fio takes a pareto shape above 0 and below 1, not {h}"))));
    }
    if param.is_none() {
        r.note(e, false, false, format!("fio's default shape, {DEFAULT_H}"));
    }
    centre_dropped(r, e, centre, clones);
    r.note(e, false, false, format!("as `random pareto {h}`: {}", pareto_differs()));
    Ok(Access::Pareto { h })
}

/// `normal`: a deviation (`written`, as given) above 0 and below 100% of
/// the range, around the centre or the middle.
fn normal(
    r: &mut JobReader<'_>,
    e: &Entry,
    param: Option<u64>,
    centre: Option<Percent>,
    written: &str,
) -> Got<Access> {
    let dev = param.unwrap_or(0);
    if dev == 0 {
        return Err(bad(
            r,
            e,
            refusal(
                "fio's normal without a deviation spreads its draws by its own sum of 12 uniform draws (a \
                 twelfth of the range); methodic's normal needs its standard deviation",
            )
            .hint("give the deviation as a percentage of the range: random_distribution=normal:5"),
        ));
    }
    if dev >= 10_000 {
        return Err(bad(
            r,
            e,
            refusal(format!("fio takes a deviation below 100, not {written}"))
                .hint("give the deviation as a percentage of the range below 100: normal:5"),
        ));
    }
    let sigma = Percent::from_hundredths(dev as u32);
    let centre = centre.unwrap_or(Percent::whole(50));
    let access = Access::Normal { sigma, centre };
    r.note(e, false, false, format!("as `random {access}`: {}", normal_differs(sigma)));
    Ok(access)
}

/// fio's zipf and pareto start their hash at the centre, or without one
/// at a random place of each clone's own: its clones then have hot blocks
/// of their own, where methodic's workers share one set.
fn centre_dropped(r: &mut JobReader<'_>, e: &Entry, centre: Option<Percent>, clones: u64) {
    match centre {
        Some(c) => r.note(
            e,
            false,
            true,
            format!(
                "the centre {c} is left out: it moves where fio's hash puts the hot blocks, not how hot they \
                 are; methodic scatters the ranks by its own fixed permutation"
            ),
        ),
        None if clones > 1 => r.note(
            e,
            false,
            false,
            format!(
                "without a centre, each of fio's {clones} clones starts its hash at a random place and has hot \
                 blocks of its own; methodic's workers share one set (as fio's clones do with a centre, \
                 `{}:0`)",
                e.value.as_deref().unwrap_or_default().trim()
            ),
        ),
        None => {}
    }
}

/// How fio's zipf differs from methodic's, for a note beside the option
/// (an import's) or the section (an export's).
pub(crate) fn zipf_differs() -> &'static str {
    "methodic draws zipf exactly over the span's blocks and scatters the ranks by a fixed permutation; \
     fio draws ranks 1 and 2 exactly and the rest by an approximation (Gray et al.), and scatters them by \
     a hash that sends some ranks to one block: the same skew, other hot blocks"
}

pub(crate) fn pareto_differs() -> &'static str {
    "the same formula as fio's; methodic scatters the ranks by a fixed permutation, fio by a hash that \
     sends some ranks to one block: the same skew, other hot blocks"
}

/// fio's normal:DEV has a standard deviation of sqrt(1/144 + d^2/12) of
/// the range (d = DEV/100, at most 1/2): its 12-draw mean and its uniform
/// spread.
pub(crate) fn normal_differs(sigma: Percent) -> String {
    let d = (sigma.as_f64() / 100.0).min(0.5);
    let fio = 100.0 * (1.0 / 144.0 + d * d / 12.0).sqrt();
    format!(
        "methodic's normal has a standard deviation of {sigma} of the span around its centre, and draws again \
         beyond the span; fio's normal:{} is the mean of 12 uniform draws plus a uniform spread of {sigma} (a \
         standard deviation of {fio:.1}% of the range), scattered over the span by a hash: fio's hot blocks \
         are not around the centre",
        sigma.as_f64()
    )
}

/// `zoned:IO/SPAN:IO/SPAN...` as hot bands: whole percents; a zone
/// without a span share (`IO`, `IO/` or `IO/0`) gets an equal part of what the
/// others leave, as fio splits it; a span the zones leave is a last band
/// with no I/O, as fio leaves it untouched.
fn zoned(r: &mut JobReader<'_>, e: &Entry, text: &str) -> Got<Access> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.iter().any(|p| *p != parts[0]) {
        return Err(r.problem(
            ImportErrorKind::Untranslatable,
            e,
            refusal("zones for reads, others for writes (`,`): methodic draws all random I/O from one set of bands")
                .hint("give one set of zones"),
        ));
    }
    let zones = parse_zones(parts[0]).map_err(|why| bad(r, e, why))?;
    let left = 100 - zones.iter().map(|(_, s)| *s).sum::<u32>();
    let mut bands: Vec<Band> =
        zones.iter().map(|&(io, span)| Band { io: Percent::whole(io), span: Percent::whole(span) }).collect();
    if left > 0 {
        bands.push(Band { io: Percent::ZERO, span: Percent::whole(left) });
        r.note(
            e,
            false,
            false,
            format!("fio leaves the last {left}% of the span untouched: a band of 0% of the I/O there"),
        );
    }
    Ok(Access::Bands(bands))
}

/// The zones of one direction: (I/O share, span share) in whole percents.
fn parse_zones(text: &str) -> Result<Vec<(u32, u32)>, Refusal> {
    let entries: Vec<&str> = text.split(':').collect();
    // fio stops at an empty entry: a trailing `:` is harmless, `::` is not.
    let last = entries.iter().rposition(|p| !p.is_empty()).map_or(0, |i| i + 1);
    if entries[..last].iter().any(|p| p.is_empty()) {
        return Err(refusal("fio stops reading the zones at `::` and ignores those after it"));
    }
    if last == 0 {
        return Err(refusal("no zones: fio's zoned needs IO/SPAN pairs, such as zoned:60/10:30/20:10/70"));
    }
    if last > 256 {
        return Err(refusal(format!("{last} zones: fio reads at most 256 and ignores the rest")));
    }
    let whole = |s: &str, what: &str| -> Result<u32, Refusal> {
        if s.is_empty() || !s.chars().all(|c| c.is_ascii_digit()) {
            return Err(refusal(format!(
                "the {what} `{s}` is not a whole percentage: fio reads units and fractions here in ways that are \
                 easy to misread (`33.5` is 33)"
            )));
        }
        match s.parse::<u32>() {
            Ok(p) if p <= 100 => Ok(p),
            _ => Err(refusal(format!("a {what} of {s}% is over 100%"))),
        }
    };
    let mut zones: Vec<(u32, Option<u32>)> = Vec::new();
    for entry in &entries[..last] {
        let (io, span) = match entry.split_once('/') {
            Some((io, span)) => (io, Some(span)),
            None => (*entry, None),
        };
        let io = whole(io, "share of I/O")?;
        // fio reads a span share that is empty (`20/`) or 0 as none given.
        let span = span.filter(|s| !s.is_empty()).map(|s| whole(s, "share of the span")).transpose()?;
        let span = span.filter(|s| *s > 0);
        zones.push((io, span));
    }
    let io: u32 = zones.iter().map(|z| z.0).sum();
    if io != 100 {
        return Err(refusal(format!(
            "the zones' shares of I/O add up to {io}%, not 100% (fio refuses them too)"
        )));
    }
    let given: u32 = zones.iter().filter_map(|z| z.1).sum();
    if given > 100 {
        return Err(refusal(format!("the zones' shares of the span add up to {given}%, over 100%")));
    }
    let missing = zones.iter().filter(|z| z.1.is_none()).count() as u32;
    // fio gives each zone without a span share the same whole percent of
    // what is left; a lone zone without one first counts as given all of
    // it and so gets none (`zone_split_ddir()`, options.c:1195).
    let each = (100 - given).checked_div(missing).unwrap_or(0);
    if zones.len() == 1 && missing == 1 {
        return Err(refusal(
            "a lone zone without a share of the span takes 100% of the I/O and none of the span: fio counts it as \
             given the whole span, then gives it what is left, 0%, and sends it all to one block",
        )
        .hint("random_distribution=random spreads the random I/O over the whole region"));
    }
    let mut out = Vec::new();
    for (n, (io, span)) in zones.into_iter().enumerate() {
        let span = span.unwrap_or(each);
        if span == 0 && io > 0 {
            return Err(refusal(format!(
                "zone {} takes {io}% of the I/O and none of the span: fio sends it all to one block",
                n + 1
            )));
        }
        if span > 0 || io > 0 {
            out.push((io, span));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_as_fio_reads_them() {
        assert_eq!(parse_zones("60/10:30/20:8/30:2/40"), Ok(vec![(60, 10), (30, 20), (8, 30), (2, 40)]));
        assert_eq!(
            parse_zones("50/10:50"),
            Ok(vec![(50, 10), (50, 90)]),
            "the rest to a zone without a span"
        );
        assert_eq!(parse_zones("50/10:25:25/0"), Ok(vec![(50, 10), (25, 45), (25, 45)]), "/0 is none given");
        assert_eq!(parse_zones("50/10:50/40:"), Ok(vec![(50, 10), (50, 40)]), "a trailing `:` ends it");
        assert_eq!(parse_zones("100/10:0/90"), Ok(vec![(100, 10), (0, 90)]));
        assert_eq!(
            parse_zones("50/5:30/15:20/"),
            Ok(vec![(50, 5), (30, 15), (20, 80)]),
            "an empty span share is none given"
        );
        assert_eq!(parse_zones("50/10:25/:25"), Ok(vec![(50, 10), (25, 45), (25, 45)]));
        for lone in ["100", "100/", "100/0"] {
            let e = parse_zones(lone).unwrap_err();
            assert!(
                e.detail.contains("lone zone") && e.detail.contains("to one block"),
                "{lone}: {}",
                e.detail
            );
        }
        assert!(parse_zones("50/10::50/90").is_err());
        assert!(parse_zones("60/10:30/20").is_err(), "90% of the I/O");
        assert!(parse_zones("50/60:50/60").is_err(), "120% of the span");
        assert!(parse_zones("50/100:50").is_err(), "the second zone gets no span");
        assert!(parse_zones("50/10.5:50/89.5").unwrap_err().detail.contains("33.5"));
        assert!(parse_zones("").is_err());
    }

    #[test]
    fn fios_normal_spread_is_at_least_a_twelfth_of_the_range() {
        assert!(normal_differs(Percent::whole(5)).contains("(a standard deviation of 8.5% of the range)"));
        assert!(normal_differs(Percent::whole(99)).contains("of 16.7% of the range"), "DEV capped at 50");
    }
}
