//! The expression evaluator: an expression and the variables in scope go
//! in, a value with the span it came from comes out (lets, loop variables,
//! ranges, lists, workload and dataset names); the typed readers
//! (`expect::<Bytes>`, `expect_nonzero_duration`, ...) report a value of
//! the wrong kind or out of range.

use super::*;

/// A kind of value a setting takes, as [`Lowerer::expect`] reads it: the
/// value of this kind, and what a value of another kind is told.
pub(super) trait Kind: Sized {
    /// The code of a value of another kind.
    const CODE: Code;
    /// What is expected, in words: `a duration such as 30s or 5min`.
    const EXPECTED: &'static str;
    /// The value as this kind, if it is of it.
    fn of(value: &Value) -> Option<Self>;
    /// The hint for a bare number where this kind is expected: most
    /// likely a unit left out.
    fn bare_number_hint(_n: u64) -> Option<String> {
        None
    }
}

impl Kind for Duration {
    const CODE: Code = Code::ExpectedDuration;
    const EXPECTED: &'static str = "a duration such as 30s or 5min";
    fn of(value: &Value) -> Option<Self> {
        match value {
            Value::Duration(d) => Some(*d),
            _ => None,
        }
    }
    fn bare_number_hint(n: u64) -> Option<String> {
        Some(format!("add a unit: {n}s, {n}min or {n}h"))
    }
}

impl Kind for Bytes {
    const CODE: Code = Code::ExpectedSize;
    const EXPECTED: &'static str = "a size such as 4KiB or 16GB";
    fn of(value: &Value) -> Option<Self> {
        match value {
            Value::Size(b) => Some(*b),
            _ => None,
        }
    }
    fn bare_number_hint(n: u64) -> Option<String> {
        Some(format!("add a unit: {n}B for bytes, or a larger unit such as {n}KiB or {n}GB"))
    }
}

impl Kind for Percent {
    const CODE: Code = Code::ExpectedPercent;
    const EXPECTED: &'static str = "a share such as 67%";
    fn of(value: &Value) -> Option<Self> {
        match value {
            Value::Percent(p) => Some(*p),
            _ => None,
        }
    }
    fn bare_number_hint(n: u64) -> Option<String> {
        Some(format!("write {n}%"))
    }
}

/// A count: a whole number.
impl Kind for u64 {
    const CODE: Code = Code::ExpectedCount;
    const EXPECTED: &'static str = "a whole number";
    fn of(value: &Value) -> Option<Self> {
        match value {
            Value::Int(n) => Some(*n),
            _ => None,
        }
    }
}

/// A span or an amount: a share of the target or a size.
impl Kind for Extent {
    const CODE: Code = Code::ExpectedSpan;
    const EXPECTED: &'static str = "a share such as 100% or a size such as 16GiB";
    fn of(value: &Value) -> Option<Self> {
        match value {
            Value::Percent(p) => Some(Extent::Percent(*p)),
            Value::Size(b) => Some(Extent::Bytes(*b)),
            _ => None,
        }
    }
    fn bare_number_hint(n: u64) -> Option<String> {
        Some(format!("write {n}% for a share of the target, or a size such as {n}GiB"))
    }
}

/// How a range goes from one value to the next.
enum Next {
    Add(u64),
    Mul(u64),
}

/// A value as the whole number a range counts in (bytes, milliseconds,
/// hundredths of a percent); `None` for a value a range cannot count over.
fn counted(v: &Value) -> Option<u64> {
    match v {
        Value::Int(n) => Some(*n),
        Value::Size(b) => Some(b.0),
        Value::Duration(d) => Some(d.as_millis()),
        Value::Percent(p) => Some(p.hundredths() as u64),
        _ => None,
    }
}

