//! Where pages go and how they are put there: page paths, relative links between them, the
//! README markers, and writing only files whose bytes differ.

use crate::DocgenError;
use crate::options::{Options, OutputMode};
use std::path::Path;

pub const BEGIN: &str = "<!-- codemap:begin -->";
pub const END: &str = "<!-- codemap:end -->";

/// Repository-relative path of the global page.
pub fn global_page(opts: &Options) -> String {
    join(&slash(&opts.out_dir), "README.md")
}

/// Repository-relative path of a module's page.
pub fn module_page(opts: &Options, name: &str, root: &str) -> String {
    match opts.mode {
        OutputMode::Pages => join(&slash(&opts.out_dir), &format!("{}.md", file_stem(name))),
        OutputMode::ReadmeMarkers => join(root, "README.md"),
    }
}

/// A module name as a file name (`a/core` → `a--core`).
pub fn file_stem(name: &str) -> String {
    name.replace(['/', '\\'], "--")
}

fn slash(p: &Path) -> String {
    p.to_string_lossy()
        .replace('\\', "/")
        .trim_matches('/')
        .trim_start_matches("./")
        .to_string()
}

fn join(dir: &str, file: &str) -> String {
    if dir.is_empty() {
        file.to_string()
    } else {
        format!("{dir}/{file}")
    }
}

/// The relative link from the page at `from` (a file) to the repository path `to`.
pub fn relative(from: &str, to: &str) -> String {
    let from_dir: Vec<&str> = match from.rsplit_once('/') {
        Some((d, _)) => d.split('/').collect(),
        None => Vec::new(),
    };
    let to_parts: Vec<&str> = to.split('/').collect();
    let common = from_dir
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count()
        .min(to_parts.len().saturating_sub(1));
    let mut out: Vec<&str> = vec![".."; from_dir.len() - common];
    out.extend(&to_parts[common..]);
    out.join("/")
}

/// Replaces the text between the markers of `existing` with `body`, keeping everything around
/// them byte for byte; appends a marked block when there are no markers (after a blank line).
pub fn splice(existing: &str, body: &str) -> Result<String, String> {
    let block = format!("{BEGIN}\n\n{}\n{END}", body.trim_end());
    match (existing.find(BEGIN), existing.find(END)) {
        (Some(b), Some(e)) if b < e => Ok(format!(
            "{}{block}{}",
            &existing[..b],
            &existing[e + END.len()..]
        )),
        (None, None) => {
            let mut out = existing.trim_end_matches('\n').to_string();
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(&block);
            out.push('\n');
            Ok(out)
        }
        _ => Err(format!("unbalanced {BEGIN} / {END} markers")),
    }
}

/// Writes `text` at `root/rel` unless the file already holds exactly it. Returns whether it
/// wrote. Written through a temporary file and a rename, so a reader never sees half a page.
pub fn write_if_changed(root: &Path, rel: &str, text: &str) -> Result<bool, DocgenError> {
    let path = root.join(rel);
    if std::fs::read(&path).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(false);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(DocgenError::io(dir))?;
    }
    let tmp = path.with_extension("codemap-tmp");
    std::fs::write(&tmp, text).map_err(DocgenError::io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(DocgenError::io(&path))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_links_climb_out_of_the_page_folder() {
        assert_eq!(
            relative("docs/codemap/shop-order.md", "shop-order/src/A.java"),
            "../../shop-order/src/A.java"
        );
        assert_eq!(
            relative("docs/codemap/README.md", "docs/codemap/a.md"),
            "a.md"
        );
        assert_eq!(
            relative("shop-order/README.md", "shop-order/src/A.java"),
            "src/A.java"
        );
        assert_eq!(relative("README.md", "src/A.java"), "src/A.java");
        assert_eq!(
            relative("docs/codemap/README.md", "README.md"),
            "../../README.md"
        );
    }

    #[test]
    fn splicing_keeps_the_human_text() {
        let human = "# Orders\n\nHand-written.\n\n<!-- codemap:begin -->\nold\n<!-- codemap:end -->\n\nFooter.\n";
        let out = splice(human, "new\n").unwrap();
        assert_eq!(
            out,
            "# Orders\n\nHand-written.\n\n<!-- codemap:begin -->\n\nnew\n<!-- codemap:end -->\n\nFooter.\n"
        );
        assert_eq!(splice(&out, "new\n").unwrap(), out);
        assert_eq!(
            splice("# T\n", "x").unwrap(),
            "# T\n\n<!-- codemap:begin -->\n\nx\n<!-- codemap:end -->\n"
        );
        assert!(splice("<!-- codemap:end --> <!-- codemap:begin -->", "x").is_err());
    }
}
