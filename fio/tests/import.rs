//! Import through the crate's API: job file text to a methodology that
//! compiles to the plan its options say (jobs fio starts together as a
//! together step, rates as open-loop rates), every problem named with its
//! line and option, and an imported job exported again imports to the
//! same steps.

use std::collections::HashSet;

use methodic_compiler::plan::{
    Access, Action, Arrivals, Band, Bytes, Duration, Extent, IoMode, Job, MeasureStop, Milli, Percent, Plan,
    QdCounting, Rate, RateAmount, Units,
};
use methodic_fio::{ImportError, ImportErrorKind, fio_to_method, plan_to_fio};

fn import(text: &str) -> String {
    match fio_to_method(text, "job.fio", "job") {
        Ok(i) => i.text,
        Err(errors) => panic!("{}", errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")),
    }
}

fn plan(text: &str) -> Plan {
    let method = import(text);
    methodic_compiler::compile(&method, &methodic_compiler::Options::default())
        .unwrap_or_else(|d| panic!("{d}\n{method}"))
        .plan
}

fn errors(text: &str) -> Vec<ImportError> {
    match fio_to_method(text, "job.fio", "job") {
        Ok(i) => panic!("imported:\n{}", i.text),
        Err(e) => e,
    }
}

/// The one measurement of each step, with its target.
fn measures(
    p: &Plan,
) -> Vec<(
    &methodic_compiler::plan::Workload,
    &methodic_compiler::plan::Qd,
    Duration,
    &MeasureStop,
    methodic_compiler::plan::Target,
)> {
    p.steps
        .iter()
        .filter_map(|s| match &s.action {
            Action::Measure { workload, qd, ramp, stop, .. } => {
                Some((workload, qd, *ramp, stop, s.target.unwrap()))
            }
            _ => None,
        })
        .collect()
}

const RANDREAD: &str = "\
; 4KiB random reads at QD32
[global]
ioengine=libaio
direct=1
time_based
runtime=60
ramp_time=5
filename=/dev/nvme0n1

[randread-qd32]
rw=randread
bs=4k
iodepth=32
";

#[test]
fn a_random_read_job_at_qd32() {
    let p = plan(RANDREAD);
    let m = measures(&p);
    assert_eq!(m.len(), 1);
    let (w, qd, ramp, stop, target) = m[0];
    assert_eq!(w.blocks.len(), 1);
    assert_eq!(w.blocks[0].size, Bytes(4096));
    assert_eq!(w.read, Percent::HUNDRED);
    assert_eq!(w.random, Percent::HUNDRED);
    assert_eq!((qd.total, qd.per_worker, qd.workers), (32, 32, 1));
    assert_eq!(ramp, Duration::from_secs(5));
    assert_eq!(stop.time, Some(Duration::from_secs(60)));
    assert_eq!(stop.written, None);
    assert_eq!(target.io, IoMode::Direct);
    assert_eq!(target.span, Extent::Percent(Percent::HUNDRED));
    assert_eq!(p.conventions.queue_depth, QdCounting::PerWorker);
    assert_eq!(p.conventions.units, Units::Binary);
    assert_eq!(p.steps.len(), 1, "a direct job needs no drop_caches");
}

#[test]
fn the_output_is_formatted_and_says_where_it_came_from() {
    let out = import(RANDREAD);
    assert_eq!(methodic_grammar::format(&out).unwrap(), out);
    let first = out.lines().next().unwrap();
    assert_eq!(
        first,
        format!("# Imported from job.fio by methodic {} (`methodic import fio`).", env!("CARGO_PKG_VERSION"))
    );
    assert!(out.contains("methodology \"job\" version \"1.0\""), "{out}");
    assert!(out.contains("ioengine=libaio (line 3): not carried over"), "{out}");
    assert!(out.contains("--target /dev/nvme0n1"), "{out}");
    assert!(out.contains("# fio job [randread-qd32], line 10:"), "{out}");
    assert!(out.contains("measure randread_qd32 qd 32 for 1min ramp 5s"), "{out}");
}

#[test]
fn a_whole_import_reads_as_expected() {
    let out = import(
        "[seq]\nrw=write\nbs=128k\niodepth=4\nioengine=io_uring\ndirect=1\nsize=16g\ntime_based\nruntime=30\n",
    );
    let expected = format!(
        r#"# Imported from job.fio by methodic {} (`methodic import fio`).
# The fio job is a phase with one measurement.
methodology "job" version "1.0"
describe "imported from the fio job file job.fio: 1 job"

conventions {{
  units binary
  queue_depth per_worker
  value step_average
}}

# fio's iodepth is per job: here the queue depth is per worker, and numjobs
# is the number of workers.
workload seq {{ sequential; block 128KiB; read 0% }}

phase "seq" {{
  # fio job [seq], line 1: rw=write bs=128k iodepth=4 direct=1 size=16g time_based runtime=30
  # - ioengine=io_uring (line 5): not carried over: methodic does its own I/O (io_uring, or psync
  #   where io_uring is unavailable)
  target {{ span 16GiB; workers 1; io direct; data random }}
  measure seq qd 4 for 30s
}}
"#,
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(out, expected);
}

#[test]
fn a_mixed_job_with_a_block_split() {
    let p = plan(
        "[oltp]\nrw=randrw\nrwmixread=70\nbssplit=4k/10:64k/50:8k/40\nioengine=io_uring\niodepth=16\n\
         direct=1\ntime_based\nruntime=2m\n",
    );
    let (w, qd, _, stop, _) = measures(&p)[0];
    assert_eq!(w.read, Percent::whole(70));
    let blocks: Vec<(u64, Percent)> = w.blocks.iter().map(|b| (b.size.0, b.share)).collect();
    assert_eq!(
        blocks,
        vec![(4096, Percent::whole(10)), (8192, Percent::whole(40)), (65536, Percent::whole(50))]
    );
    assert_eq!(w.align, Bytes(4096), "fio aligns random I/O to the smallest block size, as methodic does");
    assert_eq!(qd.per_worker, 16);
    assert_eq!(stop.time, Some(Duration::from_secs(120)));
}

#[test]
fn rwmixwrite_gives_the_read_share_too() {
    let p = plan("[j]\nrw=rw\nrwmixwrite=30\ntime_based\nruntime=10\n");
    let (w, ..) = measures(&p)[0];
    assert_eq!(w.read, Percent::whole(70));
    assert_eq!(w.random, Percent::ZERO);
}

#[test]
fn numjobs_are_workers_each_at_iodepth() {
    let p = plan(
        "[j]\nrw=randwrite\nbs=8k\nnumjobs=4\niodepth=8\nioengine=libaio\ndirect=1\ntime_based\nruntime=30\n",
    );
    let (w, qd, _, _, target) = measures(&p)[0];
    assert_eq!(w.read, Percent::ZERO);
    assert_eq!((qd.total, qd.per_worker, qd.workers), (32, 8, 4));
    assert_eq!(target.workers, 4);
}

#[test]
fn global_options_reach_the_jobs_after_them_and_jobs_override_them() {
    let p = plan(
        "[global]\nioengine=libaio\ndirect=1\nbs=8k\ntime_based\nruntime=20\nstonewall\n\n\
         [a]\nrw=randread\niodepth=4\n\n[b]\nrw=randwrite\nbs=16k\nruntime=40\n\n\
         [global]\nramp_time=2\n\n[c]\nrw=read\n",
    );
    let m = measures(&p);
    assert_eq!(m.len(), 3);
    assert_eq!(m[0].0.blocks[0].size, Bytes(8192));
    assert_eq!(m[0].1.total, 4);
    assert_eq!(m[0].2, Duration::ZERO, "[a] comes before the second [global]");
    assert_eq!(m[1].0.blocks[0].size, Bytes(16384));
    assert_eq!(m[1].3.time, Some(Duration::from_secs(40)));
    assert_eq!(m[1].1.total, 1, "fio's default iodepth");
    assert_eq!(m[2].0.random, Percent::ZERO);
    assert_eq!(m[2].2, Duration::from_secs(2));
    assert_eq!(m[2].3.time, Some(Duration::from_secs(20)));
    assert!(m.iter().all(|m| m.4.io == IoMode::Direct));
    let phases: Vec<_> = p.steps.iter().map(|s| s.phase.clone().unwrap()).collect();
    assert_eq!(phases, ["a", "b", "c"]);
}

#[test]
fn size_and_offset_make_the_span() {
    let p =
        plan("[j]\nrw=randread\nioengine=io_uring\ndirect=1\nsize=10g\noffset=1g\ntime_based\nruntime=5\n");
    let (w, _, _, _, target) = measures(&p)[0];
    assert_eq!(target.span, Extent::Bytes(Bytes(11 << 30)));
    assert_eq!(w.offset, Bytes(1 << 30));
    let p = plan("[j]\nrw=randread\nsize=25%\ntime_based\nruntime=5\n");
    assert_eq!(measures(&p)[0].4.span, Extent::Percent(Percent::whole(25)));
}

#[test]
fn a_buffered_job_drops_the_cache_first_as_fio_invalidates() {
    let p = plan("[j]\nrw=read\nbs=1m\ntime_based\nruntime=10\n");
    assert!(matches!(p.steps[0].action, Action::DropCaches));
    assert_eq!(measures(&p)[0].4.io, IoMode::Buffered);
    let p = plan("[j]\nrw=read\nbs=1m\ninvalidate=0\ntime_based\nruntime=10\n");
    assert!(matches!(p.steps[0].action, Action::Measure { .. }));
}

#[test]
fn a_write_job_without_time_based_stops_when_its_size_is_written() {
    let p = plan("[fill]\nrw=write\nbs=128k\nioengine=libaio\niodepth=32\ndirect=1\nsize=4g\nloops=2\n");
    let (_, _, _, stop, target) = measures(&p)[0];
    assert_eq!(stop.written, Some(Extent::Bytes(Bytes(8 << 30))));
    assert_eq!(stop.time, None);
    assert_eq!(target.span, Extent::Bytes(Bytes(4 << 30)));
    let p = plan("[fill]\nrw=randwrite\nnumjobs=2\nruntime=60\n");
    let (_, _, _, stop, _) = measures(&p)[0];
    assert_eq!(stop.written, Some(Extent::Percent(Percent::whole(200))));
    assert_eq!(stop.time, Some(Duration::from_secs(60)));
}

#[test]
fn clones_in_stripes_of_their_size_are_workers_in_stripes() {
    let p = plan(
        "[fill]\nrw=write\nbs=1m\nnumjobs=4\nsize=1g\noffset_increment=1g\nioengine=libaio\niodepth=8\n\
         direct=1\n",
    );
    let (w, qd, _, stop, target) = measures(&p)[0];
    assert_eq!(w.random, Percent::ZERO);
    assert_eq!((target.workers, qd.per_worker), (4, 8));
    assert_eq!(target.span, Extent::Bytes(Bytes(4 << 30)));
    assert_eq!(stop.written, Some(Extent::Bytes(Bytes(4 << 30))), "each clone writes its stripe once");
    let p = plan("[seq]\nrw=read\nnumjobs=4\nsize=20%\noffset_increment=20%\ntime_based\nruntime=5\n");
    assert_eq!(measures(&p)[0].4.span, Extent::Percent(Percent::whole(80)));
    let p = plan("[fill]\nrw=write\nnumjobs=2\nsize=50%\noffset_increment=50%\nloops=3\n");
    assert_eq!(measures(&p)[0].3.written, Some(Extent::Percent(Percent::whole(300))));
    for (text, words) in [
        (
            "[j]\nrw=write\nnumjobs=2\nsize=1g\noffset_increment=2g\ntime_based\nruntime=5\n",
            "must be the job's size",
        ),
        (
            "[j]\nrw=randwrite\nnumjobs=2\nsize=1g\noffset_increment=1g\ntime_based\nruntime=5\n",
            "anywhere in the span",
        ),
        ("[j]\nrw=write\nnumjobs=3\nsize=40%\noffset_increment=40%\ntime_based\nruntime=5\n", "past the end"),
        (
            "[j]\nrw=write\nbs=64k\nnumjobs=2\nsize=96k\noffset_increment=96k\ntime_based\nruntime=5\n",
            "whole 64KiB blocks",
        ),
    ] {
        let e = errors(text);
        let line = text.lines().position(|l| l.starts_with("offset_increment")).unwrap() + 1;
        let option = text.lines().nth(line - 1).unwrap();
        assert!(has(&e, line, option, words), "{text}: {e:?}");
    }
    let out = import("[j]\nrw=write\nsize=1g\noffset_increment=1g\ntime_based\nruntime=5\n");
    assert!(out.contains("offset_increment=1g (line 4): ignored"), "{out}");
}

#[test]
fn io_size_is_what_a_write_job_writes() {
    let p = plan("[j]\nrw=randwrite\nsize=1g\nio_size=10g\n");
    let (_, _, _, stop, target) = measures(&p)[0];
    assert_eq!(stop.written, Some(Extent::Bytes(Bytes(10 << 30))));
    assert_eq!(target.span, Extent::Bytes(Bytes(1 << 30)));
    // fio runs a time-based job for its runtime, whatever loops and
    // io_size say (keep_running(), backend.c:1805).
    let out = import("[j]\nrw=randwrite\nio_size=10g\nloops=3\ntime_based\nruntime=5\n");
    for said in
        ["io_size=10g (line 3): ignored, as fio ignores it with time_based", "loops=3 (line 4): ignored"]
    {
        assert!(out.contains(said), "{said}:\n{out}");
    }
    assert!(out.contains("measure j qd 1 for 5s"), "{out}");
}

#[test]
fn data_options_set_the_data() {
    let p = plan("[j]\nrw=write\nbuffer_compress_percentage=50\ntime_based\nruntime=5\n");
    assert_eq!(
        measures(&p)[0].4.data,
        methodic_compiler::plan::DataPattern::Compressible(Percent::whole(50))
    );
    let p = plan("[j]\nrw=write\nzero_buffers\ntime_based\nruntime=5\n");
    assert_eq!(measures(&p)[0].4.data, methodic_compiler::plan::DataPattern::Zeros);
}

#[test]
fn kb_base_1000_reads_si_units() {
    let p = plan("[j]\nkb_base=1000\nrw=randread\nbs=4KiB\nsize=10g\ntime_based\nruntime=5\n");
    let (w, _, _, _, target) = measures(&p)[0];
    assert_eq!(w.blocks[0].size, Bytes(4096));
    assert_eq!(target.span, Extent::Bytes(Bytes(10_000_000_000)));
    assert_eq!(p.conventions.units, Units::Decimal);
}

#[test]
fn harmless_and_reporting_options_are_noted_not_refused() {
    let out = import(
        "[global]\ngroup_reporting\nrandrepeat=0\nnorandommap\nverify=0\nthread\n\
         [j]\nrw=randread\nwrite_iops_log=j\nlog_avg_msec=1000\niodepth_batch_submit=8\n\
         ioengine=io_uring\ndirect=1\ntime_based\nruntime=5\n",
    );
    for said in [
        "group_reporting (line 2)",
        "randrepeat=0 (line 3)",
        "norandommap (line 4)",
        "thread (line 6)",
        "write_iops_log=j (line 9)",
        "log_avg_msec=1000 (line 10)",
        "iodepth_batch_submit=8 (line 11)",
    ] {
        assert!(out.contains(said), "{said} is not noted:\n{out}");
    }
    assert!(!out.contains("verify"), "verify=0 is fio's default and needs no note:\n{out}");
    assert!(!out.contains("not yet touched"), "norandommap makes fio draw as methodic does:\n{out}");
    let i = fio_to_method("[g]\nrw=read\ngroup_reporting\ntime_based\nruntime=1\n", "f", "n").unwrap();
    assert_eq!(i.dropped, 1);
}

#[test]
fn ini_syntax_as_fio_reads_it() {
    let p = plan("# comment\n; another\n  [j]  \n  rw   =randread\n\tbs =8k\ntime_based\r\nruntime=5\r\n");
    let (w, ..) = measures(&p)[0];
    assert_eq!(w.blocks[0].size, Bytes(8192));
    let e = errors("rw=read\n[j]\nrw=read\ntime_based\nruntime=1\n[k\n");
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!((e[0].line, e[0].kind), (1, ImportErrorKind::Syntax));
    assert_eq!((e[1].line, e[1].kind), (6, ImportErrorKind::Syntax));
    let e = errors("[global]\nrw=read\n");
    assert_eq!(e[0].kind, ImportErrorKind::NoJobs);
}

fn has(errors: &[ImportError], line: usize, option: &str, words: &str) -> bool {
    errors
        .iter()
        .any(|e| e.line == line && e.option.as_deref() == Some(option) && e.to_string().contains(words))
}

#[test]
fn every_problem_is_named_with_its_line_and_option() {
    let e = errors(
        "[global]\nverify_backlog=64\ntime_based\nruntime=30sec\n\n[a]\nrw=randread\nbs=4KiB\niodepht=32\n\
         thinktime=10\nrate_ignore_thinktime=1\n\n[b]\nrw=randwrite\n",
    );
    let all = e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n");
    assert!(has(&e, 2, "verify_backlog=64", "among the writes"), "{all}");
    assert!(has(&e, 4, "runtime=30sec", "30 microseconds"), "{all}");
    assert!(has(&e, 8, "bs=4KiB", "4000 bytes"), "{all}");
    assert!(has(&e, 9, "iodepht=32", "unknown option `iodepht=32`: it is not an fio option"), "{all}");
    assert_eq!(e.iter().find(|e| e.line == 9).unwrap().hint.as_deref(), Some("did you mean `iodepth`?"));
    assert!(has(&e, 11, "rate_ignore_thinktime=1", "fio's rate makes up for the pauses"), "{all}");
    assert!(
        !e.iter().any(|e| e.kind == ImportErrorKind::Concurrent),
        "[b] runs together with [a], but [a] is refused: no group to check: {all}"
    );
    assert_eq!(e.iter().filter(|e| e.line == 2).count(), 1, "an inherited problem is told once: {all}");
    assert!(all.contains("(in job.fio:2, [global])"), "{all}");
    let lines: Vec<usize> = e.iter().map(|e| e.line).collect();
    assert!(lines.windows(2).all(|w| w[0] <= w[1]), "in line order: {lines:?}");
}

/// fio's trims alone import as a workload that only trims, random or
/// sequential, and export back to the same rw.
#[test]
fn trims_alone_import_as_a_workload_that_only_trims() {
    for (rw, random) in [("randtrim", Percent::HUNDRED), ("trim", Percent::ZERO)] {
        let p = plan(&format!("[t]\nrw={rw}\nbs=4k\nioengine=io_uring\niodepth=8\ntime_based\nruntime=10\n"));
        let (w, ..) = measures(&p)[0];
        assert_eq!((w.trim, w.read, w.random), (Percent::HUNDRED, Percent::ZERO, random), "{rw}");
        assert_eq!(w.write_share(), Percent::ZERO);
        assert!(plan_to_fio(&p, None).lines().any(|l| l == format!("rw={rw}")), "{rw} exports back");
    }
}

#[test]
fn values_fio_reads_otherwise_are_refused() {
    for (option, words) in [
        ("bs=1.5k", "as 1 byte:"),
        ("bs= 4k", "as 4 bytes"),
        ("bs=4kilo", "not a size unit"),
        ("percentage_random=50,20", "another for writes"),
        ("rw= randread", "does not know ` randread`"),
        ("rw=randread:8", "modifier"),
        ("rw=trimwrite", "trims each block and then writes it"),
        ("iodepth=1k", "1024"),
        ("rwmixread=70.5", "not a plain whole number"),
        ("runtime=5min", "5 microseconds"),
        ("ramp_time= 500ms", "500 seconds"),
        ("runtime=1500us", "whole number of milliseconds"),
        ("size=${SIZE}", "substitutes"),
        ("direct", "0 or 1"),
        ("size=150%", "between 0% and 100%"),
        ("offset=10%", "share of the target"),
        ("bssplit=4k/10:64k/50", "add up to 60%"),
        ("bssplit=4k/50:8k:16k:32k", "leaves 2%"),
        ("bssplit=4k/33.5:8k", "not a whole percentage"),
    ] {
        let text = format!("[j]\ntime_based\nruntime=10\nrw=randrw\n{option}\n");
        let text = if option.starts_with("rw") || option.starts_with("runtime") {
            format!(
                "[j]\ntime_based\n{}{option}\n",
                if option.starts_with("rw") { "runtime=10\n" } else { "" }
            )
        } else {
            text
        };
        let e = errors(&text);
        let line = text.lines().position(|l| l == option).unwrap() + 1;
        assert!(
            has(&e, line, option, words),
            "{option}: {}",
            e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
        );
    }
}

#[test]
fn refusals_that_depend_on_the_whole_job() {
    let cases = [
        ("[j]\nrw=randread\niodepth=32\ntime_based\nruntime=5\n", 3, "fio's default engine"),
        ("[j]\nrw=randread\nioengine=psync\niodepth=8\ntime_based\nruntime=5\n", 4, "caps iodepth=8 at 1"),
        ("[j]\nrw=randread\nioengine=libaio\niodepth=8\ntime_based\nruntime=5\n", 4, "only direct I/O"),
        ("[j]\nrw=read\nnumjobs=4\ntime_based\nruntime=5\n", 3, "own stripe"),
        ("[j]\nrw=randread\ntime_based\n", 3, "until fio is stopped"),
        ("[j]\nrw=randread\nbs=1000\ndirect=1\ntime_based\nruntime=5\n", 3, "512B sectors"),
        ("[j]\nrw=randread\nioengine=null\ntime_based\nruntime=5\n", 3, "another path"),
        ("[j]\nrw=randread\nfilename=/a:/b\ntime_based\nruntime=5\n", 3, "several files"),
        ("[j]\nrw=randread\nsize=50%\noffset=1g\ntime_based\nruntime=5\n", 4, "cannot be moved"),
        ("[j]\nrw=randread\ndirect=1\nbuffered=1\ntime_based\nruntime=5\n", 4, "contradict"),
        ("[j]\nrw=randrw\nrwmixread=70\nrwmixwrite=40\ntime_based\nruntime=5\n", 4, "add up to 100"),
        ("[j]\nrw=randread\nzonemode=zbd\ntime_based\nruntime=5\n", 3, "without zones"),
        ("[j]\nrw=randread\nrate_iops=1000\nrate_min=10m\ntime_based\nruntime=5\n", 4, "falls short"),
        ("[globalx]\nrw=read\n[j]\ntime_based\nruntime=5\n", 1, "[global] section"),
    ];
    for (text, line, words) in cases {
        let e = errors(text);
        let said = |e: &ImportError| format!("{e} {}", e.hint.as_deref().unwrap_or_default());
        assert!(
            e.iter().any(|e| e.line == line && said(e).contains(words)),
            "{text}: {}",
            e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
        );
    }
}

#[test]
fn duplicate_job_names_make_distinct_phases_and_workloads() {
    let p = plan("[global]\nstonewall\nrw=randread\ntime_based\nruntime=1\n[job]\n[job]\n[read]\n");
    let ids: Vec<_> =
        p.steps.iter().filter(|s| matches!(s.action, Action::Measure { .. })).map(|s| s.id.clone()).collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 3, "{ids:?}");
}

/// A plan's steps without ids and names: what each does.
fn what_runs(p: &Plan) -> Vec<String> {
    p.steps
        .iter()
        .map(|s| match &s.action {
            Action::Measure { workload: w, qd, ramp, stop, series, .. } => format!(
                "measure {:?} read {} random {} ({}) align {} offset {} {qd:?} ramp {ramp} {stop:?} series \
                 {series} {:?}",
                w.blocks, w.read, w.random, w.access, w.align, w.offset, s.target
            ),
            other => other.kind().to_string(),
        })
        .collect()
}

/// An imported job exported with `methodic export fio` imports to the
/// same steps: rw, rwmixread, percentage_random, random_distribution, bs,
/// bssplit, ba, iodepth, numjobs, size, offset, runtime, ramp_time,
/// direct, data, and io_size for a write job that stops by size, survive
/// the trip.
#[test]
fn an_imported_then_exported_job_round_trips_its_options() {
    let jobs = [
        RANDREAD.to_string(),
        "[global]\nioengine=io_uring\ndirect=1\ntime_based\nruntime=2m\nramp_time=10s\n\
         [oltp]\nrw=randrw\nrwmixread=70\nbssplit=4k/10:64k/50:8k/40\nnumjobs=4\niodepth=8\n\
         size=16g\noffset=1g\n"
            .to_string(),
        "[mostly-random]\nrw=randrw\nrwmixwrite=35\npercentage_random=80\nbs=8k\nba=4k\n\
         ioengine=io_uring\niodepth=4\ndirect=1\ntime_based\nruntime=30\n"
            .to_string(),
        "[cached-read]\nrw=read\nbs=1m\nsize=50%\ntime_based\nruntime=20\n".to_string(),
        "[global]\nrw=randrw\npercentage_random=80\ntime_based\nruntime=10\n\
         [zipf]\nrandom_distribution=zipf:1.2\n[pareto]\nstonewall\nrandom_distribution=pareto:0.9\n\
         [normal]\nstonewall\nrandom_distribution=normal:2.5:0.25\n\
         [zoned]\nstonewall\nrandom_distribution=zoned:50/5:30/15:20/80\n\
         [zoned-rest]\nstonewall\nrandom_distribution=zoned:60/10:40/20\n"
            .to_string(),
        "[fill]\nrw=write\nbs=128k\nioengine=libaio\niodepth=32\ndirect=1\nsize=4g\nloops=2\n".to_string(),
        "[compressible]\nrw=randwrite\nbuffer_compress_percentage=50\nioengine=io_uring\niodepth=16\n\
         direct=1\ntime_based\nruntime=1m\n\n[zeros]\nstonewall\nrw=write\nzero_buffers\nbs=64k\n\
         time_based\nruntime=500ms\n"
            .to_string(),
    ];
    for job in &jobs {
        let first = plan(job);
        let exported = plan_to_fio(&first, None);
        let second = match fio_to_method(&exported, "exported.fio", "job") {
            Ok(i) => {
                methodic_compiler::compile(&i.text, &methodic_compiler::Options::default()).unwrap().plan
            }
            Err(e) => panic!(
                "{job}\nexported as\n{exported}\ndoes not import: {}",
                e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
            ),
        };
        assert_eq!(what_runs(&second), what_runs(&first), "{job}\nexported as\n{exported}");
    }
}

// ------------------------------------------------------- jobs at once, rates

/// The jobs of the together steps of a plan, step by step.
fn together(p: &Plan) -> Vec<(&Vec<Job>, Duration, &MeasureStop)> {
    p.steps
        .iter()
        .filter_map(|s| match &s.action {
            Action::Together { jobs, ramp, stop, .. } => Some((jobs, *ramp, stop)),
            _ => None,
        })
        .collect()
}

/// Every error of `text`, each with its hint, one a line.
fn said(text: &str) -> String {
    errors(text)
        .iter()
        .map(|e| format!("{e} (hint: {})", e.hint.as_deref().unwrap_or("")))
        .collect::<Vec<_>>()
        .join("\n")
}

const MIXED_LOAD: &str = "\
[global]
ioengine=io_uring
direct=1
time_based
runtime=60
ramp_time=5
filename=/dev/nvme0n1

[prep]
rw=randwrite
bs=4k
iodepth=32

[reads]
stonewall
rw=randread
bs=4k
iodepth=16
rate_iops=20000
rate_process=poisson

[writes]
rw=write
bs=128k
iodepth=8
numjobs=2
size=50%
offset_increment=50%
rate=100m
";

#[test]
fn jobs_fio_starts_together_are_one_together_step() {
    let p = plan(MIXED_LOAD);
    // [prep] alone, then [reads] and [writes] at once.
    assert_eq!(measures(&p).len(), 1);
    let t = together(&p);
    assert_eq!(t.len(), 1);
    let (jobs, ramp, stop) = t[0];
    assert_eq!(
        (ramp, stop.time, stop.written),
        (Duration::from_secs(5), Some(Duration::from_secs(60)), None)
    );
    let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["reads", "writes"]);
    let (r, w) = (&jobs[0], &jobs[1]);
    assert_eq!(
        (r.workload.read, r.workload.random, r.workload.blocks[0].size),
        (Percent::HUNDRED, Percent::HUNDRED, Bytes(4096))
    );
    assert_eq!((r.qd.total, r.qd.per_worker, r.workers), (16, 16, 1));
    assert_eq!(r.rate, Some(Rate { amount: RateAmount::Iops(20_000), arrivals: Arrivals::Poisson }));
    assert_eq!(
        (w.workload.read, w.workload.random, w.workload.blocks[0].size),
        (Percent::ZERO, Percent::ZERO, Bytes(128 << 10))
    );
    // numjobs=2 x iodepth=8: two workers of eight, each clone capped at
    // 100MiB/s by fio.
    assert_eq!((w.qd.total, w.qd.per_worker, w.workers), (16, 8, 2));
    assert_eq!(
        w.rate,
        Some(Rate { amount: RateAmount::Bandwidth(Bytes(200 << 20)), arrivals: Arrivals::Uniform })
    );
    assert_eq!((r.device, w.device), (0, 0), "one file, one device");
    let step = p.steps.iter().find(|s| matches!(s.action, Action::Together { .. })).unwrap();
    let target = step.target.unwrap();
    assert_eq!((target.io, target.span), (IoMode::Direct, Extent::Percent(Percent::HUNDRED)));
    let phases: Vec<_> = p.steps.iter().map(|s| s.phase.clone().unwrap()).collect();
    assert_eq!(phases, ["prep", "reads + writes"]);
    let out = import(MIXED_LOAD);
    assert!(
        out.contains("# Jobs that fio starts together (no stonewall between them) are one phase"),
        "{out}"
    );
    assert!(!out.contains("Devices:"), "one file: no devices listed:\n{out}");
}

