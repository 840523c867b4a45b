//! The gateway bot (serenity) for teams that prefer it to the HTTP endpoint: `/ask` and
//! @mentions, WITHOUT the privileged MESSAGE_CONTENT intent (Discord still sends the content of
//! messages that mention the bot and of DMs). serenity is pointed at the configured Web API
//! base, so a loopback stand-in can play Discord. Close codes 4004 (token refused) and 4014
//! (intent not allowed) are fatal configuration errors, not reasons to reconnect.

use super::DiscordSender;
use super::interaction::{AskCommand, OPTION};
use crate::connect::{LinkState, Links};
use crate::inbox::{Inbox, Submitted};
use crate::model::{Conversation, Delivery, Platform, Question};
use serenity::all::{
    ClientBuilder, CommandDataOptionValue, CommandInteraction, ConnectionStage, Context,
    CreateInteractionResponse, CreateInteractionResponseMessage, EventHandler, GatewayIntents,
    Http, HttpBuilder, Interaction, Message, Ready, ResumedEvent, ShardStageUpdateEvent, UserId,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// Guild messages and DMs; deliberately not MESSAGE_CONTENT.
pub fn intents() -> GatewayIntents {
    GatewayIntents::GUILD_MESSAGES | GatewayIntents::DIRECT_MESSAGES
}

/// A message the bot should answer (a DM, or a mention of `bot`), as a question.
pub fn question_from_message(msg: &Message, bot: UserId) -> Option<Question> {
    if msg.author.bot || msg.author.id == bot {
        return None;
    }
    let direct = msg.guild_id.is_none();
    if !direct && !msg.mentions_user_id(bot) {
        return None;
    }
    let text = msg
        .content
        .replace(&format!("<@{bot}>"), "")
        .replace(&format!("<@!{bot}>"), "")
        .trim()
        .to_string();
    Some(Question {
        conversation: Conversation {
            platform: Platform::Discord,
            workspace: msg.guild_id.map(|g| g.to_string()).unwrap_or_default(),
            channel: msg.channel_id.to_string(),
            thread: Some(msg.id.to_string()),
            user: msg.author.id.to_string(),
            direct,
        },
        text,
        event_id: msg.id.to_string(),
        delivery: Delivery::Post,
    })
}

/// An `/ask` command from the gateway: the same question as over HTTP.
pub fn question_from_command(cmd: &CommandInteraction) -> Option<Question> {
    if cmd.data.name != super::interaction::COMMAND {
        return None;
    }
    let question = cmd
        .data
        .options
        .iter()
        .find(|o| o.name == OPTION)
        .and_then(|o| match &o.value {
            CommandDataOptionValue::String(s) => Some(s.as_str()),
            _ => None,
        })
        .unwrap_or_default();
    let (id, app, guild, channel, user) = (
        cmd.id.to_string(),
        cmd.application_id.to_string(),
        cmd.guild_id.map(|g| g.to_string()),
        cmd.channel_id.to_string(),
        cmd.user.id.to_string(),
    );
    Some(
        AskCommand {
            interaction_id: &id,
            application_id: &app,
            token: &cmd.token,
            guild_id: guild.as_deref(),
            channel_id: &channel,
            user_id: &user,
            question,
        }
        .question(),
    )
}

/// How a gateway run ended.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// Retrying cannot help: a refused token, an intent the portal does not allow (4014), an
    /// API base serenity cannot use. `key` is the config key to fix.
    #[error("{key}: {problem}")]
    Fatal { key: &'static str, problem: String },
    /// Worth another try later (the Web API was unreachable).
    #[error("Discord gateway stopped: {0}")]
    Stopped(String),
}

const TOKEN_KEY: &str = "platforms.discord.bot_token_env";
const API_KEY: &str = "platforms.discord.api_base";
const INTENTS_KEY: &str = "platforms.discord.connection";

fn fatal(key: &'static str, problem: impl Into<String>) -> GatewayError {
    GatewayError::Fatal {
        key,
        problem: problem.into(),
    }
}

/// Sorts serenity's error: authentication and intent errors are fatal.
pub fn classify(e: &serenity::Error) -> GatewayError {
    use serenity::gateway::GatewayError as G;
    match e {
        serenity::Error::Gateway(G::DisallowedGatewayIntents) => fatal(
            INTENTS_KEY,
            "close code 4014: the gateway refused the intents GUILD_MESSAGES | DIRECT_MESSAGES; \
             enable them for the bot in the developer portal",
        ),
        serenity::Error::Gateway(G::InvalidGatewayIntents) => {
            fatal(INTENTS_KEY, "close code 4013: invalid gateway intents")
        }
        serenity::Error::Gateway(G::InvalidAuthentication) => fatal(
            TOKEN_KEY,
            "close code 4004: the gateway refused the bot token",
        ),
        serenity::Error::Http(h) if h.status_code().map(|s| s.as_u16()) == Some(401) => fatal(
            TOKEN_KEY,
            "HTTP 401 from the Web API: the bot token was refused",
        ),
        other => GatewayError::Stopped(other.to_string()),
    }
}

/// serenity builds every URL on `https://discord.com/api/v10` and replaces its origin with a
/// "proxy": the configured base minus `/api/v10` is that origin.
pub fn proxy_of(api_base: &str) -> Result<String, GatewayError> {
    let base = api_base.trim_end_matches('/');
    base.strip_suffix("/api/v10")
        .filter(|o| o.starts_with("http://") || o.starts_with("https://"))
        .map(str::to_string)
        .ok_or_else(|| {
            fatal(
                API_KEY,
                format!("{api_base:?} must be an http(s) URL ending in /api/v10 for the gateway"),
            )
        })
}

/// serenity's Web API client for `api_base`. Its rate limiter sends to discord.com whatever the
/// proxy, so another base runs without it (the proxy then limits; replies go through
/// [`DiscordSender`], which keeps its own buckets).
fn http_client(token: &str, api_base: &str) -> Result<Http, GatewayError> {
    let origin = proxy_of(api_base)?;
    let builder = HttpBuilder::new(token);
    Ok(if origin == "https://discord.com" {
        builder.build()
    } else {
        builder.proxy(origin).ratelimiter_disabled(true).build()
    })
}

/// Where and as whom the gateway connects.
#[derive(Clone)]
pub struct Settings {
    pub bot_token: String,
    /// The Web API base (`https://discord.com/api/v10`); the WebSocket URL comes from its
    /// `GET /gateway/bot`.
    pub api_base: String,
    /// The application whose `/ask` is registered; READY's when not configured.
    pub application_id: Option<String>,
}

struct Handler {
    inbox: Inbox,
    links: Links,
    sender: Arc<DiscordSender>,
    application_id: Option<String>,
    me: OnceLock<UserId>,
    registered: AtomicBool,
    /// serenity's gateway URL, pointed at READY's `resume_gateway_url` as Discord asks.
    ws_url: OnceLock<Arc<tokio::sync::Mutex<String>>>,
}

impl Handler {
    /// `/ask` once per run; a failure is logged (the HTTP endpoint or a later start may do it).
    fn register_once(&self, ready_app: String) {
        if self.registered.swap(true, Ordering::SeqCst) {
            return;
        }
        let app = self.application_id.clone().unwrap_or(ready_app);
        let sender = self.sender.clone();
        tokio::spawn(async move {
            match sender.register_commands(&app).await {
                Ok(()) => {
                    tracing::info!(application = %app, commands = "/ask", "Discord commands registered")
                }
                Err(e) => tracing::warn!(application = %app, error = %e, "could not register /ask"),
            }
        });
    }
}

#[serenity::async_trait]
impl EventHandler for Handler {
    async fn ready(&self, _ctx: Context, ready: Ready) {
        let _ = self.me.set(ready.user.id);
        if let Some(url) = self.ws_url.get() {
            *url.lock().await = ready.resume_gateway_url.clone();
        }
        self.links.set(Platform::Discord, LinkState::Connected);
        tracing::info!(user = %ready.user.id, guilds = ready.guilds.len(), session = %ready.session_id, "Discord gateway ready");
        self.register_once(ready.application.id.to_string());
    }

    async fn resume(&self, _ctx: Context, _: ResumedEvent) {
        self.links.set(Platform::Discord, LinkState::Connected);
        tracing::info!("Discord gateway session resumed");
    }

    async fn shard_stage_update(&self, _ctx: Context, e: ShardStageUpdateEvent) {
        // Before the first READY the state stays "connecting".
        if e.new != ConnectionStage::Connected && self.me.get().is_some() {
            tracing::info!(from = %e.old, to = %e.new, "Discord gateway reconnecting");
            self.links.set(
                Platform::Discord,
                LinkState::Reconnecting {
                    reason: format!("gateway {}", e.new),
                },
            );
        }
    }

    async fn message(&self, _ctx: Context, msg: Message) {
        let Some(me) = self.me.get() else { return };
        if let Some(q) = question_from_message(&msg, *me)
            && self.inbox.submit(q) == Submitted::Refused
        {
            tracing::warn!(message = %msg.id, "inbox refused a Discord mention");
        }
    }

    async fn interaction_create(&self, ctx: Context, interaction: Interaction) {
        let Interaction::Command(cmd) = interaction else {
            return;
        };
        let response = match question_from_command(&cmd).map(|q| self.inbox.submit(q)) {
            Some(Submitted::Accepted | Submitted::Duplicate) => {
                CreateInteractionResponse::Defer(CreateInteractionResponseMessage::new())
            }
            Some(Submitted::Refused) => {
                ephemeral("The bot is busy right now; please try again in a minute.")
            }
            None => ephemeral("I only know /ask."),
        };
        if let Err(e) = cmd.create_response(&ctx.http, response).await {
            tracing::warn!(error = %e, "could not answer a Discord interaction");
        }
    }
}

fn ephemeral(text: &str) -> CreateInteractionResponse {
    CreateInteractionResponse::Message(
        CreateInteractionResponseMessage::new()
            .content(text)
            .ephemeral(true),
    )
}

/// The WebSocket URL from `GET /gateway/bot`, which also proves the token.
async fn gateway_url(http: &Http) -> Result<String, GatewayError> {
    let g = http.get_bot_gateway().await.map_err(|e| classify(&e))?;
    tracing::info!(url = %g.url, shards = g.shards, sessions_left = g.session_start_limit.remaining, "Discord gateway URL");
    Ok(g.url)
}

/// Runs the gateway bot until `shutdown` resolves (then closes the shards) or the gateway
/// stops; serenity resumes after op 7 RECONNECT and dropped sockets by itself. A refused token
/// or intent returns [`GatewayError::Fatal`] at once. Registers `/ask` at the first READY and
/// reports the connection's state to `links`.
pub async fn run(
    settings: &Settings,
    inbox: Inbox,
    links: Links,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), GatewayError> {
    let http = http_client(&settings.bot_token, &settings.api_base)?;
    let url = gateway_url(&http).await?;
    let sender = DiscordSender::new(&settings.api_base, Some(settings.bot_token.clone()))
        .map_err(|e| GatewayError::Stopped(e.problem))?;
    let handler = Arc::new(Handler {
        inbox,
        links,
        sender: Arc::new(sender),
        application_id: settings.application_id.clone(),
        me: OnceLock::new(),
        registered: AtomicBool::new(false),
        ws_url: OnceLock::new(),
    });
    let mut client = ClientBuilder::new_with_http(http, intents())
        .event_handler_arc(handler.clone())
        .await
        .map_err(|e| classify(&e))?;
    *client.ws_url.lock().await = url;
    let _ = handler.ws_url.set(client.ws_url.clone());
    let shards = client.shard_manager.clone();
    tokio::select! {
        ended = client.start() => ended.map_err(|e| classify(&e)),
        () = shutdown => {
            shards.shutdown_all().await;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(content: &str, guild: bool, mention: bool, bot_author: bool) -> Message {
        let mut v = json!({
            "id": "1190000000000000001", "channel_id": "1150000000000000000",
            "author": {"id": if bot_author { "1100000000000000009" } else { "1140000000000000000" }, "username": "ann", "discriminator": "0", "avatar": null, "bot": bot_author},
            "content": content, "timestamp": "2024-01-01T00:00:00.000000+00:00", "edited_timestamp": null,
            "tts": false, "mention_everyone": false, "mention_roles": [], "attachments": [], "embeds": [],
            "pinned": false, "type": 0,
            "mentions": if mention { json!([{"id": "1100000000000000000", "username": "codemap", "discriminator": "0", "avatar": null, "bot": true}]) } else { json!([]) }
        });
        if guild {
            v["guild_id"] = json!("1160000000000000000");
        }
        serde_json::from_value(v).expect("serenity reads a gateway MESSAGE_CREATE")
    }

    const BOT: UserId = UserId::new(1100000000000000000);

    #[test]
    fn mention_becomes_a_reply_to_the_message() {
        let q = question_from_message(
            &message(
                "<@1100000000000000000> who calls deductStock?",
                true,
                true,
                false,
            ),
            BOT,
        );
        insta::assert_debug_snapshot!(q);
    }

    #[test]
    fn unmentioned_bot_and_dm_messages() {
        assert_eq!(
            question_from_message(&message("chatter", true, false, false), BOT),
            None
        );
        assert_eq!(
            question_from_message(&message("<@1100000000000000000> hi", true, true, true), BOT),
            None
        );
        let dm =
            question_from_message(&message("where is Order?", false, false, false), BOT).unwrap();
        assert!(dm.conversation.direct);
        assert_eq!(dm.text, "where is Order?");
    }

    #[test]
    fn gateway_command_equals_the_http_question() {
        let payload = super::super::interaction::tests::ask_payload("who calls deductStock?");
        let Interaction::Command(cmd) =
            serde_json::from_value::<Interaction>(payload.clone()).unwrap()
        else {
            panic!("serenity did not read an application command")
        };
        let http = super::super::interaction::from_value(&payload).unwrap();
        assert_eq!(
            http,
            super::super::interaction::Inbound::Question(question_from_command(&cmd).unwrap())
        );
    }

    #[test]
    fn intent_4014_is_fatal_and_content_intent_is_not_requested() {
        assert!(!intents().contains(GatewayIntents::MESSAGE_CONTENT));
        let e = serenity::Error::Gateway(serenity::gateway::GatewayError::DisallowedGatewayIntents);
        assert!(
            matches!(classify(&e), GatewayError::Fatal { key, problem } if key == INTENTS_KEY && problem.contains("4014"))
        );
        let e = serenity::Error::Gateway(serenity::gateway::GatewayError::InvalidAuthentication);
        assert!(
            matches!(classify(&e), GatewayError::Fatal { key, problem } if key == "platforms.discord.bot_token_env" && problem.contains("4004"))
        );
        let e = serenity::Error::Gateway(serenity::gateway::GatewayError::HeartbeatFailed);
        assert!(matches!(classify(&e), GatewayError::Stopped(_)));
    }

    #[test]
    fn the_api_base_becomes_serenitys_proxy_origin() {
        assert_eq!(
            proxy_of("https://discord.com/api/v10").unwrap(),
            "https://discord.com"
        );
        assert_eq!(
            proxy_of("http://127.0.0.1:4000/api/v10/").unwrap(),
            "http://127.0.0.1:4000"
        );
        assert_eq!(
            proxy_of("http://proxy.internal/discord/api/v10").unwrap(),
            "http://proxy.internal/discord"
        );
        for bad in ["http://127.0.0.1:4000/api/v9", "127.0.0.1/api/v10", ""] {
            assert!(
                matches!(proxy_of(bad), Err(GatewayError::Fatal { key, .. }) if key == API_KEY),
                "{bad}"
            );
        }
    }
}
