# gaussaudit - flat Makefile.
#   make            build build/gaussaudit and build/libgaussaudit.a
#   make test       install missing Debian packages, build, run the Criterion suite
#   make check      the same without installing; MODULE=pair (a layer) runs that layer's tests only
#   make asan       the suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make valgrind   the suite under valgrind (memcheck)
#   make bench      benchmarks (timings and accuracy per engine)
#   make demo       the main job on the bundled examples
#   make gallery    regenerate specs/papers/reports/ (published claims, audited)
#   make fuzz       libFuzzer on the spec parser and the cdf arguments (FUZZ_SECONDS each)
#   make install    PREFIX=/usr/local DESTDIR=: the CLI, gaussaudit.h, libgaussaudit.{a,so},
#                   gaussaudit.pc, gaussaudit(1), gaussaudit-spec(5), bash completion;
#                   make uninstall removes them
#   make wheel      dist/gaussaudit-VERSION-py3-none-linux_x86_64.whl, carrying the library
#   make arb-fwd    regenerate numerics/arb_fwd.[ch] after editing numerics/arb_names.txt
#   make pow5       regenerate base/pow5.h (the decimal reader's table) from base/pow5_gen.py
# Environment: GA_TEST_SCALE (default 1) multiplies the random-test loop counts.

CC      ?= gcc
PYTHON  ?= /usr/bin/python3
BUILD   ?= build
OPT     ?= -O2
# make test and make asan compile with this many jobs (the tests: CHECK_JOBS below)
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
SAN     ?=
CFLAGS  := -std=c11 -Wall -Wextra -Werror $(OPT) -g -MMD -MP -I. -D_POSIX_C_SOURCE=200809L -pthread \
           -fno-math-errno -fvisibility=hidden -fPIC $(SAN)
# the library's version (gaussaudit.h) and the shared object's ABI number
VERSION   := $(shell sed -n 's/^\#define GA_VERSION_STRING "\(.*\)"/\1/p' gaussaudit.h)
SOVERSION := 0
SONAME    := libgaussaudit.so.$(SOVERSION)
PREFIX  ?= /usr/local
DESTDIR ?=
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
COMPDIR ?= $(PREFIX)/share/bash-completion/completions
# pkg-config is expanded lazily (=) so that `make test` can install packages first.
PKG_CFLAGS = $(shell pkg-config --cflags yaml-0.1 gsl 2>/dev/null) -I/usr/include/flint
# FLINT/Arb is not linked: the library opens it on the first certified computation
# (numerics/arb_api.h), by the soname the build would have linked (GA_ARB_SONAME). The tests
# and benches that call Arb themselves link it (FLINT_LIBS).
LIBS    = $(shell pkg-config --libs gsl yaml-0.1 2>/dev/null) -lm -pthread
FLINT_LIBS = -lflint-arb -lflint -lmpfr -lgmp
ARB_SONAME = $(shell objdump -p "$$($(CC) -print-file-name=libflint-arb.so)" 2>/dev/null | sed -n 's/^ *SONAME *//p')
TEST_LIBS = $(FLINT_LIBS) $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)

DEB_PACKAGES := pkg-config libgsl-dev libopenblas-dev libflint-dev \
                libflint-arb-dev libyaml-dev libcriterion-dev valgrind chromium libxml2-utils \
                python3 python3-numpy python3-pytest python3-pip python3-setuptools \
                python3-venv python3-wheel python3-jsonschema python3-yaml

