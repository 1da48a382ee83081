//! A DiskSpd XML profile in, the `Profile` model out: checked first
//! against the rules of DiskSpd 2.2's `XmlProfileParser/diskspd.xsd`
//! (microsoft/diskspd, commit c361eed6804607db9bc631a53d499b258c6c6741),
//! which DiskSpd validates every profile against before reading it
//! (`XmlProfileParser.cpp:76-307`): no namespace; every child of
//! `Profile`, `TimeSpan` and `Target` known and at most once, in any order
//! (`xs:all`); `TimeSpans`, `Targets` and `Path` required; numbers,
//! booleans, percentages and enumerations of the schema's types. Then the
//! values DiskSpd would read otherwise than they say are refused:
//! booleans `1`/`0` or padded (DiskSpd's `_GetBool` takes only `true`,
//! any case, as true), `unsignedInt` above 2^31-1 (read with `_wtoi`,
//! which saturates), strings over 259 bytes (`MAX_PATH`). A `<Results>`
//! document (DiskSpd's `-Rxml` output) is read through its `<Profile>`.

use std::collections::HashMap;

use roxmltree::{Document, Node};

use super::model::{At, Distribution, Note, Pattern, Profile, Set, Target, Throughput, TimeSpan};
use crate::ImportErrorKind;
use crate::problem::Problem;

/// The children `Profile` may have.
const PROFILE: &[&str] = &[
    "TimeSpans",
    "Verbose",
    "VerboseStats",
    "Progress",
    "ExperimentFlags",
    "ResultFormat",
    "ETW",
    "PrecreateFiles",
];

/// The children `TimeSpan` may have.
const TIME_SPAN: &[&str] = &[
    "Targets",
    "Duration",
    "Warmup",
    "Cooldown",
    "RandSeed",
    "RandomWriteData",
    "ThreadCount",
    "RequestCount",
    "GroupAffinity",
    "Affinity",
    "DisableAffinity",
    "CompletionRoutines",
    "MeasureLatency",
    "CalculateIopsStdDev",
    "IoBucketDuration",
];

/// The children `Target` may have.
const TARGET: &[&str] = &[
    "Path",
    "BlockSize",
    "StrideSize",
    "InterlockedSequential",
    "BaseFileOffset",
    "MaxFileSize",
    "Random",
    "RandomRatio",
    "Distribution",
    "WriteRatio",
    "RequestCount",
    "ThreadsPerFile",
    "ThreadStride",
    "ParallelAsyncIO",
    "DisableOSCache",
    "WriteThrough",
    "DisableAllCache",
    "DisableLocalCache",
    "MemoryMappedIo",
    "FlushType",
    "WriteBufferContent",
    "BurstSize",
    "ThinkTime",
    "Throughput",
    "FileSize",
    "SequentialScan",
    "RandomAccess",
    "TemporaryFile",
    "UseLargePages",
    "IOPriority",
    "Weight",
    "ThreadTargets",
];

/// The largest value DiskSpd reads an `unsignedInt` as (`_wtoi`).
const INT_MAX: u64 = i32::MAX as u64;
/// The largest value DiskSpd reads an `unsignedLong` as (`_wtoi64`).
const LONG_MAX: u64 = i64::MAX as u64;

/// Reading one document: its problems so far.
struct Reader<'a, 'input> {
    doc: &'a Document<'input>,
    problems: Vec<Problem>,
}

