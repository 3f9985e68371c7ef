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
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time


def read_capped(path, cap):
    try:
        with open(path, "rb") as f:
            data = f.read(cap + 1)
    except OSError:
        return "", False
    return data[:cap].decode("utf-8", errors="replace"), len(data) > cap


def run_tool(tool, path, timeout, cap, n):
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
    with open(so, "wb") as fo, open(se, "wb") as fe:
        try:
            p = subprocess.Popen([exe] + argv[1:], stdin=subprocess.DEVNULL, stdout=fo, stderr=fe,
                                 env=env, cwd="/work", start_new_session=True)
        except OSError as e:
            out["missing"] = True
            out["stderr"] = "%s: %s" % (argv[0], e)
            return out
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            out["timed_out"] = True
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            rc = p.wait()
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


def main():
    plan = json.loads(sys.stdin.read())
    path = plan.get("path") or "/usr/local/bin:/usr/bin:/bin"
    timeout = float(plan.get("timeout", 30))
    cap = int(plan.get("max_output", 1 << 20))
    tools = [run_tool(t, path, timeout, cap, n) for n, t in enumerate(plan.get("tools", []))]
    sys.stdout.write(json.dumps({"lint": 1, "tools": tools}, separators=(",", ":")) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
