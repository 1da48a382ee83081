//! Building: pest's pairs go in, typed AST nodes with spans come out,
//! one method a grammar rule. A bad literal is collected (its wording is
//! `messages`'s) and building goes on, so one bad unit does not hide the
//! next; an unexpected tree shape is an internal error at its span.

use pest::iterators::{Pair, Pairs};

use super::keywords::is_keyword;
use super::messages::{
    bad_erase, bad_escape, bad_quantity, factor_too_large, missing_child, too_deep, unexpected,
};
use super::parser::{MAX_DEPTH, Rule};
use super::text::trim_trivia;
use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::units::{Quantity, parse_quantity};

/// A node, or the one problem that stopped building it. The diagnostic is
/// boxed: it is large (152 bytes), and every build step returns this.
type BuildResult<T> = std::result::Result<T, Box<Diagnostic>>;

/// Builds AST nodes from pest pairs. Literal errors are collected in
/// `diags` so that one bad unit does not hide the next; an unexpected tree
/// shape is an internal error with the span where it was found.
pub(super) struct Builder {
    /// Where the parsed text starts in the file.
    pub(super) offset: usize,
    pub(super) diags: Vec<Diagnostic>,
    /// How many blocks enclose the one being built.
    pub(super) depth: usize,
}

/// The children of a pair with keyword tokens skipped.
struct Children<'i> {
    inner: Pairs<'i, Rule>,
    parent: Span,
    parent_rule: Rule,
}

/// Whether the builder steps over the pair: a keyword, or a step's
/// `local`, which `Builder::stmt` reads once for the whole statement.
fn is_skipped(rule: Rule) -> bool {
    is_keyword(rule) || is_local(rule)
}

/// `local` where it may stand, or where the compiler refuses it.
fn is_local(rule: Rule) -> bool {
    matches!(rule, Rule::opt_local | Rule::stray_local)
}

impl<'i> Children<'i> {
    fn next(&mut self) -> Option<Pair<'i, Rule>> {
        self.inner.by_ref().find(|p| !is_skipped(p.as_rule()))
    }

    /// The next child, which the grammar guarantees.
    fn expect(&mut self, what: &str) -> BuildResult<Pair<'i, Rule>> {
        self.next().ok_or_else(|| Box::new(missing_child(self.parent, self.parent_rule, what)))
    }

    /// The next child if it is of `rule`.
    fn next_if(&mut self, rule: Rule) -> Option<Pair<'i, Rule>> {
        let mut peek = self.inner.clone();
        let next = peek.find(|p| !is_skipped(p.as_rule()))?;
        if next.as_rule() == rule { self.next() } else { None }
    }
}

impl Builder {
    /// The pair's span without trailing whitespace and comments, which pest
    /// includes when a rule ends in an optional part (`random` then `# x`).
    fn span(&self, pair: &Pair<'_, Rule>) -> Span {
        let s = pair.as_span();
        let end = s.start() + trim_trivia(s.as_str()).len();
        Span::new(self.offset + s.start(), self.offset + end)
    }

