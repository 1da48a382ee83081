//! Output formats: a result (a [`Report`](crate::view::report::Report), a
//! [`Comparison`](crate::view::compare::Comparison), or a command's own)
//! and the format a user named (`table`, `md`, `csv`, `json`, `html`,
//! `fio-json`, `xlsx`) go in;
//! out comes its text (a workbook: its bytes), from the one exporter of that format. A format is
//! named in `format` ([`Format`]); what every exporter shares (the
//! [`Exporter`] and [`Exports`] traits, [`ExportError`]) is in `exporter`;
//! which formats each result offers is said in one place, `offers`, and a
//! format a result does not offer is refused by name. One module a format
//! holds its exporter and how each result is written in it. The views
//! name no exporter; nothing here knows the command line.

pub mod csv;
mod exporter;
pub mod fio_json;
mod format;
pub mod html;
pub mod json;
pub mod md;
mod offers;
pub mod table;
pub mod xlsx;

pub use csv::Csv;
pub use exporter::{ExportError, Exporter, Exports};
pub use fio_json::FioJson;
pub use format::Format;
pub use html::Html;
pub use json::Json;
pub use md::Markdown;
pub use table::Table;
pub use xlsx::Xlsx;

#[cfg(test)]
mod tests {
    use super::*;

    /// A run on one machine and a comparison of two such runs, in every
    /// format they come in: snapshots taken before runs on many hosts were
    /// shown, which the views of such runs must leave byte for byte.
    #[test]
    fn one_machine_reports_and_comparisons_stay_as_they_were() {
        use crate::view::compare::comparison;
        use crate::view::report::Report;
        use crate::view::testing::run;

        let report = Report::new(run(false));
        let mut other = run(false);
        other.dir = "/nonexistent/methodic-other".into();
        other.steps[0].summary.as_mut().unwrap().total.iops = 2500.0;
        let compared = comparison(&[run(false), other]);
        insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
            for f in Report::formats().into_iter().filter(|f| f.is_text()) {
                insta::assert_snapshot!(format!("one-machine-report.{f}"), report.export(f).unwrap());
            }
            for f in crate::view::compare::Comparison::formats().into_iter().filter(|f| f.is_text()) {
                insta::assert_snapshot!(format!("one-machine-compare.{f}"), compared.export(f).unwrap());
            }
        });
    }

    /// A page's text as a reader sees it: what the HTML escapes, back.
    fn unescaped(html: &str) -> String {
        html.replace("&#x2f;", "/").replace("&#x27;", "'").replace("&#x60;", "`").replace("&quot;", "\"")
    }

    /// A run whose files are damaged (a series cut off, a rounds row that
    /// is no row, a latency log gone) names each, and what is wrong with
    /// it, in every format that can say so; the charts they would draw say
    /// why they are not there.
    #[test]
    fn a_report_names_every_file_it_could_not_read_in_every_format() {
        use crate::step_files::tests::{damage, run};
        use crate::view::report::Report;

        let run = run("report-formats");
        let whole = Report::new(run.clone());
        assert!(whole.unreadable().is_empty());
        damage(&run);
        let report = Report::new(run.clone());
        let said: Vec<String> = report.unreadable().iter().map(ToString::to_string).collect();
        assert_eq!(said.len(), 3, "{said:?}");
        let errors: Vec<&str> = report.unreadable().iter().map(|u| u.error.as_str()).collect();

        let table = report.export(Format::Table).unwrap();
        let head = "INCOMPLETE: 3 files of this run could not be read, and what they hold is missing from this \
                    report:\n";
        assert!(table.contains(head), "{table}");
        for line in &said {
            assert!(table.contains(&format!("\n  {line}\n")), "{line}: {table}");
        }
        let conventions = table.find("\nconventions: ").unwrap();
        assert!(conventions < table.find(head).unwrap(), "said under the run's header: {table}");
        assert!(
            table.find(head).unwrap() < table.find("no step measured a rate").unwrap(),
            "said before the numbers: {table}"
        );

        let md = report.export(Format::Md).unwrap();
        assert!(md.contains("**Incomplete**: 3 files of this run could not be read"), "{md}");
        assert!(md.contains("- `series/measure.hlog` (latency log of step p/r-qd4): is missing\n"), "{md}");

        let json: serde_json::Value = serde_json::from_str(&report.export(Format::Json).unwrap()).unwrap();
        let listed = json["unreadable"].as_array().unwrap();
        assert_eq!(listed.len(), 3);
        assert_eq!(
            listed[2],
            serde_json::json!({"path": "series/measure.hlog", "step": "p/r-qd4", "holds": "latency log", "error": "is missing"})
        );
        let whole_json: serde_json::Value =
            serde_json::from_str(&whole.export(Format::Json).unwrap()).unwrap();
        assert!(whole_json.get("unreadable").is_none(), "left out when every file was read");

        let html = unescaped(&report.export(Format::Html).unwrap());
        assert!(
            html.contains(
                "<div class=\"banner failed\" id=\"unreadable\"><strong>Incomplete:</strong> 3 files"
            )
        );
        for (u, error) in report.unreadable().iter().zip(&errors) {
            assert!(html.contains(&format!("<code>{}</code>", u.path.display())), "{}", u.path.display());
            assert!(html.contains(error), "{error}");
        }
        assert!(
            html.contains("No chart: series/fill.csv could not be read (ends part way through line 2"),
            "the fill's plot"
        );
        // No steady state in the record to draw from instead: no chart, said.
        assert!(
            html.contains(
                "<h3>p/rounds-w: steady-state convergence</h3>\n<p class=\"sub\">No chart: series/rounds.csv could \
                 not be read (line 3 is not a row"
            ),
            "the convergence: {html}"
        );

        let fio: serde_json::Value = serde_json::from_str(&report.export(Format::FioJson).unwrap()).unwrap();
        assert_eq!(fio["methodic"]["unreadable"], json["unreadable"]);
        let whole_fio: serde_json::Value =
            serde_json::from_str(&whole.export(Format::FioJson).unwrap()).unwrap();
        assert!(whole_fio["methodic"].get("unreadable").is_none());

        // Compared with itself whole: the damaged run's series and latency
        // log (the comparison draws both), by its letter.
        let other = crate::step_files::tests::run("report-formats-other");
        let compared = crate::view::compare::comparison(&[run.clone(), other.clone()]);
        let text = compared.export(Format::Table).unwrap();
        assert!(
            text.contains(
                "INCOMPLETE: 2 files of these runs could not be read, and what they hold is missing from this \
                 comparison:\n  A: series/fill.csv (series of step p/fill-w): ends part way through line 2"
            ),
            "{text}"
        );
        let json: serde_json::Value = serde_json::from_str(&compared.export(Format::Json).unwrap()).unwrap();
        assert_eq!(
            (&json["unreadable"][0]["run"], &json["unreadable"][0]["path"]),
            (&"A".into(), &"series/fill.csv".into())
        );
        let html = unescaped(&compared.export(Format::Html).unwrap());
        assert!(
            html.contains("<strong>Incomplete:</strong> 2 files of these runs could not be read"),
            "{html}"
        );
        assert!(
            html.contains("A's series, series/fill.csv could not be read (ends part way through line 2"),
            "{html}"
        );
        assert!(
            html.contains("A's latency log, series/measure.hlog could not be read (is missing)"),
            "{html}"
        );
        std::fs::remove_dir_all(&run.dir).unwrap();
        std::fs::remove_dir_all(&other.dir).unwrap();
    }
}
