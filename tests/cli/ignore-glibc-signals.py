"""ignore-glibc-signals.py COMMAND ARG...: run COMMAND with signals 32 and 33 ignored.

glibc keeps those two for itself and refuses to set them (EINVAL), but the
kernel lets any process ignore them, and an ignored signal survives execve:
a uid 65534 pass of make check once started so. The kernel's own call
(x86-64's rt_sigaction, number 13), with its struct: handler, flags,
restorer, mask. Other architectures: COMMAND runs unchanged.
"""
import ctypes
import os
import platform
import sys

if platform.machine() == "x86_64":
    libc = ctypes.CDLL(None, use_errno=True)
    act = (ctypes.c_ulong * 4)(1, 0, 0, 0)  # SIG_IGN, no flags, no restorer, empty mask
    for sig in (32, 33):
        if libc.syscall(13, sig, act, None, 8) != 0:
            sys.exit("ignore-glibc-signals: rt_sigaction(%d): errno %d" % (sig, ctypes.get_errno()))
os.execvp(sys.argv[1], sys.argv[1:])