LIB_SRC  := $(wildcard base/*.c) $(wildcard numerics/*.c) $(wildcard pair/*.c) $(wildcard specs/*.c) \
            $(wildcard catalogue/*.c) $(wildcard verdict/*.c) $(wildcard reports/*.c) \
            $(filter-out cli/main.c,$(wildcard cli/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
# the tests of a layer are tests/LAYER/test_*.c; MODULE=LAYER (e.g. make check MODULE=pair)
# builds and runs only those, without the whole-tree checks
MODULES  := base numerics pair specs catalogue verdict reports cli
TEST_SRC := $(wildcard $(if $(MODULE),tests/$(MODULE),tests/*)/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_SUPPORT := $(BUILD)/obj/tests/support.o
BENCH_SRC := $(wildcard bench/bench_*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/%)

.PHONY: all test check deps wheel asan valgrind bench demo gallery screenshots fuzz fuzz-deps clean install uninstall arb-fwd pow5 FORCE
all: $(BUILD)/gaussaudit $(BUILD)/libgaussaudit.a $(BUILD)/libgaussaudit.so $(BUILD)/gaussaudit.1 \
     $(BUILD)/gaussaudit-spec.5

# objects are rebuilt when the compiler flags change (the stamp holds the last ones)
$(BUILD)/.cflags: FORCE
	@mkdir -p $(BUILD); echo '$(CC) $(CFLAGS)' | cmp -s - $@ || echo '$(CC) $(CFLAGS)' > $@
FORCE:

$(BUILD)/obj/%.o: %.c $(BUILD)/.cflags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c $< -o $@

# the FLINT/Arb soname the loader opens by default (its fallback in the code: libflint-arb.so.2)
$(BUILD)/obj/numerics/arb_load.o: PKG_CFLAGS += $(if $(ARB_SONAME),-DGA_ARB_SONAME='"$(ARB_SONAME)"')

$(BUILD)/libgaussaudit.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/gaussaudit: $(BUILD)/obj/cli/main.o $(BUILD)/libgaussaudit.a
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

# the shared library: the same position-independent objects, the public API only (hidden
# visibility), its dependencies recorded (-Wl,--no-undefined: every symbol resolved)
$(BUILD)/libgaussaudit.so.$(VERSION): $(LIB_OBJ)
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--no-undefined -o $@ $^ $(LIBS)

$(BUILD)/libgaussaudit.so: $(BUILD)/libgaussaudit.so.$(VERSION)
	ln -sf libgaussaudit.so.$(VERSION) $(BUILD)/$(SONAME)
	ln -sf libgaussaudit.so.$(VERSION) $@

$(BUILD)/gaussaudit.1: $(BUILD)/gaussaudit doc/man.sh
	sh doc/man.sh $(BUILD)/gaussaudit > $@.tmp && mv $@.tmp $@

$(BUILD)/gaussaudit-spec.5: doc/spec.md doc/md2man.sh
	@mkdir -p $(BUILD)
	sh doc/md2man.sh gaussaudit-spec 5 "the gaussaudit spec language" $(VERSION) < doc/spec.md > $@.tmp && mv $@.tmp $@

$(BUILD)/gaussaudit.pc: doc/gaussaudit.pc.in gaussaudit.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' $< > $@

# installs what `make` built (and gaussaudit.pc for this PREFIX); DESTDIR stages it
install: all
	@rm -f $(BUILD)/gaussaudit.pc && $(MAKE) --no-print-directory $(BUILD)/gaussaudit.pc
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(LIBDIR)/pkgconfig" "$(DESTDIR)$(INCLUDEDIR)" \
	    "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man5" "$(DESTDIR)$(COMPDIR)"
	install -m 755 $(BUILD)/gaussaudit "$(DESTDIR)$(BINDIR)/gaussaudit"
	install -m 644 doc/gaussaudit.bash "$(DESTDIR)$(COMPDIR)/gaussaudit"
	install -m 644 gaussaudit.h "$(DESTDIR)$(INCLUDEDIR)/gaussaudit.h"
	install -m 644 $(BUILD)/libgaussaudit.a "$(DESTDIR)$(LIBDIR)/libgaussaudit.a"
	install -m 755 $(BUILD)/libgaussaudit.so.$(VERSION) "$(DESTDIR)$(LIBDIR)/libgaussaudit.so.$(VERSION)"
	ln -sf libgaussaudit.so.$(VERSION) "$(DESTDIR)$(LIBDIR)/$(SONAME)"
	ln -sf libgaussaudit.so.$(VERSION) "$(DESTDIR)$(LIBDIR)/libgaussaudit.so"
	install -m 644 $(BUILD)/gaussaudit.pc "$(DESTDIR)$(LIBDIR)/pkgconfig/gaussaudit.pc"
	install -m 644 $(BUILD)/gaussaudit.1 "$(DESTDIR)$(MANDIR)/man1/gaussaudit.1"
	install -m 644 $(BUILD)/gaussaudit-spec.5 "$(DESTDIR)$(MANDIR)/man5/gaussaudit-spec.5"

# (every path quoted: a PREFIX or DESTDIR with spaces names one directory, nothing beside it)
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/gaussaudit" "$(DESTDIR)$(INCLUDEDIR)/gaussaudit.h" \
	    "$(DESTDIR)$(LIBDIR)/libgaussaudit.a" "$(DESTDIR)$(LIBDIR)/libgaussaudit.so" \
	    "$(DESTDIR)$(LIBDIR)/$(SONAME)" "$(DESTDIR)$(LIBDIR)/libgaussaudit.so.$(VERSION)" \
	    "$(DESTDIR)$(LIBDIR)/pkgconfig/gaussaudit.pc" "$(DESTDIR)$(MANDIR)/man1/gaussaudit.1" \
	    "$(DESTDIR)$(MANDIR)/man5/gaussaudit-spec.5" "$(DESTDIR)$(COMPDIR)/gaussaudit"

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(TEST_SUPPORT) $(BUILD)/libgaussaudit.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) $(TEST_LIBS)

$(BUILD)/bench_%: $(BUILD)/obj/bench/bench_%.o $(BUILD)/libgaussaudit.a
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) $(FLINT_LIBS)

# numerics/arb_fwd.[ch] from numerics/arb_names.txt (after changing the list; committed)
arb-fwd:
	$(PYTHON) numerics/arb_gen.py $(CC)

# base/pow5.h (the decimal reader's powers of five) from base/pow5_gen.py (committed)
pow5:
	$(PYTHON) base/pow5_gen.py

# Install whatever Debian packages are missing (root: apt-get update first).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

test: deps
	@$(MAKE) --no-print-directory -j$(JOBS) check

# Run every Criterion binary; the CLI tests use $(BUILD)/gaussaudit. python/examples (the suites
# a DP library would keep) run against the installed wheel (tests/wheel.sh), python/tests
# against the source tree. The whole-tree checks (layering, exports, install, wheel, JUnit,
# schema, pytest; mostly one core each) run beside the binaries, their output printed after
# them; the rendering of the HTML reports (tests/render.sh) after the binaries, on the reports
# the gallery test wrote (GA_GALLERY_HTML), not audited twice.
# The binaries run CHECK_JOBS at a time (tests/run_bins.sh; each one's output printed whole
# when it ends), the slowest (SLOW_BIN) first; Criterion runs each one's tests in parallel too.
# The binaries that measure time against budgets (ALONE_BIN) run after the whole-tree checks,
# with nothing beside them.
# The last line names what failed (CI may show only the end of the log).
CHECK_JOBS ?= 2
ALONE_BIN = $(BUILD)/tests/cli/test_trust
SLOW_BIN = $(addprefix $(BUILD)/tests/,pair/test_ploss catalogue/test_samplers cli/test_gallery \
           pair/test_synth verdict/test_shard pair/test_shuffle pair/test_pair)
RUN_BIN = $(filter $(TEST_BIN),$(SLOW_BIN)) $(filter-out $(SLOW_BIN) $(ALONE_BIN),$(TEST_BIN))
check: all $(TEST_BIN)
	@failed=""; spid=""; slog=$(BUILD)/check-tree.log; sfail=$(BUILD)/check-tree.failed; rm -f $$sfail; \
	if [ -n "$(MODULE)" ]; then \
	  case " $(MODULES) " in *" $(MODULE) "*) ;; *) echo "MODULE=$(MODULE): not a layer ($(MODULES))"; exit 2;; esac; \
	  [ -n "$(TEST_BIN)" ] || echo "MODULE=$(MODULE): no tests/$(MODULE)/test_*.c"; \
	else \
	( f=""; \
	sh tests/layering.sh $(BUILD)/obj . $(LIB_SRC:%.c=%.o) cli/main.o || f="$$f layering.sh"; \
	CC="$(CC)" sh tests/layering_selftest.sh || f="$$f layering_selftest.sh"; \
	sh tests/run_bins_selftest.sh || f="$$f run_bins_selftest.sh"; \
	sh tests/exports.sh $(BUILD)/libgaussaudit.a || f="$$f exports.sh(.a)"; \
	sh tests/exports.sh $(BUILD)/libgaussaudit.so || f="$$f exports.sh(.so)"; \
	[ -n "$(SAN)" ] || sh tests/install.sh $(BUILD) || f="$$f install.sh"; \
	[ -n "$(SAN)$(TEST_WRAP)" ] || PYTHON=$(PYTHON) sh tests/wheel.sh $(BUILD) || f="$$f wheel.sh"; \
	sh tests/junit.sh $(BUILD) || f="$$f junit.sh"; \
	$(PYTHON) tests/schema.py $(BUILD)/gaussaudit || f="$$f schema.py"; \
	if [ -z "$(SAN)$(TEST_WRAP)" ]; then \
	  GAUSSAUDIT_LIB=$(abspath $(BUILD))/libgaussaudit.so PYTHONPATH=python GA_BIN=$(BUILD)/gaussaudit \
	    $(PYTHON) -m pytest -q -p no:cacheprovider python/tests || f="$$f pytest"; \
	fi; \
	echo "$$f" > $$sfail ) > $$slog 2>&1 & spid=$$!; \
	fi; \
	bfail=$(BUILD)/check-bins.failed; : > $$bfail; html=""; \
	if [ -z "$(MODULE)$(SAN)$(TEST_WRAP)" ]; then html="$(abspath $(BUILD))/gallery-html"; rm -rf "$$html"; mkdir -p "$$html"; fi; \
	GA_BIN=$(BUILD)/gaussaudit TEST_WRAP='$(TEST_WRAP)' TEST_ARGS='$(TEST_ARGS)' GA_GALLERY_HTML="$$html" \
	  bash tests/run_bins.sh $(CHECK_JOBS) $$bfail $(RUN_BIN) || failed="$$failed run_bins.sh"; \
	failed="$$failed$$(sed 's/^/ /' $$bfail | tr -d '\n')"; \
	if [ -n "$$spid" ]; then \
	  t0=$$(date +%s); wait $$spid; \
	  echo "== whole-tree checks (waited $$(( $$(date +%s) - t0 )) s for them)"; cat $$slog; \
	  [ -s $$sfail ] && failed="$$failed$$(cat $$sfail)" || failed="$$failed (whole-tree checks ended early)"; \
	fi; \
	if [ -n "$$html" ]; then \
	  echo "== tests/render.sh (the gallery test's HTML reports)"; t0=$$(date +%s); \
	  RENDER_HTML="$$html" sh tests/render.sh $(BUILD) || failed="$$failed render.sh"; \
	  echo "   ($$(( $$(date +%s) - t0 )) s)"; \
	fi; \
	for t in $(filter $(ALONE_BIN),$(TEST_BIN)); do \
	  echo "== $$t"; t0=$$(date +%s); \
	  GA_BIN=$(BUILD)/gaussaudit $(TEST_WRAP) $$t $(TEST_ARGS) || failed="$$failed $${t##*/}"; \
	  echo "   ($$(( $$(date +%s) - t0 )) s)"; \
	done; \
	if [ -n "$$failed" ]; then echo "check ($(BUILD)) FAILED:$$failed"; exit 1; fi; echo "check ($(BUILD)): all passed"

