//! The pages a reviewer publishes: rehearsals of the four SNIA PTS-E specs
//! (IOPS, throughput, latency, write saturation), enterprise-sweep and
//! pcper-read-share-map rendered in Chromium. Each matrix has the rows and
//! columns the plan gives it, each chart drew its paths or bars, no figure
//! wraps (by the CSS and by where the browser laid out its text), nothing
//! went to the console; the IOPS page prints to A4 landscape PDF with no
//! table row split over a page break and each matrix on one page; and
//! `report` in the terminal prints the same matrices.

use std::path::{Path, PathBuf};

use methodic_compiler::plan::{Action, Plan};

use crate::browser;
use crate::common::{self, methodic, text};

fn plan(spec: &str) -> Plan {
    let src = std::fs::read_to_string(common::root().join("specs").join(format!("{spec}.method"))).unwrap();
    methodic_compiler::compile(&src, &Default::default()).unwrap_or_else(|d| panic!("{spec}: {d}")).plan
}

/// The distinct values in the order they first come.
fn distinct(values: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// `65/35`: a read share as the PTS writes the mix.
fn mix(read: f64) -> String {
    format!("{read}/{}", 100.0 - read)
}

/// The rows and columns the plan's rounds cells give the matrix of mixes
/// by block size: the read/write mixes in plan order, the block sizes in
/// plan order (every rounds step of the plan, so that one block size a
/// phase joins into one matrix).
fn rounds_axes(p: &Plan) -> (Vec<String>, Vec<String>) {
    let cells: Vec<_> = p
        .steps
        .iter()
        .filter_map(|s| match &s.action {
            Action::Rounds { cells, .. } => Some(cells),
            _ => None,
        })
        .flatten()
        .collect();
    let rows = distinct(cells.iter().map(|c| mix(c.workload.read.as_f64())));
    let cols = distinct(cells.iter().map(|c| c.workload.blocks[0].size.to_string()));
    (rows, cols)
}

/// A matrix as the page drew it: its title, column heads, row labels and
/// the number of cells in each row.
#[derive(Debug)]
struct Drawn {
    title: String,
    columns: Vec<String>,
    rows: Vec<String>,
    cells: Vec<usize>,
}

/// Texts between `open` (a tag's start, up to its `>`) and `close`.
fn texts<'a>(html: &'a str, open: &str, close: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find(open) {
        rest = &rest[i + open.len()..];
        let Some(gt) = rest.find('>') else { break };
        rest = &rest[gt + 1..];
        let end = rest.find(close).unwrap_or(rest.len());
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    out
}

fn matrices(dom: &str) -> Vec<Drawn> {
    let mut out = Vec::new();
    for block in dom.split("<div class=\"matrix-block\">").skip(1) {
        let block = &block[..block.find("</div>").unwrap()];
        let title = texts(block, "<h3", "</h3>")[0].to_string();
        let head = texts(block, "<thead", "</thead>")[0];
        let columns: Vec<String> =
            texts(head, "<th", "</th>").iter().skip(1).map(|s| s.to_string()).collect();
        let body = texts(block, "<tbody", "</tbody>")[0];
        let rows_html = texts(body, "<tr", "</tr>");
        let rows = rows_html.iter().map(|r| texts(r, "<th class=\"row\"", "</th>")[0].to_string()).collect();
        let cells = rows_html.iter().map(|r| texts(r, "<td", "</td>").len()).collect();
        out.push(Drawn { title, columns, rows, cells });
    }
    out
}

/// Every figure cell whose text the browser laid out on more than one
/// line, or that the CSS lets wrap: `[text, why]` pairs.
const WRAPPED: &str = r#"[...document.querySelectorAll('td.num, table.matrix td')].flatMap(td => {
  const r = document.createRange(); r.selectNodeContents(td);
  const lines = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top)));
  const ws = getComputedStyle(td).whiteSpace;
  return lines.size > 1 ? [[td.textContent, lines.size + ' lines']] : ws !== 'nowrap' ? [[td.textContent, 'white-space: ' + ws]] : [];
})"#;

