//! fio interop: every spec exports to a job file fio accepts
//! (`fio --parse-only`, which .ci/run installs), with the options that say
//! what each step does and a comment where fio cannot say it.

mod common;

use std::path::PathBuf;

use common::{fio_parses, methodic, root, text};

#[test]
fn every_spec_exports_to_jobs_fio_accepts() {
    let dir = common::temp_path("fio-specs");
    let mut specs: Vec<PathBuf> = std::fs::read_dir(root().join("specs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "method"))
        .collect();
    specs.sort();
    assert!(specs.len() >= 10);
    for spec in &specs {
        let o = methodic(&["export", "fio", spec.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
        assert!(o.status.success(), "{}: {}", spec.display(), text(&o.stderr));
    }
    let jobs: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(jobs.len(), specs.len(), "one job file a spec (name and version): {jobs:?}");
    for job in &jobs {
        if let Err(e) = fio_parses(job) {
            panic!("fio refuses {}: {e}", job.display());
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_step_exports_with_the_options_that_say_what_it_does() {
    let o = methodic(&["export", "fio", "specs/quick.method"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let job = text(&o.stdout);
    let section = |name: &str| -> String {
        let start = job.find(&format!("[{name}]")).unwrap_or_else(|| panic!("no [{name}] in\n{job}"));
        job[start..].split("\n\n").next().unwrap().to_string()
    };
    let qd32 = section("4-measure.rnd4k_read-qd32");
    for line in [
        "stonewall",
        "rw=randread",
        "bs=4096",
        "iodepth=32",
        "numjobs=1",
        "direct=1",
        "ramp_time=1000ms",
        "runtime=2000ms",
        "time_based",
    ] {
        assert!(qd32.lines().any(|l| l == line), "{line} in\n{qd32}");
    }
    let fill = section("2-prepare.fill-seq128k_write");
    assert!(
        fill.contains("rw=write\n") && fill.contains("bs=131072") && !fill.contains("refill_buffers"),
        "{fill}"
    );
    // The erase fio cannot do is a comment that says what to run instead.
    assert!(job.contains("; step 1 (prepare/erase-discard): discard of the span. fio cannot"), "{job}");
    assert!(job.contains("filename=${TARGET}"));
    // A compiled plan exports the same.
    let dir = common::temp_path("fio-plan");
    std::fs::create_dir_all(&dir).unwrap();
    let plan = dir.join("quick.ron");
    assert!(methodic(&["compile", "specs/quick.method", "-o", plan.to_str().unwrap()]).status.success());
    let o = methodic(&["export", "fio", plan.to_str().unwrap()]);
    assert_eq!(text(&o.stdout), job);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A mixed, multi-block workload across several workers: rwmixread,
/// percentage_random, bssplit and the fill's stripes.
#[test]
fn mixes_splits_and_striped_fills_export() {
    let dir = common::temp_path("fio-mix");
    std::fs::create_dir_all(&dir).unwrap();
    let m = dir.join("mix.method");
    std::fs::write(
        &m,
        "methodology \"mix\" version \"1\"\ntarget { span 48%; workers 4; data compressible 50% }\n\
         workload db { random 80%; blocks { 8KiB: 70%, 64KiB: 30% }; read 67% }\n\
         fill { sequential; block 1MiB; read 0% } qd 4\n\
         measure db qd 16 for 1min\n",
    )
    .unwrap();
    let o = methodic(&["export", "fio", m.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let job = std::fs::read_to_string(dir.join("mix-1.fio")).unwrap();
    for line in [
        "rw=randrw",
        "rwmixread=67",
        "percentage_random=80",
        "bssplit=8192/70:65536/30",
        "iodepth=4",
        "numjobs=4",
        "size=12%",
        "offset_increment=12%",
        "buffer_compress_percentage=50",
    ] {
        assert!(job.lines().any(|l| l == line), "{line} in\n{job}");
    }
    fio_parses(&dir.join("mix-1.fio")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One measured step by methodic and by fio on a file whose name has a
/// `:` (fio splits filename= there): both measured, the JSON says how,
/// and fio made no file of its own. The ratio is not checked here (no
/// timing in tests); the README records one on zram.
#[test]
fn crosscheck_runs_both_on_the_same_file() {
    let dir = common::temp_path("fio-crosscheck");
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("disk:0.bin");
    let bytes: Vec<u8> = (0..32u32 << 20).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    std::fs::write(&target, bytes).unwrap();
    let m = dir.join("cc.method");
    std::fs::write(
        &m,
        "methodology \"cc\" version \"1\"\ntarget { span 100%; io buffered }\n\
         measure { random; block 4KiB; read 100% } qd 2 for 200ms\n",
    )
    .unwrap();
    let o = methodic(&[
        "crosscheck",
        m.to_str().unwrap(),
        "--step",
        "1",
        "--target",
        target.to_str().unwrap(),
        "--runs",
        "1",
        "--format",
        "json",
    ]);
    let err = text(&o.stderr);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{err}");
    let c: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert!(c["methodic_median"].as_f64() > Some(0.0) && c["fio_median"].as_f64() > Some(0.0), "{c}");
    assert_eq!(c["methodic_iops"].as_array().unwrap().len(), 1);
    assert!(
        c["engine"].as_str().unwrap().ends_with("x2") || c["engine"].as_str().unwrap().starts_with("psync")
    );
    let made: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(made.len(), 2, "fio made no file of its own: {made:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
