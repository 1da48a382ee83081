//! `format`: methodology source goes in, the same methodology in canonical
//! layout comes out: two-space indents, one statement a line, short bodies
//! on one line (`{ random; block 4KiB; read 0% }`), single blank lines kept,
//! every comment kept. Formatting formatted text changes nothing.

use crate::ast::*;
use crate::diagnostic::Diagnostics;
use crate::parse::{parse, string_end};

/// Lines longer than this are broken into blocks.
const WIDTH: usize = 100;

/// Formats a methodology. Fails with the parse diagnostics when the source
/// does not parse; formatting never changes what a file means.
pub fn format(src: &str) -> Result<String, Diagnostics> {
    let ast = parse(src)?;
    let mut p =
        Printer { src, comments: scan_comments(src), next: 0, out: String::new(), indent: 0, last_end: 0 };
    for item in &ast.items {
        p.item(item);
    }
    p.leading(src.len());
    let mut out = p.out;
    while out.ends_with("\n\n") {
        out.pop();
    }
    Ok(out)
}

#[derive(Debug, Clone)]
struct Comment {
    span: Span,
}

/// Every `#` comment outside strings.
fn scan_comments(src: &str) -> Vec<Comment> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(bytes, i),
            b'#' => {
                let start = i;
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                out.push(Comment { span: Span::new(start, i) });
            }
            _ => i += 1,
        }
    }
    out
}

struct Printer<'s> {
    src: &'s str,
    comments: Vec<Comment>,
    /// The first comment not yet printed.
    next: usize,
    out: String,
    indent: usize,
    /// Where in the source the last printed thing ended.
    last_end: usize,
}

