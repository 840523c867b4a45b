//! Chinese questions, by method rather than by list: a general segmenter (jieba-rs, its own
//! dictionary built in) cuts a Chinese run into words, and a general zh→en dictionary
//! (CC-CEDICT, installed beside codemap: README "Chinese questions") gives each word's English.
//! `订单超时自动取消逻辑在哪` → 订单 / 超时 / 自动 / 取消 / 逻辑 / 在 / 哪 → order, timeout,
//! automatic, cancel.
//!
//! No table here names a domain term. The one list is grammar: the function words of a question
//! (在, 哪里, 的, 怎么 …), which carry no search meaning. Words with no English stay Chinese: the
//! index holds CJK unigrams and bigrams, so they still match Chinese comments and strings.
//!
//! Parsing and translating are pure; [`installed`] is the one function that reads a file.

mod dict;
pub use dict::{Dictionary, DictionaryError, Installed, Sense, dictionary_path, installed};

use std::sync::OnceLock;

/// Senses of one word kept for search: the first is the word's main English, the rest weaker.
pub const MAX_SENSES: usize = 3;

/// Question words and particles: a Chinese text holding one asks something, whether or not it
/// ends with a question mark (`这个检查是在哪里做的`). Function words too.
pub(crate) const QUESTION_WORDS: &[&str] = &[
    "在哪里",
    "在哪儿",
    "在哪",
    "哪里",
    "哪儿",
    "哪",
    "哪个",
    "哪些",
    "哪段",
    "什么",
    "怎么",
    "怎样",
    "怎么样",
    "如何",
    "为什么",
    "为何",
    "是否",
    "是不是",
    "有没有",
    "吗",
    "呢",
];

/// The other function words of a Chinese question: particles, pronouns, and the scaffolding of
/// asking about code (代码, 逻辑, 地方 …). Grammar, not vocabulary: no entry names a concept.
const FUNCTION_WORDS: &[&str] = &[
    "的",
    "了",
    "是",
    "在",
    "吧",
    "啊",
    "和",
    "与",
    "及",
    "或",
    "或者",
    "我",
    "我们",
    "你",
    "你们",
    "他",
    "它",
    "它们",
    "这",
    "那",
    "这个",
    "那个",
    "这些",
    "那些",
    "一个",
    "个",
    "些",
    "要",
    "会",
    "能",
    "可以",
    "应该",
    "需要",
    "有",
    "被",
    "谁",
    "把",
    "从",
    "到",
    "对",
    "用",
    "里",
    "中",
    "上",
    "下",
    "时",
    "后",
    "前",
    "时候",
    "之后",
    "之前",
    "以后",
    "以前",
    "地方",
    "位置",
    "逻辑",
    "代码",
    "实现",
    "相关",
    "功能",
    "部分",
    "就",
    "都",
    "也",
    "还",
    "又",
    "并",
    "而",
    "给",
    "让",
    "得",
    "地",
    "着",
    "过",
    "之",
    "其",
    "该",
    "所",
    "如果",
    "因为",
    "所以",
    "然后",
    "一下",
    "请问",
    "哪一个",
    "具体",
    "处",
    "里面",
    "掉",
];

/// One word of a segmented Chinese run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A function word of the question: no search meaning.
    Function(String),
    /// A word and its English, main sense first (each sense's words in order); a weak one has
    /// no main sense.
    English {
        chinese: String,
        senses: Vec<Vec<String>>,
        weak: bool,
    },
    /// A word with no English, kept as written.
    Chinese(String),
}

fn jieba() -> &'static jieba_rs::Jieba {
    static JIEBA: OnceLock<jieba_rs::Jieba> = OnceLock::new();
    JIEBA.get_or_init(jieba_rs::Jieba::new)
}

