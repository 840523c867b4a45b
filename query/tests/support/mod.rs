//! Helpers shared by the query crate's end-to-end tests.

#![allow(dead_code)]

pub mod shop;

use indexer::pipeline::{self, IndexOptions};
use indexer::store::{EmbeddedIndex, IndexDir};
use query::{Answer, AskOptions, Asker, LlmConfig, OpenAiChat};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A one-endpoint OpenAI-compatible server on loopback. `reply` maps a request body to
/// (delay, assistant text); every request body is recorded.
pub fn serve(
    reply: impl Fn(&str) -> (Duration, String) + Send + 'static,
) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(64) {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; len];
            let _ = reader.read_exact(&mut body);
            let body = String::from_utf8_lossy(&body).to_string();
            let (delay, text) = reply(&body);
            seen2.lock().unwrap().push(body);
            std::thread::sleep(delay);
            let json = serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}).to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                json.len(),
                json
            );
        }
    });
    (format!("http://{addr}/v1"), seen)
}

pub fn chat(base: &str, timeout: f64, retries: u32) -> OpenAiChat {
    OpenAiChat::new(LlmConfig {
        timeout_secs: timeout,
        retries,
        ..LlmConfig::new(base, "test-model")
    })
    .unwrap()
}

pub fn symbols(a: &Answer) -> Vec<String> {
    a.citations
        .iter()
        .map(|c| c.symbol.clone().unwrap_or_default())
        .collect()
}

/// The 1-based line of the first line of `text` holding `needle`.
pub fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .unwrap_or_else(|| panic!("{needle} not in fixture"))
}

/// Every citation names an indexed file and lines inside it.
pub fn assert_citations_resolve(a: &Answer, root: &Path) {
    for c in &a.citations {
        let text = std::fs::read_to_string(root.join(&c.path))
            .unwrap_or_else(|_| panic!("cited file {} missing", c.path));
        let n = text.lines().count() as u32;
        assert!(
            c.start_line >= 1 && c.start_line <= c.end_line && c.end_line <= n,
            "{c:?} outside 1..={n}"
        );
    }
}

pub fn opts() -> AskOptions<'static> {
    AskOptions {
        now: Some(i64::MAX / 2),
        ..AskOptions::default()
    }
}

/// Writes `files` (path under `root`, text) and indexes them into `root/.codemap`.
pub fn index_repo(root: &Path, files: &[(String, String)]) -> IndexDir {
    for (p, text) in files {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let dir = IndexDir::new(root.join(".codemap"));
    pipeline::run(root, &dir, &IndexOptions::default(), &|_| {}).expect("the repository indexes");
    dir
}

/// Asks through the stored call graph, as the CLI does.
pub fn ask_stored(dir: &IndexDir, question: &str) -> Answer {
    let index = EmbeddedIndex::open(dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let graph = query::StoredGraph::new(&index);
    let opts = AskOptions {
        graph: Some(&graph),
        ..opts()
    };
    asker.ask(question, &opts).unwrap()
}

/// `Pads.java`: five overloads of `pad(value, width)` and a `padColumn` that calls them, for the
/// tests of overloads and rule switches.
pub fn pads_java() -> String {
    let overloads: String = ["int", "long", "char", "String", "double"]
        .iter()
        .map(|t| {
            format!(
                "    /** Pads a value with spaces to a width. */\n    public static String pad({t} value, int width) {{\n        String s = String.valueOf(value);\n        while (s.length() < width) {{\n            s = \" \" + s;\n        }}\n        return s;\n    }}\n\n"
            )
        })
        .collect();
    format!(
        "package com.pad;\n\npublic class Pads {{\n{overloads}    /** Pads every value in a column with spaces to the widest width. */\n    public static String[] padColumn(String[] column) {{\n        int width = 0;\n        for (String s : column) {{\n            width = Math.max(width, s.length());\n        }}\n        String[] out = new String[column.length];\n        for (int i = 0; i < column.length; i++) {{\n            out[i] = pad(column[i], width);\n        }}\n        return out;\n    }}\n}}\n"
    )
}

/// A reranking model with real behaviour for the loopback server: reads the candidates of a
/// rerank request (`[n] Title  path:lines`) and answers the number of the first whose title
/// holds `name`, or 0. `None` when the body is not a rerank request.
pub fn rerank_reply(body: &str, name: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let messages = v["messages"].as_array()?;
    if !messages[0]["content"].as_str()?.contains("rank places") {
        return None;
    }
    let user = messages[1]["content"].as_str()?;
    let pick = user
        .lines()
        .filter_map(|l| {
            let (n, rest) = l.strip_prefix('[')?.split_once("] ")?;
            Some((n.parse::<usize>().ok()?, rest))
        })
        .find(|(_, title)| title.split_whitespace().next() == Some(name))
        .map(|(n, _)| n)
        .unwrap_or(0);
    Some(pick.to_string())
}
