//! Generator output without a marker, recognised by its shape, ranks below hand-written code unless
//! the question asks for it: the shop fixture's `shop-mall` module holds MyBatis Generator output
//! (example class, model, mapper interface and XML) beside the hand-written service that changes
//! an order's status after payment through the generated mapper.

mod support;

use indexer::model::Provenance;
use indexer::pipeline::{self, IndexOptions};
use indexer::store::{EmbeddedIndex, IndexDir};
use query::{Answer, Asker};
use std::path::{Path, PathBuf};
use support::{assert_citations_resolve, opts};

const MBG: &str = "shop-mall/src/main/java/com/shop/mall/mbg/";
/// The generator's files: the check is by path, not by the provenance under test.
const GENERATED: [&str; 4] = [
    "shop-mall/src/main/java/com/shop/mall/mbg/model/OrderInfoExample.java",
    "shop-mall/src/main/java/com/shop/mall/mbg/model/OrderInfo.java",
    "shop-mall/src/main/java/com/shop/mall/mbg/mapper/OrderInfoMapper.java",
    "shop-mall/src/main/resources/com/shop/mall/mbg/mapper/OrderInfoMapper.xml",
];
/// Hand-written methods that move an order to paid.
const STATUS_AFTER_PAYMENT: [&str; 2] = ["OrderPayServiceImpl.paySuccess", "OrderServiceImpl.pay"];

fn shop() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/shop")
}

fn index(tmp: &Path) -> IndexDir {
    let dir = IndexDir::new(tmp.join("idx"));
    pipeline::run(&shop(), &dir, &IndexOptions::default(), &|_| {}).expect("shop indexes");
    dir
}

fn ranked(a: &Answer) -> Vec<(String, String)> {
    a.citations
        .iter()
        .map(|c| (c.path.clone(), c.symbol.clone().unwrap_or_default()))
        .collect()
}

#[test]
fn generated_mybatis_code_ranks_below_the_hand_written_status_change() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = index(tmp.path());
    let index = EmbeddedIndex::open(&dir).unwrap();

    // The generator's files are generated, by shape; the hand-written DTO beside them is not.
    let file = |p: &str| index.catalog.file(p).unwrap().expect(p);
    for p in GENERATED {
        let f = file(p);
        assert_eq!(f.provenance, Provenance::Generated, "{p}");
        assert!(
            f.gen_reason
                .as_deref()
                .is_some_and(|r| r.starts_with("generator shape: MyBatis Generator")),
            "{p}: {:?}",
            f.gen_reason
        );
    }
    let dto = file("shop-mall/src/main/java/com/shop/mall/dto/PayNotifyParam.java");
    assert_eq!((dto.provenance, dto.gen_reason), (Provenance::Source, None));

    let asker = Asker::new(&index).unwrap();
    let questions = [
        "where is the order status changed after payment?",
        "订单支付后状态在哪里修改?",
    ];
    for q in questions {
        let a = asker.ask(q, &opts()).unwrap();
        let got = ranked(&a);
        let hit = got
            .iter()
            .position(|(_, s)| STATUS_AFTER_PAYMENT.contains(&s.as_str()))
            .unwrap_or_else(|| panic!("{q}: no status change cited: {got:?}"));
        assert!(hit < 3, "{q}: status change at rank {}: {got:?}", hit + 1);
        assert!(
            got[..hit]
                .iter()
                .all(|(p, _)| !GENERATED.contains(&p.as_str())),
            "{q}: generated code above the hand-written method: {got:?}"
        );
        // The top five are all hand-written: the generator's criteria methods, setters and
        // mapper statements that mention a status are below them.
        let top = &got[..got.len().min(5)];
        assert!(
            top.iter().all(|(p, _)| !GENERATED.contains(&p.as_str())),
            "{q}: generated code in the top five: {got:?}"
        );
        assert_citations_resolve(&a, &shop());
    }
}

#[test]
fn a_question_that_names_the_generated_class_still_finds_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = index(tmp.path());
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let a = asker
        .ask("where is OrderInfoExample's criteria built?", &opts())
        .unwrap();
    let got = ranked(&a);
    assert!(
        got[..got.len().min(3)]
            .iter()
            .any(|(p, s)| p.starts_with(MBG) && s.starts_with("OrderInfoExample.")),
        "{got:?}"
    );
    assert_citations_resolve(&a, &shop());
}

/// A warm asker reuses per-question and per-thread state (the card leg's sums, the body
/// scores' term tables): an answer after other questions is the answer a fresh asker gives.
#[test]
fn an_answer_does_not_depend_on_the_questions_asked_before_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = index(tmp.path());
    let questions = [
        "where is the order status changed after payment?",
        "who calls the stock deduction?",
        "where are coupons checked?",
        "where is the order status changed after payment?",
    ];
    let fresh: Vec<Vec<(String, String)>> = questions
        .iter()
        .map(|q| {
            let dir = dir.clone();
            let q = q.to_string();
            // Each on a thread of its own: nothing of an earlier question is left anywhere.
            std::thread::spawn(move || {
                let index = EmbeddedIndex::open(&dir).unwrap();
                let asker = Asker::new(&index).unwrap();
                ranked(&asker.ask(&q, &opts()).unwrap())
            })
            .join()
            .unwrap()
        })
        .collect();
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    for (q, want) in questions.iter().zip(&fresh) {
        assert!(!want.is_empty(), "{q}: cites something");
        assert_eq!(&ranked(&asker.ask(q, &opts()).unwrap()), want, "{q}");
    }
}
