# SPDX-License-Identifier: GPL-2.0
# make with no target prints the help below (the lines that start with
# "##"); nothing runs until a target is named.
##Board numbers: a kernel series that gives board numbers back, and its gate.
##
##The two commands of the README (./run installs make where it is missing):
##  make check       the pull-request gate (.ci/run): static checks and
##                   builds on both bases, KUnit and the guest runs (each
##                   with its negative control) on 7.3. Runs as root: installs Debian packages
##                   (apt sources and a pin for Debian 13's suites under
##                   /etc/apt), debootstraps a clang root and a guest root in
##                   ~/.cache/board-numbers, a ccache in ~/.cache/ccache*;
##                   builds in build/. Times: docs/figures.md.
##  make demo        one e1000 hot-plugged 100 times in QEMU on the patched
##                   and the plain kernel, with the plot; installs as above
##
##Other gates: make check-full (nightly depth, KUnit under KASAN, mutants),
##  make check-debug (the debug guest kernel); both as root, as check.
##  FRESH=1 runs checkpatch and bisect again even where build/ keeps the
##  passing result of the same inputs (scripts/lib/resultcache.py).
##One stage on one base (KERNEL=7.3 or 6.12; 6.12 if unset):
##  make tree | kunit | checkpatch | patchwork | callsites | probe-counters |
##       bisect | e2e | userspace | reliability | mutants
##  make harness     the harness's own unit tests (seconds, no QEMU)
##  make harness-mutants  one-line bugs put in the harness, one at a time:
##                   its tests must catch 90 % (minutes, no QEMU; in check-full)
##  make export      build/KERNEL/linux's commits back to patches/KERNEL/
##  make figures     docs/figures.md from the last gate's records
##  make cover-letter | send-prep   the sets as mail from you (refuses the
##                   repository's placeholder identity)
##  make clean       remove build/
##  make distclean   also ~/.cache/board-numbers, the clang ccache, and the
##                   apt sources and pins the gate added (as root); the
##                   kernel builds' ccache is the user's own: ccache -C
#
# KERNEL picks the base: Debian 12's linux-source-6.12 or Debian 13's
# linux-source-7.3, patches/KERNEL/, build/KERNEL/. The gates run every
# base unless KERNEL names one.

PYTHON := python3
# Every script is a module of a package under scripts/.
PY := PYTHONPATH=$(CURDIR)/scripts $(PYTHON) -m
BOOT := bash scripts/bootstrap.sh &&

.PHONY: help check check-full check-debug figures cover-letter send-prep demo tree \
	export harness harness-mutants kunit checkpatch patchwork callsites probe-counters bisect e2e userspace \
	reliability mutants clean distclean kernel-named

BASES := $(if $(KERNEL),--bases $(KERNEL))
export BOARD_NUMBERS_FRESH := $(FRESH)

help:
	@sed -n 's/^##//p' $(firstword $(MAKEFILE_LIST))


check:
	@$(BOOT) $(PY) gate.gate --tier check $(BASES)

check-full:
	@$(BOOT) $(PY) gate.gate --tier full $(BASES)

check-debug:
	@$(BOOT) $(PY) gate.gate --tier debug $(BASES)

demo:
	@$(BOOT) $(PY) lib.deps tree build e2e && $(PY) series.tree prepare \
		&& $(PY) e2e.runner --scenarios a

tree:
	@$(BOOT) $(PY) lib.deps tree && $(PY) series.tree prepare $(if $(FORCE),--force)

export:
	@$(BOOT) $(PY) series.tree export

harness:
	@$(BOOT) $(PY) lib.deps harness callsites && $(PY) tests

harness-mutants:
	@$(BOOT) $(PY) lib.deps harness callsites && $(PY) mutants.harness

kunit: tree
	@$(PY) lib.deps build kunit && $(PY) checks.kunit

checkpatch: tree
	@$(PY) lib.deps checkpatch && $(PY) checks.checkpatch

patchwork: tree
	@$(PY) checks.patchwork

callsites: tree
	@$(PY) lib.deps callsites && $(PY) checks.callsites

probe-counters: tree
	@$(PY) lib.deps callsites && $(PY) checks.probe_counters

bisect: tree
	@$(PY) lib.deps build bisect && $(PY) checks.bisect

e2e: tree
	@$(PY) lib.deps build e2e && $(PY) e2e.runner

userspace: tree
	@$(PY) lib.deps build e2e userspace && $(PY) userspace.udev

reliability: tree
	@$(PY) lib.deps build e2e && $(PY) reliability.runs

mutants: tree
	@$(PY) lib.deps build kunit e2e callsites && $(PY) mutants.mutate

figures:
	@$(BOOT) $(PY) gate.figures

# Mail is for one base, named: without KERNEL these would prepare the
# 6.12 backport, not the sets sent upstream.
kernel-named:
	@test -n "$(KERNEL)" || { echo "error: name the base: KERNEL=7.3 (the sets sent upstream) or KERNEL=6.12 (the backport)" >&2; exit 1; }

cover-letter: kernel-named tree
	@$(PY) mail.cover_letter

send-prep: kernel-named tree
	@$(PY) lib.deps send && $(PY) mail.send_prep

clean:
	rm -rf build

distclean: clean
	rm -rf $(HOME)/.cache/board-numbers $(HOME)/.cache/ccache-trixie-clang
	rm -f /etc/apt/sources.list.d/board-numbers-*.sources \
		/etc/apt/preferences.d/board-numbers-*
