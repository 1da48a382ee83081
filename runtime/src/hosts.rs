//! Runs on many hosts (`methodic run FILE --hosts HOSTS`): fio's
//! client/server mode is the engine, methodic the conductor. This module
//! owns what is fio's side of it: the hosts file (fio's host list, a
//! target after each host), asking each host's fio server what it is and
//! whether it can read its target before anything runs ([`probe`]), and
//! one I/O run on every host at once ([`run_io`]): the job each host gets,
//! `fio --client` started and stopped (a signal stops it on every host),
//! and its JSON+ output and per-interval logs read back into methodic's
//! counts, latency histograms (fio's bins, merged over the hosts, not
//! averaged) and series rows. Which steps may run this way, and how a
//! step's I/O becomes a job, is `exec::remote`'s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use methodic_results::manifest::HostNote;
use methodic_results::record::{HostRates, Mismatch, MismatchKind, VerifyResult};
use methodic_results::series::{FioInterval, Row};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::stats::Recorder;
use crate::workload::Op;

/// The clock fio's client and every job use. Given on the client's
/// command line and in each job, it spares each `fio --client` about a
/// second: fio 3.33's client calibrates its clock after sending the job
/// and before sending "run", and a server that finds nothing to read in
/// that gap waits up to 1000 ms before it looks again (server.c's
/// handle_connection). With the clock source named, the client calibrates
/// while parsing its options (before it connects) and the server while
/// parsing the job. clock_gettime is what methodic's own engines time by.
pub const CLOCKSOURCE: &str = "--clocksource=clock_gettime";

/// fio's default port for `--server` and `--client`.
pub const FIO_PORT: u16 = 8765;

/// One host of a run on many hosts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSpec {
    /// As fio's `--client=` takes it, and as the hosts file gives it:
    /// `ip:10.0.0.2,8765`, `bench-07`, `bench-07,8766`.
    pub client: String,
    /// The file or block device the steps run on there.
    pub target: String,
}

impl HostSpec {
    /// The address and port fio's JSON output names the host by: its
    /// `hostname` (the address or name connected to) and `port`.
    fn address(&self) -> (String, u16) {
        let (name, port) = split_host(&self.client);
        (name.to_string(), port.and_then(|p| p.parse().ok()).unwrap_or(FIO_PORT))
    }
}

/// The prefixes fio's `--client` takes before an address.
const FIO_PREFIXES: [&str; 3] = ["ip:", "ip4:", "ip6:"];

/// A host in fio's syntax as its name or address and its port, as fio
/// splits it: without the prefix, at the first comma.
fn split_host(client: &str) -> (&str, Option<&str>) {
    let rest = FIO_PREFIXES.iter().find_map(|p| client.strip_prefix(p)).unwrap_or(client);
    match rest.split_once(',') {
        Some((n, p)) => (n, Some(p)),
        None => (rest, None),
    }
}

/// Reads a hosts file: one host a line in fio's host-list syntax
/// (`ip:ADDR,PORT`, `ip6:ADDR,PORT`, `HOST`, `HOST,PORT`), then, after
/// white space, that host's target; a host without one gets `target`
/// (`--target`). Blank lines and `#` comments are skipped. A line without
/// a target is a line `fio --client=FILE` reads too.
pub fn parse_hosts(text: &str, file: &Path, target: Option<&str>) -> Result<Vec<HostSpec>> {
    let bad = |line: usize, message: String, hint: &str| Error::Hosts {
        message: format!("{}, line {line}: {message}", file.display()),
        hint: Some(hint.to_string()),
    };
    let mut hosts: Vec<HostSpec> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let client = words.next().unwrap_or_default().to_string();
        let own = words.next();
        if let Some(extra) = words.next() {
            return Err(bad(
                n + 1,
                format!("`{extra}` after the host and its target"),
                "a line is a host (fio's syntax: ip:ADDR,PORT or HOST[,PORT]) and, after a space, its target",
            ));
        }
        if let Some(why) = host_syntax(&client) {
            return Err(bad(
                n + 1,
                format!("`{client}` is not a host fio's --client takes: {why}"),
                "write ip:10.0.0.2,8765, ip6:fe80::1,8765, bench-07 or bench-07,8765",
            ));
        }
        let Some(t) = own.or(target) else {
            return Err(bad(
                n + 1,
                format!("{client} has no target"),
                "give its file or block device after it on the line, or --target PATH for every host",
            ));
        };
        if let Some(why) = target_syntax(t) {
            let whose = if own.is_some() { String::new() } else { " (from --target)".to_string() };
            return Err(bad(
                n + 1,
                format!("the target {t}{whose} {why}"),
                "name the target by a path without it (a symbolic link will do)",
            ));
        }
        let spec = HostSpec { client, target: t.to_string() };
        if let Some(same) = hosts.iter().find(|h| h.address() == spec.address()) {
            return Err(bad(
                n + 1,
                format!("{} is the same fio server as {}", spec.client, same.client),
                "name each host once: two runs on one server would share its target",
            ));
        }
        hosts.push(spec);
    }
    if hosts.is_empty() {
        return Err(Error::Hosts {
            message: format!("{} names no host", file.display()),
            hint: Some("write one host a line, fio's syntax: ip:10.0.0.2,8765 /dev/nvme0n1".into()),
        });
    }
    Ok(hosts)
}

/// Why `target` cannot be a host's target, a path in fio's job files and
/// in the shell commands hosts run (quoted there with `"`); `None` when
/// it can.
fn target_syntax(target: &str) -> Option<String> {
    if !target.starts_with('/') {
        return Some("is not an absolute path (a path on the host, from its root)".into());
    }
    let c = target.chars().find(|c| {
        matches!(c, ';' | '#' | '\'' | '"' | '\\' | '$' | '`') || c.is_whitespace() || c.is_control()
    })?;
    let c = if c.is_whitespace() || c.is_control() {
        "white space or a control character".to_string()
    } else {
        format!("`{c}`")
    };
    Some(format!("has {c}, which fio's job files and the hosts' shell commands cannot carry"))
}

