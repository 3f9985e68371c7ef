"""program.py - a program test (HumanEval-X, MultiPL-E) run by the driver and judged by how it ends.

The program is the candidate's code and the task's test code in one file,
already compiled where the language needs it. It runs once, with /dev/null
as stdin, in a session of its own (killed with it), held to the test's CPU
time, active time (watch.py) and wall deadline, and passes as its benchmark
says: exit status 0, or (HumanEval-X's JavaScript, "quiet") nothing written
on stdout or stderr, whatever the exit status, as CodeGeeX's harness judges
it.
"""
import os
import select
import signal
import time

import watch

OUTPUT = 64 << 10  # of each of stdout and stderr, kept for the verdict's detail


def run(argv, cpu_limit, active_limit, deadline, quiet):
    """Run ARGV; (status, detail): passed, failed, timeout, memory or crash.
    ACTIVE_LIMIT: seconds of its active time, or None."""
    import subprocess
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd="/work", start_new_session=True, close_fds=True)
    span = watch.Span(proc.pid)
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    kept = {out_fd: b"", err_fd: b""}
    open_fds = set(kept)

    def over():
        if time.monotonic() > deadline or watch.cpu_seconds(proc.pid) > cpu_limit:
            return True
        return active_limit is not None and span.active(scan=True) > active_limit

    timed_out = False
    while open_fds and not timed_out:
        timed_out = over()
        ready, _, _ = select.select(list(open_fds), [], [], 0.05)
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                open_fds.discard(fd)
            elif len(kept[fd]) < OUTPUT:
                kept[fd] += chunk[:OUTPUT - len(kept[fd])]
    while not timed_out and proc.poll() is None:  # its pipes are closed; it may still run
        timed_out = over()
        time.sleep(0.01)
    try:
        os.killpg(proc.pid, 9)  # on a timeout, and whatever it left behind
    except OSError:
        pass
    code = proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    stdout, stderr = (kept[fd].decode("utf-8", "replace") for fd in (out_fd, err_fd))
    said = (stderr or stdout).strip()[-1000:]
    if timed_out:
        return "timeout", "no end within %.3g s of CPU time%s (or its wall time)" % (
            cpu_limit, " or %.3g s of active time" % active_limit if active_limit is not None else "")
    if code == -9:
        return "memory", "killed by signal 9 (SIGKILL): out of memory"
    if code < 0 and -code != signal.SIGABRT:
        return "crash", ("killed by signal %d (%s) %s" % (-code, signal.Signals(-code).name, said)).strip()[:1000]
    if quiet:
        return ("failed", said or "it wrote white space") if stdout or stderr else ("passed", None)
    if code != 0:
        # a failed assertion: C++'s assert() aborts (SIGABRT), node's assert throws (exit status 1)
        return "failed", said or ("exit status %d" % code if code > 0 else "killed by signal 6 (SIGABRT)")
    return "passed", None
