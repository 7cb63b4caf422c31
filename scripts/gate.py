#!/usr/bin/env python3
"""The test gate behind "make check" and .ci/run.

Installs what is missing, prepares the tree from Debian's package, then
runs every stage and counts its results:

  checkpatch  checkpatch.pl --strict on each patch
  kunit       every KUnit case of the series, kunit.py on QEMU x86_64
  bisect      each prefix of the series builds, with no new W=1/sparse warning
  e2e         hot-plug scenarios in QEMU on the patched kernel, each caught
              on the plain kernel (the negative control)

The last line is "N passed, N failed" over all stages; the exit status is
non-zero when anything failed.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time

from common import REPO, Failure, log, main_guard

SCRIPTS = REPO / "scripts"
STAGES = [
    ("checkpatch", ["checkpatch.py"]),
    ("kunit", ["run_kunit.py"]),
    ("bisect", ["bisect_build.py"]),
    ("e2e", ["e2e.py"]),
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
    start = time.monotonic()
    for step in (["deps.py", "tree", "build", "kunit", "checkpatch", "bisect",
                  "e2e"],
                 ["tree.py", "prepare"]):
        code, _ = stream(step)
        if code != 0:
            raise Failure(f"{step[0]} failed; nothing was tested\n"
                          "0 passed, 1 failed")
    total_passed = total_failed = 0
    rows = []
    for name, cmd in STAGES:
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
