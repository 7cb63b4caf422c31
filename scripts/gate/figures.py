# SPDX-License-Identifier: GPL-2.0
"""Write docs/figures.md from the last gate run's records.

  python3 -m gate.figures   (make figures)

The document has one section per kind of run: make check, make
check-full or make check-debug, each with a warm or a cold ccache.
This writes the section of the last gate run from the records it left
(build/gate/gate.json, each base's build/BASE/results/, lib/results.py)
and its stage logs in build/BASE/logs/: the stage table with times,
ccache's hits and misses (which tell warm from cold), the kernel
builds' times, and each stage's cases with their details, per base. The
other sections stay as they are, unless they are of another version of
the series, which drops them. Records of another version of the series,
or of a run that failed, are refused, so that no figure in the
repository is older than the series it describes. With
BOARD_NUMBERS_ROOT=DIR the run is read from another build/ (a cold run
made in a clean root, say).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from lib import results
from lib.common import REPO, Config, Failure, config, log, main_guard

OUT = REPO / "docs" / "figures.md"
# Stages whose cases are listed one per row, in this order.
LISTED = ["e2e", "sound", "reliability", "userspace", "kunit-debug", "mutants"]
COUNTED = {"checkpatch": "patches", "patchwork": "sets and patches",
           "bisect": "patches"}


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def build_times(logs: Path, base: str) -> list[tuple[str, str]]:
    """(kernel, what its build took) from the stage logs: kunit.py's
    "Elapsed time" line and the guest kernels' "ready in" lines."""
    found = []
    for name in ("kunit", "kunit-debug"):
        path = logs / f"{name}.log"
        text = path.read_text(errors="replace") if path.is_file() else ""
        m = re.search(r"Elapsed time: ([\d.]+)s total, ([\d.]+)s configuring, "
                      r"([\d.]+)s building, ([\d.]+)s running", text)
        if m:
            found.append((f"build/{base}/{name} (kunit.py)",
                          f"{float(m.group(3)):.0f} s building, "
                          f"{float(m.group(4)):.0f} s running the tests"))
    path = logs / "guest-kernels.log"
    text = path.read_text(errors="replace") if path.is_file() else ""
    for m in re.finditer(r"==> (\S+)/arch/x86/boot/bzImage ready in (\d+)s", text):
        found.append((re.sub(r"^.*?/build/", "build/", m.group(1)), f"{m.group(2)} s"))
    return found


def minutes(seconds: int) -> str:
    return f"{seconds // 60} min {seconds % 60} s"


HEADER = """# Figures

Written by `make figures` from the last gate run of each kind
(`build/gate/gate.json`, each base's `build/BASE/results/` and
`build/BASE/logs/`); do not edit by hand. Machine: 2 cores, 24 GiB, no
KVM (QEMU TCG, one vCPU per guest unless a run says so).
"""
ORDER = ["make check, warm ccache", "make check, cold", "make check-full, warm ccache",
         "make check-full, cold", "make check-debug, warm ccache", "make check-debug, cold"]
TREE_LINE = re.compile(r"^- series trees (.+)$", re.M)


def title(gate: dict[str, Any]) -> str:
    """The section's name: the target, and warm or cold. A run is cold
    when ccache held no object as it began ("files_before", recorded
    since 2026-12-06). Hits and misses alone cannot tell: a warm machine
    that builds one base's guest kernels for the first time misses more
    than it hits (c2d1f00: 2585 hits, 3086 misses), so they decide only
    for older records, where a cold cache missed more than it hit (the
    cold run of 2026-12-05: 1518 hits, 2971 misses) and a warm one hit
    more, even when a change to the guest kernels' configuration compiled
    a thousand new objects (2026-12-06: 1343 hits, 1019 misses)."""
    target = {"check": "make check", "full": "make check-full",
              "debug": "make check-debug"}.get(gate.get("gate_tier", ""), "gate")
    cache = gate.get("ccache", {})
    if "files_before" in cache:
        cold = cache["files_before"] == 0
    else:
        cold = cache.get("misses", 0) > cache.get("hits", 0)
    return f"{target}, {'cold' if cold else 'warm ccache'}"


def merge(old: str, section: str, name: str, tree: str) -> str:
    """@old's sections, @section in place of the one called @name, those
    of another series tree dropped, in ORDER."""
    sections = {}
    for chunk in re.split(r"^(?=## )", old, flags=re.M)[1:]:
        heading = chunk.splitlines()[0][3:].strip()
        m = TREE_LINE.search(chunk)
        if m and m.group(1) == tree:
            sections[heading] = chunk.rstrip() + "\n"
    sections[name] = section
    keys = sorted(sections, key=lambda k: ORDER.index(k) if k in ORDER else len(ORDER))
    return HEADER + "".join("\n" + sections[k] for k in keys)


