//! A file of DiskSpd command lines in, the `Profile` model out: one
//! command a line (each a time span, run in order, as a script runs
//! them), blank lines and lines starting with `#`, `::` or `rem` left
//! out, a line ending in `^` (cmd) or `` ` `` (PowerShell) continued on
//! the next. Each line is split into words by the Windows C runtime's
//! rules (double quotes group, backslashes are literal unless before a
//! quote) and read by the rules of DiskSpd 2.2's
//! `CmdLineParser/CmdLineParser.cpp` (microsoft/diskspd, commit
//! c361eed6804607db9bc631a53d499b258c6c6741): a switch starts with `-`
//! or `/`, its value follows its letter in the same word, switches come
//! before the targets, every switch applies to every target; sizes take
//! `K` `M` `G` `T` (binary) or `b` (blocks) (`_GetSizeInBytes`, 49-131);
//! counts and times must be whole numbers (DiskSpd's `atoi` reads `-d10s`
//! as 10 and `-W1m` as 1: refused, saying so).

use super::model::{At, Distribution, Note, Pattern, Profile, Set, Target, Throughput, TimeSpan, size};
use super::translate;
use crate::ImportErrorKind;
use crate::problem::Problem;

/// Reads a file a `-X` names, by its name as written.
pub(crate) type Include<'a> = &'a dyn Fn(&str) -> Result<String, String>;

/// The profile of every command in `text`, or every problem found.
pub(crate) fn read(text: &str, include: Include) -> Result<Profile, Vec<Problem>> {
    let mut profile = Profile { command_line: true, ..Profile::default() };
    let mut problems = Vec::new();
    for (number, (line, command)) in commands(text).into_iter().enumerate() {
        let words = split(&command);
        let x = words.iter().position(|w| w.starts_with("-X") || w.starts_with("/X"));
        if let Some(x) = x {
            super::profile_x::read(&words, x, line, number + 1, include, &mut profile, &mut problems);
        } else if let Some(span) = command_to_span(&words, line, number + 1, &mut problems) {
            profile.spans.push(span);
        }
    }
    if profile.spans.is_empty() && problems.is_empty() {
        problems.push(
            Problem::new(ImportErrorKind::Empty, 0, "no DiskSpd command line in the file")
                .hint("write a command such as `diskspd -b4K -r -o32 -t4 -d60 #1`, one a line"),
        );
    }
    if problems.is_empty() { Ok(profile) } else { Err(problems) }
}

/// The commands of a file, each with the line it starts on: comments and
/// blank lines left out, continued lines joined.
fn commands(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let lower = line.to_ascii_lowercase();
        let comment = line.starts_with('#')
            || line.starts_with("::")
            || lower == "rem"
            || lower.starts_with("rem ")
            || lower.starts_with("@rem");
        if !open && (line.is_empty() || comment) {
            continue;
        }
        let (body, more) = match line.strip_suffix('^').or_else(|| line.strip_suffix('`')) {
            Some(b) => (b, true),
            None => (line, false),
        };
        match out.last_mut() {
            Some((_, text)) if open => {
                text.push(' ');
                text.push_str(body);
            }
            _ => out.push((i + 1, body.to_string())),
        }
        open = more;
    }
    out
}

/// Words as the Windows C runtime splits a command line: blanks
/// separate, double quotes group (`""` inside quotes is one quote),
/// 2n backslashes before a quote are n, 2n+1 are n and a literal quote.
pub(crate) fn split(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quoted = false;
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            let run = chars[i..].iter().take_while(|c| **c == '\\').count();
            if chars.get(i + run) == Some(&'"') {
                word.extend(std::iter::repeat_n('\\', run / 2));
                if run % 2 == 1 {
                    word.push('"');
                    i += run + 1;
                } else {
                    i += run;
                }
            } else {
                word.extend(std::iter::repeat_n('\\', run));
                i += run;
            }
            in_word = true;
            continue;
        }
        if c == '"' {
            if quoted && chars.get(i + 1) == Some(&'"') {
                word.push('"');
                i += 2;
                continue;
            }
            quoted = !quoted;
            in_word = true;
        } else if c.is_whitespace() && !quoted {
            if in_word {
                words.push(std::mem::take(&mut word));
                in_word = false;
            }
        } else {
            word.push(c);
            in_word = true;
        }
        i += 1;
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Whether a word is the program: `diskspd`, `diskspd.exe`, with a path.
pub(crate) fn is_program(word: &str) -> bool {
    let name = word.rsplit(['\\', '/']).next().unwrap_or(word).to_ascii_lowercase();
    name == "diskspd" || name == "diskspd.exe"
}

