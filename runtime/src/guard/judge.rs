//! The guard's decision, from the facts alone: in use, may hold data, or
//! free to write; and the words of each refusal. Reads nothing, so every
//! refusal is tested here with made-up facts.

use std::path::Path;

use super::facts::{DeviceFacts, MountUse};
use crate::error::{Error, Result};

impl DeviceFacts {
    /// What `--destroy` must say: the serial, or the path for a device
    /// without one.
    pub(super) fn consent(&self) -> String {
        self.serial.clone().unwrap_or_else(|| self.path.display().to_string())
    }

    /// Why the device is in use, and what to do about each.
    fn in_use(&self) -> (Vec<String>, Vec<String>) {
        let (mut why, mut fix) = (Vec::new(), Vec::new());
        let root = Path::new("/");
        if self.mounts.iter().any(|m| m.point == root) {
            why.push("it holds the root file system (/)".to_string());
            fix.push(
                "methodic never writes to the device the running system is on: choose another".to_string(),
            );
        }
        if let Some(r) = &self.results {
            let on = r.point.as_ref().map(|p| format!(" (on the file system mounted on {})", p.display()));
            why.push(format!("it holds the results directory {}{}", r.dir.display(), on.unwrap_or_default()));
            fix.push("give --out a directory on another device".to_string());
        }
        let others: Vec<&MountUse> = self.mounts.iter().filter(|m| m.point != root).collect();
        for m in &others {
            why.push(if m.direct {
                format!("it is mounted on {}", m.point.display())
            } else {
                format!("it holds the file system mounted on {} (from {})", m.point.display(), m.source)
            });
        }
        if !others.is_empty() {
            let cmds: Vec<String> = others.iter().map(|m| format!("umount {}", m.point.display())).collect();
            fix.push(format!("unmount it: {}", cmds.join(", ")));
        }
        for s in &self.swaps {
            why.push(if s.direct {
                "it is in use as swap".to_string()
            } else {
                format!("it holds swap in use ({})", s.entry.display())
            });
        }
        if !self.swaps.is_empty() {
            let cmds: Vec<String> =
                self.swaps.iter().map(|s| format!("swapoff {}", s.entry.display())).collect();
            fix.push(format!("turn the swap off: {}", cmds.join(", ")));
        }
        if !self.users.is_empty() {
            why.extend(self.users.iter().cloned());
            fix.push("stop what uses it (losetup -d, or end the process) first".to_string());
        }
        for h in &self.holders {
            why.push(if Some(&h.of) == self.name.as_ref() {
                format!("it is held by {}", h.holder)
            } else {
                format!("it is held by {} (through {})", h.holder, h.of)
            });
        }
        if !self.holders.is_empty() {
            let names: Vec<&str> = self.holders.iter().map(|h| h.holder.as_str()).collect();
            fix.push(format!("take down what is built on it: {}", names.join(", ")));
        }
        (why, fix)
    }

    /// Why the device may hold data someone wants.
    fn may_hold_data(&self) -> Vec<String> {
        let mut why = Vec::new();
        if let Some(what) = self.signature {
            why.push(format!("it holds {what}"));
        }
        if !self.partitions.is_empty() {
            why.push(format!("it has partitions ({})", self.partitions.join(", ")));
        }
        if let Some(b) = self.backing.as_ref().filter(|b| !b.marked) {
            why.push(if b.device {
                format!("it is a loop device over the block device {}, and writes over it", b.file.display())
            } else {
                let on = b.on.as_ref().map_or_else(
                    || " (on no mount methodic can find)".to_string(),
                    |(point, source)| format!(" (on the file system mounted on {} from {source})", point.display()),
                );
                format!(
                    "it is a loop device over {}{on}, a file methodic did not make, and writes over that file",
                    b.file.display()
                )
            });
        }
        why
    }
}

