"""lint.py - the lint sandbox's main program: run each linter of the plan on the candidate, report one JSON envelope.

Runs as the sandbox's main program (src/lib/eval/lint.c starts it). It reads its
plan from stdin -- {"path": PATH, "timeout": SECONDS, "max_output": BYTES,
"tools": [{"name", "argv", "env"}]} -- runs the tools one after another,
each with its stdout and stderr in files under /tmp (the sandbox's tmpfs
bounds them) and its own timeout, and prints one JSON object on stdout:

    {"lint": 1, "tools": [{"name", "missing", "exit", "signal", "timed_out",
                           "seconds", "stdout", "stdout_truncated",
                           "stderr", "stderr_truncated"}]}

It never judges anything: sandeval parses each tool's output itself. The
candidate's file is hostile input to the linters; a linter it subverts can
at most forge this envelope, which speaks for this one sample only
(docs/lint.md).

Warm (runners/lint/zygote.py): the sandbox's program is forked from a
python3 that has loaded the Python linters, and a tool whose executable is
one of the scripts it loaded (WARM: its real path to the script's compiled
code) is not executed: this process runs that script's code, as the
executed python3 would, with the same argv, environment, working directory
and descriptors, and takes the exit status python3 would have; its timeout
is an alarm (a tool stuck where Python cannot interrupt it is stopped by
the sandbox's wall-time limit instead: the sample's lint is then an error).
Everything else is executed as on a cold start.
"""
import io
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import traceback


def read_capped(path, cap):
    try:
        with open(path, "rb") as f:
            data = f.read(cap + 1)
    except OSError:
        return "", False
    return data[:cap].decode("utf-8", errors="replace"), len(data) > cap


