//! Session state as the agent sees it: run state, the last stop, and the snapshot every execution
//! or inspection result carries (DESIGN §4), as one text line plus the same facts as JSON.

use serde_json::{json, Map, Value};

/// Where a session is in its life (DESIGN §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// The adapter is starting, or the start-up choreography is under way.
    Starting,
    Running,
    Stopped,
    /// The debuggee exited (`exited` event seen; the exit code is known).
    Exited,
    /// The session ended without an exit code (`terminated`, adapter gone, disconnected).
    Terminated,
}

impl RunState {
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Starting => "starting",
            RunState::Running => "running",
            RunState::Stopped => "stopped",
            RunState::Exited => "exited",
            RunState::Terminated => "terminated",
        }
    }

    /// True once the session can no longer run (exited or terminated).
    pub fn is_over(self) -> bool {
        matches!(self, RunState::Exited | RunState::Terminated)
    }
}

/// A source location (1-based line and column, DAP `linesStartAt1`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    pub path: Option<String>,
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub function: Option<String>,
}

impl Location {
    /// The location of a DAP `StackFrame`.
    pub fn from_frame(frame: &Value) -> Location {
        let source = &frame["source"];
        Location {
            path: source
                .get("path")
                .and_then(Value::as_str)
                .or_else(|| source.get("name").and_then(Value::as_str))
                .map(str::to_owned),
            line: frame.get("line").and_then(Value::as_u64).filter(|&l| l > 0),
            column: frame.get("column").and_then(Value::as_u64).filter(|&c| c > 0),
            function: frame.get("name").and_then(Value::as_str).map(str::to_owned),
        }
    }

    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        put(&mut m, "path", self.path.as_deref().map(Value::from));
        put(&mut m, "line", self.line.map(Value::from));
        put(&mut m, "column", self.column.map(Value::from));
        put(&mut m, "function", self.function.as_deref().map(Value::from));
        Value::Object(m)
    }

    /// `app.py:12 in total()` — the file name only, for the text line.
    pub fn short(&self) -> String {
        let mut s = String::new();
        if let Some(p) = &self.path {
            s.push_str(p.rsplit('/').next().unwrap_or(p));
            if let Some(l) = self.line {
                s.push_str(&format!(":{l}"));
            }
        }
        if let Some(f) = &self.function {
            if !s.is_empty() {
                s.push_str(" in ");
            }
            s.push_str(f);
            if !f.ends_with(')') {
                s.push_str("()");
            }
        }
        s
    }
}

/// The last stop, from the DAP `stopped` event plus the top frame dapmux fetched.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stop {
    pub reason: String,
    pub description: Option<String>,
    pub text: Option<String>,
    pub thread: Option<i64>,
    pub all_threads_stopped: bool,
    pub hit_breakpoints: Vec<i64>,
    pub location: Option<Location>,
}

impl Stop {
    /// Reads a DAP `stopped` event body (DAP § Events: Stopped).
    pub fn from_event(body: &Value) -> Stop {
        Stop {
            reason: body.get("reason").and_then(Value::as_str).unwrap_or("unknown").to_owned(),
            description: body.get("description").and_then(Value::as_str).map(str::to_owned),
            text: body.get("text").and_then(Value::as_str).map(str::to_owned),
            thread: body.get("threadId").and_then(Value::as_i64),
            all_threads_stopped: body.get("allThreadsStopped").and_then(Value::as_bool).unwrap_or(false),
            hit_breakpoints: body
                .get("hitBreakpointIds")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_i64).collect())
                .unwrap_or_default(),
            location: None,
        }
    }

    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("reason".into(), self.reason.clone().into());
        put(&mut m, "description", self.description.as_deref().map(Value::from));
        put(&mut m, "text", self.text.as_deref().map(Value::from));
        put(&mut m, "thread", self.thread.map(Value::from));
        if self.all_threads_stopped {
            m.insert("all_threads_stopped".into(), true.into());
        }
        if !self.hit_breakpoints.is_empty() {
            m.insert("hit_breakpoints".into(), json!(self.hit_breakpoints));
        }
        put(&mut m, "location", self.location.as_ref().map(Location::to_json));
        Value::Object(m)
    }
}

/// Inserts `value` under `key` unless it is `None` (results omit empty fields, DESIGN §3).
pub fn put(m: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(v) = value {
        m.insert(key.to_owned(), v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_reads_the_event_and_omits_what_is_absent() {
        let mut stop = Stop::from_event(&json!({"reason": "breakpoint", "threadId": 1, "hitBreakpointIds": [3]}));
        stop.location = Some(Location::from_frame(
            &json!({"id": 7, "name": "total", "line": 12, "column": 1, "source": {"path": "/w/app.py"}}),
        ));
        assert_eq!(
            stop.to_json(),
            json!({"reason": "breakpoint", "thread": 1, "hit_breakpoints": [3],
                   "location": {"path": "/w/app.py", "line": 12, "column": 1, "function": "total"}})
        );
        assert_eq!(stop.location.map(|l| l.short()).as_deref(), Some("app.py:12 in total()"));
    }
}
