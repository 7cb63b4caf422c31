# SPDX-License-Identifier: GPL-2.0
"""The submission sets of a series: patches/BASE/series read as sets.

A series is cut into the sets it is sent as, each a directory of
format-patch files with its own cover letter, sent to one maintainer tree
with one subject prefix. patches/BASE/series lists them in order, each
opened by a heading line that names the directory, the prefix and what
the set is:

  # == 3-driver-core [PATCH driver-core-next]: devm_ida_alloc() and its KUnit suite
  3-driver-core/0001-driver-core-devres-add-devm_ida_alloc.patch
  3-driver-core/0002-driver-core-add-KUnit-tests-for-devm_ida_alloc.patch

Other comment lines are free text. Every patch line must sit in the
directory of the set heading above it; the cover letter of a set is
DIR/0000-cover-letter.patch beside its patches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lib.common import Failure

HEADING = re.compile(r"^# == (?P<dir>[0-9]+-[\w.-]+) \[(?P<prefix>PATCH[^\]]*)\]: "
                     r"(?P<title>.+)$")
COVER = "0000-cover-letter.patch"


@dataclass
class PatchSet:
    """One submission: its directory, subject prefix, title and patches."""

    dir: str
    prefix: str
    title: str
    patches: list[str] = field(default_factory=list)  # "DIR/NNNN-....patch"

    @property
    def cover(self) -> str:
        return f"{self.dir}/{COVER}"

    @property
    def is_fixes(self) -> bool:
        """Sent as fixes, where Fixes: tags belong: to netdev's fixes trees
        (net, iwl-net), or, for subsystems whose subject prefix names no
        tree (media), a set whose directory says so (11-media-fixes)."""
        tree = self.prefix.split()[1] if len(self.prefix.split()) > 1 else ""
        return tree in ("net", "iwl-net") or self.dir.endswith("-fixes")


def parse(text: str, where: str = "patches/series") -> list[PatchSet]:
    """The sets of a series file's @text, in order."""
    sets: list[PatchSet] = []
    for number, line in enumerate(text.splitlines(), 1):
        heading = HEADING.match(line)
        if heading:
            sets.append(PatchSet(heading["dir"], heading["prefix"], heading["title"]))
            continue
        if line.startswith("# =="):
            raise Failure(f"{where}:{number}: a set heading reads "
                          "'# == DIR [PATCH tree]: title'")
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        if not sets:
            raise Failure(f"{where}:{number}: {name} comes before any set heading")
        if not name.startswith(sets[-1].dir + "/"):
            raise Failure(f"{where}:{number}: {name} is not in the directory of "
                          f"its set, {sets[-1].dir}/")
        sets[-1].patches.append(name)
    dirs = [s.dir for s in sets]
    if len(set(dirs)) != len(dirs):
        raise Failure(f"{where}: a set directory is named twice: {dirs}")
    return sets


def read(series: Path) -> list[PatchSet]:
    if not series.exists():
        raise Failure(f"{series} is missing")
    return parse(series.read_text(), str(series))
