//! Rendering: models → Markdown through Handlebars templates in strict mode (a field a template
//! names that the view lacks is an error). The views hold Markdown-ready strings (links,
//! escaped text, Mermaid source) so templates stay about layout; HTML escaping is off.
//!
//! Output is normalised (no trailing spaces, at most one blank line in a row, one final
//! newline) and depends only on the model, the state's commit and the templates.

use crate::DocgenError;
use crate::global::GlobalModel;
use crate::mermaid;
use crate::model::{Cite, Item, ModuleModel, Setter};
use crate::state::PageState;
use crate::steering::{Host, Links};
use crate::write;
use handlebars::Handlebars;
use serde_json::{Value, json};
use std::path::Path;

const MODULE: &str = include_str!("../../templates/codemap/module.md.hbs");
const INDEX: &str = include_str!("../../templates/codemap/index.md.hbs");

/// The two templates, built in or from an override folder.
pub struct Templates {
    hb: Handlebars<'static>,
    /// Hash of the template texts (recorded in the state file).
    pub hash: String,
}

impl Templates {
    /// The built-in templates, each replaced by `<dir>/module.md.hbs` / `<dir>/index.md.hbs`
    /// when that file exists.
    pub fn load(dir: Option<&Path>) -> Result<Templates, DocgenError> {
        let read = |name: &str, builtin: &str| -> Result<String, DocgenError> {
            match dir.map(|d| d.join(name)) {
                Some(p) if p.exists() => std::fs::read_to_string(&p).map_err(DocgenError::io(p)),
                _ => Ok(builtin.to_string()),
            }
        };
        if let Some(d) = dir
            && !d.is_dir()
        {
            return Err(DocgenError::Template {
                name: d.display().to_string(),
                message: "the template folder does not exist".into(),
            });
        }
        let (module, index) = (read("module.md.hbs", MODULE)?, read("index.md.hbs", INDEX)?);
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        hb.register_escape_fn(handlebars::no_escape);
        for (name, text) in [("module", &module), ("index", &index)] {
            hb.register_template_string(name, text)
                .map_err(|e| DocgenError::Template {
                    name: format!("{name}.md.hbs"),
                    message: e.to_string(),
                })?;
        }
        let mut h = sha2::Sha256::default();
        for t in [&module, &index] {
            sha2::Digest::update(&mut h, t.as_bytes());
            sha2::Digest::update(&mut h, [0u8]);
        }
        Ok(Templates {
            hb,
            hash: hex::encode(&sha2::Digest::finalize(h)[..12]),
        })
    }

    fn render(&self, name: &str, view: &Value) -> Result<String, DocgenError> {
        let out = self
            .hb
            .render(name, view)
            .map_err(|e| DocgenError::Template {
                name: format!("{name}.md.hbs"),
                message: e.to_string(),
            })?;
        Ok(normalize(&out))
    }
}

/// Turns citations into Markdown links for one page.
pub struct Linker<'a> {
    pub links: &'a Links,
    /// The commit the page names (links point at it).
    pub commit: Option<&'a str>,
    /// Repository path of the page (relative links start from it).
    pub page: &'a str,
}

impl Linker<'_> {
    pub fn url(&self, c: &Cite) -> String {
        let rev = self.commit.unwrap_or("HEAD");
        let base = self
            .links
            .base
            .as_deref()
            .unwrap_or("")
            .trim_end_matches('/');
        let (l, e) = (c.line, c.end);
        match self.links.host {
            Host::Plain => format!("{}#L{l}", write::relative(self.page, &c.path)),
            Host::Github => format!("{base}/blob/{rev}/{}#L{l}-L{e}", c.path),
            Host::Gitlab => format!("{base}/-/blob/{rev}/{}#L{l}-{e}", c.path),
            Host::Gitea => format!("{base}/src/commit/{rev}/{}#L{l}-L{e}", c.path),
        }
    }

    /// `[File.java:12](…)`.
    pub fn link(&self, c: &Cite) -> String {
        let file = c.path.rsplit('/').next().unwrap_or(&c.path);
        format!("[{}:{}]({})", escape(file), c.line, self.url(c))
    }

    /// `Name (`[File.java:12](…)`)`.
    pub fn item(&self, i: &Item) -> String {
        format!("{} ({})", code(&i.name), self.link(&i.cite))
    }
}

