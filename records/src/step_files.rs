//! The files a run's step records name, read back for the views: a run
//! (`Loaded`) in, [`StepFiles`] out. Each step's series (a series CSV; a
//! rounds step's rounds; a page probe's latencies by offset), each
//! `together` job's series and each step's latency log are read through
//! the one type that writes them. A file that cannot be read is kept as
//! an [`Unreadable`] (where it is, whose it is, what it holds and what is
//! wrong with it), in step order, so that every view and format says so
//! rather than drawing nothing; a file no record names (an older run, a
//! step that kept none) is not looked for.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use methodic_compiler::plan::Action;
use schemars::JsonSchema;
use serde::Serialize;

use crate::error::Error;
use crate::hlog::Latencies;
use crate::manifest::Loaded;
use crate::record::StepResult;
use crate::rounds::CellRound;
use crate::series::Row;
use crate::{csv_file, probe};

/// A file a step's record names that could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Unreadable {
    /// Where it is, relative to the results directory (as the record
    /// names it): `series/measure/rnd4k-qd1.hlog`.
    pub path: PathBuf,
    /// The step whose record names it, by id.
    pub step: String,
    /// What it holds: `series`, `rounds`, `page probe`, `latency log`.
    pub holds: String,
    /// What is wrong with it, in words: `is missing`, `ends part way
    /// through line 4, ...`, `line 3 is not a series row: ...`.
    pub error: String,
}

/// `series/measure/rnd4k-qd1.hlog (latency log of step
/// measure/rnd4k-qd1): is missing`.
impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({} of step {}): {}", self.path.display(), self.holds, self.step, self.error)
    }
}

/// What a step's file held, read back.
#[derive(Debug)]
enum Content {
    Series(Vec<Row>),
    Rounds(Vec<CellRound>),
    Probe(Vec<probe::Row>),
    Latency(Latencies),
}

/// The kinds of file a view reads.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Reads {
    /// Every file the records name.
    Every,
    /// The series CSVs alone.
    Series,
    /// The series CSVs and the measurements' latency logs (what a
    /// comparison draws).
    Compared,
}

/// A run's step files, read back: what each held, and the ones that
/// could not be read.
#[derive(Debug, Default)]
pub struct StepFiles {
    read: BTreeMap<PathBuf, Content>,
    unreadable: Vec<Unreadable>,
}

impl StepFiles {
    /// Every file the run's step records name, read.
    pub fn every(run: &Loaded) -> StepFiles {
        StepFiles::of(run, Reads::Every)
    }

    /// The series CSVs the run's step records name, read (not the rounds,
    /// probes or latency logs).
    pub fn series_only(run: &Loaded) -> StepFiles {
        StepFiles::of(run, Reads::Series)
    }

    /// The series CSVs and the measurements' latency logs the run's step
    /// records name, read: what a comparison draws.
    pub fn compared(run: &Loaded) -> StepFiles {
        StepFiles::of(run, Reads::Compared)
    }

    fn of(run: &Loaded, reads: Reads) -> StepFiles {
        let mut files = StepFiles::default();
        for r in &run.steps {
            if let Some(path) = &r.series {
                let holds = run.plan_step(r).map_or(Holds::Series, |s| holds(&s.action));
                if reads == Reads::Every || holds == Holds::Series {
                    files.take(&run.dir, r, path, holds);
                }
            }
            for series in r.jobs.iter().filter_map(|j| j.series.as_ref()) {
                files.take(&run.dir, r, series, Holds::Series);
            }
            // A comparison draws the measurements' latency distributions.
            let measure = || run.plan_step(r).is_some_and(|s| matches!(s.action, Action::Measure { .. }));
            let wanted = match reads {
                Reads::Every => true,
                Reads::Compared => measure(),
                Reads::Series => false,
            };
            if let Some(path) = r.latency_log.as_ref().filter(|_| wanted) {
                files.take(&run.dir, r, path, Holds::Latency);
            }
        }
        files
    }

    /// Reads `path` (under `dir`), as step `r`'s file of kind `holds`.
    fn take(&mut self, dir: &Path, r: &StepResult, path: &Path, holds: Holds) {
        if self.read.contains_key(path) || self.unreadable.iter().any(|u| u.path == path) {
            return;
        }
        let at = dir.join(path);
        let content = match holds {
            Holds::Series => csv_file::read(&at).map(Content::Series),
            Holds::Rounds => csv_file::read(&at).map(Content::Rounds),
            Holds::Probe => csv_file::read(&at).map(Content::Probe),
            Holds::Latency => Latencies::read(&at).map(Content::Latency),
        };
        match content {
            Ok(c) => {
                self.read.insert(path.to_path_buf(), c);
            }
            Err(e) => self.unreadable.push(Unreadable {
                path: path.to_path_buf(),
                step: r.id.clone(),
                holds: holds.words().to_string(),
                error: match e {
                    Error::Results { message, .. } => message,
                    other => other.to_string(),
                },
            }),
        }
    }

