//! What the run's host is: CPU, cores, memory, kernel, OS; and, for a file
//! target, the file system it sits on and how that is mounted. Read from
//! /proc and /etc; anything unreadable is left out rather than guessed.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

pub use methodic_results::host::{FileSystem, Host};

/// The CPUs this process may run on (its affinity mask), in order; all
/// online CPUs when the mask cannot be read.
pub fn allowed_cpus() -> Vec<usize> {
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    let cpus: Vec<usize> = if rc == 0 {
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
    }
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
            if code.len() == 3 {
                if let Ok(n) = u8::from_str_radix(&code, 8) {
                    out.push(n as char);
                    chars.nth(2);
                    continue;
                }
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

    #[test]
    fn this_host_and_the_temp_dir_are_described() {
        let h = read();
        assert!(h.cpus >= 1 && h.cpus_allowed >= 1 && h.memory_bytes > 0);
        assert_eq!(allowed_cpus().len(), h.cpus_allowed as usize, "the mask and the count agree");
        assert!(h.kernel.is_some(), "/proc/sys/kernel/osrelease is readable on Linux");
        let fs = file_system(&std::env::temp_dir()).expect("the temp dir is on a mounted file system");
        assert!(!fs.fs_type.is_empty() && fs.mount_point.starts_with('/'));
    }
}