#[test]
fn a_together_import_reads_as_expected() {
    let out = import(
        "[global]\nioengine=libaio\ndirect=1\ntime_based\nruntime=2m\n\n[oltp]\nrw=randrw\nrwmixread=70\n\
         iodepth=16\nrate_iops=7000,3000\n\n[log]\nrw=write\nbs=64k\nfilename=/dev/nvme1n1\n",
    );
    let expected = format!(
        r#"# Imported from job.fio by methodic {} (`methodic import fio`).
# fio starts the jobs together (no stonewall between them): they are one phase with a together step,
# a job each.
# Devices: fio runs the jobs on 2 files, each a device here (`device N` is the Nth --target), in the
# order the job file first names them:
# - device 1: the jobs without filename ([oltp]); fio makes each a file of its own in the directory
#   it runs in (oltp.0.0)
# - device 2: /dev/nvme1n1 ([log])
# Run: `methodic run FILE.method --target PATH1 --target /dev/nvme1n1`
# From [global]:
# - ioengine=libaio (line 2): not carried over: methodic does its own I/O (io_uring, or psync where
#   io_uring is unavailable)
# Random offsets: fio (without norandommap) sends each random I/O of [oltp] to a block not yet
# touched in this pass; methodic draws offsets independently, so some blocks are hit twice and
# others not at all.
methodology "job" version "1.0"
describe "imported from the fio job file job.fio: 2 jobs"

conventions {{
  units binary
  queue_depth per_worker
  value step_average
}}

# fio's iodepth is per job: here the queue depth is per worker, and numjobs
# is the number of workers.
workload oltp {{ random; block 4KiB; read 70% }}
workload log {{ sequential; block 64KiB; read 0% }}

phase "oltp + log" {{
  # fio job [oltp], line 7: direct=1 time_based runtime=2m rw=randrw rwmixread=70 iodepth=16
  #   rate_iops=7000,3000
  # fio job [log], line 13: direct=1 time_based runtime=2m rw=write bs=64k
  # - filename=/dev/nvme1n1 (line 16): device 2: give it as `--target` number 2 when the methodology
  #   runs
  target {{ span 100%; workers 1; io direct; data random }}
  together for 2min {{
    job oltp oltp qd 16 workers 1 rate 10000 iops device 1
    job log log qd 1 workers 1 device 2
  }}
}}
"#,
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(out, expected);
}

#[test]
fn files_are_devices_in_the_order_the_job_file_names_them() {
    // [solo] on the second file, alone: a together step of one job, as a
    // measurement runs on the first device.
    let p = plan(
        "[global]\nrw=randread\nioengine=io_uring\ndirect=1\niodepth=4\ntime_based\nruntime=10\n\
         filename=/dev/a\n[r1]\n[r2]\nfilename=/dev/b\n[solo]\nstonewall\nfilename=/dev/b\n[last]\nstonewall\n",
    );
    let t = together(&p);
    let devices: Vec<Vec<(String, u32)>> =
        t.iter().map(|(jobs, ..)| jobs.iter().map(|j| (j.name.clone(), j.device)).collect()).collect();
    assert_eq!(devices, [vec![("r1".into(), 0), ("r2".into(), 1)], vec![("solo".into(), 1)]]);
    assert_eq!(measures(&p).len(), 1, "[last] runs on the first file: a measurement");
    let out = import(
        "[global]\nrw=randread\nioengine=io_uring\ndirect=1\niodepth=4\ntime_based\nruntime=10\n\
         filename=/dev/a\n[r1]\n[r2]\nfilename=/dev/b\n",
    );
    assert!(out.contains("# - device 1: /dev/a ([r1])\n# - device 2: /dev/b ([r2])\n"), "{out}");
    assert!(out.contains("# Run: `methodic run FILE.method --target /dev/a --target /dev/b`"), "{out}");
    // Jobs without filename share a target; fio gives each its own file.
    let out = import("[global]\nrw=randread\ntime_based\nruntime=10\nsize=1g\n[a]\n[b]\n");
    assert!(
        out.contains("fio makes each of [a], [b] a file of its own, named after the job (a.0.0, b.0.0)"),
        "{out}"
    );
    assert!(!out.contains("device"), "{out}");
}

#[test]
fn rates_are_each_clones_times_numjobs_over_the_mix_fio_caps() {
    let rate = |options: &str| -> Option<Rate> {
        let p = plan(&format!("[j]\ntime_based\nruntime=10\n{options}\n"));
        match &p.steps.last().unwrap().action {
            Action::Measure { rate, .. } => *rate,
            other => panic!("{}", other.kind()),
        }
    };
    let iops = |n, arrivals| Some(Rate { amount: RateAmount::Iops(n), arrivals });
    let bw = |b, arrivals| Some(Rate { amount: RateAmount::Bandwidth(Bytes(b)), arrivals });
    use Arrivals::{Poisson, Uniform};
    assert_eq!(rate("rw=randread\nrate_iops=5000"), iops(5000, Uniform));
    assert_eq!(rate("rw=randread\nrate_iops=5000\nrate_process=linear"), iops(5000, Uniform));
    assert_eq!(rate("rw=randread\nrate_iops=5000\nrate_process=poisson"), iops(5000, Poisson));
    assert_eq!(rate("rw=randread\nrate_iops=500\nnumjobs=4"), iops(2000, Uniform), "each clone's cap");
    assert_eq!(rate("rw=randwrite\nrate=2m"), bw(2 << 20, Uniform));
    assert_eq!(rate("rw=randwrite\nrate=2m\nkb_base=1000"), bw(2_000_000, Uniform));
    // A job that only reads: the read cap counts.
    assert_eq!(rate("rw=randread\nrate_iops=500,100"), iops(500, Uniform));
    assert_eq!(rate("rw=randread\nrate_iops=,100"), None, "reads uncapped");
    assert_eq!(rate("rw=randwrite\nrate_iops=,100"), iops(100, Uniform));
    assert_eq!(rate("rw=randread\nrate_iops=0"), None);
    // A job that mixes: the caps in the job's mix, their sum.
    assert_eq!(rate("rw=randrw\nrwmixread=70\nrate_iops=700,300"), iops(1000, Uniform));
    assert_eq!(rate("rw=randrw\nrate_iops=500"), iops(1000, Uniform), "50/50: 500 reads and 500 writes");
    assert_eq!(rate("rw=randrw\nrwmixread=70\nrate=7m,3m\nnumjobs=2"), bw(20 << 20, Uniform));
    // rate wins over rate_iops, as in fio.
    assert_eq!(rate("rw=randread\nrate=1m\nrate_iops=10"), bw(1 << 20, Uniform));
    let out =
        import("[j]\nrw=randread\nrate=1m\nrate_iops=10\nrate_process=poisson\ntime_based\nruntime=1\n");
    assert!(out.contains("rate_iops=10 (line 4): ignored where rate is given too"), "{out}");
    assert!(out.contains("measure j qd 1 rate 1MiB/s poisson for 1s"), "{out}");
    let out = import("[j]\nrw=randread\nrate_iops=5,7\ntime_based\nruntime=1\n");
    assert!(out.contains("rate_iops=5,7 (line 3): the write cap is ignored"), "{out}");
    let out = import("[global]\nrate_process=poisson\n[j]\nrw=randread\ntime_based\nruntime=1\n");
    assert!(out.contains("rate_process=poisson (line 2): ignored: the job has no rate"), "{out}");
    // A write job that ends by size keeps its rate.
    let p = plan("[fill]\nrw=write\nsize=1g\nrate=50m\n");
    let last = &p.steps.last().unwrap().action;
    assert!(matches!(last, Action::Measure { rate: Some(_), stop, .. } if stop.written.is_some()));
}

#[test]
fn rates_fio_means_otherwise_are_refused_as_users_read_them() {
    let job = |options: &str| format!("[j]\ntime_based\nruntime=10\n{options}\n");
    for (options, option, words) in [
        (
            "rw=randrw\nrwmixread=70\nrate_iops=1000",
            "rate_iops=1000",
            "cannot translate `rate_iops=1000`: fio caps each direction on its own: rate_iops=1000 caps reads \
             and writes alike, each at 1000 I/Os a second for each clone, a 50% read mix where the job asks for \
             70% reads; methodic starts I/Os at one rate and keeps the read share (in job.fio:6, [j]) (hint: cap \
             both in the job's mix: rate_iops=700,300 is 1000 I/Os a second in all for each clone, 70% of them \
             reads)",
        ),
        (
            "rw=randrw\nrwmixread=70\nrate_iops=600,400",
            "rate_iops=600,400",
            "caps reads at 600 I/Os and writes at 400 I/Os",
        ),
        ("rw=randrw\nrate=1m,", "rate=1m,", "fio caps only the job's reads (1MiB a second for each clone)"),
        ("rw=randrw\nrate_iops=,100", "rate_iops=,100", "caps only the job's writes"),
        (
            "rw=randrw\nrate=1m,\nrate_iops=,256",
            "rate_iops=,256",
            "methodic's rate is I/Os or bytes a second",
        ),
        ("rw=randread\nrate_iops=1k", "rate_iops=1k", "not a plain whole number"),
        ("rw=randread\nrate=1.5m", "rate=1.5m", "as 1 byte"),
        ("rw=randread\nrate=1m,1m,1m,1m", "rate=1m,1m,1m,1m", "at most three values"),
        (
            "rw=randread\nrate_iops=10\nrate_process=exp",
            "rate_process=exp",
            "fio does not know rate_process=exp",
        ),
        ("rw=randread\nrate_iops=10\nrate_min=5m", "rate_min=5m", "falls short of a minimum"),
        ("rw=randread\nrate_iops=10\nratemin=5m", "ratemin=5m", "falls short of a minimum"),
        ("rw=randread\nrate_iops=10\nrate_iops_min=5", "rate_iops_min=5", "falls short of a minimum"),
        ("rw=randread\nrate_iops=10\nrate_cycle=500", "rate_cycle=500", "no period to judge it over"),
        (
            "rw=randread\nrate_iops=10\nthinktime=100\nrate_ignore_thinktime=1",
            "rate_ignore_thinktime=1",
            "methodic's I/Os that fall due during a pause start when it ends, as fio's default does (in \
             job.fio:7, [j]) (hint: remove it (or write rate_ignore_thinktime=0)",
        ),
        ("rw=randread\nrate_foo=1", "rate_foo=1", "this rate option has no equivalent"),
        (
            "rw=randread\nlatency_target=2ms\nlatency_window=5s",
            "latency_target=2ms",
            "methodic's percentiles stop below p100 (in job.fio:5, [j]) (hint: give latency_percentile below 100",
        ),
        ("rw=randread\nmax_latency=10ms", "max_latency=10ms", "does not end a job on a slow I/O"),
    ] {
        let text = job(options);
        let line = text.lines().position(|l| l == option).unwrap() + 1;
        let all = said(&text);
        assert!(
            errors(&text).iter().any(|e| e.line == line
                && e.option.as_deref() == Some(option)
                && format!("{e} (hint: {})", e.hint.as_deref().unwrap_or("")).contains(words)),
            "{option}: {all}"
        );
    }
    // fio's defaults are fine.
    let p = plan(&job(
        "rw=randread\nrate_cycle=1000\nlatency_percentile=100\nlatency_run=0\nmax_latency=0\nrate_min=0",
    ));
    assert_eq!(measures(&p).len(), 1);
}

#[test]
fn groups_that_cannot_be_one_together_step_are_refused_naming_both_jobs() {
    let group = |a: &str, b: &str| {
        format!(
            "[global]\nrw=randread\nioengine=io_uring\ndirect=1\ntime_based\nruntime=60\n[a]\n{a}\n[b]\n{b}\n"
        )
    };
    for (text, line, words) in [
        (
            group("", "runtime=30"),
            10,
            "jobs run at the same time `runtime=30`: fio starts [b] together with [a] (line 7), but [a] runs for \
             1min (runtime=60) and [b] for 30s (runtime=30): a together step runs its jobs for one time (in \
             job.fio:10, [b]) (hint: give the jobs fio starts together one runtime (in [global], say), or add \
             stonewall to [b] to run it after [a])",
        ),
        (group("ramp_time=5", ""), 8, "but [a] ramps up for 5s (ramp_time=5) and [b] for 0s (fio's default)"),
        (
            group("", "rw=write\nsize=1g\ntime_based=0"),
            9,
            "[b] ends once it has written its size (it has no time_based)",
        ),
        (
            group("", "size=1g"),
            10,
            "but [a] works over 100% of the target (fio's default) and [b] over 1GiB (size=1g)",
        ),
        (group("", "direct=0"), 10, "but [a] does direct I/O (direct=1) and [b] buffered I/O (direct=0)"),
        (
            group("direct=0", "direct=0\ninvalidate=0"),
            11,
            "but [a] drops (fio's default) the file's cached pages when it starts and [b] keeps (invalidate=0) them",
        ),
        (
            group("rw=randwrite\nzero_buffers", "rw=write"),
            9,
            "but [a] writes zeros (zero_buffers) and [b] random data (fio's default)",
        ),
        (
            "[global]\nrw=write\ntime_based\nruntime=5\nfilename=/dev/a\n[a]\n[b]\nfilename=/dev/b\n\
             [c]\nstonewall\ntime_based=0\nsize=1g\nfilename=/dev/b\n"
                .to_string(),
            9,
            "fio runs [c] on /dev/b, device 2 here, not on the first file the job file names",
        ),
    ] {
        let all = said(&text);
        assert!(
            errors(&text).iter().any(|e| e.line == line
                && e.kind == ImportErrorKind::Concurrent
                && format!("{e} (hint: {})", e.hint.as_deref().unwrap_or("")).contains(words)),
            "{text}\n{all}"
        );
    }
    // A job that reads and ends by size is refused as on its own.
    let e = said(&group("", "time_based=0"));
    assert!(e.contains("add time_based"), "{e}");
}

/// What runs, without names: each step's I/O (a together step's jobs
/// with their workers, rates and devices), times and target.
fn io_of(p: &Plan) -> Vec<String> {
    p.steps
        .iter()
        .map(|s| match &s.action {
            Action::Together { jobs, ramp, stop, series } => {
                let jobs: Vec<String> = jobs
                    .iter()
                    .map(|j| {
                        format!(
                            "{:?} {:?} workers {} rate {:?} device {}",
                            j.workload.io(),
                            j.qd,
                            j.workers,
                            j.rate,
                            j.device
                        )
                    })
                    .collect();
                format!(
                    "together {jobs:?} ramp {ramp} {stop:?} series {series} {:?}",
                    s.target.map(|t| (t.span, t.io, t.data))
                )
            }
            Action::Measure { rate, .. } => {
                format!("{} rate {rate:?}", what_runs(&Plan { steps: vec![s.clone()], ..p.clone() })[0])
            }
            other => other.kind().to_string(),
        })
        .collect()
}

/// A methodology with jobs at once and rates, exported to fio and imported
/// again: the same I/O, step by step; and the job file imported, exported
/// and imported again gives the same steps.
#[test]
fn together_steps_and_rates_round_trip_through_fio() {
    let method = "methodology \"load\" version \"1\"\n\
        conventions { queue_depth per_worker }\n\
        target { span 100%; workers 1; io direct }\n\
        workload rnd4k_read { random; block 4KiB; read 100% }\n\
        workload oltp { random; blocks { 4KiB: 50%, 16KiB: 50% }; read 70% }\n\
        workload seq128k_write { sequential; block 128KiB; read 0% }\n\
        measure rnd4k_read qd 32 rate 50000 iops poisson for 1min\n\
        measure oltp qd 8 rate 10000 iops for 30s ramp 5s\n\
        together for 5min ramp 30s {\n\
          job reads rnd4k_read qd 4 workers 2 rate 20000 iops\n\
          job mix oltp qd 8 workers 2 rate 200MiB/s poisson\n\
          job writes seq128k_write qd 8 rate 100MiB/s device 2\n\
        }\n";
    let first = methodic_compiler::compile(method, &methodic_compiler::Options::default()).unwrap().plan;
    let exported = plan_to_fio(&first, None);
    let imported = match fio_to_method(&exported, "exported.fio", "load") {
        Ok(i) => i.text,
        Err(e) => panic!(
            "{exported}\ndoes not import: {}",
            e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
        ),
    };
    let second = methodic_compiler::compile(&imported, &methodic_compiler::Options::default()).unwrap().plan;
    assert_eq!(io_of(&second), io_of(&first), "{exported}\nimported as\n{imported}");
    // The job names survive: the exported sections end in them.
    let names: Vec<&str> = together(&second)[0].0.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["reads", "mix", "writes"], "{imported}");
    // And from the job file's side.
    for job in
        [MIXED_LOAD, "[r]\nrw=randrw\nrwmixread=70\nrate_iops=700,300\nnumjobs=2\ntime_based\nruntime=10\n"]
    {
        let a = plan(job);
        let exported = plan_to_fio(&a, None);
        let b = match fio_to_method(&exported, "exported.fio", "job") {
            Ok(i) => {
                methodic_compiler::compile(&i.text, &methodic_compiler::Options::default()).unwrap().plan
            }
            Err(e) => panic!(
                "{exported}\ndoes not import: {}",
                e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
            ),
        };
        assert_eq!(io_of(&b), io_of(&a), "{job}\nexported as\n{exported}");
    }
}