/// Each text cell of the result and checklist tables that breaks a line
/// inside a word (its text with `|` at the break): a step's or workload's
/// name breaks only after a separator (`/`, `_`, `-`, `.`, `:`), other
/// text only between words.
const BROKEN_WORDS: &str = r#"[...document.querySelectorAll('table.results td:not(.num)')].flatMap(td => {
  const chars = [];
  const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (let i = 0; i < n.data.length; i++) {
      const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
      const rect = r.getBoundingClientRect();
      chars.push([n.data[i], rect.width > 0 ? Math.round(rect.top) : null]);
    }
  }
  const ok = c => ' \n/_-.:,('.includes(c);
  const text = chars.map(c => c[0]).join('');
  const broken = [];
  let last = -1;
  chars.forEach((c, i) => {
    if (c[1] === null) return;
    if (last >= 0 && c[1] > chars[last][1] && !chars.slice(last, i).some(p => ok(p[0])) && !ok(c[0])) {
      broken.push(text.slice(0, i) + '|' + text.slice(i));
    }
    last = i;
  });
  return broken;
})"#;

/// The number of figure cells the probe above looked at.
const FIGURES: &str = "document.querySelectorAll('td.num, table.matrix td').length";

struct Page {
    /// The folder of the page's files.
    files: PathBuf,
    dom: String,
    pdf: Option<PathBuf>,
    terminal: String,
}

/// The run's page rendered (and printed to PDF where asked), and its
/// terminal report. The page, its picture and the PDF go into a folder of
/// their own: the rehearsal is shared ([`common::rehearsal`]).
fn page(spec: &str, dir: &Path, pdf: bool) -> Page {
    let files = common::temp_dir(&format!("pts-page-{spec}"));
    let html = files.join("report.html");
    let o = methodic(&["report", dir.to_str().unwrap(), "--format", "html", "-o", html.to_str().unwrap()]);
    assert!(o.status.success(), "{spec}: {}", text(&o.stderr));
    let shot = files.join("report.png");
    let pdf = pdf.then(|| files.join("report.pdf"));
    let visit = browser::Visit { probes: &[WRAPPED, FIGURES, BROKEN_WORDS], pdf: pdf.as_deref() };
    let r = browser::render_with(&html, &shot, &visit).unwrap_or_else(|e| panic!("{spec}: {e}"));
    assert!(r.console_errors.is_empty(), "{spec}: console errors: {:?}", r.console_errors);
    let wrapped = r.probes[0].as_array().unwrap();
    assert!(wrapped.is_empty(), "{spec}: figures that wrap: {wrapped:?}");
    assert!(r.probes[1].as_u64().unwrap() > 0, "{spec}: no figure cells to check");
    let broken = r.probes[2].as_array().unwrap();
    assert!(broken.is_empty(), "{spec}: text broken inside a word: {broken:?}");
    for d in browser::path_data(&r.dom) {
        assert!(d.starts_with('M') && d.len() > 5, "{spec}: an empty path: {d:?}");
    }
    let o = methodic(&["report", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{spec}: {}", text(&o.stderr));
    Page { files, dom: r.dom, pdf, terminal: text(&o.stdout) }
}

/// The charts in a section of the page, by the heading of the section.
fn charts_under(dom: &str, heading: &str) -> Vec<String> {
    let Some(start) = dom.find(&format!("<h2>{heading}</h2>")) else { return Vec::new() };
    let rest = &dom[start + heading.len() + 9..];
    let section = &rest[..rest.find("<h2").unwrap_or(rest.len())];
    section.split("<svg").skip(1).map(|s| s[..s.find("</svg>").unwrap()].to_string()).collect()
}

/// A matrix's shape against the plan's, and its rows in the terminal too.
fn check_matrix(spec: &str, page: &Page, title: &str, rows: &[String], columns: &[String]) {
    let drawn = matrices(&page.dom);
    let m = drawn
        .iter()
        .find(|m| m.title.starts_with(title))
        .unwrap_or_else(|| panic!("{spec}: no matrix titled {title}: {drawn:?}"));
    assert_eq!(m.rows, rows, "{spec}: {title}: rows");
    assert_eq!(m.columns, columns, "{spec}: {title}: columns");
    assert!(m.cells.iter().all(|n| *n == columns.len()), "{spec}: {title}: a cell a column: {m:?}");
    let lines: Vec<&str> = page.terminal.lines().collect();
    let at = lines.iter().position(|l| l.starts_with(title)).unwrap_or_else(|| {
        panic!("{spec}: the terminal report has no matrix titled {title}:\n{}", page.terminal)
    });
    let table = &lines[at..];
    for r in rows {
        assert!(
            table.iter().any(|l| l.starts_with(&format!("│ {r} "))),
            "{spec}: {title}: row {r} in the terminal"
        );
    }
}

#[test]
fn pts_and_review_pages_draw_their_matrices_and_charts_in_chromium() {
    let specs = [
        "snia-pts-e-iops",
        "snia-pts-e-throughput",
        "snia-pts-e-latency",
        "snia-pts-e-write-saturation",
        "enterprise-sweep",
        "pcper-read-share-map",
    ];
    // Rehearsals mostly wait on their steps' timers: all at once.
    let dirs: Vec<PathBuf> = std::thread::scope(|s| {
        let handles: Vec<_> = specs.iter().map(|spec| s.spawn(move || common::rehearsal(spec))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // Chromium and the checks use the CPU: two at a time.
    let queue = std::sync::Mutex::new(specs.iter().zip(&dirs).collect::<Vec<_>>());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while let Some((spec, dir)) = { queue.lock().unwrap().pop() } {
                    check_page(spec, dir);
                }
            });
        }
    });
}