/// Why `client` is not a host in fio's syntax; `None` when it is.
fn host_syntax(client: &str) -> Option<&'static str> {
    if client.starts_with("sock:") {
        return Some("a local socket is not a host of a run on many hosts");
    }
    let (name, port) = split_host(client);
    if name.is_empty() {
        return Some("no address");
    }
    if let Some(p) = port
        && !p.parse::<u16>().is_ok_and(|p| p > 0)
    {
        return Some("the port is not a number from 1 to 65535");
    }
    if (client.starts_with("ip:") || client.starts_with("ip4:"))
        && name.parse::<std::net::Ipv4Addr>().is_err()
    {
        return Some("ip: and ip4: take an IPv4 address");
    }
    if client.starts_with("ip6:") && name.parse::<std::net::Ipv6Addr>().is_err() {
        return Some("ip6: takes an IPv6 address");
    }
    if name.contains(|c: char| c.is_whitespace() || c == '/' || c == ',') {
        return Some("a host name has no spaces, slashes or commas");
    }
    None
}

/// How long a host may take to answer the probe before it counts as
/// unreachable.
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);

/// How many hosts are probed at once.
const PROBES_AT_ONCE: usize = 16;

/// Asks every host's fio server, before anything runs: what it is (its
/// name, OS, architecture and fio version, as it says on connecting), and
/// whether it can read 4KiB of its target (a file that is not there is
/// not created: `allow_file_create=0`). Nothing is written anywhere. Every
/// host that cannot is named in the one error.
pub fn probe(fio: &Path, hosts: &[HostSpec], work: &Path) -> Result<Vec<HostNote>> {
    if Command::new(fio).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_err() {
        return Err(Error::Hosts {
            message: format!(
                "{} cannot be run here: the conductor talks to the hosts through fio's client",
                fio.display()
            ),
            hint: Some("install fio (apt-get install fio), or give its path with --fio".into()),
        });
    }
    std::fs::create_dir_all(work).map_err(|e| Error::io(format!("cannot create {}", work.display()), e))?;
    let mut notes: Vec<Option<std::result::Result<HostNote, String>>> = vec![None; hosts.len()];
    for (chunk, out) in hosts.chunks(PROBES_AT_ONCE).zip(notes.chunks_mut(PROBES_AT_ONCE)) {
        std::thread::scope(|scope| {
            for (h, slot) in chunk.iter().zip(out.iter_mut()) {
                scope.spawn(move || *slot = Some(probe_one(fio, h, work)));
            }
        });
    }
    let mut found = Vec::new();
    let mut failed = Vec::new();
    for (h, n) in hosts.iter().zip(notes) {
        match n.unwrap_or_else(|| Err("not probed".into())) {
            Ok(note) => found.push(note),
            Err(why) => failed.push(format!("{}: {why}", h.client)),
        }
    }
    if !failed.is_empty() {
        return Err(Error::Hosts {
            message: format!(
                "{} of {} cannot run the methodology, so nothing ran: {}",
                methodic_compiler::plan::plural(failed.len() as u64, "host", "hosts"),
                hosts.len(),
                failed.join("; ")
            ),
            hint: Some(
                "start fio's server there (`fio --server` or its systemd service), check the address and \
                 port, and that the target exists"
                    .into(),
            ),
        });
    }
    Ok(found)
}

fn probe_one(fio: &Path, h: &HostSpec, work: &Path) -> std::result::Result<HostNote, String> {
    let (addr, port) = h.address();
    let job = work.join(format!("probe-{}-{port}.fio", sanitize(&addr)));
    let text = format!(
        "; methodic: can this host read its target? Nothing is written.\n[global]\nthread\n\
         allow_file_create=0\nclocksource=clock_gettime\n; the hosts run commands before each job\n\
         exec_prerun=true\n[probe]\nfilename={}\nrw=read\nbs=4k\nsize=4k\n",
        h.target.replace(':', "\\:")
    );
    std::fs::write(&job, text).map_err(|e| format!("cannot write {}: {e}", job.display()))?;
    let out_path = job.with_extension("out");
    let out =
        std::fs::File::create(&out_path).map_err(|e| format!("cannot write {}: {e}", out_path.display()))?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let mut child = Command::new(fio)
        .arg(CLOCKSOURCE)
        .arg(format!("--client={}", h.client))
        .arg(&job)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", fio.display()))?;
    let clock = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if clock.elapsed() > PROBE_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no answer in {} seconds", PROBE_TIMEOUT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(e.to_string()),
        }
    };
    let text = std::fs::read_to_string(&out_path).unwrap_or_default();
    let said = fio_said(&text);
    if !status.success() || text.contains("exited with error") {
        return Err(if said.is_empty() { "fio failed without saying why".into() } else { said.join("; ") });
    }
    // fio skips a job whose exec_prerun failed, and says nothing of it.
    if !text.contains("issued rwts: total=1,") {
        return Err(
            "its read did not run: fio skips a job whose command before it (exec_prerun) failed, as when \
                    the fio server's working directory is not writable (the command's output goes there)"
                .into(),
        );
    }
    let mut note = HostNote {
        host: h.client.clone(),
        target: h.target.clone(),
        hostname: None,
        os: None,
        arch: None,
        fio_version: None,
        kernel: None,
        cpu: None,
        disks: Vec::new(),
    };
    // `hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1`
    if let Some(line) = text.lines().find(|l| l.starts_with("hostname=")) {
        for field in line.split(", ") {
            match field.split_once('=') {
                Some(("hostname", v)) => note.hostname = Some(v.to_string()),
                Some(("os", v)) => note.os = Some(v.to_string()),
                Some(("arch", v)) => note.arch = Some(v.to_string()),
                Some(("fio", v)) => note.fio_version = Some(v.to_string()),
                _ => {}
            }
        }
    }
    // `Disk stats (read/write):` then `  vda: ios=...`.
    if let Some(at) = text.find("Disk stats") {
        note.disks = text[at..]
            .lines()
            .skip(1)
            .filter_map(|l| l.trim().split_once(": ios=").map(|(d, _)| d.to_string()))
            .collect();
    }
    Ok(note)
}

/// fio's own messages in its output: `fio: ...` lines and a host's
/// `client <...>: exited with error N`, without the `<host>` prefix a
/// server's lines carry.
fn fio_said(text: &str) -> Vec<String> {
    text.lines()
        .map(unprefixed)
        .filter(|l| {
            l.starts_with("fio:")
                || l.starts_with("client")
                || l.contains("exited with error")
                || l.starts_with("Bad option")
        })
        .map(str::to_string)
        .collect()
}

