//! The tree's structure, read from its sources as text: no crate has a
//! circle of files that import each other (an arrow from a file to each
//! file whose items it names through `crate::`, `super::` or `self::`
//! paths, in `use` declarations or inline), and no `match` over the
//! plan's step kinds (`Action::...` arms) ends in a catch-all arm, so that
//! a new step kind is an error at every place that must handle it.
//!
//! Test code is left out: `#[cfg(test)]` modules, files named `tests.rs`
//! or `testing.rs`, and each crate's `tests/` and `benches/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each crate's source root: its `src/` folder and its root file.
const CRATES: &[(&str, &str)] = &[
    ("grammar", "lib.rs"),
    ("compiler", "lib.rs"),
    ("records", "lib.rs"),
    ("fio", "lib.rs"),
    ("runtime", "lib.rs"),
    (".", "main.rs"),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, tests left out.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let name = path.file_name().unwrap().to_str().unwrap();
                if name != "tests.rs" && name != "testing.rs" {
                    out.push(path);
                }
            }
        }
    }
    out.sort();
    out
}

/// The module path of a file under `src` (`a/b.rs` and `a/b/mod.rs` are
/// `[a, b]`; the crate root is `[]`).
fn module_of(src: &Path, file: &Path, root_file: &str) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_str().unwrap().to_string()).collect();
    let last = parts.pop().unwrap();
    if last != "mod.rs" && last != root_file {
        parts.push(last.trim_end_matches(".rs").to_string());
    }
    parts
}

/// `text` with comments, string and character literals blanked (their
/// length kept, so that positions still match).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                    i += 1;
                }
            }
        } else if rest.starts_with(b"r\"") || rest.starts_with(b"r#") {
            // A raw string: r"..." or r#"..."#.
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            if rest.get(1 + hashes) != Some(&b'"') {
                out.push(b[i]);
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            let start = i;
            i += 2 + hashes;
            while i < b.len() && !b[i..].starts_with(&close) {
                i += 1;
            }
            i = (i + close.len()).min(b.len());
            out.extend(b[start..i].iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }));
        } else if b[i] == b'"' {
            out.push(b' ');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    out.push(b' ');
                    i += 1;
                }
                if i < b.len() {
                    out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                    i += 1;
                }
            }
            out.push(b' ');
            i += 1;
        } else if b[i] == b'\'' && char_literal_len(rest).is_some() {
            let n = char_literal_len(rest).unwrap();
            out.extend(std::iter::repeat_n(b' ', n));
            i += n;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out.truncate(b.len());
    String::from_utf8_lossy(&out).into_owned()
}

/// The length of a character literal at the start of `s` (`'a'`, `'\n'`,
/// `'\u{1F}'`), or `None` for a lifetime.
fn char_literal_len(s: &[u8]) -> Option<usize> {
    if s.get(1) == Some(&b'\\') {
        let end = s[2..].iter().position(|&c| c == b'\'')?;
        return Some(end + 3);
    }
    // One character, however many bytes it takes.
    let text = std::str::from_utf8(&s[1..s.len().min(6)])
        .unwrap_or_else(|e| std::str::from_utf8(&s[1..1 + e.valid_up_to()]).unwrap());
    let c = text.chars().next()?;
    (s.get(1 + c.len_utf8()) == Some(&b'\'')).then_some(c.len_utf8() + 2)
}

/// `code` with each `#[cfg(test)]` item (a test module, a test-only
/// function) blanked.
fn without_test_items(code: &str) -> String {
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(test)]").map(|k| k + from) {
        // The item runs to the end of its first block, or to a `;`.
        let bytes = out.as_bytes();
        let mut i = at + "#[cfg(test)]".len();
        while i < bytes.len() && bytes[i] != b'{' && bytes[i] != b';' {
            i += 1;
        }
        let end = if i < bytes.len() && bytes[i] == b'{' { matching(bytes, i) + 1 } else { i + 1 };
        let blank: String =
            out[at..end.min(out.len())].chars().map(|c| if c == '\n' { '\n' } else { ' ' }).collect();
        out.replace_range(at..end.min(out.len()), &blank);
        from = end.min(out.len());
    }
    out
}

