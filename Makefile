# The two commands of the README (./run installs make and python3 where
# they are missing, then runs one of these):
#   make demo        scenario a: one e1000 hot-plugged 100 times in QEMU, on
#                    the patched and the plain kernel, with the plot
#   make check       the pull-request gate (.ci/run): every stage and
#                    scenario in a short form, each with its negative control
# Both install what is missing on a Debian 12 machine.
#
#   make check-full  the nightly gate: the same stages at full depth, KUnit
#                    under the kernel's checkers, and make mutants
#   make check-debug slow: e2e, a 1000-cycle soak and reliability runs on
#                    the debug guest kernel (KASAN, kmemleak, lockdep, ...)
#   make figures     docs/figures.md from the last gate's build/results/
#   make cover-letter  patches/0000-cover-letter.patch's figures from the
#                    last make check, To/Cc from get_maintainer.pl
#
# Developer targets:
#   make tree        unpack linux-source-6.12 into build/linux and apply the
#                    series (FORCE=1 drops tree work that patches/ lacks)
#   make export      write build/linux's commits back to patches/
#   make harness     the harness's own unit tests (seconds, no QEMU)
#   make kunit | checkpatch | bisect | e2e | userspace | reliability
#                    one stage (full depth)
#   make mutants     break the series on purpose, mutation by mutation
#                    (scripts/mutants/catalog.py), and check that KUnit,
#                    e2e or fault injection goes red for each
#   make clean       remove build/ (the tree and every build directory)

PYTHON := python3
# Every script is a module of a package under scripts/.
PY := PYTHONPATH=$(CURDIR)/scripts $(PYTHON) -m
BOOT := bash scripts/bootstrap.sh &&

.PHONY: check check-full check-debug figures cover-letter demo tree export \
	harness kunit checkpatch bisect e2e userspace reliability mutants clean

check:
	@$(BOOT) $(PY) gate.run --tier check

check-full:
	@$(BOOT) $(PY) gate.run --tier full

check-debug:
	@$(BOOT) $(PY) gate.run --tier debug

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

bisect: tree
	@$(PY) lib.deps build bisect && $(PY) series.bisect

e2e: tree
	@$(PY) lib.deps build e2e && $(PY) e2e.run

userspace: tree
	@$(PY) lib.deps build e2e && $(PY) userspace.run

reliability: tree
	@$(PY) lib.deps build e2e && $(PY) reliability.run

mutants: tree
	@$(PY) lib.deps build kunit e2e && $(PY) mutants.run

figures:
	@$(BOOT) $(PY) gate.figures

cover-letter: tree
	@$(PY) series.cover_letter

clean:
	rm -rf build
