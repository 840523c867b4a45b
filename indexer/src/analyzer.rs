//! The code-aware tantivy analyzer: identifiers indexed whole and split into their words,
//! CJK text as unigrams and bigrams, everything lowercased and English-stemmed.
//!
//! # Tokens
//!
//! - An *identifier* is a run of letters, digits, `_` and `$`. It yields the whole identifier
//!   lowercased (`getextension`) and, when it has more than one word, each word
//!   (`get`, `extension`); see [`split_identifier`] for where words break.
//! - A run of CJK characters (Han, kana, Hangul) yields every character and every pair of
//!   neighbours: `订单状态` → `订`, `订单`, `单`, `单状`, `状`, `状态`, `态`. A query for `订单`
//!   is then the phrase `订 订单 单`, which any text containing `订单` holds.
//! - Tokens longer than [`MAX_TOKEN_BYTES`] are dropped; an identifier longer than that still
//!   yields its words. Identifiers longer than 256 bytes (base64 blobs, hashes) yield nothing.
//! - Everything else (punctuation, whitespace, symbols) separates tokens.
//!
//! Every token then goes through tantivy's English [`Stemmer`]. Stemming the whole identifier is
//! harmless: it only ever trims a suffix (`getextension` → `getextens`), and the query side runs
//! the same analyzer, so both sides agree.
//!
//! # Positions
//!
//! An identifier of `k` words occupies positions `p .. p+k`: word `i` sits at `p+i` and the whole
//! identifier shares position `p` with its first word (its `position_length` is `k`). The next
//! token starts at `p+k`. So `String getExtension(String fileName)` is
//! `string@0 getextension@1 get@1 extension@2 string@3 filename@4 file@4 name@5`, and all of
//! these phrase queries match it: `"get extension"`, `"file name"`, `"getExtension"` (which the
//! query parser turns into the phrase `getextension@0 get@0 extension@1`) and
//! `"string getExtension"`. A CJK run of `n` characters occupies `n` positions; a bigram shares
//! the position of its first character.

use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};

mod stem;
pub use stem::CachedStemmer;

/// The name the analyzer is registered under in a tantivy index.
pub const CODE_TOKENIZER: &str = "code";

/// Tokens longer than this (in bytes, before lowercasing) are not indexed.
pub const MAX_TOKEN_BYTES: usize = 64;

/// Identifiers longer than this are treated as noise (encoded blobs) and yield no token at all.
const MAX_IDENTIFIER_BYTES: usize = 256;

/// Registers [`code_analyzer`] in `index` under [`CODE_TOKENIZER`].
pub fn register(index: &tantivy::Index) {
    index.tokenizers().register(CODE_TOKENIZER, code_analyzer());
}

/// The analyzer: [`CodeTokenizer`] followed by an English stemmer.
pub fn code_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(CodeTokenizer::default())
        .filter(CachedStemmer)
        .build()
}

/// Splits an identifier into its lowercased words, as the analyzer does (without stemming).
///
/// Words break at `_` and `$`, at a lower-to-upper change (`getExtension` → `get`, `extension`),
/// before the last capital of an acronym followed by a lowercase letter (`HTTPServer` →
/// `http`, `server`; a plural `s` stays with its acronym: `URLs` → `urls`) and at a digit-to-upper
/// change (`Int32Value` → `int32`, `value`). Digits stay with the letters before them, so `utf8`,
/// `base64`, `log4j` and `sha256` remain one word and `parseXMLDocument2` gives `parse`, `xml`,
/// `document2`. Something that starts with a digit is a number literal and stays whole (`0xFF` →
/// `0xff`). Any other character separates words too (`a.b` → `a`, `b`); a CJK run is one word.
/// Words longer than [`MAX_TOKEN_BYTES`] are left out.
pub fn split_identifier(ident: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut parts = Vec::new();
    let mut cursor = 0;
    while let Some(word) = next_word(ident, cursor) {
        cursor = word.end;
        match word.kind {
            WordKind::Cjk => parts.push((word.start, word.end)),
            WordKind::Identifier => split_parts(ident, word.start, word.end, &mut parts),
        }
        for &(start, end) in &parts {
            if end - start <= MAX_TOKEN_BYTES {
                let mut text = String::with_capacity(end - start);
                push_lowercase(&mut text, &ident[start..end]);
                out.push(text);
            }
        }
        parts.clear();
    }
    out
}

