# The two commands of the README:
#   make demo    scenario a: one e1000 hot-plugged 100 times in QEMU, on the
#                patched and the plain kernel, with the summary and the plot
#   make check   the test gate: checkpatch, KUnit (plain and under the
#                kernel's checkers), bisect build and static checks (every
#                converted driver), e2e scenarios a-g, the userspace path
#                (mdev handler), reliability runs (fault injection, async
#                probing, removal under traffic, bad parameters, in-guest
#                loops)
# Both install what is missing on a Debian 12 machine.
#
#   make check-debug   slow: e2e scenarios a-d and f, a 1000-cycle hot-plug
#                soak and the async, params and loops reliability runs on
#                the debug guest kernel (KASAN, kmemleak, lockdep, object
#                debugging), kmemleak scans
#   make cover-letter  patches/0000-cover-letter.patch's figures from the
#                last make check, To/Cc from get_maintainer.pl
#
# Developer targets:
#   make tree    unpack linux-source-6.12 into build/linux and apply the
#                series (FORCE=1 drops tree work that patches/ lacks)
#   make export  write build/linux's commits back to patches/
#   make kunit | checkpatch | bisect | e2e | userspace | reliability
#                one stage
#   make clean   remove build/ (the tree and every build directory)

PYTHON := python3
RUN := bash scripts/bootstrap.sh && $(PYTHON) scripts

.PHONY: check check-debug cover-letter demo tree export kunit checkpatch \
	bisect e2e userspace reliability clean

check:
	@$(RUN)/gate.py

check-debug:
	@$(RUN)/gate.py --debug

demo:
	@$(RUN)/deps.py tree build e2e && $(PYTHON) scripts/tree.py prepare \
		&& $(PYTHON) scripts/e2e.py --scenarios a

tree:
	@$(RUN)/deps.py tree && $(PYTHON) scripts/tree.py prepare $(if $(FORCE),--force)

export:
	@$(RUN)/tree.py export

kunit: tree
	@$(RUN)/deps.py build kunit && $(PYTHON) scripts/run_kunit.py

checkpatch: tree
	@$(RUN)/deps.py checkpatch && $(PYTHON) scripts/checkpatch.py

bisect: tree
	@$(RUN)/deps.py build bisect && $(PYTHON) scripts/bisect_build.py

e2e: tree
	@$(RUN)/deps.py build e2e && $(PYTHON) scripts/e2e.py

userspace: tree
	@$(RUN)/deps.py build e2e && $(PYTHON) scripts/userspace_path.py

reliability: tree
	@$(RUN)/deps.py build e2e && $(PYTHON) scripts/reliability.py

cover-letter: tree
	@$(RUN)/cover_letter.py

clean:
	rm -rf build
