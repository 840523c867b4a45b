//! Question understanding: what kind of answer is wanted (intent), which identifiers are named,
//! and which weighted search terms stand for the rest (stems, code synonyms, Chinese by segmenter and dictionary).
//!
//! Pure functions over the question text; nothing here reads the index.

pub(crate) mod code;
mod intent;
pub mod lexicon;
pub mod patch;
pub mod zh;

use crate::terms::{self, is_cjk};
use intent::{asks_any, asks_any_word, asks_anything, detect_intent, kind_hint};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What the asker wants back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Intent {
    /// Where is behaviour X implemented.
    Locate,
    /// Where is type/thing X declared.
    Definition,
    /// Who calls X.
    Callers,
    /// What does X call.
    Callees,
    /// How does A lead to B (a call chain).
    Flow,
    /// Where is a setting read.
    Config,
    /// A pasted stack trace: take me to the frames.
    Trace,
    /// What is affected if X changes.
    Impact,
}

impl Intent {
    pub fn as_str(self) -> &'static str {
        match self {
            Intent::Locate => "locate",
            Intent::Definition => "definition",
            Intent::Callers => "callers",
            Intent::Callees => "callees",
            Intent::Flow => "flow",
            Intent::Config => "config",
            Intent::Trace => "trace",
            Intent::Impact => "impact",
        }
    }
}

/// Which kind of declaration a definition question asks for, when it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KindHint {
    Type,
    Class,
    Interface,
    Enum,
    Annotation,
}

/// An identifier written in the question (`FileUtils.copyDirectory`, `deduct_stock`, `getBOM`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ident {
    /// As written, `#` turned into `.`, call parentheses dropped.
    pub text: String,
    /// Last segment: the simple name.
    pub name: String,
    /// Everything before the last segment (`FileUtils`, `org.x.Foo`), if any.
    pub qualifier: Option<String>,
    /// Written as a call with arguments on a variable (`log.error("failed", e)`): a line of
    /// the asker's own code, which a question about what happens inside is not asking for.
    pub snippet: bool,
}

/// Where a search term came from; decides its weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TermOrigin {
    /// A content word of the question.
    Word,
    /// A word of an identifier the question names.
    Identifier,
    /// The main English sense of a Chinese word (`question::zh`).
    Translation,
    /// A further English sense of a Chinese word: weaker, the dictionary cannot say which one a
    /// code question means.
    AltTranslation,
    /// A spelled-out abbreviation (`dir` → `directory`).
    Spelling,
    /// A code synonym of a question word.
    Synonym,
    /// A keyword suggested by an LLM rewrite.
    Rewrite,
    /// A kind word ("type", "object") in a question that does not ask for a definition: it may
    /// name the subject ("parse a type", "class loader").
    KindWord,
}

impl TermOrigin {
    pub fn weight(self) -> f32 {
        match self {
            TermOrigin::Word | TermOrigin::Identifier | TermOrigin::Translation => 1.0,
            TermOrigin::Spelling => 0.8,
            TermOrigin::AltTranslation => 0.5,
            TermOrigin::Rewrite => 0.6,
            TermOrigin::KindWord => 0.5,
            TermOrigin::Synonym => 0.3,
        }
    }
}

/// One search term: a stem as the index holds it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Term {
    pub stem: String,
    /// The word it was made from (for display and for query strings).
    pub word: String,
    pub weight: f32,
    pub origin: TermOrigin,
}

/// A frame of a pasted stack trace: `at org.x.Foo.bar(Foo.java:42)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Frame {
    /// `org.x.Foo` (inner classes dotted); empty for formats that name the file (Python).
    pub class: String,
    /// The function as the source names it: a lambda's enclosing method (`lambda$run$0` → `run`),
    /// `<init>` for a constructor, `<clinit>` for a static initializer, `<module>` for Python
    /// module code; empty when the format does not say.
    pub method: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    /// Which exception of the trace it belongs to: 0 for the first, 1 after the first
    /// `Caused by:`, and so on. The deepest cause is where the failure started.
    pub cause: u16,
}

