//! The differences of two runs as a whole that can explain a gap between
//! their numbers: how each was run (rehearsal, status, methodology and
//! plan, conventions), on what (host and its CPUs' governor, turbo and
//! C-states, targets, engine, tool; or, for a run on many hosts, how many
//! hosts, which, and each one's target, fio and OS) and the host
//! ceilings both measured; each with a sentence saying what it does to the
//! numbers.

use methodic_compiler::plan::Units;

use super::{Difference, letter, status_name};
use crate::ceiling::ShapeCeiling;
use crate::engine::EngineNote;
use crate::host::TargetInfo;
use crate::manifest::{HostNote, Loaded, Manifest};
use crate::units::human;

fn diff(field: &str, j: usize, a: String, b: String, sentence: String) -> Difference {
    Difference {
        field: field.into(),
        runs: format!("A vs {}", letter(j)),
        scope: "run".into(),
        a,
        b,
        sentence,
    }
}

/// Differences in what the two runs ran on and with: how each was run,
/// on what machine and targets (or hosts), with what engine and tool, the
/// host ceilings both measured, and what their plans changed.
pub(super) fn run_differences(a: &Loaded, b: &Loaded, j: usize) -> Vec<Difference> {
    let (ma, mb) = (&a.manifest, &b.manifest);
    let mut out = how_run(ma, mb, j);
    if ma.imported.is_some() || mb.imported.is_some() {
        // An imported result's host, targets and engine are what its file
        // states: compared as the source and the unstated fields, not
        // against placeholders.
        out.extend(imported_differences(ma, mb, j));
    } else {
        // A run on many hosts ran its I/O there, not on the machine
        // methodic ran on (`host`) nor on `targets`: its hosts are
        // compared instead, and the checks of this machine and its
        // targets are left out.
        if ma.hosts.is_empty() && mb.hosts.is_empty() {
            out.extend(machine_differences(ma, mb, j));
            out.extend(target_differences(ma, mb, j));
        }
        out.extend(host_differences(ma, mb, j));
        out.extend(engine_differences(ma, mb, j));
    }
    out.extend(ceiling_difference(ma, mb, j));
    out.extend(plan_changes(ma, mb));
    let l = letter(j);
    for d in &mut out {
        d.runs = format!("A vs {l}");
    }
    out
}

/// The differences of run `j` from A, a field at a time: each field whose
/// values differ, with what that does to the numbers.
struct Found {
    j: usize,
    out: Vec<Difference>,
}

impl Found {
    fn new(j: usize) -> Found {
        Found { j, out: Vec::new() }
    }

    fn check(&mut self, field: &str, va: String, vb: String, why: &str) {
        if va != vb {
            self.out.push(diff(field, self.j, va, vb, why.to_string()));
        }
    }
}

/// How each run was run: a rehearsal or not, its status, its methodology
/// and plan, and its conventions (units, value kind).
fn how_run(ma: &Manifest, mb: &Manifest, j: usize) -> Vec<Difference> {
    let mut found = Found::new(j);
    found.check(
        "rehearsal",
        rehearsal_word(ma.rehearsal),
        rehearsal_word(mb.rehearsal),
        "a rehearsal scales sizes and times down on a scratch file: its numbers are not measurements and compare with nothing",
    );
    found.check(
        "run status",
        status_name(ma.status).to_string(),
        status_name(mb.status).to_string(),
        "a run that did not complete lacks its later steps, and its last step may have been cut short",
    );
    found.check(
        "methodology",
        format!("{} {}", ma.methodology.name, ma.methodology.version),
        format!("{} {}", mb.methodology.name, mb.methodology.version),
        "the runs followed different methodologies; the step differences below say where they part",
    );
    // Equal plans written in another spelling (results from before the
    // plan's enums took the language's words) hash apart: the plans decide.
    if ma.methodology.plan_hash != mb.methodology.plan_hash
        && ma.plan != mb.plan
        && ma.methodology.name == mb.methodology.name
        && ma.methodology.version == mb.methodology.version
    {
        found.check(
            "plan",
            ma.methodology.plan_hash.clone(),
            mb.methodology.plan_hash.clone(),
            "the same methodology name and version compiled to different plans: its source was edited without a new \
             version; what changed in the plan is listed below",
        );
    }
    let ca = &ma.plan.conventions;
    let cb = &mb.plan.conventions;
    let units = |u: Units| match u {
        Units::Decimal => "decimal (MB)".to_string(),
        Units::Binary => "binary (MiB)".to_string(),
    };
    found.check(
        "units",
        units(ca.units),
        units(cb.units),
        "MB/s (10^6) and MiB/s (2^20) differ by 4.9%: the rates compared above are all in A's units",
    );
    found.check(
        "value kind",
        ca.value.words().to_string(),
        cb.value.words().to_string(),
        "the runs report different values (a peak is above the step average of the same step): the pairs above \
         compare one kind on both sides where both runs have it, as their values line says; each run's own \
         report shows its convention's value",
    );
    found.out
}

