//! What each index is set up for, and whether a server's settings already say so.
//!
//! Only the chunks are searched by words; every other index is read by filters (a path, a
//! symbol id, a callee), so none of its text is word-indexed, and only the snapshots are sorted
//! on the server. Indexing words and sort facets nobody queries was most of what a publish cost
//! the server (bench/RESULTS.md, "Team-mode publish speed").

use meilisearch_sdk::settings::{FilterableAttribute, Settings, TypoToleranceSettings};
use std::collections::BTreeSet;

/// Ranking rules, set explicitly so a server's defaults cannot change the order.
const RULES: [&str; 6] = [
    "words",
    "typo",
    "proximity",
    "attribute",
    "sort",
    "exactness",
];

/// One index's settings.
const BY_ATTRIBUTE: &str = "byAttribute";

#[derive(Debug, Clone)]
pub(super) struct IndexSpec {
    pub(super) name: &'static str,
    searchable: &'static [&'static str],
    filterable: &'static [&'static str],
    sortable: &'static [&'static str],
    /// Words match exactly: no typos, no prefixes (the chunks; see below).
    pub(super) exact_words: bool,
    /// `proximityPrecision: byAttribute`: the proximity rule only asks whether words share an
    /// attribute, so the server keeps no word-pair distances. Halves the chunks' indexing time;
    /// codemap re-scores the server's pool by BM25 anyway, and hit@1/hit@5/MRR on tomcat10,
    /// jsoup and commons-lang3 were the same with it (bench/RESULTS.md, team-mode publish).
    pub(super) proximity_by_attribute: bool,
}

/// The indexes of a store and their settings.
pub(super) fn index_specs() -> [IndexSpec; 6] {
    let spec = |name, searchable, filterable, sortable| IndexSpec {
        name,
        searchable,
        filterable,
        sortable,
        exact_words: false,
        proximity_by_attribute: false,
    };
    [
        spec("files", &[], &["repo", "path"], &[]),
        spec(
            "symbols",
            &[],
            &["repo", "path", "name_lc", "kind", "sym_id"],
            &[],
        ),
        // Chunks are scored by BM25 over the code analyzer's tokens (`rerank`), as the embedded
        // index ranks them, without typos or prefixes: Meilisearch's typo and prefix matches fill
        // the keyword pool with chunks BM25 ranks low, and cost the server most of a search
        // (bench/RESULTS.md, "Team mode parity").
        IndexSpec {
            exact_words: true,
            proximity_by_attribute: true,
            ..spec(
                "chunks",
                &["symbols", "terms", "header", "text"],
                &["repo", "path", "chunk_id", "vector_model"],
                &[],
            )
        },
        spec(
            "edges",
            &[],
            &["repo", "caller", "callee", "caller_file"],
            &[],
        ),
        spec("edge_files", &[], &["repo", "file"], &[]),
        spec("snapshots", &[], &["repo", "generation"], &["generation"]),
    ]
}

impl IndexSpec {
    /// The settings to send.
    pub(super) fn settings(&self) -> Settings {
        let mut s = Settings::new()
            .with_searchable_attributes(self.searchable.iter().copied())
            .with_filterable_attributes(self.filterable.iter().copied())
            .with_sortable_attributes(self.sortable.iter().copied())
            .with_ranking_rules(RULES);
        if self.proximity_by_attribute {
            s = s.with_proximity_precision(BY_ATTRIBUTE);
        }
        if self.exact_words {
            s = s.with_typo_tolerance(TypoToleranceSettings {
                enabled: Some(false),
                ..Default::default()
            });
        }
        s
    }