/// The state of one command while its switches are read.
struct Command<'p> {
    line: usize,
    place: String,
    problems: &'p mut Vec<Problem>,
    span: TimeSpan,
    /// The settings every target gets.
    target: Target,
    /// Cache states set so far: `-S` letters (DiskSpd refuses one twice).
    cache_mode: bool,
    write_through_set: bool,
    block: u64,
}

impl Command<'_> {
    /// The switch as written, on this command's line.
    fn at(&self, word: &str) -> At {
        At::new(self.line, word)
    }

    /// A problem with a switch, kept; returned to add a hint.
    fn problem(&mut self, kind: ImportErrorKind, word: &str, detail: impl Into<String>) -> &mut Problem {
        let p = Problem::new(kind, self.line, detail).option(word).place(self.place.clone());
        self.problems.push(p);
        self.problems.last_mut().expect("just pushed")
    }

    /// A switch methodic cannot translate, with why and what to do.
    fn refuse(&mut self, word: &str, why: &str, hint: &str) {
        let p = self.problem(ImportErrorKind::Untranslatable, word, why);
        p.hint = Some(hint.to_string());
    }

    /// A switch kept as a comment, with why it changes nothing measured.
    fn note(&mut self, word: &str, why: &str) {
        self.span.notes.push(Note::new(self.at(word), why));
    }

    /// A whole number, strictly; DiskSpd's `atoi` reading is said.
    fn count(&mut self, word: &str, value: &str, what: &str) -> Option<u64> {
        if !value.is_empty()
            && value.bytes().all(|b| b.is_ascii_digit())
            && let Ok(n) = value.parse::<u64>()
            && n <= i32::MAX as u64
        {
            return Some(n);
        }
        let digits: String = value.chars().take_while(char::is_ascii_digit).collect();
        let read = if digits.is_empty() { "0".to_string() } else { digits };
        // The switch as written before the value (`-rs`), or its first two characters.
        let switch = word.strip_suffix(value).or_else(|| word.get(..2)).unwrap_or(word);
        let p = self.problem(
            ImportErrorKind::BadValue,
            word,
            format!("DiskSpd reads `{value}` as {read} ({what}): methodic takes the number alone, so that it is what was meant"),
        );
        p.hint = Some(format!("write {switch}{read} if DiskSpd's reading is what you meant"));
        None
    }

    /// A size with DiskSpd's suffixes.
    fn size(&mut self, word: &str, value: &str) -> Option<u64> {
        match size(value, self.block) {
            Some(n) => Some(n),
            None => {
                let p = self.problem(
                    ImportErrorKind::Syntax,
                    word,
                    format!("`{value}` is not a size DiskSpd reads: digits, then K, M, G, T or b (blocks)"),
                );
                p.hint = Some("such as -b4K, -c100G, -B2b".to_string());
                None
            }
        }
    }
}

