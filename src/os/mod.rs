//! The operating system as the IO shell sees it: spawning and reaping child processes, their pipes and readiness, the watchdog, and bounded file and `/proc` reads; it holds no policy and speaks no protocol.
//!
//! Architecture Invariant: only `src/server/` and `src/os/` touch `mio`, file descriptors and
//! processes. The session layer asks for files through [`crate::session::Files`], which
//! [`files::OsFiles`] implements; the server hands it to `Sessions` at construction.

pub mod child;
pub mod files;
pub mod net;
pub mod proc_scan;
pub mod spawn;
pub mod watchdog;
