# SPDX-License-Identifier: GPL-2.0
"""Run the harness's unit tests: one line per test, the gate's count.

  python3 -m tests [-k PATTERN]

Discovers test_*.py beside this file with unittest, prints "harness:
PASS|FAIL name" per test and "harness: N passed, M failed", and saves
the cases as the stage "harness" in build/results/ (lib/results.py). A
skipped test counts as failed, with the reason: the harness has no
optional tests.
"""

from __future__ import annotations

import argparse
import sys
import unittest
from pathlib import Path

from lib import results
from lib.common import Failure, main_guard

HERE = Path(__file__).resolve().parent


class Recorder(unittest.TextTestResult):
    """A result that also keeps (name, passed, detail) per test."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.rows: list[results.Row] = []

    def _name(self, test: unittest.TestCase) -> str:
        return test.id().removeprefix("tests.")

    def addSuccess(self, test: unittest.TestCase) -> None:  # noqa: N802
        super().addSuccess(test)
        self.rows.append((self._name(test), True, "ok"))

    def addFailure(self, test, err) -> None:  # type: ignore[no-untyped-def] # noqa: N802
        super().addFailure(test, err)
        self.rows.append((self._name(test), False, str(err[1]).splitlines()[0][:200]))

    def addError(self, test, err) -> None:  # type: ignore[no-untyped-def] # noqa: N802
        super().addError(test, err)
        self.rows.append((self._name(test), False,
                          f"{err[0].__name__}: {err[1]}".splitlines()[0][:200]))

    def addSubTest(self, test, subtest, err) -> None:  # type: ignore[no-untyped-def] # noqa: N802
        # A test with a failing subTest() gets no addSuccess/addFailure of
        # its own: without this row it would vanish from the count.
        super().addSubTest(test, subtest, err)
        if err is not None:
            detail = (str(err[1]) if issubclass(err[0], test.failureException)
                      else f"{err[0].__name__}: {err[1]}")
            self.rows.append((self._name(subtest), False, detail.splitlines()[0][:200]))

    # The harness has no optional tests: a test that did not run, or whose
    # outcome was declared beforehand, means something is missing or
    # broken, so each counts as failed, with what happened as the detail.
    def addSkip(self, test: unittest.TestCase, reason: str) -> None:  # noqa: N802
        super().addSkip(test, reason)
        self.rows.append((self._name(test), False, f"skipped: {reason}".splitlines()[0][:200]))

    def addExpectedFailure(self, test, err) -> None:  # type: ignore[no-untyped-def] # noqa: N802
        super().addExpectedFailure(test, err)
        self.rows.append((self._name(test), False, "expected failure: "
                          + f"{err[0].__name__}: {err[1]}".splitlines()[0][:180]))

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:  # noqa: N802
        super().addUnexpectedSuccess(test)
        self.rows.append((self._name(test), False,
                          "unexpected success of a test marked expectedFailure"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-k", dest="patterns", action="append",
                        help="only tests whose name contains PATTERN")
    args = parser.parse_args()
    loader = unittest.TestLoader()
    if args.patterns:
        loader.testNamePatterns = [f"*{p}*" for p in args.patterns]
    suite = loader.discover(str(HERE), pattern="test_*.py",
                            top_level_dir=str(HERE.parent))
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=0,
                                     resultclass=Recorder)
    outcome = runner.run(suite)
    assert isinstance(outcome, Recorder)
    if not outcome.rows:
        raise Failure("no harness test ran")
    results.save("harness", outcome.rows)
    return results.report("harness", outcome.rows, 60)


if __name__ == "__main__":
    main_guard(main)
