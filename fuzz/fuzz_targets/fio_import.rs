//! Any bytes, as text with invalid UTF-8 replaced, through the fio job
//! file parser and `methodic import fio`'s translation: nothing may panic,
//! a refused file names its problems at lines it has, and an imported one
//! is a formatted methodology that compiles (`methodic_fio::fuzz`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| methodic_fio::fuzz::fuzz_import(data));
