//! For the views' tests: results directories made by hand, never read from
//! disk. A methodology of one measurement and one rounds step of two
//! cells, compiled, run (on paper) on this machine or on three hosts at
//! once through fio's client/server mode, with round numbers that a test
//! can find again in what a view prints.

use std::path::PathBuf;

use methodic_compiler::plan::{Action, Step};

use crate::analysis::{Peak, Window};
use crate::engine::EngineNote;
use crate::host::{Host, Identity, TargetInfo, TargetKind};
use crate::manifest::{
    CacheFacts, Checklist, HostNote, Loaded, Manifest, ManifestStep, Methodology, QdFacts, StepStatus, Tool,
    ValueFacts, WorkloadFacts, computed, workload_and_qd,
};
use crate::numbers::{Latency, Rates, Summary};
use crate::record::{CellResult, HostRates, Status, SteadyResult, StepResult};

/// A measurement of 4KiB random reads at QD 32, then rounds of 4KiB
/// random writes and reads at QD 4 until the writes are steady.
pub const SOURCE: &str = "methodology \"hosts\" version \"1.0\"\n\
    target { span 1GiB }\n\
    workload rnd4k_read { random; block 4KiB; read 100% }\n\
    workload rnd4k_write { random; block 4KiB; read 0% }\n\
    phase \"measure\" { measure rnd4k_read qd 32 for 30s ramp 5s }\n\
    phase \"rounds\" {\n  rounds {\n    measure rnd4k_write qd 4 for 10s\n    measure rnd4k_read qd 4 for 10s\n  } \
    until steady { window 2; max_rounds 3; track rnd4k_write qd 4 }\n}\n";

/// The three hosts, as a hosts file names them, and their targets.
pub const HOSTS: [(&str, &str); 3] = [
    ("10.0.0.2,8765", "/dev/nvme0n1"),
    ("10.0.0.3,8765", "/dev/nvme0n1"),
    ("bench-07", "/mnt/scratch/fio.dat"),
];

/// 4KiB I/Os at `iops` for `seconds`, and their latency: mean, p99, p99.9
/// and max in microseconds (the other percentiles between them).
pub fn rates(iops: f64, seconds: f64, [mean, p99, p99_9, max]: [f64; 4]) -> Rates {
    let ios = (iops * seconds).round() as u64;
    let bytes = ios * 4096;
    Rates {
        ios,
        bytes,
        iops,
        mb_s: iops * 4096.0 / 1e6,
        mib_s: iops * 4096.0 / 1_048_576.0,
        latency_us: Latency {
            mean,
            min: mean / 4.0,
            p50: mean * 0.9,
            p90: (mean + p99) / 2.0,
            p99,
            p99_9,
            p99_99: (p99_9 + max) / 2.0,
            p99_999: max,
            p99_9999: max,
            max,
        },
    }
}

pub fn summary(seconds: f64, total: Rates, reads: bool) -> Summary {
    Summary {
        seconds,
        read: reads.then(|| total.clone()),
        write: (!reads).then(|| total.clone()),
        total,
        trim: None,
    }
}

/// One host's share: the host of [`HOSTS`] at `i`, a rounds cell or the
/// step's one run, its seconds and rates (reads alone, or writes alone).
fn host(i: usize, cell: Option<u32>, seconds: f64, total: Rates, reads: bool) -> HostRates {
    HostRates {
        host: HOSTS[i].0.into(),
        target: HOSTS[i].1.into(),
        cell,
        job: None,
        seconds,
        read: reads.then(|| total.clone()),
        write: (!reads).then(|| total.clone()),
        total,
    }
}

/// What each host's fio server said of itself: the first two named, the
/// third with its OS and fio version only; none reports a kernel or CPU
/// (fio's protocol carries neither).
fn host_notes() -> Vec<HostNote> {
    HOSTS
        .iter()
        .enumerate()
        .map(|(i, (h, t))| HostNote {
            host: h.to_string(),
            target: t.to_string(),
            hostname: (i < 2).then(|| format!("bench-0{}", i + 5)),
            os: Some("Linux".into()),
            arch: (i < 2).then(|| "x86-64".into()),
            fio_version: Some(if i == 2 { "fio-3.33" } else { "fio-3.36" }.into()),
            kernel: None,
            cpu: None,
            disks: if i < 2 { vec!["nvme0n1".into()] } else { Vec::new() },
        })
        .collect()
}

