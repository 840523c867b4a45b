//! The gateway bot (serenity) for teams that prefer it to the HTTP endpoint: `/ask` and
//! @mentions, WITHOUT the privileged MESSAGE_CONTENT intent (Discord still sends the content of
//! messages that mention the bot and of DMs). Close code 4014 (intent not allowed) is a fatal
//! configuration error, not a reason to reconnect.

use super::interaction::{AskCommand, OPTION};
use crate::inbox::{Inbox, Submitted};
use crate::model::{Conversation, Delivery, Platform, Question};
use serenity::all::{
    CommandDataOptionValue, CommandInteraction, Context, CreateInteractionResponse,
    CreateInteractionResponseMessage, EventHandler, GatewayIntents, Interaction, Message, Ready,
    UserId,
};
use std::sync::OnceLock;

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
    /// Retrying cannot help: bad token, or an intent the portal does not allow (4014).
    #[error("Discord gateway configuration error: {0}")]
    Fatal(String),
    #[error("Discord gateway stopped: {0}")]
    Stopped(String),
}

/// Sorts serenity's error: authentication and intent errors are fatal.
pub fn classify(e: &serenity::Error) -> GatewayError {
    use serenity::gateway::GatewayError as G;
    match e {
        serenity::Error::Gateway(G::DisallowedGatewayIntents) => GatewayError::Fatal(
            "close code 4014: the bot asked for an intent not enabled in the developer portal"
                .into(),
        ),
        serenity::Error::Gateway(G::InvalidGatewayIntents) => {
            GatewayError::Fatal("close code 4013: invalid intents".into())
        }
        serenity::Error::Gateway(G::InvalidAuthentication) => {
            GatewayError::Fatal("close code 4004: the bot token was refused".into())
        }
        other => GatewayError::Stopped(other.to_string()),
    }
}

struct Handler {
    inbox: Inbox,
    me: OnceLock<UserId>,
}

#[serenity::async_trait]
impl EventHandler for Handler {
    async fn ready(&self, _ctx: Context, ready: Ready) {
        let _ = self.me.set(ready.user.id);
        tracing::info!(user = %ready.user.id, guilds = ready.guilds.len(), "Discord gateway ready");
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

/// Runs the gateway bot until `shutdown` resolves (then closes the shards) or the gateway
/// stops; a 4014 returns [`GatewayError::Fatal`] at once. Register `/ask` with
/// [`super::DiscordSender::register_commands`].
pub async fn run(
    bot_token: &str,
    inbox: Inbox,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), GatewayError> {
    let handler = Handler {
        inbox,
        me: OnceLock::new(),
    };
    let mut client = serenity::Client::builder(bot_token, intents())
        .event_handler(handler)
        .await
        .map_err(|e| classify(&e))?;
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
        assert!(matches!(classify(&e), GatewayError::Fatal(m) if m.contains("4014")));
        let e = serenity::Error::Gateway(serenity::gateway::GatewayError::HeartbeatFailed);
        assert!(matches!(classify(&e), GatewayError::Stopped(_)));
    }
}
