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

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Senses of one word kept for search: the first is the word's main English, the rest weaker.
pub const MAX_SENSES: usize = 3;
/// A sense longer than this many content words is a definition, not a name code would use.
const MAX_SENSE_WORDS: usize = 2;

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

/// Words that carry no search meaning inside an English sense ("to put sth in order").
const SENSE_STOP: &[&str] = &[
    "a",
    "an",
    "the",
    "of",
    "to",
    "be",
    "in",
    "on",
    "for",
    "with",
    "by",
    "as",
    "at",
    "or",
    "and",
    "from",
    "into",
    "one",
    "one's",
    "sb",
    "sth",
    "sb's",
    "sth's",
    "something",
    "someone",
    "oneself",
    "etc",
    "up",
    "out",
    "off",
    "it",
    "its",
    "is",
    "are",
];

/// Glosses that are not meanings: classifiers, surnames, cross-references.
const NOT_A_SENSE: &[&str] = &[
    "cl:",
    "surname ",
    "variant of",
    "old variant",
    "japanese variant",
    "erhua variant",
    "abbr. for",
    "abbr. of",
    "see ",
    "also written",
    "also pr.",
    "used in",
    "pr. ",
    "taiwan pr.",
    "radical ",
    "kangxi radical",
];

/// One English sense of a Chinese word, as search words (`cache`, `time limit`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sense {
    pub words: Vec<String>,
    /// Tagged "(computing)" by the dictionary: the sense a code question most likely means.
    pub computing: bool,
}

/// A zh→en dictionary in CC-CEDICT's format. The text is kept as read and only its heads are
/// indexed (simplified and traditional); a word's senses are parsed when it is looked up, so
/// loading takes a sorted table of offsets, not a map of every gloss.
#[derive(Debug, Default)]
pub struct Dictionary {
    text: String,
    /// Entries that have a search sense, by head, in head order.
    heads: Vec<Head>,
    longest: usize,
}

/// Why a dictionary file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum DictionaryError {
    #[error("cannot read the Chinese dictionary {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a CC-CEDICT file (no line like `訂單 订单 [ding4 dan1] /order/`)")]
    Format { path: PathBuf },
}

/// One entry under one of its heads: byte offsets into the dictionary's text.
#[derive(Debug, Clone, Copy)]
struct Head {
    at: u32,
    len: u16,
    line: u32,
    line_len: u32,
}

impl Dictionary {
    /// Reads CC-CEDICT text: `trad simp [pin1 yin1] /gloss/gloss/`, `#` comments. Lines that do
    /// not parse, or have no search sense, are skipped; a text with no entry at all gives an
    /// empty dictionary.
    pub fn parse(text: &str) -> Dictionary {
        Dictionary::from_text(text.to_string())
    }

    fn from_text(text: String) -> Dictionary {
        let base = text.as_ptr() as usize;
        let offset = |s: &str| s.as_ptr() as usize - base;
        let mut heads = Vec::new();
        for line in text.lines() {
            // Offsets are u32: a text past 4 GiB is not CC-CEDICT (it has 10 MB).
            let Ok(line_at) = u32::try_from(offset(line) + line.len()).map(|_| offset(line) as u32)
            else {
                break;
            };
            let Some((trad, simp, _, glosses)) = split_entry(line) else {
                continue;
            };
            if senses(glosses).is_empty() || simp.len() > usize::from(u16::MAX) {
                continue;
            }
            let mut push = |head: &str| {
                heads.push(Head {
                    at: offset(head) as u32,
                    len: head.len() as u16,
                    line: line_at,
                    line_len: line.len() as u32,
                })
            };
            push(simp);
            if trad != simp && trad.len() <= usize::from(u16::MAX) {
                push(trad);
            }
        }
        let mut dict = Dictionary {
            text,
            heads,
            longest: 0,
        };
        let mut heads = std::mem::take(&mut dict.heads);
        // Stable: a head's entries keep the dictionary's order.
        heads.sort_by(|a, b| dict.head(a).cmp(dict.head(b)));
        dict.longest = heads
            .iter()
            .map(|h| dict.head(h).chars().count())
            .max()
            .unwrap_or(0);
        dict.heads = heads;
        dict
    }

