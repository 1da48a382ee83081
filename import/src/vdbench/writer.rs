//! The runs in, the methodology text out (formatted afterwards by
//! `finish`): a header comment naming the file, the devices and the
//! `--target`s, the hosts file, and every setting not carried over; the
//! conventions (binary units, queue depth per worker: one worker a device
//! whose depth is vdbench's `threads=`); a workload for each workload
//! used as the file defines it; and a phase a run definition, its
//! for-loops as `for` loops in vdbench's order, its rates innermost, each
//! run a `measure` (one job on the first device) or a `together` step (a
//! job a device). Checks what only shows once written: a rate that is not
//! a whole number of I/Os a second, a share with too many decimals, sizes
//! direct I/O cannot issue.

use std::collections::HashSet;

use super::area::Format;
use super::runs::{Job, Loop, Rates, Run};
use super::settings::{General, Hosts};
use super::storage::{Io, Sd, Seek};
use super::values::{share, size};
use crate::ImportErrorKind;
use crate::finish::comment;
use crate::problem::Problem;
use methodic_grammar::ident;

use crate::text::quote;

/// The loop variables, kept out of the workloads' names.
const VARS: [&str; 6] = ["bs", "th", "rdp", "seek", "r", "p"];

/// Everything the text is written from.
pub(crate) struct Doc<'a> {
    pub(crate) file: &'a str,
    pub(crate) name: &'a str,
    pub(crate) sds: &'a [Sd],
    pub(crate) runs: &'a [Run],
    /// The format run of `formatsds=yes`.
    pub(crate) format: Option<&'a Format>,
    /// The rd= entries: fewer than the runs when an rd repeats per set of
    /// SDs or per ratio.
    pub(crate) rds: usize,
    pub(crate) general: &'a General,
    pub(crate) hosts: Option<&'a Hosts>,
    pub(crate) hosts_file: &'a str,
}

/// The devices: every SD a run uses, numbered in the file's order.
pub(crate) fn devices(sds: &[Sd], runs: &[Run]) -> Vec<usize> {
    (0..sds.len()).filter(|i| runs.iter().any(|r| r.jobs.iter().any(|j| j.sd == *i))).collect()
}

/// The methodology text, or the problems only writing shows.
pub(crate) fn write(doc: &Doc<'_>, problems: &mut Vec<Problem>) -> String {
    let devices = devices(doc.sds, doc.runs);
    let mut out = header(doc, &devices);
    out.push_str(&format!("methodology {} version \"1.0\"\n", quote(doc.name)));
    let base = std::path::Path::new(doc.file)
        .file_name()
        .map_or(doc.file.to_string(), |f| f.to_string_lossy().into_owned());
    let runs = runs_said(doc.rds, doc.runs.len());
    out.push_str(&format!(
        "describe {}\n\n",
        quote(&format!("imported from the vdbench parameter file {base}: {runs}"))
    ));
    out.push_str("conventions {\n  units binary\n  queue_depth per_worker\n  value step_average\n}\n\n");
    out.push_str(&comment(
        "vdbench's threads= is the most I/Os in flight on an sd: here each sd is a device with one worker, whose queue depth is the threads (divided over the hosts on many hosts). k, m, g are powers of 1024 in vdbench: binary units.",
        100,
    ));
    out.push_str("target {\n  workers 1\n");
    if let Some(d) = &doc.general.data {
        out.push_str(&format!("  data compressible {d}\n"));
    }
    out.push_str("}\n\n");
    let mut w = Writer {
        doc,
        devices,
        taken: VARS.iter().map(|v| v.to_string()).collect(),
        defined: Vec::new(),
        phases: String::new(),
        phase_keys: HashSet::new(),
        problems,
    };
    if let Some(f) = doc.format {
        w.format_phase(f);
    }
    for (i, r) in doc.runs.iter().enumerate() {
        w.phase(r, i + 1 == doc.runs.len());
    }
    for (name, body) in &w.defined {
        out.push_str(&format!("workload {name} {body}\n"));
    }
    out.push('\n');
    out.push_str(&w.phases);
    out
}

