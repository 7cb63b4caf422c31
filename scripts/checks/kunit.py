# SPDX-License-Identifier: GPL-2.0
"""Run the series' KUnit suites with the tree's own kunit.py on QEMU x86_64.

  checks/kunit.py [--variant NAME]

The suites (the top-level .kunitconfig) are built into the patched guest
kernel (guest.kernel, with qemu-configs/NAME.config for a variant), and
kunit.py exec boots that kernel: one kernel per base serves the guest
runs and KUnit, where kunit.py run would build a second one of its own.
kunit.py exec, given the same .kunitconfig, checks nothing about the
build: guest.kernel does, failing when a symbol .kunitconfig asks for did
not survive olddefconfig, as kunit.py run would. kunit.py writes its
--json results to build/BASE/kunit[-NAME]-results.json and the kernel's
output to test.log in the kernel's build directory; this script prints
one line per case and returns non-zero unless every case passed and at
least one ran.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any, Iterator

from guest import kernel as guest_kernel
from lib import results
from lib.common import (
    SCRIPTS, TROUBLE, Config, Failure, config, kunitconfigs, log, main_guard, run
)


def cases(group: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    """(suite.case, status) for every case of a kunit.py JSON report."""
    name = group.get("name", "")
    path = f"{prefix}{name}." if prefix or name != "KUnit Test Group" else ""
    for case in group.get("test_cases", []):
        yield f"{path}{case['name']}", case.get("status", "ERROR")
    for sub in group.get("sub_groups", []):
        yield from cases(sub, path)


def kunit(cfg: Config, variant: str | None) -> tuple[int, int]:
    suffix = f"-{variant}" if variant else ""
    kernel = guest_kernel.build(cfg, "patched", variant)
    build_dir = kernel.build_dir
    json_report = cfg.build / f"kunit{suffix}-results.json"
    json_report.unlink(missing_ok=True)
    # A variant's checkers need the guest's memory and boot arguments.
    kernel_args, qemu_args = guest_kernel.variant_args(variant)
    cmd = ["python3", "tools/testing/kunit/kunit.py", "exec", "--arch=x86_64",
           f"--build_dir={build_dir}", f"--json={json_report}",
           # Two vCPUs, so that the concurrency cases really run in parallel.
           f"--qemu_args={' '.join(['-smp', '2', *qemu_args])}", "--timeout=900"]
    cmd += [f"--kernel_args={arg}" for arg in kernel_args]
    cmd += [f"--kunitconfig={c}" for c in kunitconfigs()]
    log(f"kunit.py exec on {build_dir}")
    # QEMU under TCG only (tcg/qemu-system-x86_64 says why).
    path = f"{SCRIPTS / 'checks' / 'tcg'}:{os.environ['PATH']}"
    proc = run(cmd, cwd=cfg.tree, check=False, env={"PATH": path})
    if not json_report.is_file():
        raise Failure(f"kunit.py wrote no results (exit {proc.returncode}); "
                      "see its output above")
    report = list(cases(json.loads(json_report.read_text())))
    for name, status in report:
        print(f"kunit: {status:5} {name}")
    # A WARN() or a BUG in the kernel fails the run even when every case
    # passed: kunit.py keeps the kernel's whole output in test.log.
    log_file = build_dir / "test.log"
    trouble = [line for line in log_file.read_text(errors="replace").splitlines()
               if TROUBLE.search(line)] if log_file.is_file() else []
    if trouble:
        print("kunit: FAIL  the kernel reported trouble:")
        for line in trouble[:20]:
            print(f"    {line}")
    rows = verdict(report, proc.returncode, trouble)
    results.save(cfg, f"kunit{suffix}", rows,
                 suites=sorted({name.split(".")[0] for name, _ in report}))
    passed = sum(1 for _, ok, _ in rows if ok)
    return passed, len(rows) - passed


def verdict(report: list[tuple[str, str]], returncode: int,
            trouble: list[str]) -> list[results.Row]:
    """A row per case of @report (passed, or skipped), a failing row for
    kunit.py's exit status when it failed in a way no case shows, and
    one for the kernel's first line of @trouble."""
    rows = [(name, status in ("PASS", "SKIP"), status) for name, status in report]
    if returncode != 0 and all(ok for _, ok, _ in rows):
        rows.append(("kunit.py", False, f"exit {returncode}"))
    if trouble:
        rows.append(("kernel log", False, trouble[0]))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", help="on the guest kernel variant "
                        "(qemu-configs/VARIANT.config)")
    args = parser.parse_args()
    passed, failed = kunit(config(), args.variant)
    print(f"kunit: {passed} passed, {failed} failed")
    if passed + failed == 0:
        raise Failure("kunit.py ran no test case")
    return 1 if failed else 0


if __name__ == "__main__":
    main_guard(main)
