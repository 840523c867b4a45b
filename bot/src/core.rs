//! The answer core: a [`Question`] from any platform → a [`Reply`]. Reads the conversation's
//! scope from the configuration, understands the message, resolves a thread follow-up, picks the
//! repository, asks the query service and composes the reply. Blocking: run it off the async
//! threads (`spawn_blocking`).

use crate::classify;
use crate::compose::{Compose, ComposeAcross, top_symbol};
use crate::config::Config;
use crate::followup::{Remembered, ThreadMemory, resolve};
use crate::intent::{self, Intent};
use crate::links::LinkTemplate;
use crate::model::{HelpReply, Question, Reply};
use query::{Request, Scope, Service};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Examples the help reply shows.
const EXAMPLES: [&str; 6] = [
    "who calls deductStock?",
    "where is an order created?",
    "repo:NAME how does a payment reach the order?",
    "a pasted stack trace or diff",
    "谁调用了扣减库存？",
    "in a thread, after an answer: and who calls that?",
];

pub struct Core {
    config: Arc<Config>,
    service: Arc<Service>,
    memory: Mutex<ThreadMemory>,
}

impl Core {
    pub fn new(config: Arc<Config>, service: Arc<Service>) -> Core {
        let memory = ThreadMemory::new(
            config.limits.thread_memory,
            Duration::from_secs(config.limits.thread_ttl_secs),
        );
        Core {
            config,
            service,
            memory: Mutex::new(memory),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn service(&self) -> &Arc<Service> {
        &self.service
    }

    /// Answers one question. Never panics on input; every failure is a classified reply.
    pub fn answer(&self, q: &Question) -> Reply {
        let scope = self.config.scope_of(&q.conversation);
        match intent::parse(&q.text) {
            Err(r) => classify::refusal(&r),
            Ok(Intent::Help) => Reply::Help(HelpReply {
                repos: scope,
                examples: EXAMPLES.iter().map(|s| s.to_string()).collect(),
            }),
            Ok(Intent::Ask { repo, question }) => self.ask(q, &scope, repo, question),
        }
    }

    /// Asks every repository of the scope at once and replies with their merged answer.
    fn ask_across(&self, q: &Question, scope: &[String], question: String, now: Instant) -> Reply {
        let conv = &q.conversation;
        let mut req = Request::new(question);
        req.limit = req.limit.max(self.config.limits.citations);
        let started = Instant::now();
        let x = self
            .service
            .ask_across(&Scope::of(scope.iter().cloned()), scope, &req);
        let ms = started.elapsed().as_millis() as u64;
        tracing::info!(
            platform = conv.platform.as_str(),
            channel = %conv.channel,
            repos = scope.len(),
            answered = x.answered.len(),
            failed = x.failed.len(),
            citations = x.citations.len(),
            ms,
            "answered across repositories"
        );
        let link = |repo: &str| self.link(repo);
        let Some(reply) = (ComposeAcross {
            link: &link,
            citations: self.config.limits.citations,
        })
        .reply(&x) else {
            if x.failed.len() == scope.len() {
                return classify::unavailable_all(&x.failed);
            }
            for (repo, reason) in &x.failed {
                tracing::warn!(%repo, %reason, "repository left out of an answer across repositories");
            }
            let failed: Vec<&str> = x.failed.iter().map(|(r, _)| r.as_str()).collect();
            let searched: Vec<&str> = scope
                .iter()
                .map(String::as_str)
                .filter(|r| !failed.contains(r))
                .collect();
            let left_out = if failed.is_empty() {
                String::new()
            } else {
                format!(" ({} could not be searched right now)", failed.join(", "))
            };
            return classify::not_found(format!(
                "Nothing in {} answers that{left_out}. Name a class or method, or say `help`.",
                searched.join(", ")
            ));
        };
        // A follow-up in the thread talks about the best answer's repository.
        if let Some((best, answer)) = x.best()
            && let (Some(symbol), Ok(mut m)) = (top_symbol(answer), self.memory.lock())
        {
            m.remember(
                conv,
                Remembered {
                    repo: best.clone(),
                    symbol,
                },
                now,
            );
        }
        Reply::Answer(reply)
    }

    fn link(&self, repo: &str) -> LinkTemplate {
        self.config
            .repo(repo)
            .map(|r| r.link.clone())
            .unwrap_or_default()
    }

    fn ask(
        &self,
        q: &Question,
        scope: &[String],
        named: Option<String>,
        question: String,
    ) -> Reply {
        let conv = &q.conversation;
        if scope.is_empty() {
            return match named {
                Some(name) => classify::no_such_repo(&name),
                None => classify::not_found(
                    "This conversation is not mapped to any repository yet; an admin adds it to the bot's scopes.",
                ),
            };
        }
        let now = Instant::now();
        let remembered = self
            .memory
            .lock()
            .ok()
            .and_then(|mut m| m.recall(conv, now));
        let mut notes = Vec::new();
        let repo = match (&named, &remembered) {
            (Some(name), _) => name.clone(),
            // A thread keeps talking about the repository it started with.
            (None, Some(r)) if scope.contains(&r.repo) => r.repo.clone(),
            // A conversation that sees several repositories asks them all.
            (None, _) if scope.len() > 1 => return self.ask_across(q, scope, question, now),
            (None, _) => scope[0].clone(),
        };
        let question = match &remembered {
            Some(r) if r.repo == repo => match resolve(&question, &r.symbol) {
                Some(rewritten) => {
                    notes.push(format!("read as: {rewritten} (from this thread)"));
                    rewritten
                }
                None => question,
            },
            _ => question,
        };
        let mut req = Request::new(question);
        req.limit = req.limit.max(self.config.limits.citations);
        let started = Instant::now();
        let result = self
            .service
            .ask(&Scope::of(scope.iter().cloned()), &repo, &req);
        let ms = started.elapsed().as_millis() as u64;
        let answer = match result {
            Ok(a) => a,
            Err(e) => {
                tracing::info!(platform = conv.platform.as_str(), channel = %conv.channel, %repo, ms, error = %e, "question not answered");
                return classify::service(&e, &repo);
            }
        };
        tracing::info!(
            platform = conv.platform.as_str(),
            channel = %conv.channel,
            %repo,
            intent = answer.intent.as_str(),
            citations = answer.citations.len(),
            ms,
            "answered"
        );
        if answer.citations.is_empty() {
            let why = answer
                .notes
                .first()
                .map(|n| format!(" ({})", crate::neutralise::neutralise(n)))
                .unwrap_or_default();
            return classify::not_found(format!(
                "Nothing in {repo} answers that{why}. Name a class or method, or say `help`."
            ));
        }
        if let (Some(symbol), Ok(mut m)) = (top_symbol(&answer), self.memory.lock()) {
            m.remember(
                conv,
                Remembered {
                    repo: repo.clone(),
                    symbol,
                },
                now,
            );
        }
        let link = self.link(&repo);
        Reply::Answer(
            Compose {
                repo: &repo,
                link: &link,
                citations: self.config.limits.citations,
                notes,
            }
            .reply(&answer),
        )
    }
}