    fn head(&self, h: &Head) -> &str {
        &self.text[h.at as usize..h.at as usize + h.len as usize]
    }

    fn entries(&self, word: &str) -> &[Head] {
        let from = self.heads.partition_point(|h| self.head(h) < word);
        let to = from + self.heads[from..].partition_point(|h| self.head(h) == word);
        &self.heads[from..to]
    }

    /// Reads and parses a dictionary file.
    pub fn load(path: &Path) -> Result<Dictionary, DictionaryError> {
        let text = std::fs::read_to_string(path).map_err(|source| DictionaryError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let dict = Dictionary::from_text(text);
        if dict.is_empty() {
            return Err(DictionaryError::Format {
                path: path.to_path_buf(),
            });
        }
        Ok(dict)
    }

    /// Headwords, simplified and traditional (a word written alike in both scripts counts once
    /// per entry).
    pub fn len(&self) -> usize {
        self.heads.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    /// Whether the dictionary has a search sense for `word`.
    pub fn contains(&self, word: &str) -> bool {
        !self.entries(word).is_empty()
    }

    /// The search senses of a word: computing senses first, common words' before proper names'
    /// (周 "week" before 周 "Zhou", which is only used when no common entry exists).
    pub fn senses(&self, word: &str) -> Option<Vec<Sense>> {
        let mut common: Vec<Sense> = Vec::new();
        let mut proper: Vec<Sense> = Vec::new();
        for h in self.entries(word) {
            let line = &self.text[h.line as usize..(h.line + h.line_len) as usize];
            let Some((_, _, pinyin, glosses)) = split_entry(line) else {
                continue;
            };
            let to = if pinyin.starts_with(|c: char| c.is_ascii_uppercase()) {
                &mut proper
            } else {
                &mut common
            };
            for s in senses(glosses) {
                if !to.contains(&s) {
                    to.push(s);
                }
            }
        }
        let mut out = if common.is_empty() { proper } else { common };
        // Stable: the dictionary's order within computing and within the rest.
        out.sort_by_key(|s| !s.computing);
        (!out.is_empty()).then_some(out)
    }
}

/// `訂單 订单 [ding4 dan1] /(purchase) order/` → (訂單, 订单, ding4 dan1, `(purchase) order/`).
fn split_entry(line: &str) -> Option<(&str, &str, &str, &str)> {
    if line.starts_with('#') {
        return None;
    }
    let (trad, rest) = line.split_once(' ')?;
    let (simp, rest) = rest.split_once(' ')?;
    let rest = rest.strip_prefix('[')?;
    let (pinyin, rest) = rest.split_once(']')?;
    let glosses = rest.trim().strip_prefix('/')?;
    Some((trad, simp, pinyin, glosses))
}

/// The search senses of one entry's glosses: meanings of one or two content words, parenthetical
/// remarks and a leading "to" dropped (`to cancel; to call off` → cancel, call).
fn senses(glosses: &str) -> Vec<Sense> {
    let mut out: Vec<Sense> = Vec::new();
    for gloss in glosses.split('/') {
        let lower = gloss.trim().to_lowercase();
        if lower.is_empty() || NOT_A_SENSE.iter().any(|p| lower.starts_with(p)) {
            continue;
        }
        let computing = lower.contains("(computing)");
        let plain = strip_brackets(&lower);
        for part in plain.split([';', ',']) {
            let words: Vec<String> = part
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '\''))
                .filter(|w| !w.is_empty() && w.chars().any(|c| c.is_ascii_alphabetic()))
                .filter(|w| !SENSE_STOP.contains(w))
                .map(str::to_string)
                .collect();
            if words.is_empty() || words.len() > MAX_SENSE_WORDS {
                continue;
            }
            let sense = Sense { words, computing };
            if !out.contains(&sense) {
                out.push(sense);
            }
        }
    }
    out
}