/// A line of fio's client output without the `<host> ` a server's lines
/// carry, trimmed.
fn unprefixed(line: &str) -> &str {
    line.strip_prefix('<').and_then(|r| r.split_once("> ")).map_or(line, |(_, rest)| rest).trim()
}

fn sanitize(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect()
}

/// Runs a shell command on every host before a 4KiB read of its target,
/// by fio's own `exec_prerun` (the k-th command on the k-th host), with
/// one `fio --client` in `dir`. fio skips the read of a host whose command
/// failed: such hosts are named in the error (the command's output stays
/// on the host, in `NAME.prerun.txt` in its fio server's folder).
pub fn run_commands(
    fio: &Path,
    hosts: &[HostSpec],
    name: &str,
    commands: &[String],
    dir: &Path,
    stop: &AtomicBool,
) -> Result<()> {
    let jobs: Vec<String> = hosts
        .iter()
        .zip(commands)
        .map(|(h, c)| {
            format!(
                "; methodic: {name} on this host, then a 4KiB read of its target\n[global]\nthread\n\
                 allow_file_create=0\nclocksource=clock_gettime\n[{name}]\nfilename={}\nexec_prerun={c}\nrw=read\nbs=4k\nsize=4k\n",
                h.target.replace(':', "\\:")
            )
        })
        .collect();
    // A host whose command failed ran no read: run_io names it.
    run_io(fio, hosts, &HostJobs { jobs, intervals_ms: vec![None], verify: Vec::new() }, dir, stop)
        .map(|_| ())
}

/// The shell command that discards `span` of `target` from its start, on
/// a host: `blkdiscard` for a block device, a punched hole for a file.
/// `span` is bytes, or hundredths of a percent of the target's size.
pub fn discard_command(target: &str, span: std::result::Result<u64, u32>) -> String {
    // Whole 4KiB blocks: blkdiscard refuses a length off the sector size.
    let length = |size: &str| match span {
        Ok(bytes) => (bytes / 4096 * 4096).to_string(),
        Err(hundredths) => format!("$(( $({size}) * {hundredths} / 10000 / 4096 * 4096 ))"),
    };
    // fio's job files take `;` as a comment: no `if ...; then`. `exec`
    // ends the shell with the first command that ran, so that a failed
    // blkdiscard is the command's failure, not a fallocate on a device.
    format!(
        "sh -c '[ -b \"{t}\" ] && exec blkdiscard -o 0 -l {} -- \"{t}\" || exec fallocate --punch-hole -o 0 -l {} -- \"{t}\"'",
        length(&format!("blockdev --getsize64 \"{target}\"")),
        length(&format!("stat -L -c %s \"{target}\"")),
        t = target
    )
}

/// The shell command that drops a host's page cache, as `drop_caches`
/// does on this machine.
pub const DROP_CACHES_COMMAND: &str = "sh -c 'sync && echo 3 > /proc/sys/vm/drop_caches'";

/// I/O runs on every host at once, ready for `fio --client`: a job
/// file a host, holding the runs (in turn or at once, a reporting group
/// each, in order), and the interval each run's logs are averaged over
/// (`None`: no logs), one a run.
pub struct HostJobs {
    pub jobs: Vec<String>,
    pub intervals_ms: Vec<Option<u64>>,
    /// Each run is checked by fio's own verify (its jobs have
    /// `verify=crc32c` and `continue_on_error=verify`): its reads are the
    /// read-back, not the run's I/O, and a host's mismatches do not fail
    /// the session. Empty: none is.
    pub verify: Vec<bool>,
}

/// What fio's own verify found in one I/O run on every host: the blocks
/// written (each with fio's header), read back and checked once the
/// writes ended, how many did not match (fio's `total_err`, every one
/// counted, as `continue_on_error=verify` goes on past them), the first
/// from fio's messages, and the longest host's read-back, in seconds;
/// `block` (the bytes fio checks as one, its header at their head) is
/// the caller's to set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FioVerified {
    pub block: u64,
    pub written: u64,
    pub checked: u64,
    pub mismatches: u64,
    pub first: Vec<Mismatch>,
    pub seconds: f64,
}

/// fio's errno for a block its verify found not to match (EILSEQ).
const VERIFY_ERRNO: i64 = libc::EILSEQ as i64;

/// What one I/O run did on every host: all of them together (their
/// counts added, their latency histograms merged), each host's share,
/// the series rows (each interval's IOPS and bandwidth added over the
/// hosts, its mean latency weighted by their I/Os), and the raw output.
pub struct HostsRun {
    pub recorder: Recorder,
    /// The longest host's runtime: the seconds the total is over.
    pub seconds: f64,
    pub hosts: Vec<HostRates>,
    pub rows: Vec<Row>,
    pub bytes_written: u64,
    /// I/Os in flight, added over the hosts: each host's from fio's
    /// distribution of depths (each bucket at its middle, at most the job's depth) times its
    /// threads.
    pub mean_inflight: f64,
    /// When each host's record window began, Unix time in milliseconds
    /// on its clock (from its logs); empty without logs.
    pub starts: Vec<Option<u64>>,
    /// A run checked by fio's own verify: what it found.
    pub verified: Option<FioVerified>,
}

/// The prefix of the k-th host's logs (from 0) of I/O run `run` (from 0)
/// of `runs` in a session's folder: fio's client names a log by its
/// prefix, clone and the host's address only, so two servers on one
/// address, or two runs, would otherwise write the same file. A prefix
/// has no `_`: [`series_rows`] reads a log's prefix up to it.
pub fn log_prefix(k: usize, run: usize, runs: usize) -> String {
    if runs > 1 { format!("host-{}-run{}", k + 1, run + 1) } else { format!("host-{}", k + 1) }
}