// ------------------------------------------------------- access distributions

/// The access distribution of each measurement.
fn accesses(p: &Plan) -> Vec<(Percent, Access)> {
    measures(p).iter().map(|(w, ..)| (w.random, w.access.clone())).collect()
}

fn band(io: u32, span: u32) -> Band {
    Band { io: Percent::whole(io), span: Percent::whole(span) }
}

#[test]
fn random_distributions_are_access_distributions_with_what_fio_draws_otherwise() {
    let text = "[global]\nrw=randread\ntime_based\nruntime=10\n\
        [zipf]\nrandom_distribution=zipf:1.2\n\
        [zipf-default]\nstonewall\nrandom_distribution=zipf\n\
        [zipf-centre]\nstonewall\nrandom_distribution=zipf:0.8:0.25\n\
        [pareto]\nstonewall\nrandom_distribution=pareto:0.9\n\
        [normal]\nstonewall\nrandom_distribution=normal:5\n\
        [normal-centre]\nstonewall\nrandom_distribution=normal:2.5:0.1\n\
        [zoned]\nstonewall\nrandom_distribution=zoned:50/5:30/15:20/80\n\
        [zoned-rest]\nstonewall\nrandom_distribution=zoned:60/10:30/20:10\n\
        [zoned-part]\nstonewall\nrandom_distribution=zoned:60/10:40/20\n\
        [mostly]\nstonewall\nrw=randrw\npercentage_random=80\nrandom_distribution=pareto:0.2\n\
        [uniform]\nstonewall\nrandom_distribution=random\n";
    let p = plan(text);
    let all = Percent::HUNDRED;
    assert_eq!(
        accesses(&p),
        [
            (all, Access::Zipf { theta: Milli(1200) }),
            (all, Access::Zipf { theta: Milli(1100) }),
            (all, Access::Zipf { theta: Milli(800) }),
            (all, Access::Pareto { h: Milli(900) }),
            (all, Access::Normal { sigma: Percent::whole(5), centre: Percent::whole(50) }),
            (all, Access::Normal { sigma: Percent::from_hundredths(250), centre: Percent::whole(10) }),
            (all, Access::Bands(vec![band(50, 5), band(30, 15), band(20, 80)])),
            (all, Access::Bands(vec![band(60, 10), band(30, 20), band(10, 70)])),
            (all, Access::Bands(vec![band(60, 10), band(40, 20), band(0, 70)])),
            (Percent::whole(80), Access::Pareto { h: Milli(200) }),
            (all, Access::Uniform),
        ]
    );
    let out = import(text);
    // The comments as one text, without their wrapping.
    let words = out
        .lines()
        .map(|l| l.trim_start().trim_start_matches('#').trim_start_matches(" -").trim())
        .collect::<Vec<_>>()
        .join(" ");
    for said in [
        "workload zipf { random zipf 1.2; block 4KiB; read 100% }",
        "workload mostly { random 80% pareto 0.2; block 4KiB; read 50% }",
        "random_distribution=zipf (line 9): fio's default exponent, 1.1",
        "random_distribution=zipf:0.8:0.25 (line 12): the centre 25% is left out",
        "as `random zipf 1.2`: methodic draws zipf exactly",
        "as `random pareto 0.9`: the same formula as fio's",
        "as `random normal 5% around 50%`: methodic's normal has a standard deviation of 5% of the span",
        "(a standard deviation of 8.5% of the range)",
        "fio leaves the last 70% of the span untouched: a band of 0% of the I/O there",
    ] {
        assert!(words.contains(said), "{said}:\n{out}");
    }
    assert!(
        words.contains("sends each random I/O of [uniform] to a block not yet touched"),
        "fio keeps a random map for uniform offsets only: {out}"
    );
}

