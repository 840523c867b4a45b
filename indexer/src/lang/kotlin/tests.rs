use super::*;
use crate::graph::EdgeKind;
use crate::lang::assert_inline_defs;
use crate::model::SymbolKind;

const FIXTURE: &[u8] = include_bytes!("../../../../tests/fixtures/kotlin/OrderService.kt");

#[test]
fn fixture_symbols_are_where_its_comments_say() {
    let a = assert_inline_defs(LANGUAGE, "src/main/kotlin/OrderService.kt", FIXTURE);
    assert_eq!(a.package.as_deref(), Some("com.shop.order"));
    assert_eq!(
        a.imports,
        [
            "org.springframework.web.bind.annotation.GetMapping",
            "org.springframework.stereotype.Service"
        ]
    );
    let find = |id: &str| a.symbols.iter().find(|s| s.id.0 == id).unwrap();
    let service = find("kt:com.shop.order.OrderService");
    assert_eq!(service.annotations, ["@Service"]);
    assert_eq!(service.doc.as_deref(), Some("Orders and their states."));
    let pay = find("kt:com.shop.order.OrderService.pay");
    assert_eq!(pay.kind, SymbolKind::Method);
    assert_eq!(pay.annotations, ["@GetMapping(\"/orders/{id}\")"]);
    assert_eq!((pay.start_line, pay.end_line), (13, 19));
    assert_eq!(
        find("kt:com.shop.order.OrderRepo").kind,
        SymbolKind::Interface
    );
    assert_eq!(find("kt:com.shop.order.Status").kind, SymbolKind::Enum);
    assert_eq!(
        find("kt:com.shop.order.Status.PAID").kind,
        SymbolKind::Constant
    );
    assert_eq!(find("kt:com.shop.order.shout").kind, SymbolKind::Function);
    assert_eq!(
        find("kt:com.shop.order.OrderService.repo").visibility,
        "private"
    );
    assert!(!a.chunks.is_empty());
}

/// The ktshop fixture (Kotlin and one Java class): every file analysed.
fn ktshop() -> Vec<(RepoPath, crate::graph::FileFacts, String)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/ktshop");
    let files = [
        "src/main/kotlin/com/shop/order/Order.kt",
        "src/main/kotlin/com/shop/order/OrderService.kt",
        "src/main/kotlin/com/shop/order/OrderController.kt",
        "src/main/kotlin/com/shop/order/PaidListener.kt",
        "src/main/kotlin/com/shop/util/Audit.kt",
        "src/main/java/com/shop/util/Clock.java",
    ];
    files
        .iter()
        .map(|rel| {
            let src = std::fs::read(format!("{root}/{rel}")).expect("fixture file");
            let path = RepoPath::new(rel).expect("fixture path");
            let lang = crate::lang::detect(&path).expect("a source file");
            let a = crate::lang::analyze(lang, &path, "ktshop", &src, &ParseLimits::default());
            assert_eq!(a.degraded, None, "{rel}");
            let facts = *a.facts.expect("facts");
            (path, facts, String::from_utf8_lossy(&src).into_owned())
        })
        .collect()
}

/// What a fixture line's comment says after `marker`.
fn marked<'s>(line: &'s str, marker: &str) -> Option<&'s str> {
    let (_, comment) = line.split_once("//")?;
    Some(comment.split_once(marker)?.1.trim())
}

#[test]
fn ktshop_edges_are_the_ones_its_comments_name() {
    let files = ktshop();
    let refs: Vec<(&RepoPath, &crate::graph::FileFacts)> =
        files.iter().map(|(p, f, _)| (p, f)).collect();
    let edges = resolve(&refs);
    for ((path, _, src), edges) in files.iter().zip(&edges) {
        for (i, line) in src.lines().enumerate() {
            let n = i as u32 + 1;
            let at = |kind: EdgeKind| edges.iter().filter(move |e| e.line == n && e.kind == kind);
            let sorted = |mut v: Vec<String>| {
                v.sort();
                v
            };
            let listed = |marker: &str| -> Vec<String> {
                marked(line, marker)
                    .map(|c| c.split_whitespace().map(str::to_string).collect())
                    .unwrap_or_default()
            };
            let calls = at(EdgeKind::Call)
                .filter(|e| e.callee_file.is_some())
                .filter_map(|e| e.callee.clone())
                .collect();
            assert_eq!(
                sorted(calls),
                sorted(listed("calls:")),
                "{path}:{n}: {line}"
            );
            let events = at(EdgeKind::Event)
                .filter(|e| !e.caller.starts_with("schedule:"))
                .filter_map(|e| e.callee.clone())
                .collect();
            assert_eq!(sorted(events), listed("event:"), "{path}:{n}");
            let entries: Vec<String> = at(EdgeKind::Route)
                .chain(at(EdgeKind::Event).filter(|e| e.caller.starts_with("schedule:")))
                .map(|e| e.caller.clone())
                .collect();
            let want: Vec<String> = [("route:", "route:"), ("schedule:", "schedule:")]
                .iter()
                .filter_map(|(m, p)| marked(line, m).map(|r| format!("{p}{r}")))
                .collect();
            assert_eq!(entries, want, "{path}:{n}");
        }
    }
}

#[test]
fn kotlin_types_implement_and_override_their_supertypes() {
    let files = ktshop();
    let refs: Vec<(&RepoPath, &crate::graph::FileFacts)> =
        files.iter().map(|(p, f, _)| (p, f)).collect();
    let mut edges: Vec<String> = resolve(&refs)
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
    edges.sort();
    assert_eq!(
        edges,
        [
            "kt:com.shop.order.DefaultOrderService implements kt:com.shop.order.OrderService",
            "kt:com.shop.order.DefaultOrderService.pay overrides kt:com.shop.order.OrderService.pay",
            "kt:com.shop.order.MemoryOrderRepo implements kt:com.shop.order.OrderRepo",
            "kt:com.shop.order.MemoryOrderRepo.find overrides kt:com.shop.order.OrderRepo.find",
            "kt:com.shop.order.MemoryOrderRepo.save overrides kt:com.shop.order.OrderRepo.save",
        ]
    );
}

#[test]
fn class_annotations_parsed_as_a_loose_expression_still_give_the_route_prefix() {
    // In this file tree-sitter-kotlin reads the class's annotations as an annotated expression
    // before the class, `("/api/x")` as a parenthesized expression.
    let src = b"package a\n\nimport b.*\n\n@RestController\n@RequestMapping(\"/api/x\")\n\
        class C(private val repo: Repo) {\n    @Autowired lateinit var other: Other\n    \
        @GetMapping(\"/y\")\n    fun f() {}\n    companion object { fun create() = C() }\n}\n\
        fun String.shout(): String = uppercase()\n";
    let path = RepoPath::new("src/main/kotlin/a/C.kt").unwrap();
    let a = crate::lang::analyze(LANGUAGE, &path, "m", src, &ParseLimits::default());
    let f = *a.facts.expect("facts");
    let routes: Vec<String> = resolve(&[(&path, &f)])
        .into_iter()
        .flatten()
        .filter(|e| e.kind == EdgeKind::Route)
        .map(|e| format!("{} {}", e.caller, e.callee.unwrap_or_default()))
        .collect();
    assert_eq!(routes, ["route:GET /api/x/y kt:a.C.f"]);
}