impl Lowerer<'_, '_> {
    pub(super) fn eval(&mut self, e: &Expr, vars: &[(String, Val)]) -> Option<Val> {
        let value = match &e.kind {
            ExprKind::Int(n) => Value::Int(*n),
            ExprKind::Size(b) => Value::Size(*b),
            ExprKind::Duration(d) => Value::Duration(*d),
            ExprKind::Percent(p) => Value::Percent(*p),
            ExprKind::Ident(name) => return self.lookup(name, e.span, vars),
            ExprKind::List(items) => {
                let mut out: Vec<Val> = Vec::with_capacity(items.len());
                for item in items {
                    let v = self.eval(item, vars)?;
                    if let Value::List(_) = v.value {
                        let d =
                            Diagnostic::new(Code::ExpectedList, item.span, "a list cannot hold another list")
                                .with_hint("write the values in one list");
                        self.error(d);
                        return None;
                    }
                    if let Some(first) = out.first()
                        && kind_name(&v.value) != kind_name(&first.value)
                    {
                        let d = Diagnostic::new(
                            Code::MixedList,
                            item.span,
                            format!(
                                "this list mixes {} and {}",
                                plural(kind_name(&first.value)),
                                plural(kind_name(&v.value))
                            ),
                        )
                        .with_secondary(first.span, "the list starts with this")
                        .with_hint("a list holds values of one kind");
                        self.error(d);
                        return None;
                    }
                    out.push(v);
                }
                Value::List(out)
            }
            ExprKind::Range { from, to, step } => {
                return self.range(from, to, step.as_ref(), e.span, vars);
            }
        };
        Some(Val { value, span: e.span })
    }

    pub(super) fn lookup(&mut self, name: &str, span: Span, vars: &[(String, Val)]) -> Option<Val> {
        if let Some((_, v)) = vars.iter().rev().find(|(n, _)| n == name) {
            return Some(v.clone());
        }
        let Some(def) = self.defs.names.get(name).copied() else {
            let mut candidates: Vec<&str> = vars.iter().map(|(n, _)| n.as_str()).collect();
            candidates.extend(self.defs.names.keys().map(String::as_str));
            let mut d = Diagnostic::new(Code::UnknownName, span, format!("`{name}` is not defined"));
            let std_mix = stdlib::mixes()
                .items
                .iter()
                .any(|i| matches!(&i.kind, ItemKind::Workload { name: n, .. } if n.node == name));
            if std_mix && !self.defs.uses.iter().any(|u| u == "std.mixes") {
                d = d.with_hint(format!("`{name}` is a standard mix: add `use std.mixes` to bring it in"));
            } else if let Some(s) = did_you_mean(name, candidates.iter().copied()) {
                d = d.with_hint(format!("did you mean `{s}`?"));
            } else if is_reserved(name) {
                d = d.with_hint(format!("`{name}` is a keyword"));
            } else {
                d = d.with_hint("define it with `workload`, `dataset` or `let`");
            }
            self.error(d);
            return None;
        };
        self.used.insert(name.to_string());
        match def {
            Def::Let { value, .. } => {
                if let Some(cached) = self.lets.get(name) {
                    return cached.clone();
                }
                if self.evaluating.iter().any(|n| n == name) {
                    let d = Diagnostic::new(
                        Code::CyclicLet,
                        span,
                        format!("`{name}` is defined in terms of itself"),
                    )
                    .with_secondary(def.name_span(), "defined here")
                    .with_hint("give the variable a value that does not refer back to it");
                    self.error(d);
                    return None;
                }
                self.evaluating.push(name.to_string());
                let v = self.eval(value, &[]);
                self.evaluating.pop();
                self.lets.insert(name.to_string(), v.clone());
                v
            }
            Def::Workload { body, from_std, .. } => {
                if let Some(cached) = self.workloads.get(name) {
                    return cached.clone().map(|w| Val { value: Value::Workload(w), span });
                }
                let w = self.workload_body(Some(name), body, &[], from_std).map(Rc::new);
                self.workloads.insert(name.to_string(), w.clone());
                w.map(|w| Val { value: Value::Workload(w), span })
            }
            Def::Dataset { settings, span: def_span, .. } => {
                if let Some(cached) = self.datasets.get(name) {
                    return cached.clone().map(|d| Val { value: Value::Dataset(d), span });
                }
                let d = self.dataset(name, settings, def_span).map(Rc::new);
                self.datasets.insert(name.to_string(), d.clone());
                d.map(|d| Val { value: Value::Dataset(d), span })
            }
        }
    }

