//! Post-mortem sessions (`attach {core, program}`): the checks of the core file and the program,
//! the plan that opens the core in the adapter (`RuntimeQuirks::core_file`), what a core
//! session's results say of the crash (the adapter's own words), and the refusal of every call
//! that would run the program. Must not: read files except through [`Files`], or name a signal
//! the adapter's words do not name.
//!
//! What the two adapters do with a core, measured on the crash of `tests/native/core_dump.rs`:
//! lldb-dap 22.1.8 stops once with reason `entry` and the signal in `description`
//! ("SIGSEGV: address not mapped to object (fault address=0x0)"; CASES C14, llvm/llvm-project
//! PR#195352), answers `continue` with "elf-core does not support resuming processes" and a
//! `disconnect` that detaches with "elf-core does not support detaching from processes", while
//! one that ends the debuggee succeeds; Delve 1.20.2 stops once with reason `exception`,
//! description `runtime error` and text "can not continue execution of core process", naming
//! no signal, and answers `continue` with success and the same stop again.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::files::Files;
use super::plan::{dap_adapter_args, resolve_path, tool_error, AttachArgs};
use super::snapshot::PostMortem;
use super::{AdapterPlan, AttachStart, ErrorCode, Session, ToolResult};
use crate::config::{apply_override, command_of, Config};
use crate::dap::adapters::{self, elf, ResolveInput};

mod core_elf;

/// Bytes of a core read for its headers and notes ([`core_elf::inspect`]).
const CORE_HEAD: usize = 64 * 1024;

/// `e_type` of an ELF core file (System V ABI, "ELF Header").
const ET_CORE: u16 = 4;

/// The signature a minidump starts with (`MINIDUMP_HEADER.Signature`, "MDMP").
const MINIDUMP: &[u8] = b"MDMP";

/// Magic numbers of the compressions a core may be stored in (systemd-coredump: zstd by
/// default, lz4 and xz in older versions), with what to run before agentdap can read it.
const COMPRESSED: &[(&[u8], &str)] = &[
    (&[0x28, 0xb5, 0x2f, 0xfd], "zstd (`zstd -d`)"),
    (&[0x04, 0x22, 0x4d, 0x18], "lz4 (`lz4 -d`)"),
    (&[0xfd, b'7', b'z', b'X', b'Z', 0], "xz (`xz -d`)"),
    (&[0x1f, 0x8b], "gzip (`gunzip`)"),
];

/// The `e_type` of the ELF file whose first bytes are `header` (`None`: not ELF, or cut short).
fn elf_type(header: &[u8]) -> Option<u16> {
    if header.get(..4)? != elf::MAGIC {
        return None;
    }
    let b = [*header.get(16)?, *header.get(17)?];
    match header.get(5)? {
        2 => Some(u16::from_be_bytes(b)),
        _ => Some(u16::from_le_bytes(b)),
    }
}

/// The refusal for `path` (the `core` or `program` argument) when it is not what it must be:
/// an existing, readable regular file, and an ELF core or a minidump (`core`) or not a core
/// (`program`). `Ok(true)`: a minidump.
fn check_file(what: &str, path: &Path, files: &dyn Files) -> Result<bool, ToolResult> {
    let invalid = |msg: String| Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
    let shown = path.display();
    match files.is_file(path) {
        Ok(true) => {}
        Ok(false) => return invalid(format!("{what} {shown} is not a regular file; pass the {what} file itself.")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return invalid(format!(
                "{what} {shown} does not exist; pass an existing path (relative paths are taken against agentdap's working directory)."
            ))
        }
        Err(e) => return invalid(format!("{what} {shown} cannot be read: {e}.")),
    }
    let Some(header) = files.adapter_host().read_range(path, 0, 64) else {
        return invalid(format!(
            "{what} {shown} cannot be read (core files are often mode 0600, owned by the user whose program crashed)."
        ));
    };
    let kind = elf_type(&header);
    if what == "core" && header.starts_with(MINIDUMP) {
        return Ok(true);
    }
    if what == "core" && kind != Some(ET_CORE) {
        if let Some((_, how)) = COMPRESSED.iter().find(|(magic, _)| header.starts_with(magic)) {
            return invalid(format!(
                "core {shown} is compressed with {how}: decompress it first, or write it out with `coredumpctl dump <pid> --output core`."
            ));
        }
        return match kind {
            Some(_) => invalid(format!(
                "core {shown} is an ELF program, not a core file: pass the core dump as `core` and the binary as `program`."
            )),
            None => invalid(format!(
                "core {shown} is not a core file (a Linux core dump starts with \\x7fELF, a minidump with MDMP)."
            )),
        };
    }
    if what == "program" && (kind == Some(ET_CORE) || header.starts_with(MINIDUMP)) {
        return invalid(format!(
            "program {shown} is a core file: pass the binary that crashed as `program` and the core as `core`."
        ));
    }
    Ok(false)
}

