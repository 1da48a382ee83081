//! Erasing a drive the way the drive erases itself: which of the
//! language's erase methods a drive can do (from what it says of itself),
//! which one `erase purge` picks, and the words the results keep for it.
//! The commands themselves are in `nvme`, `ata` and `scsi`.

use methodic_compiler::plan::EraseMethod;

/// How the kernel reaches the drive's own commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interface {
    /// An NVMe namespace: admin commands through NVME_IOCTL_ADMIN_CMD.
    Nvme,
    /// A SATA drive behind libata: ATA commands through SG_IO with ATA
    /// PASS-THROUGH(16).
    Ata,
    /// A SCSI (SAS, virtio-scsi, USB) disk: SCSI commands through SG_IO.
    Scsi,
    /// Anything else (loop, zram, a partition): no drive commands.
    None,
}

impl Interface {
    pub fn words(self) -> &'static str {
        match self {
            Interface::Nvme => "an NVMe drive",
            Interface::Ata => "a SATA drive",
            Interface::Scsi => "a SCSI drive",
            Interface::None => "not a drive methodic can send erase commands to",
        }
    }
}

/// What a sanitize does to the media.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sanitize {
    Block,
    Crypto,
    Overwrite,
}

/// The NVMe command's action (SANACT) for a sanitize.
impl From<Sanitize> for super::nvme::SanitizeAction {
    fn from(s: Sanitize) -> Self {
        match s {
            Sanitize::Block => Self::Block,
            Sanitize::Crypto => Self::Crypto,
            Sanitize::Overwrite => Self::Overwrite,
        }
    }
}

/// The ATA and SCSI commands' action for a sanitize.
impl From<Sanitize> for super::sg::SanitizeAction {
    fn from(s: Sanitize) -> Self {
        match s {
            Sanitize::Block => Self::Block,
            Sanitize::Crypto => Self::Crypto,
            Sanitize::Overwrite => Self::Overwrite,
        }
    }
}

/// What a format erases besides changing nothing else (NVMe Format NVM's
/// Secure Erase Settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatErase {
    /// SES 0: no secure erase asked (a drive may still deallocate).
    Nothing,
    /// SES 1: user data erase.
    UserData,
    /// SES 2: cryptographic erase.
    Crypto,
}

/// One way a drive erases itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    Sanitize(Sanitize),
    Format(FormatErase),
    AtaSecurity {
        enhanced: bool,
    },
    /// A discard (TRIM, deallocate, UNMAP) of the whole device.
    Discard,
}

/// `erase purge`'s order, strongest first. Sanitize overwrite is left out:
/// it writes the whole media, hours on a large drive, and wears it.
pub const PURGE_ORDER: [Way; 7] = [
    Way::Sanitize(Sanitize::Block),
    Way::Sanitize(Sanitize::Crypto),
    Way::Format(FormatErase::UserData),
    Way::Format(FormatErase::Crypto),
    Way::AtaSecurity { enhanced: true },
    Way::AtaSecurity { enhanced: false },
    Way::Discard,
];

impl Way {
    /// The way as the language writes it after `erase`.
    pub fn method(self) -> EraseMethod {
        match self {
            Way::Sanitize(Sanitize::Block) => EraseMethod::SanitizeBlock,
            Way::Sanitize(Sanitize::Crypto) => EraseMethod::SanitizeCrypto,
            Way::Sanitize(Sanitize::Overwrite) => EraseMethod::SanitizeOverwrite,
            Way::Format(FormatErase::Nothing) => EraseMethod::Format,
            Way::Format(FormatErase::UserData) => EraseMethod::FormatSecure,
            Way::Format(FormatErase::Crypto) => EraseMethod::FormatCrypto,
            Way::AtaSecurity { enhanced: false } => EraseMethod::AtaSecure,
            Way::AtaSecurity { enhanced: true } => EraseMethod::AtaSecureEnhanced,
            Way::Discard => EraseMethod::Discard,
        }
    }

    /// The command that does it on `interface`, for the results.
    pub fn command(self, interface: Interface) -> String {
        let action = |s: Sanitize| match s {
            Sanitize::Block => "block erase",
            Sanitize::Crypto => "crypto erase",
            Sanitize::Overwrite => "overwrite",
        };
        match (self, interface) {
            (Way::Sanitize(s), Interface::Nvme) => format!("NVMe Sanitize ({})", action(s)),
            (Way::Sanitize(s), Interface::Ata) => format!("ATA SANITIZE DEVICE ({})", action(s)),
            (Way::Sanitize(s), _) => format!("SCSI SANITIZE ({})", action(s)),
            (Way::Format(FormatErase::Nothing), _) => "NVMe Format NVM, no secure erase (SES 0)".to_string(),
            (Way::Format(FormatErase::UserData), _) => {
                "NVMe Format NVM with user data erase (SES 1)".to_string()
            }
            (Way::Format(FormatErase::Crypto), _) => "NVMe Format NVM with crypto erase (SES 2)".to_string(),
            (Way::AtaSecurity { enhanced: true }, _) => "ATA SECURITY ERASE UNIT, enhanced".to_string(),
            (Way::AtaSecurity { enhanced: false }, _) => "ATA SECURITY ERASE UNIT, normal".to_string(),
            (Way::Discard, _) => "BLKDISCARD".to_string(),
        }
    }
}

/// What a drive says it can do to erase itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abilities {
    pub interface: Interface,
    /// The ways the drive advertises, in any order.
    pub ways: Vec<Way>,
    /// Why a way the drive has cannot be used now (`security is frozen`),
    /// said when a method is refused.
    pub notes: Vec<String>,
}