    /// `from..to step s`: every value from `from` up to `to`, adding or
    /// multiplying by the step.
    pub(super) fn range(
        &mut self,
        from: &Expr,
        to: &Expr,
        step: Option<&RangeStep>,
        span: Span,
        vars: &[(String, Val)],
    ) -> Option<Val> {
        let a = self.eval(from, vars)?;
        let b = self.eval(to, vars)?;
        let (lo, hi) = self.range_bounds(&a, &b, span)?;
        let next = self.range_step(step, &a, lo, from.span, span, vars)?;
        const MAX_VALUES: usize = 1_000_000;
        let mut values = Vec::new();
        let mut x = lo;
        loop {
            if values.len() >= MAX_VALUES {
                let d = Diagnostic::new(
                    Code::BadRange,
                    span,
                    format!("this range has more than {MAX_VALUES} values"),
                )
                .with_hint("use a larger step");
                self.error(d);
                return None;
            }
            let value = match a.value {
                Value::Int(_) => Value::Int(x),
                Value::Size(_) => Value::Size(Bytes(x)),
                Value::Duration(_) => Value::Duration(Duration::from_millis(x)),
                _ => Value::Percent(Percent::from_hundredths(x.min(u32::MAX as u64) as u32)),
            };
            values.push(Val { value, span });
            let n = match next {
                Next::Add(s) => x.checked_add(s),
                Next::Mul(f) => x.checked_mul(f),
            };
            match n {
                Some(n) if n <= hi => x = n,
                _ => break,
            }
        }
        Some(Val { value: Value::List(values), span })
    }

    /// A range's ends as the numbers it counts in: of one kind that a
    /// range counts over, the first no larger than the last.
    fn range_bounds(&mut self, a: &Val, b: &Val, span: Span) -> Option<(u64, u64)> {
        let (Some(lo), Some(hi)) = (counted(&a.value), counted(&b.value)) else {
            let d = Diagnostic::new(
                Code::BadRange,
                span,
                "a range runs between numbers, sizes, durations or shares",
            )
            .with_hint("write a range such as `1..256 step x2` or `0%..100% step 10%`");
            self.error(d);
            return None;
        };
        if kind_name(&a.value) != kind_name(&b.value) {
            let d = Diagnostic::new(
                Code::BadRange,
                span,
                format!("this range runs from {} to {}", describe(&a.value), describe(&b.value)),
            )
            .with_hint("both ends of a range are of one kind: `1..256`, `0%..100%`");
            self.error(d);
            return None;
        }
        if lo > hi {
            let d = Diagnostic::new(
                Code::BadRange,
                span,
                format!("this range counts down from {} to {}", show(&a.value), show(&b.value)),
            )
            .with_hint(format!("ranges count up: `{}..{}`", show(&b.value), show(&a.value)));
            self.error(d);
            return None;
        }
        Some((lo, hi))
    }

    /// How a range from `a` (`lo` as counted, written at `from`) steps: by
    /// 1 for numbers unless given; a factor of 2 or more from above zero;
    /// or more than zero of `a`'s kind.
    fn range_step(
        &mut self,
        step: Option<&RangeStep>,
        a: &Val,
        lo: u64,
        from: Span,
        span: Span,
        vars: &[(String, Val)],
    ) -> Option<Next> {
        match step {
            None if matches!(a.value, Value::Int(_)) => Some(Next::Add(1)),
            None => {
                let d = Diagnostic::new(
                    Code::BadRange,
                    span,
                    format!("a range of {} needs a step", plural(kind_name(&a.value))),
                )
                .with_hint("add one, such as `step 10%` or `step x2`");
                self.error(d);
                None
            }
            Some(RangeStep::Mul(f)) => {
                if f.node < 2 {
                    let d =
                        Diagnostic::new(Code::BadRange, f.span, format!("`step x{}` never grows", f.node))
                            .with_hint("multiply by 2 or more: `step x2`");
                    self.error(d);
                    return None;
                }
                if lo == 0 {
                    let d =
                        Diagnostic::new(Code::BadRange, from, "a range from 0 cannot grow by multiplying")
                            .with_hint("start at 1: `1..256 step x2`");
                    self.error(d);
                    return None;
                }
                Some(Next::Mul(f.node))
            }
            Some(RangeStep::Add(e)) => {
                let s = self.eval(e, vars)?;
                if kind_name(&s.value) != kind_name(&a.value) {
                    let d = Diagnostic::new(
                        Code::BadRange,
                        e.span,
                        format!(
                            "a range of {} cannot step by {}",
                            plural(kind_name(&a.value)),
                            describe(&s.value)
                        ),
                    )
                    .with_hint(format!(
                        "step by {} such as `{}`",
                        article(kind_name(&a.value)),
                        show(&a.value)
                    ));
                    self.error(d);
                    return None;
                }
                match counted(&s.value) {
                    Some(0) | None => {
                        let d = Diagnostic::new(Code::BadRange, e.span, "a step of zero never ends")
                            .with_hint("step by more than zero");
                        self.error(d);
                        None
                    }
                    Some(n) => Some(Next::Add(n)),
                }
            }
        }
    }

