//! Platform retries are recognised by their event id, keyed by (platform, workspace, event id),
//! remembered for a bounded time and number in a small SQLite file so a restart does not answer
//! a retried event twice.

use crate::model::Platform;
use rusqlite::{Connection, params};
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
#[error("the event-id store {path}: {source}")]
pub struct DedupeError {
    path: String,
    source: rusqlite::Error,
}

/// Seen event ids. `Send + Sync`; each call is one short SQLite statement.
pub struct Dedupe {
    conn: Mutex<Connection>,
    ttl: Duration,
    capacity: usize,
    /// Inserts since the last prune.
    since_prune: Mutex<usize>,
}

/// Prune expired and surplus entries every this many inserts.
const PRUNE_EVERY: usize = 256;

impl Dedupe {
    /// Opens (or creates) the store at `path`.
    pub fn open(path: &Path, ttl: Duration, capacity: usize) -> Result<Dedupe, DedupeError> {
        let err = |source| DedupeError {
            path: path.display().to_string(),
            source,
        };
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let conn = Connection::open(path).map_err(err)?;
        Dedupe::init(conn, ttl, capacity).map_err(err)
    }

    /// A store that lives as long as the process (tests, and fronts without a state folder).
    pub fn in_memory(ttl: Duration, capacity: usize) -> Dedupe {
        let conn = Connection::open_in_memory().expect("an in-memory SQLite database opens");
        Dedupe::init(conn, ttl, capacity).expect("the in-memory schema is created")
    }

    fn init(conn: Connection, ttl: Duration, capacity: usize) -> rusqlite::Result<Dedupe> {
        conn.busy_timeout(Duration::from_secs(2))?;
        // WAL + NORMAL: an insert costs no fsync; a crash loses at most the last moments, whose
        // retries then get answered again, which is the lesser failure.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS seen (
                platform TEXT NOT NULL,
                workspace TEXT NOT NULL,
                event_id TEXT NOT NULL,
                at INTEGER NOT NULL,
                PRIMARY KEY (platform, workspace, event_id)
            ) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS seen_at ON seen (at);",
        )?;
        Ok(Dedupe {
            conn: Mutex::new(conn),
            ttl,
            capacity: capacity.max(1),
            since_prune: Mutex::new(0),
        })
    }

    /// Records the event; true when it was not seen within the TTL. An empty event id is never
    /// a duplicate. A store failure counts as "first time": answering twice beats not at all.
    pub fn first_time(
        &self,
        platform: Platform,
        workspace: &str,
        event_id: &str,
        now: i64,
    ) -> bool {
        if event_id.is_empty() {
            return true;
        }
        let Ok(conn) = self.conn.lock() else {
            return true;
        };
        let cutoff = now - self.ttl.as_secs() as i64;
        let fresh = conn
            .execute(
                "INSERT INTO seen (platform, workspace, event_id, at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (platform, workspace, event_id) DO UPDATE SET at = excluded.at
                 WHERE seen.at < ?5",
                params![platform.as_str(), workspace, event_id, now, cutoff],
            )
            .map(|changed| changed == 1);
        let fresh = match fresh {
            Ok(f) => f,
            Err(e) => {
                tracing::warn!(error = %e, "event-id store failed; not deduplicating this event");
                return true;
            }
        };
        if fresh && let Ok(mut n) = self.since_prune.lock() {
            *n += 1;
            if *n >= PRUNE_EVERY {
                *n = 0;
                if let Err(e) = prune(&conn, cutoff, self.capacity) {
                    tracing::warn!(error = %e, "pruning the event-id store failed");
                }
            }
        }
        fresh
    }

    /// Forgets an event (it was refused after all, so the platform's retry must get through).
    pub fn forget(&self, platform: Platform, workspace: &str, event_id: &str) {
        if let Ok(conn) = self.conn.lock() {
            let _ = conn.execute(
                "DELETE FROM seen WHERE platform = ?1 AND workspace = ?2 AND event_id = ?3",
                params![platform.as_str(), workspace, event_id],
            );
        }
    }

    /// Entries held now (for tests and health).
    pub fn len(&self) -> usize {
        self.conn
            .lock()
            .ok()
            .and_then(|c| {
                c.query_row("SELECT count(*) FROM seen", [], |r| r.get::<_, i64>(0))
                    .ok()
            })
            .unwrap_or(0) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Prunes now (tests; otherwise every few hundred inserts).
    pub fn prune(&self, now: i64) {
        if let Ok(conn) = self.conn.lock() {
            let _ = prune(&conn, now - self.ttl.as_secs() as i64, self.capacity);
        }
    }
}

fn prune(conn: &Connection, cutoff: i64, capacity: usize) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM seen WHERE at < ?1", params![cutoff])?;
    conn.execute(
        "DELETE FROM seen WHERE at < (SELECT at FROM seen ORDER BY at DESC LIMIT 1 OFFSET ?1)",
        params![capacity as i64 - 1],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: Duration = Duration::from_secs(8 * 3600);

    #[test]
    fn the_same_event_is_first_only_once_per_workspace_and_platform() {
        let d = Dedupe::in_memory(H, 1000);
        assert!(d.first_time(Platform::Slack, "T1", "Ev1", 100));
        assert!(!d.first_time(Platform::Slack, "T1", "Ev1", 101));
        assert!(d.first_time(Platform::Slack, "T2", "Ev1", 101));
        assert!(d.first_time(Platform::Feishu, "T1", "Ev1", 101));
        assert!(d.first_time(Platform::Slack, "T1", "", 101));
        assert!(d.first_time(Platform::Slack, "T1", "", 101));
    }

    #[test]
    fn entries_expire_after_the_ttl_and_the_count_is_bounded() {
        let d = Dedupe::in_memory(H, 1000);
        assert!(d.first_time(Platform::Slack, "T1", "Ev1", 0));
        assert!(!d.first_time(Platform::Slack, "T1", "Ev1", H.as_secs() as i64));
        assert!(d.first_time(Platform::Slack, "T1", "Ev1", H.as_secs() as i64 + 1));
        let d = Dedupe::in_memory(H, 10);
        for i in 0..50 {
            d.first_time(Platform::Discord, "G", &format!("e{i}"), i);
        }
        d.prune(50);
        assert_eq!(d.len(), 10);
        // The newest are kept.
        assert!(!d.first_time(Platform::Discord, "G", "e49", 51));
        assert!(d.first_time(Platform::Discord, "G", "e0", 51));
    }

    #[test]
    fn a_restart_remembers_what_was_seen() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("state/dedupe.sqlite");
        {
            let d = Dedupe::open(&path, H, 1000).unwrap();
            assert!(d.first_time(Platform::Feishu, "tenant", "ev-9", 1000));
        }
        let d = Dedupe::open(&path, H, 1000).unwrap();
        assert!(!d.first_time(Platform::Feishu, "tenant", "ev-9", 1001));
        d.forget(Platform::Feishu, "tenant", "ev-9");
        assert!(d.first_time(Platform::Feishu, "tenant", "ev-9", 1002));
    }
}
