#!/usr/bin/env python3
"""bench/roles.py - where a command's CPU goes, by the role of each process it started

    python3 bench/roles.py [--samples N] [--keep FILE] -- COMMAND ARGS...

Runs COMMAND under `perf record -a` with three scheduler tracepoints
(sched_stat_runtime: the CPU each task ran; sched_process_fork and
sched_process_exec: who started whom, and what it executes) and the two
page-fault tracepoints (exceptions:page_fault_user and _kernel), and sums
each task's CPU and page faults by its place in the process tree COMMAND
started:

  sandeval     COMMAND's own process
  sandeval's forks
               every fork of sandeval that did not execute anything else
               (workers, helpers), and threads
  zygote       a python3 a sandeval process started (warm starts'
               interpreter; the canaries' and lint's zygotes too)
  init         a zygote's clone: the sample's sandbox init
  driver       init's child (the judge)
  runner       the driver's child (the candidate's process)
  program+     anything below the runner
  exec:NAME    another program COMMAND's tree executed (cold sandboxes, lint)
  outside      every task not in COMMAND's tree, by name: kernel workers
               (network namespaces' teardown, cgroups' release), other load

With --samples N it also prints each role's CPU divided by N. The machine
should be otherwise idle: "outside" then counts the kernel's deferred work
for the command's sandboxes. Needs root (perf record -a with tracepoints).
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

EVENTS = ["sched:sched_stat_runtime", "sched:sched_process_fork", "sched:sched_process_exec",
          "exceptions:page_fault_user", "exceptions:page_fault_kernel"]
FIELD = re.compile(r"(\w+)=(\S+)")


def parse(path):
    """Yield (event, fields) from perf script's output; fields["_pid"] is the task's."""
    out = subprocess.run(["perf", "script", "-i", path, "-F", "pid,event,trace"],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        line = line.strip()
        if not line:
            continue
        # "1234 sched:sched_stat_runtime: comm=... pid=... runtime=..."
        task, _, line = line.partition(" ")
        _, _, rest = line.strip().partition(":")
        event, _, trace = rest.partition(":")
        fields = dict(FIELD.findall(trace))
        fields["_pid"] = task
        yield event.strip(), fields


def main(argv):
    samples, keep = None, None
    while argv and argv[0] != "--":
        opt = argv.pop(0)
        if opt == "--samples" and argv:
            samples = int(argv.pop(0))
        elif opt == "--keep" and argv:
            keep = argv.pop(0)
        else:
            sys.exit(__doc__)
    if not argv or argv[0] != "--" or len(argv) < 2:
        sys.exit(__doc__)
    cmd = argv[1:]
    tmp = None if keep else tempfile.TemporaryDirectory(prefix="roles.")
    path = keep or os.path.join(tmp.name, "perf.data")
    rec = ["perf", "record", "-q", "-a", "-o", path]
    for e in EVENTS:
        rec += ["-e", e]
    # perf record forks COMMAND before it records, then lets it execute:
    # COMMAND is the first task seen executing
    r = subprocess.run(rec + ["--"] + cmd, stdout=subprocess.DEVNULL)
    if r.returncode != 0:
        sys.exit(f"roles: '{' '.join(cmd)}' exited with {r.returncode}")

    parent, comm, exe, cpu = {}, {}, {}, collections.Counter()
    faults = collections.Counter()
    root = None
    for event, f in parse(path):
        if event == "sched_process_fork":
            p, c = int(f["pid"]), int(f["child_pid"])
            parent[c] = p
            comm[c] = f.get("child_comm", "?")
        elif event == "sched_process_exec":
            pid = int(f["pid"])
            exe[pid] = os.path.basename(f["filename"])
            if root is None:
                root = pid
        elif event == "sched_stat_runtime":
            pid = int(f["pid"])
            cpu[pid] += int(f["runtime"])
            comm.setdefault(pid, f.get("comm", "?"))
        elif event.startswith("page_fault"):
            faults[int(f["_pid"])] += 1
    if tmp:
        tmp.cleanup()
    if root is None:
        sys.exit("roles: perf recorded no exec of the command")

    memo = {}

    def role(pid):
        if pid in memo:
            return memo[pid]
        chain, p = [], pid
        while p is not None and p != root:
            chain.append(p)
            p = parent.get(p)
        if p is None:
            r = "outside " + re.sub(r"[/:]\d+.*", "", comm.get(pid, "?"))
        else:
            chain.append(root)
            chain.reverse()	# root ... pid
            r, depth = "sandeval", None
            for q in chain:
                e = exe.get(q)
                if depth is not None:
                    depth += 1
                if e and e.startswith("python"):
                    r, depth = "zygote", 0
                elif e and e != "sandeval":
                    r, depth = "exec:" + e, None
                elif e == "sandeval":
                    r, depth = "sandeval", None
            if r == "sandeval" and pid != root:
                r = "sandeval's forks"
            if depth is not None and depth > 0:
                # a python3 the sandeval tree executed, and its clones
                r = ["zygote", "init", "driver", "runner"][depth] if depth < 4 else "program+"
        memo[pid] = r
        return r

    by, byf = collections.Counter(), collections.Counter()
    for pid, ns in cpu.items():
        by[role(pid)] += ns
    for pid, n in faults.items():
        byf[role(pid)] += n
    total = sum(v for k, v in by.items() if not k.startswith("outside"))
    per = f" {'ms/sample':>10} {'faults/sample':>14}" if samples else ""
    print(f"{'role':32} {'CPU ms':>10} {'share':>7} {'faults':>9}" + per)
    for k, v in sorted(by.items(), key=lambda kv: -kv[1]):
        if k.startswith("outside") and v < 1e6:
            continue
        share = f"{100 * v / total:6.1f}%" if not k.startswith("outside") else "      -"
        per = f" {v / 1e6 / samples:10.2f} {byf[k] / samples:14.0f}" if samples else ""
        print(f"{k:32} {v / 1e6:10.1f} {share} {byf[k]:9}" + per)
    tf = sum(v for k, v in byf.items() if not k.startswith("outside"))
    per = f" {total / 1e6 / samples:10.2f} {tf / samples:14.0f}" if samples else ""
    print(f"{'command tree':32} {total / 1e6:10.1f} {'':7} {tf:9}" + per)

if __name__ == "__main__":
    main(sys.argv[1:])
