//! The CSV files of a results directory: a row type ([`Line`]: its
//! header, its line, how a line reads back) in; out, a file written a row
//! at a time ([`Writer`], each row flushed, so that a crash keeps every
//! finished one) and the file's rows read back in order ([`read`]).
//! Reading is strict: a file that is missing, empty, headed by another
//! header, cut off part way through a line or with a line that does not
//! read back is an [`Error`] that names the file and says what is wrong
//! (the line and its number), never fewer rows without a word.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A row of one kind of CSV file: the file's header, the row as a line,
/// and a line read back.
pub trait Line: Sized {
    /// The first line of the files the runtime writes now.
    const HEADER: &'static str;
    /// The first lines of files older runtimes wrote, which still read
    /// (the columns added since read as absent).
    const OLDER_HEADERS: &'static [&'static str] = &[];
    /// What such a file is, after `is not`: `a methodic series`.
    const FILE: &'static str;
    /// What one of its lines is, after `is not`: `a series row`.
    const ROW: &'static str;

    /// The row as a line of the file (under [`Line::HEADER`]), without
    /// the end of line.
    fn csv_line(&self) -> String;

    /// A line read back, `before` the row above it (none for the first);
    /// `None` when the line is not such a row.
    fn parse(line: &str, before: Option<&Self>) -> Option<Self>;
}

/// A CSV file of rows `L`, written a row at a time, each flushed.
pub struct Writer<L> {
    path: PathBuf,
    file: BufWriter<File>,
    row: PhantomData<fn(&L)>,
}

impl<L: Line> Writer<L> {
    /// Creates the file at `path` (replacing one there) with its header.
    pub fn create(path: &Path) -> Result<Writer<L>> {
        let file =
            File::create(path).map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
        let mut w = Writer { path: path.to_path_buf(), file: BufWriter::new(file), row: PhantomData };
        w.line(L::HEADER)?;
        Ok(w)
    }

    /// Writes a row and flushes it.
    pub fn row(&mut self, row: &L) -> Result<()> {
        self.line(&row.csv_line())
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn line(&mut self, line: &str) -> Result<()> {
        writeln!(self.file, "{line}")
            .and_then(|()| self.file.flush())
            .map_err(|e| Error::io(format!("cannot write {}", self.path.display()), e))
    }
}

/// Reads a CSV file of rows `L`: every row, in order. The error names the
/// file and says what is wrong with it in words.
pub fn read<L: Line>(path: &Path) -> Result<Vec<L>> {
    parse(&read_text(path)?).map_err(|message| Error::results(path, message))
}

/// A results file's text; a missing file is said as such.
pub(crate) fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| {
        let message = match e.kind() {
            std::io::ErrorKind::NotFound => "is missing".to_string(),
            _ => format!("cannot be read: {e}"),
        };
        Error::results(path, message)
    })
}

/// The rows of a file's text, or what is wrong with it.
fn parse<L: Line>(text: &str) -> std::result::Result<Vec<L>, String> {
    let mut lines = text.split_inclusive('\n');
    let Some(head) = lines.next() else { return Err("is empty".into()) };
    let Some(head) = head.strip_suffix('\n') else { return Err(cut(1, head)) };
    if head != L::HEADER && !L::OLDER_HEADERS.contains(&head) {
        return Err(format!("is not {}: its first line is {}", L::FILE, quoted(head)));
    }
    let mut rows: Vec<L> = Vec::new();
    for (i, line) in lines.enumerate() {
        let number = i + 2;
        let Some(line) = line.strip_suffix('\n') else { return Err(cut(number, line)) };
        match L::parse(line, rows.last()) {
            Some(row) => rows.push(row),
            None => return Err(format!("line {number} is not {}: {}", L::ROW, quoted(line))),
        }
    }
    Ok(rows)
}

/// A file that ends in the middle of line `number`.
pub(crate) fn cut(number: usize, line: &str) -> String {
    format!("ends part way through line {number}, {}", quoted(line))
}

