//! The Debug Adapter Protocol side: framing (the hot path), message types, clients, adapters.

pub mod framing;
