//! How an adapter opens a core file for post-mortem debugging ([`CoreOpen`], the data of
//! `RuntimeQuirks::core_file`); must not know about sessions or read any file.

/// The DAP request and arguments that make an adapter load a core file with the program that
/// dumped it (`attach {core, program}`, `session/postmortem.rs`). Both adapters that have one
/// take the binary as `program`; what differs is the request and the core's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoreOpen {
    /// The request: lldb-dap 22 `attach`, Delve 1.20 `launch`.
    pub request: &'static str,
    /// The argument naming the core file: lldb-dap `coreFile`, Delve `coreFilePath`.
    pub core_key: &'static str,
    /// Arguments sent besides `program` and the core (Delve: `mode: core`).
    pub arguments: &'static [(&'static str, &'static str)],
    /// It also reads a minidump (`MDMP`: what LLDB's `process save-core` writes on Linux by
    /// default), not only an ELF core.
    pub minidump: bool,
    /// The name prefix of the runtime's own frames above the program's at a crash, skipped to
    /// show the program's frame (Delve 1.20, Go 1.19: a core's stop is in `runtime.raise`, the
    /// program's frame some ten frames down; `tests/native/core_dump.rs`). `None`: the top frame.
    pub runtime_frames: Option<&'static str>,
}
