# experiments/experiments.mk: experiment, figure and comparison targets
# (included by the top Makefile).
#
#   make figure-12 [QUICK=1] [HOSTS=hosts-file]   run the sweep, draw figures/out/figure-12.{png,pdf}
#                                                 (QUICK=1|yes|true|on: figure-12-quick.{png,pdf};
#                                                 0|no|false|off|empty: the full sweep; else refused)
#   make figure-12 DRY_RUN=1                      the grid, its expected time and where it would run
#                                                 (experiments/reproduce --dry-run: on this host, no VM)
#   make figure-7 figure-8 figure-11 figure-13     the same for the other figures
#   make figure-14 table-3 table-5 figure-10       (figure-7, figure-8, table-3: the sequencer, rdma_seq;
#                                                 figure-10: emulated DrTM-KV, rdma_seq --variant drtm-kv)
#   make swarm-32b_read allsig-varsize_reads ...  the original artifact's presets
#   make figures-reference                        every figure from the shipped reference data alone
#   make compare-12 [QUICK=1]                     the paper's shape claims (exit 3 when one fails) and
#                                                 measured vs reference per point, for information
#   experiments/aggregate RUN-FOLDER              rebuild a run's summary.csv from its raw.csv
#   make figure-loss [QUICK=1]                    loss injection (experiments/fault-loss, two hosts or
#                                                 the two-VM bed) -> figures/out/fault-loss.{png,pdf}
#   make search [QUICK=1] [HOSTS=F] [SPACE=F]     search the knob space for anomalies (experiments/search)
#                                                 -> results/search/RUN/{anomalies.md,figure.png,raw.csv}
#                                                 (DRY_RUN=1: where, knobs, grid, budget, time; nothing run)
#   make reproduce [QUICK=1] [HOSTS=F]            every figure and table in turn, then make report
#                                                 (DRY_RUN=1: each one's dry run, no VM, no report)
#   make report [RB_RESULTS=DIR]                  one offline HTML page of every run, claim and figure
#                                                 -> results/report/index.html (experiments/report)
#   make table-1                                  Table 1 (verbs per transport, WQE header sizes) from
#                                                 rdma_bench --list-verbs and the model -> figures/out/table-1.md
#   make table-2 [MANIFEST=results/N/R/manifest.json]  Table 2: the paper's clusters beside a run's
#                                                 hosts (default: the newest run) -> figures/out/table-2.md
#   make paper-status                             the paper map (docs/paper.md) on one screen: rows per
#                                                 status (reproduced, QUICK-only, hardware-only, none),
#                                                 the rows with no target listed
#
# Where a sweep runs (experiments/reproduce): HOSTS=FILE, else an ACTIVE
# local RDMA port, else the soft-RoCE VM bed (ci/vm, two VMs; VMS=1 is refused: the image has no python3 for the runner).
# LAUNCHER=slurm: the nodes of the Slurm allocation it runs in (salloc,
# sbatch experiments/slurm.sbatch NAME), else the VM bed with a real Slurm
# (VMS=2..4). HOSTS= with VMS= or with LAUNCHER=slurm is refused.

# QUICK: 1, yes, true or on = the reduced grid; 0, no, false, off or empty =
# the full one; anything else is refused here (make exits 2), before a
# sweep starts. RB_QUICK is the value passed on: 1 or 0.
RB_QUICK_ON  := 1 yes true on YES TRUE ON Yes True On
RB_QUICK_OFF := 0 no false off NO FALSE OFF No False Off
ifneq ($(filter-out $(RB_QUICK_ON) $(RB_QUICK_OFF),$(QUICK)),)
$(error QUICK=$(QUICK): not a yes/no value; use QUICK=1 (or yes, true, on) for the reduced grid, or QUICK=0 (or no, false, off, empty) for the full one)
endif
RB_QUICK := $(if $(filter $(RB_QUICK_ON),$(QUICK)),1,0)
# DRY_RUN: the same yes/no values; on = experiments/reproduce NAME
# --dry-run (the grid, its time, where it would run; no VM boots, nothing
# is installed: only the binaries are built for their --dry-run check)
ifneq ($(filter-out $(RB_QUICK_ON) $(RB_QUICK_OFF),$(DRY_RUN)),)
$(error DRY_RUN=$(DRY_RUN): not a yes/no value; use DRY_RUN=1 (or yes, true, on) to print the run without running it, or DRY_RUN=0 (or no, false, off, empty) to run it)
endif
RB_DRY := $(if $(filter $(RB_QUICK_ON),$(DRY_RUN)),--dry-run)
RB_EXP_DEPS := $(if $(RB_DRY),all,experiments-deps)

