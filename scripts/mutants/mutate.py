# SPDX-License-Identifier: GPL-2.0
"""make mutants: apply each batch of mutations to a copy of the series and
check that the test named for each mutant goes red.

  mutants.mutate [--only NAME,...]

The copy is a worktree of the series commit in build/mutants/linux; every
stage runs there with BOARD_NUMBERS_BUILD=build/mutants, so its kernels
(build/mutants/guest-patched, which has the KUnit suites too) share ccache with the
real ones and rebuild only what a batch changed. KUnit mutants are caught
when their suite has a failing case; e2e mutants when their scenario's
patched run breaks the model (or the kernel reports trouble); fault
injection mutants when faults-DRIVER fails; the call-site mutants of every
converted driver (two each, found in the tree) when the static check
(checks/callsites.cocci) reports its directory. A batch that does not build,
or a catcher that does not run, is an error, not a catch. Prints one line
per mutant and "mutants: N caught, M survived"; fails on a survivor.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from checks import callsites
from checks.kunit import cases
from lib import results
from lib.common import SCRIPTS, Config, Failure, config, log, main_guard, run
from mutants.catalog import BATCHES, Mutant, apply, callsite_mutants


def home_dir(cfg: Config) -> Path:
    """build/BASE/mutants: the stages' build directory on the copy."""
    return cfg.build / "mutants"


def copy_dir(cfg: Config) -> Path:
    """The copy of the series the mutants go into, a worktree."""
    return home_dir(cfg) / "linux"


def fresh_copy(cfg: Config) -> None:
    """The series commit, checked out afresh; files a batch did not touch
    keep their times, so the next build is incremental."""
    head = run(["git", "rev-parse", "series"], cwd=cfg.tree, capture=True).stdout.strip()
    if not (copy_dir(cfg) / ".git").exists():
        run(["git", "worktree", "prune"], cwd=cfg.tree)
        home_dir(cfg).mkdir(parents=True, exist_ok=True)
        run(["git", "worktree", "add", "-q", "--detach", str(copy_dir(cfg)), head],
            cwd=cfg.tree, capture=True)
    run(["git", "checkout", "-q", "--detach", "-f", head], cwd=copy_dir(cfg), capture=True)
    run(["git", "reset", "-q", "--hard", head], cwd=copy_dir(cfg), capture=True)


def stage(cfg: Config, module: str, *args: str) -> int:
    """Run a gate stage on the copy; its exit status (red is expected)."""
    # CCACHE_BASEDIR too: compile commands relative to build/mutants are
    # those of build/, so ccache hands back every object a batch left alone.
    env = {"PYTHONPATH": str(SCRIPTS), "BOARD_NUMBERS_BUILD": str(home_dir(cfg)),
           "CCACHE_BASEDIR": str(home_dir(cfg))}
    return run(["python3", "-m", module, *args], env=env, check=False).returncode


def red_suites(report: Path) -> set[str]:
    """The suites with a failing case in a kunit.py JSON report."""
    if not report.is_file():
        raise Failure("the mutated guest kernel (KUnit) did not build or boot: "
                      f"no {report} (see the output above)")
    failed = {name.split(".")[0] for name, status in
              cases(json.loads(report.read_text())) if status not in ("PASS", "SKIP")}
    return failed


def red_rows(cfg: Config, record: str) -> dict[str, str]:
    """The failing rows of a stage the copy ran, by name."""
    saved = results.read(home_dir(cfg) / "results" / f"{record}.json")
    return {row["name"]: row["detail"] for row in saved["rows"] if not row["ok"]}


