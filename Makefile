# SPDX-License-Identifier: GPL-2.0
# make               build kmod/systrace.ko (against KDIR) and user/systracectl
# make modules-all   one module per kernel under test, in build/<kver>/kmod/
# make check         the test suite: host unit tests, then each kernel in a VM
# make demo          trace a real build in a VM and print its data
# make bench         overhead against strace, perf trace and bpftrace
# make man           the man pages systracectl(8) and systrace(4), in build/man/
# make deps          scripts/deps: install the Debian packages (check and demo
#                    run it themselves)

TOP := $(CURDIR)
SYSTRACE_VERSION ?= $(shell git -C $(TOP) describe --always --dirty 2>/dev/null || echo 0.1)

# Kernels under test: Debian's 6.1 and 6.12, found by their installed headers.
TEST_KVERS ?= $(shell $(TOP)/scripts/kvers)
KVER ?= $(shell uname -r)
ifeq ($(wildcard /lib/modules/$(KVER)/build),)
KDIR ?= $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
else
KDIR ?= /lib/modules/$(KVER)/build
endif

# The module's sources, not the files kbuild generates beside them (an
# in-tree build's systrace.mod.c holds that kernel's vermagic).
KMOD_SRCS = $(filter-out %.mod.c,$(wildcard $(TOP)/kmod/*.c)) $(wildcard $(TOP)/kmod/*.h) $(TOP)/kmod/Kbuild

KMAKE = $(MAKE) -C $(1) M=$(2) W=1 SYSTRACE_VERSION=$(SYSTRACE_VERSION)

.PHONY: all module user selftests man modules-all check demo deps bench style clean

all: module user selftests man

module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { echo "no kernel headers: run scripts/deps or set KDIR" >&2; exit 1; }
	$(call KMAKE,$(KDIR),$(TOP)) modules

user:
	$(MAKE) -C user

# The test programs that selftests/run uses in the VM.
selftests:
	$(MAKE) -C selftests

# Each kernel gets its own output tree of links to the sources, so the
# objects of one kernel never mix with another's.
modules-all:
	@set -e; for v in $(TEST_KVERS); do \
		d=$(TOP)/build/$$v; mkdir -p $$d/kmod; \
		ln -sfn $(TOP)/include $$d/include; \
		ln -sf $(TOP)/Kbuild $$d/Kbuild; \
		for f in $(KMOD_SRCS); do ln -sf $$f $$d/kmod/; done; \
		find $$d/kmod -maxdepth 1 -type l -name '*.mod.c' -delete; \
		echo "  KMOD    $$v"; \
		$(call KMAKE,/lib/modules/$$v/build,$$d) modules; \
	done

# The man pages, rendered from docs/man/*.scd into build/man/, dated by the
# last commit (so that a rebuild gives the same file). scdoc puts its .nh
# (no hyphenation) before .TH, which turns hyphenation back on: a second
# .nh after it keeps names such as modprobe(8) and --input whole.
MAN_PAGES := build/man/systracectl.8 build/man/systrace.4
MAN_DATE ?= $(shell git -C $(TOP) log -1 --format=%ct 2>/dev/null)
man: $(MAN_PAGES)
build/man/%: docs/man/%.scd
	@command -v scdoc >/dev/null || { echo "scdoc is missing: run scripts/deps build (or apt-get install scdoc)" >&2; exit 1; }
	@mkdir -p build/man
	$(if $(MAN_DATE),SOURCE_DATE_EPOCH=$(MAN_DATE) )scdoc <$< >$@.tmp && sed -i '/^\.TH /a .nh' $@.tmp && mv $@.tmp $@

# check and demo install what they use first (scripts/deps is quiet when
# everything is there), then make themselves in a new make that sees it.
deps:
	$(TOP)/scripts/deps

check:
	$(TOP)/scripts/deps check
	$(TOP)/scripts/check

demo:
	$(TOP)/scripts/deps demo
	$(MAKE) all modules-all
	$(TOP)/scripts/demo

bench: all modules-all
	$(TOP)/bench/run $(if $(KERNEL),--kernel $(KERNEL))

# checkpatch.pl ships in kernel sources, not in Debian's headers packages.
CHECKPATCH ?= $(firstword $(wildcard $(TOP)/build/debug-kernel/src/scripts/checkpatch.pl $(KDIR)/scripts/checkpatch.pl))
style:
	@test -n "$(CHECKPATCH)" || { echo "no checkpatch.pl: run scripts/debug-kernel or set CHECKPATCH=" >&2; exit 1; }
	perl $(CHECKPATCH) --no-tree --terse --ignore SPDX_LICENSE_TAG -f kmod/*.c kmod/*.h include/uapi/linux/systrace.h

clean:
	-$(call KMAKE,$(KDIR),$(TOP)) clean
	$(MAKE) -C user clean
	rm -rf build