/// `2 run definitions`, or `1 run definition (3 phases)` when an rd
/// repeats per set of SDs or per ratio.
pub(crate) fn runs_said(rds: usize, runs: usize) -> String {
    let said = crate::finish::count(rds, "run definition");
    if runs == rds { said } else { format!("{said} ({})", crate::finish::count(runs, "phase")) }
}

/// The header comments.
fn header(doc: &Doc<'_>, devices: &[usize]) -> String {
    let mut out = format!(
        "# Imported from {} by methodic {} (`methodic import vdbench`).\n",
        doc.file.replace(['\n', '\r'], " "),
        env!("CARGO_PKG_VERSION")
    );
    out.push_str(&comment(
        "Each rd= is a phase; each run vdbench makes of it (a value of each for-loop and of iorate=) is a step, in vdbench's order: the first for-loop outermost, iorate= innermost. A run of one workload on the first device is a measurement; others are together steps, a job per device. vdbench's warmup (or, without one, its first interval) is the ramp; interval= is the series.",
        100,
    ));
    out.push_str(&comment("Devices: each sd= is a device (`device N` is the Nth --target):", 100));
    let mut targets = Vec::new();
    for (n, i) in devices.iter().enumerate() {
        let sd = &doc.sds[*i];
        out.push_str(&comment(&format!("- device {}: sd={}, lun={}", n + 1, sd.name, sd.lun), 100));
        targets.push(format!("--target {}", sd.lun));
    }
    match doc.hosts {
        None => {
            out.push_str(&comment(&format!("Run: `methodic run FILE.method {}`", targets.join(" ")), 100))
        }
        Some(h) => {
            out.push_str(&comment(
                &format!(
                    "Hosts: the hd= entries are {}, beside this file, each host with its lun; vdbench deals an sd's threads over the {} hosts, so each host's queue depth here is threads/{}. Run: `methodic run FILE.method --hosts {} --overwrite`",
                    doc.hosts_file, h.count, h.count, doc.hosts_file
                ),
                100,
            ));
            for n in &h.notes {
                out.push_str(&comment(&format!("- {n}"), 100));
            }
        }
    }
    if !doc.general.notes.is_empty() {
        out.push_str("# General parameters:\n");
        for n in &doc.general.notes {
            out.push_str(&comment(&format!("- {n}"), 100));
        }
    }
    out.push('\n');
    out
}

/// Writes the phases, defining the workloads they use by name.
struct Writer<'a, 'p> {
    doc: &'a Doc<'a>,
    devices: Vec<usize>,
    taken: HashSet<String>,
    /// Named workloads: name and body.
    defined: Vec<(String, String)>,
    phases: String,
    /// The phases' names in letters and digits, to keep them apart.
    phase_keys: HashSet<String>,
    problems: &'p mut Vec<Problem>,
}

impl Writer<'_, '_> {
    /// A problem of run `r`.
    fn problem(&mut self, r: &Run, kind: ImportErrorKind, detail: String, hint: &str) {
        self.problems.push(Problem::new(kind, r.line, detail).place(format!("rd={}", r.name)).hint(hint));
    }

    /// The phase of the format run: a fill of every device.
    fn format_phase(&mut self, f: &Format) {
        let mut out = format!("phase {} {{\n", quote(&self.phase_name("format".to_string())));
        let p = self
            .doc
            .general
            .format
            .as_ref()
            .map_or(String::new(), |p| format!("{} (line {})", p.item.said(), p.item.line));
        out.push_str(&comment(
            &format!(
                "{p}: vdbench's format run before the first rd (CreateSdFile.insertFormatsIfNeeded): each sd written once to its end, sequentially, {} at a time, by 2 threads at the most rate; here a fill, one worker a device at queue depth 2",
                size(f.block)
            ),
            100,
        ));
        for n in &f.notes {
            out.push_str(&comment(n, 100));
        }
        let io = if f.io == Io::Direct { "direct" } else { "buffered" };
        out.push_str(&format!("target {{ span {}; io {io}; workers {} }}\n", f.span, f.devices));
        let offset = if f.offset > 0 { format!("; offset {}", size(f.offset)) } else { String::new() };
        out.push_str(&format!(
            "fill {{ sequential; block {}; read 0%{offset} }} passes 1 qd 2\n}}\n\n",
            size(f.block)
        ));
        self.phases.push_str(&out);
    }

