# SPDX-License-Identifier: GPL-2.0
"""The submission path: lib.sets reading a series as sets, checks.patchwork's
per-patch checks, mail.cover_letter's per-base templates, and
mail.send_prep's sender and rewrite, on small inputs written here and
on test_data/cover-letter.patch."""

from __future__ import annotations

import os
import unittest
from pathlib import Path
from unittest import mock

from checks import patchwork
from lib import sets
from lib.common import Failure, config
from mail import cover_letter, send_prep

DATA = Path(__file__).parent / "test_data"
SERIES = """# preamble
# == 1-net-fixes [PATCH net]: a fix
# free comment
1-net-fixes/0001-a.patch

# == 2-next [PATCH net-next]: the rest
2-next/0001-b.patch
2-next/0002-c.patch
"""
PLACEHOLDER = "Board Numbers Team <board-numbers@lists.invalid>"


def mail(subject: str, message: str, author: str = PLACEHOLDER) -> patchwork.Mail:
    return patchwork.Mail(author, subject, f"From: {author}\nSubject: {subject}",
                          message)


class SetsTest(unittest.TestCase):
    def test_sets_in_order(self) -> None:
        parsed = sets.parse(SERIES)
        self.assertEqual([(s.dir, s.prefix, len(s.patches)) for s in parsed],
                         [("1-net-fixes", "PATCH net", 1), ("2-next", "PATCH net-next", 2)])
        self.assertTrue(parsed[0].is_fixes)
        self.assertFalse(parsed[1].is_fixes)
        self.assertEqual(parsed[1].cover, "2-next/0000-cover-letter.patch")

    def test_fixes_set_by_directory(self) -> None:
        """A set of fixes for a tree the prefix does not name (media) is
        one by its directory; a plain set is not."""
        parsed = sets.parse("# == 3-media-fixes [PATCH]: fixes\n"
                            "3-media-fixes/0001-a.patch\n"
                            "# == 4-media [PATCH]: the rest\n4-media/0001-b.patch\n")
        self.assertEqual([s.is_fixes for s in parsed], [True, False])

    def test_patch_outside_its_set_directory(self) -> None:
        with self.assertRaisesRegex(Failure, "not in the directory of its set"):
            sets.parse(SERIES.replace("2-next/0002-c.patch", "1-net-fixes/0002-c.patch"))

    def test_patch_before_any_set(self) -> None:
        with self.assertRaisesRegex(Failure, "before any set heading"):
            sets.parse("0001-a.patch\n" + SERIES)

    def test_malformed_heading(self) -> None:
        with self.assertRaisesRegex(Failure, "set heading reads"):
            sets.parse(SERIES.replace("# == 2-next [PATCH net-next]:", "# == 2-next:"))


