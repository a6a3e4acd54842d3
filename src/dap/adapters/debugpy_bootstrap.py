# agentdap debugpy fast path. Runs debugpy's adapter exactly as `python -m debugpy.adapter` would
# (same sys.argv, run as __main__), after tuning the TCP sockets of the adapter's own DAP streams:
# TCP_NODELAY on each, and TCP_QUICKACK before each read. Only the adapter process that agentdap
# starts runs this; the debuggee (the user's program) and its sockets are never touched.
#
# Why: pydevd (inside the debuggee) writes each message's header and body with two sendall()
# calls on a socket with Nagle on, so the body waits until the adapter ACKs the header, and the
# adapter's kernel delays that ACK by ~40 ms. Quick-acking on the adapter's side releases the
# body at once; TCP_NODELAY on the adapter's side keeps its own writes from waiting for ACKs.
#
# When it stands aside (debugpy too old or already fixed, patch point missing) it prints one line
# "agentdap-fastpath: off: <why>" to stderr before the adapter starts (the adapter points
# sys.stderr at /dev/null in stdio mode afterwards); agentdap shows it as `adapter` output.
import sys


def _agentdap_fastpath():
    # Versions known to be affected: 1.0 up to (not including) FIXED_IN; None = no fix released.
    FIXED_IN = None
    MARK = "agentdap-fastpath:"

    def say(text):
        try:
            sys.stderr.write(MARK + " " + text + "\n")
            sys.stderr.flush()
        except Exception:
            pass

    import socket

    import debugpy

    version = str(getattr(debugpy, "__version__", "0"))
    try:
        from debugpy.common import messaging
    except ImportError:
        messaging = None

    def parse(v):
        out = []
        for part in v.split("+")[0].split(".")[:3]:
            digits = ""
            for ch in part:
                if not ch.isdigit():
                    break
                digits += ch
            out.append(int(digits or 0))
        return tuple(out)

    if parse(version) < (1, 0):
        say("off: debugpy %s is older than 1.0" % version)
        return
    if FIXED_IN is not None and parse(version) >= parse(FIXED_IN):
        say("off: debugpy %s sets TCP_NODELAY itself" % version)
        return
    if _upstream_fixed(debugpy):
        say("off: debugpy %s already sets TCP_NODELAY in pydevd" % version)
        return
    import inspect

    stream_class = getattr(messaging, "JsonIOStream", None)
    original = getattr(stream_class, "from_socket", None)
    nodelay = getattr(socket, "TCP_NODELAY", None)
    is_classmethod = isinstance(inspect.getattr_static(stream_class, "from_socket", None), classmethod)
    if original is None or not is_classmethod or nodelay is None:
        say("off: patch point missing in debugpy %s" % version)
        return
    quickack = getattr(socket, "TCP_QUICKACK", None)

    class QuickAckSocket(socket.socket):
        # Same layout as socket.socket, so an existing socket's class can be switched to it.
        __slots__ = ()

        def recv_into(self, *args, **kwargs):
            # Linux turns quick-ack off again after it sends data; re-arming it before every
            # read also flushes an ACK the kernel is holding back for data already read.
            try:
                self.setsockopt(socket.IPPROTO_TCP, quickack, 1)
            except OSError:
                pass
            return socket.socket.recv_into(self, *args, **kwargs)

    def tune(sock):
        if not isinstance(sock, socket.socket) or sock.type != socket.SOCK_STREAM:
            return
        if sock.family not in (socket.AF_INET, socket.AF_INET6):
            return
        try:
            sock.setsockopt(socket.IPPROTO_TCP, nodelay, 1)
        except OSError:
            return
        if quickack is not None and type(sock) is socket.socket:
            sock.__class__ = QuickAckSocket

    def from_socket(cls, sock, *args, **kwargs):
        tune(sock)
        stream = original.__func__(cls, sock, *args, **kwargs)
        try:
            # The fast exit (below) half-closes this socket; the stream keeps only a wrapper.
            stream._agentdap_socket = sock
        except Exception:
            pass
        return stream

    stream_class.from_socket = classmethod(from_socket)
    # Start-up trims and the fast exit (below): each stands aside on its own when its patch
    # point is missing.
    for trim in (_lazy_environment, _fast_launcher, _fast_exit):
        try:
            trim(debugpy)
        except Exception:
            pass
    # Silent when on: this line would otherwise open every launch's output the agent reads.