#[test]
fn random_distributions_fio_refuses_or_methodic_cannot_draw_are_refused() {
    for (value, words) in [
        ("zipf:1", "fio refuses zipf:1"),
        ("zipf:1.0", "fio refuses zipf:1"),
        ("zipf:0", "draws every block alike"),
        ("zipf:11", "up to 10"),
        ("zipf:1.2345", "more than 3 decimals"),
        ("zipf:", "not a plain decimal"),
        ("zipf:-1", "not a plain decimal"),
        ("zipf:1.2:1.5", "a centre from 0 to 1"),
        ("zipf:1.2,zipf:1.1", "one"),
        ("pareto:1", "above 0 and below 1"),
        ("pareto:0", "above 0 and below 1"),
        ("normal", "needs its standard deviation"),
        ("normal:0", "needs its standard deviation"),
        ("normal:100", "below 100"),
        ("zoned_abs:60/20g:40/100g", "in bytes"),
        ("zoned:60/10:30/20", "add up to 90%"),
        ("zoned:50/60:50/60", "over 100%"),
        ("zoned:50/10:50/90,60/10:40/90", "one set of bands"),
        ("zoned:50/10::50/90", "`::`"),
        ("zoned:50/10.5:50", "not a whole percentage"),
        ("gauss:5", "does not know random_distribution=gauss"),
    ] {
        let text = format!("[j]\nrw=randread\ntime_based\nruntime=10\nrandom_distribution={value}\n");
        let e = errors(&text);
        let said =
            e.iter().map(|e| format!("{e} {}", e.hint.as_deref().unwrap_or_default())).collect::<Vec<_>>();
        assert!(
            e.iter()
                .any(|e| e.line == 5 && e.option.as_deref() == Some(&*format!("random_distribution={value}")))
                && said.iter().any(|s| s.contains(words)),
            "{value}: {said:?}"
        );
    }
    // A distribution has nothing to shape on a job without random I/O.
    for job in ["rw=read", "rw=randread\npercentage_random=0"] {
        let e = errors(&format!("[j]\n{job}\ntime_based\nruntime=10\nrandom_distribution=zipf:1.2\n"));
        assert!(e.iter().any(|e| e.to_string().contains("has no random I/O")), "{job}: {e:?}");
    }
    // fio's default is fine anywhere.
    plan("[j]\nrw=read\ntime_based\nruntime=10\nrandom_distribution=random\n");
}

