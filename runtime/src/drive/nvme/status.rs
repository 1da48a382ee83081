//! Why an NVMe admin command failed, in words: the OS error when the
//! kernel refused the passthrough ioctl, or the status field the drive
//! returned in its completion queue entry, named as the NVM Express Base
//! Specification 2.0 names it (4.2.3, Status Field Definition).

/// An admin command that did not do what was asked: which command, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{command}: {kind}")]
pub struct AdminError {
    /// The command, as the specification names it (`Format NVM`).
    pub command: &'static str,
    pub kind: AdminErrorKind,
}

/// What went wrong with an admin command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AdminErrorKind {
    /// The ioctl returned -1: the kernel refused the command (not an NVMe
    /// namespace, no permission, the controller gone); the errno.
    #[error("the kernel refused the command: {}", std::io::Error::from_raw_os_error(*.0))]
    Os(i32),
    /// The ioctl returned a positive value: the drive completed the command
    /// with this status field (DNR bit 14, More bit 13, CRD bits 12:11, SCT
    /// bits 10:8, SC bits 7:0; the phase tag already shifted out).
    #[error("the drive refused the command: {}", status_words(*.0))]
    Status(u16),
    /// The Sanitize Status log says the sanitize operation failed.
    #[error("the drive says the sanitize operation failed (Sanitize Status log: failed)")]
    SanitizeFailed,
    /// The drive accepted Sanitize, but its Sanitize Status log went on
    /// saying that no sanitize had ever run.
    #[error("the drive accepted the command, but its Sanitize Status log says no sanitize has started")]
    SanitizeNotStarted,
    /// The Sanitize Status log said "in progress" at the same fraction for
    /// `super::erase::STALL_READINGS` readings in a row; the percentage.
    #[error(
        "the drive's sanitize progress stayed at {0}% for an hour; it may still be running: \
         `nvme sanitize-log` shows its state"
    )]
    SanitizeStalled(u32),
    /// The drive answered, but its data could not be read as the
    /// specification lays it out; what was being read.
    #[error("the drive's {0} could not be read")]
    Unreadable(&'static str),
}

impl AdminError {
    pub(crate) fn new(command: &'static str, kind: AdminErrorKind) -> AdminError {
        AdminError { command, kind }
    }

    /// The drive's status field, when the drive (not the kernel) refused.
    #[cfg(test)]
    pub fn status(&self) -> Option<u16> {
        match self.kind {
            AdminErrorKind::Status(s) => Some(s),
            _ => None,
        }
    }
}

/// `Invalid Command Opcode (status 0x4001)`; a status this does not name is
/// `status 0xNNNN`. Names: generic command status (SCT 0, Base 2.0 figure
/// "Status Code – Generic Command Status Values" and the NVM command set's
/// 80h-84h), and the command specific status values (SCT 1) of the commands
/// methodic sends: Get Log Page, Format NVM, Get/Set Features, Sanitize.
pub fn status_words(status: u16) -> String {
    match status_name(status) {
        Some(name) => format!("{name} (status 0x{status:04x})"),
        None => format!("status 0x{status:04x}"),
    }
}

fn status_name(status: u16) -> Option<&'static str> {
    let sct = (status >> 8) & 0x7;
    let sc = status & 0xff;
    Some(match (sct, sc) {
        (0, 0x00) => "Successful Completion",
        (0, 0x01) => "Invalid Command Opcode",
        (0, 0x02) => "Invalid Field in Command",
        (0, 0x03) => "Command ID Conflict",
        (0, 0x04) => "Data Transfer Error",
        (0, 0x05) => "Commands Aborted due to Power Loss Notification",
        (0, 0x06) => "Internal Error",
        (0, 0x07) => "Command Abort Requested",
        (0, 0x08) => "Command Aborted due to SQ Deletion",
        (0, 0x09) => "Command Aborted due to Failed Fused Command",
        (0, 0x0a) => "Command Aborted due to Missing Fused Command",
        (0, 0x0b) => "Invalid Namespace or Format",
        (0, 0x0c) => "Command Sequence Error",
        (0, 0x0d) => "Invalid SGL Segment Descriptor",
        (0, 0x15) => "Operation Denied",
        (0, 0x1c) => "Sanitize Failed",
        (0, 0x1d) => "Sanitize In Progress",
        (0, 0x20) => "Namespace is Write Protected",
        (0, 0x21) => "Command Interrupted",
        (0, 0x80) => "LBA Out of Range",
        (0, 0x81) => "Capacity Exceeded",
        (0, 0x82) => "Namespace Not Ready",
        (0, 0x83) => "Reservation Conflict",
        (0, 0x84) => "Format In Progress",
        (1, 0x09) => "Invalid Log Page",
        (1, 0x0a) => "Invalid Format",
        (1, 0x0d) => "Feature Identifier Not Saveable",
        (1, 0x0e) => "Feature Not Changeable",
        (1, 0x0f) => "Feature Not Namespace Specific",
        (1, 0x15) => "Namespace Insufficient Capacity",
        (1, 0x23) => "Sanitize Prohibited While Persistent Memory Region is Enabled",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The status QEMU answers Sanitize with, and the bits that are not the
    /// code (DNR, More, CRD) do not change the name.
    #[test]
    fn statuses_are_named_in_words() {
        assert_eq!(status_words(0x4001), "Invalid Command Opcode (status 0x4001)");
        assert_eq!(status_words(0x0002), "Invalid Field in Command (status 0x0002)");
        assert_eq!(status_words(0x001d), "Sanitize In Progress (status 0x001d)");
        assert_eq!(status_words(0x410a), "Invalid Format (status 0x410a)");
        assert_eq!(status_words(0x7884), "Format In Progress (status 0x7884)");
        // SCT 1 code 0x01 is Invalid Queue Identifier, not named here.
        assert_eq!(status_words(0x0101), "status 0x0101");
        assert_eq!(status_words(0x0702), "status 0x0702");
    }

    #[test]
    fn an_error_says_the_command_and_why() {
        let e = AdminError::new("Sanitize", AdminErrorKind::Status(0x4001));
        assert_eq!(
            e.to_string(),
            "Sanitize: the drive refused the command: Invalid Command Opcode (status 0x4001)"
        );
        assert_eq!(e.status(), Some(0x4001));
        let e = AdminError::new("Format NVM", AdminErrorKind::Os(libc::EACCES));
        assert!(
            e.to_string().starts_with("Format NVM: the kernel refused the command: Permission denied"),
            "{e}"
        );
        assert_eq!(e.status(), None);
    }
}
