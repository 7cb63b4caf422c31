# SPDX-License-Identifier: GPL-2.0
"""The call-site check (checks.callsites and callsites.cocci): what it
reads of spatch's output, and the rule itself on a small driver written
for the test, right and broken (where Debian's coccinelle is installed)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from checks import callsites

DRIVER = """\
#include <linux/device/board_numbers.h>

#define MAX_UNITS 8
static int options[MAX_UNITS];
static int full_duplex[MAX_UNITS];

DEFINE_STATIC_BOARD_NUMBERS(foo_boards, MAX_UNITS,
\t\t\t    "ethtool or a systemd.link file");

struct foo_priv {
\tunsigned int board;
};

static void foo_setup(struct pci_dev *pdev, struct foo_priv *np, int unit)
{
\tnp->fdx = board_slot_value(&pdev->dev, &foo_boards, unit,
\t\t\t\t   full_duplex, 0);
}

static int foo_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
\tstruct foo_priv *np = pci_get_drvdata(pdev);
\tint board;

\tboard = devm_board_number_get(&pdev->dev, &foo_boards);
\tif (board < 0)
\t\treturn board;
\tnp->board = board;
\tnp->opt = board_slot_value(&pdev->dev, &foo_boards, board,
\t\t\t\t   options, 0);
\tfoo_setup(pdev, np, board);
\treturn 0;
}

static void foo_release(struct foo_priv *np)
{
\tboard_slot_release(&foo_boards, np->board);
}

static void foo_remove(struct pci_dev *pdev)
{
\tstruct foo_priv *np = pci_get_drvdata(pdev);

\tunregister_netdev(dev);
\tfoo_release(np);
}

static struct pci_driver foo_driver = {
\t.name = "foo",
\t.probe = foo_probe,
\t.remove = foo_remove,
};
"""

# A driver that numbers what it does not bind: tuner-simple's tuners,
# shared by a card's analog and digital sides, numbered by hand from the
# attach that creates one to the release of its last user.
TUNER = """\
#include <linux/device/board_numbers.h>

#define MAX_TUNERS 64
static unsigned int atv_input[MAX_TUNERS];

DEFINE_STATIC_BOARD_NUMBERS(bar_tuners, MAX_TUNERS,
\t\t\t    "a reload of bar with its parameters");

struct bar_priv {
\tunsigned int nr;
\tstruct device *dev;
};

static unsigned int bar_rf_input(struct bar_priv *priv)
{
\treturn board_slot_value(priv->dev, &bar_tuners, priv->nr, atv_input, 0);
}

static void bar_release(struct dvb_frontend *fe)
{
\tstruct bar_priv *priv = fe->tuner_priv;
\tunsigned int nr = priv->nr;

\tif (!bar_put_state(priv))
\t\tboard_number_put(&bar_tuners, nr);
}

static const struct dvb_tuner_ops bar_tuner_ops = {
\t.release = bar_release,
};

struct dvb_frontend *bar_attach(struct dvb_frontend *fe)
{
\tstruct bar_priv *priv = fe->tuner_priv;
\tint nr;

\tnr = board_number_get(&bar_tuners);
\tif (nr < 0)
\t\treturn NULL;
\tpriv->nr = nr;
\tbar_rf_input(priv);
\treturn fe;
}
"""

class OutputTest(unittest.TestCase):
    """check() on recorded spatch output."""

    def check(self, stdout: str, code: int = 0) -> list[str]:
        done = subprocess.CompletedProcess([], code, stdout=stdout)
        with mock.patch.object(callsites, "run", return_value=done):
            return callsites.check(Path("/tree"), ["drivers/foo.c"])

    def test_silence_is_a_pass(self) -> None:
        self.assertEqual(self.check(""), [])

    def test_each_problem_line(self) -> None:
        out = ("init_defs_builtins: /usr/lib/coccinelle/standard.h\n"
               "callsites: foo.c:30: foo_probe() looks up foo_boards with board + 1, "
               "not the number the board was given\n"
               "callsites: foo_boards: no board_slot_release(): remove() never "
               "spends the slot\n")
        self.assertEqual(len(self.check(out)), 2)
        self.assertIn("board + 1", self.check(out)[0])

    def test_spatch_failing_is_a_problem_not_a_pass(self) -> None:
        problems = self.check("Fatal error: exception Failure(\"parse\")\n", code=2)
        self.assertEqual(len(problems), 1)
        self.assertIn("spatch failed (exit 2)", problems[0])


@unittest.skipUnless(shutil.which("spatch"), "Debian's coccinelle is not installed")
class RuleTest(unittest.TestCase):
    """callsites.cocci itself, on the driver above and on broken copies."""

    def problems(self, text: str) -> list[str]:
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "foo.c").write_text(text)
            return callsites.check(Path(tmp), ["foo.c"])

    def test_right_driver_passes(self) -> None:
        self.assertEqual(self.problems(DRIVER), [])

    def test_lookup_with_another_number(self) -> None:
        broken = DRIVER.replace("&foo_boards, board,\n", "&foo_boards, board + 1,\n")
        self.assertIn("foo_probe() looks up foo_boards with board + 1",
                      " ".join(self.problems(broken)))

    def test_number_passed_down_wrong(self) -> None:
        """The argument of a helper's every call is checked too."""
        broken = DRIVER.replace("foo_setup(pdev, np, board);", "foo_setup(pdev, np, 0);")
        self.assertIn("foo_setup() looks up foo_boards with unit",
                      " ".join(self.problems(broken)))

    def test_number_stored_wrong(self) -> None:
        broken = DRIVER.replace("np->board = board;", "np->board = 0;")
        self.assertIn("releases foo_boards with np -> board", " ".join(self.problems(broken)))

    def test_remove_without_release(self) -> None:
        broken = DRIVER.replace("\tfoo_release(np);\n", "")
        self.assertIn("a remove() callback, does not reach board_slot_release()",
                      " ".join(self.problems(broken)))

    def test_tuner_numbered_by_hand_passes(self) -> None:
        self.assertEqual(self.problems(TUNER), [])

    def test_tuner_released_with_another_number(self) -> None:
        broken = TUNER.replace("board_number_put(&bar_tuners, nr);",
                               "board_number_put(&bar_tuners, 0);")
        self.assertIn("releases bar_tuners with 0", " ".join(self.problems(broken)))

    def test_tuner_release_that_does_not_put(self) -> None:
        broken = TUNER.replace("\tif (!bar_put_state(priv))\n\t\tboard_number_put(&bar_tuners, nr);\n",
                               "\tbar_put_state(priv);\n")
        self.assertIn("no board_slot_release() or board_number_put()",
                      " ".join(self.problems(broken)))

    def test_no_release_at_all(self) -> None:
        broken = DRIVER.replace("\tboard_slot_release(&foo_boards, np->board);\n", "")
        self.assertIn("no board_slot_release()", " ".join(self.problems(broken)))


if __name__ == "__main__":
    unittest.main()
