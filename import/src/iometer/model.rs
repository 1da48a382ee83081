//! An .icf file as Iometer's reader holds it, each value with the line it
//! came from: [`Icf`], made by `reader::read` and turned into a
//! methodology by `translate`. The field names follow Iometer's
//! (iometer-org/iometer @ 7243b4d: `src/PageSetup.h`, `src/IOAccess.h`,
//! `src/Worker.h`).

use super::lines::Version;

/// The sections of an .icf file that methodic reads.
#[derive(Debug, Clone, Default)]
pub(super) struct Icf {
    pub(super) version: Option<Version>,
    pub(super) setup: Option<Setup>,
    /// The line of the RESULTS DISPLAY section, which only says what
    /// Iometer's window shows.
    pub(super) display: Option<usize>,
    /// `None` when the file has no ACCESS SPECIFICATIONS section.
    pub(super) specs: Option<Vec<Spec>>,
    /// `None` when the file has no MANAGER LIST section.
    pub(super) managers: Option<Vec<Manager>>,
}

/// A value and the line it was read from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct At<T> {
    pub(super) value: T,
    pub(super) line: usize,
}

impl<T> At<T> {
    pub(super) fn new(value: T, line: usize) -> At<T> {
        At { value, line }
    }
}

/// The TEST SETUP section (`CPageSetup::SaveConfig`, `src/PageSetup.cpp:308-463`).
#[derive(Debug, Clone, Default)]
pub(super) struct Setup {
    pub(super) line: usize,
    pub(super) description: Option<At<String>>,
    /// Seconds; `None` when the file has no `'Run Time`.
    pub(super) run: Option<At<u64>>,
    /// Seconds.
    pub(super) ramp: Option<At<u64>>,
    /// Settings that change nothing a run measures here, as written:
    /// `(key, value, line)` (default workers to spawn, record results).
    pub(super) other: Vec<(String, String, usize)>,
    pub(super) worker_cycling: Option<At<Cycling>>,
    pub(super) disk_cycling: Option<At<Cycling>>,
    pub(super) queue_cycling: Option<At<Cycling>>,
    pub(super) test_type: Option<At<TestType>>,
}

/// A cycling setting: start, end (queue depth cycling only), step, and
/// linear or exponential steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cycling {
    pub(super) start: u64,
    pub(super) end: Option<u64>,
    pub(super) step: u64,
    pub(super) exponential: bool,
}

/// Iometer's test types, in the order of `src/PageSetup.h:69-77`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TestType {
    Normal,
    CycleTargets,
    CycleWorkers,
    IncrementTargetsParallel,
    IncrementTargetsSerial,
    CycleWorkersAndTargets,
    CycleOutstandingIos,
    CycleOutstandingIosAndTargets,
}

impl TestType {
    /// Every type with its word in the file, by code.
    pub(super) const ALL: [(TestType, &'static str); 8] = [
        (TestType::Normal, "NORMAL"),
        (TestType::CycleTargets, "CYCLE_TARGETS"),
        (TestType::CycleWorkers, "CYCLE_WORKERS"),
        (TestType::IncrementTargetsParallel, "INCREMENT_TARGETS_PARALLEL"),
        (TestType::IncrementTargetsSerial, "INCREMENT_TARGETS_SERIAL"),
        (TestType::CycleWorkersAndTargets, "CYCLE_WORKERS_AND_TARGETS"),
        (TestType::CycleOutstandingIos, "CYCLE_OUTSTANDING_IOS"),
        (TestType::CycleOutstandingIosAndTargets, "CYCLE_OUTSTANDING_IOS_AND_TARGETS"),
    ];

    /// The word Iometer writes for it.
    pub(super) fn word(self) -> &'static str {
        TestType::ALL.iter().find(|(t, _)| *t == self).map_or("NORMAL", |(_, w)| w)
    }
}

/// An access specification (`struct Access_Spec`, `src/IOAccess.h:78-90`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Spec {
    pub(super) name: String,
    /// The line of its name.
    pub(super) line: usize,
    /// `NONE`, `ALL`, `DISK` or `NET`, as written.
    pub(super) assignment: String,
    pub(super) lines: Vec<AccessLine>,
}

/// One line of an access specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct AccessLine {
    pub(super) line: usize,
    /// Bytes.
    pub(super) size: u64,
    /// Percent of I/Os (of bursts).
    pub(super) share: u64,
    pub(super) reads: u64,
    pub(super) random: u64,
    /// Milliseconds before each burst.
    pub(super) delay: u64,
    /// I/Os a burst.
    pub(super) burst: u64,
    /// Bytes; 0 is the target's sector size.
    pub(super) align: u64,
    /// Bytes of a reply I/O the other way; 0 for none.
    pub(super) reply: u64,
}

/// A manager (a host running Dynamo) and its workers.
#[derive(Debug, Clone, Default)]
pub(super) struct Manager {
    pub(super) line: usize,
    pub(super) name: String,
    pub(super) address: String,
    pub(super) workers: Vec<Worker>,
}

/// A worker (`Worker::SaveConfig`, `src/Worker.cpp:2059-2176`).
#[derive(Debug, Clone, Default)]
pub(super) struct Worker {
    pub(super) line: usize,
    pub(super) name: String,
    /// `DISK`, `NETWORK,TCP` or `NETWORK,VI`, as written (trimmed).
    pub(super) kind: At<String>,
    /// Outstanding I/Os for each of its targets.
    pub(super) qd: Option<At<u64>>,
    /// Test connection rate on (the target is reopened every so many
    /// transactions).
    pub(super) connection_rate: Option<At<bool>>,
    pub(super) fixed_seed: Option<At<u64>>,
    /// Sectors.
    pub(super) max_size: Option<At<u64>>,
    /// Sectors.
    pub(super) start: Option<At<u64>>,
    /// 0 repeating bytes, 1 pseudo random, 2 full random (1.1.0 only).
    pub(super) pattern: Option<At<u64>>,
    /// Assigned access specifications, in run order.
    pub(super) specs: Vec<At<String>>,
    pub(super) targets: Vec<At<String>>,
}

impl Worker {
    /// Whether it is a disk worker (the only kind methodic can be).
    pub(super) fn is_disk(&self) -> bool {
        self.kind.value.eq_ignore_ascii_case("DISK")
    }
}
