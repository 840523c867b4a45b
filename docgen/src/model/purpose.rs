//! What a module is for, in the repository's own words, in this order: the first paragraph of
//! the module's README; the line about the module in the root README (a table row, a tree or a
//! list naming it); the build file's description (unless it only repeats the module's name);
//! the doc of its `package-info.java`; the one-liner of its most used documented type.
//! Authoring boilerplate ("Created by … on 2018/8/27", `@author`) is stripped everywhere.

use super::{Cite, Graph, Purpose};
use query::model::SymbolKind;
use query::snapshot::Sym;

mod boilerplate;
mod listing;

pub use boilerplate::strip;
pub use listing::{build_description, module_line, section_paragraphs};

/// Letters a documentation section's first paragraph needs to be a description.
const MIN_SECTION_CHARS: usize = 10;

/// Longest purpose text kept (characters); a README's first paragraph can be an essay.
const MAX_CHARS: usize = 400;

pub fn find(g: &Graph<'_>, module: &str) -> Option<Purpose> {
    own_readme(g, module)
        .or_else(|| root_listing(g, module))
        .or_else(|| doc_section(g, module))
        .or_else(|| build_file(g, module))
        .or_else(|| package_info(g, module))
        .or_else(|| top_type(g, module))
}

fn purpose(text: &str, source: impl Into<String>, cite: Cite) -> Option<Purpose> {
    let text = strip(text);
    (!text.is_empty()).then(|| Purpose {
        text: clip(&text, MAX_CHARS),
        source: source.into(),
        cite: Some(cite),
    })
}

fn own_readme(g: &Graph<'_>, module: &str) -> Option<Purpose> {
    let (path, text) = g.facts.readmes.get(module)?;
    let (line, para) = first_paragraph(text)?;
    purpose(&para, "README", Cite::at(path, line))
}

/// The root README's line about a module other than the root's own.
fn root_listing(g: &Graph<'_>, module: &str) -> Option<Purpose> {
    let (path, text) = g.facts.root_readme.as_ref()?;
    if g.facts.readmes.get(module).is_some_and(|(p, _)| p == path) {
        return None;
    }
    let names = g.module_names(module);
    let (line, about) = names.iter().find_map(|n| module_line(text, n))?;
    purpose(&about, "root README", Cite::at(path, line))
}

/// The first paragraph under a heading that names the module in the documentation folder
/// (`## 2.2 litemall-db` in doc/platform.md).
fn doc_section(g: &Graph<'_>, module: &str) -> Option<Purpose> {
    let names = g.module_names(module);
    g.facts.doc_pages.iter().find_map(|(path, text)| {
        let (line, para) = names
            .iter()
            .flat_map(|n| section_paragraphs(text, n))
            // "See 3.1" points elsewhere; it does not say what the module is.
            .find(|(_, p)| {
                p.chars().filter(|c| c.is_alphanumeric()).count() >= MIN_SECTION_CHARS
            })?;
        purpose(&para, "docs", Cite::at(path, line))
    })
}

fn build_file(g: &Graph<'_>, module: &str) -> Option<Purpose> {
    let (path, text) = g.facts.build_files.get(module)?;
    let names = g.module_names(module);
    let (line, about) = build_description(path, text, &names)?;
    purpose(&about, "build file", Cite::at(path, line))
}

/// The package's own documentation: Java's `package-info.java`, else the docstring of the
/// module's top module symbol (a Python package's `__init__`: the shallowest, shortest-named).
fn package_info(g: &Graph<'_>, module: &str) -> Option<Purpose> {
    let documented = |s: &&Sym| {
        s.symbol
            .doc
            .as_deref()
            .is_some_and(|d| !strip(d).is_empty())
    };
    let info = g.symbols_of(module).find(|s| {
        s.symbol.kind == SymbolKind::Package
            && s.path.ends_with("package-info.java")
            && documented(s)
    });
    let (s, label) = match info {
        Some(s) => (s, "package-info"),
        None => {
            let s = g
                .symbols_of(module)
                .filter(|s| s.symbol.kind == SymbolKind::Module && g.is_source_path(&s.path))
                .filter(documented)
                .min_by_key(|s| {
                    (
                        s.path.matches('/').count(),
                        s.symbol.qualified_name.len(),
                        s.path.clone(),
                    )
                })?;
            (s, "module docstring")
        }
    };
    purpose(
        s.symbol.doc.as_deref().unwrap_or_default(),
        label,
        Cite::new(&s.path, s.symbol.start_line, s.symbol.end_line),
    )
}

fn top_type(g: &Graph<'_>, module: &str) -> Option<Purpose> {
    let best = g
        .symbols_of(module)
        .filter(|s| {
            s.symbol.kind.is_type()
                && g.is_top_level(s)
                && s.symbol
                    .doc
                    .as_deref()
                    .is_some_and(|d| !strip(d).is_empty())
        })
        .max_by(|a, b| {
            let (na, nb) = (
                g.edges_to(&a.symbol.id.0).count(),
                g.edges_to(&b.symbol.id.0).count(),
            );
            na.cmp(&nb)
                .then_with(|| b.symbol.qualified_name.cmp(&a.symbol.qualified_name))
        })?;
    purpose(
        best.symbol.doc.as_deref().unwrap_or_default(),
        format!("doc of {}", best.symbol.name),
        Cite::new(&best.path, best.symbol.start_line, best.symbol.end_line),
    )
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
            || t.starts_with("===")
            || list_or_quote(t);
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

/// A list item or a block quote: notes and link lists, not the prose that says what a thing is.
fn list_or_quote(t: &str) -> bool {
    let numbered = t
        .split_once(". ")
        .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    t.starts_with('>')
        || t.starts_with("- ")
        || t.starts_with("* ")
        || t.starts_with("+ ")
        || numbered
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
            first_paragraph(
                "# mall\n\n> 1. **Demo**: online.\n> 2. Videos.\n\n- [docs](x)\n\n`mall` is a shop.\n"
            ),
            Some((8, "`mall` is a shop.".into())),
            "notes and link lists are not the purpose"
        );
        assert_eq!(
            first_paragraph("Apache Commons IO\n===\n\nA library.\n"),
            Some((4, "A library.".into()))
        );
    }
}