/// The index of the bracket closing the one at `open`.
fn matching(b: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    b.len() - 1
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Every path a `use` declaration names, its tree spread out
/// (`use crate::a::{b, c::D}` is `crate::a::b` and `crate::a::c::D`).
fn use_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = code.as_bytes();
    let mut from = 0;
    while let Some(at) = code[from..].find("use ").map(|k| k + from) {
        from = at + 4;
        if at > 0 && is_ident(b[at - 1]) {
            continue;
        }
        let Some(end) = code[at..].find(';').map(|k| k + at) else { break };
        // Whitespace only kept where it parts words (`A as B`).
        let words: Vec<&str> = code[at + 4..end].split_whitespace().collect();
        let tree = words.join(" ").replace(" ::", "::").replace(":: ", "::");
        spread(&tree, "", &mut out);
        from = end;
    }
    out
}

/// The paths of one use tree under `prefix`.
fn spread(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let join = |p: &str| if prefix.is_empty() { p.to_string() } else { format!("{prefix}::{p}") };
    let tree = tree.trim();
    match tree.find('{') {
        None => {
            let path = tree.split(" as ").next().unwrap_or(tree).trim();
            if !path.is_empty() {
                out.push(join(path.trim_end_matches("::")));
            }
        }
        Some(open) => {
            let head = tree[..open].trim().trim_end_matches("::");
            let close = matching(tree.as_bytes(), open);
            let inner = &tree[open + 1..close];
            let base = if head.is_empty() { prefix.to_string() } else { join(head) };
            let mut depth = 0;
            let mut start = 0;
            for (k, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        spread(&inner[start..k], &base, out);
                        start = k + 1;
                    }
                    _ => {}
                }
            }
            spread(&inner[start..], &base, out);
        }
    }
}

/// Every inline path of two or more segments (`a::b`, `crate::x::Y`):
/// which of them name the crate's own files is for the caller to say.
fn inline_paths(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts_word = is_ident(b[i]) && !b[i].is_ascii_digit();
        if starts_word && (i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == b':')) {
            let mut j = i;
            while j < b.len() && (is_ident(b[j]) || b[j..].starts_with(b"::")) {
                j += if b[j] == b':' { 2 } else { 1 };
            }
            let path = code[i..j].trim_end_matches("::");
            if path.contains("::") {
                out.push(path.to_string());
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The files of one crate and the arrows between them: for each file,
/// the files it names items of, with the names.
struct Crate {
    files: BTreeMap<Vec<String>, PathBuf>,
    arrows: BTreeMap<PathBuf, BTreeMap<PathBuf, BTreeSet<String>>>,
}

/// What one file defines and imports, to follow a path to the file that
/// defines what it names (through `use` re-exports).
#[derive(Default)]
struct Names {
    defines: BTreeSet<String>,
    /// A name brought in by `use`, and the path it stands for.
    imports: BTreeMap<String, String>,
    /// `use path::*`: the paths.
    globs: Vec<String>,
}

fn names_of(code: &str) -> Names {
    let mut n = Names::default();
    let words: Vec<&str> =
        code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '!')).collect();
    for pair in words.iter().filter(|w| !w.is_empty()).collect::<Vec<_>>().windows(2) {
        if ["fn", "struct", "enum", "trait", "type", "const", "static", "mod", "union", "macro_rules!"]
            .contains(pair[0])
        {
            n.defines.insert(pair[1].to_string());
        }
    }
    for path in use_paths(code) {
        if let Some(base) = path.strip_suffix("::*") {
            n.globs.push(base.to_string());
        } else {
            let (path, alias) = match path.split_once(" as ") {
                Some((p, a)) => (p.to_string(), a.to_string()),
                None => (path.clone(), path.rsplit("::").next().unwrap_or(&path).to_string()),
            };
            let path = path.strip_suffix("::self").map(str::to_string).unwrap_or(path);
            let alias =
                if alias == "self" { path.rsplit("::").next().unwrap_or(&path).to_string() } else { alias };
            n.imports.insert(alias, path);
        }
    }
    n
}

