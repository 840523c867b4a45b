//! Celery: functions decorated `@app.task`, `@shared_task`, `@celery.task(…)` are tasks,
//! known to workers by the decorator's `name=` or else by their qualified name. A call that
//! queues one — `task.delay(…)`, `task.apply_async(…)`, a signature `task.s(…)` / `.si(…)` /
//! `.signature(…)` run later, `app.send_task("name")` and `signature("name")` by name — is
//! an `event` edge to the task, as a Java MQ send is to its listener.

use super::{PyCall, PyFacts, Repo, Target, V};
use crate::graph::{Edge, EdgeKind};
use crate::model::SymbolKind;
use rustc_hash::FxHashMap as HashMap;

/// Methods of a task that queue it (or make a signature to queue).
const QUEUEING: &[&str] = &["delay", "apply_async", "s", "si", "signature"];

/// Calls that queue a task by its name, the name first.
const BY_NAME: &[&str] = &["send_task", "signature"];

impl Repo<'_, '_> {
    /// Every task of the repository by name.
    pub(super) fn task_names(&self) -> HashMap<String, Vec<(usize, u32)>> {
        let mut out: HashMap<String, Vec<(usize, u32)>> = HashMap::default();
        for fi in 0..self.files.len() {
            let Some(f) = self.facts(fi) else { continue };
            for di in 0..f.defs.len() as u32 {
                if let Some(name) = self.task_name(fi, di) {
                    out.entry(name).or_default().push((fi, di));
                }
            }
        }
        out
    }

    /// The name of a task, `None` for a definition that is none.
    fn task_name(&self, f: usize, d: u32) -> Option<String> {
        let def = self.def(f, d);
        let facts = self.facts(f)?;
        let deco = self
            .decos
            .get(&(f, d))?
            .iter()
            .map(|k| &facts.decorations[*k])
            .find(|x| {
                let last = x.chain.last().map(String::as_str);
                matches!(last, Some("task" | "shared_task" | "periodic_task"))
            })?;
        if def.kind != SymbolKind::Function {
            return None;
        }
        let named = deco
            .args
            .iter()
            .find(|a| a.keyword.as_deref() == Some("name"))
            .and_then(|a| a.literals.first().cloned());
        let qname = def.id.strip_prefix("py:").unwrap_or(&def.id);
        Some(named.unwrap_or_else(|| qname.split('~').next().unwrap_or(qname).to_string()))
    }

    /// The event edge of a call that queues a task.
    pub(super) fn task_edge(&self, fi: usize, f: &PyFacts, c: &PyCall) -> Option<Edge> {
        let (last, receiver) = c.chain.split_last()?;
        let (task, detail) = if BY_NAME.contains(&last.as_str())
            && let Some(name) = c.args.first().and_then(|a| a.literals.first())
        {
            let [task] = self.tasks.get(name)?.as_slice() else {
                return None;
            };
            (*task, format!("celery {last} {name}"))
        } else if QUEUEING.contains(&last.as_str()) && !receiver.is_empty() {
            let V::Def(tf, td) = self.chain_at(fi, c.scope, receiver, c.line, 0)? else {
                return None;
            };
            let name = self.task_name(tf, td)?;
            ((tf, td), format!("celery {last} {name}"))
        } else {
            return None;
        };
        let mut e = self.call_edge(fi, f, c, Some(Target::Def(task.0, task.1)));
        e.kind = EdgeKind::Event;
        e.detail = detail;
        Some(e)
    }
}
