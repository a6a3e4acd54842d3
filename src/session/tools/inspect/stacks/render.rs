//! What a `stacks` result says: how the stacks were read, whether the program is stopped, every
//! thread with its frames, and what was cut to stay within the result's budget and how to get
//! it. Pure: no session state. Must not: read more than the [`Report`] it is given.

use serde_json::{json, Map, Value};

use super::MAX_LEVELS;
use crate::session::snapshot::RunState;
use crate::session::values::RESULT_CHARS;
use crate::session::ToolResult;

/// How the stacks were read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum How {
    WhileStopped,
    StoppedMeanwhile,
    PausedResumed,
    /// The pause did not stop the program: threads only.
    NotRead,
    /// A stack sampler read them without stopping the program: its name and version.
    Sampled {
        tool: &'static str,
        version: Option<String>,
    },
}

impl How {
    fn key(&self) -> &'static str {
        match self {
            How::WhileStopped => "read_while_stopped",
            How::StoppedMeanwhile => "stopped_meanwhile",
            How::PausedResumed => "paused_resumed",
            How::NotRead => "threads_only",
            How::Sampled { .. } => "sampled",
        }
    }

    fn words(&self, revision: u64) -> String {
        match self {
            How::WhileStopped => format!("read while stopped (rev {revision})"),
            How::StoppedMeanwhile => format!(
                "the program stopped on its own while agentdap was pausing it: read at that stop (rev {revision}), reported as usual"
            ),
            How::PausedResumed => "paused to read, resumed: the program runs again".to_owned(),
            How::NotRead => "not read: the program was not stopped and keeps running".to_owned(),
            How::Sampled { tool, version } => format!(
                "sampled by {tool}{}, program not stopped ({tool} holds it only for the moment it reads)",
                version.as_deref().map(|v| format!(" {v}")).unwrap_or_default()
            ),
        }
    }

    /// Whether frame ids of the result can be used (the program is stopped where they were read).
    fn frames_usable(&self) -> bool {
        matches!(self, How::WhileStopped | How::StoppedMeanwhile)
    }
}

/// One thread as the result shows it; `frames` are `stack_trace`-shaped objects (`frame`,
/// `function`, `path`, `line`, …), innermost first.
#[derive(Debug, Default)]
pub struct ThreadOut {
    pub id: Option<i64>,
    pub name: String,
    pub frames: Vec<Value>,
    /// More frames follow than were read.
    pub more: bool,
    /// Why its stack was not read.
    pub error: Option<String>,
    /// What a sampler saw it doing (`idle`, `active`, `active, holds the GIL`).
    pub activity: Option<&'static str>,
}

/// Everything a result is made of.
pub struct Report<'a> {
    pub session: &'a str,
    pub revision: u64,
    pub state: RunState,
    pub how: How,
    pub threads: Vec<ThreadOut>,
    /// Threads past the cap: listed, not read.
    pub unread: Vec<(i64, String)>,
    /// Threads of the adapter's own left out (a sampler sees pydevd's).
    pub hidden: usize,
    pub notes: Vec<String>,
}

/// The text budget left for the threads after the head and the notes (characters).
const SLACK: usize = 600;

