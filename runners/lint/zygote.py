"""zygote.py (lint) - warm lint starts: one python3 that has loaded the Python linters forks each lint sandbox's driver.

sandeval starts it as `python3 -I -S lint/zygote.py 3` with a socket on fd 3
and the sandbox's environment, as it starts runners/zygote.py for the tests
(src/lib/sandbox/zygote.h). It finds the linters of lint.json that are
Python scripts of this very interpreter (flake8, bandit: `#!/usr/bin/python3`),
compiles each and runs it once here on a file of its own (lint.py: trusted,
output thrown away), so that every module and plugin it loads lazily is
loaded. Then sandeval-zygote.so clones a fresh lint sandbox per sample; in
the sandbox's program process lint.py runs as on a cold start, except that
it runs those scripts' code itself, warm, instead of executing them
(lint.py, run_inline). No candidate's text is ever in this process: it
reaches the sandbox's /work after the clone.
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.dirname(here)]
try:
    import json
    import shutil
    import site
    site.main()  # the linters' modules (dist-packages), which -S left out
    import lint
    import warm
    del sys.path[1]  # runners/: no module of its may shadow a linter's

    def warm_scripts():
        """{real path: compiled code} of lint.json's tools that are python3 scripts of this interpreter."""
        with open(os.path.join(here, "lint.json")) as f:
            conf = json.load(f)
        me = os.path.realpath(sys.executable)
        found = {}
        for lang in conf.values():
            for tool in lang.get("tools", []) if isinstance(lang, dict) else []:
                exe = shutil.which(tool["argv"][0], path="/usr/local/bin:/usr/bin:/bin")
                if not exe or os.path.realpath(exe) in found:
                    continue
                with open(exe, "rb") as f:
                    text = f.read(1 << 20)
                first = text.split(b"\n", 1)[0]
                if not first.startswith(b"#!") or os.path.realpath(first[2:].decode().strip()) != me:
                    continue
                found[os.path.realpath(exe)] = (compile(text, exe, "exec"), exe, tool["argv"])
        return found

    def warm_up(code, exe, argv):
        """Run the script once here on lint.py, its output thrown away, to load what it loads lazily."""
        source = os.path.join(here, "lint.py")
        args = [a.replace("{source}", source).replace("{dir}", here) for a in argv[1:]]
        saved = sys.argv, sys.stdout, sys.stderr, sys.modules["__main__"]
        main = type(sys)("__main__")
        main.__file__ = exe
        sys.modules["__main__"] = main
        sys.argv = [exe] + args
        sys.stdout = sys.stderr = open(os.devnull, "w")
        try:
            exec(code, main.__dict__)
        except BaseException:
            pass
        finally:
            sys.argv, sys.stdout, sys.stderr, sys.modules["__main__"] = saved

    def memo_flake8_plugins():
        """flake8 finds its plugins (the entry points of every installed
        distribution) and imports them on each run: a third of a warm run.
        Found and loaded once here, for the same configuration and plugin
        options (lint.json's flake8 runs --isolated: no configuration), the
        answer is the one a new run would compute, as long as no package is
        installed meanwhile; its plugins' modules are loaded here once anyway."""
        try:
            from flake8.plugins import finder
        except ImportError:
            return
        find, load, memo = finder.find_plugins, finder.load_plugins, {}

        def find_plugins(cfg, opts):
            key = ("find", tuple((s, tuple(cfg.items(s))) for s in cfg.sections()), opts)
            if key not in memo:
                memo[key] = find(cfg, opts)
            return list(memo[key])

        def load_plugins(plugins, opts):
            key = ("load", repr(plugins), opts)
            if key not in memo:
                memo[key] = load(plugins, opts)
            return memo[key]
        finder.find_plugins, finder.load_plugins = find_plugins, load_plugins

    memo_flake8_plugins()
    scripts = warm_scripts()
    for code, exe, argv in scripts.values():
        warm_up(code, exe, argv)
    scripts = {path: code for path, (code, exe, argv) in scripts.items()}
    lib = warm.load(os.path.dirname(here))
except BaseException as e:
    os.write(3, ("cannot load the linters: %s: %s" % (type(e).__name__, e)).encode()[:500])
    os._exit(1)

warm.serve(lib)
# A lint sandbox's program process: argv is what a cold start would execute,
# python3 -I -S /work/.sandeval/lint.py
sys.path[0] = os.path.dirname(sys.argv[0])
lint.main(scripts)
sys.stdout.flush()
os._exit(0)