/// The machine each run ran on: its CPU, memory, kernel and name, and its
/// power settings where both runs recorded them.
fn machine_differences(ma: &Manifest, mb: &Manifest, j: usize) -> Vec<Difference> {
    let mut found = Found::new(j);
    let (ha, hb) = (&ma.host, &mb.host);
    found.check(
        "host CPU",
        format!("{} x{}", ha.cpu_model.clone().unwrap_or_default(), ha.cpus),
        format!("{} x{}", hb.cpu_model.clone().unwrap_or_default(), hb.cpus),
        "the host's CPU sets how many IOPS one core can submit and complete: at high IOPS it can be the limit",
    );
    found.check(
        "host memory",
        human(ha.memory_bytes),
        human(hb.memory_bytes),
        "with more RAM the page cache holds more: buffered tests and copies can read from memory instead of the drive",
    );
    found.check(
        "kernel",
        ha.kernel.clone().unwrap_or_default(),
        hb.kernel.clone().unwrap_or_default(),
        "kernels differ in their block layer, schedulers and io_uring: latency and IOPS at high QD move with them",
    );
    found.check(
        "host",
        ha.hostname.clone().unwrap_or_default(),
        hb.hostname.clone().unwrap_or_default(),
        "the runs ran on different machines (slots, PCIe links, cooling differ even when the parts match)",
    );
    // Power settings: only where both runs recorded them (older results
    // did not), a machine that does not expose one saying so.
    if let (Some(pa), Some(pb)) = (&ha.power, &hb.power) {
        found.check(
            "CPU frequency governor",
            pa.governor_words(),
            pb.governor_words(),
            "powersave and schedutil lower the clock between I/Os: latency at low queue depth rises",
        );
        found.check(
            "turbo",
            pa.turbo_words(),
            pb.turbo_words(),
            "turbo raises the clock of a busy core: at low queue depth each I/O's host time shrinks, and the gain \
             shrinks as the chip warms",
        );
        found.check(
            "C-states",
            pa.cstate_words(),
            pb.cstate_words(),
            "deep C-states add wake-up time to each completion at low QD; limiting them (max_cstate, idle=poll) \
             trades power for latency",
        );
    }
    found.out
}

/// How many targets each run used, and each pair of targets in order: its
/// kind, model, firmware, capacity, write cache, scheduler, file system.
fn target_differences(ma: &Manifest, mb: &Manifest, j: usize) -> Vec<Difference> {
    let mut found = Found::new(j);
    found.check(
        "targets",
        ma.targets.len().to_string(),
        mb.targets.len().to_string(),
        "another number of devices: a step spread over more devices has more parallelism",
    );
    for (ta, tb) in ma.targets.iter().zip(&mb.targets) {
        let (ia, ib) = (&ta.identity, &tb.identity);
        let s = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        let kind = |t: &TargetInfo| t.kind.words().to_string();
        found.check(
            "target kind",
            kind(ta),
            kind(tb),
            "a file goes through a file system, a block device does not: allocation and metadata work add to each I/O",
        );
        found.check(
            "device model",
            s(&ia.model),
            s(&ib.model),
            "different drive models: this is the comparison itself, not a flaw, if nothing else differs",
        );
        found.check(
            "firmware",
            s(&ia.firmware),
            s(&ib.firmware),
            "firmware changes garbage collection, caching and power states: the same model can measure differently",
        );
        found.check(
            "capacity",
            human(ta.capacity),
            human(tb.capacity),
            "larger drives of one family have more dies to spread I/O over and a larger cache: they are usually faster",
        );
        found.check(
            "write cache",
            s(&ia.write_cache),
            s(&ib.write_cache),
            "a write-back cache acknowledges writes before they are on flash: write latency drops",
        );
        found.check(
            "I/O scheduler",
            s(&ia.scheduler),
            s(&ib.scheduler),
            "a scheduler reorders and merges requests and costs CPU a request",
        );
        let fs = |t: &TargetInfo| {
            t.identity.file_system.as_ref().map_or("-".into(), |f| format!("{} ({})", f.fs_type, f.options))
        };
        found.check(
            "file system",
            fs(ta),
            fs(tb),
            "file systems and their mount options change how I/O reaches the device (journaling, discard, atime)",
        );
    }
    found.out
}

