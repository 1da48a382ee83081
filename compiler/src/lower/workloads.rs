//! Workloads and datasets: a workload reference or body goes in, a
//! written-out `Workload` with the spans of its properties comes out
//! (block split, read and random shares, alignment, offset), each checked;
//! a dataset's settings go in, a `Dataset` comes out.

use super::*;

/// A block size with its share of I/Os and where the entry was written.
type BlockAt = (Bytes, Percent, Span);

/// A workload's properties as written, each with the span of its
/// property; `ok` is false once one was refused.
struct Props {
    random: Option<(Percent, Span)>,
    blocks: Option<(Vec<BlockAt>, Span)>,
    read: Option<(Percent, Span)>,
    align: Option<(Bytes, Span)>,
    offset: Option<(Bytes, Span)>,
    access: Option<(Access, Span)>,
    trim: Option<(Percent, Span)>,
    /// `write_block` or `write_blocks`: the writes' own sizes.
    write_blocks: Option<(Vec<BlockAt>, Span)>,
    /// (word, what it sets, span) of each property given: `random` and
    /// `sequential` both set the access pattern, `block` and `blocks` both
    /// the block size.
    seen: Vec<(&'static str, &'static str, Span)>,
    ok: bool,
}

/// A dataset's settings as given, each with the span of its value.
struct DatasetSettings {
    files: Option<(u64, Span)>,
    /// The smallest and largest file size (equal for one size).
    size: Option<(Bytes, Bytes, Span)>,
    total: Option<(Bytes, Span)>,
    seed: u64,
}

/// Dataset settings that do not make files: the message at `at`, with a
/// hint.
fn bad_dataset(message: String, at: Span, hint: &str) -> Diagnostic {
    Diagnostic::new(Code::BadDataset, at, message).with_hint(hint.to_string())
}

/// The most files a dataset makes.
const MAX_FILES: u64 = 10_000_000;

impl Lowerer<'_, '_> {
    pub(super) fn workload_ref(&mut self, w: &WorkloadRef, scope: &Scope) -> Option<Rc<Wl>> {
        match w {
            WorkloadRef::Inline(body) => self.workload_body(None, body, &scope.vars, false).map(Rc::new),
            WorkloadRef::Named(name) => {
                let e = Expr { kind: ExprKind::Ident(name.node.clone()), span: name.span };
                let v = self.eval(&e, &scope.vars)?;
                match v.value {
                    Value::Workload(w) => Some(w),
                    other => {
                        let d = Diagnostic::new(
                            Code::ExpectedWorkload,
                            name.span,
                            format!("expected a workload, but `{}` is {}", name.node, describe(&other)),
                        )
                        .with_hint(
                            "name a workload, or write one in place: `{ random; block 4KiB; read 0% }`",
                        );
                        self.error(d);
                        None
                    }
                }
            }
        }
    }

