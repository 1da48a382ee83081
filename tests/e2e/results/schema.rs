//! The JSON Schemas in docs/schema/: made from the types that write each
//! document (`methodic_results::schema`), kept equal to those files (with
//! METHODIC_UPDATE_SCHEMAS=1 the test rewrites them), and every document
//! of a real run validated against them by boon, a JSON Schema 2020-12
//! validator that shares no code with schemars: every spec's plan, and a
//! rehearsal of specs/quick.method's manifest.json, steps.jsonl,
//! results.json and its `run`, `report`, `compare`, `plan`, `compile` and
//! `diff` output as JSON (and `crosscheck`'s, made here: it needs fio);
//! and documents the schemas must refuse, refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use methodic_compiler::{Options, compile};
use methodic_results::export::{Exports, Format};
use methodic_results::schema::documents;
use methodic_results::view::crosscheck::Crosscheck;
use serde_json::{Value, json};

use crate::common::{self, methodic, text};

/// Set to rewrite docs/schema/ from the types, after a change to them.
const UPDATE: &str = "METHODIC_UPDATE_SCHEMAS";

fn schema_dir() -> PathBuf {
    common::root().join("docs/schema")
}

#[test]
fn the_schemas_in_docs_are_the_ones_the_types_make() {
    let dir = schema_dir();
    let update = std::env::var_os(UPDATE).is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for d in documents() {
        let path = dir.join(d.file);
        let made = d.to_json();
        let kept = std::fs::read_to_string(&path).unwrap_or_default();
        if made == kept {
            continue;
        }
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &made).unwrap();
            continue;
        }
        let line = made
            .lines()
            .zip(kept.lines())
            .position(|(a, b)| a != b)
            .map_or_else(|| made.lines().count().min(kept.lines().count()) + 1, |i| i + 1);
        stale.push(format!("docs/schema/{} (first difference at line {line})", d.file));
    }
    let files: Vec<&str> = documents().iter().map(|d| d.file).collect();
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if !files.contains(&name.as_str()) {
            stale.push(format!("docs/schema/{name} (no type makes it: remove it)"));
        }
    }
    let doc = std::fs::read_to_string(common::root().join("docs/RESULTS.md")).unwrap();
    let section = doc.split("\n## Schemas\n").nth(1).and_then(|s| s.split("\n## ").next()).unwrap_or("");
    for f in &files {
        if !section.contains(&format!("| `{f}` |")) {
            stale.push(format!("docs/schema/{f} (not in docs/RESULTS.md's Schemas table)"));
        }
    }
    assert!(
        stale.is_empty(),
        "docs/schema/ is not what the types make:\n  {}\nafter a change to the types, write the schemas anew \
         with `{UPDATE}=1 cargo test --test e2e schema` and review `git diff docs/schema`",
        stale.join("\n  ")
    );
}

/// The schemas compiled by boon, by file name: those the types make,
/// which the test above keeps equal to docs/schema/ (read from the types,
/// not the files, so that a run that rewrites the files races with none).
struct Validator {
    schemas: boon::Schemas,
    index: BTreeMap<&'static str, boon::SchemaIndex>,
}

impl Validator {
    fn get() -> &'static Validator {
        static V: OnceLock<Validator> = OnceLock::new();
        V.get_or_init(|| {
            let mut compiler = boon::Compiler::new();
            let mut schemas = boon::Schemas::new();
            let docs = documents();
            for d in &docs {
                compiler.add_resource(&d.id(), d.schema.as_value().clone()).unwrap();
            }
            let index = docs
                .iter()
                .map(|d| {
                    let i = compiler
                        .compile(&d.id(), &mut schemas)
                        .unwrap_or_else(|e| panic!("{}: {e:#}", d.file));
                    (d.file, i)
                })
                .collect();
            Validator { schemas, index }
        })
    }

    /// Why `doc` does not validate against `file`, if it does not.
    fn errors(&self, file: &str, doc: &Value) -> Option<String> {
        let i = *self.index.get(file).unwrap_or_else(|| panic!("no docs/schema/{file}"));
        self.schemas.validate(doc, i).err().map(|e| format!("{e:#}"))
    }

    /// Fails naming `what` when `doc` does not validate against `file`.
    fn check(&self, file: &str, what: &str, doc: &Value) {
        if let Some(e) = self.errors(file, doc) {
            panic!("{what} does not validate against docs/schema/{file}:\n{e}");
        }
    }

    /// Fails when `doc` validates against `file`: the schema must refuse it.
    fn refuses(&self, file: &str, what: &str, doc: &Value) {
        assert!(self.errors(file, doc).is_some(), "docs/schema/{file} takes {what}");
    }
}

