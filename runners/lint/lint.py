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
import ctypes
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


# Looked up at import, in the zygote once for every sample (a fork's first
# lookup costs it ~60 page faults); every lint run calls it.
prctl = ctypes.CDLL(None, use_errno=True).prctl


def undumpable():
    """PR_SET_DUMPABLE 0: a linter this process executes (cold), running as the
    same user, can then neither trace it nor open its memory or descriptors
    under /proc (its stdout, where the batch's envelopes go); the sandbox's
    seccomp filter refuses ptrace already."""
    if prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE)")


class _Sink:
    """What flake8's formatter takes for sys.stdout while one file's finding is written: its .buffer."""

    def __init__(self, buf):
        self.buffer = buf


def flake8_capture(paths, target):
    """Patch flake8's formatter so that each finding it reports for PATHS[i]
    is written, as it would be for TARGET (the file linted alone: the same
    formatter's format() and show_source(), with the finding's file name
    TARGET), into bufs[i] instead of stdout. (bufs, strays: findings of no
    file of PATHS, undo)."""
    from flake8.formatting import base
    bufs = {p: io.BytesIO() for p in paths}
    strays = []
    handle = base.BaseFormatter.handle

    def handle_one(self, error):
        buf = bufs.get(error.filename)
        if buf is None:
            strays.append(error.filename)
            return
        saved = sys.stdout
        sys.stdout = _Sink(buf)
        try:
            handle(self, error._replace(filename=target))
        finally:
            sys.stdout = saved

    base.BaseFormatter.handle = handle_one

    def undo():
        base.BaseFormatter.handle = handle
    return [bufs[p] for p in paths], strays, undo


def bandit_split(text, paths, target):
    """Bandit's JSON report on PATHS cut into the report each file alone at
    TARGET would have had (its results and errors, in their order, the file's
    name TARGET; its metrics; bandit's serialization), with the exit status
    bandit gives it; None when any result or error names no file of PATHS."""
    doc = json.loads(text)
    if not isinstance(doc, dict) or set(doc) != {"errors", "generated_at", "metrics", "results"}:
        return None
    index = {p: i for i, p in enumerate(paths)}
    results, errors = [[] for _ in paths], [[] for _ in paths]
    for key, into in (("results", results), ("errors", errors)):
        for item in doc[key]:
            if not isinstance(item, dict) or item.get("filename") not in index:
                return None
            into[index[item["filename"]]].append(dict(item, filename=target))
    from bandit.core import metrics
    out = []
    for i, p in enumerate(paths):
        totals = metrics.Metrics()  # its own totals, as bandit sums them for one file
        if p in doc["metrics"]:
            totals.data[target] = doc["metrics"][p]
        totals.aggregate()
        one = {"errors": errors[i], "generated_at": doc["generated_at"], "metrics": totals.data,
               "results": results[i]}
        out.append((json.dumps(one, sort_keys=True, indent=2, separators=(",", ": ")).encode("utf-8"),
                    1 if results[i] else 0))
    return out


