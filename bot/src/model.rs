//! The platform-free vocabulary of the bot: a question as it arrived from any chat, and the reply
//! the answer core composes for it. Platform adapters turn payloads into [`Question`]s and
//! [`Reply`]s into payloads; nothing between knows which chat it serves.

use serde::{Deserialize, Serialize};

/// A chat platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    Slack,
    Discord,
    Feishu,
}

impl Platform {
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Slack => "slack",
            Platform::Discord => "discord",
            Platform::Feishu => "feishu",
        }
    }
}

/// Where a question was asked: what scopes, follow-ups and replies key on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Conversation {
    pub platform: Platform,
    /// Slack team id, Discord guild id (empty in DMs), Feishu tenant key.
    pub workspace: String,
    /// Slack channel id, Discord channel id, Feishu chat id.
    pub channel: String,
    /// The thread the reply goes into: Slack `thread_ts` (or the message's own `ts`), Feishu
    /// root message id, Discord message or interaction id. `None` replies at the channel level.
    pub thread: Option<String>,
    /// Who asked (platform user id); rate limits key on it.
    pub user: String,
    /// A direct message with the bot (scopes have a separate `dm` entry).
    pub direct: bool,
}

/// How a reply must be delivered, as the platform requires it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Delivery {
    /// Post a new message in `conversation` (Slack `chat.postMessage`, Feishu reply/create,
    /// Discord create message).
    Post,
    /// Slack slash command: post to its `response_url`.
    SlackResponseUrl(String),
    /// Discord interaction: edit the deferred original response / follow up with this token.
    DiscordInteraction {
        application_id: String,
        token: String,
    },
    /// Feishu: reply to this message id.
    FeishuReply(String),
}

/// A question from any chat, after the platform's checks (signature, dedupe) passed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    pub conversation: Conversation,
    /// The text with the bot's own mention removed.
    pub text: String,
    /// The platform's event id (dedupe key together with platform and workspace).
    pub event_id: String,
    pub delivery: Delivery,
}

/// A link the bot built to the code host (or a plain label when the repository has no link
/// template). Platforms render only these as links; no other URL appears in a reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeLink {
    /// `path:12-30`
    pub label: String,
    pub url: Option<String>,
    /// `Class.method`, when known.
    pub symbol: Option<String>,
}

/// A step of a call chain in a reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChainLine {
    pub depth: usize,
    pub symbol: String,
    pub link: CodeLink,
}

/// How a failure is told to the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// The user can fix the request (empty question, unknown command, bad repository syntax).
    User,
    /// Nothing in scope matched (also: a repository outside the channel's scope).
    NotFound,
    /// The index or a service is down or busy; try later.
    Unavailable,
    /// A bug; the reference id is in the logs.
    Internal,
}

/// What the bot says back, before any platform formatting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Reply {
    Answer(AnswerReply),
    Help(HelpReply),
    Error {
        class: ErrorClass,
        message: String,
        /// Set for internal errors: the id under which the detail was logged.
        reference: Option<String>,
    },
}

/// An answer, platform-free. All text is plain (no markup) and already neutralised: no mass
/// mentions, no user links.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnswerReply {
    pub repo: String,
    /// The short answer.
    pub summary: String,
    pub chain: Vec<ChainLine>,
    /// At most the configured number, best first.
    pub citations: Vec<CodeLink>,
    pub notes: Vec<String>,
    /// "indexed at 1a2b3c4 (3 h ago); HEAD unchanged"
    pub freshness: String,
}

/// What the bot can do, for `help` and for questions it does not understand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HelpReply {
    /// Repositories this conversation may ask about.
    pub repos: Vec<String>,
    pub examples: Vec<String>,
}
