//! A job's `verify` and `do_verify` in; out, whether its step checks its
//! data (methodic's step option `verify`), with a note on what fio does
//! otherwise; or a refusal where fio's check is another test.
//!
//! fio (fio@f5344384, github:axboe/fio; HOWTO.rst "Verification"): a job
//! that writes with `verify=<checksum>` stamps each block with a header
//! and, once a pass over its region is written, reads the blocks back and
//! checks them (`thread_main()`, backend.c:2280, `do_verify()`), counting
//! those reads in the job's read numbers. A pass the runtime cuts short is
//! not checked (the job is terminated first), and with `time_based` a
//! pass ends every `size` bytes so that the check falls inside the runtime
//! (`do_io()`, backend.c:1229). A job that only reads checks each block
//! as it reads it (backend.c:1265), `do_verify` or not. On a job that
//! reads and writes, only the blocks it wrote are checked.
//!
//! methodic (LANGUAGE.md "Verification", RESULTS.md "Verification"): a
//! step with `verify` that writes reads back everything it wrote once it
//! ends, outside its numbers; one that only reads checks every read,
//! inside its numbers, against methodic's own stamp. So a job that writes
//! its region once (no `time_based`, no `loops`) and a job that reads
//! translate; the rest is refused.

use methodic_compiler::plan::Bytes;

use super::access::Rw;
use super::reader::{Got, JobReader};
use super::step::Stop;
use crate::error::ImportErrorKind;
use crate::job_file::Entry;
use crate::values::{FioSize, fio_bool, refusal};

/// fio's checksums and header checks (options.c:3361, `verify`'s
/// values), which methodic's stamp with its CRC-32 stands for.
const CHECKSUMS: &[&str] = &[
    "md5",
    "crc64",
    "crc32",
    "crc32c-intel",
    "crc32c",
    "crc16",
    "crc7",
    "sha1",
    "sha256",
    "sha512",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "xxhash",
    "meta",
];

/// What the job's `verify` asks for.
pub(crate) enum Verify<'j> {
    /// No check: `verify=0` (fio's default), `null`, or none given.
    Off,
    /// A checksum of fio's, as the entry says, and whether writes are read
    /// back (`do_verify`, by default 1).
    On(&'j Entry, bool),
}

/// `verify` and `do_verify` read: a checksum is a check, `0` none, `null`
/// noted (fio only pretends), a pattern refused (fio checks its pattern's
/// bytes, not a stamp).
pub(crate) fn verify_option<'j>(r: &mut JobReader<'j>) -> Got<Verify<'j>> {
    let again = r.read("do_verify", fio_bool);
    let Some((e, v)) = r.word("verify")? else {
        if let Some(d) = r.get("do_verify") {
            r.note(d, true, true, "ignored, as fio ignores it without verify");
        }
        return again.map(|_| Verify::Off);
    };
    let again = again?;
    let value = v.trim();
    if value == "0" || value == "null" {
        if value == "null" {
            r.note(e, true, true, "not carried over: fio only pretends to check (verify=null)");
        }
        return Ok(Verify::Off);
    }
    if value == "pattern" || value == "pattern_hdr" {
        return Err(r.problem(
            ImportErrorKind::Untranslatable,
            e,
            refusal(
                "fio checks the bytes of verify_pattern; methodic writes random data, zeros or compressible data \
                 (`target { data }`) and checks its own stamp",
            )
            .hint("use a checksum, such as verify=crc32c, which methodic's `verify` stands for"),
        ));
    }
    if !CHECKSUMS.contains(&value) {
        return Err(r.problem(
            ImportErrorKind::BadValue,
            e,
            refusal(format!("fio does not know verify={value}")).hint(
                "verify is 0, a checksum (md5, crc32c, crc64, sha256, xxhash, ...), meta, pattern or null",
            ),
        ));
    }
    Ok(Verify::On(e, again.unwrap_or(true)))
}