impl Abilities {
    /// The ways in words as the language spells them: `format, format
    /// secure, discard`, or `none`.
    pub fn words(&self) -> String {
        let mut ways = self.ways.clone();
        ways.sort_by_key(|w| EraseMethod::ALL.iter().position(|m| *m == w.method()));
        if ways.is_empty() {
            return "none".to_string();
        }
        ways.iter().map(|w| w.method().keyword()).collect::<Vec<_>>().join(", ")
    }
}

/// The way `method` erases a drive with `abilities`, and why that one;
/// `Err` says what the drive supports instead. Only for the methods the
/// drive does itself ([`EraseMethod::whole_drive`]).
pub fn choose(method: EraseMethod, abilities: &Abilities) -> Result<(Way, String), String> {
    let has = |w: &Way| abilities.ways.contains(w);
    let refused = || {
        let mut m = format!(
            "the drive ({}) cannot `erase {}`: it supports {}",
            abilities.interface.words(),
            method.keyword(),
            abilities.words()
        );
        for n in &abilities.notes {
            m.push_str("; ");
            m.push_str(n);
        }
        m
    };
    if method == EraseMethod::Purge {
        let Some(pos) = PURGE_ORDER.iter().position(has) else {
            return Err(refused());
        };
        let way = PURGE_ORDER[pos];
        let lacks: Vec<&str> = PURGE_ORDER[..pos].iter().map(|w| w.method().keyword()).collect();
        let why = if abilities.interface == Interface::None {
            "a discard is all a device that is not a drive takes".to_string()
        } else if lacks.is_empty() {
            "the strongest erase there is".to_string()
        } else {
            format!("the strongest this drive supports (it has no {})", lacks.join(", no "))
        };
        return Ok((way, why));
    }
    let way = [
        Way::Sanitize(Sanitize::Block),
        Way::Sanitize(Sanitize::Crypto),
        Way::Sanitize(Sanitize::Overwrite),
        Way::Format(FormatErase::Nothing),
        Way::Format(FormatErase::UserData),
        Way::Format(FormatErase::Crypto),
        Way::AtaSecurity { enhanced: false },
        Way::AtaSecurity { enhanced: true },
    ]
    .into_iter()
    .find(|w| w.method() == method)
    .ok_or_else(refused)?;
    if has(&way) { Ok((way, "as the methodology asks".to_string())) } else { Err(refused()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drive(interface: Interface, ways: &[Way]) -> Abilities {
        Abilities { interface, ways: ways.to_vec(), notes: Vec::new() }
    }

    /// QEMU's NVMe: format with SES 0 and 1, discard; no sanitize.
    #[test]
    fn purge_takes_the_strongest_the_drive_has() {
        let qemu = drive(
            Interface::Nvme,
            &[Way::Format(FormatErase::Nothing), Way::Format(FormatErase::UserData), Way::Discard],
        );
        let (way, why) = choose(EraseMethod::Purge, &qemu).unwrap();
        assert_eq!(way, Way::Format(FormatErase::UserData));
        assert_eq!(why, "the strongest this drive supports (it has no sanitize block, no sanitize crypto)");
        let full = drive(Interface::Nvme, &PURGE_ORDER);
        assert_eq!(choose(EraseMethod::Purge, &full).unwrap().0, Way::Sanitize(Sanitize::Block));
        let sata = drive(Interface::Ata, &[Way::AtaSecurity { enhanced: false }, Way::Discard]);
        assert_eq!(choose(EraseMethod::Purge, &sata).unwrap().0, Way::AtaSecurity { enhanced: false });
        let loop_dev = drive(Interface::None, &[Way::Discard]);
        assert_eq!(
            choose(EraseMethod::Purge, &loop_dev).unwrap(),
            (Way::Discard, "a discard is all a device that is not a drive takes".to_string())
        );
    }

    /// A method the drive lacks is refused, naming what it has and why.
    #[test]
    fn a_method_the_drive_lacks_names_what_it_supports() {
        let mut sata = drive(Interface::Ata, &[Way::Discard]);
        sata.notes.push("its security feature set is not supported".to_string());
        let e = choose(EraseMethod::AtaSecure, &sata).unwrap_err();
        assert_eq!(
            e,
            "the drive (a SATA drive) cannot `erase ata_secure`: it supports discard; its security feature set \
             is not supported"
        );
        let nothing = drive(Interface::None, &[]);
        assert!(choose(EraseMethod::Purge, &nothing).unwrap_err().ends_with("it supports none"));
        let nvme = drive(Interface::Nvme, &[Way::Discard, Way::Format(FormatErase::UserData)]);
        assert_eq!(nvme.words(), "discard, format secure");
        assert_eq!(
            choose(EraseMethod::FormatSecure, &nvme).unwrap(),
            (Way::Format(FormatErase::UserData), "as the methodology asks".to_string())
        );
        assert!(choose(EraseMethod::SanitizeCrypto, &nvme).is_err());
    }

    /// Every way maps to the language's method and back.
    #[test]
    fn ways_and_methods_agree() {
        for w in
            PURGE_ORDER.iter().chain(&[Way::Sanitize(Sanitize::Overwrite), Way::Format(FormatErase::Nothing)])
        {
            let m = w.method();
            assert!(m.whole_drive() || m == EraseMethod::Discard);
            if m != EraseMethod::Discard {
                let d = drive(Interface::Nvme, &[*w]);
                assert_eq!(choose(m, &d).unwrap().0, *w, "{}", m.keyword());
            }
        }
    }
}
