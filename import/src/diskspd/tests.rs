//! Each DiskSpd construct through the whole importer: the plan the
//! methodology compiles to, or the problem that refuses it.

use methodic_compiler::plan::{Access, Action, Bytes, Duration, IoMode, Percent, Plan, RateAmount, Step};

use super::to_method;
use crate::{ImportError, ImportErrorKind, Imported, Input};

fn import(text: &str) -> Result<Imported, Vec<ImportError>> {
    let input = Input { text, file: "t.xml", name: "t", vars: &[], include: &|_| Err("no".into()) };
    to_method(&input)
}

fn plan(text: &str) -> (Plan, String) {
    let i = import(text)
        .unwrap_or_else(|e| panic!("{}", e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")));
    let diags = methodic_compiler::check(&i.text);
    assert!(diags.is_empty(), "{diags}\n{}", i.text);
    (methodic_compiler::compile(&i.text, &methodic_compiler::Options::default()).unwrap().plan, i.text)
}

fn refused(text: &str) -> Vec<ImportError> {
    match import(text) {
        Ok(i) => panic!("imported:\n{}", i.text),
        Err(e) => e,
    }
}

/// A profile of one time span with `span` settings and one target with `target` settings.
fn xml(span: &str, target: &str) -> String {
    format!(
        "<Profile>\n<TimeSpans>\n<TimeSpan>\n{span}\n<Targets>\n<Target>\n<Path>*1</Path>\n{target}\n</Target>\n</Targets>\n</TimeSpan>\n</TimeSpans>\n</Profile>\n"
    )
}

fn measure(p: &Plan) -> &Step {
    p.steps.iter().find(|s| matches!(s.action, Action::Measure { .. })).expect("a measure step")
}

#[test]
fn diskspd_defaults_are_written_out() {
    let (p, text) = plan(&xml("", ""));
    let s = measure(&p);
    let Action::Measure { workload: w, qd, ramp, stop, .. } = &s.action else { unreachable!() };
    // 64KiB sequential reads, 1 thread x 2, 5s warm-up, 10s, OS cache on.
    assert_eq!(w.blocks[0].size, Bytes(65536));
    assert_eq!((w.read, w.random), (Percent::HUNDRED, Percent::ZERO));
    assert_eq!((qd.workers, qd.per_worker), (1, 2));
    assert_eq!((*ramp, stop.time), (Duration::from_secs(5), Some(Duration::from_secs(10))));
    assert_eq!(s.target.unwrap().io, IoMode::Buffered);
    assert!(text.starts_with(&format!(
        "# Imported from t.xml by methodic {} (`methodic import diskspd`).",
        env!("CARGO_PKG_VERSION")
    )));
}

#[test]
fn random_writes_threads_depth_and_cache_flags() {
    let (p, text) = plan(&xml(
        "<Duration>120</Duration><Warmup>30</Warmup>",
        "<BlockSize>4096</BlockSize><Random>4096</Random><WriteRatio>30</WriteRatio>\
         <ThreadsPerFile>4</ThreadsPerFile><RequestCount>32</RequestCount>\
         <DisableOSCache>true</DisableOSCache><WriteThrough>true</WriteThrough>",
    ));
    let s = measure(&p);
    let Action::Measure { workload: w, qd, .. } = &s.action else { unreachable!() };
    assert_eq!((w.read, w.random, w.align), (Percent::whole(70), Percent::HUNDRED, Bytes(4096)));
    assert_eq!((qd.workers, qd.per_worker, qd.total), (4, 32, 128));
    assert_eq!(s.target.unwrap().io, IoMode::Direct);
    assert!(text.contains("  write_cache off\n"), "{text}");
}

#[test]
fn booleans_diskspd_reads_as_false_are_refused() {
    let e = refused(&xml("<MeasureLatency>1</MeasureLatency>", ""));
    assert_eq!(e[0].kind, ImportErrorKind::BadValue);
    assert!(e[0].detail.contains("reads only `true` as true"), "{}", e[0]);
    assert_eq!(e[0].line, 4);
}

#[test]
fn unknown_repeated_and_missing_elements_are_refused_with_their_lines() {
    let e = refused(&xml("<Duration>5</Duration><Duration>6</Duration>", "<Bogus>1</Bogus>"));
    assert!(e.iter().any(|e| e.detail.contains("given twice")), "{e:?}");
    assert!(e.iter().any(|e| e.kind == ImportErrorKind::UnknownOption && e.line == 8), "{e:?}");
    let e = refused(
        "<Profile><TimeSpans><TimeSpan><Targets><Target></Target></Targets></TimeSpan></TimeSpans></Profile>",
    );
    assert!(e[0].detail.contains("has no <Path>"), "{}", e[0]);
    let e = refused("<Profile xmlns=\"urn:x\"/>");
    assert!(e[0].detail.contains("namespace"), "{}", e[0]);
    let e = refused("<Profile><TimeSpans>");
    assert_eq!(e[0].kind, ImportErrorKind::Syntax);
}

#[test]
fn large_unsigned_ints_are_refused_as_diskspd_saturates_them() {
    let e = refused(&xml("", "<BlockSize>3000000000</BlockSize>"));
    assert!(e[0].detail.contains("2147483647"), "{}", e[0]);
}

#[test]
fn time_spans_are_phases_in_order() {
    let text = "<Profile><TimeSpans>\
        <TimeSpan><Duration>3</Duration><Warmup>0</Warmup><Targets><Target><Path>a.dat</Path></Target></Targets></TimeSpan>\
        <TimeSpan><Duration>4</Duration><Targets><Target><Path>a.dat</Path><Random>0</Random></Target></Targets></TimeSpan>\
        </TimeSpans></Profile>";
    let (p, _) = plan(text);
    let phases: Vec<(String, Option<Duration>)> = p
        .steps
        .iter()
        .map(|s| {
            let Action::Measure { stop, .. } = &s.action else { unreachable!() };
            (s.phase.clone().unwrap(), stop.time)
        })
        .collect();
    assert_eq!(
        phases,
        [
            ("time span 1".to_string(), Some(Duration::from_secs(3))),
            ("time span 2".to_string(), Some(Duration::from_secs(4)))
        ]
    );
}

#[test]
fn two_targets_are_a_together_step_on_two_devices() {
    let text = "<Profile><TimeSpans><TimeSpan><Targets>\
        <Target><Path>*1</Path><Random>0</Random><ThreadsPerFile>2</ThreadsPerFile><RequestCount>8</RequestCount></Target>\
        <Target><Path>*2</Path><BurstSize>32</BurstSize><ThinkTime>20</ThinkTime></Target>\
        </Targets></TimeSpan></TimeSpans></Profile>";
    let (p, text) = plan(text);
    let Action::Together { jobs, .. } = &p.steps[0].action else { panic!("{text}") };
    let each: Vec<(u32, u32, u32)> = jobs.iter().map(|j| (j.qd.per_worker, j.workers, j.device)).collect();
    assert_eq!(each, [(8, 2, 0), (2, 1, 1)]);
    let think = jobs[1].pauses.think.unwrap();
    assert_eq!((think.pause_ns, think.every), (20_000_000, 32));
    assert!(text.contains("# - device 2: *2"), "{text}");
}

#[test]
fn the_burst_is_split_over_the_threads() {
    let (p, _) = plan(&xml(
        "",
        "<ThreadsPerFile>4</ThreadsPerFile><Random>0</Random><BurstSize>10</BurstSize><ThinkTime>5</ThinkTime>",
    ));
    let Action::Measure { pauses, .. } = &measure(&p).action else { unreachable!() };
    assert_eq!(pauses.think.unwrap().every, 2, "10 / 4 threads, rounded down");
    let e = refused(&xml("", "<BurstSize>10</BurstSize>"));
    assert_eq!(e[0].kind, ImportErrorKind::Conflict);
}

#[test]
fn throughput_in_bytes_a_millisecond_and_in_iops() {
    let (p, _) = plan(&xml(
        "",
        "<BlockSize>4096</BlockSize><Random>0</Random><ThreadsPerFile>2</ThreadsPerFile><Throughput>1000</Throughput>",
    ));
    let Action::Measure { rate, .. } = &measure(&p).action else { unreachable!() };
    // 1000 bytes a millisecond a thread: 2MB/s in all.
    assert_eq!(rate.unwrap().amount, RateAmount::Bandwidth(Bytes(2_000_000)));
    let (p, _) = plan(&xml(
        "",
        "<BlockSize>8192</BlockSize><Random>0</Random><ThreadsPerFile>4</ThreadsPerFile><Throughput unit=\"IOPS\">2500</Throughput>",
    ));
    let Action::Measure { rate, .. } = &measure(&p).action else { unreachable!() };
    assert_eq!(rate.unwrap().amount, RateAmount::Iops(10_000));
    // 128KiB x 10 IOPS = 1310.72 B/ms: DiskSpd keeps 1310.
    let (p, text) = plan(&xml(
        "",
        "<BlockSize>131072</BlockSize><Random>0</Random><Throughput unit=\"IOPS\">10</Throughput>",
    ));
    let Action::Measure { rate, .. } = &measure(&p).action else { unreachable!() };
    assert_eq!(rate.unwrap().amount, RateAmount::Bandwidth(Bytes(1_310_000)), "{text}");
    // 1MiB x 5000 wraps in 32 bits.
    let e = refused(&xml("", "<BlockSize>1048576</BlockSize><Throughput unit=\"IOPS\">5000</Throughput>"));
    assert!(e[0].detail.contains("wraps"), "{}", e[0]);
}

#[test]
fn percent_distributions_are_bands_with_diskspds_tail() {
    let (p, _) = plan(&xml(
        "",
        "<Random>0</Random><Distribution><Percent><Range IO=\"80\">10</Range><Range IO=\"0\">10</Range></Percent></Distribution>",
    ));
    let Action::Measure { workload: w, .. } = &measure(&p).action else { unreachable!() };
    let Access::Bands(b) = &w.access else { panic!("{:?}", w.access) };
    assert_eq!(b.len(), 3);
    let e = refused(&xml(
        "",
        "<Random>0</Random><Distribution><Absolute><Range IO=\"100\">4096</Range></Absolute></Distribution>",
    ));
    assert!(e[0].detail.contains("-rdabs"), "{}", e[0]);
    let e = refused(&xml("", "<Distribution><Percent><Range IO=\"80\">10</Range></Percent></Distribution>"));
    assert!(e[0].detail.contains("sequential"), "{}", e[0]);
}

#[test]
fn sequential_threads_share_a_stream_or_are_refused() {
    let (p, text) = plan(&xml(
        "",
        "<ThreadsPerFile>4</ThreadsPerFile><RequestCount>8</RequestCount><InterlockedSequential>true</InterlockedSequential>",
    ));
    let Action::Measure { qd, .. } = &measure(&p).action else { unreachable!() };
    assert_eq!((qd.workers, qd.per_worker), (1, 32), "{text}");
    let e = refused(&xml("", "<ThreadsPerFile>4</ThreadsPerFile>"));
    assert!(e[0].hint.as_ref().unwrap().contains("-si"), "{}", e[0]);
}

#[test]
fn a_thread_stride_of_the_region_over_the_threads_is_stripes() {
    let (p, text) = plan("diskspd -b64K -t4 -T1G -o2 -d10 -Sh -c4G a.dat");
    let Action::Measure { workload: w, qd, .. } = &measure(&p).action else { unreachable!() };
    assert_eq!((w.random, qd.workers, qd.per_worker), (Percent::ZERO, 4, 2), "{text}");
    let words = text.split_whitespace().filter(|w| *w != "#").collect::<Vec<_>>().join(" ");
    assert!(words.contains("4 workers each walking a stripe of 1GiB"), "{text}");
    // From a base offset, the region is what follows it.
    plan("diskspd -b64K -t2 -T2G -B1G -f5G -d10 -Sh #1");
    for (command, says) in [
        ("diskspd -b64K -t4 -T1G -c8G a.dat", "cover 4GiB of a region of 8GiB"),
        ("diskspd -b64K -t4 -T1G #1", "region is not stated"),
        ("diskspd -b64K -t2 -T96K -c192K a.dat", "not a whole number of blocks"),
    ] {
        let e = refused(command);
        assert_eq!(e[0].kind, ImportErrorKind::Untranslatable, "{command}");
        assert!(e[0].detail.contains(says), "{command}: {}", e[0].detail);
        assert!(e[0].hint.as_ref().unwrap().contains("-si"), "{}", e[0]);
    }
}

#[test]
fn write_content_becomes_data() {
    let (p, _) = plan(&xml(
        "",
        "<WriteRatio>100</WriteRatio><WriteBufferContent><Pattern>zero</Pattern></WriteBufferContent>",
    ));
    assert_eq!(measure(&p).target.unwrap().data, methodic_compiler::plan::DataPattern::Zeros);
    let i = import(&xml("", "<WriteRatio>100</WriteRatio>")).unwrap();
    assert!(i.warnings.iter().any(|w| w.contains("default pattern")), "{:?}", i.warnings);
    let i = import(&xml("<RandomWriteData>true</RandomWriteData>", "<WriteRatio>100</WriteRatio>")).unwrap();
    assert!(i.warnings.is_empty(), "{:?}", i.warnings);
}

#[test]
fn region_base_and_file_size() {
    let (p, _) =
        plan(&xml("", "<BaseFileOffset>1073741824</BaseFileOffset><MaxFileSize>5368709120</MaxFileSize>"));
    let s = measure(&p);
    let Action::Measure { workload: w, .. } = &s.action else { unreachable!() };
    assert_eq!(w.offset, Bytes(1 << 30));
    assert_eq!(s.target.unwrap().span, methodic_compiler::plan::Extent::Bytes(Bytes(5 << 30)));
    let e = refused(&xml("", "<BaseFileOffset>4096</BaseFileOffset><MaxFileSize>4096</MaxFileSize>"));
    assert_eq!(e[0].kind, ImportErrorKind::Conflict);
}

#[test]
fn things_methodic_cannot_do_are_refused_and_the_rest_noted() {
    let e = refused(&xml(
        "<Affinity><AffinityAssignment>0</AffinityAssignment></Affinity>",
        "<MemoryMappedIo>true</MemoryMappedIo>",
    ));
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e.iter().all(|e| e.hint.is_some()));
    let i = import(&xml(
        "<RandSeed>7</RandSeed><MeasureLatency>true</MeasureLatency>",
        "<UseLargePages>true</UseLargePages>",
    ))
    .unwrap();
    assert_eq!(i.dropped, 3);
    assert!(i.text.contains("<RandSeed>7</RandSeed> (line 4): not carried over"), "{}", i.text);
}

#[test]
fn command_lines_are_phases_too() {
    let (p, text) =
        plan("diskspd -b4K -d60 -W10 -o32 -t4 -r -w30 -Sh -L #1\ndiskspd -b128K -d5 -W0 -Su #1\n");
    assert_eq!(p.steps.len(), 2, "{text}");
    let Action::Measure { workload: w, qd, .. } = &p.steps[0].action else { unreachable!() };
    assert_eq!((w.read, qd.workers, qd.per_worker), (Percent::whole(70), 4, 32));
    assert_eq!(p.steps[0].phase.as_deref(), Some("command 1"));
    assert!(text.contains("- -L (line 1): not carried over"), "{text}");
}

#[test]
fn a_command_with_two_targets_runs_them_together() {
    let (p, _) = plan("diskspd -b16K -r -w20 -F8 -o4 -i64 -j10 -Sh -B1G:16G -W15 -d90 #3 #4");
    let Action::Together { jobs, .. } = &p.steps[0].action else { panic!() };
    let each: Vec<(u32, u32, u32, u32)> =
        jobs.iter().map(|j| (j.workers, j.qd.per_worker, j.device, j.pauses.think.unwrap().every)).collect();
    assert_eq!(each, [(8, 4, 0, 8), (8, 4, 1, 8)]);
}

#[test]
fn a_cooldown_before_more_writes_is_a_precondition() {
    let (p, _) = plan("diskspd -b4K -r -w100 -Su -Zr -d5 -C3 a.dat\ndiskspd -b4K -r -d5 a.dat\n");
    let kinds: Vec<&str> = p.steps.iter().map(|s| s.action.kind()).collect();
    assert_eq!(kinds, ["measure", "precondition", "measure"]);
}

#[test]
fn fuzzed_input_never_panics() {
    for text in [
        "<",
        "<Profile>",
        "diskspd",
        "-",
        "diskspd -b",
        "diskspd -g99999999999i #1",
        "\u{feff}<Profile/>",
        "diskspd -rdpct100/100:0/0 -r #1",
        "diskspd -o2147483647 -t2147483647 #1",
        "diskspd -g\u{e9}0i #1",
        "diskspd -\u{e9} #1",
        "diskspd -Xp.xml #1",
    ] {
        super::fuzz(text.as_bytes());
    }
}

#[test]
fn a_dash_x_line_reads_its_profile_with_the_paths_and_times_given() {
    let profile = "<Profile><TimeSpans><TimeSpan><Duration>60</Duration><Targets>\
        <Target><Path>*1</Path><Random>0</Random></Target><Target><Path>*2</Path></Target>\
        </Targets></TimeSpan></TimeSpans></Profile>";
    let include =
        |name: &str| if name == "p.xml" { Ok(profile.to_string()) } else { Err(format!("no {name}")) };
    let run = |text: &str| {
        let input = Input { text, file: "run.cmd", name: "x", vars: &[], include: &include };
        to_method(&input)
    };
    let i = run("diskspd -Xp.xml -d5 -W0 E:\\data.bin F:\\log.bin\n").unwrap();
    let p = methodic_compiler::compile(&i.text, &methodic_compiler::Options::default()).unwrap().plan;
    let Action::Together { jobs, stop, ramp, .. } = &p.steps[0].action else { panic!("{}", i.text) };
    assert_eq!((jobs.len(), stop.time, *ramp), (2, Some(Duration::from_secs(5)), Duration::ZERO));
    assert_eq!(p.steps[0].phase.as_deref(), Some("command 1, time span 1"));
    assert!(i.text.contains("# - device 1: E:\\data.bin"), "{}", i.text);
    let e = run("diskspd -Xp.xml -b4K E:\\a E:\\b E:\\c\n").unwrap_err();
    assert!(e.iter().any(|e| e.detail.contains("-b with -X")), "{e:?}");
    assert!(e.iter().any(|e| e.detail.contains("no template target")), "{e:?}");
    let e = run("diskspd -Xother.xml #1\n").unwrap_err();
    assert!(e[0].detail.contains("cannot read the profile: no other.xml"), "{}", e[0]);
}

/// Our example files, mutated a few bytes at a time: each imports or is
/// refused, never panics and never makes a methodology that does not
/// compile (an internal error).
#[test]
fn mutated_files_are_imported_or_refused_never_a_bug() {
    let seeds = [
        include_str!("../../../tests/diskspd/random4k-oltp.xml"),
        include_str!("../../../tests/diskspd/rpxml-output.xml"),
        include_str!("../../../tests/diskspd/err_two-phases-two-targets.xml"),
        include_str!("../../../tests/diskspd/err_five-commands.txt"),
        include_str!("../../../tests/diskspd/command-lines.txt"),
    ];
    let mut x: u64 = 424242;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let alphabet = b"<>/0123456789-abrsStwWdoiFOgZXhpBcfTj*#:^ \n\"'=%KMGTiu";
    for _ in 0..3000 {
        let s = seeds[(next() % 5) as usize].as_bytes();
        let mut v = s.to_vec();
        for _ in 0..(next() % 6 + 1) {
            let n = v.len().max(1);
            match next() % 4 {
                0 => {
                    let i = (next() as usize) % n;
                    if i < v.len() {
                        v[i] = alphabet[(next() as usize) % alphabet.len()];
                    }
                }
                1 => {
                    let i = (next() as usize) % n;
                    if i < v.len() {
                        v.remove(i);
                    }
                }
                2 => {
                    let i = (next() as usize) % (v.len() + 1);
                    v.insert(i, alphabet[(next() as usize) % alphabet.len()]);
                }
                _ => {
                    let i = (next() as usize) % n;
                    v.truncate(i.max(1));
                }
            }
        }
        let text = String::from_utf8_lossy(&v);
        if let Err(e) = import(&text)
            && let Some(i) = e.iter().find(|e| e.kind == ImportErrorKind::Internal)
        {
            panic!("{i}\nINPUT:\n{text}");
        }
    }
}

#[test]
fn each_warning_is_said_once() {
    let i = import("diskspd -b4K -r -w30 -g100 -Su #1 #2\ndiskspd -b4K -r -w30 -g100 -Su #1\n").unwrap();
    assert_eq!(i.warnings.len(), 2, "the default pattern and the rate: {:?}", i.warnings);
}
