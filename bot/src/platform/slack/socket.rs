//! Socket Mode (slack-morphism's `SlackClientSocketModeListener`) for teams without a public URL:
//! the same push events and slash commands, converted by the same parser as the HTTP endpoint,
//! so both paths produce identical [`Question`]s. Envelopes are acknowledged by slack-morphism
//! once the callback returns, which is right after [`Inbox::submit`].

use super::inbound::{self, Inbound, ParseError};
use crate::inbox::{Inbox, Submitted};
use crate::model::Question;
use slack_morphism::prelude::*;
use std::sync::Arc;

/// Why Socket Mode could not start.
#[derive(Debug, thiserror::Error)]
pub enum SocketError {
    #[error("building the Slack client failed: {0}")]
    Client(String),
    #[error(
        "opening the Socket Mode connection failed (is slack.app_token an xapp- token with connections:write?): {0}"
    )]
    Connect(String),
}

/// A push event as Socket Mode hands it over → what the HTTP endpoint would have made of it.
pub fn from_push_event(
    ev: &SlackPushEventCallback,
    bot_user: Option<&str>,
) -> Result<Inbound, ParseError> {
    let mut v = serde_json::to_value(ev).map_err(|e| ParseError::Json(e.to_string()))?;
    v["type"] = serde_json::json!("event_callback");
    inbound::event_callback(&v, bot_user)
}

/// A slash command delivered over the socket → the same question as over HTTP.
pub fn from_command(ev: &SlackCommandEvent) -> Result<Inbound, ParseError> {
    let v = serde_json::to_value(ev).map_err(|e| ParseError::Json(e.to_string()))?;
    let fields = v
        .as_object()
        .map(|o| {
            o.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect()
        })
        .unwrap_or_default();
    inbound::command(&fields)
}

struct SocketState {
    inbox: Inbox,
    bot_user: Option<String>,
}

/// Connects with the app-level token (`xapp-…`), feeds questions to `inbox` until `shutdown`
/// resolves, then closes the sockets. `api_url` overrides `https://slack.com/api` (tests).
pub async fn listen(
    app_token: String,
    bot_user: Option<String>,
    inbox: Inbox,
    api_url: Option<String>,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), SocketError> {
    let connector = match api_url.as_deref() {
        // A plain-http API is only ever a loopback stand-in; Slack itself is https-only.
        Some(url) if url.starts_with("http://") => {
            let https_or_http = hyper_rustls::HttpsConnectorBuilder::new()
                .with_native_roots()
                .map_err(|e| SocketError::Client(e.to_string()))?
                .https_or_http()
                .enable_http1()
                .build();
            SlackClientHyperConnector::with_connector(https_or_http).with_slack_api_url(url)
        }
        Some(url) => SlackClientHyperConnector::new()
            .map_err(|e| SocketError::Client(e.to_string()))?
            .with_slack_api_url(url),
        None => SlackClientHyperConnector::new().map_err(|e| SocketError::Client(e.to_string()))?,
    };
    let client = Arc::new(SlackClient::new(connector));
    let env = Arc::new(
        SlackClientEventsListenerEnvironment::new(client)
            .with_user_state(SocketState { inbox, bot_user }),
    );
    let callbacks = SlackSocketModeListenerCallbacks::new()
        .with_push_events(on_push)
        .with_command_events(on_command);
    let listener =
        SlackClientSocketModeListener::new(&SlackClientSocketModeConfig::new(), env, callbacks);
    listener
        .listen_for(&SlackApiToken::new(app_token.into()))
        .await
        .map_err(|e| SocketError::Connect(e.to_string()))?;
    listener.start().await;
    shutdown.await;
    listener.shutdown().await;
    Ok(())
}

async fn submit(state: &SlackClientEventsUserState, q: Question) -> UserCallbackResult<()> {
    let guard = state.read().await;
    let Some(s) = guard.get_user_state::<SocketState>() else {
        return Err("socket state missing".into());
    };
    match s.inbox.submit(q) {
        Submitted::Accepted | Submitted::Duplicate => Ok(()),
        // Not acknowledging lets Slack deliver it again.
        Submitted::Refused => Err("inbox is full; Slack will redeliver".into()),
    }
}

