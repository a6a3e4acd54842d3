//! The per-session output ring: program and adapter output with a cursor, bounded, counting loss.
//!
//! Entries are numbered from 0 in arrival order; a cursor is the number of the next entry a reader
//! has not seen. When the ring is over its byte cap the oldest entries go, and a reader whose cursor
//! points before the oldest kept entry is told how many it missed (`dropped`).

use std::collections::VecDeque;

use crate::dap::adapters::FailureShape;

/// Default cap on the text held per session (bytes).
pub const DEFAULT_OUTPUT_CAP: usize = 1 << 20;
/// Cap on the "output since the last result" tail carried in a snapshot (bytes).
pub const SNAPSHOT_TAIL: usize = 2048;
/// Most bytes of recent output searched for a failure report ([`OutputRing::failure_line`]):
/// a Go panic's goroutine dump can be long, a report older than this is not the last one.
const FAILURE_SCAN_BYTES: usize = 64 * 1024;
/// An unfinished line longer than this becomes an entry without waiting for its `\n` (bytes).
const PARTIAL_CAP: usize = 4096;

/// Where a piece of output came from: the DAP `output` event's `category`, or agentdap's own
/// capture of an adapter pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    Stdout,
    Stderr,
    /// DAP `console` and `important`: messages from the adapter to the user.
    Console,
    /// The adapter process's own stderr pipe (not the debuggee's).
    Adapter,
    /// A log point's message, told apart from the program's prints by
    /// `Quirks::logpoint_output_key` (debugpy sends it as `stdout`).
    Logpoint,
}

impl Category {
    /// Maps a DAP `output` event category (DAP § Events: Output); `None` for `telemetry`, which is
    /// dropped. Unknown categories read as console, as the spec says.
    pub fn from_dap(category: Option<&str>) -> Option<Category> {
        match category {
            Some("telemetry") => None,
            Some("stdout") => Some(Category::Stdout),
            Some("stderr") => Some(Category::Stderr),
            _ => Some(Category::Console),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Stdout => "stdout",
            Category::Stderr => "stderr",
            Category::Console => "console",
            Category::Adapter => "adapter",
            Category::Logpoint => "logpoint",
        }
    }

    /// Parses a category name as the `output` tool accepts it.
    pub fn parse(name: &str) -> Option<Category> {
        match name {
            "stdout" => Some(Category::Stdout),
            "stderr" => Some(Category::Stderr),
            "console" => Some(Category::Console),
            "adapter" => Some(Category::Adapter),
            "logpoint" => Some(Category::Logpoint),
            _ => None,
        }
    }
}

/// One piece of output, as it arrived. Entries concatenate (per category) into exactly the
/// text the program printed: an unfinished line made an entry at a stop or a read ends without
/// `\n`, and the entry that carries on that line has `continues` set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub index: u64,
    pub category: Category,
    pub text: String,
    /// This entry carries on the unfinished line of the previous entry of its category.
    pub continues: bool,
}

/// The bounded ring.
#[derive(Debug)]
pub struct OutputRing {
    entries: VecDeque<Entry>,
    /// Number of the next entry to arrive.
    next: u64,
    bytes: usize,
    cap: usize,
    /// Entries and bytes of text dropped so far (oldest first) to stay under `cap`.
    evicted: u64,
    evicted_bytes: u64,
    /// Per category, text after the last `\n` not yet made an entry: programs write a line in
    /// pieces (`print` sends the text and the newline separately), and readers want lines.
    partial: Vec<(Category, String)>,
    /// Categories whose last entry ends without `\n` (an unfinished line, made an entry by
    /// [`OutputRing::flush`] or [`PARTIAL_CAP`]): their next entry continues that line.
    open: Vec<Category>,
}

/// What a read returns: entries at or after the cursor (oldest first), how many the reader missed
/// because the ring dropped them, and the cursor to pass next time.
#[derive(Debug, PartialEq, Eq)]
pub struct Read<'a> {
    pub entries: Vec<&'a Entry>,
    pub dropped: u64,
    pub next_cursor: u64,
    /// True when `limit` stopped the read before the newest entry.
    pub more: bool,
}

impl Default for OutputRing {
    fn default() -> Self {
        OutputRing::new(DEFAULT_OUTPUT_CAP)
    }
}