def _lazy_environment(debugpy):
    # debugpy's adapter, launcher and server each call log.describe_environment() at start-up,
    # which builds a report of sys.path and every installed distribution (importlib.metadata,
    # ~40 ms) even when no log file will record it. Build it only when some log file records
    # "info" (DEBUGPY_LOG_DIR, --log-dir, --log-stderr): the same log text, no wasted work.
    from debugpy.common import log

    original = getattr(log, "describe_environment", None)
    if not callable(original) or not isinstance(getattr(log, "_levels", None), (set, frozenset)):
        return

    def describe_environment(header):
        if "info" in log._levels:
            original(header)

    log.describe_environment = describe_environment


# Run by the launcher process (debugpy's own process that starts the debuggee) as
# `<python> -c LAUNCHER <launcher dir> <port> -- <debuggee args>`: the same as
# `<python> <launcher dir> ...` with the environment report made lazy as above. It touches
# neither os.environ, nor the arguments, nor the working directory the debuggee inherits.
LAUNCHER = r"""
import sys


def _agentdap_launcher():
    import os
    import runpy

    path = sys.argv[1]
    del sys.argv[0]
    # `python <dir>` puts <dir> first on sys.path (run_path does that below), never the cwd.
    if sys.path and sys.path[0] == "":
        del sys.path[0]
    try:
        import importlib
        import importlib.util

        name = "importlib.metadata"
        spec = importlib.util.find_spec(name)
        if name not in sys.modules and spec is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = importlib.util.LazyLoader(spec.loader)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            importlib.metadata = module
    except Exception:
        sys.modules.pop("importlib.metadata", None)
    try:
        sys.path.insert(0, os.path.join(path, "..", ".."))
        from debugpy.common import log

        original = log.describe_environment
        if isinstance(log._levels, (set, frozenset)):

            def describe_environment(header):
                if "info" in log._levels:
                    original(header)

            log.describe_environment = describe_environment
    except Exception:
        pass
    finally:
        del sys.path[0]
    runpy.run_path(path, run_name="__main__")


_agentdap_launcher()
"""


def _fast_launcher(debugpy):
    # The launcher is started by the adapter as `<launcher python> <launcher dir> <port> -- ...`;
    # for an internal console, start it as `<launcher python> -c LAUNCHER <launcher dir> ...`.
    # A terminal console (runInTerminal) is left exactly as debugpy builds it.
    import inspect

    from debugpy.adapter import launchers

    original = getattr(launchers, "spawn_debuggee", None)
    try:
        params = list(inspect.signature(original).parameters)
    except (TypeError, ValueError):
        return
    if params[2:4] != ["python", "launcher_path"] or "console" not in params:
        return
    console_at = params.index("console")

    def spawn_debuggee(*args, **kwargs):
        args = list(args)
        console = args[console_at] if len(args) > console_at else kwargs.get("console")
        if len(args) > 3 and console in (None, "internalConsole") and isinstance(args[2], list):
            args[2] = list(args[2]) + ["-c", LAUNCHER]
        return original(*args, **kwargs)

    launchers.spawn_debuggee = spawn_debuggee


