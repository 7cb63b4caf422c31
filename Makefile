# The two commands of the README:
#   make demo    build the patched kernel and hot-plug an e1000 in QEMU
#   make check   the test gate: checkpatch, KUnit, bisect build
# Both install what is missing on a Debian 12 machine.
#
# Developer targets:
#   make tree    unpack linux-source-6.12 into build/linux and apply the
#                series (FORCE=1 drops tree work that patches/ lacks)
#   make export  write build/linux's commits back to patches/
#   make kunit | checkpatch | bisect   one stage of the gate
#   make clean   remove build/ (the tree and every build directory)

PYTHON := python3
RUN := bash scripts/bootstrap.sh && $(PYTHON) scripts

.PHONY: check demo tree export kunit checkpatch bisect clean

check:
	@$(RUN)/gate.py

demo:
	@$(RUN)/deps.py tree build e2e && $(PYTHON) scripts/tree.py prepare \
		&& $(PYTHON) scripts/demo.py

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

clean:
	rm -rf build