    /// The files that could not be read, in step order.
    pub fn unreadable(&self) -> &[Unreadable] {
        &self.unreadable
    }

    /// What `path` held, or why it could not be read; `None` when it was
    /// not read (no record names it, or not as this kind).
    fn content(&self, path: &Path) -> Option<Result<&Content, &Unreadable>> {
        match self.read.get(path) {
            Some(c) => Some(Ok(c)),
            None => self.unreadable.iter().find(|u| u.path == path).map(Err),
        }
    }

    /// Step `r`'s series rows: none when its record names no series (or
    /// it is not a series CSV), or why it could not be read.
    pub fn series(&self, r: &StepResult) -> Result<&[Row], &Unreadable> {
        match r.series.as_deref().and_then(|p| self.content(p)) {
            Some(Ok(Content::Series(rows))) => Ok(rows),
            Some(Err(u)) => Err(u),
            Some(Ok(Content::Rounds(_) | Content::Probe(_) | Content::Latency(_))) | None => Ok(&[]),
        }
    }

    /// A rounds step's rows, each cell's numbers each round: none when
    /// its record names no rounds, or why they could not be read.
    pub fn rounds(&self, r: &StepResult) -> Result<&[CellRound], &Unreadable> {
        match r.series.as_deref().and_then(|p| self.content(p)) {
            Some(Ok(Content::Rounds(rows))) => Ok(rows),
            Some(Err(u)) => Err(u),
            Some(Ok(Content::Series(_) | Content::Probe(_) | Content::Latency(_))) | None => Ok(&[]),
        }
    }

    /// A page probe's rows, an offset each: none when its record names
    /// no file, or why it could not be read.
    pub fn probe(&self, r: &StepResult) -> Result<&[probe::Row], &Unreadable> {
        match r.series.as_deref().and_then(|p| self.content(p)) {
            Some(Ok(Content::Probe(rows))) => Ok(rows),
            Some(Err(u)) => Err(u),
            Some(Ok(Content::Series(_) | Content::Rounds(_) | Content::Latency(_))) | None => Ok(&[]),
        }
    }

    /// Step `r`'s latency histograms by tag: `None` when its record names
    /// no log, or why it could not be read.
    pub fn latencies(&self, r: &StepResult) -> Result<Option<&Latencies>, &Unreadable> {
        match r.latency_log.as_deref().and_then(|p| self.content(p)) {
            Some(Ok(Content::Latency(l))) => Ok(Some(l)),
            Some(Err(u)) => Err(u),
            Some(Ok(Content::Series(_) | Content::Rounds(_) | Content::Probe(_))) | None => Ok(None),
        }
    }
}

/// What a step's file holds, by its kind.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Holds {
    Series,
    Rounds,
    Probe,
    Latency,
}

impl Holds {
    fn words(self) -> &'static str {
        match self {
            Holds::Series => "series",
            Holds::Rounds => "rounds",
            Holds::Probe => "page probe",
            Holds::Latency => "latency log",
        }
    }
}

