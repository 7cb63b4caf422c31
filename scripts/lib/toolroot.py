# SPDX-License-Identifier: GPL-2.0
"""Debian roots made with debootstrap, for tools this machine lacks.

The roots are caches, like ccache's, under ~/.cache/board-numbers/
(BOARD_NUMBERS_TOOLROOTS moves them), each made once from the same Debian
mirror as the machine's sources. Making them needs root, as apt-get does.

CLANG: Linux 7.3 needs LLVM 17 or newer (scripts/min-tool-version.sh);
Debian 12 has clang up to 16, and Debian 13's clang-19 needs Debian 13's
C library, so it cannot be installed on Debian 12. The bisect stage's
clang builds therefore run in a minimal Debian 13 root with clang-19,
lld-19 and llvm-19 (LLVM=-19, the kernel's way to name a versioned
toolchain), for both bases: one clang for every base. A build runs in it
through chroot (command()), in a mount namespace of its own (unshare)
where the source and build directories are bind-mounted at their own
paths, so that nothing stays mounted when it ends.

UDEV: Debian 12's udev and ethtool for the userspace path's guest. They
are not installed on this machine, where udev's maintainer scripts would
act on its own devices; the guest's initramfs takes their files and the
libraries they need from this root instead (guest/userland.py).
"""

from __future__ import annotations

import fcntl
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from lib.common import Failure, log, run

# Where the roots are kept (BOARD_NUMBERS_TOOLROOTS moves them).
CACHE = Path(os.environ.get("BOARD_NUMBERS_TOOLROOTS",
                            Path.home() / ".cache" / "board-numbers"))


@dataclass(frozen=True)
class Root:
    """A Debian root with @packages of @suite, made once with debootstrap."""
    name: str
    suite: str
    packages: tuple[str, ...]
    purpose: str  # what the root is for, for the messages

    @property
    def path(self) -> Path:
        return CACHE / self.name

    @property
    def stamp(self) -> Path:
        """What a finished root has; a root without it is made again."""
        return self.path / "etc" / "board-numbers-toolroot"

    def ensure(self) -> Path:
        """The root, made when missing. Stages that run at once may both
        need it (bisect on each base): the second waits for the first."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(self.name + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            return self._make()

    def _make(self) -> Path:
        wanted = " ".join(self.packages)
        if self.stamp.is_file() and self.stamp.read_text().strip() == wanted:
            return self.path
        if os.geteuid() != 0:
            raise Failure(f"{self.purpose} needs Debian's {wanted} in {self.path}, "
                          "made with debootstrap as root")
        if not shutil.which("debootstrap"):
            raise Failure(f"debootstrap is missing for {self.purpose}: apt-get install debootstrap "
                          "(python3 -m lib.deps bisect or userspace does)")
        from lib import deps  # the machine's mirror
        staging = self.path.with_name(self.name + ".new")
        shutil.rmtree(staging, ignore_errors=True)
        log(f"making {self.path}: Debian {self.suite} with {wanted}")
        proc = run(["debootstrap", "--variant=minbase", f"--include={','.join(self.packages)}",
                    self.suite, str(staging), deps.debian_mirror()],
                   capture=True, check=False)
        if proc.returncode != 0:
            tail = "\n".join(proc.stdout.splitlines()[-15:])
            raise Failure(f"debootstrap of {self.suite} failed:\n{tail}")
        (staging / self.stamp.relative_to(self.path)).write_text(wanted + "\n")
        shutil.rmtree(self.path, ignore_errors=True)
        staging.rename(self.path)
        return self.path


LLVM = "-19"
CLANG = Root("trixie-clang", "trixie",
             ("clang-19", "lld-19", "llvm-19", "make", "bc", "bison", "flex",
              "libelf-dev", "libssl-dev", "perl", "ccache", "python3"),
             "the clang builds")
# Debian 12's udev and ethtool, which the userspace path's guest runs
# (guest/userland.py takes their files and libraries from this root).
UDEV = Root("bookworm-udev", "bookworm", ("udev", "ethtool"),
            "the userspace path")
# Its own ccache directory: Debian 13's ccache, not the host's.
CCACHE = Path.home() / ".cache" / "ccache-trixie-clang"


def command(cmd: list[str], binds: list[Path], cwd: Path) -> list[str]:
    """@cmd run in the clang root, in @cwd, with @binds mounted at their paths."""
    # unshare makes every mount private from "/" down, so that the binds
    # stay in its namespace; that needs "/" to be a mount point, which in
    # a chroot it is not unless the chroot's directory was bound first.
    if subprocess.run(["mountpoint", "-q", "/"], check=False).returncode != 0:
        raise Failure("the clang builds mount in a namespace of their own, which "
                      "needs / to be a mount point; in a chroot, bind-mount its "
                      "directory onto itself first (mount --rbind DIR DIR)")
    CCACHE.mkdir(parents=True, exist_ok=True)
    steps = []
    for path in [*binds, CCACHE]:
        path.mkdir(parents=True, exist_ok=True)
        inside = CLANG.path / path.relative_to("/")
        steps.append(f"mkdir -p {shlex.quote(str(inside))} && "
                     f"mount --bind {shlex.quote(str(path))} {shlex.quote(str(inside))}")
    steps.append(f"mount -t proc proc {shlex.quote(str(CLANG.path / 'proc'))}")
    # CCACHE_DEPEND as lib.common's setup_build_env() sets it for gcc.
    inner = (f"cd {shlex.quote(str(cwd))} && export CCACHE_DIR={shlex.quote(str(CCACHE))}"
             f" CCACHE_DEPEND=1 PATH=/usr/lib/ccache:/usr/bin:/bin && exec {shlex.join(cmd)}")
    steps.append(f"exec chroot {shlex.quote(str(CLANG.path))} /bin/sh -c {shlex.quote(inner)}")
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            " && ".join(steps)]
