//! Handles minted by agentdap for frame ids and variable references (DAP § Types › Variable: valid
//! only while stopped): integers from one
//! counter, unique for the process lifetime, never reused, below 2^31, each tagged with what it
//! names and mapped to (session, adapter id, epoch). A handle from an older epoch is refused
//! before anything is sent to the adapter — lldb-dap reuses its ids at every stop, so a stale raw
//! id would silently answer with *current* data.
//!
//! Epochs: each session has one per area (`stacks` for frames, `variables` for variable
//! references). A resume bumps both; a DAP `invalidated` event bumps only the areas it names.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};

/// First handle handed out; small numbers are left free so a raw adapter id (often 1, 2, 3…)
/// passed by mistake is recognisably not a handle.
const FIRST: u32 = 1000;
/// Handles stay below 2^31 (DAP ids are JSON numbers clients often store in 32-bit ints).
const LIMIT: u32 = i32::MAX as u32;

/// What a handle names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A stack frame (`frameId`).
    Frame,
    /// A variables container (`variablesReference`).
    Variables,
}

impl Kind {
    fn area(self) -> usize {
        match self {
            Kind::Frame => 0,
            Kind::Variables => 1,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Frame => "frame",
            Kind::Variables => "variables reference",
        }
    }
}

/// Why a handle cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleError {
    /// agentdap never minted it (or forgot it with its session).
    Unknown,
    /// It names a frame where a variables reference is wanted, or the other way round.
    WrongKind { is: Kind },
    /// It belongs to another session.
    OtherSession,
    /// The program ran (or the adapter invalidated the area) since it was minted.
    Stale,
}

impl fmt::Display for HandleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandleError::Unknown => f.write_str("agentdap never handed out this id"),
            HandleError::WrongKind { is } => write!(f, "this id is a {}", is.as_str()),
            HandleError::OtherSession => f.write_str("this id belongs to another session"),
            HandleError::Stale => f.write_str("the program has run since this id was handed out"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    kind: Kind,
    adapter_id: i64,
    epoch: u64,
}

/// The one counter every session mints from: handles are unique across sessions and never
/// reused for the life of the process.
static NEXT: AtomicU32 = AtomicU32::new(FIRST);

/// One session's handles.
#[derive(Debug, Default)]
pub struct Handles {
    /// Current epoch per area (`stacks`, `variables`).
    epochs: [u64; 2],
    entries: HashMap<u32, Entry>,
    /// Dedupe within an epoch: the same adapter id asked twice gets the same handle.
    by_adapter_id: HashMap<(Kind, i64), u32>,
    /// How often the program ran ([`Handles::resumed`]); unlike the epochs, an `invalidated`
    /// event does not move it (lldb-dap 22 sends one, `areas: ["all"]`, for every `writeMemory`).
    resumes: u64,
}

impl Handles {
    pub fn new() -> Handles {
        Handles::default()
    }

    /// The handle for `adapter_id` of `kind` in the current epoch (the same handle when asked
    /// again before the epoch moves). `None` once 2^31 handles were minted by the process.
    pub fn mint(&mut self, kind: Kind, adapter_id: i64) -> Option<u32> {
        if let Some(&h) = self.by_adapter_id.get(&(kind, adapter_id)) {
            return Some(h);
        }
        let h = NEXT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| (n < LIMIT).then_some(n + 1)).ok()?;
        self.by_adapter_id.insert((kind, adapter_id), h);
        self.entries.insert(h, Entry { kind, adapter_id, epoch: self.epochs[kind.area()] });
        Some(h)
    }

    /// True when `handle` was minted by this session and is still remembered (live or stale).
    pub fn knows(&self, handle: i64) -> bool {
        u32::try_from(handle).is_ok_and(|h| self.entries.contains_key(&h))
    }

    /// The adapter id behind `handle`, if it is a live `kind` handle of this session.
    pub fn resolve(&self, kind: Kind, handle: i64) -> Result<i64, HandleError> {
        let h = u32::try_from(handle).map_err(|_| HandleError::Unknown)?;
        let Some(e) = self.entries.get(&h) else {
            // Minted once (handles are never reused) but forgotten since: it is stale.
            let minted = (FIRST..NEXT.load(Ordering::Relaxed)).contains(&h);
            return Err(if minted { HandleError::Stale } else { HandleError::Unknown });
        };
        if e.kind != kind {
            return Err(HandleError::WrongKind { is: e.kind });
        }
        if e.epoch != self.epochs[kind.area()] {
            return Err(HandleError::Stale);
        }
        Ok(e.adapter_id)
    }

    /// The program ran: every handle goes stale.
    pub fn resumed(&mut self) {
        self.resumes += 1;
        self.bump(&[Kind::Frame, Kind::Variables]);
    }

    /// How often the program ran since the session began.
    pub fn resumes(&self) -> u64 {
        self.resumes
    }

    /// A DAP `invalidated` event (DAP § Events: Invalidated): `areas` as the adapter sent them
    /// (`all`, `stacks`, `threads`, `variables`; none means `all`).
    pub fn invalidated(&mut self, areas: &[&str]) {
        let mut kinds = Vec::new();
        if areas.is_empty() || areas.contains(&"all") || areas.contains(&"stacks") || areas.contains(&"threads") {
            // Scopes hang off frames: their references go with them.
            kinds.extend([Kind::Frame, Kind::Variables]);
        } else if areas.contains(&"variables") {
            kinds.push(Kind::Variables);
        }
        self.bump(&kinds);
    }

    /// The current epoch of `kind`'s area: it moves at every resume (both areas) and with an
    /// `invalidated` event naming the area.
    pub fn epoch(&self, kind: Kind) -> u64 {
        self.epochs[kind.area()]
    }

    /// Handles currently remembered (for caps and tests).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn bump(&mut self, kinds: &[Kind]) {
        for k in kinds {
            self.epochs[k.area()] += 1;
        }
        self.by_adapter_id.retain(|(k, _), _| !kinds.contains(k));
        // Stale entries are kept as stale (the agent hears `target_invalidated`, not "unknown")
        // until the next bump of the same area: memory stays bounded by two epochs' worth.
        let epochs = self.epochs;
        self.entries.retain(|_, e| e.epoch + 1 >= epochs[e.kind.area()]);
    }
}

