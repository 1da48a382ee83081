//! The documentation shows what methodic does: every diagnostic code is in
//! docs/LANGUAGE.md, the keyword list matches the grammar, and the
//! methodologies shown in README.md and docs/LANGUAGE.md compile.

use std::path::Path;

use methodic_compiler::{Code, Options, compile};

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// The fenced `text` blocks that hold a whole methodology.
fn methodologies(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for line in doc.lines() {
        match (&mut block, line) {
            (None, "```text") => block = Some(String::new()),
            (Some(b), "```") => {
                if b.lines().any(|l| l.starts_with("methodology ")) {
                    out.push(b.clone());
                }
                block = None;
            }
            (Some(b), l) => {
                b.push_str(l);
                b.push('\n');
            }
            (None, _) => {}
        }
    }
    out
}

#[test]
fn language_doc_lists_every_code() {
    let doc = read("docs/LANGUAGE.md");
    for code in Code::ALL {
        assert!(
            doc.contains(&format!("| {} |", code.as_str())),
            "docs/LANGUAGE.md does not list {}",
            code.as_str()
        );
    }
}

#[test]
fn language_doc_lists_exactly_the_keywords() {
    let doc = read("docs/LANGUAGE.md");
    let section = doc.split("## Keywords").nth(1).expect("a Keywords section");
    let words: Vec<&str> = section.split('`').skip(1).step_by(2).collect();
    assert!(words.len() > 60, "{words:?}");
    for w in &words {
        assert!(methodic_grammar::is_reserved(w), "`{w}` is listed but not reserved");
    }
    for w in ["sweep", "compressible", "max_rounds", "non_destructive"] {
        assert!(words.contains(&w), "`{w}` is reserved but not listed");
    }
}

#[test]
fn examples_in_the_docs_compile() {
    let mut n = 0;
    for doc in ["README.md", "docs/LANGUAGE.md"] {
        for src in methodologies(&read(doc)) {
            if let Err(d) = compile(&src, &Options::default()) {
                panic!("an example in {doc} does not compile:\n{}\n{src}", d.render(doc, &src, false));
            }
            n += 1;
        }
    }
    assert!(n >= 2, "found {n} examples");
}
