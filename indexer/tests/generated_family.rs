//! A generated model is told from a hand-written class by its family (the example class and
//! mapper that name it), which other files decide: an incremental run that adds, changes or
//! removes those files must leave every file's provenance where a full index of the same tree
//! puts it.

use indexer::model::Provenance;
use indexer::pipeline::{self, IndexOptions};
use indexer::store::IndexDir;
use indexer::store::catalog::Catalog;
use std::collections::BTreeMap;
use std::path::Path;

const MALL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/shop/shop-mall/"
);
const MODEL: &str = "src/main/java/com/shop/mall/mbg/model/OrderInfo.java";
const EXAMPLE: &str = "src/main/java/com/shop/mall/mbg/model/OrderInfoExample.java";
const MAPPER: &str = "src/main/java/com/shop/mall/mbg/mapper/OrderInfoMapper.java";
const XML: &str = "src/main/resources/com/shop/mall/mbg/mapper/OrderInfoMapper.xml";
const DTO: &str = "src/main/java/com/shop/mall/dto/PayNotifyParam.java";

fn copy(rel: &str, root: &Path) {
    let to = root.join(rel);
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(Path::new(MALL).join(rel), to).unwrap();
}

/// Every file's (provenance, reason) after indexing `root` into `dir`.
fn provenances(root: &Path, dir: &Path) -> BTreeMap<String, (Provenance, Option<String>)> {
    let dir = IndexDir::new(dir);
    pipeline::run(root, &dir, &IndexOptions::default(), &|_| {}).unwrap();
    let catalog = Catalog::open(&dir.catalog()).unwrap();
    catalog
        .current_files()
        .unwrap()
        .into_iter()
        .map(|(p, f)| (p.to_string(), (f.provenance, f.gen_reason)))
        .collect()
}

#[test]
fn a_models_family_is_settled_alike_by_incremental_and_full_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let incremental = tmp.path().join("incremental");
    for f in [MODEL, EXAMPLE, MAPPER, XML, DTO] {
        copy(f, &root);
    }
    let mut full_runs = 0;
    let mut check = |expect_model: Provenance| {
        let inc = provenances(&root, &incremental);
        full_runs += 1;
        let full = provenances(&root, &tmp.path().join(format!("full{full_runs}")));
        assert_eq!(inc, full);
        assert_eq!(inc[MODEL].0, expect_model, "{inc:?}");
        assert_eq!(inc[DTO], (Provenance::Source, None));
        inc
    };

    let all = check(Provenance::Generated);
    assert_eq!(
        all[MODEL].1.as_deref(),
        Some(
            "generator shape: MyBatis Generator model, named by OrderInfoExample.java, OrderInfoMapper.java, OrderInfoMapper.xml"
        )
    );
    assert_eq!(
        all[EXAMPLE],
        (
            Provenance::Generated,
            Some("generator shape: MyBatis Generator example class".into())
        )
    );

    // The family goes: the model's file is unchanged, yet it is a plain class again.
    for f in [EXAMPLE, MAPPER, XML] {
        std::fs::remove_file(root.join(f)).unwrap();
    }
    check(Provenance::Source);

    // One member of the family comes back: enough to name the model.
    copy(MAPPER, &root);
    let back = check(Provenance::Generated);
    assert_eq!(
        back[MODEL].1.as_deref(),
        Some("generator shape: MyBatis Generator model, named by OrderInfoMapper.java")
    );

    // The mapper turns hand-written (a method of its own outnumbers the generator's): gone again.
    let mapper = root.join(MAPPER);
    let text = std::fs::read_to_string(&mapper).unwrap();
    let own: String = (0..40)
        .map(|i| format!("    int markPaid{i}(Long id);\n\n"))
        .collect();
    std::fs::write(&mapper, text.replacen("{\n", &format!("{{\n{own}"), 1)).unwrap();
    check(Provenance::Source);
}
