# SPDX-License-Identifier: GPL-2.0
# make               build kmod/systrace.ko (against KDIR) and user/systracectl
# make modules-all   one module per kernel under test, in build/<kver>/kmod/
# make check         the test suite: host unit tests, then each kernel in a VM
# make check-mutants every mutation of scripts/mutations.txt (scripts/mutate):
#                    each, alone, must fail one of the tests it names; the
#                    BPF ones need root (make check runs those tagged fast)
# make check-full    the same, with every test on every tier: the debug
#                    guest runs all tests tagged "debug", the BPF guests
#                    all tagged "bpf", and the Debian guests test_deb too
#                    (SYSTRACE_TEST_DEB=1) (2 to 3 hours on a 2-core machine)
# make demo          trace a real build and print its data: in a VM, or on
#                    a host that cannot load modules with the BPF backend
#                    (VM=1: in a VM all the same)
# make bench         overhead against strace, perf trace and bpftrace
#                    (SCALE=1: the scale benchmark instead, bench/scale/run;
#                    HOST=1: the BPF backend on this host, no VM, bench/host/run;
#                    GLIBC=1: a glibc build traced with its log on the host
#                    by the BPF backend, about 30 minutes, bench/glibc/run;
#                    STARTUP=1: start-up on the BPF backend against strace,
#                    OLD=systracectl for an A/B, bench/startup/run;
#                    BUILD=1: a real build, the kernel's tinyconfig, untraced
#                    against BPF, BPF with its log, strace and perf trace,
#                    interleaved, bench/host/run --build;
#                    PATHS=1: start --paths off, errors and all against
#                    native and the hooks' floor, BPF on this host and the
#                    module in one 6.1 boot (KERNEL=), bench/paths/run)
# make man           the man pages systracectl(8) and systrace(4), in build/man/
# make install       the CLI, its man pages and bash completion under PREFIX,
#                    and the module for KVER in /lib/modules/KVER/updates/
# make install-dkms  the same, but the module through DKMS: built for every
#                    kernel with headers, and again for each new kernel
# make uninstall, make uninstall-dkms   remove what those installed
# make deb           the Debian packages systracectl and systrace-dkms
#                    (debian/), in build/deb/, checked by lintian
# make deps          scripts/deps: install the Debian packages (check and demo
#                    run it themselves)

TOP := $(CURDIR)
# The release, as dkms.conf names it; a git checkout reports its commit.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' $(TOP)/dkms.conf)
SYSTRACE_VERSION ?= $(shell git -C $(TOP) describe --always --dirty 2>/dev/null || echo $(VERSION))

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

# $(3): more make variables (SYSTRACE_TESTING=y: the test knobs, kmod/Kbuild).
KMAKE = $(MAKE) -C $(1) M=$(2) W=1 SYSTRACE_VERSION=$(SYSTRACE_VERSION) $(3)

.PHONY: all module user selftests man modules-all kmod-kver kmod-install check check-full check-debug check-mutants demo deps bench lint style clean

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
# objects of one kernel never mix with another's: $(call KMOD_KVER,V) is
# the shell commands that build build/V/kmod/systrace.ko, the module for
# the tests (with the test knobs: SYSTRACE_TESTING=y, kmod/Kbuild);
# $(call KMOD_KVER,V,install/) builds build/install/V/kmod/systrace.ko,
# the module to install, without them.
KMOD_KVER = d=$(TOP)/build/$(2)$(1); mkdir -p $$d/kmod; \
	ln -sfn $(TOP)/include $$d/include; \
	ln -sf $(TOP)/Kbuild $$d/Kbuild; \
	for f in $(KMOD_SRCS); do ln -sf $$f $$d/kmod/; done; \
	find $$d/kmod -maxdepth 1 -type l -name '*.mod.c' -delete; \
	echo "  KMOD    $(2)$(1)"; \
	$(call KMAKE,/lib/modules/$(1)/build,$$d,$(if $(2),,SYSTRACE_TESTING=y)) modules

modules-all:
	@set -e; for v in $(TEST_KVERS); do $(call KMOD_KVER,$$v); done

# The test module for KVER alone, in build/KVER/kmod/ (scripts/mutate's);
# kmod-install: make install's, in build/install/KVER/kmod/.
NEED_KDIR = @test -d /lib/modules/$(KVER)/build || { \
		echo "no /lib/modules/$(KVER)/build: install linux-headers-$(KVER), or set KVER to a kernel whose headers are installed" >&2; \
		exit 1; }
kmod-kver:
	$(NEED_KDIR)
	@set -e; $(call KMOD_KVER,$(KVER))

