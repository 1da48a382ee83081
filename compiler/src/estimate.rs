//! Estimates: a step's action and target settings go in, how long it takes
//! and what it writes come out, as far as the plan can know without the
//! device. A plan's estimate is the plain sum of its steps' estimates.
//! A workload writes where its write share (what reads and trims leave) is
//! above 0: a step that only reads and trims writes nothing.

use crate::plan::*;

/// Whether `w` writes data (a trim deallocates, and writes none).
fn writes_data(w: &Workload) -> bool {
    w.write_share() > Percent::ZERO
}

/// How long a step takes and what it writes.
pub fn step(action: &Action, target: Option<&Target>) -> StepEstimate {
    let span = target.map_or(Extent::Percent(Percent::HUNDRED), |t| t.span);
    let mut e = StepEstimate::default();
    match action {
        Action::Erase { .. } => e.device_bound = true,
        Action::Fill { passes, .. } => {
            e.device_bound = true;
            e.written = written_of(span, Percent::whole(100).times(*passes as u64));
        }
        Action::Precondition { workload, stop, .. } => {
            e.time = match stop {
                PreconditionStop::Time(d) => TimeRange::exactly(*d),
                PreconditionStop::Steady { round, rule } => rounds_range(*round, rule),
            };
            if writes_data(workload) {
                e.written.timed = e.time;
            }
        }
        Action::Measure { workload, ramp, stop, .. } => {
            measure(&mut e, span, *ramp, stop, workload.write_share())
        }
        Action::Together { jobs, ramp, stop, .. } => {
            // A together step stops by time, or by bytes written in a
            // hand-written plan: any writing job counts whole.
            let writes = jobs.iter().any(|j| writes_data(&j.workload));
            measure(&mut e, span, *ramp, stop, if writes { Percent::HUNDRED } else { Percent::ZERO })
        }
        Action::Qos(q) => {
            let each = q.ramp.saturating_add(q.probe);
            let (min, max) = q.probes();
            e.time = TimeRange {
                min: Duration::from_millis(each.as_millis().saturating_mul(min as u64)),
                max: Duration::from_millis(each.as_millis().saturating_mul(max as u64)),
            };
            if writes_data(&q.workload) {
                e.written.timed = e.time;
            }
        }
        Action::Rounds { cells, rule, .. } => {
            let round = cells
                .iter()
                .fold(Duration::ZERO, |sum, c| sum.saturating_add(c.ramp.saturating_add(c.record)));
            let writing = cells
                .iter()
                .filter(|c| writes_data(&c.workload))
                .fold(Duration::ZERO, |sum, c| sum.saturating_add(c.ramp.saturating_add(c.record)));
            e.time = rounds_range(round, rule);
            if !writing.is_zero() {
                e.written.timed = rounds_range(writing, rule);
            }
        }
        Action::Idle { time } => e.time = TimeRange::exactly(*time),
        Action::DropCaches | Action::LimitRam { .. } => {}
        Action::Copy { dataset } => {
            e.device_bound = true;
            e.written.bytes = dataset.total;
        }
        Action::Probe(p) => {
            e.device_bound = true;
            e.written.bytes = Bytes(p.offsets.saturating_mul(p.repeats as u64).saturating_mul(p.io.0));
        }
    }
    e
}

/// From `window` rounds (the earliest a rule can hold) to `max_rounds`.
fn rounds_range(round: Duration, rule: &SteadyRule) -> TimeRange {
    TimeRange {
        min: round.saturating_mul(rule.window.min(rule.max_rounds) as u64),
        max: round.saturating_mul(rule.max_rounds as u64),
    }
}

/// A measurement's time and writes (a `together` step's too): ramp and
/// record; `until written` or `until transferred`, bound by the device.
/// `writes` is the share of its I/O that writes data.
fn measure(e: &mut StepEstimate, span: Extent, ramp: Duration, stop: &MeasureStop, writes: Percent) {
    e.time = match stop.time {
        Some(t) => TimeRange::exactly(ramp.saturating_add(t)),
        None => TimeRange::exactly(ramp),
    };
    if let Some((target, reads_count)) = stop.amount() {
        // Until an amount: the time depends on the device; with a time
        // limit too, the step may stop any time after its ramp. Of an
        // amount transferred, the workload's write share is written.
        e.device_bound = true;
        e.time.min = ramp;
        let share = if reads_count { writes } else { Percent::HUNDRED };
        e.written = match target {
            Extent::Percent(p) => written_of(span, p.times_percent(share)),
            Extent::Bytes(b) => Written { bytes: Bytes(share.of(b.0)), ..Written::default() },
        };
    } else if writes > Percent::ZERO {
        e.written.timed = e.time;
    }
}

/// `share` of the span, written: a share of capacity for a span in
/// percent, bytes for a span in bytes.
fn written_of(span: Extent, share: Percent) -> Written {
    match span {
        Extent::Percent(p) => Written { capacity: p.times_percent(share), ..Written::default() },
        Extent::Bytes(b) => Written { bytes: Bytes(share.of(b.0)), ..Written::default() },
    }
}

