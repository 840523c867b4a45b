//! Feishu/Lark callback security: AES-256-CBC with key = SHA-256(Encrypt Key) over
//! base64(IV ‖ ciphertext), PKCS#7; and `X-Lark-Signature` =
//! hex(SHA-256(timestamp + nonce + encrypt_key + raw body)), compared in constant time.

use aes::cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit, block_padding::Pkcs7};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CryptoError {
    #[error("encrypt field is not base64")]
    Base64,
    #[error("ciphertext has a bad length")]
    Length,
    #[error("decryption failed (wrong Encrypt Key?)")]
    Padding,
}

fn key(encrypt_key: &str) -> [u8; 32] {
    Sha256::digest(encrypt_key.as_bytes()).into()
}

/// The plaintext of an `{"encrypt": "…"}` body.
pub fn decrypt(encrypt_key: &str, encrypted: &str) -> Result<Vec<u8>, CryptoError> {
    let raw = STANDARD
        .decode(encrypted.trim())
        .map_err(|_| CryptoError::Base64)?;
    if raw.len() < 32 || raw.len() % 16 != 0 {
        return Err(CryptoError::Length);
    }
    let (iv, ct) = raw.split_at(16);
    cbc::Decryptor::<aes::Aes256>::new(&key(encrypt_key).into(), iv.into())
        .decrypt_padded_vec_mut::<Pkcs7>(ct)
        .map_err(|_| CryptoError::Padding)
}

/// What Feishu sends (used by tests and the loopback tools).
pub fn encrypt(encrypt_key: &str, iv: [u8; 16], plaintext: &[u8]) -> String {
    let ct = cbc::Encryptor::<aes::Aes256>::new(&key(encrypt_key).into(), &iv.into())
        .encrypt_padded_vec_mut::<Pkcs7>(plaintext);
    STANDARD.encode([iv.as_slice(), &ct].concat())
}

pub fn signature(timestamp: &str, nonce: &str, encrypt_key: &str, body: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(timestamp.as_bytes());
    h.update(nonce.as_bytes());
    h.update(encrypt_key.as_bytes());
    h.update(body);
    hex::encode(h.finalize())
}

pub fn signature_ok(
    timestamp: &str,
    nonce: &str,
    encrypt_key: &str,
    body: &[u8],
    given: &str,
) -> bool {
    let expected = signature(timestamp, nonce, encrypt_key, body);
    expected
        .as_bytes()
        .ct_eq(given.trim().to_ascii_lowercase().as_bytes())
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feishus_documented_example_decrypts() {
        // From Feishu's "Encrypt Key" guide: key "test key", plaintext "hello world".
        let got = decrypt("test key", "P37w+VZImNgPEO1RBhJ6RtKl7n6zymIbEG1pReEzghk=").unwrap();
        assert_eq!(got, b"hello world");
    }

    #[test]
    fn round_trip_wrong_key_and_garbage() {
        let enc = encrypt("k1", [9; 16], br#"{"a":1}"#);
        assert_eq!(decrypt("k1", &enc).unwrap(), br#"{"a":1}"#);
        assert!(decrypt("k2", &enc).is_err() || decrypt("k2", &enc).unwrap() != br#"{"a":1}"#);
        assert_eq!(decrypt("k1", "***"), Err(CryptoError::Base64));
        assert_eq!(decrypt("k1", "AAAA"), Err(CryptoError::Length));
    }

    #[test]
    fn signature_matches_only_its_body() {
        let s = signature("1700000000", "n1", "k1", b"{}");
        assert!(signature_ok("1700000000", "n1", "k1", b"{}", &s));
        assert!(!signature_ok("1700000000", "n1", "k1", b"{ }", &s));
        assert!(!signature_ok("1700000001", "n1", "k1", b"{}", &s));
        assert!(!signature_ok("1700000000", "n1", "k1", b"{}", "short"));
    }
}
