//! Follow-ups in a thread: "and who calls that?" / "那谁调用它？" means the symbol the thread's
//! previous answer was about. A bounded, expiring memory of each thread's last answer, and the
//! pure rewrite of a question's pronoun into that symbol.

use crate::model::{Conversation, Platform};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// What a thread's last answer was about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remembered {
    pub repo: String,
    /// `Class.method` the answer cited first.
    pub symbol: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ThreadKey {
    platform: Platform,
    workspace: String,
    channel: String,
    thread: String,
}

impl ThreadKey {
    fn of(c: &Conversation) -> Option<ThreadKey> {
        Some(ThreadKey {
            platform: c.platform,
            workspace: c.workspace.clone(),
            channel: c.channel.clone(),
            thread: c.thread.clone()?,
        })
    }
}

/// The last answer of each thread, at most `capacity` threads, each for `ttl`.
#[derive(Debug)]
pub struct ThreadMemory {
    capacity: usize,
    ttl: Duration,
    entries: HashMap<ThreadKey, (Remembered, Instant)>,
}

impl ThreadMemory {
    pub fn new(capacity: usize, ttl: Duration) -> ThreadMemory {
        ThreadMemory {
            capacity: capacity.max(1),
            ttl,
            entries: HashMap::new(),
        }
    }

    /// The thread's last answer, if it is recent enough. Conversations outside a thread have
    /// no memory: a channel is many people's conversation.
    pub fn recall(&mut self, c: &Conversation, now: Instant) -> Option<Remembered> {
        let key = ThreadKey::of(c)?;
        match self.entries.get(&key) {
            Some((r, at)) if now.duration_since(*at) <= self.ttl => Some(r.clone()),
            Some(_) => {
                self.entries.remove(&key);
                None
            }
            None => None,
        }
    }

