//! The Debug Adapter Protocol side: framing (the hot path), message types, clients, adapters.

pub mod adapters;
pub mod client;
pub mod command;
pub mod framing;
pub mod protocol;
pub mod requests;
#[cfg(test)]
pub mod scripted;
pub mod tcp;