/// `` `Order.pay` through `OrderMapper.updateStatus` (update `t_order`) ([Order.java:9](…)) ``,
/// or `` `Order.pay` assigning `status` (…) ``.
fn setter(lk: &Linker<'_>, s: &Setter) -> String {
    let how = match s.via.strip_prefix("= ") {
        Some(field) => format!("assigning {}", code(field)),
        None => format!("through {}", code(&s.via)),
    };
    let writes = s
        .writes
        .iter()
        .map(|w| match w.split_once(' ') {
            Some((op, t)) => format!("{op} {}", code(t)),
            None => code(w),
        })
        .collect::<Vec<_>>();
    let writes = if writes.is_empty() {
        String::new()
    } else {
        format!(" ({})", writes.join(", "))
    };
    format!("{} {how}{writes} ({})", code(&s.method), lk.link(&s.cite))
}

/// Escapes text for Markdown prose and table cells.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#'
        ) {
            out.push('\\');
        }
        out.push(if c == '\n' || c == '\r' { ' ' } else { c });
    }
    out
}

/// Escapes prose (READMEs, doc comments): Markdown links keep their text only (their targets
/// are relative to another file), web addresses become code spans so they stay whole and are
/// not bare URLs, the rest is [`escape`]d.
pub fn prose(s: &str) -> String {
    unlink(s)
        .split(' ')
        .map(|w| {
            if w.contains("://") {
                code(w)
            } else {
                escape(w)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `[text](target)` → `text`.
fn unlink(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find("](") else { break };
        let Some(end) = after[close + 2..].find(')') else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(&after[..close]);
        rest = &after[close + 2 + end + 1..];
    }
    out.push_str(rest);
    out
}

/// A code span holding `s` (pipes escaped for table cells, backticks fenced by longer runs).
pub fn code(s: &str) -> String {
    let s = s.replace('|', "\\|").replace(['\n', '\r'], " ");
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

/// What a page was generated from: a commit, a commit plus edits not committed (the index was
/// taken from a dirty work tree, so the page may describe code no commit holds), or a tree
/// outside git.
fn commit_text(commit: Option<&str>, dirty: bool) -> String {
    match (commit, dirty) {
        (Some(c), false) => format!("commit `{}`", &c[..c.len().min(12)]),
        (Some(c), true) => format!(
            "commit `{}` with uncommitted changes",
            &c[..c.len().min(12)]
        ),
        (None, _) => "an index of a work tree outside git".to_string(),
    }
}

/// Renders a module's page (the body, without README markers).
#[allow(clippy::too_many_arguments)]
pub fn module_page(
    t: &Templates,
    m: &ModuleModel,
    st: &PageState,
    links: &Links,
    page: &str,
    index_page: &str,
    page_of: &dyn Fn(&str) -> Option<String>,
) -> Result<String, DocgenError> {
    let (changes, commit) = (&st.changes, st.commit.as_deref());
    let lk = Linker {
        links,
        commit,
        page,
    };
    let module_ref = |name: &str| match page_of(name) {
        Some(p) => format!("[{}]({})", escape(name), write::relative(page, &p)),
        None => code(name),
    };
    let flows = flows_json(&lk, &m.flows, &module_ref);
    let items = |v: &[Item]| v.iter().map(|i| lk.item(i)).collect::<Vec<_>>();
    let mod_links = |v: &[crate::model::ModuleLink]| {
        v.iter()
            .map(|l| {
                json!({"module": module_ref(&l.module), "count": l.count, "example": lk.item(&l.example)})
            })
            .collect::<Vec<_>>()
    };
    let lines = change_lines(&lk, changes, &module_ref);
    let view = json!({
        "name": escape(&m.name),
        "root": if m.root.is_empty() { "the repository root".to_string() } else { code(&format!("{}/", m.root)) },
        "commit": commit_text(commit, st.dirty),
        "index_link": write::relative(page, index_page),
        "files": m.files,
        "source_files": m.source_files,
        "generated_files": m.generated_files,
        "purpose": m.purpose.as_ref().map(|p| json!({
            "text": prose(&p.text),
            "source": escape(&p.source),
            "link": p.cite.as_ref().map(|c| lk.link(c)).unwrap_or_default(),
        })),
        "llm_purpose": st.llm_purpose.as_ref().map(|p| prose(&p.text)),
        "entries": m.entries.iter().map(|e| json!({
            "kind": format!("{:?}", e.kind).to_lowercase(),
            "label": if e.about.is_empty() {
                code(&e.label)
            } else {
                format!("{} — {}", code(&e.label), prose(&e.about))
            },
            "handler": lk.item(&e.handler),
        })).collect::<Vec<_>>(),
        "entries_cut": m.entries_cut,
        "classed": m.classed.iter().map(|c| json!({
            "class": c.class,
            "files": if c.files == 1 { "1 file".to_string() } else { format!("{} files", c.files) },
            "folder": if c.folder.is_empty() { "the repository root".to_string() } else { code(&format!("{}/", c.folder)) },
            "found": c.found.iter().map(|i| lk.item(i)).collect::<Vec<_>>().join(", "),
            "found_cut": c.found_cut,
        })).collect::<Vec<_>>(),
        "flows": flows,
        "status_enums": m.status_enums.iter().map(|s| json!({
            "name": code(&s.name),
            "link": lk.link(&s.cite),
            "constants": s.constants.iter().map(|c| json!({
                "name": code(&c.name),
                "link": lk.link(&c.cite),
                "setters": c.setters.iter().map(|w| setter(&lk, w)).collect::<Vec<_>>().join(", "),
                "setters_cut": c.setters_cut,
            })).collect::<Vec<_>>(),
            "users": items(&s.users).join(", "),
        })).collect::<Vec<_>>(),
        "status_cut": m.status_cut,
        "tables": m.tables.iter().map(|t| json!({
            "table": t.table.replace('`', "'"),
            "by": items(&t.by).join(", "),
        })).collect::<Vec<_>>(),
        "deps": {
            "uses": mod_links(&m.deps.uses),
            "used_by": mod_links(&m.deps.used_by),
            "remote": items(&m.deps.remote),
            "topics": items(&m.deps.topics),
            "config": items(&m.deps.config),
        },
        "messaging": messaging_json(&lk, &m.messaging),
        "types": m.types.iter().map(|t| json!({
            "name": code(&t.name),
            "kind": t.kind,
            "doc": prose(&t.doc),
            "link": lk.link(&t.cite),
        })).collect::<Vec<_>>(),
        "types_cut": m.types_cut,
        "changes": {
            "first": changes.first,
            "history": changes.history,
            "since": commit_text(changes.since.as_deref(), changes.since_dirty),
            "empty": lines.is_empty(),
            "lines": lines,
        },
        "notes": m.notes.as_ref().map(|n| n.trim().to_string()),
    });
    t.render("module", &view)
}

/// The key flows as the template shows them: each step named, linked and reached from.
fn flows_json(
    lk: &Linker<'_>,
    flows: &[crate::model::Flow],
    module_ref: &dyn Fn(&str) -> String,
) -> Vec<Value> {
    flows
        .iter()
        .map(|f| {
            let steps: Vec<Value> = f
                .steps
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let via = f.hops.iter().find(|h| h.to == i && h.from != i).map(|h| {
                        format!("{} at {}", code(&f.steps[h.from].name), lk.link(&h.site))
                    });
                    let name = match &s.module {
                        Some(mo) => format!("{} in {}", code(&s.name), module_ref(mo)),
                        None if s.kind == "external" => {
                            format!("{} (outside the repository)", code(&s.name))
                        }
                        None => code(&s.name),
                    };
                    json!({"n": i + 1, "name": name, "link": lk.link(&s.cite), "via": via})
                })
                .collect();
            json!({
                "title": escape(&f.entry),
                "mermaid": mermaid::flow(f),
                "steps": steps,
                "cut": f.cut,
            })
        })
        .collect()
}

/// "Changes since the last map", one line each.
fn change_lines(
    lk: &Linker<'_>,
    changes: &crate::changes::Changes,
    module_ref: &dyn Fn(&str) -> String,
) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    lines.extend(
        changes
            .added
            .iter()
            .map(|i| format!("added {}", lk.item(i))),
    );
    lines.extend(
        changes
            .changed
            .iter()
            .map(|i| format!("changed {}", lk.item(i))),
    );
    lines.extend(
        changes
            .removed
            .iter()
            .map(|r| format!("removed {}", escape(r))),
    );
    lines.extend(
        changes
            .entries_added
            .iter()
            .map(|e| format!("new entry point {}", code(e))),
    );
    lines.extend(
        changes
            .entries_removed
            .iter()
            .map(|e| format!("entry point gone: {}", code(e))),
    );
    lines.extend(
        changes
            .new_users
            .iter()
            .map(|u| format!("now used by {}", module_ref(u))),
    );
    if changes.cut > 0 {
        lines.push(format!("and {} more symbols", changes.cut));
    }
    lines
}

/// Each channel with the code on either side (or that there is none in this repository).
fn messaging_json(lk: &Linker<'_>, channels: &[crate::model::messaging::Channel]) -> Vec<Value> {
    let side = |v: &[Item], none: &str| match v.is_empty() {
        true => none.to_string(),
        false => v.iter().map(|i| lk.item(i)).collect::<Vec<_>>().join(", "),
    };
    channels
        .iter()
        .map(|c| {
            json!({
                "channel": code(&c.name),
                "senders": side(&c.senders, "no sender in this repository"),
                "listeners": side(&c.listeners, "no listener in this repository"),
            })
        })
        .collect()
}

/// Renders the global page.
pub fn index_page(
    t: &Templates,
    g: &GlobalModel,
    st: &PageState,
    page: &str,
    page_of: &dyn Fn(&str) -> Option<String>,
) -> Result<String, DocgenError> {
    let modules: Vec<Value> = g
        .modules
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let link = match page_of(&m.name) {
                Some(p) => format!("[{}]({})", escape(&m.name), write::relative(page, &p)),
                None => code(&m.name),
            };
            json!({
                "indent": "  ".repeat(g.depth(i)),
                "link": link,
                "root": if m.root.is_empty() { "repository root".to_string() } else { code(&format!("{}/", m.root)) },
                "purpose": m.purpose.as_ref().map(|p| prose(p)),
            })
        })
        .collect();
    let names: Vec<String> = g.modules.iter().map(|m| m.name.clone()).collect();
    let view = json!({
        "commit": commit_text(st.commit.as_deref(), st.dirty),
        "modules": modules,
        "edges": !g.edges.is_empty() || !g.runtime.is_empty(),
        "mermaid": mermaid::modules(&names, &g.edges, &g.runtime),
        "pages": g.pages.iter().map(|(title, path, about)| {
            let l = format!("[{}]({})", escape(title), write::relative(page, path));
            if about.is_empty() { l } else { format!("{l}: {}", escape(about)) }
        }).collect::<Vec<_>>(),
    });
    t.render("index", &view)
}

