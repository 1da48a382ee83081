//! Giving up a test that cannot run here (not root, a tool or a kernel
//! feature missing): under CI=true, as .ci/run sets it, the test fails,
//! naming what is missing and how to get it, so that a broken install step
//! shows as a failure instead of a pass that checked nothing; elsewhere the
//! test returns, and says so where a person reads the run: a `SKIPPED` line
//! written straight to the terminal (the test harness keeps what a passing
//! test prints to itself, and would count the test only as `ok`). The
//! runtime's device tests and the command-line tests (tests/common) share
//! this file.

// Each test binary uses a part of this.
#![allow(dead_code)]

/// Every tool a test runs that a new machine may lack, with the Debian
/// package .ci/run installs it from (guard.rs checks that it does).
pub const TOOLS: &[(&str, &str)] = &[
    ("losetup", "util-linux"),
    ("partx", "util-linux"),
    ("addpart", "util-linux"),
    ("mkswap", "util-linux"),
    ("mount", "mount"),
    ("swapon", "mount"),
    ("mkfs.ext4", "e2fsprogs"),
    ("mkfs.xfs", "xfsprogs"),
    ("mkfs.btrfs", "btrfs-progs"),
    ("mkfs.vfat", "dosfstools"),
    ("mkntfs", "ntfs-3g"),
    ("cryptsetup", "cryptsetup-bin"),
    ("pvcreate", "lvm2"),
    ("sfdisk", "fdisk"),
    ("getfattr", "attr"),
    ("fio", "fio"),
    ("fio_jsonplus_clat2csv", "fio"),
    ("man", "man-db"),
    ("chromium", "chromium"),
    ("pdfinfo", "poppler-utils"),
    ("pdftotext", "poppler-utils"),
];

/// Whether the tests run under CI: the environment variable CI is `true`.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Gives up a test that cannot run because of `missing`; `remedy` says how
/// to get it. Under CI=true this fails the test (the panic names both);
/// elsewhere it says, past the harness's capture, which test is skipped and
/// why, and the caller returns.
#[track_caller]
pub fn skip(missing: &str, remedy: &str) {
    use std::io::Write;
    if under_ci() {
        panic!("CI=true and this test cannot run: {missing}; {remedy}");
    }
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    // `eprintln!` goes to the harness's capture, shown only for a failure;
    // the process's stderr handle is not captured.
    let _ = writeln!(
        std::io::stderr().lock(),
        "SKIPPED {test} (counted as ok, checked nothing): {missing}; {remedy}"
    );
}

/// Whether the tests run as root; when not, [`skip`]s, saying that `needs`
/// (what the test does: "mounting a tmpfs") needs root.
#[track_caller]
pub fn require_root(needs: &str) -> bool {
    // SAFETY: geteuid takes nothing and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        return true;
    }
    skip(&format!("not root, and {needs} needs root"), "run the tests as root, as CI does");
    false
}

/// The package that holds `tool` (see [`TOOLS`]).
pub fn package_of(tool: &str) -> &'static str {
    TOOLS.iter().find(|(t, _)| *t == tool).map_or("the package that has it", |(_, p)| p)
}

/// `tool` is not installed: [`skip`], naming its package.
#[track_caller]
pub fn skip_tool(tool: &str) {
    skip(
        &format!("{tool} is not installed"),
        &format!("apt-get install {} (.ci/run installs it)", package_of(tool)),
    );
}

/// Whether `tool` is on PATH; when not, [`skip_tool`].
#[track_caller]
pub fn require_tool(tool: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .any(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0));
    if !found {
        skip_tool(tool);
    }
    found
}
