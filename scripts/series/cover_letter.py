"""Write the cover letter's text and recipients from the last run.

  python3 -m series.cover_letter

The text is docs/cover-letter.txt with its @NAME@ fields filled from the
results make check-full left in build/results/ (see lib/results.py): KUnit case
counts, make mutants' catches, checkpatch and bisection counts, the e2e table of the patched
and the plain kernel, the userspace path, the reliability runs, and make check-debug's runs
when they were made on this series. Results from another version of
the series, or from a failing run, are refused. To: and Cc: come from
scripts/get_maintainer.pl over the patches. The result replaces the
blurb and the recipients of patches/0000-cover-letter.patch; tree.py
export carries both over when it writes the patches again.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

from lib import results
from lib.common import (
    PATCHES, REPO, TREE, Failure, log, main_guard, run, series_patches
)
from series import tree

TEMPLATE = REPO / "docs" / "cover-letter.txt"
COVER = PATCHES / tree.COVER
WIDTH = 72


def base_version() -> str:
    """"6.12.N" of the tree the series applies to."""
    fields = dict(re.findall(r"^(VERSION|PATCHLEVEL|SUBLEVEL) = (\d+)$",
                             (TREE / "Makefile").read_text(), re.M))
    return f"{fields['VERSION']}.{fields['PATCHLEVEL']}.{fields['SUBLEVEL']}"


def counted(record: dict[str, Any], what: str) -> str:
    return f"{record['passed']} of {len(record['rows'])} {what} pass"


def table(rows: list[tuple[str, str, str]], widths: tuple[int, int, int],
          heads: tuple[str, str, str]) -> str:
    """A plain-text table whose cells wrap within their column."""
    out = []
    for cells in [heads, tuple("-" * w for w in widths), *rows]:
        wrapped = [textwrap.wrap(c, w, break_on_hyphens=False) or [""]
                   for c, w in zip(cells, widths)]
        for i in range(max(len(w) for w in wrapped)):
            parts = [(w[i] if i < len(w) else "").ljust(width)
                     for w, width in zip(wrapped, widths)]
            out.append(("  " + "  ".join(parts)).rstrip())
    return "\n".join(out)


def e2e_table(record: dict[str, Any], base: str) -> str:
    verdicts = {row["name"]: row["detail"] for row in record["rows"]}
    rows = []
    for name, title in record["titles"].items():
        patched = verdicts[f"{name} patched"].split("; ")[0]
        plain = verdicts[f"{name} plain"].replace("plain kernel caught", "caught")
        rows.append((f"{name}: {title}", patched, plain))
    return table(rows, (26, 16, 26), ("scenario", "patched", f"plain {base}"))


def bullets(record: dict[str, Any]) -> str:
    items = []
    for row in record["rows"]:
        items.append(textwrap.fill(f"{row['name']}: {row['detail']}", WIDTH,
                                   initial_indent=" - ", subsequent_indent="   ",
                                   break_on_hyphens=False))
    return "\n".join(items)


def debug_section() -> str:
    """make check-debug's runs, when all of them were made on this series."""
    parts = []
    for stage, what in (("e2e-debug", "e2e scenarios a-g"),
                        ("e2e-debug-soak", "the hot-plug soak"),
                        ("reliability-debug", "the reliability runs")):
        try:
            record = results.load(stage)
        except Failure:
            return ""
        parts.append(f"{what}: " + "; ".join(
            f"{row['name']}: {row['detail']}" for row in record["rows"]))
    text = ("Under the kernel's checkers (KASAN, kmemleak, PROVE_LOCKING, "
            "DEBUG_OBJECTS, DEBUG_ATOMIC_SLEEP, DEBUG_KOBJECT_RELEASE), patched "
            "kernel only, each guest ending with a kmemleak scan: ")
    return "\n" + textwrap.fill(text + "; ".join(parts) + ".", WIDTH,
                                break_on_hyphens=False) + "\n"


def mutant_summary(record: dict[str, Any]) -> str:
    """make mutants' catches: the per-driver lookup mutants counted, the
    others named."""
    rows = record["rows"]
    lookups = [r for r in rows if r["name"].endswith("-lookup-ignores-release")]
    others = [r["name"] for r in rows if r not in lookups]
    seconds = int(record.get("seconds", 0))
    return (f"{record['passed']} of {len(rows)} mutants caught: a lookup "
            f"ignoring released slots in each of {len(lookups)} drivers (its "
            f"KUnit suite), and {', '.join(others)}; "
            f"{seconds // 60} min {seconds % 60} s.")


