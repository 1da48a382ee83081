//! `resolve`: the AST goes in, the table of definitions comes out: the
//! header, conventions, top-level target settings, `use`d modules, and
//! every workload, dataset and `let` by name (with the standard mixes when
//! `use std.mixes` asks for them). Checks the header, duplicate names and
//! settings, and unknown modules.

use std::collections::BTreeMap;

use methodic_grammar::ast::*;
use methodic_grammar::{Code, Diagnostic, did_you_mean};

use crate::plan::Conventions;
use crate::stdlib;
use crate::used::Loaded;

/// What a name stands for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Def<'a> {
    Workload { body: &'a WorkloadBody, name_span: Span, from_std: bool },
    Dataset { settings: &'a [DatasetSetting], name_span: Span, span: Span },
    Let { value: &'a Expr, name_span: Span },
}

impl Def<'_> {
    pub(crate) fn name_span(&self) -> Span {
        match self {
            Def::Workload { name_span, .. } | Def::Dataset { name_span, .. } | Def::Let { name_span, .. } => {
                *name_span
            }
        }
    }

    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Def::Workload { .. } => "workload",
            Def::Dataset { .. } => "dataset",
            Def::Let { .. } => "variable",
        }
    }
}

/// The definitions of a methodology.
#[derive(Debug)]
pub(crate) struct Defs<'a> {
    pub name: String,
    pub version: String,
    pub description: Option<String>,
    pub non_destructive: Option<Span>,
    /// `on_error`, and where it was given.
    pub on_error: Option<Spanned<OnError>>,
    pub conventions: Conventions,
    /// The settings of the top-level `target` block.
    pub target: Vec<&'a TargetSetting>,
    pub uses: Vec<String>,
    /// The span of each `use`, to point at from standard definitions.
    pub use_spans: BTreeMap<String, Span>,
    pub names: BTreeMap<String, Def<'a>>,
}

/// The modules `use` can bring in.
const MODULES: [&str; 1] = ["std.mixes"];

/// The top-level items to their definitions, one arm a kind of item;
/// then the header checked present and the standard mixes brought in.
pub(crate) fn resolve<'a>(ast: &'a Methodology, used: &'a [Loaded], diags: &mut Vec<Diagnostic>) -> Defs<'a> {
    let mut defs = Defs {
        name: String::new(),
        version: String::new(),
        description: None,
        non_destructive: None,
        on_error: None,
        conventions: Conventions::default(),
        target: Vec::new(),
        uses: Vec::new(),
        use_spans: BTreeMap::new(),
        names: BTreeMap::new(),
    };
    let mut header_span: Option<Span> = None;
    let mut describe_span: Option<Span> = None;
    let mut target_span: Option<Span> = None;
    let mut convention_spans: [Option<Span>; 3] = [None; 3];

    for item in &ast.items {
        match &item.kind {
            ItemKind::Header { name, version } => {
                if let Some(first) = header_span {
                    diags.push(duplicate(item.span, first, "the methodology header"));
                    continue;
                }
                header_span = Some(item.span);
                check_header(name, version, diags);
                defs.name = name.node.clone();
                defs.version = version.node.clone();
            }
            ItemKind::Describe(text) => {
                if let Some(first) = describe_span {
                    diags.push(duplicate(item.span, first, "`describe`"));
                    continue;
                }
                describe_span = Some(item.span);
                defs.description = Some(text.node.clone());
            }
            ItemKind::NonDestructive => {
                if let Some(first) = defs.non_destructive {
                    diags.push(duplicate(item.span, first, "`non_destructive`"));
                }
                defs.non_destructive = Some(item.span);
            }
            ItemKind::OnError(action) => {
                if let Some(first) = &defs.on_error {
                    diags.push(duplicate(item.span, first.span, "`on_error`"));
                }
                defs.on_error = Some(Spanned::new(action.node, item.span));
            }
            ItemKind::Conventions(conventions) => {
                read_conventions(&mut defs.conventions, conventions, &mut convention_spans, diags)
            }
            ItemKind::Use(path) => use_module(&mut defs, path, item.span, diags),
            // Read and checked before (`used::load`), brought in below.
            ItemKind::UseFile(_) => {}
            ItemKind::Workload { name, body } => define(
                &mut defs.names,
                &name.node,
                Def::Workload { body, name_span: name.span, from_std: false },
                diags,
            ),
            ItemKind::Dataset { name, settings } => define(
                &mut defs.names,
                &name.node,
                Def::Dataset { settings, name_span: name.span, span: item.span },
                diags,
            ),
            ItemKind::Let { name, value } => {
                define(&mut defs.names, &name.node, Def::Let { value, name_span: name.span }, diags)
            }
            ItemKind::Stmt(Stmt { kind: StmtKind::Target(settings), span, .. }) => {
                if let Some(first) = target_span {
                    diags.push(
                        duplicate(*span, first, "a top-level `target` block")
                            .with_hint("put all the defaults in one `target` block; use `target` inside a phase to override them there"),
                    );
                    continue;
                }
                target_span = Some(*span);
                defs.target = settings.iter().collect();
            }
            ItemKind::Stmt(_) => {}
        }
    }

    if header_span.is_none() {
        let at = ast.items.first().map_or(Span::new(0, 0), |i| Span::new(i.span.start, i.span.start));
        diags.push(
            Diagnostic::new(Code::MissingHeader, at, "the methodology has no header")
                .with_label("a header is expected before this")
                .with_hint("start the file with `methodology \"my-method\" version \"1.0\"`"),
        );
    }

    if defs.uses.iter().any(|u| u == "std.mixes") {
        bring_in_std_mixes(&mut defs, diags);
    }
    for file in used {
        bring_in_file(&mut defs, file, diags);
    }
    defs
}

