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
    return lib


def serve(lib):
    # gc.freeze(), as Python's docs advise before forking workers: a collection
    # in a fork would otherwise write to these objects' headers, copying their
    # pages. (On HumanEval it changed the page faults by nothing measurable,
    # 283k either way: reference counts cause most of them.)
    gc.collect()
    gc.freeze()
    if lib.sandeval_zygote_serve(3) != 0:
        os._exit(0)
    # A sandbox's program process (pid 2 of a fresh sandbox).
    ctypes.pythonapi.PyOS_AfterFork_Child()
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
