//! The `json` format: JSON for programs. Any serializable result,
//! pretty-printed with a final newline; a report as `JsonReport`: the
//! run's identity (and each host of a run on many hosts), conventions and
//! every point with its checklist (and each host's share), and the files
//! of the run that could not be read; a
//! plan's steps as JSON lines, an object a step.

use std::path::Path;

use methodic_compiler::plan::{Units, ValueKind, Written};
use schemars::JsonSchema;
use serde::Serialize;

use super::{ExportError, Exporter, Format};
use crate::host::{Host, TargetInfo};
use crate::manifest::{self, Loaded};
use crate::record::Status;
use crate::step_files::Unreadable;
use crate::view::plan::PlanSteps;
use crate::view::points::{Point, step_of, sweep_bests};
use crate::view::report::{Report, value_line};

/// The `json` exporter: any serializable result, pretty-printed, with a
/// final newline.
pub struct Json;

impl<R: Serialize + ?Sized> Exporter<R> for Json {
    fn export(&self, result: &R) -> Result<String, ExportError> {
        serde_json::to_string_pretty(result)
            .map(|text| text + "\n")
            .map_err(|e| ExportError::Failed { format: Format::Json, detail: e.to_string() })
    }
}

/// JSON lines: an object a step (`PlanSteps` is not `Serialize`: this is
/// its only JSON). Each line goes through a `serde_json::Value`, whose
/// keys are sorted: the line's keys, and its `writes`', in name order.
impl Exporter<PlanSteps> for Json {
    fn export(&self, p: &PlanSteps) -> Result<String, ExportError> {
        let failed =
            |e: serde_json::Error| ExportError::Failed { format: Format::Json, detail: e.to_string() };
        let mut out = String::new();
        for (s, r) in p.plan.steps.iter().zip(p.rows()) {
            let [_, _, what, qd, _, _] = r;
            let line = PlanStepLine {
                id: &s.id,
                phase: s.phase.as_deref(),
                kind: s.action.kind(),
                what,
                qd,
                time_min_ms: s.estimate.time.min.as_millis(),
                time_max_ms: s.estimate.time.max.as_millis(),
                device_bound: s.estimate.device_bound,
                writes: s.estimate.written,
            };
            out.push_str(&serde_json::to_value(&line).map_err(failed)?.to_string());
            out.push('\n');
        }
        Ok(out)
    }
}

/// One step of a plan, as a line of `methodic plan --format json`: what
/// the step does and what the plan estimates it takes and writes.
#[derive(Serialize, JsonSchema)]
pub struct PlanStepLine<'a> {
    /// The step's id in the plan: `phase-slug/what`.
    pub id: &'a str,
    pub phase: Option<&'a str>,
    /// The kind of step: `erase`, `fill`, `precondition`, `measure`,
    /// `rounds`, `together`, `qos`, `drop_caches`, `idle`, `limit_ram`,
    /// `copy`, `probe`.
    pub kind: &'a str,
    /// What the step does, in words (the table's `what` column).
    pub what: String,
    /// The queue depth as the table shows it: `32`, `256 (16x16)`, `-`
    /// for a step without one.
    pub qd: String,
    /// The time the plan can know the step takes, from `time_min_ms` to
    /// `time_max_ms` milliseconds.
    pub time_min_ms: u64,
    pub time_max_ms: u64,
    /// The step also takes time that depends on the device's speed.
    pub device_bound: bool,
    /// What the step writes, as far as the plan can know it.
    pub writes: Written,
}

/// As JSON: `JsonReport`.
impl Serialize for Report {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        json(&self.run, &self.pts, self.unreadable()).serialize(s)
    }
}

/// As its JSON is written: `JsonReport`'s.
impl JsonSchema for Report {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        JsonReport::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        JsonReport::json_schema(generator)
    }
}

/// A report as JSON: the run, its conventions, every point with its
/// checklist, and each sweep's best step.
#[derive(Serialize, JsonSchema)]
struct JsonReport<'a> {
    dir: &'a Path,
    manifest_schema: u32,
    methodology: &'a manifest::Methodology,
    status: Status,
    rehearsal: bool,
    host: &'a Host,
    targets: &'a [TargetInfo],
    /// A run on many hosts: each host, as the manifest has it.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    hosts: &'a [manifest::HostNote],
    units: Units,
    /// The methodology's value convention, and what the value columns hold.
    value: ValueKind,
    value_note: String,
    points: Vec<JsonPoint<'a>>,
    /// Under `value peak`, each sweep's best step (by its id).
    sweep_bests: Vec<JsonBest<'a>>,
    /// The files of the run that could not be read, in step order, each
    /// with why: what they hold is missing from the report (and `methodic
    /// report` exits 3 unless told `--allow-incomplete`). Left out when
    /// every file was read.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    unreadable: &'a [Unreadable],
}

#[derive(Serialize, JsonSchema)]
struct JsonBest<'a> {
    sweep: Option<u32>,
    workload: Option<&'a str>,
    qd: Option<u32>,
    id: &'a str,
    iops: Option<f64>,
    #[schemars(with = "Option<f64>")]
    mb_s: f64,
    #[schemars(with = "Option<f64>")]
    mib_s: f64,
}

#[derive(Serialize, JsonSchema)]
struct JsonPoint<'a> {
    #[serde(flatten)]
    point: &'a Point,
    checklist: Option<&'a manifest::Checklist>,
}

fn json<'a>(run: &'a Loaded, pts: &'a [Point], unreadable: &'a [Unreadable]) -> JsonReport<'a> {
    let m = &run.manifest;
    JsonReport {
        dir: &run.dir,
        manifest_schema: m.schema,
        methodology: &m.methodology,
        status: m.status,
        rehearsal: m.rehearsal,
        host: &m.host,
        targets: &m.targets,
        hosts: &m.hosts,
        units: m.plan.conventions.units,
        value: m.plan.conventions.value,
        value_note: value_line(run, pts),
        points: pts
            .iter()
            .map(|p| JsonPoint { point: p, checklist: step_of(run, p).map(|s| &s.checklist) })
            .collect(),
        sweep_bests: if m.plan.conventions.value == ValueKind::Peak {
            sweep_bests(pts)
                .into_iter()
                .map(|p| JsonBest {
                    sweep: p.sweep,
                    workload: p.workload.as_ref().map(|w| w.name.as_str()),
                    qd: p.qd.map(|q| q.total),
                    id: &p.id,
                    iops: p.iops,
                    mb_s: p.mb_s,
                    mib_s: p.mib_s,
                })
                .collect()
        } else {
            Vec::new()
        },
        unreadable,
    }
}
