//! A scripted in-memory debug adapter for sans-IO tests (test builds only), in the spirit of
//! lsp-server's `Connection::memory`: bytes a client wrote go in, decoded with the crate's own
//! [`Decoder`]; bytes to feed back come out, answered from a script (per command: a response body
//! or an error, events before and after it, held until `configurationDone` or never sent,
//! delayed on a fake clock the caller passes in). Must not: do IO, read the clock, or know about
//! sessions (it speaks only DAP § Base Protocol).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::framing::{Decoder, Encoder};

/// When a scripted response is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// As soon as the request arrives (plus the reply's delay).
    AtOnce,
    /// Once a `configurationDone` request was answered (debugpy 1.8.22 and lldb-dap 22.1.8
    /// hold their `launch`/`attach` response until then); at once if it already was.
    AfterConfigurationDone,
    /// Never: the request stays unanswered (its events before are still sent).
    Never,
}

/// How the adapter answers one request of a command.
#[derive(Clone, Debug)]
pub struct Reply {
    /// `Ok(body)`: `success: true`, with `body` unless it is `null`. `Err(words)`: `success:
    /// false`, `message` and `body.error.format` both `words` (DAP § Types › Message).
    pub outcome: Result<Value, String>,
    /// Events (`(event, body)`) sent when the request arrives, before the response.
    pub before: Vec<(String, Value)>,
    /// Events sent right after the response.
    pub after: Vec<(String, Value)>,
    pub when: When,
    /// How long after the request (or after `configurationDone`) the response goes out.
    pub delay: Duration,
}

impl Reply {
    /// `success: true` with `body` (`Value::Null`: no body).
    pub fn ok(body: Value) -> Reply {
        Reply { outcome: Ok(body), before: Vec::new(), after: Vec::new(), when: When::AtOnce, delay: Duration::ZERO }
    }

    /// `success: false` with the adapter's own `words`.
    pub fn error(words: &str) -> Reply {
        Reply { outcome: Err(words.to_owned()), ..Reply::ok(Value::Null) }
    }

    /// No response at all.
    pub fn never() -> Reply {
        Reply { when: When::Never, ..Reply::ok(Value::Null) }
    }

    /// An event sent when the request arrives, before the response.
    pub fn before(mut self, event: &str, body: Value) -> Reply {
        self.before.push((event.to_owned(), body));
        self
    }

    /// An event sent right after the response.
    pub fn then(mut self, event: &str, body: Value) -> Reply {
        self.after.push((event.to_owned(), body));
        self
    }

    /// The response (and the events after it) held until `configurationDone` was answered.
    pub fn after_configuration_done(mut self) -> Reply {
        self.when = When::AfterConfigurationDone;
        self
    }

    /// The response (and the events after it) sent `delay` later.
    pub fn delayed(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }
}

/// The adapter: a script, what it received, and what it has to send.
#[derive(Default)]
pub struct ScriptedAdapter {
    /// Replies per command, in order; the last one answers every later request too. A command
    /// with none is answered `success: true` without a body.
    script: HashMap<String, Vec<Reply>>,
    decoder: Decoder,
    encoder: Encoder,
    seq: i64,
    /// Every request received, decoded, oldest first.
    received: Vec<Value>,
    /// Requests whose responses wait for `configurationDone`.
    held: Vec<(Value, Reply)>,
    configured: bool,
    /// Messages to send and when, in the order they were made.
    due: Vec<(Instant, Value)>,
    /// Frames that did not decode or were not JSON (a client bug the test should see).
    pub undecodable: usize,
}

impl ScriptedAdapter {
    pub fn new() -> ScriptedAdapter {
        ScriptedAdapter::default()
    }

    /// Adds `reply` for the next request of `command` not yet given one.
    pub fn on(&mut self, command: &str, reply: Reply) -> &mut ScriptedAdapter {
        self.script.entry(command.to_owned()).or_default().push(reply);
        self
    }

    /// Every request received, oldest first.
    pub fn received(&self) -> &[Value] {
        &self.received
    }

    /// The commands received, in order.
    pub fn commands(&self) -> Vec<String> {
        self.received.iter().filter_map(|r| r["command"].as_str().map(str::to_owned)).collect()
    }

    /// The last request of `command` received.
    pub fn last(&self, command: &str) -> Option<&Value> {
        self.received.iter().rev().find(|r| r["command"] == command)
    }

    /// Bytes the client wrote: every complete request is answered from the script.
    pub fn receive(&mut self, bytes: &[u8], now: Instant) {
        let mut requests = Vec::new();
        let mut bad = 0;
        self.decoder.feed(bytes, |frame| match frame.map(serde_json::from_slice::<Value>) {
            Ok(Ok(msg)) => requests.push(msg),
            _ => bad += 1,
        });
        self.undecodable += bad;
        for msg in requests {
            if msg["type"] == "request" {
                self.on_request(msg, now);
            }
        }
    }

