//! Golden files: every spec in specs/ compiled to its plan, and every
//! error input in tests/errors/ rendered to its diagnostics, snapshotted
//! into golden/. A changed plan or message fails here until the snapshot
//! is reviewed (`cargo insta review`) and committed.

use std::collections::BTreeSet;
use std::path::Path;

use methodic_compiler::{Code, Options, check, compile};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn rel(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root).unwrap_or(path).display().to_string()
}

#[test]
fn every_spec_compiles_to_its_golden_plan() {
    insta::with_settings!({ snapshot_path => "../golden", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::glob!("../specs", "*.method", |path| {
            let src = read(path);
            let compiled = match compile(&src, &Options::default()) {
                Ok(c) => c,
                Err(d) => panic!("{}", d.render(&rel(path), &src, false)),
            };
            assert!(
                compiled.warnings.is_empty(),
                "{}",
                compiled.warnings.render(&rel(path), &src, false)
            );
            insta::assert_snapshot!("plan", compiled.plan.to_ron());
        });
    });
}

#[test]
fn every_error_input_renders_its_golden_diagnostics() {
    insta::with_settings!({ snapshot_path => "../golden/errors", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::glob!("errors", "err_*.method", |path| {
            let src = read(path);
            let diags = check(&src);
            assert!(!diags.is_empty(), "{} gives no diagnostic", rel(path));
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !name.starts_with("err_w_") {
                assert!(diags.has_errors(), "{name} gives only warnings");
            }
            insta::assert_snapshot!("diagnostics", diags.render(&format!("tests/errors/{name}"), &src, false));
        });
    });
}

/// Every diagnostic a methodology can produce has an input in tests/errors.
#[test]
fn every_code_has_an_error_input() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/errors");
    let mut seen = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "method") {
            for d in check(&read(&path)).iter() {
                seen.insert(d.code);
            }
        }
    }
    // Internal errors are bugs; plan codes come from plan files (tests/cli.rs).
    let not_from_source = [Code::Internal, Code::PlanSchema, Code::PlanInvalid, Code::PlanSyntax];
    let missing: Vec<_> = Code::ALL
        .iter()
        .filter(|c| !not_from_source.contains(c) && !seen.contains(c))
        .map(|c| format!("{} {c:?}", c.as_str()))
        .collect();
    assert!(missing.is_empty(), "codes without an error input: {missing:?}");
    let count = std::fs::read_dir(&dir).unwrap().count();
    assert!(count >= 40, "only {count} error inputs");
}