/// Drops `( … )` and `[ … ]` remarks (nesting allowed).
fn strip_brackets(s: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

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

/// The dictionary codemap found, once per process: `CODEMAP_CEDICT`, else
/// `$XDG_DATA_HOME/codemap/cedict_ts.u8` (`~/.local/share/…`), else
/// `/usr/share/codemap/cedict_ts.u8`.
pub fn installed() -> &'static Installed {
    static INSTALLED: OnceLock<Installed> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let Some(path) = dictionary_path() else {
            return Installed::Missing;
        };
        match Dictionary::load(&path) {
            Ok(dict) => {
                tracing::debug!(path = %path.display(), words = dict.len(), "Chinese dictionary");
                Installed::Loaded(dict)
            }
            Err(e) => {
                tracing::warn!(error = %e, "Chinese words will be searched as written");
                Installed::Broken(e.to_string())
            }
        }
    })
}

/// What [`installed`] found.
#[derive(Debug)]
pub enum Installed {
    Loaded(Dictionary),
    Missing,
    /// A dictionary file is there but cannot be used; the message says why.
    Broken(String),
}

impl Installed {
    pub fn dictionary(&self) -> Option<&Dictionary> {
        match self {
            Installed::Loaded(d) => Some(d),
            _ => None,
        }
    }
}

/// Where the dictionary is looked for, first existing wins; `CODEMAP_CEDICT` is taken as given
/// (a wrong path is reported, not silently skipped).
pub fn dictionary_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CODEMAP_CEDICT").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let data_home = std::env::var_os("XDG_DATA_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")));
    data_home
        .map(|d| d.join("codemap/cedict_ts.u8"))
        .into_iter()
        .chain([PathBuf::from("/usr/share/codemap/cedict_ts.u8")])
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries written for these tests in CC-CEDICT's format (not copied from it).
    const SAMPLE: &str = "\
# a comment
訂單 订单 [ding4 dan1] /(purchase) order/CL:個|个[ge4]/
超時 超时 [chao1 shi2] /to exceed the time limit/to be overtime/(computing) timeout/
取消 取消 [qu3 xiao1] /to cancel; to call off/
線程 线程 [xian4 cheng2] /(computing) thread/
攔截 拦截 [lan2 jie2] /to intercept/
周 周 [Zhou1] /surname Zhou/Zhou Dynasty/
周 周 [zhou1] /week/weekly/
異常 异常 [yi4 chang2] /unusual; abnormal/exceptionally/
會話 会话 [hui4 hua4] /(computing) session/conversation/
新 新 [xin1] /new/
話 话 [hua4] /dialect/
not a line
";

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
    fn parses_entries_into_search_senses() {
        let d = Dictionary::parse(SAMPLE);
        let senses = |w: &str| -> Vec<String> {
            d.senses(w)
                .unwrap()
                .iter()
                .map(|s| s.words.join(" "))
                .collect()
        };
        // Computing senses first; definitions of more than two words dropped; classifiers too.
        assert_eq!(senses("超时"), ["timeout", "overtime"]);
        assert_eq!(senses("超時"), ["timeout", "overtime"]);
        assert_eq!(senses("订单"), ["order"]);
        assert_eq!(senses("取消"), ["cancel", "call"]);
        // A common word wins over a proper name written alike.
        assert_eq!(senses("周"), ["week", "weekly"]);
        assert!(d.senses("not").is_none());
    }

    #[test]
    fn a_file_that_is_not_a_dictionary_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("cedict_ts.u8");
        std::fs::write(&p, "hello\nworld\n").unwrap();
        assert!(matches!(
            Dictionary::load(&p),
            Err(DictionaryError::Format { .. })
        ));
        assert!(matches!(
            Dictionary::load(&dir.path().join("absent")),
            Err(DictionaryError::Read { .. })
        ));
        std::fs::write(&p, SAMPLE).unwrap();
        assert_eq!(
            Dictionary::load(&p).unwrap().senses("线程").unwrap().len(),
            1
        );
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