/// What submitted the I/O: the engine, CPU pinning, latency recording and
/// methodic's own build.
fn engine_differences(ma: &Manifest, mb: &Manifest, j: usize) -> Vec<Difference> {
    let mut found = Found::new(j);
    let (ea, eb) = (&ma.engine, &mb.engine);
    found.check(
        "engine",
        engine_word(ea),
        engine_word(eb),
        "the engine that submits I/O sets the host's overhead a request; at QD1 it is part of the latency",
    );
    found.check(
        "CPU pinning",
        if ea.pinned { "pinned" } else { "not pinned" }.to_string(),
        if eb.pinned { "pinned" } else { "not pinned" }.to_string(),
        "pinned workers keep their caches and avoid migrations: latency is steadier and often lower",
    );
    found.check(
        "latency recording",
        ea.latency_recorded.to_string(),
        eb.latency_recorded.to_string(),
        "recording latencies costs a clock read an I/O",
    );
    found.check(
        "tool",
        format!("{} {}", ma.tool.version, ma.tool.git_revision.clone().unwrap_or_default()),
        format!("{} {}", mb.tool.version, mb.tool.git_revision.clone().unwrap_or_default()),
        "different methodic builds; the engine's own speed may differ",
    );
    found.out
}

/// What the plans changed, as `methodic diff` says it (presentation aside:
/// it moves no number), when their hashes differ.
fn plan_changes(ma: &Manifest, mb: &Manifest) -> Vec<Difference> {
    let mut out = Vec::new();
    if ma.methodology.plan_hash != mb.methodology.plan_hash {
        for c in methodic_compiler::diff::diff(&ma.plan, &mb.plan).changes {
            if c.class == methodic_compiler::diff::Class::PresentationOnly {
                continue;
            }
            out.push(Difference {
                field: format!("plan: {}", c.what),
                runs: String::new(),
                scope: format!("{}: {}", c.class.word(), c.affected),
                a: c.old,
                b: c.new,
                sentence: c.reason,
            });
        }
    }
    out
}

