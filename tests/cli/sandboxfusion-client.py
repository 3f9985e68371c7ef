#!/usr/bin/env python3
"""sandboxfusion-client.py - a client that knows only SandboxFusion's /run_code API, run against `sandeval serve`

Written from SandboxFusion's documented shapes (its RunCodeRequest and
RunCodeResponse: sandbox/server/sandbox_api.py, sandbox/runners/types.py),
with the Python standard library only. It sends what SandboxFusion's
clients (verl among them) send, reads only SandboxFusion's fields, and
checks every answer against SandboxFusion's response model. Prints TAP.

usage: sandboxfusion-client.py URL [--backend native|gvisor]
"""
import base64
import json
import sys
import urllib.error
import urllib.request

RUN_STATUSES = {"Success", "Failed", "SandboxError"}
COMMAND_STATUSES = {"Finished", "Error", "TimeLimitExceeded"}


class ShapeError(Exception):
    pass


def check_command_result(name, r):
    """SandboxFusion's CommandRunResult: status, and optional execution_time, return_code, stdout, stderr."""
    if r is None:
        return
    if not isinstance(r, dict):
        raise ShapeError(f"{name}: not an object")
    if r.get("status") not in COMMAND_STATUSES:
        raise ShapeError(f"{name}.status: {r.get('status')!r}")
    for key, types in (("execution_time", (int, float)), ("return_code", (int,)), ("stdout", (str,)),
                       ("stderr", (str,))):
        v = r.get(key)
        if v is not None and (not isinstance(v, types) or isinstance(v, bool)):
            raise ShapeError(f"{name}.{key}: {v!r}")


def check_response(resp):
    """SandboxFusion's RunCodeResponse: status, message, compile_result, run_result, files."""
    if resp.get("status") not in RUN_STATUSES:
        raise ShapeError(f"status: {resp.get('status')!r}")
    if not isinstance(resp.get("message"), str):
        raise ShapeError(f"message: {resp.get('message')!r}")
    check_command_result("compile_result", resp.get("compile_result"))
    check_command_result("run_result", resp.get("run_result"))
    files = resp.get("files", {})
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        raise ShapeError(f"files: {files!r}")


def run_code(url, code, language, compile_timeout=10, run_timeout=10, memory_limit_mb=-1, stdin=None,
             files=None, fetch_files=None):
    payload = json.dumps({
        "compile_timeout": compile_timeout,
        "run_timeout": run_timeout,
        "code": code,
        "stdin": stdin,
        "memory_limit_MB": memory_limit_mb,
        "language": language,
        "files": files or {},
        "fetch_files": fetch_files or [],
    }).encode()
    req = urllib.request.Request(url + "/run_code", data=payload,
                                 headers={"Content-Type": "application/json", "Accept": "application/json"})
    timeout = compile_timeout + run_timeout + 60
    with urllib.request.urlopen(req, timeout=timeout) as r:
        if r.status != 200:
            raise ShapeError(f"HTTP {r.status}")
        resp = json.load(r)
    check_response(resp)
    return resp


CPP_SUM = r"""
#include <iostream>
#include <vector>
int main() {
    std::vector<long> v; long x, s = 0;
    while (std::cin >> x) v.push_back(x);
    for (long y : v) s += y;
    std::cout << s << std::endl;
}
"""

C_SQUARE = r"""
#include <stdio.h>
int main(void) { int x; if (scanf("%d", &x) != 1) return 2; printf("%d\n", x * x); return 0; }
"""

C_FORK_BOMB = r"""
#include <unistd.h>
int main(void) { for (;;) fork(); }
"""


