//! What a question asks for: its intent from its phrasing, and the kind of code a definition
//! question names.

use super::{Frame, Ident, Intent, KindHint, has_any_word};

/// The kind of code the question names (interface, enum, annotation, class, type), if any.
pub(super) fn kind_hint(lower: &str) -> Option<KindHint> {
    for (w, k) in [
        ("interface", KindHint::Interface),
        ("enum", KindHint::Enum),
        ("annotation", KindHint::Annotation),
        ("class", KindHint::Class),
        ("type", KindHint::Type),
        ("接口", KindHint::Interface),
        ("枚举", KindHint::Enum),
        ("注解", KindHint::Annotation),
        ("类", KindHint::Class),
    ] {
        if asks_any_word(lower, &[w]) {
            return Some(k);
        }
    }
    // "record" alone is data (a log record, a record written); the Java kind is named so.
    asks_any(lower, &["record type", "record class", "java record"]).then_some(KindHint::Type)
}

/// Phrasings that ask for a chain wherever they stand.
const FLOW_PHRASES: &[&str] = &[
    "what happens when",
    "what happens if",
    "what happens between",
    "what happens the first time",
    "what happens to",
    "what happens after",
    "what happens next",
    "what's the path",
    "what is the path",
    "the path from",
    "what's the chain",
    "what is the chain",
    "the chain from",
    "chain down to",
    "get from",
    "gets from",
    "go from",
    "goes from",
    "call chain",
    "walk me through",
    "walk me from",
    "trace it from",
    "trace it through",
    "trace it to",
    "trace the path",
    "trace the call",
    "trace how",
    "trace from",
    "methods are involved",
    "sequence of",
    "流程",
    "调用链",
    "过程",
    "经过",
];

/// Phrasings that ask for a chain only when the question opens with them: after "where does
/// …", "how does the flag change that" or "step by step" describe the behaviour to locate.
const WEAK_FLOW_PHRASES: &[&str] = &[
    "step by step",
    "end up",
    "ends up",
    "lead to",
    "leads to",
    "how does a",
    "how does an",
    "how does the",
    "how do the",
];

/// Behaviour words: a type word next to them names the subject of a behaviour question
/// ("where is the order decided … annotation"), not a type asked for.
const BEHAVIOUR_WORDS: &[&str] = &[
    "decide",
    "decides",
    "decided",
    "handle",
    "handles",
    "handled",
    "checks",
    "checked",
    "computed",
    "calculated",
    "chosen",
    "picked",
    "converted",
    "parsed",
    "resolved",
    "sorted",
    "validated",
    "处理",
    "转换",
    "判断",
    "检查",
    "决定",
    "解析",
    "计算",
];

/// Whether a locate opener ("where", "which code") comes before any "how".
fn asks_where_first(lower: &str) -> bool {
    let first = |words: &[&str]| words.iter().filter_map(|w| lower.find(w)).min();
    match (
        first(&["where ", "where's", "which code", "what code", "哪里"]),
        first(&["how "]),
    ) {
        (Some(w), Some(h)) => w < h,
        (Some(_), None) => true,
        _ => false,
    }
}

/// Phrasings that ask what a change reaches, when a question asks them ([`asked_at`]).
const IMPACT_PHRASES: &[&str] = &[
    "impact",
    "what breaks",
    "would break",
    "affected if",
    "affects",
    "blast radius",
    "if i change",
    "影响",
];

/// Words a question or a request opens with; a sentence opening otherwise and not ending in a
/// question mark states something ("This affects subclasses too." in a bug report).
const ASKING_OPENERS: &[&str] = &[
    "what",
    "which",
    "who",
    "where",
    "how",
    "would",
    "will",
    "does",
    "do ",
    "is ",
    "are ",
    "can ",
    "could",
    "should",
    "if ",
    "show",
    "list",
    "find",
    "tell",
    "give",
    "check",
    "impact",
    "blast",
    "trace",
    "walk",
    "explain",
    "describe",
    "如果",
    "哪些",
    "什么",
    "会不会",
    "是否",
    "请",
];

