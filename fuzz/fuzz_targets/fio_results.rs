//! Any bytes, as text with invalid UTF-8 replaced, read as fio's JSON
//! results (`methodic_fio::read_fio_results`): nothing may panic, and what
//! it reads keeps its promises (`methodic_fio::fuzz::fuzz_results`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| methodic_fio::fuzz::fuzz_results(data));