kmod-install:
	$(NEED_KDIR)
	@set -e; $(call KMOD_KVER,$(KVER),install/)

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

check-mutants:
	$(TOP)/scripts/deps check
	$(TOP)/scripts/mutate

check-full:
	$(TOP)/scripts/deps check
	CHECK_DEBUG_TESTS=@debug CHECK_BPF_GUEST_TESTS=@bpf SYSTRACE_TEST_DEB=1 $(TOP)/scripts/check

# Every test tagged "debug" on the debug kernel alone, building the kernel
# when it is not cached (30-60 min cold), then the netlink fuzzer at full
# count with the probes churning (scripts/fuzz --kernel debug, about 30-50
# min; FUZZ_COUNT=0 skips it): the long form of make check's debug tier.
FUZZ_COUNT ?= 100000
check-debug:
	$(TOP)/scripts/deps check
	CHECK_KERNELS=" " CHECK_DEBUG=1 CHECK_DEBUG_TESTS=@debug $(TOP)/scripts/check
	$(if $(filter-out 0,$(FUZZ_COUNT)),$(TOP)/scripts/fuzz --kernel debug --count $(FUZZ_COUNT))

# On a host that cannot load modules (booted nomodule, or no modules for
# its kernel) the demo runs there, with the BPF backend; VM=1 keeps the VM.
HOST_NO_MODULES := $(shell grep -qw nomodule /proc/cmdline 2>/dev/null || test ! -d /lib/modules/$$(uname -r) && echo 1)
ifneq ($(VM),1)
DEMO_BPF := $(HOST_NO_MODULES)
endif
demo:
ifeq ($(DEMO_BPF),1)
	$(TOP)/scripts/deps build
	$(MAKE) all
	$(TOP)/scripts/demo --bpf
else
	$(TOP)/scripts/deps demo
	$(MAKE) all modules-all
	$(TOP)/scripts/demo
endif

ifeq ($(HOST),1)
bench: all
	$(MAKE) -C $(TOP)/bench
	$(TOP)/bench/host/run
else ifeq ($(BUILD),1)
bench: all
	$(MAKE) -C $(TOP)/bench
	$(TOP)/bench/host/run --build
else ifeq ($(STARTUP),1)
bench: all
	$(MAKE) -C $(TOP)/bench
	$(TOP)/bench/startup/run $(if $(OLD),-b $(OLD))
else ifeq ($(PATHS),1)
bench: all modules-all
	$(MAKE) -C $(TOP)/bench
	$(TOP)/bench/paths/run $(if $(KERNEL),--kernel $(KERNEL))
else
bench: all $(if $(filter 1,$(GLIBC)),,modules-all)
	$(TOP)/bench/$(if $(filter 1,$(GLIBC)),glibc/,$(if $(filter 1,$(SCALE)),scale/))run $(if $(KERNEL),--kernel $(KERNEL))
endif

# --- installing ---------------------------------------------------------------
# make install [DESTDIR=] [PREFIX=/usr/local] [KVER=$(uname -r)]
# The CLI goes to bin, not sbin: report --input needs no privilege, and a
# user given CAP_PERFMON runs it too (Debian's PATH has no sbin for users).
# depmod runs only for a real install (no DESTDIR): a package's depmod
# runs where it is installed.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
MODDIR ?= /lib/modules/$(KVER)/updates
INSTALL ?= install
DEPMOD ?= depmod
DKMS ?= dkms

# DKMS: the module's sources and dkms.conf, in /usr/src/systrace-VERSION.
DKMS_SRC = /usr/src/systrace-$(VERSION)
DKMS_FILES = dkms.conf Kbuild include/uapi/linux/systrace.h \
	$(patsubst $(TOP)/%,%,$(KMOD_SRCS))