/// Cuts a run of Chinese into words and gives each its English. jieba cuts the run; a stretch
/// it cut into words the dictionary does not hold is cut again by the dictionary, the longest
/// words winning (新会/话 → 新/会话, 拦截器 → 拦截/器); the agent suffix 器 gives the English agent
/// forms of the verb before it (拦截器 → intercept, interceptor). A character translated only
/// because such a stretch left it alone is weak evidence: all its senses are further senses.
///
/// `named` says whether the code at hand names something with an English word: of a word's
/// senses, the ones the code names come first and the others go (异常: "exceptionally", whose
/// stem `except` names exceptions, instead of "unusual"), the dictionary's order otherwise. The
/// code's own vocabulary chooses the sense, not a list; it cannot choose between two senses the
/// code both names (对象: target before object).
pub fn translate(run: &str, dict: Option<&Dictionary>, named: &dyn Fn(&str) -> bool) -> Vec<Piece> {
    let tokens: Vec<&str> = jieba()
        .cut(run, true)
        .into_iter()
        .map(|t| t.word)
        .filter(|w| !w.trim().is_empty())
        .collect();
    let Some(dict) = dict else {
        return tokens
            .into_iter()
            .map(|w| match is_function_word(w) {
                true => Piece::Function(w.to_string()),
                false => Piece::Chinese(w.to_string()),
            })
            .collect();
    };
    let mut out: Vec<Piece> = Vec::new();
    for (word, recut) in recut(&tokens, dict) {
        if is_function_word(&word) {
            out.push(Piece::Function(word));
            continue;
        }
        if word == AGENT_SUFFIX
            && let Some(Piece::English { senses, .. }) = out.last_mut()
        {
            let forms: Vec<Vec<String>> = senses
                .iter()
                .filter(|s| s.len() == 1)
                .flat_map(|s| agent_forms(&s[0]))
                .map(|f| vec![f])
                .collect();
            let at = 1.min(senses.len());
            senses.splice(at..at, forms);
            continue;
        }
        match dict.senses(&word) {
            Some(senses) => {
                let mut piece = english(&word, &senses, named);
                if recut
                    && word.chars().count() == 1
                    && let Piece::English { weak, .. } = &mut piece
                {
                    *weak = true;
                }
                out.push(piece);
            }
            None => out.push(Piece::Chinese(word)),
        }
    }
    out
}

/// The suffix of agent nouns (拦截器 interceptor, 监听器 listener).
const AGENT_SUFFIX: &str = "器";

fn english(word: &str, senses: &[Sense], named: &dyn Fn(&str) -> bool) -> Piece {
    let in_code: Vec<&Sense> = senses
        .iter()
        .filter(|s| s.words.iter().all(|w| named(w)))
        .collect();
    let chosen: Vec<&Sense> = if in_code.is_empty() {
        senses.iter().collect()
    } else {
        in_code
    };
    Piece::English {
        chinese: word.to_string(),
        senses: chosen
            .into_iter()
            .take(MAX_SENSES)
            .map(|s| s.words.clone())
            .collect(),
        weak: false,
    }
}

/// A question word or another function word: no search meaning.
fn is_function_word(w: &str) -> bool {
    QUESTION_WORDS.contains(&w) || FUNCTION_WORDS.contains(&w)
}

/// jieba's words, each with whether the dictionary cut it again: a stretch of words the
/// dictionary does not hold, with the single characters around it, is cut again by
/// [`dictionary_cut`].
fn recut(tokens: &[&str], dict: &Dictionary) -> Vec<(String, bool)> {
    let known = |w: &str| is_function_word(w) || dict.contains(w);
    let single = |w: &str| w.chars().count() == 1;
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if known(tokens[i]) {
            out.push((tokens[i].to_string(), false));
            i += 1;
            continue;
        }
        let mut stretch = String::new();
        if i > 0 && single(tokens[i - 1]) && out.last().is_some_and(|(w, _)| w == tokens[i - 1]) {
            stretch.push_str(&out.pop().expect("checked").0);
        }
        let mut end = i;
        while end < tokens.len() && (end == i || !known(tokens[end]) || single(tokens[end])) {
            stretch.push_str(tokens[end]);
            end += 1;
        }
        out.extend(
            dictionary_cut(&stretch, dict, &known)
                .into_iter()
                .map(|w| (w, true)),
        );
        i = end;
    }
    out
}

