# SPDX-License-Identifier: GPL-2.0
"""Debian 12's udev and ethtool, as files for the guest's initramfs.

The userspace path runs the tools users run: systemd-udevd and udevadm
from Debian 12's udev package (252) and Debian 12's ethtool. They are
taken from a Debian 12 root made with debootstrap (lib/toolroot.UDEV),
not from this machine, where installing udev would start it on the
machine's own devices:

- every file of the two packages that runs or configures them: the
  programs, udev's rules (Debian's own 80-net-setup-link.rules among
  them) and helpers, and 99-default.link; not the documentation, the
  hwdb sources, the systemd units or ethtool's ifupdown hooks;
- the shared libraries the programs load, found by running the root's
  own ldd in it, at the paths the dynamic loader looks them up;
- /etc/passwd and /etc/group, whose names udev's rules use.

Programs and rules go to their /usr paths (Debian 12 is merged-/usr;
udev looks in /usr/lib/udev and /usr/lib/systemd/network). udev's hwdb
is left out: it is built on install (13 MB) and only names vendors.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from guest.initramfs import Symlink
from lib import toolroot
from lib.common import Failure, run

PACKAGES = ("udev", "ethtool")
# What of the packages' files the guest gets, by path prefix (Debian 12's
# lists still name the unmerged paths: /bin, /sbin, /lib).
KEEP = ("/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/lib/udev/",
        "/lib/systemd/network/", "/lib/systemd/systemd-udevd", "/etc/udev/")
SKIP = ("/lib/udev/hwdb.d/", "/etc/udev/hwdb.d/", "/bin/systemd-hwdb")
ACCOUNTS = ("/etc/passwd", "/etc/group")
LDD_LINE = re.compile(r"^\s*(?:\S+ => )?(/\S+) \(0x[0-9a-f]+\)$")


def _inside(root: Path, path: str) -> Path:
    """@path of the root, its directories' links followed within @root
    (/lib is a link to usr/lib there): the file's path under @root."""
    parent = Path(os.path.realpath(root / Path(path).parent.relative_to("/")))
    if not parent.is_relative_to(root):
        raise Failure(f"{path} leads out of {root}")
    return parent / Path(path).name


def _name(root: Path, path: str) -> str:
    """The archive name of @path: where it is in the merged-/usr root."""
    return str(_inside(root, path).relative_to(root))


def _read(root: Path, path: str) -> bytes:
    """The content of @path, links followed within @root."""
    for _ in range(16):
        inside = _inside(root, path)
        if not inside.is_symlink():
            return inside.read_bytes()
        target = os.readlink(inside)
        path = target if target.startswith("/") else str(
            Path("/") / inside.parent.relative_to(root) / target)
    raise Failure(f"{path}: too many links in {root}")


def _package_files(root: Path, package: str) -> list[str]:
    listing = root / "var" / "lib" / "dpkg" / "info" / f"{package}.list"
    if not listing.is_file():
        raise Failure(f"{root} has no {package}: remove it to have it made again")
    return [p for p in listing.read_text().splitlines()
            if p.startswith(KEEP) and not p.startswith(SKIP)]


def libraries(root: Path, program: str) -> list[str]:
    """The shared objects @program loads, as the root's ldd names them
    (the dynamic loader's own path among them)."""
    proc = run(["chroot", str(root), "/usr/bin/ldd", program], capture=True,
               check=False)
    if proc.returncode != 0:
        raise Failure(f"ldd {program} in {root} failed:\n{proc.stdout}")
    return [m.group(1) for line in proc.stdout.splitlines()
            if (m := LDD_LINE.match(line))]


@functools.cache
def files() -> dict[str, bytes | Symlink]:
    """The archive entries: udev, ethtool and what they need."""
    root = toolroot.UDEV.ensure()
    entries: dict[str, bytes | Symlink] = {}
    needed: set[str] = set()
    for package in PACKAGES:
        for path in _package_files(root, package):
            inside = _inside(root, path)
            if inside.is_symlink():
                target = os.readlink(inside)
                if target.startswith("/"):
                    target = "/" + _name(root, target)
                entries[_name(root, path)] = Symlink(target)
            elif inside.is_file():
                body = inside.read_bytes()
                entries[_name(root, path)] = body
                if body.startswith(b"\x7fELF"):
                    needed.update(libraries(root, path))
    for lib in sorted(needed):
        # Where the loader looks for it (/lib64/ld-linux-x86-64.so.2 is
        # written into every program), not where the root keeps it.
        entries[lib.lstrip("/")] = _read(root, lib)
    for path in ACCOUNTS:
        entries[path.lstrip("/")] = _read(root, path)
    return entries
