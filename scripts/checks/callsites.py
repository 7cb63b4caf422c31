# SPDX-License-Identifier: GPL-2.0
"""Check every converted driver's call sites of board numbers, statically.

  python3 -m checks.callsites [--tree DIR]    (KERNEL= picks the base)

A driver converted to board numbers (drivers/base/board_numbers.c) must
pass the number devm_board_number_get() gave it, and no other, to each
board_slot_value(), board_param_applies() and board_slot_applies() of
the same board numbers; a number taken by hand with board_number_get()
must be given back, that number, with board_number_put(). For the NICs
QEMU cannot emulate nothing else in the gate sees a probe that looks up
the wrong slot or a number taken by hand and never given back;
callsites.cocci (Coccinelle, Debian's coccinelle package, run as
make coccicheck runs a report) checks that flow in every driver
directory of the tree that uses the API, one spatch run per directory.
One case per directory; a directory with a problem fails, naming it.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from lib import results
from lib.common import Failure, config, main_guard, run

COCCI = Path(__file__).with_name("callsites.cocci")
# The helpers and their tests (the driver core's board numbers, ALSA's
# per-card option indexes) define the API; they are not its users.
NOT_USERS = ("drivers/base/", "sound/core/")
# board_number_get( after a character that cannot be in a name: not
# a driver's wrapper, such as atl1e_board_number_get().
API = (r"devm_board_number_get\|[^_[:alnum:]]board_number_get(\|board_number_put(\|"
       r"board_param_applies\|board_slot_value\|board_slot_applies")


# What a user of the API defines that its driver's other files may call:
# its board numbers and its functions that are not static (e1000's
# e1000_get_board_number()).
DEFINED = re.compile(r"^DEFINE_STATIC_BOARD_NUMBERS\((\w+)|^(?!static\b)[a-z][\w \t*]*?\b(\w+)\(",
                     re.M)


def driver_dirs(tree: Path) -> dict[str, list[str]]:
    """Each directory whose files use board numbers: those files first
    (spatch reads them in this order, and the check needs a driver's
    wrappers of the API before their callers), then the directory's other
    .c files that name what they define, where probe or remove may call
    it."""
    proc = run(["git", "grep", "-l", API, "--", "drivers", "sound"],
               cwd=tree, capture=True, check=False)
    users = [f for f in proc.stdout.split() if not f.startswith(NOT_USERS)]
    dirs: dict[str, list[str]] = {}
    for path in sorted(users):
        folder = str(Path(path).parent)
        if folder in dirs:
            continue
        mine = [f for f in users if str(Path(f).parent) == folder]
        names = {a or b for f in mine
                 for a, b in DEFINED.findall((tree / f).read_text(errors="replace"))}
        names.discard("")
        pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b") \
            if names else None
        others = sorted(str(p.relative_to(tree)) for p in (tree / folder).iterdir()
                        if p.suffix == ".c" and str(p.relative_to(tree)) not in mine)
        callers = [f for f in others if pattern and
                   pattern.search((tree / f).read_text(errors="replace"))]
        dirs[folder] = mine + callers
    return dirs


def check(tree: Path, files: list[str]) -> list[str]:
    """The problems callsites.cocci reports for one directory's @files."""
    proc = run(["spatch", "--very-quiet", "-D", "report", "--no-includes",
                "--include-headers", "--timeout", "300",
                "--sp-file", str(COCCI), *files],
               cwd=tree, capture=True, check=False)
    problems = re.findall(r"^callsites: (.*)$", proc.stdout, re.M)
    if proc.returncode != 0 and not problems:
        problems = [f"spatch failed (exit {proc.returncode}): "
                    + proc.stdout.strip().splitlines()[-1:][0]
                    if proc.stdout.strip() else f"spatch failed (exit {proc.returncode})"]
    return problems


def main() -> int:
    cfg = config()
    tree = cfg.tree
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tree", type=Path, default=tree,
                        help="the kernel tree to check (default: the base's)")
    args = parser.parse_args()
    dirs = driver_dirs(args.tree)
    if not dirs:
        raise Failure(f"no driver in {args.tree} uses board numbers")
    rows: list[results.Row] = []
    for folder, files in dirs.items():
        problems = check(args.tree, files)
        detail = "; ".join(problems) or f"{len(files)} files: every lookup " \
            "uses the number the board was given"
        rows.append((folder, not problems, detail))
        print(f"callsites: {'FAIL' if problems else 'PASS'}  {folder}: {detail}")
    if args.tree == tree:
        results.save(cfg, "callsites", rows)
    return results.count("callsites", rows)


if __name__ == "__main__":
    main_guard(main)
