# rdma_bench: build, tests, smoke matrix and figures.
#
#   make            build ./rdma_bench, ./rdma_seq, build/rb_model and the null
#                   device build/libnulldev.so (-O2 -g, warnings are errors)
#   make debug      build with -O0 -g3 (for gdb)
#   make test       unit tests (cmocka) + shell tests (bats) + VM smoke matrix
#   make smoke      VM smoke matrix only (soft-RoCE inside qemu)
#   make mutate     mutation score of the unit tests and the null device's
#                   data-path tests (tests/mutate, tests/mutate.map; MUTATE_MAX)
#   make coverage   gcov line/branch coverage of bench/: unit tests + VM smoke
#                   (tests/coverage; SMOKE=0 host only, COVERAGE_SMOKE=words)
#   make clean      remove build outputs (keeps the VM cache; see ci/vm clean)
#   make help       the targets a user needs, on one screen
#
#   make model      build/rb_model: the PCIe model (no RDMA device needed)
#   make figure-2   Figure 2 from the model alone -> figures/out/figure-2.{png,pdf}
#
# Sources, one folder per part (docs/ARCHITECTURE.md, "Layout"):
#   bench/lib/         the benchmark library -> build/librdmabench.a
#   bench/model/       the PCIe model (its pcie_* modules are in the
#                      library too: rdma_bench's rows carry its limits)
#   bench/rdma_bench/  the rdma_bench program: main, client, server, report,
#                      its worker threads (post*.c)
#   bench/apps/        rdma_seq: rt/ (its runtime on the library), seq/
#                      (the sequencer), kv/ (the key-value stores)
# Each program's objects are listed by name below; every
# tests/unit/test_*.c becomes one cmocka test binary linked against them.

CC      ?= cc
PKGS    := libibverbs librdmacm
OPT     ?= -O2 -g
CFLAGS  ?=
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) -Wall -Wextra -Werror -Iinclude \
           -Ibench/apps/rt -Ibench/apps/seq -Ibench/apps/kv \
           $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -libverbs -lrdmacm) -lpthread -lm
# GID types and netdevs: ibv_query_gid_ex where the verbs headers declare it
# (rdma-core >= v32), else ibv_query_gid and sysfs gid_attrs (Ubuntu 20.04's
# inbox rdma-core, CentOS 7, MLNX_OFED 4.x). RB_OLD_RDMA_CORE=1 takes the
# old path on any host (make unit builds and tests it that way too).
ifeq ($(RB_OLD_RDMA_CORE),1)
RB_GID_EX := 0
else
RB_GID_EX := $(shell printf '\043include <infiniband/verbs.h>\nint f(struct ibv_context *c, struct ibv_gid_entry *e) { return ibv_query_gid_ex(c, 1, 0, e, 0); }\n' | $(CC) $(CFLAGS) -x c -fsyntax-only - 2>/dev/null && echo 1 || echo 0)
endif
CFLAGS  += -DRB_HAVE_QUERY_GID_EX=$(RB_GID_EX)
BUILD   ?= build
# objects, one folder per part of bench/ (build/obj/lib/ctx.o ...)
OBJ      = $(BUILD)/obj
# The source revision, stored in every CSV row (git_rev) even where the
# binary runs without its tree (deployed to hosts); "+" marks local changes.
GIT_REV := $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- 2>/dev/null || echo +)
ifneq ($(GIT_REV),)
CFLAGS  += -DRB_GIT_REV='"$(GIT_REV)"'
endif

LIB_NAMES   := admit cm cpustat ctrl ctrl_sock ctx ctx_qp device env errbuf gate gid guard \
               guard_str hist layout log options output pcieperf perfcount plan qp signals \
               timing topo units verb
MODEL_NAMES := pcie_model pcie_host
RB_NAMES    := client server report ctx_cm post post_check post_err post_req post_resp
APP_NAMES   := rt/seq_rt rt/rpc seq/seq seq/seq_opts seq/seq_atomics seq/seq_herd seq/seq_spec \
               kv/kv kv/mica kv/drtm kv/drtm_kv kv/seq_kv kv/zipf
