//! A results directory whose files are damaged: a copy of a rehearsal of
//! the PTS-E throughput spec (fills, rounds steps, latency logs) with a
//! series cut off part way through a line, a rounds record with a line
//! that is no row and a latency log gone. `report` names each file and
//! what is wrong with it in the terminal, on the HTML page and in JSON,
//! and exits 3; with `--allow-incomplete` it exits 0 and still names
//! them; the charts those files would have drawn say why they are not
//! there. `compare` does the same for the series it charts.

use std::path::Path;

use crate::common::{self, methodic, text};

/// The damaged files, relative to the results directory.
const SERIES: &str = "series/1024kib/fill-seq1m_write.csv";
const ROUNDS: &str = "series/128kib/rounds-seq128k_write.rounds.csv";
const LOG: &str = "series/1024kib/rounds-seq1m_write.hlog";

/// A page's text as a reader sees it: what the HTML escapes, back.
fn unescaped(html: &str) -> String {
    html.replace("&#x2f;", "/").replace("&#x27;", "'").replace("&#x60;", "`").replace("&quot;", "\"")
}

/// Damages the copy's three files: the series' last line cut short, the
/// rounds' third line made no row, the log removed. What each error says,
/// by file.
fn damage(dir: &Path) -> [(&'static str, String); 3] {
    let series = std::fs::read_to_string(dir.join(SERIES)).unwrap();
    let lines = series.lines().count();
    assert!(lines >= 2, "a header and a row at least: {series}");
    std::fs::write(dir.join(SERIES), &series[..series.len() - 10]).unwrap();
    let rounds = std::fs::read_to_string(dir.join(ROUNDS)).unwrap();
    let mut rows: Vec<String> = rounds.lines().map(str::to_string).collect();
    rows[2] = format!("x{}", rows[2]);
    std::fs::write(dir.join(ROUNDS), rows.join("\n") + "\n").unwrap();
    std::fs::remove_file(dir.join(LOG)).unwrap();
    [
        (SERIES, format!("ends part way through line {lines}, `")),
        (ROUNDS, "line 3 is not a row of a cell in a round: `x1,2,".to_string()),
        (LOG, "is missing".to_string()),
    ]
}

#[test]
fn report_and_compare_name_each_file_they_could_not_read_and_exit_3_unless_allowed() {
    let whole = common::rehearsal("snia-pts-e-throughput");
    let dir = common::rehearsal_copy("snia-pts-e-throughput", "report-unreadable");
    let d = dir.to_str().unwrap();
    // Whole, nothing is said and the exit code is 0.
    let o = methodic(&["report", d]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(!text(&o.stdout).contains("INCOMPLETE") && o.stderr.is_empty(), "{}", text(&o.stderr));
    let wrong = damage(&dir);

    // The terminal: under the run's header, each file and what is wrong;
    // standard error says the same, and the exit code is 3.
    let o = methodic(&["report", d]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(
        out.contains("INCOMPLETE: 3 files of this run could not be read, and what they hold is missing from this report:\n"),
        "{out}"
    );
    assert!(err.starts_with("error: the report is incomplete: 3 files of "), "{err}");
    assert!(err.contains("the exit code is 3 (with --allow-incomplete, 0)"), "{err}");
    for (file, error) in &wrong {
        for (what, said) in [("stdout", &out), ("stderr", &err)] {
            let line = said.lines().find(|l| l.starts_with(&format!("  {file} ("))).unwrap_or_else(|| {
                panic!("{what} names {file}: {said}");
            });
            assert!(line.contains(&format!("): {error}")), "{what}: {line}");
        }
    }
    assert!(
        out.contains("│ 1024kib/rounds-seq1m_write"),
        "the numbers the records hold are still shown: {out}"
    );

    // The HTML page: a banner at its head names each; the fill's chart and
    // the rounds' convergence say why they are not drawn from them.
    let page = dir.join("report.html");
    let o = methodic(&["report", d, "--format", "html", "-o", page.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    let html = unescaped(&std::fs::read_to_string(&page).unwrap());
    let banner =
        html.find("<div class=\"banner failed\" id=\"unreadable\"><strong>Incomplete:</strong> 3 files");
    assert!(
        banner.is_some_and(|at| at < html.find("<h2>Test setup</h2>").unwrap()),
        "at the head of the page"
    );
    for (file, error) in &wrong {
        assert!(html.contains(&format!("<li><code>{file}</code> (")), "{file}");
        assert!(html.contains(&format!("): {error}")), "{file}: {error}");
    }
    assert!(
        html.contains(&format!("No chart: {SERIES} could not be read ({}", wrong[0].1)),
        "the fill's plot says why it has no chart"
    );
    assert!(html.contains(&format!("The rounds' record, {ROUNDS} could not be read (")), "the convergence");

    // Told to go on: the same report and words, and 0.
    let o = methodic(&["report", d, "--allow-incomplete"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("INCOMPLETE: 3 files of this run"), "{}", text(&o.stdout));
    let err = text(&o.stderr);
    assert!(err.starts_with("warning: the report is incomplete: 3 files of "), "{err}");
    assert!(wrong.iter().all(|(file, _)| err.contains(&format!("  {file} ("))), "{err}");
    let o = methodic(&["report", d, "--format", "json", "--allow-incomplete"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON alone on stdout");
    let listed: Vec<&str> =
        v["unreadable"].as_array().unwrap().iter().map(|u| u["path"].as_str().unwrap()).collect();
    assert_eq!(listed, [SERIES, LOG, ROUNDS], "in step order");
    let o = methodic(&["report", d, "--format", "fio-json", "--allow-incomplete"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["methodic"]["unreadable"].as_array().map(Vec::len), Some(3), "fio-json names them too");

    // compare reads the series it charts: the fill's, by its run's letter.
    let w = whole.to_str().unwrap();
    let o = methodic(&["compare", w, d]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains(&format!(
            "INCOMPLETE: 1 file of these runs could not be read, and what it holds is missing from this \
             comparison:\n  B: {SERIES} (series of step 1024kib/fill-seq1m_write): {}",
            wrong[0].1
        )),
        "{out}"
    );
    assert!(text(&o.stderr).contains(&format!("  B ({d}): {SERIES} (")), "{}", text(&o.stderr));
    let o = methodic(&["compare", w, d, "--format", "html", "--allow-incomplete"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let html = unescaped(&text(&o.stdout));
    assert!(html.contains("<strong>Incomplete:</strong> 1 file of these runs"), "the page's head");
    assert!(html.contains(&format!("B's series, {SERIES} could not be read (")), "under the fill's chart");
    std::fs::remove_dir_all(&dir).unwrap();
}
