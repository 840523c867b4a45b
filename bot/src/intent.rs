//! What a message asks the bot to do, from its text alone: help, or a question with an optional
//! repository selector (`repo:NAME`, `in NAME: …`). Which kind of question (callers, flow, a
//! pasted trace or diff) is the query side's to detect.

/// A message, understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    Help,
    Ask {
        /// The repository the message names, if any (checked against the scope later).
        repo: Option<String>,
        question: String,
    },
}

/// Longest question accepted (a pasted stack trace or diff fits; a whole file does not).
pub const MAX_QUESTION: usize = 20_000;

/// Why a message is not a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Empty,
    TooLong(usize),
    /// `repo:` with no or a malformed name.
    BadSelector(String),
}

pub fn parse(text: &str) -> Result<Intent, Refusal> {
    let text = text.trim();
    if text.chars().count() > MAX_QUESTION {
        return Err(Refusal::TooLong(text.chars().count()));
    }
    let bare = text
        .trim_start_matches('/')
        .trim_end_matches(['?', '？', '!', '.'])
        .trim()
        .to_lowercase();
    if matches!(
        bare.as_str(),
        "" | "help" | "codemap" | "codemap help" | "usage" | "帮助" | "怎么用" | "用法"
    ) {
        return if text.is_empty() {
            Err(Refusal::Empty)
        } else {
            Ok(Intent::Help)
        };
    }
    let (repo, question) = selector(text)?;
    if question.trim().is_empty() {
        return Err(Refusal::Empty);
    }
    Ok(Intent::Ask {
        repo,
        question: question.trim().to_string(),
    })
}

/// `repo:NAME` anywhere (as a word), or a leading `in NAME:` / `在 NAME:`; removed from the
/// question.
fn selector(text: &str) -> Result<(Option<String>, String), Refusal> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if let Some(i) = words
        .iter()
        .position(|w| w.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("repo:")))
    {
        let name = words[i][5..].trim_end_matches([',', ';', '?', '？']);
        if !valid_repo(name) {
            return Err(Refusal::BadSelector(words[i].to_string()));
        }
        // Keep line breaks of a pasted trace or diff: cut the selector out of the text itself.
        let start = word_offset(text, i);
        let question = format!("{}{}", &text[..start], &text[start + words[i].len()..]);
        return Ok((Some(name.to_string()), question));
    }
    for lead in ["in ", "In ", "IN ", "在"] {
        if let Some(rest) = text.strip_prefix(lead) {
            let rest = rest.trim_start();
            if let Some(colon) = rest.find([':', '：']) {
                let name = rest[..colon].trim();
                let name = name
                    .strip_suffix("里")
                    .or_else(|| name.strip_suffix("中"))
                    .unwrap_or(name)
                    .trim();
                if valid_repo(name) {
                    let sep = rest[colon..]
                        .chars()
                        .next()
                        .map(char::len_utf8)
                        .unwrap_or(1);
                    return Ok((Some(name.to_string()), rest[colon + sep..].to_string()));
                }
            }
        }
    }
    Ok((None, text.to_string()))
}

/// Byte offset of the `i`-th whitespace-separated word of `text`.
fn word_offset(text: &str, i: usize) -> usize {
    let mut n = 0;
    let mut in_word = false;
    for (off, c) in text.char_indices() {
        if c.is_whitespace() {
            in_word = false;
        } else if !in_word {
            if n == i {
                return off;
            }
            n += 1;
            in_word = true;
        }
    }
    text.len()
}

fn valid_repo(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(repo: Option<&str>, q: &str) -> Result<Intent, Refusal> {
        Ok(Intent::Ask {
            repo: repo.map(String::from),
            question: q.into(),
        })
    }

    #[test]
    fn help_in_both_languages() {
        for t in ["help", "/help", " Help? ", "帮助", "用法？", "codemap help"] {
            assert_eq!(parse(t), Ok(Intent::Help), "{t}");
        }
        assert_eq!(parse("   "), Err(Refusal::Empty));
    }

    #[test]
    fn a_plain_question_goes_to_the_query_side_as_it_is() {
        assert_eq!(
            parse("who calls the stock deduction?"),
            ask(None, "who calls the stock deduction?")
        );
        assert_eq!(parse("谁调用了扣减库存？"), ask(None, "谁调用了扣减库存？"));
        // "in" inside a sentence is not a selector.
        assert_eq!(
            parse("where in the code is stock released?"),
            ask(None, "where in the code is stock released?")
        );
    }

    #[test]
    fn selectors_name_a_repository_and_leave_the_question() {
        assert_eq!(
            parse("repo:shop who calls deductStock?"),
            ask(Some("shop"), "who calls deductStock?")
        );
        assert_eq!(
            parse("who calls deductStock? repo:shop"),
            ask(Some("shop"), "who calls deductStock?")
        );
        assert_eq!(
            parse("in tomcat: where is the session manager?"),
            ask(Some("tomcat"), "where is the session manager?")
        );
        assert_eq!(parse("在 shop 里：谁调用它"), ask(Some("shop"), "谁调用它"));
        assert_eq!(
            parse("repo:x.y\nException in thread\n\tat a.B.c(B.java:1)"),
            ask(Some("x.y"), "Exception in thread\n\tat a.B.c(B.java:1)")
        );
        assert_eq!(
            parse("repo: who calls it"),
            Err(Refusal::BadSelector("repo:".into()))
        );
        assert_eq!(
            parse("repo:../etc who"),
            Err(Refusal::BadSelector("repo:../etc".into()))
        );
        assert_eq!(parse("repo:shop"), Err(Refusal::Empty));
    }

    #[test]
    fn a_whole_file_is_too_long() {
        let t = "x".repeat(MAX_QUESTION + 1);
        assert_eq!(parse(&t), Err(Refusal::TooLong(MAX_QUESTION + 1)));
    }
}
