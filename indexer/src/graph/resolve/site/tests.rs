use crate::graph::edge::{SITE_ARGUMENT, SITE_LOCAL, SITE_PARAM, SITE_RETURNED};
use crate::graph::{Edge, EdgeKind};

const SRC: &str = r#"package p;
class Engine {
    Host getHost(String n) { return new Host(); }
}
class Host {
    Pipeline getPipeline() { return new Pipeline(); }
}
class Pipeline {
    String invoke(String r) { return r; }
    String wrap(String s) { return s; }
}
class Valve {
    Engine engine;
    String serve(String request, String name) {
        String made = name.trim();
        engine.getHost(name).getPipeline().invoke(made);
        if (made.isEmpty()) {
            log(made.length());
        }
        java.util.List<String> all = null;
        all.forEach(x -> log(x.length()));
        return engine.getHost("a").getPipeline().wrap(request);
    }
    void log(int n) {}
}
"#;

/// The call edge from `Valve.serve` to the method named `callee` on `line`.
fn call<'e>(es: &'e [Edge], callee: &str, line: u32) -> &'e Edge {
    es.iter()
        .find(|e| {
            e.caller_name == "p.Valve.serve"
                && e.line == line
                && (e.callee_name.ends_with(&format!(".{callee}")) || e.callee_name == callee)
        })
        .unwrap_or_else(|| panic!("no call to {callee} on line {line}: {es:#?}"))
}

#[test]
fn a_call_edge_carries_its_receiver_chain_and_what_it_hands_on() {
    let es = super::super::tests::edges_of_kind(&[("src/p/Valve.java", SRC)], EdgeKind::Call);
    let invoke = call(&es, "invoke", 16);
    assert_eq!(invoke.site.receiver, ["engine", "getHost", "getPipeline"]);
    // A local receiver is named as written.
    assert_eq!(call(&es, "trim", 15).site.receiver, ["name"]);
    // `made` is a local: a value the method made; `name` (a parameter) is in the receiver.
    assert_eq!(invoke.site.flags, SITE_LOCAL | SITE_PARAM);
    // A call whose value is another call's argument.
    let length = call(&es, "length", 18);
    assert_eq!(
        length.site.flags & (SITE_ARGUMENT | SITE_RETURNED),
        SITE_ARGUMENT
    );
    // A condition is no argument, and a lambda's parameter is no local the method made.
    assert_eq!(call(&es, "isEmpty", 17).site.flags, 0);
    assert_eq!(call(&es, "log", 21).site.flags & SITE_LOCAL, 0);
    // The returned call is the outermost one; it hands on the `request` parameter.
    let wrap = call(&es, "wrap", 22);
    assert_eq!(wrap.site.flags, SITE_RETURNED | SITE_PARAM);
    assert_eq!(call(&es, "getHost", 22).site.flags & SITE_RETURNED, 0);
    // An unqualified call has no receiver.
    assert!(call(&es, "log", 18).site.receiver.is_empty());
}