/// What the core's own headers contradict: a file shorter than its segments (truncated: memory
/// past the end reads as errors), or a process name that is not the program's (the frames would
/// be read against another binary's code). Warnings, not refusals: the adapter still opens it.
fn core_warnings(core: &Path, program: &Path, host: &dyn adapters::Host) -> Vec<String> {
    let Some(head) = host.read_range(core, 0, CORE_HEAD) else { return Vec::new() };
    let facts = core_elf::inspect(&head);
    let mut out = Vec::new();
    if facts.headers_cut && head.len() < CORE_HEAD {
        out.push(format!(
            "core {} is truncated: it ends inside its own program headers, so its memory cannot be read (was it copied or written out completely?)",
            core.display()
        ));
    }
    if let Some(end) = facts.load_end.filter(|&e| e > 0) {
        if host.read_range(core, end - 1, 1).is_some_and(|b| b.is_empty()) {
            out.push(format!(
                "core {} is truncated: its headers describe {end} bytes and the file is shorter, so memory past its end reads as errors (was it copied or written out completely?)",
                core.display()
            ));
        }
    }
    let file_name = program.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if let Some(name) = facts.process_name.filter(|n| !core_elf::names_match(n, &file_name)) {
        out.push(format!(
            "core {} is of a process named `{}`, not `{file_name}`: if it is another program's core, its frames and values are read against the wrong binary",
            core.display(),
            crate::visible::escaped(&name)
        ));
    }
    out
}

