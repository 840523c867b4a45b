//! The table of common JDK types (`indexer/data/jdk-types.txt`): supertypes, fields and method
//! return types, parsed once. See the data file for its format.

use crate::graph::facts::{TypeKind, TypeRef};
use std::sync::OnceLock;

const DATA: &str = include_str!("../../data/jdk-types.txt");

#[derive(Debug, Clone, PartialEq)]
pub struct JdkType {
    pub fqn: String,
    pub kind: TypeKind,
    pub params: Vec<String>,
    pub supers: Vec<TypeRef>,
    pub methods: Vec<JdkMethod>,
    pub fields: Vec<(String, TypeRef)>,
    /// Parameter types of a functional interface's single abstract method.
    pub sam: Option<Vec<TypeRef>>,
    /// Methods taking a lambda, with the types of its parameters (`forEach` on `Iterable<T>`:
    /// `T`).
    pub lambdas: Vec<(String, Vec<TypeRef>)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct JdkMethod {
    pub name: String,
    /// `None`: any number of arguments.
    pub arity: Option<u8>,
    pub ret: TypeRef,
    pub is_static: bool,
}

#[derive(Debug, Default)]
pub struct JdkTable {
    pub types: Vec<JdkType>,
    /// `java.lang` types named without members.
    pub lang: Vec<String>,
}

/// The parsed table (parsed on first use).
pub fn table() -> &'static JdkTable {
    static TABLE: OnceLock<JdkTable> = OnceLock::new();
    TABLE.get_or_init(|| parse(DATA))
}

/// Parses the table; malformed lines are skipped (the data file's test checks there are none).
pub fn parse(data: &str) -> JdkTable {
    let mut t = JdkTable::default();
    for raw in data.lines() {
        let line = raw.split('#').next().unwrap_or("");
        if line.trim().is_empty() {
            continue;
        }
        let indented = line.starts_with(' ');
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else { continue };
        if !indented {
            let kind = match first {
                "lang" => {
                    t.lang.extend(words.map(str::to_string));
                    continue;
                }
                "class" => TypeKind::Class,
                "interface" => TypeKind::Interface,
                "enum" => TypeKind::Enum,
                _ => continue,
            };
            let rest: String = words.collect::<Vec<_>>().join(" ");
            let (head, supers) = rest.split_once(':').unwrap_or((&rest, ""));
            let head = parse_type(head.trim());
            t.types.push(JdkType {
                fqn: head.name,
                kind,
                params: head.args.into_iter().map(|a| a.name).collect(),
                supers: split_top(supers)
                    .into_iter()
                    .filter(|s| !s.is_empty())
                    .map(parse_type)
                    .collect(),
                methods: Vec::new(),
                fields: Vec::new(),
                sam: None,
                lambdas: Vec::new(),
            });
            continue;
        }
        let Some(ty) = t.types.last_mut() else {
            continue;
        };
        if first == "sam" {
            ty.sam = Some(words.map(parse_type).collect());
            continue;
        }
        if first == "lambda" {
            let rest: Vec<&str> = words.collect();
            let Some(colon) = rest.iter().position(|w| *w == ":") else {
                continue;
            };
            let params: Vec<TypeRef> = rest[..colon].iter().map(|t| parse_type(t)).collect();
            for m in &rest[colon + 1..] {
                ty.lambdas.push((m.to_string(), params.clone()));
            }
            continue;
        }
        let (is_static, ret) = if first == "static" {
            (true, words.next())
        } else {
            (false, Some(first))
        };
        let Some(ret) = ret else { continue };
        if ret == "field" {
            let Some(fty) = words.next() else { continue };
            let fty = parse_type(fty);
            for name in words {
                ty.fields.push((name.to_string(), fty.clone()));
            }
            continue;
        }
        let ret = parse_type(ret);
        for m in words {
            let (name, arity) = match m.split_once('/') {
                Some((n, a)) => (n, a.parse().ok()),
                None => (m, None),
            };
            ty.methods.push(JdkMethod {
                name: name.to_string(),
                arity,
                ret: ret.clone(),
                is_static,
            });
        }
    }
    t
}

/// `java.util.Map.Entry<K,V>[]` → a [`TypeRef`].
pub fn parse_type(s: &str) -> TypeRef {
    let s = s.trim();
    let (body, dims) = {
        let mut b = s;
        let mut d = 0u8;
        while let Some(x) = b.strip_suffix("[]") {
            b = x;
            d += 1;
        }
        (b, d)
    };
    match body.find('<') {
        Some(i) if body.ends_with('>') => TypeRef {
            name: body[..i].to_string(),
            args: split_top(&body[i + 1..body.len() - 1])
                .into_iter()
                .map(parse_type)
                .collect(),
            dims,
        },
        _ => TypeRef {
            name: body.to_string(),
            args: Vec::new(),
            dims,
        },
    }
}

/// Splits at commas outside angle brackets.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn the_data_file_parses_completely() {
        let t = table();
        assert!(t.types.len() > 150, "{}", t.types.len());
        let fqns: HashSet<&str> = t.types.iter().map(|t| t.fqn.as_str()).collect();
        assert_eq!(fqns.len(), t.types.len(), "a type is declared twice");
        // Every line of the file is understood: count member lines against parsed members.
        let members: usize = DATA
            .lines()
            .filter(|l| l.starts_with("  ") && !l.trim_start().starts_with('#'))
            .filter(|l| !l.trim_start().starts_with("sam") && !l.trim_start().starts_with("lambda"))
            .map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                let skip = match (w.first(), w.get(1)) {
                    (Some(&"static"), _) => 2,
                    (Some(&"field"), _) => 2,
                    _ => 1,
                };
                w.len() - skip
            })
            .sum();
        let parsed: usize = t
            .types
            .iter()
            .map(|t| t.methods.len() + t.fields.len())
            .sum();
        assert_eq!(members, parsed);
        let string = t
            .types
            .iter()
            .find(|t| t.fqn == "java.lang.String")
            .unwrap();
        assert!(string.methods.iter().any(|m| m.name == "substring"));
        let map = t.types.iter().find(|t| t.fqn == "java.util.Map").unwrap();
        assert_eq!(map.params, ["K", "V"]);
        let entry_set = map.methods.iter().find(|m| m.name == "entrySet").unwrap();
        assert_eq!(entry_set.ret.args[0].name, "java.util.Map.Entry");
        assert_eq!(entry_set.ret.args[0].args[1].name, "V");
    }

    #[test]
    fn types_parse_with_generics_and_arrays() {
        let t = parse_type("java.util.Map<String,java.util.List<T>>[]");
        assert_eq!(t.name, "java.util.Map");
        assert_eq!(t.dims, 1);
        assert_eq!(t.args[1].args[0].name, "T");
    }
}