def together(plan, warm, texts, target):
    """Lint TEXTS with ONE run of each tool of PLAN over all of them: {index:
    envelope} of the files whose report could be cut back exactly as each
    alone at TARGET would have had it (the others, or all when a run did not
    end cleanly, are left to the one-at-a-time path).

    Only when the plan is flake8 then bandit, both run warm (in this
    process) and name TARGET once as their last argument. Each text is
    written to /work/N/SOURCE, N its index (the same file name in a
    directory of its own); flake8 runs with --jobs=1 on them all, each
    finding it reports captured by the file flake8 says it is about
    (flake8_capture: no output parsed); bandit writes its JSON report, cut
    by each result's and error's file name (bandit_split). A tool that timed
    out (the plan's timeout for the whole run, so no file took longer
    alone), wrote to stderr, exited otherwise than it would for what it
    found, or reported a finding of a file it was not given: nothing of the
    run is used. A file whose share is over the output cap is linted alone
    (alone it would be cut)."""
    path = plan.get("path") or "/usr/local/bin:/usr/bin:/bin"
    timeout = float(plan.get("timeout", 30))
    cap = int(plan.get("max_output", 1 << 20))
    tools = plan.get("tools", [])
    if [t.get("name") for t in tools] != ["flake8", "bandit"] or not warm:
        return {}
    for t in tools:
        argv = [str(a) for a in t.get("argv", [])]
        exe = shutil.which(argv[0], path=path) if argv else None
        if not exe or os.path.realpath(exe) not in warm or argv[-1] != target or argv.count(target) != 1:
            return {}
    base, name = os.path.split(target)
    paths = [os.path.join(base, str(i), name) for i in range(len(texts))]
    for p, text in zip(paths, texts):
        os.mkdir(os.path.dirname(p))
        with open(p, "wb") as f:
            f.write(str(text).encode("utf-8"))
    shares = [[] for _ in texts]  # per file: each tool's out
    for n, t in enumerate(tools):
        argv = [str(a) for a in t["argv"][:-1]] + (["--jobs=1"] if t["name"] == "flake8" else []) + paths
        one = dict(t, argv=argv)
        if t["name"] == "flake8":
            bufs, strays, undo = flake8_capture(paths, target)
            try:
                ran = run_tool(one, path, timeout, cap, n, warm)
            finally:
                undo()
            if strays:
                return {}
            cut = [(b.getvalue(), 1 if b.getvalue() else 0) for b in bufs]
        else:
            ran = run_tool(one, path, timeout, cap * len(texts), n, warm)
            if ran["stdout_truncated"]:
                return {}
            try:
                cut = bandit_split(ran["stdout"], paths, target)
            except ValueError:
                return {}
            if cut is None:
                return {}
        if (ran["missing"] or ran["timed_out"] or ran["signal"] or ran["stderr"] or ran["stderr_truncated"]
                or ran["exit"] != max([c[1] for c in cut] + [0])):
            return {}
        seconds = round(ran["seconds"] / len(texts), 3)
        for i, (data, status) in enumerate(cut):
            shares[i].append(dict(ran, exit=status, seconds=seconds, files=len(texts),
                                  stdout=data[:cap].decode("utf-8", errors="replace"),
                                  stdout_truncated=len(data) > cap))
    done = {}
    for i, outs in enumerate(shares):
        if not any(o["stdout_truncated"] for o in outs):
            done[i] = json.dumps({"lint": 1, "tools": outs}, separators=(",", ":"))
    return done


def reset(own, injected):
    """Take away what the last file's linters left: every other process of the
    sandbox, /work but the injected files (written again as they came), /tmp,
    linecache."""
    import linecache
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


def batch(plan, warm):
    """Lint each of PLAN's "batch" texts as a sample's own lint sandbox would.

    First all of them at once (together(): one run of each linter over the
    batch, each file's report cut back to what it would have been alone);
    then each text that run could not account for in turn, written to
    /work/SOURCE alone, every tool of the plan on it exactly as for one
    sample (run_tool: its own argv, environment, output files, timeout and
    exit status; a warm tool in this process, restored afterwards). Before
    the run over the batch and before each file alone, what a tool could
    leave is taken away (reset). The texts are in this process's memory and
    /work only, and the process is undumpable. Prints, per file, "INDEX
    ENVELOPE" on one line; nothing for a file whose tools could not be run
    (that file is then linted alone, docs/lint.md)."""
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
    reset(own, injected)
    try:
        done = together(plan, warm, texts, target)
    except Exception:
        done = {}
    for i, line in sorted(done.items()):
        out.write(b"%d " % i + line.encode("ascii") + b"\n")
    out.flush()
    for i, text in enumerate(texts):
        if i in done:
            continue
        reset(own, injected)
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
