#!/usr/bin/env python3
"""agent-server.py - a small OpenAI-compatible chat completions server for agent.bats, on loopback only.

It answers POST /chat/completions from a script of answers keyed by the
entry point named in the conversation's first user message:
  {"ENTRY": {"first": CODE, "fixed": CODE}}
"first" is the answer while the conversation holds no feedback; "fixed"
once the last user message carries the loop's feedback (so the loop only
self-corrects if it really sends the failure back). Every request is logged
(one JSON line: its body, whether the Authorization header was the expected
bearer token) so that the tests can look at what the model was shown.

Faults, to test the client: --fail-first N answers the first N requests
with HTTP STATUS (--status, default 429); --status-always STATUS answers
every request with it (echoing the Authorization header, as a careless
server might); --slow SECONDS waits before each answer. Usage is
10 prompt and 5 completion tokens per answer. The server exits after
--lifetime seconds whatever happens (bounded in time), and writes the port
it listens on to --port-file.
"""
import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--answers", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--key", default=None)
    ap.add_argument("--fail-first", type=int, default=0)
    ap.add_argument("--status", type=int, default=429)
    ap.add_argument("--status-always", type=int, default=0)
    ap.add_argument("--slow", type=float, default=0)
    ap.add_argument("--lifetime", type=float, default=120)
    args = ap.parse_args()
    answers = json.load(open(args.answers))
    lock = threading.Lock()
    state = {"n": 0}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *a):
            pass

        def reply(self, status, doc):
            body = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            with lock:
                state["n"] += 1
                n = state["n"]
                auth = self.headers.get("Authorization")
                with open(args.log, "a") as log:
                    log.write(json.dumps({"n": n, "path": self.path,
                                          "auth_ok": auth == ("Bearer %s" % args.key if args.key else None),
                                          "body": raw.decode("utf-8", "replace")}) + "\n")
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self.reply(404, {"error": {"message": "no route %s" % self.path}})
            if args.slow:
                time.sleep(args.slow)
            if args.status_always:
                # a careless server that echoes the request's header: the client must mask it
                return self.reply(args.status_always, {"error": {"message": "scripted failure for %s" % auth}})
            if n <= args.fail_first:
                return self.reply(args.status, {"error": {"message": "scripted failure %d" % n}})
            if args.key and auth != "Bearer %s" % args.key:
                return self.reply(401, {"error": {"message": "bad key"}})
            body = json.loads(raw)
            msgs = body["messages"]
            first_user = next(m["content"] for m in msgs if m["role"] == "user")
            entry = next((e for e in answers if e in first_user), None)
            if entry is None:
                return self.reply(400, {"error": {"message": "no scripted task in the prompt"}})
            fixed = msgs[-1]["role"] == "user" and "failed the task's public tests" in msgs[-1]["content"]
            code = answers[entry]["fixed" if fixed else "first"]
            self.reply(200, {"id": "x%d" % n, "object": "chat.completion", "model": body.get("model"),
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant",
                                                      "content": "Here it is:\n```python\n%s```\n" % code}}],
                             "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Timer(args.lifetime, server.shutdown).start()
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.rename(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