/// A line in backquotes, its first 60 characters: what a message shows
/// of a line that does not read.
pub(crate) fn quoted(line: &str) -> String {
    let line = line.trim_end_matches('\r');
    match line.char_indices().nth(60) {
        Some((at, _)) => format!("`{}...`", &line[..at]),
        None => format!("`{line}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two numbers, `a,b`; the older files had `a` alone.
    #[derive(Debug, PartialEq)]
    struct Pair(u32, Option<u32>);

    impl Line for Pair {
        const HEADER: &'static str = "a,b";
        const OLDER_HEADERS: &'static [&'static str] = &["a"];
        const FILE: &'static str = "a file of pairs";
        const ROW: &'static str = "a pair";

        fn csv_line(&self) -> String {
            format!("{},{}", self.0, self.1.map_or(String::new(), |b| b.to_string()))
        }

        fn parse(line: &str, before: Option<&Self>) -> Option<Self> {
            let (a, b) = line.split_once(',').unwrap_or((line, ""));
            let a: u32 = a.parse().ok()?;
            // Rows go up, as the test's files do.
            (a > before.map_or(0, |p| p.0)).then_some(())?;
            Some(Pair(a, if b.is_empty() { None } else { Some(b.parse().ok()?) }))
        }
    }

    #[test]
    fn rows_written_read_back_and_damage_is_said_in_words() {
        let dir = std::env::temp_dir().join(format!("methodic-results-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("pairs.csv");
        let mut w = Writer::<Pair>::create(&p).unwrap();
        let rows = [Pair(1, Some(10)), Pair(2, None), Pair(3, Some(30))];
        for r in &rows {
            w.row(r).unwrap();
        }
        assert_eq!(w.path(), p);
        drop(w);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "a,b\n1,10\n2,\n3,30\n");
        assert_eq!(read::<Pair>(&p).unwrap(), rows);
        // An older file.
        std::fs::write(&p, "a\n1\n2\n").unwrap();
        assert_eq!(read::<Pair>(&p).unwrap(), [Pair(1, None), Pair(2, None)]);
        // A header alone: no rows, and nothing wrong.
        std::fs::write(&p, "a,b\n").unwrap();
        assert_eq!(read::<Pair>(&p).unwrap(), []);
        let said = |text: &str| {
            std::fs::write(&p, text).unwrap();
            read::<Pair>(&p).unwrap_err().to_string()
        };
        let at = p.display();
        assert_eq!(said(""), format!("{at}: is empty"));
        assert_eq!(said("a,b"), format!("{at}: ends part way through line 1, `a,b`"));
        assert_eq!(said("x,y\n1,2\n"), format!("{at}: is not a file of pairs: its first line is `x,y`"));
        assert_eq!(said("a,b\n1,10\n2,2"), format!("{at}: ends part way through line 3, `2,2`"));
        assert_eq!(said("a,b\n1,10\n1,3\n2,4\n"), format!("{at}: line 3 is not a pair: `1,3`"));
        assert_eq!(said("a,b\n1,10\n\n"), format!("{at}: line 3 is not a pair: ``"));
        let long = "9".repeat(70);
        assert_eq!(
            said(&format!("a,b\nx{long}\n")),
            format!("{at}: line 2 is not a pair: `x{}...`", &long[..59])
        );
        std::fs::remove_file(&p).unwrap();
        assert_eq!(read::<Pair>(&p).unwrap_err().to_string(), format!("{at}: is missing"));
        std::fs::create_dir_all(&p).unwrap();
        assert!(read::<Pair>(&p).unwrap_err().to_string().starts_with(&format!("{at}: cannot be read: ")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_that_cannot_be_written_is_an_error_naming_it() {
        let e = Writer::<Pair>::create(Path::new("/dev/full")).err().expect("no room for the header");
        assert!(e.to_string().starts_with("cannot write /dev/full: "), "{e}");
        let e = Writer::<Pair>::create(Path::new("/nonexistent/pairs.csv")).err().unwrap();
        assert!(e.to_string().starts_with("cannot create /nonexistent/pairs.csv: "), "{e}");
    }
}
