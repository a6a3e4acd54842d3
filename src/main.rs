//! The dapmux binary: arguments, logging to stderr, then the server. Nothing here speaks a protocol.

fn main() {
    println!("dapmux {}", env!("CARGO_PKG_VERSION")); // stdout-ok: version only, no server yet
}
