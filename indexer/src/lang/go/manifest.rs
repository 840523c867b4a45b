//! `go.mod`: its module path names the module, and is what import paths of the repository's
//! packages start with.

use crate::lang::BuildFile;

pub(super) const BUILD_FILES: &[BuildFile] = &[BuildFile::package("go.mod", module_name)];

/// `module example.com/shop` (quoted or not, comments after it ignored).
pub(super) fn module_name(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("module")?;
        if !rest.starts_with([' ', '\t']) {
            return None;
        }
        let path = rest.split("//").next()?.trim().trim_matches('"');
        (!path.is_empty()).then(|| path.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::module_name;

    #[test]
    fn go_mod_declares_the_module_path() {
        assert_eq!(
            module_name("// x\nmodule github.com/gorilla/mux // the router\n\ngo 1.12\n"),
            Some("github.com/gorilla/mux".into())
        );
        assert_eq!(
            module_name("module \"example.com/a\"\n"),
            Some("example.com/a".into())
        );
        assert_eq!(module_name("modules x\ngo 1.19\n"), None);
    }
}
