# The two commands of the README (./run installs make and python3 where
# they are missing, then runs one of these):
#   make demo        scenario a: one e1000 hot-plugged 100 times in QEMU, on
#                    the patched and the plain kernel, with the plot
#   make check       the pull-request gate (.ci/run): every stage and
#                    scenario in a short form, each with its negative
#                    control, on both bases (6.12 and 7.3)
# Both install what is missing on a Debian 12 machine.
#
# KERNEL=6.12 (the default for single targets) or KERNEL=7.3 picks the
# base: Debian 12's linux-source-6.12 or Debian 13's linux-source-7.3,
# patches/KERNEL/, build/KERNEL/. The gates run every base unless KERNEL
# names one.
#
#   make check-full  the nightly gate: the same stages at full depth, KUnit
#                    under the kernel's checkers, and make mutants
#   make check-debug slow: e2e, a 1000-cycle soak and reliability runs on
#                    the debug guest kernel (KASAN, kmemleak, lockdep, ...)
#   make figures     docs/figures.md from the last gate's build/results/
#   make cover-letter  each set's cover letter (patches/KERNEL/SET/) from
#                    docs/cover-letters/ and the last make check-full,
#                    To/Cc from get_maintainer.pl
#   make send-prep   the sets as mail from you (git config user.name and
#                    user.email) in build/KERNEL/outgoing/, b4-checked;
#                    refuses the repository's placeholder identity
#
# Developer targets:
#   make tree        unpack the base's linux-source into build/KERNEL/linux
#                    and apply its series (FORCE=1 drops tree work that
#                    patches/ lacks)
#   make export      write build/KERNEL/linux's commits back to
#                    patches/KERNEL/, set by set
#   make harness     the harness's own unit tests (seconds, no QEMU)
#   make kunit | checkpatch | patchwork | bisect | e2e | userspace |
#   reliability | callsites   one stage on one base (full depth)
#   make mutants     break the series on purpose, mutation by mutation
#                    (scripts/mutants/catalog.py), and check that KUnit,
#                    e2e or fault injection goes red for each
#   make clean       remove build/ (the tree and every build directory)

PYTHON := python3
# Every script is a module of a package under scripts/.
PY := PYTHONPATH=$(CURDIR)/scripts $(PYTHON) -m
BOOT := bash scripts/bootstrap.sh &&

.PHONY: check check-full check-debug figures cover-letter send-prep demo tree \
	export harness kunit checkpatch patchwork callsites bisect e2e userspace \
	reliability mutants clean

BASES := $(if $(KERNEL),--bases $(KERNEL))

check:
	@$(BOOT) $(PY) gate.run --tier check $(BASES)

check-full:
	@$(BOOT) $(PY) gate.run --tier full $(BASES)

check-debug:
	@$(BOOT) $(PY) gate.run --tier debug $(BASES)

demo:
	@$(BOOT) $(PY) lib.deps tree build e2e && $(PY) series.tree prepare \
		&& $(PY) e2e.run --scenarios a

tree:
	@$(BOOT) $(PY) lib.deps tree && $(PY) series.tree prepare $(if $(FORCE),--force)

export:
	@$(BOOT) $(PY) series.tree export

harness:
	@$(BOOT) $(PY) tests

kunit: tree
	@$(PY) lib.deps build kunit && $(PY) series.kunit

checkpatch: tree
	@$(PY) lib.deps checkpatch && $(PY) series.checkpatch

patchwork: tree
	@$(PY) series.patchwork

callsites: tree
	@$(PY) lib.deps callsites && $(PY) series.callsites

bisect: tree
	@$(PY) lib.deps build bisect && $(PY) series.bisect

e2e: tree
	@$(PY) lib.deps build e2e && $(PY) e2e.run

userspace: tree
	@$(PY) lib.deps build e2e userspace && $(PY) userspace.run

reliability: tree
	@$(PY) lib.deps build e2e && $(PY) reliability.run

mutants: tree
	@$(PY) lib.deps build kunit e2e callsites && $(PY) mutants.run

figures:
	@$(BOOT) $(PY) gate.figures

cover-letter: tree
	@$(PY) series.cover_letter

send-prep: tree
	@$(PY) lib.deps send && $(PY) series.send_prep

clean:
	rm -rf build
