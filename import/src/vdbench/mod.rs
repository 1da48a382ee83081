//! (being written)

use crate::{ImportError, ImportErrorKind, Imported, Input};

/// (being written)
pub fn to_method(input: &Input<'_>) -> Result<Imported, Vec<ImportError>> {
    Err(vec![
        crate::problem::Problem::new(ImportErrorKind::Internal, 0, "the vdbench importer is being written")
            .into_error(input.file),
    ])
}

/// The body of the fuzz target `fuzz/fuzz_targets/vdbench_import.rs`.
pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let input = Input { text: &text, file: "fuzz", name: "fuzz", vars: &[], include: &|_| Err("no".into()) };
    let _ = to_method(&input);
}