def cases(url):
    """(name, call, check): check(resp) returns None when right, else what is wrong."""
    def expect(status, run_status=None, rc=None, stdout=None, compile_status=None):
        def check(r):
            rr, cr = r.get("run_result"), r.get("compile_result")
            if r["status"] != status:
                return f"status {r['status']!r}, expected {status!r} ({r.get('message')!r})"
            if compile_status and (not cr or cr["status"] != compile_status):
                return f"compile_result {cr!r}, expected status {compile_status!r}"
            if run_status and (not rr or rr["status"] != run_status):
                return f"run_result {rr and rr['status']!r}, expected {run_status!r}"
            if rc is not None and rr["return_code"] != rc:
                return f"return_code {rr['return_code']!r}, expected {rc!r}"
            if stdout is not None and rr["stdout"] != stdout:
                return f"stdout {rr['stdout']!r}, expected {stdout!r}"
            return None
        return check

    def failed_nonzero(r):
        rr = r.get("run_result")
        if r["status"] != "Failed" or not rr:
            return f"status {r['status']!r}, run_result {rr!r}"
        if rr["status"] == "Finished" and rr["return_code"] == 0:
            return "a return code of 0"
        return None

    def no_run_after_compile_error(r):
        cr = r.get("compile_result")
        if r["status"] != "Failed" or not cr or cr["status"] != "Finished" or cr["return_code"] == 0:
            return f"status {r['status']!r}, compile_result {cr!r}"
        if r.get("run_result") is not None:
            return "a run after a failed compile"
        if "error" not in cr["stderr"]:
            return f"compiler messages {cr['stderr']!r}"
        return None

    def flood(r):
        rr = r.get("run_result")
        if r["status"] != "Failed" or not rr or len(rr["stdout"]) > (1 << 20):
            return f"status {r['status']!r}, stdout of {rr and len(rr['stdout'])} characters"
        return None

    def unknown_language(r):
        if r["status"] != "SandboxError" or "go" not in r["message"]:
            return f"status {r['status']!r}, message {r['message']!r}"
        return None

    def fetched(r):
        if r["status"] != "Success":
            return f"status {r['status']!r} ({r['run_result']!r})"
        if r["run_result"]["stdout"] != "hello from a file\n":
            return f"stdout {r['run_result']['stdout']!r}"
        got = {k: base64.b64decode(v) for k, v in r["files"].items()}
        if got != {"out/result.txt": b"written\x00\xff"}:
            return f"files {got!r}"
        return None

    return [
        ("python prints", lambda: run_code(url, "print('hello')", "python"), expect("Success", "Finished", 0, "hello\n")),
        ("python reads stdin", lambda: run_code(url, "import sys\nprint(sys.stdin.read().upper())", "python", stdin="abc"),
         expect("Success", "Finished", 0, "ABC\n")),
        ("python nonzero exit", lambda: run_code(url, "import sys\nsys.exit(3)", "python"), expect("Failed", "Finished", 3)),
        ("python exception", lambda: run_code(url, "raise ValueError('x')", "python"), failed_nonzero),
        ("cpp compiles and runs", lambda: run_code(url, CPP_SUM, "cpp", stdin="1 2 3 39"),
         expect("Success", "Finished", 0, "45\n", compile_status="Finished")),
        ("c compiles and runs", lambda: run_code(url, C_SQUARE, "c", stdin="12"),
         expect("Success", "Finished", 0, "144\n", compile_status="Finished")),
        ("cpp compile error", lambda: run_code(url, "int main() { return x; }", "cpp"), no_run_after_compile_error),
        ("nodejs prints", lambda: run_code(url, "console.log([1,2,3].map(x => x * 2).join(','))", "nodejs"),
         expect("Success", "Finished", 0, "2,4,6\n")),
        ("nodejs reads stdin", lambda: run_code(url, "process.stdout.write(require('fs').readFileSync(0, 'utf8').trim() + '!')",
                                                 "nodejs", stdin="hey\n"), expect("Success", "Finished", 0, "hey!")),
        ("python timeout", lambda: run_code(url, "while True:\n    pass", "python", run_timeout=1),
         expect("Failed", "TimeLimitExceeded")),
        ("python sleeps past its timeout", lambda: run_code(url, "import time\ntime.sleep(30)", "python", run_timeout=0.5),
         expect("Failed", "TimeLimitExceeded")),
        ("nodejs timeout", lambda: run_code(url, "for (;;) {}", "nodejs", run_timeout=1), expect("Failed", "TimeLimitExceeded")),
        ("cpp timeout", lambda: run_code(url, "int main() { for (;;) {} }", "cpp", run_timeout=1),
         expect("Failed", "TimeLimitExceeded", compile_status="Finished")),
        ("cpp compile timeout", lambda: run_code(url, CPP_SUM, "cpp", compile_timeout=0.001),
         expect("Failed", compile_status="TimeLimitExceeded")),
        ("python fork bomb", lambda: run_code(url, "import os\nwhile True:\n    os.fork()", "python", run_timeout=5),
         failed_nonzero),
        ("c fork bomb", lambda: run_code(url, C_FORK_BOMB, "cpp", run_timeout=2), failed_nonzero),
        ("python memory hog", lambda: run_code(url, "a = []\nwhile True:\n    a.append(bytearray(1 << 24))", "python",
                                               memory_limit_mb=64, run_timeout=10), failed_nonzero),
        ("cpp memory hog", lambda: run_code(url, "#include <cstring>\n#include <cstdlib>\nint main() { for (;;) "
                                                 "{ char *p = (char *)malloc(1 << 24); if (p) memset(p, 1, 1 << 24); } }",
                                            "cpp", memory_limit_mb=64, run_timeout=10), failed_nonzero),
        ("output flood", lambda: run_code(url, "while True:\n    print('x' * 4096)", "python", run_timeout=10), flood),
        ("unknown language", lambda: run_code(url, "package main", "go"), unknown_language),
        ("files in, files out", lambda: run_code(
            url, "import os\nprint(open('data/in.txt').read(), end='')\nos.makedirs('out', exist_ok=True)\n"
                 "open('out/result.txt', 'wb').write(b'written\\x00\\xff')", "python",
            files={"data/in.txt": base64.b64encode(b"hello from a file\n").decode()},
            fetch_files=["out/result.txt", "not/there.txt"]), fetched),
        ("still serving after all that", lambda: run_code(url, "print(6 * 7)", "python"), expect("Success", "Finished", 0, "42\n")),
    ]


def main():
    url = sys.argv[1].rstrip("/")
    todo = cases(url)
    print(f"1..{len(todo)}")
    bad = 0
    for i, (name, call, check) in enumerate(todo, 1):
        try:
            resp = call()
            why = check(resp)
        except (ShapeError, urllib.error.URLError, OSError, ValueError, KeyError, TypeError) as e:
            why, resp = f"{type(e).__name__}: {e}", None
        if why:
            bad += 1
            print(f"not ok {i} - {name}: {why}")
            if resp is not None:
                print("# " + json.dumps(resp)[:2000])
        else:
            print(f"ok {i} - {name}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
