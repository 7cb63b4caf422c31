#!/usr/bin/env python3
"""Run checkpatch.pl --strict on every patch of patches/series.

One result per patch; any ERROR, WARNING or CHECK fails it. The only
check left out is UNKNOWN_COMMIT_ID: the tree is made from a tarball with
no upstream history, so checkpatch cannot look up the ids of Fixes: tags
(they are upstream commit ids, checked by hand when written).
"""

from __future__ import annotations

import re

from common import PATCHES, TREE, main_guard, run, series_patches

IGNORED = ["UNKNOWN_COMMIT_ID"]


def check(name: str) -> list[str]:
    proc = run(["perl", "scripts/checkpatch.pl", "--strict", "--quiet",
                "--no-summary", "--show-types", f"--ignore={','.join(IGNORED)}",
                str(PATCHES / name)], cwd=TREE, capture=True, check=False)
    findings = [line for line in proc.stdout.splitlines()
                if re.match(r"(ERROR|WARNING|CHECK):", line)]
    if proc.returncode != 0 and not findings:
        findings = proc.stdout.splitlines()[-5:] or ["checkpatch.pl failed"]
    return findings


def main() -> int:
    passed = failed = 0
    for name in series_patches():
        findings = check(name)
        if findings:
            failed += 1
            print(f"checkpatch: FAIL  {name}")
            for line in findings:
                print(f"    {line}")
        else:
            passed += 1
            print(f"checkpatch: PASS  {name}")
    print(f"checkpatch: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    main_guard(main)
