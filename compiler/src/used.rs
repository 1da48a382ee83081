//! Files of your own that `use "FILE"` brings workloads in from: a
//! library of mixes, such as `methodic import iometer` makes of a file of
//! access specifications. The compiler reads no files: the caller reads
//! each path [`file_uses`] names (from the using file's folder) into
//! `Options::used`, and this module checks each one on its own (it must
//! compile as a methodology), then hands its workloads to the resolver as
//! written, as it does the standard mixes. The plan records each file's
//! path and hash ([`UsedFile`]); its workloads are in the plan's steps in
//! full, so a plan runs without the file.
//!
//! A used file may `use std.mixes`, but not another file, and may not
//! define variables (`let`): its workloads are brought in as written, and
//! a name in them would be looked up in the using file.

use methodic_grammar::ast::{ItemKind, Methodology, Span, Spanned};
use methodic_grammar::{Code, Diagnostic};

use std::collections::BTreeMap;

use methodic_grammar::Diagnostics;

use crate::hash::source_hash;
use crate::plan::UsedFile;

/// A used file, parsed and checked.
pub(crate) struct Loaded {
    pub path: String,
    /// The `use` that names it, to point at.
    pub span: Span,
    pub ast: Methodology,
    pub hash: String,
}

impl Loaded {
    pub(crate) fn record(&self) -> UsedFile {
        UsedFile { path: self.path.clone(), source_hash: self.hash.clone() }
    }
}

/// The paths a methodology's `use "FILE"` lines name, in order, for the
/// caller to read into [`Options::used`](crate::Options::used); none when it does not parse
/// (the compile then says why).
pub fn file_uses(src: &str) -> Vec<String> {
    match methodic_grammar::parse(src) {
        Ok(ast) => paths(&ast).into_iter().map(|p| p.node.clone()).collect(),
        Err(_) => Vec::new(),
    }
}

fn paths(ast: &Methodology) -> Vec<&Spanned<String>> {
    ast.items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::UseFile(path) => Some(path),
            _ => None,
        })
        .collect()
}

/// The texts of used files by path as written, or why one was not read
/// (`Options::used`).
pub(crate) type Texts = BTreeMap<String, Result<String, String>>;