/// The PTS IOPS page's checklist: the fill's row, and one for the 56
/// cells of the rounds step, made alike; the cells the two share written
/// once over both.
fn check_checklist(spec: &str, page: &Page) {
    let checklist = page.dom.split("Checklist of each result").nth(1).unwrap();
    let checklist = &checklist[..checklist.find("</table>").unwrap()];
    assert_eq!(checklist.matches("<tr>").count(), 3, "{spec}: {checklist}");
    assert_eq!(checklist.matches("rowspan=\"2\"").count(), 4, "{spec}: {checklist}");
}

/// The latency distributions of `phase`'s sweeps: for each workload's
/// sweep, charts titled after it holding a line a queue depth (`qds`),
/// each drawn, or saying why a queue depth has none (a rehearsal's
/// deepest steps may record no I/O).
fn check_distributions(spec: &str, page: &Page, phase: &str, workloads: &[String], qds: &[String]) {
    let section =
        page.dom.split("<h2 id=\"latency\">Latency distributions</h2>").nth(1).unwrap_or_else(|| {
            panic!("{spec}: no latency distributions");
        });
    let section = &section[..section.find("<h2").unwrap_or(section.len())];
    for w in workloads {
        let title = format!("{phase}: {w}, latency by queue depth");
        let svgs: Vec<&str> =
            section.split("<svg").skip(1).filter(|svg| svg.contains(&format!("<title>{title}"))).collect();
        assert!(!svgs.is_empty(), "{spec}: no chart titled {title}");
        let lines: Vec<&str> =
            svgs.iter().flat_map(|svg| svg.split("<path class=\"line\" d=\"").skip(1)).collect();
        assert!(
            lines.iter().all(|d| d.starts_with('M') && d.contains(" L")),
            "{spec}: {title}: an empty line"
        );
        let drawn: Vec<&str> = svgs
            .iter()
            .flat_map(|svg| svg.split("class=\"legend\">QD ").skip(1))
            .filter_map(|l| l.split([':', ' ']).next())
            .collect();
        assert_eq!(drawn.len(), lines.len(), "{spec}: {title}: a legend entry a line");
        let said = section.split(&format!("<h3>{title}")).nth(1).unwrap_or_default();
        let said = &said[..said.find("</p>").unwrap_or(said.len())];
        for qd in qds {
            assert!(
                drawn.contains(&qd.as_str()) || said.contains(&format!("QD {qd} recorded ")),
                "{spec}: {title}: neither a line nor a word for QD {qd}: {drawn:?} {said}"
            );
        }
    }
}

