//! The cron half: at each time the schedule names, ask for a poll job (which fetches and runs only
//! when the tracked branch moved).

use super::job::Trigger;
use super::queue::Worker;
use tokio::sync::watch;

pub async fn poll(worker: Worker, schedule: cron::Schedule, mut stop: watch::Receiver<bool>) {
    loop {
        let Some(next) = schedule.upcoming(chrono::Utc).next() else {
            tracing::info!(repo = %worker.name(), "cron schedule has no further times");
            return;
        };
        let wait = (next - chrono::Utc::now()).to_std().unwrap_or_default();
        tokio::select! {
            _ = tokio::time::sleep(wait) => {
                let offer = worker.request(Trigger::Poll);
                tracing::info!(repo = %worker.name(), offer = ?offer, "scheduled poll");
            }
            _ = stop.changed() => return,
        }
    }
}
