//! The editor support in editors/: the TextMate grammar goes through a
//! small TextMate tokenizer (match and begin/end rules, captures, includes
//! of the repository) over every spec and editors/sample.method, and each
//! token is checked against what methodic's own grammar sees there: every
//! keyword is one token with a keyword scope, comments, strings, numbers
//! and names are scoped as what they are. The copies for VS Code and
//! Sublime Text must match the grammar.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use pest::Parser as _;
use regex::{Captures, Regex, RegexBuilder};
use serde_json::Value;

/// The language's own grammar, the file the `methodic` parser is derived
/// from, derived again here for its pairs (the grammar crate keeps its
/// parser private): where it sees a keyword, a string or a name is where
/// the TextMate grammar must scope one.
mod methodology {
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar/src/methodology.pest"]
    pub struct Parser;
}
use methodology::Rule;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"))
}

fn json(rel: &str) -> Value {
    serde_json::from_str(&read(rel)).unwrap_or_else(|e| panic!("{rel} is not valid JSON: {e}"))
}

// ---------------------------------------------------------------- the tokenizer

/// A TextMate rule, its regular expressions compiled. Patterns are
/// compiled as Oniguruma reads them in an editor: a line at a time with
/// its `\n`, `^` and `$` at the line's ends. The grammar uses no
/// lookaround, so Rust's `regex` reads every pattern the way Oniguruma
/// does (leftmost-first alternation, Unicode `\b`).
enum TmRule {
    Match { re: Regex, name: Option<String>, captures: Vec<(usize, String)> },
    Region(Region),
    Patterns(Vec<TmRule>),
    Include(String),
}

struct Region {
    begin: Regex,
    end: Regex,
    name: Option<String>,
    begin_captures: Vec<(usize, String)>,
    end_captures: Vec<(usize, String)>,
    patterns: Vec<TmRule>,
}

struct Grammar {
    patterns: Vec<TmRule>,
    repository: HashMap<String, TmRule>,
}

fn compile(pattern: &str) -> Regex {
    RegexBuilder::new(pattern)
        .multi_line(true)
        .build()
        .unwrap_or_else(|e| panic!("the pattern {pattern} does not compile: {e}"))
}

fn captures(v: &Value) -> Vec<(usize, String)> {
    let Some(map) = v.as_object() else { return Vec::new() };
    let mut out: Vec<(usize, String)> = map
        .iter()
        .map(|(k, c)| {
            (k.parse().expect("a capture number"), c["name"].as_str().expect("a capture name").to_string())
        })
        .collect();
    out.sort();
    out
}

fn rule(v: &Value) -> TmRule {
    let name = v["name"].as_str().map(str::to_string);
    let patterns = || v["patterns"].as_array().map(|p| p.iter().map(rule).collect()).unwrap_or_default();
    if let Some(include) = v["include"].as_str() {
        TmRule::Include(include.to_string())
    } else if let Some(m) = v["match"].as_str() {
        TmRule::Match { re: compile(m), name, captures: captures(&v["captures"]) }
    } else if let Some(begin) = v["begin"].as_str() {
        // `captures` sets both when the begin and end captures are not given.
        let both = &v["captures"];
        let pick = |key: &str| if v[key].is_null() { captures(both) } else { captures(&v[key]) };
        TmRule::Region(Region {
            begin: compile(begin),
            end: compile(v["end"].as_str().expect("a begin rule has an end")),
            name,
            begin_captures: pick("beginCaptures"),
            end_captures: pick("endCaptures"),
            patterns: patterns(),
        })
    } else {
        TmRule::Patterns(patterns())
    }
}

impl Grammar {
    fn load(g: &Value) -> Grammar {
        let patterns = g["patterns"].as_array().expect("top-level patterns").iter().map(rule).collect();
        let repository = g["repository"]
            .as_object()
            .expect("a repository")
            .iter()
            .map(|(k, v)| (k.clone(), rule(v)))
            .collect();
        Grammar { patterns, repository }
    }

