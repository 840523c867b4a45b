//! The long connection's wire format, as the official SDKs speak it: every WebSocket message is
//! one protobuf `Frame` (pbbp2.proto, proto2). Control frames (`method` 0) carry pings and
//! pongs, a pong sometimes with new [`ClientConfig`]; data frames (`method` 1) carry events,
//! split into `sum` parts when large, and are acknowledged by sending the same frame back with
//! a JSON `{"code": 200}` payload. Pure: no I/O here.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// `Frame.method` of pings and pongs.
pub const METHOD_CONTROL: i32 = 0;
/// `Frame.method` of events (and card callbacks).
pub const METHOD_DATA: i32 = 1;

/// A parted event whose other parts do not arrive within this long is dropped (the SDKs keep
/// parts five seconds too); the server redelivers an unacknowledged event.
pub const PARTS_TTL: Duration = Duration::from_secs(5);

#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct Header {
    #[prost(string, required, tag = "1")]
    pub key: String,
    #[prost(string, required, tag = "2")]
    pub value: String,
}

/// pbbp2's `Frame`. Proto2 `required` fields are always written: the SDKs refuse a frame
/// without them.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Frame {
    #[prost(uint64, required, tag = "1")]
    pub seq_id: u64,
    #[prost(uint64, required, tag = "2")]
    pub log_id: u64,
    #[prost(int32, required, tag = "3")]
    pub service: i32,
    #[prost(int32, required, tag = "4")]
    pub method: i32,
    #[prost(message, repeated, tag = "5")]
    pub headers: Vec<Header>,
    #[prost(string, optional, tag = "6")]
    pub payload_encoding: Option<String>,
    #[prost(string, optional, tag = "7")]
    pub payload_type: Option<String>,
    #[prost(bytes = "vec", optional, tag = "8")]
    pub payload: Option<Vec<u8>>,
    #[prost(string, optional, tag = "9")]
    pub log_id_new: Option<String>,
}

/// What the server tells the client about pacing, in the endpoint answer and in pongs. Seconds;
/// a negative `reconnect_count` means "retry forever".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientConfig {
    #[serde(rename = "ReconnectCount")]
    pub reconnect_count: i64,
    #[serde(rename = "ReconnectInterval")]
    pub reconnect_interval: u64,
    #[serde(rename = "ReconnectNonce")]
    pub reconnect_nonce: u64,
    #[serde(rename = "PingInterval")]
    pub ping_interval: u64,
}

impl Default for ClientConfig {
    /// The SDKs' values until the server says otherwise.
    fn default() -> ClientConfig {
        ClientConfig {
            reconnect_count: -1,
            reconnect_interval: 120,
            reconnect_nonce: 30,
            ping_interval: 120,
        }
    }
}

impl ClientConfig {
    /// The ping period, never below one second (a zero would spin).
    pub fn ping_every(&self) -> Duration {
        Duration::from_secs(self.ping_interval.max(1))
    }
}

/// A frame the client received, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Ping,
    /// A pong; `Some` when it carries new settings.
    Pong(Option<ClientConfig>),
    /// One part (`seq` of `sum`) of an event.
    Event(Part),
    /// Something the bot does not handle (card callbacks, unknown types), with why.
    Other(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub message_id: String,
    pub sum: usize,
    pub seq: usize,
    pub bytes: Vec<u8>,
}

impl Frame {
    pub fn header(&self, key: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|h| h.key == key)
            .map(|h| h.value.as_str())
    }

    /// The client's keep-alive, addressed to the connection's service id.
    pub fn ping(service: i32) -> Frame {
        Frame {
            service,
            method: METHOD_CONTROL,
            headers: vec![header("type", "ping")],
            ..Frame::default()
        }
    }

    /// The acknowledgement of a data frame: the frame itself with `biz_rt` (milliseconds spent)
    /// added and its payload replaced by `{"code": code}`.
    pub fn ack(mut self, code: u16, biz_rt_ms: u128) -> Frame {
        self.headers.push(header("biz_rt", &biz_rt_ms.to_string()));
        self.payload = Some(serde_json::json!({ "code": code }).to_string().into_bytes());
        self
    }

    pub fn classify(&self) -> Incoming {
        let kind = self.header("type").unwrap_or_default();
        match (self.method, kind) {
            (METHOD_CONTROL, "ping") => Incoming::Ping,
            (METHOD_CONTROL, "pong") => Incoming::Pong(
                self.payload
                    .as_deref()
                    .filter(|p| !p.is_empty())
                    .and_then(|p| serde_json::from_slice(p).ok()),
            ),
            (METHOD_DATA, "event") => match self.part() {
                Some(p) => Incoming::Event(p),
                None => Incoming::Other("event frame without message_id, sum or seq".into()),
            },
            (m, k) => Incoming::Other(format!("method {m}, type {k:?}")),
        }
    }

    fn part(&self) -> Option<Part> {
        let num = |k: &str| self.header(k)?.parse::<usize>().ok();
        let (sum, seq) = (num("sum")?.max(1), num("seq")?);
        let message_id = self.header("message_id")?.to_string();
        (seq < sum).then(|| Part {
            message_id,
            sum,
            seq,
            bytes: self.payload.clone().unwrap_or_default(),
        })
    }
}

