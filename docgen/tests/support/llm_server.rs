//! An OpenAI-compatible `/chat/completions` endpoint on loopback that records every request and
//! answers from what it was sent: the module named on the prompt's first fact line, described in
//! a sentence that also carries a made-up location and a link (which docgen must remove). Set
//! `failing` to answer HTTP 500 instead.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Default)]
pub struct Recorded {
    pub requests: Mutex<Vec<Value>>,
    pub failing: AtomicBool,
}

pub struct LlmServer {
    /// Base URL up to `/v1`.
    pub base_url: String,
    pub seen: Arc<Recorded>,
}

impl LlmServer {
    /// Starts the server on a thread of its own (the docgen call under test is blocking).
    pub fn start() -> LlmServer {
        let seen = Arc::new(Recorded::default());
        let state = seen.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let app = Router::new()
                    .route("/v1/chat/completions", post(complete))
                    .with_state(state);
                let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(l.local_addr().unwrap()).unwrap();
                axum::serve(l, app).await.unwrap();
            });
        });
        let addr = rx.recv().unwrap();
        LlmServer {
            base_url: format!("http://{addr}/v1"),
            seen,
        }
    }

    /// Requests received so far.
    pub fn calls(&self) -> usize {
        self.seen.requests.lock().unwrap().len()
    }

    /// The chat model docgen is configured with.
    pub fn llm(&self) -> docgen::Llm {
        let mut cfg = query::LlmConfig::new(&self.base_url, "test-model");
        cfg.retries = 0;
        cfg.timeout_secs = 10.0;
        docgen::Llm(Arc::new(query::OpenAiChat::new(cfg).unwrap()))
    }
}

async fn complete(
    State(seen): State<Arc<Recorded>>,
    Json(body): Json<Value>,
) -> Result<Json<Value>, StatusCode> {
    seen.requests.lock().unwrap().push(body.clone());
    if seen.failing.load(Ordering::SeqCst) {
        return Err(StatusCode::INTERNAL_SERVER_ERROR);
    }
    let user = body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default();
    let module = user
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("Module: "))
        .and_then(|l| l.split(' ').next())
        .unwrap_or("unknown");
    let text = format!(
        "The *{module}* module serves the shop (see OrderServiceImpl.java:999 and \
         [the docs](https://example.com/{module})). It is reached through its entry points."
    );
    Ok(Json(json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    })))
}
