//! What the `attach` tool reaches through an adapter ([`AttachEndpoint`]: a DAP server, or the
//! debuggee's own endpoint found on its command line) and how an adapter that attaches by pid
//! through a helper process reports that helper's failure ([`AttachHelperFailure`]), as data
//! with the small pure functions that read it; must not: hold one adapter's values or do any IO.

/// A signal agentdap sends a debuggee, by name: the IO shell maps it to the platform's number
/// (this layer touches no OS API).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebuggeeSignal {
    /// `SIGUSR1` (Node.js: open the inspector on its `--inspect-port`, default 9229; nodejs.org
    /// "Debugging Guide", "Enable Inspector").
    Usr1,
}

/// What the `attach` tool's `connect {host, port}` and `pid` reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttachEndpoint {
    /// `connect` names a DAP server (`python -m debugpy --listen`): agentdap connects to it and
    /// spawns nothing. `pid` is sent to the adapter under
    /// [`Quirks::attach_pid_key`](super::Quirks::attach_pid_key), and the
    /// adapter attaches by ptrace.
    DapServer,
    /// `connect` names the debuggee's own debug endpoint (Node's inspector, `node --inspect`):
    /// agentdap spawns the adapter as for a launch and names the address in the DAP `attach`
    /// arguments. `pid`: the same, at the endpoint the process's command line names, else at
    /// `127.0.0.1:default_port` after agentdap sends it `pid_signal` (which opens the endpoint);
    /// no ptrace.
    DebuggeeEndpoint {
        /// The `attach` argument for the host (an IP literal).
        host_key: &'static str,
        /// The `attach` argument for the port.
        port_key: &'static str,
        /// Sent to the process before an attach by pid (Node: `SIGUSR1`, which ends most other
        /// programs: the process must be checked first).
        pid_signal: Option<DebuggeeSignal>,
        /// Where the endpoint listens when the command line names no port.
        default_port: u16,
        /// Command-line flags naming the endpoint as `<flag>=<port>` or `<flag>=<host>:<port>`
        /// (a bare `<flag>` means the default port).
        endpoint_flags: &'static [&'static str],
        /// Those of them that only choose the port and open nothing (Node's `--inspect-port`).
        port_only_flags: &'static [&'static str],
    },
}

/// Options of a runtime's command line whose value is the next argument (`node -r ./setup.js
/// --inspect app.js`): skipped while looking for the endpoint flags before the script.
const VALUE_OPTIONS: &[&str] = &["-r", "--require", "--import", "--loader", "--experimental-loader", "--env-file"];

impl AttachEndpoint {
    /// Where a process's command line (`/proc/<pid>/cmdline`: NUL-separated, the executable
    /// first) says its debug endpoint listens, by the last of the
    /// [`AttachEndpoint::DebuggeeEndpoint`] `endpoint_flags` before the script: `--inspect=9230`,
    /// `--inspect-brk=127.0.0.1:9230`, `--inspect-port=[::1]:9230`, or a bare `--inspect` (the
    /// default port). The host is `None` when none is named (`localhost` is 127.0.0.1; a host that
    /// is not an IP literal is `None` too). `None` when no flag names it, or for
    /// [`AttachEndpoint::DapServer`]. Arguments after the script belong to the program.
    pub fn on_command_line(&self, cmdline: &[u8]) -> Option<(Option<std::net::IpAddr>, u16)> {
        let AttachEndpoint::DebuggeeEndpoint { endpoint_flags, default_port, .. } = *self else { return None };
        let mut found = None;
        for (flag, value) in options_before_script(cmdline) {
            if !endpoint_flags.contains(&flag.as_str()) {
                continue;
            }
            let Some(value) = value else {
                found = Some(found.map_or((None, default_port), |f| f));
                continue;
            };
            let (host, port) = match value.rsplit_once(':') {
                Some((h, p)) => (ip_literal(h), p),
                None => (None, value.as_str()),
            };
            if let Ok(port) = port.parse::<u16>() {
                found = Some((host, port));
            }
        }
        found
    }

