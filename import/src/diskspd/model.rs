//! The shared model both readers fill: a DiskSpd profile as DiskSpd holds
//! it after parsing (`Profile`, `TimeSpan`, `Target` in DiskSpd's
//! `Common/Common.h`), each setting with where and how it was written so
//! that a comment or a refusal can name it. A setting left out is `None`:
//! the translation applies DiskSpd's default (`Common.h` constructors,
//! `Target()` 1340-1380, `TimeSpan()` 1704-1718 at commit c361eed).

/// Where a setting was written, and how: `-b4K` on a command line, or
/// `<BlockSize>4096</BlockSize>` in a profile, with its line (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct At {
    pub(crate) line: usize,
    pub(crate) said: String,
}

impl At {
    /// A setting written on `line` as `said`.
    pub(crate) fn new(line: usize, said: impl Into<String>) -> At {
        At { line, said: said.into() }
    }
}

/// A value and where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Set<T> {
    pub(crate) value: T,
    pub(crate) at: At,
}

impl<T: Copy> Set<T> {
    /// A value and where it was written.
    pub(crate) fn new(value: T, at: At) -> Set<T> {
        Set { value, at }
    }
}

/// A setting carried into the methodology as a comment only, with why it
/// changes nothing methodic measures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Note {
    pub(crate) at: At,
    pub(crate) why: String,
}

impl Note {
    /// A setting kept as a comment, and why.
    pub(crate) fn new(at: At, why: impl Into<String>) -> Note {
        Note { at, why: why.into() }
    }
}

/// A whole profile: its time spans in the order DiskSpd runs them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Profile {
    /// From a command line (each command a time span) rather than XML.
    pub(crate) command_line: bool,
    pub(crate) spans: Vec<TimeSpan>,
    /// Profile-wide settings kept as comments (`<Verbose>`, `-Rxml`).
    pub(crate) notes: Vec<Note>,
}

/// One `<TimeSpan>` (or one command line): warm-up, measured time and
/// cool-down over its targets, all at once.
#[derive(Debug, Clone)]
pub(crate) struct TimeSpan {
    /// The `<TimeSpan>` element, or the command.
    pub(crate) at: At,
    /// The phase's name: `time span 2`, `command 1`.
    pub(crate) title: String,
    /// Seconds measured (`-d`, default 10).
    pub(crate) duration: Option<Set<u64>>,
    /// Seconds of I/O before (`-W`, default 5).
    pub(crate) warmup: Option<Set<u64>>,
    /// Seconds of I/O after, not recorded (`-C`, default 0).
    pub(crate) cooldown: Option<Set<u64>>,
    /// A pool of threads each on every target (`-F`, 0: none).
    pub(crate) thread_count: Option<Set<u64>>,
    /// I/Os in flight per pool thread over all targets (`-O`).
    pub(crate) request_count: Option<Set<u64>>,
    /// Fresh random bytes in every write (`-Zr`).
    pub(crate) random_write_data: Option<Set<bool>>,
    /// IOPS per interval (`-D`), and the interval in ms.
    pub(crate) iops_std_dev: Option<Set<bool>>,
    pub(crate) bucket: Option<Set<u64>>,
    /// `-x`: DiskSpd refuses it with a throughput limit.
    pub(crate) completion_routines: Option<Set<bool>>,
    pub(crate) notes: Vec<Note>,
    pub(crate) targets: Vec<Target>,
}

impl TimeSpan {
    /// A time span with every setting at DiskSpd's default and no target yet.
    pub(crate) fn new(at: At, title: impl Into<String>) -> TimeSpan {
        TimeSpan {
            at,
            title: title.into(),
            duration: None,
            warmup: None,
            cooldown: None,
            thread_count: None,
            request_count: None,
            random_write_data: None,
            iops_std_dev: None,
            bucket: None,
            completion_routines: None,
            notes: Vec::new(),
            targets: Vec::new(),
        }
    }
}

/// `-rdpct` / `<Distribution><Percent>`: `(IO%, target%)` ranges, each
/// after the one before; or `-rdabs` / `<Absolute>`, refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Distribution {
    Percent(Vec<(u64, u64)>),
    Absolute,
}

/// What writes carry (`<WriteBufferContent>`, `-Z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pattern {
    /// DiskSpd's default: the bytes 0, 1, ..., 255 repeated.
    Sequential,
    /// `-Z`: zeros.
    Zero,
    /// `-Z<size>`: blocks cut from one buffer of random bytes this large.
    RandomBuffer(u64),
}

/// `-g<n>` (bytes per millisecond) or `-g<n>i` (I/Os a second), for each
/// thread on the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Throughput {
    pub(crate) amount: u64,
    pub(crate) iops: bool,
}