    /// Whether a server's settings for the index already are these. Sets compare as sets;
    /// searchable attributes and ranking rules in order, the latter with the server's spelling
    /// of `attribute` (`attributeRank`, `wordPosition` since 1.20) read back as ours.
    pub(super) fn matches(&self, current: &Settings) -> bool {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        let filterable: Option<BTreeSet<String>> =
            current.filterable_attributes.as_ref().map(|f| {
                f.iter()
                    .map(|a| match a {
                        FilterableAttribute::Attribute(n) => n.clone(),
                        // Granular settings are not what this spec sends.
                        FilterableAttribute::Settings(_) => String::new(),
                    })
                    .collect()
            });
        let sortable: Option<BTreeSet<String>> = current
            .sortable_attributes
            .as_ref()
            .map(|v| v.iter().cloned().collect());
        let searchable = current.searchable_attributes.as_deref();
        let want_searchable: Vec<String> = self.searchable.iter().map(|s| s.to_string()).collect();
        let typo_ok = !self.exact_words
            || current
                .typo_tolerance
                .as_ref()
                .is_some_and(|t| t.enabled == Some(false));
        let proximity_ok = !self.proximity_by_attribute
            || current.proximity_precision.as_deref() == Some(BY_ATTRIBUTE);
        filterable == Some(names(self.filterable))
            && sortable == Some(names(self.sortable))
            && searchable == Some(&want_searchable[..])
            && current
                .ranking_rules
                .as_deref()
                .is_some_and(|r| ours(r) == RULES)
            && typo_ok
            && proximity_ok
    }
}

/// Ranking rules as this module spells them: a server that splits `attribute` into
/// `attributeRank` and `wordPosition` reports them so.
fn ours(rules: &[String]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for r in rules {
        match r.as_str() {
            "attributeRank" => out.push("attribute"),
            // The server puts it after `sort`: `attribute` stands for both.
            "wordPosition" if out.contains(&"attribute") => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a 1.50 server reports after the settings were applied (its JSON, abridged).
    fn reported(searchable: &[&str], filterable: &[&str], sortable: &[&str]) -> Settings {
        serde_json::from_value(serde_json::json!({
            "searchableAttributes": searchable,
            "filterableAttributes": filterable,
            "sortableAttributes": sortable,
            "rankingRules": ["words", "typo", "proximity", "attributeRank", "sort",
                "wordPosition", "exactness"],
            "typoTolerance": {"enabled": true},
        }))
        .unwrap()
    }

    #[test]
    fn applied_settings_match_and_any_difference_does_not() {
        let edges = index_specs()
            .into_iter()
            .find(|s| s.name == "edges")
            .unwrap();
        let applied = reported(&[], &["callee", "caller", "caller_file", "repo"], &[]);
        assert!(edges.matches(&applied));
        // The settings before issue 40: callee_name searchable, sorted by file and ord.
        let before = reported(
            &["callee_name"],
            &["repo", "caller", "callee", "caller_file"],
            &["caller_file", "ord"],
        );
        assert!(!edges.matches(&before));
        let missing_filter = reported(&[], &["callee", "caller", "repo"], &[]);
        assert!(!edges.matches(&missing_filter));
        // A fresh index reports every attribute searchable.
        let fresh = reported(&["*"], &[], &[]);
        assert!(!edges.matches(&fresh));
    }

    #[test]
    fn chunks_need_typos_off_and_their_fields_in_order() {
        let chunks = index_specs()
            .into_iter()
            .find(|s| s.name == "chunks")
            .unwrap();
        let mut applied = reported(
            &["symbols", "terms", "header", "text"],
            &["repo", "path", "chunk_id", "vector_model"],
            &[],
        );
        assert!(!chunks.matches(&applied), "typo tolerance is still on");
        applied.typo_tolerance = Some(TypoToleranceSettings {
            enabled: Some(false),
            ..Default::default()
        });
        applied.proximity_precision = Some("byWord".into());
        assert!(!chunks.matches(&applied), "proximity is still by word");
        applied.proximity_precision = Some("byAttribute".into());
        assert!(chunks.matches(&applied));
        applied.searchable_attributes = Some(
            ["terms", "symbols", "header", "text"]
                .map(String::from)
                .to_vec(),
        );
        assert!(
            !chunks.matches(&applied),
            "searchable order is attribute rank"
        );
    }

    #[test]
    fn ranking_rules_read_back_in_our_spelling() {
        let server: Vec<String> = [
            "words",
            "typo",
            "proximity",
            "attributeRank",
            "sort",
            "wordPosition",
            "exactness",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(ours(&server), RULES);
        let older: Vec<String> = RULES.map(String::from).to_vec();
        assert_eq!(ours(&older), RULES);
    }
}
