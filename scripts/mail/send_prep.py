# SPDX-License-Identifier: GPL-2.0
"""Turn the sets in patches/BASE/ into mail from a real person.

  python3 -m mail.send_prep        (make send-prep; KERNEL= picks the base)

The patches in the repository carry the project's placeholder identity,
which is not a person: the DCO needs the sign-off of whoever sends them.
This writes every set of patches/BASE/series to build/BASE/outgoing/SET/
with the author (From:) and the placeholder's Signed-off-by: replaced by
the sender, taken from git's user.name and user.email, and threads each
set as git send-email would (Message-Id:, In-Reply-To: the cover letter).
It refuses to write anything when git has no identity, when the identity
is the placeholder (or any address in a domain reserved for examples:
.invalid, .example, .test, example.com, ...), and when the placeholder
is left anywhere in what it wrote.

b4 (Debian 12 ships 0.12) then checks each set as a maintainer takes it:
b4 am reads the set's mbox, checks its trailers and writes the series as
git am input, and git am applies that to the base and the sets before it
in a scratch worktree. b4 send is not used: in 0.12 it sends only from
branches made with b4 prep. Send the files with git send-email.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
from pathlib import Path

from lib import sets
from lib.common import Config, Failure, config, log, main_guard, run

PLACEHOLDER_NAME = "Board Numbers Team"
PLACEHOLDER_EMAIL = "board-numbers@lists.invalid"
# Top-level domains reserved for examples and tests (RFC 2606, 6761): no
# person signs off from there.
RESERVED = ("invalid", "example", "test", "localhost")


def out_dir(cfg: Config) -> Path:
    """build/BASE/outgoing: the sets as mail, one directory and mbox each."""
    return cfg.build / "outgoing"


def sender(cfg: Config) -> tuple[str, str]:
    """git's user.name and user.email (as the tree sees them), refused
    when missing or not a person."""
    def git_config(key: str) -> str:
        proc = run(["git", "config", key], cwd=cfg.tree, capture=True, check=False)
        return proc.stdout.strip() if proc.returncode == 0 else ""

    name, email = git_config("user.name"), git_config("user.email")
    if not name or not email:
        raise Failure("git has no user.name or user.email: set them to the "
                      "person who signs the patches off (git config --global "
                      "user.name 'Your Name'; ... user.email you@example.org)")
    domain = email.rsplit("@", 1)[-1].lower()
    if (name == PLACEHOLDER_NAME or email == PLACEHOLDER_EMAIL
            or domain.split(".")[-1] in RESERVED
            or domain in ("example.com", "example.net", "example.org")):
        raise Failure(f"git's identity is {name} <{email}>, a placeholder "
                      "(the repository's, or an address in a domain reserved "
                      "for examples), not a person: the DCO needs a real "
                      "sign-off; set git config user.name and user.email")
    if not re.fullmatch(r"[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+", email):
        raise Failure(f"git's user.email {email!r} is not a mail address")
    return name, email


def names_placeholder(text: str) -> bool:
    """Whether @text still names the placeholder identity, by its name or
    by its address alone."""
    return PLACEHOLDER_EMAIL in text or PLACEHOLDER_NAME in text


def rewrite(text: str, who: str) -> str:
    """@text with the placeholder's From: and Signed-off-by: made @who's,
    and no second sign-off when @who had signed off already."""
    placeholder = f"{PLACEHOLDER_NAME} <{PLACEHOLDER_EMAIL}>"
    text = text.replace(f"From: {placeholder}\n", f"From: {who}\n")
    # A cover letter's shortlog names the author: "Name (N):".
    name = who.rsplit(" <", 1)[0]
    text = re.sub(rf"^{re.escape(PLACEHOLDER_NAME)} (\(\d+\):)$", rf"{name} \1",
                  text, flags=re.M)
    lines, seen = [], set()
    for line in text.split("\n"):
        if line == f"Signed-off-by: {placeholder}":
            line = f"Signed-off-by: {who}"
        if line.startswith("Signed-off-by: "):
            if line in seen:
                continue
            seen.add(line)
        elif line == "---":
            seen = set()  # the next mail of an mbox, or the diff
        lines.append(line)
    return "\n".join(lines)


def thread(text: str, msgid: str, reply_to: str) -> str:
    """@text's headers, unfolded, with Message-Id: and, for a patch,
    In-Reply-To: and References: the cover letter, as git send-email
    threads a set."""
    head, sep, body = text.partition("\n\n")
    # Headers unfolded (lines up to 998 characters are allowed): b4 0.12's
    # am breaks on a folded Subject: read from a local mbox.
    head = re.sub(r"\n[ \t]+", " ", head)
    head += f"\nMessage-Id: <{msgid}>"
    if reply_to:
        head += f"\nIn-Reply-To: <{reply_to}>\nReferences: <{reply_to}>"
    return head + sep + body


# A cover letter line that starts so names work left before the set can
# go out (a tag still to look up, say): send-prep refuses the set.
OPEN = re.compile(r"^Open before sending:.*$", re.M)


def unfinished(text: str) -> str:
    """Why the mail @text cannot go out yet, or "" when it can."""
    if "*** SUBJECT HERE ***" in text or "*** BLURB HERE ***" in text:
        return "it has no subject or blurb yet: run 'make cover-letter' first"
    match = OPEN.search(text)
    if match:
        return f"it says what is left to do: {match.group(0)!r}"
    return ""


def prepare_set(cfg: Config, pset: sets.PatchSet, who: str, domain: str) -> Path:
    """Write @pset's mails; the set's mbox (cover letter first)."""
    out = out_dir(cfg) / pset.dir
    out.mkdir(parents=True)
    names = [pset.cover, *pset.patches]
    stamp = hashlib.sha256("".join((cfg.patches / n).read_text() for n in names)
                           .encode()).hexdigest()[:16]
    cover_id = f"{pset.dir}-0-{stamp}@{domain}"
    mails = []
    for index, name in enumerate(names):
        text = (cfg.patches / name).read_text()
        why = unfinished(text)
        if why:
            shutil.rmtree(out_dir(cfg))
            raise Failure(f"{name} cannot be sent: {why}; nothing was written")
        text = rewrite(text, who)
        msgid = cover_id if index == 0 else f"{pset.dir}-{index}-{stamp}@{domain}"
        text = thread(text, msgid, "" if index == 0 else cover_id)
        (out / Path(name).name).write_text(text)
        mails.append(text)
    for path in out.iterdir():
        text = path.read_text()
        if names_placeholder(text):
            shutil.rmtree(out_dir(cfg))
            raise Failure(f"{path} still names the placeholder identity; "
                          "nothing was written")
    mbox = out.with_suffix(".mbox")
    mbox.write_text("".join(m if m.endswith("\n") else m + "\n" for m in mails))
    return mbox


def b4_check(cfg: Config, pset: sets.PatchSet, mbox: Path, work: Path,
             env: dict[str, str]) -> str:
    """b4 am on @mbox, then git am of what it wrote in @work; a summary."""
    am_dir = out_dir(cfg) / f"{pset.dir}.b4"
    am_dir.mkdir()
    proc = run(["b4", "--offline-mode", "am", "--no-cover", "-m", str(mbox),
                "-o", str(am_dir)], cwd=cfg.tree, capture=True, check=False)
    written = sorted(am_dir.glob("*.mbx")) if am_dir.is_dir() else []
    if proc.returncode != 0 or not written:
        raise Failure(f"b4 am could not read {mbox}:\n{proc.stdout}")
    if re.search(r"^\s*(✗|x) ", proc.stdout, re.M) or "ERROR" in proc.stdout:
        raise Failure(f"b4 am found problems in {mbox}:\n{proc.stdout}")
    applied = run(["git", "am", "-q", str(written[0])], cwd=work, capture=True,
                  check=False, env=env)
    if applied.returncode != 0:
        run(["git", "am", "--abort"], cwd=work, check=False, capture=True)
        raise Failure(f"{pset.dir} does not apply after the sets before it:\n"
                      f"{applied.stdout}")
    return f"b4 am read {len(pset.patches)} patches, git am applied them"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args()
    cfg = config()
    name, email = sender(cfg)
    who = f"{name} <{email}>"
    out = out_dir(cfg)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    work = out / "linux"
    run(["git", "worktree", "prune"], cwd=cfg.tree)
    run(["git", "worktree", "add", "-q", "--detach", str(work), "base"], cwd=cfg.tree,
        capture=True)
    # git am commits as the sender, without touching any git config.
    committer = {"GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    try:
        for pset in sets.read(cfg.series):
            mbox = prepare_set(cfg, pset, who, email.split("@", 1)[1])
            log(f"{pset.dir}: {len(pset.patches)} patches from {who}; "
                f"{b4_check(cfg, pset, mbox, work, committer)}")
    finally:
        run(["git", "worktree", "remove", "--force", str(work)], cwd=cfg.tree,
            check=False, capture=True)
    log(f"the sets are in {out}/: send each directory with git send-email, "
        "in the order of patches/ series")
    return 0


if __name__ == "__main__":
    main_guard(main)