    /// The rules that can match in `list`, includes followed, in order.
    fn candidates<'g>(&'g self, list: &'g [TmRule], out: &mut Vec<&'g TmRule>, depth: usize) {
        assert!(depth < 32, "the grammar's includes go round in a circle");
        for r in list {
            match r {
                TmRule::Patterns(p) => self.candidates(p, out, depth + 1),
                TmRule::Include(name) if name == "$self" || name == "$base" => {
                    self.candidates(&self.patterns, out, depth + 1)
                }
                TmRule::Include(name) => {
                    let key = name
                        .strip_prefix('#')
                        .unwrap_or_else(|| panic!("include of another grammar: {name}"));
                    let target =
                        self.repository.get(key).unwrap_or_else(|| panic!("include of #{key}: no such rule"));
                    self.candidates(std::slice::from_ref(target), out, depth + 1);
                }
                _ => out.push(r),
            }
        }
    }

    /// Tokens over the whole of `src`, in order and without gaps: text no
    /// rule matched is a token with only its regions' scopes.
    fn tokenize(&self, src: &str) -> Vec<Token> {
        let mut tokens = Vec::new();
        let mut stack: Vec<&Region> = Vec::new();
        let mut offset = 0;
        for raw in src.split_inclusive('\n') {
            // An editor matches each line with its line break.
            let line = if raw.ends_with('\n') { raw.to_string() } else { format!("{raw}\n") };
            // Each rule's next match on this line, found from some earlier
            // position: it is still the next one from any position up to
            // its start (as vscode-textmate keeps them too).
            let mut next: HashMap<*const Regex, (usize, Option<usize>)> = HashMap::new();
            let mut find = |re: &Regex, pos: usize| -> Option<usize> {
                if let Some((from, found)) = next.get(&(re as *const Regex))
                    && *from <= pos
                    && found.is_none_or(|start| start >= pos)
                {
                    return *found;
                }
                let found = re.find_at(&line, pos).map(|m| m.start());
                next.insert(re, (pos, found));
                found
            };
            let mut pos = 0;
            let mut guard = 0;
            while pos < line.len() {
                guard += 1;
                assert!(guard < 10_000, "the tokenizer makes no progress at byte {}", offset + pos);
                let scopes = scopes_of(&stack);
                let patterns: &[TmRule] = stack.last().map_or(&self.patterns, |r| &r.patterns);
                let mut list = Vec::new();
                self.candidates(patterns, &mut list, 0);
                // The end of the innermost region wins a tie, then the
                // first rule in order (TextMate's default).
                let mut best: Option<(usize, &Regex, Option<&TmRule>)> =
                    stack.last().and_then(|r| Some((find(&r.end, pos)?, &r.end, None)));
                for r in list {
                    let re = match r {
                        TmRule::Match { re, .. } => re,
                        TmRule::Region(region) => &region.begin,
                        _ => unreachable!("candidates are matches and regions"),
                    };
                    if let Some(start) = find(re, pos)
                        && best.is_none_or(|(b, _, _)| start < b)
                    {
                        best = Some((start, re, Some(r)));
                    }
                }
                let Some((start, re, r)) = best else {
                    push(&mut tokens, offset + pos, offset + line.len(), scopes);
                    break;
                };
                // The groups of the one match taken (the same match: a
                // search from its start finds it first).
                let found = Found::new(&re.captures_at(&line, start).unwrap());
                let (start, end) = (found.start(), found.end());
                push(&mut tokens, offset + pos, offset + start, scopes.clone());
                match r {
                    None => {
                        let region = stack.pop().unwrap();
                        emit(&mut tokens, offset, &found, scopes, &region.end_captures);
                    }
                    Some(TmRule::Match { name, captures, .. }) => {
                        let mut s = scopes;
                        s.extend(name.clone());
                        emit(&mut tokens, offset, &found, s, captures);
                    }
                    Some(TmRule::Region(region)) => {
                        let mut s = scopes;
                        s.extend(region.name.clone());
                        emit(&mut tokens, offset, &found, s, &region.begin_captures);
                        stack.push(region);
                    }
                    Some(_) => unreachable!(),
                }
                if start == end && r.is_some_and(|r| matches!(r, TmRule::Match { .. })) {
                    // An empty match moves nothing: step over one character.
                    let step = pos + line[pos..].chars().next().map_or(1, char::len_utf8);
                    push(&mut tokens, offset + pos, offset + step, scopes_of(&stack));
                    pos = step;
                } else {
                    pos = end;
                }
            }
            offset += raw.len();
        }
        // The line break added to a last line without one is not in `src`.
        tokens.retain_mut(|t| {
            t.end = t.end.min(src.len());
            t.start < t.end
        });
        tokens
    }
}