    /// The phase of run `r`.
    fn phase(&mut self, r: &Run, last: bool) {
        let suffix = r.data.as_ref().map_or("", |(_, s)| s.as_str());
        let mut out = format!("phase {} {{\n", quote(&self.phase_name(format!("rd {}{suffix}", r.name))));
        for n in r.notes.iter().chain(&self.approximations(r)) {
            out.push_str(&comment(n, 100));
        }
        let io = if r.io == Io::Direct { "direct" } else { "buffered" };
        let data = r.data.as_ref().map_or(String::new(), |(d, _)| format!("; data {d}"));
        out.push_str(&format!("target {{ span {}; io {io}{data} }}\n", r.span));
        self.check_direct(r);
        let mut depth = 0;
        for l in &r.loops {
            let (var, values) = self.loop_values(r, l);
            out.push_str(&format!("for {var} in [{}] {{\n", values.join(", ")));
            depth += 1;
        }
        out.push_str(&self.steps(r));
        if r.pause > 0 {
            let when = if last {
                " (vdbench pauses only before a next run: the last one here is extra)"
            } else {
                ""
            };
            out.push_str(&format!("# pause={}{when}\nidle {}s\n", r.pause, r.pause));
        }
        for _ in 0..depth {
            out.push_str("}\n");
        }
        out.push_str("}\n\n");
        self.phases.push_str(&out);
    }

    /// `base` (`rd NAME`, `format`), made unique in its letters and digits (methodic's step
    /// ids come from them; vdbench's names differ in case or punctuation).
    fn phase_name(&mut self, base: String) -> String {
        let key = |s: &str| s.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_lowercase();
        let mut unique = base.clone();
        let mut n = 2;
        while !self.phase_keys.insert(key(&unique)) {
            unique = format!("{base} {n}");
            n += 1;
        }
        unique
    }

    /// Where methodic runs the run close to, not exactly as, vdbench.
    fn approximations(&self, r: &Run) -> Vec<String> {
        let mut out = Vec::new();
        if r.jobs.iter().any(|j| j.sizes.len() > 1 && j.align.or(self.doc.sds[j.sd].align).is_none()) {
            out.push("vdbench aligns each random I/O to its own size, methodic to the smallest block of the split: larger blocks may land less aligned than vdbench's (give the sd align= to make them agree)".to_string());
        }
        let partly = |s: &Seek| matches!(s, Seek::Random(p) if *p > 0.0 && *p < 100.0);
        if r.jobs.iter().any(|j| partly(&j.seek)) || r.loops.iter().any(|l| matches!(l, Loop::Seek(_))) {
            out.push("seekpct= between 0 and 100: vdbench's sequential I/Os go on from the previous I/O, random ones included; methodic's go on from the worker's own sequential stream".to_string());
        }
        let rated = match &r.rates {
            Rates::Each(v) => v.iter().any(Option::is_some),
            Rates::Curve(_) => true,
        };
        if rated {
            out.push("rates: vdbench times an I/O from when a thread issues it, methodic from when it was due, so under overload methodic's latencies are larger (and include the wait)".to_string());
        }
        if r.maxdata.is_some() && r.ramp > 0 {
            out.push("maxdata=: vdbench counts the bytes after its warmup (CollectSlaveStats.checkMaxData), methodic's `until` counts the ramp's I/O too, so the step moves the warmup's bytes less after its ramp".to_string());
        }
        out
    }

    /// A loop's variable and its values as methodic writes them.
    fn loop_values(&mut self, r: &Run, l: &Loop) -> (&'static str, Vec<String>) {
        match l {
            Loop::Xfer(v) => ("bs", v.iter().map(|b| size(*b)).collect()),
            Loop::Threads(v) => ("th", v.iter().map(|t| self.per_host(r, *t).to_string()).collect()),
            Loop::Read(v) | Loop::Seek(v) => {
                let var = if matches!(l, Loop::Read(_)) { "rdp" } else { "seek" };
                let mut out = Vec::new();
                for s in v {
                    match share(*s) {
                        Some(s) => out.push(s),
                        None => self.problem(
                            r,
                            ImportErrorKind::BadValue,
                            format!("{s}% has more than two decimals"),
                            "round it to two",
                        ),
                    }
                }
                (var, out)
            }
        }
    }