/// The hosts of two runs, where either ran on many (`--hosts`): many
/// against one machine; another number of hosts; each host one run has
/// and the other lacks (by the hosts file's name); and, of each host both
/// have, another target, fio version or OS.
pub(super) fn host_differences(a: &Manifest, b: &Manifest, j: usize) -> Vec<Difference> {
    let l = letter(j);
    let count = |m: &Manifest| match m.hosts.len() {
        0 => format!("one machine ({})", m.host.hostname.as_deref().unwrap_or("unnamed")),
        n => methodic_compiler::plan::plural(n as u64, "host", "hosts"),
    };
    let mut out = Vec::new();
    match (a.hosts.len(), b.hosts.len()) {
        (0, 0) => return out,
        (0, _) | (_, 0) => {
            let (many, one) = if a.hosts.is_empty() { (l.as_str(), "A") } else { ("A", l.as_str()) };
            out.push(diff(
                "hosts",
                j,
                count(a),
                count(b),
                format!(
                    "{many} ran each step on many hosts at once through fio's client/server mode, {one} on one machine \
                     with methodic's own engine: {many}'s IOPS and MB/s add up every host's I/O, {one}'s are one \
                     machine's, and fio and methodic submit and time I/O each their own way"
                ),
            ));
            return out;
        }
        (na, nb) if na != nb => out.push(diff(
            "host count",
            j,
            count(a),
            count(b),
            format!(
                "A ran on {na} hosts, {l} on {nb}: a step's IOPS and MB/s add up over its hosts, so the totals move \
                 with the count; each run's report gives every host's own numbers"
            ),
        )),
        _ => {}
    }
    let words = |h: &HostNote| match &h.hostname {
        Some(name) => format!("{} ({name}, {})", h.host, h.target),
        None => format!("{} ({})", h.host, h.target),
    };
    for h in &a.hosts {
        if !b.hosts.iter().any(|o| o.host == h.host) {
            out.push(diff(
                "host",
                j,
                words(h),
                "-".into(),
                format!("host {} is in A but not in {l}: its I/O is in A's totals only", h.host),
            ));
        }
    }
    for h in &b.hosts {
        if !a.hosts.iter().any(|o| o.host == h.host) {
            out.push(diff(
                "host",
                j,
                "-".into(),
                words(h),
                format!("host {} is in {l} but not in A: its I/O is in {l}'s totals only", h.host),
            ));
        }
    }
    let or = |v: &Option<String>| v.clone().unwrap_or_else(|| "not reported".into());
    let system = |h: &HostNote| {
        let s: Vec<&str> = [&h.os, &h.arch].into_iter().flatten().map(String::as_str).collect();
        if s.is_empty() { "not reported".to_string() } else { s.join(" ") }
    };
    for ha in &a.hosts {
        let Some(hb) = b.hosts.iter().find(|o| o.host == ha.host) else { continue };
        let fields: [(&str, String, String, &str); 3] = [
            (
                "host target",
                ha.target.clone(),
                hb.target.clone(),
                "the host ran on another file or device: its share of each step is another target's",
            ),
            (
                "host fio version",
                or(&ha.fio_version),
                or(&hb.fio_version),
                "fio versions differ in their engines, defaults and how they time I/O",
            ),
            (
                "host OS",
                system(ha),
                system(hb),
                "another OS or architecture on the host: its block layer and CPU set what one host can do",
            ),
        ];
        for (field, va, vb, why) in fields {
            if va != vb {
                let mut d = diff(field, j, va, vb, why.to_string());
                d.scope = format!("host {}", ha.host);
                out.push(d);
            }
        }
    }
    out
}

/// The host ceilings of the I/O shapes both runs measured, when some
/// differ by more than 10%: the host itself moved, and a step near its
/// ceiling moves with it. The widest gap is shown.
fn ceiling_difference(a: &Manifest, b: &Manifest, j: usize) -> Option<Difference> {
    let (ca, cb) = (a.ceilings.as_ref()?, b.ceilings.as_ref()?);
    let both: Vec<(&ShapeCeiling, &ShapeCeiling)> =
        ca.shapes.iter().filter_map(|x| cb.of(&x.shape).map(|y| (x, y))).collect();
    let gap = |(x, y): &(&ShapeCeiling, &ShapeCeiling)| (y.iops / x.iops).ln().abs();
    let apart: Vec<&(&ShapeCeiling, &ShapeCeiling)> = both
        .iter()
        .filter(|(x, y)| x.iops > 0.0 && y.iops > 0.0 && (y.iops / x.iops - 1.0).abs() > 0.1)
        .collect();
    let (x, y) = apart.iter().max_by(|p, q| gap(p).total_cmp(&gap(q)))?;
    Some(diff(
        "host ceiling",
        j,
        format!("{:.0} IOPS", x.iops),
        format!("{:.0} IOPS", y.iops),
        format!(
            "reading RAM with no device in the way, the host reached another rate at {} of the {} I/O shapes both \
             runs measured (the widest gap shown, at {}): a step near its ceiling measures the host, and moves \
             with it",
            apart.len(),
            both.len(),
            x.shape
        ),
    ))
}