# the Python wheel, carrying the library: dist/gaussaudit-VERSION-py3-none-linux_x86_64.whl
wheel: all
	@$(PYTHON) python/make_wheel.py $(BUILD)/libgaussaudit.so.$(VERSION) dist

asan: deps
	@GA_SLOWDOWN=$${GA_SLOWDOWN:-5} LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  $(MAKE) --no-print-directory -j$(JOBS) check BUILD=build/asan OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"

# memcheck is ~50x slower: the seeded random loops run at a tenth of their size; the tests'
# own children are traced (the CLI under /bin/sh), but not the system tools they use (grep's
# and sed's own "possibly lost" blocks would fail them with status 99)
valgrind: deps
	@GA_VALGRIND=1 GA_TEST_SCALE=$${GA_TEST_SCALE:-0.1} GA_SLOWDOWN=$${GA_SLOWDOWN:-60} $(MAKE) --no-print-directory check BUILD=build/valgrind \
	  OPT=-O1 TEST_ARGS=--jobs=1 \
	  TEST_WRAP="valgrind -q --error-exitcode=99 --leak-check=full --suppressions=$(CURDIR)/tests/valgrind.supp --trace-children=yes --trace-children-skip=/usr/bin/*,/usr/sbin/*,*chrom*"

# each bench prints its tables; the rows with a speed goal are collected (GA_BENCH_GOALS) and
# printed together at the end, each with its ratio and whether the goal is met
bench: deps
	@$(MAKE) --no-print-directory all $(BENCH_BIN)
	@goals=$(BUILD)/bench-goals.md; : > $$goals; \
	for b in $(BENCH_BIN); do GA_BENCH_GOALS=$$goals $$b || exit 1; done; \
	printf '\n# Speed goals (this run, %s online cores)\n\n| work | measured | goal | ratio | |\n|---|---|---|---|---|\n' "$$(nproc)"; \
	cat $$goals