/// A methodology's distributions exported to fio and imported again: the
/// same, but for zipf 1, which fio refuses (1.001 instead).
#[test]
fn access_distributions_round_trip_through_fio() {
    let method = "methodology \"d\" version \"1\"\n\
        workload z { random zipf 1.2; block 4KiB; read 100% }\n\
        workload one { random 80% zipf 1; block 4KiB; read 100% }\n\
        workload p { random pareto 0.9; block 4KiB; read 0% }\n\
        workload n { random normal 2.5% around 25%; block 4KiB; read 100% }\n\
        workload b { random bands 50% in 5%, 30% in 15%, 20% in 80%; block 4KiB; read 0% }\n\
        for w in [z, one, p, n, b] { measure w qd 1 for 1s }\n";
    let first = methodic_compiler::compile(method, &methodic_compiler::Options::default()).unwrap().plan;
    let exported = plan_to_fio(&first, None);
    let imported = match fio_to_method(&exported, "exported.fio", "d") {
        Ok(i) => i.text,
        Err(e) => panic!(
            "{exported}\ndoes not import: {}",
            e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
        ),
    };
    let second = methodic_compiler::compile(&imported, &methodic_compiler::Options::default()).unwrap().plan;
    let mut expected = accesses(&first);
    expected[1].1 = Access::Zipf { theta: Milli(1001) };
    assert_eq!(accesses(&second), expected, "{exported}\nimported as\n{imported}");
}