LIB_OBJ   := $(LIB_NAMES:%=$(OBJ)/lib/%.o) $(MODEL_NAMES:%=$(OBJ)/model/%.o)
RB_OBJ    := $(RB_NAMES:%=$(OBJ)/rdma_bench/%.o)
APP_OBJ   := $(APP_NAMES:%=$(OBJ)/apps/%.o)
# every object but the programs' mains (what the unit tests link)
ALL_OBJ   := $(LIB_OBJ) $(RB_OBJ) $(APP_OBJ)
HEADERS   := $(wildcard include/*.h bench/lib/*.h bench/rdma_bench/*.h bench/apps/*/*.h)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all bench-harness debug test unit bats smoke bench clean deps sanitize \
        mutate coverage model
all: rdma_bench rdma_seq experiments/lib/knobs.tsv experiments/lib/knobs-rdma_seq.tsv $(BUILD)/rb_model build/libnulldev.so

# The null RDMA device (tests/nulldev/README.md): an LD_PRELOAD library that
# lets the unmodified programs (and perftest) run on a host with no RDMA
# device; the host tests of the data path and the faults use it.
NULLDEV_SRC := $(wildcard tests/nulldev/*.c)
build/libnulldev.so: $(NULLDEV_SRC) tests/nulldev/nd.h
	@mkdir -p build
	$(CC) $(filter-out --coverage,$(CFLAGS)) -fPIC -shared -Wl,-z,defs -o $@ $(NULLDEV_SRC) -libverbs -lpthread
# its own semantics in loopback (tests/bats/nulldev_device.bats)
build/nulldev-selftest: tests/nulldev/selftest/selftest.c
	@mkdir -p build
	$(CC) $(filter-out --coverage,$(CFLAGS)) -o $@ $< -libverbs
# its own cost per op (post and poll only), the floor of make bench-null
build/nulldev-floor: tests/nulldev/floor/floor.c
	@mkdir -p build
	$(CC) $(filter-out --coverage,$(CFLAGS)) -o $@ $< -libverbs

# The runner's copy of the knob table (experiments/lib/params.sh reads it):
# rewritten only when rdma_bench --list-knobs prints something else, else
# touched (its words unchanged), so it is not older than the binary and a
# `make` or `make -n` after `make` has nothing to do.
experiments/lib/knobs.tsv: rdma_bench
	@./rdma_bench --list-knobs > $@.tmp && { cmp -s $@.tmp $@ && rm -f $@.tmp && touch $@ || mv -f $@.tmp $@; }
# rdma_seq's, for experiments whose [run] bin is rdma_seq
experiments/lib/knobs-rdma_seq.tsv: rdma_seq
	@./rdma_seq --list-knobs > $@.tmp && { cmp -s $@.tmp $@ && rm -f $@.tmp && touch $@ || mv -f $@.tmp $@; }

# The PCIe model's command line (bench/model/model_main.c): pure arithmetic,
# linked without the verbs libraries, so it runs on any host.
model: $(BUILD)/rb_model
$(BUILD)/rb_model: $(OBJ)/model/model_main.o $(OBJ)/model/pcie_model.o $(OBJ)/lib/verb.o \
  $(OBJ)/lib/options.o $(OBJ)/lib/units.o $(OBJ)/lib/errbuf.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

# Figure 2 (PCIe per generation; DMA read vs MMIO bytes), analytic
.PHONY: figure-2
figure-2: $(BUILD)/rb_model
	$(if $(RB_DRY),@echo "make figure-2 DRY_RUN=1: figures/figure-2 would compute Figure 2 from the PCIe model (build/rb_model, no RDMA device, no VM, about a second) into figures/out/figure-2.png and .pdf; nothing written",figures/figure-2)

# the stamp of the BUILD folder the programs were last linked from (below)
VARIANT := build/variant.$(subst /,_,$(BUILD))

# Relinked when its objects change or when the other build (`make` vs
# `make debug`) linked it last (the stamp $(VARIANT) names the BUILD folder
# of the last link), so ./rdma_bench matches the last `make` or `make
# debug`; a `make` with nothing changed links nothing.
# Linked to a temporary name and renamed into place, so a program still
# running the old binary (a test in the VM, a server) is never rewritten.
rdma_bench: $(OBJ)/rdma_bench/main.o $(RB_OBJ) $(BUILD)/librdmabench.a $(VARIANT)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@.tmp.$$$$ $(filter-out $(VARIANT),$^) $(LDLIBS) && mv -f $@.tmp.$$$$ $@

# the sequencer (bench/apps/seq/seq_main.c): a second program on the same library
rdma_seq: $(OBJ)/apps/seq/seq_main.o $(APP_OBJ) $(BUILD)/librdmabench.a $(VARIANT)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@.tmp.$$$$ $(filter-out $(VARIANT),$^) $(LDLIBS) && mv -f $@.tmp.$$$$ $@

# The facts a rebuild depends on beyond the sources (the BUILD folder of
# the last link, the revision) are stamps named by their value, not a
# rule with a FORCE prerequisite: `make -n` cannot know that such a rule
# leaves its file unchanged and listed env.o, the library and both links
# after every `make`; a stamp of the current value exists or is made (the
# other values' stamps removed), so a change still rebuilds and `make -n`
# after `make` lists nothing of the bench.
$(VARIANT):
	@mkdir -p build
	@rm -f build/variant.* && echo '$(BUILD)' > build/variant && touch $@

$(OBJ)/%.o: bench/%.c $(HEADERS) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/librdmabench.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/tests/%: tests/unit/%.c tests/unit/unit.h $(RB_OBJ) $(APP_OBJ) $(BUILD)/librdmabench.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(RB_OBJ) $(APP_OBJ) $(BUILD)/librdmabench.a -lcmocka $(LDLIBS)

$(BUILD):
	mkdir -p $@

# env.o carries the revision (RB_GIT_REV): rebuilt when the revision
# changes, through the stamp named by it (see $(VARIANT)); $(BUILD)/git-rev
# holds the revision for tests/mutate's scratch builds.
REV_STAMP := $(BUILD)/rev.$(GIT_REV)
$(REV_STAMP): | $(BUILD)
	@rm -f $(BUILD)/rev.* && echo '$(GIT_REV)' > $(BUILD)/git-rev && touch $@
$(OBJ)/lib/env.o: $(REV_STAMP)

debug:
	$(MAKE) OPT="-O0 -g3" BUILD=build/debug all

# Install what the build and tests need (Debian packages; idempotent).
deps:
	env/install-deps --test --coverage --vm

# Also: no circular call dependency between bench/**/*.c files (a file that
# calls another must not be called back by it, directly or through others).
unit: unit-bins
	@tests/call-cycles $(ALL_OBJ) > /dev/null

# The unit test binaries and what they load, without the call-graph check
# (tests/mutate rebuilds these per mutant: the check costs 7 s of CPU)
.PHONY: unit-bins
unit-bins: $(UNIT_BIN) build/libnulldev.so build/nulldev-selftest $(BUILD)/tests/attack_probe \
      $(BUILD)/tests/test_verb_dummy $(BUILD)/tests/test_knob_dummy $(BUILD)/tests/test_gid_old

# The old-rdma-core path (RB_OLD_RDMA_CORE=1: ibv_query_gid + sysfs
# gid_attrs) built on any host: device.c and the GID tests compiled without
# ibv_query_gid_ex, linked before the library (whose device.o they replace).
OLD_CFLAGS := $(filter-out -DRB_HAVE_QUERY_GID_EX=%,$(CFLAGS)) -DRB_HAVE_QUERY_GID_EX=0
$(BUILD)/tests/test_gid_old: tests/unit/test_gid.c tests/unit/unit.h bench/lib/device.c bench/lib/gid.c \
			      $(RB_OBJ) $(APP_OBJ) $(BUILD)/librdmabench.a $(HEADERS)
	@mkdir -p $(dir $@) $(OBJ)/old
	$(CC) $(OLD_CFLAGS) -c -o $(OBJ)/old/device.o bench/lib/device.c
	$(CC) $(OLD_CFLAGS) -Itests/unit -o $@ $< $(OBJ)/old/device.o $(RB_OBJ) $(APP_OBJ) \
	  $(BUILD)/librdmabench.a -lcmocka $(LDLIBS)

# The verb table's recipe walked (tests/unit/verb_dummy.c): the table built
# with one dummy row, linked with the parser and validation alone.
DUMMY_SRC := bench/lib/verb.c bench/lib/options.c bench/lib/units.c bench/lib/errbuf.c
$(BUILD)/tests/test_verb_dummy: tests/unit/verb_dummy.c tests/unit/unit.h $(DUMMY_SRC) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out --coverage,$(CFLAGS)) -DRB_VERB_TEST_DUMMY -Itests/unit -o $@ $< \
	  $(DUMMY_SRC) -lcmocka $(LDLIBS)

# The knob table's recipe walked (tests/unit/knob_dummy.c): one more sent
# knob, linked with the parser, validation and the control encoding.
KNOB_DUMMY_SRC := $(DUMMY_SRC) bench/lib/ctrl.c bench/lib/guard_str.c
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

# Mutation testing of the files of tests/mutate.map (benchmark: prints the
# score per file and the surviving mutants; works in a scratch copy, never
# in this tree).
mutate:
	tests/mutate

# The data path's score file by file: MUTATE_PER_FILE (4) mutants of each
# file tested through the null device (a bats entry in tests/mutate.map),
# drawn with MUTATE_SEED (1); ~1 min of 2 CPUs per mutant.
MUTATE_PER_FILE ?= 4
MUTATE_SEED ?= 1
.PHONY: mutate-datapath
mutate-datapath: all
	tests/mutate --per-file $(MUTATE_PER_FILE) --seed $(MUTATE_SEED) --min 0 \
	  $$(awk -F'\t' '$$0 ~ /\tbats:/ { print $$1 }' tests/mutate.map)

# Coverage of bench/ by the unit tests and a VM smoke run -> build/coverage/.
coverage:
	tests/coverage

bench: all
	ci/bench

# the harness's ceiling on the null device, beside perftest and the
# device's own floor, on this host (ci/bench-null; docs/benchmarks-null.md)
.PHONY: bench-null
bench-null: all build/nulldev-floor
	ci/bench-null

# the sweep runner's own cost per point on the two-VM bed (target <= 0.5 s),
# with figure-12's job shape: 9 sizes in one client invocation, 3 repetitions
bench-harness: all
	ci/harness-overhead --reps 3 --sizes 4,8,16,32,64,128,256,512,1024

clean:
	rm -rf $(BUILD) rdma_bench rdma_seq

# the targets a user needs; the experiment names from the lists that make
# experiments-list and the unknown figure-N message read (experiments.mk)
.PHONY: help
help:
	@echo "make help: the targets a user needs (more: the heads of Makefile and experiments/experiments.mk)"; \
	 echo "  set-up     make deps (Debian packages, as root), then make (./rdma_bench, ./rdma_seq, build/rb_model)"; \
	 echo "  main job   make figure-12 [QUICK=1] [HOSTS=FILE] [VMS=2..4]: hosts, else a local RDMA port, else the soft-RoCE VM bed"; \
	 echo "             DRY_RUN=1: the grid, its expected time and where it would run (no VM boots; also make reproduce, make search)"; \
	 echo "  no RDMA    tests/nulldev/run-pair -- --verb read -D 1 (the null device: this host's software cost)"; \
	 echo "  test       make test (unit, shell and null-device tests + the VM smoke matrix, ~22 min); make unit (host unit tests)"; \
	 echo "  figure-N, table-N  $(RB_EXP_PAPER)"; \
	 echo "  beyond     $(RB_EXP_BEYOND); the original artifact's presets: make experiments-list"; \
	 echo "  compare-N  make compare-12 [QUICK=1]: the paper's claims against a run; N: $(patsubst compare-%,%,$(filter-out $(patsubst %,compare-%,$(EXP_PRESETS)),$(EXP_COMPARE)))"; \
	 echo "  report     make report: one HTML page of every run (results/report/index.html)"; \
	 echo "  mutate     make mutate (the unit tests' mutation score), make mutate-datapath (the null device's)"; \
	 echo "  bench      make bench (against perftest in a VM), make bench-null (on the null device), make bench-harness"

# Experiment and figure targets (make figure-N, table-N, figures-reference,
# compare-N) live beside the experiments they run.
-include experiments/experiments.mk
# make fuzz (libFuzzer on the control-message decoder), make sanitize
-include tests/fuzz/fuzz.mk