/// Each sweep matrix says the drive state before it once, and what its
/// steps wrote, not a state a step.
fn check_sweep_states(spec: &str, page: &Page) {
    let notes: Vec<&str> = page
        .dom
        .split("of each sweep step.")
        .skip(1)
        .filter_map(|n| n.split("Drive state before: ").nth(1)?.split("</").next())
        .collect();
    assert!(!notes.is_empty(), "{spec}: no sweep matrix note");
    for n in notes {
        assert!(n.contains("these steps themselves wrote"), "{spec}: {n}");
        assert!(n.matches("written by the steps since").count() <= 1, "{spec}: {n}");
    }
}

/// One spec's page and terminal report against its plan.
fn check_page(spec: &str, dir: &Path) {
    {
        let p = plan(spec);
        let page = page(spec, dir, spec == "snia-pts-e-iops");
        match spec {
            "snia-pts-e-iops" => {
                let (rows, cols) = rounds_axes(&p);
                assert_eq!((rows.len(), cols.len()), (7, 8), "{spec}: the plan's mixes and block sizes");
                check_matrix(spec, &page, "IOPS: steady-state window averages", &rows, &cols);
                let conv = charts_under(&page.dom, "Steady-state convergence");
                assert_eq!(conv.len(), 1, "{spec}: one convergence chart");
                assert_eq!(conv[0].matches("<path").count(), cols.len(), "{spec}: a line a block size");
                assert!(!charts_under(&page.dom, "Steady-state measurement window").is_empty(), "{spec}");
                let bars = page.dom.matches("class=\"bar\"").count();
                assert_eq!(bars, rows.len() * cols.len(), "{spec}: a bar a cell");
                check_checklist(spec, &page);
            }
            "snia-pts-e-throughput" => {
                let (rows, cols) = rounds_axes(&p);
                assert_eq!((rows.len(), cols.len()), (2, 2), "{spec}: read and write, two block sizes");
                check_matrix(spec, &page, "Throughput: steady-state window averages", &rows, &cols);
                assert_eq!(
                    charts_under(&page.dom, "Steady-state convergence").len(),
                    2,
                    "{spec}: a chart a phase"
                );
            }
            "snia-pts-e-latency" => {
                let (rows, cols) = rounds_axes(&p);
                assert_eq!((rows.len(), cols.len()), (3, 3), "{spec}");
                check_matrix(
                    spec,
                    &page,
                    "Average response time: steady-state window averages",
                    &rows,
                    &cols,
                );
                check_matrix(
                    spec,
                    &page,
                    "Maximum response time: steady-state window averages",
                    &rows,
                    &cols,
                );
            }
            "snia-pts-e-write-saturation" => {
                let charts = charts_under(&page.dom, "Write saturation");
                assert_eq!(charts.len(), 2, "{spec}: IOPS against time and against data written");
                assert!(charts[1].contains("x capacity"), "{spec}: data written in capacities");
                for c in &charts {
                    assert!(c.contains("<path"), "{spec}: a drawn line");
                }
            }
            "enterprise-sweep" => {
                // Each phase: its sweeps' workloads down, the plan's queue depths across.
                for phase in
                    p.steps.iter().filter_map(|s| s.phase.clone()).collect::<std::collections::BTreeSet<_>>()
                {
                    let sweeps: Vec<_> = p
                        .steps
                        .iter()
                        .filter(|s| s.phase.as_deref() == Some(phase.as_str()))
                        .filter_map(|s| match &s.action {
                            Action::Measure { workload, qd, .. } if s.sweep.is_some() => {
                                Some((workload.name.clone(), qd.total))
                            }
                            _ => None,
                        })
                        .collect();
                    let rows = distinct(sweeps.iter().map(|s| s.0.clone()));
                    let mut qds: Vec<u32> = sweeps.iter().map(|s| s.1).collect();
                    qds.sort_unstable();
                    qds.dedup();
                    let cols: Vec<String> = qds.iter().map(u32::to_string).collect();
                    check_matrix(spec, &page, &format!("{phase}: IOPS"), &rows, &cols);
                    check_distributions(spec, &page, &phase, &rows, &cols);
                }
                check_sweep_states(spec, &page);
            }
            "pcper-read-share-map" => {
                let sweep: Vec<_> = p
                    .steps
                    .iter()
                    .filter_map(|s| match &s.action {
                        Action::Measure { workload, qd, .. } if s.sweep.is_some() => {
                            Some((workload.name.clone(), qd.total))
                        }
                        _ => None,
                    })
                    .collect();
                // A read share a row: the sweep's workloads are named by it.
                let rows = distinct(sweep.iter().map(|s| s.0.clone()));
                let cols = distinct(sweep.iter().map(|s| s.1.to_string()));
                assert_eq!((rows.len(), cols.len()), (11, 9), "{spec}");
                check_matrix(spec, &page, "map: IOPS", &rows, &cols);
            }
            _ => unreachable!(),
        }
        if let Some(pdf) = &page.pdf {
            check_print(spec, pdf, &page);
        }
        let _ = std::fs::remove_dir_all(&page.files);
    }
}