/// The tokenizer behind [`code_analyzer`]; see the module documentation for what it emits.
/// Tokens come out lowercased but not stemmed.
#[derive(Clone, Default)]
pub struct CodeTokenizer {
    token: Token,
    parts: Vec<(usize, usize)>,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        self.token.reset();
        self.parts.clear();
        CodeTokenStream {
            text,
            cursor: 0,
            next_position: 0,
            token: &mut self.token,
            parts: &mut self.parts,
            pending: Pending::Nothing,
        }
    }
}

/// The stream of [`CodeTokenizer`]; reuses the tokenizer's buffers, allocates nothing per token.
pub struct CodeTokenStream<'a> {
    text: &'a str,
    /// Byte offset where scanning for the next word resumes.
    cursor: usize,
    /// Position of the next word.
    next_position: usize,
    token: &'a mut Token,
    /// Byte ranges of the words of the current identifier.
    parts: &'a mut Vec<(usize, usize)>,
    pending: Pending,
}

/// Tokens still owed for the current word.
#[derive(Clone, Copy)]
enum Pending {
    Nothing,
    /// Words `parts[next..]` of an identifier whose first word sits at `position`.
    Parts {
        next: usize,
        position: usize,
    },
    /// The CJK run `at..end`; the unigram at `at` is emitted when `bigram_next` is false, the
    /// bigram starting at `at` otherwise.
    Cjk {
        at: usize,
        end: usize,
        position: usize,
        bigram_next: bool,
    },
}

impl CodeTokenStream<'_> {
    fn emit(&mut self, start: usize, end: usize, position: usize, position_length: usize) {
        self.token.text.clear();
        push_lowercase(&mut self.token.text, &self.text[start..end]);
        self.token.offset_from = start;
        self.token.offset_to = end;
        self.token.position = position;
        self.token.position_length = position_length;
    }

    /// Scans to the next word and emits its first token; false at the end of the text.
    fn start_word(&mut self) -> Option<bool> {
        let word = next_word(self.text, self.cursor)?;
        self.cursor = word.end;
        let position = self.next_position;
        match word.kind {
            WordKind::Cjk => {
                self.next_position += self.text[word.start..word.end].chars().count();
                self.pending = Pending::Cjk {
                    at: word.start,
                    end: word.end,
                    position,
                    bigram_next: false,
                };
                Some(false)
            }
            WordKind::Identifier => {
                if word.end - word.start > MAX_IDENTIFIER_BYTES {
                    self.next_position += 1;
                    return Some(false);
                }
                split_parts(self.text, word.start, word.end, self.parts);
                let count = self.parts.len();
                if count == 0 {
                    return Some(false); // only `_` and `$`
                }
                self.next_position += count;
                let whole_fits = word.end - word.start <= MAX_TOKEN_BYTES;
                if count == 1 && self.parts[0] == (word.start, word.end) {
                    if whole_fits {
                        self.emit(word.start, word.end, position, 1);
                    }
                    return Some(whole_fits);
                }
                self.pending = Pending::Parts { next: 0, position };
                if whole_fits {
                    self.emit(word.start, word.end, position, count);
                }
                Some(whole_fits)
            }
        }
    }
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        loop {
            match self.pending {
                Pending::Nothing => match self.start_word() {
                    None => return false,
                    Some(true) => return true,
                    Some(false) => continue,
                },
                Pending::Parts { next, position } => {
                    let Some(&(start, end)) = self.parts.get(next) else {
                        self.pending = Pending::Nothing;
                        continue;
                    };
                    self.pending = Pending::Parts {
                        next: next + 1,
                        position,
                    };
                    if end - start <= MAX_TOKEN_BYTES {
                        self.emit(start, end, position + next, 1);
                        return true;
                    }
                }
                Pending::Cjk {
                    at,
                    end,
                    position,
                    bigram_next,
                } => {
                    let Some(first) = self.text[at..end].chars().next() else {
                        self.pending = Pending::Nothing;
                        continue;
                    };
                    let second_start = at + first.len_utf8();
                    if !bigram_next {
                        self.pending = Pending::Cjk {
                            at,
                            end,
                            position,
                            bigram_next: true,
                        };
                        self.emit(at, second_start, position, 1);
                        return true;
                    }
                    self.pending = Pending::Cjk {
                        at: second_start,
                        end,
                        position: position + 1,
                        bigram_next: false,
                    };
                    if let Some(second) = self.text[second_start..end].chars().next() {
                        self.emit(at, second_start + second.len_utf8(), position, 1);
                        return true;
                    }
                }
            }
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum WordKind {
    Identifier,
    Cjk,
}

struct Word {
    start: usize,
    end: usize,
    kind: WordKind,
}

/// The next identifier or CJK run at or after byte `from` of `text`.
fn next_word(text: &str, from: usize) -> Option<Word> {
    let bytes = text.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii() {
            if is_ascii_ident(b) {
                let end = run_end(text, i, WordKind::Identifier);
                return Some(Word {
                    start: i,
                    end,
                    kind: WordKind::Identifier,
                });
            }
            i += 1;
            continue;
        }
        let c = text[i..].chars().next()?;
        let kind = if is_cjk(c) {
            WordKind::Cjk
        } else if c.is_alphanumeric() {
            WordKind::Identifier
        } else {
            i += c.len_utf8();
            continue;
        };
        let end = run_end(text, i, kind);
        return Some(Word {
            start: i,
            end,
            kind,
        });
    }
    None
}