/// A shell command for fio's `exec_prerun` that waits until `at_ns`
/// (Unix time, nanoseconds) on the host's clock, so that every host's job
/// starts then, however late fio's server took the "run" (GNU date's %N;
/// no wait when the time has passed). A host whose clock is behind waits
/// at most `most_ns`, not until its clock gets there.
pub fn start_at_command(at_ns: u128, most_ns: u128) -> String {
    format!(
        "sh -c 'd=$(( {at_ns} - $(date +%s%N) )) && d=$(( d > {most_ns} ? {most_ns} : d )) && [ $d -gt 0 ] && sleep \
         $(( d / 1000000000 )).$(printf %09d $(( d % 1000000000 ))) || true'"
    )
}

/// Runs `jobs` on `hosts` (the k-th job file on the k-th host) with one
/// `fio --client` in `dir`, which keeps the job files, fio's output and
/// the logs it brings back; what each of its I/O runs did, in turn. `stop`
/// set (a signal) stops fio on every host. A host that fio lost, or whose
/// job failed, fails them all, named.
pub fn run_io(
    fio: &Path,
    hosts: &[HostSpec],
    jobs: &HostJobs,
    dir: &Path,
    stop: &AtomicBool,
) -> Result<Vec<HostsRun>> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
    let mut cmd = client(fio, hosts, jobs, dir)?;
    let child = cmd.spawn().map_err(|e| Error::io(format!("cannot run {}", fio.display()), e))?;
    let (status, killed) = wait(child, stop)?;
    let stdout = std::fs::read_to_string(dir.join(OUTPUT_FILE)).unwrap_or_default();
    let stderr = std::fs::read_to_string(dir.join(STDERR_FILE)).unwrap_or_default();
    if killed {
        let all: Vec<&str> = hosts.iter().map(|h| h.client.as_str()).collect();
        return Err(Error::Hosts {
            message: format!(
                "fio's client did not stop within 20 seconds of being asked, and was killed: the job may still run \
                 on {}",
                all.join(", ")
            ),
            hint: Some("restart the fio server on those hosts before going on".into()),
        });
    }
    if stop.load(Ordering::SeqCst) {
        return Err(Error::Interrupted);
    }
    let said: Vec<String> = fio_said(&stdout).into_iter().chain(fio_said(&stderr)).collect();
    let json = stdout
        .find("\n{")
        .map(|i| &stdout[i + 1..])
        .or_else(|| stdout.strip_prefix('{').map(|_| &stdout[..]));
    let parsed: Option<Value> =
        json.and_then(|j| serde_json::Deserializer::from_str(j).into_iter().next()?.ok());
    let runs = jobs.intervals_ms.len();
    let groups: Vec<Vec<Option<&Value>>> = (0..runs).map(|g| per_host(parsed.as_ref(), hosts, g)).collect();
    let verifies = |g: usize| jobs.verify.get(g).copied().unwrap_or(false);
    check_hosts(hosts, &groups, &verifies, status, &said, dir)?;
    // The session's files, listed once for all its runs' logs.
    let files = session_files(dir);
    Ok(groups
        .into_iter()
        .zip(&jobs.intervals_ms)
        .enumerate()
        .map(|(g, (per_host, interval_ms))| {
            let per_host: Vec<&Value> = per_host.into_iter().flatten().collect();
            let prefixes: Vec<String> = (0..hosts.len()).map(|k| log_prefix(k, g, runs)).collect();
            let mut run = merge(hosts, &per_host, *interval_ms, &files, &prefixes, verifies(g));
            if let Some(v) = run.verified.as_mut() {
                v.first = mismatches_said(&stdout, hosts);
            }
            run
        })
        .collect())
}

/// The mismatches fio's verify names in its output (`text`), at most
/// [`VerifyResult::LISTED`], in its words (fio's verify.c): `verify: bad
/// magic header 0, wanted acca at file F offset O, length L (...)`, or
/// `crc32c: verify failed at file F offset O, ...` and the lines
/// `Expected CRC: X` and `Received CRC: Y` after it; each named by its
/// file and, where one host has that target, the host.
fn mismatches_said(text: &str, hosts: &[HostSpec]) -> Vec<Mismatch> {
    let lines: Vec<&str> = text.lines().map(unprefixed).collect();
    let after = |i: usize, key: &str| {
        lines.iter().skip(i + 1).take(2).find_map(|l| l.strip_prefix(key)).map(str::trim)
    };
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let (what, rest) = l.split_once(" at file ")?;
            let (file, rest) = rest.split_once(" offset ")?;
            let offset: u64 = rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()?;
            let what = what.split_once(": ").map_or(what, |(_, w)| w);
            let (kind, expected, found) = match what.split_once(", wanted ") {
                Some((got, wanted)) => {
                    let (field, value) = got.rsplit_once(' ').unwrap_or((got, ""));
                    let field = field.trim_start_matches("bad ");
                    let kind = match field {
                        "magic header" => MismatchKind::NotStamped,
                        "header offset" => MismatchKind::Misplaced,
                        "header numberio" => MismatchKind::Stale,
                        _ => MismatchKind::Corrupted,
                    };
                    (kind, format!("fio's {field} {wanted}"), format!("{field} {value}"))
                }
                None => (
                    MismatchKind::Corrupted,
                    after(i, "Expected CRC:").map_or("the checksum in fio's header".into(), |c| {
                        format!("checksum {c}, fio's header's")
                    }),
                    after(i, "Received CRC:")
                        .map_or(format!("another ({what})"), |c| format!("checksum {c}")),
                ),
            };
            let on: Vec<&HostSpec> = hosts.iter().filter(|h| h.target == file).collect();
            let target = match on[..] {
                [one] => format!("{file} on {}", one.client),
                _ => file.to_string(),
            };
            Some(Mismatch { target, offset, kind, expected, found })
        })
        .take(VerifyResult::LISTED)
        .collect()
}

/// The files in a session's folder `dir` (its job files, output and the
/// logs fio's client brought back), in name order.
pub fn session_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|e| e.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    files.sort();
    files
}

/// Where fio's client writes its output, in the run's folder.
const OUTPUT_FILE: &str = "output.json";

/// Where fio's client writes its standard error, in the run's folder.
const STDERR_FILE: &str = "stderr.txt";

