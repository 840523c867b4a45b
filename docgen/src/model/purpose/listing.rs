//! A module's description where a repository lists its modules: a README table row, a tree
//! (`├── mall-common -- 工具类及通用代码`) or a list item naming it, and a build file's own
//! description field. Pure over the text.

/// Separators between a module's name and its description on one line.
const SEPARATORS: &[&str] = &["--", "—", "–", "->", "=>", ":", "：", "-", "|", "｜"];

/// The 1-based line and the description of the first line of `text` that describes module
/// `name`.
pub fn module_line(text: &str, name: &str) -> Option<(u32, String)> {
    text.lines().enumerate().find_map(|(i, line)| {
        let about = match line.trim_start().starts_with('|') {
            true => table_row(line, name),
            false => listed(line, name),
        }?;
        Some((i as u32 + 1, about))
    })
}

/// The first prose paragraph under each heading of `text` that names module `name` (as a
/// whole word: `litemall-db`, not `litemall-db-tools`), with its 1-based line, in page order.
pub fn section_paragraphs(text: &str, name: &str) -> Vec<(u32, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let names_it = |l: &str| {
        let t = l.trim_start();
        t.starts_with('#')
            && t.split(|c: char| c.is_whitespace() || "`*:：()（）".contains(c))
                .any(|w| w == name)
    };
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| names_it(l))
        .filter_map(|(at, _)| {
            let rest = lines[at + 1..].join("\n");
            let (line, para) = super::first_paragraph(&rest)?;
            Some((line + at as u32 + 1, para))
        })
        .collect()
}

/// `| mall-admin | 后台管理系统接口 |`: the first other cell with words, when one cell is
/// the name.
fn table_row(line: &str, name: &str) -> Option<String> {
    let cells: Vec<String> = line
        .trim()
        .trim_matches('|')
        .split('|')
        .map(plain)
        .collect();
    let at = cells.iter().position(|c| names(c, name))?;
    cells
        .iter()
        .enumerate()
        .find(|(i, c)| *i != at && has_words(c) && !c.chars().all(|ch| ch == '-' || ch == ':'))
        .map(|(_, c)| c.clone())
}

/// A tree or list line: the name first (after tree drawing, bullets, emphasis), then a
/// separator, then the description.
fn listed(line: &str, name: &str) -> Option<String> {
    let t = line.trim_start_matches(|c: char| {
        c.is_whitespace() || "├└│─┬┼`*+-#>".contains(c) || c.is_ascii_digit() || c == '.'
    });
    let t = plain(t);
    let rest = t.strip_prefix(name)?;
    // The name ends here: `mall-admin-web` is not `mall-admin`.
    if rest.starts_with(|c: char| {
        c.is_alphanumeric() || c == '_' || c == '-' && !rest.starts_with("--")
    }) {
        return None;
    }
    let rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
    let sep = SEPARATORS.iter().find(|s| rest.starts_with(**s))?;
    let about = rest[sep.len()..]
        .trim()
        .trim_end_matches(['|', '｜'])
        .trim();
    has_words(about).then(|| about.to_string())
}

