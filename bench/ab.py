#!/usr/bin/env python3
"""bench/ab.py - two (or more) commands timed in alternation, for small differences on a busy machine

    python3 bench/ab.py [--rounds N] [--warmup N] [--perf] NAME=COMMAND NAME=COMMAND ...

hyperfine (bench/exec.sh) runs all of one command, then all of the next:
on a shared machine whose load drifts (other builds, other tests) a
difference of a fraction of a millisecond between two sandeval binaries is
lost in that drift. Here every round runs each command once, in a rotating
order, so that both see the same load; the report gives, per command, the
median and 10th percentile of the wall time and the median CPU time (user +
system of the command and its children, from wait4: far less sensitive to
load than wall time), and, against the first command, the median of the
per-round differences with a bootstrap 95% interval, and the median of the
per-round ratios of wall times. Commands run without a shell (split as a
shell would, quotes kept together); their output is discarded; a failure
stops it. --warmup: runs of each command before the rounds (default 5).

--perf: the CPU column is perf stat's task-clock of the command and every
task it started, counted as each task exits, instead of wait4's rusage
(which holds only what the waited-for descendants accumulated: for bwrap it
gave 1.9 ms of overhead over /bin/true where perf counted 6.5 ms,
docs/benchmarks.md; why it misses part, not established).
Each run is then `perf stat -x, -e task-clock -o FILE COMMAND`, for every
command alike; its wall time includes perf's own start.
"""
import os
import random
import shlex
import statistics
import sys
import tempfile
import time

PERF_OUT = None


DEVNULL = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]


def run(argv):
    if PERF_OUT:
        argv = ["perf", "stat", "-x,", "-e", "task-clock", "-o", PERF_OUT] + argv
    t0 = time.perf_counter()
    # posix_spawn (a vfork in glibc), not fork: forking this interpreter cost
    # ~1 ms of page-table copying inside the timed window, and the idle gap it
    # left between runs let the previous run's deferred teardown finish off
    # the clock (docs/benchmarks.md, 2026-12-03)
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=DEVNULL)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"ab: '{' '.join(argv)}' failed ({status})")
    if PERF_OUT:
        with open(PERF_OUT) as f:
            lines = [line for line in f if "task-clock" in line]
        return wall * 1000, float(lines[0].split(",")[0])
    return wall * 1000, (ru.ru_utime + ru.ru_stime) * 1000


def ci(diffs, rng):
    meds = sorted(statistics.median(rng.choices(diffs, k=len(diffs))) for _ in range(2000))
    return meds[50], meds[1950]


def main():
    global PERF_OUT
    args = sys.argv[1:]
    rounds, warmup = 200, 5
    while args[:1] in (["--rounds"], ["--warmup"], ["--perf"]):
        if args[0] == "--perf":
            PERF_OUT = tempfile.mkstemp(prefix="ab-perf.")[1]
            args = args[1:]
        elif args[0] == "--rounds":
            rounds = int(args[1])
            args = args[2:]
        else:
            warmup = int(args[1])
            args = args[2:]
    if len(args) < 2 or any("=" not in a or a.startswith("-") for a in args):
        sys.exit(__doc__)
    cmds = [(a.split("=", 1)[0], shlex.split(a.split("=", 1)[1])) for a in args]
    for _, argv in cmds:		# warm up
        for _ in range(warmup):
            run(argv)
    wall = {n: [] for n, _ in cmds}
    cpu = {n: [] for n, _ in cmds}
    for r in range(rounds):
        order = cmds[r % len(cmds):] + cmds[:r % len(cmds)]
        for name, argv in order:
            w, c = run(argv)
            wall[name].append(w)
            cpu[name].append(c)
    rng = random.Random(1)
    base = cmds[0][0]
    print(f"{rounds} rounds, load average {os.getloadavg()[0]:.1f} at the end"
          + (", CPU = perf stat task-clock" if PERF_OUT else ", CPU = wait4 rusage"))
    print("| command | wall median ms | wall p10 ms | CPU median ms | wall diff vs %s (median, 95%% CI) | CPU diff |"
          " wall ratio |" % base)
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, _ in cmds:
        w = sorted(wall[name])
        line = f"| {name} | {statistics.median(w):.2f} | {w[len(w) // 10]:.2f} | {statistics.median(cpu[name]):.2f} |"
        if name == base:
            print(line + " | | |")
            continue
        d = [a - b for a, b in zip(wall[name], wall[base])]
        dc = [a - b for a, b in zip(cpu[name], cpu[base])]
        ratio = statistics.median(a / b for a, b in zip(wall[name], wall[base]))
        lo, hi = ci(d, rng)
        clo, chi = ci(dc, rng)
        print(line + f" {statistics.median(d):+.2f} ({lo:+.2f} .. {hi:+.2f}) | {statistics.median(dc):+.2f}"
              f" ({clo:+.2f} .. {chi:+.2f}) | {ratio:.3f} |")
    if PERF_OUT:
        os.unlink(PERF_OUT)


if __name__ == "__main__":
    main()
