"""start.py - the sandbox's main program on a cold start: imports driver.py, the trusted test driver, and runs it.

(A warm start skips this file: zygote.py forks a running interpreter that has
the driver imported already.)

Python compiles a main script from source on every start (7 ms for driver.py
here, on every sample) but loads an imported module from its cached .pyc,
which `make` writes beside the runners (checked-hash pycs: valid wherever the
unchanged source is copied). sandeval injects both into the sandbox.
"""
import sys

sys.path.insert(0, __file__.rpartition("/")[0])
import driver  # noqa: E402

sys.exit(driver.run(sys.argv))
