//! Configuration readers → `config:KEY` edges, as `@Value` and `Environment.getProperty` give
//! the Java side:
//!
//! * the environment: `os.environ["K"]`, `os.environ.get("K", d)`, `os.getenv("K", d)`,
//!   `os.environ.setdefault("K", d)` (the default in the detail), django-environ's `env("K")`
//!   and `env.bool("K")`…;
//! * pydantic-settings: each field of a `BaseSettings` class is read from the environment
//!   variable of its name under the class's `env_prefix` (`model_config =
//!   SettingsConfigDict(env_prefix=…)`, or pydantic 1's `class Config`), or its `Field`'s
//!   `alias` / `validation_alias` / `env`;
//! * Django settings: `settings.NAME` with `settings` from `django.conf` (and
//!   `getattr(settings, "NAME", d)`), located at the project settings module that defines it.

use super::{PyFacts, Repo, V};
use crate::graph::{CallSite, Edge, EdgeKind};
use crate::model::SymbolKind;
use rustc_hash::FxHashMap as HashMap;

/// Functions that read an environment variable named by their first argument.
const ENV_READERS: &[&str] = &[
    "os.getenv",
    "os.environ.get",
    "os.environ.setdefault",
    "os.environ.pop",
];

const DJANGO_SETTINGS: &str = "django.conf.settings";

/// Where each Django setting is defined: a module-level upper-case name of a `settings`
/// module (`mysite.settings`, `mysite.settings.base`).
pub(super) type SettingDefs = HashMap<String, (usize, u32)>;

/// A configuration use before it becomes an edge.
struct Use<'a> {
    caller: &'a str,
    line: u32,
    key: String,
    def: Option<(usize, u32)>,
    detail: String,
}

impl Repo<'_, '_> {
    pub(super) fn setting_defs(&self) -> SettingDefs {
        let mut out = SettingDefs::default();
        for fi in 0..self.files.len() {
            let Some(f) = self.facts(fi) else { continue };
            if !f.module.split('.').any(|p| p == "settings") {
                continue;
            }
            for d in &f.defs {
                let upper = d
                    .name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                if d.kind == SymbolKind::Field && d.parent == Some(0) && upper {
                    out.entry(d.name.clone()).or_insert((fi, d.line));
                }
            }
        }
        out
    }

    /// The configuration edges of one file.
    pub(super) fn config_edges(&self, fi: usize, f: &PyFacts, settings: &SettingDefs) -> Vec<Edge> {
        let mut uses: Vec<Use<'_>> = Vec::new();
        let caller = |scope: u32| f.defs[scope as usize].id.as_str();
        for s in &f.subscripts {
            if self.external(fi, s.scope, &s.chain, s.line).as_deref() == Some("os.environ") {
                uses.push(Use {
                    caller: caller(s.scope),
                    line: s.line,
                    key: s.key.clone(),
                    def: None,
                    detail: "environment".into(),
                });
            }
        }
        for c in &f.calls {
            let Some(key) = c.args.first().and_then(|a| a.literals.first()) else {
                continue;
            };
            let ext = self.external(fi, c.scope, &c.chain, c.line);
            let env_reader = |x: &str| {
                // django-environ: `env = environ.Env()`, then `env("K")`, `env.bool("K")`.
                ENV_READERS.contains(&x) || x == "environ.Env" || x.starts_with("environ.Env.")
            };
            if !ext.as_deref().is_some_and(env_reader) {
                continue;
            }
            let default = c.args.get(1).and_then(|a| a.literals.first());
            uses.push(Use {
                caller: caller(c.scope),
                line: c.line,
                key: key.clone(),
                def: None,
                detail: match default {
                    Some(d) => format!("environment; default {d}"),
                    None => "environment".to_string(),
                },
            });
        }
        for c in &f.calls {
            if c.chain != ["getattr"] || c.args.len() < 2 {
                continue;
            }
            let (Some(obj), Some(name)) = (&c.args[0].value, c.args[1].literals.first()) else {
                continue;
            };
            if self.external(fi, c.scope, obj, c.line).as_deref() == Some(DJANGO_SETTINGS) {
                uses.push(Use {
                    caller: caller(c.scope),
                    line: c.line,
                    key: name.clone(),
                    def: settings.get(name).copied(),
                    detail: "django setting".into(),
                });
            }
        }
        for r in &f.reads {
            let [head, name] = r.chain.as_slice() else {
                continue;
            };
            if self
                .external(fi, r.scope, std::slice::from_ref(head), r.line)
                .as_deref()
                == Some(DJANGO_SETTINGS)
            {
                uses.push(Use {
                    caller: caller(r.scope),
                    line: r.line,
                    key: name.clone(),
                    def: settings.get(name).copied(),
                    detail: "django setting".into(),
                });
            }
        }
        uses.extend(self.settings_fields(fi, f));
        uses.into_iter()
            .map(|u| {
                let id = format!("config:{}", u.key);
                Edge {
                    caller_file: self.files[fi].0.to_string(),
                    caller: u.caller.to_string(),
                    caller_name: String::new(),
                    line: u.line,
                    kind: EdgeKind::Config,
                    callee: Some(id.clone()),
                    callee_name: id,
                    callee_file: u.def.map(|(df, _)| self.files[df].0.to_string()),
                    callee_line: u.def.map(|(_, l)| l),
                    caller_flags: 0,
                    confidence: 1.0,
                    detail: u.detail,
                    site: CallSite::default(),
                }
            })
            .collect()
    }

