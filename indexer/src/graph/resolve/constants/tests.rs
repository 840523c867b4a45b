use crate::graph::EdgeKind;

/// The `constant` edges of a few in-memory files as `caller -> constant @line (detail)`.
fn constant_edges(files: &[(&str, &str)]) -> Vec<String> {
    let out = super::super::tests::edges_of_kind(files, EdgeKind::Constant);
    out.iter()
        .map(|e| {
            format!(
                "{} -> {} @{} ({}) {}:{}",
                e.caller_name,
                e.callee_name,
                e.line,
                e.detail,
                e.callee_file.as_deref().unwrap_or("?"),
                e.callee_line.unwrap_or(0)
            )
        })
        .collect()
}

const STATUS: &str = "package a;\n\npublic enum Status {\n    NEW(0),\n    PAID(1);\n\n    private final int code;\n    Status(int code) { this.code = code; }\n    public int getCode() { return code; }\n    static Status first() { return compare(NEW); }\n    static Status compare(Status s) { return s; }\n}\n";

const ORDER: &str = r#"package a;

import static a.Status.PAID;

public class Order {
    private Status status;
    private int code;

    void pay() {
        this.status = PAID;
        code = Status.PAID.getCode();
    }

    void reopen(Order o) {
        o.setStatus(Status.NEW);
        if (status == Status.PAID) {
            return;
        }
        Status local = Status.NEW;
        new Order().setCode(Status.NEW.getCode());
    }

    void setStatus(Status s) { this.status = s; }
    void setCode(int c) { this.code = c; }
}
"#;

#[test]
fn constants_passed_to_calls_or_assigned_are_edges_and_comparisons_are_not() {
    let es = constant_edges(&[("a/Status.java", STATUS), ("a/Order.java", ORDER)]);
    assert_eq!(
        es,
        vec![
            "a.Order.pay -> a.Status.PAID @10 (= status) a/Status.java:5",
            "a.Order.pay -> a.Status.PAID @11 (= code) a/Status.java:5",
            "a.Order.reopen -> a.Status.NEW @15 (setStatus) a/Status.java:4",
            "a.Order.reopen -> a.Status.NEW @20 (setCode) a/Status.java:4",
            "a.Status.first -> a.Status.NEW @10 (compare) a/Status.java:4",
        ],
        "{es:#?}"
    );
}