/// Decides from the facts alone: in use is refused whatever `destroy`
/// says; a wrong `destroy` is refused, naming the right one; a device that
/// may hold data is refused unless `destroy` names it.
pub(super) fn judge(facts: &DeviceFacts, destroy: Option<&str>) -> Result<()> {
    let refuse = |why: Vec<String>, hint: String| Error::Refused {
        path: facts.path.clone(),
        reason: why.join("; "),
        hint,
    };
    let consent = facts.consent();
    let whose = || match &facts.serial {
        Some(serial) => format!("its serial is {serial}"),
        None => format!("it has no serial, so --destroy takes its path, {}", facts.path.display()),
    };
    let (mut busy, fix) = facts.in_use();
    if !busy.is_empty() {
        // Said as well, so that a second try does not fail on the name.
        if let Some(given) = destroy.filter(|&given| given != consent) {
            busy.push(format!("and --destroy {given} does not name it: {}", whose()));
        }
        return Err(refuse(
            busy,
            format!(
                "{}. --destroy does not lift this, as methodic never writes to a device in use",
                fix.join("; ")
            ),
        ));
    }
    if let Some(given) = destroy {
        if given == consent {
            return Ok(());
        }
        return Err(refuse(
            vec![format!("--destroy {given} does not name this device: {}", whose())],
            format!(
                "check that {} is the device you mean; to write over it, pass --destroy {consent}",
                facts.path.display()
            ),
        ));
    }
    let data = facts.may_hold_data();
    if !data.is_empty() {
        let loop_note = if facts.backing.as_ref().is_some_and(|b| !b.marked && !b.device) {
            ", or give a loop device over one of methodic's scratch files, which carry the user.methodic mark"
        } else {
            ""
        };
        return Err(refuse(
            data,
            format!(
                "methodic writes over its target, and what is on it is lost. If nothing on it matters, \
                 run again with --destroy {consent}{loop_note}"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::facts::{Backing, Holder, ResultsUse, SwapUse};
    use super::super::scan::users_of;
    use super::*;

    /// A made-up disk, sdz, that nothing uses and that holds nothing.
    fn disk() -> DeviceFacts {
        DeviceFacts { path: "/dev/sdz".into(), name: Some("sdz".into()), ..DeviceFacts::default() }
    }

    fn refusal(facts: &DeviceFacts, destroy: Option<&str>) -> (String, String) {
        match judge(facts, destroy) {
            Err(Error::Refused { reason, hint, .. }) => (reason, hint),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_device_that_holds_nothing_and_is_unused_is_written_without_consent() {
        assert!(judge(&disk(), None).is_ok());
        let serial = DeviceFacts { serial: Some("S123".into()), ..disk() };
        assert!(judge(&serial, Some("S123")).is_ok());
    }

    #[test]
    fn the_root_file_system_is_refused_by_name_whatever_destroy_says() {
        let facts = DeviceFacts {
            mounts: vec![MountUse { point: "/".into(), source: "/dev/sdz2".into(), direct: false }],
            partitions: vec!["sdz1".into(), "sdz2".into()],
            ..disk()
        };
        let (why, hint) = refusal(&facts, Some("/dev/sdz"));
        assert!(why.contains("it holds the root file system (/)"), "{why}");
        assert!(!why.contains("mounted on /"), "the root is named once, as the root: {why}");
        assert!(hint.contains("choose another") && hint.contains("--destroy does not lift this"), "{hint}");
    }

    #[test]
    fn a_device_a_process_has_open_or_a_loop_sits_on_is_in_use() {
        let facts = DeviceFacts {
            users: vec!["process 812 (qemu-system-x86) has it open".into(), "loop3 is set up over it".into()],
            ..disk()
        };
        let (why, hint) = refusal(&facts, Some("/dev/sdz"));
        assert!(why.contains("process 812 (qemu-system-x86) has it open") && why.contains("loop3"), "{why}");
        assert!(hint.contains("losetup -d") && hint.contains("--destroy does not lift this"), "{hint}");
        // The scan finds nothing for a device no one has open.
        assert!(users_of(&[(4095, 4095)], None).is_empty());
    }

    #[test]
    fn the_results_directory_is_refused_by_name() {
        let facts = DeviceFacts {
            mounts: vec![MountUse { point: "/mnt/r".into(), source: "/dev/sdz".into(), direct: true }],
            results: Some(ResultsUse { dir: "/mnt/r/out".into(), point: Some("/mnt/r".into()) }),
            ..disk()
        };
        let (why, hint) = refusal(&facts, Some("/dev/sdz"));
        assert!(
            why.contains("it holds the results directory /mnt/r/out (on the file system mounted on /mnt/r)")
        );
        assert!(why.contains("it is mounted on /mnt/r"), "{why}");
        assert!(hint.contains("give --out a directory on another device") && hint.contains("umount /mnt/r"));
    }

    /// No device-mapper, md or bcache on the test machines, so holders are
    /// tested here with made-up facts only.
    #[test]
    fn a_held_device_is_refused_whatever_destroy_says() {
        let facts = DeviceFacts {
            holders: vec![
                Holder { holder: "dm-0".into(), of: "sdz".into() },
                Holder { holder: "md127".into(), of: "sdz1".into() },
            ],
            ..disk()
        };
        let (why, hint) = refusal(&facts, Some("/dev/sdz"));
        assert!(
            why.contains("it is held by dm-0") && why.contains("it is held by md127 (through sdz1)"),
            "{why}"
        );
        assert!(hint.contains("take down what is built on it: dm-0, md127"), "{hint}");
        assert!(hint.contains("--destroy does not lift this"), "{hint}");
    }

    #[test]
    fn swap_on_a_partition_is_refused_whatever_destroy_says() {
        let facts = DeviceFacts {
            swaps: vec![SwapUse { entry: "/dev/sdz2".into(), direct: false }],
            partitions: vec!["sdz2".into()],
            ..disk()
        };
        let (why, hint) = refusal(&facts, Some("/dev/sdz"));
        assert!(why.contains("it holds swap in use (/dev/sdz2)"), "{why}");
        assert!(hint.contains("swapoff /dev/sdz2"), "{hint}");
    }

    #[test]
    fn a_wrong_destroy_is_refused_and_the_right_one_named() {
        let facts = DeviceFacts { serial: Some("S123".into()), ..disk() };
        let (why, hint) = refusal(&facts, Some("/dev/sdz"));
        assert!(why.contains("--destroy /dev/sdz does not name this device: its serial is S123"), "{why}");
        assert!(hint.contains("pass --destroy S123"), "{hint}");
        let (why, hint) = refusal(&disk(), Some("S999"));
        assert!(why.contains("it has no serial, so --destroy takes its path, /dev/sdz"), "{why}");
        assert!(hint.contains("pass --destroy /dev/sdz"), "{hint}");
        // In use as well: both are said, and consent is not offered.
        let swap = SwapUse { entry: "/dev/sdz".into(), direct: true };
        let busy = DeviceFacts { swaps: vec![swap], ..facts };
        let (why, hint) = refusal(&busy, Some("/dev/sdz"));
        assert!(
            why.contains("it is in use as swap; and --destroy /dev/sdz does not name it: its serial is S123")
        );
        assert!(!hint.contains("pass --destroy"), "{hint}");
        let (why, _) = refusal(&busy, Some("S123"));
        assert!(!why.contains("does not name"), "{why}");
    }

    #[test]
    fn data_is_refused_unless_destroy_names_the_device() {
        let facts = DeviceFacts {
            signature: Some("a GPT partition table"),
            partitions: vec!["sdz1".into()],
            serial: Some("S123".into()),
            ..disk()
        };
        let (why, hint) = refusal(&facts, None);
        assert!(why.contains("it holds a GPT partition table; it has partitions (sdz1)"), "{why}");
        assert!(hint.contains("run again with --destroy S123"), "{hint}");
        assert!(judge(&facts, Some("S123")).is_ok());
    }

    #[test]
    fn a_loop_device_is_expected_only_over_a_file_methodic_made() {
        let backing = Backing {
            file: "/srv/disk.img".into(),
            device: false,
            marked: false,
            on: Some(("/srv".into(), "/dev/sdz1".into())),
        };
        let facts = DeviceFacts {
            path: "/dev/loop7".into(),
            name: Some("loop7".into()),
            backing: Some(backing.clone()),
            ..DeviceFacts::default()
        };
        let (why, hint) = refusal(&facts, None);
        assert!(
            why.contains("over /srv/disk.img (on the file system mounted on /srv from /dev/sdz1), a file methodic did not make"),
            "{why}"
        );
        assert!(hint.contains("--destroy /dev/loop7") && hint.contains("user.methodic"), "{hint}");
        assert!(judge(&facts, Some("/dev/loop7")).is_ok());
        let marked =
            DeviceFacts { backing: Some(Backing { marked: true, ..backing.clone() }), ..facts.clone() };
        assert!(judge(&marked, None).is_ok());
        let over_disk = DeviceFacts {
            backing: Some(Backing { file: "/dev/sdz".into(), device: true, on: None, ..backing }),
            ..facts
        };
        let (why, _) = refusal(&over_disk, None);
        assert!(why.contains("a loop device over the block device /dev/sdz"), "{why}");
    }
}
