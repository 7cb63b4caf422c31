# SPDX-License-Identifier: GPL-2.0
"""The checks netdev's patchwork runs on a series, locally, per set and
per patch of patches/BASE/series (lib/sets.py):

  set    at most 15 patches (netdev's limit; on a base whose series is
         sent upstream, not on the distribution backport), and a cover
         letter with its own subject, blurb and recipients, numbered
         "[PREFIX 0/N]" for the set's N patches
  patch  subject "[PREFIX i/N]": the set's prefix and its place in the
         set; every Fixes: tag as netdev wants it (12 or more hex digits
         and the quoted subject), with Cc: stable on patches of a
         fixes set (net, iwl-net, DIR-fixes); elsewhere without it, and
         with a message that says why the fix is not for stable; a
         Signed-off-by: that matches the author

checkpatch (--strict, --codespell, 80 columns) and the gcc and clang
builds of every prefix are the checkpatch and bisect stages. A patch of
a fixes set without a Fixes: tag passes with a warning, as patchwork
warns; the cover letter names the tag still to be found.

  python3 -m checks.patchwork       (KERNEL= picks the base)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lib import results, sets
from lib.common import Config, config, main_guard

MAX_PATCHES = 15
FIXES = re.compile(r'^Fixes: [0-9a-f]{12,40} \("[^\n]+"\)$')
PLACEHOLDERS = ("*** SUBJECT HERE ***", "*** BLURB HERE ***")


@dataclass
class Mail:
    """What the checks read of a format-patch file."""

    author: str  # "Name <address>"
    subject: str  # unfolded, with its [PATCH ...] part
    headers: str
    message: str  # the commit message: from the blank line to "---"


def read_mail(path: Path) -> Mail:
    text = path.read_text(errors="replace")
    headers, _, body = text.partition("\n\n")
    unfolded = re.sub(r"\n[ \t]+", " ", headers)
    author = re.search(r"^From: (.*)$", unfolded, re.M)
    subject = re.search(r"^Subject: (.*)$", unfolded, re.M)
    message = re.split(r"^---$", body, maxsplit=1, flags=re.M)[0]
    return Mail(author.group(1).strip() if author else "",
                subject.group(1).strip() if subject else "", unfolded, message)


def subject_problem(mail: Mail, prefix: str, index: int, total: int) -> str:
    """Why @mail's subject is not "[@prefix @index/@total] ...", or ""."""
    m = re.match(r"^\[([^\]]*?) ?(\d+)/(\d+)\] \S", mail.subject)
    if not m:
        return f"subject has no [{prefix} i/N] part: {mail.subject!r}"
    problems = []
    if m.group(1) != prefix:
        problems.append(f"prefix [{m.group(1)}], set's is [{prefix}]")
    if (int(m.group(2)), int(m.group(3))) != (index, total):
        problems.append(f"numbered {m.group(2)}/{m.group(3)}, is {index} of {total}")
    return "; ".join(problems)


def fixes_problems(mail: Mail, fixes_set: bool) -> tuple[list[str], list[str]]:
    """Failing problems and warnings of @mail's Fixes: tags."""
    tags = [line for line in mail.message.splitlines()
            if line.lower().startswith("fixes:")]
    problems = [f"malformed tag: {t!r}" for t in tags if not FIXES.match(t)]
    warnings = []
    stable = re.search(r"^Cc: stable@vger\.kernel\.org$", mail.message, re.M)
    if tags and not fixes_set:
        # netdev takes Fixes: in net-next for a fix that must not reach
        # stable (a behaviour change); the message has to say so.
        if stable:
            problems.append("Fixes: and Cc: stable on a patch outside the fixes sets "
                            "(net, iwl-net, DIR-fixes)")
        elif "stable" not in mail.message.replace("Fixes:", ""):
            problems.append("Fixes: outside the fixes sets, and the message does not "
                            "say why it is not for stable")
        else:
            warnings.append("Fixes: in a -next set, not for stable (the message says why)")
    if tags and fixes_set and not stable:
        problems.append("a fix with Fixes: but no Cc: stable@vger.kernel.org")
    if fixes_set and not tags:
        warnings.append("no Fixes: tag (netdev's patchwork warns)")
    return problems, warnings


