//! What `methodic crosscheck` shows: one step's IOPS as methodic and fio
//! measured it, run by run, their medians and ratio, and whether they
//! agree (within 10%). Plain numbers go in (the CLI runs both tools);
//! out comes [`Crosscheck`], which the exporters (`crate::export`) write as
//! a table or JSON.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Serialize;

/// Both tools' numbers, run by run, and how far apart their medians are.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Crosscheck {
    pub step: String,
    pub target: PathBuf,
    /// How methodic ran the step, and so how fio was told to.
    pub engine: String,
    pub methodic_iops: Vec<f64>,
    pub fio_iops: Vec<f64>,
    pub methodic_median: f64,
    pub fio_median: f64,
    /// methodic's median over fio's.
    pub ratio: f64,
    /// Within 10% of each other.
    pub agree: bool,
    /// `fio-3.36`, as `fio --version` says it (for the table).
    #[serde(skip)]
    pub fio_version: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::{Exports, Format};

    fn check(agree: bool) -> Crosscheck {
        Crosscheck {
            step: "rnd4k".into(),
            target: "/dev/zram0".into(),
            engine: "io_uring 1x2".into(),
            methodic_iops: vec![1000.0, 1200.4],
            fio_iops: vec![1100.0, 900.0],
            methodic_median: 1100.2,
            fio_median: 1000.0,
            ratio: 1.1002,
            agree,
            fio_version: "fio-3.36".into(),
        }
    }

    #[test]
    fn the_table_gives_each_run_and_the_medians() {
        assert_eq!(
            check(true).export(Format::Table).unwrap(),
            "rnd4k on /dev/zram0 (io_uring 1x2, fio-3.36), 2 runs each:\n\
             \x20 run 1: methodic 1000 IOPS, fio 1100 IOPS\n\
             \x20 run 2: methodic 1200 IOPS, fio 900 IOPS\n\
             median: methodic 1100 IOPS, fio 1000 IOPS, ratio 1.100: within 10%\n"
        );
        assert!(check(false).export(Format::Table).unwrap().ends_with("DIFFERENT by more than 10%\n"));
        let json: serde_json::Value =
            serde_json::from_str(&check(true).export(Format::Json).unwrap()).unwrap();
        assert_eq!(json["fio_iops"][1], 900.0);
        assert!(json.get("fio_version").is_none(), "{json}");
    }
}