/// One `<Target>` of a time span (or one target of a command line).
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The `<Target>` element, or the target on the command line.
    pub(crate) at: At,
    pub(crate) path: String,
    /// Bytes (`-b`, default 64KiB).
    pub(crate) block: Option<Set<u64>>,
    /// Random, aligned to this (`-r[align]`; 0 is the block size).
    pub(crate) random: Option<Set<u64>>,
    /// Share of random I/Os, 1..99 (`-rs`).
    pub(crate) random_ratio: Option<Set<u64>>,
    /// Sequential, advancing by this (`-s[stride]`; 0 is the block size).
    pub(crate) stride: Option<Set<u64>>,
    /// `-si`: the target's threads share one sequential offset.
    pub(crate) interlocked: Option<Set<bool>>,
    pub(crate) distribution: Option<Set<Distribution>>,
    /// Percent of writes (`-w`, default 0).
    pub(crate) write_ratio: Option<Set<u64>>,
    /// I/Os in flight per thread (`-o`, default 2).
    pub(crate) request_count: Option<Set<u64>>,
    /// Threads on this target (`-t`, default 1).
    pub(crate) threads: Option<Set<u64>>,
    /// Thread i starts at i times this (`-T`).
    pub(crate) thread_stride: Option<Set<u64>>,
    /// I/O from this byte (`-B`).
    pub(crate) base: Option<Set<u64>>,
    /// I/O below this byte (`-f`, `-Bbase:length`; 0: the end).
    pub(crate) max_size: Option<Set<u64>>,
    /// The file DiskSpd creates (`-c`).
    pub(crate) file_size: Option<Set<u64>>,
    /// `-Su`/`-S`: no OS cache.
    pub(crate) no_os_cache: Option<At>,
    /// `-Sw`: write-through.
    pub(crate) write_through: Option<At>,
    pub(crate) pattern: Option<Set<Pattern>>,
    /// I/Os a burst (`-i`), and the pause after it in ms (`-j`).
    pub(crate) burst: Option<Set<u64>>,
    pub(crate) think: Option<Set<u64>>,
    pub(crate) throughput: Option<Set<Throughput>>,
    pub(crate) notes: Vec<Note>,
}

impl Target {
    /// A target on `path` with every setting at DiskSpd's default.
    pub(crate) fn new(at: At, path: impl Into<String>) -> Target {
        Target {
            at,
            path: path.into(),
            block: None,
            random: None,
            random_ratio: None,
            stride: None,
            interlocked: None,
            distribution: None,
            write_ratio: None,
            request_count: None,
            threads: None,
            thread_stride: None,
            base: None,
            max_size: None,
            file_size: None,
            no_os_cache: None,
            write_through: None,
            pattern: None,
            burst: None,
            think: None,
            throughput: None,
            notes: Vec::new(),
        }
    }
}

/// The value of an optional setting, or DiskSpd's default.
pub(crate) fn or<T: Copy>(s: &Option<Set<T>>, default: T) -> T {
    s.as_ref().map_or(default, |s| s.value)
}

/// Whole-number text with one of DiskSpd's size suffixes read as bytes:
/// `K` `M` `G` `T` (binary), `b` blocks of `block`; `None` for anything
/// else, as DiskSpd's `_GetSizeInBytes` (CmdLineParser.cpp:49-131) refuses it.
pub(crate) fn size(text: &str, block: u64) -> Option<u64> {
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => (&text[..i], &text[i..]),
        None => (text, ""),
    };
    if digits.is_empty() {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    let times: u64 = match unit.to_ascii_uppercase().as_str() {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        "B" => block,
        _ => return None,
    };
    n.checked_mul(times)
}

/// Bytes as methodic writes a size: the largest binary unit that holds it
/// whole (`4KiB`, `1536B`).
pub(crate) fn bytes(n: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n > 0 && n.is_multiple_of(1u64 << shift) {
            return format!("{}{unit}", n >> shift);
        }
    }
    format!("{n}B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_diskspd_reads_them() {
        assert_eq!(size("4K", 65536), Some(4096));
        assert_eq!(size("4k", 65536), Some(4096));
        assert_eq!(size("2b", 4096), Some(8192));
        assert_eq!(size("1T", 1), Some(1 << 40));
        assert_eq!(size("512", 1), Some(512));
        assert_eq!(size("30KB", 1), None);
        assert_eq!(size("K", 1), None);
        assert_eq!(size("1.5K", 1), None);
        assert_eq!(size("99999999999999999999", 1), None);
    }

    #[test]
    fn bytes_are_written_in_the_largest_whole_unit() {
        assert_eq!(bytes(4096), "4KiB");
        assert_eq!(bytes(1536), "1536B");
        assert_eq!(bytes(16 << 30), "16GiB");
        assert_eq!(bytes(0), "0B");
    }
}