/// The profile in `text`, or every problem found.
pub(crate) fn read(text: &str) -> Result<Profile, Vec<Problem>> {
    let doc = match Document::parse(text) {
        Ok(d) => d,
        Err(e) => {
            let line = e.pos().row as usize;
            return Err(vec![
                Problem::new(ImportErrorKind::Syntax, line, format!("not well-formed XML: {e}"))
                    .hint("DiskSpd refuses a profile its XML parser cannot load; fix the XML first"),
            ]);
        }
    };
    let mut r = Reader { doc: &doc, problems: Vec::new() };
    let mut root = doc.root_element();
    if root.tag_name().name() == "Results" && root.tag_name().namespace().is_none() {
        match root.children().find(|n| n.is_element() && n.tag_name().name() == "Profile") {
            Some(p) => root = p,
            None => {
                r.problem(ImportErrorKind::Empty, root, "a DiskSpd <Results> document without its <Profile>");
                return Err(r.problems);
            }
        }
    }
    if root.tag_name().namespace().is_some() {
        r.problem(
            ImportErrorKind::Syntax,
            root,
            "DiskSpd's schema has no namespace: it cannot validate elements in one, nor find them",
        );
        return Err(r.problems);
    }
    if root.tag_name().name() != "Profile" {
        r.problem(
            ImportErrorKind::Syntax,
            root,
            format!("the root element is <{}>: a DiskSpd profile's is <Profile>", root.tag_name().name()),
        );
        return Err(r.problems);
    }
    let profile = r.profile(root);
    if r.problems.is_empty() { Ok(profile) } else { Err(r.problems) }
}

impl<'a, 'input> Reader<'a, 'input> {
    /// The line an element starts on, from 1.
    fn line(&self, n: Node) -> usize {
        self.doc.text_pos_at(n.range().start).row as usize
    }

    /// `<Name>value</Name>` as written, for comments and errors.
    fn said(&self, n: Node) -> String {
        if n.children().all(|c| c.is_text()) {
            format!("<{0}>{1}</{0}>", n.tag_name().name(), text(n).trim())
        } else {
            format!("<{}>", n.tag_name().name())
        }
    }

    /// Where an element was written, and how.
    fn at(&self, n: Node) -> At {
        At::new(self.line(n), self.said(n))
    }

    /// A problem with an element, kept.
    fn problem(&mut self, kind: ImportErrorKind, n: Node, detail: impl Into<String>) {
        let p = Problem::new(kind, self.line(n), detail).option(self.said(n));
        self.problems.push(p);
    }

