//! The code-map model of a module: what its page says, as data. Pure: built from [`Facts`],
//! no I/O. Every item carries a [`Cite`]; [`ModuleModel::cites`] lists them all so they can be
//! checked against the snapshot before anything is written.
//!
//! A module's model holds only what the snapshot says about the module (no commit, no time):
//! two snapshots in which a module did not change give equal models, which is what keeps its
//! page byte-identical. "Changed since the last map" is kept apart ([`crate::changes`]) for the
//! same reason.

mod classed;
mod deps;
mod entries;
mod flows;
mod graph;
pub mod messaging;
mod purpose;
mod state;
mod types;

pub use graph::Graph;
pub(crate) use purpose::clip;

use crate::facts::Facts;
use query::model::Provenance;
use serde::{Deserialize, Serialize};

/// A place in the snapshot: `path:line`, or `path:line-end` for a range.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Cite {
    pub path: String,
    pub line: u32,
    pub end: u32,
}

impl Cite {
    pub fn new(path: &str, line: u32, end: u32) -> Cite {
        Cite {
            path: path.to_string(),
            line,
            end: end.max(line),
        }
    }
    pub fn at(path: &str, line: u32) -> Cite {
        Cite::new(path, line, line)
    }
}

impl From<query::flows::Place> for Cite {
    fn from(p: query::flows::Place) -> Cite {
        Cite {
            path: p.path,
            line: p.line,
            end: p.end,
        }
    }
}

impl std::fmt::Display for Cite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.end > self.line {
            write!(f, "{}:{}-{}", self.path, self.line, self.end)
        } else {
            write!(f, "{}:{}", self.path, self.line)
        }
    }
}

/// A named thing in the code with where it is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Item {
    pub name: String,
    pub cite: Cite,
}

/// What the module is for, from its README, `package-info.java` or a type's doc comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Purpose {
    pub text: String,
    /// Where the text comes from.
    pub source: String,
    pub cite: Option<Cite>,
}

/// How calls from outside come in (query's kinds: the one list for every front).
pub use query::flows::EntryKind;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Entry {
    pub kind: EntryKind,
    /// `POST /api/orders`, `cron=0 */5 * * * ?`, `queue order.cancel`, `main`, a type name.
    pub label: String,
    /// What an API type is for: the first sentence of its doc comment (empty otherwise).
    pub about: String,
    /// The method or type it enters (display name) and its declaration.
    pub handler: Item,
    /// Symbol id of the handler (not rendered; flows start from it).
    #[serde(skip)]
    pub handler_id: String,
}

/// A step of a flow: a method, or a terminal such as a table or a topic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    pub name: String,
    /// `method`, `sql`, `table`, `remote`, `external` (shapes the Mermaid node).
    pub kind: String,
    /// Declaration of a method; the use site for a terminal.
    pub cite: Cite,
    /// Module of a method outside this one (`None` inside it, and for terminals).
    pub module: Option<String>,
}

/// `from` → `to` in a flow, by index into [`Flow::steps`], with the edge kind and its use site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hop {
    pub from: usize,
    pub to: usize,
    pub kind: String,
    pub site: Cite,
}

/// A depth-limited call tree from one entry point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Flow {
    pub entry: String,
    pub steps: Vec<Step>,
    pub hops: Vec<Hop>,
    /// Calls left out by the depth or size caps.
    pub cut: usize,
}

/// An enum that reads as a status, its constants with the code that sets each, and the methods
/// that use it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatusEnum {
    pub name: String,
    pub cite: Cite,
    pub constants: Vec<StatusConstant>,
    /// Methods outside the enum that use it in any way (set or compare a status), with the first
    /// use site.
    pub users: Vec<Item>,
}

/// One constant of a status enum and where it is set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatusConstant {
    pub name: String,
    pub cite: Cite,
    /// The code that passes the constant to a call or assigns it.
    pub setters: Vec<Setter>,
    /// Setters left out by the cap.
    pub setters_cut: usize,
}

