"""Install the Debian packages a target needs, and only those missing.

Usage: python3 -m lib.deps GROUP...   (groups: see GROUPS below)

A fresh Debian 12 machine gets everything from apt-get; a warm one is not
touched. Missing packages are named in the error when they cannot be had.
"""

from __future__ import annotations

import os
import subprocess
import sys

from lib.common import Failure, log, main_guard, run

GROUPS: dict[str, list[str]] = {
    # Unpack the packaged source into a git tree and apply the series.
    "tree": ["linux-source-6.12", "xz-utils", "git", "ca-certificates"],
    # Build kernels (kunit.py's and the guest's) with ccache.
    "build": ["build-essential", "flex", "bison", "bc", "libelf-dev",
              "libssl-dev", "cpio", "kmod", "ccache", "python3", "perl"],
    # Run kunit.py's kernel under QEMU (kunit.py boots it with qboot).
    "kunit": ["qemu-system-x86"],
    # checkpatch.pl and the SPDX check it runs.
    "checkpatch": ["perl", "python3-ply"],
    # W=1 builds of each prefix of the series, with sparse (C=1).
    "bisect": ["sparse"],
    # The QEMU guests: a busybox initramfs with the static agent, booted
    # in QEMU; gnuplot draws the board-number plot.
    "e2e": ["qemu-system-x86", "busybox-static", "build-essential",
            "gnuplot-nox"],
}


def installed(pkg: str) -> bool:
    proc = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True, check=False)
    return proc.stdout.strip() == "install ok installed"


def ensure(packages: list[str]) -> None:
    missing = sorted({p for p in packages if not installed(p)})
    if not missing:
        return
    if os.geteuid() != 0:
        raise Failure("missing Debian packages, install them as root: "
                      f"apt-get install {' '.join(missing)}")
    log(f"installing {' '.join(missing)}")
    env = {"DEBIAN_FRONTEND": "noninteractive"}
    run(["apt-get", "update", "-q"], env=env, capture=True)
    proc = run(["apt-get", "install", "-y", "-q", "--no-install-recommends",
                *missing], env=env, capture=True, check=False)
    still = [p for p in missing if not installed(p)]
    if proc.returncode != 0 or still:
        tail = "\n".join(proc.stdout.splitlines()[-15:])
        raise Failure(f"apt-get could not install {' '.join(still or missing)}"
                      f"\n{tail}")


def main() -> int:
    groups = sys.argv[1:] or ["tree"]
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        raise Failure(f"unknown package group(s) {unknown}; "
                      f"known: {sorted(GROUPS)}")
    ensure([p for g in groups for p in GROUPS[g]])
    return 0


if __name__ == "__main__":
    main_guard(main)