def _fast_exit(debugpy):
    # When the debuggee's last thread has ended, pydevd (inside the debuggee) ends its session
    # from its CheckAliveThread, which polls every 0.2 s; that thread then waits for pydevd's
    # reader thread, and the reader, woken by the adapter closing the connection, waits for that
    # same dispose to finish: both give up only after pydevd's 0.5 s timeout, and only then do the
    # program's atexit handlers run and the process exit. pydevd ends the session at once when
    # its reader sees end-of-file first (the path a detaching client takes). So when pydevd has
    # reported that a thread exited and says, asked with `threads`, that no thread of the
    # program is alive (what CheckAliveThread waits for, and stricter: daemon threads count too),
    # the adapter half-closes its side of that connection. Nothing of the program runs in
    # between: its main thread is inside interpreter shutdown waiting for pydevd's non-daemon
    # thread, and atexit handlers run only after pydevd's session ends, either way.
    import socket

    from debugpy.adapter import servers

    server = getattr(servers, "Server", None)
    original = getattr(server, "event", None)
    shut_wr = getattr(socket, "SHUT_WR", None)
    if not callable(original) or shut_wr is None:
        return
    from debugpy.common import log

    def event(self, ev):
        try:
            _watch_threads(self, ev, shut_wr, log)
        except Exception:
            pass
        return original(self, ev)

    server.event = event


def _watch_threads(server, ev, shut_wr, log):
    # pydevd's `thread` events: {"reason": "started" | "exited", "threadId": N}.
    if getattr(ev, "event", None) != "thread":
        return
    body = ev.body if isinstance(getattr(ev, "body", None), dict) else {}
    reason, tid = body.get("reason"), body.get("threadId")
    live = server.__dict__.setdefault("_agentdap_threads", set())
    if reason == "started":
        live.add(tid)
        return
    if reason != "exited":
        return
    live.discard(tid)
    if live or server.__dict__.get("_agentdap_asking"):
        return
    channel = getattr(server, "channel", None)
    sock = getattr(getattr(channel, "stream", None), "_agentdap_socket", None)
    if sock is None:
        return
    server._agentdap_asking = True

    def answered(response):
        server._agentdap_asking = False
        try:
            threads = response.body.get("threads") if response.success else None
        except Exception:
            threads = None
        if threads != [] or server.__dict__.get("_agentdap_threads"):
            return
        log.info("agentdap fast path: no thread of {0} is alive; half-closing its connection", server)
        try:
            sock.shutdown(shut_wr)
        except OSError:
            pass

    channel.send_request("threads").on_response(answered)


def _upstream_fixed(debugpy):
    # The upstream fix (microsoft/debugpy#2054) sets TCP_NODELAY in pydevd's start_client; read
    # that function's source text (without importing pydevd) to notice a fixed copy.
    import os

    path = os.path.join(
        os.path.dirname(debugpy.__file__), "_vendored", "pydevd", "_pydevd_bundle", "pydevd_comm.py"
    )
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return False
    start = text.find("\ndef start_client(")
    if start < 0:
        return False
    end = text.find("\ndef ", start + 1)
    return "TCP_NODELAY" in text[start : end if end > 0 else len(text)]


def _lazy_metadata():
    # debugpy.common.log imports importlib.metadata (~35 ms: email, zipfile, csv, pathlib...)
    # only to list installed distributions in the environment report; load it on first use.
    import importlib
    import importlib.util

    name = "importlib.metadata"
    if name in sys.modules:
        return
    try:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return
        spec.loader = importlib.util.LazyLoader(spec.loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        importlib.metadata = module
    except Exception:
        sys.modules.pop(name, None)


def _agentdap_main():
    import importlib.util
    import os
    import runpy

    if importlib.util.find_spec("debugpy") is None:
        # The words `python -m debugpy.adapter` would print, so agentdap says how to install it.
        sys.stderr.write("%s: No module named debugpy\n" % sys.executable)
        sys.exit(1)

    # `python -c` puts "" first on sys.path where `-m` puts the working directory.
    if sys.path and sys.path[0] == "":
        sys.path[0] = os.getcwd()
    _lazy_metadata()
    # sys.argv is ["-c", <adapter arguments>...]; run_module(alter_sys=True) replaces argv[0]
    # with the module's path, as `-m` does.
    try:
        _agentdap_fastpath()
    except Exception as exc:
        sys.stderr.write("agentdap-fastpath: off: %r\n" % (exc,))
    runpy.run_module("debugpy.adapter", run_name="__main__", alter_sys=True)


_agentdap_main()
