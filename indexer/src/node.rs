//! Typed graph node ids. An edge's endpoints are strings in the store; this is their one parse:
//! a declaration of a registered language (`java:org.x.Foo#bar(int)`, `py:shop.orders.pay`,
//! the prefix being the language's [`crate::lang::Spec::id_prefix`]), or a pseudo node that is
//! no declaration: an HTTP route, a schedule, a mapped SQL statement, a table, a configuration
//! key, a message topic.

use std::fmt;

/// What a node id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// A declaration in code (or a library's, with no file).
    Symbol,
    /// `route:GET /api/orders/{id}`.
    Route,
    /// `schedule:cron=0 * * * * ?`.
    Schedule,
    /// `mybatis:ns.statementId`: a mapped SQL statement.
    Statement,
    /// `table:t_order`.
    Table,
    /// `config:order.timeout`.
    Config,
    /// `mq:queue/order.cancel`: a queue, exchange or topic.
    Topic,
    /// Anything else (never produced by the indexer; kept as written).
    Other,
}

/// The pseudo kinds and the prefix each is written with.
const PSEUDO: &[(NodeKind, &str)] = &[
    (NodeKind::Route, "route"),
    (NodeKind::Schedule, "schedule"),
    (NodeKind::Statement, "mybatis"),
    (NodeKind::Table, "table"),
    (NodeKind::Config, "config"),
    (NodeKind::Topic, "mq"),
];

/// A node id, parsed: `prefix:rest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeId<'a> {
    pub kind: NodeKind,
    /// The language's id prefix for a symbol (`java`, `py`), the kind's prefix otherwise.
    pub prefix: &'a str,
    /// What follows the prefix and its colon.
    pub rest: &'a str,
}

impl<'a> NodeId<'a> {
    pub fn parse(id: &'a str) -> NodeId<'a> {
        let Some((prefix, rest)) = id.split_once(':') else {
            return NodeId {
                kind: NodeKind::Other,
                prefix: "",
                rest: id,
            };
        };
        let kind = PSEUDO
            .iter()
            .find(|(_, p)| *p == prefix)
            .map(|(k, _)| *k)
            .or_else(|| {
                crate::lang::REGISTRY
                    .iter()
                    .any(|s| s.id_prefix == prefix)
                    .then_some(NodeKind::Symbol)
            })
            .unwrap_or(NodeKind::Other);
        NodeId { kind, prefix, rest }
    }

    /// A declaration in code, of any registered language.
    pub fn is_symbol(&self) -> bool {
        self.kind == NodeKind::Symbol
    }

    /// A route, schedule, statement, table, configuration key or topic.
    pub fn is_pseudo(&self) -> bool {
        !matches!(self.kind, NodeKind::Symbol | NodeKind::Other)
    }

    /// What stands between a type and its member in this symbol's language
    /// ([`crate::lang::Spec::member_separator`]); `.` for any other id.
    pub fn member_separator(&self) -> char {
        crate::lang::REGISTRY
            .iter()
            .find(|s| self.is_symbol() && s.id_prefix == self.prefix)
            .map_or('.', |s| s.member_separator)
    }

    /// The id of member `name` of the type this id names (`java:org.x.Foo` and `bar` give
    /// `java:org.x.Foo#bar`, `py:shop.Order` and `pay` give `py:shop.Order.pay`).
    pub fn member(&self, name: &str) -> String {
        format!("{self}{}{name}", self.member_separator())
    }

    /// The qualified name as a reader writes it: the prefix dropped and the member separator
    /// read as a dot (`org.x.Foo.bar(int)`).
    pub fn readable(&self) -> String {
        self.rest.replace(self.member_separator(), ".")
    }

    /// The prefix pseudo ids of `kind` are written with.
    pub fn prefix_of(kind: NodeKind) -> Option<&'static str> {
        PSEUDO.iter().find(|(k, _)| *k == kind).map(|(_, p)| *p)
    }
}

impl fmt::Display for NodeId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.prefix.is_empty() {
            f.write_str(self.rest)
        } else {
            write!(f, "{}:{}", self.prefix, self.rest)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_to_their_kind_and_print_as_written() {
        for (id, kind) in [
            ("java:org.x.Foo#bar(int)", NodeKind::Symbol),
            ("py:shop.orders.Order.pay", NodeKind::Symbol),
            ("route:GET /api/orders/{id}", NodeKind::Route),
            ("schedule:cron=0 * * * * ?", NodeKind::Schedule),
            ("mybatis:com.x.OrderMapper.pay", NodeKind::Statement),
            ("table:t_order", NodeKind::Table),
            ("config:order.timeout", NodeKind::Config),
            ("mq:queue/order.cancel", NodeKind::Topic),
            ("http://x", NodeKind::Other),
            ("plain", NodeKind::Other),
        ] {
            let n = NodeId::parse(id);
            assert_eq!(n.kind, kind, "{id}");
            assert_eq!(n.to_string(), id);
        }
        assert_eq!(NodeId::parse("route:GET /x").rest, "GET /x");
        assert!(NodeId::parse("py:a.b").is_symbol() && !NodeId::parse("py:a.b").is_pseudo());
        assert!(NodeId::parse("table:t").is_pseudo());
        assert_eq!(NodeId::prefix_of(NodeKind::Topic), Some("mq"));
    }

    #[test]
    fn members_are_written_and_read_with_their_languages_separator() {
        let java = NodeId::parse("java:org.x.Foo");
        assert_eq!(java.member("bar"), "java:org.x.Foo#bar");
        assert_eq!(
            NodeId::parse("py:shop.Order").member("pay"),
            "py:shop.Order.pay"
        );
        assert_eq!(NodeId::parse("kt:a.B").member("c"), "kt:a.B.c");
        assert_eq!(
            NodeId::parse("java:org.x.Foo#bar(int)").readable(),
            "org.x.Foo.bar(int)"
        );
        assert_eq!(
            NodeId::parse("py:shop.Order.pay").readable(),
            "shop.Order.pay"
        );
        // A pseudo id keeps what follows its prefix as written.
        assert_eq!(NodeId::parse("route:GET /a#b").readable(), "GET /a#b");
    }
}