/// Whether any sentence asks: ends with a question mark or opens like a question or a request,
/// or the text holds a Chinese question word. A bug report's title and statements do not, nor do
/// bare keywords.
pub(super) fn asks_anything(lower: &str) -> bool {
    super::zh::QUESTION_WORDS.iter().any(|w| lower.contains(w))
        || sentences(lower).any(sentence_asks)
}

/// The text's sentences, trimmed ([`sentence_around`] says where one ends).
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut ends = text
        .char_indices()
        .filter(|&(i, c)| ends_sentence(text, i, c));
    std::iter::from_fn(move || {
        while start < text.len() {
            let end = ends
                .next()
                .map(|(i, c)| i + c.len_utf8())
                .unwrap_or(text.len());
            let sentence = text[start..end].trim();
            start = end;
            if !sentence.is_empty() {
                return Some(sentence);
            }
        }
        None
    })
}

/// Whether one sentence asks: it ends with a question mark or opens like a question or a request.
fn sentence_asks(sentence: &str) -> bool {
    sentence.ends_with('?')
        || sentence.ends_with('？')
        || ASKING_OPENERS.iter().any(|w| sentence.starts_with(w))
}

/// Whether a sentence that asks ([`asked_at`]) holds one of the phrases.
pub(super) fn asks_any(lower: &str, phrases: &[&str]) -> bool {
    phrases
        .iter()
        .any(|p| lower.match_indices(p).any(|(at, _)| asked_at(lower, at)))
}

/// Whether a sentence that asks holds one of the words as a whole word (CJK words: anywhere).
pub(super) fn asks_any_word(lower: &str, words: &[&str]) -> bool {
    let part = |c: char| c.is_alphanumeric() || c == '-';
    words.iter().any(|w| {
        lower.match_indices(w).any(|(at, _)| {
            let whole = w.chars().any(crate::terms::is_cjk)
                || (!lower[..at].chars().next_back().is_some_and(part)
                    && !lower[at + w.len()..].chars().next().is_some_and(part));
            whole && asked_at(lower, at)
        })
    })
}

/// Whether the sentence holding byte `at` asks something: it ends with a question mark, opens
/// like a question or a request, or is all the text says. A bug report's statements do not ask.
fn asked_at(lower: &str, at: usize) -> bool {
    let (start, end) = sentence_around(lower, at);
    if sentence_asks(lower[start..end].trim()) {
        return true;
    }
    lower[..start].trim().is_empty() && lower[end..].trim().is_empty()
}

/// Whether the character `c` at byte `i` ends a sentence: `?`, `!`, `。`, `？`, `！`, a line
/// break, or a full stop before whitespace (the dot of `Foo.bar` ends nothing).
fn ends_sentence(text: &str, i: usize, c: char) -> bool {
    matches!(c, '?' | '!' | '\n' | '。' | '？' | '！')
        || (c == '.'
            && text[i + 1..]
                .chars()
                .next()
                .is_none_or(|n| n.is_whitespace()))
}

/// The byte range of the sentence around `at` ([`ends_sentence`] says where one ends).
fn sentence_around(text: &str, at: usize) -> (usize, usize) {
    let ends_after = |i: usize, c: char| ends_sentence(text, i, c);
    let start = text[..at]
        .char_indices()
        .rev()
        .find(|&(i, c)| ends_after(i, c))
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(0);
    let end = text[at..]
        .char_indices()
        .find(|&(i, c)| ends_after(at + i, c))
        .map(|(i, c)| at + i + c.len_utf8())
        .unwrap_or(text.len());
    (start, end)
}

pub(super) fn contains_any(lower: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| lower.contains(p))
}