/// Builds the plan for `attach {core, program}`: the adapter inferred from the program as
/// `launch` infers it (an ELF binary → lldb-dap, a Go one → Delve; `adapter` overrides), the
/// request and arguments its [`adapters::CoreOpen`] names, over the recipe's defaults for that
/// request, under `adapter_args`.
///
/// Errors (as tool results), all before anything is spawned: `invalid_argument` (`core`
/// without `program` or the other way round, with `pid`/`connect`/`breakpoints`, a missing,
/// unreadable or wrong file, an adapter not inferable), `unsupported` (an adapter with no way
/// to open a core here), `adapter_not_found`.
pub fn plan(args: &AttachArgs, config: &Config, files: &dyn Files) -> Result<(AdapterPlan, AttachStart), ToolResult> {
    let invalid = |msg: &str| Err(ToolResult::error(ErrorCode::InvalidArgument, msg.to_owned()));
    let (core, program) = match (&args.core, &args.program) {
        (Some(core), Some(program)) => (core, program),
        (Some(_), None) => {
            return invalid(
                "`core` needs `program`: the binary that dumped it (the core holds its memory, the binary its code and debug info).",
            )
        }
        _ => {
            return invalid(
                "`program` in attach names the binary of a core file: pass `core` too (to attach to a running program, pass `pid`).",
            )
        }
    };
    if args.pid.is_some() || args.connect.is_some() {
        return invalid("a core file is read, not attached to: pass `core` and `program` without `pid` or `connect`.");
    }
    if !args.breakpoints.is_empty() {
        return invalid(
            "a core file does not run, so breakpoints never hit: pass none, and read the crash with stack_trace and variables.",
        );
    }
    let core = resolve_path(core, None);
    let program = resolve_path(program, None);
    let minidump = check_file("core", &core, files)?;
    check_file("program", &program, files)?;
    let (core, program) = (core.to_string_lossy().into_owned(), program.to_string_lossy().into_owned());
    if let Some((name, _)) = args.adapter.as_deref().and_then(|n| config.by_name(n)) {
        let msg = format!(
            "agentdap does not know how the custom adapter `{name}` opens a core file; pass lldb (C, C++, Rust) or delve (Go)."
        );
        return Err(ToolResult::error(ErrorCode::Unsupported, msg));
    }
    let host = files.adapter_host();
    let kind = adapters::select_on(args.adapter.as_deref(), Some(&program), host).map_err(|e| tool_error(e, config))?;
    let runtime = kind.runtime_quirks();
    let Some(open) = runtime.core_file else {
        let msg = format!(
            "{} cannot open a core file in agentdap; pass adapter lldb (C, C++, Rust) or delve (Go).",
            kind.name()
        );
        return Err(ToolResult::error(ErrorCode::Unsupported, msg));
    };
    if minidump && !open.minidump {
        let msg = format!(
            "core {} is a minidump, which {} does not read; pass adapter lldb, or an ELF core of the program.",
            core,
            kind.name()
        );
        return Err(ToolResult::error(ErrorCode::Unsupported, msg));
    }
    let adapter_args = Value::Object(args.adapter_args.clone());
    let input = ResolveInput { adapter_args: Some(&adapter_args), cwd: None, js_debug: config.js_debug.as_deref() };
    let entry = config.override_of(kind);
    let mut recipe = adapters::recipe_with_command(kind, Some(Path::new(&program)), input, command_of(entry), host)
        .map_err(|e| tool_error(e, config))?;
    if let Some(entry) = entry {
        apply_override(&mut recipe, entry);
    }
    let defaults = if open.request == "launch" { &recipe.launch_defaults } else { &recipe.attach_defaults };
    let mut ours = Map::new();
    ours.insert("request".into(), open.request.into());
    ours.insert("program".into(), program.clone().into());
    ours.insert(open.core_key.into(), core.clone().into());
    for (k, v) in open.arguments {
        ours.insert((*k).into(), (*v).into());
    }
    let extra = dap_adapter_args(&args.adapter_args);
    let merged = adapters::merge_arguments(defaults, Some(&Value::Object(ours)));
    let mut notes = recipe.notes;
    if !minidump {
        notes.extend(core_warnings(Path::new(&core), Path::new(&program), host));
    }
    let plan = AdapterPlan {
        name: kind.name().to_owned(),
        kind: Some(kind),
        quirks: recipe.quirks,
        runtime,
        transport: recipe.transport,
        entry_function: None,
        scratch_dir: None,
        command: recipe.command,
        request: open.request,
        launch_arguments: adapters::merge_arguments(&merged, Some(&Value::Object(extra))),
        connect: None,
        notes,
    };
    let start = AttachStart {
        target: program.clone(),
        exception_filters: args.exception_filters.clone(),
        wait_ms: args.wait_ms,
        core: Some(PostMortem { core, program, below: None }),
        ..AttachStart::default()
    };
    Ok((plan, start))
}

impl Session {
    /// `Err(unsupported)` when this session reads a core file: `call` (as the agent wrote it)
    /// would run or change the program, and a core file cannot run. Checked before anything is
    /// sent (`postmortem_tests`).
    pub(in crate::session) fn require_live(&self, call: &str) -> Result<(), ToolResult> {
        let Some(pm) = &self.family.core else { return Ok(()) };
        Err(ToolResult::error(
            ErrorCode::Unsupported,
            format!(
                "a core file cannot run; `{call}` needs a live program ({} reads the core {} of {}). stack_trace, variables, evaluate and memory read it; `launch` the program to run it.",
                self.id, pm.core, pm.program
            ),
        ))
    }

    /// The signal the stop's own words name (`description`, then `text`), as
    /// `(name, number, which field)`; `None` when they name none.
    fn core_signal(&self) -> Option<(&'static str, i64, &'static str)> {
        let stop = self.run.stop.as_ref()?;
        [("description", &stop.description), ("text", &stop.text)].into_iter().find_map(|(key, words)| {
            let words = words.as_deref()?;
            super::events::fatal_signal(&json!({ key: words })).map(|(name, number)| (name, number, key))
        })
    }

