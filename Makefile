# kwarn: see README.md.  `make`, `make check`, `make demo`, `make bench`.

CC ?= gcc
PKGS = sqlite3 libgit2 jansson libmicrohttpd zlib libcrypto
WERROR ?= -Werror
WARN = -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wshadow \
       -Wpointer-arith -Wcast-qual -Wsign-compare -Wno-unused-parameter \
       -Wimplicit-fallthrough=5 -Wformat=2 -Wvla
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(WERROR) $(CFLAGS) \
	     $(shell pkg-config --cflags $(PKGS) 2>/dev/null) -Icommon -Ischema -Ilib
LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread
PREFIX ?= /usr/local
DESTDIR ?=

B = build
COMMON_SRC = $(wildcard common/*.c) schema/db.c
SCHEMA_SQL = $(sort $(wildcard schema/[0-9][0-9][0-9][0-9]-*.sql))
# libkwarn: what both programs share (lib/, common/, schema/).
LIBKWARN_SRC = $(wildcard lib/*.c) $(COMMON_SRC)
# Each program: its own folder; the tests link these archives too.
COLLECTOR_MAINS = collector/main.c collector/cc.c
COLLECTOR_SRC = $(filter-out $(COLLECTOR_MAINS),$(wildcard collector/*.c))
SERVER_MAINS = server/main.c
SERVER_SRC = $(filter-out $(SERVER_MAINS),$(wildcard server/*.c))
UNIT_SRC = $(wildcard tests/unit/test-*.c)
UNIT_BIN = $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
ASAN_BIN = $(patsubst tests/unit/%.c,$(B)/asan/tests/%,$(UNIT_SRC))

LIB_OBJ = $(patsubst %.c,$(B)/%.o,$(LIBKWARN_SRC)) $(B)/schema/migrations.o
COLLECTOR_OBJ = $(patsubst %.c,$(B)/%.o,$(COLLECTOR_SRC))
SERVER_OBJ = $(patsubst %.c,$(B)/%.o,$(SERVER_SRC))
ARCHIVES = collector server libkwarn
TEST_LIBS = $(B)/collector.a $(B)/server.a $(B)/libkwarn.a
ASAN_LIB_OBJ = $(patsubst $(B)/%,$(B)/asan/%,$(LIB_OBJ))

PROGS = bin/kwarn bin/kwarn-cc $(if $(wildcard server/main.c),bin/kwarn-server)

all: $(PROGS)

$(B)/schema/migrations.c: $(SCHEMA_SQL) scripts/embed-sql
	@mkdir -p $(@D)
	scripts/embed-sql $(SCHEMA_SQL) > $@.tmp && mv $@.tmp $@

$(B)/schema/migrations.o: $(B)/schema/migrations.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/libkwarn.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(B)/collector.a: $(COLLECTOR_OBJ)
	rm -f $@ && ar rcs $@ $^

$(B)/server.a: $(SERVER_OBJ)
	rm -f $@ && ar rcs $@ $^

bin/kwarn: $(B)/collector/main.o $(B)/collector.a $(B)/libkwarn.a
	@mkdir -p bin
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS)

# The compiler launcher: small, no database, so each compile pays little.
bin/kwarn-cc: $(B)/collector/cc.o $(B)/lib/capture.o
	@mkdir -p bin
	$(CC) $(ALL_CFLAGS) -o $@ $^

bin/kwarn-server: $(B)/server/main.o $(B)/server.a $(B)/libkwarn.a
	@mkdir -p bin
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS)

$(B)/tests/%: tests/unit/%.c tests/unit/tap.h $(TEST_LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Icollector -Iserver -o $@ $< $(TEST_LIBS) $(LIBS)

# Sanitizer build of the unit tests.
SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
$(B)/asan/schema/migrations.o: $(B)/schema/migrations.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN) -c -o $@ $<
$(B)/asan/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN) -MMD -MP -c -o $@ $<
$(B)/asan/libkwarn.a: $(ASAN_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^
$(B)/asan/collector.a: $(patsubst $(B)/%,$(B)/asan/%,$(COLLECTOR_OBJ))
	rm -f $@ && ar rcs $@ $^
$(B)/asan/server.a: $(patsubst $(B)/%,$(B)/asan/%,$(SERVER_OBJ))
	rm -f $@ && ar rcs $@ $^
ASAN_TEST_LIBS = $(patsubst $(B)/%,$(B)/asan/%,$(TEST_LIBS))
$(B)/asan/tests/%: tests/unit/%.c tests/unit/tap.h $(ASAN_TEST_LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN) -Icollector -Iserver -o $@ $< $(ASAN_TEST_LIBS) $(LIBS)

# The parser fuzzer (libFuzzer, clang).
FUZZ_SRC = tests/fuzz/fuzz-parse.c lib/parse.c common/strbuf.c common/util.c \
	common/child.c
$(B)/fuzz-parse: $(FUZZ_SRC)
	@mkdir -p $(@D)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -Icommon -Ilib \
		-fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_SRC) -ljansson -lcrypto

# The triage fuzzer: the POST body and the import line.
FUZZ_TRIAGE_SRC = tests/fuzz/fuzz-triage.c lib/triage.c lib/json.c \
	common/strbuf.c common/util.c common/child.c
$(B)/fuzz-triage: $(FUZZ_TRIAGE_SRC)
	@mkdir -p $(@D)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -Icommon -Ischema -Ilib \
		-fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_TRIAGE_SRC) \
		-ljansson -lsqlite3 -lcrypto

# The request-path fuzzer: the library built again with clang, for
# coverage and sanitizers, run on an in-memory database.
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -g -O1 -Icommon -Ischema -Ilib \
	-Iserver $(shell pkg-config --cflags $(PKGS) 2>/dev/null) \
	-fsanitize=fuzzer-no-link,address,undefined
FUZZ_LIB_OBJ = $(patsubst $(B)/%,$(B)/fuzz/%,$(LIB_OBJ) $(SERVER_OBJ))
$(B)/fuzz/schema/migrations.o: $(B)/schema/migrations.c
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -c -o $@ $<
$(B)/fuzz/%.o: %.c
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<
$(B)/fuzz-request: tests/fuzz/fuzz-request.c $(FUZZ_LIB_OBJ)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

deps:
	scripts/install-deps

unit: $(UNIT_BIN) $(ASAN_BIN)

# tests/run: prove's harness, then 'N passed, N failed, N skipped'; it
# fails on a skip that tests/skip-allow.txt does not allow.
check: deps
	$(MAKE) all unit
	tests/run

# The edit-compile-test tier: every test but those that build or boot a
# kernel (marked "# kwarn-test: kernel"), the fuzzers 10 s each instead of
# 30.  make check stays the whole suite.
check-fast: deps
	$(MAKE) all unit
	FUZZ_CHECK_SECONDS=$${FUZZ_CHECK_SECONDS:-10} tests/run --fast

fuzz: $(B)/fuzz-parse
	mkdir -p $(B)/fuzz-corpus
	$(B)/fuzz-parse -max_total_time=$${FUZZ_SECONDS:-600} -max_len=65536 \
		$(B)/fuzz-corpus tests/data/parse

fuzz-request: $(B)/fuzz-request
	mkdir -p $(B)/fuzz-request-corpus
	$(B)/fuzz-request -max_total_time=$${FUZZ_SECONDS:-600} -max_len=4096 \
		$(B)/fuzz-request-corpus tests/data/fuzz-request

bench: deps all
	bench/run

# The classifier against known bugs and intended sites, and the full gcc
# agreement set of the fall-through level rules.
eval: deps all
	bench/eval-classifier
	KWARN_LEVELS_FULL=1 prove -v tests/52-levels-gcc.t

demo: deps all
	scripts/demo

style-check:
	scripts/style-check

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/kwarn \
		$(DESTDIR)$(PREFIX)/lib/systemd/system $(DESTDIR)/etc/cron.d \
		$(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(PROGS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 doc/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	cp -r kernel web qemu README.md $(DESTDIR)$(PREFIX)/share/kwarn/
	for f in kwarn-nightly.service kwarn-nightly.timer; do \
		sed 's|@PREFIX@|$(PREFIX)|g' scripts/nightly/$$f \
			> $(DESTDIR)$(PREFIX)/lib/systemd/system/$$f; done
	sed 's|@PREFIX@|$(PREFIX)|g' scripts/nightly/kwarn-nightly.cron \
		> $(DESTDIR)/etc/cron.d/kwarn-nightly

clean:
	rm -rf $(B) bin

.PHONY: all deps unit check check-fast fuzz fuzz-request bench eval demo style-check install clean
.SECONDARY:

-include $(shell find $(B) -name '*.d' 2>/dev/null)