def trees_line(gate: dict[str, Any]) -> str:
    """The series trees of the run's bases: which series it counted."""
    return ", ".join(f"{base} {ids['tree'][:12]}"
                     for base, ids in sorted(gate["series"].items()))


def render(gate: dict[str, Any], stages: dict[tuple[str, str], dict[str, Any]],
           builds: list[tuple[str, str]]) -> str:
    ccache = gate.get("ccache", {})
    lines = [
        f"## {title(gate)}",
        "",
        f"- finished {gate['finished']}, {minutes(int(gate['seconds']))} in all, "
        f"bases {', '.join(gate['bases'])}",
        f"- series trees {trees_line(gate)}",
        f"- gate of repository commit {gate.get('repository', '?')}",
        f"- ccache during the run: {ccache.get('hits', '?')} hits, "
        f"{ccache.get('misses', '?')} misses",
        "",
        "### Stages",
        "",
        "| stage | base | passed | failed | time |",
        "|---|---|---|---|---|",
        f"| setup (packages, trees) | | | | {gate.get('setup_seconds', '?')} s |",
    ]
    for stage in gate.get("stages", []):
        if stage.get("skip"):
            lines.append(f"| {stage['name']} | {stage['base'] or '–'} | – | – | "
                         f"skipped: {cell(stage['skip'])} |")
        else:
            lines.append(f"| {stage['name']} | {stage['release'] or '–'} | "
                         f"{stage['passed']} | {stage['failed']} | {stage['seconds']} s |")
    if builds:
        lines += ["", "### Kernel builds", "", "| kernel | time |", "|---|---|"]
        lines += [f"| {name} | {took} |" for name, took in builds]
    for base in gate["bases"]:
        kunit = stages.get(("kunit", base))
        if kunit:
            lines += ["", f"### KUnit on {base}", "",
                      f"{kunit['passed']} of {len(kunit['rows'])} cases pass in "
                      f"{len(kunit.get('suites', []))} suites: "
                      + ", ".join(f"`{s}`" for s in kunit.get("suites", [])) + "."]
    for name, what in COUNTED.items():
        for base in gate["bases"]:
            record = stages.get((name, base))
            if record:
                lines += ["", f"### {name} on {base}", "",
                          f"{record['passed']} of {len(record['rows'])} {what} pass."]
                if name == "bisect":
                    lines += ["", f"clang: {record.get('clang_steps', 'every step')}; "
                              f"sparse: {record.get('sparse', 'on every gcc build')}."]
    for name in LISTED:
        for base in gate["bases"]:
            record = stages.get((name, base))
            if not record:
                continue
            lines += ["", f"### {name} on {base}", "", "| case | result | detail |",
                      "|---|---|---|"]
            lines += [f"| {cell(r['name'])} | {'pass' if r['ok'] else 'FAIL'} | "
                      f"{cell(r['detail'])} |" for r in record["rows"]]
    return "\n".join(lines) + "\n"


def main(cfg: Config | None = None) -> int:
    """Write the section of the run recorded under @cfg's build root (of
    config(), which BOARD_NUMBERS_ROOT moves, when None)."""
    cfg = cfg or config()
    record = cfg.build_root / "gate" / "gate.json"
    try:
        gate = json.loads(record.read_text())
    except (OSError, ValueError) as err:
        raise Failure(f"no gate record {record} ({err}): run the gate first") from err
    if gate.get("failed"):
        raise Failure(f"{record}: {gate['failed']} failed; figures come from a "
                      "passing run")
    for base, ids in sorted(gate.get("series", {}).items()):
        tree = results.series_commit("series^{tree}", cfg.build_root / base / "linux")
        if ids.get("tree") != tree:
            raise Failure(f"{record} is of another version of the series on {base} "
                          f"(tree {str(ids.get('tree'))[:12]}, now {tree[:12]}): "
                          "run the gate first")
    stages: dict[tuple[str, str], dict[str, Any]] = {}
    for stage in gate.get("stages", []):
        if stage.get("skip") or stage["name"] in ("guest-kernels", "harness"):
            continue
        stages[(stage["name"], stage["base"])] = results.load(cfg, stage["result"],
                                                              stage["base"])
    builds = [item for base in gate["bases"]
              for item in build_times(cfg.build_root / base / "logs", base)]
    section = render(gate, stages, builds)
    old = OUT.read_text() if OUT.is_file() else ""
    OUT.write_text(merge(old, section, title(gate), trees_line(gate)))
    log(f"wrote the section \"{title(gate)}\" of {OUT.relative_to(REPO)}, "
        f"from the run finished {gate['finished']}")
    return 0


if __name__ == "__main__":
    main_guard(main)
