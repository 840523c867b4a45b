//! The zh→en dictionary: CC-CEDICT text parsed into search senses, and where codemap finds the
//! installed one. Parsing is pure; [`installed`] is the one function that reads a file.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A sense longer than this many content words is a definition, not a name code would use.
const MAX_SENSE_WORDS: usize = 2;

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
    /// Characters of the longest head.
    pub(super) longest: usize,
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
    #[error("the built-in CC-CEDICT cannot be read (a damaged build of codemap)")]
    BuiltIn,
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

/// CC-CEDICT as published by MDBG (2026-05-20, 124,935 entries, CC BY-SA 4.0: attribution in
/// query/data/CC-CEDICT.md), zstd-compressed, so a Chinese question works on a fresh install.
const BUILT_IN: &[u8] = include_bytes!("../../../data/cedict_ts.u8.zst");

/// The dictionary codemap uses, once per process: `CODEMAP_CEDICT`, else
/// `$XDG_DATA_HOME/codemap/cedict_ts.u8` (`~/.local/share/…`), else
/// `/usr/share/codemap/cedict_ts.u8`, else the one built in.
pub fn installed() -> &'static Installed {
    static INSTALLED: OnceLock<Installed> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let loaded = match dictionary_path() {
            Some(path) => Dictionary::load(&path).map(|dict| (dict, Some(path))),
            None => built_in().map(|dict| (dict, None)),
        };
        match loaded {
            Ok((dict, from)) => {
                tracing::debug!(from = ?from, words = dict.len(), "Chinese dictionary");
                Installed::Loaded { dict, from }
            }
            Err(e) => {
                tracing::warn!(error = %e, "Chinese words will be searched as written");
                Installed::Broken(e.to_string())
            }
        }
    })
}

/// The CC-CEDICT compiled into the binary.
pub fn built_in() -> Result<Dictionary, DictionaryError> {
    let text = zstd::decode_all(BUILT_IN)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or(DictionaryError::BuiltIn)?;
    Ok(Dictionary::from_text(text))
}

/// What [`installed`] found.
#[derive(Debug)]
pub enum Installed {
    /// A dictionary: from this file, or the one built in (`None`).
    Loaded {
        dict: Dictionary,
        from: Option<PathBuf>,
    },
    /// A dictionary file is there but cannot be used; the message says why.
    Broken(String),
}

impl Installed {
    pub fn dictionary(&self) -> Option<&Dictionary> {
        match self {
            Installed::Loaded { dict, .. } => Some(dict),
            Installed::Broken(_) => None,
        }
    }

    /// Where the dictionary in use came from, for notes and `status`.
    pub fn source(&self) -> Option<String> {
        match self {
            Installed::Loaded { from: Some(p), .. } => {
                Some(format!("CC-CEDICT from {}", p.display()))
            }
            Installed::Loaded { from: None, .. } => Some("CC-CEDICT (built in)".to_string()),
            Installed::Broken(_) => None,
        }
    }
}

/// Where a dictionary file is looked for, first existing wins; `CODEMAP_CEDICT` is taken as
/// given (a wrong path is reported, not silently skipped). `None`: the built-in one is used.
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

/// Entries written for these tests in CC-CEDICT's format (not copied from it).
#[cfg(test)]
pub(super) const SAMPLE: &str = "\
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_built_in_dictionary_is_cc_cedict_whole() {
        let d = built_in().unwrap();
        // 124,935 entries; a traditional head that differs counts too.
        assert!(d.len() > 150_000, "{}", d.len());
        let first = |w: &str| d.senses(w).unwrap()[0].words.join(" ");
        assert_eq!(first("超时"), "timeout");
        assert_eq!(first("回调"), "callback");
        assert!(
            d.text
                .contains("Creative Commons Attribution-ShareAlike 4.0")
        );
    }
}
