#!/usr/bin/env python3
"""Build the small guest kernel for the QEMU hot-plug runs.

  guest_kernel.py [--flavour patched|plain]

tinyconfig plus qemu-configs/guest.config, in build/guest-FLAVOUR. The
patched kernel comes from the prepared tree (branch series); the plain
one, the negative control, from the same base commit checked out in a
worktree of its own (build/plain/linux, built in build/plain/guest-plain),
so the patched tree is never switched and both build incrementally. Like kunit.py, it checks after
olddefconfig that every symbol the fragment asks for survived, and fails
naming the ones that did not. ccache and the kept build directory make
the next build incremental.
"""

from __future__ import annotations

import argparse
import hashlib
import re
from pathlib import Path

from common import BUILD, REPO, TREE, Failure, jobs, log, main_guard, run

FRAGMENT = REPO / "qemu-configs" / "guest.config"


def requested(fragment: Path) -> dict[str, str]:
    wanted = {}
    for line in fragment.read_text().splitlines():
        m = re.match(r"^(CONFIG_\w+)=(.*)$", line.strip())
        if m:
            wanted[m.group(1)] = m.group(2)
        elif re.match(r"^# (CONFIG_\w+) is not set$", line.strip()):
            wanted[line.split()[1]] = "n"
    return wanted


def missing(config: Path, wanted: dict[str, str]) -> list[str]:
    have = {}
    for line in config.read_text().splitlines():
        m = re.match(r"^(CONFIG_\w+)=(.*)$", line)
        if m:
            have[m.group(1)] = m.group(2)
    return [f"{sym}={val} (got {have.get(sym, 'n')})"
            for sym, val in wanted.items() if have.get(sym, "n") != val]


def make(src: Path, out: Path, *targets: str) -> None:
    run(["make", "ARCH=x86_64", f"O={out}", f"-j{jobs()}", "CC=ccache gcc",
         *targets], cwd=src, capture=True)


def source(flavour: str) -> Path:
    """The source tree of a flavour: the series, or the plain base."""
    if flavour == "patched":
        return TREE
    if flavour != "plain":
        raise Failure(f"unknown guest kernel flavour {flavour!r}")
    plain = BUILD / "plain" / "linux"
    base = run(["git", "rev-parse", "base"], cwd=TREE, capture=True).stdout.strip()
    head = run(["git", "rev-parse", "HEAD"], cwd=plain, capture=True,
               check=False).stdout.strip() if (plain / ".git").exists() else ""
    if head != base:
        # Missing, or left from a tree unpacked from another tarball.
        run(["rm", "-rf", str(plain)])
        run(["git", "worktree", "prune"], cwd=TREE)
        run(["git", "worktree", "add", "-q", "--detach", str(plain), "base"],
            cwd=TREE, capture=True)
    return plain


def configure(src: Path, out: Path) -> None:
    """tinyconfig + fragment, redone only when the fragment changes."""
    stamp = out / ".guest-config-stamp"
    digest = hashlib.sha256(FRAGMENT.read_bytes()).hexdigest()
    config = out / ".config"
    if config.is_file() and stamp.is_file() and stamp.read_text() == digest:
        return
    log(f"configuring {out.name}: tinyconfig + {FRAGMENT.relative_to(REPO)}")
    out.mkdir(parents=True, exist_ok=True)
    make(src, out, "tinyconfig")
    run(["scripts/kconfig/merge_config.sh", "-m", "-O", str(out),
         str(config), str(FRAGMENT)], cwd=src, capture=True)
    make(src, out, "olddefconfig")
    lost = missing(config, requested(FRAGMENT))
    if lost:
        raise Failure("guest config lost requested symbols after olddefconfig "
                      "(missing dependencies?):\n  " + "\n  ".join(lost))
    stamp.write_text(digest)


def build(flavour: str = "patched") -> Path:
    src = source(flavour)
    # Beside its source tree, as build/guest-patched is beside build/linux,
    # so that ccache sees the same relative paths (see common.py).
    out = src.parent / f"guest-{flavour}"
    configure(src, out)
    log(f"building the {flavour} guest kernel in {out.relative_to(REPO)}")
    make(src, out, "bzImage")
    image = out / "arch" / "x86" / "boot" / "bzImage"
    if not image.is_file():
        raise Failure(f"no kernel image at {image}")
    return image


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--flavour", default="patched")
    args = parser.parse_args()
    print(build(args.flavour))
    return 0


if __name__ == "__main__":
    main_guard(main)
