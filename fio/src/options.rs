//! The table of every fio option import knows: translated, dropped (with
//! why that changes nothing methodic measures) or refused (with why, and
//! the values that are harmless). Looked up by name, alias or family.
//!
//! # Options
//!
//! | fio option | methodic | decision |
//! |---|---|---|
//! | `rw` (`readwrite`) | `random` / `sequential`, `read N%`, `trim 100%` | `read`, `write`, `randread`, `randwrite`, `rw`/`readwrite`, `randrw`, `trim`, `randtrim`; fio's default is `read`. `trimwrite`, `randtrimwrite` and the `:N` modifier are refused |
//! | `rwmixread`, `rwmixwrite` | `read N%` | jobs that mix (default 50); on a job that does not mix, noted as ignored, as fio ignores it; both given must add up to 100 |
//! | `percentage_random` | `random N%` | random jobs only, one value |
//! | `bs` (`blocksize`) | `block SIZE` (`write_block SIZE` too) | the job's direction's size (default 4k); `bs=R,W[,T]` as fio reads it, an empty value fio's default: a job that reads and writes with two sizes takes the reads' as `block` and the writes' as `write_block` |
//! | `bssplit` | `blocks { SIZE: N%, ... }` | fio's rule for sizes given without a share (left out, empty or `/0`); the shares must add up to 100; each size rounded down to a multiple of the smallest, as fio issues it (noted); wins over `bs`, as in fio. Lists per direction (`R,W[,T]`; `R,W` gives trims W's): a job that reads, writes or trims only takes its direction's list; a job that reads and writes with two lists takes the reads' as `blocks` and the writes' as `write_blocks` (an empty list is `bs`'s) |
//! | `ba` (`blockalign`) | `align SIZE` | one value |
//! | `iodepth` | `qd N`, counted per worker | `conventions { queue_depth per_worker }`: fio's iodepth is per job. Above 1, refused with a synchronous engine (fio caps it at 1; `psync` is fio's default) and with libaio on buffered I/O |
//! | `numjobs` | `target { workers N }` | N workers, each at `iodepth`. On jobs with sequential I/O, refused unless `offset_increment` equals `size`: fio's clones otherwise each walk the whole region from its start, where methodic gives each worker its own stripe |
//! | `size` | `target { span }` | bytes or a share, per clone; absent or 0: `100%` |
//! | `offset` (`fileoffset`) | workload `offset`, span grown by it | bytes; a share refused; with `size` as a share, refused (methodic's offset lies inside the span) |
//! | `offset_increment` | the span holds one stripe a clone | sequential jobs only, equal to `size` (methodic's stripes are adjacent and of one size); ignored with one job |
//! | `runtime` (`timeout`), `time_based` | `measure ... for T` | without `time_based`, fio stops a job once it has moved `size`: write-only jobs become `until written`, jobs that read or trim `until transferred` (fio's `io_size` counts their reads too), with `for T` when a runtime is given, whichever comes first; a `ramp_time` is the step's ramp (fio and methodic both count its I/O towards the amount). `time_based` without a runtime refused |
//! | `ramp_time` | `ramp T` | on a job that stops by size too: fio and methodic both count the ramp's I/O towards the amount |
//! | `loops`, `io_size` (`io_limit`) | `until written` | on write-only jobs that stop by size: each clone writes `io_size` (or `size`) `loops` times; with `time_based` noted as ignored, as fio ignores them |
//! | `direct`, `buffered` | `target { io direct }` / `io buffered` | fio's default is buffered; block sizes, alignment and offset of direct jobs must be whole 512B sectors |
//! | `invalidate` | `drop_caches` before a buffered step | fio's default 1: the file's cached pages are dropped when the job starts |
//! | `zero_buffers`, `buffer_compress_percentage` | `target { data zeros }` / `data compressible N%` | noted: both lay out the compressible share per 512B chunk |
//! | `kb_base` | how sizes are read; `units binary` or `decimal` | 1024 (default) or 1000 |
//! | `stonewall` (`wait_for_previous`) | phases in order; without it, `together` | a job without it joins the jobs before it, as fio starts it together with them: the group is one phase with a `together` step, a job each (`job NAME WORKLOAD qd N workers N`). The group's jobs must run for one `runtime` with `time_based` and one `ramp_time`, and share the span (`size`), `direct` and, among the jobs that write, the data options |
//! | `name`, `description` | phase and workload names, comments | a together step's jobs are named after their sections |
//! | `filename` | a comment, or `device N` | the target is given when the methodology runs. When the jobs of a group run on different files, each file is a device in the order the job file first names it (a job without filename counts as one more file), listed at the top; a job alone on another device than the first becomes a together step of one job. Several files for one job (`a:b`) refused: methodic spreads workers over devices, not one worker's I/O over files |
//! | `directory` | a comment | the target is given when the methodology runs |
//! | `verify`, `do_verify` | the step option `verify` | a checksum (`md5`, `crc32c`, `sha256`, `xxhash`, `meta`, ...): on a job that only reads, each read is checked (inside its numbers, as fio's); on a job that writes its region once (no `time_based`, no `loops`), what it wrote is read back after the step (fio counts that read-back as the job's reads, methodic keeps it out of the step's numbers: noted). Refused: with `time_based` (fio checks inside the runtime, pass by pass), with `loops`, with `do_verify=0`, on trims, `pattern`/`pattern_hdr`, and in a together step. `null` and `0` are no check |
//! | `rate_iops`, `rate` | `rate N iops`, `rate SIZE/s` | open loop: fio's cap is for each clone, so the rate is the cap times numjobs. fio caps reads and writes each on its own (`R,W`; one value caps both alike): on a job that only reads (writes) the read (write) cap counts; on a job that mixes, both caps are needed, in the mix rwmixread asks for (whole percents), and the rate is their sum (`rate_iops=1000` on a 70/30 job, 1000 reads and 1000 writes a second, is refused). `rate` wins over `rate_iops`, as in fio |
//! | `rate_process` | `uniform` (`linear`) or `poisson` | fio's default, linear, is methodic's uniform |
//! | `ioengine` | a comment | methodic does its own I/O (io_uring, or psync where io_uring is unavailable); `libaio`, `io_uring`, `posixaio`, `sync`, `psync`, `vsync`, `pvsync`, `pvsync2` are noted, other engines (not plain file or block I/O) refused |
//! | `new_group`, `group_reporting`, `stats`, `unified_rw_reporting`, `thread`, `comm`, `randrepeat`, `allrandrepeat`, `randseed`, `random_generator`, `norandommap`, `refill_buffers`, `scramble_buffers`, `write_bw_log`, `write_iops_log`, `write_lat_log`, `write_hist_log`, `write_iolog`, `log_*`, `per_job_logs`, `lat_percentiles`, `clat_percentiles`, `slat_percentiles`, `percentile_list`, `block_error_percentiles`, `bwavgtime`, `iopsavgtime`, `disk_util`, `significant_figures`, `unit_base`, `iodepth_batch*`, `fixedbufs`, `registerfiles`, `disable_lat`, `disable_slat`, `disable_clat`, `disable_bw_measurement` (`disable_bw`), `gtod_reduce`, `gtod_cpu`, `clocksource`, `job_start_clock_id`, `file_service_type`, `verify_fatal`, `verify_dump`, `verify_async`, `verify_async_cpus`, `verify_offset`, `verify_state_save`, `experimental_verify`, `verifysort` | comments | reporting, logs, clocks, random seeds and generators, submission details and how fio reports a check, which change nothing methodic measures: dropped, each with a comment saying why |
//! | `verify_interval`, `verify_pattern*`, `verify_backlog*`, `verify_only`, `verify_state_load`, `verify_write_sequence`, `verify_header_seed`, other `verify_*`, `trim_percentage`, `trim_backlog` | refused | what methodic's stamp checks is fixed (fio's defaults are fine) |
//! | `rate_min` (`ratemin`), `rate_iops_min`, `rate_cycle` (`ratecycle`), other `rate_*` | refused | methodic does not end a step whose rate falls short (`0`, or fio's default, is fine) |
//! | `thinktime`, `thinktime_*`, `rate_ignore_thinktime` | `think P every N drained` | fio drains the queue and then pauses, as `drained` does; `thinktime_blocks_type=complete` (fio's default) counts completions, the same as methodic's started I/Os at iodepth 1 only (refused deeper); `thinktime_spin` a comment. Refused: `thinktime_iotime`, `rate_ignore_thinktime=1`, with `latency_target`. Without `thinktime` (or at 0) the others are noted as ignored, as fio ignores them |
//! | `latency_target`, `latency_window`, `latency_percentile`, `latency_run` | `qos W qd IODEPTH { pP under T; probe WINDOW; by qd }` | fio searches the queue depth that keeps the target, as methodic's search by queue depth does, with a note on how they differ. Refused: no `latency_window` (or 0, fio's default: it judges at every pass), `latency_percentile=100` (fio's default: methodic's percentiles stop below p100) or 0, `latency_run=1` (fio keeps adjusting), and `disable_lat=1`, `gtod_reduce=1` or `stats=0` with a target (fio then measures no latency: no I/O fails). Without a target the others are noted as ignored |
//! | `max_latency` | refused | methodic does not end a job on a slow I/O (`0` is fine) |
//! | `zonemode`, `zone*` | refused | one contiguous span, no zones (`zonemode=none` is fine) |
//! | `fsync`, `fdatasync`, `end_fsync`, `fsync_on_close`, `write_barrier`, `sync` | refused | no flushes, no O_SYNC (`0` is fine) |
//! | `number_ios` | refused | a step stops after a time or bytes written |
//! | `nrfiles` (`nr_files`), `openfiles`, `filesize` | refused | fio spreads one job over several files, or makes them at a size; methodic works on the `--target`s given, a worker on one device (`1` is fine) |
//! | `startdelay`, `wait_for` | refused | a step's workers start together, steps run in order |
//! | `cpus_allowed*`, `cpumask`, `numa_*` | refused | methodic places its workers itself (run it under taskset) |
//! | `iodepth_low`, `hipri`, `sqthread_poll` | refused | methodic refills its queue at once and does not poll |
//! | `random_distribution` | `random zipf T`, `random pareto H`, `random normal D% around C%`, `random bands IO% in SPAN%, ...` | `random` (fio's default) is uniform. `zipf:T`, `pareto:H` (fio's defaults 1.1 and 0.2 when the value is left out; a centre is dropped with a note, as it only moves fio's hot blocks; without one, fio's clones each have hot blocks of their own, which is noted), exported with the centre 0 so that fio's clones share one set as methodic's workers do, `normal:DEV[:CENTRE]`, each with a note on how fio draws it otherwise; `zoned:IO/SPAN:...` as bands, exactly (a span the zones leave is a band of 0% of the I/O). Refused: `zipf:1` (fio refuses it), `normal` without a deviation, `zoned_abs`, `sequence:...` (fio 3.42 on: blocks in a listed order), values for reads and for writes apart (`,`), and a distribution on a job without random I/O |
//! | `steadystate` (`ss`), `steadystate_*`, `ss_*` | refused | methodic's steady state is the SNIA rule over rounds |
//! | `bsrange` (`blocksize_range`), `bs_unaligned`, `buffer_pattern`, `dedupe_percentage`, `buffer_compress_chunk`, `pre_read`, `continue_on_error`, `include` | refused | no equivalent |
//! | anything else | refused as unknown | with a "did you mean" for near misses |

