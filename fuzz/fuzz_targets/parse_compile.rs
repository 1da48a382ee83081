//! Any text through `parse`, `compile` and `format`: nothing may panic,
//! formatting must be idempotent, and formatting must not change whether
//! a methodology compiles or what plan it compiles to.
#![no_main]

use libfuzzer_sys::fuzz_target;
use methodic_compiler::{compile, Options};

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let compiled = compile(src, &Options::default());
    if let Ok(formatted) = methodic_grammar::format(src) {
        let again = methodic_grammar::format(&formatted).expect("formatted text parses");
        assert_eq!(again, formatted, "format is not idempotent");
        let recompiled = compile(&formatted, &Options::default());
        match (&compiled, &recompiled) {
            (Ok(a), Ok(b)) => {
                let (mut a, mut b) = (a.plan.clone(), b.plan.clone());
                a.methodology.source_hash.clear();
                b.methodology.source_hash.clear();
                assert_eq!(a, b, "format changed the plan");
            }
            (Err(_), Err(_)) => {}
            _ => panic!("format changed whether the methodology compiles"),
        }
    }
});
