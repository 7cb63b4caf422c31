# SPDX-License-Identifier: GPL-2.0
"""make harness-mutants: do the harness's own tests catch its bugs?

  mutants.harness [--only NAME,...] [--jobs N]

Applies each mutation of mutants/harness_catalog.py alone to a copy of
the repository (without build/ and .git: the copy's runs write to a
build root of their own, and read only the kernel tree's kunit_tool)
and runs the harness's tests there (python3 -m tests, as make harness
does). A mutant is caught when that run fails; the unmutated copy must
pass first, and a mutation that no longer applies once is an error, not
a catch. Prints one line per mutant with the first test that went red,
saves one case, "90 % or more caught", as the stage "harness-mutants"
(lib/results.py; its detail names the survivors) and fails unless it
holds. Not make mutants, which breaks the kernel code: this breaks the
harness that judges it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from lib import results
from lib.common import REPO, Config, Failure, config, log, main_guard
from mutants.harness_catalog import MUTANTS, HarnessMutant

# The share of mutants the tests must catch.
REQUIRED = 0.9
# A harness run takes about ten seconds; one that hangs is a failure.
TIMEOUT = 600
# mypy's cache is copied: the copy's files keep their times, so mypy
# checks again only the file a mutant changed.
SKIP = shutil.ignore_patterns(".git", "build", "__pycache__")


@dataclass(frozen=True)
class Outcome:
    mutant: HarnessMutant
    caught: bool
    detail: str


def first_red(output: str) -> str:
    """The first test the run reported failing, or its last line."""
    for line in output.splitlines():
        m = re.match(r"^harness: FAIL\s+(\S+)", line)
        if m:
            return m.group(1)
    lines = output.strip().splitlines()
    return lines[-1][:200] if lines else "no output"


def copy_repo(dest: Path) -> Path:
    root = dest / "repo"
    shutil.copytree(REPO, root, ignore=SKIP, symlinks=True)
    # Results of the copy's runs go to a build directory of its own.
    (root / "build").mkdir()
    return root


def harness(cfg: Config, root: Path, scratch: Path) -> tuple[int, str]:
    """python3 -m tests in @root: its exit status and output."""
    env = dict(os.environ, PYTHONPATH=str(root / "scripts"),
               BOARD_NUMBERS_ROOT=str(scratch),
               # test_ktap parses with @cfg's kernel tree's own kunit_tool.
               KUNIT_TOOL_DIR=str(cfg.tree / "tools" / "testing" / "kunit"),
               # The catalog's own test checks the unmutated scripts: in
               # the copy, the mutant's code is gone on purpose.
               HARNESS_MUTANTS_SOURCE=str(REPO / "scripts"))
    try:
        proc = subprocess.run([sys.executable, "-m", "tests"], cwd=root, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return 1, f"timed out after {TIMEOUT} s"
    return proc.returncode, proc.stdout


def apply(root: Path, mutant: HarnessMutant) -> None:
    path = root / "scripts" / mutant.path
    text = path.read_text()
    if text.count(mutant.old) != 1:
        raise Failure(f"mutant {mutant.name}: its text occurs "
                      f"{text.count(mutant.old)} times in {mutant.path}, not once: "
                      "update mutants/harness_catalog.py")
    path.write_text(text.replace(mutant.old, mutant.new))


def judge(cfg: Config, mutant: HarnessMutant) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="harness-mutant-") as tmp:
        root = copy_repo(Path(tmp))
        apply(root, mutant)
        code, output = harness(cfg, root, Path(tmp) / "build")
    # The count line as well as the exit status: a mutant of the code that
    # turns the count into an exit status (lib.results.count()) would
    # otherwise hide the very test that caught it.
    if code == 0 and not re.search(r"^harness: \d+ passed, [1-9]\d* failed$",
                                    output, re.M):
        return Outcome(mutant, False, f"survived: {mutant.breaks}")
    return Outcome(mutant, True, f"caught by {first_red(output)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", help="mutant names, comma-separated")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    cfg = config()
    chosen = MUTANTS
    if args.only:
        wanted = set(args.only.split(","))
        chosen = [m for m in MUTANTS if m.name in wanted]
        unknown = wanted - {m.name for m in chosen}
        if unknown:
            raise Failure(f"no such harness mutant: {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory(prefix="harness-mutant-") as tmp:
        code, output = harness(cfg, copy_repo(Path(tmp)), Path(tmp) / "build")
    if code != 0:
        raise Failure("the harness fails without any mutation, so no mutant "
                      f"can be judged: {first_red(output)}")
    log(f"{len(chosen)} harness mutants, {args.jobs} at a time")
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        outcomes = list(pool.map(lambda m: judge(cfg, m), chosen))
    for o in outcomes:
        print(f"harness-mutants: {'CAUGHT  ' if o.caught else 'SURVIVED'} "
              f"{o.mutant.name:40} {o.detail}")
    caught = sum(o.caught for o in outcomes)
    enough = caught >= REQUIRED * len(outcomes)
    survivors = [o.mutant.name for o in outcomes if not o.caught]
    # One case: the rule is a share, so a survivor is not a failure of
    # its own; the detail names every one.
    results.save(cfg, "harness-mutants", [(
        f"{REQUIRED:.0%} or more of the harness mutants caught", enough,
        f"{caught} of {len(outcomes)} caught"
        + (f"; survived: {', '.join(survivors)}" if survivors else ""))])
    print(f"harness-mutants: {caught} caught, {len(outcomes) - caught} survived "
          f"of {len(outcomes)} ({caught / len(outcomes):.0%}; {REQUIRED:.0%} required)")
    return 0 if enough else 1


if __name__ == "__main__":
    main_guard(main)