impl OutputRing {
    /// A ring holding at most `cap` bytes of text (a single larger entry is kept, truncated to `cap`).
    pub fn new(cap: usize) -> OutputRing {
        OutputRing {
            entries: VecDeque::new(),
            next: 0,
            bytes: 0,
            cap: cap.max(1),
            evicted: 0,
            evicted_bytes: 0,
            partial: Vec::new(),
            open: Vec::new(),
        }
    }

    /// Appends output, exactly as given. Complete lines become an entry at once; an unfinished
    /// last line waits for its `\n` (or [`OutputRing::flush`], or [`PARTIAL_CAP`]); empty text
    /// is ignored.
    pub fn push(&mut self, category: Category, text: &str) {
        self.push_as(category, text, false);
    }

    /// [`OutputRing::push`] of output read from a pseudo-terminal, whose line discipline turns
    /// the program's `\n` into `\r\n`: `\r\n` is `\n` again, also when a read ends between the
    /// two. Output from pipes and `output` events keeps its `\r\n` (a breaker's HTTP status line
    /// on a pipe read back with `\n`).
    pub fn push_terminal(&mut self, category: Category, text: &str) {
        self.push_as(category, text, true);
    }

    fn push_as(&mut self, category: Category, text: &str, terminal: bool) {
        if text.is_empty() {
            return;
        }
        // `partial` is in the order its lines began: this category's keeps its place.
        let slot = self.partial.iter().position(|(c, _)| *c == category);
        let mut pending = match slot {
            Some(i) => std::mem::take(&mut self.partial[i].1),
            None => String::new(),
        };
        pending.push_str(text);
        if terminal && pending.contains("\r\n") {
            pending = pending.replace("\r\n", "\n");
        }
        let cut = pending.rfind('\n').map_or(0, |i| i + 1);
        let whole = pending.len() - cut > PARTIAL_CAP;
        let rest = if whole { String::new() } else { pending.split_off(cut) };
        if !pending.is_empty() {
            // Another stream's unfinished line that began before this one becomes an entry
            // first, so entries keep the order the program wrote in (its rest then `continues`;
            // a breaker's `abc`, `ERR\n`, `def\n` read `[stderr] ERR` before `abcdef`).
            let older = slot.unwrap_or(self.partial.len());
            let earlier: Vec<(Category, String)> = self.partial.drain(..older).collect();
            for (c, text) in earlier.into_iter().filter(|(_, t)| !t.is_empty()) {
                self.append(c, text);
            }
        }
        // The unfinished line keeps its place only when it is the one that was waiting; one that
        // begins after a line this text ended began last (a breaker's `a`, `b`, `\nc`, `\n` read
        // `c` before `b`).
        let slot = self.partial.iter().position(|(c, _)| *c == category);
        if let Some(i) = slot {
            if pending.is_empty() {
                self.partial[i].1 = rest;
                return;
            }
            self.partial.remove(i);
        }
        if !rest.is_empty() {
            self.partial.push((category, rest));
        }
        if !pending.is_empty() {
            self.append(category, pending);
        }
    }

    /// Makes every unfinished line an entry as it is, without adding a `\n` (at a stop, the
    /// exit, or before a read): a prompt like `name? ` reads as printed, and the rest of the line,
    /// when it comes, is an entry that `continues` it.
    pub fn flush(&mut self) {
        for (category, text) in std::mem::take(&mut self.partial) {
            self.append(category, text);
        }
    }

    /// Whether an unfinished line is waiting (a prompt counts as output for `wait`).
    pub fn has_partial(&self) -> bool {
        self.partial.iter().any(|(_, t)| !t.is_empty())
    }

    fn append(&mut self, category: Category, mut text: String) {
        let mut continues = match self.open.iter().position(|c| *c == category) {
            Some(i) => {
                self.open.swap_remove(i);
                true
            }
            None => false,
        };
        if text.len() > self.cap {
            // One piece over the whole cap keeps its end, from a line start where one is in
            // it. The start is dropped as an entry of its own, counted like any evicted one,
            // so a reader from before it is told (`read`'s `dropped`), never handed a cut text
            // as if it were whole.
            let mut cut = text.len() - self.cap;
            while !text.is_char_boundary(cut) {
                cut += 1;
            }
            if text.as_bytes()[cut - 1] != b'\n' {
                if let Some(nl) = text[cut..].find('\n').filter(|nl| cut + nl + 1 < text.len()) {
                    cut += nl + 1;
                }
            }
            continues = text.as_bytes()[cut - 1] != b'\n';
            self.evicted += 1;
            self.evicted_bytes += cut as u64;
            self.next += 1;
            text.drain(..cut);
        }
        if !text.ends_with('\n') {
            self.open.push(category);
        }
        self.bytes += text.len();
        self.entries.push_back(Entry { index: self.next, category, text, continues });
        self.next += 1;
        while self.bytes > self.cap {
            match self.entries.pop_front() {
                Some(old) => {
                    self.bytes -= old.text.len();
                    self.evicted += 1;
                    self.evicted_bytes += old.text.len() as u64;
                }
                None => break,
            }
        }
    }

