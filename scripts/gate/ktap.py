# SPDX-License-Identifier: GPL-2.0
"""The gate's verdicts as KTAP, the format kernel CI reads.

One subtest per stage, one test line per case (a KUnit case, a patch, a
scenario on a kernel, a reliability run); a stage that was not run is a
skipped test with the reason. The document reads with the kernel's own
parser:

  python3 tools/testing/kunit/kunit.py parse build/gate/gate.ktap

(Documentation/dev-tools/ktap.rst: a case's detail goes on a diagnostic
line, "# ...", before its result line, since text after "#" on a result
line is a directive.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

Row = tuple[str, bool, str]


@dataclass
class StageVerdict:
    """What one stage of the gate gave: its cases, or why it did not run."""
    name: str
    rows: list[Row] = field(default_factory=list)
    skip: str = ""  # the reason it was not run; empty when it ran
    base: str = ""  # the kernel release it ran on

    @property
    def passed(self) -> int:
        return sum(1 for _, ok, _ in self.rows if ok)

    @property
    def failed(self) -> int:
        return sum(1 for _, ok, _ in self.rows if not ok)


def _name(text: str) -> str:
    """A test name: one line, no "#" (which would start a directive)."""
    return re.sub(r"\s+", " ", text.replace("#", "no.")).strip() or "unnamed"


def _diagnostic(text: str, indent: str) -> list[str]:
    return [f"{indent}# {line}" for line in text.splitlines() if line.strip()]


def document(stages: list[StageVerdict]) -> str:
    """The KTAP version 1 document of @stages, newline-terminated."""
    out = ["KTAP version 1", f"1..{len(stages)}"]
    for number, stage in enumerate(stages, 1):
        name = _name(stage.name)
        if stage.skip:
            out.append(f"ok {number} {name} # SKIP {_name(stage.skip)}")
            continue
        out += ["    KTAP version 1", f"    # Subtest: {name}",
                f"    1..{len(stage.rows)}"]
        if stage.base:
            out.append(f"    # base: {stage.base}")
        for case, (case_name, ok, detail) in enumerate(stage.rows, 1):
            out += _diagnostic(detail, "    ")
            out.append(f"    {'ok' if ok else 'not ok'} {case} {_name(case_name)}")
        ok = stage.failed == 0 and bool(stage.rows)
        out.append(f"{'ok' if ok else 'not ok'} {number} {name}")
    return "\n".join(out) + "\n"
