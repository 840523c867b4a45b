use super::*;
use crate::lang::assert_inline_defs;
use crate::model::Symbol;

const KITCHEN: &[u8] = include_bytes!("../../../../tests/fixtures/typescript/kitchen.ts");

fn symbol<'a>(a: &'a FileAnalysis, id: &str) -> &'a Symbol {
    a.symbols
        .iter()
        .find(|s| s.id.0 == id)
        .unwrap_or_else(|| panic!("no symbol {id}: {:#?}", a.symbols.iter().map(|s| &s.id.0).collect::<Vec<_>>()))
}

fn path(p: &str) -> RepoPath {
    RepoPath::new(p).unwrap()
}

#[test]
fn kitchen_fixture_symbols_are_where_its_comments_say() {
    let a = assert_inline_defs(LANGUAGE, "src/kitchen/shop.ts", KITCHEN);
    assert_eq!(a.package.as_deref(), Some("kitchen.shop"));
    assert_eq!(
        a.imports,
        ["@nestjs/common.Injectable", "@nestjs/common.Get", "fs.fs", "./repo.Repo", "./repo.Row"]
    );
}
