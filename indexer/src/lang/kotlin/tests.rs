use super::*;
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
