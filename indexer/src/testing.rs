//! For the workspace's tests: what a test does when a part from outside the repository that it
//! checks against (a peer SDK, a corpus, a model) is missing here.

use std::io::Write;

/// Says `SKIPPED: <why>` on the real stderr (past the harness's capture, so a skip is always
/// seen) and lets the test return, unless `CODEMAP_REQUIRE` names `resource` (a comma list:
/// `python`, `node`, `qa-corpus`, `minilm`, `cedict`, or `all`), in which case the test fails: `.ci/run`
/// names what it installed, so there a missing part is a failure, never a pass.
pub fn skip(resource: &str, why: &str) {
    skip_under(
        &std::env::var("CODEMAP_REQUIRE").unwrap_or_default(),
        resource,
        why,
    );
}

fn skip_under(required: &str, resource: &str, why: &str) {
    if names(required, resource) {
        panic!("{why} (CODEMAP_REQUIRE says {resource} is installed here)");
    }
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}

/// Whether the comma list `required` names `resource`.
fn names(required: &str, resource: &str) -> bool {
    required
        .split(',')
        .map(str::trim)
        .any(|r| r == resource || r == "all")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_resource_is_required_and_others_are_not() {
        let list = "python, qa-corpus";
        assert!(names(list, "python") && names(list, "qa-corpus"));
        assert!(!names(list, "node") && !names(list, "py") && !names("", "python"));
        assert!(names("all", "minilm"));
        skip_under(list, "node", "node peers are not installed (test)");
        let caught = std::panic::catch_unwind(|| skip_under(list, "python", "no python (test)"));
        assert!(
            caught.is_err(),
            "a required resource that is missing fails the test"
        );
    }
}
