//! The running answer core: the inbox, its queue and the dispatcher task, started inside a tokio
//! runtime and stopped by draining.

use crate::core::Core;
use crate::dedupe::Dedupe;
use crate::dispatch::Dispatcher;
use crate::inbox::Inbox;
use crate::platform::ChatSender;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

pub struct Running {
    /// What platform routers submit to.
    pub inbox: Inbox,
    pub core: Arc<Core>,
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl Running {
    /// Starts the dispatcher. Call inside a tokio runtime.
    pub fn start(
        core: Arc<Core>,
        senders: Vec<Arc<dyn ChatSender>>,
        dedupe: Arc<Dedupe>,
    ) -> Running {
        let (tx, rx) = mpsc::channel(core.config().limits.queue);
        let inbox = Inbox::with_dedupe(tx, dedupe);
        let (stop, stop_rx) = watch::channel(false);
        let dispatcher = Arc::new(Dispatcher::new(core.clone(), senders));
        let task = tokio::spawn(dispatcher.run(rx, stop_rx));
        Running {
            inbox,
            core,
            stop,
            task,
        }
    }

    /// Refuses new questions, answers and delivers the queued ones, then returns.
    pub async fn shutdown(self) {
        self.inbox.close();
        let queued = self.inbox.queued();
        tracing::info!(queued, "draining the question queue");
        let _ = self.stop.send(true);
        if let Err(e) = self.task.await {
            tracing::error!(error = %e, "the dispatcher ended abnormally");
        }
    }
}
