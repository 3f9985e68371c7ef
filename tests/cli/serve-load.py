#!/usr/bin/env python3
"""serve-load.py - N requests from C concurrent loopback clients against `sandeval serve`; every answer accounted for

Each request runs a program that prints a nonce of its own; a 200 must carry
exactly its request's nonce (nothing lost, nothing answered twice or to the
wrong client), anything else must be 429 or 503 with {error, message}.
Prints one JSON object: counts, latency percentiles of the 200s, throughput.
Sends only to the URL given (loopback in the tests and bench/serve.sh).

usage: serve-load.py URL [--requests N] [--clients C] [--language bash|python] [--token FILE] [--backoff SECONDS]

--backoff: a client turned away (503) waits this long before its next
request (never the same one again), as a polite client would; 0: at once.
"""
import argparse
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    k = max(0, min(len(sorted_values) - 1, int(round(p / 100.0 * (len(sorted_values) - 1)))))
    return sorted_values[k]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--language", default="bash", choices=["bash", "python"])
    ap.add_argument("--token")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--backoff", type=float, default=0)
    a = ap.parse_args()
    u = urllib.parse.urlparse(a.url)
    headers = {"Content-Type": "application/json"}
    if a.token:
        headers["Authorization"] = "Bearer " + open(a.token).read().strip()

    lock = threading.Lock()
    next_i = [0]
    answers = {}             # request index -> (http status, nonce seen or None, seconds)
    problems = []

    def body(i):
        nonce = f"n{os.getpid()}-{i}"
        code = f"echo {nonce}" if a.language == "bash" else f"print('{nonce}')"
        return nonce, json.dumps({"code": code, "language": a.language, "run_timeout": 30})

    def client():
        conn = None
        while True:
            with lock:
                i = next_i[0]
                if i >= a.requests:
                    break
                next_i[0] += 1
            nonce, payload = body(i)
            t0 = time.monotonic()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=a.timeout)
                conn.request("POST", "/run_code", payload, headers)
                r = conn.getresponse()
                data = r.read()
                status = r.status
                if r.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = None
            except (ConnectionError, http.client.HTTPException, OSError) as e:
                # no retry: a request must be answered the first time
                if conn:
                    conn.close()
                conn = None
                status, data = None, f"{type(e).__name__}: {e}".encode()
            secs = time.monotonic() - t0
            seen = None
            try:
                doc = json.loads(data)
            except ValueError:
                doc = None
            if status == 200 and isinstance(doc, dict) and isinstance(doc.get("run_result"), dict):
                seen = doc["run_result"].get("stdout")
                if seen != nonce + "\n":
                    with lock:
                        problems.append(f"request {i}: stdout {seen!r}, expected {nonce!r}")
            elif status in (429, 503) and isinstance(doc, dict) and "error" in doc and "message" in doc:
                pass
            else:
                with lock:
                    problems.append(f"request {i}: HTTP {status}: {data[:300]!r}")
            with lock:
                if i in answers:
                    problems.append(f"request {i}: answered twice")
                answers[i] = (status, seen, secs)
            if status in (429, 503) and a.backoff > 0:
                time.sleep(a.backoff)
        if conn:
            conn.close()

    t0 = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(a.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    missing = [i for i in range(a.requests) if i not in answers]
    ok = sorted(s for st, _, s in answers.values() if st == 200)
    counts = {}
    for st, _, _ in answers.values():
        counts[str(st)] = counts.get(str(st), 0) + 1
    out = {
        "requests": a.requests, "clients": a.clients, "language": a.language, "answered": len(answers),
        "missing": len(missing), "status": counts, "problems": problems[:20], "n_problems": len(problems),
        "seconds": round(wall, 3), "served_per_second": round(len(ok) / wall, 1) if wall else None,
        "answered_per_second": round(len(answers) / wall, 1) if wall else None,
        "p50_ms": round(percentile(ok, 50) * 1000, 1) if ok else None,
        "p99_ms": round(percentile(ok, 99) * 1000, 1) if ok else None,
        "max_ms": round(ok[-1] * 1000, 1) if ok else None,
    }
    print(json.dumps(out))
    sys.exit(0 if not missing and not problems and len(answers) == a.requests else 1)


if __name__ == "__main__":
    main()
