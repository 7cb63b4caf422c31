#!/usr/bin/env python3
"""Build every prefix of the series, with W=1 and sparse (C=1).

For the base tree and then after each patch, build the objects the series
touches in build/bisect (x86_64 defconfig plus KUnit, every KUnit test on)
and collect the compiler's and sparse's warnings. A patch passes when its
prefix builds and brings no warning that the base tree did not have, so
the series stays bisectable and adds no warnings. Builds are incremental:
checking out the next patch only touches what it changed.
"""

from __future__ import annotations

import re
from collections import Counter

from common import BUILD, TREE, Failure, jobs, log, main_guard, run, series_patches

OUT = BUILD / "bisect"
# Directories and objects the series touches, built at every step.
TARGETS = ["drivers/base/devres.o", "drivers/base/test/",
           "drivers/net/ethernet/intel/e1000/",
           "drivers/net/ethernet/intel/e1000e/"]
CONFIG = ["--enable", "KUNIT", "--enable", "KUNIT_ALL_TESTS",
          "--enable", "E1000", "--enable", "E1000E"]
WARNING = re.compile(r"^(\S+?):\d+(?::\d+)?: (warning|error): (.*)$")


def git(*args: str) -> str:
    return run(["git", *args], cwd=TREE, capture=True).stdout.strip()


def make(*args: str, check: bool = True) -> tuple[int, str]:
    proc = run(["make", f"O={OUT}", f"-j{jobs()}", "CC=ccache gcc", *args],
               cwd=TREE, capture=True, check=check)
    return proc.returncode, proc.stdout


def configure() -> None:
    if (OUT / ".config").is_file():
        return
    log("configuring build/bisect (x86_64 defconfig + KUnit)")
    OUT.mkdir(parents=True, exist_ok=True)
    make("x86_64_defconfig")
    run(["scripts/config", "--file", str(OUT / ".config"), *CONFIG], cwd=TREE)
    make("olddefconfig")


def warnings(output: str) -> Counter[str]:
    """Warnings keyed by file and text, without line numbers that shift."""
    found: Counter[str] = Counter()
    for line in output.splitlines():
        m = WARNING.match(line)
        if m:
            path = m.group(1).replace(f"{TREE}/", "")
            found[f"{path}: {m.group(2)}: {m.group(3)}"] += 1
    return found


def build(label: str) -> tuple[int, Counter[str], str]:
    # olddefconfig picks up Kconfig symbols a patch adds, with their
    # defaults (KUNIT_ALL_TESTS turns the new test suites on).
    make("olddefconfig")
    code, out = make("W=1", "C=1", *TARGETS, check=False)
    (OUT / f"build-{label}.log").write_text(out)
    return code, warnings(out), out


def main() -> int:
    names = series_patches()
    if git("rev-list", "--count", "base..series") != str(len(names)):
        raise Failure("branch series does not hold the series: run 'make tree'")
    configure()
    original = git("rev-parse", "series")
    passed = failed = 0
    try:
        git("checkout", "-q", "base")
        log("building the base tree's objects (W=1, C=1)")
        code, seen, out = build("base")
        if code != 0:
            raise Failure("the base tree does not build:\n" +
                          "\n".join(out.splitlines()[-20:]))
        for index, name in enumerate(names, 1):
            git("checkout", "-q", f"series~{len(names) - index}")
            code, found, out = build(f"{index:04d}")
            new = found - seen
            if code != 0 or new:
                failed += 1
                print(f"bisect: FAIL  {name}")
                if code != 0:
                    print("    does not build:")
                    for line in out.splitlines()[-15:]:
                        print(f"      {line}")
                for warning in sorted(new):
                    print(f"    new: {warning}")
            else:
                passed += 1
                print(f"bisect: PASS  {name} (builds, no new W=1/sparse warning)")
            seen = seen | found
    finally:
        git("checkout", "-q", "series")
        if git("rev-parse", "HEAD") != original:
            raise Failure("could not return to branch series")
    print(f"bisect: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    main_guard(main)