/// Follows `path`, written in the file of `module`, to the file that
/// defines what it names, and the name; `None` for a path out of the
/// crate. `imported`: a first segment may be a name this file imports.
fn resolve(
    files: &BTreeMap<Vec<String>, (PathBuf, Names)>,
    module: &[String],
    path: &[&str],
    imported: bool,
    depth: u32,
) -> Option<(Vec<String>, String)> {
    if depth > 12 || path.is_empty() {
        return None;
    }
    let child = |m: &[String], name: &str| {
        let mut m = m.to_vec();
        m.push(name.to_string());
        files.contains_key(&m)
    };
    let mut at: Vec<String>;
    let mut rest: &[&str] = path;
    match path[0] {
        "crate" => {
            at = Vec::new();
            rest = &path[1..];
        }
        "self" => {
            at = module.to_vec();
            rest = &path[1..];
        }
        "super" => at = module.to_vec(),
        first if child(module, first) => at = module.to_vec(),
        first if imported => {
            let import = files.get(module)?.1.imports.get(first)?;
            let mut whole: Vec<&str> = import.split("::").collect();
            whole.extend_from_slice(&path[1..]);
            return resolve(files, module, &whole, false, depth + 1);
        }
        _ => return None,
    }
    while rest.first() == Some(&"super") {
        at.pop();
        rest = &rest[1..];
    }
    while let Some(seg) = rest.first().filter(|s| child(&at, s)) {
        at.push(seg.to_string());
        rest = &rest[1..];
    }
    let Some(&name) = rest.first() else {
        let name = at.last().cloned().unwrap_or_default();
        return Some((at, name));
    };
    let names = &files.get(&at)?.1;
    if names.defines.contains(name) {
        return Some((at, name.to_string()));
    }
    if let Some(import) = names.imports.get(name) {
        let mut whole: Vec<&str> = import.split("::").collect();
        whole.extend_from_slice(&rest[1..]);
        // An import of something out of the crate names no file of it.
        return resolve(files, &at, &whole, false, depth + 1);
    }
    for glob in &names.globs {
        let mut whole: Vec<&str> = glob.split("::").collect();
        whole.extend_from_slice(rest);
        if let Some(found) = resolve(files, &at, &whole, false, depth + 1)
            && files.get(&found.0).is_some_and(|(_, n)| n.defines.contains(name))
        {
            return Some(found);
        }
    }
    Some((at, name.to_string()))
}

fn read_crate(dir: &str, root_file: &str) -> Crate {
    let src = root().join(dir).join("src");
    let mut files: BTreeMap<Vec<String>, (PathBuf, Names)> = BTreeMap::new();
    let mut texts = Vec::new();
    for file in sources(&src) {
        let module = module_of(&src, &file, root_file);
        let text = without_test_items(&code_only(&std::fs::read_to_string(&file).unwrap()));
        files.insert(module.clone(), (file.clone(), names_of(&text)));
        texts.push((file, module, text));
    }
    let mut arrows: BTreeMap<PathBuf, BTreeMap<PathBuf, BTreeSet<String>>> = BTreeMap::new();
    for (file, module, text) in &texts {
        let uses = use_paths(text).into_iter().map(|p| (p, false));
        let inline = inline_paths(text).into_iter().map(|p| (p, true));
        for (path, imported) in uses.chain(inline) {
            let path = path.split(" as ").next().unwrap_or(&path).to_string();
            let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty() && *s != "*").collect();
            let Some((at, name)) = resolve(&files, module, &segments, imported, 0) else { continue };
            let target = &files[&at].0;
            if target != file {
                arrows.entry(file.clone()).or_default().entry(target.clone()).or_default().insert(name);
            }
        }
    }
    Crate { files: files.into_iter().map(|(m, (f, _))| (m, f)).collect(), arrows }
}

/// The strongly connected parts of more than one file (Tarjan's).
fn circles(c: &Crate) -> Vec<Vec<PathBuf>> {
    struct State<'a> {
        arrows: &'a BTreeMap<PathBuf, BTreeMap<PathBuf, BTreeSet<String>>>,
        index: BTreeMap<&'a Path, usize>,
        low: BTreeMap<&'a Path, usize>,
        stack: Vec<&'a Path>,
        on: BTreeSet<&'a Path>,
        next: usize,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Path) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        if let Some(ws) = s.arrows.get(v) {
            for w in ws.keys() {
                if !s.index.contains_key(w.as_path()) {
                    visit(s, w);
                    let l = s.low[w.as_path()].min(s.low[v]);
                    s.low.insert(v, l);
                } else if s.on.contains(w.as_path()) {
                    let l = s.index[w.as_path()].min(s.low[v]);
                    s.low.insert(v, l);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut part = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                part.push(w.to_path_buf());
                if w == v {
                    break;
                }
            }
            if part.len() > 1 {
                part.sort();
                s.out.push(part);
            }
        }
    }
    let mut s = State {
        arrows: &c.arrows,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for f in c.files.values() {
        if !s.index.contains_key(f.as_path()) {
            visit(&mut s, f);
        }
    }
    s.out
}

