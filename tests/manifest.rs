//! manifest.json: a rehearsal of the enterprise sweep answers every
//! question of the reader's checklist, for every measured step, as a named
//! field that is set; and the run-level facts (host, target, engine,
//! methodology) are there.

use std::path::PathBuf;

use methodic_runtime::exec::Status;
use methodic_runtime::manifest::{self, Condition, StepStatus};

mod common;
use common::methodic;

fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("methodic-manifest-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn an_enterprise_sweep_rehearsal_answers_every_checklist_question() {
    let out = out_dir("enterprise");
    let o = methodic(&["run", "--rehearse", "specs/enterprise-sweep.method", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let loaded = manifest::load(&out).unwrap();
    let m = &loaded.manifest;

    assert_eq!(m.schema, manifest::MANIFEST_SCHEMA);
    assert_eq!(m.status, Status::Completed);
    assert!(m.rehearsal && m.finished.is_some() && m.seconds > 0.0);
    assert_eq!(m.tool.name, "methodic");
    assert!(!m.tool.version.is_empty());
    assert_eq!(m.methodology.name, "enterprise-sweep");
    assert_eq!(m.methodology.version, "1.0");
    assert!(m.methodology.source_hash.starts_with("sha256:"));
    let plan_ron = std::fs::read_to_string(out.join("plan.ron")).unwrap();
    assert_eq!(
        m.methodology.plan_hash,
        methodic_compiler::source_hash(&plan_ron),
        "the plan hash is of plan.ron"
    );
    assert_eq!(m.plan.steps.len(), m.steps.len());

    // Host.
    assert!(m.host.hostname.is_some() && m.host.cpu_model.is_some() && m.host.kernel.is_some());
    assert!(m.host.os.is_some() && m.host.cpus >= 1 && m.host.memory_bytes > 0);
    // The scratch target: a file, with its file system and mount options.
    let t = &m.targets[0];
    assert!(t.scratch && t.capacity > 0 && t.logical_block >= 512);
    let fs = t.identity.file_system.as_ref().expect("a file target names its file system");
    assert!(!fs.fs_type.is_empty() && !fs.options.is_empty() && !fs.mount_point.is_empty());
    // Engine.
    assert_eq!(m.engine.choice, "auto");
    assert!(m.engine.latency_recorded);

    let measured: Vec<_> = m.steps.iter().filter(|s| s.kind == "measure").collect();
    assert_eq!(measured.len(), (3 * 2 + 4) * 9, "every QD1..256 step of every sweep");
    for s in &measured {
        assert_eq!(s.status, StepStatus::Completed, "{}", s.id);
        let c = &s.checklist;
        let w = c.workload.as_ref().unwrap_or_else(|| panic!("{}: workload", s.id));
        assert!(!w.blocks.is_empty() && !w.description.is_empty(), "{}", s.id);
        let qd = c.queue_depth.as_ref().unwrap_or_else(|| panic!("{}: queue depth", s.id));
        assert!(qd.total >= 1 && qd.workers >= 1 && qd.devices >= 1, "{}", s.id);
        assert_eq!(qd.total, qd.workers * qd.per_worker, "{}", s.id);
        assert!(qd.description.contains("over all workers"), "{}: {}", s.id, qd.description);
        let state = c.drive_state.as_ref().unwrap_or_else(|| panic!("{}: drive state", s.id));
        assert!(!state.description.is_empty(), "{}", s.id);
        let span = c.span.as_ref().unwrap_or_else(|| panic!("{}: span", s.id));
        assert_eq!(span.declared, "100%");
        assert!(span.bytes > 0 && span.percent_of_capacity > 99.0, "{}: {span:?}", s.id);
        assert!(c.value_kind.computed.contains("record time"), "{}", s.id);
        assert!(c.data_pattern.is_some(), "{}: data pattern", s.id);
        assert!(c.cache.io.is_some() && !c.cache.description.is_empty(), "{}: cache", s.id);
        assert!(!c.host.is_empty(), "{}: host", s.id);
        let io = s.io.as_ref().unwrap_or_else(|| panic!("{}: engine", s.id));
        assert!(!io.engine_reason.is_empty() && io.threads >= 1);
        assert!(s.started.is_some() && s.seconds.is_some());
    }
    // The drive state follows the methodology: the 4KiB sweeps run after
    // their precondition, the server mixes after a 2x fill and the mix.
    let state = |id: &str| {
        m.steps
            .iter()
            .find(|s| s.id == id)
            .unwrap()
            .checklist
            .drive_state
            .clone()
            .unwrap_or_else(|| panic!("{id}"))
    };
    let first = state("4kib-random/rnd4k_read-qd1");
    assert_eq!(first.condition, Condition::Preconditioned);
    assert!(first.description.contains("rnd4k_write") && first.description.contains("QD 256"), "{first:?}");
    let db = state("server-mixes/database-qd1");
    assert_eq!(db.fill_passes, 2, "{db:?}");
    assert!(db.description.contains("filled sequentially 2 times") && db.description.contains("database"));
    let later = state("4kib-random/rnd4k_write-qd2");
    assert!(later.written_since > 0, "the write sweep's own writes are counted: {later:?}");

    // steps.jsonl and the manifest agree.
    assert_eq!(loaded.steps.len(), m.steps.len());
    for r in &loaded.steps {
        assert!(loaded.step_of(r).is_some() && loaded.plan_step(r).is_some(), "{}", r.id);
    }
    std::fs::remove_dir_all(&out).unwrap();
}

/// Every object key in `v` (outside the plan, which docs/PLAN.md and the
/// golden files cover), with the path to it.
fn keys(v: &serde_json::Value, path: &str, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, child) in map {
                if path.is_empty() && k == "plan" {
                    continue;
                }
                out.push((k.clone(), format!("{path}.{k}")));
                keys(child, &format!("{path}.{k}"), out);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                keys(item, path, out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_manifest_field_is_documented() {
    let out = out_dir("documented");
    let o = methodic(&["run", "--rehearse", "specs/snia-pts-e-iops.method", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let doc = std::fs::read_to_string(common::root().join("docs/RESULTS.md")).unwrap();
    let mut found = Vec::new();
    keys(&manifest, "", &mut found);
    let missing: Vec<&(String, String)> = found
        .iter()
        .filter(|(k, _)| !doc.contains(&format!("`{k}`")) && !doc.contains(&format!(".{k}`")))
        .collect();
    assert!(missing.is_empty(), "fields of manifest.json not in docs/RESULTS.md: {missing:?}");
    std::fs::remove_dir_all(&out).unwrap();
}

/// A run on a file in RAM measures about what the host ceiling measures:
/// the manifest holds the ceiling, and the step carries the host-bound flag
/// exactly when its numbers reach 90% of it (which they usually do here).
#[test]
fn a_step_that_runs_at_the_host_ceiling_is_flagged() {
    let target =
        std::path::Path::new("/dev/shm").join(format!("methodic-test-ram-{}.bin", std::process::id()));
    if !target.parent().unwrap().is_dir() {
        common::skip("there is no /dev/shm to hold a file in RAM", "mount -t tmpfs tmpfs /dev/shm");
        return;
    }
    let data: Vec<u8> = (0..64u32 << 20).map(|i| (i.wrapping_mul(2654435761) >> 24) as u8).collect();
    std::fs::write(&target, data).unwrap();
    let out = common::run_source(
        "ceiling",
        "methodology \"ram\" version \"1\"\ntarget { span 64MiB; io buffered }\n\
         workload seq4k { sequential; block 4KiB; read 100% }\nmeasure seq4k qd 32 for 2s\n",
        &["--target", target.to_str().unwrap()],
    );
    let _ = std::fs::remove_file(&target);
    let loaded = manifest::load(&out).unwrap();
    let c = loaded.manifest.host_ceiling.as_ref().expect("the ceiling was measured");
    assert!(c.iops > 0.0 && c.mb_s > 0.0 && c.memory_copy_mb_s > 0.0 && c.qd == 32 && c.iops_block == 4096);
    // The flag follows the rule from what was recorded (whether this run
    // reached 90% is the machine's business, not the test's).
    let sum = loaded.steps[0].summary.as_ref().unwrap();
    let near = sum.total.iops >= 0.9 * c.iops || sum.total.mb_s >= 0.9 * c.mb_s;
    assert_eq!(loaded.steps[0].host_bound.is_some(), near, "{:?} against {c:?}", loaded.steps[0].host_bound);
    if let Some(flag) = &loaded.steps[0].host_bound {
        assert!(flag.contains("of the host ceiling") && flag.contains("possibly host-bound"), "{flag}");
    }
    let report = methodic(&["report", out.to_str().unwrap()]);
    assert_eq!(String::from_utf8_lossy(&report.stdout).contains("possibly host-bound"), near);
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
}