/// `fio --client` for `jobs` on `hosts`, to run in `dir`: each host's
/// job file written there, fio's output and standard error sent to files
/// there, in a process group of its own, told to stop the hosts' jobs
/// should methodic die.
fn client(fio: &Path, hosts: &[HostSpec], jobs: &HostJobs, dir: &Path) -> Result<Command> {
    let mut cmd = Command::new(fio);
    // Its own process group: a Ctrl-C at the terminal reaches methodic,
    // which stops fio once (see `wait`), not fio twice.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    cmd.arg("--output-format=json+").arg(CLOCKSOURCE).current_dir(dir).stdin(Stdio::null());
    for (k, (h, job)) in hosts.iter().zip(&jobs.jobs).enumerate() {
        let name = format!("host-{}.fio", k + 1);
        std::fs::write(dir.join(&name), job)
            .map_err(|e| Error::io(format!("cannot write {}", dir.join(&name).display()), e))?;
        cmd.arg(format!("--client={}", h.client)).arg(name);
    }
    let out_path = dir.join(OUTPUT_FILE);
    let out = std::fs::File::create(&out_path)
        .map_err(|e| Error::io(format!("cannot write {}", out_path.display()), e))?;
    let err_path = dir.join(STDERR_FILE);
    let err = std::fs::File::create(&err_path)
        .map_err(|e| Error::io(format!("cannot write {}", err_path.display()), e))?;
    cmd.stdout(out).stderr(err);
    // Should methodic die, fio's client is told to stop the hosts' jobs
    // as a Ctrl-C would (it is in a process group of its own).
    // SAFETY: the closure runs in the child between fork and exec and calls only prctl, which is
    // async-signal-safe and allocates nothing.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGINT);
            Ok(())
        });
    }
    Ok(cmd)
}

/// Each host's report of its I/O run `group` (from 0; fio's reporting
/// group) in fio's JSON+ output (its `client_stats` but the "All clients"
/// total), by the host's place in `hosts`, matched by the address and
/// port fio names it by; `None` for a host with none.
fn per_host<'v>(output: Option<&'v Value>, hosts: &[HostSpec], group: usize) -> Vec<Option<&'v Value>> {
    let stats: Vec<&Value> = output
        .and_then(|v| v["client_stats"].as_array())
        .map(|a| {
            a.iter()
                .filter(|j| j["jobname"].as_str() != Some("All clients"))
                .filter(|j| j["groupid"].as_u64().unwrap_or(0) == group as u64)
                .collect()
        })
        .unwrap_or_default();
    let mut per_host: Vec<Option<&Value>> = vec![None; hosts.len()];
    for j in &stats {
        let at =
            (j["hostname"].as_str().unwrap_or_default().to_string(), j["port"].as_u64().unwrap_or(0) as u16);
        if let Some(k) = hosts.iter().position(|h| h.address() == at) {
            per_host[k] = Some(j);
        }
    }
    per_host
}

/// Fails the runs, in words, when a host sent no result of one, had I/O
/// errors or did not run its job (`groups`: each I/O run's report a
/// host), or when fio's client ended with a failure (`status`); what fio
/// `said` goes with it, and where its output is.
fn check_hosts(
    hosts: &[HostSpec],
    groups: &[Vec<Option<&Value>>],
    verifies: &dyn Fn(usize) -> bool,
    status: std::process::ExitStatus,
    said: &[String],
    dir: &Path,
) -> Result<()> {
    let mut what = Vec::new();
    for (g, per_host) in groups.iter().enumerate() {
        let which = |list: Vec<&str>| {
            let on = list.join(", ");
            if groups.len() > 1 { format!("{on} (I/O run {} of {})", g + 1, groups.len()) } else { on }
        };
        let missing: Vec<&str> =
            hosts.iter().zip(per_host).filter(|(_, j)| j.is_none()).map(|(h, _)| h.client.as_str()).collect();
        // A block fio's verify found not to match is the step's finding,
        // not a host's failure.
        let failure = |e: i64| e != 0 && !(verifies(g) && e == VERIFY_ERRNO);
        let failed: Vec<&str> = hosts
            .iter()
            .zip(per_host)
            .filter(|(_, j)| j.is_some_and(|j| failure(j["error"].as_i64().unwrap_or(0))))
            .map(|(h, _)| h.client.as_str())
            .collect();
        // fio skips a job whose exec_prerun failed, and reports no error.
        let idle: Vec<&str> = hosts
            .iter()
            .zip(per_host)
            .filter(|(_, j)| {
                j.is_some_and(|j| {
                    j["error"].as_i64().unwrap_or(0) == 0
                        && ["read", "write", "trim"]
                            .iter()
                            .all(|d| j[*d]["total_ios"].as_u64().unwrap_or(0) == 0)
                })
            })
            .map(|(h, _)| h.client.as_str())
            .collect();
        if !missing.is_empty() {
            what.push(format!("no result from {}", which(missing)));
        }
        if !failed.is_empty() {
            what.push(format!("I/O errors on {}", which(failed)));
        }
        if !idle.is_empty() {
            what.push(format!(
                "the job did not run on {}: fio skips a job whose command before it (exec_prerun) failed; the \
                 command's output is in JOB.prerun.txt in that fio server's working directory, which must be \
                 writable",
                which(idle)
            ));
        }
        // A host lost is lost for every run after: named once.
        if !what.is_empty() {
            break;
        }
    }
    if what.is_empty() && status.success() {
        return Ok(());
    }
    if what.is_empty() {
        what.push(format!("fio ended with {status}"));
    }
    if !said.is_empty() {
        what.push(format!("fio said: {}", said.join("; ")));
    }
    Err(Error::Hosts {
        message: what.join("; "),
        hint: Some(format!("fio's output and the jobs are in {}", dir.display())),
    })
}

