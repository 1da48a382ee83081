//! Devices across runs: the paired points of several runs in, each with
//! the targets of its run; out each device's numbers side by side, the
//! devices paired by identity (the same model and serial, else the same
//! path), and the devices a step used in one run and not in another, as
//! differences that can explain a gap. A step on one device counts as
//! its whole on that device (the first target, or its job's).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;

use super::pair::ratios;
use super::{Difference, letter};
use crate::host::TargetInfo;
use crate::view::points::Point;
use crate::view::report::spread::device_words;

/// One device of one paired step, in every run.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DeviceRow {
    /// The paired step, as its pair is labelled.
    pub step: String,
    /// The device as the first run that has it names it (path, model and
    /// serial where known).
    pub device: String,
    /// One a run: its IOPS on the device; `None` where the run's step did
    /// not use it.
    pub iops: Vec<Option<f64>>,
    /// Each later run's IOPS over the first's.
    pub ratios: Vec<Option<f64>>,
    pub mean_latency_us: Vec<Option<f64>>,
}

/// What pairs a device across runs: its model and serial where the run
/// knows both, else its path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum DeviceKey {
    Drive { model: String, serial: String },
    Path(PathBuf),
}

/// One device a point's I/O ran on, with its share of the numbers.
#[derive(Debug, Clone)]
pub struct DeviceOf {
    pub key: DeviceKey,
    pub path: PathBuf,
    /// `/dev/nvme0n1 (Samsung SSD 990 PRO 2TB, serial S7KH...)`.
    pub words: String,
    pub iops: f64,
    pub mean_latency_us: f64,
}

/// The key of target `target` (from 1) of `targets`, at `path`.
pub fn key_of(targets: &[TargetInfo], target: u32, path: &Path) -> DeviceKey {
    let id = targets.get(target.wrapping_sub(1) as usize).map(|t| &t.identity);
    match id.map(|i| (&i.model, &i.serial)) {
        Some((Some(model), Some(serial))) => {
            DeviceKey::Drive { model: model.clone(), serial: serial.clone() }
        }
        _ => DeviceKey::Path(path.to_path_buf()),
    }
}

/// The devices `p` ran on, as recorded: each device of its spread, or the
/// one device of a step that used one (its job's, else the first target)
/// with the point's step average.
pub fn devices_of(targets: &[TargetInfo], p: &Point) -> Vec<DeviceOf> {
    if let Some(s) = p.spread.as_ref().filter(|s| !s.devices.is_empty()) {
        return s
            .devices
            .iter()
            .map(|d| DeviceOf {
                key: key_of(targets, d.target, &d.path),
                path: d.path.clone(),
                words: device_words(targets, d.target, &d.path),
                iops: d.rates.iops,
                mean_latency_us: d.rates.latency_us.mean,
            })
            .collect();
    }
    let Some(iops) = p.average_iops else { return Vec::new() };
    let target = match &p.job {
        Some(j) => targets.iter().position(|t| t.path.as_os_str() == j.device.as_str()).map_or(1, |i| i + 1),
        None => 1,
    } as u32;
    let Some(t) = targets.get(target as usize - 1) else { return Vec::new() };
    vec![DeviceOf {
        key: key_of(targets, target, &t.path),
        path: t.path.clone(),
        words: device_words(targets, target, &t.path),
        iops,
        mean_latency_us: p.mean_latency_us.unwrap_or(f64::NAN),
    }]
}

/// Pairs the devices of one step in several runs: by model and serial
/// first, then what is left by path. Each row holds a device, one entry
/// a run.
pub fn pair_devices(each: &[Vec<DeviceOf>]) -> Vec<Vec<Option<&DeviceOf>>> {
    let mut used: Vec<Vec<bool>> = each.iter().map(|d| vec![false; d.len()]).collect();
    let mut rows: Vec<Vec<Option<usize>>> = Vec::new();
    let passes: [fn(&DeviceOf) -> Option<DeviceKey>; 2] = [
        |d| matches!(d.key, DeviceKey::Drive { .. }).then(|| d.key.clone()),
        |d| Some(DeviceKey::Path(d.path.clone())),
    ];
    for key_of in passes {
        for r in 0..each.len() {
            for i in 0..each[r].len() {
                if used[r][i] {
                    continue;
                }
                let Some(key) = key_of(&each[r][i]) else { continue };
                let mut row = vec![None; each.len()];
                for (s, devices) in each.iter().enumerate().skip(r) {
                    let found = (0..devices.len())
                        .find(|k| !used[s][*k] && key_of(&devices[*k]).as_ref() == Some(&key));
                    if let Some(k) = found {
                        used[s][k] = true;
                        row[s] = Some(k);
                    }
                }
                // Pass one pairs drives only; a drive alone goes on to be
                // paired by path.
                if row.iter().flatten().count() < 2 && matches!(key, DeviceKey::Drive { .. }) {
                    for (s, k) in row.iter().enumerate() {
                        if let Some(k) = k {
                            used[s][*k] = false;
                        }
                    }
                    continue;
                }
                rows.push(row);
            }
        }
    }
    rows.into_iter()
        .map(|row| row.iter().enumerate().map(|(r, k)| k.map(|k| &each[r][k])).collect())
        .collect()
}

