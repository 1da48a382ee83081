//! methodic as a user installs it: the man pages and completion scripts in
//! dist/ are what the command line generates, the bash completion
//! completes, the binary `cargo install --path .` built runs, and the .deb
//! installs the binary, the man pages, the completions and the specs, runs,
//! and is removed again.
//!
//! .ci/run builds both before the tests (`cargo install --path . --root
//! target/ci-install`, then `cargo deb --no-build` over the same release
//! build); outside CI, a test whose build is missing skips, saying how to
//! make it. A module of tests/e2e/report.rs: installing the .deb overlaps
//! the report tests' rehearsals.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{self, methodic, root, skip, temp_dir, text};

/// A methodology that runs one short step: enough to see that an installed
/// binary compiles, runs I/O and writes results.
const TINY: &str = r#"methodology "installed" version "1.0"
target { span 16MiB }
workload rnd4k_read { random; block 4KiB; read 100% }
phase "measure" {
  sweep rnd4k_read qd [1] ramp 1s record 1s
}
"#;

fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

const REGENERATE: &str = "regenerate them with: cargo run -q -- man --out dist/man && \
     for s in bash zsh fish; do cargo run -q -- completions $s > dist/completions/$(case $s in \
     bash) echo methodic.bash;; zsh) echo _methodic;; fish) echo methodic.fish;; esac); done";