fn manifest_step(i: usize, step: &Step, plan: &methodic_compiler::plan::Plan) -> ManifestStep {
    let (workload, qd) = workload_and_qd(&step.action);
    ManifestStep {
        index: i + 1,
        id: step.id.clone(),
        phase: step.phase.clone(),
        kind: step.action.kind().to_string(),
        description: step.describe(),
        status: StepStatus::Completed,
        started: Some("2026-12-01T10:00:00Z".into()),
        seconds: Some(35.0),
        error: None,
        establishes_state: step.establishes_state,
        checklist: Checklist {
            workload: workload.map(WorkloadFacts::of),
            queue_depth: qd.map(|q| QdFacts::of(q, 1)),
            drive_state: None,
            span: None,
            value_kind: ValueFacts {
                kind: plan.conventions.value,
                computed: computed(step, plan.conventions.value),
            },
            units: plan.conventions.units,
            data_pattern: None,
            cache: CacheFacts {
                io: None,
                caches_dropped: false,
                ram_limit: None,
                description: "O_DIRECT".into(),
            },
            host: "controller".into(),
            load: None,
            jobs: Vec::new(),
        },
        io: None,
        steady: None,
        actions: Vec::new(),
        workers: Vec::new(),
        not_stated: Vec::new(),
        skipped: None,
    }
}

/// The run: on three hosts when `hosts`, else on this machine (one
/// scratch file, no host rows). The numbers are the same either way: the
/// step's summary is what the three hosts did together.
pub fn run(hosts: bool) -> Loaded {
    let plan = methodic_compiler::compile(SOURCE, &methodic_compiler::Options::default())
        .expect("the test methodology compiles")
        .plan;
    let mut steps: Vec<ManifestStep> =
        plan.steps.iter().enumerate().map(|(i, s)| manifest_step(i, s, &plan)).collect();
    let mut results = Vec::new();
    for (i, step) in plan.steps.iter().enumerate() {
        let mut r = StepResult::new(i, step, false, "2026-12-01T10:00:00Z".into());
        r.seconds = 35.0;
        match &step.action {
            Action::Measure { .. } => {
                // Each host's share, and all three: IOPS added, the longest
                // runtime, latency from the merged histograms.
                r.summary = Some(summary(30.2, rates(3000.0, 30.2, [10.5, 40.0, 95.0, 900.0]), true));
                r.peak = Some(Peak {
                    interval_s: 1.0,
                    intervals: 30,
                    iops: 3150.0,
                    iops_at_s: 12.0,
                    mb_s: 3150.0 * 4096.0 / 1e6,
                    mb_s_at_s: 12.0,
                });
                if hosts {
                    r.hosts = vec![
                        host(0, None, 30.0, rates(1000.0, 30.0, [10.0, 38.0, 90.0, 700.0]), true),
                        host(1, None, 30.2, rates(1100.0, 30.2, [9.5, 36.0, 88.0, 650.0]), true),
                        host(2, None, 30.1, rates(900.0, 30.1, [12.0, 44.0, 99.0, 900.0]), true),
                    ];
                }
            }
            Action::Rounds { .. } => {
                let cell = |workload: &str, iops: f64, lat: [f64; 4], reads: bool| CellResult {
                    workload: workload.into(),
                    qd: 4,
                    workers: 1,
                    window_iops: iops,
                    window_mb_s: iops * 4096.0 / 1e6,
                    window_mean_latency_us: lat[0],
                    window_latency_us: rates(iops, 20.0, lat).latency_us,
                    rounds_latency_us: Vec::new(),
                    peak_iops: iops * 1.02,
                    peak_mb_s: iops * 1.02 * 4096.0 / 1e6,
                    last: summary(10.1, rates(iops, 10.1, lat), reads),
                };
                r.cells = Some(vec![
                    cell("rnd4k_write", 1800.0, [6.5, 21.0, 44.0, 300.0], false),
                    cell("rnd4k_read", 2400.0, [5.0, 15.0, 31.0, 250.0], true),
                ]);
                r.steady = Some(SteadyResult {
                    metric: methodic_compiler::plan::Metric::Iops,
                    reached: true,
                    rounds: 3,
                    values: vec![1750.0, 1810.0, 1790.0],
                    window: Some(Window {
                        first: 2,
                        last: 3,
                        average: 1800.0,
                        range: 20.0,
                        range_limit: 360.0,
                        slope: -20.0,
                        change: 20.0,
                        change_limit: 180.0,
                        steady: true,
                    }),
                    rounds_latency_us: Vec::new(),
                });
                if hosts {
                    r.hosts = vec![
                        host(0, Some(1), 10.0, rates(600.0, 10.0, [6.4, 20.0, 43.0, 280.0]), false),
                        host(1, Some(1), 10.1, rates(620.0, 10.1, [6.2, 19.0, 41.0, 300.0]), false),
                        host(2, Some(1), 10.0, rates(580.0, 10.0, [6.9, 24.0, 47.0, 260.0]), false),
                        host(0, Some(2), 10.0, rates(800.0, 10.0, [5.0, 15.0, 30.0, 240.0]), true),
                        host(1, Some(2), 10.1, rates(810.0, 10.1, [4.9, 14.5, 30.5, 250.0]), true),
                        host(2, Some(2), 10.0, rates(790.0, 10.0, [5.1, 15.5, 32.0, 230.0]), true),
                    ];
                }
            }
            _ => {}
        }
        steps[i].steady.clone_from(&r.steady);
        results.push(r);
    }
    let dir = PathBuf::from(if hosts { "/nonexistent/methodic-hosts" } else { "/nonexistent/methodic-one" });
    Loaded { dir, manifest: manifest(plan, steps, hosts), steps: results }
}