/// What the file a step's record names as its series holds: a rounds
/// step's rounds, a probe's latencies by offset, else a series CSV.
fn holds(action: &Action) -> Holds {
    match action {
        Action::Rounds { .. } => Holds::Rounds,
        Action::Probe(_) => Holds::Probe,
        Action::Erase { .. }
        | Action::Fill { .. }
        | Action::Precondition { .. }
        | Action::Measure { .. }
        | Action::Together { .. }
        | Action::Qos(_)
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. } => Holds::Series,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::view::testing;

    /// A fill, a rounds step of two cells, a page probe and a
    /// measurement.
    const SOURCE: &str = "methodology \"files\" version \"1.0\"\n\
        target { span 1GiB }\n\
        workload w { random; block 4KiB; read 0% }\n\
        workload r { random; block 4KiB; read 100% }\n\
        phase \"p\" {\n  fill w passes 1\n  rounds {\n    measure w qd 4 for 10s\n    measure r qd 4 for 10s\n  } \
        until steady { window 2; max_rounds 3; track w qd 4 }\n  \
        probe pages { io 1KiB; step 512B; range 16KiB; repeats 2; statistic median }\n  \
        measure r qd 4 for 10s\n}\n";

    /// Files methodic 0.1.0's runtime wrote, by what they hold.
    fn testdata(name: &str) -> Vec<u8> {
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/runtime-0.1.0").join(name))
            .unwrap()
    }

    /// The run of [`SOURCE`] in a folder of its own under the temporary
    /// directory (`name`), its records naming these files, all written
    /// whole: the fill's series (`fill.csv`) and latency log
    /// (`fill.hlog`), the rounds (`rounds.csv`), the probe's offsets
    /// (`probe.csv`), the measurement's series (`measure.csv`, and its log
    /// `measure.hlog`). The caller removes `run.dir`.
    pub(crate) fn run(name: &str) -> Loaded {
        let dir = std::env::temp_dir().join(format!("methodic-step-files-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("series")).unwrap();
        let mut run = testing::of_source(SOURCE, dir);
        let files: [(&str, Option<&str>, &str); 4] = [
            ("fill.csv", Some("fill.hlog"), "fill-rnd4k_write.csv"),
            ("rounds.csv", None, "rounds-rnd4k_write.rounds.csv"),
            ("probe.csv", None, "probe-pages.csv"),
            ("measure.csv", Some("measure.hlog"), "precondition-rnd4k_write-qd4.csv"),
        ];
        for (r, (series, log, from)) in run.steps.iter_mut().zip(files) {
            std::fs::write(run.dir.join("series").join(series), testdata(from)).unwrap();
            r.series = Some(Path::new("series").join(series));
            if let Some(log) = log {
                std::fs::write(run.dir.join("series").join(log), testdata("fill-rnd4k_write.hlog")).unwrap();
                r.latency_log = Some(Path::new("series").join(log));
            }
        }
        run
    }

    /// `run`'s files, damaged: the fill's series cut off, the rounds'
    /// third line made no row, the measurement's log gone.
    pub(crate) fn damage(run: &Loaded) {
        let at = |name: &str| run.dir.join("series").join(name);
        let series = std::fs::read(at("fill.csv")).unwrap();
        std::fs::write(at("fill.csv"), &series[..series.len() - 30]).unwrap();
        let rounds = std::fs::read_to_string(at("rounds.csv")).unwrap();
        std::fs::write(at("rounds.csv"), rounds.replacen("\n1,2,", "\n1,two,", 1)).unwrap();
        std::fs::remove_file(at("measure.hlog")).unwrap();
    }

    #[test]
    fn every_file_a_record_names_is_read_by_its_own_type() {
        let run = run("whole");
        let files = StepFiles::every(&run);
        assert_eq!(files.unreadable(), []);
        let [fill, rounds, probe, measure] = &run.steps[..] else { panic!("four steps") };
        assert_eq!(files.series(fill).unwrap().len(), 1);
        assert_eq!(files.rounds(rounds).unwrap().len(), 4);
        assert_eq!(files.probe(probe).unwrap().len(), 31);
        assert_eq!(files.series(measure).unwrap().len(), 2);
        assert_eq!(
            files.latencies(measure).unwrap().map(|l| l.tags().collect::<Vec<_>>()),
            Some(vec!["write"])
        );
        // Asked as another kind, a file gives nothing; a step with no
        // file, nothing.
        assert_eq!(files.rounds(fill).unwrap(), []);
        assert_eq!(files.series(rounds).unwrap(), []);
        assert!(files.latencies(rounds).unwrap().is_none());
        // A comparison reads the series alone.
        let series = StepFiles::series_only(&run);
        assert_eq!(series.series(fill).unwrap().len(), 1);
        assert!(series.latencies(fill).unwrap().is_none() && series.rounds(rounds).unwrap().is_empty());
        std::fs::remove_dir_all(&run.dir).unwrap();
    }

    #[test]
    fn a_file_that_cannot_be_read_is_named_with_what_is_wrong() {
        let run = run("damaged");
        damage(&run);
        let files = StepFiles::every(&run);
        let said: Vec<String> = files.unreadable().iter().map(ToString::to_string).collect();
        assert_eq!(
            said,
            [
                "series/fill.csv (series of step p/fill-w): ends part way through line 2, \
                 `0.065,63105.2,0.0,63105.2,2`",
                "series/rounds.csv (rounds of step p/rounds-w): line 3 is not a row of a cell in a round: \
                 `1,two,rnd4k_read,4,623.0,2.552,6131.53,122748.93,202768.38,2...`",
                "series/measure.hlog (latency log of step p/r-qd4): is missing",
            ]
        );
        let [fill, rounds, _, measure] = &run.steps[..] else { panic!("four steps") };
        assert_eq!(files.series(fill).unwrap_err().path, Path::new("series/fill.csv"));
        assert_eq!(files.rounds(rounds).unwrap_err().holds, "rounds");
        assert_eq!(files.latencies(measure).unwrap_err().error, "is missing");
        assert!(files.latencies(fill).unwrap().is_some(), "the fill's log is whole");
        // A comparison does not read the rounds or the logs: the series alone.
        let series = StepFiles::series_only(&run);
        assert_eq!(series.unreadable().len(), 1);
        assert_eq!(series.unreadable()[0].path, Path::new("series/fill.csv"));
        std::fs::remove_dir_all(&run.dir).unwrap();
    }
}