/// The workloads of a file `use "FILE"` names, each unless the
/// methodology already has that name. Like the standard mixes, their
/// spans are not in this file: problems with them point at the `use`.
fn bring_in_file<'a>(defs: &mut Defs<'a>, file: &'a Loaded, diags: &mut Vec<Diagnostic>) {
    let from = Brought {
        items: &file.ast.items,
        at: file.span,
        point_at_use: true,
        clash: format!("also a workload of `{}`", file.path),
        label: "its workloads come in here",
    };
    bring_in(defs, from, diags);
}

/// The standard mixes, once `use std.mixes` brings them in: each a
/// workload, unless the methodology already has a definition of its name.
fn bring_in_std_mixes<'a>(defs: &mut Defs<'a>, diags: &mut Vec<Diagnostic>) {
    let from = Brought {
        items: &stdlib::mixes().items,
        at: defs.use_spans["std.mixes"],
        point_at_use: false,
        clash: "already a standard mix from `use std.mixes`".to_string(),
        label: "the standard mixes come in here",
    };
    bring_in(defs, from, diags);
}

/// Workloads another file brings in, and how to say a clash of names.
struct Brought<'a> {
    items: &'a [methodic_grammar::ast::Item],
    /// The `use`.
    at: Span,
    /// A workload's name span is the `use` (its own is in another file).
    point_at_use: bool,
    /// `` `NAME` is ...``: what the name already is there.
    clash: String,
    label: &'static str,
}

/// Each workload of `from`, unless the methodology already has its name
/// (then a duplicate name, with a hint to rename one).
fn bring_in<'a>(defs: &mut Defs<'a>, from: Brought<'a>, diags: &mut Vec<Diagnostic>) {
    for item in from.items {
        let ItemKind::Workload { name, body } = &item.kind else { continue };
        match defs.names.get(&name.node) {
            Some(existing) => diags.push(
                Diagnostic::new(
                    Code::DuplicateName,
                    existing.name_span(),
                    format!("`{}` is {}", name.node, from.clash),
                )
                .with_secondary(from.at, from.label)
                .with_hint(match existing {
                    Def::Workload { from_std: true, .. } => {
                        format!("rename `{}` in one of the files it comes from", name.node)
                    }
                    _ => format!("rename your {} (`my_{}`)", existing.kind(), name.node),
                }),
            ),
            None => {
                let name_span = if from.point_at_use { from.at } else { name.span };
                defs.names.insert(name.node.clone(), Def::Workload { body, name_span, from_std: true });
            }
        }
    }
}