/// One command's words to a time span with a target each; `None` when
/// it cannot be read.
fn command_to_span(
    words: &[String],
    line: usize,
    number: usize,
    problems: &mut Vec<Problem>,
) -> Option<TimeSpan> {
    let mut words = words;
    if let Some(first) = words.first() {
        if is_program(first) {
            words = &words[1..];
        } else if !first.starts_with(['-', '/']) {
            problems.push(
                Problem::new(
                    ImportErrorKind::Syntax,
                    line,
                    "not a DiskSpd command line: it starts with neither diskspd nor a switch",
                )
                .option(first.clone())
                .hint("give a file of DiskSpd command lines (one a line) or a DiskSpd XML profile"),
            );
            return None;
        }
    }
    let place = format!("command {number}");
    let span = TimeSpan::new(At::new(line, place.clone()), place.clone());
    let target = Target::new(At::new(line, ""), "");
    // `-b` first: the `b` suffix of every size counts blocks of it.
    let block = words
        .iter()
        .filter_map(|w| w.strip_prefix(['-', '/']).and_then(|w| w.strip_prefix('b')))
        .filter_map(|v| size(v, 65536))
        .next_back()
        .unwrap_or(65536);
    let mut c =
        Command { line, place, problems, span, target, cache_mode: false, write_through_set: false, block };
    let mut paths = Vec::new();
    for w in words {
        if let Some(body) = w.strip_prefix(['-', '/']) {
            if !paths.is_empty() {
                c.problem(ImportErrorKind::Syntax, w, "DiskSpd takes switches before the targets only");
                continue;
            }
            switch(&mut c, w, body);
        } else {
            paths.push(w.clone());
        }
    }
    if paths.is_empty() {
        let p = Problem::new(
            ImportErrorKind::Syntax,
            line,
            "no target: DiskSpd needs at least one file, #N or X: after the switches",
        )
        .place(c.place.clone());
        c.problems.push(p);
        return None;
    }
    let mut span = c.span;
    for p in paths {
        let mut t = c.target.clone();
        t.at = At::new(line, p.clone());
        t.path = p;
        span.targets.push(t);
    }
    Some(span)
}

/// One switch (`w` as written, `body` after `-`).
fn switch(c: &mut Command, w: &str, body: &str) {
    let Some(letter) = body.chars().next() else {
        c.problem(ImportErrorKind::Syntax, w, "a switch without a letter");
        return;
    };
    let value = &body[letter.len_utf8()..];
    let at = c.at(w);
    match letter {
        'b' => {
            if let Some(n) = c.size(w, value) {
                if value.ends_with(['b', 'B']) {
                    c.problem(ImportErrorKind::BadValue, w, "a block size counted in blocks");
                } else {
                    c.target.block = Some(Set::new(n, at));
                }
            }
        }
        'd' | 'W' | 'C' => {
            if let Some(n) = c.count(w, value, "seconds") {
                let s = Some(Set::new(n, at));
                match letter {
                    'd' => c.span.duration = s,
                    'W' => c.span.warmup = s,
                    _ => c.span.cooldown = s,
                }
            }
        }
        'o' | 't' | 'F' | 'O' | 'i' | 'j' => {
            let what = if letter == 'j' { "milliseconds" } else { "a count" };
            if let Some(n) = c.count(w, value, what) {
                let s = Some(Set::new(n, at));
                match letter {
                    'o' => c.target.request_count = s,
                    't' => c.target.threads = s,
                    'F' => c.span.thread_count = s,
                    'O' => c.span.request_count = s,
                    'i' => c.target.burst = s,
                    _ => c.target.think = s,
                }
            }
        }
        'w' => {
            if let Some(n) = c.count(w, value, "a percentage") {
                if n > 100 {
                    c.problem(ImportErrorKind::BadValue, w, "DiskSpd's write ratio is 0 to 100");
                } else {
                    c.target.write_ratio = Some(Set::new(n, at));
                }
            }
        }
        'r' => random(c, w, value),
        's' => sequential(c, w, value),
        'S' => cache(c, w, value),
        'h' if value.is_empty() => cache(c, w, "h"),
        'B' => base(c, w, value),
        'c' => {
            if let Some(n) = c.size(w, value) {
                c.target.file_size = Some(Set::new(n, at));
            }
        }
        'f' if value.starts_with(|ch: char| ch.is_ascii_digit()) => {
            if let Some(n) = c.size(w, value) {
                c.target.max_size = Some(Set::new(n, at));
            }
        }
        'f' if !value.is_empty() && value.chars().all(|ch| "rst".contains(ch)) => c.note(w, translate::HINTS),
        'T' => {
            if let Some(n) = c.size(w, value) {
                c.target.thread_stride = Some(Set::new(n, at));
            }
        }
        'g' => throughput(c, w, value),
        'Z' => pattern(c, w, value),
        'D' => {
            c.span.iops_std_dev = Some(Set::new(true, at.clone()));
            if !value.is_empty()
                && let Some(n) = c.count(w, value, "milliseconds")
            {
                c.span.bucket = Some(Set::new(n, at));
            }
        }
        _ => other(c, w, letter, value, at),
    }
}