/// A question, understood.
#[derive(Debug, Clone, Serialize)]
pub struct Question {
    pub text: String,
    pub intent: Intent,
    pub identifiers: Vec<Ident>,
    /// Neighbouring content words, for proximity matching (`missing node`, `no serializer
    /// found` against a message or a `missingNode`).
    pub pairs: Vec<(String, String)>,
    /// A message the question reports in its own words ("an error saying no serializer was
    /// found"): the content words after "saying", "says", "message" … in that sentence.
    pub message: Vec<String>,
    /// Quoted strings and dotted keys (`'tail -f'`, `os.name`): text to look for literally.
    pub literals: Vec<String>,
    /// Weighted search terms, strongest first, one per stem.
    pub terms: Vec<Term>,
    /// Chinese words with no English, kept for full-text matching of comments.
    pub cjk: Vec<String>,
    /// The question has Chinese words but no zh→en dictionary is installed (or it is broken: the
    /// message says why), so they were searched as written.
    pub zh_untranslated: Option<String>,
    /// The dictionary Chinese words were translated with (`CC-CEDICT (built in)`), when one was.
    pub zh_dictionary: Option<String>,
    pub kind_hint: Option<KindHint>,
    pub frames: Vec<Frame>,
    /// A pasted unified diff ("what does this break?"), file by file.
    pub patch: Vec<patch::FilePatch>,
    /// The question asks about tests (so tests are not demoted).
    pub wants_tests: bool,
    /// The question asks about generated or vendored code.
    pub wants_generated: bool,
    /// The question asks about example or demo programs.
    pub wants_examples: bool,
    /// No sentence asks anything: a pasted bug report or issue, or bare keywords. The types it
    /// names are its subject, not the context of a question about something else.
    pub reports: bool,
}

impl Question {
    /// Terms as a plain query string (each word once), strongest first.
    pub fn query_string(&self) -> String {
        let mut words: Vec<&str> = self.terms.iter().map(|t| t.word.as_str()).collect();
        words.extend(self.identifiers.iter().map(|i| i.name.as_str()));
        words.extend(self.cjk.iter().map(String::as_str));
        words.join(" ")
    }

    /// Weight of a stem in this question (0 when absent).
    pub fn weight_of(&self, stem: &str) -> f32 {
        self.terms
            .iter()
            .find(|t| t.stem == stem)
            .map(|t| t.weight)
            .unwrap_or(0.0)
    }

    /// Adds keywords (e.g. from an LLM rewrite) as extra terms.
    pub fn add_rewrite_terms(&mut self, words: &[String]) {
        let mut acc = TermAcc::from(&self.terms);
        for w in words {
            for t in terms::analyze(w) {
                acc.add(&t, w, TermOrigin::Rewrite);
            }
        }
        self.terms = acc.finish();
    }
}

/// Understands a question, with the Chinese dictionary codemap found installed.
pub fn understand(text: &str) -> Question {
    understand_named(text, &|_| false)
}

/// Understands a question, with the Chinese dictionary codemap found installed; `named` says
/// whether the code at hand names something with an English word (it picks among a Chinese
/// word's senses: [`zh::translate`]).
pub fn understand_named(text: &str, named: &dyn Fn(&str) -> bool) -> Question {
    // The dictionary is read at the first Chinese question, not before.
    if !text.chars().any(is_cjk) {
        return understand_in(text, None, named);
    }
    let installed = zh::installed();
    let mut q = understand_in(text, installed.dictionary(), named);
    if let (Some(_), zh::Installed::Broken(why)) = (&q.zh_untranslated, installed) {
        q.zh_untranslated = Some(why.clone());
    }
    q.zh_dictionary = installed.source();
    q
}

/// Understands a question with a given zh→en dictionary (none: Chinese words stay Chinese).
pub fn understand_with(text: &str, zh_dict: Option<&zh::Dictionary>) -> Question {
    understand_in(text, zh_dict, &|_| false)
}

