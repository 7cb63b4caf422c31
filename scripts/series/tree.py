# SPDX-License-Identifier: GPL-2.0
"""Prepare a base's kernel tree from Debian's package, and export edits back.

  series.tree prepare [--force]  unpack /usr/src/linux-source-BASE.tar.xz
                              into build/BASE/linux as a git repo with a
                              base commit, then apply patches/BASE/series
                              with git am
  series.tree export            write the commits base..series back to
                              patches/BASE/, each set of patches/BASE/series
                              (lib/sets.py) in its directory, with git
                              format-patch --cover-letter

The base is KERNEL= (lib.common.BASES). patches/ is the only home of
kernel code: prepare never throws away commits or edits in the tree that
export has not written back, unless --force. The base commit is the
tarball as shipped, so the series applies to whichever point release of
the base the package holds.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import re
import shutil
from pathlib import Path

from lib import sets
from lib.common import (
    REPO, Config, Failure, config, log, main_guard, run, series_patches
)


def rel(path: Path) -> str:
    """@path as a user types it from the repository (build/7.3/linux)."""
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)


# Fixed identities and dates keep the base commit the same on every machine.
def git_env(cfg: Config) -> dict[str, str]:
    return {"GIT_AUTHOR_NAME": cfg.base.package, "GIT_AUTHOR_EMAIL": "linux@localhost",
            "GIT_COMMITTER_NAME": "board-numbers tree",
            "GIT_COMMITTER_EMAIL": "tree@localhost"}


BASE_DATE = "2000-01-01T00:00:00Z"


def state_path(cfg: Config) -> Path:
    """Where prepare keeps what the tree was made from and what it applied."""
    return cfg.tree / ".git" / "board-numbers-state.json"


def git(cfg: Config, *args: str, capture: bool = True, check: bool = True,
        env: dict[str, str] | None = None) -> str:
    proc = run(["git", "-c", "core.abbrev=12", *args], cwd=cfg.tree,
               capture=capture, check=check, env=dict(git_env(cfg), **(env or {})))
    return (proc.stdout or "").strip()


def tarball_id(cfg: Config) -> str:
    if not cfg.tarball.is_file():
        raise Failure(f"{cfg.tarball} not found: install Debian's {cfg.base.package} "
                      "(make check does), or point LINUX_TARBALL at the tarball")
    digest = hashlib.sha256()
    with cfg.tarball.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def patches_digest(cfg: Config) -> str:
    digest = hashlib.sha256(cfg.series.read_bytes())
    for name in series_patches(cfg.series):
        digest.update((cfg.patches / name).read_bytes())
    return digest.hexdigest()


def load_state(cfg: Config) -> dict[str, str]:
    """The tree's saved state; its string fields only, {} when there is
    none or the file is not a JSON object."""
    try:
        state = json.loads(state_path(cfg).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(state, dict):
        return {}
    return {key: value for key, value in state.items() if isinstance(value, str)}


def save_state(cfg: Config, **changes: str) -> None:
    state = load_state(cfg)
    state.update(changes)
    state_path(cfg).write_text(json.dumps(state, indent=1) + "\n")


def kernel_version(tree: Path) -> str:
    fields = {}
    for line in (tree / "Makefile").read_text().splitlines()[:8]:
        m = re.match(r"(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)\s*=\s*(\S*)", line)
        if m:
            fields[m.group(1)] = m.group(2)
    return "{VERSION}.{PATCHLEVEL}.{SUBLEVEL}{EXTRAVERSION}".format(
        **{k: fields.get(k, "") for k in
           ("VERSION", "PATCHLEVEL", "SUBLEVEL", "EXTRAVERSION")})


def unpack(cfg: Config, tar_id: str) -> None:
    """Make build/linux a git repo whose base commit is the tarball."""
    staging = cfg.build / "linux.unpacking"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    log(f"unpacking {cfg.tarball}")
    run(["tar", "-xJf", str(cfg.tarball), "-C", str(staging)])
    tops = list(staging.iterdir())
    if len(tops) != 1 or not tops[0].is_dir():
        raise Failure(f"{cfg.tarball}: expected one top-level directory")
    src = tops[0]
    version = kernel_version(src)
    log(f"making the base commit of Linux {version}")
    env = dict(git_env(cfg), GIT_AUTHOR_DATE=BASE_DATE, GIT_COMMITTER_DATE=BASE_DATE)
    run(["git", "init", "-q", "-b", "base"], cwd=src)
    # Debian's top-level .gitignore ignores everything ("/*"), so a plain
    # "git add -A" would add nothing: force it. The tree is pristine, so
    # nothing that should stay untracked is there yet.
    run(["git", "add", "-f", "-A", "."], cwd=src)
    run(["git", "commit", "-q", "-m", f"base: {cfg.base.package} {version}"],
        cwd=src, env=env)
    shutil.rmtree(cfg.tree, ignore_errors=True)
    src.rename(cfg.tree)
    shutil.rmtree(staging)
    save_state(cfg, tarball=tar_id, version=version)


def unexported_work(cfg: Config) -> str:
    """Describe commits or edits in the tree that patches/ does not hold."""
    if not (cfg.tree / ".git").is_dir():
        return ""
    dirty = git(cfg, "status", "--porcelain", "--untracked-files=no")
    if dirty:
        return "uncommitted changes:\n" + dirty
    head = git(cfg, "rev-parse", "-q", "--verify", "series", check=False)
    applied = load_state(cfg).get("applied")
    if head and applied and head != applied:
        return "commits on branch series that were not exported:\n" + \
            git(cfg, "log", "--oneline", f"{applied}..{head}")
    return ""


def report_failed_am(cfg: Config, output: str, names: list[str]) -> str:
    """Name the patch, the file and the hunk that git am could not apply."""
    msg = ["the series does not apply to this tree"]
    failed = re.search(r"^Patch failed at (\d+) (.*)$", output, re.M)
    if failed:
        index = int(failed.group(1)) - 1
        name = names[index] if 0 <= index < len(names) else "?"
        msg.append(f"  patch:  patches/{name} ({failed.group(2)})")
        where = re.search(r"^error: patch failed: (.+):(\d+)$", output, re.M)
        if where and 0 <= index < len(names):
            path, line = where.group(1), where.group(2)
            msg.append(f"  file:   {path}, hunk at line {line}")
            hunk = find_hunk(cfg.patches / name, path, line)
            if hunk:
                msg.append("  hunk:\n" + "\n".join("    " + h for h in hunk))
    said = [line for line in output.splitlines()
            if line.startswith(("error:", "Patch failed", "warning:"))]
    msg.append("git am said:\n" + "\n".join("    " + line for line in said[-8:]))
    msg.append("The tree was left at the base commit; fix the patch in "
               "patches/ or refresh it against this release.")
    return "\n".join(msg)


def find_hunk(patch: Path, path: str, line: str) -> list[str]:
    current = None
    lines = patch.read_text(errors="replace").splitlines()
    for i, text in enumerate(lines):
        if text.startswith("+++ b/"):
            current = text[6:]
        elif current == path and text.startswith(f"@@ -{line},"):
            end = i + 1
            while end < len(lines) and lines[end][:1] in (" ", "+", "-", "\\"):
                end += 1
            return lines[i:min(end, i + 25)]
    return []


def prepare(cfg: Config, force: bool) -> None:
    tar_id = tarball_id(cfg)
    state = load_state(cfg)
    work = unexported_work(cfg)
    if work and not force:
        raise Failure(f"{rel(cfg.tree)} has work that patches/ does not hold, "
                      f"{work}\nRun 'make export' to keep it, or "
                      "'make tree FORCE=1' to drop it.")
    if state.get("tarball") != tar_id:
        unpack(cfg, tar_id)
    names = series_patches(cfg.series)
    digest = patches_digest(cfg)
    state = load_state(cfg)
    head = git(cfg, "rev-parse", "-q", "--verify", "series", check=False)
    if head and state.get("applied") == head and state.get("digest") == digest:
        log(f"tree is up to date: Linux {state.get('version')} "
            f"+ {len(names)} patches")
        return
    log(f"applying {len(names)} patches to Linux {state.get('version')}")
    git(cfg, "checkout", "-q", "-f", "-B", "series", "base")
    git(cfg, "clean", "-q", "-f", "-d")
    # Until git am is through, the tree holds the base and nothing else.
    save_state(cfg, applied=git(cfg, "rev-parse", "base"), digest="")
    proc = run(["git", "am", "-q", *[str(cfg.patches / n) for n in names]],
               cwd=cfg.tree, capture=True, check=False, env=git_env(cfg))
    if proc.returncode != 0:
        git(cfg, "am", "--abort", check=False)
        git(cfg, "checkout", "-q", "-f", "series")
        raise Failure(report_failed_am(cfg, proc.stdout, names))
    save_state(cfg, applied=git(cfg, "rev-parse", "series"), digest=digest)
    log(f"tree ready: {cfg.tree} (branch series)")


def old_headings(series: Path) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """Free comment lines of patches/series (not the set headings): those
    before the first set, those before each patch keyed by the patch, and
    those after the last patch."""
    preamble: list[str] = []
    headings: dict[str, list[str]] = {}
    pending: list[str] = []
    in_sets = False
    for line in series.read_text().splitlines() if series.exists() else []:
        name = line.split("#", 1)[0].strip()
        if line.startswith("# =="):
            # The blank line before a set heading is export's own.
            in_sets = True
            pending = [kept for kept in pending if kept]
        elif name:
            headings[slug(name)] = pending
            pending = []
        elif in_sets:
            pending.append(line)
        else:
            preamble.append(line)
    return preamble, headings, pending


def slug(name: str) -> str:
    """A patch file's name without its set directory and number: what
    stays the same when the patch moves within or between sets."""
    return re.sub(r"^\d{4}-", "", name.rsplit("/", 1)[-1])


def split_cover(text: str) -> tuple[str, str, str, str]:
    """A cover letter's headers without To:/Cc:, those recipients'
    headers, its blurb, and the rest from git's shortlog ("Author (N):")
    on; the shortlog part is "" if there is none."""
    head, body = text.split("\n\n", 1)
    recipients = "".join(m.group(0) for m in
                         re.finditer(r"^(?:To|Cc): .*\n(?:[ \t].*\n)*", head + "\n", re.M))
    head = re.sub(r"^(?:To|Cc): .*\n(?:[ \t].*\n)*", "", head + "\n", flags=re.M)
    shortlog = re.search(r"^\S.* \(\d+\):$", body, re.M)
    cut = shortlog.start() if shortlog else len(body)
    return head.rstrip("\n"), recipients, body[:cut].rstrip("\n"), body[cut:]


def cover_text(path: Path) -> tuple[str, str, str]:
    """Subject, blurb and To:/Cc: headers of the cover letter at @path, to
    carry over (scripts/mail/cover_letter.py writes the last two)."""
    if not path.exists():
        return "*** SUBJECT HERE ***", "*** BLURB HERE ***", ""
    head, recipients, blurb, _ = split_cover(path.read_text())
    subject = re.search(r"^Subject: \[[^\]]*\] (.*(?:\n .*)*)$", head, re.M)
    return (subject.group(1).replace("\n ", " ") if subject else
            "*** SUBJECT HERE ***"), blurb, recipients


def assign(cfg: Config, names: list[str], old: list[sets.PatchSet]) -> list[list[int]]:
    """Split the series' commits (their format-patch @names, in order)
    into the sets of @old: a commit goes to the set its patch was in, a new
    one to the set of the commit before it. The sets must come in order,
    each a run of consecutive commits."""
    where = {slug(p): i for i, s in enumerate(old) for p in s.patches}
    groups: list[list[int]] = [[] for _ in old]
    current = 0
    for index, name in enumerate(names):
        target = where.get(slug(name), current)
        if target < current:
            raise Failure(f"commit {index + 1} ({name}) belongs to set "
                          f"{old[target].dir} but comes after set "
                          f"{old[current].dir}: reorder branch series in "
                          f"{rel(cfg.tree)}, or move its line in {rel(cfg.series)}")
        current = target
        groups[current].append(index)
    return groups


def format_set(cfg: Config, pset: sets.PatchSet, first: str, last: str,
               out: Path) -> None:
    """Write the commits @first..@last of branch series as @pset's
    directory under @out, numbered within the set, with its cover letter."""
    git(cfg, "format-patch", "-q", "--zero-commit", "--no-signature",
        "--cover-letter", f"--subject-prefix={pset.prefix}",
        "-o", str(out / pset.dir), f"{first}^..{last}")
    subject, blurb, recipients = cover_text(cfg.patches / pset.cover)
    cover_path = out / pset.cover
    cover = cover_path.read_text()
    cover = cover.replace("*** SUBJECT HERE ***", subject)
    cover = cover.replace("*** BLURB HERE ***", blurb)
    head, body = cover.split("\n\n", 1)
    cover = f"{head}\n{recipients}\n{body}" if recipients else cover
    # Sign the cover letter as the set's author, dated like its last
    # patch, so that exporting again changes nothing.
    author, date = git(cfg, "log", "-1", "--format=%an <%ae>%n%aD", last).split("\n")
    cover = re.sub(r"^From: .*$", f"From: {author}", cover, count=1, flags=re.M)
    cover = re.sub(r"^Date: .*$", f"Date: {date}", cover, count=1, flags=re.M)
    cover_path.write_text(cover)


def export(cfg: Config) -> None:
    if not (cfg.tree / ".git").is_dir():
        raise Failure("no tree to export from: run 'make tree' first")
    dirty = git(cfg, "status", "--porcelain", "--untracked-files=no")
    if dirty:
        raise Failure(f"commit your changes in {rel(cfg.tree)} first; "
                      f"export writes commits only:\n{dirty}")
    commits = git(cfg, "rev-list", "--reverse", "base..series").split()
    if not commits:
        raise Failure("branch series has no commits on top of base")
    old = sets.read(cfg.series)
    out = cfg.build / "export"
    shutil.rmtree(out, ignore_errors=True)
    # The file name each commit gets, which says which set it was in.
    git(cfg, "format-patch", "-q", "--zero-commit", "-o", str(out / "all"), "base..series")
    names = sorted(p.name for p in (out / "all").glob("0*.patch"))
    groups = assign(cfg, names, old)
    for pset, group in zip(old, groups):
        if group:
            format_set(cfg, pset, commits[group[0]], commits[group[-1]], out)
        else:
            log(f"set {pset.dir} has no commits left: dropped")

    preamble, headings, trailer = old_headings(cfg.series)
    lines: list[str] = list(preamble)
    for pset, group in zip(old, groups):
        if not group:
            continue
        if lines and lines[-1]:
            lines.append("")
        lines.append(f"# == {pset.dir} [{pset.prefix}]: {pset.title}")
        for path in sorted((out / pset.dir).glob("0*.patch")):
            if path.name == sets.COVER:
                continue
            name = f"{pset.dir}/{path.name}"
            lines += headings.get(slug(name), [])
            lines.append(name)
    lines += trailer
    # Everything the old series named goes; the new sets take its place.
    for pset in old:
        for name in [*pset.patches, pset.cover]:
            (cfg.patches / name).unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            (cfg.patches / pset.dir).rmdir()
    for pset, group in zip(old, groups):
        if group:
            (cfg.patches / pset.dir).mkdir(parents=True, exist_ok=True)
            for path in (out / pset.dir).glob("*.patch"):
                shutil.copyfile(path, cfg.patches / pset.dir / path.name)
    cfg.series.write_text("\n".join(lines) + "\n")
    shutil.rmtree(out)
    save_state(cfg, applied=git(cfg, "rev-parse", "series"), digest=patches_digest(cfg))
    log(f"exported {len(commits)} patches in {sum(map(bool, groups))} sets "
        f"to {cfg.series.parent.relative_to(cfg.repo)}/")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    prep = sub.add_parser("prepare", help="unpack the tarball and apply the series")
    prep.add_argument("--force", action="store_true",
                      help="drop tree work that patches/ does not hold")
    sub.add_parser("export", help="write the tree's commits back to patches/")
    args = parser.parse_args()
    cfg = config()
    cfg.build.mkdir(parents=True, exist_ok=True)
    if args.cmd == "prepare":
        prepare(cfg, args.force)
    else:
        export(cfg)
    return 0


if __name__ == "__main__":
    main_guard(main)
