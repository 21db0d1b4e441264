# tests/fuzz/fuzz.mk: fuzzing and sanitizer builds (included by the Makefile).
#
#   make fuzz          libFuzzer on the control-message decoder and receive
#                      path (tests/fuzz/fuzz_ctrl.c) for FUZZ_SECONDS (60),
#                      seeded with tests/fuzz/corpus/ctrl; prints executions.
#                      New inputs go to build/fuzz/corpus, crashes to
#                      build/fuzz/artifacts/. FUZZ_SKIP=test-caps,layout
#                      leaves out checks whose bug is already reported.
#   make fuzz-merge    add the new inputs that reach new code to the
#                      committed corpus (libFuzzer -merge=1)
#   make fuzz-corpus   regenerate the seed files (tests/fuzz/gen_ctrl_corpus.c):
#                      every program's message (rdma_bench's TEST, rdma_seq's CONFIG)
#   make sanitize      library, rdma_bench and unit tests built with
#                      AddressSanitizer + UndefinedBehaviorSanitizer into
#                      build/sanitize; runs the unit tests, the bad-input
#                      cases refused while parsing (host), then the smoke
#                      cases matching SAN_SMOKE in one VM with that binary
#                      (RB_BIN=build/sanitize/rdma_bench). SAN_VM=0 skips
#                      the VM part.
#
# The sanitizer runtimes are linked statically (-static-libasan
# -static-libubsan), so the VM image needs no libasan/libubsan.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_MAX_LEN ?= 4096
FUZZ_SKIP    ?=
FUZZ_DIR     := build/fuzz
FUZZ_BIN     := $(FUZZ_DIR)/fuzz_ctrl
FUZZ_CORPUS  := tests/fuzz/corpus/ctrl
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

SAN_DIR   := build/sanitize
SAN_OPT   ?= -O2 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined \
             -fno-omit-frame-pointer -static-libasan -static-libubsan
SAN_SMOKE ?= reliability.
SAN_VM    ?= 1
SAN_ENV   := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86 \
             UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87

.PHONY: fuzz fuzz-build fuzz-merge fuzz-corpus sanitize sanitize-build

# ---- fuzzing ---------------------------------------------------------------

# The library again, built by clang with coverage for the fuzzer (the top
# Makefile's rules with CC, BUILD and OPT overridden).
fuzz-build:
	$(MAKE) --no-print-directory CC=$(FUZZ_CC) BUILD=$(FUZZ_DIR) \
	  OPT='-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)' $(FUZZ_DIR)/librdmabench.a
	$(MAKE) --no-print-directory $(FUZZ_BIN)

# Every program's message is fuzzed: rdma_seq's CONFIG through its own
# checks (seq.c and the pure key-value parts it validates with).
FUZZ_APP_SRC := bench/apps/seq/seq.c bench/apps/kv/kv.c bench/apps/kv/drtm.c bench/apps/kv/zipf.c
$(FUZZ_BIN): tests/fuzz/fuzz_ctrl.c tests/fuzz/ctrl_check.h $(FUZZ_DIR)/librdmabench.a $(FUZZ_APP_SRC) $(HEADERS)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -Iinclude -Itests/fuzz \
	  -Ibench/apps/seq -Ibench/apps/kv -Ibench/apps/rt \
	  -fsanitize=fuzzer $(FUZZ_SAN) -o $@ tests/fuzz/fuzz_ctrl.c $(FUZZ_APP_SRC) \
	  $(FUZZ_DIR)/librdmabench.a $(LDLIBS)

fuzz: fuzz-build
	@mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/artifacts
	@echo "fuzz: $(FUZZ_BIN) for $(FUZZ_SECONDS) s, seeds $(FUZZ_CORPUS), new inputs $(FUZZ_DIR)/corpus$(if $(FUZZ_SKIP), (checks left out: $(FUZZ_SKIP)))"
	@rc=0; RB_FUZZ_SKIP='$(FUZZ_SKIP)' $(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) \
	  -max_len=$(FUZZ_MAX_LEN) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_DIR)/artifacts/ $(FUZZ_DIR)/corpus $(FUZZ_CORPUS) \
	  > $(FUZZ_DIR)/fuzz.log 2>&1 || rc=$$?; \
	grep -E 'INITED|DONE|NEW_FUNC|invariant broken|ERROR:|SUMMARY|runtime error|Test unit written|^artifact' \
	  $(FUZZ_DIR)/fuzz.log | head -n 40; \
	execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_DIR)/fuzz.log | tail -n 1); \
	if [ $$rc = 0 ]; then \
	  echo "fuzz: ok: $${execs:-?} executions in $(FUZZ_SECONDS) s, no crash; $$(ls $(FUZZ_DIR)/corpus | wc -l) inputs in $(FUZZ_DIR)/corpus (make fuzz-merge adds the useful ones to $(FUZZ_CORPUS))"; \
	else \
	  echo "fuzz: FAILED (status $$rc) after $${execs:-?} executions: reproducer in $(FUZZ_DIR)/artifacts/, full log $(FUZZ_DIR)/fuzz.log"; \
	  echo "fuzz: replay one input with: $(FUZZ_BIN) FILE"; \
	fi; exit $$rc

