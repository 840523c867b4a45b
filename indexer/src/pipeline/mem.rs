//! The process's memory as the kernel counts it (Linux `/proc/self/status`; `None` elsewhere):
//! logged at each stage of a run and reported at its end, so a budget can be checked against
//! what the run really used.

/// Resident set size now, in bytes.
pub fn resident() -> Option<u64> {
    status_kib("VmRSS:").map(|k| k * 1024)
}

/// The highest resident set size of the process so far, in bytes.
pub fn peak() -> Option<u64> {
    status_kib("VmHWM:").map(|k| k * 1024)
}

/// Resident MiB for a log line (0 when unknown).
pub fn resident_mib() -> u64 {
    resident().unwrap_or(0) >> 20
}

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
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
        let peak = super::peak().expect("VmHWM on Linux");
        assert!(now > 1 << 20, "a test process holds more than 1 MiB: {now}");
        assert!(peak >= now, "peak {peak} < resident {now}");
    }
}
