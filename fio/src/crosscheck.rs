//! What `methodic crosscheck` needs from fio's side: one step as the job
//! fio runs (through [`plan_to_fio`](crate::plan_to_fio) with the engine,
//! threads and depth methodic ran it with), the target as fio's
//! `filename=` takes it, and the IOPS read back from fio's JSON output.

use std::path::Path;

/// fio's output could not be read as a JSON report with jobs.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum FioOutputError {
    /// Nothing in the output starts a JSON value.
    #[error("no JSON")]
    NoJson,
    /// The JSON value does not parse.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The JSON value has no `jobs` list.
    #[error("no jobs")]
    NoJobs,
}

/// A path as fio's `filename=` takes it: fio splits the option at every
/// `:` (a /dev/disk/by-path name has some), so each is escaped.
pub fn fio_filename(path: &Path) -> String {
    path.to_string_lossy().replace(':', "\\:")
}

/// Reads plus writes a second over fio's jobs (one group:
/// group_reporting), from the output of `fio --output-format=json`. fio
/// may print warnings before the JSON and more after it: the first JSON
/// value counts.
pub fn fio_json_iops(stdout: &str) -> Result<f64, FioOutputError> {
    let start = stdout.find('{').ok_or(FioOutputError::NoJson)?;
    let v: serde_json::Value = serde_json::Deserializer::from_str(&stdout[start..])
        .into_iter()
        .next()
        .ok_or(FioOutputError::NoJson)??;
    let jobs = v["jobs"].as_array().ok_or(FioOutputError::NoJobs)?;
    let iops: f64 = jobs
        .iter()
        .map(|j| j["read"]["iops"].as_f64().unwrap_or(0.0) + j["write"]["iops"].as_f64().unwrap_or(0.0))
        .sum();
    Ok(iops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_json_reads_and_writes_add_up() {
        let out = "fio: some warning\n{\"jobs\": [{\"read\": {\"iops\": 100.5}, \"write\": {\"iops\": 20.0}}]}\nmore";
        assert_eq!(fio_json_iops(out).unwrap(), 120.5);
        assert!(fio_json_iops("no json").is_err());
    }

    #[test]
    fn a_report_without_jobs_or_broken_json_is_an_error() {
        assert!(matches!(fio_json_iops("{\"fio version\": \"fio-3.33\"}"), Err(FioOutputError::NoJobs)));
        assert!(matches!(fio_json_iops("{\"jobs\": [}"), Err(FioOutputError::Json(_))));
    }

    #[test]
    fn colons_in_a_target_path_are_escaped_for_fio() {
        assert_eq!(
            fio_filename(Path::new("/dev/disk/by-path/pci-0000:01:00.0-nvme-1")),
            "/dev/disk/by-path/pci-0000\\:01\\:00.0-nvme-1"
        );
    }
}