/// Waits for fio's client; `stop` set sends it SIGINT (fio then stops the
/// job on every host and reports), and SIGKILL when it has not ended 20
/// seconds later. Its status, and whether it had to be killed.
fn wait(mut child: Child, stop: &AtomicBool) -> Result<(std::process::ExitStatus, bool)> {
    let mut asked: Option<Instant> = None;
    let mut killed = false;
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Ok((s, killed)),
            Ok(None) => {}
            Err(e) => return Err(Error::io("waiting for fio", e)),
        }
        if stop.load(Ordering::SeqCst) {
            match asked {
                None => {
                    // SAFETY: kill takes numbers only; `child` has not been waited for, so its pid
                    // is still its own.
                    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
                    asked = Some(Instant::now());
                }
                Some(t) if t.elapsed() > Duration::from_secs(20) && !killed => {
                    let _ = child.kill();
                    killed = true;
                }
                Some(_) => {}
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Each host's report of one I/O run read into methodic's counts, and all
/// of them merged; the series from the logs among the session's `files`
/// named by each host's prefix (`prefixes`, [`log_prefix`]). A run that
/// `verifies` (fio's own verify, of a step that only writes): its reads
/// are fio's read-back, counted as what the verify checked, not as I/O.
fn merge(
    hosts: &[HostSpec],
    per_host: &[&Value],
    interval_ms: Option<u64>,
    files: &[PathBuf],
    prefixes: &[String],
    verifies: bool,
) -> HostsRun {
    let mut total = Recorder::default();
    let mut rates = Vec::with_capacity(hosts.len());
    let mut seconds: f64 = 0.0;
    let mut written = 0;
    let mut inflight = 0.0;
    let mut verified = verifies.then(FioVerified::default);
    for (h, j) in hosts.iter().zip(per_host) {
        let mut r = Recorder::default();
        let mut runtime_ms: u64 = 0;
        if let Some(v) = verified.as_mut() {
            v.written += j["write"]["total_ios"].as_u64().unwrap_or(0);
            v.checked += j["read"]["total_ios"].as_u64().unwrap_or(0);
            v.mismatches += j["total_err"].as_u64().unwrap_or(0);
            v.seconds = v.seconds.max(j["read"]["runtime"].as_u64().unwrap_or(0) as f64 / 1000.0);
        }
        for (op, key) in [(Op::Read, "read"), (Op::Write, "write"), (Op::Trim, "trim")] {
            if verifies && op == Op::Read {
                continue;
            }
            let d = &j[key];
            let ios = d["total_ios"].as_u64().unwrap_or(0);
            let bytes = d["io_bytes"].as_u64().unwrap_or(0);
            runtime_ms = runtime_ms.max(d["runtime"].as_u64().unwrap_or(0));
            let bins = d["clat_ns"]["bins"]
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| Some((k.parse::<u64>().ok()?, v.as_u64()?)));
            r.add_counted(op, ios, bytes, bins);
            if op == Op::Write {
                written += bytes;
            }
        }
        let s = runtime_ms as f64 / 1000.0;
        seconds = seconds.max(s);
        inflight += mean_depth(&j["iodepth_level"], iodepth_of(j)) * threads_of(j);
        let sum = r.summary(s);
        rates.push(HostRates {
            host: h.client.clone(),
            target: h.target.clone(),
            cell: None,
            job: None,
            seconds: s,
            total: sum.total,
            read: sum.read,
            write: sum.write,
        });
        total.merge(&r);
    }
    let (rows, starts) = match interval_ms {
        Some(ms) => series_rows(files, prefixes, ms),
        None => (Vec::new(), Vec::new()),
    };
    HostsRun {
        recorder: total,
        seconds,
        hosts: rates,
        rows,
        bytes_written: written,
        mean_inflight: inflight,
        starts,
        verified,
    }
}

/// The mean of fio's `iodepth_level` (the share of submissions at each
/// depth bucket, in percent) for a job `iodepth` deep. A bucket is named
/// by its lower edge and reaches to the next one (`4` is depths 4 to 7,
/// `>=64` 64 and up): each counts at its middle, at most `iodepth`.
fn mean_depth(levels: &Value, iodepth: f64) -> f64 {
    levels
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| {
            let low = k.trim_start_matches(">=").parse::<f64>().ok()?;
            let high = if k.starts_with(">=") { iodepth.max(low) } else { (2.0 * low - 1.0).max(low) };
            Some((((low + high) / 2.0).min(iodepth.max(1.0)), v.as_f64()?))
        })
        .map(|(depth, pct)| depth * pct / 100.0)
        .sum()
}

/// A job's iodepth option (1 when not given).
fn iodepth_of(job: &Value) -> f64 {
    job["job options"]["iodepth"].as_str().and_then(|n| n.parse().ok()).unwrap_or(1.0)
}

/// The clones a job ran: its numjobs option (1 when not given).
fn threads_of(job: &Value) -> f64 {
    job["job options"]["numjobs"].as_str().and_then(|n| n.parse().ok()).unwrap_or(1.0)
}

/// One log of a host: its kind (`iops`, `bw` or `clat`), its clone (the
/// rest of its name), and its lines (time, value, direction).
type HostLog = (String, String, Vec<(u64, f64, usize)>);

