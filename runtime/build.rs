//! Records the git commit methodic is built from (with `-dirty` when the
//! checkout has changes), for the manifest's `tool.git_revision`. Outside
//! a git checkout (a crate tarball) there is none, and the manifest says so
//! with `null`.

use std::path::Path;
use std::process::Command;

fn main() {
    let git = Path::new("../.git");
    let watched: Vec<_> =
        ["HEAD", "refs", "packed-refs", "index"].iter().map(|p| git.join(p)).filter(|p| p.exists()).collect();
    for p in &watched {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    println!("cargo:rerun-if-changed=build.rs");
    let rev = Command::new("git")
        .args(["describe", "--always", "--dirty", "--abbrev=12"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    if let Some(rev) = rev {
        println!("cargo:rustc-env=METHODIC_GIT_REVISION={rev}");
    }
}