    /// The line a core session's results add under the headline: what is read, and the crash
    /// in the adapter's words (passed through, escaped: `crate::visible`), with the signal they
    /// name or that they name none. `None` for a live session.
    pub(in crate::session) fn post_mortem_line(&self) -> Option<String> {
        let pm = self.family.core.as_ref()?;
        let mut line = format!("post-mortem: core {} of {} (it cannot run)", pm.core, pm.program);
        let Some(stop) = self.run.stop.as_ref().filter(|_| self.run.state == super::snapshot::RunState::Stopped) else {
            return Some(line);
        };
        let adapter = &self.link.adapter;
        let mut words = Vec::new();
        if let Some(d) = stop.description.as_deref().filter(|d| !d.is_empty()) {
            words.push(format!("description {}", crate::visible::quoted(d)));
        }
        if let Some(t) = stop.text.as_deref().filter(|t| !t.is_empty()) {
            words.push(format!("text {}", crate::visible::quoted(t)));
        }
        match words.is_empty() {
            true => line.push_str(&format!("\nthe crash: {adapter} gave the stop no description or text")),
            false => line.push_str(&format!("\nthe crash, in {adapter}'s stop words: {}", words.join(", "))),
        }
        match self.core_signal() {
            Some((name, number, from)) => {
                line.push_str(&format!("\nsignal: {name} ({number}), as the stop's {from} names it"));
                if stop.reason == "entry" {
                    line.push_str(&format!(
                        " ({adapter} reports a core's stop as reason `entry`, not as the signal: llvm/llvm-project PR#195352)"
                    ));
                }
            }
            None => line.push_str(&format!("\nsignal: not named by {adapter}'s stop words")),
        }
        if let Some(top) = &pm.below {
            line.push_str(&format!(
                "\n(the program's frame is shown: the crash's top frame is {top}, the runtime's; `stack_trace` lists the frames between)"
            ));
        }
        Some(line)
    }

    /// The runtime's frame-name prefix of a core's adapter (`CoreOpen::runtime_frames`).
    pub(in crate::session) fn core_runtime_frames(&self) -> Option<&'static str> {
        self.family.core.as_ref()?;
        self.link.plan.runtime.core_file.and_then(|c| c.runtime_frames)
    }

    /// Which of a core's crash `frames` the result shows: the first that is not the runtime's
    /// (the top one it stands for is kept for the post-mortem line), else the top frame.
    pub(in crate::session) fn core_shown_frame(&mut self, frames: &[crate::dap::requests::StackFrame]) -> usize {
        let Some(prefix) = self.core_runtime_frames() else { return 0 };
        let Some(i) = super::events::below_runtime(frames, prefix) else { return 0 };
        let top = frames.first().map(|f| super::snapshot::Location::from_stack_frame(f).short());
        if let Some(pm) = self.family.core.as_mut() {
            pm.below = top;
        }
        i
    }

    /// `post_mortem` of the snapshot: `{core, program, signal?, signal_number?, signal_from?}`.
    pub(in crate::session) fn post_mortem_json(&self) -> Option<Value> {
        let pm = self.family.core.as_ref()?;
        let mut v = json!({ "core": pm.core, "program": pm.program });
        if let Some((name, number, from)) = self.core_signal() {
            v["signal"] = name.into();
            v["signal_number"] = number.into();
            v["signal_from"] = format!("stop {from}").into();
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::elf_type;

    #[test]
    fn the_elf_type_is_read_in_the_files_byte_order() {
        let mut header = vec![0u8; 64];
        header[..4].copy_from_slice(b"\x7fELF");
        header[5] = 1;
        header[16] = 4;
        assert_eq!(elf_type(&header), Some(4));
        header[5] = 2;
        (header[16], header[17]) = (0, 2);
        assert_eq!(elf_type(&header), Some(2));
        assert_eq!(elf_type(b"\x7fELF"), None);
        assert_eq!(elf_type(&[0x28, 0xb5, 0x2f, 0xfd]), None);
    }
}