/// What the agent has been shown of the debuggee: handles, the threads it may name, the focus,
/// watches, and the variables fetched this revision.
#[derive(Default)]
pub struct View {
    /// Frame ids and variable references handed to the agent.
    pub(crate) handles: Handles,
    pub(crate) focus_thread: Option<i64>,
    /// Thread ids the agent may name: those of `threads` answers and of stops since (calls naming
    /// another are refused before anything is sent; empty: none known yet, the adapter decides).
    pub(crate) known_threads: Vec<i64>,
    /// Children of variable containers fetched this revision (adapter ref → revision, children):
    /// agentdap pages them itself, from one fetch per revision.
    pub(crate) var_cache: HashMap<i64, (u64, std::rc::Rc<Vec<serde_json::Value>>)>,
    /// The first children of containers fetched only for a preview (maybe not all of them;
    /// never served as a `variables` page). Cleared with `var_cache`.
    pub(crate) preview_cache: HashMap<i64, std::rc::Rc<Vec<serde_json::Value>>>,
    /// The frame each variables reference came from (adapter ref → the handles' variables
    /// epoch then, adapter frame id), for reading a change back by evaluation (`edit.rs`); an
    /// entry of an older epoch means nothing. At most `inspect::MAX_VAR_FRAMES` entries.
    pub(crate) var_frames: HashMap<i64, (u64, i64)>,
    /// Watch expressions (id, expression), evaluated by `context` and at stops.
    pub(crate) watches: Vec<(u32, String)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_unique_across_sessions_and_resolve_to_the_adapter_id() {
        let (mut s0, mut s1) = (Handles::new(), Handles::new());
        let a = s0.mint(Kind::Frame, 1).unwrap_or(0);
        let b = s0.mint(Kind::Variables, 1).unwrap_or(0);
        let c = s1.mint(Kind::Frame, 1).unwrap_or(0);
        assert!(a >= FIRST && a != b && b != c && a != c);
        assert_eq!(s0.mint(Kind::Frame, 1), Some(a), "same id, same epoch: same handle");
        assert_eq!(s0.resolve(Kind::Frame, a.into()), Ok(1));
        assert_eq!(s0.resolve(Kind::Variables, a.into()), Err(HandleError::WrongKind { is: Kind::Frame }));
        assert!(s0.knows(a.into()) && !s1.knows(a.into()));
        assert_eq!(s0.resolve(Kind::Frame, 7), Err(HandleError::Unknown));
        assert_eq!(s0.resolve(Kind::Frame, -1), Err(HandleError::Unknown));
    }

    #[test]
    fn a_resume_makes_every_handle_stale_and_reused_adapter_ids_get_new_handles() {
        let mut h = Handles::new();
        let frame = h.mint(Kind::Frame, 1).unwrap_or(0);
        let vars = h.mint(Kind::Variables, 5).unwrap_or(0);
        h.resumed();
        assert_eq!(h.resolve(Kind::Frame, frame.into()), Err(HandleError::Stale));
        assert_eq!(h.resolve(Kind::Variables, vars.into()), Err(HandleError::Stale));
        // lldb-dap hands out frame id 1 again at the next stop: a new handle, never the old one.
        let again = h.mint(Kind::Frame, 1).unwrap_or(0);
        assert_ne!(again, frame);
        assert_eq!(h.resolve(Kind::Frame, again.into()), Ok(1));
    }

    #[test]
    fn invalidated_drops_only_the_named_areas() {
        let mut h = Handles::new();
        let frame = h.mint(Kind::Frame, 1).unwrap_or(0);
        let vars = h.mint(Kind::Variables, 5).unwrap_or(0);
        h.invalidated(&["variables"]);
        assert_eq!(h.resolve(Kind::Frame, frame.into()), Ok(1));
        assert_eq!(h.resolve(Kind::Variables, vars.into()), Err(HandleError::Stale));
        h.invalidated(&[]);
        assert_eq!(h.resolve(Kind::Frame, frame.into()), Err(HandleError::Stale));
    }

    #[test]
    fn memory_stays_bounded_across_many_stops() {
        let mut h = Handles::new();
        let first = h.mint(Kind::Variables, 0).unwrap_or(0);
        for _ in 0..1000 {
            for id in 0..50 {
                h.mint(Kind::Variables, id);
            }
            h.resumed();
        }
        assert!(h.len() <= 100, "only the last two epochs are remembered, got {}", h.len());
        assert_eq!(
            h.resolve(Kind::Variables, first.into()),
            Err(HandleError::Stale),
            "a forgotten handle reads as stale"
        );
    }
}