    fn children<'i>(&self, pair: &Pair<'i, Rule>) -> Children<'i> {
        Children { inner: pair.clone().into_inner(), parent: self.span(pair), parent_rule: pair.as_rule() }
    }

    fn unexpected(&self, pair: &Pair<'_, Rule>, context: &str) -> Box<Diagnostic> {
        Box::new(unexpected(self.span(pair), pair, context))
    }

    pub(super) fn file(&mut self, pair: Pair<'_, Rule>) -> BuildResult<Methodology> {
        let span = self.span(&pair);
        let mut items = Vec::new();
        let mut children = self.children(&pair);
        while let Some(p) = children.next() {
            if p.as_rule() == Rule::EOI {
                break;
            }
            items.push(self.item(p)?);
        }
        Ok(Methodology { items, span })
    }

    fn item(&mut self, pair: Pair<'_, Rule>) -> BuildResult<Item> {
        let span = self.span(&pair);
        let mut c = self.children(&pair);
        let kind = match pair.as_rule() {
            Rule::header => {
                let name = self.string(c.expect("name")?);
                let version = self.string(c.expect("version")?);
                ItemKind::Header { name, version }
            }
            Rule::describe => ItemKind::Describe(self.string(c.expect("text")?)),
            Rule::non_destructive => ItemKind::NonDestructive,
            Rule::on_error => {
                let value = c.expect("action")?;
                let action = match value.as_str() {
                    "stop" => OnError::Stop,
                    "continue" => OnError::Continue,
                    _ => return Err(self.unexpected(&value, "on_error")),
                };
                ItemKind::OnError(Spanned::new(action, self.span(&value)))
            }
            Rule::conventions => {
                let mut conventions = Vec::new();
                while let Some(p) = c.next() {
                    let mut pc = self.children(&p);
                    let value = pc.expect("value")?;
                    let vspan = self.span(&value);
                    let text = value.as_str();
                    let conv = match (p.as_rule(), text) {
                        (Rule::conv_units, "decimal") => {
                            Convention::Units(Spanned::new(Units::Decimal, vspan))
                        }
                        (Rule::conv_units, "binary") => Convention::Units(Spanned::new(Units::Binary, vspan)),
                        (Rule::conv_queue_depth, "total") => {
                            Convention::QueueDepth(Spanned::new(QdCounting::Total, vspan))
                        }
                        (Rule::conv_queue_depth, "per_worker") => {
                            Convention::QueueDepth(Spanned::new(QdCounting::PerWorker, vspan))
                        }
                        (Rule::conv_value, "step_average") => {
                            Convention::Value(Spanned::new(ValueKind::StepAverage, vspan))
                        }
                        (Rule::conv_value, "steady_state_average") => {
                            Convention::Value(Spanned::new(ValueKind::SteadyStateAverage, vspan))
                        }
                        (Rule::conv_value, "peak") => Convention::Value(Spanned::new(ValueKind::Peak, vspan)),
                        _ => return Err(self.unexpected(&p, "conventions")),
                    };
                    conventions.push(conv);
                }
                ItemKind::Conventions(conventions)
            }
            Rule::use_decl => {
                let path = c.expect("module")?;
                if path.as_rule() == Rule::string {
                    ItemKind::UseFile(self.string(path))
                } else {
                    ItemKind::Use(Spanned::new(path.as_str().to_string(), self.span(&path)))
                }
            }
            Rule::workload_def => {
                let name = self.ident(c.expect("name")?);
                let body = self.workload_body(c.expect("body")?)?;
                ItemKind::Workload { name, body }
            }
            Rule::dataset_def => {
                let name = self.ident(c.expect("name")?);
                let mut settings = Vec::new();
                while let Some(p) = c.next() {
                    let key = match p.as_rule() {
                        Rule::d_files => DatasetKey::Files,
                        Rule::d_size => DatasetKey::Size,
                        Rule::d_total => DatasetKey::Total,
                        Rule::d_seed => DatasetKey::Seed,
                        _ => return Err(self.unexpected(&p, "dataset")),
                    };
                    settings.push(self.setting(p, key)?);
                }
                ItemKind::Dataset { name, settings }
            }
            Rule::let_def => {
                let name = self.ident(c.expect("name")?);
                let value = self.expr(c.expect("value")?)?;
                ItemKind::Let { name, value }
            }
            _ => ItemKind::Stmt(self.stmt(pair)?),
        };
        Ok(Item { kind, span })
    }

    /// A `key value` setting; the key token is the first inner pair.
    fn setting<K>(&mut self, pair: Pair<'_, Rule>, key: K) -> BuildResult<Setting<K>> {
        let span = self.span(&pair);
        let mut inner = pair.clone().into_inner();
        let key_pair = inner.next().ok_or_else(|| self.unexpected(&pair, "setting"))?;
        let key_span = self.span(&key_pair);
        let value = inner.next().ok_or_else(|| self.unexpected(&pair, "setting value"))?;
        Ok(Setting { key: Spanned::new(key, key_span), value: self.expr(value)?, span })
    }

    fn block(&mut self, pair: Pair<'_, Rule>) -> BuildResult<Block> {
        let span = self.span(&pair);
        if self.depth >= MAX_DEPTH {
            let open = Span::new(span.start, span.start + 1);
            return Err(Box::new(too_deep(open)));
        }
        self.depth += 1;
        let mut stmts = Vec::new();
        let mut c = self.children(&pair);
        let result = (|| {
            while let Some(p) = c.next() {
                stmts.push(self.stmt(p)?);
            }
            Ok(())
        })();
        self.depth -= 1;
        result.map(|()| Block { stmts, span })
    }

    fn stmt(&mut self, pair: Pair<'_, Rule>) -> BuildResult<Stmt> {
        let span = self.span(&pair);
        let local = self.local(&pair);
        let mut c = self.children(&pair);
        let kind = match pair.as_rule() {
            Rule::phase => {
                let name = self.string(c.expect("name")?);
                StmtKind::Phase { name, body: self.block(c.expect("body")?)? }
            }
            Rule::for_loop => {
                let var = self.ident(c.expect("variable")?);
                let list = self.expr(c.expect("list")?)?;
                StmtKind::For { var, list, body: self.block(c.expect("body")?)? }
            }
            Rule::repeat_block => {
                let count = self.expr(c.expect("count")?)?;
                let until_cv = match c.next_if(Rule::repeat_until) {
                    Some(u) => {
                        let span = self.span(&u);
                        let mut uc = self.children(&u);
                        uc.next_if(Rule::until_cv);
                        Some(Spanned::new(self.expr(uc.expect("cv limit")?)?, span))
                    }
                    None => None,
                };
                let aggregate = match c.next_if(Rule::aggregate) {
                    Some(a) => Some(self.aggregate(&a)?),
                    None => None,
                };
                StmtKind::Repeat { count, until_cv, aggregate, body: self.block(c.expect("body")?)? }
            }
            Rule::rounds_block => {
                let body = self.block(c.expect("body")?)?;
                let rule = self.steady_body(c.expect("steady rule")?)?;
                let name = match c.next() {
                    Some(o) => match self.step_opt(o)?.kind {
                        StepOptKind::As(n) => Some(n),
                        _ => None,
                    },
                    None => None,
                };
                StmtKind::Rounds { body, rule, name }
            }
            Rule::target_block => {
                let mut settings = Vec::new();
                while let Some(p) = c.next() {
                    settings.push(self.target_setting(p)?);
                }
                StmtKind::Target(settings)
            }
            Rule::limit_ram => match c.next() {
                Some(p) => StmtKind::LimitRam(Some(self.expr(p)?)),
                None => StmtKind::LimitRam(None),
            },
            Rule::erase => StmtKind::Erase(self.erase(&mut c)?),
            Rule::fill | Rule::precondition | Rule::sweep | Rule::measure => {
                let workload = self.workload_ref(c.expect("workload")?)?;
                let mut opts = Vec::new();
                while let Some(p) = c.next() {
                    opts.push(self.step_opt(p)?);
                }
                match pair.as_rule() {
                    Rule::fill => StmtKind::Fill { workload, opts },
                    Rule::precondition => StmtKind::Precondition { workload, opts },
                    Rule::sweep => StmtKind::Sweep { workload, opts },
                    _ => StmtKind::Measure { workload, opts },
                }
            }
            Rule::together => self.together(&mut c)?,
            Rule::qos => self.qos(&mut c)?,
            Rule::drop_caches => StmtKind::DropCaches,
            Rule::idle => StmtKind::Idle(self.expr(c.expect("duration")?)?),
            Rule::copy => StmtKind::Copy(self.ident(c.expect("dataset")?)),
            Rule::probe => StmtKind::Probe(self.probe_settings(&mut c)?),
            _ => return Err(self.unexpected(&pair, "a block")),
        };
        Ok(Stmt { kind, span, local })
    }

    /// `erase METHOD [OPTION]`: the method its words name, spanning both.
    fn erase(&mut self, c: &mut Children<'_>) -> BuildResult<Spanned<EraseMethod>> {
        let m = c.expect("method")?;
        let option = c.next();
        let mut span = self.span(&m);
        if let Some(o) = &option {
            span = Span::new(span.start, self.span(o).end);
        }
        let option = option.as_ref().map(|o| o.as_str());
        let method = EraseMethod::from_words(m.as_str(), option)
            .map_err(|why| Box::new(bad_erase(span, m.as_str(), option, why)))?;
        Ok(Spanned::new(method, span))
    }

    /// `together for 2min { job reads rnd4k_read qd 4; ... }`: its jobs and
    /// its own options.
    fn together(&mut self, c: &mut Children<'_>) -> BuildResult<StmtKind> {
        let mut opts = Vec::new();
        let mut jobs = Vec::new();
        while let Some(p) = c.next() {
            if p.as_rule() == Rule::job {
                let jspan = self.span(&p);
                let mut jc = self.children(&p);
                let name = self.ident(jc.expect("job name")?);
                let workload = self.workload_ref(jc.expect("workload")?)?;
                let mut jopts = Vec::new();
                while let Some(o) = jc.next() {
                    jopts.push(self.step_opt(o)?);
                }
                jobs.push(JobDef { name, workload, opts: jopts, span: jspan });
            } else {
                opts.push(self.step_opt(p)?);
            }
        }
        Ok(StmtKind::Together { opts, jobs })
    }

    /// `qos rnd4k_read qd 32 { p99.99 under 1ms; probe 30s; ... }`.
    fn qos(&mut self, c: &mut Children<'_>) -> BuildResult<StmtKind> {
        let workload = self.workload_ref(c.expect("workload")?)?;
        let qd = self.step_opt(c.expect("queue depth")?)?;
        let mut settings = Vec::new();
        while let Some(p) = c.next() {
            let pspan = self.span(&p);
            let rule = p.as_rule();
            let mut pc = self.children(&p);
            let v = pc.expect("value")?;
            let kind = match rule {
                Rule::q_limit => {
                    let percentile = self.percentile(&v)?;
                    let limit = self.fine_duration(&pc.expect("latency")?)?;
                    QosSettingKind::Limit { percentile, under: limit }
                }
                Rule::q_probe => QosSettingKind::Probe(self.expr(v)?),
                Rule::q_ramp => QosSettingKind::Ramp(self.expr(v)?),
                Rule::q_precision => QosSettingKind::Precision(self.expr(v)?),
                Rule::q_arrivals => QosSettingKind::Arrivals(self.arrivals(&v)),
                Rule::q_by => QosSettingKind::By(self.qos_axis(&v)),
                _ => return Err(self.unexpected(&p, "qos")),
            };
            settings.push(QosSetting { kind, span: pspan });
        }
        Ok(StmtKind::Qos { workload, qd, settings })
    }

    /// `probe pages { io 512B; step 256B; range 4MiB }`: its settings.
    fn probe_settings(&mut self, c: &mut Children<'_>) -> BuildResult<Vec<ProbeSetting>> {
        let mut settings = Vec::new();
        while let Some(p) = c.next() {
            let pspan = self.span(&p);
            let rule = p.as_rule();
            let mut pc = self.children(&p);
            let v = pc.expect("value")?;
            let kind = match rule {
                Rule::p_io => ProbeSettingKind::Io(self.expr(v)?),
                Rule::p_step => ProbeSettingKind::Step(self.expr(v)?),
                Rule::p_range => ProbeSettingKind::Range(self.expr(v)?),
                Rule::p_repeats => ProbeSettingKind::Repeats(self.expr(v)?),
                Rule::p_statistic => ProbeSettingKind::Statistic(self.aggregate(&v)?),
                _ => return Err(self.unexpected(&p, "probe")),
            };
            settings.push(ProbeSetting { kind, span: pspan });
        }
        Ok(settings)
    }

    /// Where a statement's `local` was written. Steps whose options come
    /// in any order may repeat it: the second is reported, as a repeated
    /// option is, and the first stands.
    fn local(&mut self, pair: &Pair<'_, Rule>) -> Option<Span> {
        let spans: Vec<Span> =
            pair.clone().into_inner().filter(|p| is_local(p.as_rule())).map(|p| self.span(&p)).collect();
        let (&first, again) = spans.split_first()?;
        for &again in again {
            self.diags.push(
                Diagnostic::new(crate::diagnostic::Code::DuplicateSetting, again, "`local` is given twice")
                    .with_secondary(first, "first given here")
                    .with_hint("keep one of them"),
            );
        }
        Some(first)
    }

    fn target_setting(&mut self, pair: Pair<'_, Rule>) -> BuildResult<TargetSetting> {
        let span = self.span(&pair);
        let mut c = self.children(&pair);
        let v = c.expect("value")?;
        let kind = match pair.as_rule() {
            Rule::t_span => TargetSettingKind::Span(self.expr(v)?),
            Rule::t_workers => TargetSettingKind::Workers(self.expr(v)?),
            Rule::t_devices => TargetSettingKind::Devices(self.expr(v)?),
            Rule::t_io => {
                let mode = match v.as_str() {
                    "direct" => IoMode::Direct,
                    "buffered" => IoMode::Buffered,
                    _ => return Err(self.unexpected(&v, "io")),
                };
                TargetSettingKind::Io(Spanned::new(mode, self.span(&v)))
            }
            Rule::t_write_cache => {
                let mode = match v.as_str() {
                    "off" => WriteCache::Off,
                    "on" => WriteCache::On,
                    "as_is" => WriteCache::AsIs,
                    _ => return Err(self.unexpected(&v, "write_cache")),
                };
                TargetSettingKind::WriteCache(Spanned::new(mode, self.span(&v)))
            }
            Rule::t_data => TargetSettingKind::Data(match v.as_rule() {
                Rule::data_random => DataPatternExpr::Random,
                Rule::data_zeros => DataPatternExpr::Zeros,
                Rule::data_compressible => {
                    let mut vc = self.children(&v);
                    DataPatternExpr::Compressible(self.expr(vc.expect("share")?)?)
                }
                _ => return Err(self.unexpected(&v, "data")),
            }),
            _ => return Err(self.unexpected(&pair, "target")),
        };
        Ok(TargetSetting { kind, span })
    }

    fn step_opt(&mut self, pair: Pair<'_, Rule>) -> BuildResult<StepOpt> {
        let span = self.span(&pair);
        let mut c = self.children(&pair);
        let kind = match pair.as_rule() {
            Rule::opt_steady => match c.next() {
                Some(body) => StepOptKind::Steady(Some(self.steady_body(body)?)),
                None => StepOptKind::Steady(None),
            },
            Rule::opt_think => {
                let pause = self.fine_duration(&c.expect("pause")?)?;
                let (mut every, mut drained) = (None, false);
                while let Some(next) = c.next() {
                    if next.as_rule() == Rule::think_drained {
                        drained = true;
                    } else {
                        every = Some(self.expr(next)?);
                    }
                }
                StepOptKind::Think { pause, every, drained }
            }
            Rule::opt_bursts => {
                let on = self.expr(c.expect("burst")?)?;
                let every = self.expr(c.expect("period")?)?;
                let times = match c.next() {
                    Some(t) if t.as_rule() == Rule::bursts_times => Some(self.expr(c.expect("count")?)?),
                    _ => None,
                };
                StepOptKind::Bursts { on, every, times }
            }
            Rule::opt_verify => StepOptKind::Verify,
            Rule::opt_at => {
                let first = c.expect("point")?;
                let pick = match first.as_str() {
                    "max" => PickExpr::Max,
                    "mid" => PickExpr::Mid,
                    _ => PickExpr::Min,
                };
                let pick = Spanned::new(pick, self.span(&first));
                let of = self.ident(c.expect("measurement")?);
                let under = match c.next() {
                    Some(d) => Some(self.fine_duration(&d)?),
                    None => None,
                };
                StepOptKind::At { pick, of, under }
            }
            Rule::opt_rate => {
                let first = c.expect("rate")?;
                let (amount, unit) = if first.as_rule() == Rule::rate_share {
                    let mut sc = self.children(&first);
                    let share = self.expr(sc.expect("share")?)?;
                    (share, RateUnit::Of(self.ident(sc.expect("measurement")?)))
                } else {
                    let amount = self.expr(first)?;
                    let unit = match c.expect("unit")?.as_str() {
                        "iops" => RateUnit::Iops,
                        _ => RateUnit::PerSecond,
                    };
                    (amount, unit)
                };
                let arrivals = c.next().map(|a| self.arrivals(&a));
                StepOptKind::Rate { amount, unit, arrivals }
            }
            rule => {
                let v = self.expr(c.expect("value")?)?;
                match rule {
                    Rule::opt_passes => StepOptKind::Passes(v),
                    Rule::opt_qd => StepOptKind::Qd(v),
                    Rule::opt_read => StepOptKind::Read(v),
                    Rule::opt_ramp => StepOptKind::Ramp(v),
                    Rule::opt_record => StepOptKind::Record(v),
                    Rule::opt_series => StepOptKind::Series(v),
                    Rule::opt_for => StepOptKind::For(v),
                    Rule::opt_written => StepOptKind::Written(v),
                    Rule::opt_transferred => StepOptKind::Transferred(v),
                    Rule::opt_workers => StepOptKind::Workers(v),
                    Rule::opt_device => StepOptKind::Device(v),
                    Rule::opt_as => match v.kind {
                        ExprKind::Ident(name) => StepOptKind::As(Spanned::new(name, v.span)),
                        _ => return Err(self.unexpected(&pair, "`as`")),
                    },
                    _ => return Err(self.unexpected(&pair, "step options")),
                }
            }
        };
        Ok(StepOpt { kind, span })
    }

    /// `uniform` or `poisson` (the grammar's `arrivals` allows no other).
    fn arrivals(&self, pair: &Pair<'_, Rule>) -> Spanned<Arrivals> {
        let kind = if pair.as_str() == "poisson" { Arrivals::Poisson } else { Arrivals::Uniform };
        Spanned::new(kind, self.span(pair))
    }

    /// `qd` or `rate` (the grammar's `qos_axis` allows no other).
    fn qos_axis(&self, pair: &Pair<'_, Rule>) -> Spanned<QosAxis> {
        let kind = if pair.as_str() == "qd" { QosAxis::Qd } else { QosAxis::Rate };
        Spanned::new(kind, self.span(pair))
    }

    /// `p99.99` as parts per million (999,900): above 0 and below 100%.
    fn percentile(&mut self, pair: &Pair<'_, Rule>) -> BuildResult<Spanned<u32>> {
        let span = self.span(pair);
        let digits = &pair.as_str()[1..];
        let ppm = digits.parse::<f64>().ok().map(|p| (p * 10_000.0).round()).filter(|p| *p > 0.0 && *p < 1e6);
        match ppm {
            Some(ppm) if ((ppm / 10_000.0) - digits.parse::<f64>().unwrap_or(0.0)).abs() < 1e-9 => {
                Ok(Spanned::new(ppm as u32, span))
            }
            _ => Err(Box::new(
                Diagnostic::new(
                    crate::diagnostic::Code::Syntax,
                    span,
                    format!("`{}` is not a percentile methodic can count", pair.as_str()),
                )
                .with_hint(
                    "a percentile above p0 and below p100, to four decimals: p50, p99, p99.99, p99.9999",
                ),
            )),
        }
    }

    /// `500us`, `1ms`, `1.5ms`, `2s` as nanoseconds.
    fn fine_duration(&mut self, pair: &Pair<'_, Rule>) -> BuildResult<Spanned<u64>> {
        let span = self.span(pair);
        let text = pair.as_str();
        let at = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
        let (number, unit) = text.split_at(at);
        let scale = match unit {
            "ns" => 1.0,
            "us" | "µs" => 1e3,
            "ms" => 1e6,
            _ => 1e9,
        };
        match number.parse::<f64>().ok().map(|n| n * scale).filter(|ns| *ns >= 1.0 && ns.fract() == 0.0) {
            Some(ns) => Ok(Spanned::new(ns as u64, span)),
            None => Err(Box::new(
                Diagnostic::new(
                    crate::diagnostic::Code::Syntax,
                    span,
                    format!("`{text}` is not a latency limit"),
                )
                .with_hint("a whole number of nanoseconds or more, such as `500us` or `1ms`"),
            )),
        }
    }

    fn steady_body(&mut self, pair: Pair<'_, Rule>) -> BuildResult<Vec<SteadySetting>> {
        let mut settings = Vec::new();
        let mut c = self.children(&pair);
        while let Some(p) = c.next() {
            let span = self.span(&p);
            let rule = p.as_rule();
            let mut pc = self.children(&p);
            let v = pc.expect("value")?;
            let kind = match rule {
                Rule::s_round => SteadySettingKind::Round(self.expr(v)?),
                Rule::s_window => SteadySettingKind::Window(self.expr(v)?),
                Rule::s_excursion => SteadySettingKind::Excursion(self.expr(v)?),
                Rule::s_slope => SteadySettingKind::Slope(self.expr(v)?),
                Rule::s_max_rounds => SteadySettingKind::MaxRounds(self.expr(v)?),
                Rule::s_metric => {
                    let metric = match v.as_str() {
                        "iops" => Metric::Iops,
                        "bandwidth" => Metric::Bandwidth,
                        "latency" => Metric::Latency,
                        _ => return Err(self.unexpected(&v, "metric")),
                    };
                    SteadySettingKind::Metric(Spanned::new(metric, self.span(&v)))
                }
                Rule::s_track => {
                    let workload = self.workload_ref(v)?;
                    let mut opts = Vec::new();
                    while let Some(o) = pc.next() {
                        opts.push(self.step_opt(o)?);
                    }
                    SteadySettingKind::Track { workload, opts }
                }
                _ => return Err(self.unexpected(&p, "steady rule")),
            };
            settings.push(SteadySetting { kind, span });
        }
        Ok(settings)
    }

    fn aggregate(&mut self, pair: &Pair<'_, Rule>) -> BuildResult<Spanned<Aggregate>> {
        let a = match pair.as_str() {
            "mean" => Aggregate::Mean,
            "median" => Aggregate::Median,
            "max" => Aggregate::Max,
            "min" => Aggregate::Min,
            _ => return Err(self.unexpected(pair, "aggregate")),
        };
        Ok(Spanned::new(a, self.span(pair)))
    }

    fn workload_ref(&mut self, pair: Pair<'_, Rule>) -> BuildResult<WorkloadRef> {
        match pair.as_rule() {
            Rule::ident => Ok(WorkloadRef::Named(self.ident(pair))),
            Rule::workload_body => Ok(WorkloadRef::Inline(self.workload_body(pair)?)),
            _ => Err(self.unexpected(&pair, "a workload")),
        }
    }

    fn workload_body(&mut self, pair: Pair<'_, Rule>) -> BuildResult<WorkloadBody> {
        let span = self.span(&pair);
        let mut props = Vec::new();
        let mut c = self.children(&pair);
        while let Some(p) = c.next() {
            let pspan = self.span(&p);
            let rule = p.as_rule();
            let mut pc = self.children(&p);
            let kind = match rule {
                Rule::w_random => {
                    let (mut share, mut access) = (None, None);
                    while let Some(v) = pc.next() {
                        match v.as_rule() {
                            Rule::a_zipf | Rule::a_pareto | Rule::a_normal | Rule::a_bands => {
                                access = Some(self.access(v)?)
                            }
                            _ => share = Some(self.expr(v)?),
                        }
                    }
                    WorkloadPropKind::Random(share, access)
                }
                Rule::w_trim => WorkloadPropKind::Trim(self.expr(pc.expect("share")?)?),
                Rule::w_sequential => WorkloadPropKind::Sequential,
                Rule::w_block => WorkloadPropKind::Block(self.expr(pc.expect("size")?)?),
                Rule::w_write_block => WorkloadPropKind::WriteBlock(self.expr(pc.expect("size")?)?),
                Rule::w_blocks | Rule::w_write_blocks => {
                    let writes = rule == Rule::w_write_blocks;
                    let mut entries = Vec::new();
                    while let Some(e) = pc.next() {
                        let espan = self.span(&e);
                        let mut ec = self.children(&e);
                        let size = self.expr(ec.expect("size")?)?;
                        let share = self.expr(ec.expect("share")?)?;
                        entries.push(SplitEntry { size, share, span: espan });
                    }
                    if writes {
                        WorkloadPropKind::WriteBlocks(entries)
                    } else {
                        WorkloadPropKind::Blocks(entries)
                    }
                }
                Rule::w_read => WorkloadPropKind::Read(self.expr(pc.expect("share")?)?),
                Rule::w_align => WorkloadPropKind::Align(self.expr(pc.expect("size")?)?),
                Rule::w_offset => WorkloadPropKind::Offset(self.expr(pc.expect("size")?)?),
                _ => return Err(self.unexpected(&p, "a workload")),
            };
            props.push(WorkloadProp { kind, span: pspan });
        }
        Ok(WorkloadBody { props, span })
    }

    /// `zipf 1.2`, `pareto 0.9`, `normal 5% around 50%`, `bands 50% in 5%, ...`.
    fn access(&mut self, pair: Pair<'_, Rule>) -> BuildResult<AccessExpr> {
        let span = self.span(&pair);
        let rule = pair.as_rule();
        let mut c = self.children(&pair);
        // The distribution's word (`zipf`, ...) comes first.
        c.expect("distribution")?;
        let kind = match rule {
            Rule::a_zipf => AccessKind::Zipf(self.decimal(&c.expect("exponent")?)?),
            Rule::a_pareto => AccessKind::Pareto(self.decimal(&c.expect("shape")?)?),
            Rule::a_normal => {
                let sigma = self.expr(c.expect("deviation")?)?;
                let around = match c.next() {
                    Some(_around) => Some(self.expr(c.expect("centre")?)?),
                    None => None,
                };
                AccessKind::Normal { sigma, around }
            }
            _ => {
                let mut bands = Vec::new();
                while let Some(b) = c.next() {
                    let bspan = self.span(&b);
                    let mut bc = self.children(&b);
                    let io = self.expr(bc.expect("share of I/O")?)?;
                    let within = self.expr(bc.expect("share of the span")?)?;
                    bands.push(BandExpr { io, within, span: bspan });
                }
                AccessKind::Bands(bands)
            }
        };
        Ok(AccessExpr { kind, span })
    }

    /// `1.2` in thousandths (1200); more than three decimals is an error.
    fn decimal(&mut self, pair: &Pair<'_, Rule>) -> BuildResult<Spanned<u32>> {
        let span = self.span(pair);
        let text = pair.as_str();
        let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
        let value = if frac.len() > 3 {
            None
        } else {
            let frac: u32 = format!("{frac:0<3}").parse().unwrap_or(0);
            whole.parse::<u32>().ok().and_then(|w| w.checked_mul(1000)).and_then(|w| w.checked_add(frac))
        };
        match value {
            Some(v) => Ok(Spanned::new(v, span)),
            None => Err(Box::new(
                Diagnostic::new(
                    crate::Code::TooPrecise,
                    span,
                    format!("`{text}` has more than three decimals"),
                )
                .with_hint("write the parameter to at most three decimals, such as 1.2 or 0.95"),
            )),
        }
    }

    fn expr(&mut self, pair: Pair<'_, Rule>) -> BuildResult<Expr> {
        let span = self.span(&pair);
        let kind = match pair.as_rule() {
            Rule::quantity => self.quantity(&pair),
            Rule::ident => ExprKind::Ident(pair.as_str().to_string()),
            Rule::list => {
                let mut items = Vec::new();
                let mut c = self.children(&pair);
                while let Some(p) = c.next() {
                    items.push(self.expr(p)?);
                }
                ExprKind::List(items)
            }
            Rule::range => {
                let mut c = self.children(&pair);
                let from = Box::new(self.expr(c.expect("start")?)?);
                let to = Box::new(self.expr(c.expect("end")?)?);
                let step = match c.next() {
                    None => None,
                    Some(p) if p.as_rule() == Rule::ratio => {
                        let text = &p.as_str()[1..];
                        let factor = match text.parse::<u64>() {
                            Ok(f) => f,
                            Err(_) => {
                                self.diags.push(factor_too_large(self.span(&p), p.as_str()));
                                2
                            }
                        };
                        Some(RangeStep::Mul(Spanned::new(factor, self.span(&p))))
                    }
                    Some(p) => Some(RangeStep::Add(Box::new(self.expr(p)?))),
                };
                ExprKind::Range { from, to, step }
            }
            _ => return Err(self.unexpected(&pair, "a value")),
        };
        Ok(Expr { kind, span })
    }

    /// Reads a quantity literal; a bad one is reported and stands as 0.
    fn quantity(&mut self, pair: &Pair<'_, Rule>) -> ExprKind {
        let text = pair.as_str();
        let span = self.span(pair);
        match parse_quantity(text) {
            Ok(Quantity::Int(n)) => ExprKind::Int(n),
            Ok(Quantity::Size(b)) => ExprKind::Size(b),
            Ok(Quantity::Duration(d)) => ExprKind::Duration(d),
            Ok(Quantity::Percent(p)) => ExprKind::Percent(p),
            Err(e) => {
                let d = bad_quantity(span, text, e);
                self.diags.push(d);
                ExprKind::Int(0)
            }
        }
    }

    fn ident(&mut self, pair: Pair<'_, Rule>) -> Spanned<String> {
        Spanned::new(pair.as_str().to_string(), self.span(&pair))
    }

    /// A string's text with escapes resolved.
    fn string(&mut self, pair: Pair<'_, Rule>) -> Spanned<String> {
        let span = self.span(&pair);
        let raw = pair.as_str();
        let inner = raw.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(raw);
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.char_indices();
        while let Some((i, c)) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some((_, '"')) => out.push('"'),
                Some((_, '\\')) => out.push('\\'),
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((j, other)) => {
                    let at = span.start + 1 + i;
                    self.diags.push(bad_escape(Span::new(at, span.start + 1 + j + other.len_utf8()), other));
                }
                None => {}
            }
        }
        Spanned::new(out, span)
    }
}
