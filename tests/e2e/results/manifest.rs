//! manifest.json: a rehearsal of the enterprise sweep answers every
//! question of the reader's checklist, for every measured step, as a named
//! field that is set; and the run-level facts (host, target, engine,
//! methodology) are there.

use methodic_results::manifest::{self, Condition, StepStatus};
use methodic_results::record::Status;

use crate::common;
use common::methodic;

#[test]
fn an_enterprise_sweep_rehearsal_answers_every_checklist_question() {
    // No host ceiling: nothing here is about it, and the ceiling tests
    // below measure it. A copy: the test rewrites the manifest below.
    let out = common::rehearsal_copy("enterprise-sweep", "manifest-enterprise");
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

    // The same manifest as schema 1 wrote it (Rust's spellings: `StepAverage`,
    // `Measure { .. }`) reads back as the same manifest.
    let path = out.join("manifest.json");
    let mut old: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    old["schema"] = 1.into();
    let changed = to_schema_1(&mut old, "");
    assert!(changed > 100, "the enterprise sweep's manifest has many enum values ({changed})");
    std::fs::write(&path, serde_json::to_string(&old).unwrap()).unwrap();
    let mut reread = manifest::load(&out).unwrap().manifest;
    assert_eq!(reread.schema, 1);
    reread.schema = m.schema;
    assert_eq!(serde_json::to_value(&reread).unwrap(), serde_json::to_value(m).unwrap());
    std::fs::remove_dir_all(&out).unwrap();
}

/// `step_average` as schema 1 spelled it: `StepAverage`.
fn pascal(s: &str) -> String {
    s.split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect()
}

/// The enum values schema 2 spells the language's way.
const SCHEMA_2_WORDS: &[&str] = &[
    "step_average",
    "steady_state_average",
    "peak",
    "binary",
    "decimal",
    "total",
    "per_worker",
    "direct",
    "buffered",
    "random",
    "zeros",
    "drop_caches",
];

