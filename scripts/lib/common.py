# SPDX-License-Identifier: GPL-2.0
"""Paths and small helpers shared by the scripts.

Everything the scripts create lives under build/ (ignored by git): the
kernel tree, the build directories and the logs. The repository itself
only holds patches/ and the tooling around it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, NoReturn

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"


@dataclass(frozen=True)
class Base:
    """A kernel the series is kept for: a Debian package of its source."""

    name: str  # "7.3": make's KERNEL=, patches/7.3/, build/7.3/
    package: str  # the Debian package that installs the tarball
    suite: str  # the apt suite it comes from, added where it is missing
    upstream: bool  # the sets as sent upstream (netdev's 15-patch limit)
    role: str  # what the series on this base is for


# The default stays the base every target ran on before 7.3 existed.
BASES = {
    # Debian 12 publishes its 6.12 kernel only in the security suite,
    # which a minimal root (debootstrap) does not have in its sources.
    "6.12": Base("6.12", "linux-source-6.12", "bookworm-security", False,
                 "Debian 12's kernel: the distribution backport of the sets"),
    "7.3": Base("7.3", "linux-source-7.3", "trixie-backports", True,
                "the newest packaged kernel: the sets as sent upstream"),
}
KERNEL = os.environ.get("KERNEL", "6.12")
if KERNEL not in BASES:
    sys.exit(f"error: KERNEL={KERNEL} is not a base of the series; "
             f"bases: {', '.join(BASES)}")
BASE = BASES[KERNEL]
# Build output is per base, build/BASE/: each base has its own tree,
# kernels, logs and results; the gate's own record is in build/gate/.
# BOARD_NUMBERS_ROOT reads another build/ (a cold run made in a clean
# root); BOARD_NUMBERS_BUILD moves one base's directory (make mutants).
BUILD_ROOT = Path(os.environ.get("BOARD_NUMBERS_ROOT", REPO / "build"))
BUILD = Path(os.environ.get("BOARD_NUMBERS_BUILD", BUILD_ROOT / KERNEL))
TREE = BUILD / "linux"
PATCHES = REPO / "patches" / KERNEL
SERIES = PATCHES / "series"

# ccache keys on the compiler's command line, which holds absolute source
# paths. Relative to build/ they are the same in every clone, so a fresh CI
# clone reuses what an earlier one compiled, and the plain tree, laid out
# like the patched one (plain/linux beside plain/guest-plain), reuses the
# patched build for every file the series does not change.
os.environ.setdefault("CCACHE_BASEDIR", str(BUILD))
# Every kernel build goes through ccache by its masquerade directory, so
# that make sees plain "gcc" as the compiler. A build directory made by
# the gate is then the same as one made by a developer's own make or
# kunit.py command in it (the README's), which do not rebuild it.
CCACHE_BIN = Path("/usr/lib/ccache")
if CCACHE_BIN.is_dir() and str(CCACHE_BIN) not in os.environ["PATH"].split(":"):
    os.environ["PATH"] = f"{CCACHE_BIN}:{os.environ['PATH']}"
# Four kernels (KUnit, the debug KUnit, the bisect objects, two guests)
# with many objects each: more than ccache's default 5 GiB.
os.environ.setdefault("CCACHE_MAXSIZE", "30G")

# The packaged source the tree is made from; any point release of the base.
TARBALL = Path(os.environ.get("LINUX_TARBALL",
                              f"/usr/src/{BASE.package}.tar.xz"))


# The kernel's own reports of trouble; any of them on a console fails a run.
# kmemleak's are its scan results, not its start-up lines.
# "ACPI Error": a method that fails leaves devices half set up (an
# unrouted interrupt, a slot that does not eject) while the run goes on.
TROUBLE = re.compile(r"\b(BUG:|WARNING:|Oops|Call Trace:|KASAN:|ACPI Error|"
                     r"kmemleak: \d+ new suspected memory leak|"
                     r"unreferenced object|Kernel panic)")


class Failure(Exception):
    """An error with a message meant for the user, printed without a trace."""


def log(msg: str) -> None:
    print(f"==> {msg}", flush=True)


def run(cmd: list[str], cwd: Path | None = None, check: bool = True,
        capture: bool = False, env: dict[str, str] | None = None,
        timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """Run a command; with capture, stdout and stderr come back merged."""
    full_env = dict(os.environ, **env) if env else None
    proc = subprocess.run(cmd, cwd=cwd, env=full_env, text=True,
                          stdout=subprocess.PIPE if capture else None,
                          stderr=subprocess.STDOUT if capture else None,
                          timeout=timeout, check=False)
    if check and proc.returncode != 0:
        out = f"\n{proc.stdout}" if capture and proc.stdout else ""
        raise Failure(f"command failed ({proc.returncode}): "
                      f"{shlex.join(cmd)}{out}")
    return proc


@contextlib.contextmanager
def locked(name: str) -> Iterator[None]:
    """Hold build/@name.lock while the block runs: the gate runs stages
    side by side, and two of them must not build the same thing at once."""
    BUILD.mkdir(parents=True, exist_ok=True)
    with open(BUILD / f"{name}.lock", "w", encoding="ascii") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def jobs() -> int:
    """Parallel build jobs: every core, as CI's machine has only two."""
    return os.cpu_count() or 2


def kunitconfigs() -> list[Path]:
    """The KUnit configuration of the base: the top-level .kunitconfig,
    which every base builds, and kunit/BASE.kunitconfig where the base has
    suites of its own (drivers removed from later kernels)."""
    extra = REPO / "kunit" / f"{KERNEL}.kunitconfig"
    return [REPO / ".kunitconfig"] + ([extra] if extra.is_file() else [])


def series_patches() -> list[str]:
    """Patch file names in patches/series order, comments skipped."""
    if not SERIES.exists():
        raise Failure(f"{SERIES} is missing")
    names = []
    for line in SERIES.read_text().splitlines():
        name = line.split("#", 1)[0].strip()
        if name:
            if not (PATCHES / name).is_file():
                raise Failure(f"patches/series names a missing file: {name}")
            names.append(name)
    return names


def main_guard(func: Callable[[], int]) -> NoReturn:
    """Run a script's main, turning Failure into a message and exit 1."""
    try:
        sys.exit(func())
    except Failure as err:
        print(f"error: {err}", file=sys.stderr, flush=True)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
