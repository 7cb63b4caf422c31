# SPDX-License-Identifier: GPL-2.0
"""Find every probe counter that selects per-device module parameters.

  python3 -m checks.probe_counters [--write] [--all-files]
                                   (KERNEL= picks the base)

The series adds a Coccinelle rule, scripts/coccinelle/api/board_numbers.cocci,
that reports a static counter (or atomic_t) a probe or connect path counts
up and that indexes an array of module_param_array(): the pattern the
series converts. This stage runs it, as make coccicheck MODE=report runs
it, on two trees of the base:

  - the base as Debian ships it: its report must be the one committed in
    docs/probe-counters/BASE.txt (--write writes it), every hit must be
    classified in docs/probe-counters.md, and every driver file the series
    converts must be among the hits (the rule's recall on the series);
  - the patched tree: no hit may be left in a file the series converts.

The rule follows a counter only within one directory (a field set in
netdev.c and read in param.c), and it needs a parameter array, so only
the directories that declare one are scanned; in them, the files that
declare an array or a static scalar (--all-files: every .c file, to show
that this choice loses no hit).
"""

from __future__ import annotations

import argparse
import re
import time
from dataclasses import dataclass
from pathlib import Path

from checks.callsites import NOT_USERS
from lib import results
from lib.common import REPO, Config, Failure, config, main_guard, run

RULE = "scripts/coccinelle/api/board_numbers.cocci"
MACROS = Path(__file__).with_name("probe_counters_macros.h")
DOCS = REPO / "docs" / "probe-counters"
CLASSES = REPO / "docs" / "probe-counters.md"
PARAMS = r"module_param_array\|module_param_hw_array"
# The helpers a conversion calls in probe: the driver core's board numbers
# (board_number_get( after a character that cannot be in a name, so not a
# driver's wrapper such as atl1e_board_number_get()), ALSA's per-card
# option indexes.
API = r"devm_board_number_get\|[^_[:alnum:]]board_number_get(\|snd_devm_dev_index"
# A file that may hold the counter: a static scalar at file or function
# scope. The rule itself decides; this only spares it the files that
# cannot.
STATIC = re.compile(r"^\s*static\s+(?:unsigned\s+|signed\s+)?"
                    r"(?:int|long|short|char|u8|u16|u32|atomic_t|unsigned)\s+"
                    r"\w+\s*(?:=\s*[^;{]+)?;", re.M)
# spatch's report: a line at the count, then lines at the first read of a
# slot in each function and where the count goes down.
HIT = re.compile(r"^(?P<file>[\w./+-]+):(?P<line>\d+):\d+-\d+: WARNING: "
                 r"(?P<how>probe count|count) (?P<counter>\w+) picks option "
                 r"slots(?P<tail>.*)$")
DETAIL = re.compile(r"^(?P<file>[\w./+-]+):(?P<line>\d+):\d+-\d+: "
                    r"(?P<counter>\w+)(?:'s slot of (?P<array>\w+)| counted down)$")
INCLUDE = re.compile(r'^#include\s+"([\w.-]+\.h)"', re.M)
HITS = "## Every hit"
LEFT = "## Left in the patched trees"
MISSED = "## Converted, not found by the rule"
KINDS = ("converted", "fixed", "reuses", "not-hotplug", "false", "open")


@dataclass(frozen=True)
class Hit:
    file: str
    line: int
    counter: str
    text: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.file, self.counter)

    @property
    def readers(self) -> set[str]:
        """The files the hit says read a slot with the count."""
        return set(re.findall(r"slot of \w+ at ([\w./+-]+):\d+", self.text))


def parse(output: str) -> list[Hit]:
    """The hits in spatch's report output, each with its detail lines in
    its text: "probe count; slot of A at FILE:LINE; counted down at
    FILE:LINE"."""
    hits: list[Hit] = []
    parts: list[str] = []
    start: re.Match[str] | None = None

    def close() -> None:
        if start:
            hits.append(Hit(start["file"], int(start["line"]), start["counter"],
                            "; ".join(parts)))

    for line in output.splitlines():
        main = HIT.match(line)
        if main:
            close()
            start = main
            parts = [main["how"] + main["tail"]]
            continue
        detail = DETAIL.match(line)
        if start and detail and detail["counter"] == start["counter"]:
            at = f"{detail['file']}:{detail['line']}"
            parts.append(f"slot of {detail['array']} at {at}" if detail["array"]
                         else f"counted down at {at}")
    close()
    return hits