EXP_FIGURES := figure-7 figure-8 figure-9 figure-10 figure-11 figure-11b figure-12 figure-13 figure-14 table-3 table-5
EXP_PRESETS := $(sort $(filter-out $(EXP_FIGURES),$(patsubst experiments/%/params,%,$(wildcard experiments/*/params))))
EXP_ALL     := $(EXP_FIGURES) $(EXP_PRESETS)
EXP_COMPARE := $(patsubst figure-%,compare-%,$(filter figure-%,$(EXP_FIGURES))) compare-table-3 compare-table-5 \
               $(patsubst %,compare-%,$(EXP_PRESETS))

.PHONY: $(EXP_ALL) $(EXP_COMPARE) figures-reference experiments-deps experiments-list

# Where a sweep runs is one choice: HOSTS= (those hosts, the ssh launcher)
# contradicts VMS= (the VM bed's size) and LAUNCHER=slurm (the allocation's
# nodes, or the VM bed); refused here (make exits 2) before anything is
# built or installed, for the targets that run a sweep
ifneq ($(filter $(EXP_ALL) figure-loss search,$(MAKECMDGOALS)),)
ifneq ($(strip $(HOSTS)),)
ifneq ($(strip $(VMS)),)
$(error HOSTS=$(HOSTS) and VMS=$(VMS): HOSTS= runs on the hosts of $(HOSTS), VMS= sizes the soft-RoCE VM bed used without HOSTS=; keep HOSTS= for your hosts, or VMS= without HOSTS= for the VM bed)
endif
ifeq ($(strip $(LAUNCHER)),slurm)
$(error HOSTS=$(HOSTS) and LAUNCHER=slurm: the Slurm launcher takes its hosts from the allocation (or the VM bed); keep HOSTS= (the ssh launcher), or LAUNCHER=slurm without HOSTS=)
endif
endif
endif

# build what a sweep needs; missing packages via env/install-deps (the VM
# bed's too when no local RDMA port will be used)
experiments-deps:
	@if [ -x env/install-deps ]; then \
	  if [ -z "$(HOSTS)" ] && ! ls /sys/class/infiniband/*/ports/*/state >/dev/null 2>&1; then \
	    env/install-deps --vm; else env/install-deps; fi; fi
	@$(MAKE) --no-print-directory all

$(EXP_ALL): $(RB_EXP_DEPS)
	QUICK=$(RB_QUICK) HOSTS=$(HOSTS) VMS=$(VMS) LAUNCHER=$(LAUNCHER) experiments/reproduce $@ $(RB_DRY)

# loss injection: netem on the client's link (experiments/fault-loss); its
# failed points (RC that gives up) are results, so exit 3 (some points
# failed, the figure drawn) counts as done
.PHONY: figure-loss
figure-loss: $(RB_EXP_DEPS)
	QUICK=$(RB_QUICK) HOSTS=$(HOSTS) VMS=$(VMS) experiments/reproduce fault-loss $(RB_DRY) || [ $$? = 3 ]

# Tables 1 and 2 of the paper, generated (figures/paper-tables): no RDMA
# device, no run (table-2 reads a finished run's manifest.json)
.PHONY: table-1 table-2
table-1: rdma_bench $(BUILD)/rb_model
	$(if $(RB_DRY),@echo "make table-1 DRY_RUN=1: figures/paper-tables would write figures/out/table-1.md from the programs' own tables (no RDMA device, no run); nothing written",figures/paper-tables table-1 --out figures/out/table-1.md)
table-2:
	$(if $(RB_DRY),@echo "make table-2 DRY_RUN=1: figures/paper-tables would write figures/out/table-2.md from $(if $(MANIFEST),$(MANIFEST),the latest run's manifest.json) (no run); nothing written",figures/paper-tables table-2 $(if $(MANIFEST),--manifest "$(MANIFEST)") --out figures/out/table-2.md)

# the paper map's summary (docs/paper.md; no build, no run)
.PHONY: paper-status
paper-status:
	@experiments/paper-status

# the knob-space search (experiments/search/README.md)
.PHONY: search
search: $(RB_EXP_DEPS)
	QUICK=$(RB_QUICK) HOSTS=$(HOSTS) VMS=$(VMS) SPACE=$(SPACE) experiments/search/reproduce $(RB_DRY)

figures-reference:
	@for n in $(EXP_ALL); do figures/plot $$n --reference-only || exit 1; done

$(EXP_COMPARE): compare-%:
	@experiments/compare $(if $(filter figure-$*,$(EXP_FIGURES)),figure-$*,$*) $(if $(filter 1,$(RB_QUICK)),--quick)

# the names make knows, in one place: experiments-list, make help and the
# unknown figure-N/table-N/compare-N message read these
RB_EXP_PAPER  := figure-2 $(filter figure-%,$(EXP_FIGURES)) table-1 table-2 $(filter table-%,$(EXP_FIGURES))
RB_EXP_BEYOND := figure-loss search
RB_EXP_KNOWN  := $(RB_EXP_PAPER) $(RB_EXP_BEYOND) $(EXP_PRESETS)
experiments-list:
	@echo "the paper's figures and tables: $(RB_EXP_PAPER)"; \
	 echo "beyond the paper: $(RB_EXP_BEYOND)"; \
	 echo "the original artifact's presets: $(EXP_PRESETS)"; \
	 echo "compare-N for: $(patsubst compare-%,%,$(EXP_COMPARE))"

# figure-, table- or compare- with no number (the pattern rule below needs
# a stem, so make would look for figure-.o): the valid numbers, exit 2
RB_FIG_NUMS := 2 $(patsubst figure-%,%,$(filter figure-%,$(EXP_FIGURES))) loss
RB_TAB_NUMS := 1 2 $(patsubst table-%,%,$(filter table-%,$(EXP_FIGURES)))
.PHONY: figure- table- compare-
figure- table-:
	@echo "make $@: no number after '$@'; figures: $(RB_FIG_NUMS) (make figure-12); tables: $(RB_TAB_NUMS) (make table-3)" >&2; exit 2
compare-:
	@echo "make $@: no number after '$@'; compare-N for: $(patsubst compare-%,%,$(EXP_COMPARE)) (make compare-12)" >&2; exit 2

# every figure and table of the paper in turn (the same QUICK, HOSTS, VMS
# and LAUNCHER), going on past one that fails and naming those at the end;
# then the evaluator's page. Exit 1 when a target failed.
.PHONY: reproduce
reproduce: $(RB_EXP_DEPS)
	@failed=""; total=""; \
	if [ -n "$(RB_DRY)" ]; then total=$$(mktemp) || exit 1; fi; \
	for t in $(EXP_FIGURES); do \
	  echo "make reproduce: $$t"; \
	  RB_DRY_TOTAL=$$total QUICK=$(RB_QUICK) HOSTS=$(HOSTS) VMS=$(VMS) LAUNCHER=$(LAUNCHER) experiments/reproduce $$t $(RB_DRY) || failed="$$failed $$t"; \
	done; \
	if [ -n "$(RB_DRY)" ]; then \
	  awk -v n=$(words $(EXP_FIGURES)) '$$1 == "run" { r += $$2 } $$1 == "image" { i = $$2 } \
	    END { s = r + i; t = s >= 3600 ? sprintf("%d h %d min", s / 3600, s % 3600 / 60) : sprintf("%d min %d s", s / 60, s % 60); \
	      printf "make reproduce: dry run of %d figures and tables, nothing run (no report); in all about %s (each figure'"'"'s own estimate, the image built once) on an idle machine\n", n, t }' "$$total"; \
	  rm -f "$$total"; \
	else experiments/report; fi; \
	if [ -n "$$failed" ]; then echo "make reproduce: failed:$$failed$(if $(RB_DRY),, (results/report/index.html lists them))" >&2; exit 1; fi

# the evaluator's page: read the results folders, measure nothing
.PHONY: report
report:
	experiments/report

# figure-N, table-N or compare-N of a name with no experiment: say which
# exist (as experiments/run NAME does) instead of make's "No rule", exit 2.
# Three rules, not one with three patterns: such a rule makes all three
# targets at once, so `make table-9` would first make figure-9 (a sweep's
# install-deps and build) before refusing
RB_EXP_UNKNOWN = @echo "make: no experiment for '$@'; known: $(RB_EXP_KNOWN); compare-N for: $(patsubst compare-%,%,$(EXP_COMPARE)) (make experiments-list)" >&2; exit 2
figure-%:
	$(RB_EXP_UNKNOWN)
table-%:
	$(RB_EXP_UNKNOWN)
compare-%:
	$(RB_EXP_UNKNOWN)
