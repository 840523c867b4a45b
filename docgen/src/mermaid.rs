//! Mermaid flowcharts from flows and the module graph. Node ids are generated (`s0`, `m3`), so
//! no name can collide with Mermaid's keywords; labels are quoted and escaped.

use crate::model::Flow;

/// A label safe inside `["…"]`: quotes and angle brackets as Mermaid entities.
pub fn label(s: &str) -> String {
    s.replace('"', "#quot;")
        .replace('<', "#lt;")
        .replace('>', "#gt;")
        .replace(['\n', '\r'], " ")
}

/// A flow as a top-down flowchart: methods as boxes, tables as cylinders, SQL statements as
/// subroutine boxes, remote calls as rounded boxes, calls out of the repository as flags;
/// edges labelled with their kind unless a plain call.
pub fn flow(f: &Flow) -> String {
    let mut out = String::from("flowchart TD\n");
    for (i, s) in f.steps.iter().enumerate() {
        let name = match &s.module {
            Some(m) => format!("{} ({m})", s.name),
            None => s.name.clone(),
        };
        let l = label(&name);
        let node = match s.kind.as_str() {
            "table" => format!("s{i}[(\"{l}\")]"),
            "sql" => format!("s{i}[[\"{l}\"]]"),
            "remote" => format!("s{i}(\"{l}\")"),
            "external" => format!("s{i}>\"{l}\"]"),
            _ => format!("s{i}[\"{l}\"]"),
        };
        out.push_str(&format!("    {node}\n"));
    }
    for h in &f.hops {
        if h.kind == "call" {
            out.push_str(&format!("    s{} --> s{}\n", h.from, h.to));
        } else {
            out.push_str(&format!("    s{} -->|{}| s{}\n", h.from, h.kind, h.to));
        }
    }
    out
}

/// The module graph, left to right: `edges` are (user, used) indexes into `names`, drawn
/// solid; `runtime` links (a remote call, a message) are drawn dashed with their kind.
pub fn modules(
    names: &[String],
    edges: &[(usize, usize)],
    runtime: &[(usize, usize, String)],
) -> String {
    let mut out = String::from("flowchart LR\n");
    for (i, n) in names.iter().enumerate() {
        out.push_str(&format!("    m{i}[\"{}\"]\n", label(n)));
    }
    for (a, b) in edges {
        out.push_str(&format!("    m{a} --> m{b}\n"));
    }
    for (a, b, kind) in runtime {
        out.push_str(&format!("    m{a} -.->|{}| m{b}\n", label(kind)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Cite, Hop, Step};

    #[test]
    fn a_flow_renders_shapes_and_kinds() {
        let step = |name: &str, kind: &str| Step {
            name: name.into(),
            kind: kind.into(),
            cite: Cite::at("A.java", 1),
            module: None,
        };
        let f = Flow {
            entry: "route GET /x".into(),
            steps: vec![
                step("A.run", "method"),
                step("t_\"x\"", "table"),
                step("Mail.send", "external"),
            ],
            hops: vec![
                Hop {
                    from: 0,
                    to: 1,
                    kind: "db".into(),
                    site: Cite::at("A.java", 2),
                },
                Hop {
                    from: 0,
                    to: 2,
                    kind: "call".into(),
                    site: Cite::at("A.java", 3),
                },
            ],
            cut: 0,
        };
        assert_eq!(
            flow(&f),
            "flowchart TD\n    s0[\"A.run\"]\n    s1[(\"t_#quot;x#quot;\")]\n    s2>\"Mail.send\"]\n    \
             s0 -->|db| s1\n    s0 --> s2\n"
        );
    }
}