class PatchworkTest(unittest.TestCase):
    def test_subject_prefix_and_number(self) -> None:
        good = mail("[PATCH net-next 2/3] net: x: y", "")
        self.assertEqual(patchwork.subject_problem(good, "PATCH net-next", 2, 3), "")
        self.assertIn("prefix [PATCH net]",
                      patchwork.subject_problem(mail("[PATCH net 2/3] x", ""),
                                                "PATCH net-next", 2, 3))
        self.assertIn("numbered 1/3, is 2 of 3",
                      patchwork.subject_problem(mail("[PATCH net-next 1/3] x", ""),
                                                "PATCH net-next", 2, 3))
        self.assertIn("no [PATCH net-next i/N]",
                      patchwork.subject_problem(mail("net: x", ""), "PATCH net-next", 1, 1))

    def test_fixes_only_in_fixes_sets_with_stable(self) -> None:
        fixed = ('Fixes: 1da177e4c3f4 ("Linux-2.6.12-rc2")\n'
                 "Cc: stable@vger.kernel.org\n")
        self.assertEqual(patchwork.fixes_problems(mail("x", fixed), True), ([], []))
        problems, _ = patchwork.fixes_problems(mail("x", fixed), False)
        self.assertEqual(problems, ["Fixes: and Cc: stable on a patch outside the fixes sets "
                                    "(net, iwl-net, DIR-fixes)"])
        tag_only = 'Fixes: 1da177e4c3f4 ("Linux-2.6.12-rc2")\n'
        problems, _ = patchwork.fixes_problems(mail("x", tag_only), False)
        self.assertEqual(problems, ["Fixes: outside the fixes sets, and the message does not "
                                    "say why it is not for stable"])
        said = "a behaviour change: net-next, not net and stable.\n\n" + tag_only
        self.assertEqual(patchwork.fixes_problems(mail("x", said), False),
                         ([], ["Fixes: in a -next set, not for stable (the message says why)"]))
        problems, _ = patchwork.fixes_problems(
            mail("x", 'Fixes: 1da177e4c3f4 ("Linux-2.6.12-rc2")\n'), True)
        self.assertEqual(problems, ["a fix with Fixes: but no Cc: stable@vger.kernel.org"])

    def test_fixes_format(self) -> None:
        for tag in ("Fixes: 1da177e4 (\"short id\")", "Fixes: 1da177e4c3f4 Linux",
                    "Fixes: 1da177e4c3f4 ('single quotes')"):
            problems, _ = patchwork.fixes_problems(
                mail("x", f"{tag}\nCc: stable@vger.kernel.org\n"), True)
            self.assertTrue(any(p.startswith("malformed tag") for p in problems), tag)

    def test_fix_without_tag_warns(self) -> None:
        self.assertEqual(patchwork.fixes_problems(mail("x", "no tag\n"), True),
                         ([], ["no Fixes: tag (netdev's patchwork warns)"]))

    def test_signoff_of_the_author(self) -> None:
        self.assertEqual(patchwork.signoff_problem(
            mail("x", f"text\n\nSigned-off-by: {PLACEHOLDER}\n")), "")
        self.assertIn("no Signed-off-by: of the author", patchwork.signoff_problem(
            mail("x", "text\n\nSigned-off-by: Someone Else <s@e.org>\n")))
        self.assertEqual(patchwork.signoff_problem(mail("x", "text\n")),
                         "no Signed-off-by:")

    def test_cover_words_stop_at_the_shortlog(self) -> None:
        """The recorded cover letter's words are counted up to its
        shortlog: the shortlog's subjects and the diffstat are not."""
        mail = patchwork.read_mail(DATA / "cover-letter.patch")
        blurb = mail.message.split("Board Numbers Team (")[0]
        self.assertEqual(patchwork.cover_words(mail.message), len(blurb.split()))
        self.assertLess(patchwork.cover_words(mail.message), len(mail.message.split()))

    def test_cover_words_over_the_limit(self) -> None:
        long = "word " * patchwork.MAX_COVER_WORDS + "\n\nA Person (2):\n  a: b\n"
        self.assertEqual(patchwork.cover_words(long), patchwork.MAX_COVER_WORDS)

    def test_read_mail_unfolds_the_subject(self) -> None:
        parsed = patchwork.read_mail(DATA / "cover-letter-no-shortlog.patch")
        self.assertTrue(parsed.subject.startswith("[PATCH net-next 00/50] net: give"))
        self.assertNotIn("\n", parsed.subject)


class CoverTemplateTest(unittest.TestCase):
    TEMPLATE = ("Subject: net: a set\nCc: netdev@vger.kernel.org\n\n"
                "On @BASE@, and\n[6.12]19 more drivers.\n[7.3]16 more drivers.\n")

    def test_lines_of_the_base_only(self) -> None:
        fields = {"BASE": lambda: "7.3.4"}
        subject, cc, blurb = cover_letter.render(self.TEMPLATE, fields, "7.3")
        self.assertEqual((subject, cc), ("net: a set", ["netdev@vger.kernel.org"]))
        self.assertEqual(blurb, "On 7.3.4, and\n16 more drivers.")
        _, _, blurb = cover_letter.render(self.TEMPLATE, {"BASE": lambda: "6.12.118"},
                                          "6.12")
        self.assertIn("19 more drivers.", blurb)
        self.assertNotIn("16", blurb)

    def test_fields_computed_only_when_used(self) -> None:
        def unavailable() -> str:
            raise Failure("no check-full results")
        fields = {"BASE": lambda: "7.3.4", "E2E_TABLE": unavailable}
        cover_letter.render(self.TEMPLATE, fields, "7.3")
        with self.assertRaisesRegex(Failure, "no check-full results"):
            cover_letter.render(self.TEMPLATE + "@E2E_TABLE@\n", fields, "7.3")

    def test_unknown_field(self) -> None:
        with self.assertRaisesRegex(Failure, "fields nothing fills: NOPE"):
            cover_letter.render(self.TEMPLATE + "@NOPE@\n", {"BASE": lambda: "x"}, "7.3")


