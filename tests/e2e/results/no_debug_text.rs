//! No Rust spelling where a person reads: what the commands print to a
//! person (check, also of every methodology in tests/errors; plan; run;
//! report as a table and as Markdown; compare; diff) and the manifest.json
//! a run writes are searched for Rust variant and Debug spellings
//! (`StepAverage`, `Some(`, `A Decimal; B Binary`, `Bytes(`), over two
//! rehearsals of specs/quick.method that differ in their conventions.
//! Words the machine gives (its host name, CPU and device model) are not
//! methodic's and are let through. Also: a plan written with the older
//! spellings (before the plan's enums took the language's words) still
//! reads.

use std::path::Path;
use std::process::Output;

use methodic_compiler::plan::{Action, Aggregate, DataPattern, IoMode, Metric, QdCounting, Units, ValueKind};

use crate::common;
use common::{methodic, temp_dir, text};

/// Words that look like Rust names and are not, each for a reason. (Unit
/// and acronym spellings, `MiB`, `GiB`, `IOPS`, `QD`, are not Rust's shape
/// and need no entry.)
const ALLOWED: &[&str] = &[
    // The latency library, named as its own log format is named
    // (docs/RESULTS.md, "Latency"), should a note name it.
    "HdrHistogram",
];

/// The Debug names of the enums whose values reach the output: a bare one
/// of these, capitalised inside a sentence, is a value printed with `{:?}`.
fn variant_names() -> Vec<String> {
    use methodic_compiler::plan::EraseMethod;
    let mut names: Vec<String> = Vec::new();
    names.extend([Units::Decimal, Units::Binary].map(|v| format!("{v:?}")));
    names.extend([QdCounting::Total, QdCounting::PerWorker].map(|v| format!("{v:?}")));
    names.extend(
        [ValueKind::StepAverage, ValueKind::SteadyStateAverage, ValueKind::Peak].map(|v| format!("{v:?}")),
    );
    names.extend([IoMode::Direct, IoMode::Buffered].map(|v| format!("{v:?}")));
    names.extend([EraseMethod::Secure, EraseMethod::Discard].map(|v| format!("{v:?}")));
    names.extend(
        [Aggregate::Mean, Aggregate::Median, Aggregate::Max, Aggregate::Min].map(|v| format!("{v:?}")),
    );
    names.extend([Metric::Iops, Metric::Bandwidth, Metric::Latency].map(|v| format!("{v:?}")));
    names.extend([DataPattern::Random, DataPattern::Zeros].map(|v| format!("{v:?}")));
    names.push(format!("{:?}", Action::DropCaches));
    // Variants that carry data, whose Debug text is more than their name
    // (plan step actions, extents, precondition stops).
    names.extend(
        [
            "Erase",
            "Fill",
            "Precondition",
            "Measure",
            "Rounds",
            "Idle",
            "LimitRam",
            "Copy",
            "Probe",
            "Percent",
            "Bytes",
            "Compressible",
            "Time",
            "Steady",
        ]
        .map(String::from),
    );
    names.extend(
        [
            methodic_results::record::Status::Running,
            methodic_results::record::Status::Completed,
            methodic_results::record::Status::Failed,
            methodic_results::record::Status::Interrupted,
        ]
        .map(|v| format!("{v:?}")),
    );
    names
}

/// What in `text` is spelled as Rust spells it: a word of two or more
/// capitalised parts (`StepAverage`), `Some(`, `None`, `Ok(`, `Err(`, a
/// capitalised word right before `(` or ` {` (`Bytes(4096)`, `Step { `),
/// and an enum variant's Debug name inside a sentence (`A Decimal`,
/// `units: Binary`), not where a sentence, line or cell starts. Words in
/// `machine` (the host's and device's own strings) and [`ALLOWED`] pass.
fn rust_spellings(text: &str, variants: &[String], machine: &str) -> Vec<String> {
    let mut found = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_alphanumeric() || (i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        let next = chars.get(i).copied();
        let after: String = chars[i..chars.len().min(i + 2)].iter().collect();
        let before: String = chars[start.saturating_sub(2)..start].iter().collect();
        let capital = word.starts_with(|c: char| c.is_ascii_uppercase());
        // `StepAverage`, `PerWorker`, `IoUring`: a second capitalised part
        // (not `MiB`, whose capital ends it).
        let w: Vec<char> = word.chars().collect();
        let joined = capital
            && w.windows(3)
                .any(|t| t[0].is_ascii_lowercase() && t[1].is_ascii_uppercase() && t[2].is_ascii_lowercase());
        let option = matches!(word.as_str(), "Some" | "Ok" | "Err") && next == Some('(') || word == "None";
        let constructor = capital
            && word.chars().skip(1).any(|c| c.is_ascii_lowercase())
            && (next == Some('(') || after == " {");
        // Inside a sentence: after a word, a comma, a colon, a letter such
        // as A or B, not after a full stop or at the start of a line or cell.
        let inside = before.chars().count() == 2
            && before.ends_with(' ')
            && before.starts_with(|c: char| c.is_alphanumeric() || ",;:=(".contains(c));
        let variant = inside && variants.contains(&word);
        if (joined || option || constructor || variant)
            && !ALLOWED.contains(&word.as_str())
            && !machine.contains(&word)
        {
            let line_start = text[..text.char_indices().nth(start).map_or(text.len(), |(b, _)| b)]
                .rfind('\n')
                .map_or(0, |n| n + 1);
            let line_end = text[line_start..].find('\n').map_or(text.len(), |n| line_start + n);
            found.push(format!("`{word}` in: {}", text[line_start..line_end].trim()));
        }
    }
    found
}

