//! The standard library: `std.mixes`, a methodology file compiled into
//! methodic whose workloads `use std.mixes` brings in.

use std::sync::OnceLock;

use methodic_grammar::ast::Methodology;

/// The source of `std.mixes`.
pub const MIXES_SOURCE: &str = include_str!("../std/mixes.method");

/// `std.mixes`, parsed once.
pub(crate) fn mixes() -> &'static Methodology {
    static MIXES: OnceLock<Methodology> = OnceLock::new();
    MIXES.get_or_init(|| match methodic_grammar::parse(MIXES_SOURCE) {
        Ok(m) => m,
        // A test parses and compiles every standard mix; this cannot
        // happen in a released build.
        Err(d) => panic!("std/mixes.method does not parse: {d}"),
    })
}
