//! The drive lab: one QEMU guest (tests/vmlab/run-guest.sh) with emulated
//! NVMe (four: one for the checks, three for the specs), SATA (AHCI) and
//! SCSI (virtio-scsi) drives under the real Linux drivers, the host's root
//! shared read-only so that the methodic built here runs inside. One boot
//! (about 10 s, then the guest's script, tests/vmlab/drives.sh, about 40 s)
//! answers every check below: methodic runs a small methodology on each
//! drive, named by the drive's own serial; what the manifest says of each
//! drive matches what the drive's tools (nvme-cli, hdparm, sg3-utils) say;
//! the NVMe drive counts what the steps wrote, in its health log and its
//! OCP log, and the series has its temperature; the SATA drive has its
//! health around each step too (SMART attributes: QEMU's disk has no
//! Device Statistics log) and in the health series, as smartctl reads it; `erase purge` and `erase
//! format secure` leave the NVMe drive reading zeros; sanitize and ATA
//! security erase are refused before anything is written, with what each
//! drive says it supports; `write_cache off` turns each drive's cache off
//! (as the drive's own tool reads it) during a run, a crash leaves it off,
//! the resume sets it again and a SIGTERM puts it back on; `erase secure`,
//! which no NVMe, SATA or SCSI drive takes, fails and writes nothing; and
//! every spec that opens with an erase rehearses its first phase on an
//! NVMe drive.
//!
//! Needs root, QEMU and the drive tools (tests/vmlab/install.sh, which
//! .ci/run runs); the guest's kernel is downloaded on first use
//! (tests/vmlab/build-guest.sh, cached in ~/.cache/methodic-vmlab).

use std::path::{Path, PathBuf};
use std::process::Command;

use methodic_results::health::HealthSource;

use crate::common::{self, is_root, temp_dir, text};

/// What the drive lab needs on the host: root, QEMU and the drive tools.
fn lab_ready() -> bool {
    if !is_root() {
        common::skip(
            "not root, and the drive lab (QEMU with emulated drives) needs root",
            "run the tests as root, as CI does",
        );
        return false;
    }
    for tool in ["qemu-system-x86_64", "busybox", "cpio", "nvme", "hdparm", "sg_inq", "sdparm", "smartctl"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            common::skip(
                &format!("{tool} is not installed (the drive lab needs it)"),
                "run tests/vmlab/install.sh as root (.ci/run does)",
            );
            return false;
        }
    }
    true
}