/// The manifest's strings and keys, as lines, without the machine's own
/// (host, target identity and path), which are returned apart.
fn manifest_words(manifest: &serde_json::Value) -> (String, String) {
    fn walk(v: &serde_json::Value, out: &mut String) {
        match v {
            // `= `: each string as a value inside a sentence, so that a
            // bare variant name is one.
            serde_json::Value::String(s) => out.push_str(&format!("= {s}\n")),
            serde_json::Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
            serde_json::Value::Object(o) => {
                for (k, v) in o {
                    out.push_str(&format!("= {k}\n"));
                    walk(v, out);
                }
            }
            _ => {}
        }
    }
    let mut ours = manifest.clone();
    let mut machine = String::new();
    if let Some(o) = ours.as_object_mut() {
        if let Some(h) = o.remove("host") {
            walk(&h, &mut machine);
        }
        for t in o.get_mut("targets").and_then(|t| t.as_array_mut()).into_iter().flatten() {
            for field in ["identity", "path"] {
                if let Some(v) = t.as_object_mut().and_then(|t| t.remove(field)) {
                    walk(&v, &mut machine);
                }
            }
        }
    }
    let mut words = String::new();
    walk(&ours, &mut words);
    (words, machine)
}

fn ok(o: &Output, what: &str) -> String {
    assert!(o.status.success(), "{what}: {}", text(&o.stderr));
    format!("{}\n{}", text(&o.stdout), text(&o.stderr))
}

/// The scanner finds what it is for: the sentences compare once printed,
/// Debug values, and not the words that only look alike.
#[test]
fn rust_spellings_are_found_and_words_are_not() {
    let v = variant_names();
    for bad in [
        "value kind: A StepAverage; B Peak",
        "units: A Decimal; B Binary",
        "span Some(Bytes(4096))",
        "stop: None",
        "engine IoUring",
        "steady: Steady { round: 60s }",
        "queue depth counted PerWorker",
    ] {
        assert!(!rust_spellings(bad, &v, "").is_empty(), "not found in `{bad}`");
    }
    for good in [
        "value kind: A step average; B peak",
        "Peak IOPS are the best interval. Binary units: MiB = 2^20 bytes",
        "IOPS (peak) and MiB/s (peak); the HdrHistogram log",
        "│ Direct I/O │ 4KiB random │",
        "host: MyBox (Intel(R) Xeon(R))",
    ] {
        assert_eq!(rust_spellings(good, &v, "MyBox Intel(R) Xeon(R)"), Vec::<String>::new(), "`{good}`");
    }
}