/// A match: where each group of it is in the line, group 0 the whole.
#[derive(Clone)]
struct Found(Vec<Option<(usize, usize)>>);

impl Found {
    fn new(c: &Captures) -> Found {
        Found(c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect())
    }
    fn start(&self) -> usize {
        self.0[0].unwrap().0
    }
    fn end(&self) -> usize {
        self.0[0].unwrap().1
    }
}

fn scopes_of(stack: &[&Region]) -> Vec<String> {
    let mut s = vec!["source.methodic".to_string()];
    s.extend(stack.iter().filter_map(|r| r.name.clone()));
    s
}

#[derive(Debug, Clone)]
struct Token {
    start: usize,
    end: usize,
    scopes: Vec<String>,
}

fn push(tokens: &mut Vec<Token>, start: usize, end: usize, scopes: Vec<String>) {
    if start < end {
        tokens.push(Token { start, end, scopes });
    }
}

/// A match as tokens: each named capture a token of its own, the rest of
/// the match with the rule's scopes.
fn emit(
    tokens: &mut Vec<Token>,
    offset: usize,
    found: &Found,
    mut scopes: Vec<String>,
    named: &[(usize, String)],
) {
    let mut parts: Vec<(usize, usize, &str)> = Vec::new();
    for (i, name) in named {
        if *i == 0 {
            scopes.push(name.clone());
        } else if let Some(Some((start, end))) = found.0.get(*i) {
            parts.push((*start, *end, name));
        }
    }
    parts.sort();
    let mut at = found.start();
    for (start, end, name) in parts {
        assert!(start >= at, "nested captures are not used by this grammar");
        push(tokens, offset + at, offset + start, scopes.clone());
        let mut s = scopes.clone();
        s.push(name.to_string());
        push(tokens, offset + start, offset + end, s);
        at = end;
    }
    push(tokens, offset + at, offset + found.end(), scopes);
}

/// The grammar, compiled once for every test (compiling its patterns is
/// most of the work).
fn grammar() -> &'static Grammar {
    static GRAMMAR: OnceLock<Grammar> = OnceLock::new();
    GRAMMAR.get_or_init(|| Grammar::load(&json("editors/methodic.tmLanguage.json")))
}

// ---------------------------------------------------------------- checks against the parser

/// What a token at a place the parser knows must be scoped as: the
/// prefixes of the scope, and whether it is one token exactly (then its
/// innermost scope is the one).
fn expected(rule: Rule) -> Option<(&'static [&'static str], bool)> {
    const NUMBER: &[&str] = &["constant.numeric."];
    const VALUE: &[&str] = &["constant.language."];
    const NAME: &[&str] = &["variable.", "entity.name."];
    let name = format!("{rule:?}");
    if name.starts_with("k_") {
        return Some((&["keyword.control.", "keyword.other.declaration.", "keyword.other.option."], true));
    }
    Some(match rule {
        Rule::quantity | Rule::decimal | Rule::fine_duration | Rule::percentile | Rule::ratio => {
            (NUMBER, false)
        }
        Rule::string => (&["string.quoted.double."], false),
        Rule::ident => (NAME, true),
        Rule::module_path => (&["entity.name.namespace."], true),
        Rule::on_error_action
        | Rule::units_kind
        | Rule::qd_counting
        | Rule::value_kind
        | Rule::io_mode
        | Rule::write_cache_mode
        | Rule::erase_method
        | Rule::erase_option
        | Rule::aggregate
        | Rule::metric
        | Rule::point_pick
        | Rule::arrivals
        | Rule::access_zipf
        | Rule::access_pareto
        | Rule::access_normal
        | Rule::access_bands => (VALUE, true),
        Rule::access_around | Rule::bursts_times | Rule::think_drained | Rule::until_cv => {
            (&["keyword.other."], true)
        }
        Rule::rate_unit => (&["keyword.other.unit."], true),
        _ => return None,
    })
}

