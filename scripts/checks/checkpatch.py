# SPDX-License-Identifier: GPL-2.0
"""Run checkpatch.pl on every patch of patches/BASE/series, as netdev's
patchwork does: --strict, --codespell (Debian's codespell dictionary) and
--max-line-length=80.

One result per patch; any ERROR, WARNING or CHECK fails it, except:

- UNKNOWN_COMMIT_ID, left out: the tree is made from a tarball with no
  upstream history, so checkpatch cannot look up the ids of Fixes: tags
  (they are upstream commit ids, checked by hand when written);
- CAMELCASE for an identifier the base tree's version of the patched
  files already has: module parameters users type (atl2's TxMemSize,
  via-velocity's RxDescriptors) and driver constants (tulip's FullDuplex)
  cannot be renamed by a fix that has to read them;
- OBSOLETE, for the 8390 drivers (ne2k-pci): checkpatch asks for no
  unnecessary changes to an obsolete driver, and fixing its board numbers
  is the change the series is for;
- FILE_PATH_CHANGES ("does MAINTAINERS need updating?") when every file
  the patch adds is already covered by a MAINTAINERS entry beyond THE
  REST (get_maintainer.pl names a list or maintainer other than LKML):
  the KUnit files sit beside the code they test, whose entries (DRIVER
  CORE, the driver's own or NETWORKING DRIVERS) cover them;
- MACRO_ARG_REUSE for an argument of a DEFINE_*() macro the patch adds
  (DEFINE_STATIC_BOARD_NUMBERS(name, slots, ...)): such a macro defines
  objects, its arguments are a name and a constant size that only
  declarations use, as in DEFINE_IDA() and DEFINE_MUTEX();
- TYPO_SPELLING of a word that the patch has only in the quoted subject
  of a Fixes: tag ("Conexant", which codespell would spell "Connexant"):
  the tag quotes the fixed commit's subject as it is;
- LONG_LINE (and its _COMMENT and _STRING forms) in a file whose base
  version already has lines over 80 columns: 80 columns hold where the
  file follows them, and checkpatch's own limit (100) still applies
  there. Files the series adds always follow 80.

Accepted findings are printed, each with its reason, not hidden.
"""

from __future__ import annotations

import re
from pathlib import Path

from lib import resultcache, results
from lib.common import Config, Failure, config, main_guard, run, series_patches
from checks.patchwork import FIXES
from mail.send_prep import OPEN

IGNORED = ["UNKNOWN_COMMIT_ID"]
CAMELCASE = re.compile(r"^CHECK:CAMELCASE: Avoid CamelCase: <(\w+)>")
OBSOLETE = re.compile(r"^WARNING:OBSOLETE: drivers/net/ethernet/8390/\S+ is marked")
FILE_PATH = re.compile(r"^WARNING:FILE_PATH_CHANGES: ")
LONG_LINE = re.compile(r"^WARNING:LONG_LINE(?:_COMMENT|_STRING)?: line length of (\d+)")
MACRO_REUSE = re.compile(r"^CHECK:MACRO_ARG_REUSE: Macro argument reuse '(\w+)'")
MISSING_FIXES = re.compile(r"^WARNING:MISSING_FIXES_TAG: ")
TYPO = re.compile(r"^WARNING:TYPO_SPELLING: '([^']+)' may be misspelled")
WHERE = re.compile(r"^#\d+: FILE: (\S+?):\d+:")
COLUMNS = 80
# Debian's codespell package: its dictionary, which checkpatch would only
# find through the python3 first on PATH.
CODESPELL = Path("/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt")


def patched_files(cfg: Config, name: str) -> list[str]:
    text = (cfg.patches / name).read_text()
    return sorted(set(re.findall(r"^\+\+\+ b/(\S+)$", text, re.M)))


def added_files(cfg: Config, name: str) -> list[str]:
    text = (cfg.patches / name).read_text()
    return re.findall(r"^--- /dev/null\n\+\+\+ b/(\S+)$", text, re.M)


def covered(cfg: Config, path: str) -> bool:
    """Whether a MAINTAINERS entry other than THE REST covers @path."""
    proc = run(["perl", "scripts/get_maintainer.pl", "--no-git",
                "--no-git-fallback", "--no-rolestats", "-f", path],
               cwd=cfg.tree, capture=True, check=False)
    found = [line for line in proc.stdout.splitlines() if "@" in line]
    return proc.returncode == 0 and any(
        "linux-kernel@vger.kernel.org" not in line for line in found)


def in_base(cfg: Config, identifier: str, files: list[str]) -> bool:
    """Whether the base tree's version of @files has @identifier."""
    proc = run(["git", "grep", "-q", "-w", identifier, "base", "--", *files],
               cwd=cfg.tree, capture=True, check=False)
    return proc.returncode == 0


def wide_in_base(cfg: Config, path: str) -> bool:
    """Whether the base tree's @path has a line over 80 columns (tabs
    at 8): a file that does not follow the 80-column limit."""
    proc = run(["git", "show", f"base:{path}"], cwd=cfg.tree, capture=True, check=False)
    return proc.returncode == 0 and any(
        len(line.expandtabs(8)) > COLUMNS for line in proc.stdout.splitlines())