/// A method setting a constant: what takes the value and where.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Setter {
    /// `Type.method` doing it.
    pub method: String,
    /// What takes the value: the method it is passed to (`Order.setStatus`), or `= field`.
    pub via: String,
    /// Tables a MyBatis statement behind `via` writes, as `update t_order`.
    pub writes: Vec<String>,
    /// The use site.
    pub cite: Cite,
}

/// A table and the statements/methods that touch it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableUse {
    pub table: String,
    /// `select`, `insert`, `update`, `delete` when the statement says so, else `use`.
    pub by: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModuleLink {
    pub module: String,
    /// Edges across, and one use site as an example.
    pub count: usize,
    pub example: Item,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Deps {
    /// Modules this one uses.
    pub uses: Vec<ModuleLink>,
    /// Modules that use this one.
    pub used_by: Vec<ModuleLink>,
    /// Remote calls (Feign, Dubbo): the target and the calling site.
    pub remote: Vec<Item>,
    /// Topics and queues this module sends to or listens on.
    pub topics: Vec<Item>,
    /// Configuration keys read, with the reading field.
    pub config: Vec<Item>,
    /// Modules reached at run time, not through code: (module, `rpc` or `event`).
    #[serde(default)]
    pub runtime: Vec<(String, String)>,
}

/// Code of a module classed as something other than production code (`example`, `test`,
/// `generated`, `vendored`), with what it holds that would be an entry point in production code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Classed {
    pub class: String,
    pub files: usize,
    /// The deepest folder holding them all (`""`: the repository root).
    pub folder: String,
    /// Routes and schedules (`GET /x → Type.method`) and `main` methods declared in them.
    pub found: Vec<Item>,
    pub found_cut: usize,
}

/// A notable type and its one-liner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TypeNote {
    pub name: String,
    pub kind: String,
    pub doc: String,
    pub cite: Cite,
}

/// Everything a module's page says, except its change list and commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModuleModel {
    pub name: String,
    /// Root folder (`""` for the repository root).
    pub root: String,
    pub files: usize,
    pub source_files: usize,
    /// Code generated for the product (MyBatis Generator's mappers and models): counted as code,
    /// its users shown as the module's users.
    #[serde(default)]
    pub generated_files: usize,
    pub purpose: Option<Purpose>,
    pub entries: Vec<Entry>,
    /// Entries left out by the cap.
    pub entries_cut: usize,
    /// Without entry points: the module's other code, so the page says what is there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub classed: Vec<Classed>,
    pub flows: Vec<Flow>,
    pub status_enums: Vec<StatusEnum>,
    /// Status enums left out by the cap.
    pub status_cut: usize,
    pub tables: Vec<TableUse>,
    pub deps: Deps,
    /// Channels sent to and listened on, with the code on each side.
    #[serde(default)]
    pub messaging: Vec<messaging::Channel>,
    pub types: Vec<TypeNote>,
    pub types_cut: usize,
    /// Verbatim human notes from the steering file.
    pub notes: Option<String>,
    /// Fingerprint of every symbol of the module (ids and body hashes), so that an edit the
    /// page does not show (a method body) still marks the module changed.
    pub symbols_digest: String,
}

impl ModuleModel {
    /// Every citation of the model.
    pub fn cites(&self) -> Vec<&Cite> {
        let mut out: Vec<&Cite> = Vec::new();
        out.extend(self.purpose.iter().filter_map(|p| p.cite.as_ref()));
        out.extend(self.entries.iter().map(|e| &e.handler.cite));
        out.extend(
            self.classed
                .iter()
                .flat_map(|c| c.found.iter().map(|i| &i.cite)),
        );
        for f in &self.flows {
            out.extend(f.steps.iter().map(|s| &s.cite));
            out.extend(f.hops.iter().map(|h| &h.site));
        }
        for s in &self.status_enums {
            out.push(&s.cite);
            out.extend(s.users.iter().map(|w| &w.cite));
            for c in &s.constants {
                out.push(&c.cite);
                out.extend(c.setters.iter().map(|w| &w.cite));
            }
        }
        for t in &self.tables {
            out.extend(t.by.iter().map(|b| &b.cite));
        }
        let d = &self.deps;
        out.extend(d.uses.iter().chain(&d.used_by).map(|l| &l.example.cite));
        out.extend(
            d.remote
                .iter()
                .chain(&d.topics)
                .chain(&d.config)
                .map(|i| &i.cite),
        );
        for c in &self.messaging {
            out.extend(c.senders.iter().chain(&c.listeners).map(|i| &i.cite));
        }
        out.extend(self.types.iter().map(|t| &t.cite));
        out
    }

