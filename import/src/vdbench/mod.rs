//! `methodic import vdbench`: a vdbench parameter file (block workloads:
//! `sd=`, `wd=`, `rd=`, `hd=`) in, a methodology out, with a hosts file
//! for `methodic run --hosts` beside it when the file has `hd=` entries;
//! or every problem that keeps it from one. The rules are vdbench
//! 5.04.07's own, read from its sources (`Hust-Wen/vdbench`, commit
//! `e80126123dda3477be00a63583feea1a41b8d755`, `src/Vdb/`) and checked by
//! running its parser; each module cites the files and lines it follows.
//!
//! Stages, one module each:
//! - `reader`: text to `keyword=value` items (comments, the first blank,
//!   continuation, quotes, `$name`, `include=`, `eof`);
//! - `keywords`: vdbench's abbreviation chains, a section each;
//! - `entries`: items to general parameters and `hd`/`sd`/`wd`/`rd`
//!   entries, `default` entries copied into the later ones;
//! - `values`: numbers with k/m/g/t and time suffixes, lists, ranges;
//! - `storage`: SDs (devices) and WDs (workloads);
//! - `runs`: RDs to runs: jobs, for-loops, rates, timing;
//! - `area`: each run's span and each job's offset;
//! - `settings`: general parameters (data pattern) and the hosts file;
//! - `writer`: the methodology text, then `finish` formats and compiles it.

mod area;
mod entries;
mod hotband;
mod keywords;
mod reader;
mod runs;
mod settings;
mod storage;
mod values;
mod writer;

use crate::finish::{Imported, finish};
use crate::problem::{Problem, into_errors};
use crate::{ImportError, ImportErrorKind, Input};

/// A vdbench parameter file to a methodology (and a hosts file beside it
/// for `hd=` entries), or every problem, each with its line, entry and
/// keyword.
pub fn to_method(input: &Input<'_>) -> Result<Imported, Vec<ImportError>> {
    let mut problems = Vec::new();
    let items = reader::items(input, &mut problems);
    let e = entries::entries(items, &mut problems);
    let general = settings::general(&e.general, &mut problems);
    let sds = storage::sds(&e.sds, &mut problems);
    let sd_names: Vec<&str> = sds.iter().map(|s| s.name.as_str()).collect();
    let wds = storage::wds(&e.wds, &sd_names, &mut problems);
    let mut runs = runs::runs(&e.rds, &e.wd_default, &sds, &wds, &mut problems);
    if e.rds.is_empty() {
        problems.push(Problem::new(
            ImportErrorKind::Empty,
            0,
            "no rd= in the file: vdbench runs nothing (No RD parameters specified)",
        ));
    }
    if !problems.is_empty() {
        return Err(into_errors(problems, input.file));
    }
    let devices = writer::devices(&sds, &runs);
    area::areas(&mut runs, &sds, area::format_block(&general, &sds, &devices), &mut problems);
    let format = area::format(&general, &runs, &sds, &devices, &mut problems);
    let used: Vec<&storage::Sd> = devices.iter().map(|i| &sds[*i]).collect();
    let hosts = settings::hosts(&e.hosts, &used, input.file, &mut problems);
    let hosts_file = format!("{}.hosts", input.name.replace(['/', '\\', ' '], "_"));
    let doc = writer::Doc {
        file: input.file,
        name: input.name,
        sds: &sds,
        runs: &runs,
        rds: e.rds.len(),
        format: format.as_ref(),
        general: &general,
        hosts: hosts.as_ref(),
        hosts_file: &hosts_file,
    };
    let source = writer::write(&doc, &mut problems);
    if !problems.is_empty() {
        return Err(into_errors(problems, input.file));
    }
    // wds that share an sd are one job (or refused): several jobs are
    // several sds.
    if hosts.is_some() && runs.iter().any(|r| r.jobs.len() != 1) {
        let p = Problem::new(ImportErrorKind::Untranslatable, 0, "a run on many hosts has one target a host (docs/many-hosts.md), and these runs use several sds at once")
            .hint("leave the hd= entries out to run on one machine, or give the rds one sd");
        return Err(into_errors(vec![p], input.file));
    }
    let text = finish(&source, input.file)?;
    let mut warnings = Vec::new();
    if general.notes.iter().any(|n| n.starts_with("startcmd") || n.starts_with("endcmd")) {
        warnings
            .push("the file's startcmd=/endcmd= commands are not run (they are in a comment)".to_string());
    }
    warnings.push("vdbench runs are often started with -v (data validation), which a parameter file cannot show: add `verify` to the steps to check the data".to_string());
    let dropped = general.dropped + hosts.as_ref().map_or(0, |h| h.notes.len());
    let what = writer::runs_said(e.rds.len(), runs.len());
    let beside = hosts.map(|h| vec![(hosts_file, h.text)]).unwrap_or_default();
    Ok(Imported { text, what, dropped, beside, warnings })
}