/// Understands a question with a given zh→en dictionary and the code's names ([`understand_named`]).
pub fn understand_in(
    text: &str,
    zh_dict: Option<&zh::Dictionary>,
    named: &dyn Fn(&str) -> bool,
) -> Question {
    let frames = parse_frames(text);
    let patch = patch::parse_patch(text);
    let lower = text.to_lowercase();
    let identifiers = find_identifiers(text);
    let literals = find_literals(text);
    let kind_hint = kind_hint(&lower);
    // A pasted diff is asked about for what it changes and what that reaches.
    let intent = if patch.is_empty() {
        detect_intent(&lower, &identifiers, &frames, kind_hint)
    } else {
        Intent::Impact
    };

    let mut acc = TermAcc::default();
    let mut content_words: Vec<String> = Vec::new();
    let mut cjk = Vec::new();
    let mut has_chinese = false;
    identifier_terms(&identifiers, &mut acc);
    for word in words(text) {
        if word.chars().any(is_cjk) {
            has_chinese = true;
            cjk.extend(chinese_terms(
                &word,
                zh_dict,
                named,
                &mut acc,
                &mut content_words,
            ));
            continue;
        }
        if identifiers
            .iter()
            .any(|i| i.text.split('.').any(|p| p == word))
        {
            continue;
        }
        word_terms(&word, intent, &mut acc, &mut content_words);
    }
    synonym_terms(&mut acc);
    let pairs = word_pairs(&content_words);
    let lower_all = lower.as_str();
    Question {
        text: text.to_string(),
        intent,
        identifiers,
        message: reported_message(text),
        pairs,
        literals,
        terms: acc.finish(),
        cjk,
        zh_untranslated: (has_chinese && zh_dict.is_none())
            .then(|| "no zh→en dictionary is installed".to_string()),
        zh_dictionary: None,
        kind_hint,
        frames,
        patch,
        wants_tests: wants_tests(lower_all),
        wants_generated: has_any_word(
            lower_all,
            &["generated", "vendored", "vendor", "third-party", "生成"],
        ),
        wants_examples: has_any_word(
            lower_all,
            &[
                "example", "examples", "sample", "samples", "demo", "demos", "示例", "例子",
            ],
        ),
        reports: !asks_anything(lower_all),
    }
}

/// The terms of each identifier's parts (`FileUtils.copyFile` → file, utils, copy, file).
fn identifier_terms(identifiers: &[Ident], acc: &mut TermAcc) {
    for ident in identifiers {
        for part in ident.text.split('.') {
            for w in indexer::analyzer::split_identifier(part) {
                if !is_stop(&w) {
                    acc.add(&terms::stem(&w), &w, TermOrigin::Identifier);
                }
            }
        }
    }
}

/// The English terms of a Chinese word's translation (its first sense a translation, the others
/// alternatives; the first sense's words are content words too), and the pieces left Chinese.
fn chinese_terms(
    word: &str,
    zh_dict: Option<&zh::Dictionary>,
    named: &dyn Fn(&str) -> bool,
    acc: &mut TermAcc,
    content_words: &mut Vec<String>,
) -> Vec<String> {
    let mut cjk = Vec::new();
    for piece in zh::translate(word, zh_dict, named) {
        match piece {
            zh::Piece::English { senses, weak, .. } => {
                for (i, sense) in senses.iter().enumerate() {
                    let origin = if i == 0 && !weak {
                        TermOrigin::Translation
                    } else {
                        TermOrigin::AltTranslation
                    };
                    for e in sense.iter().filter(|e| !is_stop(e)) {
                        acc.add(&terms::stem(e), e, origin);
                        if i == 0 {
                            content_words.push(e.to_string());
                        }
                    }
                }
            }
            zh::Piece::Chinese(s) => cjk.push(s),
            zh::Piece::Function(_) => {}
        }
    }
    cjk
}

/// The terms of a plain word's parts: kind words, content words and their other spellings.
fn word_terms(word: &str, intent: Intent, acc: &mut TermAcc, content_words: &mut Vec<String>) {
    for w in indexer::analyzer::split_identifier(word) {
        // Numbers of three digits or more (a status code, a port) are literals code holds.
        let digits = w.chars().all(|c| c.is_ascii_digit());
        if intent != Intent::Definition && lexicon::KIND_WORDS.contains(&w.as_str()) {
            acc.add(&terms::stem(&w), &w, TermOrigin::KindWord);
            content_words.push(w.clone());
            continue;
        }
        if is_stop(&w) || w.len() < 2 || (digits && w.len() < 3) {
            continue;
        }
        acc.add(&terms::stem(&w), &w, TermOrigin::Word);
        content_words.push(w.clone());
        // Abbreviations both ways: code writes `dir` and `directory`, `max` and `maximum`.
        for (short, full) in lexicon::SPELLINGS {
            if *short == w {
                acc.add(&terms::stem(full), full, TermOrigin::Spelling);
            } else if *full == w {
                // The short form hides inside many identifiers (`srcDir`): weak evidence.
                acc.add(&terms::stem(short), short, TermOrigin::Synonym);
            }
        }
    }
}