    /// A workload written out from its properties: each read, then the
    /// ones it cannot go without, then the rules between them.
    pub(super) fn workload_body(
        &mut self,
        name: Option<&str>,
        body: &WorkloadBody,
        vars: &[(String, Val)],
        from_std: bool,
    ) -> Option<Wl> {
        let Props { random, blocks, read, align, offset, access: access_at, trim, write_blocks, seen, ok } =
            self.workload_props(body, vars);
        let mut missing = Vec::new();
        if random.is_none() && !seen.iter().any(|(_, k, _)| *k == "access") {
            missing.push("an access pattern (`random` or `sequential`)");
        }
        if blocks.is_none() && !seen.iter().any(|(_, k, _)| *k == "block") {
            missing.push("a block size (`block 4KiB`)");
        }
        if read.is_none() && !seen.iter().any(|(_, k, _)| *k == "read") {
            missing.push("a read share (`read 0%` writes only)");
        }
        if !missing.is_empty() {
            let who = name.map_or("this workload".to_string(), |n| format!("workload `{n}`"));
            let d = Diagnostic::new(Code::MissingProperty, body.span, format!("{who} is missing {}", join_and(&missing)))
                .with_hint("a workload says how it accesses, what block size and how much it reads: `{ random; block 4KiB; read 70% }`");
            self.error(d);
            return None;
        }
        if !ok {
            return None;
        }
        let (Some((random, random_span)), Some((mut split, blocks_span)), Some((read, read_span))) =
            (random, blocks, read)
        else {
            return None;
        };
        split.sort_by_key(|(b, _, _)| *b);
        let writes = write_blocks.as_ref().map(|(w, _)| {
            let mut w: Vec<BlockShare> =
                w.iter().map(|(size, share, _)| BlockShare { size: *size, share: *share }).collect();
            w.sort_by_key(|b| b.size);
            w
        });
        // The default alignment is the smallest block of either direction.
        let smallest = split
            .iter()
            .map(|(b, _, _)| *b)
            .chain(writes.iter().flatten().map(|b| b.size))
            .min()
            .unwrap_or(Bytes(0));
        let mut w = Workload {
            name: String::new(),
            blocks: split.iter().map(|(size, share, _)| BlockShare { size: *size, share: *share }).collect(),
            read,
            random,
            align: align.map_or(smallest, |(a, _)| a),
            offset: offset.map_or(Bytes(0), |(o, _)| o),
            access: access_at.as_ref().map_or(Access::Uniform, |(a, _)| a.clone()),
            trim: trim.map_or(Percent::ZERO, |(t, _)| t),
            write_blocks: writes,
        };
        w.name = name.map_or_else(|| w.describe(), str::to_string);
        let spans = WlSpans {
            whole: body.span,
            blocks: blocks_span,
            write_blocks: write_blocks.as_ref().map_or(body.span, |(_, s)| *s),
            block: split.iter().map(|(_, _, s)| *s).collect(),
            read: read_span,
            random: random_span,
            align: align.map_or(blocks_span, |(_, s)| s),
            offset: offset.map_or(body.span, |(_, s)| s),
            access: access_at.map_or(random_span, |(_, s)| s),
            trim: trim.map_or(body.span, |(_, s)| s),
            from_std,
        };
        let problems = rules::workload(&w);
        if !problems.is_empty() {
            for p in problems {
                let at = spans.of(p.field, body.span);
                let d = self.problem(p, at);
                self.error(d);
            }
            return None;
        }
        Some(Wl { w, spans })
    }

