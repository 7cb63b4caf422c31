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
static int mtu[MAX_UNITS];
static int num_mtu;

DEFINE_STATIC_BOARD_NUMBERS(foo_boards, MAX_UNITS);

struct foo_priv {
\tunsigned int board;
};

static void foo_setup(struct pci_dev *pdev, struct foo_priv *np, int unit)
{
\tnp->fdx = board_slot_value(&pdev->dev, &foo_boards, unit,
\t\t\t\t   full_duplex, 0);
}

static void foo_mtu(struct pci_dev *pdev, struct foo_priv *np)
{
\tif (board_param_applies(&pdev->dev, &foo_boards, np->board, mtu,
\t\t\t\tnum_mtu))
\t\tnp->mtu = mtu[np->board];
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
\tfoo_mtu(pdev, np);
\treturn 0;
}

static struct pci_driver foo_driver = {
\t.name = "foo",
\t.probe = foo_probe,
};
"""

# A driver that numbers what it does not bind: tuner-simple's tuners,
# shared by a card's analog and digital sides, numbered by hand from the
# attach that creates one to the release of its last user.
TUNER = """\
#include <linux/device/board_numbers.h>

#define MAX_TUNERS 64
static unsigned int atv_input[MAX_TUNERS];

DEFINE_STATIC_BOARD_NUMBERS(bar_tuners, MAX_TUNERS);

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

struct dvb_frontend *bar_attach(struct dvb_frontend *fe, const char *name)
{
\tstruct bar_priv *priv = fe->tuner_priv;
\tint nr;

\tnr = board_number_get(&bar_tuners, name);
\tif (nr < 0)
\t\treturn NULL;
\tpriv->nr = nr;
\tbar_rf_input(priv);
\treturn fe;
}
"""

# A board with no struct device, numbered by hand for as long as the
# module is loaded, its number kept in a static variable (3c59x's Compaq
# board).
STATIC = """\
#include <linux/device/board_numbers.h>

static int options[8];

DEFINE_STATIC_BOARD_NUMBERS(baz_boards, 8);

static int baz_board = -1;

static int __init baz_init(void)
{
\tbaz_board = board_number_get(&baz_boards, "baz-isa");
\tif (baz_board >= 0)
\t\tbaz_probe1(NULL, board_slot_value(NULL, &baz_boards, baz_board,
\t\t\t\t\t\t options, -1));
\treturn 0;
}

static void __exit baz_exit(void)
{
\tif (baz_board >= 0)
\t\tboard_number_put(&baz_boards, baz_board);
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
               "callsites: foo_boards: no board_number_put(): a number taken "
               "with board_number_get() is never given back\n")
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
        self.assertIn("foo_mtu() looks up foo_boards with np -> board",
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
        self.assertIn("no board_number_put()", " ".join(self.problems(broken)))

    def test_tuner_numbered_through_a_wrapper_passes(self) -> None:
        wrapped = TUNER.replace(
            "struct dvb_frontend *bar_attach(",
            "static int bar_number(const char *name)\n{\n"
            "\treturn board_number_get(&bar_tuners, name);\n}\n\n"
            "struct dvb_frontend *bar_attach(").replace(
            "\tnr = board_number_get(&bar_tuners, name);", "\tnr = bar_number(name);")
        self.assertEqual(self.problems(wrapped), [])
        broken = wrapped.replace("board_number_put(&bar_tuners, nr);",
                                 "board_number_put(&bar_tuners, 0);")
        self.assertIn("releases bar_tuners with 0", " ".join(self.problems(broken)))

    def test_number_in_a_static_variable_passes(self) -> None:
        self.assertEqual(self.problems(STATIC), [])

    def test_static_variable_put_with_another_number(self) -> None:
        broken = STATIC.replace("board_number_put(&baz_boards, baz_board);",
                                "board_number_put(&baz_boards, 1);")
        self.assertIn("releases baz_boards with 1", " ".join(self.problems(broken)))


if __name__ == "__main__":
    unittest.main()