/// fio's zipf and pareto clones each start their hash at a random place
/// unless a centre is given: each clone then has hot blocks of its own,
/// where methodic's workers share one set. The import says so; the
/// export gives the centre 0, so that fio's clones share one set too.
#[test]
fn clones_without_a_centre_have_hot_blocks_of_their_own_and_the_import_says_so() {
    let job = |value: &str| {
        format!("[j]\nrw=randread\nnumjobs=4\ntime_based\nruntime=10\nrandom_distribution={value}\n")
    };
    let words = |text: &str| {
        import(text).lines().map(|l| l.trim_start_matches([' ', '#'])).collect::<Vec<_>>().join(" ")
    };
    let own = words(&job("zipf:1.2"));
    assert!(own.contains("each of fio's 4 clones starts its hash at a random place"), "{own}");
    assert!(own.contains("as fio's clones do with a centre, `zipf:1.2:0`"), "{own}");
    let shared = words(&job("pareto:0.9:0"));
    assert!(
        !shared.contains("clones starts its hash") && shared.contains("the centre 0% is left out"),
        "{shared}"
    );
    let one = words(&job("zipf:1.2").replace("numjobs=4", "numjobs=1"));
    assert!(!one.contains("clones starts its hash"), "{one}");
}

// ------------------------------------------------- job files as people write them

