use super::*;
use crate::graph::EdgeKind;
use crate::lang::assert_inline_defs;
use crate::model::SymbolKind;

const ORDERS: &[u8] = include_bytes!("../../../../tests/fixtures/go/orders.go");

#[test]
fn orders_fixture_symbols_are_where_its_comments_say() {
    let a = assert_inline_defs(LANGUAGE, "internal/orders/orders.go", ORDERS);
    assert_eq!(a.package.as_deref(), Some("internal/orders"));
    assert_eq!(a.imports, ["errors", "example.com/shop/internal/db"]);
    let find = |id: &str| a.symbols.iter().find(|s| s.id.0 == id).unwrap();
    let pay = find("go:internal/orders.Order.Pay");
    assert_eq!(pay.kind, SymbolKind::Method);
    assert_eq!(pay.parent.as_ref().unwrap().0, "go:internal/orders.Order");
    assert_eq!(pay.doc.as_deref(), Some("Pay marks the order paid."));
    assert_eq!((pay.start_line, pay.end_line), (18, 24));
    assert_eq!(pay.signature, "func (o *Order) Pay() error");
    assert_eq!(find("go:internal/orders.Repo").kind, SymbolKind::Interface);
    assert_eq!(
        find("go:internal/orders.Repo").doc.as_deref(),
        Some("Repo stores orders.")
    );
    let place = find("go:internal/orders.Place");
    assert_eq!(place.kind, SymbolKind::Function);
    assert_eq!(place.visibility, "public");
    let names: Vec<&str> = place.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["r", "id"]);
    assert_eq!(find("go:internal/orders.helper").visibility, "");
    assert!(!a.chunks.is_empty());
}

/// The goshop fixture: every file analysed, then resolved together.
fn goshop() -> Vec<(RepoPath, crate::graph::FileFacts, String)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/goshop");
    let files = [
        "go.mod",
        "internal/store/store.go",
        "internal/orders/orders.go",
        "internal/memory/memory.go",
        "cmd/server/main.go",
        "cmd/client/client.go",
    ];
    files
        .iter()
        .map(|rel| {
            let src = std::fs::read(format!("{root}/{rel}")).expect("fixture file");
            let path = RepoPath::new(rel).expect("fixture path");
            let lang = crate::lang::detect(&path).expect("a go file");
            let a = crate::lang::analyze(lang, &path, "goshop", &src, &ParseLimits::default());
            assert_eq!(a.degraded, None, "{rel}");
            let facts = *a.facts.expect("facts");
            (path, facts, String::from_utf8_lossy(&src).into_owned())
        })
        .collect()
}

/// What a fixture line's comment says after `marker` (`calls:`, `route:`, `request:`).
fn marked<'s>(line: &'s str, marker: &str) -> Option<&'s str> {
    let (_, comment) = line.split_once("//")?;
    Some(comment.split_once(marker)?.1.trim())
}

#[test]
fn goshop_calls_are_the_ones_its_comments_name() {
    let files = goshop();
    let refs: Vec<(&RepoPath, &crate::graph::FileFacts)> =
        files.iter().map(|(p, f, _)| (p, f)).collect();
    let edges = resolve(&refs);
    for ((path, _, src), edges) in files.iter().zip(&edges) {
        for (i, line) in src.lines().enumerate() {
            let n = i as u32 + 1;
            let at = |kind: EdgeKind| edges.iter().filter(move |e| e.line == n && e.kind == kind);
            let mut want: Vec<&str> = marked(line, "calls:")
                .map(|c| c.split_whitespace().collect())
                .unwrap_or_default();
            let mut got: Vec<&str> = at(EdgeKind::Call)
                .filter(|e| e.callee_file.is_some())
                .filter_map(|e| e.callee.as_deref())
                .collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "{path}:{n}: {line}");
            let routes: Vec<String> = at(EdgeKind::Route).map(|e| e.caller.clone()).collect();
            let want = marked(line, "route:").map(|r| format!("route:{r}"));
            assert_eq!(routes, want.into_iter().collect::<Vec<_>>(), "{path}:{n}");
            let requests: Vec<&str> = at(EdgeKind::Rpc).map(|e| e.detail.as_str()).collect();
            let want = marked(line, "request:").map(|r| format!("http {r}"));
            assert_eq!(requests, want.into_iter().collect::<Vec<_>>(), "{path}:{n}");
        }
    }
}

#[test]
fn implementing_types_are_found_by_their_method_names() {
    let files = goshop();
    let refs: Vec<(&RepoPath, &crate::graph::FileFacts)> =
        files.iter().map(|(p, f, _)| (p, f)).collect();
    let edges: Vec<String> = resolve(&refs)
        .into_iter()
        .flatten()
        .filter(|e| matches!(e.kind, EdgeKind::Implements | EdgeKind::Overrides))
        .map(|e| {
            format!(
                "{} {} {}",
                e.caller,
                e.kind.as_str(),
                e.callee.unwrap_or_default()
            )
        })
        .collect();
    let mut edges = edges;
    edges.sort();
    assert_eq!(
        edges,
        [
            "go:internal/memory.Repo implements go:internal/orders.Repo",
            "go:internal/memory.Repo.Find overrides go:internal/orders.Repo.Find",
            "go:internal/memory.Repo.Save overrides go:internal/orders.Repo.Save",
        ]
    );
}

#[test]
fn a_broken_file_still_yields_facts_for_what_parses() {
    let src = b"package x\n\nfunc (s *S) M() { s.N( \n\nfunc F() { G() }\n";
    let path = RepoPath::new("x/x.go").unwrap();
    let a = crate::lang::analyze(LANGUAGE, &path, "m", src, &ParseLimits::default());
    let f = *a.facts.expect("facts");
    assert!(resolve(&[(&path, &f)]).len() == 1);
}

#[test]
fn string_literals_belong_to_the_innermost_declaration() {
    let src = b"package orders\n\nimport \"errors\"\n\nvar ErrPaid = errors.New(\"paid twice\")\n\nfunc Pay(id int64) error {\n\treturn fmt.Errorf(\"order %d is not awaiting payment\", id)\n}\n\nvar raw = `raw text`\n";
    let p = RepoPath::new("internal/orders/orders.go").unwrap();
    let a = analyze(&p, "", src, &ParseLimits::default()).unwrap();
    let of = |name: &str| -> Vec<(u32, String)> {
        a.symbols
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("{name}"))
            .literals
            .iter()
            .map(|l| (l.line, l.text.clone()))
            .collect()
    };
    assert_eq!(of("ErrPaid"), [(5, "paid twice".to_string())]);
    assert_eq!(
        of("Pay"),
        [(8, "order %d is not awaiting payment".to_string())]
    );
    assert_eq!(of("raw"), [(11, "raw text".to_string())]);
    // The import path belongs to no declaration.
    assert!(
        a.symbols
            .iter()
            .all(|s| s.literals.iter().all(|l| l.text != "errors"))
    );
}
