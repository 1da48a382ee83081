//! What the run's host is: CPU, cores, memory, kernel, OS, and how its
//! CPUs' clocks and idle states are set (governor, turbo, C-states); and,
//! for a file target, the file system it sits on and how that is mounted.
//! Read from /proc, /etc and sysfs; anything unreadable is left out rather
//! than guessed.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use methodic_results::host::{FileSystem, Host, IdleState, Power};

/// The CPUs this process may run on (its affinity mask), in order; all
/// online CPUs when the mask cannot be read.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is a plain bit mask, for which all zeroes (no CPU) is a valid value.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a writable cpu_set_t and the size passed is its own.
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    let cpus: Vec<usize> = if rc == 0 {
        // SAFETY: CPU_ISSET reads a bit of `set`; `c` is below CPU_SETSIZE, the mask's size in
        // bits.
        (0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, &set) }).collect()
    } else {
        Vec::new()
    };
    if cpus.is_empty() {
        (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect()
    } else {
        cpus
    }
}

/// This machine, as /proc and /etc describe it.
pub fn read() -> Host {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name") || l.starts_with("Model"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string());
    let hypervisor =
        cpuinfo.lines().any(|l| l.starts_with("flags") && l.split_whitespace().any(|f| f == "hypervisor"));
    let container = Path::new("/.dockerenv").exists()
        || std::fs::read_to_string("/proc/1/cgroup")
            .is_ok_and(|c| c.contains("docker") || c.contains("kubepods"));
    let virtualization = match (hypervisor, container) {
        (true, true) => Some("virtual machine, container".to_string()),
        (true, false) => Some("virtual machine".to_string()),
        (false, true) => Some("container".to_string()),
        (false, false) => None,
    };
    // SAFETY: sysconf takes a number and reads no memory of ours.
    let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as u32;
    let cpus_allowed = std::thread::available_parallelism().map_or(cpus, |n| n.get() as u32);
    let (memory_bytes, _) = meminfo();
    Host {
        hostname: read_trimmed("/proc/sys/kernel/hostname"),
        cpu_model,
        cpus,
        cpus_allowed,
        memory_bytes,
        kernel: read_trimmed("/proc/sys/kernel/osrelease"),
        kernel_build: read_trimmed("/proc/sys/kernel/version"),
        os: os_release(&std::fs::read_to_string("/etc/os-release").unwrap_or_default()),
        arch: std::env::consts::ARCH.to_string(),
        virtualization,
        power: Some(power(Path::new("/"))),
    }
}

/// How the CPUs' clocks and idle states are set, read from the sysfs and
/// /proc under `root` (`/` but in tests): each setting the machine does
/// not expose is `None`.
pub fn power(root: &Path) -> Power {
    let cpu = root.join("sys/devices/system/cpu");
    let text = |p: std::path::PathBuf| {
        std::fs::read_to_string(p).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
    };
    let cpus = cpu_dirs(&cpu);
    let per_cpu = |file: &str| -> Vec<(usize, String)> {
        cpus.iter().filter_map(|n| Some((*n, text(cpu.join(format!("cpu{n}/cpufreq/{file}")))?))).collect()
    };
    let governor = grouped(&per_cpu("scaling_governor"));
    let frequency_driver = grouped(&per_cpu("scaling_driver"));
    // intel_pstate says whether turbo is off; other drivers whether boost is on.
    let turbo = match text(cpu.join("intel_pstate/no_turbo")) {
        Some(v) => Some(v == "0"),
        None => text(cpu.join("cpufreq/boost")).map(|v| v == "1"),
    };
    let idle_states = states(&cpu.join("cpu0/cpuidle"))
        .into_iter()
        .filter_map(|d| {
            Some(IdleState {
                name: text(d.join("name"))?,
                disabled: text(d.join("disable")).is_some_and(|v| v != "0"),
            })
        })
        .collect();
    let max_cstate: Vec<String> = ["intel_idle", "processor"]
        .iter()
        .filter_map(|m| {
            Some(format!("{m} {}", text(root.join(format!("sys/module/{m}/parameters/max_cstate")))?))
        })
        .collect();
    let cmdline: Vec<String> = text(root.join("proc/cmdline"))
        .unwrap_or_default()
        .split_whitespace()
        .filter(|w| {
            w.starts_with("idle=")
                || w.starts_with("intel_idle.max_cstate=")
                || w.starts_with("processor.max_cstate=")
        })
        .map(str::to_string)
        .collect();
    Power {
        governor,
        frequency_driver,
        turbo,
        idle_driver: text(cpu.join("cpuidle/current_driver")),
        idle_governor: text(cpu.join("cpuidle/current_governor"))
            .or_else(|| text(cpu.join("cpuidle/current_governor_ro"))),
        idle_states,
        max_cstate: (!max_cstate.is_empty()).then(|| max_cstate.join(", ")),
        cmdline: (!cmdline.is_empty()).then(|| cmdline.join(" ")),
    }
}