/// A `conventions` block: each convention set, and reported when it was
/// set before (in this block or another); `spans` are where each was set.
fn read_conventions(
    conventions: &mut Conventions,
    given: &[Convention],
    spans: &mut [Option<Span>; 3],
    diags: &mut Vec<Diagnostic>,
) {
    for c in given {
        let (slot, span, what) = match c {
            Convention::Units(u) => {
                conventions.units = u.node;
                (0, u.span, "`units`")
            }
            Convention::QueueDepth(q) => {
                conventions.queue_depth = q.node;
                (1, q.span, "`queue_depth`")
            }
            Convention::Value(v) => {
                conventions.value = v.node;
                (2, v.span, "`value`")
            }
        };
        if let Some(first) = spans[slot] {
            diags.push(duplicate(span, first, what));
        }
        spans[slot] = Some(span);
    }
}

/// `use MODULE`: a module methodic has, used once.
fn use_module(defs: &mut Defs<'_>, path: &Spanned<String>, span: Span, diags: &mut Vec<Diagnostic>) {
    if !MODULES.contains(&path.node.as_str()) {
        let mut d =
            Diagnostic::new(Code::UnknownModule, path.span, format!("there is no module `{}`", path.node));
        d = match did_you_mean(&path.node, MODULES) {
            Some(m) => d.with_hint(format!("did you mean `{m}`?")),
            None => d.with_hint(format!("the modules are: {}", MODULES.join(", "))),
        };
        diags.push(d);
        return;
    }
    if defs.uses.contains(&path.node) {
        let first = defs.use_spans[&path.node];
        diags.push(duplicate(span, first, &format!("`use {}`", path.node)));
        return;
    }
    defs.uses.push(path.node.clone());
    defs.use_spans.insert(path.node.clone(), span);
}

fn define<'a>(names: &mut BTreeMap<String, Def<'a>>, name: &str, def: Def<'a>, diags: &mut Vec<Diagnostic>) {
    if let Some(first) = names.get(name) {
        diags.push(
            Diagnostic::new(Code::DuplicateName, def.name_span(), format!("`{name}` is defined twice"))
                .with_label(format!("this {} ...", def.kind()))
                .with_secondary(first.name_span(), format!("... has the name of this {}", first.kind()))
                .with_hint("workloads, datasets and variables share one set of names; rename one of them"),
        );
        return;
    }
    names.insert(name.to_string(), def);
}

fn duplicate(span: Span, first: Span, what: &str) -> Diagnostic {
    Diagnostic::new(Code::DuplicateSetting, span, format!("{what} is given twice"))
        .with_label("given again here")
        .with_secondary(first, "first given here")
        .with_hint("keep one of them")
}

fn check_header(name: &Spanned<String>, version: &Spanned<String>, diags: &mut Vec<Diagnostic>) {
    if name.node.trim().is_empty() {
        diags.push(Diagnostic::new(Code::BadHeader, name.span, "the methodology name is empty").with_hint(
            "name the methodology after what it models: `methodology \"enterprise-sweep\" version \"1.0\"`",
        ));
    }
    let v = &version.node;
    let ok = v.starts_with(|c: char| c.is_ascii_digit())
        && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '+');
    if !ok {
        diags.push(
            Diagnostic::new(Code::BadHeader, version.span, format!("`{v}` is not a version"))
                .with_hint("versions start with a digit and use digits, letters, `.`, `-` and `+`: \"1.0\", \"1.1\", \"2.0-rc1\""),
        );
    }
}