async fn on_push(
    ev: SlackPushEventCallback,
    _client: Arc<SlackHyperClient>,
    state: SlackClientEventsUserState,
) -> UserCallbackResult<()> {
    let bot_user = {
        let guard = state.read().await;
        guard
            .get_user_state::<SocketState>()
            .and_then(|s| s.bot_user.clone())
    };
    match from_push_event(&ev, bot_user.as_deref()) {
        Ok(Inbound::Question(q)) => submit(&state, q).await,
        Ok(_) => Ok(()),
        Err(e) => {
            tracing::warn!(error = %e, "unusable Socket Mode event dropped");
            Ok(())
        }
    }
}

async fn on_command(
    ev: SlackCommandEvent,
    _client: Arc<SlackHyperClient>,
    state: SlackClientEventsUserState,
) -> UserCallbackResult<SlackCommandEventResponse> {
    let text = match from_command(&ev) {
        Ok(Inbound::Question(q)) => match submit(&state, q).await {
            Ok(()) => super::WORKING,
            Err(_) => super::BUSY,
        },
        _ => "I could not read that command.",
    };
    Ok(
        SlackCommandEventResponse::new(SlackMessageContent::new().with_text(text.into()))
            .with_response_type(SlackMessageResponseType::Ephemeral),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Delivery;
    use serde_json::json;

    #[test]
    fn socket_push_event_equals_the_http_question() {
        let envelope = json!({
            "token": "legacy", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
            "event_id": "Ev42", "event_time": 1700000000,
            "authorizations": [{"enterprise_id": null, "team_id": "T1", "user_id": "UBOT", "is_bot": true, "is_enterprise_install": false}],
            "event": {"type": "app_mention", "user": "U2", "text": "<@UBOT> who calls deductStock?",
                      "ts": "1700000000.000100", "channel": "C1", "event_ts": "1700000000.000100"}
        });
        let http = inbound::parse_event(&serde_json::to_vec(&envelope).unwrap(), None).unwrap();
        let SlackPushEvent::EventCallback(cb) =
            serde_json::from_value::<SlackPushEvent>(envelope).unwrap()
        else {
            panic!("slack-morphism did not read an event_callback")
        };
        let socket = from_push_event(&cb, None).unwrap();
        assert_eq!(socket, http);
        let Inbound::Question(q) = socket else {
            panic!()
        };
        assert_eq!(q.text, "who calls deductStock?");
        assert_eq!(q.event_id, "Ev42");
    }

    #[test]
    fn socket_direct_message_and_bot_echo() {
        let dm = |user: &str, bot: Option<&str>| {
            let mut event = json!({"type": "message", "channel_type": "im", "user": user, "text": "where is Order?",
                                   "ts": "1700000000.000300", "channel": "D1"});
            if let Some(b) = bot {
                event["bot_id"] = json!(b);
            }
            let v = json!({"team_id": "T1", "api_app_id": "A1", "type": "event_callback", "event_id": "Ev7",
                           "event_time": 1700000000, "event": event});
            let SlackPushEvent::EventCallback(cb) =
                serde_json::from_value::<SlackPushEvent>(v).unwrap()
            else {
                panic!()
            };
            from_push_event(&cb, Some("UBOT")).unwrap()
        };
        let Inbound::Question(q) = dm("U2", None) else {
            panic!("DM dropped")
        };
        assert!(q.conversation.direct);
        assert!(matches!(dm("UBOT", None), Inbound::Ignored(_)));
        assert!(matches!(dm("U3", Some("B1")), Inbound::Ignored(_)));
    }

    #[test]
    fn socket_slash_command_answers_via_its_response_url() {
        let ev: SlackCommandEvent = serde_json::from_value(json!({
            "team_id": "T1", "channel_id": "C1", "channel_name": "dev", "user_id": "U2", "command": "/codemap",
            "text": "who calls deductStock?", "response_url": "https://hooks.slack.com/commands/T1/1/abc",
            "trigger_id": "tr1"
        }))
        .unwrap();
        let Inbound::Question(q) = from_command(&ev).unwrap() else {
            panic!()
        };
        assert_eq!(q.text, "who calls deductStock?");
        assert_eq!(q.event_id, "tr1");
        assert_eq!(
            q.delivery,
            Delivery::SlackResponseUrl("https://hooks.slack.com/commands/T1/1/abc".into())
        );
    }
}
