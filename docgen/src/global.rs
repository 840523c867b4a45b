//! The global page's model: the module tree with one line per module, and which module uses
//! which. Holds no counts or lines, so it changes only when the module graph does.

use crate::model::ModuleModel;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GlobalModule {
    pub name: String,
    pub root: String,
    /// The purpose's first sentence.
    pub purpose: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GlobalModel {
    /// Sorted by root, then name: a parent folder's module comes before its children.
    pub modules: Vec<GlobalModule>,
    /// (user, used) indexes into `modules`, sorted: code dependencies.
    pub edges: Vec<(usize, usize)>,
    /// (from, to, `rpc` or `event`) indexes into `modules`, sorted: reached at run time.
    pub runtime: Vec<(usize, usize, String)>,
    /// Extra pages from the steering file: (title, path, about).
    pub pages: Vec<(String, String, String)>,
}

impl GlobalModel {
    pub fn build(models: &[ModuleModel], pages: Vec<(String, String, String)>) -> GlobalModel {
        let mut order: Vec<&ModuleModel> = models.iter().collect();
        order.sort_by(|a, b| (&a.root, &a.name).cmp(&(&b.root, &b.name)));
        let modules: Vec<GlobalModule> = order
            .iter()
            .map(|m| GlobalModule {
                name: m.name.clone(),
                root: m.root.clone(),
                purpose: m.purpose.as_ref().map(|p| first_sentence(&p.text)),
            })
            .collect();
        let pos = |n: &str| modules.iter().position(|m| m.name == n);
        let mut edges: Vec<(usize, usize)> = Vec::new();
        for m in &order {
            let Some(a) = pos(&m.name) else { continue };
            for u in &m.deps.uses {
                if let Some(b) = pos(&u.module) {
                    edges.push((a, b));
                }
            }
        }
        edges.sort();
        edges.dedup();
        let mut runtime: Vec<(usize, usize, String)> = order
            .iter()
            .filter_map(|m| Some((pos(&m.name)?, m)))
            .flat_map(|(a, m)| {
                m.deps
                    .runtime
                    .iter()
                    .filter_map(move |(to, kind)| Some((a, pos(to)?, kind.clone())))
            })
            .collect();
        runtime.sort();
        runtime.dedup();
        GlobalModel {
            modules,
            edges,
            runtime,
            pages,
        }
    }

    pub fn fingerprint(&self) -> String {
        let json = serde_json::to_vec(self).unwrap_or_default();
        let mut h = sha2::Sha256::default();
        sha2::Digest::update(&mut h, &json);
        hex::encode(&sha2::Digest::finalize(h)[..12])
    }

    /// Nesting depth of module `i` in the tree: how many other modules' roots contain its root.
    pub fn depth(&self, i: usize) -> usize {
        let root = &self.modules[i].root;
        self.modules
            .iter()
            .enumerate()
            .filter(|(j, m)| {
                *j != i
                    && m.root != *root
                    && (m.root.is_empty() || root.starts_with(&format!("{}/", m.root)))
            })
            .count()
    }
}

/// The first sentence of a text (up to the first `. ` or `。`), whole if it has none.
pub fn first_sentence(text: &str) -> String {
    let t = text.trim();
    let cut = [". ", "。"]
        .iter()
        .filter_map(|p| t.find(p).map(|i| i + p.len()))
        .min();
    match cut {
        Some(i) => t[..i].trim().to_string(),
        None => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentences() {
        assert_eq!(
            first_sentence("Takes orders. Cancels them."),
            "Takes orders."
        );
        assert_eq!(first_sentence("订单服务。负责下单"), "订单服务。");
        assert_eq!(first_sentence("No stop"), "No stop");
    }
}
