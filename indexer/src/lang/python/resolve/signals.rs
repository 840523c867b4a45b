//! Signals: a receiver connected to a signal — Django's `@receiver(sig, sender=M)` and
//! `sig.connect(handler, sender=M)`, blinker's `@sig.connect` / `@sig.connect_via(x)` — is
//! reached by an `event` edge from every `sig.send(…)` / `send_robust` / `asend` of the same
//! signal (a module-level `Signal()` / `signal("name")` of the project, or a library's signal
//! by its qualified name). A receiver of a Django model signal (`post_save`, …) with a project
//! model as `sender` is reached from that model, at the place the receiver is connected.

use super::{PyCall, PyFacts, Repo, Target, V};
use crate::graph::{CallSite, Edge, EdgeKind};
use rustc_hash::FxHashMap as HashMap;

/// Methods that send a signal.
const SENDS: &[&str] = &["send", "send_robust", "asend", "asend_robust", "send_async"];

/// Django's model signals: the ORM sends them for the `sender` model.
const MODEL_SIGNALS: &[&str] = &[
    "pre_init",
    "post_init",
    "pre_save",
    "post_save",
    "pre_delete",
    "post_delete",
    "m2m_changed",
];

/// A receiver connected to a signal.
pub(super) struct Receiver {
    /// Where it is connected.
    fi: usize,
    line: u32,
    handler: (usize, u32),
    /// The `sender=` of the connection, when it is a project class.
    sender: Option<(usize, u32)>,
}

/// Receivers by signal key.
pub(super) type Receivers = HashMap<String, Vec<Receiver>>;

impl Repo<'_, '_> {
    /// Every receiver of the repository, by the signal it is connected to.
    pub(super) fn receivers(&self) -> Receivers {
        let mut out = Receivers::default();
        for fi in 0..self.files.len() {
            let Some(f) = self.facts(fi) else { continue };
            for d in &f.decorations {
                let Some((last, head)) = d.chain.split_last() else {
                    continue;
                };
                let (signal, sender) = match last.as_str() {
                    "receiver" if d.factory => {
                        let Some(sig) = d.args.first().and_then(|a| a.value.clone()) else {
                            continue;
                        };
                        (sig, keyword(&d.args, "sender"))
                    }
                    "connect" | "connect_via" if !head.is_empty() => (head.to_vec(), None),
                    _ => continue,
                };
                if let Some(key) = self.signal_key(fi, d.scope, &signal) {
                    let sender = sender.and_then(|s| self.class_of(fi, d.scope, &s, d.line));
                    out.entry(key).or_default().push(Receiver {
                        fi,
                        line: d.line,
                        handler: (fi, d.def),
                        sender,
                    });
                }
            }
            for c in &f.calls {
                let Some((last, head)) = c.chain.split_last() else {
                    continue;
                };
                if last != "connect" || head.is_empty() {
                    continue;
                }
                let Some(handler) = c.args.first().and_then(|a| a.value.as_ref()).and_then(|h| {
                    match self.chain_at(fi, c.scope, h, c.line, 0)? {
                        V::Def(hf, hd) if self.def(hf, hd).kind.is_callable() => Some((hf, hd)),
                        _ => None,
                    }
                }) else {
                    continue;
                };
                if let Some(key) = self.signal_key(fi, c.scope, head) {
                    let sender = keyword(&c.args, "sender")
                        .and_then(|s| self.class_of(fi, c.scope, &s, c.line));
                    out.entry(key).or_default().push(Receiver {
                        fi,
                        line: c.line,
                        handler,
                        sender,
                    });
                }
            }
        }
        out
    }

    /// What identifies a signal: the module-level name a project signal is assigned to
    /// (`shop.signals.order_paid`), else the qualified name of a library's.
    fn signal_key(&self, fi: usize, scope: u32, chain: &[String]) -> Option<String> {
        if chain.len() <= 2
            && let Some((file, name)) = self.group_binding(fi, scope, chain)
            && let Some((module, name)) = self.assigned_at(file, name)
        {
            return Some(format!("{module}.{name}"));
        }
        // `models.signals.m2m_changed`: a module's name, however the module is reached.
        if let Some((name, module)) = chain.split_last()
            && !module.is_empty()
            && let Some(V::Module(m)) = self.chain(fi, scope, module, 0)
            && let Some((module, name)) =
                self.assigned_at(*self.modules.get(m.as_str())?, name.clone())
        {
            return Some(format!("{module}.{name}"));
        }
        match self.chain_at(fi, scope, chain, u32::MAX, 0)? {
            // A value made by calling a signal class (`Signal()` held where this does not
            // follow) is no one signal.
            V::External(x) => {
                let last = x.rsplit('.').next().unwrap_or(&x);
                (!matches!(last, "Signal" | "signal" | "NamedSignal" | "ModelSignal")).then_some(x)
            }
            _ => None,
        }
    }

