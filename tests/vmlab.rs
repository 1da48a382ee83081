//! The drive lab: one QEMU guest (tests/vmlab/run-guest.sh) with an
//! emulated NVMe, SATA (AHCI) and SCSI (virtio-scsi) drive under the real
//! Linux drivers, the host's root shared read-only so that the methodic
//! built here runs inside. One boot (about 10 s, then the guest's script,
//! tests/vmlab/drives.sh) answers every check below: methodic runs a small
//! methodology on each drive, named by the drive's own serial; what the
//! manifest says of each drive matches what the drive's tools (nvme-cli,
//! hdparm, sg3-utils) say; and `erase secure`, which no NVMe, SATA or SCSI
//! drive takes, fails and writes nothing.
//!
//! Needs root, QEMU and the drive tools (tests/vmlab/install.sh, which
//! .ci/run runs); the guest's kernel is downloaded on first use
//! (tests/vmlab/build-guest.sh, cached in ~/.cache/methodic-vmlab).

use std::path::Path;
use std::process::Command;

mod common;
use common::{is_root, temp_dir, text};

/// What the drive lab needs on the host: root, QEMU and the drive tools.
fn lab_ready() -> bool {
    if !is_root() {
        common::skip(
            "not root, and the drive lab (QEMU with emulated drives) needs root",
            "run the tests as root, as CI does",
        );
        return false;
    }
    for tool in ["qemu-system-x86_64", "busybox", "cpio", "nvme", "hdparm", "sg_inq"] {
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
fn methodic_runs_on_emulated_nvme_sata_and_scsi_drives_under_their_drivers() {
    if !lab_ready() {
        return;
    }
    let job = temp_dir("vmlab");
    let root = common::root();
    // The binary goes in by the job folder: the guest mounts a tmpfs over
    // /tmp (where a checkout, and so this build, may be).
    std::fs::copy(env!("CARGO_BIN_EXE_methodic"), job.join("methodic")).unwrap();
    let o = Command::new(root.join("tests/vmlab/run-guest.sh"))
        .arg(root.join("tests/vmlab/drives.sh"))
        .arg("/tmp/job/methodic")
        .env("JOB", &job)
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
            assert_eq!((&id.lba_format, &id.pcie_link), (&None, &None), "{name}: not NVMe");
        }
        let erase = &loaded.steps[0];
        assert!(
            erase.error.is_none() && erase.actions[0].starts_with("BLKDISCARD"),
            "{name}: {:?}",
            erase.actions
        );
        let measured = loaded.steps[2].summary.as_ref().unwrap();
        assert!(measured.total.ios > 0, "{name}: the reads ran");
        // The drive's SMART / health log around each step: NVMe only.
        let fill = &loaded.steps[1];
        if name == "nvme0n1" {
            let h = fill.health.first().unwrap_or_else(|| panic!("{name}: no health log around the fill"));
            let wrote = fill.io.as_ref().unwrap().bytes_written as u128;
            // Data units are thousands of 512-byte units, each rounded up.
            let (counted, unit) = (h.bytes_written_by_drive, 512_000);
            assert!(
                counted + unit > wrote && counted <= wrote + 2 * unit,
                "{name}: the drive counted {counted} B written over a fill of {wrote} B"
            );
            assert_eq!(h.after.temperature_c, 50, "QEMU's NVMe reports 323 K");
            assert!(h.after.host_write_commands > h.before.host_write_commands);
            assert!(loaded.steps.iter().all(|s| s.health.len() == 1), "{name}: every step has its reading");
        } else {
            assert!(fill.health.is_empty(), "{name}: not NVMe, no health log yet");
        }
    }

    // erase secure: refused by the kernel on NVMe; nothing written.
    assert_eq!(read(&job, "secure.rc").trim(), "1");
    let err = read(&job, "secure.stderr");
    assert!(err.contains("BLKSECDISCARD") && err.contains("Operation not supported"), "{err}");
    assert_eq!(
        read(&job, "secure.before"),
        read(&job, "secure.after"),
        "erase secure changed the drive's data"
    );
    std::fs::remove_dir_all(&job).unwrap();
}
