//! One edge of the graph: a use site in a file, who uses, what is used, and how.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// What kind of use an edge records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeKind {
    /// A method or constructor call, a method reference, a call through an injected bean.
    Call,
    /// A remote call: Feign client method → controller method, Dubbo reference → service.
    Rpc,
    /// Data access: mapper method → SQL statement → table.
    Db,
    /// Asynchronous delivery: MQ sender → listener, `publishEvent` → `@EventListener`,
    /// scheduler → `@Scheduled` method.
    Event,
    /// An HTTP route → its handler method.
    Route,
    /// A configuration key used by a field or class (`@Value`, `@ConfigurationProperties`).
    Config,
    /// `extends` between classes or between interfaces.
    Inherits,
    /// A class implementing an interface.
    Implements,
    /// A method overriding or implementing a supertype's method.
    Overrides,
    /// An enum constant set as a value: passed to a call (directly, or through a call on it such
    /// as `Status.PAID.getCode()`) or assigned. The callee is the constant (`java:pkg.S#PAID`);
    /// the detail says what takes it (`setStatus`, `= status`). Not a flow edge.
    Constant,
    /// A field or constant (enum constants included) read by name in code: `FOO`, `Type.FOO`,
    /// `this.foo`, `obj.foo`, `Outer.Inner.FOO`, a statically imported constant, a `case`
    /// label. The callee is the project field (`java:pkg.T#name`, declared where
    /// `callee_file:callee_line` says); one edge per caller and field, at the first read's
    /// line. A plain `=` writes its target (no edge); `+=` and `++` read it. Not a flow edge.
    Read,
}

impl EdgeKind {
    pub const ALL: [EdgeKind; 11] = [
        EdgeKind::Call,
        EdgeKind::Rpc,
        EdgeKind::Db,
        EdgeKind::Event,
        EdgeKind::Route,
        EdgeKind::Config,
        EdgeKind::Inherits,
        EdgeKind::Implements,
        EdgeKind::Overrides,
        EdgeKind::Constant,
        EdgeKind::Read,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Call => "call",
            EdgeKind::Rpc => "rpc",
            EdgeKind::Db => "db",
            EdgeKind::Event => "event",
            EdgeKind::Route => "route",
            EdgeKind::Config => "config",
            EdgeKind::Inherits => "inherits",
            EdgeKind::Implements => "implements",
            EdgeKind::Overrides => "overrides",
            EdgeKind::Constant => "constant",
            EdgeKind::Read => "read",
        }
    }

    pub fn parse(s: &str) -> Option<EdgeKind> {
        EdgeKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Edges of the call graph proper (flow), as opposed to the type hierarchy and data uses.
    pub fn is_flow(self) -> bool {
        !matches!(
            self,
            EdgeKind::Inherits
                | EdgeKind::Implements
                | EdgeKind::Overrides
                | EdgeKind::Constant
                | EdgeKind::Read
        )
    }
}

/// `caller` uses `callee` at `caller_file:line`.
///
/// Endpoints are symbol ids when the symbol is in the index (`java:pkg.Type#m(int)`), external
/// ids for JDK and library members (`java:java.io.File#exists`, no file), or pseudo ids for
/// things that are not Java declarations: `route:GET /api/orders/{}`, `mybatis:ns.id`,
/// `table:t_order`, `config:order.timeout`, `mq:queue/order.cancel`, `schedule:cron=0 * * * * ?`.
/// An unresolved call has no `callee`, only `callee_name` (the method name) and a confidence
/// below 0.5.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub caller_file: String,
    pub caller: String,
    /// Qualified name for display (`pkg.Type.method`; constructors `pkg.Type.Type`).
    pub caller_name: String,
    /// Line of the use site in `caller_file` (javac's line for calls: the name token).
    pub line: u32,
    pub kind: EdgeKind,
    pub callee: Option<String>,
    pub callee_name: String,
    pub callee_file: Option<String>,
    pub callee_line: Option<u32>,
    /// For a type caller: its initializer code ([`STATIC_INIT`], [`INSTANCE_INIT`]).
    #[serde(default)]
    pub caller_flags: u8,
    /// 1.0 certain; 0.8–0.9 resolved with a guess (overload, inherited from outside the repo);
    /// below 0.5 unresolved.
    pub confidence: f32,
    /// How it was resolved, when that is worth saying (`bean`, `dubbo`, `exchange=x key=y`).
    pub detail: String,
    /// A call: what its site says about it (empty for other edges).
    #[serde(default)]
    pub site: CallSite,
}