    /// The qualified name of a library name a chain designates.
    fn external(&self, fi: usize, scope: u32, chain: &[String], line: u32) -> Option<String> {
        match self.chain_at(fi, scope, chain, line, 0)? {
            V::External(x) => Some(x),
            // Django's own source, where `settings` is a project `LazySettings`.
            V::Instance(f, d) if self.def(f, d).id == "py:django.conf.LazySettings" => {
                Some(DJANGO_SETTINGS.to_string())
            }
            _ => None,
        }
    }

    /// The fields of the file's pydantic-settings classes, each read from its variable.
    fn settings_fields<'f>(&self, fi: usize, f: &'f PyFacts) -> Vec<Use<'f>> {
        let mut out = Vec::new();
        for (ci, class) in f.defs.iter().enumerate() {
            let ci = ci as u32;
            if class.kind != SymbolKind::Class || !self.is_settings(fi, ci, 0) {
                continue;
            }
            let prefix = self.env_prefix(fi, f, ci);
            for d in f.defs.iter().filter(|d| d.parent == Some(ci)) {
                if d.kind != SymbolKind::Field
                    || d.name.starts_with('_')
                    || d.name == "model_config"
                {
                    continue;
                }
                let named = f
                    .calls
                    .iter()
                    .filter(|c| {
                        c.scope == ci
                            && c.line == d.line
                            && c.chain.last().is_some_and(|l| l == "Field")
                    })
                    .flat_map(|c| &c.args)
                    .find(|a| {
                        matches!(
                            a.keyword.as_deref(),
                            Some("alias" | "validation_alias" | "env")
                        )
                    })
                    .and_then(|a| a.literals.first().cloned());
                let key = named.unwrap_or_else(|| format!("{prefix}{}", d.name).to_uppercase());
                out.push(Use {
                    caller: d.id.as_str(),
                    line: d.line,
                    key,
                    def: None,
                    detail: format!("settings field of {}", class.name),
                });
            }
        }
        out
    }

    /// Whether a class derives from pydantic's `BaseSettings`.
    fn is_settings(&self, f: usize, d: u32, depth: u32) -> bool {
        if depth > 8 {
            return false;
        }
        let def = self.def(f, d);
        def.bases.iter().any(|b| {
            let chain: Vec<String> = b.split('.').map(str::to_string).collect();
            match self.chain(f, def.parent.unwrap_or(0), &chain, 0) {
                Some(V::External(x)) => x.ends_with("BaseSettings"),
                Some(V::Def(bf, bd)) if self.def(bf, bd).kind == SymbolKind::Class => {
                    self.is_settings(bf, bd, depth + 1)
                }
                _ => false,
            }
        })
    }

    /// A settings class's `env_prefix`: `model_config = SettingsConfigDict(env_prefix=…)` or
    /// `class Config: env_prefix = …`.
    fn env_prefix(&self, fi: usize, f: &PyFacts, class: u32) -> String {
        let from_dict = f
            .calls
            .iter()
            .filter(|c| {
                c.scope == class && c.chain.last().is_some_and(|l| l.ends_with("ConfigDict"))
            })
            .flat_map(|c| &c.args)
            .find(|a| a.keyword.as_deref() == Some("env_prefix"))
            .and_then(|a| a.literals.first().cloned());
        from_dict
            .or_else(|| {
                let config = *self.members[fi].get(&(class, "Config"))?;
                self.class_const(fi, config, "env_prefix").map(|c| c.0)
            })
            .unwrap_or_default()
    }
}