    /// The module that assigns a module-level name a call's value (`order_paid = Signal()`),
    /// following re-exports (`from .signals import order_paid` in another module).
    fn assigned_at(&self, mut file: usize, mut name: String) -> Option<(String, String)> {
        for _ in 0..8 {
            let f = self.facts(file)?;
            let assigned = f
                .assigns
                .iter()
                .any(|a| a.scope == 0 && a.target.len() == 1 && a.target[0] == name && a.called);
            if assigned {
                return Some((f.module.clone(), name));
            }
            let i = f
                .imports
                .iter()
                .rev()
                .find(|i| i.scope == 0 && !i.whole && i.local == name)?;
            let (module, var) = i.target.rsplit_once('.')?;
            file = *self.modules.get(module)?;
            name = var.to_string();
        }
        None
    }

    /// The project class a chain names.
    fn class_of(&self, fi: usize, scope: u32, chain: &[String], line: u32) -> Option<(usize, u32)> {
        match self.chain_at(fi, scope, chain, line, 0)? {
            V::Def(f, d) if self.def(f, d).kind == crate::model::SymbolKind::Class => Some((f, d)),
            _ => None,
        }
    }

    /// `sig.send(…)` of a signal with receivers: an event edge to each.
    pub(super) fn signal_edges(
        &self,
        fi: usize,
        f: &PyFacts,
        c: &PyCall,
        rs: &Receivers,
    ) -> Vec<Edge> {
        let Some((last, head)) = c.chain.split_last() else {
            return Vec::new();
        };
        if !SENDS.contains(&last.as_str()) || head.is_empty() {
            return Vec::new();
        }
        let Some(key) = self.signal_key(fi, c.scope, head) else {
            return Vec::new();
        };
        let short = key.rsplit('.').next().unwrap_or(&key);
        rs.get(&key)
            .into_iter()
            .flatten()
            .map(|r| {
                let mut e = self.call_edge(fi, f, c, Some(Target::Def(r.handler.0, r.handler.1)));
                e.kind = EdgeKind::Event;
                e.detail = format!("signal {short}");
                e
            })
            .collect()
    }

    /// Model → receiver edges of Django's model signals, by the file that connects them.
    pub(super) fn model_signal_edges(&self, rs: &Receivers) -> HashMap<usize, Vec<Edge>> {
        let mut out: HashMap<usize, Vec<Edge>> = HashMap::default();
        for (key, receivers) in rs {
            let short = key.rsplit('.').next().unwrap_or(key);
            if !key.starts_with("django.") || !MODEL_SIGNALS.contains(&short) {
                continue;
            }
            for r in receivers {
                let Some((mf, md)) = r.sender else { continue };
                let (model, h) = (self.def(mf, md), self.def(r.handler.0, r.handler.1));
                out.entry(r.fi).or_default().push(Edge {
                    caller_file: self.files[r.fi].0.to_string(),
                    caller: model.id.clone(),
                    caller_name: String::new(),
                    line: r.line,
                    kind: EdgeKind::Event,
                    callee: Some(h.id.clone()),
                    callee_name: h.name.clone(),
                    callee_file: Some(self.files[r.handler.0].0.to_string()),
                    callee_line: Some(h.line),
                    caller_flags: 0,
                    confidence: 1.0,
                    detail: format!("signal {short}"),
                    site: CallSite::default(),
                });
            }
        }
        out
    }
}

/// The chain given as keyword argument `name`.
fn keyword(args: &[super::PyArg], name: &str) -> Option<Vec<String>> {
    args.iter()
        .find(|a| a.keyword.as_deref() == Some(name))
        .and_then(|a| a.value.clone())
}