def signoff_problem(mail: Mail) -> str:
    signoffs = re.findall(r"^Signed-off-by: (.+)$", mail.message, re.M)
    if not signoffs:
        return "no Signed-off-by:"
    if mail.author not in [s.strip() for s in signoffs]:
        return f"no Signed-off-by: of the author {mail.author}"
    return ""


def check_patch(cfg: Config, pset: sets.PatchSet, name: str,
                index: int) -> tuple[bool, str]:
    mail = read_mail(cfg.patches / name)
    problems = [p for p in (subject_problem(mail, pset.prefix, index, len(pset.patches)),
                            signoff_problem(mail)) if p]
    fix_problems, warnings = fixes_problems(mail, pset.is_fixes)
    problems += fix_problems
    if problems:
        return False, "; ".join(problems)
    tags = "Fixes: and Cc: stable" if "\nFixes:" in mail.message else "no Fixes:"
    return True, "; ".join([f"[{pset.prefix} {index}/{len(pset.patches)}], "
                            f"{tags}, signed off by its author", *warnings])


# The house rule for cover letters: what a reviewer reads before the
# shortlog fits on a screen.
MAX_COVER_WORDS = 300


def cover_words(message: str) -> int:
    """Words of a cover letter's @message before its shortlog (the
    "Author Name (N):" line git format-patch writes)."""
    blurb = re.split(r"^\S.*\(\d+\):$", message, maxsplit=1, flags=re.M)[0]
    return len(blurb.split())


def check_set(cfg: Config, pset: sets.PatchSet, upstream: bool) -> tuple[bool, str]:
    problems = []
    count = len(pset.patches)
    words = 0
    if upstream and count > MAX_PATCHES:
        problems.append(f"{count} patches, more than netdev's {MAX_PATCHES}")
    cover = cfg.patches / pset.cover
    if not cover.is_file():
        problems.append(f"no cover letter {pset.cover}")
    else:
        mail = read_mail(cover)
        text = cover.read_text()
        problems += [f"cover letter still has {p}" for p in PLACEHOLDERS if p in text]
        m = re.match(r"^\[([^\]]*?) ?0*(\d+)/(\d+)\] ", mail.subject)
        if not m or m.group(1) != pset.prefix or int(m.group(2)) != 0 \
                or int(m.group(3)) != count:
            problems.append(f"cover letter subject is not [{pset.prefix} 0/{count}]: "
                            f"{mail.subject!r}")
        if not re.search(r"^To: \S", mail.headers, re.M):
            problems.append("cover letter has no To: (make cover-letter)")
        words = cover_words(mail.message)
        if words >= MAX_COVER_WORDS:
            problems.append(f"cover letter has {words} words before the shortlog, "
                            f"{MAX_COVER_WORDS} or more")
    if problems:
        return False, "; ".join(problems)
    limit = f"<= {MAX_PATCHES}" if upstream else "distribution backport, no limit"
    return True, (f"{count} patches ({limit}), [{pset.prefix}], cover letter with "
                  f"recipients, {words} words before the shortlog")


def main() -> int:
    cfg = config()
    rows: list[results.Row] = []
    upstream = cfg.base.upstream
    for pset in sets.read(cfg.series):
        ok, detail = check_set(cfg, pset, upstream)
        rows.append((f"{pset.dir}", ok, detail))
        print(f"patchwork: {'PASS' if ok else 'FAIL'}  {pset.dir}: {detail}")
        for index, name in enumerate(pset.patches, 1):
            ok, detail = check_patch(cfg, pset, name, index)
            rows.append((name, ok, detail))
            print(f"patchwork: {'PASS' if ok else 'FAIL'}  {name}: {detail}")
    results.save(cfg, "patchwork", rows)
    return results.count("patchwork", rows)


if __name__ == "__main__":
    main_guard(main)
