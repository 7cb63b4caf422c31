# SPDX-License-Identifier: GPL-2.0
"""Build the small guest kernel for the QEMU hot-plug runs.

  guest.kernel [--flavour patched|plain|patched,plain] [--variant debug]

tinyconfig plus qemu-configs/guest.config (and qemu-configs/VARIANT.config
for a variant), in build/guest-FLAVOUR[-VARIANT], with its modules
installed in build/guest-FLAVOUR[-VARIANT]/modules for the initramfs. The
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
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from lib.common import (
    REPO, Config, Failure, config, jobs, kunitconfigs, locked, log, main_guard, run
)

CONFIGS = REPO / "qemu-configs"
FRAGMENT = CONFIGS / "guest.config"


def variant_args(variant: str | None) -> tuple[list[str], list[str]]:
    """Kernel and QEMU arguments a guest of @variant boots with."""
    if not variant:
        return [], []
    # KASAN's shadow and kmemleak's pool need more than the 256 MiB.
    # acpi=noirq: under the checkers, ACPICA runs the i440fx _PRT method
    # for over 30 s and gives up (AE_AML_LOOP_TIMEOUT), leaving every NIC
    # without an interrupt; the BIOS's $PIR table routes them instead.
    return ["acpi=noirq"], ["-m", "1024"]


@dataclass(frozen=True)
class GuestKernel:
    # The O= directory the kernel was built in (kunit.py exec runs it there).
    build_dir: Path
    image: Path
    # Root of the installed modules: lib/modules/RELEASE/ under it.
    modules: Path
    release: str


def fragments(flavour: str, variant: str | None) -> list[Path]:
    """The config fragments of a guest kernel, merged in this order onto
    tinyconfig. The patched kernel also has the series' KUnit suites
    (.kunitconfig), off at boot (guest.config says why): checks.kunit runs
    them on this same kernel, so that make check builds one kernel per
    flavour and base, not a KUnit kernel besides. The plain base has no
    such suites."""
    extra = [CONFIGS / f"{variant}.config"] if variant else []
    for frag in extra:
        if not frag.is_file():
            raise Failure(f"no such guest kernel variant: {frag}")
    suites = kunitconfigs() if flavour == "patched" else []
    return [FRAGMENT, *suites, *extra]


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
    run(["make", "ARCH=x86_64", f"O={out}", f"-j{jobs()}", *targets],
        cwd=src, capture=True)


def source(cfg: Config, flavour: str) -> Path:
    """The source tree of a flavour: the series, or the plain base."""
    if flavour == "patched":
        return cfg.tree
    if flavour != "plain":
        raise Failure(f"unknown guest kernel flavour {flavour!r}")
    plain = cfg.build / "plain" / "linux"
    base = run(["git", "rev-parse", "base"], cwd=cfg.tree, capture=True).stdout.strip()
    head = run(["git", "rev-parse", "HEAD"], cwd=plain, capture=True,
               check=False).stdout.strip() if (plain / ".git").exists() else ""
    if head != base:
        # Missing, or left from a tree unpacked from another tarball.
        run(["rm", "-rf", str(plain)])
        run(["git", "worktree", "prune"], cwd=cfg.tree)
        run(["git", "worktree", "add", "-q", "--detach", str(plain), "base"],
            cwd=cfg.tree, capture=True)
    return plain


def configure(src: Path, out: Path, frags: list[Path]) -> None:
    """tinyconfig + fragments, redone only when a fragment changes."""
    stamp = out / ".guest-config-stamp"
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in frags)).hexdigest()
    config = out / ".config"
    if config.is_file() and stamp.is_file() and stamp.read_text() == digest:
        return
    names = " + ".join(str(f.relative_to(REPO)) for f in frags)
    log(f"configuring {out.name}: tinyconfig + {names}")
    out.mkdir(parents=True, exist_ok=True)
    make(src, out, "tinyconfig")
    run(["scripts/kconfig/merge_config.sh", "-m", "-O", str(out),
         str(config), *map(str, frags)], cwd=src, capture=True)
    make(src, out, "olddefconfig")
    wanted: dict[str, str] = {}
    for frag in frags:
        wanted.update(requested(frag))
    lost = missing(config, wanted)
    if lost:
        raise Failure("guest config lost requested symbols after olddefconfig "
                      "(missing dependencies?):\n  " + "\n  ".join(lost))
    stamp.write_text(digest)


def build(cfg: Config, flavour: str = "patched", variant: str | None = None) -> GuestKernel:
    """The guest kernel of @flavour and @variant on @cfg's base, built or
    brought up to date; one build at a time, as stages that run side by
    side ask for the same kernels."""
    with locked("guest-kernel", cfg):
        return _build(cfg, flavour, variant)


def _build(cfg: Config, flavour: str, variant: str | None) -> GuestKernel:
    src = source(cfg, flavour)
    # Beside its source tree, as build/guest-patched is beside build/linux,
    # so that ccache sees the same relative paths (see common.py).
    out = src.parent / f"guest-{flavour}" if not variant else \
        src.parent / f"guest-{flavour}-{variant}"
    configure(src, out, fragments(flavour, variant))
    log(f"building the {flavour}{f' {variant}' if variant else ''} guest kernel "
        f"in {out.relative_to(REPO)}")
    make(src, out, "bzImage", "modules")
    image = out / "arch" / "x86" / "boot" / "bzImage"
    if not image.is_file():
        raise Failure(f"no kernel image at {image}")
    modules = out / "modules"
    # Installed afresh each time, so that no module of an older build stays.
    shutil.rmtree(modules, ignore_errors=True)
    make(src, out, f"INSTALL_MOD_PATH={modules}", "INSTALL_MOD_STRIP=1",
         "modules_install")
    release = (out / "include" / "config" / "kernel.release").read_text().strip()
    return GuestKernel(out, image, modules, release)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--flavour", default="patched",
                        help="patched, plain, or both as patched,plain")
    parser.add_argument("--variant")
    args = parser.parse_args()
    cfg = config()
    for flavour in args.flavour.split(","):
        began = time.monotonic()
        image = build(cfg, flavour, args.variant).image
        log(f"{image.relative_to(REPO)} ready in {time.monotonic() - began:.0f}s")
    return 0


if __name__ == "__main__":
    main_guard(main)