fn read(job: &Path, file: &str) -> String {
    std::fs::read_to_string(job.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The value after `label` on the line that has it, trimmed.
fn field(text: &str, label: &str) -> String {
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix(label))
        .unwrap_or_else(|| panic!("no `{label}` in:\n{text}"))
        .trim()
        .to_string()
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "one boot of the drive lab checks every drive in turn: a VM boot is too slow to pay per check"
)]
fn methodic_runs_on_emulated_nvme_sata_and_scsi_drives_under_their_drivers() {
    if !lab_ready() {
        return;
    }
    let job = temp_dir("vmlab");
    let root = common::root();
    // The binary goes in by the job folder: the guest mounts a tmpfs over
    // /tmp (where a checkout, and so this build, may be).
    // Without its debug information (a quarter of the size) where objcopy
    // is at hand: the guest copies it in over 9p.
    let bin = job.join("methodic");
    let stripped = Command::new("objcopy")
        .arg("--strip-debug")
        .args([Path::new(env!("CARGO_BIN_EXE_methodic")), &bin])
        .status()
        .is_ok_and(|s| s.success());
    if !stripped {
        std::fs::copy(env!("CARGO_BIN_EXE_methodic"), &bin).unwrap();
    }
    // The first phases the guest rehearses go in the same way (a checkout
    // under /tmp is hidden too), cut and listed here: under the guest's
    // emulated CPU, picking them with awk took 10 s.
    let firsts = first_phases(root);
    std::fs::create_dir_all(job.join("first")).unwrap();
    for f in &firsts {
        std::fs::write(job.join("first").join(format!("{}.method", f.name)), &f.source).unwrap();
    }
    let order: String = firsts.iter().map(|f| format!("{}\n", f.name)).collect();
    std::fs::write(job.join("first/order"), order).unwrap();
    let o = Command::new(root.join("tests/vmlab/run-guest.sh"))
        .arg(root.join("tests/vmlab/drives.sh"))
        .arg("/tmp/job/methodic")
        .arg("/tmp/job/first")
        .env("JOB", &job)
        .env("NVME_EXTRA", "3")
        .env("NVME_OPTS", ",ocp=on")
        .env("TIMEOUT", "300")
        .output()
        .unwrap();
    let console = std::fs::read_to_string(job.join("console.log")).unwrap_or_default();
    assert!(o.status.success(), "the guest: {}\n{}\nconsole:\n{console}", text(&o.stdout), text(&o.stderr));

    // Each drive by its own serial, as --destroy takes it, and what the
    // drive's tools say of it.
    let nvme: serde_json::Value = serde_json::from_str(&read(&job, "nvme.id-ctrl.json")).unwrap();
    let hdparm = read(&job, "sda.hdparm");
    let (inquiry, vpd80) = (read(&job, "sdb.inquiry"), read(&job, "sdb.vpd80"));
    let word = |v: &serde_json::Value| v.as_str().unwrap().trim().to_string();
    let expected = [
        ("nvme0n1", "nvme", word(&nvme["sn"]), word(&nvme["mn"]), Some(word(&nvme["fr"]))),
        ("sda", "sd", field(&hdparm, "Serial Number:"), field(&hdparm, "Model Number:"), None),
        ("sdb", "sd", field(&vpd80, "Unit serial number:"), field(&inquiry, "Product identification:"), None),
    ];
    for (name, driver, serial, model, firmware) in expected {
        let rc = read(&job, &format!("{name}.rc"));
        assert_eq!(rc.trim(), "0", "{name}: {}", read(&job, &format!("{name}.stderr")));
        let loaded = methodic_results::manifest::load(&job.join(name)).unwrap();
        let m = &loaded.manifest;
        assert_eq!(m.status, methodic_results::record::Status::Completed, "{name}");
        assert_eq!(loaded.steps.len(), 4, "{name}: erase, fill, two measurements");
        let id = &m.targets[0].identity;
        assert_eq!(id.serial.as_deref(), Some(serial.as_str()), "{name}: the drive's own serial");
        assert_eq!(id.model.as_deref(), Some(model.as_str()), "{name}");
        assert_eq!(id.driver.as_deref(), Some(driver), "{name}");
        if let Some(fw) = firmware {
            assert_eq!(id.firmware.as_deref(), Some(fw.as_str()), "{name}");
            // The LBA format in use, as `nvme id-ns` reads Identify Namespace.
            let ns: serde_json::Value = serde_json::from_str(&read(&job, "nvme.id-ns.json")).unwrap();
            let in_use = ns["flbas"].as_u64().unwrap() & 0x0f;
            let format = &ns["lbafs"][in_use as usize];
            let meta = match format["ms"].as_u64().unwrap() {
                0 => "no metadata".to_string(),
                ms => format!("{ms} B metadata"),
            };
            let words = format!(
                "{} B blocks, {meta} (format {in_use} of {})",
                1u64 << format["ds"].as_u64().unwrap(),
                ns["nlbaf"].as_u64().unwrap() + 1
            );
            assert_eq!(
                id.lba_format.as_deref(),
                Some(words.as_str()),
                "{name}: the drive's Identify Namespace"
            );
            // Behind a PCIe root port (run-guest.sh), QEMU's NVMe has a link.
            assert_eq!(id.pcie_link.as_deref(), Some(read(&job, "nvme.link").trim()), "{name}");
        } else {
            // The drive's own block sizes: IDENTIFY DEVICE (SATA), READ
            // CAPACITY(16) (SCSI); QEMU's disks have 512 B sectors.
            assert_eq!(id.lba_format.as_deref(), Some("512 B blocks"), "{name}");
            assert_eq!(id.pcie_link, None, "{name}: not NVMe");
        }
        let source = ["NVMe Identify Controller", "ATA IDENTIFY DEVICE", "SCSI INQUIRY and VPD page 80h"];
        assert!(source.contains(&id.identity_source.as_deref().unwrap_or("sysfs")), "{name}");
        // The drive's capacity by its own count, and the kernel's: the 1 GiB image.
        assert_eq!((id.drive_capacity, m.targets[0].capacity), (Some(1 << 30), 1 << 30), "{name}");
        let erase = &loaded.steps[0];
        assert!(
            erase.error.is_none() && erase.actions[0].starts_with("BLKDISCARD"),
            "{name}: {:?}",
            erase.actions
        );
        // Half reads until 4MiB is written: reads by count, whatever the
        // guest's speed (a timed step on a busy host may complete none).
        let measured = loaded.steps[2].summary.as_ref().unwrap();
        assert!(measured.read.as_ref().is_some_and(|r| r.ios > 0), "{name}: the reads ran");
        assert_eq!(measured.write.as_ref().unwrap().bytes, 4 << 20, "{name}: 4MiB written");
        // The drive's own health counters around each step: NVMe and SATA.
        let fill = &loaded.steps[1];
        if name == "nvme0n1" {
            let h = fill.health.first().unwrap_or_else(|| panic!("{name}: no health log around the fill"));
            assert_eq!(h.after.source, HealthSource::NvmeHealthLog, "{name}");
            let wrote = fill.io.as_ref().unwrap().bytes_written as u128;
            // Data units are thousands of 512-byte units, each rounded up.
            let (counted, unit) = (h.bytes_written_by_drive.expect("NVMe counts data units"), 512_000);
            assert!(
                counted + unit > wrote && counted <= wrote + 2 * unit,
                "{name}: the drive counted {counted} B written over a fill of {wrote} B"
            );
            assert_eq!(h.after.temperature_c, Some(50), "QEMU's NVMe reports 323 K");
            assert!(h.after.host_write_commands > h.before.host_write_commands);
            assert!(loaded.steps.iter().all(|s| s.health.len() == 1), "{name}: every step has its reading");
            // The OCP log (ocp=on): QEMU counts what reached its media,
            // byte for byte: the fill's bytes, a write amplification of 1.
            let nand =
                |h: &methodic_results::health::Health| h.nand_bytes_written.expect("the OCP log was read");
            assert_eq!(nand(&h.after) - nand(&h.before), wrote, "{name}: flash bytes over the fill");
            assert!(h.write_amplification.is_some(), "{name}");
            assert_eq!(h.throttle_events, Some(0), "{name}: QEMU never throttles");
            // The drive's temperature in every row of the 1 s series.
            let series = read(&job, &format!("{name}/series/measure/w-qd4.csv"));
            let mut lines = series.lines().filter(|l| !l.starts_with('#'));
            assert!(lines.next().unwrap().ends_with(",temperature_c"), "{series}");
            let rows: Vec<&str> = lines.collect();
            assert!(!rows.is_empty() && rows.iter().all(|r| r.ends_with(",50")), "{name}: {series}");
            // The whole health log beside it, read at most once a second (a
            // line for some rows), the drive's count of data written never
            // going back.
            let health = read(&job, &format!("{name}/series/measure/w-qd4.health.csv"));
            let mut lines = health.lines();
            assert_eq!(lines.next(), Some(methodic_results::health::SERIES_HEADER));
            let written: Vec<u128> = lines.map(|l| l.split(',').nth(11).unwrap().parse().unwrap()).collect();
            assert!(!written.is_empty() && written.len() <= rows.len(), "{name}: {health}");
            assert!(written.windows(2).all(|w| w[0] <= w[1]), "{name}: {health}");
        } else if name == "sda" {
            a_sata_drive_has_its_health_around_each_step(&job, &loaded);
        } else {
            assert!(fill.health.is_empty(), "{name}: a SCSI drive has no health reading");
            assert!(!job.join(format!("{name}/series/measure/w-qd4.health.csv")).exists(), "{name}");
            // And no temperature in its series.
            let series = read(&job, &format!("{name}/series/measure/w-qd4.csv"));
            let rows: Vec<&str> = series.lines().filter(|l| !l.starts_with('#')).skip(1).collect();
            assert!(!rows.is_empty() && rows.iter().all(|r| r.ends_with(',')), "{name}: {series}");
        }
    }

    // erase secure: refused by the kernel on NVMe; nothing written.
    assert_eq!(read(&job, "secure.rc").trim(), "1");
    let err = read(&job, "secure.stderr");
    assert!(err.contains("BLKSECDISCARD") && err.contains("Operation not supported"), "{err}");
    assert!(err.contains("write `erase purge`"), "the error points to purge: {err}");
    assert_eq!(
        read(&job, "secure.before"),
        read(&job, "secure.after"),
        "erase secure changed the drive's data"
    );
    the_drives_own_erase_zeroes_the_nvme_drive(&job);
    erases_a_drive_lacks_are_refused_before_anything_is_written(&job);
    the_write_cache_is_off_during_the_run_and_back_after(&job);
    every_spec_that_opens_with_an_erase_runs_its_first_phase_on_nvme(&job, &firsts);
    std::fs::remove_dir_all(&job).unwrap();
}

