//! The one list of annotations that make a method an entry point, for every front: `impact`'s
//! walk up the callers, retrieval's structure boost and docgen's entry table all read it here.

/// A request handler (Spring MVC, JAX-RS).
pub const ROUTE_ANNOTATIONS: &[&str] = &[
    "RequestMapping",
    "GetMapping",
    "PostMapping",
    "PutMapping",
    "DeleteMapping",
    "PatchMapping",
    "Path",
    "GET",
    "POST",
    "PUT",
    "DELETE",
];

/// A message or event listener.
pub const LISTENER_ANNOTATIONS: &[&str] = &[
    "KafkaListener",
    "RabbitListener",
    "JmsListener",
    "EventListener",
    "TransactionalEventListener",
    "StreamListener",
    "RocketMQMessageListener",
    "MessageMapping",
];

/// A timer.
pub const SCHEDULE_ANNOTATIONS: &[&str] = &["Scheduled"];

/// Method annotations that handle what a class-level listener annotation receives
/// (`@RabbitListener` on the class, `@RabbitHandler` on the method).
pub const HANDLER_ANNOTATIONS: &[&str] = &["RabbitHandler", "KafkaHandler"];

/// Whether an annotation (its simple name) makes a method entered from outside: by a request,
/// a message or a timer. A class-level listener's handler is one too.
pub fn is_entry(name: &str) -> bool {
    [
        ROUTE_ANNOTATIONS,
        LISTENER_ANNOTATIONS,
        SCHEDULE_ANNOTATIONS,
        HANDLER_ANNOTATIONS,
    ]
    .iter()
    .any(|list| list.contains(&name))
}

pub use crate::signature::annotation_name;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_annotations_are_known_by_their_simple_name() {
        for a in [
            "@PostMapping(\"/orders\")",
            "@org.springframework.kafka.annotation.KafkaListener(topics = \"a\")",
            "@Scheduled(cron = \"0 * * * * ?\")",
            "@RabbitHandler",
        ] {
            assert!(is_entry(annotation_name(a)), "{a}");
        }
        for a in ["@Transactional", "@Override", "@Value(\"${x}\")"] {
            assert!(!is_entry(annotation_name(a)), "{a}");
        }
    }
}
