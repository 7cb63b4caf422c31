# SPDX-License-Identifier: GPL-2.0
"""Debian's pyflakes over the harness's Python, shellcheck over its shell.

Each a test of its own, as test_types is for mypy, so that the gate
counts them and a finding is the failure's message. A machine without
the tool fails the test rather than skipping it: lib.deps's group
"harness" installs both (make check does).
"""

from __future__ import annotations

import shutil
import subprocess
import unittest
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1]
REPO = SCRIPTS.parent
# Not the repository's: kernel trees, build output, caches.
SKIP = {".git", "build", ".mypy_cache", "__pycache__"}


def files(root: Path) -> list[Path]:
    found = []
    for path in sorted(root.iterdir()):
        if path.name in SKIP:
            continue
        if path.is_dir():
            found += files(path)
        elif path.is_file():
            found.append(path)
    return found


def is_shell(path: Path) -> bool:
    """A file whose first line runs sh or bash: the entry points (run,
    .ci/run), scripts/bootstrap.sh, and shell without a suffix."""
    with path.open("rb") as stream:
        first = stream.readline(200)
    return first.startswith(b"#!") and (first.rstrip().endswith((b"/sh", b"bash")))


def tool(name: str, package: str, args: list[str]) -> tuple[int, list[str]]:
    exe = shutil.which(name)
    if exe is None:
        raise AssertionError(f"{name} is not installed: install Debian's package "
                             f"{package} (as root: apt-get install {package}; "
                             "make check installs it)")
    proc = subprocess.run([exe, *args], cwd=REPO, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, check=False)
    return proc.returncode, proc.stdout.strip().splitlines()


class LintTest(unittest.TestCase):
    def test_shell_files_found(self) -> None:
        """The shebang rule finds the entry points, so that the shellcheck
        test below cannot pass by checking nothing."""
        shell = {str(p.relative_to(REPO)) for p in files(REPO) if is_shell(p)}
        self.assertLessEqual({"run", ".ci/run", "scripts/bootstrap.sh"}, shell)
        self.assertNotIn("Makefile", shell)

    def test_pyflakes_is_clean(self) -> None:
        python = [str(p.relative_to(REPO)) for p in files(SCRIPTS) if p.suffix == ".py"]
        code, lines = tool("pyflakes3", "pyflakes3", python)
        if code != 0 or lines:
            self.fail(f"pyflakes3 (exit {code}): {lines[0] if lines else ''}\n"
                      + "\n".join(lines))

    def test_shellcheck_is_clean(self) -> None:
        shell = [str(p.relative_to(REPO)) for p in files(REPO) if is_shell(p)]
        code, lines = tool("shellcheck", "shellcheck", ["-f", "gcc", *shell])
        if code != 0 or lines:
            self.fail(f"shellcheck (exit {code}): {lines[0] if lines else ''}\n"
                      + "\n".join(lines))


if __name__ == "__main__":
    unittest.main()