/// The SATA drive's health around each step and in the health series.
/// QEMU's emulated disk has no Device Statistics log (no READ LOG EXT, and
/// SMART READ LOG only of logs 01h and 06h), as `smartctl -l devstat`
/// finds too: methodic falls back to the SMART attributes and says so,
/// with the temperature (attribute 190) and the reallocated sectors
/// (attribute 5) that `smartctl -A` reads, and no bytes written (QEMU has
/// no attribute 241). Should a QEMU answer the log, its sectors written
/// must have grown by at least what the fill wrote.
fn a_sata_drive_has_its_health_around_each_step(job: &Path, loaded: &methodic_results::manifest::Loaded) {
    let name = "sda";
    let smart = read(job, "sda.smart");
    let raw = |id: &str| -> Option<String> {
        smart
            .lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .map(|l| l.split_whitespace().nth(9).expect("a raw value").to_string())
    };
    let temperature: i32 =
        raw("194").or_else(|| raw("190")).expect("a temperature attribute").parse().unwrap();
    assert!(loaded.steps.iter().all(|s| s.health.len() == 1), "{name}: every step has its reading");
    let fill = &loaded.steps[1];
    let h = &fill.health[0];
    assert_eq!(h.target, "/dev/sda");
    assert_eq!(h.after.temperature_c, Some(temperature), "{name}: the temperature smartctl reads");
    let devstat = read(job, "sda.devstat");
    let source = if devstat.contains("Device Statistics (GP/SMART Log 0x04) not supported") {
        assert_eq!(h.after.source, HealthSource::AtaSmartAttributes, "{name}: {devstat}");
        let reallocated = raw("5").map(|r| r.parse::<u64>().unwrap());
        assert_eq!(h.after.reallocated_sectors, reallocated, "{name}: attribute 5 as smartctl reads it");
        let written = raw("241").map(|r| r.parse::<u64>().unwrap());
        assert_eq!(h.after.logical_sectors_written, written, "{name}: attribute 241 as smartctl reads it");
        if written.is_none() {
            assert_eq!(h.bytes_written_by_drive, None, "{name}: no attribute 241, no bytes written");
        }
        // Nothing NVMe-shaped is made up for it.
        assert_eq!((h.after.data_units_written, h.after.throttle_transitions), (None, None), "{name}");
        assert_eq!((h.write_amplification, h.throttle_events), (None, None), "{name}");
        "ATA SMART attributes"
    } else {
        assert!(
            matches!(
                h.after.source,
                HealthSource::AtaDeviceStatistics | HealthSource::AtaDeviceStatisticsAndAttributes
            ),
            "{name}: smartctl reads device statistics:\n{devstat}"
        );
        let wrote = fill.io.as_ref().unwrap().bytes_written as u128;
        let counted = h.bytes_written_by_drive.expect("the statistics count logical sectors written");
        assert!(counted >= wrote, "{name}: the drive counted {counted} B written over a fill of {wrote} B");
        h.after.source.words()
    };
    // The series' temperature in every row, and the health series beside
    // it: a line at most a row, with the drive's temperature and the source.
    let series = read(job, &format!("{name}/series/measure/w-qd4.csv"));
    let rows: Vec<&str> = series.lines().filter(|l| !l.starts_with('#')).skip(1).collect();
    let degrees = format!(",{temperature}");
    assert!(!rows.is_empty() && rows.iter().all(|r| r.ends_with(&degrees)), "{name}: {series}");
    let rows = rows.len();
    let health = read(job, &format!("{name}/series/measure/w-qd4.health.csv"));
    let mut lines = health.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header.join(","), methodic_results::health::SERIES_HEADER);
    let cell = |line: &str, column: &str| {
        line.split(',').nth(header.iter().position(|h| *h == column).unwrap()).unwrap().to_string()
    };
    let lines: Vec<&str> = lines.collect();
    assert!(!lines.is_empty() && lines.len() <= rows, "{name}: {health}");
    for line in lines {
        assert_eq!(cell(line, "target"), "/dev/sda", "{line}");
        assert_eq!(cell(line, "temperature_c"), temperature.to_string(), "{line}");
        assert_eq!(cell(line, "source"), source, "{line}");
        assert_eq!(cell(line, "data_units_written"), "", "{name}: no NVMe cell: {line}");
    }
}