/// What a call's site says about it, for following a flow through it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallSite {
    /// The names of the receiver chain as written, outermost first: for
    /// `engine.getHost(name).getPipeline().invoke(request)`, the call to `invoke` has `engine`,
    /// `getHost`, `getPipeline`. Empty for an unqualified call and `this.m()`.
    #[serde(default)]
    pub receiver: Vec<String>,
    /// [`SITE_RETURNED`], [`SITE_ARGUMENT`], [`SITE_PARAM`], [`SITE_LOCAL`].
    #[serde(default)]
    pub flags: u8,
}

/// The call's value is what the caller returns.
pub const SITE_RETURNED: u8 = 1;
/// The call's value is (part of) an argument of another call.
pub const SITE_ARGUMENT: u8 = 2;
/// The receiver or an argument uses a parameter of the caller: the call hands it on.
pub const SITE_PARAM: u8 = 4;
/// An argument uses a local variable of the caller: a value it made on its way.
pub const SITE_LOCAL: u8 = 8;

impl Edge {
    /// Order of edges within one use-site file: line, kind, then ids.
    pub fn order_in_file(a: &Edge, b: &Edge) -> Ordering {
        (a.line, a.kind)
            .cmp(&(b.line, b.kind))
            .then_with(|| a.caller.cmp(&b.caller))
            .then_with(|| a.callee.cmp(&b.callee))
            .then_with(|| a.callee_name.cmp(&b.callee_name))
            .then_with(|| a.detail.cmp(&b.detail))
    }
}

/// `caller_flags` of an initializer caller: the type's static or instance initializer.
pub const STATIC_INIT: u8 = 1;
pub const INSTANCE_INIT: u8 = 2;

impl Edge {
    /// Fills `caller_name` and `callee_name` from the ids (what a stored edge reads back as).
    /// [`crate::graph::build`] leaves them empty, except the name of an unresolved callee.
    pub fn normalize_names(&mut self) {
        self.caller_name = caller_name_of(&self.caller, self.caller_flags);
        if let Some(c) = &self.callee {
            self.callee_name = callee_name_of(c, self.kind);
        }
    }
}

/// Display name of a caller id: `java:pkg.T#m(int)` → `pkg.T.m`, constructors `pkg.T.T`, a type
/// with initializer flags `pkg.T.<clinit>` / `pkg.T.<init>`; pseudo ids stay as they are.
pub fn caller_name_of(id: &str, flags: u8) -> String {
    let base = member_name(id);
    match flags {
        STATIC_INIT => format!("{base}.<clinit>"),
        INSTANCE_INIT => format!("{base}.<init>"),
        _ => base,
    }
}

/// Display name of a callee id; a call to a type id is a call of its implicit constructor
/// (`pkg.T.T`).
pub fn callee_name_of(id: &str, kind: EdgeKind) -> String {
    let base = member_name(id);
    if kind == EdgeKind::Call && id.starts_with("java:") && !id.contains('#') {
        let simple = base.rsplit('.').next().unwrap_or(&base).to_string();
        return format!("{base}.{simple}");
    }
    base
}

fn member_name(id: &str) -> String {
    // Every language but Java writes `<prefix>:<qualified name>[~n]`.
    let node = crate::node::NodeId::parse(id);
    if node.is_symbol() && node.prefix != "java" {
        return node.rest.split('~').next().unwrap_or(node.rest).to_string();
    }
    let Some(rest) = id.strip_prefix("java:") else {
        return id.to_string();
    };
    match rest.split_once('#') {
        Some((owner, member)) => {
            let member = member.split(['(', '~']).next().unwrap_or(member);
            let member = if member == "<init>" {
                owner.rsplit('.').next().unwrap_or(owner)
            } else {
                member
            };
            format!("{owner}.{member}")
        }
        None => rest.split('~').next().unwrap_or(rest).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_derive_from_ids() {
        assert_eq!(caller_name_of("java:a.B#m(int,String)", 0), "a.B.m");
        assert_eq!(caller_name_of("java:a.B#<init>(int)", 0), "a.B.B");
        assert_eq!(caller_name_of("java:a.B", STATIC_INIT), "a.B.<clinit>");
        assert_eq!(caller_name_of("route:GET /x", 0), "route:GET /x");
        assert_eq!(caller_name_of("ts:a.b.C.m~2", 0), "a.b.C.m");
        assert_eq!(callee_name_of("js:lib.x.f", EdgeKind::Call), "lib.x.f");
        assert_eq!(callee_name_of("java:a.B", EdgeKind::Call), "a.B.B");
        assert_eq!(callee_name_of("java:a.B", EdgeKind::Inherits), "a.B");
        assert_eq!(
            callee_name_of("java:java.io.File#exists", EdgeKind::Call),
            "java.io.File.exists"
        );
        assert_eq!(callee_name_of("java:a.B#f", EdgeKind::Config), "a.B.f");
        assert_eq!(callee_name_of("java:a.B#m(int)~2", EdgeKind::Call), "a.B.m");
    }
}