/// The text of every problem with its hint, for a test's message.
fn all(e: &[ImportError]) -> String {
    e.iter()
        .map(|e| format!("{e} (hint: {})", e.hint.as_deref().unwrap_or("")))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn comments_after_values_are_cut_as_fio_cuts_them() {
    let p = plan(
        "[randread] ; 4k reads\nrw=randread   # random\nbs=4k;block\nruntime=10s # ten seconds\ntime_based\n\
         size=100m ; 100MiB\n",
    );
    let (w, _, _, stop, target) = measures(&p)[0];
    assert_eq!((w.blocks[0].size, w.random), (Bytes(4096), Percent::HUNDRED));
    assert_eq!(stop.time, Some(Duration::from_secs(10)));
    assert_eq!(target.span, Extent::Bytes(Bytes(100 << 20)));
}

#[test]
fn options_that_change_nothing_reported_are_comments() {
    let options = "gtod_reduce=1\nrandom_generator=tausworthe64\ngroup_reporting\nstats=1\ndisable_bw=1\n\
                   unified_rw_reporting=both\nclocksource=clock_gettime\nclat_percentiles=1\n\
                   percentile_list=99:99.9:99.99\nlat_percentiles=1\nwrite_bw_log=bw\nwrite_lat_log=lat\n\
                   log_avg_msec=1000\nper_job_logs=0\ndirectory=/mnt/test\n";
    let text = format!("[global]\n{options}[j]\nrw=randread\ntime_based\nruntime=10\n");
    let i = fio_to_method(&text, "job.fio", "job").unwrap_or_else(|e| panic!("{}", all(&e)));
    assert_eq!(i.dropped, options.lines().count(), "{}", i.text);
    for (n, line) in options.lines().enumerate() {
        assert!(
            i.text.contains(&format!("{line} (line {}): not carried over", n + 2)),
            "{line}:\n{}",
            i.text
        );
    }
}

#[test]
fn verify_is_methodics_verify_where_fio_checks_the_same() {
    let text = "[global]\nioengine=io_uring\ndirect=1\nverify=crc32c\n\
                [seqfill]\nrw=write\nbs=128k\niodepth=8\nsize=1g\n\
                [readback]\nstonewall\nrw=randread\niodepth=16\ntime_based\nruntime=10\n";
    let out = import(text);
    assert!(out.contains("measure seqfill qd 8 until written 1GiB verify"), "{out}");
    assert!(out.contains("measure readback qd 16 for 10s verify"), "{out}");
    assert!(out.contains("counts those reads in the job's read numbers"), "{out}");
    assert!(out.contains("written by a methodic step with `verify`"), "{out}");
    let p = plan(text);
    assert_eq!(p.steps.iter().map(|s| s.verify).collect::<Vec<_>>(), [true, true]);
    // verify=0 and verify=null check nothing.
    for off in ["verify=0", "verify=null"] {
        let p = plan(&format!("[j]\nrw=write\nsize=1g\n{off}\n"));
        assert!(!p.steps[0].verify, "{off}");
    }
}

#[test]
fn verify_is_refused_where_fio_checks_otherwise() {
    for (options, option, words) in [
        (
            "rw=randwrite\ntime_based\nruntime=10\nverify=md5",
            "verify=md5",
            "with time_based, fio stops writing",
        ),
        ("rw=write\nsize=1g\nloops=2\nverify=md5", "verify=md5", "after each of its 2 passes"),
        ("rw=write\nsize=1g\nio_size=4g\nverify=md5", "verify=md5", "writes blocks more than once"),
        ("rw=write\nsize=1g\nverify=md5\ndo_verify=0", "do_verify=0", "without reading them back"),
        ("rw=write\nsize=1g\nverify=pattern", "verify=pattern", "the bytes of verify_pattern"),
        ("rw=randtrim\ntime_based\nruntime=10\nverify=md5", "verify=md5", "leaves trimmed blocks out"),
        ("rw=write\nsize=1g\nverify=crc33", "verify=crc33", "fio does not know verify=crc33"),
        ("rw=write\nsize=1g\nverify=md5\nverify_backlog=16", "verify_backlog=16", "among the writes"),
        ("rw=write\nsize=1g\nverify=md5\nverify_pattern=0xff", "verify_pattern=0xff", "a pattern of its own"),
    ] {
        let text = format!("[j]\n{options}\n");
        let e = errors(&text);
        let line = text.lines().position(|l| l == option).unwrap() + 1;
        assert!(has(&e, line, option, words), "{option}: {}", all(&e));
    }
    // A together step's jobs have no verify.
    let e = errors("[global]\ntime_based\nruntime=10\nrw=randread\n[a]\nverify=md5\n[b]\nrw=randread\n");
    assert!(all(&e).contains("[a] checks its data (verify)"), "{}", all(&e));
    assert!(
        !all(&e).contains("together with [a] (line"),
        "the first job is told against the next: {}",
        all(&e)
    );
}

#[test]
fn pauses_and_latency_targets_fio_defaults_are_refused_saying_what_methodic_has_instead() {
    let e = errors(
        "[j]\nrw=randread\niodepth=4\nioengine=io_uring\ntime_based\nruntime=10\nthinktime=50\nthinktime_blocks=8\nlatency_target=1ms\n",
    );
    let text = all(&e);
    // fio counts the blocks in completions by default: the same as
    // methodic's drained think only at iodepth=1.
    assert!(has(&e, 7, "thinktime=50", "which is the same only at iodepth=1, not at iodepth=4"), "{text}");
    // fio's default window (0) and percentile (100) are no probe methodic states.
    assert!(has(&e, 9, "latency_target=1ms", "judges each depth over a probe of a stated length"), "{text}");
    assert!(has(&e, 9, "latency_target=1ms", "methodic's percentiles stop below p100"), "{text}");
    assert!(text.contains("give latency_window, such as latency_window=5s"), "{text}");
    assert_eq!(e.len(), 3, "the companions add nothing to their option's refusal: {text}");
    // Without the option they serve, fio ignores them.
    let out = import(
        "[j]\nrw=randread\ntime_based\nruntime=10\nthinktime=0\nthinktime_blocks=8\nrate_ignore_thinktime=1\n\
         latency_window=5s\nlatency_percentile=99.9\n",
    );
    for said in [
        "thinktime_blocks=8 (line 6): ignored, as fio ignores it without thinktime",
        "rate_ignore_thinktime=1 (line 7): ignored, as fio ignores it without thinktime",
        "latency_window=5s (line 8): ignored, as fio ignores it without latency_target",
        "latency_percentile=99.9 (line 9): ignored",
    ] {
        assert!(out.contains(said), "{said}:\n{out}");
    }
}

#[test]
fn jobs_that_read_or_trim_until_their_size_stop_after_bytes_transferred() {
    // fio's io_bytes_exceeded() counts what the job moves: reads, reads
    // and writes, or trims.
    for (rw, stop) in [
        ("randread", "until transferred 2GiB"),
        ("randrw", "until transferred 2GiB"),
        ("randtrim", "until transferred 2GiB"),
        ("randwrite", "until written 2GiB"),
    ] {
        let text = import(&format!("[j]\nrw={rw}\nsize=1g\nloops=2\n"));
        assert!(text.contains(stop), "{rw}: {text}");
    }
    // Without a size, the whole target, with the runtime as a cap.
    let text = import("[j]\nrw=read\nnumjobs=2\noffset_increment=50%\nsize=50%\nruntime=30\n");
    assert!(text.contains("until transferred 100% for 30s"), "{text}");
    let p = plan("[j]\nrw=randread\nio_size=300m\n");
    assert_eq!(measures(&p)[0].3.amount(), Some((Extent::Bytes(Bytes(300 << 20)), true)));
    // fio and methodic both count a ramp's I/O towards the amount.
    let text = import("[j]\nrw=randread\nsize=1g\nramp_time=5\n");
    assert!(text.contains("until transferred 1GiB ramp 5s"), "{text}");
}

#[test]
fn fios_sequence_distribution_is_refused_as_fio_means_it() {
    let e = errors("[j]\nrw=randread\nrandom_distribution=sequence:2,0,1\ntime_based\nruntime=5\n");
    assert!(all(&e).contains("visits the blocks it lists in that order"), "{}", all(&e));
    assert!(!all(&e).contains("fio does not know"), "{}", all(&e));
}

#[test]
fn thinktime_is_a_drained_think_counted_as_fio_counts_it() {
    // fio waits for the I/Os in flight before each pause: `drained`.
    let text = import("[j]\nrw=randread\ntime_based\nruntime=10\nthinktime=2ms\nthinktime_blocks=4\n");
    assert!(text.contains("think 2000us every 4 drained"), "{text}");
    let text = import(
        "[j]\nrw=randread\nioengine=io_uring\niodepth=8\ntime_based\nruntime=10\nthinktime=500\n\
         thinktime_blocks_type=issue\nthinktime_spin=100\n",
    );
    assert!(text.contains("think 500us every 1 drained"), "{text}");
    assert!(text.contains("fio spins this part of the pause on the CPU"), "{text}");
    let e = errors("[j]\nrw=randread\ntime_based\nruntime=10\nthinktime=500\nthinktime_iotime=1s\n");
    assert!(has(&e, 6, "thinktime_iotime=1s", "keeps a fixed grid of periods"), "{}", all(&e));
    // Without thinktime its companions change nothing.
    let text = import("[j]\nrw=randread\ntime_based\nruntime=10\nthinktime_blocks=4\n");
    assert!(text.contains("ignored, as fio ignores it without thinktime"), "{text}");
}

#[test]
fn block_splits_as_fio_issues_them() {
    let blocks = |p: &Plan| -> Vec<Vec<(u64, Percent)>> {
        measures(p).iter().map(|(w, ..)| w.blocks.iter().map(|b| (b.size.0, b.share)).collect()).collect()
    };
    let pc = Percent::whole;
    // The HOWTO's own example: empty shares split the rest.
    let p = plan("[j]\nrw=randread\nbssplit=4k/50:1k/:32k/\ntime_based\nruntime=5\n");
    assert_eq!(blocks(&p), [vec![(1024, pc(25)), (4096, pc(50)), (32768, pc(25))]]);
    // fio issues 6k as 4k: a multiple of the smallest size.
    let text = "[j]\nrw=randwrite\nbssplit=4k/50:6k/30:64k/20\ntime_based\nruntime=5\n";
    assert_eq!(blocks(&plan(text)), [vec![(4096, pc(80)), (65536, pc(20))]]);
    assert!(import(text).contains("issues 6KiB as 4KiB"), "{}", import(text));
    // One list per direction: the job's own.
    let text = "[global]\nbssplit=4k/50:8k/50,16k/100\ntime_based\nruntime=5\n\
                [r]\nrw=randread\n[w]\nstonewall\nrw=randwrite\n[t]\nstonewall\nrw=randtrim\n";
    assert_eq!(
        blocks(&plan(text)),
        [vec![(4096, pc(50)), (8192, pc(50))], vec![(16384, pc(100))], vec![(16384, pc(100))]],
        "trims take the writes' list"
    );
    assert!(import(text).contains("fio uses the split for reads, `4k/50:8k/50`"), "{}", import(text));
    // An empty list leaves the direction to bs.
    let p = plan("[j]\nrw=randread\nbs=64k\nbssplit=,16k/100\ntime_based\nruntime=5\n");
    assert_eq!(blocks(&p), [vec![(65536, pc(100))]]);
    // A job that reads and writes with a split for each: `write_blocks`.
    let p = plan("[j]\nrw=randrw\nbssplit=4k/50:8k/50,16k/100\ntime_based\nruntime=5\n");
    assert_eq!(blocks(&p), [vec![(4096, pc(50)), (8192, pc(50))]]);
    let writes: Vec<Option<Vec<(u64, Percent)>>> = measures(&p)
        .iter()
        .map(|(w, ..)| w.write_blocks.as_ref().map(|b| b.iter().map(|b| (b.size.0, b.share)).collect()))
        .collect();
    assert_eq!(writes, [Some(vec![(16384, pc(100))])]);
    // bs=R,W,T as fio reads it: each direction's own size.
    let p = plan("[j]\nrw=randrw\nbs=8k,32k\ntime_based\nruntime=5\n");
    assert_eq!(blocks(&p), [vec![(8192, pc(100))]]);
    assert_eq!(measures(&p)[0].0.write_blocks.as_ref().map(|b| b[0].size.0), Some(32768));
    let p = plan("[j]\nrw=randwrite\nbs=8k,32k\ntime_based\nruntime=5\n");
    assert_eq!((blocks(&p), measures(&p)[0].0.write_blocks.is_none()), (vec![vec![(32768, pc(100))]], true));
    let p = plan("[j]\nrw=randread\nbs=,8k\ntime_based\nruntime=5\n");
    assert_eq!(blocks(&p), [vec![(4096, pc(100))]], "an empty value is fio's default");
    // An empty list for the writes is bs's.
    let p = plan("[j]\nrw=randrw\nbs=64k\nbssplit=4k/100,\ntime_based\nruntime=5\n");
    assert_eq!(measures(&p)[0].0.write_blocks.as_ref().map(|b| b[0].size.0), Some(65536));
    let p = plan("[j]\nrw=randrw\nbssplit=4k/50:8k/50,4k/50:8k/50\ntime_based\nruntime=5\n");
    assert_eq!(blocks(&p), [vec![(4096, pc(50)), (8192, pc(50))]]);
}

#[test]
fn zones_with_an_empty_last_share_and_a_lone_zone() {
    let p = plan("[j]\nrw=randread\nrandom_distribution=zoned:50/5:30/15:20/\ntime_based\nruntime=5\n");
    assert_eq!(
        accesses(&p),
        [(Percent::HUNDRED, Access::Bands(vec![band(50, 5), band(30, 15), band(20, 80)]))]
    );
    let e = errors("[j]\nrw=randread\nrandom_distribution=zoned:100\ntime_based\nruntime=5\n");
    assert!(has(&e, 3, "random_distribution=zoned:100", "to one block"), "{}", all(&e));
}

#[test]
fn a_lead_job_is_told_against_the_job_it_starts_with() {
    let e = errors("[a]\nrw=write\nsize=1g\n[b]\nrw=write\nsize=1g\n");
    let text = all(&e);
    assert!(text.contains("fio starts [a] together with [b] (line 4)"), "{text}");
    assert!(text.contains("fio starts [b] together with [a] (line 1)"), "{text}");
    assert!(!text.contains("[a] together with [a]"), "{text}");
}

/// A job in the layout of fio's examples/latency-profile.fio: options in
/// [global] (a 4KiB random read at iodepth 128 with a latency target, a
/// window and a percentile), the device in a section of its own, and no
/// runtime: fio ends the job when its search is over.
const LATENCY_PROFILE: &str = "\
; Find the deepest queue depth, up to 128, at which 99.9% of 4KiB random
; reads complete within 500ms, judged over 5s at each depth.
[global]
bs=4k
rw=randread
direct=1
ioengine=libaio
iodepth=128
; the latency every I/O is judged against (microseconds)
latency_target=500000
; how long each depth is tried (microseconds)
latency_window=5000000
; the share of I/Os that must be within the target
latency_percentile=99.9

[nvme]
filename=/dev/nvme0n1
";

#[test]
fn a_latency_target_becomes_a_qos_search_by_queue_depth() {
    let method = import(LATENCY_PROFILE);
    let p = plan(LATENCY_PROFILE);
    let Action::Qos(q) = &p.steps[0].action else { panic!("not a qos step:\n{method}") };
    assert_eq!(q.by, methodic_compiler::plan::QosAxis::Qd);
    assert_eq!((q.qd.per_worker, q.qd.workers), (128, 1));
    assert_eq!((q.percentile_ppm, q.under_ns, q.probe), (999_000, 500_000_000, Duration::from_secs(5)));
    assert!(method.contains("qos nvme qd 128 { p99.9 under 500ms; probe 5s; by qd }"), "{method}");
    let words = method.lines().map(|l| l.trim_start_matches([' ', '#'])).collect::<Vec<_>>().join(" ");
    assert!(words.contains("but changes the depth within one stream: it ramps once"), "{method}");
    // The search exported again is fio's latency target at the same depth.
    let again = plan_to_fio(&p, None);
    for line in ["iodepth=128", "latency_target=500000us", "latency_window=5000ms", "latency_percentile=99.9"]
    {
        assert!(again.lines().any(|l| l == line), "{line}:\n{again}");
    }
    let back = plan(&again);
    let Action::Qos(q2) = &back.steps[0].action else { panic!("not a qos step:\n{again}") };
    assert_eq!(
        (q2.by, q2.qd, q2.percentile_ppm, q2.under_ns, q2.probe),
        (q.by, q.qd, q.percentile_ppm, q.under_ns, q.probe)
    );
}

#[test]
fn a_latency_target_methodic_cannot_state_is_refused_with_a_hint() {
    let job = |options: &str| {
        format!(
            "[j]\nrw=randread\nioengine=libaio\ndirect=1\niodepth=32\nlatency_target=2ms\nlatency_window=5s\nlatency_percentile=99\n{options}\n"
        )
    };
    for (options, option, words) in [
        ("latency_window=0", "latency_window=0", "hint: give latency_window, such as latency_window=5s"),
        ("latency_window=1500us", "latency_window=1500us", "not a whole number of milliseconds"),
        ("latency_percentile=100", "latency_percentile=100", "hint: give latency_percentile below 100"),
        ("latency_percentile=0", "latency_percentile=0", "every depth meets the target"),
        ("latency_run=1", "latency_run=1", "keeps adjusting the depth until the job ends"),
        (
            "gtod_reduce=1",
            "gtod_reduce=1",
            "no I/O fails latency_target and its search only doubles to iodepth",
        ),
        ("disable_lat=1", "disable_lat=1", "hint: remove disable_lat to import the latency target"),
        ("stats=0", "stats=0", "fio measures no completion latency"),
        ("verify=crc32c", "verify=crc32c", "the job is a `qos` step"),
    ] {
        let text = job(options);
        let line = text.lines().position(|l| l == option).unwrap() + 1;
        let e = errors(&text);
        assert!(
            e.iter().any(|e| e.line == line
                && e.option.as_deref() == Some(option)
                && format!("{e} (hint: {})", e.hint.as_deref().unwrap_or("")).contains(words)),
            "{option}: {}",
            all(&e)
        );
    }
    // fio's latency_run=0 and stats=1 are its defaults, and fine.
    let p = plan(&job("latency_run=0\nstats=1"));
    assert!(matches!(p.steps[0].action, Action::Qos(_)));
    // A search runs alone, not as a together step's job.
    let e =
        errors(&format!("{}\n[k]\nrw=randwrite\ntime_based\nruntime=10\n", job("time_based\nruntime=10")));
    assert!(all(&e).contains("searches its queue depth (latency_target)"), "{}", all(&e));
}
