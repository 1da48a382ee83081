//! The documentation shows what methodic does: every diagnostic code is in
//! docs/LANGUAGE.md, the keyword list matches the grammar, every whole
//! methodology shown in README.md and the guide (docs/*.md) compiles, every
//! chapter is in the book's docs/SUMMARY.md, and every relative link leads
//! to a file, and heading, that exists.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use methodic_compiler::{Code, Options, compile};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// README.md and every chapter of the guide (docs/*.md, not the schemas
/// under docs/schema/), as paths from the repository root, in order.
fn documents() -> Vec<String> {
    let mut chapters: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("an entry of docs/").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    chapters.sort();
    let mut docs = vec!["README.md".to_string()];
    docs.extend(chapters);
    docs
}

/// A fenced code block: its lines (the fence's indentation taken off) and
/// the line of the document it starts on, from 1.
struct Block {
    line: usize,
    lines: Vec<String>,
}

/// Every fenced code block of a Markdown document (``` or ~~~ fences, also
/// indented in a list item).
fn blocks(doc: &str) -> Vec<Block> {
    let mut out = Vec::new();
    // The open block: its fence, the fence's indentation, what it holds.
    let mut open: Option<(String, usize, Block)> = None;
    for (i, line) in doc.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some((fence, fence_indent, block)) = &mut open {
            if trimmed.trim_end() == fence.as_str() {
                out.extend(open.take().map(|(_, _, block)| block));
            } else {
                block.lines.push(line[indent.min(*fence_indent)..].to_string());
            }
        } else if let Some(fence) = fence_of(trimmed) {
            open = Some((fence, indent, Block { line: i + 1, lines: Vec::new() }));
        }
    }
    out
}

/// The fence a line opens (```` ``` ```` or `~~~`, however long), if it
/// opens one.
fn fence_of(trimmed: &str) -> Option<String> {
    for mark in ['`', '~'] {
        let n = trimmed.chars().take_while(|&c| c == mark).count();
        if n >= 3 {
            return Some(mark.to_string().repeat(n));
        }
    }
    None
}

