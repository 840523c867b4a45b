//! The docs bot's safety rules, as pure decisions: which pushes start a job, which commits are the
//! bot's own, and whether the docs branch may be moved. Everything that writes asks here first.

use super::config::Bot;
use super::webhook::{Push, RequestHook};
use crate::git::CommitInfo;
use crate::host::HostKind;

/// The value the bot's trailer carries (`Codemap-Bot: docgen`).
pub const TRAILER_VALUE: &str = "docgen";

/// Does a commit message carry the bot's trailer?
pub fn has_bot_trailer(message: &str, bot: &Bot) -> bool {
    let key = format!("{}:", bot.trailer.to_ascii_lowercase());
    message
        .lines()
        .any(|l| l.trim_start().to_ascii_lowercase().starts_with(&key))
}

/// A commit the bot made: its trailer and its author address. Regenerating from it would loop.
pub fn is_bot_commit(c: &CommitInfo, bot: &Bot) -> bool {
    has_bot_trailer(&c.message, bot) && c.author_email.eq_ignore_ascii_case(&bot.email)
}

/// What a verified push asks of the bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushDecision {
    Run { after: String },
    Ignore(String),
}

pub fn on_push(p: &Push, branch: &str, docs_branch: &str, bot: &Bot) -> PushDecision {
    let tracked = format!("refs/heads/{branch}");
    if p.git_ref == format!("refs/heads/{docs_branch}") {
        return PushDecision::Ignore(format!("a push to the docs branch {docs_branch}"));
    }
    if p.git_ref != tracked {
        return PushDecision::Ignore(format!("{} is not the tracked branch {branch}", p.git_ref));
    }
    if p.deleted {
        return PushDecision::Ignore(format!("{branch} was deleted"));
    }
    if p.head_message
        .as_deref()
        .is_some_and(|m| has_bot_trailer(m, bot))
    {
        return PushDecision::Ignore("the head commit is the bot's own".into());
    }
    PushDecision::Run {
        after: p.after.clone(),
    }
}

/// What a verified request webhook asks of the reviewer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestDecision {
    /// Review request `number` against `base_branch`; `head_sha` is what the hook saw.
    Run {
        number: u64,
        head_sha: String,
        base_branch: String,
        fork: bool,
    },
    /// The request was closed or merged: its review folder can go.
    Close {
        number: u64,
    },
    Ignore(String),
}

/// The request actions that bring new code to review. GitHub: opened, pushed to (`synchronize`),
/// reopened, out of draft; GitLab: `open`, `update`, `reopen` (an `update` that only edits the
/// title finds the head already reviewed and posts nothing). Closing or merging frees the
/// request's work tree and indexes.
pub fn on_request(h: &RequestHook, kind: HostKind, project: &str) -> RequestDecision {
    // A hook of another project sent to this route (a shared secret): not ours to comment on.
    let ours = h.base_project.eq_ignore_ascii_case(project)
        || h.base_project_id
            .is_some_and(|id| id.to_string() == project);
    if !ours {
        return RequestDecision::Ignore(format!(
            "the request is filed against {:?}, not {project:?}",
            h.base_project
        ));
    }
    let (wanted, closing): (&[&str], &[&str]) = match kind {
        HostKind::Github => (
            &["opened", "synchronize", "reopened", "ready_for_review"],
            &["closed"],
        ),
        HostKind::Gitlab => (&["open", "update", "reopen"], &["close", "merge"]),
    };
    if closing.contains(&h.action.as_str()) {
        return RequestDecision::Close { number: h.number };
    }
    if !wanted.contains(&h.action.as_str()) {
        return RequestDecision::Ignore(format!(
            "request action {:?} brings no new code",
            h.action
        ));
    }
    if !super::config::valid_branch(&h.base_branch) {
        return RequestDecision::Ignore(format!("{:?} is not a branch name", h.base_branch));
    }
    let hex = |s: &str| matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex(&h.head_sha) {
        return RequestDecision::Ignore(format!("{:?} is not a commit id", h.head_sha));
    }
    RequestDecision::Run {
        number: h.number,
        head_sha: h.head_sha.to_ascii_lowercase(),
        base_branch: h.base_branch.clone(),
        fork: h.fork,
    }
}

/// May the bot move the docs branch whose tip is `tip` (`None`: the branch does not exist)?
/// Only past a commit the bot made, and — when the bot remembers one — only past the very commit
/// it left there. Anything else means a human pushed to the branch: hands off.
pub fn may_move_docs_branch(
    docs_branch: &str,
    tip: Option<&CommitInfo>,
    recorded: Option<&str>,
    bot: &Bot,
) -> Result<(), String> {
    let Some(tip) = tip else {
        return Ok(());
    };
    if !is_bot_commit(tip, bot) {
        return Err(format!(
            "refusing to rewrite {docs_branch}: its tip {} is not a bot commit (author {}, no {}: trailer); \
             someone pushed to it, so the bot leaves it alone (delete the branch to hand it back)",
            short(&tip.sha),
            tip.author_email,
            bot.trailer
        ));
    }
    if let Some(r) = recorded
        && r != tip.sha
    {
        return Err(format!(
            "refusing to rewrite {docs_branch}: its tip {} is not the commit {} the bot left there; \
             it was moved by someone else (delete the branch to hand it back)",
            short(&tip.sha),
            short(r)
        ));
    }
    Ok(())
}

/// The docs commit's message: a subject with the skip-ci marker, where it came from, the trailer.
pub fn commit_message(bot: &Bot, branch: &str, commit: &str) -> String {
    format!(
        "docs(codemap): update code maps for {branch} at {} [skip ci]\n\n\
         Regenerated by codemap docgen from {commit}.\n\n\
         {}: {TRAILER_VALUE}\n",
        short(commit),
        bot.trailer
    )
}