    /// A workload's properties as written, each read once; a property
    /// given twice, or two that set the same thing, is reported.
    fn workload_props(&mut self, body: &WorkloadBody, vars: &[(String, Val)]) -> Props {
        let mut out = Props {
            random: None,
            blocks: None,
            read: None,
            align: None,
            offset: None,
            access: None,
            trim: None,
            write_blocks: None,
            seen: Vec::new(),
            ok: true,
        };
        for p in &body.props {
            let (word, key) = match &p.kind {
                WorkloadPropKind::Random(..) => ("random", "access"),
                WorkloadPropKind::Sequential => ("sequential", "access"),
                WorkloadPropKind::Block(_) => ("block", "block"),
                WorkloadPropKind::Blocks(_) => ("blocks", "block"),
                WorkloadPropKind::WriteBlock(_) => ("write_block", "write_block"),
                WorkloadPropKind::WriteBlocks(_) => ("write_blocks", "write_block"),
                WorkloadPropKind::Read(_) => ("read", "read"),
                WorkloadPropKind::Align(_) => ("align", "align"),
                WorkloadPropKind::Offset(_) => ("offset", "offset"),
                WorkloadPropKind::Trim(_) => ("trim", "trim"),
            };
            if let Some((first_word, _, first)) = out.seen.iter().find(|(_, k, _)| *k == key) {
                let d = if *first_word == word {
                    Diagnostic::new(Code::DuplicateSetting, p.span, format!("`{word}` is given twice"))
                        .with_hint("keep one of them")
                } else {
                    let what = match key {
                        "access" => "the access pattern",
                        "write_block" => "the writes' block size",
                        _ => "the block size",
                    };
                    Diagnostic::new(
                        Code::ConflictingProperty,
                        p.span,
                        format!("`{first_word}` and `{word}` both set {what}"),
                    )
                    .with_hint("keep one of them")
                };
                self.error(d.with_secondary(*first, "first given here"));
                out.ok = false;
                continue;
            }
            out.seen.push((word, key, p.span));
            match &p.kind {
                WorkloadPropKind::Random(share, access) => {
                    match share {
                        None => out.random = Some((Percent::HUNDRED, p.span)),
                        Some(e) => match self.expect::<Percent>(e, vars, "`random`") {
                            Some((v, _)) => out.random = Some((v, p.span)),
                            None => out.ok = false,
                        },
                    }
                    if let Some(a) = access {
                        match self.access(a, vars) {
                            Some(v) => out.access = Some((v, a.span)),
                            None => out.ok = false,
                        }
                    }
                }
                WorkloadPropKind::Trim(e) => match self.expect::<Percent>(e, vars, "`trim`") {
                    Some((v, _)) => out.trim = Some((v, p.span)),
                    None => out.ok = false,
                },
                WorkloadPropKind::Sequential => out.random = Some((Percent::ZERO, p.span)),
                WorkloadPropKind::Block(e) => match self.expect::<Bytes>(e, vars, "`block`") {
                    Some((b, s)) => out.blocks = Some((vec![(b, Percent::HUNDRED, s)], p.span)),
                    None => out.ok = false,
                },
                WorkloadPropKind::WriteBlock(e) => match self.expect::<Bytes>(e, vars, "`write_block`") {
                    Some((b, s)) => out.write_blocks = Some((vec![(b, Percent::HUNDRED, s)], p.span)),
                    None => out.ok = false,
                },
                WorkloadPropKind::Blocks(entries) => {
                    let split = self.split(entries, "blocks", p.span, vars, &mut out.ok);
                    out.blocks = Some((split, p.span));
                }
                WorkloadPropKind::WriteBlocks(entries) => {
                    let split = self.split(entries, "write_blocks", p.span, vars, &mut out.ok);
                    out.write_blocks = Some((split, p.span));
                }
                WorkloadPropKind::Read(e) => match self.expect::<Percent>(e, vars, "`read`") {
                    Some((v, _)) => out.read = Some((v, p.span)),
                    None => out.ok = false,
                },
                WorkloadPropKind::Align(e) => match self.expect::<Bytes>(e, vars, "`align`") {
                    Some((v, _)) => out.align = Some((v, p.span)),
                    None => out.ok = false,
                },
                WorkloadPropKind::Offset(e) => match self.expect::<Bytes>(e, vars, "`offset`") {
                    Some((v, _)) => out.offset = Some((v, p.span)),
                    None => out.ok = false,
                },
            }
        }
        out
    }

    /// The entries of `blocks { ... }` or `write_blocks { ... }` (`word`),
    /// each read; `ok` cleared when one or the list is wrong.
    fn split(
        &mut self,
        entries: &[SplitEntry],
        word: &str,
        span: Span,
        vars: &[(String, Val)],
        ok: &mut bool,
    ) -> Vec<BlockAt> {
        let mut split = Vec::new();
        for entry in entries {
            let size = self.expect::<Bytes>(&entry.size, vars, "a block size");
            let share = self.expect::<Percent>(&entry.share, vars, "a block share");
            match (size, share) {
                (Some((b, _)), Some((s, _))) => split.push((b, s, entry.span)),
                _ => *ok = false,
            }
        }
        if entries.is_empty() {
            let d = Diagnostic::new(Code::EmptyList, span, format!("`{word}` lists no block size"))
                .with_hint(format!("list sizes with their shares: `{word} {{ 4KiB: 70%, 64KiB: 30% }}`"));
            self.error(d);
            *ok = false;
        }
        split
    }

