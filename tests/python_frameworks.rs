//! Python framework edges end to end through the binary, on the pydjango fixture (a small
//! Django site with a DRF router, Celery tasks, signals, models and settings): routes from
//! URLconfs met by a front-end call, tasks reached from their senders, signal receivers,
//! model tables and configuration keys, each with the real path:line of its use.

mod support;

use std::path::{Path, PathBuf};
use support::{run, stdout, write};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pydjango")
}

/// Every file of the fixture copied to `tmp/pydjango` and indexed.
fn indexed(tmp: &Path) -> (PathBuf, PathBuf) {
    let repo = tmp.join("pydjango");
    let mut todo = vec![fixture()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(fixture()).unwrap().to_str().unwrap();
                write(&repo, rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let idx = tmp.join("idx");
    let o = run(&idx, &["index", repo.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (repo, idx)
}

/// `codemap callers <name>` as text.
fn callers(idx: &Path, repo: &Path, name: &str) -> String {
    let o = run(idx, &["--repo", repo.to_str().unwrap(), "callers", name]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    stdout(&o)
}

#[test]
fn django_urlconf_routes_reach_views_and_the_front_end_call_meets_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let routes = support::exported_edges(&idx, &repo, "route");
    for (route, handler) in [
        ("route:GET /shop/orders/{pk}", "shop.views.order_detail"),
        (
            "route:POST /shop/orders/{pk}/pay",
            "shop.views.PayView.post",
        ),
        ("route:GET /api/v1/orders", "shop.api.OrderViewSet.list"),
    ] {
        assert!(
            support::has_edge(&routes, route, handler),
            "{route}: {routes:?}"
        );
    }
    // The axios call in the front end reaches the class-based view's `post`, cited where it
    // is made.
    let out = callers(&idx, &repo, "shop.views.PayView.post");
    assert!(out.contains("payOrder"), "{out}");
    assert!(out.contains("web/orders.js:4"), "{out}");
    assert!(
        out.contains("mysite/urls.py:10") || out.contains("shop/urls.py:7"),
        "{out}"
    );
}

#[test]
fn celery_tasks_are_reached_from_delay_and_send_task() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let out = callers(&idx, &repo, "shop.tasks.send_receipt");
    assert!(out.contains("shop.views.PayView.post"), "{out}");
    assert!(out.contains("shop/views.py:20"), "{out}");
    // `app.send_task("shop.reindex")`: by the name the decorator gives.
    let out = callers(&idx, &repo, "shop.tasks.reindex");
    assert!(out.contains("shop.tasks.nightly"), "{out}");
    assert!(out.contains("shop/tasks.py:18"), "{out}");
    assert!(out.contains("celery send_task shop.reindex"), "{out}");
}

#[test]
fn signal_receivers_are_reached_from_the_send_and_from_the_model() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    // `order_paid.send(…)` in Order.pay → the `@receiver(order_paid)` function.
    let out = callers(&idx, &repo, "shop.receivers.notify_warehouse");
    assert!(out.contains("shop.models.Order.pay"), "{out}");
    assert!(out.contains("shop/models.py:12"), "{out}");
    // `post_save.connect(audit_order, sender=Order)`: the model, where it is connected.
    let out = callers(&idx, &repo, "shop.receivers.audit_order");
    assert!(out.contains("shop.models.Order"), "{out}");
    assert!(out.contains("shop/receivers.py:17"), "{out}");
    assert!(out.contains("signal post_save"), "{out}");
}

#[test]
fn django_models_name_their_tables_and_the_queries_reach_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    // `Meta.db_table`, and `Receipt.objects.create(…)` in the task.
    let out = callers(&idx, &repo, "table:shop_receipts");
    assert!(out.contains("shop.models.Receipt"), "{out}");
    assert!(out.contains("shop.tasks.send_receipt"), "{out}");
    assert!(out.contains("shop/tasks.py:9"), "{out}");
    // `<app>_<model>`: read by the views, saved by the model itself.
    let out = callers(&idx, &repo, "table:shop_order");
    for want in [
        "shop.views.order_detail",
        "shop/views.py:12",
        "shop.views.PayView.post",
        "shop.api.OrderViewSet.list",
        "shop.models.Order.pay",
        "shop/models.py:11",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
    // The instance a manager gives is typed: the view calls the model's method.
    let out = callers(&idx, &repo, "shop.models.Order.pay");
    assert!(out.contains("shop.views.PayView.post"), "{out}");
    assert!(out.contains("shop/views.py:19"), "{out}");
}

#[test]
fn configuration_keys_reach_their_readers() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    // A Django setting read in a view, defined in the settings module.
    let out = callers(&idx, &repo, "config:PAYMENT_TIMEOUT");
    assert!(out.contains("shop.views.PayView.post"), "{out}");
    assert!(out.contains("shop/views.py:19"), "{out}");
    // The environment variable the settings module reads it from, with its default.
    assert!(out.contains("mysite/settings.py:7"), "{out}");
    assert!(out.contains("default 30"), "{out}");
    // A pydantic-settings field under its env_prefix, by its bare name.
    let out = callers(&idx, &repo, "PAY_API_KEY");
    assert!(
        out.contains("mysite.config.PaymentSettings.api_key"),
        "{out}"
    );
    assert!(out.contains("mysite/config.py:8"), "{out}");
    let out = callers(&idx, &repo, "config:SHOP_SECRET_KEY");
    assert!(out.contains("mysite/settings.py:8"), "{out}");
}

#[test]
fn the_code_map_lists_each_table_with_its_model_and_the_python_code_that_queries_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    support::git(&repo, &["init", "-q"]);
    support::git(&repo, &["add", "-A"]);
    support::git(&repo, &["commit", "-qm", "pydjango"]);
    support::index_and_docgen(&idx, &repo);
    let page = std::fs::read_to_string(repo.join("docs/codemap/shop.md")).unwrap();
    let tables = page
        .split("\nTables:\n")
        .nth(1)
        .and_then(|t| t.split("\n## ").next())
        .unwrap_or_else(|| panic!("a Tables list on the page: {page}"));
    for want in [
        "`shop_receipts`: `insert · tasks.send_receipt` ([tasks.py:9](../../shop/tasks.py#L9))",
        "`model · Receipt` ([models.py:19](../../shop/models.py#L19))",
        "`select · views.order_detail` ([views.py:12](../../shop/views.py#L12))",
        "`model · Order` ([models.py:6](../../shop/models.py#L6))",
    ] {
        assert!(tables.contains(want), "{want} among the tables: {tables}");
    }
}