/// `erase purge` (QEMU's NVMe has no sanitize: format with user data
/// erase) and `erase format secure`: 4 MiB of random data read back as
/// zeros after, and the step says what ran and why.
fn the_drives_own_erase_zeroes_the_nvme_drive(job: &Path) {
    let command =
        "NVMe Format NVM with user data erase (SES 1) of the whole drive (1.0 GiB): `erase format secure`";
    for (slug, why) in [
        ("purge", "the strongest this drive supports (it has no sanitize block, no sanitize crypto)"),
        ("format-secure", "as the methodology asks"),
    ] {
        let rc = read(job, &format!("erase-{slug}.rc"));
        assert_eq!(rc.trim(), "0", "erase {slug}: {}", read(job, &format!("erase-{slug}.stderr")));
        assert_eq!(read(job, &format!("erase-{slug}.before")).trim(), "no", "random data before");
        assert_eq!(read(job, &format!("erase-{slug}.after")).trim(), "yes", "erase {slug}: zeros after");
        let loaded = methodic_results::manifest::load(&job.join(format!("erase-{slug}"))).unwrap();
        assert_eq!(loaded.steps[0].actions, [format!("{command}, {why}")], "erase {slug}");
    }
}

/// A sanitize on the NVMe drive (SANICAP 0), an ATA security erase on the
/// SATA drive (no security feature set) and a sanitize on the SCSI drive:
/// each refused before the fill that comes first writes, naming what the
/// drive supports; nothing is left behind.
fn erases_a_drive_lacks_are_refused_before_anything_is_written(job: &Path) {
    for (name, words) in [
        (
            "nvme0n1",
            "cannot `erase sanitize block`: it supports discard, format, format secure; its Identify Controller \
             data has no sanitize (SANICAP 0)",
        ),
        (
            "sda",
            "cannot `erase ata_secure`: it supports discard; its IDENTIFY data has no sanitize feature set",
        ),
        (
            "sdb",
            "cannot `erase sanitize crypto`: it supports discard; it does not answer REPORT SUPPORTED OPERATION \
             CODES, so no SANITIZE is assumed",
        ),
    ] {
        assert_eq!(read(job, &format!("refused-{name}.rc")).trim(), "1", "{name}");
        let err = read(job, &format!("refused-{name}.stderr"));
        assert!(err.contains(words), "{name}: {err}");
        assert!(!job.join(format!("refused-{name}")).exists(), "{name}: a refused run leaves nothing");
    }
    let err = read(job, "refused-sda.stderr");
    assert!(err.contains("no security feature set (word 128 bit 0 clear)"), "{err}");
    assert_eq!(read(job, "refused.nvme.before"), read(job, "refused.nvme.after"), "the fill wrote");
}

