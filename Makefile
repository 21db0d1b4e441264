# rdma_bench: build, tests, smoke matrix and figures.
#
#   make            build ./rdma_bench, ./rdma_seq and build/rb_model (-O2 -g,
#                   warnings are errors)
#   make debug      build with -O0 -g3 (for gdb)
#   make test       unit tests (cmocka) + shell tests (bats) + VM smoke matrix
#   make smoke      VM smoke matrix only (soft-RoCE inside qemu)
#   make mutate     mutation score of the unit tests (tests/mutate; MUTATE_MAX)
#   make coverage   gcov line/branch coverage of bench/: unit tests + VM smoke
#                   (tests/coverage; SMOKE=0 host only, COVERAGE_SMOKE=words)
#   make clean      remove build outputs (keeps the VM cache; see ci/vm clean)
#
#   make model      build/rb_model: the PCIe model (no RDMA device needed)
#   make figure-2   Figure 2 from the model alone -> figures/out/figure-2.{png,pdf}
#
# Sources: every bench/*.c except bench/main.c and bench/model_main.c, and
# bench/apps/*.c except bench/apps/seq_main.c (rdma_seq's main), go into
# build/librdmabench.a;
# every tests/unit/test_*.c becomes one cmocka test binary linked against it.

CC      ?= cc
PKGS    := libibverbs librdmacm
OPT     ?= -O2 -g
CFLAGS  ?=
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) -Wall -Wextra -Werror -Iinclude \
           $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -libverbs -lrdmacm) -lpthread -lm
BUILD   ?= build
# The source revision, stored in every CSV row (git_rev) even where the
# binary runs without its tree (deployed to hosts); "+" marks local changes.
GIT_REV := $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- 2>/dev/null || echo +)
ifneq ($(GIT_REV),)
CFLAGS  += -DRB_GIT_REV='"$(GIT_REV)"'
endif