/// The run of any methodology `source` on this machine, read from `dir`:
/// its plan compiled, every step completed with a record that holds no
/// numbers, for a test to fill in (and to write the series it names into
/// `dir`).
pub fn of_source(source: &str, dir: PathBuf) -> Loaded {
    let plan = methodic_compiler::compile(source, &methodic_compiler::Options::default())
        .expect("the test methodology compiles")
        .plan;
    let steps: Vec<ManifestStep> =
        plan.steps.iter().enumerate().map(|(i, s)| manifest_step(i, s, &plan)).collect();
    let results = plan
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let mut r = StepResult::new(i, step, false, "2026-12-01T10:00:00Z".into());
            r.seconds = 35.0;
            r
        })
        .collect();
    Loaded { dir, manifest: manifest(plan, steps, false), steps: results }
}

/// The manifest of a run of `plan` with these steps: on the three hosts
/// of [`HOSTS`] when `hosts`, else on a 1GiB scratch file of this machine.
fn manifest(plan: methodic_compiler::plan::Plan, steps: Vec<ManifestStep>, hosts: bool) -> Manifest {
    let target = TargetInfo {
        path: PathBuf::from("/var/tmp/methodic-scratch"),
        kind: TargetKind::File,
        capacity: 1 << 30,
        logical_block: 512,
        physical_block: 4096,
        scratch: true,
        nowait: true,
        inline_completion: false,
        identity: Identity::default(),
    };
    Manifest {
        schema: crate::manifest::MANIFEST_SCHEMA,
        tool: Tool { name: "methodic".into(), version: "0.1.0".into(), git_revision: None },
        status: Status::Completed,
        error: None,
        rehearsal: false,
        started: "2026-12-01T10:00:00Z".into(),
        updated: "2026-12-01T10:01:10Z".into(),
        finished: Some("2026-12-01T10:01:10Z".into()),
        seconds: 70.0,
        seed: 7,
        methodology: Methodology {
            name: plan.methodology.name.clone(),
            version: plan.methodology.version.clone(),
            description: None,
            source_hash: "sha256:source".into(),
            plan_hash: "sha256:plan".into(),
            plan_schema: plan.schema,
            compiler: "methodic-compiler 0.1.0".into(),
            non_destructive: false,
        },
        host: Host {
            hostname: Some("controller".into()),
            cpu_model: Some("Test CPU".into()),
            cpus: 2,
            cpus_allowed: 2,
            memory_bytes: 8 << 30,
            kernel: Some("6.1.0".into()),
            kernel_build: None,
            os: Some("Debian GNU/Linux 12".into()),
            arch: "x86_64".into(),
            virtualization: None,
            power: None,
        },
        targets: if hosts { Vec::new() } else { vec![target] },
        engine: EngineNote {
            choice: "auto".into(),
            io_uring: true,
            io_uring_unavailable: None,
            pinned: false,
            latency_recorded: true,
            psync_max_threads: 64,
        },
        ceilings: None,
        host_ceiling: None,
        datasets: None,
        plan,
        steps,
        resumed: Vec::new(),
        write_cache: Vec::new(),
        hosts: if hosts { host_notes() } else { Vec::new() },
        imported: None,
    }
}
