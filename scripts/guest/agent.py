# SPDX-License-Identifier: GPL-2.0
"""The guest agent: build scripts/guest/agent/nicwatch.c and read its lines.

nicwatch prints one "NICWATCH add ..." line per network interface that
appears in the guest, with the ring sizes, interrupt moderation and link
settings the driver reports through ethtool; see nicwatch.c.
"""

from __future__ import annotations

import re
from pathlib import Path

from lib.common import Config, Failure, locked, run

SOURCE = Path(__file__).parent / "agent" / "nicwatch.c"
NUMERIC = {"ifindex", "tx", "rx", "rx_usecs", "autoneg", "speed", "duplex",
           "up"}


def build_static(cfg: Config, source: Path) -> Path:
    """A guest program from scripts/guest/agent/: a static binary in
    build/BASE/agent, rebuilt when the source changes."""
    with locked("agent", cfg):
        return _build_static(cfg, source)


def _build_static(cfg: Config, source: Path) -> Path:
    out = cfg.build / "agent" / source.stem
    if out.is_file() and out.stat().st_mtime >= source.stat().st_mtime:
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    proc = run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror",
                "-o", str(out), str(source)], capture=True, check=False)
    if proc.returncode != 0:
        raise Failure(f"cannot build {source.name}:\n{proc.stdout}")
    return out


def build(cfg: Config) -> Path:
    """The agent, nicwatch."""
    return build_static(cfg, SOURCE)


def parse_add(line: str) -> dict[str, int | str] | None:
    """The fields of a "NICWATCH add" line, numbers as ints."""
    m = re.search(r"NICWATCH add (.*)$", line)
    if not m:
        return None
    fields: dict[str, int | str] = {}
    for item in m.group(1).split():
        key, _, value = item.partition("=")
        try:
            fields[key] = int(value, 0) if key in NUMERIC or key == "advertising" else value
        except ValueError:
            # Kept as text, so that the check names it as a violation
            # rather than the harness stopping with no verdict.
            fields[key] = value
    return fields