/// The numbers of the `cpuN` directories under `cpu`, in order.
fn cpu_dirs(cpu: &Path) -> Vec<usize> {
    let mut n: Vec<usize> = std::fs::read_dir(cpu)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_prefix("cpu")?.parse().ok())
        .collect();
    n.sort_unstable();
    n
}

/// The `stateN` directories under a CPU's cpuidle, by N.
fn states(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut s: Vec<(usize, std::path::PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let e = e.ok()?;
            Some((e.file_name().to_str()?.strip_prefix("state")?.parse().ok()?, e.path()))
        })
        .collect();
    s.sort();
    s.into_iter().map(|(_, p)| p).collect()
}

/// One value a CPU said as one word when all agree, else each with its
/// CPUs: `performance on 0-3, powersave on 4-7`. `None` when no CPU has it.
fn grouped(values: &[(usize, String)]) -> Option<String> {
    let first = &values.first()?.1;
    if values.iter().all(|(_, v)| v == first) {
        return Some(first.clone());
    }
    let mut order: Vec<&String> = Vec::new();
    for (_, v) in values {
        if !order.contains(&v) {
            order.push(v);
        }
    }
    let groups: Vec<String> = order
        .iter()
        .map(|v| {
            let cpus: Vec<usize> = values.iter().filter(|(_, w)| w == *v).map(|(n, _)| *n).collect();
            format!("{v} on {}", ranges(&cpus))
        })
        .collect();
    Some(groups.join(", "))
}

/// `0-3, 6, 8-9`: CPU numbers in order, runs of consecutive ones joined.
fn ranges(cpus: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if j > i { format!("{}-{}", cpus[i], cpus[j]) } else { cpus[i].to_string() });
        i = j + 1;
    }
    out.join(", ")
}

/// The mount `path` lives on: the mountinfo entry with its device number,
/// the deepest one when several share it.
pub fn file_system(path: &Path) -> Option<FileSystem> {
    let dev = std::fs::metadata(path).ok()?.dev();
    let wanted = format!("{}:{}", libc::major(dev), libc::minor(dev));
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let canonical = std::fs::canonicalize(path).ok()?;
    mountinfo
        .lines()
        .filter_map(parse_mountinfo)
        .filter(|m| m.device == wanted && canonical.starts_with(&m.mount_point))
        .max_by_key(|m| m.mount_point.len())
}

/// One line of /proc/self/mountinfo:
/// `36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue`.
fn parse_mountinfo(line: &str) -> Option<FileSystem> {
    let (left, right) = line.split_once(" - ")?;
    let l: Vec<&str> = left.split_whitespace().collect();
    let r: Vec<&str> = right.split_whitespace().collect();
    let mount_options = l.get(5)?;
    let super_options = r.get(2).copied().unwrap_or("");
    let options = if super_options.is_empty() || super_options == *mount_options {
        mount_options.to_string()
    } else {
        format!("{mount_options},{super_options}")
    };
    Some(FileSystem {
        fs_type: r.first()?.to_string(),
        source: r.get(1).copied().unwrap_or("").to_string(),
        mount_point: unescape(l.get(4)?),
        options,
        device: l.get(2)?.to_string(),
    })
}

/// mountinfo writes space, tab, newline and backslash as `\040` etc.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let code: String = chars.clone().take(3).collect();
            if code.len() == 3
                && let Ok(n) = u8::from_str_radix(&code, 8)
            {
                out.push(n as char);
                chars.nth(2);
                continue;
            }
        }
        out.push(c);
    }
    out
}