/// Synonyms of every direct word, at a low weight.
fn synonym_terms(acc: &mut TermAcc) {
    let direct: Vec<(String, String)> = acc
        .terms
        .iter()
        .filter(|t| t.origin != TermOrigin::Synonym)
        .map(|t| (t.word.clone(), t.stem.clone()))
        .collect();
    for (word, stem) in &direct {
        for group in lexicon::SYNONYMS {
            if group.iter().any(|g| g == word || terms::stem(g) == *stem) {
                for g in group.iter() {
                    if !is_stop(g) {
                        acc.add(&terms::stem(g), g, TermOrigin::Synonym);
                    }
                }
            }
        }
    }
}

/// Adjacent content words, each distinct pair once.
fn word_pairs(content_words: &[String]) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for w in content_words.windows(2) {
        let p = (w[0].clone(), w[1].clone());
        if p.0 != p.1 && !pairs.contains(&p) {
            pairs.push(p);
        }
    }
    pairs
}

/// Whether the question asks for tests. "test" alone is often the check a question is about
/// ("the a*n+b position test"); a bug report's "Added tests" says what was done, not what is
/// asked for.
fn wants_tests(lower: &str) -> bool {
    asks_any_word(
        lower,
        &[
            "tests",
            "testing",
            "junit",
            "测试",
            "benchmark",
            "benchmarks",
            "jmh",
        ],
    ) || asks_any(
        lower,
        &[
            "unit test",
            "test case",
            "test class",
            "test code",
            "test suite",
            "in the test",
        ],
    )
}

/// Accumulates terms, one per stem, keeping the strongest origin.
#[derive(Default)]
struct TermAcc {
    terms: Vec<Term>,
    index: HashMap<String, usize>,
}

impl TermAcc {
    fn from(terms: &[Term]) -> TermAcc {
        let mut acc = TermAcc::default();
        for t in terms {
            acc.add(&t.stem, &t.word, t.origin);
        }
        acc
    }

    fn add(&mut self, stem: &str, word: &str, origin: TermOrigin) {
        if stem.is_empty() {
            return;
        }
        let weight = origin.weight();
        match self.index.get(stem) {
            Some(&i) => {
                if self.terms[i].weight < weight {
                    self.terms[i].weight = weight;
                    self.terms[i].origin = origin;
                    self.terms[i].word = word.to_string();
                }
            }
            None => {
                self.index.insert(stem.to_string(), self.terms.len());
                self.terms.push(Term {
                    stem: stem.to_string(),
                    word: word.to_string(),
                    weight,
                    origin,
                });
            }
        }
    }

    fn finish(self) -> Vec<Term> {
        let mut t = self.terms;
        // Stable: question order among equal weights.
        t.sort_by(|a, b| b.weight.total_cmp(&a.weight));
        t
    }
}

/// Words that introduce a message quoted from memory.
const MESSAGE_CUES: &[&str] = &[
    "saying",
    "says",
    "said",
    "message",
    "complaining",
    "complains",
];

/// The content words after a message cue, up to the end of its sentence.
fn reported_message(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for sentence in text.split(['.', '?', '!', ';', '\n']) {
        let ws = words(sentence);
        let Some(at) = ws
            .iter()
            .position(|w| MESSAGE_CUES.contains(&w.to_lowercase().as_str()))
        else {
            continue;
        };
        for w in &ws[at + 1..] {
            if w.chars().any(is_cjk) || is_stop(w) || w.chars().count() < 2 {
                continue;
            }
            out.extend(indexer::analyzer::split_identifier(w));
        }
    }
    out
}