/// What import does with an option.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Handling {
    /// Read into the methodology by [`job_to_step`](crate::translate::job_to_step).
    Translated,
    /// Left out, with a comment saying why that changes nothing measured.
    Dropped(&'static str),
    /// Refused, unless its value is one of `harmless` (fio's default, or off).
    Refused { why: &'static str, harmless: &'static [&'static str] },
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Opt {
    /// fio's name; ending in `*`, a prefix naming a family of options.
    pub(crate) name: &'static str,
    pub(crate) aliases: &'static [&'static str],
    pub(crate) handling: Handling,
}

const fn translated(name: &'static str, aliases: &'static [&'static str]) -> Opt {
    Opt { name, aliases, handling: Handling::Translated }
}

const fn dropped(name: &'static str, why: &'static str) -> Opt {
    Opt { name, aliases: &[], handling: Handling::Dropped(why) }
}

const fn refused(name: &'static str, why: &'static str, harmless: &'static [&'static str]) -> Opt {
    Opt { name, aliases: &[], handling: Handling::Refused { why, harmless } }
}

const REPORTING_GROUPS: &str = "a reporting group only: methodic reports each step on its own";
const GROUP_REPORTING: &str =
    "methodic reports each step with all its workers together, as group_reporting does";
const THREAD: &str = "methodic's workers are threads";
const SEED: &str =
    "methodic draws random offsets from its own generator (`methodic run --seed N` repeats them)";
const NORANDOMMAP: &str = "methodic draws random offsets independently, as fio does with norandommap";
const BUFFERS: &str =
    "methodic writes fresh, incompressible bytes in every write anyway (no two 512B chunks alike)";
const LOGS: &str = "methodic records a per-second series and a latency histogram of every step itself";
const PERCENTILES: &str = "methodic reports p50, p99, p99.9, p99.99 and the maximum latency itself";
const BATCH: &str = "methodic submits each I/O as it is ready (fio's default) and reaps every completion ready, keeping the queue depth";
const REGISTER: &str = "methodic's io_uring engine registers its buffers and files itself";
const ACCOUNTING: &str =
    "methodic records one latency an I/O, from submission to completion, whatever fio measures";

const RATE_MIN: &str = "methodic does not end a step whose rate falls short of a minimum: it reports how many I/Os \
                        started late";
const RATE_CYCLE: &str =
    "methodic does not end a step whose rate falls short of a minimum, so has no period to judge it over";
const RATE_OTHER: &str =
    "methodic's rate is rate_iops or rate (with rate_process): this rate option has no equivalent";
const MAX_LATENCY: &str = "methodic does not end a job on a slow I/O: it records every latency";
const ZONES: &str = "methodic works on one contiguous span (`span` and `offset`), without zones";
const FLUSH: &str = "methodic sends no flush (fsync) during a step";
const SYNC_OPEN: &str = "methodic does not open the target with O_SYNC or O_DSYNC";
const IO_COUNT: &str =
    "methodic stops a step after a time, or after bytes written or transferred; not after a count of I/Os";
const FILES: &str = "fio spreads one job's I/O over several files; methodic spreads a step's workers over \
                     devices (`target { devices N }`) and puts a together job on one (`device N`), but each \
                     worker works on one device, not over several files";
const FILE_SIZE: &str = "fio makes the job's files at this size; methodic works on the file or device given with \
                         `--target` when the methodology runs, at its own size";
const DIRECTORY: &str = "the target is given when the methodology runs (`methodic run FILE.method --target PATH`); \
                         fio makes the job's file in this directory";
const FILE_SERVICE: &str = "it picks among several files, and methodic import takes one file or device a job: with one it changes nothing";
const VERIFY_OTHER: &str = "methodic's `verify` stamps every interval it writes (offset, run, worker, sequence and \
                            a CRC-32) and checks all of it: this verify option has no equivalent";
const VERIFY_BACKLOG: &str = "fio checks written blocks among the writes, inside the job's numbers; methodic's \
                              `verify` reads back what a step wrote after it, outside its numbers";
const VERIFY_PATTERN: &str = "fio checks the bytes of a pattern of its own; methodic writes random data, zeros or \
                              compressible data (`target { data }`) and checks its own stamp";
const VERIFY_ONLY: &str = "fio writes nothing and checks what an earlier run wrote; methodic's `verify` checks what \
                           the run itself wrote";
const VERIFY_RELAXED: &str = "methodic always checks each stamp's offset and whether this run wrote it (stale, \
                              misplaced): it has no check to turn off";
const VERIFY_FATAL: &str = "methodic fails a step at a mismatch and reports every mismatch it finds";
const VERIFY_DUMP: &str = "methodic records each mismatch's offset and what was expected and found";
const VERIFY_ASYNC: &str =
    "methodic checks a reading step's blocks in the worker that reads them (that cost is in its numbers)";
const VERIFY_STATE: &str = "fio keeps what it wrote for a later run to check; methodic checks within the run";
const VERIFY_OFFSET: &str = "methodic puts its stamp at the head of each interval";
const TRIM_VERIFY: &str = "fio trims a share of the blocks it wrote and checks that they read back as zeros; methodic's `verify` does not";
const GTOD: &str = "fio's cheaper time keeping, which skips its own latency and bandwidth accounting; methodic \
                    records one latency an I/O, from submission to completion, whatever fio measures";
const CLOCK: &str = "fio's clock; methodic times I/Os with the monotonic clock";
const RANDOM_GENERATOR: &str = "methodic draws random offsets from its own generator (`methodic run --seed N` repeats \
                                them), each independently of the others";
const STATS: &str =
    "methodic reports every step, and all of its I/O (fio's stats=0 leaves the job out of its output)";
const UNIFIED: &str = "methodic reports reads, writes and trims each on its own and all together";
const OUTPUT: &str = "how fio prints or averages its numbers; methodic reports its own";
const IOLOG: &str = "a record of the I/Os fio issues; methodic records each step's numbers itself";
const PROCESS_NAME: &str = "the name of fio's process; methodic's workers are its own threads";
const START: &str = "methodic starts the workers of a step together, and runs steps one after another";
const CPUS: &str = "methodic places its workers itself, within the CPUs it may use (run it under taskset \
                    to restrict them)";
const IODEPTH_LOW: &str = "methodic refills its queue as soon as an I/O completes";
const POLL: &str = "methodic waits for completions; it does not poll for them";
const STEADY: &str = "methodic's steady state is the SNIA rule over rounds (`precondition ... until steady`), \
                      a different test from fio's";
const BSRANGE: &str = "methodic takes block sizes with their shares of I/Os (bssplit), not a range";
const UNALIGNED: &str = "methodic aligns I/O to `align` (by default the smallest block size)";
const PATTERN: &str =
    "methodic writes random data, zeros or compressible data (`target { data }`), not a pattern";
const DEDUPE: &str = "methodic's data cannot be deduplicated, by design";
const CHUNK: &str = "methodic lays out compressible data per 512B chunk, fio's default; no other chunk size";
const PRE_READ: &str = "methodic does not read the span into the page cache before a step";
const CONTINUE: &str =
    "methodic ends a step at its first I/O error (`on_error continue` goes on to the next step)";

/// Every option methodic import knows, looked up by name or alias;
/// families (`verify_*`) after the exact names.
pub(crate) const OPTIONS: &[Opt] = &[
    translated("rw", &["readwrite"]),
    translated("rwmixread", &[]),
    translated("rwmixwrite", &[]),
    translated("percentage_random", &[]),
    translated("bs", &["blocksize"]),
    translated("bssplit", &[]),
    translated("ba", &["blockalign"]),
    translated("iodepth", &[]),
    translated("numjobs", &[]),
    translated("size", &[]),
    translated("offset", &["fileoffset"]),
    translated("runtime", &["timeout"]),
    translated("time_based", &[]),
    translated("ramp_time", &[]),
    translated("loops", &[]),
    translated("direct", &[]),
    translated("buffered", &[]),
    translated("invalidate", &[]),
    translated("zero_buffers", &[]),
    translated("buffer_compress_percentage", &[]),
    translated("kb_base", &[]),
    translated("stonewall", &["wait_for_previous"]),
    translated("name", &[]),
    translated("description", &[]),
    translated("filename", &[]),
    translated("ioengine", &[]),
    dropped("new_group", REPORTING_GROUPS),
    dropped("group_reporting", GROUP_REPORTING),
    dropped("thread", THREAD),
    dropped("randrepeat", SEED),
    dropped("randseed", SEED),
    dropped("norandommap", NORANDOMMAP),
    dropped("refill_buffers", BUFFERS),
    dropped("scramble_buffers", BUFFERS),
    dropped("write_bw_log", LOGS),
    dropped("write_iops_log", LOGS),
    dropped("write_lat_log", LOGS),
    dropped("write_hist_log", LOGS),
    dropped("per_job_logs", LOGS),
    dropped("lat_percentiles", PERCENTILES),
    dropped("clat_percentiles", PERCENTILES),
    dropped("slat_percentiles", PERCENTILES),
    dropped("percentile_list", PERCENTILES),
    dropped("disable_lat", ACCOUNTING),
    dropped("disable_slat", ACCOUNTING),
    dropped("disable_clat", ACCOUNTING),
    Opt { aliases: &["disable_bw"], ..dropped("disable_bw_measurement", ACCOUNTING) },
    dropped("gtod_reduce", GTOD),
    dropped("gtod_cpu", CLOCK),
    dropped("clocksource", CLOCK),
    dropped("job_start_clock_id", CLOCK),
    dropped("random_generator", RANDOM_GENERATOR),
    dropped("allrandrepeat", SEED),
    dropped("stats", STATS),
    dropped("unified_rw_reporting", UNIFIED),
    dropped("block_error_percentiles", OUTPUT),
    dropped("bwavgtime", OUTPUT),
    dropped("iopsavgtime", OUTPUT),
    dropped("disk_util", OUTPUT),
    dropped("significant_figures", OUTPUT),
    dropped("unit_base", OUTPUT),
    dropped("write_iolog", IOLOG),
    dropped("comm", PROCESS_NAME),
    dropped("fixedbufs", REGISTER),
    dropped("registerfiles", REGISTER),
    translated("verify", &[]),
    translated("do_verify", &[]),
    dropped("verify_fatal", VERIFY_FATAL),
    dropped("verify_dump", VERIFY_DUMP),
    dropped("verify_async", VERIFY_ASYNC),
    dropped("verify_async_cpus", VERIFY_ASYNC),
    dropped("verify_state_save", VERIFY_STATE),
    dropped("verify_offset", VERIFY_OFFSET),
    dropped("experimental_verify", VERIFY_STATE),
    Opt { aliases: &["verify_sort"], ..dropped("verifysort", VERIFY_OFFSET) },
    refused("verify_state_load", VERIFY_ONLY, &["0"]),
    refused("verify_only", VERIFY_ONLY, &["0"]),
    refused("verify_backlog", VERIFY_BACKLOG, &["0"]),
    refused("verify_backlog_batch", VERIFY_BACKLOG, &["0"]),
    refused("verify_pattern", VERIFY_PATTERN, &[]),
    refused("verify_pattern_interval", VERIFY_PATTERN, &[]),
    refused("verify_write_sequence", VERIFY_RELAXED, &["1"]),
    refused("verify_header_seed", VERIFY_RELAXED, &["1"]),
    refused("trim_percentage", TRIM_VERIFY, &["0"]),
    refused("trim_backlog", TRIM_VERIFY, &["0"]),
    translated("rate", &[]),
    translated("rate_iops", &[]),
    translated("rate_process", &[]),
    Opt { aliases: &["ratemin"], ..refused("rate_min", RATE_MIN, &["0"]) },
    refused("rate_iops_min", RATE_MIN, &["0"]),
    Opt { aliases: &["ratecycle"], ..refused("rate_cycle", RATE_CYCLE, &["1000"]) },
    translated("rate_ignore_thinktime", &[]),
    translated("latency_target", &[]),
    translated("latency_window", &[]),
    translated("latency_percentile", &[]),
    translated("latency_run", &[]),
    refused("max_latency", MAX_LATENCY, &["0"]),
    translated("thinktime", &[]),
    refused("zonemode", ZONES, &["none"]),
    refused("fsync", FLUSH, &["0"]),
    refused("fdatasync", FLUSH, &["0"]),
    refused("end_fsync", FLUSH, &["0"]),
    refused("fsync_on_close", FLUSH, &["0"]),
    refused("write_barrier", FLUSH, &["0"]),
    refused("sync", SYNC_OPEN, &["0", "none"]),
    translated("offset_increment", &[]),
    translated("io_size", &["io_limit"]),
    refused("number_ios", IO_COUNT, &["0"]),
    Opt { aliases: &["nr_files"], ..refused("nrfiles", FILES, &["1"]) },
    refused("filesize", FILE_SIZE, &[]),
    dropped("directory", DIRECTORY),
    refused("openfiles", FILES, &["1"]),
    dropped("file_service_type", FILE_SERVICE),
    refused("startdelay", START, &["0"]),
    refused("wait_for", START, &[]),
    refused("cpumask", CPUS, &[]),
    refused("iodepth_low", IODEPTH_LOW, &[]),
    refused("hipri", POLL, &["0"]),
    refused("sqthread_poll", POLL, &["0"]),
    translated("random_distribution", &[]),
    Opt { aliases: &["ss"], ..refused("steadystate", STEADY, &[]) },
    Opt { aliases: &["blocksize_range"], ..refused("bsrange", BSRANGE, &[]) },
    Opt { aliases: &["blocksize_unaligned"], ..refused("bs_unaligned", UNALIGNED, &["0"]) },
    refused("buffer_pattern", PATTERN, &[]),
    refused("dedupe_percentage", DEDUPE, &["0"]),
    refused("buffer_compress_chunk", CHUNK, &["512"]),
    refused("pre_read", PRE_READ, &["0"]),
    refused("continue_on_error", CONTINUE, &["none", "0"]),
    dropped("log_*", LOGS),
    dropped("iodepth_batch*", BATCH),
    refused("verify_*", VERIFY_OTHER, &[]),
    refused("rate_*", RATE_OTHER, &["0"]),
    translated("thinktime_*", &[]),
    refused("zone*", ZONES, &[]),
    refused("cpus_allowed*", CPUS, &[]),
    refused("numa_*", CPUS, &[]),
    refused("steadystate_*", STEADY, &[]),
    refused("ss_*", STEADY, &[]),
];

pub(crate) fn lookup(key: &str) -> Option<&'static Opt> {
    OPTIONS.iter().find(|o| o.name == key || o.aliases.contains(&key)).or_else(|| {
        OPTIONS.iter().find(|o| o.name.strip_suffix('*').is_some_and(|prefix| key.starts_with(prefix)))
    })
}

/// The name an option counts under: fio's name for a known option or
/// alias, the key itself for members of a family and unknown options.
pub(crate) fn canonical(key: &str) -> &str {
    match lookup(key) {
        Some(o) if !o.name.ends_with('*') => o.name,
        _ => key,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the import's texts would say to call a feature missing from
    /// methodic, with the language keyword that names the feature. Once
    /// the grammar has the keyword, no refusal, note or hint may say it.
    /// The last ones are true today (their keyword is not in the
    /// language): when it comes, this test names the texts to change.
    const CLAIMS: &[(&str, &str)] = &[
        ("does not check the data", "verify"),
        ("not check data read back", "verify"),
        ("no think time", "think"),
        ("no pause between", "think"),
        ("keeps the queue full", "think"),
        ("has no bursts", "bursts"),
        ("is planned", "qos"),
        ("no search for the load", "qos"),
        ("works on one file or device", "devices"),
        ("methodic works on one target", "device"),
        ("does not trim", "trim"),
        ("no open-loop rate", "rate"),
        ("no steady state", "steady"),
        ("a stop after {stop} is not in methodic", "transferred"),
        ("a stop after bytes read is not in methodic", "transferred"),
        ("a search by queue depth is not in methodic", "by"),
        ("a split per direction is not in methodic", "write_blocks"),
    ];

    /// The import's own texts, where every refusal, note and hint is
    /// written (each file without its tests): Rust string continuations
    /// (`\` at a line's end) joined and blanks collapsed, so that a phrase
    /// broken over lines is found.
    fn messages() -> String {
        let sources = [
            include_str!("options.rs"),
            include_str!("error.rs"),
            include_str!("writer.rs"),
            include_str!("values.rs"),
            include_str!("group.rs"),
            include_str!("job_file.rs"),
            include_str!("translate/access.rs"),
            include_str!("translate/distribution.rs"),
            include_str!("translate/load.rs"),
            include_str!("translate/mod.rs"),
            include_str!("translate/rate.rs"),
            include_str!("translate/reader.rs"),
            include_str!("translate/region.rs"),
            include_str!("translate/verify.rs"),
        ];
        let code: Vec<&str> = sources.iter().map(|s| s.split("#[cfg(test)]").next().unwrap_or(s)).collect();
        code.join("\n").replace("\\\n", " ").split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn no_text_says_methodic_lacks_a_feature_its_language_has() {
        let text = messages();
        assert!(text.contains("methodic does not end a job on a slow I/O"), "the texts are scanned");
        for (claim, keyword) in CLAIMS {
            assert!(
                !(methodic_grammar::is_reserved(keyword) && text.contains(claim)),
                "a text says `{claim}`, but the language has `{keyword}`: say what methodic does instead"
            );
        }
        // The stale texts this test was written against.
        assert!(methodic_grammar::is_reserved("verify") && methodic_grammar::is_reserved("qos"));
    }

    #[test]
    fn every_text_that_says_methodic_lacks_something_is_a_claim_checked_above() {
        let text = messages();
        for (at, _) in text.match_indices("is not in methodic") {
            let said = &text[..at + "is not in methodic".len()];
            assert!(
                CLAIMS.iter().any(|(c, _)| said.ends_with(c)),
                "a text says methodic lacks something, and CLAIMS does not have it: ...{}",
                &said[said.len().saturating_sub(80)..]
            );
        }
        assert!(!text.contains("planned"), "a text promises a feature");
    }

    #[test]
    fn options_that_change_nothing_reported_are_comments() {
        for name in [
            "gtod_reduce",
            "random_generator",
            "group_reporting",
            "stats",
            "disable_bw",
            "unified_rw_reporting",
            "clocksource",
            "clat_percentiles",
            "percentile_list",
            "lat_percentiles",
            "write_bw_log",
            "write_lat_log",
            "write_iops_log",
            "log_avg_msec",
            "per_job_logs",
            "directory",
        ] {
            assert!(
                matches!(lookup(name).map(|o| o.handling), Some(Handling::Dropped(_))),
                "{name} is a comment"
            );
        }
    }
}
