# Makefile - sandeval: build, test, demo (one plain, non-recursive GNU Makefile)
#   make                 build ./sandeval
#   make check           install what tests need, run unit + CLI tests (root and unprivileged)
#   make demo            run the bundled example
#   make SANITIZE=address,undefined check

CC ?= cc
PKGS := libseccomp jansson
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)

WARN := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-unused-parameter -Wno-format-truncation -Werror=shadow -Werror=strict-prototypes -Werror=missing-prototypes \
	-Werror=implicit-function-declaration
HARDEN := -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fstack-clash-protection -fPIE
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=c11 $(WARN) $(HARDEN) $(CFLAGS) -Isrc/lib -MMD -MP \
	-DSANDEVAL_VERSION='"$(VERSION)"' $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
ALL_LDFLAGS = -pie -Wl,-z,relro,-z,now $(LDFLAGS)
LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm

ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
HARDEN := -fstack-protector-strong -fPIE
endif

LIB_SRC := $(wildcard src/lib/*.c)
LIB_OBJ := $(LIB_SRC:.c=.o)
CMD_SRC := $(wildcard src/cmd/*.c)
CMD_OBJ := $(CMD_SRC:.c=.o)
UNIT_SRC := $(wildcard tests/unit/test-*.c)
UNIT_BIN := $(UNIT_SRC:.c=)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_BIN := $(FUZZ_SRC:.c=)

all: sandeval tests/probe/probe

libsandeval.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

sandeval: $(CMD_OBJ) libsandeval.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(CMD_OBJ) libsandeval.a $(LIBS)

%.o: %.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The probe misbehaves on purpose inside the sandbox; static, so any image runs it.
tests/probe/probe: tests/probe/probe.c
	$(CC) -std=c11 -O2 -Wall -Wextra -static -o $@ $<

tests/unit/test-%: tests/unit/test-%.c libsandeval.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< libsandeval.a $(LIBS) -lcmocka

# Fuzz targets: a replay main() under gcc; libFuzzer under clang (make fuzz CC=clang).
tests/fuzz/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/replay.c libsandeval.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< tests/fuzz/replay.c libsandeval.a $(LIBS)

deps:
	@sh scripts/deps.sh

check: deps all $(UNIT_BIN) $(FUZZ_BIN)
	@sh tests/run.sh

demo: deps all
	@sh examples/demo.sh

bench: deps all
	@sh bench/exec.sh

clean:
	rm -f sandeval libsandeval.a tests/probe/probe $(UNIT_BIN) $(FUZZ_BIN)
	find src tests -name '*.[od]' -delete

.PHONY: all deps check demo bench clean
-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d)
