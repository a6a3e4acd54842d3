//! Typed DAP requests: one marker type per command agentdap sends (and per reverse request it
//! answers), with its argument and response-body shapes from the DAP specification. Pure data
//! and (de)serialisation; it never sends anything and holds no state ([`super::client`] sends).
//!
//! # The shape of a request
//!
//! A [`Request`] names its wire command ([`Request::COMMAND`]), what agentdap sends
//! ([`Request::Arguments`], serialised with `camelCase` keys and no `null`s: an optional field
//! that is `None` is left out) and what it reads back ([`Request::Response`]). The client's
//! typed entry is `DapClient::send::<R>(arguments, …)`; a response body is read with
//! [`Request::parse`].
//!
//! # Reading what adapters send
//!
//! Adapters deviate from the specification, and agentdap has always read their bodies field by
//! field with `body.get("…").and_then(Value::as_…)`: a field of the wrong type reads as absent,
//! a body that is missing reads as empty, unknown fields are ignored. The response types keep
//! that exactly, with two field kinds:
//!
//! - `Option<T>` (or `T: Default`) with [`lenient`]: a field agentdap only reads typed. Missing,
//!   `null` or of another type, it reads as `None` (or the default) — exactly
//!   `body.get(k).and_then(Value::as_…)`.
//! - [`Loose<T>`]: a field agentdap also passes on to the agent as the adapter sent it (a frame's
//!   `line`, a variable's `namedVariables`) or whose mere presence matters (`value` before
//!   `result`). It remembers absent / of type `T` / anything else verbatim.
//!
//! Lists of objects ([`lenient::items`]) keep every entry, an entry that is not an object reading
//! as the item's default (all fields absent), as `list[i].get(k)` did.

use std::fmt;

use serde::de::{DeserializeOwned, Deserializer, IgnoredAny};
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod breakpoints;
mod execution;
mod inspection;
pub mod lenient;
mod memory;
mod reverse;
mod session;

pub use breakpoints::*;
pub use execution::*;
pub use inspection::*;
pub use memory::*;
pub use reverse::*;
pub use session::*;

/// One DAP request agentdap sends (DAP § Base Protocol `Request`), as a marker type: the wire
/// command and the shapes of its arguments and of its response's `body`.
pub trait Request {
    /// The wire `command`, e.g. `"stackTrace"`.
    const COMMAND: &'static str;
    /// What goes in `arguments`. `()` for a request agentdap sends without `arguments`.
    type Arguments: Serialize;
    /// What is read from a successful response's `body`.
    type Response: DeserializeOwned + Default;

    /// The request's `arguments` as sent on the wire: `None` (the key left out) when they
    /// serialise to `null` (`()`), else the object.
    ///
    /// Errors: the arguments could not be serialised (a map with non-string keys; not
    /// possible for the types here).
    fn arguments(arguments: &Self::Arguments) -> Result<Option<Value>, serde_json::Error> {
        serde_json::to_value(arguments).map(|v| Some(v).filter(|v| !v.is_null()))
    }

    /// Reads a successful response's `body`. A missing or `null` body reads as the default
    /// (every field absent), as `body.get(…)` on `Value::Null` did.
    ///
    /// Errors: [`BodyError`] naming the command when the body does not have the response's
    /// shape — for the struct bodies here, only a body that is not an object (today's code
    /// reads such a body as empty: `R::parse(body).unwrap_or_default()` keeps that), a list
    /// included. [`NoBody`] and [`Capabilities`](crate::dap::protocol::Capabilities) accept any
    /// body but a list (which then reads as their default too).
    fn parse(body: Option<&Value>) -> Result<Self::Response, BodyError> {
        match body {
            None | Some(Value::Null) => Ok(Self::Response::default()),
            // serde would read a list positionally as a struct's fields: a list is not an
            // object, so it is a body of the wrong shape, as a nested one is (`lenient`).
            Some(Value::Array(_)) => {
                Err(BodyError { command: Self::COMMAND, reason: "the body is a list, not an object".to_owned() })
            }
            Some(v) => {
                Self::Response::deserialize(v).map_err(|e| BodyError { command: Self::COMMAND, reason: e.to_string() })
            }
        }
    }
}

/// A reverse request agentdap answers (DAP § Reverse Requests): what the adapter sends in
/// `arguments` and what agentdap puts in its response's `body`.
pub trait ReverseRequest {
    /// The wire `command`, e.g. `"runInTerminal"`.
    const COMMAND: &'static str;
    type Arguments: DeserializeOwned;
    /// `()` for a response without a body.
    type Response: Serialize;
}

/// A response body that could not be read as its command's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyError {
    pub command: &'static str,
    pub reason: String,
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the adapter's `{}` response body could not be read: {}", self.command, self.reason)
    }
}

/// A response body agentdap does not read (DAP gives most requests none): anything is accepted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoBody;

impl<'de> Deserialize<'de> for NoBody {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<NoBody, D::Error> {
        IgnoredAny::deserialize(d).map(|_| NoBody)
    }
}

/// A response field as the adapter sent it: absent, of the expected type `T`, or anything else
/// (kept verbatim). For fields agentdap passes on untouched or whose presence alone matters;
/// see the module documentation. Use with `#[serde(default)]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Loose<T> {
    /// The key was not there.
    #[default]
    Absent,
    /// Present, of the expected type.
    Typed(T),
    /// Present with another type, `null` included.
    Other(Value),
}

impl<T> Loose<T> {
    /// The value when it has the expected type (`body.get(k).and_then(Value::as_…)`).
    pub fn typed(&self) -> Option<&T> {
        match self {
            Loose::Typed(t) => Some(t),
            _ => None,
        }
    }

    /// Whether the key was there at all, whatever its value (`body.get(k).is_some()`).
    pub fn is_present(&self) -> bool {
        !matches!(self, Loose::Absent)
    }
}

impl<T: Serialize> Loose<T> {
    /// The value as the adapter sent it (`body.get(k).cloned()`); `None` when absent.
    pub fn raw(&self) -> Option<Value> {
        match self {
            Loose::Absent => None,
            // A value read as T writes back as the same JSON (T is a string or an integer).
            Loose::Typed(t) => serde_json::to_value(t).ok(),
            Loose::Other(v) => Some(v.clone()),
        }
    }
}

impl<'de, T: lenient::Exact> Deserialize<'de> for Loose<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Loose<T>, D::Error> {
        d.deserialize_any(lenient::LooseVisitor(std::marker::PhantomData))
    }
}

/// Declares the marker type of one request: `request!(Doc, Name, "command", Arguments, Response)`.
macro_rules! request {
    ($(#[$doc:meta])* $name:ident, $command:literal, $args:ty, $response:ty) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub enum $name {}

        impl $crate::dap::requests::Request for $name {
            const COMMAND: &'static str = $command;
            type Arguments = $args;
            type Response = $response;
        }
    };
}
use request;

#[cfg(test)]
mod tests;