    /// A queue depth over the hosts: vdbench's threads are the sd's, dealt
    /// over every host.
    fn per_host(&mut self, r: &Run, threads: u64) -> u64 {
        let Some(h) = self.doc.hosts else { return threads };
        if !threads.is_multiple_of(h.count) || threads < h.count {
            self.problem(
                r,
                ImportErrorKind::Untranslatable,
                format!("threads={threads} do not divide over {} hosts: vdbench deals them out unevenly, methodic runs one queue depth on every host", h.count),
                "give threads= a multiple of the host count",
            );
            return 1;
        }
        threads / h.count
    }

    /// Sizes and offsets `io direct` cannot issue (M0406).
    fn check_direct(&mut self, r: &Run) {
        if r.io != Io::Direct {
            return;
        }
        let mut sizes: Vec<u64> = r
            .jobs
            .iter()
            .flat_map(|j| j.sizes.iter().map(|s| s.0).chain([j.offset]).chain(j.align))
            .collect();
        for l in &r.loops {
            if let Loop::Xfer(v) = l {
                sizes.extend(v);
            }
        }
        if let Some(bad) = sizes.iter().find(|s| *s % 512 != 0) {
            self.problem(
                r,
                ImportErrorKind::BadValue,
                format!("{bad} bytes with o_direct: not a multiple of 512, which direct I/O cannot issue"),
                "use sizes and offsets that are multiples of 512",
            );
        }
    }

    /// The steps of one combination of the run's loops: the rates in turn,
    /// or the curve.
    fn steps(&mut self, r: &Run) -> String {
        let single = r.jobs.len() == 1 && self.device(&r.jobs[0]) == 1;
        let mut timing = format!("for {}s ramp {}s series {}s", r.record, r.ramp, r.series);
        let mut out = String::new();
        if single && r.jobs[0].seek == Seek::Eof && r.maxdata.is_none() {
            // One pass, warmup included: a ramp would write more than the area.
            timing = format!("for {}s series {}s", r.record + r.ramp, r.series);
            out.push_str(&comment(
                "seekpct=eof: one pass over the area, its warmup included, so no ramp here; vdbench leaves the warmup out of its totals",
                100,
            ));
        }
        match &r.rates {
            Rates::Curve(points) => {
                if !single {
                    self.problem(r, ImportErrorKind::Untranslatable, "iorate=curve over several workloads or devices: vdbench sets each one's skew to what the max run saw; methodic's together steps cannot name a run to take a share of".into(), "import the curve of one workload on one sd");
                    return out;
                }
                let mut names = self.taken.clone();
                let peak = ident(&format!("{}_max", r.name), "w", &mut names);
                self.taken.insert(peak.clone());
                let (w, qd, written) = self.measure_parts(r);
                out.push_str(&format!("measure {w} qd {qd}{written} {timing} as {peak}\n"));
                let points: Vec<String> = points.iter().filter_map(|p| share(*p)).collect();
                out.push_str(&comment("vdbench rounds each curve point's rate up to a multiple of 10 (of 100 above 1000 I/Os a second)", 100));
                out.push_str(&format!(
                    "for p in [{}] {{\nmeasure {w} qd {qd} rate p of {peak} {}{written} {timing}\n}}\n",
                    points.join(", "),
                    r.arrivals
                ));
            }
            Rates::Each(values) => {
                let all_set = values.iter().all(Option::is_some);
                if single && all_set && values.len() > 1 && !r.jobs.iter().any(|j| j.share != 100.0) {
                    let list: Vec<String> = values.iter().flatten().map(|v| self.whole_rate(r, *v)).collect();
                    let (w, qd, written) = self.measure_parts(r);
                    out.push_str(&format!(
                        "for r in [{}] {{\nmeasure {w} qd {qd} rate r iops {}{written} {timing}\n}}\n",
                        list.join(", "),
                        r.arrivals
                    ));
                } else {
                    for v in values {
                        out.push_str(&self.one_step(r, *v, single, &timing));
                    }
                }
            }
        }
        out
    }