class SendPrepTest(unittest.TestCase):
    def identity(self, name: str, email: str) -> tuple[str, str]:
        values = {"user.name": name, "user.email": email}

        def fake_run(cmd: list[str], **_: object) -> mock.Mock:
            value = values.get(cmd[-1], "")
            return mock.Mock(returncode=0 if value else 1, stdout=value + "\n")

        with mock.patch.object(send_prep, "run", fake_run):
            return send_prep.sender(config("7.3", {}))

    def test_placeholders_refused(self) -> None:
        for name, email in (("Board Numbers Team", "board-numbers@lists.invalid"),
                            ("Someone", "someone@lists.invalid"),
                            ("Seed", "maintainers@users.noreply.a-seed.example"),
                            ("Ex", "ex@example.com"), ("", "a@b.org"),
                            ("Name", ""),
                            # The placeholder's name with a real address,
                            # and its address under a real name.
                            ("Board Numbers Team", "team@kernel-dev.org"),
                            ("Ada Lovelace", send_prep.PLACEHOLDER_EMAIL)):
            with self.subTest(email=email), self.assertRaises(Failure):
                self.identity(name, email)

    def test_person_accepted(self) -> None:
        self.assertEqual(self.identity("Ada Lovelace", "ada@kernel-dev.org"),
                         ("Ada Lovelace", "ada@kernel-dev.org"))

    def test_placeholder_left_in_a_mail(self) -> None:
        """A mail that names the placeholder by its name or its address
        alone is caught; one rewritten for a person is not."""
        self.assertTrue(send_prep.names_placeholder(f"From: {PLACEHOLDER}\n"))
        self.assertTrue(send_prep.names_placeholder(
            f"Cc: {send_prep.PLACEHOLDER_EMAIL}\n"))
        self.assertTrue(send_prep.names_placeholder(
            f"Signed-off-by: {send_prep.PLACEHOLDER_NAME} <ada@kernel-dev.org>\n"))
        self.assertFalse(send_prep.names_placeholder(
            "From: Ada Lovelace <ada@kernel-dev.org>\n"))

    def test_rewrite(self) -> None:
        text = (DATA / "cover-letter.patch").read_text()
        who = "Ada Lovelace <ada@kernel-dev.org>"
        out = send_prep.rewrite(text, who)
        self.assertNotIn("board-numbers@lists.invalid", out)
        self.assertNotIn("Board Numbers Team", out)
        self.assertIn(f"From: {who}\n", out)
        self.assertIn("Ada Lovelace (50):", out)
        patch = (f"From: {PLACEHOLDER}\nSubject: x\n\nmsg\n\n"
                 f"Signed-off-by: {who}\nSigned-off-by: {PLACEHOLDER}\n---\n diff\n")
        out = send_prep.rewrite(patch, who)
        self.assertEqual(out.count(f"Signed-off-by: {who}"), 1)

    def test_unfinished_mail_refused(self) -> None:
        """A cover letter without its text, or one that still names work
        left before sending, is refused; a finished one is not."""
        text = (DATA / "cover-letter.patch").read_text()
        self.assertEqual(send_prep.unfinished(text), "")
        self.assertIn("no subject", send_prep.unfinished(
            text + "\n*** BLURB HERE ***\n"))
        self.assertIn("left to do", send_prep.unfinished(
            text.replace("\n\n", "\n\nOpen before sending: the Fixes: id.\n", 1)))
        # Only at the start of a line: prose about it is not an open item.
        self.assertEqual(send_prep.unfinished(
            text + "\nnothing is Open before sending: here\n"), "")

    def test_thread(self) -> None:
        out = send_prep.thread("From: a\nSubject: [PATCH 1/2] a\n long\n\nbody\n",
                               "id-1@x.org", "id-0@x.org")
        self.assertIn("Subject: [PATCH 1/2] a long\n", out)
        self.assertIn("Message-Id: <id-1@x.org>\nIn-Reply-To: <id-0@x.org>\n"
                      "References: <id-0@x.org>\n\nbody", out)


if __name__ == "__main__":
    os.environ.setdefault("KERNEL", "6.12")
    unittest.main()
