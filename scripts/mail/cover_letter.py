# SPDX-License-Identifier: GPL-2.0
"""Write each set's cover letter from its template and the last run.

  python3 -m mail.cover_letter        (KERNEL= picks the base)

Each submission set (lib/sets.py) has a template,
docs/cover-letters/DIR.txt: a "Subject:" line (the subject without its
prefix), optional extra "Cc:" lines, a blank line, then the blurb. A
line that starts with "[BASE]" is kept, without that tag, only in the
letters of that base; @NAME@ fields are filled from the results make
check-full left in build/BASE/results/ (see lib/results.py): KUnit case
counts, make mutants' catches, checkpatch and bisection counts, the e2e
table of the patched and the plain kernel, the userspace path, the
reliability runs, and make check-debug's runs when they were made on
this series. Results from another version of the series, or from a
failing run, are refused; a template that uses no figure needs none.
To: and Cc: come from scripts/get_maintainer.pl over the set's patches.
The result replaces the subject, blurb and recipients of
patches/BASE/DIR/0000-cover-letter.patch; tree.py export carries them
over when it writes the patches again.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any, Callable

from lib import results, sets
from lib.common import REPO, Config, Failure, config, log, main_guard, run
from series import tree

TEMPLATES = REPO / "docs" / "cover-letters"
WIDTH = 72


def base_version(cfg: Config) -> str:
    """The release ("7.3.4") of the tree the series applies to."""
    fields = dict(re.findall(r"^(VERSION|PATCHLEVEL|SUBLEVEL) = (\d+)$",
                             (cfg.tree / "Makefile").read_text(), re.M))
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


def debug_section(cfg: Config) -> str:
    """make check-debug's runs, when all of them were made on this series."""
    parts = []
    for stage, what in (("e2e-debug", "e2e scenarios a-g"),
                        ("e2e-debug-soak", "the hot-plug soak"),
                        ("reliability-debug", "the reliability runs")):
        try:
            record = results.load(cfg, stage)
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


def figure_fields(cfg: Config) -> dict[str, Callable[[], str]]:
    """The @NAME@ fields a template can use on @cfg's base, each computed
    when used."""
    def load(stage: str) -> dict[str, Any]:
        record = results.load(cfg, stage)
        if stage in ("e2e", "reliability", "userspace",
                     "bisect") and record.get("tier") == "check":
            raise Failure(f"the results of {stage} are make check's short "
                          "forms: a cover letter reports make check-full's depth")
        return record

    def kunit_rows() -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = load("kunit")["rows"]  # JSON
        return rows

    return {
        "BASE": lambda: base_version(cfg),
        "PACKAGE": lambda: cfg.base.package,
        "OLDER": lambda: str(len({r["name"].split(".")[0] for r in kunit_rows()}
                                 - {"devm_ida", "e1000_param", "e1000e_param"})),
        "FINISHED": lambda: str(load("e2e")["finished"]),
        "KUNIT": lambda: f"{load('kunit')['passed']} cases pass",
        "KUNIT_SUITES": lambda: str(len(load("kunit")["suites"])),
        "KUNIT_DEBUG": lambda: counted(load("kunit-debug"), "cases"),
        "DEVM_IDA": lambda: str(sum(r["name"].startswith("devm_ida.")
                                    for r in kunit_rows())),
        "CHECKPATCH": lambda: counted(load("checkpatch"), "patches"),
        "BISECT": lambda: counted(load("bisect"), "prefixes"),
        "E2E_TABLE": lambda: e2e_table(load("e2e"), base_version(cfg)),
        "RELIABILITY": lambda: bullets(load("reliability")),
        "USERSPACE": lambda: "; ".join(f"{r['name']}: {r['detail']}"
                                       for r in load("userspace")["rows"]) + ".",
        "DEBUG": lambda: debug_section(cfg),
        "MUTANTS": lambda: mutant_summary(load("mutants")),
    }


def for_base(text: str, base: str) -> str:
    """@text with the lines tagged for another base dropped and this
    base's tags removed."""
    out = []
    for line in text.splitlines(keepends=True):
        tagged = re.match(r"^\[([\d.]+)\]", line)
        if not tagged:
            out.append(line)
        elif tagged.group(1) == base:
            out.append(line[tagged.end():])
    # Blocks left out leave their blank lines: one between paragraphs.
    return re.sub(r"\n{3,}", "\n\n", "".join(out))


