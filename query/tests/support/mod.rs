//! Helpers shared by the query crate's end-to-end tests.

#![allow(dead_code)]

use query::{LlmConfig, OpenAiChat};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
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