/// The body of the fuzz target `fuzz/fuzz_targets/vdbench_import.rs`:
/// any bytes, never a panic.
pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let include = |name: &str| -> Result<String, String> {
        if name == "self" { Ok(String::from("sd=x")) } else { Err("no".into()) }
    };
    let vars = [("lun".to_string(), "/dev/sdb".to_string())];
    let input = Input { text: &text, file: "fuzz", name: "fuzz", vars: &vars, include: &include };
    let _ = to_method(&input);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The methodology of `text`, or the problems' details.
    fn import(text: &str) -> Result<Imported, Vec<String>> {
        let include = |_: &str| Err("none".to_string());
        let input = Input { text, file: "t.vdb", name: "t", vars: &[], include: &include };
        to_method(&input).map_err(|e| e.iter().map(|e| e.to_string()).collect())
    }

    fn method(text: &str) -> String {
        match import(text) {
            Ok(i) => i.text,
            Err(e) => panic!("{}", e.join("\n")),
        }
    }

    /// The text without its layout: a workload on one line or several alike.
    fn flat(m: &str) -> String {
        m.replace(';', " ").split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn refused(text: &str, why: &str) {
        let e = import(text).err().unwrap_or_else(|| panic!("imported: {text}"));
        assert!(e.iter().any(|e| e.contains(why)), "{why}: {e:?}");
    }

    const SD: &str = "sd=sd1,lun=/tmp/f,size=1g,threads=4\n";

    #[test]
    fn a_workload_becomes_a_measurement_with_its_timing() {
        let m = method(&format!(
            "{SD}wd=w1,sd=sd1,xf=8k,rdpct=70,seekpct=100\nrd=r1,wd=w1,iorate=max,elapsed=10,interval=2,warmup=4"
        ));
        assert!(m.contains("workload w1 { random; block 8KiB; read 70% }"), "{m}");
        assert!(m.contains("measure w1 qd 4 for 10s ramp 4s series 2s"), "{m}");
        assert!(m.contains("target { span 1GiB; io buffered }"), "{m}");
    }

    #[test]
    fn sizes_splits_and_seek_shares() {
        let m = method(&format!(
            "{SD}wd=w1,sd=sd1,xf=(4k,60,64k,40),seekpct=20,wrpct=30\nrd=r1,wd=w1,iorate=1000"
        ));
        assert!(flat(&m).contains("random 20% blocks { 4KiB: 60%, 64KiB: 40% } read 70%"), "{m}");
        assert!(m.contains("rate 1000 iops poisson"), "{m}");
        assert!(m.contains("aligns each random I/O to its own size"), "{m}");
        let m = method(&format!("{SD}wd=w1,sd=sd1,xf=(4k,12k,4k),seekpct=seq\nrd=r1,wd=w1,iorate=max"));
        assert!(flat(&m).contains("sequential blocks { 4KiB: 33.34%, 8KiB: 33.33%, 12KiB: 33.33% }"), "{m}");
        // 1GiB rounded down to a multiple of the largest size, as vdbench does.
        assert!(m.contains("span 1048572KiB"), "{m}");
        refused(&format!("{SD}wd=w1,sd=sd1,xf=(4k,50,8k,50.4)\nrd=r1,wd=w1,iorate=max"), "add up to 100.4%");
    }

    #[test]
    fn skew_shares_the_rate_over_a_together_step() {
        let two = "sd=sd1,lun=/tmp/a\nsd=sd2,lun=/tmp/b\n";
        let m = method(&format!(
            "{two}wd=a,sd=sd1,skew=75\nwd=b,sd=sd2,rdpct=0\nrd=r1,wd=(a,b),iorate=4000,distribution=det"
        ));
        assert!(m.contains("job a a qd 8 workers 1 rate 3000 iops uniform device 1"), "{m}");
        assert!(m.contains("job b b qd 8 workers 1 rate 1000 iops uniform device 2"), "{m}");
        refused(
            &format!("{two}wd=a,sd=sd1,skew=75\nwd=b,sd=sd2,skew=30\nrd=r1,wd=*,iorate=100"),
            "add up to 105%",
        );
        refused(&format!("{two}wd=a,sd=sd1,skew=75\nwd=b,sd=sd2\nrd=r1,wd=*,iorate=max"), "controlled max");
    }

    #[test]
    fn wds_on_one_sd_merge_only_when_that_is_exact() {
        let m = method(&format!("{SD}wd=a,sd=sd1,skew=60\nwd=b,sd=sd1,rdpct=0\nrd=r1,wd=(a,b),iorate=500"));
        assert!(m.contains("workload a_b { random; block 4KiB; read 60% }"), "{m}");
        assert!(flat(&m).contains("wd=a, wd=b share sd=sd1"), "{m}");
        refused(
            &format!("{SD}wd=a,sd=sd1,skew=60\nwd=b,sd=sd1,xf=8k\nrd=r1,wd=(a,b),iorate=500"),
            "share an sd",
        );
        refused(&format!("{SD}wd=a,sd=sd1\nwd=b,sd=sd1,rdpct=0\nrd=r1,wd=(a,b),iorate=max"), "share an sd");
    }

    #[test]
    fn loops_nest_as_written_after_rd_default_with_iorate_innermost() {
        let m = method(&format!(
            "{SD}wd=w1,sd=sd1\nrd=default,forthreads=(1,2)\nrd=r1,wd=w1,iorate=(100,200),forxfersize=(4k,8k),forrdpct=(0,100)"
        ));
        let th = m.find("for th in [1, 2]").expect(&m);
        let bs = m.find("for bs in [4KiB, 8KiB]").expect(&m);
        let rdp = m.find("for rdp in [0%, 100%]").expect(&m);
        let r = m.find("for r in [100, 200]").expect(&m);
        assert!(th < bs && bs < rdp && rdp < r, "{m}");
        assert!(m.contains("measure { random; block bs; read rdp } qd th rate r iops poisson"), "{m}");
    }

    #[test]
    fn a_curve_runs_the_maximum_then_shares_of_it() {
        let m = method(&format!("{SD}wd=w1,sd=sd1\nrd=r1,wd=w1,iorate=curve"));
        assert!(m.contains("as r1_max"), "{m}");
        assert!(m.contains("for p in [10%, 50%, 70%, 80%, 90%, 100%]"), "{m}");
        assert!(m.contains("rate p of r1_max poisson"), "{m}");
    }

    #[test]
    fn count_makes_an_sds_clones_after_the_others_as_vdbench_does() {
        let m = method(
            "sd=disk,lun=/tmp/f%03d,size=1g,count=(0,2)\nsd=last,lun=/tmp/last,size=1g\n\
             wd=w1,sd=(disk0,disk1,last),rdpct=100\nrd=r1,wd=w1,iorate=max,elapsed=10",
        );
        // The clones come after `last`, as vdbench appends them.
        assert!(m.contains("--target /tmp/last --target /tmp/f000 --target /tmp/f001"), "{m}");
        let m =
            method("sd=d,lun=/tmp/x*y,size=1g,count=(3,1)\nwd=w1,sd=d3\nrd=r1,wd=w1,iorate=max,elapsed=10");
        assert!(m.contains("--target /tmp/x3y"), "{m}");
        let m = method("sd=d,lun=/tmp/n,size=1g,count=(1,1)\nwd=w1,sd=d1\nrd=r1,wd=w1,iorate=max,elapsed=10");
        assert!(m.contains("--target /tmp/n1"), "{m}");
        refused(
            "sd=d,lun=/tmp/f%s,size=1g,count=(0,2)\nwd=w1,sd=d*\nrd=r1,wd=w1,iorate=max,elapsed=10",
            "is not %d, %Nd or %0Nd",
        );
        refused("sd=d,lun=/tmp/f,count=(0,0)\nwd=w1,sd=d*\nrd=r1,wd=w1,iorate=max", "count= takes (start,n)");
        assert_eq!(super::storage::mask("/dev/sd%2d", 7).as_deref(), Some("/dev/sd 7"));
    }

    #[test]
    fn sd_single_range_and_sets_repeat_the_rd_per_set_of_sds() {
        let sds = "sd=a,lun=/tmp/a,size=1g\nsd=b,lun=/tmp/b,size=1g\nsd=c,lun=/tmp/c,size=1g\n\
                   sd=d,lun=/tmp/d,size=1g\nsd=e,lun=/tmp/e,size=1g\n";
        let phases = |rd: &str| -> Vec<String> {
            let m = method(&format!("{sds}wd=w1,sd=a,rdpct=100\n{rd}"));
            m.lines()
                .filter_map(|l| l.strip_prefix("phase \"rd "))
                .map(|l| l.trim_end_matches("\" {").to_string())
                .collect()
        };
        assert_eq!(
            phases("rd=r1,wd=w1,sd=single,iorate=max,elapsed=10"),
            ["r1_a", "r1_b", "r1_c", "r1_d", "r1_e"]
        );
        assert_eq!(
            phases("rd=r1,sd=range,iorate=max,elapsed=10"),
            ["r1_a-a", "r1_a-b", "r1_a-c", "r1_a-d", "r1_a-e"]
        );
        // java.util.Random(0) shuffles five SDs to e, d, a, c, b (as `java` prints it).
        assert_eq!(phases("rd=r1,wd=w1,sd=setsof2,iorate=max,elapsed=10"), ["r1_e_d", "r1_a_c", "r1_b"]);
        let m = method(&format!("{sds}wd=w1,sd=a,rdpct=100\nrd=r1,wd=w1,sd=setsof2,iorate=max,elapsed=10"));
        assert!(flat(&m).contains("this one on e, d."), "{m}");
        refused(&format!("{sds}wd=w1,sd=a\nrd=r1,wd=w1,sd=setsof0,iorate=max"), "setsof takes a number");
    }

    #[test]
    fn forcompratio_is_a_phase_a_ratio_when_it_is_the_outermost_loop() {
        let m = method(&format!(
            "compratio=4\n{SD}wd=w1,sd=sd1,rdpct=0\nrd=r1,wd=w1,iorate=max,elapsed=10,forcompratio=(1,2,30),forxfersize=(4k,8k)"
        ));
        let phases: Vec<&str> = m.lines().filter(|l| l.starts_with("phase ")).collect();
        assert_eq!(
            phases,
            [
                "phase \"rd r1 compratio 1\" {",
                "phase \"rd r1 compratio 2\" {",
                "phase \"rd r1 compratio 30\" {"
            ],
            "{m}"
        );
        // The file's compratio=4 is the default; each phase sets its own (25:1 at most).
        assert!(m.contains("data compressible 75%"), "{m}");
        for data in ["io buffered; data random }", "data compressible 50% }", "data compressible 96% }"] {
            assert!(m.contains(data), "{data}: {m}");
        }
        assert_eq!(m.matches("for bs in [4KiB, 8KiB]").count(), 3, "{m}");
        // An rd's compratio= is the loop of one value.
        let m = method(&format!("{SD}wd=w1,sd=sd1,rdpct=0\nrd=r1,wd=w1,iorate=max,elapsed=10,compratio=2"));
        assert!(m.contains("phase \"rd r1 compratio 2\"") && m.contains("data compressible 50%"), "{m}");
        refused(
            &format!("{SD}wd=w1,sd=sd1\nrd=r1,wd=w1,iorate=max,forxfersize=(4k,8k),forcompratio=(1,2)"),
            "only be the outermost loop",
        );
        refused(&format!("{SD}wd=w1,sd=sd1\nrd=r1,wd=w1,iorate=max,forcompratio=(0,2)"), "ratios above 0");
    }

    #[test]
    fn formatsds_is_a_fill_of_every_device_first() {
        let sds = "sd=sd1,lun=/dev/sdb,openflags=o_direct,size=10g\nsd=sd2,lun=/dev/sdc,openflags=o_direct,size=10g\n";
        let rest = "wd=w1,sd=sd*,rdpct=0,xf=4k\nrd=r1,wd=w1,iorate=max,elapsed=10";
        let m = method(&format!("formatsds=yes\n{sds}{rest}"));
        let f = flat(&m);
        assert!(m.find("phase \"format\"") < m.find("phase \"rd r1\""), "{m}");
        assert!(f.contains("target { span 10GiB io direct workers 2 }"), "{m}");
        assert!(f.contains("fill { sequential block 128KiB read 0% offset 128KiB } passes 1 qd 2"), "{m}");
        // The format's transfer size is the sds' largest: the run keeps block zero out by it too.
        assert_eq!(m.matches("starts 128KiB in").count(), 4, "{m}");
        let m = method(&format!("formatsds=yes\nformatxfersize=64k\n{sds}{rest}"));
        assert!(flat(&m).contains("block 64KiB read 0% offset 64KiB"), "{m}");
        let m = method(&format!("formatsds=y\nsd=sd1,lun=/tmp/f,size=64k\n{rest}"));
        assert!(flat(&m).contains("fill { sequential block 512B read 0% }"), "{m}");
        let m = method(&format!("formatsds=no\n{sds}{rest}"));
        assert!(!m.contains("fill"), "{m}");
        refused(
            &format!("formatsds=yes\n{}{rest}", sds.replacen("size=10g", "size=20g", 1)),
            "methodic formats them in one fill",
        );
        refused(&format!("formatsds=maybe\n{sds}{rest}"), "formatsds= is yes or no");
    }

    #[test]
    fn a_hot_band_is_bands_in_its_range() {
        let m = method(
            "sd=sd1,lun=/tmp/h,size=10g\nwd=w1,sd=sd1,rdpct=70,xf=4k,hotband=(10,20)\nrd=r1,wd=w1,iorate=max,elapsed=10",
        );
        let f = flat(&m);
        // The band is the range: from 10% of the sd, 10% of it wide.
        assert!(f.contains("offset 1GiB") && f.contains("target { span 2GiB"), "{m}");
        // Its hottest hundredth first.
        assert!(f.contains("random bands 15.1% in 0.01%, 3.73% in 0.01%"), "{m}");
        assert!(f.replace(" # ", " ").contains("folded into the band's 1073 whole megabytes"), "{m}");
        // Sequential I/O does not use the curve: the band is the area.
        let m = method(
            "sd=sd1,lun=/tmp/h,size=10g\nwd=w1,sd=sd1,seekpct=0,hotband=(10,20)\nrd=r1,wd=w1,iorate=max,elapsed=10",
        );
        assert!(!m.contains("bands") && flat(&m).replace(" # ", " ").contains("these are sequential"), "{m}");
        refused(
            "sd=sd1,lun=/tmp/h\nwd=w1,sd=sd1,hotband=(0,100)\nrd=r1,wd=w1,iorate=max,elapsed=10",
            "whose size the file does not give",
        );
    }

    #[test]
    fn vdbench_shuffles_sds_with_javas_generator() {
        // What `java` prints for vdbench's shuffle of 2, 7 and 12 SDs.
        assert_eq!(super::runs::shuffled(2), [0, 1]);
        assert_eq!(super::runs::shuffled(7), [5, 4, 1, 2, 3, 0, 6]);
        assert_eq!(super::runs::shuffled(12), [3, 10, 7, 8, 4, 2, 5, 11, 1, 9, 6, 0]);
    }

    #[test]
    fn eof_and_maxdata_end_a_step_by_bytes_moved() {
        let m = method(&format!("{SD}wd=w1,sd=sd1,rdpct=0,seekpct=eof,xf=1m\nrd=r1,wd=w1,iorate=max"));
        assert!(m.contains("until written 1GiB"), "{m}");
        let m = method(&format!("{SD}wd=w1,sd=sd1,rdpct=0\nrd=r1,wd=w1,iorate=max,maxdata=50"));
        assert!(m.contains("until written 512MiB"), "{m}");
        let m = method("sd=sd1,lun=/tmp/f\nwd=w1,sd=sd1,rdpct=50\nrd=r1,wd=w1,iorate=max,maxdatawritten=20");
        assert!(m.contains("until written 20%"), "{m}");
        // maxdata= counts reads too, as until transferred does.
        let m = method(&format!("{SD}wd=w1,sd=sd1,rdpct=50\nrd=r1,wd=w1,iorate=max,maxdata=1g"));
        assert!(m.contains("until transferred 1GiB"), "{m}");
        let m = method(&format!("{SD}wd=w1,sd=sd1,rdpct=100,xf=1m,seekpct=eof\nrd=r1,wd=w1,iorate=max"));
        assert!(m.contains("until transferred 1GiB"), "one pass of reads: {m}");
        refused(
            &format!("{SD}wd=w1,sd=sd1,rdpct=100\nrd=r1,wd=w1,iorate=max,maxdataread=1g"),
            "not after bytes read alone",
        );
    }

    #[test]
    fn raw_devices_need_o_direct_and_skip_block_zero() {
        refused("sd=sd1,lun=/dev/sdb\nwd=w1,sd=sd1\nrd=r1,wd=w1,iorate=max", "without openflags=o_direct");
        let m = method(
            "sd=sd1,lun=/dev/sdb,openflags=directio,range=(0,50)\nwd=w1,sd=sd1,xf=16k\nrd=r1,wd=w1,iorate=max",
        );
        assert!(m.contains("offset 16KiB"), "{m}");
        assert!(m.contains("target { span 50%; io direct }"), "{m}");
    }

    #[test]
    fn hosts_become_a_hosts_file_and_divide_the_threads() {
        let text = "hd=default,shell=ssh\nhd=h1,system=10.0.0.1\nhd=h2,system=10.0.0.2\nsd=sd1,lun=/dev/sdb,openflags=o_direct,threads=8\nwd=w1,sd=sd1\nrd=r1,wd=w1,iorate=max";
        let i = import(text).unwrap();
        assert!(i.text.contains("qd 4"), "{}", i.text);
        assert_eq!(i.beside.len(), 1);
        assert_eq!(i.beside[0].0, "t.hosts");
        assert!(i.beside[0].1.contains("10.0.0.1  /dev/sdb"), "{}", i.beside[0].1);
        assert_eq!(i.dropped, 2, "shell= of each host");
        refused(&text.replace("threads=8", "threads=3"), "do not divide over 2 hosts");
    }

    #[test]
    fn what_methodic_cannot_run_is_refused_with_a_reason() {
        for (extra, why) in [
            ("wd=w2,sd=sd1,rhpct=10\n", "cache-hit"),
            ("wd=w2,sd=sd1,stride=(4k,8k)\n", "strided"),
            ("wd=w2,sd=sd1,priority=1\n", "priority"),
            ("wd=w2,sd=sd1,seekpct=seqnz\n", "seqnz"),
        ] {
            refused(&format!("{SD}wd=w1,sd=sd1\n{extra}rd=r1,wd=w1,iorate=max"), why);
        }
        refused(&format!("validate=yes\n{SD}wd=w1,sd=sd1\nrd=r1,wd=w1,iorate=max"), "verify");
        refused(&format!("{SD}wd=w1,sd=sd1\nrd=r1,wd=w1,iorate=10%"), "previous run");
        refused(&format!("{SD}wd=w1,sd=sd1\nrd=r1,wd=w1"), "without iorate=");
        refused(
            &format!("{SD}wd=w1,sd=sd1\nrd=r1,wd=w1,iorate=max,elapsed=5,interval=2"),
            "multiples of interval=2",
        );
        refused(&format!("{SD}wd=w1,sd=sd1\nrd=r1,wd=w1,iorate=max,distribution=uniform"), "twice the mean");
        refused(SD, "no rd=");
        refused(
            &format!("{SD}wd=w1,sd=sd1\nrd=r1,wd=w1,iorate=max,forthreads=(1,70000)"),
            "whole numbers above 0",
        );
    }

    #[test]
    fn names_methodic_would_take_for_one_are_kept_apart() {
        let m = method(&format!(
            "{SD}wd=w-1,sd=sd1\nwd=W_1,sd=sd1,xf=8k\nrd=R1,wd=w-1,iorate=max\nrd=r1,wd=W_1,iorate=max"
        ));
        assert!(m.contains("phase \"rd R1\"") && m.contains("phase \"rd r1 2\""), "{m}");
        assert!(m.contains("workload w_1 {") && m.contains("workload w_1_2 {"), "{m}");
    }

    /// Every prefix of the example files (a file cut anywhere) imports or
    /// is refused, never a panic nor a methodology that does not compile.
    #[test]
    fn cut_example_files_never_panic_nor_make_what_does_not_compile() {
        let files = [
            include_str!("../../../tests/vdbench/01-simple.vdb"),
            include_str!("../../../tests/vdbench/02-defaults.vdb"),
            include_str!("../../../tests/vdbench/03-loops-curve.vdb"),
            include_str!("../../../tests/vdbench/05-file-include.vdb"),
        ];
        for text in files {
            let start = text.find("\nsd=").unwrap_or(0);
            let mut cut = start;
            while cut < text.len() {
                if let Err(e) = import(&text[..cut]) {
                    assert!(
                        !e.iter().any(|e| e.starts_with("bug in methodic import")),
                        "{}:\n{}",
                        &text[..cut],
                        e.join("\n")
                    );
                }
                cut += 5;
            }
        }
    }

    #[test]
    fn the_fuzz_body_takes_any_bytes() {
        for data in [
            &b""[..],
            b"sd=",
            b"rd=(((",
            b"\xff\xfe",
            b"sd=a,lun=/x\nwd=w,sd=a,xf=(1-99999999999,1)\nrd=r,wd=w,io=max",
        ] {
            fuzz(data);
        }
    }
}
