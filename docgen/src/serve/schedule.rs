//! The cron half: at each time the schedule names, ask for a poll job (which fetches and runs only
//! when the tracked branch moved).

use super::job::Trigger;
use super::queue::{Queue, Task};
use tokio::sync::watch;

pub async fn poll(
    queue: Queue,
    repo: String,
    schedule: cron::Schedule,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        let Some(next) = schedule.upcoming(chrono::Utc).next() else {
            tracing::info!(%repo, "cron schedule has no further times");
            return;
        };
        let wait = (next - chrono::Utc::now()).to_std().unwrap_or_default();
        tokio::select! {
            _ = tokio::time::sleep(wait) => {
                let offer = queue.request(&repo, Task::Docs(Trigger::Poll));
                tracing::info!(%repo, offer = ?offer, "scheduled poll");
            }
            _ = stop.changed() => return,
        }
    }
}
