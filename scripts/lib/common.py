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
from typing import Callable, Iterator, Mapping, MutableMapping, NoReturn

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
DEFAULT_KERNEL = "6.12"


@dataclass(frozen=True)
class Config:
    """Where one base's files are: what KERNEL= and the BOARD_NUMBERS_*
    variables say, read once by config() instead of at import, so that
    importing a module has no side effects and a test builds the Config
    it needs instead of patching each module's copy of a path."""

    kernel: str  # "7.3": make's KERNEL=
    base: Base
    # Build output is per base, build/BASE/: each base has its own tree,
    # kernels, logs and results; the gate's own record is in build/gate/.
    build_root: Path
    build: Path
    tarball: Path  # the packaged source the tree is made from
    # The repository whose patches/BASE/ is the series: this one, or a
    # test's own.
    repo: Path = REPO

    @property
    def tree(self) -> Path:
        return self.build / "linux"

    @property
    def patches(self) -> Path:
        return self.repo / "patches" / self.kernel

    @property
    def series(self) -> Path:
        return self.patches / "series"


def config(kernel: str | None = None,
           environ: dict[str, str] | None = None) -> Config:
    """The Config of @kernel (KERNEL from @environ, os.environ by
    default, or 6.12). BOARD_NUMBERS_ROOT reads another build/ (a cold run
    made in a clean root); BOARD_NUMBERS_BUILD moves one base's directory
    (make mutants); LINUX_TARBALL names another packaged source (any point
    release of the base)."""
    env: Mapping[str, str] = os.environ if environ is None else environ
    name = kernel if kernel is not None else env.get("KERNEL", DEFAULT_KERNEL)
    if name not in BASES:
        raise Failure(f"KERNEL={name} is not a base of the series; "
                      f"bases: {', '.join(BASES)}")
    base = BASES[name]
    build_root = Path(env.get("BOARD_NUMBERS_ROOT", REPO / "build"))
    return Config(
        kernel=name, base=base, build_root=build_root,
        build=Path(env.get("BOARD_NUMBERS_BUILD", build_root / name)),
        tarball=Path(env.get("LINUX_TARBALL", f"/usr/src/{base.package}.tar.xz")))


# Every kernel build goes through ccache by its masquerade directory, so
# that make sees plain "gcc" as the compiler. A build directory made by
# the gate is then the same as one made by a developer's own make or
# kunit.py command in it (the README's), which do not rebuild it.
CCACHE_BIN = Path("/usr/lib/ccache")


def setup_build_env(cfg: Config, environ: dict[str, str] | None = None) -> None:
    """Point kernel builds at ccache in @environ (os.environ by default);
    main_guard() does it before each entry point's main, so that importing
    a module changes nothing. Variables already set are kept: the gate's
    stages inherit the gate's."""
    env: MutableMapping[str, str] = os.environ if environ is None else environ
    # ccache keys on the compiler's command line, which holds absolute
    # source paths. Relative to build/ they are the same in every clone, so
    # a fresh CI clone reuses what an earlier one compiled, and the plain
    # tree, laid out like the patched one (plain/linux beside
    # plain/guest-plain), reuses the patched build for every file the
    # series does not change.
    env.setdefault("CCACHE_BASEDIR", str(cfg.build))
    path = env.get("PATH", os.defpath)
    if CCACHE_BIN.is_dir() and str(CCACHE_BIN) not in path.split(":"):
        env["PATH"] = f"{CCACHE_BIN}:{path}"
    # Four kernels (KUnit, the debug KUnit, the bisect objects, two guests)
    # with many objects each: more than ccache's default 5 GiB.
    env.setdefault("CCACHE_MAXSIZE", "30G")
    # On a miss, ccache's default mode runs the preprocessor as well as the
    # compiler; its depend mode takes the headers from the compiler's own
    # -MMD file instead. Measured on 7.3's e1000e and tulip (22 objects, -j2,
    # W=1, empty cache): 67 s of CPU by default, 56 s in depend mode, 47 s
    # without ccache. Hits are found the same way in both modes.
    env.setdefault("CCACHE_DEPEND", "1")


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
def locked(name: str, cfg: Config | None = None) -> Iterator[None]:
    """Hold build/BASE/@name.lock while the block runs: the gate runs stages
    side by side, and two of them must not build the same thing at once."""
    build = (cfg or config()).build
    build.mkdir(parents=True, exist_ok=True)
    with open(build / f"{name}.lock", "w", encoding="ascii") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def jobs() -> int:
    """Parallel build jobs: every core, as CI's machine has only two."""
    return os.cpu_count() or 2


def kunitconfigs() -> list[Path]:
    """The series' KUnit suites (the top-level .kunitconfig), built into
    the patched guest kernel, which checks.kunit runs them on."""
    return [REPO / ".kunitconfig"]


def driver_kunitconfigs(cfg: Config | None = None) -> list[Path]:
    """Every driver the series converts on the base: kunit/drivers.kunitconfig,
    and kunit/BASE.kunitconfig where the base has drivers of its own
    (drivers removed from later kernels)."""
    extra = REPO / "kunit" / f"{(cfg or config()).kernel}.kunitconfig"
    return [REPO / "kunit" / "drivers.kunitconfig"] + ([extra] if extra.is_file() else [])


def series_patches(series: Path | None = None) -> list[str]:
    """Patch file names in the order of @series (patches/BASE/series of
    config() by default), comments skipped; they are beside it."""
    series = series or config().series
    if not series.exists():
        raise Failure(f"{series} is missing")
    names = []
    for line in series.read_text().splitlines():
        name = line.split("#", 1)[0].strip()
        if name:
            if not (series.parent / name).is_file():
                raise Failure(f"patches/series names a missing file: {name}")
            names.append(name)
    return names


def main_guard(func: Callable[[], int]) -> NoReturn:
    """Run a script's main, turning Failure into a message and exit 1; a
    bad KERNEL= is such a Failure. Sets up the build environment first
    (setup_build_env()), which every entry point had when lib.common
    still did it at import."""
    try:
        setup_build_env(config())
        sys.exit(func())
    except Failure as err:
        print(f"error: {err}", file=sys.stderr, flush=True)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
