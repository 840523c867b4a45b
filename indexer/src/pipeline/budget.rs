//! A run's memory budget, and what the run decides from it. What a run holds grows with the
//! repository in two ways: the type table (every type's shape, which name resolution reads at
//! random), and what only passes through (declarations while the table is built, the
//! full-text writer's buffers). The budget bounds the second kind: over it, declarations are
//! decoded pass by pass instead of held, and the writer flushes sooner. The run reports its
//! peak beside the budget ([`crate::pipeline::mem`]), so a budget the type table alone
//! outgrows is said, not hidden.

use std::fmt;

/// Bytes of a run's memory budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryBudget(u64);

const MIB: u64 = 1 << 20;

/// Decoded declarations take about three times their share of the encoded facts (measured on
/// openjdk-17: 120 MB of encoded facts, 350 MiB of declarations).
const DECODED_PER_ENCODED: u64 = 3;

/// tantivy's floor and codemap's usual full-text heap per writer thread.
const TEXT_HEAP_MIN: u64 = 15_000_000;
const TEXT_HEAP_MAX: u64 = 64_000_000;

impl Default for MemoryBudget {
    /// Sized for a 2 GiB container: three quarters of it, the rest left to the allocator's
    /// slack and the page cache.
    fn default() -> Self {
        MemoryBudget(1536 * MIB)
    }
}

impl MemoryBudget {
    pub fn from_bytes(bytes: u64) -> MemoryBudget {
        MemoryBudget(bytes)
    }

    pub fn bytes(self) -> u64 {
        self.0
    }

    /// Whether every file's declarations are held while the type table is built: when they
    /// take at most a quarter of the budget (`encoded` is the size of all files' encoded
    /// facts). Otherwise they are decoded on demand, once per pass.
    pub fn holds_declarations(self, encoded: u64) -> bool {
        encoded.saturating_mul(DECODED_PER_ENCODED) <= self.0 / 4
    }

    /// The full-text writer's heap for each of its threads: together at most a sixth of the
    /// budget (the default budget keeps 64 MB for each of the writer's at most four threads),
    /// within tantivy's floor and the 64 MB that keeps segments few.
    pub fn text_heap_per_thread(self, threads: usize) -> usize {
        let share = self.0 / 6 / threads.max(1) as u64;
        share.clamp(TEXT_HEAP_MIN, TEXT_HEAP_MAX) as usize
    }
}

/// Why a budget was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("memory budget {0:?}: expected a size such as 2G, 1536M or 800MiB (at least 1M)")]
pub struct BadBudget(String);

impl std::str::FromStr for MemoryBudget {
    type Err = BadBudget;

    /// `2G`, `1.5GiB`, `1536M`, `800MB`, or a number of bytes. Units are binary (`M` = MiB).
    fn from_str(s: &str) -> Result<MemoryBudget, BadBudget> {
        let bad = || BadBudget(s.to_string());
        let t = s.trim();
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (number, unit) = t.split_at(split);
        let number: f64 = number.parse().map_err(|_| bad())?;
        let unit = unit.trim().to_ascii_lowercase();
        let scale = match unit.trim_end_matches("ib").trim_end_matches('b') {
            "" => 1,
            "k" => 1 << 10,
            "m" => MIB,
            "g" => 1 << 30,
            "t" => 1 << 40,
            _ => return Err(bad()),
        };
        let bytes = number * scale as f64;
        // A bare small number is a slip (`2` for 2G), not a budget.
        if !bytes.is_finite() || bytes < MIB as f64 {
            return Err(bad());
        }
        Ok(MemoryBudget(bytes as u64))
    }
}

impl fmt::Display for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} MiB", self.0 / MIB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_in_binary_units() {
        let mib = |s: &str| s.parse::<MemoryBudget>().map(|b| b.bytes() / MIB);
        assert_eq!(mib("2G"), Ok(2048));
        assert_eq!(mib("1.5GiB"), Ok(1536));
        assert_eq!(mib("1536M"), Ok(1536));
        assert_eq!(mib("800mb"), Ok(800));
        assert_eq!(mib(&(100 * MIB).to_string()), Ok(100));
        for bad in ["", "lots", "2X", "-1G", "2", "512K", "1.2.3G"] {
            assert!(bad.parse::<MemoryBudget>().is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn declarations_are_held_only_within_a_quarter_of_the_budget() {
        let b = MemoryBudget::from_bytes(1200 * MIB);
        assert!(b.holds_declarations(100 * MIB));
        assert!(!b.holds_declarations(101 * MIB));
        assert!(MemoryBudget::default().holds_declarations(120 * MIB));
    }

    #[test]
    fn the_text_heap_shrinks_with_the_budget_within_tantivys_floor() {
        assert_eq!(MemoryBudget::default().text_heap_per_thread(4), 64_000_000);
        let small = MemoryBudget::from_bytes(128 * MIB);
        assert_eq!(small.text_heap_per_thread(2), 15_000_000);
        let mid = MemoryBudget::from_bytes(384 * MIB);
        assert_eq!(mid.text_heap_per_thread(2), 384 * MIB as usize / 12);
    }
}