demo: deps
	@$(MAKE) --no-print-directory all
	@sh specs/examples/demo.sh $(BUILD)

# regenerate the audited published claims in specs/papers/reports/ (checked in)
gallery: all
	@sh specs/papers/gallery.sh $(BUILD)

# screenshots of a VIOLATION, a VERIFIED and an INCONCLUSIVE HTML report (checked in; Chromium
# renders fonts per machine, so these are regenerated by hand, not by make gallery)
screenshots: all
	@sh tests/render.sh $(BUILD) shots specs/papers/reports

# libFuzzer harnesses (tests/fuzz/): clang, ASan + UBSan; crashes go to build/fuzz/crash-*
FUZZ_SECONDS ?= 60
FUZZ_HARNESSES ?= spec cli
FUZZ_LINK ?=
$(BUILD)/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/libgaussaudit.a
	$(CC) $(CFLAGS) $(FUZZ_LINK) -o $@ $^ $(LIBS)

fuzz-deps:
	@for p in clang libclang-rt-14-dev; do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; fi

fuzz: deps fuzz-deps
	@$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang OPT=-O1 \
	  SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
	  FUZZ_LINK="-fsanitize=fuzzer,address,undefined" build/fuzz/fuzz_spec build/fuzz/fuzz_cli
	@for h in $(FUZZ_HARNESSES); do \
	  mkdir -p build/fuzz/corpus_$$h; \
	  echo "== fuzz_$$h for $(FUZZ_SECONDS) s"; \
	  build/fuzz/fuzz_$$h build/fuzz/corpus_$$h tests/fuzz/corpus_$$h -max_total_time=$(FUZZ_SECONDS) \
	    -timeout=30 -rss_limit_mb=4096 -max_len=8192 -artifact_prefix=build/fuzz/crash-$$h- \
	    -print_final_stats=1 2>build/fuzz/fuzz_$$h.log || { tail -40 build/fuzz/fuzz_$$h.log; exit 1; }; \
	  grep -E "stat::number_of_executed_units|stat::peak_rss" build/fuzz/fuzz_$$h.log; \
	done

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
