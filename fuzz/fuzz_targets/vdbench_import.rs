//! Any bytes, as text with invalid UTF-8 replaced, through `methodic
//! import vdbench`: nothing may panic, a refused file names its problems at
//! lines it has, and an imported one is a formatted methodology that
//! compiles (`methodic_import::vdbench::fuzz`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| methodic_import::vdbench::fuzz(data));