/// The switches that become a comment or are refused outright.
fn other(c: &mut Command, w: &str, letter: char, value: &str, at: At) {
    match letter {
        'L' => c.note(w, translate::LATENCY),
        'z' => c.note(w, translate::SEED),
        'n' => c.note(w, translate::AFFINITY_OFF),
        'x' => {
            c.span.completion_routines = Some(Set::new(true, at));
            c.note(w, translate::COMPLETION);
        }
        'l' => c.note(w, translate::LARGE_PAGES),
        'I' if matches!(value, "1" | "2" | "3") => c.note(w, translate::PRIORITY),
        'I' => {
            c.problem(ImportErrorKind::BadValue, w, "DiskSpd's I/O priority is 1, 2 or 3");
        }
        'v' if matches!(value, "" | "s") => c.note(w, "what DiskSpd prints; methodic's results hold every step's numbers"),
        'R' => c.note(w, "DiskSpd's output format (with p: print the profile and run nothing); methodic writes its own results"),
        'P' => c.note(w, "DiskSpd's progress dots; changes nothing measured"),
        'e' => c.note(w, "Windows event tracing during the run; changes nothing measured"),
        ':' => c.note(w, "DiskSpd's experiment flags change how a throttled thread sleeps; methodic keeps its rate itself"),
        'y' if value.starts_with('e') => {
            c.refuse(w, "DiskSpd sets the event and exits, running no test", "remove it to import the test")
        }
        'y' => c.note(w, "DiskSpd's named events start or stop it with other programs; methodic runs its steps in order"),
        'a' if matches!(value, "" | "g") => c.note(w, "DiskSpd's default placement of threads on CPUs; methodic places its workers itself"),
        'a' => c.refuse(w, translate::AFFINITY, "remove it, and run methodic under taskset to restrict its CPUs"),
        'p' if value.is_empty() => c.refuse(w, translate::PARALLEL, "remove it to import the test"),
        'N' => c.refuse(w, translate::MAPPED, "remove -N and -Sm"),
        '?' => c.refuse(w, "DiskSpd prints its usage and runs no test", "remove it"),
        _ => {
            c.problem(ImportErrorKind::UnknownOption, w, "DiskSpd has no such switch (it refuses it as an invalid option)");
        }
    }
}

/// `-r[align]`, `-rs<pct>`, `-rd<pct|abs>...`.
fn random(c: &mut Command, w: &str, value: &str) {
    let at = c.at(w);
    if let Some(p) = value.strip_prefix("s") {
        if let Some(n) = c.count(w, p, "a percentage") {
            match n {
                1..=99 => c.target.random_ratio = Some(Set::new(n, at.clone())),
                100 => {}
                _ => {
                    c.problem(ImportErrorKind::BadValue, w, "DiskSpd's random ratio is 1 to 100");
                    return;
                }
            }
            c.target.random.get_or_insert(Set::new(0, at));
        }
    } else if let Some(d) = value.strip_prefix("d") {
        if d.starts_with("abs") {
            c.target.distribution = Some(Set { value: Distribution::Absolute, at });
        } else if let Some(ranges) = d.strip_prefix("pct") {
            let parsed: Option<Vec<(u64, u64)>> = ranges
                .split(':')
                .map(|r| {
                    let (io, s) = r.split_once('/')?;
                    let io: u64 = io.parse().ok().filter(|v| *v <= 100)?;
                    let s: u64 = s.parse().ok().filter(|v| (1..=100).contains(v))?;
                    Some((io, s))
                })
                .collect();
            match parsed {
                Some(r) => c.target.distribution = Some(Set { value: Distribution::Percent(r), at }),
                None => {
                    c.problem(
                        ImportErrorKind::Syntax,
                        w,
                        "-rdpct takes IO%/target% pairs separated by `:`, IO% 0 to 100, target% 1 to 100",
                    );
                }
            }
        } else {
            c.problem(ImportErrorKind::Syntax, w, "-rd is followed by pct or abs");
        }
    } else {
        let align = if value.is_empty() { Some(0) } else { c.size(w, value) };
        if let Some(a) = align {
            if value.is_empty() || a > 0 {
                c.target.random = Some(Set::new(a, at));
            } else {
                c.problem(ImportErrorKind::BadValue, w, "DiskSpd's random alignment must be above 0");
            }
        }
    }
}