/// End of the run of `kind` characters starting at byte `start`.
fn run_end(text: &str, start: usize, kind: WordKind) -> usize {
    let bytes = text.as_bytes();
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii() {
            if kind == WordKind::Identifier && is_ascii_ident(b) {
                i += 1;
                continue;
            }
            return i;
        }
        let Some(c) = text[i..].chars().next() else {
            return i;
        };
        let same = match kind {
            WordKind::Cjk => is_cjk(c),
            WordKind::Identifier => !is_cjk(c) && c.is_alphanumeric(),
        };
        if !same {
            return i;
        }
        i += c.len_utf8();
    }
    i
}

fn is_ascii_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Han ideographs, kana and Hangul syllables: scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'      // Hiragana, Katakana
        | '\u{31F0}'..='\u{31FF}'    // Katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}'    // CJK extension A
        | '\u{4E00}'..='\u{9FFF}'    // CJK unified ideographs
        | '\u{AC00}'..='\u{D7AF}'    // Hangul syllables
        | '\u{F900}'..='\u{FAFF}'    // CJK compatibility ideographs
        | '\u{20000}'..='\u{2FA1F}') // CJK extensions B–F, compatibility supplement
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum CharClass {
    Upper,
    Lower,
    Digit,
    Separator,
}

fn char_class(c: char) -> CharClass {
    if c.is_ascii() {
        match c {
            'A'..='Z' => CharClass::Upper,
            '0'..='9' => CharClass::Digit,
            '_' | '$' => CharClass::Separator,
            _ => CharClass::Lower,
        }
    } else if c.is_uppercase() {
        CharClass::Upper
    } else if c.is_numeric() {
        CharClass::Digit
    } else {
        CharClass::Lower // lowercase and caseless letters
    }
}

/// Replaces `out` with the byte ranges of the words of the identifier `text[start..end]`
/// (rules on [`split_identifier`]).
fn split_parts(text: &str, start: usize, end: usize, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let word = &text[start..end];
    if word.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        out.push((start, end));
        return;
    }
    let mut part_start: Option<usize> = None;
    let mut prev = CharClass::Separator;
    for (i, c) in word.char_indices() {
        let class = char_class(c);
        if class == CharClass::Separator {
            if let Some(s) = part_start.take() {
                out.push((start + s, start + i));
            }
            prev = class;
            continue;
        }
        let boundary = match (prev, class) {
            (CharClass::Lower | CharClass::Digit, CharClass::Upper) => true,
            (CharClass::Upper, CharClass::Upper) => ends_acronym(&word[i + c.len_utf8()..]),
            _ => false,
        };
        match part_start {
            Some(s) if boundary => {
                out.push((start + s, start + i));
                part_start = Some(i);
            }
            Some(_) => {}
            None => part_start = Some(i),
        }
        prev = class;
    }
    if let Some(s) = part_start {
        out.push((start + s, end));
    }
}

/// Whether an uppercase letter preceded by another and followed by `rest` starts a new word:
/// it does when a lowercase letter follows (`HTTPServer`: `S`), except for a lone plural `s`
/// (`URLs`, `IDsFor`).
fn ends_acronym(rest: &str) -> bool {
    let mut chars = rest.chars();
    match chars.next() {
        Some('s') => chars
            .next()
            .is_some_and(|c| char_class(c) == CharClass::Lower),
        Some(c) => char_class(c) == CharClass::Lower,
        None => false,
    }
}

