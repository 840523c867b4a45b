//! What a module is for: the first paragraph of its README, else the doc of its
//! `package-info.java`, else the one-liner of its most used documented type.

use super::{Cite, Graph, Purpose};
use indexer::model::SymbolKind;

/// Longest purpose text kept (characters); a README's first paragraph can be an essay.
const MAX_CHARS: usize = 400;

pub fn find(g: &Graph<'_>, module: &str) -> Option<Purpose> {
    if let Some((path, text)) = g.facts.readmes.get(module)
        && let Some((line, para)) = first_paragraph(text)
    {
        return Some(Purpose {
            text: clip(&para, MAX_CHARS),
            source: "README".into(),
            cite: Some(Cite::at(path, line)),
        });
    }
    let syms: Vec<_> = g.symbols_of(module).collect();
    if let Some(s) = syms.iter().find(|s| {
        s.symbol.kind == SymbolKind::Package
            && s.path.ends_with("package-info.java")
            && s.symbol.doc.is_some()
    }) {
        return Some(Purpose {
            text: clip(s.symbol.doc.as_deref().unwrap_or_default(), MAX_CHARS),
            source: "package-info".into(),
            cite: Some(Cite::new(&s.path, s.symbol.start_line, s.symbol.end_line)),
        });
    }
    let best = syms
        .iter()
        .filter(|s| s.symbol.kind.is_type() && g.is_top_level(s) && s.symbol.doc.is_some())
        .max_by(|a, b| {
            let (na, nb) = (
                g.edges_to(&a.symbol.id.0).count(),
                g.edges_to(&b.symbol.id.0).count(),
            );
            na.cmp(&nb)
                .then_with(|| b.symbol.qualified_name.cmp(&a.symbol.qualified_name))
        })?;
    Some(Purpose {
        text: clip(best.symbol.doc.as_deref().unwrap_or_default(), MAX_CHARS),
        source: format!("doc of {}", best.symbol.name),
        cite: Some(Cite::new(
            &best.path,
            best.symbol.start_line,
            best.symbol.end_line,
        )),
    })
}

/// The first paragraph of prose in a Markdown text (headings, badges, HTML comments and code
/// fences skipped; the part between codemap's markers too) and its first line number.
pub fn first_paragraph(text: &str) -> Option<(u32, String)> {
    let mut in_fence = false;
    let mut in_ours = false;
    let mut in_comment = false;
    let mut start = 0u32;
    let mut para: Vec<&str> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with(crate::write::BEGIN) {
            in_ours = true;
        }
        if t.starts_with(crate::write::END) {
            in_ours = false;
            continue;
        }
        if in_comment || t.starts_with("<!--") {
            in_comment = !t.contains("-->");
            if !para.is_empty() {
                break;
            }
            continue;
        }
        // A setext underline: the lines above were a heading, not prose.
        if !in_fence
            && !in_ours
            && !t.is_empty()
            && (t.chars().all(|c| c == '=') || t.chars().all(|c| c == '-'))
        {
            para.clear();
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        let skip = in_fence
            || in_ours
            || t.starts_with('#')
            || t.starts_with("<!--")
            || t.starts_with("[![")
            || t.starts_with("![")
            || t.starts_with('<')
            || t.starts_with("---")
            || t.starts_with("===");
        if t.is_empty() || skip {
            if !para.is_empty() {
                break;
            }
            continue;
        }
        if para.is_empty() {
            start = i as u32 + 1;
        }
        para.push(t);
    }
    (!para.is_empty()).then(|| (start, para.join(" ")))
}

/// `s` trimmed and cut at a word to at most `max` characters (and an ellipsis).
pub(crate) fn clip(s: &str, max: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max).collect();
    match cut.rfind(' ') {
        Some(i) => format!("{}…", &cut[..i]),
        None => format!("{cut}…"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_prose_paragraph_is_the_purpose() {
        let md = "<!--\nLicensed to the ASF.\n-->\n# Orders\n\n[![ci](x)](y)\n\nTakes orders and\ncancels unpaid ones.\n\nMore.\n";
        assert_eq!(
            first_paragraph(md),
            Some((8, "Takes orders and cancels unpaid ones.".into()))
        );
        let ours = "<!-- codemap:begin -->\nGenerated.\n<!-- codemap:end -->\n\nHuman.\n";
        assert_eq!(first_paragraph(ours), Some((5, "Human.".into())));
        assert_eq!(first_paragraph("# Only a title\n"), None);
        assert_eq!(
            first_paragraph("Apache Commons IO\n===\n\nA library.\n"),
            Some((4, "A library.".into()))
        );
    }
}