# bench/apps/: applications on the library (the sequencer, rdma_seq); their
# pure parts are in the library too, so unit tests link them.
APP_SRC  := $(filter-out bench/apps/seq_main.c,$(wildcard bench/apps/*.c))
LIB_SRC  := $(filter-out bench/main.c bench/model_main.c,$(wildcard bench/*.c)) $(APP_SRC)
LIB_OBJ  := $(LIB_SRC:bench/%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all bench-harness debug test unit bats smoke bench clean deps sanitize \
        mutate coverage model
all: rdma_bench rdma_seq experiments/lib/knobs.tsv $(BUILD)/rb_model

# The runner's copy of the knob table (experiments/lib/params.sh reads it):
# rewritten only when rdma_bench --list-knobs prints something else.
experiments/lib/knobs.tsv: rdma_bench
	@./rdma_bench --list-knobs > $@.tmp && { cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@; }

# The PCIe model's command line (bench/model_main.c): pure arithmetic,
# linked without the verbs libraries, so it runs on any host.
model: $(BUILD)/rb_model
$(BUILD)/rb_model: $(BUILD)/model_main.o $(BUILD)/pcie_model.o $(BUILD)/units.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

# Figure 2 (PCIe per generation; DMA read vs MMIO bytes), analytic
.PHONY: figure-2
figure-2: $(BUILD)/rb_model
	figures/figure-2

# Relinked when its objects change or when the other build (`make` vs
# `make debug`) linked it last (build/variant names the BUILD folder of the
# last link), so ./rdma_bench matches the last `make` or `make debug`; a
# `make` with nothing changed links nothing.
# Linked to a temporary name and renamed into place, so a program still
# running the old binary (a test in the VM, a server) is never rewritten.
rdma_bench: $(BUILD)/main.o $(BUILD)/librdmabench.a build/variant
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@.tmp.$$$$ $(filter-out build/variant,$^) $(LDLIBS) && mv -f $@.tmp.$$$$ $@

# the sequencer (bench/apps/seq_main.c): a second program on the same library
rdma_seq: $(BUILD)/apps/seq_main.o $(BUILD)/librdmabench.a build/variant
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@.tmp.$$$$ $(filter-out build/variant,$^) $(LDLIBS) && mv -f $@.tmp.$$$$ $@

# rewritten only when the BUILD folder differs from the last link's
build/variant: FORCE
	@mkdir -p build
	@echo '$(BUILD)' | cmp -s - $@ || echo '$(BUILD)' > $@

$(BUILD)/%.o: bench/%.c $(wildcard include/*.h bench/apps/*.h) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/librdmabench.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/tests/%: tests/unit/%.c tests/unit/unit.h $(BUILD)/librdmabench.a $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(BUILD)/librdmabench.a -lcmocka $(LDLIBS)

$(BUILD):
	mkdir -p $@

# report.o carries the revision: rebuild it when the revision changes.
$(BUILD)/git-rev: FORCE | $(BUILD)
	@echo '$(GIT_REV)' | cmp -s - $@ || echo '$(GIT_REV)' > $@
$(BUILD)/report.o: $(BUILD)/git-rev
.PHONY: FORCE
FORCE:

debug:
	$(MAKE) OPT="-O0 -g3" BUILD=build/debug all

# Install what the build and tests need (Debian packages; idempotent).
deps:
	env/install-deps --test --coverage --vm

# Also: no circular call dependency between bench/*.c files (a file that
# calls another must not be called back by it, directly or through others).
unit: $(UNIT_BIN) $(BUILD)/tests/attack_probe $(BUILD)/tests/test_verb_dummy $(BUILD)/tests/test_knob_dummy
	@tests/call-cycles $(LIB_OBJ) > /dev/null

# The verb table's recipe walked (tests/unit/verb_dummy.c): the table built
# with one dummy row, linked with the parser and validation alone.
DUMMY_SRC := bench/verb.c bench/options.c bench/units.c bench/errbuf.c
$(BUILD)/tests/test_verb_dummy: tests/unit/verb_dummy.c tests/unit/unit.h $(DUMMY_SRC) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out --coverage,$(CFLAGS)) -DRB_VERB_TEST_DUMMY -Itests/unit -o $@ $< \
	  $(DUMMY_SRC) -lcmocka $(LDLIBS)

# The knob table's recipe walked (tests/unit/knob_dummy.c): one more sent
# knob, linked with the parser, validation and the control encoding.
KNOB_DUMMY_SRC := $(DUMMY_SRC) bench/ctrl.c bench/guard_str.c
$(BUILD)/tests/test_knob_dummy: tests/unit/knob_dummy.c tests/unit/unit.h $(KNOB_DUMMY_SRC) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out --coverage,$(CFLAGS)) -DRB_KNOB_TEST_DUMMY -Itests/unit -o $@ $< \
	  $(KNOB_DUMMY_SRC) -lcmocka $(LDLIBS)

# A hostile peer of the server for tests/attack-run (VM), linked against the library.
$(BUILD)/tests/attack_probe: tests/attack/attack_probe.c $(BUILD)/librdmabench.a $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/librdmabench.a $(LDLIBS)

# The whole test run: cmocka + bats on the host, then the smoke matrix in
# the soft-RoCE VM. ci/test-all prints the closing "N passed, N failed" line.
test:
	ci/test-all

smoke: all
	ci/smoke

# Mutation testing of the pure modules (benchmark: prints the score and the
# surviving mutants; works in a scratch copy, never in this tree).
mutate:
	tests/mutate

# Coverage of bench/ by the unit tests and a VM smoke run -> build/coverage/.
coverage:
	tests/coverage

bench: all
	ci/bench

# the sweep runner's own cost per point on the two-VM bed (target <= 0.5 s),
# with figure-12's job shape: 9 sizes in one client invocation, 3 repetitions
bench-harness: all
	ci/harness-overhead --reps 3 --sizes 4,8,16,32,64,128,256,512,1024

clean:
	rm -rf $(BUILD) rdma_bench rdma_seq

# Experiment and figure targets (make figure-N, table-N, figures-reference,
# compare-N) live beside the experiments they run.
-include experiments/experiments.mk
# make fuzz (libFuzzer on the control-message decoder), make sanitize
-include tests/fuzz/fuzz.mk
