"""Debian 13's clang, in a root of its own, for the clang builds.

Linux 7.3 needs LLVM 17 or newer (scripts/min-tool-version.sh); Debian 12
has clang up to 16, and Debian 13's clang-19 needs Debian 13's C library,
so it cannot be installed on Debian 12. The bisect stage's clang builds
therefore run in a minimal Debian 13 root made with debootstrap, with
clang-19, lld-19 and llvm-19 from Debian 13 (LLVM=-19, the kernel's way to
name a versioned toolchain), for both bases: one clang for every base.

The root is a cache, like ccache's: ~/.cache/board-numbers/trixie-clang
(BOARD_NUMBERS_TOOLROOT moves it), made once, from the same Debian
mirror as the machine's sources. A build runs in it through chroot, in a
mount namespace of its own (unshare) where the source and build
directories are bind-mounted at their own paths, so that nothing stays
mounted when it ends. Making the root and entering it need root, as
apt-get does.
"""

from __future__ import annotations

import fcntl
import os
import shlex
import shutil
import subprocess
from pathlib import Path

from lib.common import Failure, log, run

ROOT = Path(os.environ.get("BOARD_NUMBERS_TOOLROOT",
                           Path.home() / ".cache" / "board-numbers" / "trixie-clang"))
SUITE = "trixie"
LLVM = "-19"
PACKAGES = ["clang-19", "lld-19", "llvm-19", "make", "bc", "bison", "flex",
            "libelf-dev", "libssl-dev", "perl", "ccache", "python3"]
# What a finished root has; a root without it is made again.
STAMP = ROOT / "etc" / "board-numbers-toolroot"
# Its own ccache directory: Debian 13's ccache, not the host's.
CCACHE = Path.home() / ".cache" / "ccache-trixie-clang"


def ensure() -> Path:
    """The root, made when missing. The gate's two workers may both need
    it at once (bisect on each base): the second waits for the first."""
    ROOT.parent.mkdir(parents=True, exist_ok=True)
    with open(ROOT.with_name(ROOT.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _make()


def _make() -> Path:
    wanted = " ".join(PACKAGES)
    if STAMP.is_file() and STAMP.read_text().strip() == wanted:
        return ROOT
    if os.geteuid() != 0:
        raise Failure(f"the clang builds need Debian 13's clang in {ROOT}, "
                      "made with debootstrap as root")
    if not shutil.which("debootstrap"):
        raise Failure("debootstrap is missing: python3 -m lib.deps bisect installs it")
    from lib import deps  # the machine's mirror
    staging = ROOT.with_name(ROOT.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    staging.parent.mkdir(parents=True, exist_ok=True)
    log(f"making {ROOT}: Debian 13 ({SUITE}) with {wanted}")
    proc = run(["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}",
                SUITE, str(staging), deps.debian_mirror()], capture=True, check=False)
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.splitlines()[-15:])
        raise Failure(f"debootstrap of {SUITE} failed:\n{tail}")
    (staging / STAMP.relative_to(ROOT)).write_text(wanted + "\n")
    shutil.rmtree(ROOT, ignore_errors=True)
    staging.rename(ROOT)
    return ROOT


def command(cmd: list[str], binds: list[Path], cwd: Path) -> list[str]:
    """@cmd run in the root, in @cwd, with @binds mounted at their paths."""
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
        inside = ROOT / path.relative_to("/")
        steps.append(f"mkdir -p {shlex.quote(str(inside))} && "
                     f"mount --bind {shlex.quote(str(path))} {shlex.quote(str(inside))}")
    steps.append(f"mount -t proc proc {shlex.quote(str(ROOT / 'proc'))}")
    inner = (f"cd {shlex.quote(str(cwd))} && export CCACHE_DIR={shlex.quote(str(CCACHE))}"
             f" PATH=/usr/lib/ccache:/usr/bin:/bin && exec {shlex.join(cmd)}")
    steps.append(f"exec chroot {shlex.quote(str(ROOT))} /bin/sh -c {shlex.quote(inner)}")
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            " && ".join(steps)]