    /// Number of the next entry to arrive (the cursor of a reader who has seen everything).
    pub fn cursor(&self) -> u64 {
        self.next
    }

    /// The most text the ring holds (bytes).
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Entries and bytes of text dropped so far to stay under the cap (all readers).
    pub fn evicted(&self) -> (u64, u64) {
        (self.evicted, self.evicted_bytes)
    }

    /// Number of the oldest entry still held.
    pub fn first(&self) -> u64 {
        self.entries.front().map_or(self.next, |e| e.index)
    }

    /// Entries from `cursor` on, optionally of one category, at most `limit` of them.
    pub fn read(&self, cursor: u64, category: Option<Category>, limit: usize) -> Read<'_> {
        let first = self.first();
        let dropped = first.saturating_sub(cursor);
        let start = cursor.max(first);
        let skip = (start - first) as usize;
        let mut entries = Vec::new();
        let mut next_cursor = start.max(cursor).min(self.next);
        let mut more = false;
        for e in self.entries.iter().skip(skip) {
            if category.is_some_and(|c| c != e.category) {
                next_cursor = e.index + 1;
                continue;
            }
            if entries.len() == limit {
                more = true;
                break;
            }
            entries.push(e);
            next_cursor = e.index + 1;
        }
        Read { entries, dropped, next_cursor, more }
    }

    /// The text since `cursor` joined in arrival order, every line of a non-stdout entry
    /// labelled (`[stderr] `, `[console] `, `[adapter] `), keeping only the last `max` bytes on
    /// a line start where possible; returns `(text, truncated_bytes, dropped_entries)`.
    pub fn tail_since(&self, cursor: u64, max: usize) -> (String, usize, u64) {
        let read = self.read(cursor, None, usize::MAX);
        let all = join(read.entries.iter().copied(), true);
        let mut cut = all.len().saturating_sub(max);
        while !all.is_char_boundary(cut) {
            cut += 1;
        }
        // Start on a whole line when one begins within the kept part.
        if cut > 0 && all.as_bytes().get(cut - 1) != Some(&b'\n') {
            if let Some(nl) = all[cut..].find('\n').filter(|nl| cut + nl + 1 < all.len()) {
                cut += nl + 1;
            }
        }
        (all[cut..].to_owned(), cut, read.dropped)
    }

    /// The last non-empty line of `category` still held (e.g. the exception line a program
    /// printed on stderr before exiting).
    /// The line of the latest `category` output that says what ended the program, in the first
    /// of `shapes` found there (each looked for in the last [`FAILURE_SCAN_BYTES`] of that
    /// output, joined exactly as printed), else the last non-blank line ([`Self::last_line`]).
    pub fn failure_line(&self, category: Category, shapes: &[FailureShape]) -> Option<String> {
        if !shapes.is_empty() {
            let mut pieces: Vec<&str> = Vec::new();
            let mut bytes = 0;
            let partial = self.partial.iter().find(|(c, _)| *c == category).map(|(_, t)| t.as_str());
            let entries = self.entries.iter().rev().filter(|e| e.category == category).map(|e| e.text.as_str());
            for text in partial.into_iter().chain(entries) {
                if bytes >= FAILURE_SCAN_BYTES {
                    break;
                }
                bytes += text.len();
                pieces.push(text);
            }
            pieces.reverse();
            let text = pieces.concat();
            let lines: Vec<&str> = text.lines().collect();
            if let Some(found) = shapes.iter().find_map(|s| s.find(&lines)) {
                return Some(found);
            }
        }
        self.last_line(category)
    }

    pub fn last_line(&self, category: Category) -> Option<String> {
        let partial = self.partial.iter().find(|(c, _)| *c == category).map(|(_, t)| t.as_str());
        let entries = self.entries.iter().rev().filter(|e| e.category == category).map(|e| e.text.as_str());
        partial
            .into_iter()
            .chain(entries)
            .find_map(|t| t.lines().rev().find(|l| !l.trim().is_empty()))
            .map(str::to_owned)
    }
}

