//! Any bytes, as text with invalid UTF-8 replaced, read as a
//! CrystalDiskMark or KDiskMark text result: nothing may panic, and what
//! it reads keeps its promises (`methodic_import::disk_mark::fuzz`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| methodic_import::disk_mark::fuzz(data));
