# SPDX-License-Identifier: GPL-2.0
"""mypy --strict over every package of the harness (scripts/mypy.ini).

The check is a test of its own so that the gate counts it; mypy's report
is the failure's message. A machine without mypy fails the test rather
than skipping it: lib.deps's group "harness" installs Debian's package
(make check does).
"""

from __future__ import annotations

import shutil
import subprocess
import unittest
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1]
CONFIG = SCRIPTS / "mypy.ini"
MISSING = ("mypy is not installed: install Debian's package mypy "
           "(as root: apt-get install mypy; make check installs it)")


def mypy(exe: str, config: Path = CONFIG) -> tuple[int, str]:
    """Run @exe with @config in scripts/, where the packages it names
    are: its exit status and all it printed."""
    proc = subprocess.run([exe, "--config-file", str(config)], cwd=SCRIPTS,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=False)
    return proc.returncode, proc.stdout


class TypesTest(unittest.TestCase):
    def test_mypy_strict_is_clean(self) -> None:
        """mypy reports nothing at all: exit 0 and only its "Success:"
        line."""
        exe = shutil.which("mypy")
        if exe is None:
            self.fail(MISSING)
        code, output = mypy(exe)
        lines = output.strip().splitlines()
        if code != 0 or len(lines) != 1 or not lines[0].startswith("Success:"):
            # The harness's record keeps a failure's first line: mypy's
            # count and its first finding; the whole report follows.
            first = next((line for line in lines if ": error:" in line),
                         lines[0] if lines else "no output")
            self.fail(f"mypy --config-file {CONFIG.name} (exit {code}): "
                      f"{lines[-1] if lines else ''}; {first}\n" + "\n".join(lines))


if __name__ == "__main__":
    unittest.main()