/// Entries as one text for the agent, the one place output is joined (the `output` tool, the
/// tail in results, the output resource). Text is exactly what was printed: an unfinished line
/// and the entry that `continues` it join with nothing between them. With `labels`, every line
/// of a non-stdout entry is labelled (`[stderr] `, `[console] `, `[adapter] `) so interleaved
/// streams stay readable; when another stream's output arrives while a line is unfinished, the
/// text breaks the line there (the only `\n` not printed by the program) and the rest of the
/// line, when it comes, is labelled `[<category> continued] ` so it is not read as a new line;
/// a rest that is the line's end alone (debugpy sends `print`'s `\n` as an output of its own)
/// is the break already made, and adds nothing.
pub fn join<'a>(entries: impl IntoIterator<Item = &'a Entry>, labels: bool) -> String {
    let mut out = String::new();
    // The category of the line left unfinished at the end of `out`.
    let mut open: Option<Category> = None;
    // Categories whose unfinished line the text broke, until their next entry.
    let mut broken: Vec<Category> = Vec::new();
    for e in entries {
        let carries_on = e.continues && open == Some(e.category);
        let was_broken = broken.contains(&e.category);
        broken.retain(|c| *c != e.category);
        if e.continues && !carries_on && was_broken && e.text == "\n" {
            continue;
        }
        if let Some(cut) = open.filter(|_| !carries_on) {
            out.push('\n');
            broken.push(cut);
        }
        for (i, line) in e.text.split_inclusive('\n').enumerate() {
            let first = i == 0;
            if labels && !(first && carries_on) {
                match (e.category, first && e.continues) {
                    (c, true) => out.push_str(&format!("[{} continued] ", c.as_str())),
                    (Category::Stdout, false) => {}
                    (c, false) => out.push_str(&format!("[{}] ", c.as_str())),
                }
            }
            out.push_str(line);
        }
        open = (!e.text.ends_with('\n')).then_some(e.category);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(r: &Read<'a>) -> Vec<&'a str> {
        r.entries.iter().map(|e| e.text.as_str()).collect()
    }

    #[test]
    fn an_unfinished_line_flushed_and_continued_reads_as_printed() {
        let mut ring = OutputRing::default();
        ring.push(Category::Stdout, "line ");
        ring.flush();
        ring.push(Category::Stdout, "1\n");
        ring.push(Category::Stderr, "name? ");
        assert!(ring.has_partial());
        ring.flush();
        assert!(!ring.has_partial());
        ring.push(Category::Stderr, "bob\nnext\n");
        let all: Vec<&Entry> = ring.read(0, None, 10).entries;
        let joined = join(all.iter().copied(), true);
        assert_eq!(joined, "line 1\n[stderr] name? bob\n[stderr] next\n");
    }

    #[test]
    fn joined_text_adds_a_line_break_only_where_another_stream_cut_in() {
        let check = |pieces: &[(Category, &str, bool)], labels: bool, expected: &str| {
            let mut ring = OutputRing::default();
            for &(c, text, flush) in pieces {
                ring.push(c, text);
                if flush {
                    ring.flush();
                }
            }
            assert_eq!(join(ring.read(0, None, 100).entries, labels), expected, "{pieces:?}");
        };
        use Category::{Console, Stderr, Stdout};
        check(&[(Stdout, "errors:", true), (Stdout, " [x]\nlow\n", false)], true, "errors: [x]\nlow\n");
        check(&[(Stdout, "errors:", true), (Stdout, " [x]\n", false)], false, "errors: [x]\n");
        check(
            &[(Stdout, "errors:", true), (Stderr, "oops\n", false), (Stdout, " [x]\n", false)],
            true,
            "errors:\n[stderr] oops\n[stdout continued]  [x]\n",
        );
        check(&[(Console, "a", true), (Console, "b\nc\n", false)], true, "[console] ab\n[console] c\n");
        check(&[(Stderr, "name? ", true)], true, "[stderr] name? ");
        // debugpy sends `print(..., file=sys.stderr)`'s `\n` on its own: the break stands for it.
        check(
            &[(Stderr, "warn", true), (Stdout, "after 4.0\n", false), (Stderr, "\n", false), (Stdout, "x\n", false)],
            true,
            "[stderr] warn\nafter 4.0\nx\n",
        );
        check(&[(Stderr, "warn", true), (Stderr, "\n", false)], true, "[stderr] warn\n");
        check(
            &[(Stderr, "a", true), (Stdout, "b\n", false), (Stderr, " c\n", false)],
            true,
            "[stderr] a\nb\n[stderr continued]  c\n",
        );
    }

    /// breaker3: an unfinished line waits for its `\n` per category, and a whole line of another
    /// category that arrives meanwhile becomes an entry first: debugpy sent `abc` (stdout), then
    /// `ERR\n` (stderr), then `def\n` (stdout), and with no stop or read in between `output`
    /// showed `[stderr] ERR` then `abcdef`, as if the program wrote its error before `abc`.
    /// The entries must keep the order the program wrote in (README: the rest of a line another
    /// stream cut into is labelled `[stdout continued]`).
    #[test]
    fn another_streams_line_does_not_overtake_an_unfinished_line() {
        let mut ring = OutputRing::default();
        ring.push(Category::Stdout, "abc");
        ring.push(Category::Stderr, "ERR\n");
        ring.push(Category::Stdout, "def\n");
        ring.flush();
        let entries = ring.read(0, None, 10).entries;
        assert_eq!(join(entries.iter().copied(), true), "abc\n[stderr] ERR\n[stdout continued] def\n");
        let stdout: String = ring.read(0, Some(Category::Stdout), 10).entries.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(stdout, "abcdef\n", "entries concatenate into exactly what was printed");
    }

    #[test]
    fn a_line_flushed_at_a_stop_is_not_split_by_its_trailing_newline() {
        let mut ring = OutputRing::default();
        ring.push(Category::Stdout, "line 1");
        ring.flush();
        ring.push(Category::Stderr, "\n");
        ring.push(Category::Stdout, "\n");
        ring.push(Category::Stdout, "\nline 2\n");
        let texts: Vec<(Category, &str, bool)> =
            ring.read(0, None, 10).entries.iter().map(|e| (e.category, e.text.as_str(), e.continues)).collect();
        assert_eq!(
            texts,
            [
                (Category::Stdout, "line 1", false),
                (Category::Stderr, "\n", false),
                (Category::Stdout, "\n", true),
                (Category::Stdout, "\nline 2\n", false)
            ]
        );
        let stdout: String = ring.read(0, Some(Category::Stdout), 10).entries.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(stdout, "line 1\n\nline 2\n", "entries concatenate into exactly what was printed");
    }

    #[test]
    fn reads_in_order_and_advances_the_cursor() {
        let mut ring = OutputRing::new(1024);
        ring.push(Category::Stdout, "line 0\n");
        ring.push(Category::Stderr, "oops\n");
        ring.push(Category::Stdout, "line 1\n");
        let all = ring.read(0, None, 10);
        assert_eq!(texts(&all), ["line 0\n", "oops\n", "line 1\n"]);
        assert_eq!((all.dropped, all.next_cursor, all.more), (0, 3, false));
        let out = ring.read(0, Some(Category::Stdout), 10);
        assert_eq!(texts(&out), ["line 0\n", "line 1\n"]);
        assert_eq!(ring.read(3, None, 10).entries.len(), 0);
    }

    #[test]
    fn limit_stops_early_and_says_so() {
        let mut ring = OutputRing::new(1024);
        for i in 0..5 {
            ring.push(Category::Stdout, &format!("{i}\n"));
        }
        let r = ring.read(1, None, 2);
        assert_eq!(texts(&r), ["1\n", "2\n"]);
        assert_eq!((r.next_cursor, r.more), (3, true));
    }

    #[test]
    fn oldest_entries_are_dropped_and_counted() {
        let mut ring = OutputRing::new(10);
        for i in 0..6 {
            ring.push(Category::Stdout, &format!("{i}{i}{i}\n")); // 4 bytes each
        }
        let r = ring.read(0, None, 100);
        assert_eq!(texts(&r), ["444\n", "555\n"]);
        assert_eq!(r.dropped, 4);
        assert_eq!(r.next_cursor, 6);
        assert_eq!((ring.first(), ring.evicted()), (4, (4, 16)));
    }

    #[test]
    fn crlf_from_a_pty_reads_as_lf_and_telemetry_is_dropped() {
        let mut ring = OutputRing::new(100);
        ring.push_terminal(Category::Stdout, "a\r\nb\r\n");
        assert_eq!(ring.read(0, None, 10).entries[0].text, "a\nb\n");
        // A read that ends between the two.
        ring.push_terminal(Category::Stdout, "c\r");
        ring.push_terminal(Category::Stdout, "\nd\r\n");
        assert_eq!(ring.read(1, None, 10).entries[0].text, "c\nd\n");
        // Not from a terminal: exactly as given.
        ring.push(Category::Stderr, "e\r\n");
        assert_eq!(ring.read(2, None, 10).entries[0].text, "e\r\n");
        assert_eq!(Category::from_dap(Some("telemetry")), None);
        assert_eq!(Category::from_dap(None), Some(Category::Console));
        assert_eq!(Category::from_dap(Some("important")), Some(Category::Console));
    }

    /// breaker2: `partial` is meant to be in the order its lines began, but a category whose line
    /// ends and whose next line begins in the same piece keeps its old place. The program wrote
    /// `a` (stdout), `b` (stderr), `\nc` (stdout), `\n` (stderr): stderr's `b` began before
    /// stdout's `c`, yet when stderr's line ends, stdout's `c` (still in the slot of `a`) is made
    /// an entry first, so the entries read `c` before `b`.
    #[test]
    fn a_line_begun_later_in_the_same_piece_does_not_overtake_another_streams_line() {
        let mut ring = OutputRing::default();
        ring.push(Category::Stdout, "a");
        ring.push(Category::Stderr, "b");
        ring.push(Category::Stdout, "\nc");
        ring.push(Category::Stderr, "\n");
        ring.flush();
        let entries: Vec<(Category, &str)> =
            ring.read(0, None, 10).entries.iter().map(|e| (e.category, e.text.as_str())).collect();
        assert_eq!(entries, [(Category::Stdout, "a\n"), (Category::Stderr, "b\n"), (Category::Stdout, "c")]);
    }

    #[test]
    fn tail_keeps_the_last_bytes_on_a_char_boundary() {
        let mut ring = OutputRing::new(100);
        ring.push(Category::Stdout, "héllo ");
        ring.flush();
        ring.push(Category::Stdout, "wörld");
        ring.flush();
        let (text, truncated, dropped) = ring.tail_since(0, 7);
        assert_eq!(text, " wörld");
        assert_eq!((truncated, dropped), (6, 0));
        // Read from the middle of the line: the label says it carries on one shown before.
        let (text, truncated, _) = ring.tail_since(1, 100);
        assert_eq!((text.as_str(), truncated), ("[stdout continued] wörld", 0));
    }

    #[test]
    fn pieces_of_a_line_become_one_entry_per_category() {
        let mut ring = OutputRing::new(100);
        ring.push(Category::Stdout, "line 2");
        ring.push(Category::Stderr, "to stderr");
        ring.push(Category::Stdout, "\n");
        ring.push(Category::Stderr, "\nnext");
        assert_eq!(texts(&ring.read(0, None, 10)), ["line 2\n", "to stderr\n"]);
        ring.flush();
        assert_eq!(texts(&ring.read(2, None, 10)), ["next"]);
    }

    #[test]
    fn one_entry_bigger_than_the_cap_keeps_its_end_and_counts_the_cut() {
        let mut ring = OutputRing::new(4);
        ring.push(Category::Stdout, "abcdef\n");
        let r = ring.read(0, None, 1);
        assert_eq!((r.entries[0].text.as_str(), r.entries[0].continues), ("def\n", true));
        assert_eq!((r.dropped, ring.evicted(), ring.first()), (1, (1, 3), 1), "the cut start is counted as dropped");
        // From a line start where one is in the kept part; what follows reads on as usual.
        let mut ring = OutputRing::new(8);
        ring.push(Category::Stdout, "one\ntwo\nthree\n");
        ring.push(Category::Stdout, "4\n");
        let r = ring.read(0, None, 10);
        assert_eq!(texts(&r), ["three\n", "4\n"]);
        assert!(!r.entries[0].continues);
        assert_eq!((r.dropped, ring.evicted()), (1, (1, 8)));
        assert_eq!(ring.tail_since(0, 100), ("three\n4\n".to_owned(), 0, 1));
    }
}
