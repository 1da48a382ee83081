//! What the runtime's unit tests share: giving up a test that cannot run
//! here (io_uring missing, say). Under CI=true, as .ci/run sets it, the
//! test fails instead, naming what is missing and how to get it, so that a
//! machine without it shows; elsewhere the test returns and says so where a
//! person reads the run: a `SKIPPED` line written past the harness's
//! capture (which keeps what a passing test prints, and counts it `ok`).
#![cfg(test)]

/// What giving up says: `Err` with the failure under CI, `Ok` with the
/// line to print otherwise.
fn verdict(ci: bool, missing: &str, remedy: &str) -> Result<String, String> {
    if ci {
        Err(format!("CI=true and this test cannot run: {missing}; {remedy}"))
    } else {
        let test = std::thread::current().name().unwrap_or("a test").to_string();
        Ok(format!("SKIPPED {test} (counted as ok, checked nothing): {missing}; {remedy}"))
    }
}

/// Gives up a test, or the part of one, that cannot run because of
/// `missing`; `remedy` says how to get it. Under CI=true (the environment
/// variable CI is `true`) this fails the test; elsewhere it says why, and
/// the caller returns or leaves that part out.
#[track_caller]
pub(crate) fn skip_unless_ci(missing: &str, remedy: &str) {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    match verdict(ci, missing, remedy) {
        // The process's stderr handle, not `eprintln!`: the harness keeps
        // the latter to itself for a test that passes.
        Ok(line) => {
            use std::io::Write;
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
        Err(failure) => panic!("{failure}"),
    }
}

/// Whether io_uring works here; when not, [`skip_unless_ci`], saying why.
#[track_caller]
pub(crate) fn io_uring_or_skip() -> bool {
    match crate::worker::io_uring_available() {
        Ok(()) => true,
        Err(why) => {
            skip_unless_ci(
                &format!("io_uring is not available here ({why})"),
                "run on a kernel with io_uring on (sysctl kernel.io_uring_disabled=0) and no seccomp \
                 filter that blocks it",
            );
            false
        }
    }
}

mod tests {
    use super::*;

    #[test]
    fn under_ci_a_test_that_cannot_run_fails_naming_what_is_missing() {
        let failed = verdict(true, "mkfs.xfs is not installed", "apt-get install xfsprogs").unwrap_err();
        assert_eq!(
            failed,
            "CI=true and this test cannot run: mkfs.xfs is not installed; apt-get install xfsprogs"
        );
        let skipped = verdict(false, "mkfs.xfs is not installed", "apt-get install xfsprogs").unwrap();
        let test = std::thread::current().name().unwrap().to_string();
        assert_eq!(
            skipped,
            format!(
                "SKIPPED {test} (counted as ok, checked nothing): mkfs.xfs is not installed; apt-get install xfsprogs"
            )
        );
        assert!(test.ends_with("under_ci_a_test_that_cannot_run_fails_naming_what_is_missing"), "{test}");
    }

    /// The engine tests lean on io_uring: where CI runs, it must work.
    #[test]
    fn io_uring_works_where_ci_runs() {
        io_uring_or_skip();
    }
}
