//! `parse`: methodology source goes in, a typed [`Methodology`] AST with
//! spans comes out. Checks the grammar and every literal (units, whole
//! numbers, escapes); reports as many syntax errors as it can find at once
//! by re-parsing each top-level item on its own after the first failure.
//!
//! Split by job: `parser` is the parser pest derives from the grammar,
//! `keywords` lists every keyword once, `text` scans strings and comments
//! without the grammar, `build` turns pest's pairs into AST nodes and
//! `messages` says every problem in the user's words (syntax errors, bad
//! literals, reserved words). This module runs the parser and recovers
//! after a syntax error.

use pest::Parser as _;

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Diagnostics};

mod build;
mod keywords;
mod messages;
mod parser;
mod text;

use build::Builder;
use keywords::continues_an_item;
pub use keywords::is_reserved;
use messages::syntax_error;
use parser::{MethodologyParser, Rule};
pub(crate) use text::string_end;

/// Parses a methodology. On failure, returns every syntax and literal error
/// found, in source order.
pub fn parse(src: &str) -> Result<Methodology, Diagnostics> {
    match MethodologyParser::parse(Rule::file, src) {
        Ok(mut pairs) => {
            let mut b = Builder { offset: 0, diags: Vec::new(), depth: 0 };
            let file = pairs
                .next()
                .ok_or_else(|| Diagnostics(vec![Diagnostic::internal(Span::new(0, 0), "empty parse")]))?;
            let ast = b.file(file);
            match ast {
                Ok(ast) if b.diags.is_empty() => Ok(ast),
                Ok(_) => Err(Diagnostics(b.diags).sorted()),
                Err(d) => {
                    b.diags.push(*d);
                    Err(Diagnostics(b.diags).sorted())
                }
            }
        }
        Err(_) => Err(recover(src, syntax_error(src, 0))),
    }
}

/// After a syntax error, parses each top-level item alone so that one
/// mistake does not hide the next. Items that parse are built too, so that
/// their literal errors (`4k`) are reported with the syntax errors.
fn recover(src: &str, first: Diagnostic) -> Diagnostics {
    let first_at = first.span.map(|s| s.start);
    let mut diags = vec![first];
    for (start, end) in top_level_chunks(src) {
        let chunk = &src[start..end];
        match MethodologyParser::parse(Rule::file, chunk) {
            Err(_) => {
                // The first error, seen again from its own item.
                let d = syntax_error(chunk, start);
                if d.span.map(|s| s.start) != first_at {
                    diags.push(d);
                }
            }
            Ok(mut pairs) => {
                let mut b = Builder { offset: start, diags: Vec::new(), depth: 0 };
                if let Some(file) = pairs.next()
                    && let Err(d) = b.file(file)
                {
                    b.diags.push(*d);
                }
                diags.extend(b.diags);
            }
        }
    }
    Diagnostics(diags).sorted()
}