    /// An event the adapter sends by itself at `now` (a `stopped`, an `output`, `terminated`).
    pub fn event(&mut self, event: &str, body: Value, now: Instant) {
        let msg = self.event_message(event, body);
        self.due.push((now, msg));
    }

    /// The bytes due by `now`, in the order they were made (empty when none are).
    pub fn take(&mut self, now: Instant) -> Vec<u8> {
        let (ready, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.due).into_iter().partition(|(t, _)| *t <= now);
        self.due = later;
        let mut out = Vec::new();
        for (_, msg) in ready {
            // A `Value` always serializes; nothing is lost.
            let _ = self.encoder.encode_into(&msg, &mut out);
        }
        out
    }

    /// When the next delayed message is due.
    pub fn next_due(&self) -> Option<Instant> {
        self.due.iter().map(|(t, _)| *t).min()
    }

    fn on_request(&mut self, request: Value, now: Instant) {
        let command = request["command"].as_str().unwrap_or_default().to_owned();
        self.received.push(request.clone());
        let reply = match self.script.get_mut(&command) {
            Some(list) if list.len() > 1 => list.remove(0),
            Some(list) => list.first().cloned().unwrap_or_else(|| Reply::ok(Value::Null)),
            None => Reply::ok(Value::Null),
        };
        for (event, body) in &reply.before {
            let msg = self.event_message(event, body.clone());
            self.due.push((now, msg));
        }
        match reply.when {
            When::Never => {}
            When::AfterConfigurationDone if !self.configured => self.held.push((request, reply)),
            _ => self.respond(&request, &reply, now),
        }
        if command == "configurationDone" {
            self.configured = true;
            for (request, reply) in std::mem::take(&mut self.held) {
                self.respond(&request, &reply, now);
            }
        }
    }

    fn respond(&mut self, request: &Value, reply: &Reply, now: Instant) {
        let at = now + reply.delay;
        self.seq += 1;
        let mut msg = json!({
            "seq": self.seq, "type": "response", "request_seq": request["seq"], "command": request["command"],
        });
        match &reply.outcome {
            Ok(body) => {
                msg["success"] = true.into();
                if !body.is_null() {
                    msg["body"] = body.clone();
                }
            }
            Err(words) => {
                msg["success"] = false.into();
                msg["message"] = words.clone().into();
                msg["body"] = json!({"error": {"id": 1, "format": words}});
            }
        }
        self.due.push((at, msg));
        for (event, body) in &reply.after {
            let msg = self.event_message(event, body.clone());
            self.due.push((at, msg));
        }
    }

    fn event_message(&mut self, event: &str, body: Value) -> Value {
        self.seq += 1;
        let mut msg = json!({"seq": self.seq, "type": "event", "event": event});
        if !body.is_null() {
            msg["body"] = body;
        }
        msg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(seq: i64, command: &str) -> Vec<u8> {
        Encoder::new().encode(&json!({"seq": seq, "type": "request", "command": command})).unwrap_or_default()
    }

    fn decoded(bytes: &[u8]) -> Vec<Value> {
        let mut out = Vec::new();
        Decoder::new().feed(bytes, |f| out.extend(f.ok().and_then(|b| serde_json::from_slice(b).ok())));
        out
    }

    #[test]
    fn a_held_response_follows_configuration_done_and_a_delayed_one_waits_for_the_clock() {
        let t0 = Instant::now();
        let mut a = ScriptedAdapter::new();
        a.on("launch", Reply::ok(Value::Null).before("initialized", Value::Null).after_configuration_done());
        a.on("threads", Reply::ok(json!({"threads": []})).delayed(Duration::from_secs(2)));
        a.receive(&request(1, "launch"), t0);
        let first = decoded(&a.take(t0));
        assert_eq!(first.iter().map(|m| m["event"].clone()).collect::<Vec<_>>(), vec![json!("initialized")]);
        let mut both = request(2, "configurationDone");
        both.extend(request(3, "threads"));
        a.receive(&both, t0);
        let order: Vec<Value> = decoded(&a.take(t0)).iter().map(|m| m["request_seq"].clone()).collect();
        assert_eq!(order, vec![json!(2), json!(1)], "configurationDone's answer, then the held launch");
        assert_eq!(a.next_due(), Some(t0 + Duration::from_secs(2)));
        assert!(a.take(t0 + Duration::from_secs(1)).is_empty());
        assert_eq!(decoded(&a.take(t0 + Duration::from_secs(2)))[0]["body"], json!({"threads": []}));
        assert_eq!(a.commands(), ["launch", "configurationDone", "threads"]);
    }
}
