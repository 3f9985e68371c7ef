"""zygote.py - warm starts: one python3 that has imported the driver forks each sandbox's program.

sandeval starts it as `python3 -I -S zygote.py 3` with a socket on fd 3 and
the sandbox's environment. It loads the driver and the Python runner (what
every sample's fresh interpreter would import first), then hands control to
sandeval-zygote.so (src/lib/sandbox/zygote.c), which clones a fresh sandbox for each
request. In the zygote, sandeval_zygote_serve() returns only when sandeval
hangs up; in a sandbox's program process it returns 0, fully constrained
(the same namespaces, root, cgroup, rlimits, Landlock and seccomp as a cold
start), and the driver runs as start.py would run it. Nothing secret is ever
in this process: plans and code reach the program on stdin and in /work.
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.join(here, "python")]
try:
    import _sha256  # noqa: F401  (the driver's HMAC)
    import driver
    import runner  # noqa: F401  (the driver forks the Python runner)
    # What the benchmarks' programs import most (HumanEval's prompts begin
    # with `from typing import List`: ~4 ms in the driver and again in the
    # runner). Modules with state a fresh interpreter would seed differently
    # (random: its generator) are not loaded here.
    import collections, copy, heapq, itertools, math, re, string, typing  # noqa: F401,E401
    import warm
    lib = warm.load(here)
    driver.warm_up()
except BaseException as e:
    os.write(3, ("cannot load the driver: %s: %s" % (type(e).__name__, e)).encode()[:500])
    os._exit(1)

warm.serve(lib)
# A sandbox's program process: argv is what a cold start would execute,
# python3 [options] start.py ARGS...
# The module path of a cold start: the script's directory (start.py's and the
# driver's own entry), where the zygote had the host's runners directory.
sys.path[:2] = [os.path.dirname(sys.argv[0])] * 2
code = driver.run(sys.argv)
sys.stdout.flush()
os._exit(code)