/// Rewrites a manifest's enum values in schema 1's spelling (the Rust
/// variant names); how many it rewrote.
fn to_schema_1(v: &mut serde_json::Value, key: &str) -> usize {
    use serde_json::Value;
    let mut n = 0;
    match v {
        Value::Object(map) => {
            // Enums with data are objects of one key: the variant.
            let tagged = matches!(key, "action" | "span" | "stop" | "data")
                && map.len() == 1
                && !map.contains_key("written");
            if tagged {
                let (k, inner) = map.iter().next().map(|(k, v)| (k.clone(), v.clone())).unwrap();
                map.clear();
                map.insert(pascal(&k), inner);
                n += 1;
            }
            for (k, x) in map.iter_mut() {
                n += to_schema_1(x, k);
            }
        }
        Value::Array(items) => n += items.iter_mut().map(|x| to_schema_1(x, key)).sum::<usize>(),
        // Only the enums' words: a step's `kind` ("measure") is text, not an enum.
        Value::String(s)
            if matches!(
                key,
                "kind"
                    | "value"
                    | "units"
                    | "counted"
                    | "queue_depth"
                    | "io"
                    | "data"
                    | "data_pattern"
                    | "action"
            ) && SCHEMA_2_WORDS.contains(&s.as_str()) =>
        {
            *s = pascal(s);
            n += 1;
        }
        _ => {}
    }
    n
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

/// The fields of a rehearsal of a SNIA spec with its host ceilings (rounds,
/// steady state, ceilings). The latency spec writes the same fields as the
/// IOPS one, in a third of the time: 9 cells a round, not 56.
#[test]
fn every_manifest_field_is_documented() {
    let out = common::temp_path("manifest-documented");
    let o =
        methodic(&["run", "--rehearse", "specs/snia-pts-e-latency.method", "--out", out.to_str().unwrap()]);
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

/// A run on a file in RAM: the host ceiling is measured for each I/O
/// shape the plan uses, once (QD1 and QD32 4KiB, 128KiB at QD32; the QD1
/// writes share the QD1 reads' shape), and every step's record names the
/// ceiling of the shape it ran as (its engine, threads and depth, as its
/// `io` says) and carries the host-bound flag exactly when its numbers
/// reach 90% of that ceiling. On RAM the QD1 step and its ceiling measure
/// the same thing and usually land within 10%; whether they did on this
/// loaded machine is a timing, so the test holds the flag to the rule, not
/// to being set (the flag's words are unit-tested on set numbers).
#[test]
fn each_step_is_judged_against_the_host_ceiling_of_its_own_shape() {
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
         workload rnd4k { random; block 4KiB; read 100% }\n\
         workload rnd4k_write { random; block 4KiB; read 0% }\n\
         workload seq128k { sequential; block 128KiB; read 100% }\n\
         measure rnd4k qd 1 ramp 0s for 300ms\nmeasure rnd4k qd 32 ramp 0s for 300ms\n\
         measure seq128k qd 32 ramp 0s for 300ms\nmeasure rnd4k_write qd 1 ramp 0s for 300ms\n",
        &["--target", target.to_str().unwrap(), "--overwrite"],
    );
    let _ = std::fs::remove_file(&target);
    let loaded = manifest::load(&out).unwrap();
    let m = &loaded.manifest;
    assert!(m.host_ceiling.is_none(), "the one ceiling of older manifests is not written");
    let c = m.ceilings.as_ref().expect("the ceilings were measured");
    assert!(c.target.ends_with("(tmpfs)") && c.memory_copy_mb_s > 0.0 && c.unmeasured.is_empty());
    assert_eq!(c.shapes.len(), 3, "QD1 4KiB, QD32 4KiB, QD32 128KiB");
    assert!(c.shapes.iter().all(|s| s.iops > 0.0 && s.mb_s > 0.0));
    assert_eq!(loaded.steps.len(), 4);
    for r in &loaded.steps {
        let step = loaded.plan_step(r).unwrap();
        let methodic_compiler::plan::Action::Measure { workload, qd, .. } = &step.action else {
            unreachable!()
        };
        let io = r.io.as_ref().unwrap();
        assert_eq!(r.ceilings.len(), 1, "{}", r.id);
        let named = &r.ceilings[0];
        assert_eq!((named.workload.as_str(), named.qd), (workload.name.as_str(), qd.total), "{}", r.id);
        let shape = &named.ceiling.shape;
        assert_eq!(
            (shape.engine, shape.threads, shape.depth, &shape.blocks),
            (io.engine, io.threads, io.depth, &workload.blocks),
            "{}: the ceiling of the shape it ran as",
            r.id
        );
        assert_eq!(c.of(shape), Some(&named.ceiling), "{}: as measured", r.id);
        // The flag follows the rule from what was recorded.
        let sum = r.summary.as_ref().unwrap();
        let near = sum.total.iops >= 0.9 * named.ceiling.iops || sum.total.mb_s >= 0.9 * named.ceiling.mb_s;
        assert_eq!(r.host_bound.is_some(), near, "{}: {:?} against {named:?}", r.id, r.host_bound);
        if let Some(flag) = &r.host_bound {
            assert!(
                flag.contains("of the host ceiling of its own shape") && flag.contains("possibly host-bound")
            );
            assert!(flag.contains(&format!("at QD {} (", qd.total)), "{flag}");
        }
    }
    let qd1: Vec<_> = loaded.steps.iter().filter(|r| r.ceilings[0].qd == 1).collect();
    assert_eq!(qd1.len(), 2);
    assert_eq!(
        qd1[0].ceilings[0].ceiling, qd1[1].ceilings[0].ceiling,
        "QD1 writes share the QD1 reads' ceiling"
    );
    assert_eq!((qd1[0].ceilings[0].ceiling.shape.threads, qd1[0].ceilings[0].ceiling.shape.depth), (1, 1));
    let report = methodic(&["report", out.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(text.contains("host ceiling: 3 I/O shapes read from RAM"), "{text}");
    assert_eq!(text.contains("possibly host-bound"), loaded.steps.iter().any(|r| r.host_bound.is_some()));

    // Written by a methodic before ceilings per shape (the same manifest
    // schema): one `host_ceiling`, no `ceilings`, step records without
    // theirs. It still loads, reports its ceiling and compares.
    let path = out.join("manifest.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("ceilings");
    o.insert(
        "host_ceiling".into(),
        serde_json::json!({"target": "/dev/shm/methodic-ceiling-1.bin (tmpfs)", "iops": 3310611.0, "iops_block": 4096,
            "mb_s": 51758.0, "bandwidth_block": 1048576, "qd": 32, "engine": "psync 32x1",
            "memory_copy_mb_s": 18181.0, "seconds_each": 1.0}),
    );
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    let steps: Vec<String> = std::fs::read_to_string(out.join("steps.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let mut r: serde_json::Value = serde_json::from_str(l).unwrap();
            r.as_object_mut().unwrap().remove("ceilings");
            r.to_string()
        })
        .collect();
    std::fs::write(out.join("steps.jsonl"), steps.join("\n") + "\n").unwrap();
    let old = manifest::load(&out).unwrap();
    assert!(old.manifest.ceilings.is_none() && old.steps.iter().all(|r| r.ceilings.is_empty()));
    assert_eq!(old.manifest.host_ceiling.as_ref().map(|c| c.qd), Some(32));
    let report = methodic(&["report", out.to_str().unwrap()]);
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    assert!(
        String::from_utf8_lossy(&report.stdout)
            .contains("host ceiling: 3310611 IOPS (4096 B random reads from RAM at QD 32)")
    );
    assert!(methodic(&["compare", out.to_str().unwrap(), out.to_str().unwrap()]).status.success());
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
}

/// `methodic calibrate` measures each queue depth with each block size,
/// and prints what the manifest keeps as `ceilings`. Decided by counts,
/// not by how fast the host was: each shape asked for is there exactly
/// once, either measured (I/Os completed, so IOPS and MB/s above 0) or
/// unmeasured because a loaded host completed none of its I/Os in 0.1 s,
/// which calibrate must then say rather than report a ceiling of 0.
#[test]
fn calibrate_measures_each_queue_depth_with_each_block_size() {
    if !std::path::Path::new("/dev/shm").is_dir() {
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "no /dev/shm for a file in RAM");
        eprintln!("skipped: no /dev/shm");
        return;
    }
    let shapes = |args: &[&str]| -> Vec<(u32, u32, u64)> {
        let mut all = vec!["calibrate", "--engine", "psync", "--seconds", "0.1", "--format", "json"];
        all.extend_from_slice(args);
        let o = methodic(&all);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let c: methodic_results::ceiling::Ceilings = serde_json::from_slice(&o.stdout).unwrap();
        for s in &c.shapes {
            assert!(s.iops > 0.0 && s.mb_s > 0.0, "a measured shape completed I/O: {s:?}");
        }
        for u in &c.unmeasured {
            assert!(
                u.reason.contains("no I/O completed in its 0.1s"),
                "unmeasured only for want of I/O: {u:?}"
            );
        }
        let all = c.shapes.iter().map(|s| &s.shape).chain(c.unmeasured.iter().map(|u| &u.shape));
        assert!(all.clone().all(|s| s.engine == methodic_results::engine::EngineKind::Psync));
        let mut got: Vec<_> = all.map(|s| (s.threads, s.depth, s.largest_block().0)).collect();
        got.sort();
        got
    };
    assert_eq!(
        shapes(&["--qd", "1,4", "--block", "4KiB", "--block", "64KiB"]),
        vec![(1, 1, 4096), (1, 1, 65536), (4, 1, 4096), (4, 1, 65536)],
        "psync keeps QD 4 with 4 threads"
    );
    // The older spelling of a second block size still works.
    assert_eq!(
        shapes(&["--qd", "1", "--block", "4KiB", "--large-block", "1MiB"]),
        vec![(1, 1, 4096), (1, 1, 1 << 20)]
    );
    let o = methodic(&["calibrate", "--qd", "0"]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("each --qd at least 1"));
    let many: Vec<String> = (1..=65).map(|q| q.to_string()).collect();
    let o = methodic(&["calibrate", "--block", "4KiB", "--qd", &many.join(",")]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("at most 64"));
}
