# SPDX-License-Identifier: GPL-2.0
"""The last run's verdicts, kept per stage for the cover letter.

Every test stage saves its rows (name, passed, detail) to
build/BASE/results/<stage>.json, stamped with the series commit it tested
and that commit's tree, so that scripts/mail/cover_letter.py reports what was
measured on this series and refuses results from another version of it.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from lib.common import Config, Failure, run

Row = tuple[str, bool, str]


def series_commit(what: str, tree: Path) -> str:
    """The commit of branch series in @tree, a base's build/BASE/linux
    (with @what "series^{tree}", its tree: the same in every clone that
    applied the same patches to the same tarball, where commit ids
    differ)."""
    if not (tree / ".git").exists():
        return "unknown"  # no tree yet: the harness's tests need none
    proc = run(["git", "rev-parse", what], cwd=tree, capture=True, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else "unknown"


def save(cfg: Config, stage: str, rows: list[Row], **extra: Any) -> None:
    """Record @stage's @rows (and @extra figures) for the current series
    of @cfg's base, in its build/BASE/results/."""
    where = cfg.build / "results"
    where.mkdir(parents=True, exist_ok=True)
    record = {"stage": stage, "series": series_commit("series", cfg.tree),
              "tree": series_commit("series^{tree}", cfg.tree),
              "finished": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
              # make check's short forms or make check-full's depth (the
              # gate says which); "" for a stage run on its own.
              "tier": os.environ.get("BOARD_NUMBERS_TIER", ""),
              "passed": sum(1 for _, ok, _ in rows if ok),
              "failed": sum(1 for _, ok, _ in rows if not ok),
              "rows": [{"name": n, "ok": ok, "detail": d} for n, ok, d in rows],
              **extra}
    (where / f"{stage}.json").write_text(json.dumps(record, indent=1))


def report(prefix: str, rows: list[Row], width: int = 24) -> int:
    """Print @rows as "@prefix: PASS|FAIL name detail" lines and the
    "@prefix: N passed, M failed" line the gate counts; the exit status."""
    for name, ok, why in rows:
        print(f"{prefix}: {'PASS' if ok else 'FAIL'}  {name:{width}} {why}", flush=True)
    return count(prefix, rows)


def count(prefix: str, rows: list[Row]) -> int:
    """Print only the "@prefix: N passed, M failed" line the gate counts,
    for a stage that printed its rows as it went; the exit status."""
    failed = sum(1 for _, ok, _ in rows if not ok)
    print(f"{prefix}: {len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


def read(path: Path) -> dict[str, Any]:
    """A saved record, whatever series it is of."""
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise Failure(f"cannot read stage results {path}: {err}") from err
    if not isinstance(record, dict) or not isinstance(record.get("rows"), list):
        raise Failure(f"{path} is not a stage record")
    return record


def load(cfg: Config, stage: str, base: str = "") -> dict[str, Any]:
    """@stage's last record (of @base under @cfg's build root, by default
    @cfg's own base); it must be of the base's current series and clean."""
    where = cfg.build_root / base if base else cfg.build
    path = where / "results" / f"{stage}.json"
    tree = where / "linux"
    if not path.is_file():
        raise Failure(f"no results of stage {stage} ({path}): run the gate "
                      "first (make check-full runs every stage)")
    record = read(path)
    if (record["series"] != series_commit("series", tree) and
            record.get("tree") != series_commit("series^{tree}", tree)):
        raise Failure(f"{path} is from series commit {record['series'][:12]}, "
                      f"not the current one: run the gate first")
    if record["failed"]:
        raise Failure(f"{path}: {record['failed']} failed; a cover letter "
                      "reports a passing run")
    return record
