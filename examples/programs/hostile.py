# What a hostile candidate tries; inside the sandbox every attempt fails.
import os, socket

def attempt(name, fn):
    try:
        fn()
        print(f"{name}: SUCCEEDED")
    except Exception as e:
        print(f"{name}: blocked ({type(e).__name__})")

attempt("read /root", lambda: os.listdir("/root"))
attempt("read host /home", lambda: os.listdir("/home"))
attempt("write /usr/bin/x", lambda: open("/usr/bin/x", "w"))
attempt("write /proc/sys/kernel/core_pattern", lambda: open("/proc/sys/kernel/core_pattern", "w"))
def metadata_service():
    # Only with nothing but loopback in sight: a broken sandbox sends no packet.
    if open("/proc/net/dev").read().count(":") != 1:
        raise SystemExit("network namespace missing: SUCCEEDED in seeing the host's interfaces")
    socket.create_connection(("169.254.169.254", 80), timeout=1)

attempt("connect to 169.254.169.254:80", metadata_service)
attempt("kill every process", lambda: os.kill(-1, 9))
def delete_own_file():
    os.unlink("/work/hostile.py")

attempt("delete its own (read-only) file", delete_own_file)
print("still here, as uid", os.getuid(), "on host", socket.gethostname())