    /// One run at `rate` (none: as fast as it goes).
    fn one_step(&mut self, r: &Run, rate: Option<f64>, single: bool, timing: &str) -> String {
        if single {
            let (w, qd, written) = self.measure_parts(r);
            let rate = match rate {
                Some(v) => {
                    format!(" rate {} iops {}", self.whole_rate(r, v * r.jobs[0].share / 100.0), r.arrivals)
                }
                None => String::new(),
            };
            return format!("measure {w} qd {qd}{rate}{written} {timing}\n");
        }
        if r.maxdata.is_some() || r.jobs.iter().any(|j| j.seek == Seek::Eof) {
            self.problem(r, ImportErrorKind::Untranslatable, "a run of several workloads or devices that ends by size (maxdata= or seekpct=eof): methodic's together step runs for a time".into(), "leave maxdata= out, or give each workload an rd of its own");
        }
        let mut out = format!("together {timing} {{\n");
        let mut names = HashSet::new();
        for j in &r.jobs {
            let w = self.workload(r, j);
            let qd = self.qd(r, j);
            let rate = match rate {
                Some(v) => format!(" rate {} iops {}", self.whole_rate(r, v * j.share / 100.0), r.arrivals),
                None => String::new(),
            };
            out.push_str(&format!(
                "job {} {w} qd {qd} workers 1{rate} device {}\n",
                ident(&j.name, "w", &mut names),
                self.device(j)
            ));
        }
        out.push_str("}\n");
        out
    }

    /// A share as methodic writes it; one with more than two decimals is
    /// a problem.
    fn two_decimals(&mut self, r: &Run, p: f64) -> String {
        share(p).unwrap_or_else(|| {
            self.problem(
                r,
                ImportErrorKind::BadValue,
                format!("{p}% has more than two decimals, which methodic cannot hold"),
                "round it to two decimals",
            );
            "1%".to_string()
        })
    }

    /// A rate as a whole number of I/Os a second.
    fn whole_rate(&mut self, r: &Run, v: f64) -> String {
        if v.fract() != 0.0 || v < 1.0 {
            self.problem(r, ImportErrorKind::BadValue, format!("a job's rate of {v} I/Os a second (iorate= times its skew, over its sds): methodic's rates are whole I/Os a second"), "give iorate= a value whose shares are whole");
        }
        format!("{}", v.max(1.0).round())
    }

    /// The workload, queue depth and `until written` of a measurement.
    fn measure_parts(&mut self, r: &Run) -> (String, String, String) {
        let j = &r.jobs[0];
        let w = self.workload(r, j);
        let qd = self.qd(r, j);
        let written = self.written(r, j);
        (w, qd, written)
    }

    /// ` until written X` or ` until transferred X` for `seekpct=eof` or
    /// `maxdata=`, or nothing. vdbench's `maxdata=` counts bytes read and
    /// written (`CollectSlaveStats.checkMaxData`), as `until transferred`
    /// does; of a workload that only writes, that is `until written`.
    fn written(&mut self, r: &Run, j: &Job) -> String {
        let writes_only = j.read == 0.0 && !r.loops.iter().any(|l| matches!(l, Loop::Read(_)));
        let until = if writes_only { "until written" } else { "until transferred" };
        let sd_size = self.doc.sds[j.sd].size;
        if let Some((n, p)) = &r.maxdata {
            let until = if p.key == "maxdatawritten" { "until written" } else { until };
            if *n < 1.0 {
                self.problem(
                    r,
                    ImportErrorKind::BadValue,
                    format!("{} ends the run before any I/O", p.item.said()),
                    "give it a size, or leave it out",
                );
                return String::new();
            }
            let amount = if *n <= 100.0 {
                match (sd_size, r.span.as_str()) {
                    (Some(s), _) => Some(size((s as f64 * n / 100.0) as u64)),
                    (None, "100%") => share(*n),
                    _ => None,
                }
            } else {
                Some(size(*n as u64))
            };
            return match amount {
                Some(a) => format!(" {until} {a}"),
                None => {
                    self.problem(
                        r,
                        ImportErrorKind::Untranslatable,
                        format!(
                            "{} is a share of the sd's size, which the file does not give",
                            p.item.said()
                        ),
                        "give the sd a size=",
                    );
                    String::new()
                }
            };
        }
        if j.seek != Seek::Eof {
            return String::new();
        }
        // One pass: every I/O, read or write, moves on through the area.
        match parse_size(&r.span) {
            Some(end) if end > j.offset => format!(" {until} {}", size(end - j.offset)),
            None if r.span == "100%" && j.offset == 0 => format!(" {until} 100%"),
            _ => {
                self.problem(
                    r,
                    ImportErrorKind::Untranslatable,
                    "seekpct=eof on an area whose size methodic cannot know: the sd has no size=".into(),
                    "give the sd a size=",
                );
                String::new()
            }
        }
    }