    /// `zipf 1.2`, `pareto 0.9`, `normal 5% around 50%`, `bands 50% in 5%, ...`
    /// as a plan's [`Access`]; the rules that it can be drawn are checked
    /// with the workload's.
    fn access(&mut self, a: &AccessExpr, vars: &[(String, Val)]) -> Option<Access> {
        Some(match &a.kind {
            AccessKind::Zipf(theta) => Access::Zipf { theta: Milli(theta.node) },
            AccessKind::Pareto(h) => Access::Pareto { h: Milli(h.node) },
            AccessKind::Normal { sigma, around } => {
                let (sigma, _) = self.expect::<Percent>(sigma, vars, "`normal`")?;
                let centre = match around {
                    Some(e) => self.expect::<Percent>(e, vars, "`around`")?.0,
                    None => Percent::whole(50),
                };
                Access::Normal { sigma, centre }
            }
            AccessKind::Bands(bands) => {
                let mut out = Vec::new();
                for b in bands {
                    let io = self.expect::<Percent>(&b.io, vars, "a band's share of I/O");
                    let span = self.expect::<Percent>(&b.within, vars, "a band's share of the span");
                    out.push(Band { io: io?.0, span: span?.0 });
                }
                Access::Bands(out)
            }
        })
    }

    // ------------------------------------------------------------ datasets

    /// A dataset written out from its settings: a file size or a range of
    /// them, and a file count or a total that the sizes make.
    pub(super) fn dataset(&mut self, name: &str, settings: &[DatasetSetting], span: Span) -> Option<Dataset> {
        let given = self.dataset_settings(settings)?;
        let Some((min, max, size_span)) = given.size else {
            self.error(bad_dataset(
                format!("dataset `{name}` has no file size"),
                span,
                "give a fixed size or a range: `size 1MiB` or `size 16KiB..2MiB`",
            ));
            return None;
        };
        if min.0 == 0 {
            self.error(bad_dataset(
                "files of 0B cannot make a dataset".into(),
                size_span,
                "file sizes start at 1B",
            ));
            return None;
        }
        let (files, total) = self.dataset_count(name, span, &given, min, max)?;
        if min == max && total.0 % min.0 != 0 {
            self.error(bad_dataset(
                format!("a total of {total} is not a whole number of {min} files"),
                size_span,
                "make the total a multiple of the file size, or give `files` instead",
            ));
            return None;
        }
        let files = if min == max { total.0 / min.0 } else { files };
        Some(Dataset { name: name.to_string(), size_min: min, size_max: max, files, total, seed: given.seed })
    }

    /// A dataset's settings, each read once; `None` once one was refused
    /// (all are read first, to report every problem).
    fn dataset_settings(&mut self, settings: &[DatasetSetting]) -> Option<DatasetSettings> {
        let mut files: Option<(u64, Span)> = None;
        let mut size: Option<(Bytes, Bytes, Span)> = None;
        let mut total: Option<(Bytes, Span)> = None;
        let mut seed = 0u64;
        let mut ok = true;
        let mut seen: BTreeMap<&'static str, Span> = BTreeMap::new();
        for s in settings {
            let key = match s.key.node {
                DatasetKey::Files => "files",
                DatasetKey::Size => "size",
                DatasetKey::Total => "total",
                DatasetKey::Seed => "seed",
            };
            if let Some(first) = seen.get(key) {
                let d = Diagnostic::new(Code::DuplicateSetting, s.span, format!("`{key}` is given twice"))
                    .with_secondary(*first, "first given here");
                self.error(d);
                ok = false;
                continue;
            }
            seen.insert(key, s.span);
            match s.key.node {
                DatasetKey::Files => match self.expect::<u64>(&s.value, &[], "`files`") {
                    Some((0, at)) => {
                        self.error(Diagnostic::new(
                            Code::ZeroCount,
                            at,
                            "a dataset of 0 files copies nothing",
                        ));
                        ok = false;
                    }
                    Some((n, at)) => files = Some((n, at)),
                    None => ok = false,
                },
                DatasetKey::Size => {
                    if let ExprKind::Range { from, to, step } = &s.value.kind {
                        if step.is_some() {
                            let d = Diagnostic::new(
                                Code::BadRange,
                                s.value.span,
                                "a size range for files takes no step",
                            )
                            .with_hint("file sizes are drawn between the two ends: `size 16KiB..2MiB`");
                            self.error(d);
                            ok = false;
                            continue;
                        }
                        let lo = self.expect::<Bytes>(from, &[], "the smallest file size");
                        let hi = self.expect::<Bytes>(to, &[], "the largest file size");
                        match (lo, hi) {
                            (Some((a, _)), Some((b, _))) if a > b => {
                                let d = Diagnostic::new(
                                    Code::BadDataset,
                                    s.value.span,
                                    format!("the smallest file size {a} is larger than the largest, {b}"),
                                )
                                .with_hint(format!("write the range smallest first: `{b}..{a}`"));
                                self.error(d);
                                ok = false;
                            }
                            (Some((a, _)), Some((b, _))) => size = Some((a, b, s.value.span)),
                            _ => ok = false,
                        }
                    } else {
                        match self.expect::<Bytes>(&s.value, &[], "`size`") {
                            Some((b, at)) => size = Some((b, b, at)),
                            None => ok = false,
                        }
                    }
                }
                DatasetKey::Total => match self.expect::<Bytes>(&s.value, &[], "`total`") {
                    Some((b, at)) => total = Some((b, at)),
                    None => ok = false,
                },
                DatasetKey::Seed => match self.expect::<u64>(&s.value, &[], "`seed`") {
                    Some((n, _)) => seed = n,
                    None => ok = false,
                },
            }
        }
        ok.then_some(DatasetSettings { files, size, total, seed })
    }