    // ------------------------------------------------------------ typed values

    /// One value of kind `K` for `what` (`` `ramp` ``), with its span; a
    /// value of another kind is reported in `K`'s words.
    pub(super) fn expect<K: Kind>(
        &mut self,
        e: &Expr,
        vars: &[(String, Val)],
        what: &str,
    ) -> Option<(K, Span)> {
        let v = self.scalar(e, vars, what)?;
        if let Some(x) = K::of(&v.value) {
            return Some((x, v.span));
        }
        let mut d = expected(K::CODE, K::EXPECTED, what, &v);
        let hint = match v.value {
            Value::Int(n) => K::bare_number_hint(n),
            _ => None,
        };
        if let Some(hint) = hint {
            d = d.with_hint(hint);
        }
        self.error(d);
        None
    }

    /// A duration of more than zero: a time the step records, a round.
    pub(super) fn expect_nonzero_duration(
        &mut self,
        e: &Expr,
        vars: &[(String, Val)],
        what: &str,
    ) -> Option<(Duration, Span)> {
        let (d, span) = self.expect::<Duration>(e, vars, what)?;
        if d.is_zero() {
            let diag = Diagnostic::new(Code::ZeroDuration, span, format!("{what} of zero lets no time pass"))
                .with_hint("give a duration of more than zero, such as 30s");
            self.error(diag);
            return None;
        }
        Some((d, span))
    }

    /// A whole number that fits a u32 (counts of workers, rounds, passes).
    pub(super) fn expect_u32(&mut self, e: &Expr, vars: &[(String, Val)], what: &str) -> Option<(u32, Span)> {
        let (n, span) = self.expect::<u64>(e, vars, what)?;
        match u32::try_from(n) {
            Ok(n) => Some((n, span)),
            Err(_) => {
                self.error(Diagnostic::new(Code::TooLarge, span, format!("{n} is too large for {what}")));
                None
            }
        }
    }

    /// One value, not a list.
    pub(super) fn scalar(&mut self, e: &Expr, vars: &[(String, Val)], what: &str) -> Option<Val> {
        let v = self.eval(e, vars)?;
        if let Value::List(items) = &v.value {
            let d = Diagnostic::new(
                Code::ExpectedList,
                e.span,
                format!("expected one value for {what}, found a list of {} values", items.len()),
            )
            .with_hint("give a single value here");
            self.error(d);
            return None;
        }
        Some(v)
    }

    /// A list, or one value standing for a list of one.
    pub(super) fn expect_values(&mut self, e: &Expr, vars: &[(String, Val)], what: &str) -> Option<Vec<Val>> {
        let v = self.eval(e, vars)?;
        match v.value {
            Value::List(items) if items.is_empty() => {
                let d = Diagnostic::new(Code::EmptyList, e.span, format!("{what} has an empty list"))
                    .with_hint("list at least one value");
                self.error(d);
                None
            }
            Value::List(items) => Some(items),
            _ => Some(vec![v]),
        }
    }

    /// A list for `for`: a single value is refused, as it is most likely a
    /// mistake.
    pub(super) fn expect_list(&mut self, e: &Expr, vars: &[(String, Val)], what: &str) -> Option<Vec<Val>> {
        let v = self.eval(e, vars)?;
        match v.value {
            Value::List(items) if items.is_empty() => {
                let d = Diagnostic::new(
                    Code::EmptyList,
                    e.span,
                    format!("{what} over an empty list does nothing"),
                )
                .with_hint("list at least one value");
                self.error(d);
                None
            }
            Value::List(items) => Some(items),
            other => {
                let d = Diagnostic::new(
                    Code::ExpectedList,
                    e.span,
                    format!("{what} needs a list, found {}", describe(&other)),
                )
                .with_hint(format!("write `[{}]` to loop over one value", show(&other)));
                self.error(d);
                None
            }
        }
    }
}
