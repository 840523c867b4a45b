//! Authoring boilerplate that says who and when, not what: IDE file headers
//! ("Created by macro on 2018/8/27.", "Created by IntelliJ IDEA."), Javadoc tags (`@author`,
//! `@date`, `@since`, `@version`) and their Chinese forms ("作者", "日期", "创建时间").

/// `text` without authoring boilerplate, whitespace collapsed.
pub fn strip(text: &str) -> String {
    let mut kept: Vec<String> = Vec::new();
    for sentence in split_keep(text) {
        let s = sentence.trim();
        if s.is_empty() || authoring(s) {
            continue;
        }
        kept.push(s.to_string());
    }
    kept.join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where boilerplate starts inside a line: an IDE header or a tag run into the summary.
const STARTS: &[&str] = &[
    "Created by ",
    "@author",
    "@date",
    "@since",
    "@version",
    "作者：",
    "日期：",
];

/// Splits at line ends, before boilerplate starts, and at the ends of sentences ("." followed
/// by a space), keeping the punctuation with its sentence.
fn split_keep(text: &str) -> Vec<String> {
    let mut broken = text.to_string();
    for s in STARTS {
        broken = broken.replace(s, &format!("\n{s}"));
    }
    let mut out = Vec::new();
    for line in broken.lines() {
        let mut cur = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            cur.push(c);
            if (c == '.' || c == '。') && chars.peek().is_none_or(|n| n.is_whitespace()) {
                out.push(std::mem::take(&mut cur));
            }
        }
        if !cur.trim().is_empty() {
            out.push(cur);
        }
    }
    out
}

fn authoring(s: &str) -> bool {
    let lower = s.to_lowercase();
    let tag = [
        "@author", "@date", "@since", "@version", "@create", "@email",
    ]
    .iter()
    .any(|t| lower.starts_with(t));
    let zh = ["作者", "日期", "创建时间", "创建人", "创建日期"]
        .iter()
        .any(|t| s.starts_with(t));
    let ide = s.strip_prefix("Created by ").is_some_and(|rest| {
        let words: Vec<&str> = rest.split_whitespace().collect();
        let dated = words.iter().position(|w| *w == "on").is_some_and(|at| {
            at <= 2
                && words
                    .get(at + 1)
                    .is_some_and(|d| d.starts_with(|c: char| c.is_ascii_digit()))
        });
        dated || rest.starts_with("IntelliJ")
    });
    tag || zh || ide
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authoring_lines_go_and_the_description_stays() {
        assert_eq!(
            strip("带促销信息的购物车商品封装 Created by macro on 2018/8/27."),
            "带促销信息的购物车商品封装"
        );
        assert_eq!(
            strip("Order placement and payment callbacks.\n@author macro\n@date 2019-01-28"),
            "Order placement and payment callbacks."
        );
        assert_eq!(strip("Created by IntelliJ IDEA.\nUser: bob"), "User: bob");
        assert_eq!(strip("Created by macro on 2018/4/26."), "");
        for kept in [
            "Objects created by the factory on demand are cached.",
            "Created by the factory on demand, objects are cached.",
        ] {
            assert_eq!(strip(kept), kept, "a sentence that only uses the words");
        }
    }
}
