//! The body of the `fio_import` fuzz target (fuzz/fuzz_targets/): any
//! bytes, read as text with invalid UTF-8 replaced, through the job file
//! parser and the whole import. It panics, so that the fuzzer reports the
//! input, when import breaks a promise: that it never panics itself, that
//! a refusal names at least one problem, each at a line of the file, in
//! line order and never an internal one, and that what it makes is a
//! formatted methodology.

use crate::{ImportErrorKind, fio_to_method};

/// Imports `data` as a job file and checks what comes back.
pub fn fuzz_import(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let lines = text.lines().count();
    match fio_to_method(&text, "fuzz.fio", "fuzz") {
        Ok(imported) => {
            assert!(imported.jobs > 0, "imported a file without a job:\n{text}");
            let again = methodic_grammar::format(&imported.text).unwrap_or_else(|d| {
                panic!("the imported methodology does not parse: {d}\n{}", imported.text)
            });
            assert_eq!(again, imported.text, "the imported methodology is not formatted");
        }
        Err(errors) => {
            assert!(!errors.is_empty(), "refused without a problem:\n{text}");
            for e in &errors {
                assert!(e.kind != ImportErrorKind::Internal, "{e}\n{text}");
                assert!(e.line <= lines, "{e}: the file has {lines} lines");
                assert!(!e.to_string().is_empty());
            }
            assert!(errors.windows(2).all(|w| w[0].line <= w[1].line), "problems out of line order");
        }
    }
}