/// Where the numbers of two runs come from when either is imported: the
/// tool that measured, and each run-wide field a file does not state, said
/// as a gap that cannot be explained or excluded on that count.
fn imported_differences(ma: &Manifest, mb: &Manifest, j: usize) -> Vec<Difference> {
    let l = letter(j);
    // The tool and format, not the file: two files of one fio version
    // were measured alike.
    let tool = |m: &Manifest| match &m.imported {
        Some(n) => format!("{} {}", n.tool_words(), n.format),
        None => format!("methodic {} run", m.tool.version),
    };
    let source = |m: &Manifest| m.imported.as_ref().map_or_else(|| tool(m), |n| n.describe());
    let mut out = Vec::new();
    if tool(ma) != tool(mb) {
        out.push(diff(
            "measured by",
            j,
            source(ma),
            source(mb),
            "each tool submits and times I/O its own way (fio's default latency starts at issue, not \
             submission; Iometer and DiskSpd report averages and their own percentiles): a gap of a few \
             percent can be the tools', not the drives'"
                .into(),
        ));
    }
    let unstated =
        |m: &Manifest| m.imported.as_ref().is_some_and(|n| n.not_stated.iter().any(|f| f == "host"));
    let (ua, ub) = (unstated(ma), unstated(mb));
    if ua || ub {
        let who = match (ua, ub) {
            (true, true) => format!("neither A nor {l} states"),
            (true, false) => "A does not state".to_string(),
            _ => format!("{l} does not state"),
        };
        let host = |m: &Manifest, u: bool| if u { "not stated".to_string() } else { m.host.describe() };
        out.push(diff(
            "host",
            j,
            host(ma, ua),
            host(mb, ub),
            format!(
                "{who} its host: a gap between the runs cannot be explained or excluded on that count (the \
                 host's CPU, kernel and power settings move latency at low queue depth)"
            ),
        ));
    }
    let engine = |m: &Manifest| match &m.imported {
        Some(_) => m.engine.choice.clone(),
        None => format!("methodic {}", engine_word(&m.engine)),
    };
    let mut found = Found::new(j);
    found.check(
        "engine",
        engine(ma),
        engine(mb),
        "the engine that submits I/O sets the host's overhead a request; at QD1 it is part of the latency",
    );
    out.extend(found.out);
    out
}

/// `auto (io_uring available)`, `psync (chosen; io_uring available)`.
fn engine_word(e: &EngineNote) -> String {
    let uring = match &e.io_uring_unavailable {
        _ if e.io_uring => "io_uring available".to_string(),
        Some(why) if e.choice == "psync" && why == "--engine psync" => "io_uring not used".to_string(),
        Some(why) => format!("io_uring unavailable: {why}"),
        None => "io_uring unavailable".to_string(),
    };
    format!("{} ({uring})", e.choice)
}