/// The plan's estimate: the sum of its steps, and the bytes written once
/// the capacity is known.
pub fn plan(steps: &[Step], capacity: Option<Bytes>) -> Estimate {
    let mut e = Estimate { capacity, ..Estimate::default() };
    for step in steps {
        e.time = e.time + step.estimate.time;
        e.device_bound_steps += u32::from(step.estimate.device_bound);
        e.written = e.written + step.estimate.written;
    }
    e.written_bytes = capacity.map(|c| Bytes(e.written.capacity.of(c.0).saturating_add(e.written.bytes.0)));
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wl(read: u32) -> Workload {
        Workload {
            name: "w".into(),
            blocks: vec![BlockShare { size: Bytes(4096), share: Percent::HUNDRED }],
            read: Percent::whole(read),
            random: Percent::HUNDRED,
            align: Bytes(4096),
            offset: Bytes(0),
            access: Default::default(),
            trim: Percent::ZERO,
            write_blocks: None,
        }
    }

    fn qd() -> Qd {
        Qd { total: 1, per_worker: 1, workers: 1, counted: QdCounting::Total }
    }

    #[test]
    fn fill_writes_passes_times_span() {
        let fill = Action::Fill { workload: wl(0), qd: qd(), passes: 2 };
        let t = Target { span: Extent::Percent(Percent::whole(25)), ..Target::default() };
        let e = step(&fill, Some(&t));
        assert_eq!(e.written.capacity, Percent::whole(50));
        assert!(e.device_bound);
        let t = Target { span: Extent::Bytes(Bytes(16_000_000_000)), ..Target::default() };
        assert_eq!(step(&fill, Some(&t)).written.bytes, Bytes(32_000_000_000));
    }

    #[test]
    fn steady_precondition_spans_window_to_max_rounds() {
        let a = Action::Precondition {
            workload: wl(0),
            qd: qd(),
            stop: PreconditionStop::Steady { round: Duration::from_secs(60), rule: SteadyRule::default() },
            series: Duration::from_secs(1),
        };
        let e = step(&a, Some(&Target::default()));
        assert_eq!(e.time, TimeRange { min: Duration::from_secs(300), max: Duration::from_secs(1500) });
        assert_eq!(e.written.timed, e.time);
    }

    #[test]
    fn measure_is_ramp_plus_record_and_reads_write_nothing() {
        let a = Action::Measure {
            workload: wl(100),
            qd: qd(),
            ramp: Duration::from_secs(30),
            stop: MeasureStop::timed(Duration::from_secs(300)),
            series: Duration::from_secs(1),
            rate: None,
            pauses: Pauses::default(),
            at: None,
        };
        let e = step(&a, Some(&Target::default()));
        assert_eq!(e.time, TimeRange::exactly(Duration::from_secs(330)));
        assert_eq!(e.written, Written::default());
    }

    /// Reads and trims alone write nothing; a write share left over writes.
    #[test]
    fn a_measure_that_reads_and_trims_writes_nothing() {
        let measure = |read: u32, trim: u32| {
            let mut workload = wl(read);
            workload.trim = Percent::whole(trim);
            let a = Action::Measure {
                workload,
                qd: qd(),
                ramp: Duration::from_secs(0),
                stop: MeasureStop::timed(Duration::from_secs(60)),
                series: Duration::from_secs(1),
                rate: None,
                pauses: Pauses::default(),
                at: None,
            };
            step(&a, Some(&Target::default())).written
        };
        assert_eq!(measure(50, 50), Written::default());
        assert_eq!(measure(0, 100), Written::default());
        assert_eq!(measure(50, 20).timed, TimeRange::exactly(Duration::from_secs(60)));
    }

    #[test]
    fn plan_sums_steps_and_converts_capacity() {
        let mk = |estimate| Step {
            id: "x".into(),
            phase: None,
            action: Action::DropCaches,
            target: None,
            ram_limit: None,
            repeat: None,
            sweep: None,
            establishes_state: false,
            verify: false,
            local: false,
            estimate,
        };
        let a = StepEstimate {
            time: TimeRange::exactly(Duration::from_secs(10)),
            device_bound: true,
            written: Written { capacity: Percent::whole(200), ..Written::default() },
        };
        let b = StepEstimate {
            time: TimeRange { min: Duration::from_secs(5), max: Duration::from_secs(50) },
            device_bound: false,
            written: Written { bytes: Bytes(1000), ..Written::default() },
        };
        let e = plan(&[mk(a), mk(b)], Some(Bytes(2_000_000_000_000)));
        assert_eq!(e.time, TimeRange { min: Duration::from_secs(15), max: Duration::from_secs(60) });
        assert_eq!(e.device_bound_steps, 1);
        assert_eq!(e.written_bytes, Some(Bytes(4_000_000_001_000)));
    }

    /// A search by queue depth takes from one probe (depth 1 failed) to
    /// the most its ceiling allows, each its ramp and probe time.
    #[test]
    fn a_qos_search_by_queue_depth_spans_its_fewest_to_most_probes() {
        let q = Qos {
            workload: wl(100),
            qd: Qd { total: 128, per_worker: 128, workers: 1, counted: QdCounting::PerWorker },
            percentile_ppm: 999_000,
            under_ns: 1_000_000,
            ramp: Duration::from_secs(2),
            probe: Duration::from_secs(10),
            precision: Percent::whole(5),
            arrivals: Arrivals::Uniform,
            by: QosAxis::Qd,
        };
        let (fewest, most) = depth_probes(128);
        let e = step(&Action::Qos(q), Some(&Target::default()));
        assert_eq!(
            e.time,
            TimeRange {
                min: Duration::from_secs(12 * fewest as u64),
                max: Duration::from_secs(12 * most as u64)
            }
        );
        assert_eq!(e.written, Written::default(), "reads write nothing");
    }
}