/// Each paired step's devices, side by side, where some run spread the
/// step over several devices; and, run against the first, the steps whose
/// devices are not the same, as differences.
/// `targets` are each run's, in the runs' order; `labels` each pair's.
pub(super) fn device_rows(
    targets: &[&[TargetInfo]],
    paired: &[Vec<&Point>],
    labels: &[String],
) -> (Vec<DeviceRow>, Vec<Difference>) {
    let mut rows = Vec::new();
    // (run, A's devices, that run's devices) to the steps.
    let mut apart: BTreeMap<(usize, String, String), Vec<String>> = BTreeMap::new();
    let mut spread_pairs = 0usize;
    for (pts, label) in paired.iter().zip(labels) {
        let each: Vec<Vec<DeviceOf>> = pts.iter().zip(targets).map(|(p, t)| devices_of(t, p)).collect();
        if each.iter().all(|d| d.len() < 2) {
            continue;
        }
        spread_pairs += 1;
        let devices = pair_devices(&each);
        for row in &devices {
            let first = row.iter().flatten().next().expect("a device of some run");
            let iops: Vec<Option<f64>> = row.iter().map(|d| d.map(|d| d.iops)).collect();
            rows.push(DeviceRow {
                step: label.clone(),
                device: first.words.clone(),
                ratios: ratios(&iops.iter().map(|v| (*v, true)).collect::<Vec<_>>()),
                iops,
                mean_latency_us: row.iter().map(|d| d.map(|d| d.mean_latency_us)).collect(),
            });
        }
        for j in 1..targets.len() {
            let only = |r: usize| {
                devices
                    .iter()
                    .filter(move |row| row[r].is_some() && row[if r == 0 { j } else { 0 }].is_none())
            };
            if only(0).next().is_none() && only(j).next().is_none() {
                continue;
            }
            let names = |r: usize| {
                let mut v: Vec<String> =
                    devices.iter().filter_map(|row| row[r].map(|d| d.words.clone())).collect();
                v.sort();
                v.join(", ")
            };
            apart.entry((j, names(0), names(j))).or_default().push(pts[0].id.clone());
        }
    }
    let differences = apart
        .into_iter()
        .map(|((j, a, b), ids)| Difference {
            field: "devices".into(),
            runs: format!("A vs {}", letter(j)),
            scope: format!("{} of {} paired steps spread over devices ({})", ids.len(), spread_pairs, ids.join(", ")),
            a,
            b,
            sentence: "a device present in one run and missing in the other: the step's workers ran on other \
                       drives (or fewer), so its total is another sum; the rows per device compare the drives \
                       both runs used"
                .into(),
        })
        .collect();
    (rows, differences)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{Identity, TargetKind};

    fn target(path: &str, model: Option<&str>, serial: Option<&str>) -> TargetInfo {
        TargetInfo {
            path: path.into(),
            kind: TargetKind::BlockDevice,
            capacity: 1 << 30,
            logical_block: 512,
            physical_block: 4096,
            scratch: false,
            nowait: true,
            inline_completion: false,
            identity: Identity {
                model: model.map(str::to_string),
                serial: serial.map(str::to_string),
                ..Identity::default()
            },
        }
    }

    fn device(t: &[TargetInfo], target: u32, iops: f64) -> DeviceOf {
        let path = t[target as usize - 1].path.clone();
        DeviceOf {
            key: key_of(t, target, &path),
            words: path.display().to_string(),
            path,
            iops,
            mean_latency_us: 100.0,
        }
    }

    /// Two drives swapped between slots pair by serial, not by path; a
    /// loop device (no serial) pairs by path; a drive in one run only is
    /// alone in its row.
    #[test]
    fn devices_pair_by_model_and_serial_then_by_path() {
        let a = [
            target("/dev/nvme0n1", Some("X"), Some("S1")),
            target("/dev/nvme1n1", Some("X"), Some("S2")),
            target("/dev/loop0", None, None),
            target("/dev/nvme2n1", Some("X"), Some("S3")),
        ];
        let b = [
            target("/dev/nvme0n1", Some("X"), Some("S2")),
            target("/dev/nvme1n1", Some("X"), Some("S1")),
            target("/dev/loop0", None, None),
        ];
        let each = vec![
            (1..=4).map(|t| device(&a, t, 100.0 * t as f64)).collect::<Vec<_>>(),
            (1..=3).map(|t| device(&b, t, 1000.0 * t as f64)).collect::<Vec<_>>(),
        ];
        let rows = pair_devices(&each);
        let pairs: Vec<(Option<f64>, Option<f64>)> =
            rows.iter().map(|r| (r[0].map(|d| d.iops), r[1].map(|d| d.iops))).collect();
        assert_eq!(
            pairs,
            [
                (Some(100.0), Some(2000.0)),
                (Some(200.0), Some(1000.0)),
                (Some(300.0), Some(3000.0)),
                (Some(400.0), None),
            ],
            "S1 with S1, S2 with S2, the loop device by path, S3 alone"
        );
        assert_eq!(key_of(&a, 3, Path::new("/dev/loop0")), DeviceKey::Path("/dev/loop0".into()));
    }

    fn rates(iops: f64) -> crate::numbers::Rates {
        crate::numbers::Rates {
            ios: iops as u64,
            bytes: iops as u64 * 4096,
            iops,
            mb_s: iops * 4096.0 / 1e6,
            mib_s: iops * 4096.0 / 1_048_576.0,
            latency_us: crate::numbers::Latency { mean: 1e6 / iops, ..Default::default() },
        }
    }

    /// A sample point whose I/O spread over `devices` (target, IOPS).
    fn spread_over(devices: &[(u32, &str, f64)]) -> Point {
        use crate::record::{DeviceRates, Noise, Spread};
        let total: f64 = devices.iter().map(|d| d.2).sum();
        let spread = Spread {
            job: None,
            cell: None,
            devices: devices
                .iter()
                .map(|&(target, path, iops)| DeviceRates {
                    target,
                    path: path.into(),
                    workers: vec![target],
                    seconds: 1.0,
                    rates: rates(iops),
                    noise: Noise::of_group(&[vec![iops as u64; 4]], 1.0).remove(0),
                })
                .collect(),
            workers: Vec::new(),
        };
        Point { average_iops: Some(total), spread: Some(spread), ..crate::view::points::sample() }
    }

    /// A run on two devices against one on the first of them alone: the
    /// first pairs (the one-device run's whole step is its share), the
    /// second is A's only, and a difference names it.
    #[test]
    fn a_device_in_one_run_only_is_a_difference() {
        let two = [target("/dev/loop0", None, None), target("/dev/loop1", None, None)];
        let one = [target("/dev/loop0", None, None)];
        let a = spread_over(&[(1, "/dev/loop0", 300.0), (2, "/dev/loop1", 100.0)]);
        let b = Point { mean_latency_us: Some(5.0), ..crate::view::points::sample() };
        let (rows, differences) = device_rows(&[&two, &one], &[vec![&a, &b]], &["r QD 4".to_string()]);
        type Row<'a> = (&'a str, Vec<Option<f64>>, Vec<Option<f64>>);
        let got: Vec<Row> =
            rows.iter().map(|r| (r.device.as_str(), r.iops.clone(), r.ratios.clone())).collect();
        assert_eq!(
            got,
            [
                ("/dev/loop0", vec![Some(300.0), Some(100.0)], vec![Some(100.0 / 300.0)]),
                ("/dev/loop1", vec![Some(100.0), None], vec![None]),
            ]
        );
        assert_eq!(rows[0].mean_latency_us[1], Some(5.0));
        let [d] = differences.as_slice() else { panic!("one difference: {differences:?}") };
        assert_eq!((d.field.as_str(), d.runs.as_str()), ("devices", "A vs B"));
        assert_eq!((d.a.as_str(), d.b.as_str()), ("/dev/loop0, /dev/loop1", "/dev/loop0"));
        assert!(d.scope.starts_with("1 of 1 paired steps"), "{}", d.scope);
        // The same devices in both runs: rows, and no difference.
        let a2 = spread_over(&[(1, "/dev/loop0", 310.0), (2, "/dev/loop1", 90.0)]);
        let (rows, differences) = device_rows(&[&two, &two], &[vec![&a, &a2]], &["r QD 4".to_string()]);
        assert_eq!(rows.len(), 2);
        assert!(differences.is_empty(), "{differences:?}");
        // Neither run spread the step: nothing to say per device.
        let (rows, _) = device_rows(&[&one, &one], &[vec![&b, &b]], &["r QD 4".to_string()]);
        assert!(rows.is_empty());
    }

    /// A drive whose serial is known in one run only pairs by its path.
    #[test]
    fn a_drive_known_by_serial_in_one_run_only_pairs_by_path() {
        let a = [target("/dev/sda", Some("M"), Some("S9"))];
        let b = [target("/dev/sda", None, None)];
        let each = vec![vec![device(&a, 1, 10.0)], vec![device(&b, 1, 20.0)]];
        let rows = pair_devices(&each);
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0][0].map(|d| d.iops), rows[0][1].map(|d| d.iops)), (Some(10.0), Some(20.0)));
    }
}