fn rehearsal_word(r: bool) -> String {
    if r { "rehearsal".into() } else { "measurement".into() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::Exports;
    use crate::view::compare::comparison;
    use crate::view::testing::run;

    /// `field (scope): A a; B b`, of each difference.
    fn said(d: &[Difference]) -> Vec<String> {
        d.iter().map(|d| format!("{} ({}): A {}; B {}", d.field, d.scope, d.a, d.b)).collect()
    }

    /// The run on three hosts without one of them: `bench-07`, its rows
    /// and its share of every total.
    fn without_bench_07() -> Loaded {
        let mut b = run(true);
        b.dir = "/nonexistent/methodic-two-hosts".into();
        b.manifest.hosts.retain(|h| h.host != "bench-07");
        for r in &mut b.steps {
            r.hosts.retain(|h| h.host != "bench-07");
        }
        b.steps[0].summary.as_mut().unwrap().total.iops = 2100.0;
        b
    }

    #[test]
    fn an_imported_result_s_unstated_fields_are_named_as_unknown_not_counted_equal() {
        let a = run(false);
        let mut b = run(false);
        b.dir = "/nonexistent/methodic-imported".into();
        b.manifest.imported = Some(crate::manifest::ImportedNote {
            tool: "fio".into(),
            version: Some("fio-3.33".into()),
            format: "JSON+ (--output-format=json+)".into(),
            file: "b.json".into(),
            hash: "sha256:0".into(),
            ran: None,
            targets: Vec::new(),
            not_stated: vec!["host".into(), "drive state".into()],
            notes: Vec::new(),
        });
        b.manifest.engine.choice = "fio ioengine=libaio".into();
        let d = run_differences(&a, &b, 1);
        let fields: Vec<&str> = d.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(fields, ["measured by", "host", "engine"], "{:?}", said(&d));
        assert_eq!(d[1].b, "not stated");
        assert!(d[1].sentence.starts_with("B does not state its host: a gap between the runs cannot be"));
        // Step by step: the drive state is not stated, whatever A's is, and
        // the same file's tool twice is not a difference of tools.
        let c = crate::view::compare::comparison(&[a, b.clone()]);
        let state = c.differences.iter().find(|d| d.field == "drive state").expect("drive state named");
        assert_eq!(state.b, "not stated");
        assert!(state.sentence.starts_with("B does not state the drive state"), "{}", state.sentence);
        let mut b2 = b.clone();
        b2.manifest.imported.as_mut().unwrap().file = "c.json".into();
        let d = run_differences(&b, &b2, 1);
        assert_eq!(said(&d), ["host (run): A not stated; B not stated"]);
        assert!(d[0].sentence.starts_with("neither A nor B states its host"));
    }

    #[test]
    fn compare_names_another_host_count_and_a_host_missing_from_one_run() {
        let (a, mut b) = (run(true), without_bench_07());
        b.manifest.hosts[1].fio_version = Some("fio-3.37".into());
        let d = run_differences(&a, &b, 1);
        assert_eq!(
            said(&d),
            [
                "host count (run): A 3 hosts; B 2 hosts",
                "host (run): A bench-07 (/mnt/scratch/fio.dat); B -",
                "host fio version (host 10.0.0.3,8765): A fio-3.36; B fio-3.37",
            ]
        );
        assert_eq!(
            d[0].sentence,
            "A ran on 3 hosts, B on 2: a step's IOPS and MB/s add up over its hosts, so the totals move with the \
             count; each run's report gives every host's own numbers"
        );
        assert_eq!(d[1].sentence, "host bench-07 is in A but not in B: its I/O is in A's totals only");
        // The other way round, and in the comparison as a reader sees it:
        // the steps still pair, by what they did.
        let c = comparison(&[without_bench_07(), run(true)]);
        assert_eq!(c.pairs.len(), 3);
        assert_eq!(
            c.pairs[0].values.iter().map(|v| v.value).collect::<Vec<_>>(),
            [Some(2100.0), Some(3000.0)]
        );
        let text = c.export(crate::export::Format::Table).unwrap();
        assert!(text.contains("- host count (A vs B, run): A 2 hosts; B 3 hosts\n"), "{text}");
        assert!(text.contains("- host (A vs B, run): A -; B bench-07 (/mnt/scratch/fio.dat)\n"), "{text}");
        assert!(
            text.contains("  host bench-07 is in B but not in A: its I/O is in B's totals only\n"),
            "{text}"
        );
        insta::with_settings!({ snapshot_path => "../../../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!("two-and-three-hosts-compare.table", text);
        });
    }

    #[test]
    fn compare_names_a_run_on_many_hosts_against_one_on_one_machine_and_not_the_machines_between() {
        let (many, one) = (run(true), run(false));
        let d = run_differences(&many, &one, 1);
        // Methodic ran on the same machine both times; the hosts, not it or
        // its target, are what differs.
        assert_eq!(said(&d), ["hosts (run): A 3 hosts; B one machine (controller)"]);
        assert!(
            d[0].sentence.starts_with(
                "A ran each step on many hosts at once through fio's client/server mode, B on one machine"
            ),
            "{}",
            d[0].sentence
        );
        let mut other = run(false);
        other.manifest.host.cpu_model = Some("Other CPU".into());
        let d = run_differences(&other, &many, 1);
        assert_eq!(
            said(&d),
            ["hosts (run): A one machine (controller); B 3 hosts"],
            "no host CPU: B's I/O did not run on its controller"
        );
        assert!(d[0].sentence.starts_with("B ran each step on many hosts"), "{}", d[0].sentence);
        // Two runs on one machine: no host difference, the machines' own are still checked.
        let d = run_differences(&other, &one, 1);
        assert_eq!(said(&d), ["host CPU (run): A Other CPU x2; B Test CPU x2"]);
        // The same hosts: nothing.
        assert!(run_differences(&many, &run(true), 1).is_empty());
    }
}
