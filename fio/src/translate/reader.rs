//! Reads a job's options one by one, collecting the problems and the
//! notes (options left out or read differently) as it goes, so that every
//! problem of a job is reported, not only the first.

use std::collections::HashSet;

use methodic_compiler::plan::Duration;
use methodic_grammar::did_you_mean;

use super::step::Note;
use crate::error::{ImportErrorKind, Problem};
use crate::job_file::{Entry, Job};
use crate::options::{Handling, OPTIONS, canonical, lookup};
use crate::values::{Refusal, fio_bool, fio_flag, fio_int, fio_time, refusal, substituted};

/// Marks a value whose problem is already recorded.
pub(crate) struct Reported;

pub(crate) type Got<T> = Result<T, Reported>;

/// Reads a job's options, collecting problems and notes.
pub(crate) struct JobReader<'j> {
    pub(crate) job: &'j Job,
    pub(crate) problems: Vec<Problem>,
    pub(crate) notes: Vec<Note>,
}

impl<'j> JobReader<'j> {
    pub(crate) fn get(&self, name: &str) -> Option<&'j Entry> {
        self.job.get(name)
    }

    pub(crate) fn problem(&mut self, kind: ImportErrorKind, entry: &Entry, r: Refusal) -> Reported {
        let mut p = Problem::at(kind, entry, r.detail);
        p.hint = r.hint;
        self.problems.push(p);
        Reported
    }

    pub(crate) fn note(&mut self, entry: &Entry, global: bool, dropped: bool, text: impl AsRef<str>) {
        let global = global && entry.section == "global";
        self.notes.push(Note {
            line: entry.line,
            global,
            dropped,
            text: format!("{} (line {}): {}", entry.written(), entry.line, text.as_ref()),
        });
    }

    /// The option `name` read with `parse`; `None` when not given.
    pub(crate) fn read<T>(
        &mut self,
        name: &str,
        parse: impl FnOnce(Option<&str>) -> Result<T, Refusal>,
    ) -> Got<Option<T>> {
        let Some(e) = self.get(name) else { return Ok(None) };
        parse(e.value.as_deref()).map(Some).map_err(|r| self.problem(ImportErrorKind::BadValue, e, r))
    }

    pub(crate) fn int(&mut self, name: &str, min: u64, max: u64) -> Got<Option<u64>> {
        let n = self.read(name, |v| fio_int(need(v)?))?;
        match n {
            Some(n) if n < min || n > max => {
                let e = self.get(name).expect("read above");
                let range =
                    if max == u64::MAX { format!("at least {min}") } else { format!("{min} to {max}") };
                Err(self.problem(
                    ImportErrorKind::BadValue,
                    e,
                    refusal(format!("{name} is {range}, not {n}")),
                ))
            }
            n => Ok(n),
        }
    }

    pub(crate) fn time(&mut self, name: &str) -> Got<Option<Duration>> {
        self.read(name, |v| fio_time(need(v)?))
    }

    pub(crate) fn bool(&mut self, name: &str) -> Got<Option<bool>> {
        self.read(name, fio_bool)
    }

    pub(crate) fn flag(&mut self, name: &str) -> Got<bool> {
        Ok(self.read(name, fio_flag)?.unwrap_or(false))
    }

    /// A value that must start right after `=` (fio refuses it otherwise).
    pub(crate) fn word(&mut self, name: &str) -> Got<Option<(&'j Entry, &'j str)>> {
        let Some(e) = self.get(name) else { return Ok(None) };
        match e.value.as_deref() {
            None => Err(self.problem(
                ImportErrorKind::BadValue,
                e,
                refusal(format!("fio needs a value: `{name}=...`")),
            )),
            Some(v) if v.starts_with(char::is_whitespace) => Err(self.problem(
                ImportErrorKind::BadValue,
                e,
                refusal(format!("fio keeps the space after `=` in the value, and then does not know `{v}`"))
                    .hint(format!("write the value right after `=`: `{name}={}`", v.trim())),
            )),
            Some(v) => {
                substituted(v).map_err(|r| self.problem(ImportErrorKind::BadValue, e, r))?;
                Ok(Some((e, v)))
            }
        }
    }

    /// Unknown, refused and dropped options: what counts of each.
    pub(crate) fn other_options(&mut self) {
        let mut seen = HashSet::new();
        let mut effective: Vec<&'j Entry> =
            self.job.entries.iter().rev().filter(|e| seen.insert(canonical(&e.key))).collect();
        effective.reverse();
        for e in effective {
            match lookup(&e.key).map(|o| o.handling) {
                None => {
                    let candidates = OPTIONS
                        .iter()
                        .filter(|o| !o.name.ends_with('*'))
                        .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()));
                    let mut p = Problem::at(
                        ImportErrorKind::UnknownOption,
                        e,
                        "it is not an fio option, or not one methodic import translates",
                    );
                    p.hint = Some(match did_you_mean(&e.key, candidates) {
                        Some(near) => format!("did you mean `{near}`?"),
                        None => "remove it, or run the job with fio itself".to_string(),
                    });
                    self.problems.push(p);
                }
                Some(Handling::Translated) => {}
                Some(Handling::Dropped(why)) => self.note(e, true, true, format!("not carried over: {why}")),
                Some(Handling::Refused { why, harmless }) => {
                    let value = e.value.as_deref().map(str::trim).unwrap_or("1");
                    if !harmless.contains(&value) {
                        let mut p = Problem::at(ImportErrorKind::Untranslatable, e, why);
                        if let Some(off) = harmless.first() {
                            p.hint = Some(format!("remove it (or write {}={off}) to import the job", e.key));
                        } else {
                            p.hint = Some("remove it to import the job".to_string());
                        }
                        self.problems.push(p);
                    }
                }
            }
        }
    }
}

pub(crate) fn need(v: Option<&str>) -> Result<&str, Refusal> {
    match v {
        Some(v) if !v.trim().is_empty() => Ok(v),
        _ => Err(refusal("fio needs a value here")),
    }
}