fn parse(what: &str, text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{what} is not JSON: {e}\n{text}"))
}

/// Every spec's plan, compiled in process and written as JSON, validates;
/// a plan with a field of another type or one too many does not.
#[test]
fn every_specs_plan_validates_and_a_wrong_plan_does_not() {
    let v = Validator::get();
    let mut specs: Vec<PathBuf> = std::fs::read_dir(common::root().join("specs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "method"))
        .collect();
    specs.sort();
    assert!(specs.len() > 10, "the specs are there: {specs:?}");
    for path in &specs {
        let src = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        let plan = compile(&src, &Options::default()).unwrap_or_else(|_| panic!("{name} compiles")).plan;
        v.check("plan.schema.json", &format!("the plan of {name}"), &parse(&name, &plan.to_json()));
    }
    let quick = std::fs::read_to_string(common::root().join("specs/quick.method")).unwrap();
    let plan = parse("quick", &compile(&quick, &Options::default()).unwrap().plan.to_json());
    let mut wrong = plan.clone();
    wrong["steps"][1]["action"]["fill"]["passes"] = json!("once");
    v.refuses("plan.schema.json", "a fill's passes as a string", &wrong);
    let mut wrong = plan.clone();
    wrong["steps"][2]["action"]["measure"]["ramp"] = json!("1 second");
    v.refuses("plan.schema.json", "a duration not in methodic's spelling", &wrong);
    let mut wrong = plan;
    wrong["target"]["queue"] = json!(4);
    v.refuses("plan.schema.json", "a target setting that does not exist", &wrong);
}

/// One rehearsal of specs/quick.method with two of its four workloads and
/// a tenth of its times (every kind of step and record is still there; a
/// rehearsal shrinks a plan to about 5 s, and this one to 2), its `run
/// --format json` output kept.
fn quick() -> &'static (PathBuf, String) {
    static RUN: OnceLock<(PathBuf, String)> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("schema-quick");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let quick = std::fs::read_to_string(common::root().join("specs/quick.method")).unwrap();
        let small = quick
            .replace(
                "for w in [rnd4k_read, rnd4k_write, seq128k_read, seq128k_write]",
                "for w in [rnd4k_read, seq128k_write]",
            )
            .replace("ramp 1s record 2s", "ramp 100ms record 200ms");
        assert!(
            small.contains("[rnd4k_read, seq128k_write]") && small.contains("record 200ms"),
            "specs/quick.method's sweep changed: change it here too"
        );
        let file = dir.join("quick.method");
        std::fs::write(&file, small).unwrap();
        let out = dir.join("results");
        let o = methodic(&[
            "run",
            "--rehearse",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--format",
            "json",
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        (out, text(&o.stdout))
    })
}

/// Runs `methodic ARGS` and its standard output, which must be JSON lines
/// (`lines`) or one JSON document.
fn json_output(args: &[&str], lines: bool) -> Vec<Value> {
    let o = methodic(args);
    assert!(o.status.success() || args[0] == "diff", "{args:?}: {}", text(&o.stderr));
    let out = text(&o.stdout);
    let what = format!("methodic {}", args.join(" "));
    if lines { out.lines().map(|l| parse(&what, l)).collect() } else { vec![parse(&what, &out)] }
}

/// An imported result's documents (fio's json+, through `methodic import
/// fio`, with a `together` step whose jobs have no engine or series of
/// their own) validate, and so do report and compare of it as JSON.
#[test]
fn an_imported_results_documents_validate() {
    let v = Validator::get();
    let dir = common::temp_dir("schema-imported");
    let json = dir.join("fio.json");
    let fixture =
        std::fs::read_to_string(common::root().join("tests/fio-results/fio-3.33-exported.json")).unwrap();
    // Its two jobs in one group: a together step.
    std::fs::write(&json, fixture.replacen("\"groupid\" : 1", "\"groupid\" : 0", 1)).unwrap();
    let out = dir.join("imported");
    let o = methodic(&["import", "fio", json.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    let manifest = parse("manifest.json", &read("manifest.json"));
    v.check("manifest.schema.json", "an imported manifest.json", &manifest);
    assert_eq!(manifest["imported"]["tool"], "fio");
    for (i, line) in read("steps.jsonl").lines().enumerate() {
        v.check(
            "step-result.schema.json",
            &format!("line {} of the imported steps.jsonl", i + 1),
            &parse("steps", line),
        );
    }
    v.check(
        "results.schema.json",
        "the imported results.json",
        &parse("results.json", &read("results.json")),
    );
    let d = out.to_str().unwrap();
    for (args, file) in [
        (&["report", d, "--format", "json"][..], "report.schema.json"),
        (&["compare", d, d, "--format", "json"][..], "compare.schema.json"),
    ] {
        let o = methodic(args);
        assert!(o.status.success(), "{}: {}", args.join(" "), text(&o.stderr));
        v.check(file, &args.join(" "), &parse(file, &text(&o.stdout)));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A rehearsal's manifest, each step record and results.json validate, and
/// so do what `run`, `report`, `compare` (of the run with itself), `plan`,
/// `diff` and `crosscheck` write as JSON; a manifest with a field of the
/// wrong type does not.
#[test]
fn a_rehearsals_documents_and_every_json_output_validate() {
    let v = Validator::get();
    let (dir, ran) = quick();
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();

    let manifest = parse("manifest.json", &read("manifest.json"));
    v.check("manifest.schema.json", "manifest.json", &manifest);
    v.check("plan.schema.json", "manifest.json's plan", &manifest["plan"]);
    assert!(manifest["ceilings"].is_object(), "the rehearsal measured the host ceilings");
    v.check("ceilings.schema.json", "manifest.json's ceilings", &manifest["ceilings"]);
    let steps = read("steps.jsonl");
    assert_eq!(steps.lines().count(), 6, "an erase, a fill and four measurements: {steps}");
    for (i, line) in steps.lines().enumerate() {
        v.check("step-result.schema.json", &format!("line {} of steps.jsonl", i + 1), &parse("steps", line));
    }
    v.check("results.schema.json", "results.json", &parse("results.json", &read("results.json")));
    v.check("results.schema.json", "methodic run --format json", &parse("run", ran));

    let d = dir.to_str().unwrap();
    for (args, file, lines) in [
        (&["report", d, "--format", "json"][..], "report.schema.json", false),
        (&["compare", d, d, "--format", "json"][..], "compare.schema.json", false),
        (&["plan", "specs/quick.method", "--format", "json"][..], "plan-steps.schema.json", true),
        (&["compile", "specs/quick.method", "--format", "json"][..], "plan.schema.json", false),
        (
            &["diff", "specs/consumer-v1.0.method", "specs/consumer-v1.1.method", "--format", "json"][..],
            "diff.schema.json",
            false,
        ),
    ] {
        let docs = json_output(args, lines);
        assert!(!docs.is_empty(), "{args:?} wrote nothing");
        for doc in &docs {
            v.check(file, &format!("methodic {}", args.join(" ")), doc);
        }
    }

    // crosscheck runs fio: its result made here, written as the command writes it.
    let check = Crosscheck {
        step: "measure/rnd4k_read-qd1".into(),
        target: "/dev/nvme0n1".into(),
        engine: "psync 1x1".into(),
        methodic_iops: vec![10250.0, 10310.5],
        fio_iops: vec![10100.0, 10200.0],
        methodic_median: 10280.25,
        fio_median: 10150.0,
        ratio: 1.0128,
        agree: true,
        fio_version: "fio-3.36".into(),
    };
    v.check(
        "crosscheck.schema.json",
        "crosscheck",
        &parse("crosscheck", &check.export(Format::Json).unwrap()),
    );

    let mut wrong = manifest.clone();
    wrong["seconds"] = json!("fast");
    v.refuses("manifest.schema.json", "a manifest whose seconds are a string", &wrong);
    let mut wrong = manifest;
    wrong["steps"][0]["status"] = json!("done");
    v.refuses("manifest.schema.json", "a step status methodic does not write", &wrong);
}
