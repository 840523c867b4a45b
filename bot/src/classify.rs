//! Failures as a chat user sees them: one of four classes, with internal detail logged once under
//! a reference id and never shown.

use crate::intent::Refusal;
use crate::model::{ErrorClass, Reply};
use query::ServiceError;
use std::sync::atomic::{AtomicU64, Ordering};

pub fn user(message: impl Into<String>) -> Reply {
    Reply::Error {
        class: ErrorClass::User,
        message: message.into(),
        reference: None,
    }
}

pub fn not_found(message: impl Into<String>) -> Reply {
    Reply::Error {
        class: ErrorClass::NotFound,
        message: message.into(),
        reference: None,
    }
}

/// The reply to a message that is not a question.
pub fn refusal(r: &Refusal) -> Reply {
    match r {
        Refusal::Empty => user(
            "Ask me a question about the code, e.g. \"who calls deductStock?\", or say `help`.",
        ),
        Refusal::TooLong(n) => user(format!(
            "That message is {n} characters long; paste at most {} (a stack trace or a diff fits).",
            crate::intent::MAX_QUESTION
        )),
        Refusal::BadSelector(s) => user(format!(
            "\"{}\" is not a repository selector; write repo:NAME with a name from `help`.",
            crate::neutralise::neutralise(s)
        )),
    }
}

/// A repository that is missing and one outside the conversation's scope read the same.
pub fn no_such_repo(name: &str) -> Reply {
    not_found(format!(
        "No repository named \"{}\" is available here. Say `help` to see the ones you can ask about.",
        crate::neutralise::neutralise(name)
    ))
}

/// A service failure for the user; unavailable and internal details go to the log only.
pub fn service(e: &ServiceError, repo: &str) -> Reply {
    match e {
        ServiceError::NotFound(_) => no_such_repo(repo),
        ServiceError::Unavailable { reason, .. } => {
            tracing::warn!(repo, %reason, "repository unavailable");
            Reply::Error {
                class: ErrorClass::Unavailable,
                message: format!(
                    "The index of {repo} cannot be read right now; try again in a few minutes."
                ),
                reference: None,
            }
        }
        ServiceError::Query(_) | ServiceError::Internal(_) => internal(&e.to_string(), repo),
    }
}

/// No repository of a conversation that sees several could be read; why goes to the log only.
pub fn unavailable_all(failed: &[(String, String)]) -> Reply {
    for (repo, reason) in failed {
        tracing::warn!(%repo, %reason, "repository unavailable");
    }
    let names: Vec<&str> = failed.iter().map(|(r, _)| r.as_str()).collect();
    Reply::Error {
        class: ErrorClass::Unavailable,
        message: format!(
            "None of the indexes here ({}) can be read right now; try again in a few minutes.",
            names.join(", ")
        ),
        reference: None,
    }
}

/// Logs `detail` once under a new reference id and returns the reply that shows only the id.
pub fn internal(detail: &str, repo: &str) -> Reply {
    let reference = reference_id();
    tracing::error!(reference = %reference, repo, detail, "internal error answering a question");
    Reply::Error {
        class: ErrorClass::Internal,
        message: "Something went wrong on my side while answering; the team can look it up by the reference.".into(),
        reference: Some(reference),
    }
}

/// A short id unique within a process run and unlikely to repeat across runs.
pub fn reference_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    // splitmix64 of time and counter: ids look random and do not reveal the request count.
    let mut z = nanos ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(std::process::id());
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    format!("cm-{:010x}", z & 0xFF_FFFF_FFFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_service_error_has_its_class() {
        let class = |r: Reply| match r {
            Reply::Error {
                class, reference, ..
            } => (class, reference.is_some()),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            class(service(&ServiceError::NotFound("x".into()), "x")),
            (ErrorClass::NotFound, false)
        );
        assert_eq!(
            class(service(
                &ServiceError::Unavailable {
                    repo: "x".into(),
                    reason: "no index in /secret/path".into()
                },
                "x"
            )),
            (ErrorClass::Unavailable, false)
        );
        assert_eq!(
            class(service(&ServiceError::Internal("boom".into()), "x")),
            (ErrorClass::Internal, true)
        );
    }

    #[test]
    fn details_stay_in_the_log() {
        let r = service(
            &ServiceError::Unavailable {
                repo: "x".into(),
                reason: "no index in /secret/path".into(),
            },
            "x",
        );
        assert!(!format!("{r:?}").contains("/secret/path"));
        let r = internal("panicked at src/x.rs:12 token=abc", "x");
        assert!(!format!("{r:?}").contains("token=abc"));
    }

    #[test]
    fn reference_ids_differ() {
        let a = reference_id();
        let b = reference_id();
        assert_ne!(a, b);
        assert!(a.starts_with("cm-") && a.len() == 13, "{a}");
    }
}