impl Report<'_> {
    pub fn render(self) -> ToolResult {
        let usable = self.how.frames_usable();
        let of = match self.unread.len() {
            0 => String::new(),
            n => format!(" of {}", self.threads.len() + n),
        };
        let mut head = format!(
            "{} stacks · {} thread{}{of} · {}",
            self.session,
            self.threads.len(),
            if self.threads.len() == 1 && of.is_empty() { "" } else { "s" },
            self.how.words(self.revision)
        );
        if self.state != RunState::Running && !usable {
            head.push_str(&format!(" (now {})", self.state.as_str()));
        }
        let mut tail = String::new();
        if self.hidden > 0 {
            tail.push_str(&format!("\n({} threads of the debugger's own not shown)", self.hidden));
        }
        if !self.unread.is_empty() {
            let ids: Vec<String> = self.unread.iter().map(|(id, _)| id.to_string()).collect();
            tail.push_str(&format!(
                "\n… {} more threads not read (at most {} per call): {}; `stack_trace {{thread}}` reads one",
                self.unread.len(),
                super::MAX_THREADS,
                ids.join(", ")
            ));
        }
        for n in &self.notes {
            tail.push_str(&format!("\nnote: {n}"));
        }
        let budget = RESULT_CHARS.saturating_sub(head.len() + tail.len() + SLACK);
        // The most frames per thread that fit: every thread keeps as many as the others.
        let deepest = self.threads.iter().map(|t| t.frames.len()).max().unwrap_or(0).min(MAX_LEVELS as usize);
        let mut shown = deepest;
        let mut body = self.threads_text(shown, usable);
        while body.len() > budget && shown > 1 {
            shown -= 1;
            body = self.threads_text(shown, usable);
        }
        let mut kept = self.threads.len();
        while body.len() > budget && kept > 1 {
            kept -= 1;
            body = self.threads_text_of(&self.threads[..kept], shown, usable);
        }
        if kept < self.threads.len() {
            body.push_str(&format!(
                "\n… {} more threads cut to fit this result; `stack_trace {{thread}}` reads one",
                self.threads.len() - kept
            ));
        }
        let text = format!("{head}{body}{tail}");
        let threads: Vec<Value> = self.threads[..kept].iter().map(|t| thread_json(t, shown)).collect();
        let mut m = Map::new();
        m.insert("session".into(), self.session.into());
        m.insert("revision".into(), self.revision.into());
        m.insert("state".into(), self.state.as_str().into());
        m.insert("how".into(), self.how.key().into());
        m.insert("stopped".into(), (self.state == RunState::Stopped).into());
        if let How::Sampled { tool, version } = &self.how {
            let v = version.as_deref().map(|v| format!(" {v}")).unwrap_or_default();
            m.insert("sampler".into(), format!("{tool}{v}").into());
        }
        m.insert("threads".into(), threads.into());
        if shown < deepest {
            m.insert("frames_shown".into(), shown.into());
        }
        if kept < self.threads.len() || !self.unread.is_empty() {
            let cut: Vec<Value> = self.threads[kept..]
                .iter()
                .map(|t| json!({"id": t.id, "name": t.name}))
                .chain(self.unread.iter().map(|(id, name)| json!({"id": id, "name": name})))
                .collect();
            m.insert("unread".into(), cut.into());
        }
        if self.hidden > 0 {
            m.insert("hidden_threads".into(), self.hidden.into());
        }
        if !self.notes.is_empty() {
            m.insert("notes".into(), self.notes.clone().into());
        }
        ToolResult::ok(text, Value::Object(m))
    }

    fn threads_text(&self, shown: usize, usable: bool) -> String {
        self.threads_text_of(&self.threads, shown, usable)
    }

    fn threads_text_of(&self, threads: &[ThreadOut], shown: usize, usable: bool) -> String {
        let mut text = String::new();
        for t in threads {
            text.push_str("\nthread ");
            if let Some(id) = t.id {
                text.push_str(&id.to_string());
            }
            text.push_str(&format!(" {}", crate::visible::quoted(&t.name)));
            if let Some(a) = t.activity {
                text.push_str(&format!(" ({a})"));
            }
            if let Some(e) = &t.error {
                text.push_str(&format!("\n  (stack not read: {e})"));
                continue;
            }
            if t.frames.is_empty() {
                text.push_str("\n  (no frames)");
            }
            for (i, f) in t.frames.iter().take(shown).enumerate() {
                text.push_str(&format!("\n  #{i} "));
                super::super::push_frame_line(&mut text, f);
            }
            if t.frames.len() > shown || t.more {
                let start = shown.min(t.frames.len());
                let thread = t.id.map_or_else(|| "…".to_owned(), |id| id.to_string());
                let how = if usable {
                    format!("`stack_trace {{thread: {thread}, start: {start}}}`")
                } else {
                    format!("a stop shows them: `pause`, then `stack_trace {{thread: {thread}, start: {start}}}`")
                };
                text.push_str(&format!("\n  … more frames ({how})"));
            }
        }
        text
    }
}

