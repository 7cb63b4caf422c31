# SPDX-License-Identifier: GPL-2.0
"""A static stage's passing result, kept with a digest of everything it
depends on, and given back when a later run has the same digest.

checkpatch is a function of its inputs: the patches, the tree's
checkpatch.pl and MAINTAINERS, Debian's codespell and the harness's
rules. When none of those changed since a run that passed, a second run
prints the same lines. Bisect keeps each step of its walk this way
(lib/walkcache.py, on this module's digests), so that it also resumes
after the patches that did not change. A warm make check on an unchanged series reuses the record, as
ccache reuses an object or mypy its cache, and says so on its first
line. A failing result is never kept; each digest covers the stage's
own source; the records live in build/BASE/result-cache/, so a clean
clone (CI) runs everything; BOARD_NUMBERS_FRESH=1 (make check
FRESH=1) runs everything on a kept build/ too.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any, Iterable

from lib import results
from lib.common import Config, config, run


def digest(parts: Iterable[str | bytes]) -> str:
    """One SHA-256 over @parts, each length-prefixed so that no two lists
    of parts run together."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def files(paths: Iterable[Path]) -> list[bytes]:
    """Each of @paths and its contents, as digest parts."""
    out: list[bytes] = []
    for path in paths:
        out.append(str(path).encode())
        out.append(path.read_bytes() if path.is_file() else b"(missing)")
    return out


def packages(names: Iterable[str]) -> str:
    """The installed versions of Debian packages @names, as dpkg-query
    gives them (a missing one is named as missing)."""
    return run(["dpkg-query", "-W", "-f", "${Package} ${Version}\\n", *names],
               capture=True, check=False).stdout


def path(stage: str, cfg: Config | None = None) -> Path:
    return (cfg or config()).build / "result-cache" / f"{stage}.json"


def load(stage: str, key: str, cfg: Config | None = None) -> dict[str, Any] | None:
    """The passing record @stage kept under @key, or None (none kept,
    another key, or BOARD_NUMBERS_FRESH set)."""
    if os.environ.get("BOARD_NUMBERS_FRESH"):
        return None
    where = path(stage, cfg)
    try:
        record: dict[str, Any] = json.loads(where.read_text())
    except (OSError, ValueError):
        return None
    if record.get("key") != key or any(not ok for _, ok, _ in record.get("rows", [[0, False, 0]])):
        return None
    return record


def keep(stage: str, key: str, rows: list[results.Row], lines: list[str],
         extra: dict[str, Any] | None = None, cfg: Config | None = None) -> None:
    """Keep @stage's @rows, the @lines it printed and the @extra figures it
    saved, under @key, if every row passed; otherwise forget any record."""
    where = path(stage, cfg)
    if not rows or any(not ok for _, ok, _ in rows):
        where.unlink(missing_ok=True)
        return
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text(json.dumps({
        "key": key, "finished": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "rows": [[n, ok, d] for n, ok, d in rows], "lines": lines,
        "extra": extra or {}}, indent=1))


def replay(stage: str, record: dict[str, Any]) -> list[results.Row]:
    """Say where @record comes from, print what its run printed, and give
    back its rows."""
    print(f"{stage}: same inputs (digest {record['key'][:12]}) as the run of "
          f"{record['finished']}, which passed: its results follow, not run "
          "again (BOARD_NUMBERS_FRESH=1 runs it)")
    for line in record["lines"]:
        print(line)
    return [(str(n), bool(ok), str(d)) for n, ok, d in record["rows"]]