/// `-s[i][stride]`.
fn sequential(c: &mut Command, w: &str, value: &str) {
    let at = c.at(w);
    let value = match value.strip_prefix('i') {
        Some(v) => {
            c.target.interlocked = Some(Set::new(true, at.clone()));
            v
        }
        None => value,
    };
    let stride = if value.is_empty() { Some(0) } else { c.size(w, value) };
    if let Some(s) = stride {
        c.target.stride = Some(Set::new(s, at));
    }
}

/// `-S[bhmruw]` and `-h` as DiskSpd's three cache states
/// (CmdLineParser.cpp:1681-1784): each set once.
fn cache(c: &mut Command, w: &str, letters: &str) {
    let at = c.at(w);
    let letters = if letters.is_empty() { "u" } else { letters };
    for l in letters.chars() {
        let (mode, through) = match l {
            'b' => (true, false),
            'u' => (true, false),
            'w' => (false, true),
            'h' => (true, true),
            'r' => {
                c.refuse(w, translate::LOCAL_CACHE, "remove the r to import the test");
                continue;
            }
            'm' => {
                c.refuse(w, translate::MAPPED, "remove the m to import the test");
                continue;
            }
            _ => {
                c.problem(ImportErrorKind::Syntax, w, format!("-S has no letter {l} (b, h, m, r, u, w)"));
                continue;
            }
        };
        if (mode && c.cache_mode) || (through && c.write_through_set) {
            c.problem(ImportErrorKind::Conflict, w, "DiskSpd refuses a cache setting given twice");
            continue;
        }
        c.cache_mode |= mode;
        c.write_through_set |= through;
        if mode && l != 'b' {
            c.target.no_os_cache = Some(at.clone());
        }
        if through {
            c.target.write_through = Some(at.clone());
        }
    }
}

/// `-B<base>[:<length>]`.
fn base(c: &mut Command, w: &str, value: &str) {
    let at = c.at(w);
    let (b, len) = match value.split_once(':') {
        Some((b, l)) => (b, Some(l)),
        None => (value, None),
    };
    let Some(b) = c.size(w, b) else { return };
    c.target.base = Some(Set::new(b, at.clone()));
    if let Some(l) = len {
        let Some(l) = c.size(w, l) else { return };
        match b.checked_add(l) {
            Some(max) if l > 0 => c.target.max_size = Some(Set::new(max, at)),
            _ => {
                c.problem(
                    ImportErrorKind::BadValue,
                    w,
                    "the length after : must be above 0, and base plus length must fit",
                );
            }
        }
    }
}

/// `-g<n>` (bytes per ms) or `-g<n>i` (IOPS).
fn throughput(c: &mut Command, w: &str, value: &str) {
    let at = c.at(w);
    let (n, iops) = match value.strip_suffix('i') {
        Some(n) => (n, true),
        None => (value, false),
    };
    if let Some(amount) = c.count(w, n, "a rate") {
        if amount == 0 {
            c.problem(ImportErrorKind::BadValue, w, "DiskSpd refuses a throughput of 0");
        } else {
            c.target.throughput = Some(Set::new(Throughput { amount, iops }, at));
        }
    }
}