def blurb() -> str:
    kunit, kunit_debug = results.load("kunit"), results.load("kunit-debug")
    e2e, rel = results.load("e2e"), results.load("reliability")
    checkpatch, bisect = results.load("checkpatch"), results.load("bisect")
    userspace, mutants = results.load("userspace"), results.load("mutants")
    short = [r["stage"] for r in (e2e, rel, userspace) if r.get("tier") == "check"]
    if short:
        raise Failure(f"the results of {', '.join(short)} are make check's short "
                      "forms: a cover letter reports make check-full's depth")
    base = base_version()
    fields = {
        "FINISHED": e2e["finished"],
        "BASE": base,
        "KUNIT": f"{kunit['passed']} cases pass",
        "KUNIT_SUITES": str(len(kunit["suites"])),
        "KUNIT_DEBUG": counted(kunit_debug, "cases"),
        "DEVM_IDA": str(sum(r["name"].startswith("devm_ida.") for r in kunit["rows"])),
        "CHECKPATCH": counted(checkpatch, "patches"),
        "BISECT": counted(bisect, "prefixes"),
        "E2E_TABLE": e2e_table(e2e, base),
        "RELIABILITY": bullets(rel),
        "USERSPACE": "; ".join(f"{r['name']}: {r['detail']}" for r in userspace["rows"])
        + ".",
        "DEBUG": debug_section(),
        "MUTANTS": mutant_summary(mutants),
    }
    text = TEMPLATE.read_text()
    missing = sorted(set(re.findall(r"@([A-Z_0-9]+)@", text)) - fields.keys())
    if missing:
        raise Failure(f"{TEMPLATE} has fields nothing fills: {', '.join(missing)}")
    for key, value in fields.items():
        text = text.replace(f"@{key}@", value)
    # A filled paragraph that outgrew the line is wrapped again.
    return "\n".join(rewrap(par) for par in text.split("\n\n")).rstrip("\n")


def rewrap(paragraph: str) -> str:
    """@paragraph, wrapped again when it is prose with an overlong line
    (tables and lists keep their layout)."""
    lines = paragraph.split("\n")
    if all(len(line) <= WIDTH for line in lines) or paragraph.startswith((" ", "-")):
        return paragraph + "\n"
    return textwrap.fill(" ".join(lines), WIDTH, break_on_hyphens=False) + "\n"


def recipients() -> tuple[list[str], list[str]]:
    """To: the maintainers scripts/get_maintainer.pl names for the
    patches; Cc: everyone and every list else it names."""
    patches = [str(PATCHES / name) for name in series_patches()]
    proc = run(["scripts/get_maintainer.pl", "--no-git", "--no-git-fallback",
                "--nofixes", "--rolestats", *patches], cwd=TREE, capture=True,
               check=False)
    if proc.returncode != 0:
        raise Failure(f"scripts/get_maintainer.pl failed:\n{proc.stdout}")
    # The series' own MAINTAINERS entry names its author, who sends it.
    author = re.search(r"^From: (.*)$", COVER.read_text(), re.M)
    to, cc = [], []
    for line in proc.stdout.splitlines():
        m = re.match(r"^(.*?) \((.*)\)$", line.strip())
        if not m or (author and m.group(1) == author.group(1)):
            continue
        address, role = m.groups()
        (to if role.startswith("maintainer:") else cc).append(address)
    if not to:
        raise Failure("scripts/get_maintainer.pl named no maintainer")
    return to, cc


def header(name: str, addresses: list[str]) -> str:
    return f"{name}: " + ",\n    ".join(addresses)


def main() -> int:
    if not COVER.is_file():
        raise Failure(f"{COVER} is missing: run 'make export' first")
    text = blurb()
    to, cc = recipients()
    head, _, _, shortlog = tree.split_cover(COVER.read_text())
    if not shortlog:
        raise Failure(f"{COVER} has no shortlog: run 'make export' again")
    head += "\n" + header("To", to) + "\n" + header("Cc", cc)
    COVER.write_text(f"{head}\n\n{text}\n\n{shortlog}")
    log(f"wrote {COVER.relative_to(REPO)}: {len(to)} To, {len(cc)} Cc, "
        f"figures from the run of {results.load('e2e')['finished']}")
    return 0


if __name__ == "__main__":
    main_guard(main)
