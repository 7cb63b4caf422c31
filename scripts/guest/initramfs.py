# SPDX-License-Identifier: GPL-2.0
"""Write a minimal initramfs: Debian's static busybox, an /init, modules.

The archive is an uncompressed "newc" cpio, written here so that the
guest kernel needs no decompressor and the archive is the same on every
run (fixed owners and times).

init_script() is the /init of every run: it mounts /proc, /sys and
debugfs, loads the guest kernel's modules with modprobe (which takes their
options from the kernel command line), starts the agent, and then runs
the commands the host writes to the serial console (Guest.shell()) with
busybox sh, reading them through a pipe so that the shell is not
interactive: no prompt, no line editing, and no echo.

The agent writes its lines to /dev/kmsg, not to the console: in 7.3
(not 6.12) the serial console prints from a kernel thread (nbcon), so a line
written to the tty could reach the host before the driver messages of
the probe it reports. In the kernel's log the agent's line is always
after them, as the probe came before the link event. printk.devkmsg=on
(pc-acpi-hotplug.json) lifts the rate limit on such writes.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Mapping

from guest.kernel import GuestKernel
from lib.common import Failure

BUSYBOX = Path("/bin/busybox")


def _header(name: str, mode: int, size: int, ino: int,
            rdev: tuple[int, int] = (0, 0)) -> bytes:
    # ino mode uid gid nlink mtime filesize devmajor devminor
    # rdevmajor rdevminor namesize check
    fields = [ino, mode, 0, 0, 1, 0, size, 0, 0, *rdev, len(name) + 1, 0]
    head = "070701" + "".join(f"{f:08x}" for f in fields)
    data = head.encode() + name.encode() + b"\0"
    return data + b"\0" * (-len(data) % 4)


class Symlink(str):
    """An archive entry that is a symbolic link to this target."""


def _entry(name: str, mode: int, body: bytes, ino: int) -> bytes:
    return _header(name, mode, len(body), ino) + body + b"\0" * (-len(body) % 4)


def init_script(up_drivers: list[str], modules: list[str]) -> str:
    """/init: @modules loaded at boot, @up_drivers' interfaces brought up."""
    load = "".join(f"/bin/modprobe {m}\n" for m in modules)
    return f"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t devtmpfs devtmpfs /dev
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /tmp
{load}/bin/nicwatch {",".join(up_drivers)} >/dev/kmsg &
stty -F /dev/console -echo
exec sh -c 'cat /dev/console | {{ echo SHELL ready; exec sh; }}'
"""


def module_files(root: Path, release: str) -> dict[str, bytes]:
    """The installed modules under @root, as archive entries."""
    base = root / "lib" / "modules" / release
    if not base.is_dir():
        raise Failure(f"no modules installed at {base}")
    return {str(f.relative_to(root)): f.read_bytes()
            for f in sorted(base.rglob("*")) if f.is_file()}


def write(path: Path, init: str,
          extra: Mapping[str, bytes | Symlink] | None = None) -> Path:
    """Write the archive at @path: /init is @init, run by busybox sh;
    @extra's files (executable) and symbolic links as well."""
    if not BUSYBOX.is_file():
        raise Failure(f"{BUSYBOX} missing: install Debian's busybox-static")
    entries = [("dev", 0o40755, b""), ("proc", 0o40755, b""),
               ("sys", 0o40755, b""), ("bin", 0o40755, b""),
               ("bin/busybox", 0o100755, BUSYBOX.read_bytes()),
               ("init", 0o100755, init.encode())]
    dirs = {"dev", "proc", "sys", "bin"}
    for name, body in (extra or {}).items():
        # Parents first: the kernel does not create missing directories.
        parts = name.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            parent = "/".join(parts[:i])
            if parent not in dirs:
                dirs.add(parent)
                entries.append((parent, 0o40755, b""))
        if isinstance(body, Symlink):
            entries.append((name, 0o120777, body.encode()))
        else:
            entries.append((name, 0o100755, body))
    out = bytearray()
    for ino, (name, mode, body) in enumerate(entries, 2):
        out += _entry(name, mode, body, ino)
        if name == "dev":
            # The kernel opens /dev/console for /init's stdin and stdout.
            out += _header("dev/console", 0o20600, 0, 1, rdev=(5, 1))
    out += _header("TRAILER!!!", 0, 0, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(bytes(out))
    shutil.move(tmp, path)
    return path


# The modules /init loads: the NIC drivers the guest kernel builds as
# modules (see qemu-configs/guest.config). Others that tinyconfig leaves
# modular are in the archive but not loaded.
LOAD = ["e1000e"]


def for_kernel(path: Path, kernel: GuestKernel, agent: bytes,
               up_drivers: list[str],
               extra: Mapping[str, bytes | Symlink] | None = None) -> Path:
    """The archive for @kernel: its modules (LOAD loaded at boot), the agent."""
    files: dict[str, bytes | Symlink] = {
        "bin/nicwatch": agent, **module_files(kernel.modules, kernel.release),
        **(extra or {})}
    return write(path, init_script(up_drivers, LOAD), files)
