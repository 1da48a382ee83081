//! The body of the `fio_import` fuzz target (fuzz/fuzz_targets/): any
//! bytes, read as text with invalid UTF-8 replaced, through the job file
//! parser and the whole import. It panics, so that the fuzzer reports the
//! input, when import breaks a promise: that it never panics itself, that
//! a refusal names at least one problem, each at a line of the file, in
//! line order and never an internal one, and that what it makes is a
//! formatted methodology.

use crate::{ImportErrorKind, fio_to_method};

/// Imports `data` as a job file and checks what comes back.
pub fn fuzz_import(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let lines = text.lines().count();
    match fio_to_method(&text, "fuzz.fio", "fuzz") {
        Ok(imported) => {
            assert!(imported.jobs > 0, "imported a file without a job:\n{text}");
            let again = methodic_grammar::format(&imported.text).unwrap_or_else(|d| {
                panic!("the imported methodology does not parse: {d}\n{}", imported.text)
            });
            assert_eq!(again, imported.text, "the imported methodology is not formatted");
        }
        Err(errors) => {
            assert!(!errors.is_empty(), "refused without a problem:\n{text}");
            for e in &errors {
                assert!(e.kind != ImportErrorKind::Internal, "{e}\n{text}");
                assert!(e.line <= lines, "{e}: the file has {lines} lines");
                assert!(!e.to_string().is_empty());
            }
            assert!(errors.windows(2).all(|w| w[0].line <= w[1].line), "problems out of line order");
        }
    }
}