    /// How many files a dataset makes and their total: from `files`, from
    /// `total` (files drawn until they reach it) or from both when they
    /// agree. `None` after an error.
    fn dataset_count(
        &mut self,
        name: &str,
        span: Span,
        given: &DatasetSettings,
        min: Bytes,
        max: Bytes,
    ) -> Option<(u64, Bytes)> {
        match (given.files, given.total) {
            (None, None) => {
                self.error(bad_dataset(
                    format!("dataset `{name}` has no file count or total size"),
                    span,
                    "give `files N` or `total SIZE` to say how many files to make",
                ));
                None
            }
            (Some((n, _)), None) => {
                if n > MAX_FILES {
                    self.error(bad_dataset(
                        format!("{n} files are more than methodic makes ({MAX_FILES})"),
                        span,
                        "use fewer, larger files",
                    ));
                    return None;
                }
                Some((n, Dataset::of_files(name, min, max, n, given.seed).total))
            }
            (None, Some((t, t_span))) => {
                if t < min {
                    self.error(bad_dataset(
                        format!("a total of {t} is less than one file of at least {min}"),
                        t_span,
                        "make the total larger than the smallest file, or the files smaller",
                    ));
                    return None;
                }
                let mut sum = 0u64;
                let mut n = 0u64;
                for s in crate::plan::size_draws(min, max, given.seed) {
                    if sum >= t.0 {
                        break;
                    }
                    if n >= MAX_FILES {
                        self.error(bad_dataset(
                            format!(
                                "a total of {t} in files of {min}..{max} makes more than {MAX_FILES} files"
                            ),
                            t_span,
                            "use larger files or a smaller total",
                        ));
                        return None;
                    }
                    sum += s;
                    n += 1;
                }
                if n == 0 {
                    self.error(bad_dataset(
                        "a total of 0B makes no files".into(),
                        t_span,
                        "give a total above 0B",
                    ));
                    return None;
                }
                Some((n, t))
            }
            (Some((n, n_span)), Some((t, t_span))) => {
                if min != max {
                    self.error(
                        bad_dataset(
                            "with a range of file sizes, give `files` or `total`, not both".into(),
                            t_span,
                            "the count follows from the total, or the total from the count",
                        )
                        .with_secondary(n_span, "files given here"),
                    );
                    return None;
                }
                if n.saturating_mul(min.0) != t.0 {
                    self.error(
                        bad_dataset(
                            format!("{n} files of {min} make {}, not {t}", Bytes(n.saturating_mul(min.0))),
                            t_span,
                            "give two of `files`, `size` and `total`, or make them agree",
                        )
                        .with_secondary(n_span, "files given here"),
                    );
                    return None;
                }
                Some((n, t))
            }
        }
    }
}