/// Checks the tokens of one file against its parse, and notes the rules
/// seen: every token scoped wrong, or `None` when the grammar refuses the
/// file (nothing to compare).
fn check_file(g: &Grammar, name: &str, src: &str, seen: &mut BTreeSet<String>) -> Option<Vec<String>> {
    let pairs = methodology::Parser::parse(Rule::file, src).ok()?;
    let tokens = g.tokenize(src);
    assert_eq!(tokens.first().map(|t| t.start), Some(0), "{name}: tokens start at 0");
    assert!(tokens.windows(2).all(|w| w[0].end == w[1].start), "{name}: the tokens leave gaps");
    assert_eq!(tokens.last().map(|t| t.end), Some(src.len()), "{name}: tokens end with the file");
    let covering = |start: usize, end: usize| -> Vec<&Token> {
        let first = tokens.partition_point(|t| t.end <= start);
        tokens[first..].iter().take_while(|t| t.start < end).collect()
    };
    let where_ = |at: usize| {
        let line = src[..at].matches('\n').count() + 1;
        let column = src[..at].rsplit('\n').next().unwrap().chars().count() + 1;
        format!("{name}:{line}:{column}")
    };
    let mut problems = Vec::new();
    let mut strings = Vec::new();
    for pair in pairs.flatten() {
        let rule = pair.as_rule();
        let Some((prefixes, whole)) = expected(rule) else { continue };
        let span = pair.as_span();
        let (start, end) = (span.start(), span.end());
        if rule == Rule::string {
            strings.push(start..end);
        }
        seen.insert(format!("{rule:?}"));
        for t in covering(start, end) {
            // A keyword or a name is one token, scoped as what it is; a
            // number or a string may hold tokens of its own (a unit, an
            // escape) within its scope.
            let scoped = |s: &String| prefixes.iter().any(|p| s.starts_with(p));
            let ok = if whole {
                t.start == start && t.end == end && scoped(t.scopes.last().unwrap())
            } else {
                t.scopes.iter().any(scoped)
            };
            if !ok {
                problems.push(format!(
                    "{}: `{}` ({rule:?}) is in the token `{}` scoped {}, expected {}{}",
                    where_(start),
                    pair.as_str(),
                    &src[t.start..t.end],
                    t.scopes.join(" "),
                    prefixes.join(" or "),
                    if whole { ", one token" } else { "" }
                ));
            }
        }
    }
    // Comments are trivia to pest: a `#` outside a string starts one.
    for (at, _) in src.match_indices('#').filter(|(at, _)| !strings.iter().any(|s| s.contains(at))) {
        let end = src[at..].find('\n').map_or(src.len(), |n| at + n);
        seen.insert("COMMENT".to_string());
        for t in covering(at, end) {
            if !t.scopes.iter().any(|s| s.starts_with("comment.line.number-sign.")) {
                problems.push(format!(
                    "{}: comment text `{}` is not scoped a comment",
                    where_(t.start),
                    &src[t.start..t.end]
                ));
            }
        }
    }
    Some(problems)
}

