"""bench/warm-zygote.py - the zygote of bench/warm.c: runners/zygote.py itself, its program the -c code

It runs runners/zygote.py unchanged (the same preloads, the same
runners/warm.py and sandeval-zygote.so), so that each sandbox forks from an
interpreter of the real zygote's size, with one difference: in a sandbox's
program process, driver.run executes the CODE of `python3 -c CODE`
(sys.argv[0] after warm.serve) as a fresh `python3 -c CODE` would, instead of
running a plan.
"""
import os
import runpy
import sys

runners = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "runners")
sys.path[:0] = [runners, os.path.join(runners, "python")]
import driver  # noqa: E402


def run_code(argv):
    exec(compile(argv[0], "<string>", "exec"), {"__name__": "__main__"})
    return 0


driver.run = run_code
runpy.run_path(os.path.join(runners, "zygote.py"), run_name="__main__")
