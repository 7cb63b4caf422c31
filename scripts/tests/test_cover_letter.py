# SPDX-License-Identifier: GPL-2.0
"""series.tree.split_cover() and cover_text() on copies of the cover
letter: test_data/cover-letter.patch is patches/0000-cover-letter.patch
with its blurb, shortlog and diffstat trimmed; cover-letter-no-shortlog.patch
is a letter with a folded Subject and no recipients or shortlog."""

from __future__ import annotations

import unittest
from pathlib import Path

from series import tree

DATA = Path(__file__).parent / "test_data"


class SplitCoverTest(unittest.TestCase):
    """split_cover(): headers, recipients, blurb, shortlog."""

    def setUp(self) -> None:
        self.text = (DATA / "cover-letter.patch").read_text()
        self.head, self.recipients, self.blurb, self.rest = tree.split_cover(self.text)

    def test_header_without_recipients(self) -> None:
        """The header keeps From, Date and Subject, and no To/Cc line or
        any of their folded continuation lines."""
        lines = self.head.splitlines()
        self.assertTrue(lines[0].startswith("From 0000000000000000000000000000000000000000 "))
        self.assertEqual([line.split(":")[0] for line in lines[1:]],
                         ["From", "Date", "Subject"])
        self.assertTrue(lines[3].startswith("Subject: [PATCH net-next 00/50] net: "))
        self.assertNotIn("@", self.head.replace("board-numbers@lists.invalid", ""))

    def test_recipients_with_continuations(self) -> None:
        """To: and Cc: come out with every folded line, as in the letter."""
        lines = self.recipients.splitlines()
        self.assertTrue(lines[0].startswith("To: Jonathan Corbet <corbet@lwn.net>,"))
        cc = next(i for i, line in enumerate(lines) if line.startswith("Cc: "))
        self.assertEqual(lines[cc - 1], "    Hans de Goede <hdegoede@redhat.com>")
        self.assertEqual(lines[-1], "    linux-parisc@vger.kernel.org")
        self.assertTrue(all(line.startswith(("To: ", "Cc: ", "    ")) for line in lines))
        self.assertEqual(len(lines), 25)
        self.assertTrue(self.recipients.endswith("\n"))
        # Nothing lost, nothing doubled: header, recipients and body make
        # up the letter.
        self.assertEqual(self.head + "\n" + self.recipients + "\n" +
                         self.blurb + "\n\n" + self.rest, self.text)

    def test_blurb(self) -> None:
        """The blurb is the body up to the shortlog, without the blank
        lines before it."""
        self.assertTrue(self.blurb.startswith("Many network drivers number"))
        self.assertTrue(self.blurb.endswith("[... trimmed for the harness tests ...]"))
        self.assertNotIn("Board Numbers Team (50):", self.blurb)

    def test_shortlog_part(self) -> None:
        """The rest runs from "Author (N):" on, with the diffstat."""
        self.assertTrue(self.rest.startswith("Board Numbers Team (50):\n  driver core: "))
        self.assertIn("72 files changed", self.rest)

    def test_no_shortlog(self) -> None:
        """A letter without a shortlog: no recipients, the whole body is the
        blurb, and the shortlog part is empty; parentheses in the blurb
        are not an "Author (N):" line."""
        text = (DATA / "cover-letter-no-shortlog.patch").read_text()
        head, recipients, blurb, rest = tree.split_cover(text)
        self.assertEqual(recipients, "")
        self.assertEqual(rest, "")
        self.assertTrue(head.endswith("Subject: [PATCH net-next 00/50] net: give board "
                                      "numbers back when a\n board goes away"))
        self.assertTrue(blurb.startswith("A blurb and nothing else"))
        self.assertTrue(blurb.endswith("\"Author (N):\" line."))


class CoverTextTest(unittest.TestCase):
    """cover_text(): what export carries over from a set's cover letter."""

    def test_folded_subject(self) -> None:
        """The subject comes without its prefix, a folded one on one line."""
        subject, blurb, recipients = tree.cover_text(DATA / "cover-letter-no-shortlog.patch")
        self.assertEqual(subject, "net: give board numbers back when a board goes away")
        self.assertTrue(blurb.startswith("A blurb"))
        self.assertEqual(recipients, "")

    def test_recipients_carried(self) -> None:
        """The real letter's recipients and blurb are carried over."""
        subject, blurb, recipients = tree.cover_text(DATA / "cover-letter.patch")
        self.assertEqual(subject, "net: give board numbers back when a board goes away")
        self.assertIn("Cc: Tony Nguyen", recipients)
        self.assertTrue(blurb.startswith("Many network drivers"))

    def test_no_letter(self) -> None:
        """Without a cover letter, git format-patch's placeholders stay."""
        self.assertEqual(tree.cover_text(DATA / "absent.patch"),
                         ("*** SUBJECT HERE ***", "*** BLURB HERE ***", ""))


if __name__ == "__main__":
    unittest.main()


class RewrapTest(unittest.TestCase):
    """mail/cover_letter.py's rewrap(): a filled paragraph that outgrew
    the line is wrapped again, and a heading above it stays a heading."""

    def test_heading_kept(self) -> None:
        from mail.cover_letter import WIDTH, rewrap
        text = "The set\n-------\n" + "word " * 30 + "\nend"
        lines = rewrap(text).splitlines()
        self.assertEqual(lines[:2], ["The set", "-------"])
        self.assertTrue(all(len(line) <= WIDTH for line in lines))
        self.assertEqual(" ".join(lines[2:]).split(), ("word " * 30 + "end").split())

    def test_short_paragraph_untouched(self) -> None:
        from mail.cover_letter import rewrap
        self.assertEqual(rewrap("a\nb"), "a\nb\n")
