#!/usr/bin/env python3
"""The test gate behind "make check" and .ci/run, and "make check-debug".

  gate.py [--debug]

Installs what is missing, prepares the tree from Debian's package, then
runs every stage and counts its results:

  checkpatch   checkpatch.pl --strict on each patch
  kunit        every KUnit case of the series, kunit.py on QEMU x86_64
  kunit-debug  the same under KASAN, kmemleak, lockdep and the object checks
               (kunit/debug.kunitconfig)
  bisect       each prefix of the series builds, with no new W=1, sparse
               (C=2) or kernel-doc warning
  e2e          hot-plug scenarios in QEMU on the patched kernel, each caught
               on the plain kernel (the negative control)
  userspace    a NIC re-plugged 50 times gets its ring sizes from a hot-plug
               handler (mdev), no module parameters; caught without it
  reliability  fault injection in probe, 40 NICs probed asynchronously,
               removal under traffic, bad parameters, in-guest loops; each
               caught on the plain kernel too

With --debug ("make check-debug", slow) the stages are e2e scenarios
a-d and f, a 1000-cycle hot-plug soak and the async, params and loops
reliability runs on the debug guest kernel (qemu-configs/debug.config),
each guest ending with a kmemleak scan (see e2e.DEBUG_SCENARIOS and
reliability.DEBUG_RUNS for what is left out, and why).

Every stage leaves its verdicts in build/results/ for cover_letter.py.

The last line is "N passed, N failed" over all stages; the exit status is
non-zero when anything failed.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time

from common import REPO, Failure, log, main_guard

SCRIPTS = REPO / "scripts"
STAGES = [
    ("checkpatch", ["checkpatch.py"]),
    ("kunit", ["run_kunit.py"]),
    ("kunit-debug", ["run_kunit.py", "--variant", "debug"]),
    ("bisect", ["bisect_build.py"]),
    ("e2e", ["e2e.py"]),
    ("userspace", ["userspace_path.py"]),
    ("reliability", ["reliability.py"]),
]
DEBUG_STAGES = [
    ("e2e-debug", ["e2e.py", "--variant", "debug"]),
    ("soak-debug", ["e2e.py", "--variant", "debug", "--scenarios", "soak"]),
    ("rel-debug", ["reliability.py", "--variant", "debug"]),
]


def stream(cmd: list[str]) -> tuple[int, str]:
    """Run a stage, echoing its output; return its exit code and last count."""
    proc = subprocess.Popen([sys.executable, *cmd], cwd=SCRIPTS, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    last = ""
    for line in proc.stdout:
        print(line, end="", flush=True)
        if re.search(r"\b\d+ passed, \d+ failed$", line.strip()):
            last = line.strip()
    return proc.wait(), last


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--debug", action="store_true",
                        help="the debug-kernel stages of make check-debug")
    args = parser.parse_args()
    stages = DEBUG_STAGES if args.debug else STAGES
    start = time.monotonic()
    for step in (["deps.py", "tree", "build", "kunit", "checkpatch", "bisect",
                  "e2e"] if not args.debug else ["deps.py", "tree", "build", "e2e"],
                 ["tree.py", "prepare"]):
        code, _ = stream(step)
        if code != 0:
            raise Failure(f"{step[0]} failed; nothing was tested\n"
                          "0 passed, 1 failed")
    total_passed = total_failed = 0
    rows = []
    for name, cmd in stages:
        began = time.monotonic()
        log(f"stage {name}")
        code, last = stream(cmd)
        m = re.search(r"(\d+) passed, (\d+) failed", last)
        passed, failed = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        if code != 0 and failed == 0:
            failed = 1  # the stage broke before it could count
        total_passed += passed
        total_failed += failed
        rows.append((name, passed, failed, time.monotonic() - began))
    print("\nstage        passed  failed   time")
    for name, passed, failed, secs in rows:
        print(f"{name:12} {passed:6}  {failed:6}  {secs:5.0f}s")
    print(f"total time {time.monotonic() - start:.0f}s")
    print(f"{total_passed} passed, {total_failed} failed")
    return 1 if total_failed else 0


if __name__ == "__main__":
    main_guard(main)
