//! Qualified names as stored in symbol rows: names without their package, for showing symbols.

/// A file's name without folders or extension (`src/org/x/Foo.java` → `Foo`): in Java, the name
/// of its main type.
pub fn file_stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split('.').next().unwrap_or("")
}

/// Drops the package from a qualified name, using the file name to find where the type starts.
pub fn short_qualified(qname: &str, path: &str) -> String {
    let file_stem = file_stem(path);
    let parts: Vec<&str> = qname.split('.').collect();
    match parts.iter().position(|p| *p == file_stem) {
        Some(i) => parts[i..].join("."),
        None => {
            // First capitalised segment starts the type.
            let i = parts
                .iter()
                .position(|p| p.starts_with(char::is_uppercase))
                .unwrap_or(0);
            parts[i..].join(".")
        }
    }
}

/// The simple name of an annotation as written: `@org.x.PostMapping("/a")` → `PostMapping`.
pub fn annotation_name(a: &str) -> &str {
    let name = a.trim_start_matches('@');
    let name = name.split('(').next().unwrap_or(name);
    name.rsplit('.').next().unwrap_or(name).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_start_at_the_file_type() {
        assert_eq!(
            short_qualified("org.x.Foo.Inner.bar", "src/org/x/Foo.java"),
            "Foo.Inner.bar"
        );
        assert_eq!(short_qualified("org.x.Foo", "src/org/x/Foo.java"), "Foo");
    }
}
