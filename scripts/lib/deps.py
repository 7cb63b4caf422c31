# SPDX-License-Identifier: GPL-2.0
"""Install the Debian packages a target needs, and only those missing.

Usage: python3 -m lib.deps GROUP...   (groups: see GROUPS below)

A fresh Debian 12 machine gets everything from apt-get; a warm one is not
touched. Missing packages are named in the error when they cannot be had.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lib.common import Config, Failure, config, log, main_guard, run

GROUPS: dict[str, list[str]] = {
    # The harness's own tests (make harness, the gate's stage "harness"):
    # tests/test_types.py runs mypy --strict over the scripts,
    # tests/test_lint.py pyflakes over them and shellcheck over the shell.
    "harness": ["mypy", "pyflakes3", "shellcheck"],
    # Unpack the packaged source of the base (KERNEL=) into a git tree and
    # apply the series; group_packages() adds the base's source package.
    "tree": ["xz-utils", "git", "ca-certificates"],
    # Build kernels (kunit.py's and the guest's) with ccache.
    "build": ["build-essential", "flex", "bison", "bc", "libelf-dev",
              "libssl-dev", "cpio", "kmod", "ccache", "python3", "perl"],
    # Run kunit.py's kernel under QEMU (kunit.py boots it with qboot).
    "kunit": ["qemu-system-x86"],
    # checkpatch.pl and the SPDX check it runs.
    "checkpatch": ["perl", "python3-ply", "codespell"],
    # make send-prep: b4 checks the mail it writes.
    "send": ["b4", "git"],
    # W=1 builds of each prefix of the series, with sparse (C=1), and with
    # Debian 13's clang in a root debootstrap makes (lib/toolroot.py).
    "bisect": ["sparse", "debootstrap"],
    # Coccinelle's spatch checks the converted drivers' call sites
    # (checks/callsites.cocci). Its Python rules load libpython3.11.so by
    # that unversioned name, which only the -dev package installs (a
    # minimal root without it: "Py.find_library: unable to find the
    # Python library").
    "callsites": ["coccinelle", "libpython3-dev"],
    # The QEMU guests: a busybox initramfs with the static agent, booted
    # in QEMU; gnuplot draws the board-number plot.
    "e2e": ["qemu-system-x86", "busybox-static", "build-essential",
            "gnuplot-nox"],
    # The userspace path's guest runs Debian 12's udev and ethtool, taken
    # from a root debootstrap makes (lib/toolroot.py).
    "userspace": ["debootstrap"],
}


# A base's source package comes from a suite apt may not have: Debian 13's
# backports for 7.3, Debian 12's security suite for 6.12 (a debootstrap
# root has neither). Where apt has no candidate for the package, that suite
# is added on Debian 12's mirror, pinned at priority 1: apt installs from it
# only what nothing else provides (the kernel source, which needs only
# binutils and xz-utils), and never upgrades a package from it. A machine
# whose sources have the suite already is left as it is.
APT_SOURCES = Path("/etc/apt/sources.list.d")
APT_PREFERENCES = Path("/etc/apt/preferences.d")
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


def debian_mirror() -> str:
    """The mirror this machine's Debian 12 sources use."""
    texts = [Path("/etc/apt/sources.list")] + sorted(APT_SOURCES.glob("*"))
    for path in texts:
        try:
            text = path.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            words = line.split()
            uri = next((w for w in words if w.startswith(("http://", "https://"))),
                       "")
            if uri.rstrip("/").endswith("/debian") and (
                    "bookworm" in words or "bookworm" in text):
                return uri.rstrip("/")
    return "http://deb.debian.org/debian"


def add_suite(suite: str) -> bool:
    """Put @suite in apt's sources, pinned low; whether it was missing."""
    name = f"board-numbers-{suite}"
    sources = APT_SOURCES / f"{name}.sources"
    if sources.exists():
        return False
    if os.geteuid() != 0:
        raise Failure(f"Debian's {suite} suite is not in apt's sources; as "
                      f"root, make {sources} and a pin (see lib/deps.py)")
    uri = debian_mirror()
    if suite.endswith("-security"):
        uri += "-security"  # deb.debian.org/debian-security, the same host
    log(f"adding Debian's {suite} suite to apt's sources, pinned at 1")
    (APT_PREFERENCES / f"{name}").write_text(
        f"# Added by board-numbers (lib/deps.py): install {suite} packages only\n"
        f"# when asked for, never upgrade to them.\n"
        f"Package: *\nPin: release n={suite}\nPin-Priority: 1\n")
    sources.write_text(
        f"# Added by board-numbers (lib/deps.py) for the kernel source package.\n"
        f"Types: deb\nURIs: {uri}\nSuites: {suite}\n"
        f"Components: main\nSigned-By: {KEYRING}\n")
    return True


def has_candidate(pkg: str) -> bool:
    """Whether apt's package lists offer @pkg."""
    proc = subprocess.run(["apt-cache", "policy", pkg], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True, check=False)
    return "Candidate:" in proc.stdout and "Candidate: (none)" not in proc.stdout


def installed(pkg: str) -> bool:
    proc = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True, check=False)
    return proc.stdout.strip() == "install ok installed"


def group_packages(cfg: Config, group: str) -> list[str]:
    """The packages of @group on @cfg's base: "tree" has its source package."""
    return [cfg.base.package, *GROUPS[group]] if group == "tree" else GROUPS[group]


def ensure(cfg: Config, packages: list[str]) -> None:
    missing = sorted({p for p in packages if not installed(p)})
    if not missing:
        return
    env = {"DEBIAN_FRONTEND": "noninteractive"}
    if os.geteuid() == 0:
        run(["apt-get", "update", "-q"], env=env, capture=True)
    if cfg.base.package in missing and not has_candidate(cfg.base.package) \
            and add_suite(cfg.base.suite):
        run(["apt-get", "update", "-q"], env=env, capture=True)
    if os.geteuid() != 0:
        raise Failure("missing Debian packages, install them as root: "
                      f"apt-get install {' '.join(missing)}")
    log(f"installing {' '.join(missing)}")
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
    cfg = config()
    ensure(cfg, [p for g in groups for p in group_packages(cfg, g)])
    return 0


if __name__ == "__main__":
    main_guard(main)
