//! The drives' volatile write cache over a run (`target { write_cache off
//! }`): read and set through each drive's own command (NVMe Set Features
//! 0x06, ATA SET FEATURES, the SCSI caching mode page) before the first
//! step, and put back as it was at the end, after a signal, and at the end
//! of a `--resume` (which sets it again first). Files, loop and zram
//! devices and partitions have no cache of their own to set: the run says
//! so and goes on.

use methodic_compiler::plan::WriteCache;
use methodic_results::manifest::WriteCacheNote;

use super::{Interface, ata, interface, nvme, scsi};
use crate::target::Target;

/// Whether `target`'s drive has its volatile write cache on; `None` where
/// methodic cannot read it.
pub fn get(target: &Target, interface: Interface) -> Option<bool> {
    let f = target.file(false);
    match interface {
        Interface::Nvme => nvme::write_cache(f),
        Interface::Ata => ata::identify(f).filter(|i| i.write_cache.supported).map(|i| i.write_cache.enabled),
        Interface::Scsi => scsi::write_cache(f),
        Interface::None => None,
    }
}

/// Turns `target`'s drive cache on or off; the command's name, or what
/// the drive answered.
pub fn set(target: &Target, interface: Interface, on: bool) -> Result<&'static str, String> {
    let f = target.file(false);
    match interface {
        Interface::Nvme => nvme::set_write_cache(f, on)
            .map(|()| "NVMe Set Features, volatile write cache")
            .map_err(|e| e.to_string()),
        Interface::Ata => ata::set_write_cache(f, on).map(|()| "ATA SET FEATURES").map_err(|e| e.to_string()),
        Interface::Scsi => {
            scsi::set_write_cache(f, on).map(|()| "SCSI MODE SELECT, caching page").map_err(|e| e.to_string())
        }
        Interface::None => Err("not a drive methodic can send commands to".into()),
    }
}

/// Sets every target's cache as `asked` says, before the first step.
/// `notes` holds what an earlier session did (a resume): its `was_on` is
/// kept, so that the end puts back the state before the first session.
/// `Err` names the target and what its drive answered.
pub fn apply(asked: WriteCache, targets: &[Target], notes: &mut Vec<WriteCacheNote>) -> Result<(), String> {
    let want = match asked {
        WriteCache::AsIs => return Ok(()),
        WriteCache::Off => false,
        WriteCache::On => true,
    };
    for t in targets {
        let path = t.path.display().to_string();
        let interface = interface(t);
        let now = get(t, interface);
        let earlier = notes.iter().position(|n| n.target == path);
        let done = match now {
            None => "not a drive whose cache methodic can read or set: left as it is".to_string(),
            Some(on) if on == want => format!("already {}", asked.keyword()),
            Some(_) => {
                let how = set(t, interface, want)
                    .map_err(|e| format!("cannot turn the write cache of {path} {}: {e}", asked.keyword()))?;
                if get(t, interface) != Some(want) {
                    return Err(format!(
                        "the write cache of {path} is still {} after {how}",
                        if want { "off" } else { "on" }
                    ));
                }
                format!("turned {} ({how})", asked.keyword())
            }
        };
        match earlier {
            // A resume: the state before the run is the first session's.
            Some(i) => {
                notes[i].done = format!("{}; again on resume: {done}", notes[i].done);
                notes[i].restored = None;
            }
            None => notes.push(WriteCacheNote {
                target: path,
                asked: asked.keyword().to_string(),
                was_on: now,
                done,
                restored: None,
            }),
        }
    }
    Ok(())
}

/// Puts each target's cache back as it was before the run; says in each
/// note what was done. Called at the end of every session, whatever its
/// outcome.
pub fn restore(targets: &[Target], notes: &mut [WriteCacheNote]) {
    for n in notes.iter_mut() {
        let Some(t) = targets.iter().find(|t| t.path.display().to_string() == n.target) else { continue };
        let Some(was) = n.was_on else {
            n.restored = Some("nothing to put back".into());
            continue;
        };
        let interface = interface(t);
        let word = if was { "on" } else { "off" };
        n.restored = Some(match get(t, interface) {
            Some(now) if now == was => format!("{word} as before the run"),
            _ => match set(t, interface, was) {
                Ok(how) => format!("turned {word} again ({how}), as before the run"),
                Err(e) => format!("NOT put back {word}: {e}; set it by hand"),
            },
        });
    }
}