#[test]
fn dist_holds_the_man_pages_and_completions_the_command_line_generates() {
    let dir = temp_dir("install-man");
    let o = methodic(&["man", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let shipped = root().join("dist/man");
    let pages = files_in(&dir);
    assert!(pages.contains(&"methodic.1".into()) && pages.contains(&"methodic-run.1".into()), "{pages:?}");
    assert_eq!(files_in(&shipped), pages, "dist/man has other pages than methodic writes; {REGENERATE}");
    for page in &pages {
        let made = std::fs::read_to_string(dir.join(page)).unwrap();
        let kept = std::fs::read_to_string(shipped.join(page)).unwrap();
        assert!(made == kept, "dist/man/{page} is not what `methodic man` writes; {REGENERATE}");
    }
    let o = methodic(&["man"]);
    assert_eq!(
        text(&o.stdout),
        std::fs::read_to_string(dir.join("methodic.1")).unwrap(),
        "man prints methodic(1)"
    );
    let _ = std::fs::remove_dir_all(&dir);

    for (shell, file) in [("bash", "methodic.bash"), ("zsh", "_methodic"), ("fish", "methodic.fish")] {
        let o = methodic(&["completions", shell]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let kept = std::fs::read_to_string(root().join("dist/completions").join(file)).unwrap();
        assert!(
            text(&o.stdout) == kept,
            "dist/completions/{file} is not what `methodic completions {shell}` prints; {REGENERATE}"
        );
    }
    let o = methodic(&["completions", "tcsh"]);
    assert!(!o.status.success() && text(&o.stderr).contains("possible values: bash"), "{}", text(&o.stderr));
}

/// What bash's completion offers after `words` (the last one being
/// completed), from the script at `script`.
fn bash_completes(script: &Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let line = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={}; COMP_LINE='{}'; COMP_POINT=${{#COMP_LINE}}; \
         _methodic methodic '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        words.len() - 1,
        words.join(" "),
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let o = run(Command::new("bash").args(["--norc", "-c", &line]));
    assert!(o.status.success(), "bash: {}", text(&o.stderr));
    text(&o.stdout).lines().map(str::to_string).collect()
}

/// The bash script completes commands, options and values: checked with
/// bash itself, as a user's shell runs it.
fn check_bash_completion(script: &Path) {
    let commands = bash_completes(script, &["methodic", "r"]);
    assert!(commands.contains(&"run".into()) && commands.contains(&"report".into()), "{commands:?}");
    let options = bash_completes(script, &["methodic", "run", "--re"]);
    assert!(options.contains(&"--rehearse".into()) && options.contains(&"--resume".into()), "{options:?}");
    let shells = bash_completes(script, &["methodic", "completions", ""]);
    assert!(shells.contains(&"bash".into()) && shells.contains(&"fish".into()), "{shells:?}");
}

#[test]
fn the_bash_completion_completes_commands_options_and_values() {
    check_bash_completion(&root().join("dist/completions/methodic.bash"));
}

/// The installed binary at `bin`: its version, the shipped spec checked,
/// and a short methodology rehearsed with its results reported.
fn check_installed(bin: &Path, spec: &Path, what: &str) {
    let o = run(Command::new(bin).arg("--version"));
    assert!(o.status.success(), "{what}: {}", text(&o.stderr));
    assert_eq!(text(&o.stdout).trim(), format!("methodic {}", env!("CARGO_PKG_VERSION")), "{what}");
    let o = run(Command::new(bin).arg("check").arg(spec));
    assert!(o.status.success(), "{what}: check {}: {}", spec.display(), text(&o.stderr));
    let dir = temp_dir(&format!("install-{}", what.replace(' ', "-")));
    let method = dir.join("tiny.method");
    std::fs::write(&method, TINY).unwrap();
    let out = dir.join("results");
    let o = run(Command::new(bin).arg("run").arg("--rehearse").arg(&method).arg("--out").arg(&out));
    assert!(o.status.success(), "{what}: {}", text(&o.stderr));
    let o = run(Command::new(bin).args(["report", "--format", "csv"]).arg(&out));
    assert!(o.status.success(), "{what}: {}", text(&o.stderr));
    assert!(text(&o.stdout).contains("measure/rnd4k_read-qd1"), "{what}: {}", text(&o.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_binary_cargo_install_built_runs() {
    let bin = root().join("target/ci-install/bin/methodic");
    if !bin.exists() {
        return skip(
            &format!("{} is missing", bin.display()),
            "run `cargo install --path . --locked --root target/ci-install --target-dir target` (.ci/run does)",
        );
    }
    check_installed(&bin, &root().join("specs/quick.method"), "cargo install");
}

/// The newest .deb cargo-deb wrote, if any.
fn built_deb() -> Option<PathBuf> {
    let dir = root().join("target/debian");
    let mut debs: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| {
            let p = e.ok()?.path();
            let name = p.file_name()?.to_str()?;
            (name.starts_with("methodic_") && name.ends_with(".deb"))
                .then(|| Some((p.metadata().ok()?.modified().ok()?, p.clone())))?
        })
        .collect();
    debs.sort();
    debs.pop().map(|(_, p)| p)
}

/// Removes the package when the test ends, however it ends.
struct Installed;

/// Debian's switch for man-db's index (`man-db/auto-update`: the file
/// /var/lib/man-db/auto-update), turned off while the test installs and
/// removes the package, and put back when it ends, however it ends.
/// Otherwise dpkg's man-db trigger rescans /usr/share/man/man1 (18,000
/// pages here) on the install and again on the removal: 6 of the test's 8
/// s of CPU alone, a minute of wall beside the other tests. `man -w` finds
/// the page without the index (man-db looks in the directories too), so
/// the check below is the same, and the index is left as it was.
struct ManIndexOff(Option<PathBuf>);

impl ManIndexOff {
    fn new() -> ManIndexOff {
        let on = Path::new("/var/lib/man-db/auto-update");
        let off = on.with_file_name("auto-update.methodic-test-off");
        ManIndexOff(std::fs::rename(on, &off).is_ok().then_some(off))
    }
}

impl Drop for ManIndexOff {
    fn drop(&mut self) {
        if let Some(off) = &self.0
            && let Err(e) = std::fs::rename(off, off.with_file_name("auto-update"))
        {
            eprintln!("warning: cannot put {} back: {e}", off.display());
        }
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        let _ = Command::new("dpkg").args(["--purge", "methodic"]).output();
    }
}

#[test]
fn the_deb_installs_the_binary_man_pages_completions_and_specs_and_runs() {
    let Some(deb) = built_deb() else {
        return skip(
            "no target/debian/methodic_*.deb",
            "build it with `cargo install cargo-deb && cargo deb` (.ci/run does)",
        );
    };
    if !common::is_root() {
        return skip("not root, and installing a .deb needs root", "run the tests as root, as CI does");
    }
    // Never replace a methodic the machine already has.
    let status = run(Command::new("dpkg-query").args(["-W", "-f", "${Status}", "methodic"]));
    if text(&status.stdout).contains("installed") && !text(&status.stdout).contains("not-installed") {
        return skip(
            "a methodic package is already installed here, and this test would replace it",
            "remove it (dpkg -r methodic) to run this test",
        );
    }
    // Dropped after `_installed` (in reverse order): the removal, too,
    // runs with the index off.
    let _index = ManIndexOff::new();
    let _installed = Installed;
    let o = run(Command::new("dpkg").arg("-i").arg(&deb));
    assert!(o.status.success(), "dpkg -i {}: {}{}", deb.display(), text(&o.stdout), text(&o.stderr));

    let listed = text(&run(Command::new("dpkg").args(["-L", "methodic"])).stdout);
    for f in [
        "/usr/bin/methodic",
        "/usr/share/man/man1/methodic.1.gz",
        "/usr/share/man/man1/methodic-run.1.gz",
        "/usr/share/bash-completion/completions/methodic",
        "/usr/share/zsh/vendor-completions/_methodic",
        "/usr/share/fish/vendor_completions.d/methodic.fish",
        "/usr/share/methodic/specs/quick.method",
        "/usr/share/doc/methodic/README.md",
    ] {
        assert!(listed.lines().any(|l| l == f), "the package installs {f}: {listed}");
        assert!(Path::new(f).exists(), "{f} is on the disk");
    }
    // man finds the page where it looks.
    if common::require_tool("man") {
        let o = run(Command::new("man").args(["-w", "methodic-run"]));
        assert_eq!(text(&o.stdout).trim(), "/usr/share/man/man1/methodic-run.1.gz", "{}", text(&o.stderr));
    }
    check_bash_completion(Path::new("/usr/share/bash-completion/completions/methodic"));
    check_installed(
        Path::new("/usr/bin/methodic"),
        Path::new("/usr/share/methodic/specs/quick.method"),
        "deb",
    );

    let o = run(Command::new("dpkg").args(["-r", "methodic"]));
    assert!(o.status.success(), "dpkg -r: {}", text(&o.stderr));
    assert!(!Path::new("/usr/bin/methodic").exists(), "removing the package removes the binary");
}