/// `write_cache off` on each drive, as nvme-cli, hdparm and sdparm read it:
/// on before; off while the run's step runs, after the run is killed and
/// while its resume runs; on again after SIGTERM ends the resume.
fn the_write_cache_is_off_during_the_run_and_back_after(job: &Path) {
    assert!(!job.join("wc.errors").exists(), "{}", read(job, "wc.errors"));
    let lines = |moment: &str| -> Vec<String> {
        read(job, &format!("cache.{moment}")).lines().map(|l| l.trim().to_string()).collect()
    };
    let on = ["Current value:0x00000001", "write-caching = 1 (on)", "WCE 1"];
    let off = ["Current value:00000000", "write-caching = 0 (off)", "WCE 0"];
    assert_eq!(lines("before"), on);
    for moment in ["during", "crashed", "resumed"] {
        assert_eq!(lines(moment), off, "{moment}");
    }
    assert_eq!(lines("after"), on);
    for (name, how) in [
        ("nvme0n1", "NVMe Set Features, volatile write cache"),
        ("sda", "ATA SET FEATURES"),
        ("sdb", "SCSI MODE SELECT, caching page"),
    ] {
        let m = methodic_results::manifest::load(&job.join(format!("wc-{name}"))).unwrap().manifest;
        let note = &m.write_cache[0];
        assert_eq!((note.asked.as_str(), note.was_on), ("off", Some(true)), "{name}");
        assert_eq!(note.done, format!("turned off ({how}); again on resume: already off"), "{name}");
        assert_eq!(
            note.restored.as_deref(),
            Some(format!("turned on again ({how}), as before the run").as_str()),
            "{name}"
        );
    }
}

