//! Discord's interaction signature: Ed25519 over `X-Signature-Timestamp` + raw body with the
//! application's public key, inside the same five-minute window as the other platforms.

use ed25519_dalek::{Signature, VerifyingKey};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("missing {0} header")]
    Missing(&'static str),
    #[error("timestamp outside the five-minute replay window")]
    Stale,
    #[error("signature does not verify")]
    Mismatch,
}

/// The application's public key as the developer portal shows it (64 hex digits).
pub fn public_key(hex_key: &str) -> Result<VerifyingKey, crate::platform::ConfigError> {
    let err = |problem: String| crate::platform::ConfigError {
        key: "discord.public_key",
        problem,
    };
    let bytes: [u8; 32] = hex::decode(hex_key.trim())
        .map_err(|e| err(format!("not hex: {e}")))?
        .try_into()
        .map_err(|_| err("must be 32 bytes (64 hex digits)".into()))?;
    VerifyingKey::from_bytes(&bytes).map_err(|e| err(e.to_string()))
}

pub fn verify(
    key: &VerifyingKey,
    signature: Option<&str>,
    timestamp: Option<&str>,
    body: &[u8],
    now: i64,
) -> Result<(), SignatureError> {
    let signature = signature.ok_or(SignatureError::Missing("X-Signature-Ed25519"))?;
    let timestamp = timestamp.ok_or(SignatureError::Missing("X-Signature-Timestamp"))?;
    if !crate::platform::fresh(timestamp, now) {
        return Err(SignatureError::Stale);
    }
    let sig: [u8; 64] = hex::decode(signature)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or(SignatureError::Mismatch)?;
    let mut message = Vec::with_capacity(timestamp.len() + body.len());
    message.extend_from_slice(timestamp.as_bytes());
    message.extend_from_slice(body);
    key.verify_strict(&message, &Signature::from_bytes(&sig))
        .map_err(|_| SignatureError::Mismatch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signer, SigningKey};

    #[test]
    fn signed_verifies_and_tampered_stale_or_foreign_does_not() {
        let sk = SigningKey::from_bytes(&[7; 32]);
        let key = public_key(&hex::encode(sk.verifying_key().to_bytes())).unwrap();
        let body = br#"{"type":1}"#;
        let ts = "1700000000";
        let sig = hex::encode(sk.sign(&[ts.as_bytes(), body].concat()).to_bytes());
        assert_eq!(verify(&key, Some(&sig), Some(ts), body, 1700000000), Ok(()));
        assert_eq!(
            verify(&key, Some(&sig), Some(ts), br#"{"type":2}"#, 1700000000),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(&key, Some(&sig), Some("1700000001"), body, 1700000000),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(&key, Some(&sig), Some(ts), body, 1700000000 + 360),
            Err(SignatureError::Stale)
        );
        assert_eq!(
            verify(&key, Some("zz"), Some(ts), body, 1700000000),
            Err(SignatureError::Mismatch)
        );
        assert!(matches!(
            verify(&key, None, Some(ts), body, 1700000000),
            Err(SignatureError::Missing(_))
        ));
        let other = SigningKey::from_bytes(&[8; 32]).verifying_key();
        assert_eq!(
            verify(&other, Some(&sig), Some(ts), body, 1700000000),
            Err(SignatureError::Mismatch)
        );
    }

    #[test]
    fn bad_public_keys_name_the_setting() {
        assert!(
            public_key("abc")
                .unwrap_err()
                .to_string()
                .starts_with("discord.public_key")
        );
        assert!(public_key(&"00".repeat(31)).is_err());
    }
}
