use super::*;
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