    /// The queue depth of a job: the loop's variable, the rd's threads or
    /// the sd's, over the hosts.
    fn qd(&mut self, r: &Run, j: &Job) -> String {
        if r.loops.iter().any(|l| matches!(l, Loop::Threads(_))) {
            return "th".to_string();
        }
        let t = r.threads.unwrap_or(self.doc.sds[j.sd].threads);
        self.per_host(r, t).to_string()
    }

    /// `device N` of a job's SD.
    fn device(&self, j: &Job) -> usize {
        self.devices.iter().position(|d| *d == j.sd).map_or(1, |p| p + 1)
    }

    /// A job's workload: its name when defined as the file has it, or
    /// written in place with the loops' variables.
    fn workload(&mut self, r: &Run, j: &Job) -> String {
        let looped = |f: fn(&Loop) -> bool| r.loops.iter().any(f);
        let mut parts = Vec::new();
        let mut seek = if looped(|l| matches!(l, Loop::Seek(_))) {
            "random seek".to_string()
        } else {
            match j.seek {
                Seek::Random(s) if s >= 100.0 => "random".to_string(),
                Seek::Random(s) if s <= 0.0 => "sequential".to_string(),
                Seek::Random(s) => format!("random {}", self.two_decimals(r, s)),
                Seek::Eof => "sequential".to_string(),
            }
        };
        if let Some(b) = j.bands.as_ref().filter(|_| seek.starts_with("random")) {
            seek.push_str(&format!(" bands {b}"));
        }
        parts.push(seek);
        if looped(|l| matches!(l, Loop::Xfer(_))) {
            parts.push("block bs".to_string());
        } else if let [(one, _)] = j.sizes.as_slice() {
            parts.push(format!("block {}", size(*one)));
        } else {
            let split: Vec<String> =
                j.sizes.iter().map(|(b, p)| format!("{}: {}", size(*b), self.two_decimals(r, *p))).collect();
            parts.push(format!("blocks {{ {} }}", split.join(", ")));
        }
        if looped(|l| matches!(l, Loop::Read(_))) {
            parts.push("read rdp".to_string());
        } else {
            match share(j.read) {
                Some(s) => parts.push(format!("read {s}")),
                None => self.problem(
                    r,
                    ImportErrorKind::BadValue,
                    format!("the merged read share {}% has more than two decimals", j.read),
                    "give the wds skews and rdpcts whose mix is a share with two decimals",
                ),
            }
        }
        if let Some(a) = j.align.or(self.doc.sds[j.sd].align) {
            parts.push(format!("align {}", size(a)));
        }
        if j.offset > 0 {
            parts.push(format!("offset {}", size(j.offset)));
        }
        let body = format!("{{ {} }}", parts.join("; "));
        if !r.loops.is_empty() {
            return body;
        }
        if let Some((name, _)) = self.defined.iter().find(|(_, b)| *b == body) {
            return name.clone();
        }
        let name = ident(&j.wds.join("_"), "w", &mut self.taken);
        self.defined.push((name.clone(), body));
        name
    }
}

/// Bytes from a size this module wrote (`4KiB`, `1536B`).
fn parse_size(s: &str) -> Option<u64> {
    for (unit, shift) in [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10), ("B", 0)] {
        if let Some(n) = s.strip_suffix(unit) {
            return n.parse::<u64>().ok().and_then(|n| n.checked_mul(1 << shift));
        }
    }
    None
}
