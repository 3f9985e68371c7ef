"""split-check.py - the driver's split of test code runs the same code as the test file: every part it hands on
(set-up, statements, assert blocks, the two sides of a comparison) has the syntax tree of the node it was taken from.

usage: python3 split-check.py RUNNERS_DIR FILE...; FILE: HumanEval (.jsonl or .jsonl.gz, its "test") or MBPP
(.jsonl, its "test_setup_code" and "test_list"). Prints "ok N" (parts compared) or fails naming the first that differs.
The split takes a one-line part's text as the file has it and unparses the others (runners/driver.py, split_tests);
ast.dump leaves positions out, so equal dumps mean the same code.
"""
import ast
import gzip
import json
import sys

sys.path[:0] = [sys.argv[1], sys.argv[1] + "/python"]
import driver  # noqa: E402


def texts(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        for line in f:
            t = json.loads(line)
            if "test" in t:
                yield t["task_id"], t["test"]
            else:
                yield "MBPP/%s" % t["task_id"], "\n".join([t.get("test_setup_code") or ""] + t["test_list"])


def same(code, node, what, mode="exec"):
    got = ast.parse(code, mode=mode)
    got = got.body if mode == "eval" else got.body[0] if len(got.body) == 1 else got
    if ast.dump(got) != ast.dump(node):
        sys.exit("split-check: %s: %r is not the code of the file's %s" % (what, code, ast.dump(node)[:200]))
    return 1


n = 0
for path in sys.argv[2:]:
    for tid, text in texts(path):
        split = driver.split_tests(text)
        tree = ast.parse(text)
        check = next((x for x in tree.body if isinstance(x, ast.FunctionDef) and x.name == "check"), None)
        nodes = [x for x in (check.body if check else tree.body)
                 if not (isinstance(x, ast.Assert) and isinstance(x.test, ast.Constant))]
        setup = [x for x in tree.body if x is not check] if check else []
        if len(nodes) != len(split["steps"]) or len(setup) != len(split["setup"]):
            sys.exit("split-check: %s: %d steps and %d set-up statements, the file has %d and %d" % (
                tid, len(split["steps"]), len(split["setup"]), len(nodes), len(setup)))
        for code, node in zip(split["setup"], setup):
            n += same(code, node, tid + " set-up")
        for step, node in zip(split["steps"], nodes):
            n += same(step.get("stmt", step.get("block")), node, "%s line %d" % (tid, node.lineno))
            if "left" in step:
                n += same(step["left"], node.test.left, "%s line %d, left" % (tid, node.lineno), "eval")
                n += same(step["right"], node.test.comparators[0], "%s line %d, right" % (tid, node.lineno), "eval")
print("ok %d" % n)
