//! methodic's mark on the scratch files it creates (a `user.methodic`
//! extended attribute, where the file system keeps user attributes): set
//! when a scratch file is made, read by the target and the destroy guard
//! to tell methodic's files from a user's.

use std::ffi::CString;
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// The extended attribute methodic marks its scratch files with.
const MARK: &std::ffi::CStr = c"user.methodic";

/// Whether methodic created this file (it carries the mark).
pub(crate) fn made_by_methodic(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else { return false };
    let mut buf = [0u8; 16];
    // SAFETY: `c` and MARK are NUL-terminated strings that live for the call; getxattr writes at
    // most `buf.len()` bytes into `buf`.
    let n = unsafe { libc::getxattr(c.as_ptr(), MARK.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    n == 7 && &buf[..7] == b"scratch"
}

/// Marks `file` as methodic's scratch file; where the file system has no
/// user attributes, it stays unmarked (and is then treated as a user's).
pub(crate) fn mark_scratch(file: &File) {
    // SAFETY: MARK is NUL-terminated, the value is 7 bytes as the length says, and `file` keeps the
    // descriptor open for the call.
    let _ = unsafe { libc::fsetxattr(file.as_raw_fd(), MARK.as_ptr(), b"scratch".as_ptr().cast(), 7, 0) };
}