/// The body of the `fio_results` fuzz target: any bytes, as text with
/// invalid UTF-8 replaced, read as fio's JSON results. It panics, so that
/// the fuzzer reports the input, when the reader does, or when what it
/// reads breaks a promise: a job a direction with I/O, percentiles in
/// order, bins by value.
pub fn fuzz_results(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match crate::read_fio_results(&text) {
        Ok(r) => {
            assert!(!r.jobs.is_empty(), "read a file without a job:\n{text}");
            for j in &r.jobs {
                for d in [&j.read, &j.write, &j.trim].into_iter().flatten() {
                    assert!(d.ios > 0);
                    for l in [&d.total, &d.completion].into_iter().flatten() {
                        assert!(l.percentiles.windows(2).all(|w| w[0].0 <= w[1].0));
                        assert!(l.bins.windows(2).all(|w| w[0].0 <= w[1].0));
                    }
                }
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// The job files of the CLI's import tests (tests/fio/ at the root).
    fn job_files() -> Vec<(PathBuf, Vec<u8>)> {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fio");
        let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "fio"))
            .map(|p| {
                let bytes = std::fs::read(&p).unwrap();
                (p, bytes)
            })
            .collect();
        files.sort();
        files
    }

    #[test]
    fn every_results_file_and_every_cut_of_it_goes_through_the_results_target() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fio-results");
        let mut n = 0;
        // Files only: logs/ holds a run's per-interval logs.
        for e in std::fs::read_dir(&dir).unwrap().flatten().filter(|e| e.path().is_file()) {
            let bytes = std::fs::read(e.path()).unwrap();
            // Every 97th cut: the files are long, and each cut reads them whole.
            for cut in (0..bytes.len()).step_by(97).chain([bytes.len()]) {
                fuzz_results(&bytes[..cut]);
            }
            n += 1;
        }
        assert!(n >= 4, "the results files are in tests/fio-results");
    }

    #[test]
    fn every_job_file_and_every_cut_of_it_goes_through_the_fuzz_target() {
        let files = job_files();
        assert!(files.len() >= 6, "{} job files", files.len());
        let mut imported = 0;
        for (path, bytes) in &files {
            if fio_to_method(&String::from_utf8_lossy(bytes), "f", "n").is_ok() {
                imported += 1;
            }
            // The whole file, then the file cut after each line and in the
            // middle of each line: half-written sections and values.
            fuzz_import(bytes);
            let text = String::from_utf8_lossy(bytes);
            let mut cut = 0;
            for line in text.split_inclusive('\n') {
                let middle = line.char_indices().nth(line.chars().count() / 2).map_or(0, |(i, _)| i);
                fuzz_import(text[..cut + middle].as_bytes());
                cut += line.len();
                fuzz_import(text[..cut].as_bytes());
            }
            assert_eq!(cut, text.len(), "{}", path.display());
        }
        // Both the files that import and the err_* ones that are refused
        // went through: the target saw both of its branches.
        assert!(imported >= 4 && imported < files.len(), "{imported} of {} imported", files.len());
    }

    #[test]
    fn malformed_job_files_are_refused_without_a_panic() {
        let inputs: &[&[u8]] = &[
            b"",
            b"\n\n\n",
            b"[",
            b"[]",
            b"[global",
            b"=",
            b"[j]\n=\n",
            b"[j]\n==\n",
            b"[j]\nrw\n",
            b"[j]\nbs=\n",
            b"[j]\nsize=18446744073709551616\ntime_based\nruntime=1\nrw=randread\n",
            b"[j]\nsize=18446744073709551615\noffset=18446744073709551615\nrw=write\n",
            b"[j]\nrw=write\nnumjobs=65536\nsize=18446744073709551615\noffset_increment=18446744073709551615\n",
            b"[j]\nruntime=99999999999999999999d\ntime_based\nrw=read\n",
            b"[j]\nbssplit=:::\nrw=read\ntime_based\nruntime=1\n",
            b"[j]\nbssplit=4k/100:8k/0:16k\nrw=read\ntime_based\nruntime=1\n",
            b"[j]\nbssplit=/50\nrw=read\ntime_based\nruntime=1\n",
            b"[j]\nrw=randrw\nrwmixread=101\npercentage_random=200\ntime_based\nruntime=1\n",
            b"[j]\nrw=write\nloops=18446744073709551615\nnumjobs=2\noffset_increment=50%\nsize=50%\n",
            b"[j]\nname=\"\\\n\t\x01\nrw=read\ntime_based\nruntime=1\n",
            b"[\xff\xfe]\nrw=read\ntime_based\nruntime=1\n",
            b"[j]\nrw=read\ntime_based\nruntime=1\ndescription=\xc3\x28\x00 # ;\n",
            b"[global]\n[globalfoo]\n[j]\n[k]\nstonewall=0\n",
            b"[j]\ninclude\ninclude x.fio\n$a=1\n",
            b"[a]\nrw=randrw\nrate=1,1\ntime_based\nruntime=1\n[b]\n",
            b"[a]\nrw=randread\nrate_iops=18446744073709551615\nnumjobs=2\ntime_based\nruntime=1\n",
            b"[a]\nrw=randrw\nrate_iops=18446744073709551615,18446744073709551615\ntime_based\nruntime=1\n",
            b"[a]\nrw=randwrite\nrate=,,,\nrate_iops=,\nrate_process=\ntime_based\nruntime=1\n",
            b"[global]\nrw=read\ntime_based\nruntime=1\n[job]\nfilename=/a\n[job]\nfilename=/b\n[job]\nstonewall\nfilename=/b\n",
            b"[global]\nrw=write\n[a]\nfilename=/a\n[b]\nfilename=\n[c]\nstonewall\nfilename=/c\nruntime=1\n",
            b"[x-\xc3\xa9]\nrw=read\ntime_based\nruntime=1\n[x-\xc3\xa8]\nramp_time=1\n[x-]\nruntime=2\n",
            b"[j]\nrw=randread\nrandom_distribution=zipf:99999999999999999999.9\ntime_based\nruntime=1\n",
            b"[j]\nrw=randread\nrandom_distribution=normal::\ntime_based\nruntime=1\n",
            b"[j]\nrw=randread\nrandom_distribution=zoned:\ntime_based\nruntime=1\n",
            b"[j]\nrw=randread\nrandom_distribution=zoned:100/0:0/0:0\ntime_based\nruntime=1\n",
            b"[j]\nrw=randread\nrandom_distribution=zoned:,,,\ntime_based\nruntime=1\n",
            b"[j]\nrw=randread\nrandom_distribution=pareto:0.5:\xc3\xa9\ntime_based\nruntime=1\n",
        ];
        for input in inputs {
            fuzz_import(input);
        }
    }
}