/// The pull request's body.
pub fn pull_body(branch: &str, commit: &str) -> String {
    format!(
        "Code maps regenerated from `{branch}` at {commit}.\n\n\
         This request is kept up to date by codemap docgen: later merges update it in place. \
         Push nothing to its branch — the bot stops updating a branch a human has pushed to."
    )
}

pub fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot() -> Bot {
        Bot::default()
    }

    fn commit(sha: &str, email: &str, message: &str) -> CommitInfo {
        CommitInfo {
            sha: sha.into(),
            author_email: email.into(),
            message: message.into(),
        }
    }

    fn push(git_ref: &str, message: &str) -> Push {
        Push {
            git_ref: git_ref.into(),
            after: "abc".into(),
            deleted: false,
            head_message: Some(message.into()),
        }
    }

    #[test]
    fn the_commit_message_carries_skip_ci_and_the_trailer() {
        let m = commit_message(&bot(), "main", "0123456789abcdef0123");
        assert!(m.lines().next().unwrap().ends_with("[skip ci]"));
        assert!(m.trim_end().ends_with("Codemap-Bot: docgen"));
        assert!(has_bot_trailer(&m, &bot()));
        assert!(!has_bot_trailer("fix the bot\n\nCo-authored-by: x", &bot()));
    }

    #[test]
    fn pushes_that_start_a_job() {
        let b = bot();
        assert_eq!(
            on_push(&push("refs/heads/main", "fix"), "main", "codemap/docs", &b),
            PushDecision::Run {
                after: "abc".into()
            }
        );
        let ignored = [
            push("refs/heads/feature", "fix"),
            push("refs/heads/codemap/docs", "fix"),
            push("refs/tags/v1", "fix"),
            push("refs/heads/main", "docs\n\nCodemap-Bot: docgen"),
            Push {
                deleted: true,
                ..push("refs/heads/main", "fix")
            },
        ];
        for p in ignored {
            assert!(
                matches!(
                    on_push(&p, "main", "codemap/docs", &b),
                    PushDecision::Ignore(_)
                ),
                "{p:?}"
            );
        }
    }

    fn request(action: &str) -> RequestHook {
        RequestHook {
            number: 7,
            action: action.into(),
            head_sha: "A".repeat(40),
            base_branch: "main".into(),
            base_project: "acme/shop".into(),
            base_project_id: Some(42),
            fork: true,
        }
    }

    #[test]
    fn request_actions_that_start_a_review() {
        for a in ["opened", "synchronize", "reopened", "ready_for_review"] {
            assert_eq!(
                on_request(&request(a), HostKind::Github, "Acme/Shop"),
                RequestDecision::Run {
                    number: 7,
                    head_sha: "a".repeat(40),
                    base_branch: "main".into(),
                    fork: true,
                },
                "{a}"
            );
        }
        for a in ["open", "update", "reopen"] {
            assert!(matches!(
                on_request(&request(a), HostKind::Gitlab, "42"),
                RequestDecision::Run { .. }
            ));
        }
        for (a, kind) in [
            ("closed", HostKind::Github),
            ("close", HostKind::Gitlab),
            ("merge", HostKind::Gitlab),
        ] {
            assert_eq!(
                on_request(&request(a), kind, "acme/shop"),
                RequestDecision::Close { number: 7 }
            );
        }
        let ignored = [
            (request("labeled"), HostKind::Github, "acme/shop"),
            (request("opened"), HostKind::Gitlab, "acme/shop"),
            (request("approved"), HostKind::Gitlab, "acme/shop"),
            (request("closed"), HostKind::Github, "acme/other"),
            (request("opened"), HostKind::Github, "acme/other"),
            (
                RequestHook {
                    base_branch: "--upload-pack=x".into(),
                    ..request("opened")
                },
                HostKind::Github,
                "acme/shop",
            ),
            (
                RequestHook {
                    head_sha: "HEAD".into(),
                    ..request("opened")
                },
                HostKind::Github,
                "acme/shop",
            ),
        ];
        for (h, kind, project) in ignored {
            assert!(
                matches!(on_request(&h, kind, project), RequestDecision::Ignore(_)),
                "{h:?}"
            );
        }
    }

    #[test]
    fn the_docs_branch_moves_only_past_the_bots_own_tip() {
        let b = bot();
        let ours = commit("a1", &b.email, &commit_message(&b, "main", "f00"));
        let human = commit("h1", "dev@example.com", "tweak the generated page");
        let forged = commit("h2", "dev@example.com", "x\n\nCodemap-Bot: docgen");
        assert_eq!(may_move_docs_branch("d", None, None, &b), Ok(()));
        assert_eq!(may_move_docs_branch("d", None, Some("a0"), &b), Ok(()));
        assert_eq!(may_move_docs_branch("d", Some(&ours), None, &b), Ok(()));
        assert_eq!(
            may_move_docs_branch("d", Some(&ours), Some("a1"), &b),
            Ok(())
        );
        let e = may_move_docs_branch("d", Some(&human), Some("a1"), &b).unwrap_err();
        assert!(
            e.starts_with("refusing to rewrite d: its tip h1 is not a bot commit"),
            "{e}"
        );
        assert!(may_move_docs_branch("d", Some(&forged), None, &b).is_err());
        // A bot commit, but not the one the bot left: someone reset the branch.
        let e = may_move_docs_branch("d", Some(&ours), Some("a0"), &b).unwrap_err();
        assert!(e.contains("not the commit a0 the bot left there"), "{e}");
    }
}
