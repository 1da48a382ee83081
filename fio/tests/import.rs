//! Import through the crate's API: job file text to a methodology that
//! compiles to the plan its options say, every problem named with its
//! line and option, and an imported job exported again imports to the
//! same steps.

use std::collections::HashSet;

use methodic_compiler::plan::{
    Action, Bytes, Duration, Extent, IoMode, MeasureStop, Percent, Plan, QdCounting, Units,
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
    let e = errors("[j]\nrw=randwrite\nio_size=10g\ntime_based\nruntime=5\n");
    assert!(has(&e, 3, "io_size=10g", "whatever io_size says"), "{e:?}");
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
        "[global]\nverify=crc32c\ntime_based\nruntime=30sec\n\n[a]\nrw=randread\nbs=4KiB\niodepht=32\n\
         thinktime=10\n\n[b]\nrw=randwrite\n",
    );
    let all = e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n");
    assert!(has(&e, 2, "verify=crc32c", "does not check the data"), "{all}");
    assert!(has(&e, 4, "runtime=30sec", "30 microseconds"), "{all}");
    assert!(has(&e, 8, "bs=4KiB", "4000 bytes"), "{all}");
    assert!(has(&e, 9, "iodepht=32", "unknown option `iodepht=32`: it is not an fio option"), "{all}");
    assert_eq!(e.iter().find(|e| e.line == 9).unwrap().hint.as_deref(), Some("did you mean `iodepth`?"));
    assert!(has(&e, 10, "thinktime=10", "no pause"), "{all}");
    let c = e.iter().find(|e| e.kind == ImportErrorKind::Concurrent).expect(&all);
    assert_eq!(c.line, 12);
    assert!(c.to_string().contains("[b] at the same time as [a] (line 6)"), "{all}");
    assert!(c.to_string().contains("stonewall"), "{all}");
    assert_eq!(e.iter().filter(|e| e.line == 2).count(), 1, "an inherited problem is told once: {all}");
    assert!(all.contains("(in job.fio:2, [global])"), "{all}");
    let lines: Vec<usize> = e.iter().map(|e| e.line).collect();
    assert!(lines.windows(2).all(|w| w[0] <= w[1]), "in line order: {lines:?}");
}

#[test]
fn values_fio_reads_otherwise_are_refused() {
    for (option, words) in [
        ("bs=1.5k", "as 1 byte:"),
        ("bs= 4k", "as 4 bytes"),
        ("bs=4kilo", "not a size unit"),
        ("bs=4k,8k", "another for writes"),
        ("rw= randread", "does not know ` randread`"),
        ("rw=randread:8", "modifier"),
        ("rw=trim", "do not trim"),
        ("iodepth=1k", "1024"),
        ("rwmixread=70.5", "not a plain whole number"),
        ("runtime=5min", "5 microseconds"),
        ("ramp_time= 500ms", "500 seconds"),
        ("runtime=1500us", "whole number of milliseconds"),
        ("runtime=10s # ten", "no comments after a value"),
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
        ("[j]\nrw=randread\nruntime=5\n", 3, "add time_based"),
        ("[j]\nrw=randread\n", 1, "add time_based"),
        ("[j]\nrw=randread\ntime_based\n", 3, "until fio is stopped"),
        ("[j]\nrw=write\nramp_time=5\n", 3, "ramp's writes"),
        ("[j]\nrw=randread\nbs=1000\ndirect=1\ntime_based\nruntime=5\n", 3, "512B sectors"),
        ("[j]\nrw=randread\nioengine=null\ntime_based\nruntime=5\n", 3, "another path"),
        ("[j]\nrw=randread\nfilename=/a:/b\ntime_based\nruntime=5\n", 3, "several files"),
        ("[j]\nrw=randread\nsize=50%\noffset=1g\ntime_based\nruntime=5\n", 4, "cannot be moved"),
        ("[j]\nrw=randread\ndirect=1\nbuffered=1\ntime_based\nruntime=5\n", 4, "contradict"),
        ("[j]\nrw=randrw\nrwmixread=70\nrwmixwrite=40\ntime_based\nruntime=5\n", 4, "add up to 100"),
        ("[j]\nrw=randread\nzonemode=zbd\ntime_based\nruntime=5\n", 3, "without zones"),
        ("[j]\nrw=randread\nrate_iops=1000\ntime_based\nruntime=5\n", 3, "no rate limit"),
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
                "measure {:?} read {} random {} align {} offset {} {qd:?} ramp {ramp} {stop:?} series {series} \
                 {:?}",
                w.blocks, w.read, w.random, w.align, w.offset, s.target
            ),
            other => other.kind().to_string(),
        })
        .collect()
}

/// An imported job exported with `methodic export fio` imports to the
/// same steps: rw, rwmixread, percentage_random, bs, bssplit, ba,
/// iodepth, numjobs, size, offset, runtime, ramp_time, direct, data,
/// and io_size for a write job that stops by size, survive the trip.
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