/// `-Z`, `-Zr`, `-Z<size>[,<file>]`.
fn pattern(c: &mut Command, w: &str, value: &str) {
    let at = c.at(w);
    match value {
        "" => c.target.pattern = Some(Set::new(Pattern::Zero, at)),
        "r" => c.span.random_write_data = Some(Set::new(true, at)),
        v => {
            let (s, file) = match v.split_once(',') {
                Some((s, f)) => (s, Some(f)),
                None => (v, None),
            };
            if file.is_some() {
                c.refuse(
                    w,
                    "DiskSpd writes the bytes of this file: methodic writes random data, zeros or compressible data, not a file's",
                    "remove the ,FILE (DiskSpd then writes random bytes)",
                );
            }
            if let Some(n) = c.size(w, s) {
                c.target.pattern = Some(Set::new(Pattern::RandomBuffer(n), at));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `read` without files to include.
    fn read_(text: &str) -> Result<Profile, Vec<Problem>> {
        read(text, &|_| Err("no file".into()))
    }

    #[test]
    fn words_split_as_windows_splits_them() {
        assert_eq!(split(r#"diskspd -b4K "C:\My Data\t.dat""#), ["diskspd", "-b4K", r"C:\My Data\t.dat"]);
        assert_eq!(split(r#"a\\"b c" d"#), [r"a\b c", "d"]);
        assert_eq!(split(r#"a\"b"#), [r#"a"b"#]);
        assert_eq!(split(r"E:\x\y.dat"), [r"E:\x\y.dat"]);
        assert_eq!(split(r#""""#), [""]);
    }

    #[test]
    fn comments_blank_lines_and_continuations() {
        let c = commands("# one\n\ndiskspd -b4K ^\n  -d10 #1\nrem two\n:: three\ndiskspd -d5 #2\n");
        assert_eq!(c, [(3, "diskspd -b4K  -d10 #1".to_string()), (7, "diskspd -d5 #2".to_string())]);
    }

    #[test]
    fn a_command_reads_its_switches_and_targets() {
        let p = read_("diskspd -b4K -d60 -W10 -o32 -t4 -r -w30 -Sh -L #1 E:").unwrap();
        let s = &p.spans[0];
        assert_eq!(s.duration.as_ref().unwrap().value, 60);
        assert_eq!(s.warmup.as_ref().unwrap().value, 10);
        assert_eq!(s.targets.len(), 2);
        let t = &s.targets[1];
        assert_eq!(t.path, "E:");
        assert_eq!(t.block.as_ref().unwrap().value, 4096);
        assert_eq!(t.random.as_ref().unwrap().value, 0);
        assert_eq!(t.request_count.as_ref().unwrap().value, 32);
        assert!(t.no_os_cache.is_some() && t.write_through.is_some());
        assert_eq!(s.notes.len(), 1, "-L is a comment");
    }

    #[test]
    fn lenient_numbers_are_refused_saying_what_diskspd_reads() {
        let e = read_("diskspd -d10s -W1m #1").unwrap_err();
        assert_eq!(e.len(), 2);
        assert!(e[0].detail.contains("reads `10s` as 10"), "{}", e[0].detail);
        assert!(e[1].detail.contains("reads `1m` as 1"), "{}", e[1].detail);
    }

    #[test]
    fn a_cache_state_set_twice_is_refused_as_diskspd_refuses_it() {
        let e = read_("diskspd -Sh -Sw #1").unwrap_err();
        assert_eq!(e[0].kind, ImportErrorKind::Conflict);
        assert!(read_("diskspd -Suw #1").unwrap().spans[0].targets[0].write_through.is_some());
    }

    #[test]
    fn sizes_in_blocks_count_blocks_of_the_last_b() {
        let p = read_("diskspd -B2b -b8K #1").unwrap();
        assert_eq!(p.spans[0].targets[0].base.as_ref().unwrap().value, 16384);
    }

    #[test]
    fn switches_after_targets_and_other_programs_are_refused() {
        assert!(read_("diskspd #1 -b4K").is_err());
        assert!(read_("fio --name=x").is_err());
        assert_eq!(read_("# nothing\n").unwrap_err()[0].kind, ImportErrorKind::Empty);
    }
}