    pub fn remember(&mut self, c: &Conversation, r: Remembered, now: Instant) {
        let Some(key) = ThreadKey::of(c) else {
            return;
        };
        if !self.entries.contains_key(&key) && self.entries.len() >= self.capacity {
            let ttl = self.ttl;
            self.entries
                .retain(|_, (_, at)| now.duration_since(*at) <= ttl);
            if self.entries.len() >= self.capacity {
                // Still full of live threads: forget the one quiet the longest.
                if let Some(oldest) = self
                    .entries
                    .iter()
                    .min_by_key(|(_, (_, at))| *at)
                    .map(|(k, _)| k.clone())
                {
                    self.entries.remove(&oldest);
                }
            }
        }
        self.entries.insert(key, (r, now));
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Words that stand for the previous answer's symbol. English ones only at the end of the
/// question or before a noun like "method" ("who calls that?", "what does that method return");
/// "it" anywhere. Chinese demonstratives anywhere.
const EN_ANYWHERE: [&str; 1] = ["it"];
const EN_AT_END: [&str; 4] = ["that", "this", "them", "those"];
const EN_NOUNS: [&str; 6] = ["method", "function", "one", "class", "call", "symbol"];
const ZH: [&str; 9] = [
    "这个方法",
    "那个方法",
    "这个函数",
    "那个函数",
    "这个类",
    "那个类",
    "这个",
    "那个",
    "它",
];

/// `question` with its pronoun replaced by `symbol`, or `None` when it is not a follow-up (no
/// pronoun, or it names an identifier of its own).
pub fn resolve(question: &str, symbol: &str) -> Option<String> {
    if names_identifier(question) {
        return None;
    }
    for z in ZH {
        if let Some(at) = question.find(z) {
            return Some(format!(
                "{}{symbol}{}",
                &question[..at],
                &question[at + z.len()..]
            ));
        }
    }
    let words = word_spans(question);
    for (n, &(s, e)) in words.iter().enumerate() {
        let w = question[s..e].to_ascii_lowercase();
        let next = words
            .get(n + 1)
            .map(|&(s, e)| question[s..e].to_ascii_lowercase());
        let pronoun = EN_ANYWHERE.contains(&w.as_str())
            || (EN_AT_END.contains(&w.as_str())
                && match &next {
                    None => true,
                    Some(nx) => EN_NOUNS.contains(&nx.as_str()),
                });
        if !pronoun {
            continue;
        }
        // "that method" → the symbol, not "X method".
        let end = match &next {
            Some(nx) if EN_NOUNS.contains(&nx.as_str()) => words[n + 1].1,
            _ => e,
        };
        let head = question[..s].trim_start();
        let head = [
            "and ", "And ", "so ", "So ", "then ", "Then ", "ok ", "OK ", "Ok ",
        ]
        .iter()
        .find_map(|p| head.strip_prefix(p))
        .unwrap_or(head);
        return Some(format!("{head}{symbol}{}", &question[end..]));
    }
    None
}

/// Byte spans of the ASCII words of `s`.
fn word_spans(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        let word = c.is_ascii_alphanumeric() || c == '_' || c == '\'';
        match (word, start) {
            (true, None) => start = Some(i),
            (false, Some(st)) => {
                out.push((st, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(st) = start {
        out.push((st, s.len()));
    }
    out
}

/// A camelCase, snake_case or dotted name: the question says what it is about by itself.
fn names_identifier(q: &str) -> bool {
    q.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .map(|w| w.trim_matches('.'))
        .any(|w| {
            let inner_upper = w.chars().skip(1).any(|c| c.is_ascii_uppercase())
                && w.chars().any(|c| c.is_ascii_lowercase());
            let snake = w.contains('_') && w.len() > 2;
            let dotted = w.contains('.') && w.split('.').all(|p| !p.is_empty());
            inner_upper || snake || dotted
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: &str = "InventoryClient.deduct";

    #[test]
    fn pronouns_become_the_previous_symbol() {
        assert_eq!(
            resolve("and who calls that?", S).as_deref(),
            Some("who calls InventoryClient.deduct?")
        );
        assert_eq!(
            resolve("who calls it", S).as_deref(),
            Some("who calls InventoryClient.deduct")
        );
        assert_eq!(
            resolve("what does that method return?", S).as_deref(),
            Some("what does InventoryClient.deduct return?")
        );
        assert_eq!(
            resolve("那谁调用它?", S).as_deref(),
            Some("那谁调用InventoryClient.deduct?")
        );
        assert_eq!(
            resolve("这个方法在哪里被调用", S).as_deref(),
            Some("InventoryClient.deduct在哪里被调用")
        );
    }

    #[test]
    fn fresh_questions_are_left_alone() {
        // Names its own identifier.
        assert_eq!(resolve("who calls this deductStock?", S), None);
        assert_eq!(resolve("and who calls OrderService.create?", S), None);
        // "that" as a conjunction, "this" before a non-noun.
        assert_eq!(resolve("where do we check that stock is enough", S), None);
        assert_eq!(resolve("how is this order paid", S), None);
        assert_eq!(resolve("where is the stock deducted?", S), None);
        // "its" is not "it".
        assert_eq!(resolve("where is stock checked for its limit", S), None);
    }

    fn conv(thread: Option<&str>) -> Conversation {
        Conversation {
            platform: Platform::Slack,
            workspace: "T1".into(),
            channel: "C1".into(),
            thread: thread.map(String::from),
            user: "U1".into(),
            direct: false,
        }
    }

    fn rem(s: &str) -> Remembered {
        Remembered {
            repo: "shop".into(),
            symbol: s.into(),
        }
    }

    #[test]
    fn memory_is_per_thread_bounded_and_expiring() {
        let t0 = Instant::now();
        let mut m = ThreadMemory::new(2, Duration::from_secs(60));
        m.remember(&conv(Some("1")), rem("A.a"), t0);
        // Outside a thread nothing is kept or recalled.
        m.remember(&conv(None), rem("X.x"), t0);
        assert_eq!(m.recall(&conv(None), t0), None);
        assert_eq!(m.recall(&conv(Some("1")), t0), Some(rem("A.a")));
        assert_eq!(m.recall(&conv(Some("2")), t0), None);
        // A later answer in the thread replaces the earlier one.
        m.remember(&conv(Some("1")), rem("B.b"), t0 + Duration::from_secs(1));
        assert_eq!(m.recall(&conv(Some("1")), t0), Some(rem("B.b")));
        // Full: the thread quiet the longest goes.
        m.remember(&conv(Some("2")), rem("C.c"), t0 + Duration::from_secs(2));
        m.remember(&conv(Some("3")), rem("D.d"), t0 + Duration::from_secs(3));
        assert_eq!(m.len(), 2);
        let t = t0 + Duration::from_secs(4);
        assert_eq!(m.recall(&conv(Some("1")), t), None);
        assert_eq!(m.recall(&conv(Some("3")), t), Some(rem("D.d")));
        // Expiry.
        let late = t0 + Duration::from_secs(64);
        assert_eq!(m.recall(&conv(Some("3")), late), None);
        // Another workspace's thread with the same id is another thread.
        let mut other = conv(Some("2"));
        other.workspace = "T2".into();
        assert_eq!(m.recall(&other, t), None);
    }
}
