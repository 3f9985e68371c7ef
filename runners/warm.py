"""warm.py - what both zygotes (runners/zygote.py, runners/lint/zygote.py) do around sandeval-zygote.so.

load() opens the library; serve() hands control to it (src/lib/sandbox/zygote.c)
and returns only in a fresh sandbox's program process, with that program's
environment set and sys.argv what a cold start would have run:
`python3 [options] SCRIPT ARGS...` becomes sys.argv = [SCRIPT, ARGS...].
"""
import ctypes
import gc
import os
import sys


def load(runners):
    lib = ctypes.PyDLL(os.path.join(runners, "sandeval-zygote.so"))
    lib.sandeval_zygote_arg.restype = ctypes.c_char_p
    lib.sandeval_zygote_env.restype = ctypes.c_char_p
    # Resolved here, once: a ctypes function's first lookup builds objects
    # all over the heap -- in each fork, 80 page faults and ~1.8 ms here
    # (bench/pages.c: a copied page costs 14 us on some machines).
    lib.after_fork = ctypes.pythonapi.PyOS_AfterFork_Child
    return lib


def free_blocks():
    """[(block size, free blocks)] of pymalloc's partly used pools, from
    sys._debugmallocstats(), which writes to fd 2 (here a memfd)."""
    fd = os.memfd_create("mallocstats")
    saved = os.dup(2)
    try:
        os.dup2(fd, 2)
        sys._debugmallocstats()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    with os.fdopen(fd, "rb") as f:
        f.seek(0)
        text = f.read().decode("ascii", "replace")
    out = []
    for line in text.splitlines():
        # "class   size   num pools   blocks in use  avail blocks"
        f = line.split()
        if len(f) == 5 and all(x.isdigit() for x in f):
            out.append((int(f[1]), int(f[4])))
    return out


ballast = []


def fill_pools():
    """Take every free block of the zygote's partly used pools.

    A fork's first allocations of each size would land in those pools,
    scattered over the zygote's pages, each such page copied on its first
    write; with them full, its new objects go to fresh pools of its own,
    many to a page. Bytes objects of the exact block size (33 + n bytes) and
    floats (24 bytes: the 32-byte class) fill them; the 16-byte class is
    left as it is (filling it with lists' item arrays changed nothing
    measurable)."""
    for size, avail in free_blocks():
        if size >= 48:
            ballast.extend(bytes(size - 33) for _ in range(avail))
        elif size == 32:
            ballast.extend(float(i) + 0.5 for i in range(avail))


def serve(lib):
    # gc.freeze(), as Python's docs advise before forking workers: a collection
    # in a fork would otherwise write to these objects' headers, copying their
    # pages. (On HumanEval it changed the page faults by nothing measurable,
    # 283k either way: reference counts cause most of them.)
    gc.collect()
    fill_pools()
    gc.freeze()
    if lib.sandeval_zygote_serve(3) != 0:
        os._exit(0)
    # A sandbox's program process (pid 2 of a fresh sandbox).
    lib.after_fork()
    argv = []
    while lib.sandeval_zygote_arg(len(argv)) is not None:
        argv.append(os.fsdecode(lib.sandeval_zygote_arg(len(argv))))
    i = 0
    while lib.sandeval_zygote_env(i) is not None:
        name, _, value = os.fsdecode(lib.sandeval_zygote_env(i)).partition("=")
        os.environ[name] = value
        i += 1
    script = next(n for n, a in enumerate(argv) if n and not a.startswith("-"))
    sys.argv = argv[script:]