fn method_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "method"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_spec_is_scoped_as_the_parser_reads_it() {
    let g = grammar();
    let mut seen = BTreeSet::new();
    let mut failures = Vec::new();
    let specs = method_files("specs");
    assert!(specs.len() >= 15, "found {} specs", specs.len());
    // The specs leave some syntax out; editors/sample.method has it all.
    for path in specs.iter().chain([&root().join("editors/sample.method")]) {
        let name = path.strip_prefix(root()).unwrap().display().to_string();
        let src = std::fs::read_to_string(path).unwrap();
        match check_file(g, &name, &src, &mut seen) {
            Some(problems) => failures.extend(problems),
            None => failures.push(format!("{name} does not parse")),
        }
    }
    // A methodology that never writes, which the sample cannot be.
    let read_only = "methodology \"r\" version \"1.0\"\nnon_destructive\nmeasure { random; block 4KiB; read 100% } qd 1 for 1s\n";
    failures.extend(check_file(g, "read-only", read_only, &mut seen).expect("the read-only example parses"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every keyword of the language was met in a file and scoped.
    let pest = read("grammar/src/methodology.pest");
    let keywords = keyword_rules(&pest);
    let missing: Vec<&String> = keywords.iter().filter(|k| !seen.contains(&format!("k_{k}"))).collect();
    assert!(missing.is_empty(), "editors/sample.method does not use the keywords {missing:?}: add them");
    for what in [
        "COMMENT",
        "string",
        "quantity",
        "decimal",
        "fine_duration",
        "ident",
        "module_path",
        "percentile",
        "ratio",
        "rate_unit",
        "arrivals",
        "access_around",
        "bursts_times",
        "think_drained",
        "until_cv",
        "point_pick",
        "erase_option",
    ] {
        assert!(seen.contains(what), "editors/sample.method has no {what}");
    }
}

/// The words of the grammar's `k_` rules: `k_sweep = @{ "sweep" ~ ... }`.
fn keyword_rules(pest: &str) -> Vec<String> {
    let re = Regex::new(r#"(?m)^k_(\w+)\s*=\s*@\{\s*"(\w+)""#).unwrap();
    let words: Vec<String> = re
        .captures_iter(pest)
        .map(|c| {
            assert_eq!(&c[1], &c[2], "the rule k_{} is not for the word {}", &c[1], &c[2]);
            c[2].to_string()
        })
        .collect();
    assert!(words.len() > 80, "found {} keyword rules", words.len());
    words
}

#[test]
fn every_keyword_and_only_keywords_are_scoped_keywords() {
    let g = grammar();
    let keywords = keyword_rules(&read("grammar/src/methodology.pest"));
    for k in &keywords {
        assert!(methodic_grammar::is_reserved(k), "{k} has a k_ rule but is not reserved");
        let tokens = g.tokenize(&format!("{k}\n"));
        let t = &tokens[0];
        assert!(
            t.end == k.len() && t.scopes.last().unwrap().starts_with("keyword."),
            "`{k}` alone is scoped {} over `{}`",
            t.scopes.join(" "),
            &k[..t.end.min(k.len())]
        );
    }
    // The other way: each word of the keyword rules is reserved.
    let g_json = json("editors/methodic.tmLanguage.json");
    let listed: Vec<String> = g_json["repository"]["keywords"]["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| {
            let m = p["match"].as_str().unwrap();
            let inner = m.strip_prefix("\\b(").and_then(|m| m.strip_suffix(")\\b")).expect("\\b(a|b)\\b");
            inner.split('|').map(str::to_string).collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(listed.len(), keywords.len(), "the keyword rules list a word twice or miss one");
    for w in &listed {
        assert!(keywords.contains(w), "the TextMate grammar scopes `{w}` as a keyword, which is not one");
    }
    // Names that start like keywords stay names.
    for name in ["fill_rate", "sweeps", "qd32", "index", "format_x", "read_mix"] {
        let tokens = g.tokenize(&format!("{name}\n"));
        assert_eq!(tokens[0].scopes.last().unwrap(), "variable.other.methodic", "{name}");
        assert_eq!(tokens[0].end, name.len(), "{name}");
    }
}

#[test]
fn strings_end_at_their_line_and_escapes_are_marked() {
    let g = grammar();
    let src = "describe \"a \\\"b\\\" \\q\nphase \"x\" { idle 1s }\n";
    let tokens = g.tokenize(src);
    let scope_at = |needle: &str| {
        let at = src.find(needle).unwrap();
        let t = tokens.iter().find(|t| t.start <= at && at < t.end).unwrap();
        t.scopes.last().unwrap().clone()
    };
    assert!(scope_at("\\\"b").starts_with("constant.character.escape."));
    assert!(scope_at("\\q").starts_with("invalid.illegal."));
    // The unterminated string stops at its line: the next line is code.
    assert!(scope_at("phase").starts_with("keyword.control."), "{}", scope_at("phase"));
    assert!(scope_at("1s").starts_with("constant.numeric."));
    assert!(scope_at("s }").starts_with("keyword.other.unit."));
}

// ---------------------------------------------------------------- the files editors load

#[test]
fn the_grammar_and_the_vscode_extension_are_complete() {
    let g = json("editors/methodic.tmLanguage.json");
    assert_eq!(g["scopeName"], "source.methodic");
    assert_eq!(g["name"], "methodic");
    assert!(g["fileTypes"].as_array().unwrap().iter().any(|t| t == "method"));
    assert!(!g["patterns"].as_array().unwrap().is_empty());
    // Every pattern compiles (the rule builder panics on one that does not).
    let _ = grammar();

    let package = json("editors/vscode/package.json");
    let language = &package["contributes"]["languages"][0];
    assert_eq!(language["id"], "methodic");
    assert!(language["extensions"].as_array().unwrap().iter().any(|e| e == ".method"));
    let grammar = &package["contributes"]["grammars"][0];
    assert_eq!(grammar["language"], "methodic");
    assert_eq!(grammar["scopeName"], "source.methodic");
    for file in [language["configuration"].as_str().unwrap(), grammar["path"].as_str().unwrap()] {
        let path = root().join("editors/vscode").join(file);
        assert!(path.is_file(), "package.json names {file}, which is not in editors/vscode");
    }
    let config = json(&format!("editors/vscode/{}", language["configuration"].as_str().unwrap()));
    assert_eq!(config["comments"]["lineComment"], "#");
    assert_eq!(package["engines"]["vscode"].as_str().map(|v| v.starts_with('^')), Some(true));
}

/// The grammar as an XML property list, the form Sublime Text loads
/// (`.tmLanguage`); `$schema` is for JSON editors only.
fn plist(g: &Value) -> String {
    fn escape(s: &str) -> String {
        s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
    }
    fn value(v: &Value, indent: usize, out: &mut String) {
        let pad = "\t".repeat(indent);
        match v {
            Value::Object(map) => {
                out.push_str(&format!("{pad}<dict>\n"));
                for (k, v) in map.iter().filter(|(k, _)| *k != "$schema") {
                    out.push_str(&format!("{pad}\t<key>{}</key>\n", escape(k)));
                    value(v, indent + 1, out);
                }
                out.push_str(&format!("{pad}</dict>\n"));
            }
            Value::Array(items) => {
                out.push_str(&format!("{pad}<array>\n"));
                for v in items {
                    value(v, indent + 1, out);
                }
                out.push_str(&format!("{pad}</array>\n"));
            }
            Value::String(s) => out.push_str(&format!("{pad}<string>{}</string>\n", escape(s))),
            Value::Bool(b) => out.push_str(&format!("{pad}<{b}/>\n")),
            Value::Number(n) => out.push_str(&format!("{pad}<integer>{n}</integer>\n")),
            Value::Null => panic!("a TextMate grammar has no null"),
        }
    }
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \
         \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n",
    );
    value(g, 0, &mut out);
    out.push_str("</plist>\n");
    out
}

/// The copies editors load are the grammar: VS Code's byte for byte,
/// Sublime Text's as a property list. `METHODIC_UPDATE_EDITORS=1` writes
/// them after a change to the grammar.
#[test]
fn the_editor_copies_match_the_grammar() {
    let source = read("editors/methodic.tmLanguage.json");
    let copies = [
        ("editors/vscode/syntaxes/methodic.tmLanguage.json", source.clone()),
        ("editors/sublime/methodic.tmLanguage", plist(&serde_json::from_str(&source).unwrap())),
    ];
    let update = std::env::var("METHODIC_UPDATE_EDITORS").is_ok_and(|v| v == "1");
    for (rel, want) in copies {
        let have = std::fs::read_to_string(root().join(rel)).unwrap_or_default();
        if have != want && update {
            std::fs::write(root().join(rel), &want).unwrap();
            continue;
        }
        assert!(
            have == want,
            "{rel} differs from editors/methodic.tmLanguage.json: run \
             `METHODIC_UPDATE_EDITORS=1 cargo test --test editors` to write it"
        );
    }
}