def script_status(code):
    """The exit status python3 gives a SystemExit's code (Python's handle_system_exit)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xff
    try:
        sys.stderr.write(str(code) + "\n")
    except BaseException:
        pass
    return 1


def std_stream(fd, name):
    """sys.stdin, stdout or stderr on FD as python3 makes them at start (not a terminal, C.UTF-8)."""
    raw = io.FileIO(fd, "r" if fd == 0 else "w", closefd=False)
    raw.name = name
    buf = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
    return io.TextIOWrapper(buf, encoding="utf-8", errors="backslashreplace" if fd == 2 else "strict",
                            line_buffering=fd == 2)


class ToolTimeout(BaseException):
    """Raised in a tool that runs in this process when its time is up (not an
    Exception: a tool's `except Exception` does not swallow it)."""


def on_alarm(signum, frame):
    raise ToolTimeout()


def run_inline(exe, code, argv, env, fo, fe, timeout):
    """Run the script EXE (CODE, compiled) in this process as `python3 EXE ARGV...`
    would run it: the same argv, environment and working directory, stdin from
    /dev/null, stdout and stderr to FO and FE. (exit status python3 would give,
    timed out); this process's descriptors, streams and environment are
    restored afterwards."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
    saved = (sys.stdin, sys.stdout, sys.stderr, sys.argv, sys.path[0], dict(os.environ),
             sys.modules.get("__main__"), os.getcwd())
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(fo.fileno(), 1)
    os.dup2(fe.fileno(), 2)
    os.close(null)
    os.chdir("/work")
    os.environ.clear()
    os.environ.update(env)
    sys.argv = [exe] + argv
    sys.path[0] = os.path.dirname(exe)
    sys.stdin = std_stream(0, "<stdin>")
    sys.stdout = std_stream(1, "<stdout>")
    sys.stderr = std_stream(2, "<stderr>")
    main = type(sys)("__main__")
    main.__file__ = exe
    sys.modules["__main__"] = main
    timed_out = False
    alarm = signal.signal(signal.SIGALRM, on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, max(timeout, 0.001))
        try:
            exec(code, main.__dict__)
            status = 0
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except ToolTimeout:
        timed_out, status = True, 1
    except SystemExit as e:
        status = script_status(e.code)
    except BaseException:
        traceback.print_exc()
        status = 1
    signal.signal(signal.SIGALRM, alarm)
    for f in (sys.stdout, sys.stderr):
        try:
            if not f.closed:
                f.flush()
        except BaseException:
            status = 120
    for fd, old in zip((0, 1, 2), saved_fds):
        os.dup2(old, fd)
        os.close(old)
    sys.stdin, sys.stdout, sys.stderr, sys.argv, sys.path[0], environ, sys.modules["__main__"], cwd = saved
    os.environ.clear()
    os.environ.update(environ)
    os.chdir(cwd)
    return status, timed_out


def wait_for(pid, timeout):
    """Wait for the child PID at most TIMEOUT seconds: its raw wait status, or None when it timed out."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = -1
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        left = deadline - time.monotonic()
        if left <= 0:
            status = None
            break
        if fd >= 0:
            p = select.poll()
            p.register(fd, select.POLLIN)
            p.poll(left * 1000)
        else:
            time.sleep(min(left, 0.005))
    if fd >= 0:
        os.close(fd)
    return status


def run_tool(tool, path, timeout, cap, n, warm=None):
    name = tool.get("name", "?")
    argv = [str(a) for a in tool.get("argv", [])]
    out = {"name": name, "missing": False, "exit": None, "signal": 0, "timed_out": False,
           "seconds": 0.0, "stdout": "", "stdout_truncated": False, "stderr": "", "stderr_truncated": False}
    exe = shutil.which(argv[0], path=path) if argv else None
    if not exe:
        out["missing"] = True
        out["stderr"] = "%s: not found in PATH=%s" % (argv[0] if argv else "(no command)", path)
        return out
    env = {"PATH": path, "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}
    env.update({str(k): str(v) for k, v in tool.get("env", {}).items()})
    so, se = "/tmp/lint-%d.out" % n, "/tmp/lint-%d.err" % n
    t0 = time.monotonic()
    code = (warm or {}).get(os.path.realpath(exe))
    with open(so, "wb") as fo, open(se, "wb") as fe:
        if code is not None:
            rc, out["timed_out"] = run_inline(exe, code, argv[1:], env, fo, fe, timeout)
        else:
            try:
                proc = subprocess.Popen([exe] + argv[1:], stdin=subprocess.DEVNULL, stdout=fo, stderr=fe,
                                        env=env, cwd="/work", start_new_session=True)
            except OSError as e:
                out["missing"] = True
                out["stderr"] = "%s: %s" % (argv[0], e)
                return out
            status = wait_for(proc.pid, timeout)
            if status is None:
                out["timed_out"] = True
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass
                status = os.waitpid(proc.pid, 0)[1]
            rc = proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by subprocess
    out["seconds"] = round(time.monotonic() - t0, 3)
    if rc < 0:
        out["signal"] = -rc
    else:
        out["exit"] = rc
    out["stdout"], out["stdout_truncated"] = read_capped(so, cap)
    out["stderr"], out["stderr_truncated"] = read_capped(se, cap)
    for f in (so, se):
        try:
            os.unlink(f)
        except OSError:
            pass
    return out


def envelope(plan, warm):
    """Every tool of PLAN on /work's candidate: the envelope, one line of JSON."""
    path = plan.get("path") or "/usr/local/bin:/usr/bin:/bin"
    timeout = float(plan.get("timeout", 30))
    cap = int(plan.get("max_output", 1 << 20))
    tools = [run_tool(t, path, timeout, cap, n, warm) for n, t in enumerate(plan.get("tools", []))]
    return json.dumps({"lint": 1, "tools": tools}, separators=(",", ":"))


def wipe(top, keep):
    """Remove everything under TOP but the directory KEEP."""
    for name in os.listdir(top):
        p = os.path.join(top, name)
        if p == keep:
            continue
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            try:
                os.unlink(p)
            except OSError:
                pass


def restore(path, data):
    """PATH holds DATA again (an injected file a linter may have changed)."""
    try:
        with open(path, "rb") as f:
            if f.read(len(data) + 1) == data:
                return
    except OSError:
        pass
    try:
        os.unlink(path)
    except OSError:
        pass
    with open(path, "wb") as f:
        f.write(data)


def undumpable():
    """PR_SET_DUMPABLE 0: a linter this process executes (cold), running as the
    same user, can then neither trace it nor open its memory or descriptors
    under /proc (its stdout, where the batch's envelopes go); the sandbox's
    seccomp filter refuses ptrace already."""
    import ctypes
    if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE)")


def batch(plan, warm):
    """Lint each of PLAN's "batch" texts as a sample's own lint sandbox would.

    Each text in turn is written to /work/SOURCE, alone there, and every tool
    of the plan runs on it exactly as for one sample (run_tool: its own argv,
    environment, output files, timeout and exit status; a warm tool in this
    process, restored afterwards). Between files, what a tool could leave
    for the next is taken away: /work (but the injected files, written again
    as they came) and /tmp emptied, every other process of the sandbox
    killed, linecache (bandit reads a finding's source line through it, by
    path) cleared. The texts are in this process's memory only, and the
    process is undumpable. Prints, per
    file, "INDEX ENVELOPE" on one line; nothing for a file whose tools could
    not be run (that file is then linted alone, docs/lint.md)."""
    import linecache
    texts = plan.pop("batch")
    target = plan.pop("source")
    own = os.path.dirname(os.path.abspath(sys.argv[0]))  # /work/.sandeval, warm or cold
    injected = {}
    for name in os.listdir(own):
        if os.path.isfile(os.path.join(own, name)):
            with open(os.path.join(own, name), "rb") as f:
                injected[name] = f.read()
    undumpable()
    out = sys.stdout.buffer
    for i, text in enumerate(texts):
        try:
            os.kill(-1, signal.SIGKILL)  # all but pid 1 and this process
        except OSError:
            pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass
        wipe("/work", own)
        wipe("/tmp", None)
        for name, data in injected.items():
            restore(os.path.join(own, name), data)
        linecache.clearcache()
        with open(target, "wb") as f:
            f.write(str(text).encode("utf-8"))
        try:
            line = envelope(plan, warm)
        except Exception:
            continue
        out.write(b"%d " % i + line.encode("ascii") + b"\n")
        out.flush()


def main(warm=None):
    plan = json.loads(sys.stdin.read())
    if "batch" in plan:
        batch(plan, warm)
    else:
        sys.stdout.write(envelope(plan, warm) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