/// The first phase of a spec that opens with an erase, as the guest
/// rehearses it.
struct FirstPhase {
    /// The spec's file stem.
    name: String,
    /// The spec up to the end of its first phase (its closing brace at the
    /// start of a line): definitions only later phases use are left unused.
    source: String,
    /// Whether the phase erases with `erase purge`.
    purge: bool,
}

/// Each spec whose first phase erases, one of each shape (its erase and
/// the kinds of the steps after it, in order; the first by name): the
/// others run the same steps with other workloads. Phases with rounds
/// first, since they take longest and the others fill in beside them.
fn first_phases(root: &Path) -> Vec<FirstPhase> {
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(root.join("specs")).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    let mut shapes = std::collections::HashSet::new();
    let mut firsts = Vec::new();
    for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "method")) {
        let text = std::fs::read_to_string(&path).unwrap();
        // The spec up to the end of its first phase (its closing brace at
        // the start of a line), and that phase, from its `phase` line.
        let (mut source, mut phases, mut opens) = (String::new(), 0, None);
        for line in text.lines() {
            if line.starts_with("phase ") {
                phases += 1;
                opens = opens.or(Some(source.len()));
            }
            if phases >= 2 {
                break;
            }
            source.push_str(line);
            source.push('\n');
            if phases == 1 && line.starts_with('}') {
                break;
            }
        }
        let first = opens.map_or("", |at| &source[at..]);
        if !first.lines().any(|l| l.trim_start().starts_with("erase ")) {
            continue;
        }
        // The statements at the phase's own indent: `erase purge;fill;precondition;`.
        let shape: String = first
            .lines()
            .filter(|l| l.starts_with("  ") && l[2..].starts_with(|c: char| c.is_ascii_lowercase()))
            .map(|l| {
                let mut words = l.split_whitespace();
                match words.next() {
                    Some("erase") => format!("erase {};", words.next().unwrap_or("")),
                    Some(w) => format!("{w};"),
                    None => String::new(),
                }
            })
            .collect();
        if !shapes.insert(shape) {
            continue;
        }
        firsts.push(FirstPhase {
            name: path.file_stem().unwrap().to_string_lossy().into_owned(),
            purge: first.contains("erase purge"),
            source,
        });
    }
    firsts.sort_by_key(|f| !f.source.lines().any(|l| l.starts_with("  rounds")));
    assert!(firsts.len() >= 7, "the specs that open with an erase, one of each shape: {:?}", names(&firsts));
    firsts
}

fn names(firsts: &[FirstPhase]) -> Vec<&str> {
    firsts.iter().map(|f| f.name.as_str()).collect()
}

/// Each of [`first_phases`], rehearsed on an NVMe drive: completed, and
/// `erase purge` ran as a Format NVM.
fn every_spec_that_opens_with_an_erase_runs_its_first_phase_on_nvme(job: &Path, firsts: &[FirstPhase]) {
    for FirstPhase { name, purge, .. } in firsts {
        let rc = read(job, &format!("first-{name}.rc"));
        assert_eq!(rc.trim(), "0", "{name}: {}", read(job, &format!("first-{name}.stderr")));
        let loaded = methodic_results::manifest::load(&job.join(format!("first-{name}"))).unwrap();
        assert_eq!(loaded.manifest.status, methodic_results::record::Status::Completed, "{name}");
        assert!(loaded.manifest.targets[0].path.to_string_lossy().starts_with("/dev/nvme"), "{name}");
        // An NVMe namespace under native multipath (Debian's kernel) is
        // a bio-based head over a blk-mq path: its I/O completes from the
        // drive's queues, so io_uring keeps the queue depth, not a psync
        // thread an I/O.
        for step in loaded.steps.iter().filter_map(|s| s.io.as_ref().map(|io| (&s.id, io))) {
            let (id, io) = step;
            assert!(
                io.engine == methodic_results::engine::EngineKind::IoUring
                    || io.engine_reason.starts_with("one I/O in flight a worker"),
                "{name} {id}: {} {}x{} ({})",
                io.engine.name(),
                io.threads,
                io.depth,
                io.engine_reason
            );
        }
        let erase = &loaded.steps[0].actions[0];
        if *purge {
            assert!(erase.starts_with("NVMe Format NVM with user data erase (SES 1)"), "{name}: {erase}");
        } else {
            assert!(erase.starts_with("BLKDISCARD"), "{name}: {erase}");
        }
    }
}