impl Printer<'_> {
    fn text(&self, span: Span) -> &str {
        &self.src[span.start..span.end]
    }

    fn comment_text(&self, c: &Comment) -> String {
        self.text(c.span).trim_end().to_string()
    }

    fn has_comment_in(&self, span: Span) -> bool {
        self.comments[self.next..].iter().any(|c| c.span.start >= span.start && c.span.start < span.end)
    }

    /// One blank line where the source had at least one between the last
    /// printed thing and `pos`, except right after an opening brace.
    fn blank_line_before(&mut self, pos: usize) {
        let gap = &self.src[self.last_end.min(pos)..pos];
        let opened = self.out.trim_end().ends_with('{') || self.out.is_empty();
        if !opened && gap.matches('\n').count() >= 2 && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }

    /// Prints the comments that start before `pos`, each on its own line.
    fn leading(&mut self, pos: usize) {
        while self.next < self.comments.len() && self.comments[self.next].span.start < pos {
            let c = self.comments[self.next].clone();
            self.next += 1;
            self.blank_line_before(c.span.start);
            let text = self.comment_text(&c);
            self.push_indent();
            self.out.push_str(&text);
            self.out.push('\n');
            self.last_end = c.span.end;
        }
    }

    fn push_indent(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    /// Prints one line for the source at `span`, with the comments before
    /// it and a comment that follows it on the same source line.
    fn line(&mut self, text: &str, span: Span) {
        self.leading(span.start);
        self.blank_line_before(span.start);
        self.push_indent();
        self.out.push_str(text);
        self.last_end = span.end;
        self.trailing();
        self.out.push('\n');
    }

    /// A comment on the same source line as what was just printed.
    fn trailing(&mut self) {
        if let Some(c) = self.comments.get(self.next).cloned() {
            let between = &self.src[self.last_end.min(c.span.start)..c.span.start];
            if c.span.start >= self.last_end && !between.contains('\n') && between.trim().is_empty() {
                self.out.push(' ');
                let text = self.comment_text(&c);
                self.out.push_str(&text);
                self.next += 1;
                self.last_end = c.span.end;
            }
        }
    }

    fn fits(&self, text: &str, span: Span) -> bool {
        !self.has_comment_in(span) && self.indent * 2 + text.len() <= WIDTH && !text.contains('\n')
    }

    /// `head { a; b }` on one line when it fits, else one property a line.
    /// `props` are the already formatted properties with their spans.
    fn prop_block(&mut self, head: &str, props: &[(String, Span)], whole: Span, tail: &str) {
        let inline = format!("{head}{}{tail}", inline_body(props));
        if self.fits(&inline, whole) {
            self.line(&inline, whole);
            return;
        }
        let brace = self.src[whole.start..whole.end].find('{').map_or(whole.start, |i| whole.start + i);
        self.line(&format!("{head}{{"), Span::new(whole.start, brace + 1));
        self.indent += 1;
        for (text, span) in props {
            self.line(text, *span);
        }
        self.leading(whole.end.saturating_sub(1));
        self.indent -= 1;
        self.line(&format!("}}{tail}"), Span::new(whole.end.saturating_sub(1), whole.end));
    }

    /// A `{ ... }` of statements, always one statement a line.
    fn block(&mut self, head: &str, block: &Block, tail_of: Option<&dyn Fn(&mut Self)>) {
        self.line(&format!("{head}{{"), Span::new(block.span.start, block.span.start + 1));
        self.indent += 1;
        for stmt in &block.stmts {
            self.stmt(stmt);
        }
        self.leading(block.span.end.saturating_sub(1));
        self.indent -= 1;
        match tail_of {
            Some(tail) => tail(self),
            None => self.line("}", Span::new(block.span.end.saturating_sub(1), block.span.end)),
        }
    }

    fn item(&mut self, item: &Item) {
        match &item.kind {
            ItemKind::Header { name, version } => {
                let text =
                    format!("methodology {} version {}", self.text(name.span), self.text(version.span));
                self.line(&text, item.span);
            }
            ItemKind::Describe(text) => {
                let line = format!("describe {}", self.text(text.span));
                self.line(&line, item.span);
            }
            ItemKind::NonDestructive => self.line("non_destructive", item.span),
            ItemKind::OnError(action) => {
                let line = format!("on_error {}", action.node.word());
                self.line(&line, item.span);
            }
            ItemKind::Conventions(conventions) => {
                let props: Vec<(String, Span)> = conventions
                    .iter()
                    .map(|c| match c {
                        Convention::Units(u) => (format!("units {}", self.text(u.span)), u.span),
                        Convention::QueueDepth(q) => (format!("queue_depth {}", self.text(q.span)), q.span),
                        Convention::Value(v) => (format!("value {}", self.text(v.span)), v.span),
                    })
                    .collect();
                self.multi_line_props("conventions ", &props, item.span);
            }
            ItemKind::Use(path) => {
                let line = format!("use {}", path.node);
                self.line(&line, item.span);
            }
            ItemKind::UseFile(path) => {
                let line = format!("use {}", self.text(path.span));
                self.line(&line, item.span);
            }
            ItemKind::Workload { name, body } => {
                let head = format!("workload {} ", name.node);
                let props = self.workload_props(body);
                self.prop_block(&head, &props, body.span, "");
            }
            ItemKind::Dataset { name, settings } => {
                let head = format!("dataset {} ", name.node);
                let props: Vec<(String, Span)> = settings
                    .iter()
                    .map(|s| {
                        let key = match s.key.node {
                            DatasetKey::Files => "files",
                            DatasetKey::Size => "size",
                            DatasetKey::Total => "total",
                            DatasetKey::Seed => "seed",
                        };
                        (format!("{key} {}", self.expr(&s.value)), s.span)
                    })
                    .collect();
                let body = Span::new(name.span.end, item.span.end);
                self.prop_block(&head, &props, body, "");
            }
            ItemKind::Let { name, value } => {
                let line = format!("let {} = {}", name.node, self.expr(value));
                self.line(&line, item.span);
            }
            ItemKind::Stmt(stmt) => {
                if let StmtKind::Target(settings) = &stmt.kind {
                    let props = self.target_props(settings);
                    self.multi_line_props("target ", &props, stmt.span);
                } else {
                    self.stmt(stmt);
                }
            }
        }
    }

    /// Top-level settings blocks are always written one setting a line.
    fn multi_line_props(&mut self, head: &str, props: &[(String, Span)], whole: Span) {
        let brace = self.src[whole.start..whole.end].find('{').map_or(whole.start, |i| whole.start + i);
        self.line(&format!("{head}{{"), Span::new(whole.start, brace + 1));
        self.indent += 1;
        for (text, span) in props {
            self.line(text, *span);
        }
        self.leading(whole.end.saturating_sub(1));
        self.indent -= 1;
        self.line("}", Span::new(whole.end.saturating_sub(1), whole.end));
    }

    fn stmt(&mut self, stmt: &Stmt) {
        let local = local_word(stmt);
        match &stmt.kind {
            StmtKind::Phase { name, body } => {
                let head = format!("phase {} ", self.text(name.span));
                self.block(&head, body, None);
            }
            StmtKind::For { var, list, body } => {
                let head = format!("for {} in {} ", var.node, self.expr(list));
                match self.inline_block(&head, body) {
                    Some(text) => self.line(&text, stmt.span),
                    None => self.block(&head, body, None),
                }
            }
            StmtKind::Repeat { count, until_cv, aggregate, body } => {
                let mut head = format!("repeat {} ", self.expr(count));
                if let Some(cv) = until_cv {
                    head.push_str(&format!("until cv {} ", self.expr(&cv.node)));
                }
                if let Some(a) = aggregate {
                    head.push_str(&format!("aggregate {} ", self.text(a.span)));
                }
                match self.inline_block(&head, body) {
                    Some(text) => self.line(&text, stmt.span),
                    None => self.block(&head, body, None),
                }
            }
            StmtKind::Rounds { body, rule, name } => {
                let close = Span::new(body.span.end.saturating_sub(1), stmt.span.end);
                let props = self.steady_props(rule);
                let mut named = name.as_ref().map_or(String::new(), |n| format!(" as {}", n.node));
                named.push_str(local);
                let tail = move |p: &mut Self| {
                    let rule_span = Span::new(body.span.end, stmt.span.end);
                    let inline = format!("}} until steady {}{named}", inline_body(&props));
                    if p.fits(&inline, rule_span) {
                        p.line(&inline, close);
                    } else {
                        p.prop_block("} until steady ", &props, rule_span, &named);
                    }
                };
                self.block("rounds ", body, Some(&tail));
            }
            StmtKind::Target(settings) => {
                let props = self.target_props(settings);
                self.prop_block("target ", &props, stmt.span, "");
            }
            StmtKind::LimitRam(limit) => {
                let text = match limit {
                    Some(e) => format!("limit_ram {}{local}", self.expr(e)),
                    None => format!("limit_ram none{local}"),
                };
                self.line(&text, stmt.span);
            }
            StmtKind::Erase(method) => {
                let text = format!("erase {}{local}", method.node.keyword());
                self.line(&text, stmt.span);
            }
            StmtKind::Fill { workload, opts }
            | StmtKind::Precondition { workload, opts }
            | StmtKind::Sweep { workload, opts }
            | StmtKind::Measure { workload, opts } => {
                let keyword = match &stmt.kind {
                    StmtKind::Fill { .. } => "fill",
                    StmtKind::Precondition { .. } => "precondition",
                    StmtKind::Sweep { .. } => "sweep",
                    _ => "measure",
                };
                self.step(keyword, workload, opts, local, stmt.span);
            }
            StmtKind::Qos { workload, qd, settings } => {
                let head = format!("qos {} {} ", self.workload_ref(workload), self.step_opt(qd));
                let props = self.qos_props(settings);
                self.prop_block(&head, &props, stmt.span, local);
            }
            StmtKind::Together { opts, jobs } => {
                // A job a line, as a target block's settings: the jobs are
                // what a reader compares.
                let (head, props) = self.together_parts(opts, jobs, local);
                self.multi_line_props(&head, &props, stmt.span);
            }
            StmtKind::DropCaches => self.line(&format!("drop_caches{local}"), stmt.span),
            StmtKind::Idle(d) => {
                let text = format!("idle {}{local}", self.expr(d));
                self.line(&text, stmt.span);
            }
            StmtKind::Copy(name) => {
                let text = format!("copy {}{local}", name.node);
                self.line(&text, stmt.span);
            }
            StmtKind::Probe(settings) => {
                let props = self.probe_props(settings);
                self.prop_block("probe pages ", &props, stmt.span, local);
            }
        }
    }

    /// A step: keyword, workload and options on one line; an `until steady`
    /// body that does not fit is broken over lines.
    fn step(&mut self, keyword: &str, workload: &WorkloadRef, opts: &[StepOpt], local: &str, span: Span) {
        let (head, steady) = self.step_parts(keyword, workload, opts, local);
        match steady {
            None => self.line(&head, span),
            Some((rule, rule_span)) => {
                // The steady body goes last so that it can open a block.
                let props = self.steady_props(rule);
                let whole = Span::new(rule_span.start, span.end.max(rule_span.end));
                let inline = format!("{head} until steady {}", inline_body(&props));
                if self.fits(&inline, span) {
                    self.line(&inline, span);
                } else {
                    let open = format!("{head} until steady ");
                    let body = Span::new(
                        self.src[whole.start..whole.end].find('{').map_or(whole.start, |i| whole.start + i),
                        rule_span.end,
                    );
                    self.prop_block_from(&open, &props, span.start, body);
                }
            }
        }
    }

    /// A step on one line, whether or not it fits.
    fn step_inline(&self, keyword: &str, workload: &WorkloadRef, opts: &[StepOpt], local: &str) -> String {
        let (head, steady) = self.step_parts(keyword, workload, opts, local);
        match steady {
            None => head,
            Some((rule, _)) => format!("{head} until steady {}", inline_body(&self.steady_props(rule))),
        }
    }

    /// A step's keyword, workload and options (`local` after them), and
    /// its first `until steady` body with its span, which is written last.
    fn step_parts<'o>(
        &self,
        keyword: &str,
        workload: &WorkloadRef,
        opts: &'o [StepOpt],
        local: &str,
    ) -> (String, Option<(&'o Vec<SteadySetting>, Span)>) {
        let mut head = format!("{keyword} {}", self.workload_ref(workload));
        let mut steady: Option<(&Vec<SteadySetting>, Span)> = None;
        for opt in opts {
            let text = match &opt.kind {
                StepOptKind::Steady(Some(rule)) if steady.is_none() => {
                    steady = Some((rule, opt.span));
                    continue;
                }
                _ => self.step_opt(opt),
            };
            head.push(' ');
            head.push_str(&text);
        }
        head.push_str(local);
        (head, steady)
    }

    /// `together OPTIONS ` (`local` after them) and each job as a line of
    /// its block.
    fn together_parts(
        &self,
        opts: &[StepOpt],
        jobs: &[JobDef],
        local: &str,
    ) -> (String, Vec<(String, Span)>) {
        let mut head = "together".to_string();
        for opt in opts {
            head.push(' ');
            head.push_str(&self.step_opt(opt));
        }
        head.push_str(local);
        head.push(' ');
        let props = jobs
            .iter()
            .map(|j| {
                let mut text = format!("job {} {}", j.name.node, self.workload_ref(&j.workload));
                for opt in &j.opts {
                    text.push(' ');
                    text.push_str(&self.step_opt(opt));
                }
                (text, j.span)
            })
            .collect();
        (head, props)
    }

    /// One step option as written, an `until steady` body inline.
    fn step_opt(&self, opt: &StepOpt) -> String {
        match &opt.kind {
            StepOptKind::Passes(e) => format!("passes {}", self.expr(e)),
            StepOptKind::Qd(e) => format!("qd {}", self.expr(e)),
            StepOptKind::Read(e) => format!("read {}", self.expr(e)),
            StepOptKind::Ramp(e) => format!("ramp {}", self.expr(e)),
            StepOptKind::Record(e) => format!("record {}", self.expr(e)),
            StepOptKind::Series(e) => format!("series {}", self.expr(e)),
            StepOptKind::For(e) => format!("for {}", self.expr(e)),
            StepOptKind::Written(e) => format!("until written {}", self.expr(e)),
            StepOptKind::Transferred(e) => format!("until transferred {}", self.expr(e)),
            StepOptKind::Steady(None) => "until steady".to_string(),
            StepOptKind::Steady(Some(rule)) => {
                format!("until steady {}", inline_body(&self.steady_props(rule)))
            }
            StepOptKind::Rate { amount, unit, arrivals } => {
                let mut text = match unit {
                    RateUnit::Iops => format!("rate {} iops", self.expr(amount)),
                    RateUnit::PerSecond => format!("rate {}/s", self.expr(amount)),
                    RateUnit::Of(name) => format!("rate {} of {}", self.expr(amount), name.node),
                };
                if let Some(a) = arrivals {
                    text.push(' ');
                    text.push_str(a.node.keyword());
                }
                text
            }
            StepOptKind::Workers(e) => format!("workers {}", self.expr(e)),
            StepOptKind::Device(e) => format!("device {}", self.expr(e)),
            StepOptKind::As(name) => format!("as {}", name.node),
            StepOptKind::Think { pause, every, drained } => {
                let mut text = format!("think {}", self.text(pause.span));
                if let Some(e) = every {
                    text.push_str(&format!(" every {}", self.expr(e)));
                }
                if *drained {
                    text.push_str(" drained");
                }
                text
            }
            StepOptKind::Bursts { on, every, times } => {
                let mut text = format!("bursts {} every {}", self.expr(on), self.expr(every));
                if let Some(t) = times {
                    text.push_str(&format!(" times {}", self.expr(t)));
                }
                text
            }
            StepOptKind::Verify => "verify".to_string(),
            StepOptKind::At { pick, of, under } => {
                let word = match pick.node {
                    PickExpr::Max => "max",
                    PickExpr::Mid => "mid",
                    PickExpr::Min => "min",
                };
                match under {
                    Some(u) => format!("at {word} of {} under {}", of.node, self.text(u.span)),
                    None => format!("at {word} of {}", of.node),
                }
            }
        }
    }

    /// Like `prop_block`, for a head that starts at `head_start` in the source.
    fn prop_block_from(&mut self, head: &str, props: &[(String, Span)], head_start: usize, body: Span) {
        self.line(&format!("{head}{{"), Span::new(head_start, body.start + 1));
        self.indent += 1;
        for (text, span) in props {
            self.line(text, *span);
        }
        self.leading(body.end.saturating_sub(1));
        self.indent -= 1;
        self.line("}", Span::new(body.end.saturating_sub(1), body.end));
    }

    /// `head{ a; b }` for a loop or repeat of at most two simple
    /// statements that fits on a line.
    fn inline_block(&self, head: &str, body: &Block) -> Option<String> {
        if body.stmts.is_empty() || body.stmts.len() > 2 {
            return None;
        }
        let parts: Option<Vec<String>> = body.stmts.iter().map(|s| self.inline_stmt(s)).collect();
        let text = format!("{head}{{ {} }}", parts?.join("; "));
        self.fits(&text, body.span).then_some(text)
    }

    /// A simple statement on one line; `None` for those with blocks.
    fn inline_stmt(&self, stmt: &Stmt) -> Option<String> {
        let local = local_word(stmt);
        Some(match &stmt.kind {
            StmtKind::Phase { .. }
            | StmtKind::For { .. }
            | StmtKind::Repeat { .. }
            | StmtKind::Rounds { .. }
            | StmtKind::Together { .. } => {
                return None;
            }
            StmtKind::Target(settings) => {
                format!("target {}", inline_body(&self.target_props(settings)))
            }
            StmtKind::LimitRam(Some(e)) => format!("limit_ram {}{local}", self.expr(e)),
            StmtKind::LimitRam(None) => format!("limit_ram none{local}"),
            StmtKind::Erase(method) => format!("erase {}{local}", method.node.keyword()),
            StmtKind::Fill { workload, opts } => self.step_inline("fill", workload, opts, local),
            StmtKind::Precondition { workload, opts } => {
                self.step_inline("precondition", workload, opts, local)
            }
            StmtKind::Sweep { workload, opts } => self.step_inline("sweep", workload, opts, local),
            StmtKind::Measure { workload, opts } => self.step_inline("measure", workload, opts, local),
            StmtKind::DropCaches => format!("drop_caches{local}"),
            StmtKind::Idle(d) => format!("idle {}{local}", self.expr(d)),
            StmtKind::Copy(name) => format!("copy {}{local}", name.node),
            StmtKind::Probe(settings) => {
                format!("probe pages {}{local}", inline_body(&self.probe_props(settings)))
            }
            StmtKind::Qos { workload, qd, settings } => format!(
                "qos {} {} {}{local}",
                self.workload_ref(workload),
                self.step_opt(qd),
                inline_body(&self.qos_props(settings))
            ),
        })
    }

    fn workload_ref(&self, w: &WorkloadRef) -> String {
        match w {
            WorkloadRef::Named(n) => n.node.clone(),
            WorkloadRef::Inline(body) => inline_body(&self.workload_props(body)),
        }
    }

    fn workload_props(&self, body: &WorkloadBody) -> Vec<(String, Span)> {
        body.props
            .iter()
            .map(|p| {
                let text = match &p.kind {
                    WorkloadPropKind::Random(share, access) => {
                        let mut text = "random".to_string();
                        if let Some(e) = share {
                            text.push_str(&format!(" {}", self.expr(e)));
                        }
                        if let Some(a) = access {
                            text.push_str(&format!(" {}", self.access(a)));
                        }
                        text
                    }
                    WorkloadPropKind::Trim(e) => format!("trim {}", self.expr(e)),
                    WorkloadPropKind::Sequential => "sequential".to_string(),
                    WorkloadPropKind::Block(e) => format!("block {}", self.expr(e)),
                    WorkloadPropKind::Blocks(entries) | WorkloadPropKind::WriteBlocks(entries) => {
                        let parts: Vec<String> = entries
                            .iter()
                            .map(|e| format!("{}: {}", self.expr(&e.size), self.expr(&e.share)))
                            .collect();
                        let word = if matches!(p.kind, WorkloadPropKind::WriteBlocks(_)) {
                            "write_blocks"
                        } else {
                            "blocks"
                        };
                        format!("{word} {{ {} }}", parts.join(", "))
                    }
                    WorkloadPropKind::WriteBlock(e) => format!("write_block {}", self.expr(e)),
                    WorkloadPropKind::Read(e) => format!("read {}", self.expr(e)),
                    WorkloadPropKind::Align(e) => format!("align {}", self.expr(e)),
                    WorkloadPropKind::Offset(e) => format!("offset {}", self.expr(e)),
                };
                (text, p.span)
            })
            .collect()
    }

    fn target_props(&self, settings: &[TargetSetting]) -> Vec<(String, Span)> {
        settings
            .iter()
            .map(|s| {
                let text = match &s.kind {
                    TargetSettingKind::Span(e) => format!("span {}", self.expr(e)),
                    TargetSettingKind::Workers(e) => format!("workers {}", self.expr(e)),
                    TargetSettingKind::Devices(e) => format!("devices {}", self.expr(e)),
                    TargetSettingKind::Io(m) => format!("io {}", self.text(m.span)),
                    TargetSettingKind::WriteCache(m) => format!("write_cache {}", m.node.keyword()),
                    TargetSettingKind::Data(DataPatternExpr::Random) => "data random".to_string(),
                    TargetSettingKind::Data(DataPatternExpr::Zeros) => "data zeros".to_string(),
                    TargetSettingKind::Data(DataPatternExpr::Compressible(e)) => {
                        format!("data compressible {}", self.expr(e))
                    }
                };
                (text, s.span)
            })
            .collect()
    }

    fn probe_props(&self, settings: &[ProbeSetting]) -> Vec<(String, Span)> {
        settings
            .iter()
            .map(|s| {
                let text = match &s.kind {
                    ProbeSettingKind::Io(e) => format!("io {}", self.expr(e)),
                    ProbeSettingKind::Step(e) => format!("step {}", self.expr(e)),
                    ProbeSettingKind::Range(e) => format!("range {}", self.expr(e)),
                    ProbeSettingKind::Repeats(e) => format!("repeats {}", self.expr(e)),
                    ProbeSettingKind::Statistic(a) => {
                        format!("statistic {}", self.text(a.span))
                    }
                };
                (text, s.span)
            })
            .collect()
    }

    fn qos_props(&self, settings: &[QosSetting]) -> Vec<(String, Span)> {
        settings
            .iter()
            .map(|s| {
                let text = match &s.kind {
                    QosSettingKind::Limit { percentile, under } => {
                        format!("{} under {}", self.text(percentile.span), self.text(under.span))
                    }
                    QosSettingKind::Probe(e) => format!("probe {}", self.expr(e)),
                    QosSettingKind::Ramp(e) => format!("ramp {}", self.expr(e)),
                    QosSettingKind::Precision(e) => format!("precision {}", self.expr(e)),
                    QosSettingKind::Arrivals(a) => a.node.keyword().to_string(),
                    QosSettingKind::By(a) => format!("by {}", a.node.keyword()),
                };
                (text, s.span)
            })
            .collect()
    }

    fn steady_props(&self, rule: &[SteadySetting]) -> Vec<(String, Span)> {
        rule.iter()
            .map(|s| {
                let text = match &s.kind {
                    SteadySettingKind::Round(e) => format!("round {}", self.expr(e)),
                    SteadySettingKind::Window(e) => format!("window {}", self.expr(e)),
                    SteadySettingKind::Excursion(e) => format!("excursion {}", self.expr(e)),
                    SteadySettingKind::Slope(e) => format!("slope {}", self.expr(e)),
                    SteadySettingKind::MaxRounds(e) => format!("max_rounds {}", self.expr(e)),
                    SteadySettingKind::Metric(m) => format!("metric {}", self.text(m.span)),
                    SteadySettingKind::Track { workload, opts } => {
                        let mut text = format!("track {}", self.workload_ref(workload));
                        for o in opts {
                            text.push_str(&format!(" {}", self.step_opt(o)));
                        }
                        text
                    }
                };
                (text, s.span)
            })
            .collect()
    }

    /// `zipf 1.2`, `normal 5% around 50%`, `bands 50% in 5%, 50% in 95%`.
    fn access(&self, a: &AccessExpr) -> String {
        match &a.kind {
            AccessKind::Zipf(v) => format!("zipf {}", self.text(v.span)),
            AccessKind::Pareto(v) => format!("pareto {}", self.text(v.span)),
            AccessKind::Normal { sigma, around: None } => format!("normal {}", self.expr(sigma)),
            AccessKind::Normal { sigma, around: Some(c) } => {
                format!("normal {} around {}", self.expr(sigma), self.expr(c))
            }
            AccessKind::Bands(bands) => {
                let parts: Vec<String> = bands
                    .iter()
                    .map(|b| format!("{} in {}", self.expr(&b.io), self.expr(&b.within)))
                    .collect();
                format!("bands {}", parts.join(", "))
            }
        }
    }

    fn expr(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::List(items) => {
                let parts: Vec<String> = items.iter().map(|i| self.expr(i)).collect();
                format!("[{}]", parts.join(", "))
            }
            ExprKind::Range { from, to, step } => {
                let mut s = format!("{}..{}", self.expr(from), self.expr(to));
                match step {
                    Some(RangeStep::Add(e)) => s.push_str(&format!(" step {}", self.expr(e))),
                    Some(RangeStep::Mul(f)) => s.push_str(&format!(" step x{}", f.node)),
                    None => {}
                }
                s
            }
            // Literals keep their spelling: 4096B stays 4096B.
            _ => self.text(e.span).to_string(),
        }
    }
}