/// A cell or line with Markdown emphasis, code spans and links reduced to their text.
fn plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s.trim();
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after
            .find("](")
            .and_then(|m| after[m..].find(')').map(|c| (m, m + c)))
        {
            Some((m, close)) => {
                out.push_str(&after[..m]);
                rest = &after[close + 1..];
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.replace(['`', '*'], "").trim().to_string()
}

fn names(cell: &str, name: &str) -> bool {
    let c = cell.trim_end_matches('/');
    c == name || c.rsplit('/').next() == Some(name)
}

fn has_words(s: &str) -> bool {
    s.chars().filter(|c| c.is_alphanumeric()).count() >= 2
}

/// The description a build file gives its module, as its language reads it
/// ([`query::model::described_files`]: Maven's `<description>`, `package.json`'s
/// `"description"`, `description = "…"` in Gradle, pyproject.toml or setup.cfg). `None` when it
/// only repeats the module's names (`mall-admin project for mall`).
pub fn build_description(path: &str, text: &str, names: &[String]) -> Option<(u32, String)> {
    let file = path.rsplit('/').next().unwrap_or(path);
    let reader = query::model::described_files().find(|d| d.name == file)?;
    let (line, about) = (reader.description)(text)?;
    (!only_names(&about, names)).then_some((line, about))
}

/// Words that say nothing about a module beside its name.
const FILLER: &[&str] = &[
    "project",
    "module",
    "for",
    "of",
    "the",
    "a",
    "an",
    "and",
    "parent",
    "pom",
    "demo",
    "spring",
    "boot",
    "application",
    "app",
    "service",
    "maven",
    "gradle",
    "library",
    "lib",
    "code",
];

fn only_names(about: &str, names: &[String]) -> bool {
    let mut name_words: Vec<String> = Vec::new();
    for n in names {
        name_words.push(n.to_lowercase());
        name_words.extend(n.to_lowercase().split(['-', '_', '.']).map(String::from));
    }
    about
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '_')
        .filter(|w| !w.is_empty())
        .all(|w| FILLER.contains(&w) || name_words.iter().any(|n| n == w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_listing_a_table_and_a_list_describe_their_modules() {
        let readme = "# shop\n\n```\nshop\n├── shop-common -- 工具类及通用代码\n├── shop-common-web -- web glue\n└── shop-admin -- 后台商城管理系统接口\n```\n\n| Module | Purpose |\n| --- | --- |\n| [`orders`](orders/) | Takes and cancels orders |\n\n- **billing**: invoices and refunds\n";
        assert_eq!(
            module_line(readme, "shop-common"),
            Some((5, "工具类及通用代码".into()))
        );
        assert_eq!(
            module_line(readme, "shop-common-web"),
            Some((6, "web glue".into()))
        );
        assert_eq!(
            module_line(readme, "shop-admin"),
            Some((7, "后台商城管理系统接口".into()))
        );
        assert_eq!(
            module_line(readme, "orders"),
            Some((12, "Takes and cancels orders".into()))
        );
        assert_eq!(
            module_line(readme, "billing"),
            Some((14, "invoices and refunds".into()))
        );
        assert_eq!(
            module_line(readme, "shop"),
            None,
            "a bare name line says nothing"
        );
        assert_eq!(module_line(readme, "payments"), None);
    }

    #[test]
    fn a_docs_section_headed_by_the_module_describes_it() {
        let doc = "# Platform\n\n## 2.2 litemall-db\n\nlitemall-db is the data access library.\nIt wraps MyBatis.\n\n## 2.3 litemall-db-tools\n\nTools.\n";
        assert_eq!(
            section_paragraphs(doc, "litemall-db"),
            [(
                5,
                "litemall-db is the data access library. It wraps MyBatis.".to_string()
            )]
        );
        assert!(section_paragraphs(doc, "litemall-core").is_empty());
        assert_eq!(
            section_paragraphs(doc, "litemall-db-tools"),
            [(10, "Tools.".to_string())]
        );
        let twice = "## 3.1 shop-gateway\n\nSee 4.2.\n\n## 4.2 shop-gateway\n\nRoutes requests.\n";
        assert_eq!(
            section_paragraphs(twice, "shop-gateway"),
            [
                (3, "See 4.2.".to_string()),
                (7, "Routes requests.".to_string())
            ]
        );
    }

    #[test]
    fn a_build_description_that_only_repeats_the_name_is_not_a_purpose() {
        let names = vec!["mall-admin".to_string()];
        let pom = "<project>\n  <name>mall-admin</name>\n  <description>mall-admin project for mall</description>\n</project>\n";
        assert_eq!(build_description("mall-admin/pom.xml", pom, &names), None);
        let pom = "<project>\n  <description>Back office REST API</description>\n</project>\n";
        assert_eq!(
            build_description("admin/pom.xml", pom, &names),
            Some((2, "Back office REST API".into()))
        );
        let pkg = "{\n  \"name\": \"web\",\n  \"description\": \"The storefront UI\",\n}\n";
        assert_eq!(
            build_description("web/package.json", pkg, &["web".into()]),
            Some((3, "The storefront UI".into()))
        );
        let py = "[project]\nname = \"jobs\"\ndescription = \"Nightly settlement jobs\"\n";
        assert_eq!(
            build_description("jobs/pyproject.toml", py, &["jobs".into()]),
            Some((3, "Nightly settlement jobs".into()))
        );
        let gradle = "plugins { id 'java' }\n\ndescription = 'Payment gateway adapters'\n";
        assert_eq!(
            build_description("pay/build.gradle.kts", gradle, &["pay".into()]),
            Some((3, "Payment gateway adapters".into()))
        );
        // go.mod says no purpose.
        assert_eq!(
            build_description("svc/go.mod", "module example.com/svc\n", &["svc".into()]),
            None
        );
    }
}