fuzz-merge: fuzz-build
	$(FUZZ_BIN) -merge=1 -max_len=$(FUZZ_MAX_LEN) $(FUZZ_CORPUS) $(FUZZ_DIR)/corpus

# ---- seed corpus ---------------------------------------------------------------

# Linked with the few objects it uses, not the whole library, so it builds
# while other parts of the binary are being written.
GEN_OBJ := $(OBJ)/lib/ctrl.o $(OBJ)/lib/options.o $(OBJ)/lib/units.o $(OBJ)/lib/errbuf.o \
           $(OBJ)/lib/guard_str.o $(OBJ)/lib/verb.o \
           $(OBJ)/apps/seq/seq.o $(OBJ)/apps/kv/kv.o $(OBJ)/apps/kv/drtm.o $(OBJ)/apps/kv/zipf.o
$(BUILD)/gen_ctrl_corpus: tests/fuzz/gen_ctrl_corpus.c $(GEN_OBJ) $(HEADERS)
	$(CC) $(CFLAGS) -o $@ $< $(GEN_OBJ) -lm

fuzz-corpus: $(BUILD)/gen_ctrl_corpus
	mkdir -p $(FUZZ_CORPUS)
	$(BUILD)/gen_ctrl_corpus $(FUZZ_CORPUS)

# ---- sanitizers ----------------------------------------------------------------

# ./rdma_bench is the top Makefile's fixed output; the sanitized binary goes
# to $(BUILD)/rdma_bench instead (BUILD=build/sanitize in the sub-make).
$(BUILD)/rdma_bench: $(OBJ)/rdma_bench/main.o $(RB_OBJ) $(BUILD)/librdmabench.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

sanitize-build:
	$(MAKE) --no-print-directory BUILD=$(SAN_DIR) OPT='$(SAN_OPT)' $(SAN_DIR)/rdma_bench unit

sanitize: sanitize-build
	@fail=0; n=0; \
	for t in $(SAN_DIR)/tests/test_*; do \
	  [ -x "$$t" ] || continue; n=$$((n + 1)); \
	  log=$(SAN_DIR)/$$(basename $$t).log; \
	  if $(SAN_ENV) CMOCKA_MESSAGE_OUTPUT=TAP $$t > $$log 2>&1 && \
	     ! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' $$log; then \
	    echo "sanitize: ok $$t"; \
	  else \
	    echo "sanitize: FAILED $$t (log $$log)"; \
	    grep -E '^not ok|ERROR: |SUMMARY|runtime error:' $$log | head -n 20; fail=1; \
	  fi; \
	done; \
	echo "sanitize: $$n unit test binaries, $$( [ $$fail = 0 ] && echo all clean || echo some FAILED)"; \
	if RB_BIN=$(SAN_DIR)/rdma_bench RB_OUT=$(SAN_DIR) $(SAN_ENV) tests/bad-input-run --needs - \
	     > $(SAN_DIR)/bad-input-host.log 2>&1; then \
	  echo "sanitize: ok tests/bad-input-run --needs - (the cases refused while parsing, on the host)"; \
	else \
	  echo "sanitize: FAILED tests/bad-input-run --needs - (log $(SAN_DIR)/bad-input-host.log)"; \
	  grep -A 6 '^not ok' $(SAN_DIR)/bad-input-host.log | head -n 20; fail=1; \
	fi; \
	if [ "$(SAN_VM)" != 0 ]; then \
	  echo "sanitize: smoke cases matching '$(SAN_SMOKE)' in the VM with RB_BIN=$(SAN_DIR)/rdma_bench"; \
	  ci/vm run --timeout 1200 -- env RB_BIN=$(SAN_DIR)/rdma_bench $(SAN_ENV) \
	    bash -c 'rc=0; for p in $(SAN_SMOKE); do ci/smoke-run 1 "$$p" || rc=1; done; exit $$rc' \
	    || fail=1; \
	fi; exit $$fail