fn shown(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

#[test]
fn no_crate_has_an_import_circle() {
    let mut found = Vec::new();
    for (dir, root_file) in CRATES {
        let c = read_crate(dir, root_file);
        assert!(c.files.len() > 1, "{dir}: no source files found");
        for part in circles(&c) {
            let mut lines = vec![format!("a circle of {} files in {dir}:", part.len())];
            for a in &part {
                for (b, names) in c.arrows.get(a).into_iter().flatten() {
                    if part.contains(b) {
                        let names: Vec<&str> = names.iter().map(String::as_str).collect();
                        lines.push(format!("  {} -> {}: {}", shown(a), shown(b), names.join(", ")));
                    }
                }
            }
            found.push(lines.join("\n"));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Each `match` in `code` whose arms name `Action::` variants and end in
/// a catch-all arm (`_` or a bare binding): the line of its `match`.
fn catch_all_action_matches(code: &str) -> Vec<usize> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("match").map(|k| k + from) {
        from = at + 5;
        if (at > 0 && is_ident(b[at - 1])) || b.get(at + 5).is_some_and(|&c| is_ident(c)) {
            continue;
        }
        // The scrutinee runs to the first `{` outside brackets.
        let mut i = at + 5;
        let mut depth = 0;
        while i < b.len() {
            match b[i] {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b'{' if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let close = matching(b, i);
        let patterns = arm_patterns(&code[i + 1..close]);
        let names_kinds = patterns.iter().any(|p| p.split('|').any(|alt| alt.trim().contains("Action::")));
        let catch_all = patterns.iter().any(|p| {
            let p = p.trim();
            p == "_" || (!p.is_empty() && p.bytes().all(is_ident) && p.as_bytes()[0].is_ascii_lowercase())
        });
        if names_kinds && catch_all {
            out.push(code[..at].lines().count().max(1));
        }
    }
    out
}

/// The patterns of a match block's arms (the text before each top-level
/// `=>`, guards included).
fn arm_patterns(block: &str) -> Vec<String> {
    let b = block.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            // Bodies are skipped whole below: brackets here are patterns'.
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => start = i + 1,
            b'=' if depth == 0 && b.get(i + 1) == Some(&b'>') => {
                let pattern = block[start..i].trim().trim_start_matches(',').trim();
                let pattern = pattern.split(" if ").next().unwrap_or(pattern);
                out.push(pattern.to_string());
                i += 1;
                // The body: skip to the next top-level comma or block end.
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if j < b.len() && b[j] == b'{' {
                    i = matching(b, j);
                    start = i + 1;
                } else {
                    let mut d = 0i32;
                    while j < b.len() {
                        match b[j] {
                            b'(' | b'[' | b'{' => d += 1,
                            b')' | b']' | b'}' => d -= 1,
                            b',' if d == 0 => break,
                            _ => {}
                        }
                        j += 1;
                    }
                    i = j;
                    start = j + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

#[test]
fn every_match_over_step_kinds_names_each_kind() {
    let mut found = Vec::new();
    for (dir, _) in CRATES {
        for file in sources(&root().join(dir).join("src")) {
            let code = without_test_items(&code_only(&std::fs::read_to_string(&file).unwrap()));
            for line in catch_all_action_matches(&code) {
                found.push(format!("{}:{line}", shown(&file)));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a match over Action (the plan's step kinds) ends in a catch-all arm, so a new kind would fall \
         through it silently; name each kind instead:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checks_find_what_they_look_for() {
    // A circle: a names b's item, b names a's.
    let code =
        code_only("use crate::b::{Thing, other::More};\nfn f() { super::x::y(); let s = \"crate::z\"; }");
    assert_eq!(use_paths(&code), ["crate::b::Thing", "crate::b::other::More"]);
    assert_eq!(inline_paths(&code), ["crate::b", "other::More", "super::x::y"]);
    assert_eq!(use_paths("use a::{b as c, d::{e, f}};"), ["a::b", "a::d::e", "a::d::f"]);
    let code = code_only(
        "fn f(a: &Action) -> u32 { match a { Action::Fill { .. } | Action::Erase { .. } => 1, _ => 0 } }\n\
         fn g(a: &Action) -> u32 { match a { Action::Fill { .. } => { 1 } other => 2 } }\n\
         fn h(a: &Action) -> u32 { match a { Action::Fill { .. } => 1, Action::Erase { .. } => 2 } }\n\
         fn k(n: u32) -> u32 { match n { 0 => 1, _ => 2 } }",
    );
    assert_eq!(catch_all_action_matches(&code), [1, 2]);
    let code = without_test_items("fn a() {}\n#[cfg(test)]\nmod tests { use super::*; }\nfn b() {}");
    assert!(!code.contains("super") && code.contains("fn b"));
    assert_eq!(char_literal_len(b"'a' x"), Some(3));
    assert_eq!(char_literal_len(b"'a>(x"), None);
}