fn header(key: &str, value: &str) -> Header {
    Header {
        key: key.into(),
        value: value.into(),
    }
}

/// One parted event: when its first part came, and the parts so far by position.
type Pending = (Instant, Vec<Option<Vec<u8>>>);

/// Parted events being put back together, by message id.
#[derive(Default)]
pub struct Parts {
    pending: HashMap<String, Pending>,
}

impl Parts {
    /// Adds one part; the whole payload once every part is in. Parts older than [`PARTS_TTL`]
    /// are forgotten.
    pub fn add(&mut self, part: Part, now: Instant) -> Option<Vec<u8>> {
        self.pending
            .retain(|_, (at, _)| now.duration_since(*at) < PARTS_TTL);
        if part.sum == 1 {
            return Some(part.bytes);
        }
        let (_, slots) = self
            .pending
            .entry(part.message_id.clone())
            .or_insert_with(|| (now, vec![None; part.sum]));
        if slots.len() != part.sum {
            return None;
        }
        slots[part.seq] = Some(part.bytes);
        if slots.iter().any(Option::is_none) {
            return None;
        }
        let (_, slots) = self.pending.remove(&part.message_id)?;
        Some(slots.into_iter().flatten().flatten().collect())
    }

    pub fn waiting(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    fn data(message_id: &str, sum: usize, seq: usize, payload: &[u8]) -> Frame {
        Frame {
            seq_id: 7,
            log_id: 9,
            service: 33554678,
            method: METHOD_DATA,
            headers: vec![
                header("type", "event"),
                header("message_id", message_id),
                header("sum", &sum.to_string()),
                header("seq", &seq.to_string()),
                header("trace_id", "tr-1"),
            ],
            payload: Some(payload.to_vec()),
            ..Frame::default()
        }
    }

    #[test]
    fn required_fields_are_written_even_when_zero() {
        // Tags 1-4 as varints (0x08, 0x10, 0x18, 0x20), then the header (0x2a).
        let bytes = Frame::ping(0).encode_to_vec();
        assert_eq!(&bytes[..8], &[0x08, 0, 0x10, 0, 0x18, 0, 0x20, 0]);
        assert_eq!(bytes[8], 0x2a);
        assert_eq!(Frame::decode(bytes.as_slice()).unwrap(), Frame::ping(0));
    }

    #[test]
    fn the_ack_is_the_frame_with_a_code_and_the_time_spent() {
        let f = data("m1", 1, 0, br#"{"schema":"2.0"}"#);
        let ack = f.clone().ack(200, 3);
        assert_eq!(
            (ack.seq_id, ack.log_id, ack.service, ack.method),
            (7, 9, 33554678, 1)
        );
        assert_eq!(ack.header("message_id"), Some("m1"));
        assert_eq!(ack.header("biz_rt"), Some("3"));
        assert_eq!(ack.payload.as_deref(), Some(&br#"{"code":200}"#[..]));
    }

    #[test]
    fn frames_are_classified_by_method_and_type() {
        assert_eq!(Frame::ping(1).classify(), Incoming::Ping);
        let mut pong = Frame::ping(1);
        pong.headers[0].value = "pong".into();
        assert_eq!(pong.classify(), Incoming::Pong(None));
        pong.payload = Some(
            br#"{"ReconnectCount":3,"ReconnectInterval":5,"ReconnectNonce":2,"PingInterval":9}"#
                .to_vec(),
        );
        assert_eq!(
            pong.classify(),
            Incoming::Pong(Some(ClientConfig {
                reconnect_count: 3,
                reconnect_interval: 5,
                reconnect_nonce: 2,
                ping_interval: 9
            }))
        );
        let Incoming::Event(p) = data("m1", 2, 1, b"x").classify() else {
            panic!()
        };
        assert_eq!((p.message_id.as_str(), p.sum, p.seq), ("m1", 2, 1));
        let mut card = data("m1", 1, 0, b"x");
        card.headers[0].value = "card".into();
        assert!(matches!(card.classify(), Incoming::Other(_)));
        assert!(matches!(
            data("m1", 2, 2, b"x").classify(),
            Incoming::Other(_)
        ));
    }

    #[test]
    fn parts_come_together_in_order_whatever_order_they_arrive() {
        let now = Instant::now();
        let mut parts = Parts::default();
        let part = |seq, b: &[u8]| match data("m2", 3, seq, b).classify() {
            Incoming::Event(p) => p,
            other => panic!("{other:?}"),
        };
        assert_eq!(parts.add(part(2, b"c"), now), None);
        assert_eq!(parts.add(part(0, b"a"), now), None);
        assert_eq!(parts.add(part(1, b"b"), now), Some(b"abc".to_vec()));
        assert_eq!(parts.waiting(), 0);
        // A part whose siblings never come is forgotten after the TTL.
        assert_eq!(parts.add(part(0, b"a"), now), None);
        let later = now + PARTS_TTL + Duration::from_millis(1);
        assert_eq!(parts.add(part(1, b"b"), later), None);
        assert_eq!(parts.waiting(), 1);
    }
}