fn push_lowercase(out: &mut String, s: &str) {
    if s.is_ascii() {
        let from = out.len();
        out.push_str(s);
        out[from..].make_ascii_lowercase();
    } else {
        for c in s.chars() {
            out.extend(c.to_lowercase());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::collector::Count;
    use tantivy::query::QueryParser;
    use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
    use tantivy::{Index, TantivyDocument, doc};

    /// `(text, position)` pairs from the tokenizer alone (no stemming).
    fn raw(text: &str) -> Vec<(String, usize)> {
        let mut tokenizer = CodeTokenizer::default();
        let mut stream = tokenizer.token_stream(text);
        let mut out = Vec::new();
        while let Some(t) = stream.next() {
            assert_eq!(&text[t.offset_from..t.offset_to].to_lowercase(), &t.text);
            out.push((t.text.clone(), t.position));
        }
        out
    }

    fn analyzed(text: &str) -> Vec<String> {
        let mut analyzer = code_analyzer();
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while let Some(t) = stream.next() {
            out.push(t.text.clone());
        }
        out
    }

    fn pairs(expected: &[(&str, usize)]) -> Vec<(String, usize)> {
        expected.iter().map(|&(t, p)| (t.to_string(), p)).collect()
    }

    #[test]
    fn splits_identifiers_into_words() {
        let cases: &[(&str, &[&str])] = &[
            ("getHTTPResponseCode", &["get", "http", "response", "code"]),
            ("snake_case_name", &["snake", "case", "name"]),
            ("HTTPServer", &["http", "server"]),
            ("parseXMLDocument2", &["parse", "xml", "document2"]),
            ("IOException", &["io", "exception"]),
            ("getURLs", &["get", "urls"]),
            ("IDsForUser", &["ids", "for", "user"]),
            ("utf8", &["utf8"]),
            ("Int32Value", &["int32", "value"]),
            ("UTF8String", &["utf8", "string"]),
            ("log4jConfig", &["log4j", "config"]),
            ("MAX_VALUE", &["max", "value"]),
            ("$jacocoData", &["jacoco", "data"]),
            ("Outer$Inner", &["outer", "inner"]),
            ("__init__", &["init"]),
            ("0xFF", &["0xff"]),
            ("ÜberKlasse", &["über", "klasse"]),
            ("a.b", &["a", "b"]),
            ("_", &[]),
            ("", &[]),
        ];
        for (input, expected) in cases {
            assert_eq!(split_identifier(input), *expected, "input {input:?}");
        }
    }

    #[test]
    fn camel_case_emits_whole_then_words_at_shared_positions() {
        assert_eq!(
            raw("public String getExtension(String fileName)"),
            pairs(&[
                ("public", 0),
                ("string", 1),
                ("getextension", 2),
                ("get", 2),
                ("extension", 3),
                ("string", 4),
                ("filename", 5),
                ("file", 5),
                ("name", 6),
            ])
        );
    }

    #[test]
    fn acronyms_and_digits() {
        assert_eq!(
            raw("new HTTPServer(); parseXMLDocument2"),
            pairs(&[
                ("new", 0),
                ("httpserver", 1),
                ("http", 1),
                ("server", 2),
                ("parsexmldocument2", 3),
                ("parse", 3),
                ("xml", 4),
                ("document2", 5),
            ])
        );
    }

    #[test]
    fn cjk_runs_become_unigrams_and_bigrams() {
        assert_eq!(
            raw("// 订单状态 ok"),
            pairs(&[
                ("订", 0),
                ("订单", 0),
                ("单", 1),
                ("单状", 1),
                ("状", 2),
                ("状态", 2),
                ("态", 3),
                ("ok", 4),
            ])
        );
        assert_eq!(
            raw("订单Service"),
            pairs(&[("订", 0), ("订单", 0), ("单", 1), ("service", 2)])
        );
        assert_eq!(raw("中"), pairs(&[("中", 0)]));
    }

    #[test]
    fn long_tokens_are_dropped() {
        let long_word = "a".repeat(65);
        assert_eq!(
            raw(&format!("x {long_word} y")),
            pairs(&[("x", 0), ("y", 2)])
        );
        // Too long as a whole, but its words are fine.
        let long_ident = format!("{}_{}", "b".repeat(40), "c".repeat(40));
        assert_eq!(
            raw(&long_ident),
            pairs(&[(&"b".repeat(40), 0), (&"c".repeat(40), 1)])
        );
        // A blob yields nothing but still takes a position.
        let blob = "aB".repeat(200);
        assert_eq!(raw(&format!("x {blob} y")), pairs(&[("x", 0), ("y", 2)]));
    }

    #[test]
    fn punctuation_only_yields_nothing() {
        assert!(raw("  {}();,.-+*/ 。，").is_empty());
        assert!(raw("").is_empty());
        assert_eq!(raw("_ x"), pairs(&[("x", 0)]));
    }

    #[test]
    fn stemming_makes_inflections_meet() {
        assert_eq!(analyzed("deleting"), analyzed("delete"));
        assert_eq!(analyzed("deleteUsers")[1..], analyzed("deletingUser")[1..]);
        // The stemmer leaves CJK and digits alone.
        assert_eq!(analyzed("订单 utf8"), ["订", "订单", "单", "utf8"]);
    }

    fn index_with(texts: &[&str]) -> (Index, tantivy::schema::Field) {
        let mut schema = Schema::builder();
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(CODE_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions);
        let body = schema.add_text_field(
            "body",
            TextOptions::default().set_indexing_options(indexing),
        );
        let index = Index::create_in_ram(schema.build());
        register(&index);
        let mut writer = index.writer::<TantivyDocument>(15_000_000).unwrap();
        for text in texts {
            writer.add_document(doc!(body => *text)).unwrap();
        }
        writer.commit().unwrap();
        (index, body)
    }

    fn hits(index: &Index, body: tantivy::schema::Field, query: &str) -> usize {
        let mut parser = QueryParser::for_index(index, vec![body]);
        parser.set_conjunction_by_default();
        let query = parser.parse_query(query).unwrap();
        index
            .reader()
            .unwrap()
            .searcher()
            .search(&query, &Count)
            .unwrap()
    }

    #[test]
    fn identifiers_are_found_by_whole_name_words_and_phrases() {
        let (index, body) = index_with(&[
            "public String getExtension(String fileName)",
            "int unrelated = 0;",
        ]);
        for query in [
            "extension",
            "getExtension",
            "getextension",
            "get extension",
            "\"get extension\"",
            "file name",
            "\"file name\"",
            "fileName",
            "\"String getExtension\"",
            "\"getExtension String\"",
            "extensions",
        ] {
            assert_eq!(hits(&index, body, query), 1, "query {query:?}");
        }
        for query in ["\"extension get\"", "banana", "\"public getExtension\""] {
            assert_eq!(hits(&index, body, query), 0, "query {query:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn token_streams_are_well_formed(
            text in "[a-zA-Z0-9_$ .(){}\n\t\u{e9}\u{130}\u{4e00}-\u{4e10}\u{ac00}\u{ff10}\u{1f600}-]{0,80}"
        ) {
            let mut tokenizer = CodeTokenizer::default();
            let mut stream = tokenizer.token_stream(&text);
            let mut last = 0;
            while let Some(t) = stream.next() {
                proptest::prop_assert!(!t.text.is_empty());
                proptest::prop_assert!(t.offset_from < t.offset_to && t.offset_to <= text.len());
                proptest::prop_assert!(text.is_char_boundary(t.offset_from));
                proptest::prop_assert!(text.is_char_boundary(t.offset_to));
                proptest::prop_assert!(t.offset_to - t.offset_from <= MAX_TOKEN_BYTES);
                proptest::prop_assert!(t.position >= last, "positions go back at {:?}", t);
                last = t.position;
            }
            let _ = split_identifier(&text);
        }
    }

    #[test]
    fn chinese_comments_are_found_by_their_words() {
        let (index, body) = index_with(&["// 更新订单状态\nvoid update() {}", "// 用户"]);
        assert_eq!(hits(&index, body, "订单"), 1);
        assert_eq!(hits(&index, body, "订单状态"), 1);
        assert_eq!(hits(&index, body, "状态订单"), 0);
        assert_eq!(hits(&index, body, "用户"), 1);
    }

    #[test]
    fn cached_stemming_matches_tantivys_stemmer_even_on_repeats() {
        use tantivy::tokenizer::{Language, Stemmer};
        let text = "deleting deleted deletes getExtension extensions running runs RUNNING getExtension 订单状态 utf8";
        let mut plain = TextAnalyzer::builder(CodeTokenizer::default())
            .filter(Stemmer::new(Language::English))
            .build();
        let mut cached = code_analyzer();
        let collect = |a: &mut TextAnalyzer| {
            let mut out = Vec::new();
            let mut ts = a.token_stream(text);
            while ts.advance() {
                out.push((ts.token().text.clone(), ts.token().position));
            }
            out
        };
        let expected = collect(&mut plain);
        assert_eq!(collect(&mut cached), expected);
        assert_eq!(
            collect(&mut cached),
            expected,
            "second pass served from the memo"
        );
    }
}
