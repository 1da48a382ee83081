//! Runs on many hosts, on loopback only (a module of tests/e2e/run.rs: its
//! tests wait on fio's starts as run.rs's rehearsals wait on their
//! timers, so one binary overlaps them): each test starts its own `fio
//! --server` processes on its own 127.0.0.x addresses (each in its own
//! folder, against its own file), runs methodic through them with
//! `--hosts`, and stops every server it started, however it ends. Nothing
//! is sent beyond 127.0.0.0/8. Whether a step ran is decided by the
//! counts fio and the kernel keep, never by how long it took.

use std::net::TcpStream;
use std::ops::Not;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{methodic, require_tool, spawn, temp_dir, text};
use serde_json::Value;

/// The port every test's servers listen on, each on its own address.
const PORT: u16 = 18765;

/// The start margin of these runs: loopback servers take the start in
/// well under it, and the tests do not judge how together they started
/// (a host that starts late widens it; the default is 1.5 s).
const MARGIN: &str = "0.1";

/// fio servers on `127.0.0.B`, `B+1`, ..., each with a 256MiB target file (sparse)
/// of its own; killed when dropped.
struct Servers {
    dir: PathBuf,
    base: u8,
    children: Vec<Option<Child>>,
}

impl Servers {
    fn start(name: &str, base: u8, n: u8) -> Servers {
        let dir = temp_dir(name);
        let mut s = Servers { dir, base, children: Vec::new() };
        for k in 0..n {
            let own = s.dir.join(format!("host{}", k + 1));
            std::fs::create_dir_all(&own).unwrap();
            std::fs::File::create(own.join("target.img")).unwrap().set_len(256 << 20).unwrap();
            s.children.push(None);
            s.restart(k as usize);
        }
        s
    }

    fn address(&self, k: usize) -> String {
        format!("127.0.0.{}", self.base as usize + k)
    }

    fn target(&self, k: usize) -> PathBuf {
        self.dir.join(format!("host{}", k + 1)).join("target.img")
    }

    /// The hosts file: each host with its own target.
    fn hosts_file(&self) -> PathBuf {
        let text: String = (0..self.children.len())
            .map(|k| format!("ip:{},{PORT} {}\n", self.address(k), self.target(k).display()))
            .collect();
        let path = self.dir.join("hosts");
        std::fs::write(&path, format!("# loopback servers of this test\n{text}")).unwrap();
        path
    }

    /// The arguments of `methodic run` of `source` (written as NAME.method
    /// in the servers' folder) on these hosts, then `extra`; and its
    /// results folder.
    fn run_args(&self, name: &str, source: &str, extra: &[&str]) -> (Vec<String>, PathBuf) {
        let file = self.dir.join(format!("{name}.method"));
        std::fs::write(&file, source).unwrap();
        let out = self.dir.join("results");
        let mut args: Vec<String> = vec!["run".into(), file.display().to_string(), "--hosts".into()];
        args.push(self.hosts_file().display().to_string());
        args.extend(["--start-margin", MARGIN, "--out"].map(String::from));
        args.push(out.display().to_string());
        args.extend(extra.iter().map(|a| a.to_string()));
        (args, out)
    }

    /// That run, left running; its results folder.
    fn spawn_run(&self, name: &str, source: &str) -> (Child, PathBuf) {
        let (args, out) = self.run_args(name, source, &[]);
        (spawn(&args.iter().map(String::as_str).collect::<Vec<_>>()), out)
    }

    /// That run with `extra` arguments, waited for; its output and results
    /// folder.
    fn run(&self, name: &str, source: &str, extra: &[&str]) -> (std::process::Output, PathBuf) {
        let (args, out) = self.run_args(name, source, extra);
        (methodic(&args.iter().map(String::as_str).collect::<Vec<_>>()), out)
    }

    /// A wrapper around fio that notes the folder each fio client runs
    /// in, a line a session, then runs fio: the wrapper and that file.
    fn counting_fio(&self) -> (PathBuf, PathBuf) {
        let sessions = self.dir.join("sessions");
        let wrapper = self.dir.join("fio-counting");
        std::fs::write(&wrapper, format!("#!/bin/sh\npwd >> {}\nexec fio \"$@\"\n", sessions.display()))
            .unwrap();
        std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        (wrapper, sessions)
    }

    /// That run, which must succeed with every step recorded without an
    /// error; its steps and results folder.
    fn run_ok(&self, name: &str, source: &str, extra: &[&str]) -> (Vec<Value>, PathBuf) {
        let (o, out) = self.run(name, source, extra);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let all = steps(&out);
        assert!(all.iter().all(|s| s["error"].is_null()), "{all:?}");
        (all, out)
    }