pub(crate) fn is_stop(w: &str) -> bool {
    let w = w.to_lowercase();
    lexicon::STOP_WORDS.contains(&w.as_str())
}

fn has_any_word(lower: &str, words: &[&str]) -> bool {
    words.iter().any(|w| {
        if w.chars().any(is_cjk) {
            return lower.contains(w);
        }
        lower
            .split(|c: char| !(c.is_alphanumeric() || c == '-'))
            .any(|x| x == *w)
    })
}

/// Words of the text: identifier-ish runs (letters, digits, `_`, `$`) and CJK runs.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut cur_cjk = false;
    for c in text.chars() {
        let cjk = is_cjk(c);
        let word_char = c.is_alphanumeric() || c == '_' || c == '$';
        if word_char && (cur.is_empty() || cjk == cur_cjk) {
            cur.push(c);
            cur_cjk = cjk;
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if word_char {
                cur.push(c);
                cur_cjk = cjk;
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Identifiers written in the question: camelCase, PascalCase with two humps, snake_case,
/// `Type.member` / `Type#member`, anything followed by `(` or inside backticks.
pub fn find_identifiers(text: &str) -> Vec<Ident> {
    let mut out: Vec<Ident> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !(c.is_ascii_alphabetic() || c == '_' || c == '$')
            || (i > 0 && is_ident_char(chars[i - 1]))
        {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len()
            && (is_ident_char(chars[i])
                || ((chars[i] == '.' || chars[i] == '#')
                    && i + 1 < chars.len()
                    && (chars[i + 1].is_ascii_alphabetic() || chars[i + 1] == '_')))
        {
            i += 1;
        }
        let raw: String = chars[start..i].iter().collect();
        let called = chars.get(i) == Some(&'(');
        let ticked = start > 0 && chars[start - 1] == '`';
        let text = raw.replace('#', ".");
        let parts: Vec<&str> = text.split('.').collect();
        let name = parts.last().copied().unwrap_or("").to_string();
        let looks = parts.iter().any(|p| looks_like_identifier(p))
            || called
            || ticked
            || (parts.len() > 1
                && parts[..parts.len() - 1]
                    .iter()
                    .any(|p| p.starts_with(char::is_uppercase)));
        if looks && name.len() >= 2 {
            let qualifier = (parts.len() > 1).then(|| parts[..parts.len() - 1].join("."));
            // Lower-case dotted keys (`os.name`) are literals, not identifiers; a call
            // (`log.info(`) is not a key.
            let dotted_key = !called
                && parts.len() > 1
                && parts
                    .iter()
                    .all(|p| p.chars().all(|c| c.is_lowercase() || c.is_ascii_digit()));
            let on_variable = parts.len() > 1
                && parts[parts.len() - 2].starts_with(|c: char| c.is_ascii_lowercase());
            let with_args = called
                && chars[i + 1..]
                    .iter()
                    .find(|c| !c.is_whitespace())
                    .is_some_and(|&c| c != ')');
            if !dotted_key && !out.iter().any(|o| o.text == text) {
                out.push(Ident {
                    text,
                    name,
                    qualifier,
                    snippet: on_variable && with_args,
                });
            }
        }
    }
    possessive_members(text, &mut out);
    kind_named_types(text, &mut out);
    out
}

/// "the Parser class", "the Valve interface": a one-word type name, which alone would read as
/// a plain word. Not an acronym (`the JSON class`) nor a language's name.
fn kind_named_types(text: &str, out: &mut Vec<Ident>) {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !is_ident_char(c)))
        .collect();
    for k in 1..words.len().saturating_sub(1) {
        let w = words[k];
        let kind = matches!(words[k + 1], "class" | "interface" | "enum" | "annotation");
        let the = words[k - 1].eq_ignore_ascii_case("the");
        let capitalised = w.starts_with(|c: char| c.is_ascii_uppercase())
            && w.chars().any(|c| c.is_lowercase())
            && w.len() >= 3
            && w.chars().all(is_ident_char);
        // "the Kotlin class …": a language's name, not a type's.
        let language = matches!(w, "Scala" | "Groovy")
            || indexer::lang::REGISTRY
                .iter()
                .any(|s| s.language.as_str().eq_ignore_ascii_case(w));
        if kind && the && capitalised && !language && !out.iter().any(|i| i.text == w) {
            out.push(Ident {
                text: w.to_string(),
                name: w.to_string(),
                qualifier: None,
                snippet: false,
            });
        }
    }
}

/// "MailSink's publish method", "ObjectMapper's internal _convert method": the member of a
/// named type, written after its possessive. The member is the word before "method",
/// "constructor" or "field", or an identifier, within the three words after the type. A
/// member already written as an identifier gets the type as its qualifier.
fn possessive_members(text: &str, out: &mut Vec<Ident>) {
    let types: Vec<String> = out
        .iter()
        .filter(|i| i.qualifier.is_none() && i.name.starts_with(|c: char| c.is_uppercase()))
        .map(|i| i.name.clone())
        .collect();
    for ty in types {
        for suffix in ["'s ", "\u{2019}s "] {
            let Some(at) = text.find(&format!("{ty}{suffix}")) else {
                continue;
            };
            let rest = &text[at + ty.len() + suffix.len()..];
            let words: Vec<&str> = rest
                .split_whitespace()
                .take(4)
                .map(|w| w.trim_end_matches(|c: char| !is_ident_char(c)))
                .collect();
            let known = |w: &str| {
                out.iter()
                    .position(|i| i.qualifier.is_none() && i.name == w)
            };
            let member = (0..words.len().min(3)).find_map(|k| {
                let w = words[k];
                let before_kind = words
                    .get(k + 1)
                    .is_some_and(|n| matches!(*n, "method" | "constructor" | "field"));
                let valid = w.len() >= 2 && w.chars().all(is_ident_char);
                (valid && (known(w).is_some() || before_kind)).then_some(w)
            });
            let Some(member) = member else { continue };
            let ident = Ident {
                text: format!("{ty}.{member}"),
                name: member.to_string(),
                qualifier: Some(ty.clone()),
                snippet: false,
            };
            match known(member) {
                Some(k) => out[k] = ident,
                None => out.push(ident),
            }
        }
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// camelCase (`getBOM`, `isSymlink`), PascalCase with two humps (`FileUtils`, `IOCase`),
/// snake_case (`deduct_stock`) or an internal member's leading underscore (`_convert`).
fn looks_like_identifier(w: &str) -> bool {
    let chars: Vec<char> = w.chars().collect();
    if chars.len() < 3 {
        return false;
    }
    if chars[0] == '_' && chars[1..].iter().any(|c| c.is_alphabetic()) {
        return true;
    }
    let inner_underscore = w.trim_matches('_').contains('_') && w.chars().any(|c| c.is_lowercase());
    let lower_then_upper = chars
        .windows(2)
        .any(|p| p[0].is_lowercase() && p[1].is_uppercase());
    let upper_run_then_lower = chars
        .windows(3)
        .any(|p| p[0].is_uppercase() && p[1].is_uppercase() && p[2].is_lowercase());
    inner_underscore || lower_then_upper || upper_run_then_lower
}

/// Quoted strings and lower-case dotted keys.
fn find_literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for q in ['\'', '"', '`'] {
        let mut parts = text.split(q);
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.clone().next()) {
            let s = inside.trim();
            if !s.is_empty() && s.len() <= 40 && !out.contains(&s.to_string()) {
                out.push(s.to_string());
            }
        }
    }
    for w in text.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')' || c == '?')
    {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        let parts: Vec<&str> = w.split('.').collect();
        if parts.len() > 1
            && parts.iter().all(|p| {
                !p.is_empty()
                    && p.chars()
                        .all(|c| c.is_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
            })
            && !out.contains(&w.to_string())
        {
            out.push(w.to_string());
        }
    }
    out
}

/// Frames of pasted failure output, in any registered language's format.
pub fn parse_frames(text: &str) -> Vec<Frame> {
    indexer::lang::trace_frames(text)
        .into_iter()
        .map(|f| Frame {
            class: f.owner,
            method: f.function,
            file: f.file,
            line: f.line,
            cause: f.cause,
        })
        .collect()
}

#[cfg(test)]
mod tests;
