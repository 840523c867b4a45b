//! The process's memory as the kernel counts it (Linux `/proc/self/status`; `None` elsewhere):
//! logged at each stage of a run and reported at its end, so a budget can be checked against
//! what the run really used.

/// Resident set size now, in bytes.
pub fn resident() -> Option<u64> {
    let status = status()?;
    field_kib(&status, "VmRSS:").map(|k| k * 1024)
}

/// The highest resident set size of the process so far, in bytes. Read from the same snapshot
/// as the resident size and never below it: the kernel folds per-thread counters into the
/// high-water mark lazily, so `VmHWM` alone can trail `VmRSS` while other threads allocate.
pub fn peak() -> Option<u64> {
    let status = status()?;
    let hwm = field_kib(&status, "VmHWM:")?;
    let rss = field_kib(&status, "VmRSS:").unwrap_or(0);
    Some(hwm.max(rss) * 1024)
}

/// Resident MiB for a log line (0 when unknown).
pub fn resident_mib() -> u64 {
    resident().unwrap_or(0) >> 20
}

fn status() -> Option<String> {
    std::fs::read_to_string("/proc/self/status").ok()
}

fn field_kib(status: &str, field: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(field))?;
    line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(target_os = "linux")]
    fn the_peak_is_at_least_what_is_resident() {
        let now = super::resident().expect("VmRSS on Linux");
        assert!(now > 1 << 20, "a test process holds more than 1 MiB: {now}");
        // Other test threads allocate meanwhile: hold 64 MiB so the peak read after must
        // cover at least this much above what was resident before.
        let held = std::hint::black_box(vec![1u8; 64 << 20]);
        let peak = super::peak().expect("VmHWM on Linux");
        assert!(peak >= now, "peak {peak} < resident {now}");
        assert!(
            peak >= 64 << 20,
            "peak {peak} covers the {} bytes held",
            held.len()
        );
    }

    #[test]
    fn fields_are_read_in_kib() {
        let status = "Name:\tx\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n";
        assert_eq!(super::field_kib(status, "VmHWM:"), Some(2048));
        assert_eq!(super::field_kib(status, "VmRSS:"), Some(1024));
        assert_eq!(super::field_kib(status, "VmSwap:"), None);
    }
}