/// ` local` when the statement was marked `local`, else nothing: what
/// follows a statement's last word or option.
fn local_word(stmt: &Stmt) -> &'static str {
    if stmt.local.is_some() { " local" } else { "" }
}

/// `{ a; b; c }`, or `{}` when empty.
fn inline_body(props: &[(String, Span)]) -> String {
    if props.is_empty() {
        return "{}".to_string();
    }
    let parts: Vec<&str> = props.iter().map(|(t, _)| t.as_str()).collect();
    format!("{{ {} }}", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(src: &str) -> String {
        match format(src) {
            Ok(s) => s,
            Err(d) => panic!("{}", d.render("t", src, false)),
        }
    }

    #[test]
    fn canonical_layout() {
        let src = "methodology   \"x\"  version \"1.0\"\nconventions{units decimal;queue_depth total}\n\n\n\nworkload w {random;block 4KiB;read 0%}\nphase \"p\" { sweep w qd [1,2,4] ramp 30s record 5min; drop_caches }\n";
        let out = fmt(src);
        assert_eq!(
            out,
            "methodology \"x\" version \"1.0\"\nconventions {\n  units decimal\n  queue_depth total\n}\n\nworkload w { random; block 4KiB; read 0% }\nphase \"p\" {\n  sweep w qd [1, 2, 4] ramp 30s record 5min\n  drop_caches\n}\n"
        );
    }

    #[test]
    fn on_error_keeps_its_line() {
        let out = fmt("methodology \"x\" version \"1\"\non_error   continue # go on\nidle 1s\n");
        assert_eq!(out, "methodology \"x\" version \"1\"\non_error continue # go on\nidle 1s\n");
    }

    #[test]
    fn comments_are_kept_where_they_were() {
        let src = "# top\nmethodology \"x\" version \"1\" # trailing\n\n# before phase\nphase \"p\" {\n  # inside\n  idle 5s # after idle\n  # before close\n}\n# end\n";
        let out = fmt(src);
        assert_eq!(out, src);
    }

    #[test]
    fn a_body_with_a_comment_is_broken_over_lines() {
        let src = "workload w { random # pattern\n block 4KiB; read 0% }\n";
        let out = fmt(src);
        assert_eq!(out, "workload w {\n  random # pattern\n  block 4KiB\n  read 0%\n}\n");
        assert_eq!(fmt(&out), out);
    }

    #[test]
    fn long_steady_rule_breaks_and_stays_broken() {
        let src = "precondition a_rather_long_workload_name qd 256 series 1s until steady { round 60s; window 5; excursion 20%; slope 10%; max_rounds 25 }\n";
        let out = fmt(src);
        assert!(out.contains("until steady {\n  round 60s\n"), "{out}");
        assert_eq!(fmt(&out), out);
    }

    #[test]
    fn local_stays_where_each_step_takes_it() {
        let src = "erase   discard local\ndrop_caches local;limit_ram 8GiB local\nlimit_ram none local\n\
                   copy d local\nprobe pages { io 1KiB; step 512B } local\n\
                   repeat 2 { drop_caches local; copy d local }\n";
        let out = fmt(src);
        assert_eq!(
            out,
            "erase discard local\ndrop_caches local\nlimit_ram 8GiB local\nlimit_ram none local\n\
             copy d local\nprobe pages { io 1KiB; step 512B } local\n\
             repeat 2 { drop_caches local; copy d local }\n"
        );
        assert_eq!(fmt(&out), out);
        // On I/O steps the compiler refuses it; formatting keeps it so that
        // the refusal still points at it.
        let io = "measure w local qd 1 for 1s\nprecondition w qd 4 until steady { round 1s } local\n\
                  idle 1s local\ntogether for 1s local { job a w qd 1 }\n\
                  qos w qd 1 { p99 under 1ms } local\n\
                  rounds { measure w qd 1 for 1s } until steady { track w } local\n";
        let out = fmt(io);
        assert_eq!(
            out,
            "measure w qd 1 for 1s local\nprecondition w qd 4 local until steady { round 1s }\n\
             idle 1s local\ntogether for 1s local {\n  job a w qd 1\n}\nqos w qd 1 { p99 under 1ms } local\n\
             rounds {\n  measure w qd 1 for 1s\n} until steady { track w } local\n"
        );
        assert_eq!(fmt(&out), out);
    }

    #[test]
    fn rounds_keeps_its_rule() {
        let src = "rounds { measure w qd 1 for 1min } until steady { window 5; track w }\n";
        let out = fmt(src);
        assert_eq!(out, "rounds {\n  measure w qd 1 for 1min\n} until steady { window 5; track w }\n");
        assert_eq!(fmt(&out), out);
    }

    #[test]
    fn a_search_by_queue_depth_keeps_its_setting() {
        let src = "qos w qd 128 {p99.9 under 1ms;probe 10s;ramp 2s;by   qd}\nqos w qd 8 { p99 under 2ms; probe 1s; by rate }\n";
        let out = fmt(src);
        assert_eq!(
            out,
            "qos w qd 128 { p99.9 under 1ms; probe 10s; ramp 2s; by qd }\n\
             qos w qd 8 { p99 under 2ms; probe 1s; by rate }\n"
        );
        assert_eq!(fmt(&out), out);
    }
}
