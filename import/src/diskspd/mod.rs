//! `methodic import diskspd`: a DiskSpd XML profile (text whose first
//! non-blank character is `<`) or a file of DiskSpd command lines in, a
//! methodology out. Four stages, one module each: `xml` and
//! `cmdline` (with `profile_x` for a `-X` line, which reads the profile
//! it names) read the file into the shared `model` (DiskSpd's
//! `Profile`, `TimeSpan`, `Target`, with where each setting was written),
//! `translate` turns it into phases and jobs with DiskSpd's defaults and
//! meaning, refusing what methodic cannot say, and `writer` writes the
//! text, which `finish` formats and compiles.
//!
//! The rules come from DiskSpd's own sources (microsoft/diskspd, commit
//! c361eed6804607db9bc631a53d499b258c6c6741, DiskSpd 2.2):
//! `XmlProfileParser/diskspd.xsd` and `XmlProfileParser.cpp` for the
//! profile, `CmdLineParser/CmdLineParser.cpp` for the command line,
//! `Common/Common.h` for the defaults and `Common/Common.cpp`
//! (`Profile::Validate`) for what DiskSpd refuses. docs/diskspd.md has
//! the whole mapping.

mod cmdline;
mod model;
mod profile_x;
pub mod results;
mod translate;
mod writer;
mod xml;

use crate::finish::{Imported, count, finish};
use crate::problem::into_errors;
use crate::{ImportError, Input};

/// The methodology made from a DiskSpd profile or command line, or every
/// problem that keeps it from being made (nothing is made then).
pub fn to_method(input: &Input<'_>) -> Result<Imported, Vec<ImportError>> {
    let is_xml = input.text.trim_start_matches('\u{feff}').trim_start().starts_with('<');
    let profile = if is_xml {
        xml::read(input.text.trim_start_matches('\u{feff}'))
    } else {
        cmdline::read(input.text, input.include)
    }
    .map_err(|p| into_errors(p, input.file))?;
    let mut method = translate::profile_to_method(&profile).map_err(|p| into_errors(p, input.file))?;
    let prefix = if profile.command_line { "cmd" } else { "ts" };
    for (i, phase) in method.phases.iter_mut().enumerate() {
        for job in &mut phase.jobs {
            job.workload_name = format!("{prefix}{}_{}", i + 1, job.name);
        }
    }
    let source = writer::method_to_text(&method, input.file, input.name, profile.command_line);
    let text = finish(&source, input.file)?;
    let dropped = method.notes.len()
        + method
            .phases
            .iter()
            .map(|p| p.notes.len() + p.jobs.iter().map(|j| j.notes.len()).sum::<usize>())
            .sum::<usize>();
    let unit = if profile.command_line { "command line" } else { "time span" };
    Ok(Imported {
        text,
        what: count(method.phases.len(), unit),
        dropped,
        beside: Vec::new(),
        warnings: method.warnings,
    })
}

/// The body of the fuzz target `fuzz/fuzz_targets/diskspd_import.rs`.
pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let input = Input { text: &text, file: "fuzz", name: "fuzz", vars: &[], include: &|_| Err("no".into()) };
    let _ = to_method(&input);
}

#[cfg(test)]
mod tests;