def rows_of(text: str, heading: str, width: int) -> list[list[str]]:
    """The cells of the table under @heading ("## ...") of @text whose
    rows have @width cells and start with a `file`."""
    part = text.split(f"\n{heading}\n", 1)
    if len(part) < 2:
        raise Failure(f"{CLASSES.name}: no section {heading!r}")
    rows = []
    for line in part[1].split("\n## ", 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == width and cells[0].startswith("`"):
            rows.append(cells)
    return rows


def left(text: str) -> dict[tuple[str, str], str]:
    """docs/probe-counters.md's hits the patched trees keep on purpose:
    (file, counter): why."""
    return {(f.strip("`"), c.strip("`")): why
            for f, c, why in rows_of(text, LEFT, 3)}


def misses(text: str) -> dict[str, str]:
    """docs/probe-counters.md's files the series converts that the rule
    does not report on the base, each with the reason: file: why. The
    rule's recall counts them as missed; only they may be."""
    if f"\n{MISSED}\n" not in text:
        return {}
    return {f.strip("`"): why for f, why in rows_of(text, MISSED, 2)}


def classes(text: str) -> dict[tuple[str, str], tuple[str, str]]:
    """docs/probe-counters.md's table: (file, counter): (class, why)."""
    table: dict[tuple[str, str], tuple[str, str]] = {}
    for cells in rows_of(text, HITS, 4):
        file, counter, kind, why = (cells[0].strip("`"), cells[1].strip("`"),
                                    cells[2], cells[3])
        if kind not in KINDS:
            raise Failure(f"{CLASSES.name}: {file} {counter}: class {kind!r} "
                          f"is not one of {', '.join(KINDS)}")
        if (file, counter) in table:
            raise Failure(f"{CLASSES.name}: {file} {counter} is classified twice")
        table[(file, counter)] = (kind, why)
    return table


def directories(tree: Path, treeish: str | None) -> tuple[list[str], set[str]]:
    """The .c and .h files of every directory that declares a parameter
    array, at @treeish of @tree's git (its work tree when None), and the
    files among them that declare one."""
    rev = [treeish] if treeish else []
    grep = run(["git", "grep", "-l", PARAMS, *rev, "--", "*.c", "*.h"],
               cwd=tree, capture=True, check=False).stdout.split()
    found = {f.split(":", 1)[-1] for f in grep}
    dirs = sorted({str(Path(f).parent) for f in found})
    listing = run(["git", "ls-tree", "-r", "--name-only", treeish or "HEAD",
                   "--", *dirs], cwd=tree, capture=True).stdout.split() \
        if dirs else []
    return [f for f in listing if str(Path(f).parent) in dirs
            and f.endswith((".c", ".h"))], found


def candidates(src: Path, files: list[str], found: set[str],
               all_files: bool) -> list[list[str]]:
    """The file groups to scan in @src: each .c file of @files with the
    headers of its directory that it includes and that declare a static
    counter (amd8111e.h); unless @all_files, only the .c files that
    declare an array (@found) or a static scalar."""
    texts = {f: (src / f).read_text(errors="replace") for f in files}
    headers = {f for f, text in texts.items()
               if f.endswith(".h") and STATIC.search(text)}
    groups = []
    for f, text in sorted(texts.items()):
        if not f.endswith(".c"):
            continue
        if not all_files and f not in found and not STATIC.search(text):
            continue
        folder = Path(f).parent
        included = sorted(str(folder / h) for h in INCLUDE.findall(text)
                          if str(folder / h) in headers)
        groups.append([f, *included])
    return groups


def export(tree: Path, treeish: str, files: list[str], dest: Path) -> None:
    """@files of @treeish, written under @dest: the scan needs them on
    disk, and the base is only in the tree's git. A separate index keeps
    the tree's own index as it is."""
    run(["rm", "-rf", str(dest)])
    dest.mkdir(parents=True)
    env = {"GIT_INDEX_FILE": str(dest / ".git-index")}
    for start in range(0, len(files), 500):
        run(["git", f"--work-tree={dest}", "checkout", treeish, "--",
             *files[start:start + 500]], cwd=tree, env=env)
    (dest / ".git-index").unlink()


def scan(src: Path, rule: Path, groups: list[list[str]],
         jobs: int) -> tuple[list[Hit], float]:
    """Run @rule over the file @groups of @src, each group on its own (as
    make coccicheck does with each file); its hits and the seconds it
    took."""
    listing = src / ".probe-counter-files"
    listing.write_text("".join("".join(f"{f}\n" for f in g) + "\n" for g in groups))
    start = time.monotonic()
    proc = run(["spatch", "--very-quiet", "-D", "report", "--no-includes",
                "--include-headers", "--macro-file", str(MACROS),
                "--timeout", "120", "--jobs", str(jobs),
                "--chunksize", "1", "--sp-file", str(rule),
                "--file-groups", str(listing)],
               cwd=src, capture=True, check=False)
    took = time.monotonic() - start
    listing.unlink()
    if proc.returncode != 0:
        tail = proc.stdout.strip().splitlines()[-3:]
        raise Failure(f"spatch failed ({proc.returncode}) on {src}: "
                      + " / ".join(tail))
    return parse(proc.stdout), took


REPORTED = re.compile(r"^(?P<file>[\w./+-]+):(?P<line>\d+): (?P<counter>\w+), "
                      r"(?P<text>.*)$", re.M)


def order(hit: Hit) -> tuple[str, int, str]:
    return (hit.file, hit.line, hit.counter)


def report_text(hits: list[Hit]) -> str:
    """The report as committed in docs/probe-counters/: a line per hit,
    in file order."""
    return "".join(f"{h.file}:{h.line}: {h.counter}, {h.text}\n"
                   for h in sorted(hits, key=order))


def parse_report(text: str) -> list[Hit]:
    """The hits of a committed report."""
    return [Hit(m["file"], int(m["line"]), m["counter"], m["text"])
            for m in REPORTED.finditer(text)]


def converted(tree: Path) -> list[str]:
    """The driver files the series converts: those that call the helpers
    in @tree."""
    proc = run(["git", "grep", "-l", API, "--", "drivers", "sound"],
               cwd=tree, capture=True, check=False)
    return [f for f in proc.stdout.split() if not f.startswith(NOT_USERS)]


def touched(tree: Path) -> set[str]:
    """The C files and headers the series changes (base..series in @tree):
    a file it touches may gain a counter, or lose one, even where it does
    not call the helpers."""
    proc = run(["git", "diff", "--name-only", "base", "series", "--",
                "*.c", "*.h"], cwd=tree, capture=True)
    return set(proc.stdout.split())


def found(path: str, hits: list[Hit]) -> bool:
    """Whether a hit covers the converted file @path: a hit in it, or one
    that reads a slot in it (e1000_param.c reads what e1000_main.c
    counts)."""
    return any(h.file == path or path in h.readers for h in hits)


def verdicts(base_hits: list[Hit], patched_hits: list[Hit], committed: str,
             table: dict[tuple[str, str], tuple[str, str]],
             series_files: list[str],
             kept: dict[tuple[str, str], str] | None = None,
             exact: bool = True,
             known_misses: dict[str, str] | None = None) -> list[results.Row]:
    """The stage's rows, from the two scans and what the repository says.
    @series_files: each file the series converts; @kept: hits the patched
    trees keep on purpose;
    @exact: the scan saw every candidate file, so the report must be the
    committed one to the letter (else: the same hits at the same lines)."""
    rows: list[results.Row] = []
    if exact:
        same = report_text(base_hits) == committed
    else:
        # A scan of some files finds each hit of the committed report at
        # its line, but may see fewer of the files that read its arrays.
        same = sorted(map(order, base_hits)) == sorted(map(order, parse_report(committed)))
    rows.append(("base report", same,
                 f"{len(base_hits)} hits, as committed" if same
                 else "differs from the committed report: run with --write "
                 "and classify what changed"))
    unclassified = sorted({h.key for h in base_hits} - set(table))
    rows.append(("classified", not unclassified,
                 f"every hit in {CLASSES.name}" if not unclassified else
                 "not classified: " + ", ".join(f"{f} {c}" for f, c in unclassified)))
    missed = sorted(f for f in series_files if not found(f, base_hits))
    known = sorted(f for f in missed if f in (known_misses or {}))
    unknown = [f for f in missed if f not in known]
    rows.append(("recall", not unknown and bool(series_files),
                 f"{len(series_files) - len(missed)}/{len(series_files)} files "
                 "the series converts are found" + (
                     f"; {len(known)} missed, listed in {CLASSES.name}: "
                     + ", ".join(known) if known else "") + (
                     "; missed: " + ", ".join(unknown) if unknown else "")))
    kept = kept or {}
    # A hit fixed in place (without the helpers) must be gone as well.
    remaining = sorted({f"{h.file} {h.counter}" for h in patched_hits
                        if table.get(h.key, ("", ""))[0] in ("converted", "fixed")
                        and h.key not in kept})
    rows.append(("patched tree", not remaining,
                 f"{len(patched_hits)} hits, none in a converted driver but "
                 f"the {len(kept)} kept on purpose" if not remaining
                 else "still reported after conversion: " + ", ".join(remaining)))
    wrong = sorted(f"{f} {c}" for (f, c), (kind, _) in table.items()
                   if kind == "converted"
                   and any(h.key == (f, c) for h in base_hits)
                   and not any(found(s, [h for h in base_hits if h.key == (f, c)])
                               for s in series_files))
    rows.append(("classes", not wrong,
                 "every hit called converted is converted by the series"
                 if not wrong else "called converted, not in the series: "
                 + ", ".join(wrong)))
    return rows


def precision(hits: list[Hit], table: dict[tuple[str, str], tuple[str, str]]) -> str:
    true = sum(1 for h in hits if table.get(h.key, ("", ""))[0] != "false")
    return f"{true}/{len(hits)}"


def main() -> int:
    cfg: Config = config()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true",
                        help="write the base's report to docs/probe-counters/")
    parser.add_argument("--all-files", action="store_true",
                        help="scan every .c file of the directories")
    parser.add_argument("--quick", action="store_true",
                        help="scan only the files of the committed report "
                        "and the files the series converts or touches "
                        "(make check)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if args.quick and (args.write or args.all_files):
        raise Failure("--quick checks the committed report; it cannot "
                      "write one or scan every file")
    tree = cfg.tree
    rule = tree / RULE
    if not rule.exists():
        raise Failure(f"{rule} is missing: the series adds it (make tree)")
    committed_path = DOCS / f"{cfg.kernel}.txt"
    committed = committed_path.read_text() if committed_path.exists() else ""
    text = CLASSES.read_text() if CLASSES.exists() else ""
    table = classes(text) if text else {}
    kept = left(text) if text else {}
    known_misses = misses(text) if text else {}

    files, has_params = directories(tree, "base")
    where = cfg.build / "probe-counters" / "base"
    export(tree, "base", files, where)
    series_files = converted(tree)
    # make check: the files where the committed report has a hit, those
    # the series converts and every file it touches (one that declares a
    # parameter array and changed among them); make check-full: every
    # candidate file.
    only = ({line.split(":", 1)[0] for line in committed.splitlines()}
            | set(series_files) | touched(tree)) if args.quick else None
    base_files = [g for g in candidates(where, files, has_params, args.all_files)
                  if only is None or g[0] in only]
    base_hits, base_took = scan(where, rule, base_files, args.jobs)
    files, has_params = directories(tree, None)
    patched_files = [g for g in candidates(tree, files, has_params, args.all_files)
                     if only is None or g[0] in only]
    patched_hits, patched_took = scan(tree, rule, patched_files, args.jobs)
    print(f"probe-counters: base {len(base_files)} files in {base_took:.0f} s, "
          f"{len(base_hits)} hits; patched tree {len(patched_files)} files in "
          f"{patched_took:.0f} s, {len(patched_hits)} hits", flush=True)
    if args.write:
        DOCS.mkdir(exist_ok=True)
        committed = report_text(base_hits)
        committed_path.write_text(committed)
    rows = verdicts(base_hits, patched_hits, committed, table, series_files, kept,
                    exact=not args.quick, known_misses=known_misses)
    print(f"probe-counters: precision {precision(base_hits, table)} "
          "(hits not classified as a false match)")
    if not args.all_files:
        results.save(cfg, "probe-counters", rows)
    return results.report("probe-counters", rows, width=14)


if __name__ == "__main__":
    main_guard(main)