/// The question's intent from its phrasing: a trace, impact, callers, callees, flow, definition or
/// config question, else locate.
pub(super) fn detect_intent(
    lower: &str,
    idents: &[Ident],
    frames: &[Frame],
    kind: Option<KindHint>,
) -> Intent {
    if !frames.is_empty()
        && (frames.len() >= 2 || contains_any(lower, &["exception", "error", "panic"]))
    {
        return Intent::Trace;
    }
    if contains_any(lower, &["stack trace", "stacktrace", "堆栈", "报错栈"]) {
        return Intent::Trace;
    }
    if asks_any(lower, IMPACT_PHRASES) {
        return Intent::Impact;
    }
    let named = !idents.is_empty();
    if asks_any(
        lower,
        &[
            "who calls",
            "what calls",
            "which methods call",
            "which method calls",
            "which functions call",
            "places call",
            "places that call",
            "callers of",
            "called from",
            "call sites",
            "call site",
            "who uses",
            "usages of",
            "谁调用",
            "哪里调用",
            "哪些地方调用",
            "被调用",
            "被谁调用",
        ],
    ) || (named
        // "where is X used?", not "the number used for the name".
        && asks_any(
            lower,
            &[
                " used?",
                " used by",
                " is used",
                " are used",
                " gets used",
                " get used",
                " referenced",
                " invoked",
            ],
        )
        && !lower.contains("used to"))
        || (named && lower.starts_with("what call"))
    {
        return Intent::Callers;
    }
    if asks_any(
        lower,
        &["what does", "which methods does", "what methods does"],
    ) && asks_any(lower, &[" call?", " call ", " invoke", "calls?"])
        || asks_any(lower, &["callees", "调用了哪些", "调用哪些"])
    {
        return Intent::Callees;
    }
    // "Trace a record from X to Y": the verb opening the question asks for a chain.
    let trace_verb = lower.starts_with("trace ") || lower.starts_with("walk through ");
    // "flow" as a word: "overflow" and "workflow" ask for no chain.
    if asks_any(lower, FLOW_PHRASES)
        || asks_any_word(lower, &["flow", "flows"])
        || trace_verb
        || (asks_any(lower, WEAK_FLOW_PHRASES) && !asks_where_first(lower))
    {
        return Intent::Flow;
    }
    if asks_for_definition(lower)
        || (kind.is_some()
        // A type word in a question about behaviour ("which code decides whether an
        // annotation…") names the subject, not what is asked for.
        && !contains_any(
            lower,
            &[
                "where does",
                "how does",
                "implemented",
                "where do",
                "which code",
                "what code",
            ],
        )
        && !has_any_word(lower, BEHAVIOUR_WORDS))
    {
        return Intent::Definition;
    }
    if asks_any(
        lower,
        &[
            "config",
            "setting",
            "system property",
            "system properties",
            "properties file",
            ".properties",
            "init-param",
            "init param",
            "env var",
            "environment variable",
            "yml",
            "yaml",
            "配置",
            "参数",
        ],
    ) {
        return Intent::Config;
    }
    Intent::Locate
}

/// Whether the question asks where something is defined or declared. A negated or compound use
/// ("when the variable isn't defined", "user-defined", "未定义") describes a situation instead.
fn asks_for_definition(lower: &str) -> bool {
    const WORDS: &[&str] = &["defined", "declared", "definition", "declaration"];
    const NEGATIONS: &[&str] = &["not", "never", "isn't", "aren't", "wasn't", "weren't", "no"];
    let tokens: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '?' | '.'))
        .filter(|t| !t.is_empty())
        .collect();
    let english = tokens.iter().enumerate().any(|(k, t)| {
        WORDS.contains(t)
            && !tokens[k.saturating_sub(2)..k]
                .iter()
                .any(|p| NEGATIONS.contains(p))
    });
    let chinese = ["定义", "声明"].iter().any(|w| {
        lower.match_indices(w).any(|(at, _)| {
            let before = &lower[..at];
            !["未", "没", "没有", "不"]
                .iter()
                .any(|n| before.ends_with(n))
        })
    });
    english || chinese
}
