//! Registering `/ask` outside a running bot (`codemap bot register-commands`): the same bulk
//! overwrite the gateway does at READY.

use super::DiscordSender;
use crate::platform::DeliveryError;

/// Registers `/ask` for `application_id`, or for the bot's own application
/// (`GET /oauth2/applications/@me`) when none is given; returns the application id.
pub fn register_ask(
    api_base: &str,
    bot_token: &str,
    application_id: Option<&str>,
) -> Result<String, DeliveryError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| DeliveryError::Transport(e.to_string()))?;
    rt.block_on(async {
        let sender = DiscordSender::new(api_base, Some(bot_token.to_string()))
            .map_err(|e| DeliveryError::Refused(e.problem))?;
        let app = match application_id {
            Some(a) => a.to_string(),
            None => sender.application_id().await?,
        };
        sender.register_commands(&app).await?;
        Ok(app)
    })
}
