//! Go end to end through the binary: the goshop fixture indexed; callers across packages
//! (import paths through go.mod, embedded structs, interface dispatch to the implementing
//! type), routes of gorilla/mux, net/http and gin under their group prefixes, and a net/http
//! client call met with the route it reaches.

mod support;

use std::path::{Path, PathBuf};
use support::{run, stdout, write};

fn indexed(tmp: &Path) -> (PathBuf, PathBuf) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/goshop");
    let repo = tmp.join("goshop");
    for rel in [
        "go.mod",
        "internal/store/store.go",
        "internal/orders/orders.go",
        "internal/memory/memory.go",
        "cmd/server/main.go",
        "cmd/client/client.go",
    ] {
        write(&repo, rel, std::fs::read(fixture.join(rel)).unwrap());
    }
    let idx = tmp.join("idx");
    let o = run(&idx, &["index", repo.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (repo, idx)
}

#[test]
fn go_callers_and_callees_cross_packages_and_interfaces() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let r = repo.to_str().unwrap();
    let callers = stdout(&run(
        &idx,
        &[
            "--repo",
            r,
            "callers",
            "internal/orders.Service.Pay",
            "--json",
        ],
    ));
    for caller in ["cmd/server.api.pay", "cmd/server.main"] {
        assert!(
            callers.contains(caller),
            "{caller} calls Service.Pay: {callers}"
        );
    }
    // `s.repo.Save(o)` goes through the Repo interface to the one type implementing it.
    let o = run(
        &idx,
        &[
            "--repo",
            r,
            "callees",
            "internal/orders.Service.Pay",
            "--depth",
            "2",
        ],
    );
    let out = stdout(&o);
    for callee in [
        "internal/memory.Repo.Save",
        "internal/memory.Repo.Find",
        "internal/orders.Base.Audit",
        "internal/store.Log.Write",
    ] {
        assert!(out.contains(callee), "Pay reaches {callee}: {out}");
    }
}

#[test]
fn go_routes_reach_their_handlers_and_clients_meet_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let routes = support::exported_edges(&idx, &repo, "route");
    for (route, handler) in [
        ("route:POST /api/orders/{id}/pay", "cmd/server.api.pay"),
        ("route:ANY /health", "cmd/server.health"),
        ("route:GET /v1/orders/{id}", "cmd/server.main"),
    ] {
        assert!(
            support::has_edge(&routes, route, handler),
            "{route} → {handler}: {routes:?}"
        );
    }
    let rpc = support::exported_edges(&idx, &repo, "rpc");
    assert!(
        rpc.iter().any(|e| e["caller_symbol"] == "cmd/client.pay"
            && e["callee_symbol"] == "cmd/server.api.pay"
            && e["detail"] == "http POST /api/orders/{}/pay"),
        "{rpc:?}"
    );
    assert!(
        support::has_edge(&rpc, "cmd/client.show", "cmd/server.main"),
        "{rpc:?}"
    );
}

#[test]
fn a_panic_names_where_its_message_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let r = repo.to_str().unwrap();
    let panic = "panic: paid twice\n\n\
        goroutine 1 [running]:\n\
        example.com/goshop/internal/orders.(*Service).Pay(0xc000010018, 0x7)\n\
        \t/src/goshop/internal/orders/orders.go:55 +0x65\n\
        exit status 2\n";
    let o = run(&idx, &["--repo", r, "ask", panic]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    assert!(
        out.contains("It fails in Service.Pay — internal/orders/orders.go:49-65 (line 55)"),
        "{out}"
    );
    assert!(
        out.contains(
            "The message \"paid twice\" is written in ErrPaid — internal/orders/orders.go:11\n    11 | var ErrPaid = errors.New(\"paid twice\")"
        ),
        "{out}"
    );
    // The runtime writes its own messages: no line of the repository is named for them.
    let runtime = "panic: runtime error: index out of range [5] with length 3\n\n\
        goroutine 1 [running]:\n\
        example.com/goshop/internal/orders.(*Service).Pay(0xc000010018, 0x7)\n\
        \t/src/goshop/internal/orders/orders.go:55 +0x65\n";
    let out = stdout(&run(&idx, &["--repo", r, "ask", runtime]));
    assert!(!out.contains("The message"), "{out}");
}
