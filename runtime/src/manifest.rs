//! `manifest.json`: what made each number. Written when the run starts
//! (status `running`, every step `pending` with what it will do), again as
//! each step starts and finishes, and a last time when the run ends
//! (`completed`, `interrupted` or `failed`). Each write goes to a temporary
//! file that is synced and renamed over the old one, so a crash leaves the
//! last whole manifest.
//!
//! Every step carries the reader's checklist as named fields: workload,
//! queue depth and how it is counted, drive state before the step, span,
//! value kind, units, data pattern, cache policy and host. The manifest's
//! types live in methodic-results; this module fills in what only the
//! runtime knows (the opened targets, the span each step covers).

use methodic_compiler::plan::{Action, Bytes, Plan, Step, Target as Settings, Workload};
use methodic_results::host::TargetInfo;
use methodic_results::manifest::*;
use methodic_results::record::Status;

use crate::region::step_region;
use crate::target::Target;
use methodic_results::host::Host;

/// What results record of an opened target.
pub fn target_info(t: &Target) -> TargetInfo {
    TargetInfo {
        path: t.path.clone(),
        kind: t.kind,
        capacity: t.capacity,
        logical_block: t.logical_block,
        physical_block: t.physical_block,
        scratch: t.created,
        nowait: t.nowait,
        inline_completion: t.inline_completion,
        identity: t.identity.clone(),
    }
}

/// The manifest of a run that is starting: every step pending.
pub struct Start<'a> {
    pub plan: &'a Plan,
    /// The plan as compiled, before any rehearsal scaling.
    pub plan_ron: &'a str,
    pub targets: &'a [Target],
    pub host: Host,
    pub engine: EngineNote,
    pub rehearsal: bool,
    pub seed: u64,
    pub started: String,
}

/// The manifest of a run about to start: every step pending, with its
/// checklist.
pub fn start(s: Start<'_>) -> Manifest {
    let hostname = s.host.hostname.clone().unwrap_or_else(|| "unknown".into());
    let dropped = s.plan.caches_dropped();
    let steps = s
        .plan
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| ManifestStep {
            index: i + 1,
            id: step.id.clone(),
            phase: step.phase.clone(),
            kind: step.action.kind().to_string(),
            description: step.describe(),
            status: StepStatus::Pending,
            started: None,
            seconds: None,
            error: None,
            establishes_state: step.establishes_state,
            checklist: checklist(s.plan, step, dropped[i], s.targets, &hostname),
            io: None,
            steady: None,
            actions: Vec::new(),
            workers: Vec::new(),
            not_stated: Vec::new(),
            skipped: None,
        })
        .collect();
    let m = &s.plan.methodology;
    Manifest {
        schema: MANIFEST_SCHEMA,
        tool: Tool::this(),
        status: Status::Running,
        error: None,
        rehearsal: s.rehearsal,
        started: s.started.clone(),
        updated: s.started,
        finished: None,
        seconds: 0.0,
        seed: s.seed,
        methodology: Methodology {
            name: m.name.clone(),
            version: m.version.clone(),
            description: m.description.clone(),
            source_hash: m.source_hash.clone(),
            plan_hash: methodic_compiler::source_hash(s.plan_ron),
            plan_schema: s.plan.schema,
            compiler: s.plan.compiler.clone(),
            non_destructive: m.non_destructive,
        },
        host: s.host,
        targets: s.targets.iter().map(target_info).collect(),
        engine: s.engine,
        ceilings: None,
        host_ceiling: None,
        datasets: None,
        plan: s.plan.clone(),
        steps,
        resumed: Vec::new(),
        write_cache: Vec::new(),
        hosts: Vec::new(),
        imported: None,
    }
}

/// A step's checklist as the plan says it, before it runs (the drive
/// state is filled in as it starts).
fn checklist(
    plan: &Plan,
    step: &Step,
    caches_dropped: bool,
    targets: &[Target],
    hostname: &str,
) -> Checklist {
    let conventions = plan.conventions;
    let settings = step.target.unwrap_or(plan.target);
    let touches = step.action.touches_target();
    let (workload, qd) = workload_and_qd(&step.action);
    Checklist {
        workload: workload.map(WorkloadFacts::of),
        queue_depth: qd.map(|q| QdFacts::of(q, settings.devices)),
        drive_state: None,
        span: if touches && !matches!(step.action, Action::Copy { .. }) {
            // The workers of a shallow queue use only as many devices as
            // there are of them.
            let devices = qd.map_or(settings.devices, |q| settings.devices.min(q.workers.max(1)));
            span_facts(Settings { devices, ..settings }, workload, targets)
        } else {
            None
        },
        value_kind: ValueFacts { kind: conventions.value, computed: computed(step, conventions.value) },
        units: conventions.units,
        data_pattern: (workload.is_some() || matches!(step.action, Action::Probe(_)))
            .then_some(settings.data),
        cache: cache_facts(touches.then_some(settings.io), caches_dropped, step.ram_limit),
        host: hostname.to_string(),
        load: load_of(&step.action),
        jobs: jobs_of(&step.action),
    }
}

