# SPDX-License-Identifier: GPL-2.0
#
# DMA-BUF CPU-cache ownership: the patch series and its test workshop.
# See README.md; "make help" lists the targets.

SCRIPTS := scripts

# The kind is a target, not a variable.
ifeq ($(origin KIND),command line)
$(error KIND is not a variable: make run-base, run-series or run-debug)
endif

.PHONY: all test tree export check-exported check check-each-patch deps fetch kernels \
	run-base run-series run-debug kunit bench cputime mutate compliance userspace clean distclean help

## all: build, boot and test the base, the series and the debug kernels, and show what the series buys (the benchmark's headline)
all:
	@STATIC=0 $(SCRIPTS)/test.sh

## test: static checks (at the lowest priority, alongside); build, boot and test the base, the series and the debug kernels
test:
	@$(SCRIPTS)/test.sh

## tree: create build/linux from the base and patches/
tree: deps
	@$(SCRIPTS)/series.sh tree

## export: regenerate patches/ from the commits in build/linux
export:
	@$(SCRIPTS)/series.sh export

## check-exported: fail if build/linux holds work that patches/ lacks
check-exported:
	@$(SCRIPTS)/series.sh check-exported

## check: static checks of patches/ only (checkpatch, git am, b4, kernel-doc, MAINTAINERS, rst, recipients, sparse, the mutations apply; SEND=1: sender sign-off)
check: tree
	@$(SCRIPTS)/check-series.sh > build/static.tsv && $(SCRIPTS)/report.sh build/static.tsv

## check-each-patch: build the kernel at every patch of the series, arm64 and x86_64 (W=1 on touched files; the kselftests each touches)
check-each-patch:
	@$(SCRIPTS)/build-each-patch.sh > build/each-patch.tsv && $(SCRIPTS)/report.sh build/each-patch.tsv

## userspace: build the uapi's user space (userspace/gstreamer's patches) from Debian's GStreamer sources for arm64 and run it on both kernels; with GST_SRC (a GStreamer git repository), also check that the patches apply to their upstream commit
userspace:
	@$(MAKE) --no-print-directory kernels
	@userspace/gstreamer/build.sh $(if $(GST_SRC),"$(GST_SRC)") && userspace/gstreamer/run.sh

## deps: install the Debian packages the project needs
deps:
	@$(SCRIPTS)/install-deps.sh

## fetch: download the pinned base into the cache
fetch: deps
	@$(SCRIPTS)/fetch-kernel.sh >/dev/null

## kernels: build the base and the series kernels without booting them
kernels: tree
	@$(SCRIPTS)/build-kernel.sh base
	@$(SCRIPTS)/build-kernel.sh series

## run-base, run-series, run-debug: build, boot and test one kernel (debug: the series with kernel-overlay/configs/debug.config)
run-base run-series run-debug: run-%:
	@STATIC=0 $(SCRIPTS)/test.sh $*

run-%:
	$(error unknown kind '$*': make run-base, run-series or run-debug)

## kunit: the series' KUnit suites as reviewers run them, kunit.py on arm64 (three .kunitconfig files) and on UML (not part of make test, which runs the UML one)
kunit: tree
	@STATIC=0 $(SCRIPTS)/test.sh kunit

## bench: boot the base and the series with the benchmark alone; build/bench/results.{csv,md}, maintenance.svg (Documentation/benchmarks.md)
bench: tree
	@$(SCRIPTS)/bench.sh

## cputime: boot the base and the series under QEMU's -icount, chain_bench -c only; the instructions importers without flags take (build/cputime/cputime.md)
cputime: tree
	@$(SCRIPTS)/bench.sh cputime

## mutate: break the series on purpose, one kernel-overlay/mutations/ patch at a time, and show which test catches each
mutate: tree
	@$(SCRIPTS)/mutate.sh

## compliance: v4l2-compliance -s on vivid, vim2m and vimc, base against series, side by side (build/compliance/compliance.md; not part of make test)
compliance: kernels
	@$(SCRIPTS)/v4l2-compliance.sh

## clean: remove the build outputs but keep build/linux
clean:
	rm -rf build/out build/logs build/bench build/cputime build/src build/linux-base build/am-check build/each-patch build/gstreamer build/*.tsv
	-git -C build/linux worktree prune 2>/dev/null

## distclean: remove build/ entirely (refused while build/linux has unexported work)
distclean: check-exported
	rm -rf build

help:
	@sed -n 's/^## //p' Makefile