/// The words of `s` that cover most of it with the fewest, longest dictionary words (each word
/// scores its length squared); characters no word covers stay together.
fn dictionary_cut(s: &str, dict: &Dictionary, known: &dyn Fn(&str) -> bool) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    // best[end] = (score of chars[..end], start of its last word, whether that word is known)
    let mut best: Vec<(usize, usize, bool)> = vec![(0, 0, false); n + 1];
    for end in 1..=n {
        best[end] = (best[end - 1].0, end - 1, false);
        for len in 1..=dict.longest.min(end) {
            let word: String = chars[end - len..end].iter().collect();
            let score = best[end - len].0 + len * len;
            if score > best[end].0 && known(&word) {
                best[end] = (score, end - len, true);
            }
        }
    }
    let mut words: Vec<(String, bool)> = Vec::new();
    let mut end = n;
    while end > 0 {
        let (_, start, is_word) = best[end];
        words.push((chars[start..end].iter().collect(), is_word));
        end = start;
    }
    words.reverse();
    // Neighbouring characters no word covers are one piece of Chinese.
    let mut out: Vec<String> = Vec::new();
    let mut loose = false;
    for (w, is_word) in words {
        match out.last_mut() {
            Some(last) if !is_word && loose => last.push_str(&w),
            _ => out.push(w),
        }
        loose = !is_word;
    }
    out
}

/// English agent nouns of a verb: intercept → interceptor, intercepter; handle → handler.
fn agent_forms(verb: &str) -> Vec<String> {
    if verb.len() < 3 || !verb.chars().all(|c| c.is_ascii_lowercase()) {
        return Vec::new();
    }
    match verb.strip_suffix('e') {
        Some(stem) => vec![format!("{verb}r"), format!("{stem}or")],
        None => vec![format!("{verb}er"), format!("{verb}or")],
    }
}

/// Loads the segmenter and the installed dictionary now, so that the first Chinese question of
/// a long-lived server does not wait for them (the bot's preload calls it).
pub fn warm() {
    jieba();
    installed();
}

#[cfg(test)]
mod tests {
    use super::*;

    use dict::SAMPLE;

    fn english_of(pieces: &[Piece]) -> Vec<String> {
        pieces
            .iter()
            .filter_map(|p| match p {
                Piece::English { senses, .. } => Some(senses[0].join(" ")),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn translates_a_question_word_by_word() {
        let d = Dictionary::parse(SAMPLE);
        let pieces = translate("订单超时自动取消逻辑在哪", Some(&d), &|_| false);
        assert_eq!(english_of(&pieces), ["order", "timeout", "cancel"]);
        assert!(pieces.contains(&Piece::Function("逻辑".into())));
        // Not in this dictionary: kept as written.
        assert!(pieces.contains(&Piece::Chinese("自动".into())));
    }

    #[test]
    fn without_a_dictionary_words_stay_chinese() {
        let pieces = translate("订单超时在哪", None, &|_| false);
        assert!(pieces.contains(&Piece::Chinese("订单".into())));
        assert!(english_of(&pieces).is_empty());
    }

    #[test]
    fn unknown_compounds_split_into_known_words() {
        let d = Dictionary::parse(SAMPLE);
        let pieces = translate("线程池", Some(&d), &|_| false);
        assert_eq!(english_of(&pieces), ["thread"]);
        // An agent noun in 器: the verb and its agent forms.
        let pieces = translate("拦截器", Some(&d), &|_| false);
        let Piece::English { senses, .. } = &pieces[0] else {
            panic!("{pieces:?}")
        };
        let flat: Vec<&str> = senses.iter().flatten().map(String::as_str).collect();
        assert!(
            flat.contains(&"intercept") && flat.contains(&"interceptor"),
            "{flat:?}"
        );
    }

    #[test]
    fn a_stretch_the_dictionary_does_not_know_is_cut_again_by_it() {
        let d = Dictionary::parse(SAMPLE);
        // jieba cuts 新会 (a place) / 话; the dictionary has 新 and 会话.
        let pieces = translate("新会话是怎么创建的", Some(&d), &|_| false);
        assert_eq!(english_of(&pieces), ["new", "session"]);
    }

    #[test]
    fn the_senses_the_code_names_come_first() {
        let d = Dictionary::parse(SAMPLE);
        let senses = |named: &dyn Fn(&str) -> bool| match &translate("异常", Some(&d), named)[0] {
            Piece::English { senses, .. } => senses.clone(),
            p => panic!("{p:?}"),
        };
        // Nothing named: the dictionary's order.
        assert_eq!(senses(&|_| false)[0], ["unusual"]);
        // The code names "exceptionally" (its stem, through the caller): that sense alone.
        assert_eq!(senses(&|w| w == "exceptionally"), [["exceptionally"]]);
    }

    #[test]
    fn agent_forms_follow_english_spelling() {
        assert_eq!(agent_forms("handle"), ["handler", "handlor"]);
        assert_eq!(agent_forms("listen"), ["listener", "listenor"]);
        assert!(agent_forms("go").is_empty());
    }
}