    /// Whether the command line opened the endpoint: one of the `endpoint_flags` that is not
    /// among the `port_only_flags` (`node --inspect-port=9230 app.js` only chooses the port
    /// `SIGUSR1` opens).
    pub fn opened_on_command_line(&self, cmdline: &[u8]) -> bool {
        let AttachEndpoint::DebuggeeEndpoint { endpoint_flags, port_only_flags, .. } = *self else { return false };
        options_before_script(cmdline)
            .any(|(flag, _)| endpoint_flags.contains(&flag.as_str()) && !port_only_flags.contains(&flag.as_str()))
    }
}

/// The runtime's options of a command line (`/proc/<pid>/cmdline`: NUL-separated, the executable
/// first) before the script, as `(flag, value after '=')`; the values of [`VALUE_OPTIONS`] are
/// skipped. Arguments after the script belong to the program.
fn options_before_script(cmdline: &[u8]) -> impl Iterator<Item = (String, Option<String>)> + '_ {
    let mut args = cmdline.split(|b| *b == 0).skip(1).map(|a| String::from_utf8_lossy(a).into_owned());
    std::iter::from_fn(move || loop {
        let arg = args.next()?;
        if !arg.starts_with('-') || arg == "--" {
            return None;
        }
        if VALUE_OPTIONS.contains(&arg.as_str()) {
            args.next();
            continue;
        }
        return Some(match arg.split_once('=') {
            Some((f, v)) => (f.to_owned(), Some(v.to_owned())),
            None => (arg, None),
        });
    })
}

/// An IP literal (brackets allowed) or `localhost`; never a DNS lookup.
fn ip_literal(host: &str) -> Option<std::net::IpAddr> {
    if host.eq_ignore_ascii_case("localhost") {
        return Some(std::net::Ipv4Addr::LOCALHOST.into());
    }
    host.trim_start_matches('[').trim_end_matches(']').parse().ok()
}

/// How an adapter that attaches by pid through a helper process says the helper failed, while
/// its `attach` request stays unanswered. debugpy 1.8.22 (`debugpy/adapter/servers.py`
/// `inject`): `attach {processId}` runs `python -m debugpy --connect … --pid <pid>`, whose pydevd
/// injects the debug server with gdb (`add_code_to_python_process.py`); the helper's stdout and
/// stderr go into one pipe the adapter collects. When the helper exits non-zero, the adapter
/// sends the `stderr` event [`AttachHelperFailure::marker`], then one `stderr` event with what
/// it collected since it last showed any (all of it, unless the helper ran over 10 s and the
/// adapter streamed it meanwhile as `stderr` events), and then waits 60 s for a debug server
/// that never comes before it answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttachHelperFailure {
    /// The helper, as the agent is told (`its injector (gdb, run by python -m debugpy --pid)`).
    pub helper: &'static str,
    /// What the helper's output is named in a message (`the injector's output`: gdb's words,
    /// and its shell's when gdb is not there).
    pub output_name: &'static str,
    /// What the helper does to the process, said with what became of it (`the injector … stops
    /// the process and calls functions in it`).
    pub harm: &'static str,
    /// The text of the `output` event (category `stderr`) that says the helper failed, at its
    /// start; the next `stderr` event is the end of the helper's output.
    pub marker: &'static str,
    /// The start of the adapter's own news while the helper runs, sent as `stdout` events
    /// (debugpy: `Attaching to PID: 4242 (elapsed: 1.02s).` every second): the adapter's
    /// output, not the program's.
    pub progress: &'static str,
    /// The start of the adapter's own error line in the helper's output (debugpy's log:
    /// `E+00001.470: Code injection into PID=… failed:`, then its traceback, indented); what
    /// precedes it is the debugger's.
    pub error_line: &'static str,
    /// Lines that hold one of these are the helper's and the debugger's routine, printed on every
    /// attach, failed or not (the adapter's header, gdb 13.1's notes on threads, auto-loading and
    /// the architecture): left out of the debugger's words. Text not listed is always shown, so
    /// a debugger version that says more shows more, never less.
    pub routine: &'static [&'static str],
}