/// Whether methodic's `verify` is fio's check for this job: `e` is the
/// job's `verify`; the job's access, whether it is time based and its
/// stop, its `loops`, `io_size` and each clone's region (`size`).
pub(crate) fn verify_fits(
    r: &mut JobReader<'_>,
    (e, read_back): (&Entry, bool),
    rw: Rw,
    (time_based, stop): (bool, Stop),
    loops: u64,
    io_size: Option<Bytes>,
    size: Option<FioSize>,
) -> Got<bool> {
    let refuse = |r: &mut JobReader<'_>, why: &str, hint: &str| -> Got<bool> {
        Err(r.problem(ImportErrorKind::Untranslatable, e, refusal(why).hint(hint)))
    };
    match rw {
        Rw::Read | Rw::RandRead => {
            if let Some(d) = r.get("do_verify").filter(|_| !read_back) {
                r.note(
                    d,
                    false,
                    true,
                    "ignored: fio checks a reading job's blocks as it reads them either way",
                );
            }
            r.note(
                e,
                false,
                false,
                "as `verify`: methodic checks each block as it reads it, inside the step's numbers, as fio does; \
                 against methodic's own stamp, so the blocks must have been written by a methodic step with \
                 `verify` (fio's headers are not methodic's stamps)",
            );
            return Ok(true);
        }
        Rw::Trim | Rw::RandTrim => {
            return refuse(
                r,
                "fio checks a trimming job's blocks against what it expects there (zeros with \
                 trim_verify_zero); methodic's `verify` leaves trimmed blocks out of its check",
                "remove verify to import the job",
            );
        }
        Rw::Write | Rw::RandWrite | Rw::Mixed | Rw::RandMixed => {}
    }
    if !read_back {
        let d = r.get("do_verify").expect("do_verify=0 was given");
        return Err(r.problem(
            ImportErrorKind::Untranslatable,
            d,
            refusal(
                "with do_verify=0, fio stamps the job's writes without reading them back (a later job checks \
                 them); methodic's `verify` on a step that writes always reads back what it wrote",
            )
            .hint(
                "remove do_verify=0 to check the writes after the job, or verify=0 to write without stamps",
            ),
        ));
    }
    if time_based {
        return refuse(
            r,
            "with time_based, fio stops writing after every `size` bytes to read them back and check them \
             inside the runtime, and does not check the pass the runtime cuts short; methodic reads back what \
             a step wrote once, after it, outside its numbers",
            "drop time_based (the job then writes its size once and is checked, as `until written ... verify`), \
             or drop verify",
        );
    }
    if loops > 1 {
        return refuse(
            r,
            &format!(
                "with loops={loops}, fio reads back and checks after each of its {loops} passes; methodic reads \
                 back once, after the step"
            ),
            "drop loops (or verify)",
        );
    }
    if let (Some(io), Some(FioSize::Bytes(region))) = (io_size, size)
        && io > region
    {
        return refuse(
            r,
            &format!(
                "fio writes io_size ({io}) over a region of {region}, so it writes blocks more than once and \
                     checks after its passes; methodic reads back once, after the step"
            ),
            "drop io_size (or verify)",
        );
    }
    let mut text =
        "as `verify`: fio reads the blocks back and checks them once the job has written its size, and \
                    counts those reads in the job's read numbers; methodic reads back after the step too, \
                    outside its numbers (the results' verify.seconds)"
            .to_string();
    if let Stop::Written { time: Some(t), .. } = stop {
        text.push_str(&format!(
            "; when the runtime ({t}) ends the writing first, fio checks nothing and methodic still checks what \
             it wrote"
        ));
    }
    r.note(e, false, false, text);
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_checksum_of_fio_is_known() {
        assert!(CHECKSUMS.contains(&"crc32c") && CHECKSUMS.contains(&"sha3-512"));
        assert!(!CHECKSUMS.contains(&"pattern") && !CHECKSUMS.contains(&"null") && !CHECKSUMS.contains(&"0"));
    }
}