def render(template: str, fields: dict[str, Callable[[], str]],
           base: str) -> tuple[str, list[str], str]:
    """A template's subject, extra Cc: addresses and filled blurb, for
    @base ("7.3")."""
    text = for_base(template, base)
    head, _, body = text.partition("\n\n")
    subject = re.search(r"^Subject: (.+)$", head, re.M)
    if not subject:
        raise Failure("a cover letter template starts with a Subject: line")
    extra_cc = re.findall(r"^Cc: (.+)$", head, re.M)
    used = sorted(set(re.findall(r"@([A-Z_0-9]+)@", body)))
    missing = [name for name in used if name not in fields]
    if missing:
        raise Failure(f"template fields nothing fills: {', '.join(missing)}")
    for name in used:
        body = body.replace(f"@{name}@", fields[name]())
    # A filled paragraph that outgrew the line is wrapped again.
    blurb = "\n".join(rewrap(par) for par in body.split("\n\n")).rstrip("\n")
    return subject.group(1), extra_cc, blurb


def rewrap(paragraph: str) -> str:
    """@paragraph, wrapped again when it is prose with an overlong line
    (tables and lists keep their layout)."""
    lines = paragraph.split("\n")
    if all(len(line) <= WIDTH for line in lines) or paragraph.startswith((" ", "-")):
        return paragraph + "\n"
    # A heading ("The set" over a line of dashes) stays above the prose.
    head = lines[:2] if len(lines) > 2 and set(lines[1]) == {"-"} else []
    return "".join(f"{line}\n" for line in head) + textwrap.fill(
        " ".join(lines[len(head):]), WIDTH, break_on_hyphens=False) + "\n"


def recipients(cfg: Config, pset: sets.PatchSet,
               author: str) -> tuple[list[str], list[str]]:
    """To: the maintainers scripts/get_maintainer.pl names for the set's
    patches; Cc: everyone and every list else it names."""
    patches = [str(cfg.patches / name) for name in pset.patches]
    proc = run(["scripts/get_maintainer.pl", "--no-git", "--no-git-fallback",
                "--nofixes", "--rolestats", *patches], cwd=cfg.tree, capture=True,
               check=False)
    if proc.returncode != 0:
        raise Failure(f"scripts/get_maintainer.pl failed:\n{proc.stdout}")
    to: list[str] = []
    cc: list[str] = []
    for line in proc.stdout.splitlines():
        m = re.match(r"^(.*?) \((.*)\)$", line.strip())
        # The series' own MAINTAINERS entry names its author, who sends it.
        if not m or m.group(1) == author:
            continue
        address, role = m.groups()
        (to if role.startswith("maintainer:") else cc).append(address)
    if not to:
        raise Failure(f"scripts/get_maintainer.pl named no maintainer for {pset.dir}")
    return to, cc


def header(name: str, addresses: list[str]) -> str:
    return f"{name}: " + ",\n    ".join(addresses)


def write(cfg: Config, pset: sets.PatchSet, fields: dict[str, Callable[[], str]]) -> None:
    cover = cfg.patches / pset.cover
    template = TEMPLATES / f"{pset.dir}.txt"
    if not cover.is_file():
        raise Failure(f"{cover} is missing: run 'make export' first")
    if not template.is_file():
        raise Failure(f"{template} is missing: every set needs its cover "
                      "letter's template")
    subject, extra_cc, text = render(template.read_text(), fields, cfg.kernel)
    head, _, _, shortlog = tree.split_cover(cover.read_text())
    if not shortlog:
        raise Failure(f"{cover} has no shortlog: run 'make export' again")
    author = re.search(r"^From: (.*)$", head, re.M)
    to, cc = recipients(cfg, pset, author.group(1) if author else "")
    cc += [a for a in extra_cc if a not in cc and a not in to]
    prefix = re.search(r"^Subject: (\[[^\]]*\]) ", head, re.M)
    if not prefix:
        raise Failure(f"{cover} has no [PATCH ...] subject")
    head = re.sub(r"^Subject: .*(?:\n .*)*$", f"Subject: {prefix.group(1)} {subject}",
                  head, count=1, flags=re.M)
    head += "\n" + header("To", to) + "\n" + header("Cc", cc)
    cover.write_text(f"{head}\n\n{text}\n\n{shortlog}")
    log(f"wrote {cover.relative_to(cfg.repo)}: {len(to)} To, {len(cc)} Cc")


def main() -> int:
    cfg = config()
    fields = figure_fields(cfg)
    for pset in sets.read(cfg.series):
        write(cfg, pset, fields)
    return 0


if __name__ == "__main__":
    main_guard(main)
