# SPDX-License-Identifier: GPL-2.0
"""Plot board number per hot-add cycle, plain vs patched, with gnuplot."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Sequence

from lib.common import Config, Failure
from model.check import Probe


def board_numbers(cfg: Config, png: Path, patched: Sequence[Probe],
                  plain: Sequence[Probe], title: str) -> Path:
    """@patched and @plain are probes with .cycle and .number (None: unknown);
    the plain line is named after @cfg's base."""
    data = png.with_suffix(".dat")
    rows: dict[int, dict[str, int | None]] = {}
    for label, probes in (("patched", patched), ("plain", plain)):
        for p in probes:
            rows.setdefault(p.cycle, {})[label] = p.number
    with data.open("w") as f:
        f.write("# cycle patched plain (board number; NaN: not known)\n")
        for cycle in sorted(rows):
            vals = [rows[cycle].get(k) for k in ("patched", "plain")]
            f.write(f"{cycle} " + " ".join("NaN" if v is None else str(v)
                                          for v in vals) + "\n")
    script = f"""
set terminal pngcairo size 900,500
set output '{png}'
set title '{title}: board number per hot-add'
set xlabel 'hot-add cycle'
set ylabel 'board number'
set key top left
set grid
set arrow from graph 0, first 32 to graph 1, first 32 nohead dashtype 2
set label 'slot count (32)' at graph 0.02, first 34.5
plot '{data}' using 1:3 with linespoints pt 7 ps 0.5 title 'plain {cfg.kernel}', \\
     '{data}' using 1:2 with linespoints pt 7 ps 0.5 title 'patched'
"""
    proc = subprocess.run(["gnuplot"], input=script, text=True,
                          capture_output=True, timeout=60, check=False)
    if proc.returncode != 0 or not png.exists():
        raise Failure(f"gnuplot failed: {proc.stderr.strip()}")
    return png
