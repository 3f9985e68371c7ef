"""program.py - the driver's part for compiled candidates: program tests judged by how they end, the C glue.

The program is the candidate's code and the task's test code in one file,
already compiled where the language needs it. It runs once, with /dev/null
as stdin, in a session of its own (killed with it), held to the test's CPU
time, active time (watch.py) and wall deadline, and passes as its benchmark
says: exit status 0, or (HumanEval-X's JavaScript, "quiet") nothing written
on stdout or stderr, whatever the exit status, as CodeGeeX's harness judges
it. c_glue() writes the C runner's glue: the candidate's function called with
arguments checked against its signature, its answer boxed as plain data.
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


C_KINDS = {"int": "i", "long": "i", "long int": "i", "long long": "i", "unsigned": "i", "unsigned int": "i",
           "unsigned long": "i", "size_t": "i", "int64_t": "i", "short": "i", "double": "d", "float": "d",
           "bool": "b", "_Bool": "b", "char": "c", "char *": "s"}
C_CHECK = {"i": "a[%d].kind == SV_INT", "d": "(a[%d].kind == SV_INT || a[%d].kind == SV_FLOAT)",
           "b": "a[%d].kind == SV_BOOL", "c": "(a[%d].kind == SV_STR && a[%d].len == 1)", "s": "a[%d].kind == SV_STR"}
C_ARG = {"i": "a[%d].i", "d": "(a[%d].kind == SV_INT ? (double)a[%d].i : a[%d].d)", "b": "a[%d].i != 0",
         "c": "a[%d].s[0]", "s": "a[%d].s"}


def c_type(decl, named):
    """The kind of a C declaration ("const char *s", "long b"), or None."""
    import re
    words = re.sub(r"\bconst\b", " ", decl).replace("*", " * ").split()
    if named and len(words) > 1 and words[-1] != "*":
        words = words[:-1]
    return C_KINDS.get(" ".join(words).replace(" *", " *"))


def c_glue(sig):
    """/tmp/glue.c: check the arguments against SIG, call the candidate, box its answer."""
    import re
    m = re.match(r"\s*(.*?)\b([A-Za-z_]\w*)\s*\((.*)\)\s*;?\s*$", sig, re.S)
    if not m:
        raise ValueError("cannot read the signature %r" % sig)
    ret, name, params = c_type(m.group(1), False), m.group(2), m.group(3).strip()
    params = [] if params in ("", "void") else [p.strip() for p in params.split(",")]
    kinds = [c_type(p, True) for p in params]
    if ret is None or None in kinds:
        raise ValueError("unsupported types in the signature %r" % sig)
    lines = ["#include <stdbool.h>", "#include <stddef.h>", "#include <stdint.h>", "#include <string.h>",
             '#include "harness.h"', sig.strip().rstrip(";") + ";",
             "int sandeval_call(struct sv *a, int n, struct sv *out, const char **why)", "{",
             "	if (n != %d) { *why = \"expected %d arguments\"; return -1; }" % (len(kinds), len(kinds))]
    for i, k in enumerate(kinds):
        lines.append("	if (!(%s)) { *why = \"argument %d has the wrong type\"; return -1; }"
                     % (C_CHECK[k].replace("%d", str(i)), i + 1))
    call = "%s(%s)" % (name, ", ".join(C_ARG[k].replace("%d", str(i)) for i, k in enumerate(kinds)))
    box = {"i": "out->kind = SV_INT; out->i = (long long)r;", "d": "out->kind = SV_FLOAT; out->d = (double)r;",
           "b": "out->kind = SV_BOOL; out->i = r ? 1 : 0;",
           "c": "static char one[2]; one[0] = (char)r; out->kind = SV_STR; out->s = one; out->len = 1;",
           "s": "out->kind = r ? SV_STR : SV_NULL; out->s = (char *)r; out->len = r ? strlen(r) : 0;"}[ret]
    ctype = {"i": "long long", "d": "double", "b": "bool", "c": "char", "s": "const char *"}[ret]
    lines += ["\t%s r = %s;" % (ctype, call), "\t" + box, "\treturn 0;", "}"]
    return "\n".join(lines) + "\n"