    /// Starts (again) the k-th server, and waits until it accepts.
    fn restart(&mut self, k: usize) {
        let own = self.dir.join(format!("host{}", k + 1));
        let child = Command::new("fio")
            .arg(format!("--server=ip:{},{PORT}", self.address(k)))
            .current_dir(&own)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("fio starts");
        self.children[k] = Some(child);
        let at = format!("{}:{PORT}", self.address(k));
        let clock = Instant::now();
        while TcpStream::connect(&at).is_err() {
            assert!(clock.elapsed() < Duration::from_secs(20), "fio's server on {at} does not accept");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills the k-th server and every process it forked (a connection's
    /// or a job's process keeps the listening socket open: left alive, it
    /// would hold the address for the next test's server).
    fn kill(&mut self, k: usize) {
        let family = self.pids(k);
        for pid in family.iter().skip(1) {
            // SAFETY: kill takes numbers only; at worst the pid is gone and the call fails.
            unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
        }
        if let Some(mut c) = self.children[k].take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        // The forked ones are reparented: wait until they are gone or
        // dead (a zombie holds no socket, and a container's init may never
        // reap it).
        let alive = |p: &u32| {
            std::fs::read_to_string(format!("/proc/{p}/stat"))
                .ok()
                .and_then(|s| {
                    s.rsplit_once(')').map(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']).not())
                })
                .unwrap_or(false)
        };
        let clock = Instant::now();
        while family.iter().skip(1).any(alive) {
            if clock.elapsed() > Duration::from_secs(10) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The k-th server's process id, and its descendants' (the connection
    /// and job processes fio forks), from each process's parent in /proc.
    fn pids(&self, k: usize) -> Vec<u32> {
        let Some(c) = &self.children[k] else { return Vec::new() };
        let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| {
                let pid: u32 = e.file_name().to_str()?.parse().ok()?;
                let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
                // `PID (NAME) STATE PPID ...`: the name may hold spaces.
                let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
                Some((pid, ppid))
            })
            .collect();
        let mut pids = vec![c.id()];
        let mut i = 0;
        while i < pids.len() {
            let p = pids[i];
            pids.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(pid, _)| *pid));
            i += 1;
        }
        pids
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        for k in 0..self.children.len() {
            self.kill(k);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// fio is there, or the test says it is missing (and fails under CI).
fn have_fio() -> bool {
    require_tool("fio")
}

/// The job file the k-th host (from 0) ran in session `dir` of `results`
/// (`fio/DIR/host-K.fio`), and whether it has each of `lines`.
fn host_job(results: &Path, dir: &str, k: usize, lines: &[&str]) -> String {
    let job =
        std::fs::read_to_string(results.join("fio").join(dir).join(format!("host-{}.fio", k + 1))).unwrap();
    for l in lines {
        assert!(job.lines().any(|have| have == *l), "host {}: no {l} in\n{job}", k + 1);
    }
    job
}

fn steps(results: &Path) -> Vec<Value> {
    std::fs::read_to_string(results.join("steps.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The done-when of running on many hosts: specs/quick.method rehearsed
/// on 4 loopback servers, end to end. Each step that did I/O has a row
/// for every host, and its total is their sum (I/Os and bytes exactly;
/// IOPS over the longest host's time); every host's target was written
/// by the fill; the manifest names each host with its fio; `report`
/// shows the hosts.
#[test]
fn a_rehearsal_of_quick_runs_on_four_hosts_and_totals_are_their_sums() {
    if !have_fio() {
        return;
    }
    let servers = Servers::start("hosts-quick", 11, 4);
    let hosts = servers.hosts_file();
    let out = servers.dir.join("results");
    let o = methodic(&[
        "run",
        "specs/quick.method",
        "--rehearse",
        "--hosts",
        hosts.to_str().unwrap(),
        "--overwrite",
        "--start-margin",
        MARGIN,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let all = steps(&out);
    assert_eq!(all.len(), 10);
    assert!(all.iter().all(|s| s["error"].is_null()), "{all:?}");
    let erase = &all[0];
    assert!(erase["actions"][0].as_str().unwrap().contains("on each of 4 hosts"), "{erase}");
    for s in &all[1..] {
        let id = s["id"].as_str().unwrap();
        let hosts = s["hosts"].as_array().unwrap_or_else(|| panic!("{id} has no hosts"));
        assert_eq!(hosts.len(), 4, "{id}");
        let total = &s["summary"]["total"];
        let sum = |k: &str| hosts.iter().map(|h| h["total"][k].as_u64().unwrap()).sum::<u64>();
        assert_eq!(total["ios"].as_u64().unwrap(), sum("ios"), "{id}: I/Os");
        assert_eq!(total["bytes"].as_u64().unwrap(), sum("bytes"), "{id}: bytes");
        assert!(hosts.iter().all(|h| h["total"]["ios"].as_u64().unwrap() > 0), "{id}: a host did nothing");
        let longest = hosts.iter().map(|h| h["seconds"].as_f64().unwrap()).fold(0.0, f64::max);
        let iops = total["ios"].as_f64().unwrap() / longest;
        assert!((total["iops"].as_f64().unwrap() - iops).abs() <= 1e-6 * iops, "{id}: IOPS");
        // Latency from the merged histograms: within the hosts' own range.
        let p99: Vec<f64> = hosts.iter().map(|h| h["total"]["latency_us"]["p99"].as_f64().unwrap()).collect();
        let merged = total["latency_us"]["p99"].as_f64().unwrap();
        assert!(
            merged >= p99.iter().copied().fold(f64::MAX, f64::min) * 0.99,
            "{id}: p99 below every host's"
        );
        assert!(merged <= p99.iter().copied().fold(0.0, f64::max) * 1.01, "{id}: p99 above every host's");
        assert!(out.join(s["series"].as_str().unwrap()).exists(), "{id}: series");
        // A measurement's logs say when each host began (a fill this short
        // logs no interval).
        if id.starts_with("measure") {
            let said = s["actions"].to_string();
            assert!(said.contains("started together at a set time"), "{id}: {said}");
        }
    }
    // The fill wrote each host's target: its blocks are allocated.
    for k in 0..4 {
        let blocks = std::os::unix::fs::MetadataExt::blocks(&std::fs::metadata(servers.target(k)).unwrap());
        assert!(blocks * 512 >= 8 << 20, "host {}'s target was not written", k + 1);
    }
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let named = m["hosts"].as_array().unwrap();
    assert_eq!(named.len(), 4);
    for (k, h) in named.iter().enumerate() {
        assert_eq!(h["host"], format!("ip:{},{PORT}", servers.address(k)));
        assert_eq!(h["target"], servers.target(k).display().to_string());
        assert!(h["fio_version"].as_str().unwrap().starts_with("fio-"), "{h}");
        assert_eq!(h["os"], "Linux");
    }
    let r = methodic(&["report", out.to_str().unwrap()]);
    assert!(r.status.success(), "{}", text(&r.stderr));
    let shown = text(&r.stdout);
    for k in 0..4 {
        assert!(shown.contains(&servers.address(k)), "the report does not name host {}:\n{shown}", k + 1);
    }
}

/// A drained think runs on many hosts as fio's thinktime: each host's job
/// says so, and no host did more I/Os than the pauses let it (8 every
/// 10ms), where reading a sparse file without them does thousands.
#[test]
fn a_drained_think_runs_on_two_hosts_as_fios_thinktime() {
    if !have_fio() {
        return;
    }
    let servers = Servers::start("hosts-think", 51, 2);
    let (mut run, out) = servers.spawn_run(
        "think",
        "methodology \"think\" version \"1\"\ntarget { span 16MiB; io buffered }\n\
         workload r { random; block 4KiB; read 100% }\nmeasure r qd 4 for 1s think 10ms every 8 drained\n",
    );
    let status = run.wait().unwrap();
    let all = steps(&out);
    assert!(status.success(), "{all:?}");
    let s = &all[0];
    assert!(s["error"].is_null(), "{s}");
    let id = s["id"].as_str().unwrap();
    let hosts = s["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 2);
    for (k, h) in hosts.iter().enumerate() {
        host_job(&out, id, k, &["thinktime=10000", "thinktime_blocks=8", "thinktime_blocks_type=issue"]);
        let ios = h["total"]["ios"].as_u64().unwrap();
        let seconds = h["seconds"].as_f64().unwrap();
        // At most 8 I/Os a pause: one batch a 10ms, and one at each end.
        let most = 8 * ((seconds * 100.0).ceil() as u64 + 2);
        assert!(
            ios > 0 && ios <= most,
            "host {}: {ios} I/Os in {seconds}s, at most {most} with the think",
            k + 1
        );
    }
}

/// A round's cells need no decision between them: each round goes to the
/// hosts as one fio client session (counted by a wrapper around fio, from
/// the folder fio's client runs in), each host's job file holding the
/// cells in turn, and every cell of every round comes back as its own,
/// on every host.
#[test]
fn each_round_of_a_rounds_step_is_one_fio_session_on_two_hosts() {
    if !have_fio() {
        return;
    }
    let servers = Servers::start("hosts-rounds", 61, 2);
    let (wrapper, sessions) = servers.counting_fio();
    let (all, out) = servers.run_ok(
        "rounds",
        "methodology \"rounds\" version \"1\"\ntarget { span 16MiB }\n\
         workload r { random; block 4KiB; read 100% }\n\
         rounds { measure r qd 1 for 500ms; measure r qd 2 for 500ms; measure r qd 4 for 500ms } \
         until steady { window 2; max_rounds 2; excursion 100%; slope 100%; track r qd 4 }\n",
        &["--fio", wrapper.to_str().unwrap()],
    );
    let s = &all[0];
    let id = s["id"].as_str().unwrap();
    // The sessions of the step: one a round, in its round's folder.
    let seen = std::fs::read_to_string(&sessions).unwrap();
    let ran: Vec<&str> = seen.lines().filter(|l| l.contains(&*out.join("fio").to_string_lossy())).collect();
    let rounds: Vec<String> =
        (1..=2).map(|r| out.join("fio").join(format!("{id}-round{r}")).display().to_string()).collect();
    assert_eq!(ran, rounds, "fio client sessions:\n{seen}");
    for r in &rounds {
        let job = std::fs::read_to_string(Path::new(r).join("host-1.fio")).unwrap();
        for (k, qd) in [1, 2, 4].iter().enumerate() {
            assert!(job.contains(&format!("-run{}]", k + 1)), "{r}: no run {} in\n{job}", k + 1);
            assert!(job.contains(&format!("\niodepth={qd}\n")) || *qd == 1, "{r}: no QD{qd} in\n{job}");
        }
        assert_eq!(job.matches("\nstonewall\n").count(), 3, "{job}");
    }
    // Every cell of every round came back: a row each, on both hosts.
    let csv = std::fs::read_to_string(out.join(s["series"].as_str().unwrap())).unwrap();
    assert_eq!(csv.lines().count(), 1 + 6, "{csv}");
    let hosts = s["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 6, "{hosts:?}");
    for cell in 1..=3 {
        let on: Vec<&Value> = hosts.iter().filter(|h| h["cell"] == cell).collect();
        assert_eq!(on.len(), 2, "cell {cell}: {hosts:?}");
        assert!(on.iter().all(|h| h["total"]["ios"].as_u64().unwrap() > 0), "cell {cell}: {on:?}");
    }
    let said = s["actions"].to_string();
    assert!(said.contains("started together at a set time"), "{said}");
}

/// A sweep's queue depths and a measurement's repeats go to the hosts in
/// one fio client session each (counted by a wrapper around fio), each
/// host's job file holding the steps' runs in turn; every step still
/// comes back as its own record, with its own start, its own length and
/// a row a host, and says which session it ran in. With `--batch-time`
/// below a batch's ramps and records, the batch is cut there.
#[test]
fn a_sweep_and_a_repeat_are_one_fio_session_each_on_two_hosts() {
    if !have_fio() {
        return;
    }
    let servers = Servers::start("hosts-batch", 91, 2);
    let (wrapper, sessions) = servers.counting_fio();
    let source = "methodology \"batch\" version \"1\"\ntarget { span 16MiB }\n\
                  workload r { random; block 4KiB; read 100% }\n\
                  sweep r qd [1, 2, 4] ramp 0s record 500ms\n\
                  repeat 2 aggregate mean { measure r qd 2 for 500ms }\n";
    let sessions_of = |out: &Path| -> Vec<String> {
        let seen = std::fs::read_to_string(&sessions).unwrap();
        seen.lines().filter(|l| l.contains(&*out.join("fio").to_string_lossy())).map(String::from).collect()
    };
    let (all, out) = servers.run_ok("batch", source, &["--fio", wrapper.to_str().unwrap()]);
    assert_eq!(all.len(), 5);
    let id = |k: usize| all[k]["id"].as_str().unwrap().to_string();
    let folder = |k: usize| out.join("fio").join(id(k)).display().to_string();
    assert_eq!(sessions_of(&out), [folder(0), folder(3)], "one session for the sweep, one for the repeat");
    let job = std::fs::read_to_string(Path::new(&folder(0)).join("host-1.fio")).unwrap();
    assert_eq!(job.matches("\nstonewall\n").count(), 3, "{job}");
    for qd in [2, 4] {
        assert!(job.contains(&format!("\niodepth={qd}\n")), "no QD{qd} in\n{job}");
    }
    // Each step its own record: its run of the session, started in turn
    // (each when the one before ends and a gap: the sweep's third 1.8 s
    // after its first, a later second), 500ms long, with a row a host and
    // its own series file.
    let started: Vec<&str> = all.iter().map(|s| s["started"].as_str().unwrap()).collect();
    assert!(started.is_sorted() && started[2] > started[0], "{started:?}");
    for (k, s) in all.iter().enumerate() {
        let (n, within) = if k < 3 { (3, k + 1) } else { (2, k - 2) };
        let said = s["actions"].to_string();
        assert!(
            said.contains(&format!("run {within} of {n} in one fio session on the hosts")),
            "{k}: {said}"
        );
        assert!((s["seconds"].as_f64().unwrap() - 0.5).abs() < 1e-9, "{k}: {}", s["seconds"]);
        assert_eq!(s["hosts"].as_array().unwrap().len(), 2, "{k}");
        assert!(s["summary"]["total"]["ios"].as_u64().unwrap() > 0, "{k}");
        assert!(out.join(s["series"].as_str().unwrap()).is_file(), "{k}: no series");
    }
    // A batch time under the sweep's 1.5 s: the sweep in two sessions.
    std::fs::remove_file(&sessions).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
    let (all, out) =
        servers.run_ok("batch-cut", source, &["--fio", wrapper.to_str().unwrap(), "--batch-time", "1"]);
    let folder = |k: usize| out.join("fio").join(all[k]["id"].as_str().unwrap()).display().to_string();
    assert_eq!(sessions_of(&out), [folder(0), folder(2), folder(3)]);
}

/// A together step's jobs run at once on every host: one fio session, each
/// host's job file holding the jobs without a stonewall (a reporting group
/// each), and each job comes back with its own totals and a row a host,
/// which the report shows as a table a job. The reads are open loop: each
/// host keeps its share of the rate (fio's rate_iops), and the step says
/// whose latency that is.
#[test]
fn a_together_step_runs_its_jobs_at_once_on_two_hosts() {
    if !have_fio() {
        return;
    }
    let servers = Servers::start("hosts-together", 66, 2);
    let (all, out) = servers.run_ok(
        "together",
        "methodology \"together\" version \"1\"\ntarget { span 16MiB }\n\
         workload r { random; block 4KiB; read 100% }\nworkload w { random; block 4KiB; read 0% }\n\
         together for 1s { job reads r qd 2 rate 1000 iops\n job writes w qd 1 }\n",
        &["--overwrite"],
    );
    let s = &all[0];
    let id = s["id"].as_str().unwrap();
    let sessions: Vec<String> = std::fs::read_dir(out.join("fio"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(sessions, [id], "one fio session for the step");
    for k in 1..=2 {
        let job = std::fs::read_to_string(out.join("fio").join(id).join(format!("host-{k}.fio"))).unwrap();
        assert_eq!(job.matches("\n[").count(), 3, "[global] and a section a job:\n{job}");
        assert!(!job.lines().any(|l| l == "stonewall"), "{job}");
        assert_eq!(job.lines().filter(|l| *l == "new_group").count(), 1, "{job}");
    }
    let jobs = s["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["reads", "writes"]);
    let ios = |v: &Value| v["total"]["ios"].as_u64().unwrap();
    let hosts = s["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 4, "{hosts:?}");
    for j in jobs {
        let name = j["name"].as_str().unwrap();
        let on: Vec<&Value> = hosts.iter().filter(|h| h["job"] == name).collect();
        assert_eq!(on.len(), 2, "{name}: {hosts:?}");
        assert!(on.iter().all(|h| ios(h) > 0), "{name}: a host did nothing: {on:?}");
        assert_eq!(ios(&j["summary"]), on.iter().map(|h| ios(h)).sum::<u64>(), "{name}");
    }
    assert_eq!(ios(&s["summary"]), jobs.iter().map(|j| ios(&j["summary"])).sum::<u64>());
    // 500 IOPS a host, over fio's runtime there (a few I/Os of slack at
    // the start), where reading a sparse file unpaced does thousands.
    for h in hosts.iter().filter(|h| h["job"] == "reads") {
        let most = (500.0 * h["seconds"].as_f64().unwrap()) as u64 + 50;
        assert!(ios(h) <= most, "{h}: over its share of the rate ({most})");
    }
    let said = s["actions"].to_string();
    assert!(said.contains("open loop on the hosts by fio's rate_iops"), "{said}");
    // Each job's rows are its own I/O: the reads read, the writes write.
    for h in hosts {
        let other = if h["job"] == "reads" { "write" } else { "read" };
        assert!(h[other].is_null(), "{h}");
    }
    let r = methodic(&["report", out.to_str().unwrap()]);
    assert!(r.status.success(), "{}", text(&r.stderr));
    let shown = text(&r.stdout);
    assert!(shown.contains("job reads") && shown.contains("job writes"), "{shown}");
    assert!(
        shown.contains("open loop at 1000 IOPS, uniform arrivals (fio's rate_iops on the hosts)"),
        "{shown}"
    );
}

/// A QoS search by queue depth runs on two hosts: each probe is a closed
/// loop at its depth on every host (a fio session each), judged from the
/// hosts' merged histograms. Under a limit no depth misses, the search
/// doubles from depth 1 to the ceiling and says the ceiling met it.
#[test]
fn a_qos_search_by_queue_depth_runs_on_two_hosts() {
    if !have_fio() {
        return;
    }
    let servers = Servers::start("hosts-qos", 71, 2);
    let (all, out) = servers.run_ok(
        "qos",
        "methodology \"qos\" version \"1\"\ntarget { span 16MiB }\n\
         workload r { random; block 4KiB; read 100% }\n\
         qos r qd 4 { p99 under 10s; probe 200ms; ramp 0s; by qd }\n",
        &[],
    );
    let s = &all[0];
    let id = s["id"].as_str().unwrap();
    let q = &s["qos"];
    let depths: Vec<u64> =
        q["points"].as_array().unwrap().iter().map(|p| p["qd"].as_u64().unwrap()).collect();
    assert_eq!(depths, [1, 2, 4], "{q}");
    assert_eq!(q["found_qd"], 4, "{q}");
    assert!(
        q["points"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["met"] == true && p["achieved_iops"].as_f64().unwrap() > 0.0)
    );
    let mut sessions: Vec<String> = std::fs::read_dir(out.join("fio"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    sessions.sort();
    let probes: Vec<String> = (1..=3).map(|k| format!("{id}-probe{k}")).collect();
    assert_eq!(sessions, probes, "a fio session a probe");
    for (dir, depth) in probes.iter().zip(&depths) {
        let job = std::fs::read_to_string(out.join("fio").join(dir).join("host-2.fio")).unwrap();
        assert!(*depth == 1 || job.lines().any(|l| l == format!("iodepth={depth}")), "{dir}:\n{job}");
    }
    let hosts = s["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 2, "the found probe on each host: {hosts:?}");
    assert_eq!(
        s["summary"]["total"]["ios"].as_u64().unwrap(),
        hosts.iter().map(|h| h["total"]["ios"].as_u64().unwrap()).sum::<u64>()
    );
}

/// A QoS search by rate runs on two hosts: a closed-loop probe, then
/// open-loop probes paced by fio's rate_iops, each a session of its own,
/// judged kept by the I/Os the hosts completed; the step's actions say
/// how fio paced and timed them.
#[test]
fn a_qos_search_by_rate_runs_on_two_hosts() {
    if !have_fio() {
        return;
    }
    let servers = Servers::start("hosts-qos-rate", 76, 2);
    let (all, out) = servers.run_ok(
        "qos-rate",
        "methodology \"qos\" version \"1\"\ntarget { span 16MiB }\n\
         workload r { random; block 4KiB; read 100% }\n\
         qos r qd 4 { p99 under 10s; probe 200ms; ramp 0s; precision 30% }\n",
        &[],
    );
    let s = &all[0];
    let id = s["id"].as_str().unwrap();
    let q = &s["qos"];
    let points = q["points"].as_array().unwrap();
    assert!(points[0]["rate_iops"].is_null(), "the closed-loop probe first: {q}");
    assert!(points.len() >= 2 && points[1..].iter().all(|p| p["rate_iops"].as_f64().is_some()), "{q}");
    // A 10 s limit: whatever rate the hosts kept met it.
    assert!(q["found_iops"].as_f64().is_some_and(|f| f >= 1.0), "{q}");
    assert!(points.iter().all(|p| p["met"] == p["kept"]), "{q}");
    let actions: Vec<&str> = s["actions"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert!(
        actions.iter().any(|a| a.starts_with("open loop on the hosts by fio's rate_iops")),
        "{actions:?}"
    );
    assert!(actions.iter().any(|a| a.contains("completed 99% of the I/Os asked")), "{actions:?}");
    for (k, p) in points.iter().enumerate().skip(1) {
        // Each host takes half the rate asked, rounded up.
        let half = (p["rate_iops"].as_f64().unwrap() as u64).div_ceil(2);
        host_job(&out, &format!("{id}-probe{}", k + 1), 0, &[&format!("rate_iops={half}")]);
    }
    let sessions = std::fs::read_dir(out.join("fio")).unwrap().count();
    assert_eq!(sessions, points.len(), "a fio session a probe");
}

/// Bursts run on two hosts as fio's thinktime_iotime and thinktime, and
/// the step's actions say where fio's periods differ, where the hosts'
/// fio is 3.34 or later; an older fio runs the first burst for a whole
/// period, and is refused before anything is written, naming each host.
#[test]
fn bursts_run_on_two_hosts_as_fios_thinktime_iotime_from_fio_3_34() {
    if !have_fio() {
        return;
    }
    let version = text(&Command::new("fio").arg("--version").output().unwrap().stdout);
    let release: Vec<u32> = version
        .trim()
        .trim_start_matches("fio-")
        .split(['.', '-'])
        .take(2)
        .filter_map(|p| p.parse().ok())
        .collect();
    let servers = Servers::start("hosts-bursts", 81, 2);
    let (o, out) = servers.run(
        "bursts",
        "methodology \"bursts\" version \"1\"\ntarget { span 16MiB }\n\
         workload r { random; block 4KiB; read 100% }\nmeasure r qd 4 bursts 200ms every 500ms times 2\n",
        &[],
    );
    if release < vec![3, 34] {
        let said = text(&o.stderr);
        assert!(!o.status.success(), "{said}");
        assert!(
            said.contains("its bursts need fio 3.34 or later on every host, and 2 hosts run an older one"),
            "{said}"
        );
        assert!(said.contains(&format!("{},{PORT} ({})", servers.address(1), version.trim())), "{said}");
        assert!(!out.exists(), "nothing is written");
        return;
    }
    assert!(o.status.success(), "{}", text(&o.stderr));
    let s = &steps(&out)[0];
    assert!(s["error"].is_null(), "{s}");
    let id = s["id"].as_str().unwrap();
    for (k, h) in s["hosts"].as_array().unwrap().iter().enumerate() {
        host_job(&out, id, k, &["thinktime=300000", "thinktime_iotime=200ms"]);
        assert!(h["total"]["ios"].as_u64().unwrap() > 0, "host {}: {h}", k + 1);
    }
    let actions = s["actions"].to_string();
    assert!(actions.contains("bursts on the hosts by fio's thinktime_iotime"), "{actions}");
}

/// `verify` runs on two hosts as fio's own verify: a fill and a
/// measurement until an amount written, each block read back by fio once
/// its writes end, the read-back counted as what was checked and not as
/// the step's reads; a step that runs for a time is refused, saying why.
#[test]
fn verify_runs_on_two_hosts_as_fios_own_verify() {
    if !have_fio() {
        return;
    }
    let servers = Servers::start("hosts-verify", 86, 2);
    let (all, out) = servers.run_ok(
        "verify",
        "methodology \"verify\" version \"1\"\ntarget { span 4MiB }\n\
         workload s { sequential; block 64KiB; read 0% }\nworkload w { random; block 4KiB; read 0% }\n\
         fill s qd 4 verify\nmeasure w qd 8 until written 2MiB verify\n",
        &["--overwrite"],
    );
    for (s, block) in all.iter().zip([65536, 4096]) {
        let v = &s["verify"];
        assert_eq!(
            (&v["by_fio"], &v["interval_bytes"], &v["mismatches"]),
            (&true.into(), &block.into(), &0.into())
        );
        let writes = s["summary"]["total"]["ios"].as_u64().unwrap();
        assert_eq!(v["written"], writes, "{v}");
        // Random writes may land twice on a block: fio reads each back once.
        let checked = v["checked"].as_u64().unwrap();
        assert!(checked > 0 && checked <= writes, "{v}");
        assert!(s["summary"]["read"].is_null(), "the read-back is not the step's reads: {}", s["summary"]);
        host_job(&out, s["id"].as_str().unwrap(), 0, &["verify=crc32c", "continue_on_error=verify"]);
    }
    // Each host's 4MiB span in 64KiB writes: the fill wrote both spans whole.
    assert_eq!(all[0]["summary"]["total"]["ios"], 2 * 64);
    let (o, _) = servers.run(
        "verify-timed",
        "methodology \"v\" version \"1\"\nworkload w { random; block 4KiB; read 0% }\n\
         measure w qd 8 for 1s verify\n",
        &["--overwrite"],
    );
    let said = text(&o.stderr);
    assert!(
        !o.status.success() && said.contains("fio verifies a time-based job by whole passes only"),
        "{said}"
    );
}

/// fio's own verify on a host whose target returns corrupted bytes: each
/// block that does not match is counted and named (its offset, and what
/// fio found), and the step fails with its numbers kept.
#[test]
fn fios_verify_on_a_host_names_each_block_that_does_not_match() {
    if !have_fio() {
        return;
    }
    let Some(fs) = crate::faultfs::FaultFs::mount("hosts-verify", 1 << 20) else { return };
    let servers = Servers::start("hosts-verify-bad", 88, 1);
    // Block 2's second half (its data) and block 3's head (fio's header).
    fs.corrupt(2 * 4096 + 2048..3 * 4096 + 16);
    let hosts = servers.dir.join("faulty-hosts");
    std::fs::write(&hosts, format!("ip:{},{PORT} {}\n", servers.address(0), fs.file().display())).unwrap();
    let file = servers.dir.join("bad.method");
    std::fs::write(
        &file,
        "methodology \"bad\" version \"1\"\ntarget { span 64KiB }\n\
         workload s { sequential; block 4KiB; read 0% }\nfill s qd 1 verify\n",
    )
    .unwrap();
    let out = servers.dir.join("bad-results");
    let o = methodic(&[
        "run",
        file.to_str().unwrap(),
        "--hosts",
        hosts.to_str().unwrap(),
        "--start-margin",
        MARGIN,
        "--overwrite",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success(), "a mismatch fails the run");
    assert!(fs.corrupted() > 0, "fio read the corrupted bytes back");
    let s = &steps(&out)[0];
    let v = &s["verify"];
    assert_eq!((&v["by_fio"], &v["checked"], &v["mismatches"]), (&true.into(), &16.into(), &2.into()), "{v}");
    let first = v["first"].as_array().unwrap();
    let kinds: Vec<(u64, &str)> =
        first.iter().map(|m| (m["offset"].as_u64().unwrap(), m["kind"].as_str().unwrap())).collect();
    assert_eq!(kinds, [(8192, "corrupted"), (12288, "not_stamped")], "{v}");
    assert!(first[0]["target"].as_str().unwrap().ends_with(&format!("on ip:{},{PORT}", servers.address(0))));
    let error = s["error"].as_str().unwrap();
    assert!(
        error.contains("data verification: by fio's own verify") && error.contains("2 of 16 blocks"),
        "{error}"
    );
    assert_eq!(s["summary"]["total"]["ios"], 16, "the step's numbers are kept");
}

/// A host lost in the middle of a step fails that step, naming the host,
/// and keeps the steps before it; with the host back, `--resume` runs the
/// rest on every host.
#[test]
fn a_host_lost_mid_step_fails_that_step_and_resume_goes_on() {
    if !have_fio() {
        return;
    }
    let mut servers = Servers::start("hosts-lost", 21, 2);
    let source = "methodology \"lost\" version \"1\"\n\
                  target { span 32MiB }\n\
                  workload r { random; block 4KiB; read 100% }\n\
                  drop_caches local\n\
                  measure r qd 1 ramp 0s for 500ms\n\
                  measure r qd 4 ramp 0s for 1s\n";
    let (run, out) = servers.spawn_run("lost", source);
    // The long step's fio is running once its folder is there and the
    // second host's server has forked a job for it. Whichever step the
    // kill lands in fails, and the ones before it are kept.
    let clock = Instant::now();
    let long = out.join("fio").join("r-qd4");
    while !(long.join("output.json").exists() && servers.pids(1).len() > 2) {
        assert!(clock.elapsed() < Duration::from_secs(60), "the long step did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    servers.kill(1);
    let o = run.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let all = steps(&out);
    let (last, before) = all.split_last().unwrap();
    assert!(before.iter().all(|s| s["error"].is_null()), "{all:?}");
    let error = last["error"].as_str().unwrap();
    assert!(error.contains(&format!("ip:{},{PORT}", servers.address(1))), "{error}");
    assert!(text(&o.stderr).contains("--resume"), "{}", text(&o.stderr));

    servers.restart(1);
    let o = methodic(&["run", "--resume", out.to_str().unwrap(), "--start-margin", MARGIN]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let all = steps(&out);
    assert_eq!(all.len(), 3, "{all:?}");
    // drop_caches local ran on this machine (quick's erase discard runs a
    // command on each host).
    let said = all[0]["actions"].to_string();
    assert!(said.contains("local: on the conductor") && said.contains("drop_caches"), "{said}");
    for s in &all[1..] {
        assert!(s["error"].is_null(), "{s}");
        assert_eq!(s["hosts"].as_array().unwrap().len(), 2);
    }
}

/// A host that does not answer at the start fails the run before anything
/// is written anywhere: no results folder, the other host's target as it
/// was. So does a target that is not there, and a step fio cannot run.
#[test]
fn nothing_is_written_when_a_host_cannot_run() {
    if !have_fio() {
        return;
    }
    let servers = Servers::start("hosts-unreachable", 31, 1);
    // 127.0.0.39: nothing listens there.
    let hosts = servers.dir.join("hosts");
    std::fs::write(
        &hosts,
        format!(
            "ip:{},{PORT} {}\nip:127.0.0.39,{PORT} /tmp/x.img\n",
            servers.address(0),
            servers.target(0).display()
        ),
    )
    .unwrap();
    let out = servers.dir.join("results");
    let args = |hosts: &Path, file: &str| {
        methodic(&[
            "run",
            file,
            "--rehearse",
            "--hosts",
            hosts.to_str().unwrap(),
            "--overwrite",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let o = args(&hosts, "specs/quick.method");
    assert_eq!(o.status.code(), Some(1));
    let said = text(&o.stderr);
    assert!(said.contains("1 host of 2") && said.contains("127.0.0.39"), "{said}");
    assert!(!out.exists(), "a results folder was made");
    let blocks = std::os::unix::fs::MetadataExt::blocks(&std::fs::metadata(servers.target(0)).unwrap());
    assert_eq!(blocks, 0, "the reachable host's target was written");

    // A target that is not there is not made.
    std::fs::write(&hosts, format!("ip:{},{PORT} {}/none.img\n", servers.address(0), servers.dir.display()))
        .unwrap();
    let o = args(&hosts, "specs/quick.method");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("file creation disallowed"), "{}", text(&o.stderr));
    assert!(!servers.dir.join("none.img").exists() && !out.exists());

    // A step fio cannot run is refused before any host is asked; so is a
    // local one that needs a target on this machine.
    let copy = servers.dir.join("secure.method");
    std::fs::write(
        &copy,
        "methodology \"s\" version \"1\"\nworkload r { random; block 4KiB; read 100% }\nerase secure\nmeasure r qd 1 for 1s\n",
    )
    .unwrap();
    let o = args(&servers.hosts_file(), copy.to_str().unwrap());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("step 1 (erase-secure): fio cannot run erase secure"),
        "{}",
        text(&o.stderr)
    );
    assert!(!out.exists());
    std::fs::write(
        &copy,
        "methodology \"s\" version \"1\"\nworkload r { random; block 4KiB; read 100% }\nerase discard local\nmeasure r qd 1 for 1s\n",
    )
    .unwrap();
    let o = args(&servers.hosts_file(), copy.to_str().unwrap());
    assert!(text(&o.stderr).contains("it is `local`, but erase needs a target"), "{}", text(&o.stderr));
    assert!(!out.exists());
}

/// SIGTERM stops the run, and fio on every host: the servers' job
/// processes end, the step is recorded as interrupted.
#[test]
fn sigterm_stops_fio_on_every_host() {
    if !have_fio() {
        return;
    }
    let servers = Servers::start("hosts-sigterm", 41, 2);
    let (run, out) = servers.spawn_run(
        "long",
        "methodology \"long\" version \"1\"\ntarget { span 32MiB }\nworkload r { random; block 4KiB; read 100% }\n\
         measure r qd 1 ramp 0s for 10min\n",
    );
    let clock = Instant::now();
    // The step's fio runs (its folder is there: the probe is over) and
    // both servers have forked the job's process.
    let step = out.join("fio").join("r-qd1").join("output.json");
    while !(step.exists() && servers.pids(0).len() > 2 && servers.pids(1).len() > 2) {
        assert!(clock.elapsed() < Duration::from_secs(60), "the job did not start on both hosts");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill takes numbers only; `run` has not been waited for, so its pid is still its own.
    unsafe { libc::kill(run.id() as i32, libc::SIGTERM) };
    let o = run.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(143), "{}", text(&o.stderr));
    // Every server is back to its listening process alone: the jobs ended.
    let clock = Instant::now();
    while servers.pids(0).len() > 1 || servers.pids(1).len() > 1 {
        assert!(clock.elapsed() < Duration::from_secs(30), "fio still runs on a host after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
    let all = steps(&out);
    assert!(all[0]["error"].as_str().unwrap().contains("SIGTERM"), "{all:?}");
}
