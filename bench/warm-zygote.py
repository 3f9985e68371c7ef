"""bench/warm-zygote.py - the zygote of bench/warm.c: runners/zygote.py's preloads, then the program's -c code

It loads what runners/zygote.py loads (the driver, the runner, the modules
the benchmarks' programs import most) and serves through the same
runners/warm.py and sandeval-zygote.so, so that each sandbox forks from an
interpreter of the real zygote's size. In a sandbox's program process it runs
the CODE of `python3 -c CODE` (sys.argv[0] after warm.serve) instead of the
driver, as a fresh `python3 -c CODE` would, and exits.
"""
import os
import sys

runners = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "runners")
sys.path[:0] = [runners, os.path.join(runners, "python")]
try:
    import _sha256  # noqa: F401
    import driver  # noqa: F401
    import runner  # noqa: F401
    import collections, copy, heapq, itertools, math, re, string, typing  # noqa: F401,E401
    import time  # noqa: F401
    import warm
    lib = warm.load(runners)
except BaseException as e:
    os.write(3, ("cannot load the driver: %s: %s" % (type(e).__name__, e)).encode()[:500])
    os._exit(1)

warm.serve(lib)
exec(compile(sys.argv[0], "<string>", "exec"))
sys.stdout.flush()
os._exit(0)