fn thread_json(t: &ThreadOut, shown: usize) -> Value {
    let mut m = Map::new();
    if let Some(id) = t.id {
        m.insert("id".into(), id.into());
    }
    m.insert("name".into(), t.name.clone().into());
    if let Some(a) = t.activity {
        m.insert("activity".into(), a.into());
    }
    if let Some(e) = &t.error {
        m.insert("error".into(), e.clone().into());
    }
    m.insert("frames".into(), t.frames.iter().take(shown).cloned().collect::<Vec<_>>().into());
    if t.frames.len() > shown || t.more {
        m.insert("more_frames".into(), true.into());
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(function: &str, line: u64) -> Value {
        json!({"function": function, "path": "/srv/app/app.py", "line": line})
    }

    fn report(threads: Vec<ThreadOut>, how: How) -> Report<'static> {
        Report {
            session: "s1",
            revision: 4,
            state: RunState::Running,
            how,
            threads,
            unread: Vec::new(),
            hidden: 0,
            notes: Vec::new(),
        }
    }

    #[test]
    fn a_paused_read_says_the_program_runs_again_and_has_no_frame_ids() {
        let t = ThreadOut {
            id: Some(1),
            name: "MainThread".into(),
            frames: vec![frame("main", 3)],
            ..ThreadOut::default()
        };
        let out = report(vec![t], How::PausedResumed).render();
        assert_eq!(
            out.text,
            "s1 stacks · 1 thread · paused to read, resumed: the program runs again\nthread 1 \"MainThread\"\n  #0 main at app.py:3"
        );
        assert_eq!(out.structured["how"], "paused_resumed");
        assert_eq!(out.structured["stopped"], false);
        assert_eq!(out.structured["threads"][0]["frames"][0]["line"], 3);
    }

    #[test]
    fn a_sample_names_the_sampler_and_what_each_thread_was_doing() {
        let t = ThreadOut {
            id: Some(7),
            name: "first".into(),
            frames: vec![frame("first", 12)],
            activity: Some("idle"),
            ..ThreadOut::default()
        };
        let mut r = report(vec![t], How::Sampled { tool: "py-spy", version: Some("0.4.3".into()) });
        r.hidden = 4;
        let out = r.render();
        assert!(
            out.text.starts_with("s1 stacks · 1 thread · sampled by py-spy 0.4.3, program not stopped"),
            "{}",
            out.text
        );
        assert!(out.text.contains("\nthread 7 \"first\" (idle)\n  #0 first at app.py:12"), "{}", out.text);
        assert!(out.text.ends_with("\n(4 threads of the debugger's own not shown)"), "{}", out.text);
        assert_eq!(out.structured["sampler"], "py-spy 0.4.3");
        assert_eq!(out.structured["hidden_threads"], 4);
    }

    #[test]
    fn deep_stacks_of_many_threads_are_cut_evenly_and_say_how_to_get_the_rest() {
        let long = "f".repeat(150);
        let threads: Vec<ThreadOut> = (1..=64)
            .map(|id| ThreadOut {
                id: Some(id),
                name: format!("worker-{id}"),
                frames: (0..20).map(|l| frame(&long, l + 1)).collect(),
                ..ThreadOut::default()
            })
            .collect();
        let out = report(threads, How::WhileStopped).render();
        assert!(out.text.len() <= RESULT_CHARS, "{}", out.text.len());
        let shown = out.structured["frames_shown"].as_u64().expect("frames were cut");
        assert!((1..20).contains(&shown), "{shown}");
        assert_eq!(out.structured["threads"].as_array().map(Vec::len), Some(64));
        assert!(
            out.text.contains(&format!("… more frames (`stack_trace {{thread: 64, start: {shown}}}`)")),
            "{}",
            out.text
        );
    }

    #[test]
    fn a_thread_without_a_stack_says_why() {
        let t =
            ThreadOut { id: Some(3), name: "t".into(), error: Some("not suspended".into()), ..ThreadOut::default() };
        let mut r = report(vec![t], How::NotRead);
        r.notes.push("the pause did not stop the program".into());
        let out = r.render();
        assert!(out.text.contains("\nthread 3 \"t\"\n  (stack not read: not suspended)"), "{}", out.text);
        assert!(out.text.ends_with("\nnote: the pause did not stop the program"), "{}", out.text);
        assert_eq!(out.structured["how"], "threads_only");
    }
}
