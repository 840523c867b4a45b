//! The key flows `codemap docgen` shows are chosen for what they do (issue 38): every write
//! statement of the order module's mapper XML is reached by a shown flow, the scheduled job
//! and the message listener have flows of their own, and the payment callback's flow reaches
//! the update of the order row. The expectations are read from the fixture's own files (the
//! mapper XML, the annotations), not from codemap's output.

mod support;
use support::*;

/// The flow headings of a page and the text of each flow's section.
fn flows(page: &str) -> Vec<(String, String)> {
    let section = page
        .split("## Key flows")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_default();
    section
        .split("\n### ")
        .skip(1)
        .map(|f| {
            let (head, body) = f.split_once('\n').unwrap_or((f, ""));
            (head.trim().to_string(), body.to_string())
        })
        .collect()
}

/// The `id` of each `<insert>`, `<update>` and `<delete>` statement of a MyBatis mapper XML.
fn write_statements(xml: &str) -> Vec<String> {
    xml.lines()
        .filter_map(|l| {
            let l = l.trim();
            ["<insert ", "<update ", "<delete "]
                .iter()
                .any(|t| l.starts_with(t))
                .then(|| l.split("id=\"").nth(1)?.split('"').next().map(String::from))?
        })
        .collect()
}

/// The string value of `attr` in the first annotation named `name` in a Java file.
fn annotation(java: &str, name: &str) -> String {
    let line = java
        .lines()
        .find(|l| l.trim().starts_with(&format!("@{name}(")))
        .unwrap_or_else(|| panic!("no @{name} in {java}"));
    line.split('"').nth(1).unwrap_or_default().to_string()
}

#[test]
fn key_flows_cover_the_write_paths_the_jobs_and_the_listeners() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("shop");
    copy_shop(&root);
    let idx = tmp.path().join("idx");
    index_and_docgen(&idx, &root);
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();

    let order = flows(&read("docs/codemap/shop-order.md"));
    let writes = write_statements(&read(
        "shop-order/src/main/resources/mapper/OrderMapper.xml",
    ));
    assert!(writes.len() >= 2, "{writes:?}");
    for w in &writes {
        assert!(
            order
                .iter()
                .any(|(_, body)| body.contains(&format!("[[\"SQL {w}\"]]"))),
            "no shown flow reaches the write statement {w}: {order:#?}"
        );
    }
    let cron = annotation(
        &read("shop-order/src/main/java/com/shop/order/job/OrderTimeoutJob.java"),
        "Scheduled",
    );
    let cron = cron.replace('*', "\\*");
    assert!(
        order
            .iter()
            .any(|(h, _)| h.starts_with("schedule") && h.contains(&cron)),
        "no flow for the scheduled job {cron}: {order:#?}"
    );
    let listener = read("shop-order/src/main/java/com/shop/order/mq/OrderCancelListener.java");
    let handler = listener
        .lines()
        .skip_while(|l| !l.contains("@RabbitListener"))
        .find_map(|l| l.trim().strip_prefix("public void "))
        .and_then(|l| l.split('(').next())
        .unwrap()
        .to_string();
    assert!(
        order.iter().any(|(h, body)| h.starts_with("listener")
            && body.contains(&format!("OrderCancelListener.{handler}"))),
        "no flow from the listener OrderCancelListener.{handler}: {order:#?}"
    );

    // Topics and events: the delayed cancel queue with its sender and its listener, and the
    // payment result topic listened on in another module, named on the sender's page.
    let page = read("docs/codemap/shop-order.md");
    let topics = page
        .split("## Topics and events")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_else(|| panic!("no topics section: {page}"));
    let sender = read("shop-order/src/main/java/com/shop/order/service/impl/OrderServiceImpl.java");
    let sends_at = sender
        .lines()
        .position(|l| l.contains("rabbitTemplate.convertAndSend"))
        .unwrap()
        + 1;
    let cancel = topics
        .lines()
        .find(|l| l.contains("cancel.queue"))
        .unwrap_or_else(|| panic!("no cancel queue: {topics}"));
    assert!(
        cancel.contains(&format!("OrderServiceImpl.java:{sends_at}"))
            && cancel.contains(&format!("OrderCancelListener.{handler}")),
        "{cancel}"
    );
    let payment = read("docs/codemap/shop-payment.md");
    // The listener's annotation names the topic by a constant of shop-common.
    let constants = read("shop-common/src/main/java/com/shop/common/mq/MqConstants.java");
    let topic = constants
        .lines()
        .find(|l| l.contains("TOPIC_PAYMENT_RESULT ="))
        .and_then(|l| l.split('"').nth(1))
        .unwrap()
        .to_string();
    assert!(
        payment
            .lines()
            .any(|l| l.contains(&topic) && l.contains("(shop-notify)")),
        "the payment page names the listener in shop-notify of {topic}: {payment}"
    );

    // The payment callback reaches the update of the order row (the generated mapper's).
    let mall = flows(&read("docs/codemap/shop-mall.md"));
    let callback =
        read("shop-mall/src/main/java/com/shop/mall/controller/PayCallbackController.java");
    let updates = write_statements(&read(
        "shop-mall/src/main/resources/com/shop/mall/mbg/mapper/OrderInfoMapper.xml",
    ));
    let class_path = annotation(&callback, "RequestMapping");
    let (_, flow) = mall
        .iter()
        .find(|(h, _)| h.starts_with("route POST") && h.contains(&class_path))
        .unwrap_or_else(|| panic!("no flow from the callback under {class_path}: {mall:#?}"));
    assert!(
        updates
            .iter()
            .filter(|u| u.starts_with("update"))
            .any(|u| flow.contains(&format!("[[\"SQL {u}\"]]"))),
        "the callback's flow stops before the order update: {flow}"
    );
}