/// Each `use "FILE"` of `ast` read from `texts`, parsed and checked with
/// `compile` (the compiler on a file alone); a problem is said at the
/// `use`, and the file left out.
pub(crate) fn load(
    ast: &Methodology,
    texts: &Texts,
    compile: impl Fn(&Methodology, &str) -> Result<(), Diagnostics>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Loaded> {
    let mut out: Vec<Loaded> = Vec::new();
    for item in &ast.items {
        let ItemKind::UseFile(path) = &item.kind else { continue };
        if let Some(first) = out.iter().find(|l| l.path == path.node) {
            diags.push(
                Diagnostic::new(
                    Code::DuplicateSetting,
                    item.span,
                    format!("`use \"{}\"` is given twice", path.node),
                )
                .with_secondary(first.span, "first given here")
                .with_hint("keep one"),
            );
            continue;
        }
        match one(&path.node, texts, &compile) {
            Ok(ast_and_hash) => {
                let (ast, hash) = ast_and_hash;
                out.push(Loaded { path: path.node.clone(), span: item.span, ast, hash });
            }
            Err((message, hint)) => {
                diags.push(Diagnostic::new(Code::UnknownModule, path.span, message).with_hint(hint))
            }
        }
    }
    out
}

/// One used file: its AST and hash, or what is wrong and what to do.
fn one(
    path: &str,
    texts: &Texts,
    compile: impl Fn(&Methodology, &str) -> Result<(), Diagnostics>,
) -> Result<(Methodology, String), (String, String)> {
    let text = match texts.get(path) {
        Some(Ok(text)) => text,
        Some(Err(why)) => return Err((format!("cannot read `{path}`: {why}"), hint_path())),
        None => return Err((format!("`{path}` was not read"), hint_path())),
    };
    // The line a problem of the used file is on, from 1.
    let at = |d: &Diagnostic| match d.span {
        Some(s) => {
            format!("line {}: {}", text.get(..s.start).unwrap_or(text).matches('\n').count() + 1, d.message)
        }
        None => d.message.clone(),
    };
    let check = format!("run `methodic check {path}` to see every problem");
    let ast = methodic_grammar::parse(text).map_err(|d| {
        let first = d.0.first().map(at).unwrap_or_default();
        (format!("`{path}` does not parse: {first}"), check.clone())
    })?;
    if let Some(nested) = paths(&ast).first() {
        return Err((
            format!(
                "`{path}` uses another file (`{}`): a used file may use std.mixes, not other files",
                nested.node
            ),
            format!("use `{}` here as well, and drop its `use` from `{path}`", nested.node),
        ));
    }
    if let Some(name) = ast.items.iter().find_map(|i| match &i.kind {
        ItemKind::Let { name, .. } => Some(name.node.clone()),
        _ => None,
    }) {
        return Err((
            format!(
                "`{path}` defines a variable (`let {name}`): its workloads are brought in as written, and a name in \
                 them would be this file's"
            ),
            format!("write the values into the workloads of `{path}`"),
        ));
    }
    if let Err(d) = compile(&ast, text) {
        let first = d.errors().next().map(at).unwrap_or_default();
        return Err((format!("`{path}` does not compile: {first}"), check));
    }
    Ok((ast, source_hash(text)))
}

fn hint_path() -> String {
    "give the path from the folder of the file that uses it, or from the working folder when it comes on \
     standard input"
        .to_string()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::plan::Action;
    use crate::{Code, Options, compile};

    const MIXES: &str = "methodology \"specs\" version \"1\"\n\
                         workload spec_db { random; blocks { 8KiB: 100% }; read 67% }\n\
                         workload spec_seq { sequential; block 1MiB; read 100% }\n";

    fn options(files: &[(&str, Result<&str, &str>)]) -> Options {
        let used: BTreeMap<String, Result<String, String>> = files
            .iter()
            .map(|(p, t)| (p.to_string(), t.map(str::to_string).map_err(str::to_string)))
            .collect();
        Options { used, ..Options::default() }
    }

    fn codes(src: &str, o: &Options) -> Vec<(Code, String)> {
        match compile(src, o) {
            Ok(c) => c.warnings.0.iter().map(|d| (d.code, d.message.clone())).collect(),
            Err(d) => d.0.iter().map(|d| (d.code, d.message.clone())).collect(),
        }
    }

    #[test]
    fn a_used_file_brings_its_workloads_in_and_is_recorded_with_its_hash() {
        let src = "methodology \"m\" version \"1\"\nuse \"lib/specs.method\"\nmeasure spec_db qd 4 for 1s\n";
        assert_eq!(super::file_uses(src), ["lib/specs.method"]);
        let plan = compile(src, &options(&[("lib/specs.method", Ok(MIXES))])).unwrap().plan;
        let Action::Measure { workload, .. } = &plan.steps[0].action else { panic!("not a measurement") };
        assert_eq!((workload.name.as_str(), workload.read.as_f64()), ("spec_db", 67.0));
        let used = &plan.methodology.used_files;
        assert_eq!(used.len(), 1);
        assert_eq!(
            (used[0].path.as_str(), used[0].source_hash.clone()),
            ("lib/specs.method", crate::source_hash(MIXES))
        );
        // The plan holds the workload in full: it reads and validates alone.
        let again = crate::load_plan(&plan.to_ron()).unwrap();
        assert_eq!(again, plan);
        // An unused workload of the file is no warning.
        assert!(compile(src, &options(&[("lib/specs.method", Ok(MIXES))])).unwrap().warnings.is_empty());
    }

    #[test]
    fn a_used_file_that_cannot_be_read_or_compiled_is_said_at_the_use() {
        let src = "methodology \"m\" version \"1\"\nuse \"specs.method\"\nmeasure spec_db qd 4 for 1s\n";
        let said = |o: &Options| codes(src, o);
        let none = said(&Options::default());
        assert!(
            none.iter().any(|(c, m)| *c == Code::UnknownModule && m.contains("`specs.method` was not read")),
            "{none:?}"
        );
        let unread = said(&options(&[("specs.method", Err("specs.method: No such file or directory"))]));
        assert!(
            unread.iter().any(|(_, m)| m.contains("cannot read `specs.method`: specs.method: No such file")),
            "{unread:?}"
        );
        let broken = said(&options(&[(
            "specs.method",
            Ok("methodology \"s\" version \"1\"\nworkload w { block 0B }\n"),
        )]));
        assert!(
            broken.iter().any(|(_, m)| m.starts_with("`specs.method` does not compile: line 2:")),
            "{broken:?}"
        );
        // A problem at the start of a line is on that line.
        let at_start = said(&options(&[("specs.method", Ok("methodology \"s\" version \"1\"\nbogus\n"))]));
        assert!(
            at_start.iter().any(|(_, m)| m.starts_with("`specs.method` does not parse: line 2:")),
            "{at_start:?}"
        );
        let with_let = said(&options(&[(
            "specs.method",
            Ok("methodology \"s\" version \"1\"\nlet b = 4KiB\nworkload w { random; block b; read 0% }\n"),
        )]));
        assert!(with_let.iter().any(|(_, m)| m.contains("defines a variable (`let b`)")), "{with_let:?}");
        let nested =
            said(&options(&[("specs.method", Ok("methodology \"s\" version \"1\"\nuse \"more.method\"\n"))]));
        assert!(nested.iter().any(|(_, m)| m.contains("uses another file (`more.method`)")), "{nested:?}");
    }

    #[test]
    fn a_used_workload_may_not_take_a_name_already_given() {
        let src = "methodology \"m\" version \"1\"\nuse \"a.method\"\nuse \"b.method\"\n\
                   workload spec_seq { sequential; block 128KiB; read 0% }\nmeasure spec_db qd 4 for 1s\nmeasure spec_seq qd 1 for 1s\n";
        let o = options(&[("a.method", Ok(MIXES)), ("b.method", Ok(MIXES))]);
        let c = codes(src, &o);
        // spec_seq clashes with this file's own; spec_db with a.method's.
        let clashes: Vec<&String> =
            c.iter().filter(|(code, _)| *code == Code::DuplicateName).map(|(_, m)| m).collect();
        assert_eq!(clashes.len(), 3, "{c:?}");
        assert!(clashes.iter().any(|m| m.contains("`spec_db` is also a workload of `b.method`")), "{c:?}");
        let twice = codes("methodology \"m\" version \"1\"\nuse \"a.method\"\nuse \"a.method\"\n", &o);
        assert!(
            twice.iter().any(|(code, m)| *code == Code::DuplicateSetting && m.contains("given twice")),
            "{twice:?}"
        );
    }
}