    /// The element children of `n`, by name, checked against `allowed`
    /// (`xs:all`: each at most once) and `required`; any attribute
    /// refused.
    fn children(
        &mut self,
        n: Node<'a, 'input>,
        allowed: &[&str],
        required: &[&str],
    ) -> HashMap<&'a str, Node<'a, 'input>> {
        self.no_attributes(n, &[]);
        let mut out: HashMap<&str, Node> = HashMap::new();
        for c in n.children() {
            if c.is_text() && !c.text().unwrap_or("").trim().is_empty() {
                self.problem(
                    ImportErrorKind::Syntax,
                    n,
                    format!("text in <{}>, which holds elements only", n.tag_name().name()),
                );
            }
            if !c.is_element() {
                continue;
            }
            let name = c.tag_name().name();
            if c.tag_name().namespace().is_some() || !allowed.contains(&name) {
                self.problem(
                    ImportErrorKind::UnknownOption,
                    c,
                    format!("<{}> has no child <{name}> in DiskSpd's schema (diskspd.xsd), so DiskSpd refuses the profile", n.tag_name().name()),
                );
            } else if let Some(first) = out.get(name) {
                let first = self.line(*first);
                self.problem(
                    ImportErrorKind::Syntax,
                    c,
                    format!("<{name}> is given twice in one <{}> (first at line {first}): DiskSpd's schema allows it once", n.tag_name().name()),
                );
            } else {
                out.insert(name, c);
            }
        }
        for r in required {
            if !out.contains_key(r) {
                self.problem(
                    ImportErrorKind::Syntax,
                    n,
                    format!("<{}> has no <{r}>, which DiskSpd's schema requires", n.tag_name().name()),
                );
            }
        }
        out
    }

    /// Refuses the attributes of `n` other than `allowed`, as the schema does.
    fn no_attributes(&mut self, n: Node, allowed: &[&str]) {
        for a in n.attributes() {
            if a.namespace().is_none() && !allowed.contains(&a.name()) {
                self.problem(
                    ImportErrorKind::UnknownOption,
                    n,
                    format!("<{}> has no attribute {} in DiskSpd's schema", n.tag_name().name(), a.name()),
                );
            }
        }
    }

    /// A simple element's text, refusing child elements.
    fn simple(&mut self, n: Node) -> Option<String> {
        let attributes: &[&str] = match n.tag_name().name() {
            "Throughput" => &["unit"],
            "Range" => &["IO"],
            _ => &[],
        };
        self.no_attributes(n, attributes);
        if n.children().any(|c| c.is_element()) {
            self.problem(
                ImportErrorKind::Syntax,
                n,
                format!("<{}> holds a value, not elements", n.tag_name().name()),
            );
            return None;
        }
        Some(text(n))
    }

    /// An `xs:unsignedInt` (`max` INT_MAX) or `xs:unsignedLong`.
    fn number(&mut self, n: Node, max: u64) -> Option<u64> {
        let t = self.simple(n)?;
        let t = t.trim();
        let name = n.tag_name().name();
        let Some(v) = t.parse::<u64>().ok().filter(|_| !t.starts_with('+')) else {
            self.problem(
                ImportErrorKind::Syntax,
                n,
                format!("<{name}> needs a whole number of 0 or more, not \"{t}\""),
            );
            return None;
        };
        if v > max {
            self.problem(
                ImportErrorKind::BadValue,
                n,
                format!(
                    "DiskSpd reads <{name}> as a signed number and cannot hold {v} (it would read {max})"
                ),
            );
            return None;
        }
        Some(v)
    }

    /// The `xs:unsignedInt` child `name`, if given and valid.
    fn int(&mut self, kids: &HashMap<&str, Node<'a, 'input>>, name: &str) -> Option<Set<u64>> {
        let n = *kids.get(name)?;
        let v = self.number(n, INT_MAX)?;
        Some(Set::new(v, self.at(n)))
    }

    /// The `xs:unsignedLong` child `name`, if given and valid.
    fn long(&mut self, kids: &HashMap<&str, Node<'a, 'input>>, name: &str) -> Option<Set<u64>> {
        let n = *kids.get(name)?;
        let v = self.number(n, LONG_MAX)?;
        Some(Set::new(v, self.at(n)))
    }

    /// A percentage in `lo..=hi` (the schema's `Percent`, `PercentNZNM`).
    fn percent(
        &mut self,
        kids: &HashMap<&str, Node<'a, 'input>>,
        name: &str,
        lo: u64,
        hi: u64,
    ) -> Option<Set<u64>> {
        let s = self.int(kids, name)?;
        if s.value < lo || s.value > hi {
            let n = kids[name];
            self.problem(
                ImportErrorKind::Syntax,
                n,
                format!("<{name}> is a percentage from {lo} to {hi} in DiskSpd's schema"),
            );
            return None;
        }
        Some(s)
    }

    /// An `xs:boolean` as DiskSpd reads it: `true` or `false`; `1`, `0`
    /// and padded text are refused, as DiskSpd reads them all as false.
    fn boolean(&mut self, kids: &HashMap<&str, Node<'a, 'input>>, name: &str) -> Option<Set<bool>> {
        let n = *kids.get(name)?;
        let t = self.simple(n)?;
        let v = match t.as_str() {
            t if t.eq_ignore_ascii_case("true") => true,
            t if t.eq_ignore_ascii_case("false") => false,
            "1" | "0" => {
                self.problem(
                    ImportErrorKind::BadValue,
                    n,
                    format!("the schema accepts {t} as a boolean, but DiskSpd reads only `true` as true: it would read false"),
                );
                return None;
            }
            t if matches!(t.trim(), "true" | "false") => {
                self.problem(
                    ImportErrorKind::BadValue,
                    n,
                    "DiskSpd reads a boolean with spaces around it as false",
                );
                return None;
            }
            _ => {
                self.problem(ImportErrorKind::Syntax, n, format!("<{name}> needs true or false"));
                return None;
            }
        };
        Some(Set::new(v, self.at(n)))
    }

    /// One of the enumeration's `values`.
    fn choice(&mut self, n: Node, values: &[&str]) -> Option<String> {
        let t = self.simple(n)?;
        let t = t.trim().to_string();
        if !values.contains(&t.as_str()) {
            self.problem(
                ImportErrorKind::Syntax,
                n,
                format!("<{}> is one of {} in DiskSpd's schema", n.tag_name().name(), values.join(", ")),
            );
            return None;
        }
        Some(t)
    }

    /// The child `name`, if given, as a comment saying `why`.
    fn note(&mut self, notes: &mut Vec<Note>, kids: &HashMap<&str, Node>, name: &str, why: &str) {
        if let Some(n) = kids.get(name) {
            notes.push(Note::new(self.at(*n), why));
        }
    }

    /// `<Profile>`: its settings kept as comments, and its time spans.
    fn profile(&mut self, root: Node<'a, 'input>) -> Profile {
        let kids = self.children(root, PROFILE, &["TimeSpans"]);
        let mut profile = Profile::default();
        let mut notes = Vec::new();
        for b in ["Verbose", "VerboseStats"] {
            if self.boolean(&kids, b).is_some_and(|b| b.value) {
                self.note(
                    &mut notes,
                    &kids,
                    b,
                    "what DiskSpd prints; methodic's results hold every step's numbers",
                );
            }
        }
        for n in ["Progress", "ExperimentFlags"] {
            if self.int(&kids, n).is_some_and(|v| v.value > 0) {
                let why = match n {
                    "Progress" => "DiskSpd's progress dots; changes nothing measured",
                    _ => {
                        "DiskSpd's experiment flags change how a throttled thread sleeps; methodic keeps its rate itself"
                    }
                };
                self.note(&mut notes, &kids, n, why);
            }
        }
        if let Some(n) = kids.get("ResultFormat")
            && self.choice(*n, &["text", "xml"]).is_some()
        {
            notes.push(Note::new(self.at(*n), "DiskSpd's output format; methodic writes its own results"));
        }
        self.note(&mut notes, &kids, "ETW", "Windows event tracing during the run; changes nothing measured");
        if let Some(n) = kids.get("PrecreateFiles") {
            let v =
                ["UseMaxSize", "CreateOnlyFilesWithConstantSizes", "CreateOnlyFilesWithConstantOrZeroSizes"];
            if self.choice(*n, &v).is_some() {
                notes.push(Note::new(
                    self.at(*n),
                    "DiskSpd creates the targets' files before the first time span; methodic makes its scratch file itself, and a target given with --target is used as it is",
                ));
            }
        }
        profile.notes = notes;
        if let Some(spans) = kids.get("TimeSpans").copied() {
            self.no_attributes(spans, &[]);
            for c in spans.children().filter(|c| c.is_element()) {
                if c.tag_name().name() != "TimeSpan" || c.tag_name().namespace().is_some() {
                    self.problem(
                        ImportErrorKind::UnknownOption,
                        c,
                        "<TimeSpans> holds <TimeSpan> elements only",
                    );
                    continue;
                }
                let n = profile.spans.len() + 1;
                profile.spans.push(self.time_span(c, n));
            }
            if profile.spans.is_empty() {
                self.problem(
                    ImportErrorKind::Empty,
                    spans,
                    "<TimeSpans> has no <TimeSpan>: DiskSpd's schema requires one",
                );
            }
        }
        profile
    }

    /// One `<TimeSpan>` and its targets.
    fn time_span(&mut self, n: Node<'a, 'input>, number: usize) -> TimeSpan {
        let kids = self.children(n, TIME_SPAN, &["Targets"]);
        let mut s = TimeSpan::new(
            At::new(self.line(n), format!("<TimeSpan> {number}")),
            format!("time span {number}"),
        );
        s.duration = self.int(&kids, "Duration");
        s.warmup = self.int(&kids, "Warmup");
        s.cooldown = self.int(&kids, "Cooldown");
        s.thread_count = self.int(&kids, "ThreadCount");
        s.request_count = self.int(&kids, "RequestCount");
        s.random_write_data = self.boolean(&kids, "RandomWriteData");
        s.iops_std_dev = self.boolean(&kids, "CalculateIopsStdDev");
        s.bucket = self.int(&kids, "IoBucketDuration");
        s.completion_routines = self.boolean(&kids, "CompletionRoutines");
        let mut notes = Vec::new();
        if self.int(&kids, "RandSeed").is_some_and(|v| v.value > 0) {
            self.note(&mut notes, &kids, "RandSeed", super::translate::SEED);
        }
        if self.boolean(&kids, "MeasureLatency").is_some_and(|b| b.value) {
            self.note(&mut notes, &kids, "MeasureLatency", super::translate::LATENCY);
        }
        if self.boolean(&kids, "DisableAffinity").is_some_and(|b| b.value) {
            self.note(&mut notes, &kids, "DisableAffinity", super::translate::AFFINITY_OFF);
        }
        if self.boolean(&kids, "GroupAffinity").is_some_and(|b| b.value) {
            self.note(&mut notes, &kids, "GroupAffinity", "DiskSpd never reads it");
        }
        if let Some(a) = kids.get("Affinity") {
            let p = Problem::new(ImportErrorKind::Untranslatable, self.line(*a), super::translate::AFFINITY)
                .option("<Affinity>")
                .place(s.at.said.clone())
                .hint("remove <Affinity>, and run methodic under taskset to restrict its CPUs");
            self.problems.push(p);
        }
        if let Some(c) = s.completion_routines.as_ref().filter(|c| c.value) {
            notes.push(Note::new(c.at.clone(), super::translate::COMPLETION));
        }
        s.notes = notes;
        if let Some(targets) = kids.get("Targets").copied() {
            self.no_attributes(targets, &[]);
            for c in targets.children().filter(|c| c.is_element()) {
                if c.tag_name().name() != "Target" || c.tag_name().namespace().is_some() {
                    self.problem(ImportErrorKind::UnknownOption, c, "<Targets> holds <Target> elements only");
                    continue;
                }
                let t = self.target(c, &s.at.said);
                s.targets.extend(t);
            }
            if !targets.children().any(|c| c.is_element()) {
                self.problem(
                    ImportErrorKind::Empty,
                    targets,
                    "<Targets> has no <Target>: DiskSpd's schema requires one",
                );
            }
        }
        s
    }

    /// One `<Target>`; `None` without a path.
    fn target(&mut self, n: Node<'a, 'input>, span: &str) -> Option<Target> {
        let kids = self.children(n, TARGET, &["Path"]);
        let path = kids.get("Path").and_then(|p| self.simple(*p))?;
        if path.len() > 259 {
            self.problem(
                ImportErrorKind::BadValue,
                kids["Path"],
                "DiskSpd cannot hold a path over 259 bytes (MAX_PATH)",
            );
        }
        if let Some(rest) = path.strip_prefix('*')
            && (rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) || rest.starts_with('0'))
        {
            self.problem(
                ImportErrorKind::Syntax,
                kids["Path"],
                "a template target is * and a number from 1 (*1 is the first path given after -X)",
            );
        }
        let mut t = Target::new(At::new(self.line(n), format!("<Target> {path}")), path);
        t.block = self.int(&kids, "BlockSize");
        t.stride = self.long(&kids, "StrideSize");
        t.interlocked = self.boolean(&kids, "InterlockedSequential");
        t.base = self.long(&kids, "BaseFileOffset");
        t.max_size = self.long(&kids, "MaxFileSize");
        t.random = self.long(&kids, "Random");
        t.random_ratio = self.percent(&kids, "RandomRatio", 1, 99);
        t.write_ratio = self.percent(&kids, "WriteRatio", 0, 100);
        t.request_count = self.int(&kids, "RequestCount");
        t.threads = self.int(&kids, "ThreadsPerFile");
        t.thread_stride = self.long(&kids, "ThreadStride");
        t.file_size = self.long(&kids, "FileSize");
        t.burst = self.int(&kids, "BurstSize");
        t.think = self.int(&kids, "ThinkTime");
        self.cache(&kids, &mut t, span);
        if let Some(d) = kids.get("Distribution") {
            t.distribution = self.distribution(*d);
        }
        if let Some(w) = kids.get("WriteBufferContent") {
            t.pattern = self.pattern(*w, span);
        }
        if let Some(g) = kids.get("Throughput").copied() {
            let unit = g.attribute("unit").unwrap_or("BPMS");
            let iops = match unit {
                "BPMS" => Some(false),
                "IOPS" => Some(true),
                _ => {
                    self.problem(ImportErrorKind::Syntax, g, "the unit of <Throughput> is BPMS or IOPS");
                    None
                }
            };
            if let (Some(v), Some(iops)) = (self.number(g, INT_MAX), iops) {
                let said = format!("<Throughput unit=\"{unit}\">{v}</Throughput>");
                t.throughput = Some(Set::new(Throughput { amount: v, iops }, At::new(self.line(g), said)));
            }
        }
        self.target_notes(&kids, &mut t, span);
        Some(t)
    }

    /// The cache flags, and the settings refused outright.
    fn cache(&mut self, kids: &HashMap<&str, Node<'a, 'input>>, t: &mut Target, span: &str) {
        let os = self.boolean(kids, "DisableOSCache");
        let wt = self.boolean(kids, "WriteThrough");
        let all = self.boolean(kids, "DisableAllCache");
        if let Some(s) = os.filter(|s| s.value) {
            t.no_os_cache = Some(s.at);
        }
        if let Some(s) = wt.filter(|s| s.value) {
            t.write_through = Some(s.at);
        }
        if let Some(s) = all.filter(|s| s.value) {
            t.no_os_cache.get_or_insert(s.at.clone());
            t.write_through.get_or_insert(s.at);
        }
        for (name, why, hint) in [
            (
                "DisableLocalCache",
                super::translate::LOCAL_CACHE,
                "remove it (or make it false) to import the profile",
            ),
            (
                "MemoryMappedIo",
                super::translate::MAPPED,
                "remove it (or make it false) to import the profile",
            ),
            (
                "ParallelAsyncIO",
                super::translate::PARALLEL,
                "remove it (or make it false) to import the profile",
            ),
        ] {
            if let Some(s) = self.boolean(kids, name).filter(|s| s.value) {
                self.refuse(s.at, span, why, hint);
            }
        }
        if let Some(f) = kids.get("FlushType").copied()
            && self.choice(f, &["ViewOfFile", "NonVolatileMemory", "NonVolatileMemoryNoDrain"]).is_some()
        {
            let at = self.at(f);
            self.refuse(at, span, super::translate::MAPPED, "remove <FlushType> and <MemoryMappedIo>");
        }
        if let Some(tt) = kids.get("ThreadTargets") {
            let at = self.at(*tt);
            self.refuse(
                at,
                span,
                "a pool thread's I/Os shared over targets by weight has no equivalent: each methodic worker works on one device",
                "remove <ThreadTargets> (and the time span's RequestCount): each pool thread then keeps each target's RequestCount in flight on it",
            );
        }
    }

    /// A refusal of the element written at `at`, with why and what to do.
    fn refuse(&mut self, at: At, place: &str, why: &str, hint: &str) {
        let p = Problem::new(ImportErrorKind::Untranslatable, at.line, why)
            .option(at.said)
            .place(place)
            .hint(hint);
        self.problems.push(p);
    }

    /// Windows hints and the weight, as comments.
    fn target_notes(&mut self, kids: &HashMap<&str, Node<'a, 'input>>, t: &mut Target, span: &str) {
        let mut notes = Vec::new();
        for (name, why) in [
            ("SequentialScan", super::translate::HINTS),
            ("RandomAccess", super::translate::HINTS),
            ("TemporaryFile", super::translate::HINTS),
            ("UseLargePages", super::translate::LARGE_PAGES),
        ] {
            if self.boolean(kids, name).is_some_and(|b| b.value) {
                self.note(&mut notes, kids, name, why);
            }
        }
        if let Some(p) = self.int(kids, "IOPriority") {
            if !(1..=3).contains(&p.value) {
                self.refuse(p.at, span, "DiskSpd's I/O priority is 1 (very low), 2 (low) or 3 (normal); other values read outside its table", "give 3, or remove it");
            } else if p.value != 3 {
                notes.push(Note::new(p.at, super::translate::PRIORITY));
            }
        }
        if let Some(w) = self.int(kids, "Weight").filter(|w| w.value != 1) {
            notes.push(Note::new(
                w.at,
                "a target's share of a pool thread's I/Os with a time span's RequestCount (-F -O) only",
            ));
        }
        t.notes.extend(notes);
    }

    /// `<Distribution>`: the `<Percent>` ranges, or `<Absolute>` (refused later).
    fn distribution(&mut self, n: Node<'a, 'input>) -> Option<Set<Distribution>> {
        let kids = self.children(n, &["Percent", "Absolute"], &[]);
        let at = self.at(n);
        if kids.len() != 1 {
            self.problem(ImportErrorKind::Syntax, n, "<Distribution> holds one <Percent> or one <Absolute>");
            return None;
        }
        if let Some(a) = kids.get("Absolute") {
            let _ = a;
            return Some(Set { value: Distribution::Absolute, at });
        }
        let p = kids["Percent"];
        self.no_attributes(p, &[]);
        let mut ranges = Vec::new();
        for r in p.children().filter(|c| c.is_element()) {
            if r.tag_name().name() != "Range" {
                self.problem(
                    ImportErrorKind::UnknownOption,
                    r,
                    "<Percent> holds <Range IO=\"N\">M</Range> elements only",
                );
                continue;
            }
            let io = r.attribute("IO").and_then(|v| v.trim().parse::<u64>().ok()).filter(|v| *v <= 100);
            let span =
                self.simple(r).and_then(|t| t.trim().parse::<u64>().ok()).filter(|v| (1..=100).contains(v));
            match (io, span) {
                (Some(io), Some(span)) => ranges.push((io, span)),
                _ => self.problem(
                    ImportErrorKind::Syntax,
                    r,
                    "a <Range> of <Percent> needs IO=\"0..100\" (its share of the I/O) and a share of the target from 1 to 100",
                ),
            }
        }
        if ranges.is_empty() {
            self.problem(ImportErrorKind::Syntax, p, "<Percent> needs at least one <Range>");
            return None;
        }
        let said = format!(
            "<Distribution> {}",
            ranges.iter().map(|(io, s)| format!("{io}/{s}")).collect::<Vec<_>>().join(":")
        );
        Some(Set { value: Distribution::Percent(ranges), at: At::new(at.line, said) })
    }

    /// `<WriteBufferContent>`: what writes carry.
    fn pattern(&mut self, n: Node<'a, 'input>, span: &str) -> Option<Set<Pattern>> {
        let kids = self.children(n, &["Pattern", "RandomDataSource"], &["Pattern"]);
        let p = kids.get("Pattern").copied()?;
        let which = self.choice(p, &["sequential", "zero", "random"])?;
        let at = At::new(self.line(n), format!("<WriteBufferContent> {which}"));
        let value = match which.as_str() {
            "zero" => Pattern::Zero,
            "random" => match kids.get("RandomDataSource").copied() {
                None => Pattern::Sequential,
                Some(src) => {
                    let src_kids = self.children(src, &["SizeInBytes", "FilePath"], &["SizeInBytes"]);
                    if let Some(f) = src_kids.get("FilePath") {
                        let at = self.at(*f);
                        self.refuse(
                            at,
                            span,
                            "DiskSpd writes the bytes of this file: methodic writes random data, zeros or compressible data, not a file's",
                            "remove <FilePath> (DiskSpd then writes random bytes)",
                        );
                    }
                    let size = self.long(&src_kids, "SizeInBytes")?;
                    Pattern::RandomBuffer(size.value)
                }
            },
            _ => Pattern::Sequential,
        };
        Some(Set { value, at })
    }
}

/// The text of an element: its text children together.
fn text(n: Node) -> String {
    n.children().filter(|c| c.is_text()).filter_map(|c| c.text()).collect()
}
