//! The outbound connections, for teams without a public URL: Slack Socket Mode, the Discord
//! gateway and Feishu's long connection. `codemap bot` starts one per platform whose
//! `connection = "websocket"`; each reports its state to [`Links`] (read by `/healthz`), keeps
//! itself connected, and ends with an error only when retrying cannot help (a refused token),
//! which stops the bot.

use crate::config::{Config, Connection};
use crate::inbox::Inbox;
use crate::model::Platform;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

/// Where one platform's connection stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum LinkState {
    /// HTTP callbacks: the platform calls the bot; nothing to hold open.
    Callbacks,
    Connecting,
    Connected,
    /// Lost or asked to move; trying again.
    Reconnecting {
        reason: String,
    },
    /// Gave up: the bot is stopping.
    Failed {
        error: String,
    },
}

/// Every configured platform's connection state, shared by the connections and `/healthz`.
#[derive(Clone, Default)]
pub struct Links(Arc<Mutex<BTreeMap<Platform, LinkState>>>);

impl Links {
    pub fn set(&self, p: Platform, s: LinkState) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(p, s);
    }

    pub fn snapshot(&self) -> Vec<(Platform, LinkState)> {
        let m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.iter().map(|(p, s)| (*p, s.clone())).collect()
    }

    /// True when no platform is failed and every outbound one is connected.
    pub fn all_up(&self) -> bool {
        self.snapshot()
            .iter()
            .all(|(_, s)| matches!(s, LinkState::Callbacks | LinkState::Connected))
    }
}

/// A connection that cannot work; retrying will not help.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{platform}: {message}")]
pub struct ConnectError {
    /// The config key or platform the error is about (`platforms.slack.app_token_env`).
    pub platform: String,
    pub message: String,
}

/// What every connection gets: where questions go, where its state goes, when to stop, and
/// where to report an error that ends it.
#[derive(Clone)]
pub struct Ctx {
    pub inbox: Inbox,
    pub links: Links,
    pub stop: watch::Receiver<bool>,
    pub fatal: mpsc::UnboundedSender<ConnectError>,
}

impl Ctx {
    /// Resolves once the bot is stopping.
    pub async fn stopped(&self) {
        let mut s = self.stop.clone();
        let _ = s.wait_for(|v| *v).await;
    }

    /// Reports a connection that cannot go on, which stops the bot.
    pub fn fail(&self, p: Platform, e: ConnectError) {
        self.links.set(
            p,
            LinkState::Failed {
                error: e.to_string(),
            },
        );
        let _ = self.fatal.send(e);
    }
}

/// Starts the connection of every platform configured with `connection = "websocket"` and
/// marks the others as callbacks. Credentials were checked before.
pub fn start(config: &Config, ctx: &Ctx) -> Vec<JoinHandle<()>> {
    let p = &config.platforms;
    let mut tasks = Vec::new();
    let mode = |platform: Platform, c: Connection| match c {
        Connection::Http => {
            ctx.links.set(platform, LinkState::Callbacks);
            false
        }
        Connection::Websocket => {
            ctx.links.set(platform, LinkState::Connecting);
            true
        }
    };
    if let Some(s) = &p.slack
        && mode(Platform::Slack, s.connection)
    {
        tasks.push(tokio::spawn(slack(s.clone(), ctx.clone())));
    }
    if let Some(d) = &p.discord
        && mode(Platform::Discord, d.connection)
    {
        tasks.push(tokio::spawn(discord(d.clone(), ctx.clone())));
    }
    if let Some(f) = &p.feishu
        && mode(Platform::Feishu, f.connection)
    {
        tasks.push(tokio::spawn(feishu(f.clone(), ctx.clone())));
    }
    tasks
}

fn env(var: &str) -> String {
    std::env::var(var).unwrap_or_default()
}

async fn slack(c: crate::config::SlackCreds, ctx: Ctx) {
    use crate::platform::slack::socket::{self, SocketError, SocketEvent, Token};
    let opts = socket::SocketOptions {
        app_token: c.app_token_env.as_deref().map(env).unwrap_or_default(),
        bot_token: env(&c.bot_token_env),
        api_url: c.api_base.clone(),
        connections: socket::CONNECTIONS,
    };
    let links = ctx.links.clone();
    let report = move |e: SocketEvent| {
        let state = match e {
            SocketEvent::Connected { .. } => LinkState::Connected,
            SocketEvent::Reconnecting { reason } => LinkState::Reconnecting { reason },
        };
        links.set(Platform::Slack, state);
    };
    let stop = ctx.clone();
    let run = socket::listen(opts, ctx.inbox.clone(), report, async move {
        stop.stopped().await
    });
    if let Err(e) = run.await {
        let key = match &e {
            SocketError::Refused {
                token: Token::App, ..
            } => "platforms.slack.app_token_env",
            SocketError::Refused {
                token: Token::Bot, ..
            } => "platforms.slack.bot_token_env",
            SocketError::Client(_) => "platforms.slack",
        };
        ctx.fail(
            Platform::Slack,
            ConnectError {
                platform: key.into(),
                message: e.to_string(),
            },
        );
    }
}

/// The Discord gateway, tried again with backoff while the Web API is unreachable; serenity
/// itself resumes after RECONNECT and dropped sockets.
async fn discord(c: crate::config::DiscordCreds, ctx: Ctx) {
    use crate::platform::discord::gateway::{self, GatewayError};
    let settings = gateway::Settings {
        bot_token: env(&c.bot_token_env),
        api_base: c
            .api_base
            .clone()
            .unwrap_or_else(|| crate::platform::discord::API_BASE.to_string()),
        application_id: c
            .application_id_env
            .as_deref()
            .map(env)
            .filter(|a| !a.trim().is_empty()),
    };
    let mut backoff = std::time::Duration::from_secs(1);
    loop {
        let stop = ctx.clone();
        let run = gateway::run(
            &settings,
            ctx.inbox.clone(),
            ctx.links.clone(),
            async move { stop.stopped().await },
        );
        let why = match run.await {
            Ok(()) => return,
            Err(GatewayError::Fatal { key, problem }) => {
                let e = ConnectError {
                    platform: key.into(),
                    message: problem,
                };
                return ctx.fail(Platform::Discord, e);
            }
            Err(GatewayError::Stopped(why)) => why,
        };
        tracing::warn!(error = %why, retry_in = ?backoff, "Discord gateway unavailable");
        ctx.links
            .set(Platform::Discord, LinkState::Reconnecting { reason: why });
        tokio::select! {
            () = tokio::time::sleep(backoff) => {}
            () = ctx.stopped() => return,
        }
        backoff = (backoff * 2).min(std::time::Duration::from_secs(60));
    }
}

async fn feishu(c: crate::config::FeishuCreds, ctx: Ctx) {
    use crate::platform::feishu::{DEFAULT_API_BASE, ws};
    let settings = ws::Settings {
        api_base: c.api_base.unwrap_or_else(|| DEFAULT_API_BASE.into()),
        app_id: env(&c.app_id_env),
        app_secret: env(&c.app_secret_env),
    };
    let links = ctx.links.clone();
    let stop = ctx.clone();
    let run = ws::run(
        settings,
        ctx.inbox.clone(),
        move |s| links.set(Platform::Feishu, s),
        async move { stop.stopped().await },
    );
    if let Err(e) = run.await {
        ctx.fail(
            Platform::Feishu,
            ConnectError {
                platform: e.key().into(),
                message: e.to_string(),
            },
        );
    }
}