/// No trailing spaces, no run of blank lines, one final newline.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    let mut in_fence = false;
    for line in text.lines() {
        let line = line.trim_end();
        if line.starts_with("```") {
            in_fence = !in_fence;
        }
        if line.is_empty() && !in_fence {
            blank += 1;
            if blank > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_collapses_blank_runs_and_trailing_space() {
        assert_eq!(normalize("\n# a  \n\n\n\nb\n\n"), "# a\n\nb\n");
    }

    #[test]
    fn escaping_keeps_markdown_inert() {
        assert_eq!(escape("a*b_c|d"), "a\\*b\\_c\\|d");
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("a`b"), "`` a`b ``");
        assert_eq!(
            prose("see https://x.y/a_b now_"),
            "see `https://x.y/a_b` now\\_"
        );
        assert_eq!(
            prose("the [EE Platform](https://e.e/s/)."),
            "the EE Platform."
        );
    }

    #[test]
    fn host_links() {
        let c = Cite::new("a/B.java", 3, 9);
        let gh = Links {
            host: Host::Github,
            base: Some("https://github.com/o/r/".into()),
        };
        let lk = Linker {
            links: &gh,
            commit: Some("abc"),
            page: "docs/codemap/m.md",
        };
        assert_eq!(lk.url(&c), "https://github.com/o/r/blob/abc/a/B.java#L3-L9");
        let plain = Links::default();
        let lk = Linker {
            links: &plain,
            commit: None,
            page: "docs/codemap/m.md",
        };
        assert_eq!(lk.link(&c), "[B.java:3](../../a/B.java#L3)");
    }
}