/// The series rows of an I/O run's logs among a session's `files`
/// ([`session_files`]), the k-th host's named by the k-th of `prefixes` ([`log_prefix`]: `host-K_iops.N.log.ADDRESS`,
/// `_bw`, `_clat`, one a clone): each log line
/// is an interval's average, `TIME_MS, VALUE, DIRECTION, ...`, its time
/// the host's wall clock (`log_unix_epoch`). A host's record window began
/// an interval before its first line; the rows count from the first
/// host's, and a line goes to the interval its time rounds to from there.
/// IOPS and bandwidth are added over every clone and host; the mean
/// latency is weighted by each one's I/Os. fio logs no percentile an
/// interval: `p99_latency_us` is NaN. Also when each host's window began,
/// Unix time in milliseconds (`None` for a host without logs).
pub fn series_rows(files: &[PathBuf], prefixes: &[String], interval_ms: u64) -> (Vec<Row>, Vec<Option<u64>>) {
    let lines = |p: &Path| methodic_fio::read_log(&std::fs::read_to_string(p).unwrap_or_default());
    // Each file goes to its host by the prefix before its first `_` (a
    // prefix has none): one pass over a session's files for all hosts.
    let host_of: BTreeMap<&str, usize> = prefixes.iter().enumerate().map(|(k, p)| (p.as_str(), k)).collect();
    let mut logs: Vec<Vec<HostLog>> = vec![Vec::new(); prefixes.len()];
    for p in files {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let Some((prefix, rest)) = name.split_once('_') else { continue };
        let Some(&k) = host_of.get(prefix) else { continue };
        let Some((kind, clone)) = rest.split_once('.') else { continue };
        if matches!(kind, "iops" | "bw" | "clat") {
            logs[k].push((kind.to_string(), clone.to_string(), lines(p)));
        }
    }
    let began: Vec<Option<u64>> = logs
        .iter()
        .map(|own| {
            own.iter()
                .filter(|(k, _, _)| k == "iops")
                .filter_map(|(_, _, l)| l.first().map(|f| f.0.saturating_sub(interval_ms)))
                .min()
        })
        .collect();
    let Some(t0) = began.iter().flatten().copied().min() else {
        return (Vec::new(), vec![None; prefixes.len()]);
    };
    // Each host's lines fall on its own grid, an interval apart from its
    // start: placed on it, then shifted by its start's whole intervals
    // after the first host's, a line's few milliseconds of jitter never
    // moves it to a neighbour's interval.
    let mut at: BTreeMap<u64, FioInterval> = BTreeMap::new();
    for (own, began) in logs.iter().zip(&began) {
        let Some(began) = *began else { continue };
        let shift = ((began - t0) as f64 / interval_ms as f64).round() as u64;
        let slot =
            |t: u64| shift + ((t.saturating_sub(began) as f64 / interval_ms as f64).round() as u64).max(1);
        // A clone's IOPS an interval, for weighting its latency.
        let mut iops_of: BTreeMap<(&str, u64, usize), f64> = BTreeMap::new();
        for (kind, clone, lines) in own {
            for &(t, v, d) in lines {
                let s = at.entry(slot(t)).or_default();
                match kind.as_str() {
                    "iops" => {
                        s.iops[d] += v;
                        *iops_of.entry((clone.as_str(), slot(t), d)).or_default() += v;
                    }
                    "bw" => s.kib_s += v,
                    _ => {}
                }
            }
        }
        for (_, clone, lines) in own.iter().filter(|(k, _, _)| k == "clat") {
            for &(t, v, d) in lines {
                let ios = iops_of.get(&(clone.as_str(), slot(t), d)).copied().unwrap_or(0.0);
                let s = at.entry(slot(t)).or_default();
                s.lat_weighted_ns += v * ios;
                s.lat_ios += ios;
            }
        }
    }
    (FioInterval::rows(at, interval_ms), began)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, target: Option<&str>) -> Result<Vec<HostSpec>> {
        parse_hosts(text, Path::new("hosts"), target)
    }

    /// fio's output of one session of two runs on two hosts is split by
    /// reporting group; a host missing from the second run is named with
    /// the run, and fails them all.
    #[test]
    fn a_session_s_runs_are_its_reporting_groups_and_a_missing_one_is_named() {
        let hosts = parse("ip:10.0.0.2 /dev/sdb\nip:10.0.0.3 /dev/sdb\n", None).unwrap();
        let job = |host: &str, group: u64, ios: u64| {
            serde_json::json!({"jobname": "r", "groupid": group, "hostname": host, "port": 8765, "error": 0,
                "read": {"total_ios": ios}, "write": {"total_ios": 0}, "trim": {"total_ios": 0}})
        };
        let output = serde_json::json!({"client_stats": [
            job("10.0.0.2", 0, 10), job("10.0.0.3", 0, 11), job("10.0.0.2", 1, 12),
            {"jobname": "All clients", "groupid": 0, "hostname": "10.0.0.2", "port": 8765}
        ]});
        let groups: Vec<Vec<Option<&Value>>> = (0..2).map(|g| per_host(Some(&output), &hosts, g)).collect();
        let ios = |v: Option<&Value>| v.map(|j| j["read"]["total_ios"].as_u64().unwrap());
        assert_eq!(groups[0].iter().map(|j| ios(*j)).collect::<Vec<_>>(), [Some(10), Some(11)]);
        assert_eq!(groups[1].iter().map(|j| ios(*j)).collect::<Vec<_>>(), [Some(12), None]);
        let ok = <std::process::ExitStatus as std::os::unix::process::ExitStatusExt>::from_raw(0);
        let Err(Error::Hosts { message, .. }) =
            check_hosts(&hosts, &groups, &|_| false, ok, &[], Path::new("out"))
        else {
            panic!("a host missing from a run passed")
        };
        assert_eq!(message, "no result from ip:10.0.0.3 (I/O run 2 of 2)");
        assert!(check_hosts(&hosts, &groups[..1], &|_| false, ok, &[], Path::new("out")).is_ok());
    }

    /// fio's verify messages (as fio 3.33's client printed them, each
    /// line behind the server's name) become mismatches: a checksum with
    /// the CRCs expected and received, a header that is not fio's, named
    /// by file and the one host with that target.
    #[test]
    fn fio_s_verify_messages_are_mismatches_with_their_offsets() {
        let hosts = parse("ip:10.0.0.2 /dev/sdb\nip:10.0.0.3 /dev/sdc\n", None).unwrap();
        let said = "<vm> 1-fill-s: (g=0): rw=write, bs=(R) 4096B-4096B, ioengine=psync, iodepth=1\n\
            <vm> crc32c: verify failed at file /dev/sdc offset 8192, length 4096 (requested block: offset=8192, \
            length=4096, flags=88)\n<vm>        Expected CRC: c68a43d5\n<vm>        Received CRC: 45528c87\n\
            <vm> verify: bad magic header 5335, wanted acca at file /dev/sdc offset 12288, length 4096 \
            (requested block: offset=12288, length=4096)\n\
            <vm> verify: bad header offset 0, wanted 16384 at file /dev/sdx offset 16384, length 4096\n";
        let m = mismatches_said(said, &hosts);
        let words: Vec<String> = m.iter().map(Mismatch::words).collect();
        assert_eq!(
            words,
            [
                "at offset 8192 of /dev/sdc on ip:10.0.0.3: corrupted (expected checksum c68a43d5, fio's \
                 header's, found checksum 45528c87)",
                "at offset 12288 of /dev/sdc on ip:10.0.0.3: not written with verify (expected fio's magic \
                 header acca, found magic header 5335)",
                "at offset 16384 of /dev/sdx: misplaced (another offset's block) (expected fio's header offset \
                 16384, found header offset 0)",
            ]
        );
    }

    #[test]
    fn a_hosts_file_is_fio_s_host_list_with_a_target_after_each_host() {
        let h = parse(
            "# the rack\nip:10.0.0.2,8765 /dev/nvme0n1\n\nbench-07  /dev/sdb # spare\nip4:10.0.0.3\nbench-08,8766\n",
            Some("/dev/nvme1n1"),
        )
        .unwrap();
        let got: Vec<(&str, &str)> = h.iter().map(|h| (h.client.as_str(), h.target.as_str())).collect();
        assert_eq!(
            got,
            [
                ("ip:10.0.0.2,8765", "/dev/nvme0n1"),
                ("bench-07", "/dev/sdb"),
                ("ip4:10.0.0.3", "/dev/nvme1n1"),
                ("bench-08,8766", "/dev/nvme1n1")
            ]
        );
        assert_eq!(h[2].address(), ("10.0.0.3".to_string(), FIO_PORT));
        assert_eq!(h[3].address(), ("bench-08".to_string(), 8766));
    }

    #[test]
    fn a_bad_hosts_file_says_which_line_and_why() {
        let msg = |text: &str, target: Option<&str>| parse(text, target).unwrap_err().to_string();
        assert!(msg("ip:10.0.0.2,8765\n", None).contains("line 1: ip:10.0.0.2,8765 has no target"));
        assert!(msg("ip:10.0.0.2,99999 /t\n", None).contains("the port is not a number"));
        assert!(msg("ip:bench-07 /t\n", None).contains("ip: and ip4: take an IPv4 address"));
        assert!(msg("bench-07,8765,1 /t\n", None).contains("the port is not a number"));
        assert!(msg("bench-07 dev/sdb\n", None).contains("is not an absolute path"));
        assert!(msg("bench-07\n", Some("/mnt/a b/f")).contains("(from --target) has white space"));
        assert!(msg("bench-07 /dev/$X\n", None).contains("has `$`"));
        assert!(msg("a /t\nb /t extra\n", None).contains("line 2: `extra` after the host"));
        assert!(
            msg("ip:10.0.0.2 /a\nip:10.0.0.2,8765 /b\n", None)
                .contains("line 2: ip:10.0.0.2,8765 is the same")
        );
        assert!(msg("# none\n\n", None).contains("names no host"));
        assert!(msg("sock:/run/fio.sock /t\n", None).contains("local socket"));
    }

    #[test]
    fn fio_s_messages_are_read_without_the_server_s_prefix() {
        let out = "hostname=vm, be=0\n<vm> probe: (g=0): rw=read\n<vm> fio: file creation disallowed by \
                   allow_file_create=0\nclient <127.0.0.2>: exited with error 1\n";
        assert_eq!(
            fio_said(out),
            [
                "fio: file creation disallowed by allow_file_create=0",
                "client <127.0.0.2>: exited with error 1"
            ]
        );
    }

    /// Two hosts' logs (wall-clock times), two clones on one, the second
    /// host about 250ms late: each interval's IOPS and bandwidth are added from
    /// the first host's start, the latency weighted by I/Os, and the second
    /// host's start is 0.251s after the first's.
    #[test]
    fn the_hosts_logs_add_up_interval_by_interval_from_the_first_host_s_start() {
        let dir = std::env::temp_dir().join(format!("methodic-hostlogs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = ("host-1_", "host-2_");
        let w = |host: &str, name: &str, text: &str| {
            std::fs::write(dir.join(format!("{host}{name}")), text).unwrap()
        };
        let t = 1_796_000_000_000u64;
        w(
            a,
            "iops.1.log.10.0.0.2",
            &format!("{}, 100, 0, 0, 0\n{}, 50, 1, 0, 0\n{}, 120, 0, 0, 0\n", t + 250, t + 251, t + 500),
        );
        w(a, "iops.2.log.10.0.0.2", &format!("{}, 300, 0, 0, 0\n", t + 249));
        w(b, "iops.1.log.10.0.0.3", &format!("{}, 600, 0, 0, 0\n", t + 500));
        w(a, "bw.1.log.10.0.0.2", &format!("{}, 1000, 0, 0, 0\n", t + 250));
        w(b, "bw.1.log.10.0.0.3", &format!("{}, 3000, 0, 0, 0\n", t + 500));
        w(a, "clat.1.log.10.0.0.2", &format!("{}, 2000, 0, 0, 0\n{}, 4000, 0, 0, 0\n", t + 250, t + 500));
        w(b, "clat.1.log.10.0.0.3", &format!("{}, 4000, 0, 0, 0\n", t + 500));
        let (rows, starts) = series_rows(&session_files(&dir), &["host-1".into(), "host-2".into()], 250);
        let _ = std::fs::remove_dir_all(&dir);
        // Host 1 began with its earliest clone, 249ms in: host 2 251ms after it.
        assert_eq!(starts, [Some(t - 1), Some(t + 250)]);
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].t, rows[0].read_iops, rows[0].write_iops, rows[0].iops),
            (0.25, 400.0, 50.0, 450.0)
        );
        assert!((rows[0].mb_s - 1000.0 * 1024.0 / 1e6).abs() < 1e-9);
        assert_eq!((rows[1].t, rows[1].iops), (0.5, 720.0));
        assert!((rows[1].mb_s - 3000.0 * 1024.0 / 1e6).abs() < 1e-9);
        // (4000 ns x 120 + 4000 ns x 600) / 720, in microseconds.
        assert!((rows[1].mean_latency_us - 4.0).abs() < 1e-9);
        assert!((rows[0].mean_latency_us - 2.0).abs() < 1e-9, "{}", rows[0].mean_latency_us);
    }

    #[test]
    fn fio_s_depth_distribution_gives_a_mean_at_each_bucket_s_middle() {
        // At iodepth 6: half at 1, a quarter at 2-3 (2.5), a quarter at 4-7
        // (5.5, at most 6).
        let v: Value = serde_json::from_str(r#"{"1": 50.0, "2": 25.0, "4": 25.0, ">=64": 0.0}"#).unwrap();
        assert!((mean_depth(&v, 6.0) - (0.5 + 0.25 * 2.5 + 0.25 * 5.5)).abs() < 1e-9);
        // All at 32-63 for a job 32 deep: 32.
        let v: Value = serde_json::from_str(r#"{"32": 100.0}"#).unwrap();
        assert!((mean_depth(&v, 32.0) - 32.0).abs() < 1e-9);
    }
}
