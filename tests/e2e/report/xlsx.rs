//! `report --format xlsx` and `compare --format xlsx` opened by
//! LibreOffice (headless, Debian's package): it reads the report's
//! numbers back as `report --format json` gives them (its own CSV of the
//! Results sheet), and draws every sheet and chart into a PDF, whose
//! pages name each sheet and each chart's title.

use std::path::Path;
use std::process::Command;

use super::{peak_and_average, quick};
use crate::common::{self, methodic, text};

/// `soffice --headless --convert-to TO` of `books` into `out`, with a
/// profile of its own (two at once would share the user's, and wait).
fn convert(out: &Path, to: &str, books: &[&Path]) {
    let profile = format!("file://{}", out.join("profile").display());
    let o = Command::new("soffice")
        .arg(format!("-env:UserInstallation={profile}"))
        .args(["--headless", "--convert-to", to, "--outdir"])
        .arg(out)
        .args(books)
        .output()
        .expect("soffice runs");
    assert!(o.status.success(), "soffice --convert-to {to}: {}{}", text(&o.stdout), text(&o.stderr));
}

/// Each page of `pdf` as text.
fn pages(pdf: &Path) -> Vec<String> {
    let info = Command::new("pdfinfo").arg(pdf).output().expect("pdfinfo runs");
    let n: usize = text(&info.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{}: {}", pdf.display(), text(&info.stdout)));
    (1..=n)
        .map(|p| {
            let p = p.to_string();
            let o = Command::new("pdftotext").args(["-f", &p, "-l", &p]).arg(pdf).arg("-").output().unwrap();
            text(&o.stdout)
        })
        .collect()
}

/// Each sheet prints with its name atop its first page (the page
/// header); a sheet of charts draws each chart's title.
fn check_sheets(pages: &[String], sheets: &[&str], titles: &[String]) {
    let firsts: Vec<&str> = pages.iter().map(|p| p.lines().next().unwrap_or("")).collect();
    for sheet in sheets {
        assert!(firsts.contains(sheet), "a page of sheet {sheet}: {firsts:?}");
    }
    let all = pages.concat();
    for title in titles {
        assert!(all.contains(title.as_str()), "the chart {title:?} drawn: {all}");
    }
}

#[test]
fn report_and_compare_workbooks_open_in_libreoffice_with_their_numbers_and_charts() {
    if !common::require_tool("soffice")
        || !common::require_tool("pdftotext")
        || !common::require_tool("pdfinfo")
    {
        return;
    }
    let averaged = std::thread::spawn(|| peak_and_average().clone());
    let dir = quick();
    let out = common::temp_dir("xlsx");
    let book = out.join("quick.xlsx");
    let o = methodic(&["report", dir.to_str().unwrap(), "--format", "xlsx", "-o", book.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stderr), format!("wrote {} (xlsx)\n", book.display()));
    // To a pipe, the workbook's bytes (a zip); a terminal is refused.
    let piped = methodic(&["report", dir.to_str().unwrap(), "--format", "xlsx"]);
    assert!(piped.status.success() && piped.stdout.starts_with(b"PK\x03\x04"), "{}", text(&piped.stderr));
    if common::require_tool("script") {
        // script(1) gives methodic a terminal for its standard output.
        let line = format!("{} report {} --format xlsx", env!("CARGO_BIN_EXE_methodic"), dir.display());
        let o = Command::new("script").args(["-q", "-e", "-c", &line, "/dev/null"]).output().unwrap();
        assert!(!o.status.success(), "refused");
        assert!(
            text(&o.stdout).contains("--format xlsx makes a binary file, which a terminal cannot show: write it to a file with -o FILE.xlsx"),
            "{}",
            text(&o.stdout)
        );
    }

    // LibreOffice's reading of the Results sheet: the figures of the JSON
    // report, every digit.
    convert(&out, "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1", &[&book]);
    let csv = std::fs::read_to_string(out.join("quick-Results.csv")).unwrap();
    let json = methodic(&["report", dir.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let points = v["points"].as_array().unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip_while(|l| !l.starts_with("#,step,"))
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), points.len(), "{csv}");
    for (row, p) in rows.iter().zip(points) {
        assert_eq!(row[1], p["id"].as_str().unwrap());
        let (sheet, report): (f64, f64) = (row[6].parse().unwrap(), p["iops"].as_f64().unwrap());
        assert!(
            (sheet - report).abs() <= report * 1e-12,
            "{}: {sheet} in the sheet, {report} reported",
            row[1]
        );
    }

    // Three runs compared: ranked, with their latency distributions.
    let (peak, average) = averaged.join().unwrap();
    let compared = out.join("compared.xlsx");
    let o = methodic(&[
        "compare",
        average.to_str().unwrap(),
        peak.to_str().unwrap(),
        dir.to_str().unwrap(),
        "--format",
        "xlsx",
        "-o",
        compared.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let rankings = methodic(&[
        "compare",
        average.to_str().unwrap(),
        peak.to_str().unwrap(),
        dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let c: serde_json::Value = serde_json::from_slice(&rankings.stdout).unwrap();

    convert(&out, "pdf", &[&book, &compared]);
    let titles: Vec<String> = [
        "measure: IOPS (avg) by queue depth",
        "measure: mean latency (µs) by queue depth",
        "prepare/fill-seq128k_write: MiB/s each interval",
        "measure: rnd4k_read, latency by queue depth",
    ]
    .map(String::from)
    .into();
    let sheets = ["Run", "Results", "Sweeps", "Matrices", "Series", "Latency", "Checklist"];
    check_sheets(&pages(&out.join("quick.pdf")), &sheets, &titles);
    let ranked: Vec<String> =
        c["rankings"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap().to_string()).collect();
    assert!(!ranked.is_empty(), "{c}");
    // A chart's title wraps where it is long: its first words are on a line.
    let firsts: Vec<String> = ranked.iter().map(|l| l.split(" (").next().unwrap().to_string()).collect();
    check_sheets(&pages(&out.join("compared.pdf")), &["Runs", "Compared", "Ranked", "Latency"], &firsts);
    std::fs::remove_dir_all(&out).unwrap();
}
