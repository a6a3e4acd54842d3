//! What the `attach` tool reaches through an adapter ([`AttachEndpoint`]: a DAP server, or the
//! debuggee's own endpoint found on its command line), as data with the small pure functions
//! that read it; must not: hold one adapter's values or do any IO.

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

#[cfg(test)]
mod tests {
    use super::*;

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