/// The methodologies a block shows whole: the block itself when it holds a
/// methodology and no shell prompt; in a shell session, what `$ cat FILE`
/// prints, up to the next prompt. A session's other output (an imported
/// methodology beside its notes, say) is not a file and is left out.
fn methodologies(block: &Block) -> Vec<(usize, String)> {
    let is_methodology = |lines: &[String]| lines.iter().any(|l| l.starts_with("methodology "));
    let join = |lines: &[String]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    if !block.lines.iter().any(|l| l.starts_with("$ ")) {
        return if is_methodology(&block.lines) { vec![(block.line, join(&block.lines))] } else { vec![] };
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < block.lines.len() {
        if block.lines[i].starts_with("$ cat ") {
            let end = (i + 1..block.lines.len())
                .find(|&j| block.lines[j].starts_with("$ "))
                .unwrap_or(block.lines.len());
            let file = &block.lines[i + 1..end];
            if is_methodology(file) {
                out.push((block.line + i + 1, join(file)));
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn language_doc_lists_every_code() {
    let doc = read("docs/LANGUAGE.md");
    for code in Code::ALL {
        assert!(
            doc.contains(&format!("| {} |", code.as_str())),
            "docs/LANGUAGE.md does not list {}",
            code.as_str()
        );
    }
}

#[test]
fn language_doc_lists_exactly_the_keywords() {
    let doc = read("docs/LANGUAGE.md");
    let section = doc.split("## Keywords").nth(1).expect("a Keywords section");
    let words: Vec<&str> = section.split('`').skip(1).step_by(2).collect();
    assert!(words.len() > 60, "only {} keywords listed: {}", words.len(), words.join(", "));
    for w in &words {
        assert!(methodic_grammar::is_reserved(w), "`{w}` is listed but not reserved");
    }
    for w in ["sweep", "compressible", "max_rounds", "non_destructive"] {
        assert!(words.contains(&w), "`{w}` is reserved but not listed");
    }
}

/// What each `$ cat FILE` of a document's shell sessions prints, by FILE:
/// the files a methodology there may `use`.
fn cat_files(text: &str) -> std::collections::BTreeMap<String, Result<String, String>> {
    let mut files = std::collections::BTreeMap::new();
    for block in blocks(text) {
        for (i, line) in block.lines.iter().enumerate() {
            if let Some(name) = line.strip_prefix("$ cat ") {
                let end = (i + 1..block.lines.len())
                    .find(|&j| block.lines[j].starts_with("$ "))
                    .unwrap_or(block.lines.len());
                let body: String = block.lines[i + 1..end].iter().map(|l| format!("{l}\n")).collect();
                files.insert(name.trim().to_string(), Ok(body));
            }
        }
    }
    files
}

#[test]
fn examples_in_the_docs_compile() {
    let mut n = 0;
    let mut seen = BTreeSet::new();
    for doc in documents() {
        let text = read(&doc);
        let options = Options { used: cat_files(&text), ..Options::default() };
        for block in blocks(&text) {
            for (line, src) in methodologies(&block) {
                let place = format!("{doc}:{line}");
                if let Err(d) = compile(&src, &options) {
                    panic!(
                        "the methodology at {place} does not compile:\n{}\n{src}",
                        d.render(&place, &src, false)
                    );
                }
                seen.insert(doc.clone());
                n += 1;
            }
        }
    }
    // The README's, the language reference's, and those of the chapters
    // that show a methodology whole: a parser that found none would pass.
    for doc in [
        "README.md",
        "docs/LANGUAGE.md",
        "docs/writing-methodologies.md",
        "docs/reading-results.md",
        "docs/fio.md",
    ] {
        assert!(seen.contains(doc), "found no methodology in {doc}");
    }
    assert!(n >= 7, "found only {n} methodologies in the docs");
}

#[test]
fn the_readme_shows_the_quick_spec_as_it_is() {
    let spec = read("specs/quick.method");
    let readme = read("README.md");
    let shown = blocks(&readme).iter().flat_map(methodologies).any(|(_, src)| src == spec);
    assert!(shown, "README.md shows specs/quick.method, but not as the file is: copy it again");
}

/// The links of a Markdown document outside code: `[text](target)`,
/// `![alt](target)` and `[label]: target`, with the line each is on.
fn links(doc: &str) -> Vec<(usize, String)> {
    // Code blocks and inline code hold no links: blank them, keeping the
    // line breaks so that lines still count.
    let mut text = String::new();
    let mut fence: Option<String> = None;
    for line in doc.lines() {
        let trimmed = line.trim_start();
        if let Some(f) = &fence {
            if trimmed.trim_end() == f.as_str() {
                fence = None;
            }
        } else if let Some(f) = fence_of(trimmed) {
            fence = Some(f);
        } else {
            text.push_str(&without_code_spans(line));
        }
        text.push('\n');
    }
    let mut out = Vec::new();
    for (at, _) in text.match_indices("](") {
        let rest = &text[at + 2..];
        let Some(end) = rest.find(')') else { continue };
        let target = rest[..end].split_whitespace().next().unwrap_or("");
        out.push((text[..at].matches('\n').count() + 1, target.to_string()));
    }
    for (i, line) in text.lines().enumerate() {
        let definition = line.trim_start().strip_prefix('[').and_then(|rest| rest.split_once("]: "));
        if let Some((_, target)) = definition {
            out.push((i + 1, target.trim().to_string()));
        }
    }
    out
}

/// A line with its inline code spans (`` `...` ``) blanked.
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else {
            out.push(if in_code { ' ' } else { c });
        }
    }
    out
}

/// The anchors of a Markdown document's headings, as GitHub and mdBook
/// make them: the heading's text without its Markdown, lower case, spaces
/// as `-`, letters, digits, `-` and `_` kept and the rest left out; a
/// second heading of the same text gets `-1`, a third `-2`.
fn anchors(doc: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut fence: Option<String> = None;
    for line in doc.lines() {
        let trimmed = line.trim_start();
        if let Some(f) = &fence {
            if trimmed.trim_end() == f.as_str() {
                fence = None;
            }
            continue;
        }
        if let Some(f) = fence_of(trimmed) {
            fence = Some(f);
            continue;
        }
        let Some(heading) = line.strip_prefix('#') else { continue };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let slug = slug(heading.trim());
        let mut anchor = slug.clone();
        let mut k = 1;
        while out.contains(&anchor) {
            anchor = format!("{slug}-{k}");
            k += 1;
        }
        out.insert(anchor);
    }
    out
}

fn slug(heading: &str) -> String {
    // A link in a heading counts by its text: `[text](target)` is `text`.
    let mut text = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        text.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find("](").and_then(|close| after[close..].find(')').map(|end| (close, close + end))) {
            Some((close, end)) => {
                text.push_str(&after[..close]);
                rest = &after[end + 1..];
            }
            None => {
                text.push('[');
                rest = after;
            }
        }
    }
    text.push_str(rest);
    text.chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c.to_lowercase().collect::<String>()),
            ' ' => Some("-".to_string()),
            _ => None,
        })
        .collect()
}