fn span_facts(settings: Settings, workload: Option<&Workload>, targets: &[Target]) -> Option<SpanFacts> {
    let (offset, largest) = match workload {
        Some(w) => (w.offset, w.largest_block()),
        None => (Bytes(0), Bytes(1)),
    };
    let (mut bytes, mut capacity) = (0u64, 0u64);
    for t in targets.iter().take(settings.devices.max(1) as usize) {
        let r = step_region(settings.span, offset, largest, Bytes(t.capacity), t.logical_block).ok()?;
        bytes += r.len;
        capacity += t.capacity;
    }
    (capacity > 0).then(|| SpanFacts {
        declared: settings.span.to_string(),
        bytes,
        capacity,
        percent_of_capacity: (bytes as f64 * 10_000.0 / capacity as f64).round() / 100.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::OpenOptionsT;
    use methodic_compiler::plan::Step;
    use methodic_results::record::StepResult;

    fn plan(src: &str) -> Plan {
        methodic_compiler::compile(src, &Default::default()).unwrap().plan
    }

    fn result(step: &Step, error: Option<&str>) -> StepResult {
        StepResult {
            seconds: 1.0,
            error: error.map(str::to_string),
            actions: vec!["BLKDISCARD (discard) of 1.0 GiB".into()],
            ..StepResult::new(0, step, false, String::new())
        }
    }

    const SOURCE: &str = "methodology \"t\" version \"1\"\n\
        workload w { random; block 4KiB; read 0% }\n\
        workload r { random; block 4KiB; read 100% }\n\
        workload s { sequential; block 128KiB; read 0% }\n\
        erase discard\n\
        fill s passes 2\n\
        precondition w qd 32 for 1h\n\
        measure r qd 1 for 1s\n\
        fill s passes 1\n";

    #[test]
    fn the_drive_state_follows_erase_fill_and_precondition() {
        let p = plan(SOURCE);
        let mut d = DriveTracker::new(false);
        assert_eq!(d.state.condition, Condition::AsFound);
        assert!(d.state.description.starts_with("as found"), "{}", d.state.description);
        d.after(&p.steps[0], &result(&p.steps[0], None));
        assert_eq!(d.state.condition, Condition::Fresh);
        assert_eq!(d.state.description, "erased (BLKDISCARD (discard) of 1.0 GiB)");
        d.after(&p.steps[1], &result(&p.steps[1], None));
        assert_eq!((d.state.condition, d.state.fill_passes), (Condition::Filled, 2));
        d.after(&p.steps[2], &result(&p.steps[2], None));
        assert_eq!(d.state.condition, Condition::Preconditioned);
        assert!(d.state.description.contains("filled sequentially 2 times, preconditioned with w"));
        assert!(d.state.description.contains("at QD 32 for 1h"), "{}", d.state.description);
        // A read-only measurement changes nothing; a fill after the
        // precondition starts the history anew.
        let before = d.state.clone();
        d.after(&p.steps[3], &result(&p.steps[3], None));
        assert_eq!(d.state, before);
        d.after(&p.steps[4], &result(&p.steps[4], None));
        assert_eq!((d.state.condition, d.state.fill_passes), (Condition::Filled, 1));
        assert!(d.state.preconditions.is_empty() && d.state.erased.is_none());
    }

    #[test]
    fn a_state_step_that_fails_leaves_the_state_in_doubt() {
        let p = plan(SOURCE);
        let mut d = DriveTracker::new(true);
        assert_eq!(d.state.condition, Condition::Fresh, "a new scratch file");
        d.after(&p.steps[2], &result(&p.steps[2], Some("interrupted")));
        assert!(d.state.in_doubt && d.state.preconditions.is_empty());
        assert!(d.state.description.contains("in doubt"), "{}", d.state.description);
        d.after(&p.steps[1], &result(&p.steps[1], None));
        assert!(!d.state.in_doubt, "a finished fill settles it");
    }

    #[test]
    fn the_span_counts_only_the_devices_a_step_uses() {
        let p = plan(
            "methodology \"t\" version \"1\"\n\
             target { workers 4; devices 4; span 50% }\n\
             workload r { random; block 4KiB; read 100% }\n\
             sweep r qd [1, 8] record 1s\n",
        );
        let dir = std::env::temp_dir().join(format!("methodic-manifest-span-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let open = OpenOptionsT {
            create_size: Some(1 << 20),
            need_direct: false,
            write: false,
            destroy: Vec::new(),
            overwrite: false,
        };
        let targets: Vec<Target> =
            (0..4).map(|i| Target::open(&dir.join(format!("t{i}")), &open).unwrap()).collect();
        let m = start(Start {
            plan: &p,
            plan_ron: &p.to_ron(),
            targets: &targets,
            host: Host::default(),
            engine: EngineNote {
                choice: "auto".into(),
                io_uring: true,
                io_uring_unavailable: None,
                pinned: false,
                latency_recorded: true,
                psync_max_threads: 128,
            },
            rehearsal: false,
            seed: 1,
            started: String::new(),
        });
        let span = |i: usize| m.steps[i].checklist.span.clone().unwrap();
        assert_eq!(m.steps[0].checklist.queue_depth.as_ref().unwrap().devices, 1);
        assert_eq!((span(0).bytes, span(0).capacity), (512 << 10, 1 << 20), "QD1: one worker, one device");
        assert_eq!((span(1).bytes, span(1).capacity), (2 << 20, 4 << 20), "QD8: four devices");
        assert_eq!(span(1).percent_of_capacity, 50.0);
        assert_eq!(m.methodology.plan_hash, methodic_compiler::source_hash(&p.to_ron()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