fn os_release(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim().trim_matches('"').to_string())
        .filter(|v| !v.is_empty())
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// `MemTotal` and `MemAvailable` from /proc/meminfo, in bytes.
pub fn meminfo() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(0, |kib| kib * 1024)
    };
    (field("MemTotal:"), field("MemAvailable:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_lines_are_read_with_escapes_and_both_option_sets() {
        let m = parse_mountinfo(
            "36 35 98:0 /mnt1 /mnt/my\\040disk rw,noatime master:1 - ext4 /dev/sda1 rw,errors=remount-ro",
        )
        .unwrap();
        assert_eq!(m.fs_type, "ext4");
        assert_eq!(m.source, "/dev/sda1");
        assert_eq!(m.mount_point, "/mnt/my disk");
        assert_eq!(m.options, "rw,noatime,rw,errors=remount-ro");
        assert_eq!(m.device, "98:0");
        assert!(parse_mountinfo("garbage").is_none());
    }

    #[test]
    fn os_release_gives_the_pretty_name() {
        assert_eq!(
            os_release("NAME=\"Debian\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n").as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
        assert_eq!(os_release("NAME=x\n"), None);
    }

    /// A fake sysfs and /proc under `root`: files by path and contents.
    fn tree(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!("methodic-host-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, format!("{text}\n")).unwrap();
        }
        std::fs::create_dir_all(&root).unwrap();
        root
    }

    #[test]
    fn a_machine_with_cpufreq_and_intel_idle_is_read_in_full() {
        let mut files = vec![
            ("sys/devices/system/cpu/intel_pstate/no_turbo", "1"),
            ("sys/devices/system/cpu/cpufreq/boost", "1"),
            ("sys/devices/system/cpu/cpuidle/current_driver", "intel_idle"),
            ("sys/devices/system/cpu/cpuidle/current_governor_ro", "menu"),
            ("sys/devices/system/cpu/cpu0/cpuidle/state0/name", "POLL"),
            ("sys/devices/system/cpu/cpu0/cpuidle/state0/disable", "0"),
            ("sys/devices/system/cpu/cpu0/cpuidle/state1/name", "C1"),
            ("sys/devices/system/cpu/cpu0/cpuidle/state1/disable", "0"),
            ("sys/devices/system/cpu/cpu0/cpuidle/state10/name", "C10"),
            ("sys/devices/system/cpu/cpu0/cpuidle/state10/disable", "0"),
            ("sys/devices/system/cpu/cpu0/cpuidle/state2/name", "C6"),
            ("sys/devices/system/cpu/cpu0/cpuidle/state2/disable", "1"),
            ("sys/module/intel_idle/parameters/max_cstate", "9"),
            ("proc/cmdline", "ro quiet intel_idle.max_cstate=1 idle=poll processor.max_cstate=2 splash"),
        ];
        let govs: Vec<(String, &str)> =
            (0..10)
                .map(|n| {
                    let g = if n < 4 || n == 9 { "performance" } else { "powersave" };
                    (format!("sys/devices/system/cpu/cpu{n}/cpufreq/scaling_governor"), g)
                })
                .chain((0..10).map(|n| {
                    (format!("sys/devices/system/cpu/cpu{n}/cpufreq/scaling_driver"), "intel_pstate")
                }))
                .collect();
        files.extend(govs.iter().map(|(p, g)| (p.as_str(), *g)));
        let root = tree("full", &files);
        let p = power(&root);
        assert_eq!(p.governor.as_deref(), Some("performance on 0-3, 9, powersave on 4-8"));
        assert_eq!(p.frequency_driver.as_deref(), Some("intel_pstate"));
        assert_eq!(p.turbo, Some(false), "intel_pstate's no_turbo decides over cpufreq's boost");
        assert_eq!(p.idle_driver.as_deref(), Some("intel_idle"));
        assert_eq!(p.idle_governor.as_deref(), Some("menu"));
        let states: Vec<(&str, bool)> = p.idle_states.iter().map(|s| (s.name.as_str(), s.disabled)).collect();
        assert_eq!(states, [("POLL", false), ("C1", false), ("C6", true), ("C10", false)]);
        assert_eq!(p.max_cstate.as_deref(), Some("intel_idle 9"));
        assert_eq!(p.cmdline.as_deref(), Some("intel_idle.max_cstate=1 idle=poll processor.max_cstate=2"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_machine_without_cpufreq_or_cpuidle_has_none() {
        let root = tree(
            "bare",
            &[
                ("sys/devices/system/cpu/cpu0/topology/core_id", "0"),
                ("sys/devices/system/cpu/cpu1/topology/core_id", "1"),
                ("sys/devices/system/cpu/cpufreq/boost", "1"),
                ("proc/cmdline", "console=ttyS0"),
            ],
        );
        let p = power(&root);
        assert_eq!(p, Power { turbo: Some(true), ..Power::default() });
        assert_eq!(p.governor_words(), methodic_results::host::NOT_EXPOSED);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn cpu_numbers_are_joined_into_ranges() {
        assert_eq!(ranges(&[0, 1, 2, 3, 6, 8, 9]), "0-3, 6, 8-9");
        assert_eq!(ranges(&[5]), "5");
        assert_eq!(grouped(&[]), None);
    }

    #[test]
    fn this_host_and_the_temp_dir_are_described() {
        let h = read();
        assert!(h.cpus >= 1 && h.cpus_allowed >= 1 && h.memory_bytes > 0);
        assert_eq!(allowed_cpus().len(), h.cpus_allowed as usize, "the mask and the count agree");
        assert!(h.kernel.is_some(), "/proc/sys/kernel/osrelease is readable on Linux");
        assert!(h.power.is_some(), "the power settings are recorded, each as far as the machine exposes it");
        let fs = file_system(&std::env::temp_dir()).expect("the temp dir is on a mounted file system");
        assert!(!fs.fs_type.is_empty() && fs.mount_point.starts_with('/'));
    }
}
