//! Any bytes, as text with invalid UTF-8 replaced, imported as each
//! tool's results (fio, Iometer, DiskSpd, CrystalDiskMark and KDiskMark):
//! nothing may panic, and what an import makes keeps its promises
//! (`methodic_import::runs::fuzz`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| methodic_import::runs::fuzz(data));