def judge(cfg: Config, batch: list[Mutant]) -> list[tuple[Mutant, bool, str]]:
    verdicts: list[tuple[Mutant, bool, str]] = []
    kinds = {m.kind for m in batch}
    if "kunit" in kinds:
        (home_dir(cfg) / "kunit-results.json").unlink(missing_ok=True)
        stage(cfg, "checks.kunit")
        suites = red_suites(home_dir(cfg) / "kunit-results.json")
        for m in batch:
            red = m.target in suites
            verdicts.append((m, red, f"{m.target} {'red' if red else 'green'}"))
    scenarios = sorted({m.target for m in batch if m.kind == "e2e"})
    if scenarios:
        chosen = ",".join(scenarios)
        (home_dir(cfg) / "results" / f"e2e-{chosen}.json").unlink(missing_ok=True)
        # A few cycles are enough: every mutant breaks the first re-plug.
        stage(cfg, "e2e.runner", "--scenarios", chosen, "--cycles", "4", "--no-raw",
              "--flavours", "patched")
        failing = red_rows(cfg, f"e2e-{chosen}")
        for m in batch:
            if m.kind == "e2e":
                row = f"{m.target} patched"
                verdicts.append((m, row in failing,
                                 failing.get(row, f"scenario {m.target} passed")))
    drivers = sorted({m.target for m in batch if m.kind == "faults"})
    if drivers:
        (home_dir(cfg) / "results" / "faults.json").unlink(missing_ok=True)
        stage(cfg, "reliability.faults", "--drivers", ",".join(drivers),
              "--flavours", "patched")
        failing = red_rows(cfg, "faults")
        for m in batch:
            if m.kind == "faults":
                row = f"faults-{m.target} patched"
                verdicts.append((m, row in failing, failing.get(row, f"{row} passed")))
    return verdicts


def judge_static(cfg: Config, folders: dict[str, list[str]],
                 mutants: list[Mutant]) -> list[tuple[Mutant, bool, str]]:
    """Each call-site mutant alone in the copy: its directory checked."""
    verdicts = []
    for m in mutants:
        fresh_copy(cfg)
        apply(m, copy_dir(cfg))
        folder = m.target
        problems = callsites.check(copy_dir(cfg), folders[folder])
        verdicts.append((m, bool(problems), "; ".join(problems)[:200]
                         or f"{folder} passed"))
    return verdicts


def main(cfg: Config | None = None) -> int:
    """make mutants on @cfg's base (config()'s when None)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", help="comma-separated mutant names")
    args = parser.parse_args()
    cfg = cfg or config()
    only = set(args.only.split(",")) if args.only else None
    if not (cfg.tree / ".git").exists():
        raise Failure(f"no kernel tree at {cfg.tree}: run make tree first")
    fresh_copy(cfg)
    folders = callsites.driver_dirs(copy_dir(cfg))
    static = [m for m in callsite_mutants(copy_dir(cfg), folders)
              if only is None or m.name in only]
    batches = [[m for m in b if only is None or m.name in only] for b in BATCHES]
    batches = [b for b in batches if b]
    if only and sum(map(len, batches)) + len(static) != len(only):
        raise Failure(f"no such mutant among {sorted(only)}")
    # The drivers a base does not have (7.3 has no yellowfin, hamachi or
    # acenic) have no code to mutate there.
    absent = [m for b in batches for m in b if not (cfg.tree / m.path).is_file()]
    for m in absent:
        log(f"mutants: {m.name} left out: {m.path} is not in this base")
    batches = [[m for m in b if m not in absent] for b in batches]
    batches = [b for b in batches if b]
    if not batches and not static:
        raise Failure("no mutant applies to this base's tree")
    rows: list[tuple[str, bool, str]] = []
    began = time.monotonic()
    log(f"mutants: {len(static)} call-site mutants, each checked alone")
    verdicts = judge_static(cfg, folders, static)
    for i, batch in enumerate(batches, 1):
        log(f"mutants: batch {i} of {len(batches)}: "
            + ", ".join(m.name for m in batch))
        fresh_copy(cfg)
        for m in batch:
            apply(m, copy_dir(cfg))
        verdicts += judge(cfg, batch)
    for m, caught, detail in verdicts:
        line = f"{'caught' if caught else 'SURVIVED'} by {m.catcher}: {m.why}; {detail}"
        print(f"mutants: {'CAUGHT  ' if caught else 'SURVIVED'} {m.name:36} "
              f"by {m.catcher}: {detail}", flush=True)
        rows.append((m.name, caught, line))
    fresh_copy(cfg)
    n_caught = sum(1 for _, ok, _ in rows if ok)
    results.save(cfg, "mutants", rows, seconds=round(time.monotonic() - began))
    print(f"mutants: {n_caught} caught, {len(rows) - n_caught} survived")
    return 0 if n_caught == len(rows) else 1


if __name__ == "__main__":
    main_guard(main)
