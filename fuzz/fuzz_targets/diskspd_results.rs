//! Any bytes, as text with invalid UTF-8 replaced, read as DiskSpd's XML
//! results: nothing may panic, and what it reads keeps its promises
//! (`methodic_import::diskspd::results::fuzz`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| methodic_import::diskspd::results::fuzz(data));