/// The printed page: its page count and size from the PDF (pdfinfo), each
/// result table's rows whole where the table runs over a page break, and
/// each matrix whole on one page: its title and its last row's label on
/// the same page (pdftotext, a page at a time).
fn check_print(spec: &str, pdf: &Path, page: &Page) {
    if !common::require_tool("pdfinfo") || !common::require_tool("pdftotext") {
        return;
    }
    let info = std::process::Command::new("pdfinfo").arg(pdf).output().unwrap();
    let info = text(&info.stdout);
    let pages: usize = info
        .lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{spec}: pdfinfo gave no page count:\n{info}"));
    // `Page size:       841.92 x 594.96 pts (A4)`: wider than high.
    let size: Vec<f64> = info
        .lines()
        .find_map(|l| l.strip_prefix("Page size:"))
        .map(|l| l.split_whitespace().filter_map(|w| w.parse().ok()).collect())
        .unwrap_or_default();
    assert!(
        info.contains("(A4)") && size.len() == 2 && size[0] > size[1],
        "{spec}: A4 landscape, as the print stylesheet asks:\n{info}"
    );
    let text_of = |n: usize| {
        let o = std::process::Command::new("pdftotext")
            .args(["-f", &n.to_string(), "-l", &n.to_string(), "-layout"])
            .arg(pdf)
            .arg("-")
            .output()
            .unwrap();
        text(&o.stdout)
    };
    let texts: Vec<String> = (1..=pages).map(text_of).collect();
    // The page has more than a printed page of content, and not hundreds.
    assert!((2..=60).contains(&pages), "{spec}: {pages} pages");
    // A result table that runs over a page break repeats its head on the
    // next page, and its rows stay whole: the line after a repeated head
    // starts a row (with its step number), not the rest of one.
    // A head's headings may wrap over lines (`IOPS` over `(steady)`): the
    // words of the result tables' heads, to read past the head's lines.
    let head_words: std::collections::HashSet<&str> = page
        .dom
        .split("<thead>")
        .skip(1)
        .filter_map(|t| t.split("</thead>").next())
        .flat_map(|head| head.split(['<', '>']).skip(2).step_by(2))
        .flat_map(str::split_whitespace)
        .collect();
    let mut continued = 0;
    for (n, t) in texts.iter().enumerate().skip(1) {
        let mut lines = t.lines().map(str::trim).filter(|l| !l.is_empty());
        let Some(first) = lines.next() else { continue };
        if first.starts_with('#') && first.contains("step") && first.contains("workload") {
            continued += 1;
            let next =
                lines.find(|l| !l.split_whitespace().all(|w| head_words.contains(w))).unwrap_or_default();
            assert!(
                next.starts_with(|c: char| c.is_ascii_digit()),
                "{spec}: page {} starts with the rest of a row: {next}",
                n + 1
            );
        }
    }
    assert!(continued > 0, "{spec}: no result table ran over a page break, so no row was checked");
    for m in matrices(&page.dom) {
        let title = m.title.replace("&amp;", "&");
        let first = texts.iter().position(|t| t.contains(&title[..40.min(title.len())]));
        let first = first.unwrap_or_else(|| panic!("{spec}: {title} is in no page of the PDF"));
        let last = m.rows.last().unwrap();
        assert!(
            texts[first].lines().any(|l| l.trim_start().starts_with(last.as_str())),
            "{spec}: {title} runs over a page break: its last row {last} is not on page {}",
            first + 1
        );
    }
}