/// `a/b/../c` as `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Where each link of `doc` leads wrong, in words; empty when every one
/// leads to a file and heading that exist.
fn broken_links(doc: &str) -> Vec<String> {
    let text = read(doc);
    let dir = Path::new(doc).parent().unwrap_or(Path::new(""));
    let mut broken = Vec::new();
    for (line, target) in links(&text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let place = format!("{doc}:{line}: `{target}`");
        let (file, anchor) = match target.split_once('#') {
            Some((file, anchor)) => (file, Some(anchor)),
            None => (target.as_str(), None),
        };
        if file.starts_with('/') {
            broken.push(format!("{place}: an absolute path; link relative to the document"));
            continue;
        }
        let rel = if file.is_empty() { PathBuf::from(doc) } else { normalize(&dir.join(file)) };
        if doc.starts_with("docs/") && !rel.starts_with("docs") {
            broken.push(format!(
                "{place}: the book is built from docs/ alone, so a link out of it breaks there; name the file as code instead"
            ));
            continue;
        }
        let path = root().join(&rel);
        if !path.exists() {
            broken.push(format!("{place}: there is no {}", rel.display()));
            continue;
        }
        let markdown = rel.extension().is_some_and(|e| e == "md");
        if let Some(anchor) = anchor.filter(|_| markdown)
            && !anchors(&read(&rel.to_string_lossy())).contains(anchor)
        {
            broken.push(format!("{place}: {} has no heading whose anchor is #{anchor}", rel.display()));
        }
    }
    broken
}

#[test]
fn relative_links_lead_to_files_and_headings_that_exist() {
    let mut broken = Vec::new();
    let mut n = 0;
    for doc in documents() {
        n += links(&read(&doc)).len();
        broken.extend(broken_links(&doc));
    }
    assert!(n > 100, "found only {n} links in the docs");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_chapter_is_in_the_summary_and_every_summary_entry_exists() {
    let summary = read("docs/SUMMARY.md");
    let listed: BTreeSet<String> = links(&summary)
        .into_iter()
        .map(|(line, target)| {
            let path = format!("docs/{target}");
            assert!(
                root().join(&path).is_file(),
                "docs/SUMMARY.md:{line} lists {target}, which is not a file in docs/"
            );
            path
        })
        .collect();
    for doc in documents().into_iter().filter(|d| d.starts_with("docs/") && d != "docs/SUMMARY.md") {
        assert!(listed.contains(&doc), "{doc} is a chapter of the book but docs/SUMMARY.md does not list it");
    }
    let book = read("docs/book.toml");
    assert!(book.contains("src = \".\""), "docs/book.toml builds the book from docs/ itself");
}

#[test]
fn the_link_checker_finds_what_is_broken() {
    let doc = "# Title\n\n## Open loop: a rate\n\n```text\n# not a heading\n[not](a-link.md)\n```\n\
               [ok](#open-loop-a-rate) and `[code](no.md)` [bad](#nowhere) ![img](x.png)\n[ref]: y.md\n";
    let found: Vec<String> = links(doc).into_iter().map(|(_, t)| t).collect();
    assert_eq!(found, ["#open-loop-a-rate", "#nowhere", "x.png", "y.md"]);
    let a = anchors(doc);
    assert!(a.contains("title") && a.contains("open-loop-a-rate") && !a.contains("not-a-heading"));
    assert_eq!(slug("A problem: `\"reason\": \"diagnostic\"`"), "a-problem-reason-diagnostic");
    assert_eq!(slug("steps.jsonl and results.json"), "stepsjsonl-and-resultsjson");
    assert_eq!(slug("[Linked](x.md) heading"), "linked-heading");
    assert_eq!(anchors("# A\n# A\n# A\n").into_iter().collect::<Vec<_>>(), ["a", "a-1", "a-2"]);
}