    /// A stable hash of the model (hex): equal models, equal fingerprints.
    pub fn fingerprint(&self) -> String {
        let json = serde_json::to_vec(self).unwrap_or_default();
        let mut h = sha2::Sha256::default();
        sha2::Digest::update(&mut h, &json);
        hex::encode(&sha2::Digest::finalize(h)[..12])
    }
}

/// Builds the model of every module of `facts` not in `skip`, sorted by name. `notes` are
/// the steering file's human notes by module.
pub fn build_all(
    facts: &Facts,
    skip: &[String],
    notes: &std::collections::BTreeMap<String, String>,
) -> Vec<ModuleModel> {
    let g = Graph::new(facts);
    let roots = facts.module_roots();
    let todo: Vec<(&String, &String)> = roots
        .iter()
        .filter(|(name, _)| !skip.contains(name))
        .collect();
    // Modules are independent given the graph: built side by side, kept in name order.
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(todo.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut built: Vec<(usize, ModuleModel)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((name, root)) = todo.get(i) else {
                            return out;
                        };
                        let mut m = build(&g, name, root);
                        m.notes = notes.get(*name).cloned();
                        out.push((i, m));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    built.sort_by_key(|(i, _)| *i);
    built.into_iter().map(|(_, m)| m).collect()
}

/// Entries kept on a page.
const MAX_ENTRIES: usize = 25;
/// Notable types kept on a page.
const MAX_TYPES: usize = 15;

fn build(g: &Graph<'_>, name: &str, root: &str) -> ModuleModel {
    let facts = g.facts;
    // Code files only: a README or a generated page appearing must not change the model.
    let files = facts
        .whole
        .files
        .values()
        .filter(|f| f.module == name && f.code)
        .count();
    let source_files = facts
        .whole
        .files
        .values()
        .filter(|f| f.module == name && f.code && g.is_source(f))
        .count();
    let generated_files = facts
        .whole
        .files
        .values()
        .filter(|f| f.module == name && f.code && f.provenance == Provenance::Generated)
        .count();
    let points = query::flows::entry_points(g, name);
    // Flows and channels are found among every entry point, not the first listed.
    let flows = flows::build(g, name, &points);
    let mut entries: Vec<Entry> = points.into_iter().map(entries::page_entry).collect();
    let all_entries = entries.clone();
    let entries_cut = entries.len().saturating_sub(MAX_ENTRIES);
    entries = entries::fair_cut(entries, MAX_ENTRIES);
    let classed = if entries.is_empty() {
        classed::find(g, name)
    } else {
        Vec::new()
    };
    let (mut status_enums, tables) = (state::status_enums(g, name), state::tables(g, name));
    let status_cut = status_enums.len().saturating_sub(state::MAX_STATUS);
    status_enums.truncate(state::MAX_STATUS);
    let mut types = types::notable(g, name);
    let types_cut = types.len().saturating_sub(MAX_TYPES);
    types.truncate(MAX_TYPES);
    ModuleModel {
        name: name.to_string(),
        root: root.to_string(),
        files,
        source_files,
        generated_files,
        purpose: purpose::find(g, name),
        entries,
        entries_cut,
        classed,
        flows,
        status_enums,
        status_cut,
        tables,
        deps: deps::find(g, name),
        messaging: messaging::find(g, name, &all_entries),
        types,
        types_cut,
        notes: None,
        symbols_digest: g.symbols_digest(name),
    }
}