#[test]
fn what_a_person_reads_has_no_rust_spelling() {
    let dir = temp_dir("no-debug-text");
    // specs/quick.method with two of its four workloads (every kind of
    // step and output is still there, in half the time).
    let quick = std::fs::read_to_string(common::root().join("specs/quick.method")).unwrap();
    let small = quick.replace(
        "for w in [rnd4k_read, rnd4k_write, seq128k_read, seq128k_write]",
        "for w in [rnd4k_read, seq128k_write]",
    );
    assert_ne!(small, quick, "specs/quick.method's sweep changed: change it here too");
    let one = dir.join("quick.method");
    std::fs::write(&one, &small).unwrap();
    // Another convention, so that compare and diff have them to say.
    let other_src =
        small.replace("units binary", "units decimal").replace("value step_average", "value peak");
    assert_ne!(other_src, small, "specs/quick.method's conventions changed: change them here too");
    let other = dir.join("quick-peak.method");
    std::fs::write(&other, &other_src).unwrap();
    let (a, b) = (dir.join("a"), dir.join("b"));
    let d = |p: &Path| p.to_str().unwrap().to_string();

    let mut outputs: Vec<(String, String)> = Vec::new();
    let mut read = |what: &str, o: Output| outputs.push((what.to_string(), ok(&o, what)));
    read("check", methodic(&["check", &d(&one), &d(&other)]));
    read("plan", methodic(&["plan", &d(&one), "--capacity", "2TB"]));
    // The two rehearsals at once.
    let runs: Vec<Output> = std::thread::scope(|s| {
        let handles: Vec<_> = [(d(&one), d(&a)), (d(&other), d(&b))]
            .into_iter()
            .map(|(file, out)| {
                s.spawn(move || {
                    methodic(&["run", "--rehearse", "--no-ceiling", "--seed", "1", &file, "--out", &out])
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for o in runs {
        read("run --rehearse", o);
    }
    read("report", methodic(&["report", &d(&a)]));
    read("report --format md", methodic(&["report", &d(&b), "--format", "md"]));
    read("compare", methodic(&["compare", &d(&a), &d(&b)]));
    // Every diagnostic the tests know of, as `check` words it.
    let mut errors: Vec<String> = std::fs::read_dir(common::root().join("tests/errors"))
        .unwrap()
        .map(|e| d(&e.unwrap().path()))
        .filter(|p| p.ends_with(".method"))
        .collect();
    errors.sort();
    assert!(errors.len() > 10, "tests/errors holds the failing methodologies");
    let mut args = vec!["check"];
    args.extend(errors.iter().map(String::as_str));
    let check = methodic(&args);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stderr));
    outputs.push(("check tests/errors".into(), text(&check.stderr)));
    let diff = methodic(&["diff", &d(&one), &d(&other)]);
    assert!(matches!(diff.status.code(), Some(1 | 2)), "diff: {}", text(&diff.stderr));
    outputs.push(("diff".into(), format!("{}\n{}", text(&diff.stdout), text(&diff.stderr))));

    let variants = variant_names();
    let mut problems = Vec::new();
    let mut machine = String::new();
    for results in [&a, &b] {
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(results.join("manifest.json")).unwrap()).unwrap();
        let (words, theirs) = manifest_words(&m);
        machine.push_str(&theirs);
        outputs.push((format!("{}", results.join("manifest.json").display()), words));
    }
    for (what, out) in &outputs {
        problems.extend(rust_spellings(out, &variants, &machine).into_iter().map(|p| format!("{what}: {p}")));
    }
    assert!(problems.is_empty(), "Rust spellings where a person reads:\n{}", problems.join("\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A plan written before the plan's enums took the language's spelling
/// (`Measure(`, `StepAverage`, `PerWorker`) reads as the same plan.
#[test]
fn a_plan_in_the_older_spelling_still_reads() {
    let dir = temp_dir("no-debug-old-plan");
    let (new, old) = (dir.join("new.ron"), dir.join("old.ron"));
    let o = methodic(&["compile", "specs/enterprise-sweep.method", "-o", new.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let ron = std::fs::read_to_string(&new).unwrap();
    // Each value written as before, where a field's value or an option's
    // starts (field names keep their spelling: `random: 100.0`).
    let mut older = ron.clone();
    for (word, rust) in [
        ("measure(", "Measure("),
        ("precondition(", "Precondition("),
        ("fill(", "Fill("),
        ("erase(", "Erase("),
        ("percent(", "Percent("),
        ("bytes(", "Bytes("),
        ("time(", "Time("),
        ("steady(", "Steady("),
        ("step_average", "StepAverage"),
        ("per_worker", "PerWorker"),
        ("total", "Total"),
        ("direct", "Direct"),
        ("random", "Random"),
        ("discard", "Discard"),
        ("decimal", "Decimal"),
        ("binary", "Binary"),
        ("iops", "Iops"),
    ] {
        for start in [": ", "Some("] {
            for end in ["", ",", ")", "\n"] {
                if word.ends_with('(') == end.is_empty() {
                    older = older.replace(&format!("{start}{word}{end}"), &format!("{start}{rust}{end}"));
                }
            }
        }
    }
    assert_ne!(older, ron);
    for rust in ["Measure(", "Precondition(", "Percent(", "StepAverage", "Total", "Direct", "Random"] {
        assert!(older.contains(rust), "the older spelling has {rust}");
    }
    std::fs::write(&old, &older).unwrap();
    let shown = |p: &Path| {
        let o = methodic(&["plan", p.to_str().unwrap(), "--format", "csv"]);
        assert!(o.status.success(), "{}: {}", p.display(), text(&o.stderr));
        text(&o.stdout)
    };
    assert!(shown(&old) == shown(&new), "the same steps, times and writes");
    std::fs::remove_dir_all(&dir).unwrap();
}
