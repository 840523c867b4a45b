//! The comment's body, pure: the impact report turned the right way round and written under the
//! marker the reviewer finds its comment by.
//!
//! The report is computed over the request's head (so every `path:line` is a line of the commit
//! the reviewer sees), from the diff taken head → merge base: there, what the request adds reads
//! as "removed" and a file it deletes as "a new file". [`ImpactReport::seen_from_head`] says it as the request does.

use query::impact::render;
use query::impact::report::ImpactReport;

/// The hidden line the reviewer's comment starts with.
pub const MARKER: &str = "<!-- codemap:impact -->";

/// The whole comment: marker, report (cut to fit a comment), and which commits it describes.
pub fn body(r: &ImpactReport, head: &str, merge_base: &str, fork: bool) -> String {
    let footer = format!(
        "\n---\n<sub>codemap: impact of the request's diff against the merge base `{}`, \
         cited at its head `{}`{}. Updated on every push.</sub>\n",
        short(merge_base),
        short(head),
        if fork { " (a fork: read only)" } else { "" }
    );
    let room = render::REVIEW_COMMENT_LIMIT - MARKER.len() - footer.len() - 1;
    let md = render::markdown(
        r,
        room,
        "run `codemap impact --git <base>..<head>` for the full report",
    );
    format!("{MARKER}\n{md}{footer}")
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use query::impact::ChangeKind;
    use query::impact::report::ChangedDecl;

    fn decl(change: ChangeKind) -> ChangedDecl {
        ChangedDecl {
            symbol: "OrderService.pay".into(),
            kind: "method".into(),
            path: "src/OrderService.java".into(),
            start_line: 3,
            end_line: 9,
            change,
            signature: "void pay()".into(),
            module: "order".into(),
            lines: vec![4],
            via: None,
        }
    }

    #[test]
    fn the_body_starts_with_the_marker_and_fits_a_comment() {
        let r = ImpactReport {
            changes: (0..3000).map(|_| decl(ChangeKind::Body)).collect(),
            ..Default::default()
        };
        let b = body(&r, &"a".repeat(40), &"b".repeat(40), true);
        assert!(b.starts_with(MARKER));
        assert!(b.chars().count() <= render::REVIEW_COMMENT_LIMIT);
        assert!(b.contains("more lines not shown"));
        assert!(b.contains("cited at its head `aaaaaaaaaaaa` (a fork: read only)"));
    }
}