/// What an [`AttachHelperFailure`] report says, in the debugger's and the adapter's words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HelperWords {
    /// The debugger's lines that are not its routine (first seen order, no repeats, each at
    /// most `HELPER_LINE_CHARS`), at most `HELPER_LINES` of them: the last ones.
    pub debugger: Vec<String>,
    /// Lines of the debugger's that were left out for `HELPER_LINES`.
    pub debugger_left_out: usize,
    /// The adapter's error line without its log prefix, then the last line of its traceback
    /// (the exception), middle cut to `HELPER_LINE_CHARS`.
    pub adapter: Vec<String>,
}

/// Most characters of one line of a helper's report shown (debugpy's exception names gdb's whole
/// command line, thousands of characters).
pub const HELPER_LINE_CHARS: usize = 240;
/// Most lines of the debugger's words shown.
pub const HELPER_LINES: usize = 6;

impl AttachHelperFailure {
    /// Whether `text` (an `output` event's) is the adapter saying the helper failed.
    pub fn is_marker(&self, text: &str) -> bool {
        text.trim_start().starts_with(self.marker)
    }

    /// The words in `report`, the helper's collected output.
    pub fn words(&self, report: &str) -> HelperWords {
        let lines: Vec<&str> = report.lines().collect();
        let error_at = lines.iter().position(|l| l.starts_with(self.error_line)).unwrap_or(lines.len());
        let mut words = HelperWords::default();
        let mut seen: Vec<&str> = Vec::new();
        for line in lines[..error_at].iter().map(|l| l.trim()) {
            if line.is_empty() || is_gdb_stop_location(line) || self.routine.iter().any(|r| line.contains(r)) {
                continue;
            }
            if !seen.contains(&line) {
                seen.push(line);
            }
        }
        words.debugger_left_out = seen.len().saturating_sub(HELPER_LINES);
        words.debugger = seen[words.debugger_left_out..].iter().map(|l| clip_middle(l)).collect();
        if let Some(first) = lines.get(error_at) {
            // `E+00001.470: <message>`: the message, without the level and the time.
            let message = first.split_once(": ").map_or(*first, |(_, m)| m).trim();
            words.adapter.push(clip_middle(message));
            if let Some(exception) = python_exception(&lines[error_at + 1..]) {
                words.adapter.push(clip_middle(exception));
            }
        }
        words
    }
}

/// The exception line of the last Python traceback in `lines`: the first line after its
/// `Traceback (most recent call last):` indented as that header is (its frames are indented
/// further; debugpy's log indents the whole traceback); else the last line with text.
fn python_exception<'a>(lines: &[&'a str]) -> Option<&'a str> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let last_text = || lines.iter().rev().map(|l| l.trim()).find(|l| !l.is_empty());
    let Some(header) = lines.iter().rposition(|l| l.trim() == "Traceback (most recent call last):") else {
        return last_text();
    };
    let at = indent(lines[header]);
    lines[header + 1..].iter().find(|l| !l.trim().is_empty() && indent(l) == at).map(|l| l.trim()).or_else(last_text)
}

/// Whether `line` is gdb telling where it stopped the process it attached to (GDB manual,
/// "Frame Info": `<function> (<args>) at <file>:<line>`, `0x<address> in <function> (<args>)
/// …`), or the source line it prints after that (`<line>\t<text>`, or why the text is missing).
fn is_gdb_stop_location(line: &str) -> bool {
    let address = line.strip_prefix("0x").is_some_and(|r| {
        let hex = r.bytes().take_while(u8::is_ascii_hexdigit).count();
        hex > 0 && r[hex..].starts_with(" in ")
    });
    let frame = line.contains(" (") && line.contains(") at ") && {
        let tail = line.rsplit(':').next().unwrap_or("");
        !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit())
    };
    let source = {
        let digits = line.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && line[digits..].starts_with('\t')
    };
    address || frame || source
}

