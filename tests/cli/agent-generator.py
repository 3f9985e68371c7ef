#!/usr/bin/env python3
"""agent-generator.py MODE [ANSWERS] - a --generator program for agent.bats: reads one JSON request on stdin, prints one answer.

MODE: ok (ANSWERS' "first" answer, "fixed" once the request carries
feedback; usage 7 + 3 tokens per candidate; a plan or reflect step gets a
line of text, 1 + 1 tokens), garbage (not JSON), hang
(never answers), empty (one empty completion), huge (one completion of
50 MB), fail (exits 3). Every request is appended to $AGENT_GEN_LOG when set.
With $AGENT_GEN_SLEEP_ROUND set, a request of that round writes the
program's pid to $AGENT_GEN_PIDFILE and sleeps (a run to kill mid-way).
"""
import json
import os
import sys
import time

mode = sys.argv[1]
req = json.load(sys.stdin)
if os.environ.get("AGENT_GEN_LOG"):
    with open(os.environ["AGENT_GEN_LOG"], "a") as log:
        log.write(json.dumps(req) + "\n")
if os.environ.get("AGENT_GEN_SLEEP_ROUND") == str(req["round"]):
    with open(os.environ["AGENT_GEN_PIDFILE"], "w") as f:
        f.write(str(os.getpid()))
    time.sleep(120)
if mode == "garbage":
    print("this is not JSON {")
elif mode == "hang":
    time.sleep(3600)
elif mode == "fail":
    sys.exit(3)
elif mode == "empty":
    print(json.dumps({"completions": [""]}))
elif mode == "huge":
    sys.stdout.write(json.dumps({"completions": ["#" * (50 << 20)]}))
elif req.get("step") in ("plan", "reflect"):
    print(json.dumps({"completions": ["%s for %s, round %d" % (req["step"], req["task_id"], req["round"])],
                      "usage": {"prompt_tokens": 1, "completion_tokens": 1}}))
else:
    answers = json.load(open(sys.argv[2]))
    entry = req["entry_point"]
    code = answers[entry]["fixed" if req.get("feedback") else "first"]
    k = req["k"]
    print(json.dumps({"completions": [code] * k, "usage": {"prompt_tokens": 7 * k, "completion_tokens": 3 * k}}))
