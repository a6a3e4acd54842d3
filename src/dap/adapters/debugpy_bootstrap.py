# dapmux debugpy fast path. Runs debugpy's adapter exactly as `python -m debugpy.adapter` would
# (same sys.argv, run as __main__), after tuning the TCP sockets of the adapter's own DAP streams:
# TCP_NODELAY on each, and TCP_QUICKACK before each read. Only the adapter process that dapmux
# starts runs this; the debuggee (the user's program) and its sockets are never touched.
#
# Why: pydevd (inside the debuggee) writes each message's header and body with two sendall()
# calls on a socket with Nagle on, so the body waits until the adapter ACKs the header, and the
# adapter's kernel delays that ACK by ~40 ms. Quick-acking on the adapter's side releases the
# body at once; TCP_NODELAY on the adapter's side keeps its own writes from waiting for ACKs.
#
# When it stands aside (debugpy too old or already fixed, patch point missing) it prints one line
# "dapmux-fastpath: off: <why>" to stderr before the adapter starts (the adapter points
# sys.stderr at /dev/null in stdio mode afterwards); dapmux shows it as `adapter` output.
import sys


def _dapmux_fastpath():
    # Versions known to be affected: 1.0 up to (not including) FIXED_IN; None = no fix released.
    FIXED_IN = None
    MARK = "dapmux-fastpath:"

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
        return original.__func__(cls, sock, *args, **kwargs)

    stream_class.from_socket = classmethod(from_socket)
    # Silent when on: this line would otherwise open every launch's output the agent reads.


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


def _dapmux_main():
    import importlib.util
    import os
    import runpy

    if importlib.util.find_spec("debugpy") is None:
        # The words `python -m debugpy.adapter` would print, so dapmux says how to install it.
        sys.stderr.write("%s: No module named debugpy\n" % sys.executable)
        sys.exit(1)

    # `python -c` puts "" first on sys.path where `-m` puts the working directory.
    if sys.path and sys.path[0] == "":
        sys.path[0] = os.getcwd()
    # sys.argv is ["-c", <adapter arguments>...]; run_module(alter_sys=True) replaces argv[0]
    # with the module's path, as `-m` does.
    try:
        _dapmux_fastpath()
    except Exception as exc:
        sys.stderr.write("dapmux-fastpath: off: %r\n" % (exc,))
    runpy.run_module("debugpy.adapter", run_name="__main__", alter_sys=True)


_dapmux_main()