/// `line` cut in its middle to `HELPER_LINE_CHARS` (its start names what failed, its end how).
fn clip_middle(line: &str) -> String {
    let n = line.chars().count();
    if n <= HELPER_LINE_CHARS {
        return line.to_owned();
    }
    let head: String = line.chars().take(HELPER_LINE_CHARS * 2 / 3).collect();
    let tail: String = line.chars().skip(n - HELPER_LINE_CHARS / 3).collect();
    format!("{head} … {tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// debugpy 1.8.22's report of a failed injection with gdb 13.1 on Linux 6.18 (its second
    /// `stderr` event after "Attach to PID failed."), paths and gdb's command line shortened.
    const DEBUGPY_REPORT: &str = "--- Starting attach to pid: 4242 ---\n\
        0.00s - Debugger warning: It seems that frozen modules are being used, which may\n\
        0.00s - make the debugger miss breakpoints. Please pass -Xfrozen_modules=off\n\
        0.00s - to python to disable frozen modules.\n\
        0.00s - Note: Debugging will proceed. Set PYDEVD_DISABLE_FILE_VALIDATION=1 to disable this validation.\n\
        PYDEVD_GDB_SCAN_SHARED_LIBRARIES not set (scanning all libraries for needed symbols).\n\
        Running: gdb --nw --nh --nx --pid 4242 --batch --eval-command='call (int)DoAttach(0, \"import sys\", 0)'\n\
        [Thread debugging using libthread_db enabled]\n\
        Using host libthread_db library \"/lib/x86_64-linux-gnu/libthread_db.so.1\".\n\
        __GI___clock_nanosleep (clock_id=clock_id@entry=1, flags=flags@entry=1, req=req@entry=0x7ffe7c9933f0, \
        rem=rem@entry=0x0) at ../sysdeps/unix/sysv/linux/clock_nanosleep.c:71\n\
        71\t../sysdeps/unix/sysv/linux/clock_nanosleep.c: No such file or directory.\n\
        warning: File \"/usr/bin/python3.11-gdb.py\" auto-loading has been declined by your `auto-load safe-path' \
        set to \"$debugdir:$datadir/auto-load\".\n\
        To enable execution of this file add\n\
        \tadd-auto-load-safe-path /usr/bin/python3.11-gdb.py\n\
        line to your configuration file \"/home/u/.config/gdb/gdbinit\".\n\
        To completely disable this security protection add\n\
        \tset auto-load safe-path /\n\
        line to your configuration file \"/home/u/.config/gdb/gdbinit\".\n\
        For more information about this security protection see the\n\
        \"Auto-loading safe path\" section in the GDB manual.  E.g., run from the shell:\n\
        \tinfo \"(gdb)Auto-loading safe path\"\n\
        The target architecture is set to \"auto\" (currently \"i386:x86-64\").\n\
        Couldn't write extended state status: Bad address.\n\
        Couldn't write extended state status: Bad address.\n\
        No symbol \"DoAttach\" in current context.\n\
        [Inferior 1 (process 4242) detached]\n\
        E+00001.217: Code injection into PID=4242 failed:\n\
        \x20            \n\
        \x20            Traceback (most recent call last):\n\
        \x20              File \"/venv/debugpy/server/cli.py\", line 528, in attach_to_pid\n\
        \x20                add_code_to_python_process.run_python_code(\n\
        \x20            subprocess.CalledProcessError: Command 'gdb --nw --pid 4242' returned non-zero exit status 1.\n\
        \x20            \n\
        \x20            Stack where logged:\n\
        \x20              File \"/venv/debugpy/common/log.py\", line 228, in reraise_exception\n\
        \x20                _exception(format_string, *args, **kwargs)\n\
        \x20            \n\
        \n\
        Traceback (most recent call last):\n\
        \x20 File \"<frozen runpy>\", line 198, in _run_module_as_main\n\
        \x20   raise CalledProcessError(retcode, cmd)\n\
        subprocess.CalledProcessError: Command 'gdb --nw --pid 4242' returned non-zero exit status 1.\n";

    #[test]
    fn a_failed_injection_reads_as_gdbs_words_then_debugpys() {
        let words = crate::dap::adapters::debugpy::INJECTOR_FAILURE.words(DEBUGPY_REPORT);
        assert_eq!(
            words,
            HelperWords {
                debugger: vec![
                    "Couldn't write extended state status: Bad address.".to_owned(),
                    "No symbol \"DoAttach\" in current context.".to_owned(),
                ],
                debugger_left_out: 0,
                adapter: vec![
                    "Code injection into PID=4242 failed:".to_owned(),
                    "subprocess.CalledProcessError: Command 'gdb --nw --pid 4242' returned non-zero exit status 1."
                        .to_owned(),
                ],
            }
        );
        // Only the plain traceback's frames, or only the logged one, give the same exception.
        let logged_only = DEBUGPY_REPORT.split("\n\nTraceback").next().unwrap_or_default();
        let words = crate::dap::adapters::debugpy::INJECTOR_FAILURE.words(logged_only);
        assert_eq!(
            words.adapter[1],
            "subprocess.CalledProcessError: Command 'gdb --nw --pid 4242' returned non-zero exit status 1."
        );
        assert!(crate::dap::adapters::debugpy::INJECTOR_FAILURE.is_marker("Attach to PID failed.\n\n"));
    }

    #[test]
    fn a_helpers_unknown_lines_are_shown_cut_and_the_last_ones_kept() {
        let helper = AttachHelperFailure {
            helper: "h",
            output_name: "its output",
            harm: "",
            marker: "failed",
            progress: "",
            error_line: "E+",
            routine: &["noise"],
        };
        // No error line (a report cut short): everything not routine is the debugger's.
        let long = "x".repeat(1000);
        let report = format!("noise 1\n/bin/sh: 1: gdb: not found\n{long}\na\nb\nc\nd\ne\n0x00007f57e90fdbd3 in __GI___wait4 (pid=-1) at wait4.c:30\n");
        let words = helper.words(&report);
        assert_eq!(words.debugger_left_out, 1);
        assert_eq!(words.debugger.len(), HELPER_LINES);
        assert_eq!(words.debugger[0].chars().count(), HELPER_LINE_CHARS + 3);
        assert!(words.debugger[0].contains(" … "));
        assert_eq!(words.debugger[5], "e");
        assert!(words.adapter.is_empty());
        assert_eq!(helper.words("").debugger, Vec::<String>::new());
    }

    #[test]
    fn an_inspector_address_is_read_from_the_command_line_before_the_script() {
        let node = crate::dap::adapters::jsdebug::quirks().attach_endpoint;
        let at = |cmdline: &str| node.on_command_line(cmdline.replace(' ', "\0").as_bytes());
        let local = |port| Some((Some(std::net::Ipv4Addr::LOCALHOST.into()), port));
        assert_eq!(at("node app.js"), None);
        assert_eq!(at("node --inspect app.js"), Some((None, 9229)));
        assert_eq!(at("node --inspect=9230 app.js"), Some((None, 9230)));
        assert_eq!(at("/usr/bin/node --inspect-brk=127.0.0.1:9231 app.js"), local(9231));
        assert_eq!(at("node --inspect-port=localhost:9232 --inspect app.js"), local(9232));
        assert_eq!(at("node --inspect=[::1]:9233 app.js"), Some((Some(std::net::Ipv6Addr::LOCALHOST.into()), 9233)));
        assert_eq!(
            at("node --inspect=0.0.0.0:9234 app.js"),
            Some((Some(std::net::Ipv4Addr::UNSPECIFIED.into()), 9234))
        );
        assert_eq!(at("node -r ./setup.js --inspect=9235 app.js"), Some((None, 9235)));
        // The program's own arguments, and flags of other runtimes, are not Node's.
        assert_eq!(at("node app.js --inspect=9236"), None);
        assert_eq!(at("node --inspect=notaport app.js"), None);
        assert_eq!(AttachEndpoint::DapServer.on_command_line(b"node\0--inspect"), None);
        // `--inspect-port` chooses the port SIGUSR1 opens, and opens nothing itself.
        let opened = |cmdline: &str| node.opened_on_command_line(cmdline.replace(' ', "\0").as_bytes());
        assert_eq!(at("node --inspect-port=9237 app.js"), Some((None, 9237)));
        assert!(!opened("node --inspect-port=9237 app.js") && !opened("node app.js --inspect"));
        assert!(opened("node --inspect-port=9237 --inspect app.js") && opened("node --inspect-brk=9238 app.js"));
    }
}