/// Byte ranges of the top-level items, found by scanning brackets, strings
/// and comments; used only to recover after a syntax error.
pub(crate) fn top_level_chunks(src: &str) -> Vec<(usize, usize)> {
    let bytes = src.as_bytes();
    let mut starts = Vec::new();
    let mut depth: usize = 0;
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                i = string_end(bytes, i);
                line_start = false;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {
                if line_start && depth == 0 && (c.is_ascii_alphabetic() || c == b'_') {
                    let end = src[i..]
                        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                        .map_or(src.len(), |n| i + n);
                    // Item keywords start chunks, and so do unknown words
                    // (most likely a misspelt item); step options (the
                    // keywords that continue an item) may continue a step
                    // on the next line.
                    let word = &src[i..end];
                    if !continues_an_item(word) {
                        starts.push(i);
                    }
                }
            }
        }
        line_start = false;
        i += 1;
    }
    let mut chunks = Vec::new();
    for (k, &s) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(src.len());
        chunks.push((s, e));
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::messages::expected_words;
    use super::*;
    use crate::diagnostic::Code;

    fn ok(src: &str) -> Methodology {
        match parse(src) {
            Ok(m) => m,
            Err(d) => panic!("{}", d.render("t.method", src, false)),
        }
    }

    fn err(src: &str) -> Diagnostics {
        match parse(src) {
            Ok(m) => panic!("parsed: {m:?}"),
            Err(d) => d,
        }
    }

    #[test]
    fn parses_the_design_sketch() {
        let src = r#"
methodology "enterprise-sweep" version "1.0"
describe "6h precondition at QD256, then QD1..QD256, 30s ramp, 300s record"
conventions { units decimal; queue_depth total; value step_average }
target { span 100%; workers 16; devices 4; io direct; data random }
use std.mixes
workload rnd4k_write   { random; block 4KiB; read 0% }
workload my_mix        { random 80%; read 80%; blocks { 512B: 10%, 4KiB: 60%, 64KiB: 30% } }
let qds = [1, 2, 4, 8, 16, 32, 64, 128, 256]
phase "4KiB random" {
  erase secure
  fill rnd4k_write passes 2
  precondition rnd4k_write qd 256 for 6h
  sweep rnd4k_write qd qds ramp 30s record 300s
}
phase "server mixes" {
  for mix in [database, email_server] {
    precondition mix qd 256 until steady { round 60s window 5 excursion 20% slope 10% max_rounds 25 }
    sweep mix qd qds ramp 30s record 300s
  }
}
dataset small_files { files 1000; size 16KiB..2MiB; seed 7 }
repeat 5 aggregate median { copy small_files }
drop_caches; idle 30s; limit_ram 16GiB
probe pages { io 512B step 256B range 4MiB repeats 20 statistic median }
"#;
        let m = ok(src);
        assert_eq!(m.items.len(), 16);
        match &m.items[0].kind {
            ItemKind::Header { name, version } => {
                assert_eq!(name.node, "enterprise-sweep");
                assert_eq!(version.node, "1.0");
                assert_eq!(&src[name.span.start..name.span.end], "\"enterprise-sweep\"");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn for_option_does_not_swallow_a_following_loop() {
        let m = ok("measure w qd 1 for 5s\nfor x in [1] { idle 1s }");
        assert_eq!(m.items.len(), 2);
    }

    #[test]
    fn ranges_and_lists() {
        let m = ok("let a = 1..256 step x2\nlet b = 0%..100% step 10%\nlet c = []");
        match &m.items[0].kind {
            ItemKind::Let {
                value: Expr { kind: ExprKind::Range { step: Some(RangeStep::Mul(f)), .. }, .. },
                ..
            } => {
                assert_eq!(f.node, 2)
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn typo_gets_a_suggestion_and_no_rule_names() {
        let d = err("methodology \"x\" version \"1\"\nsweeep w qd 1 record 1s\n");
        let text = d.render("t.method", "", false);
        assert_eq!(d.0[0].code, Code::Syntax);
        assert_eq!(d.0[0].hint.as_deref(), Some("did you mean `sweep`?"), "{text}");
        assert!(!d.0[0].message.contains("_def"), "{}", d.0[0].message);
    }

    #[test]
    fn several_errors_at_once() {
        let src = "methodology \"x\" version \"1\"\nidle 30 s\nworkload w { block 4k; read 0% }\nsweeep w\n";
        let d = err(src);
        let codes: Vec<_> = d.iter().map(|d| d.code).collect();
        assert!(codes.contains(&Code::UnknownUnit), "{codes:?}");
        assert!(codes.iter().filter(|c| **c == Code::Syntax).count() >= 2, "{codes:?}\n{d}");
    }

    #[test]
    fn on_error_takes_stop_or_continue() {
        let m = ok("methodology \"x\" version \"1\"\non_error continue\n");
        assert!(matches!(&m.items[1].kind, ItemKind::OnError(a) if a.node == OnError::Continue));
        let m = ok("on_error stop");
        assert!(matches!(&m.items[0].kind, ItemKind::OnError(a) if a.node == OnError::Stop));
        let d = err("on_error retry\n");
        assert_eq!(d.0[0].code, Code::Syntax, "{d}");
        assert!(d.to_string().contains("`stop` or `continue`"), "{d}");
    }

    #[test]
    fn keyword_as_name() {
        let d = err("workload fill { random }");
        assert_eq!(d.0[0].code, Code::ReservedWord, "{d}");
    }

    #[test]
    fn local_marks_the_steps_that_take_it() {
        let m =
            ok("erase discard local\nerase sanitize block local\ndrop_caches local\nlimit_ram 8GiB local\n\
                    limit_ram none local\ncopy d local\nprobe pages { io 1KiB } local\ndrop_caches\n");
        let local: Vec<bool> = m
            .items
            .iter()
            .map(|i| match &i.kind {
                ItemKind::Stmt(s) => s.local.is_some(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(local, [true, true, true, true, true, true, true, false]);
        match &m.items[1].kind {
            ItemKind::Stmt(Stmt { kind: StmtKind::Erase(e), local: Some(at), .. }) => {
                assert_eq!(e.node, EraseMethod::SanitizeBlock, "`local` is not read as the method's word");
                assert_eq!(*at, Span::new(41, 46));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&m.items[3].kind, ItemKind::Stmt(Stmt { kind: StmtKind::LimitRam(Some(_)), .. })));
        assert!(matches!(&m.items[4].kind, ItemKind::Stmt(Stmt { kind: StmtKind::LimitRam(None), .. })));
        // I/O steps parse it too, so that the compiler can say why it cannot
        // stand there; it is no option of theirs.
        let m = ok("measure w local qd 1 for 1s\ntogether local { job a w qd 1 }\nidle 1s local");
        for item in &m.items {
            let ItemKind::Stmt(s) = &item.kind else { panic!("{item:?}") };
            assert!(s.local.is_some(), "{s:?}");
            if let StmtKind::Measure { opts, .. } = &s.kind {
                assert_eq!(opts.len(), 2, "{opts:?}");
            }
        }
        let d = err("measure w qd 1 local for 1s local\n");
        assert_eq!(d.0[0].code, Code::DuplicateSetting, "{d}");
        let d = err("phase \"p\" { idle 1s } local\n");
        assert_eq!(d.0[0].code, Code::Syntax, "{d}");
        let d = err("dataset local { files 1; size 1MiB }\n");
        assert_eq!(d.0[0].code, Code::ReservedWord, "{d}");
        // Offered where it may stand, not where the compiler refuses it.
        let d = err("drop_caches lcal\n");
        assert!(d.0[0].message.contains("`local`"), "{d}");
        assert_eq!(d.0[0].hint.as_deref(), Some("did you mean `local`?"), "{d}");
        let d = err("measure w qd 1 for 1s lcal\n");
        assert!(!d.to_string().contains("local"), "{d}");
    }

    #[test]
    fn unterminated_string() {
        let d = err("methodology \"x\nversion \"1\"\n");
        assert_eq!(d.0[0].code, Code::UnterminatedString, "{d}");
    }

    #[test]
    fn every_rule_has_words_without_rule_names() {
        // describe_rule is exhaustive; check that no phrase leaks a rule name.
        for text in [
            expected_words(&[Rule::quantity, Rule::ident, Rule::list, Rule::range], &[]),
            expected_words(&[Rule::opt_qd, Rule::opt_ramp, Rule::opt_record, Rule::EOI], &[]),
        ] {
            assert!(!text.contains("opt_") && !text.contains("quantity"), "{text}");
        }
    }
}
