//! The requests that run the program: `continue`, `next`, `stepIn`, `stepOut`, `stepBack`,
//! `pause`, `gotoTargets` and `goto`.

use serde::{Deserialize, Serialize};

use super::{lenient, request, NoBody, Source};

request!(
    /// DAP § Requests › Continue.
    Continue, "continue", ContinueArguments, ContinueResponse
);

request!(
    /// DAP § Requests › Next: steps over one statement.
    Next, "next", NextArguments, NoBody
);

request!(
    /// DAP § Requests › StepIn.
    StepIn, "stepIn", StepInArguments, NoBody
);

request!(
    /// DAP § Requests › StepOut.
    StepOut, "stepOut", StepOutArguments, NoBody
);

request!(
    /// DAP § Requests › StepBack (when `supportsStepBack`).
    StepBack, "stepBack", StepBackArguments, NoBody
);

request!(
    /// DAP § Requests › Pause.
    Pause, "pause", PauseArguments, NoBody
);

request!(
    /// DAP § Requests › GotoTargets (when `supportsGotoTargetsRequest`): where a `goto` may jump.
    GotoTargets, "gotoTargets", GotoTargetsArguments, GotoTargetsResponse
);

request!(
    /// DAP § Requests › Goto: jumps to a target from `gotoTargets`; the program is resumed and
    /// stops again (a `stopped` event with reason `goto`).
    Goto, "goto", GotoArguments, NoBody
);

/// DAP § Requests › Continue `ContinueArguments`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueArguments {
    /// The thread to continue (all threads unless `singleThread`).
    pub thread_id: i64,
    /// If true, only `threadId` is continued (when `supportsSingleThreadExecutionRequests`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub single_thread: Option<bool>,
}

/// DAP § Requests › Continue response body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueResponse {
    /// False means only `threadId` was continued; missing means all threads were.
    #[serde(default, deserialize_with = "lenient::value")]
    pub all_threads_continued: Option<bool>,
}

/// DAP § Requests › Next `NextArguments` (`StepOutArguments` and `StepBackArguments` have the
/// same fields).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NextArguments {
    /// The thread to step (the others resume unless `singleThread`).
    pub thread_id: i64,
    /// If true, all other suspended threads stay suspended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub single_thread: Option<bool>,
    /// DAP § Types › SteppingGranularity: `statement` (default), `line` or `instruction`
    /// (when `supportsSteppingGranularity`); sent as the agent gave it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub granularity: Option<String>,
}

/// DAP § Requests › StepOut `StepOutArguments`: the fields of [`NextArguments`].
pub type StepOutArguments = NextArguments;
/// DAP § Requests › StepBack `StepBackArguments`: the fields of [`NextArguments`].
pub type StepBackArguments = NextArguments;

/// DAP § Requests › StepIn `StepInArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepInArguments {
    /// The thread to step.
    pub thread_id: i64,
    /// If true, all other suspended threads stay suspended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub single_thread: Option<bool>,
    /// The id of a target from `stepInTargets` to step into.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_id: Option<i64>,
    /// DAP § Types › SteppingGranularity, as for [`NextArguments::granularity`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub granularity: Option<String>,
}

/// DAP § Requests › Pause `PauseArguments`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PauseArguments {
    /// The thread to pause (agentdap sends `0` when it knows none; adapters pause all).
    pub thread_id: i64,
}

/// DAP § Requests › GotoTargets `GotoTargetsArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GotoTargetsArguments {
    /// The source location for which the goto targets are determined.
    pub source: Source,
    /// The line location for which the goto targets are determined.
    pub line: u32,
    /// The position within `line` for which the goto targets are determined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

/// DAP § Requests › GotoTargets response body.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GotoTargetsResponse {
    /// The possible goto targets of the specified location. Missing or not a list reads as
    /// empty; an entry that is not an object reads as a target with nothing known.
    #[serde(default, deserialize_with = "lenient::items")]
    pub targets: Vec<GotoTarget>,
}

/// DAP § Types › GotoTarget: the fields agentdap reads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GotoTarget {
    /// Unique identifier for a goto target, used in the `goto` request.
    #[serde(default, deserialize_with = "lenient::value")]
    pub id: Option<i64>,
    /// The name of the goto target (shown in the UI).
    #[serde(default, deserialize_with = "lenient::value")]
    pub label: Option<String>,
    /// The line of the goto target.
    #[serde(default, deserialize_with = "lenient::value")]
    pub line: Option<u64>,
}

/// DAP § Requests › Goto `GotoArguments`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GotoArguments {
    /// Set the goto target for this thread.
    pub thread_id: i64,
    /// The location where the debuggee will continue to run.
    pub target_id: i64,
}