def accepted(cfg: Config, finding: str, files: list[str], name: str = "",
             where: str = "") -> str | None:
    """Why a finding does not fail the patch, or None when it does;
    @where is the file checkpatch names for it."""
    if LONG_LINE.match(finding):
        return ("the file has lines over 80 columns already"
                if where and wide_in_base(cfg, where) else None)
    if FILE_PATH.match(finding):
        new = added_files(cfg, name) if name else []
        return ("the added files are covered by MAINTAINERS"
                if new and all(covered(cfg, f) for f in new) else None)
    m = CAMELCASE.match(finding)
    if m and in_base(cfg, m.group(1), files):
        return "identifier already in the driver"
    if OBSOLETE.match(finding):
        return "the fix this series is for"
    m = MACRO_REUSE.match(finding)
    if m and name and defines_with(m.group(1), (cfg.patches / name).read_text()):
        return "an argument of a DEFINE_ macro, used in declarations only"
    m = TYPO.match(finding)
    if m and name and only_in_fixes_tags(m.group(1), (cfg.patches / name).read_text()):
        return "the quoted subject of the commit a Fixes: tag names"
    if MISSING_FIXES.match(finding) and name and fixes_left_open(cfg, name):
        return ("the set's cover letter lists the Fixes: tag as open before "
                "sending, and make send-prep refuses the set until it is done")
    return None


def only_in_fixes_tags(word: str, patch: str) -> bool:
    """Whether @word is, in @patch's message and added lines, only in the
    quoted subjects of Fixes: tags."""
    message = patch.split("\n---\n", 1)[0].splitlines()
    added = [line for line in patch.splitlines()
             if line.startswith("+") and not line.startswith("+++")]
    where = [line for line in message + added
             if re.search(rf"\b{re.escape(word)}\b", line, re.I)]
    return bool(where) and all(FIXES.match(line) for line in where)


def fixes_left_open(cfg: Config, name: str) -> bool:
    """Whether the cover letter of @name's set says, in its "Open before
    sending:" paragraph, that a Fixes: tag is still to be added."""
    cover = cfg.patches / Path(name).parent / "0000-cover-letter.patch"
    if not cover.is_file():
        return False
    text = cover.read_text()
    for match in OPEN.finditer(text):
        end = text.find("\n\n", match.start())
        if "Fixes:" in text[match.start():end if end >= 0 else len(text)]:
            return True
    return False


def defines_with(argument: str, patch: str) -> bool:
    """Whether @patch adds a DEFINE_*() macro that takes @argument."""
    return re.search(rf"^\+#define DEFINE_\w+\([^)]*\b{argument}\b", patch,
                     re.M) is not None


def findings_of(output: str) -> list[tuple[str, str]]:
    """checkpatch's findings in @output, each with the file it names."""
    found: list[tuple[str, str]] = []
    for line in output.splitlines():
        if re.match(r"(ERROR|WARNING|CHECK):", line):
            found.append((line, ""))
        elif found and not found[-1][1] and (hit := WHERE.match(line)):
            found[-1] = (found[-1][0], hit.group(1))
    return found


def check(cfg: Config, name: str) -> tuple[list[str], list[str]]:
    """Findings that fail the patch, and accepted ones with their reason."""
    if not CODESPELL.is_file():
        raise Failure(f"{CODESPELL} is missing: install Debian's codespell")
    proc = run(["perl", "scripts/checkpatch.pl", "--strict", "--quiet",
                "--no-summary", "--show-types", f"--ignore={','.join(IGNORED)}",
                "--codespell", f"--codespellfile={CODESPELL}",
                f"--max-line-length={COLUMNS}",
                str(cfg.patches / name)], cwd=cfg.tree, capture=True, check=False)
    findings = findings_of(proc.stdout)
    if proc.returncode != 0 and not findings:
        return proc.stdout.splitlines()[-5:] or ["checkpatch.pl failed"], []
    files = patched_files(cfg, name)
    failing, allowed = [], []
    for finding, where in findings:
        reason = accepted(cfg, finding, files, name, where)
        if reason:
            allowed.append(f"{finding} (accepted: {reason})")
        else:
            failing.append(finding)
    return failing, allowed


def inputs(cfg: Config) -> str:
    """The digest of what the results depend on (lib/resultcache.py): the
    patches, the base and series trees (checkpatch.pl, its word lists,
    MAINTAINERS, the code the rules grep), Debian's codespell and perl,
    and this file's rules."""
    trees = run(["git", "rev-parse", "base^{tree}", "series^{tree}"], cwd=cfg.tree,
                capture=True).stdout
    names = series_patches(cfg.series)
    return resultcache.digest([
        "checkpatch", trees, "\n".join(names), *resultcache.files(
            [Path(__file__), CODESPELL, *(cfg.patches / name for name in names)]),
        resultcache.packages(["perl", "codespell"])])


def main() -> int:
    cfg = config()
    key = inputs(cfg)
    kept = resultcache.load("checkpatch", key, cfg=cfg)
    if kept:
        rows = resultcache.replay("checkpatch", kept)
    else:
        rows, lines = [], []
        for name in series_patches(cfg.series):
            findings, allowed = check(cfg, name)
            entry = [f"checkpatch: {'FAIL' if findings else 'PASS'}  {name}",
                     *(f"    {line}" for line in findings + allowed)]
            print("\n".join(entry), flush=True)
            lines += entry
            rows.append((name, not findings, f"{len(allowed)} accepted findings"))
        resultcache.keep("checkpatch", key, rows, lines, cfg=cfg)
    results.save(cfg, "checkpatch", rows)
    failed = sum(not ok for _, ok, _ in rows)
    print(f"checkpatch: {len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    main_guard(main)