# The kernels install-dkms builds for: every one with headers.
DKMS_KVERS ?= $(patsubst /lib/modules/%/build,%,$(wildcard /lib/modules/*/build))

.PHONY: install install-user install-module install-dkms dkms-src
.PHONY: uninstall uninstall-user uninstall-module uninstall-dkms

# The module is built first: without KVER's headers nothing is installed.
install: kmod-install install-user install-module

install-user: user man
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man4 $(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 user/systracectl $(DESTDIR)$(BINDIR)/systracectl
	$(INSTALL) -m 644 build/man/systracectl.8 $(DESTDIR)$(MANDIR)/man8/systracectl.8
	$(INSTALL) -m 644 build/man/systrace.4 $(DESTDIR)$(MANDIR)/man4/systrace.4
	$(INSTALL) -m 644 user/systracectl.bash $(DESTDIR)$(BASHCOMPDIR)/systracectl

# One systrace.ko per kernel: modprobe would pick one of two at random.
install-module: kmod-install
	@[ -n "$(DESTDIR)" ] || ! ls /lib/modules/$(KVER)/updates/dkms/systrace.ko* >/dev/null 2>&1 || { \
		echo "DKMS installed systrace for $(KVER) (/lib/modules/$(KVER)/updates/dkms/): remove it first (make uninstall-dkms)" >&2; \
		exit 1; }
	$(INSTALL) -d $(DESTDIR)$(MODDIR)
	$(INSTALL) -m 644 build/install/$(KVER)/kmod/systrace.ko $(DESTDIR)$(MODDIR)/systrace.ko
	$(if $(DESTDIR),,$(DEPMOD) -a $(KVER))

uninstall: uninstall-user uninstall-module

uninstall-user:
	rm -f $(DESTDIR)$(BINDIR)/systracectl $(DESTDIR)$(MANDIR)/man8/systracectl.8 \
		$(DESTDIR)$(MANDIR)/man4/systrace.4 $(DESTDIR)$(BASHCOMPDIR)/systracectl

uninstall-module:
	rm -f $(DESTDIR)$(MODDIR)/systrace.ko
	$(if $(DESTDIR),,test ! -d /lib/modules/$(KVER) || $(DEPMOD) -a $(KVER))

# The DKMS source tree alone (what a package ships; dkms add takes it).
dkms-src:
	@test -n "$(VERSION)" || { echo "no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }
	rm -rf $(DESTDIR)$(DKMS_SRC)
	@echo "  DKMS    $(DESTDIR)$(DKMS_SRC): $(DKMS_FILES)"
	@set -e; for f in $(DKMS_FILES); do $(INSTALL) -m 644 -D $$f $(DESTDIR)$(DKMS_SRC)/$$f; done

# With DESTDIR, only the files. Without: a version added before is removed
# (its sources may have changed), then dkms adds the new tree and builds
# and installs the module for each kernel of DKMS_KVERS; dkms builds it
# again for every kernel installed later (AUTOINSTALL). dkms install exits
# 77 for a kernel dkms.conf excludes (BUILD_EXCLUSIVE_*): not an error.
install-dkms: install-user dkms-src
	@[ -n "$(DESTDIR)" ] || command -v $(DKMS) >/dev/null || { echo "dkms is missing: apt-get install dkms" >&2; exit 1; }
	@[ -n "$(DESTDIR)" ] || [ -z "$(wildcard /lib/modules/*/updates/systrace.ko)" ] || { \
		echo "make install put systrace in $(wildcard /lib/modules/*/updates/systrace.ko): remove it first (make uninstall-module KVER=...)" >&2; \
		exit 1; }
	$(if $(DESTDIR),,if [ -n "$$($(DKMS) status -m systrace -v $(VERSION))" ]; then $(DKMS) remove systrace/$(VERSION) --all; fi)
	$(if $(DESTDIR),,$(DKMS) add systrace/$(VERSION))
	$(if $(DESTDIR),,@set -e; for k in $(DKMS_KVERS); do \
		echo "$(DKMS) install systrace/$(VERSION) -k $$k"; \
		$(DKMS) install systrace/$(VERSION) -k $$k || [ $$? = 77 ]; \
	done)

uninstall-dkms: uninstall-user
	$(if $(DESTDIR),,if [ -n "$$($(DKMS) status -m systrace -v $(VERSION) 2>/dev/null)" ]; then $(DKMS) remove systrace/$(VERSION) --all; fi)
	rm -rf $(DESTDIR)$(DKMS_SRC)

# deb: dpkg-buildpackage on a copy of the tree's files (build/deb/src/, gone
# after a build that works), so that the tree stays clean; the .deb,
# .buildinfo and .changes files land in build/deb/, then lintian checks
# the packages (LINTIAN= skips it): any error or warning fails. The
# packages' version: dkms.conf's, the commit count and SYSTRACE_VERSION,
# e.g. 0.1+git412.d93d366 (a Debian version starts with a digit and has no
# '-' in a native package); debian/changelog is written into the copy.
DEB_VERSION ?= $(VERSION)+git$(shell git -C $(TOP) rev-list --count HEAD 2>/dev/null || echo 0).$(subst -,.,$(SYSTRACE_VERSION))
DEB_SRC = $(TOP)/build/deb/src/systrace-$(DEB_VERSION)
DEB_DATE = $(shell date -R -u $(if $(MAN_DATE),-d @$(MAN_DATE)))
LINTIAN ?= lintian
.PHONY: deb
deb:
	@command -v dpkg-buildpackage >/dev/null && command -v dh_dkms >/dev/null || \
		{ echo "no dpkg-buildpackage or dh_dkms: run scripts/deps (debhelper, dh-dkms)" >&2; exit 1; }
	rm -rf $(TOP)/build/deb
	mkdir -p $(DEB_SRC)
	@if git -C $(TOP) rev-parse --git-dir >/dev/null 2>&1; then \
		cd $(TOP) && git ls-files -z -co --exclude-standard | \
			xargs -0 -r stat --printf '%n\0' 2>/dev/null | \
			tar --null -T - -cf - | tar -xf - -C $(DEB_SRC); \
	else \
		tar -C $(TOP) --exclude=./build -cf - . | tar -xf - -C $(DEB_SRC); \
	fi
	@printf '%s\n' 'systrace ($(DEB_VERSION)) unstable; urgency=medium' '' \
		'  * Built by make deb from systrace $(SYSTRACE_VERSION).' '' \
		' -- $(shell sed -n 's/^Maintainer: //p' debian/control)  $(DEB_DATE)' >$(DEB_SRC)/debian/changelog
	cd $(DEB_SRC) && SYSTRACE_VERSION=$(SYSTRACE_VERSION) MAN_DATE=$(MAN_DATE) \
		dpkg-buildpackage -us -uc -b >../../build.log 2>&1 || { tail -n 40 ../../build.log >&2; exit 1; }
	mv $(TOP)/build/deb/src/*.deb $(TOP)/build/deb/src/*.buildinfo $(TOP)/build/deb/src/*.changes $(TOP)/build/deb/
	rm -rf $(TOP)/build/deb/src
	@ls $(TOP)/build/deb/*.deb
	@if [ -n "$(LINTIAN)" ]; then echo "$(LINTIAN) --fail-on error,warning build/deb/*.changes"; \
		$(LINTIAN) --fail-on error,warning $(TOP)/build/deb/*.changes; fi

# lint: shellcheck on every shell script, pyflakes on the Python, and
# scripts/layers: no include cycle in user/, no header name used twice in
# kmod/, user/ and include/, no python3 -c in a shell test.
# style: lint, then checkpatch on the kernel code.
# checkpatch.pl ships in kernel sources, not in Debian's headers packages.
CHECKPATCH ?= $(firstword $(wildcard $(TOP)/build/debug-kernel/src/scripts/checkpatch.pl $(KDIR)/scripts/checkpatch.pl))
LINT_SH = $(shell grep -d skip -lE '^\#!.*(bash|/sh)' scripts/* bench/* bench/scale/* bench/host/* bench/glibc/* bench/startup/* bench/paths/* selftests/run .ci/run) \
	scripts/tap.sh $(wildcard selftests/*.sh user/*.sh user/tests/*.sh)
LINT_PY = $(wildcard selftests/*.py bench/*.py user/tests/*.py) selftests/csvq selftests/bpfq scripts/layers scripts/mutate bench/report bench/scale/gen \
	bench/scale/report bench/scale/logreport bench/host/report bench/glibc/report \
	bench/startup/report bench/startup/breakdown bench/paths/report

lint:
	@command -v shellcheck >/dev/null && command -v pyflakes3 >/dev/null || \
		{ echo "no shellcheck or pyflakes3: run scripts/deps" >&2; exit 1; }
	@echo "shellcheck: $(words $(LINT_SH)) scripts"
	@shellcheck $(LINT_SH)
	@echo "pyflakes3: $(words $(LINT_PY)) files"
	@pyflakes3 $(LINT_PY)
	@$(TOP)/scripts/layers
	@$(TOP)/scripts/mutate --check

style: lint
	@test -n "$(CHECKPATCH)" || { echo "no checkpatch.pl: run scripts/debug-kernel or set CHECKPATCH=" >&2; exit 1; }
	@# The uapi's X-macro lists (SYSTRACE_SESSION_STATS, SYSTRACE_PROC_ACCT)
	@# expand to a sequence, which checkpatch calls a complex value.
	perl $(CHECKPATCH) --no-tree --terse --ignore SPDX_LICENSE_TAG -f kmod/*.c kmod/*.h; \
	k=$$?; perl $(CHECKPATCH) --no-tree --terse --ignore SPDX_LICENSE_TAG,COMPLEX_MACRO \
		-f include/uapi/linux/systrace.h && exit $$k

clean:
	-$(call KMAKE,$(KDIR),$(TOP)) clean
	$(MAKE) -C user clean
	rm -rf build
