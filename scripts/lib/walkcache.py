# SPDX-License-Identifier: GPL-2.0
"""The steps of bisect's walk that passed, kept so that a later walk
starts after the last step whose inputs it shares.

Each step's key is chained: the base's from the digest of the walk's
set-up (what is built and how, the compilers, bisect's own code:
checks/bisect.py's setup()) and the base's tree, each prefix's from the
key before it and the prefix's tree. Two walks share a step's key only if
they share the set-up, the base and every patch up to that step, so a
series changed at patch k shares the keys of the base and patches 1 to
k-1 with the walk before. With each key the walk keeps what it had seen
after that step (the warnings of each compiler, checks/bisect.py's
`seen`) and what it printed, and it keeps the steps only up to the first
that failed: a step after a failure was judged against warnings that
include the failure's.

A resumed walk is the full walk's tail, not a shortcut: checks/bisect.py
first builds every target at the last kept step, from the files its
earlier steps changed, and starts from the base again when that build
brings a warning the kept steps had not seen. The records live in
build/BASE/result-cache/bisect-steps.json, so a clean clone (CI) walks
everything; BOARD_NUMBERS_FRESH=1 (make check FRESH=1) does too.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lib import resultcache
from lib.common import Config


@dataclass
class Step:
    """One step of a walk: the base (row None) or a prefix."""
    key: str
    seen: dict[str, Counter[str]]
    row: tuple[str, bool, str] | None = None
    lines: list[str] = field(default_factory=list)


def chain(setup: str, trees: list[str]) -> list[str]:
    """The keys of the base and of each prefix, whose trees are @trees in
    order (the base's first), for a walk whose set-up digest is @setup."""
    keys: list[str] = []
    previous = setup
    for tree in trees:
        previous = resultcache.digest(["bisect-step", previous, tree])
        keys.append(previous)
    return keys


def path(cfg: Config) -> Path:
    return cfg.build / "result-cache" / "bisect-steps.json"


def load(cfg: Config) -> tuple[list[Step], dict[str, Any], str]:
    """The steps kept for @cfg's base, the figures their walk saved, and
    when it finished; nothing when none are kept or BOARD_NUMBERS_FRESH
    is set."""
    if os.environ.get("BOARD_NUMBERS_FRESH"):
        return [], {}, ""
    try:
        record = json.loads(path(cfg).read_text())
        steps = [Step(str(s["key"]), {c: Counter(w) for c, w in s["seen"].items()},
                      (str(s["row"][0]), bool(s["row"][1]), str(s["row"][2]))
                      if s["row"] else None, [str(line) for line in s["lines"]])
                 for s in record["steps"]]
    except (OSError, ValueError, KeyError, TypeError):
        return [], {}, ""
    return steps, dict(record.get("extra", {})), str(record.get("finished", ""))


def passed(steps: list[Step]) -> list[Step]:
    """@steps up to the first that failed: the base, then prefixes."""
    kept: list[Step] = []
    for step in steps:
        if step.row is not None and not step.row[1]:
            break
        kept.append(step)
    return kept


def keep(cfg: Config, steps: list[Step], extra: dict[str, Any] | None = None) -> None:
    """Keep the steps of @steps that passed before any failed (none, if
    the base did not build), replacing what was kept."""
    kept = passed(steps)
    where = path(cfg)
    if not kept:
        where.unlink(missing_ok=True)
        return
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text(json.dumps({
        "finished": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "extra": extra or {},
        "steps": [{"key": s.key, "seen": {c: dict(w) for c, w in s.seen.items()},
                   "row": list(s.row) if s.row else None, "lines": s.lines}
                  for s in kept]}, indent=1))


def shared(kept: list[Step], keys: list[str]) -> int:
    """How many of the walk's first steps (the base counts as one) @kept
    has with the same keys: 0 when not even the base's."""
    count = 0
    for step, key in zip(kept, keys):
        if step.key != key:
            break
        count += 1
    return count
