"""Write a minimal initramfs: Debian's static busybox and an /init script.

The archive is an uncompressed "newc" cpio, written here so that the
guest kernel needs no decompressor and the archive is the same on every
run (fixed owners and times).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from common import Failure

BUSYBOX = Path("/bin/busybox")


def _header(name: str, mode: int, size: int, ino: int,
            rdev: tuple[int, int] = (0, 0)) -> bytes:
    # ino mode uid gid nlink mtime filesize devmajor devminor
    # rdevmajor rdevminor namesize check
    fields = [ino, mode, 0, 0, 1, 0, size, 0, 0, *rdev, len(name) + 1, 0]
    head = "070701" + "".join(f"{f:08x}" for f in fields)
    data = head.encode() + name.encode() + b"\0"
    return data + b"\0" * (-len(data) % 4)


def _entry(name: str, mode: int, body: bytes, ino: int) -> bytes:
    return _header(name, mode, len(body), ino) + body + b"\0" * (-len(body) % 4)


def write(path: Path, init_script: str, extra: dict[str, bytes] | None = None) -> Path:
    """Write the archive at @path: /init runs @init_script under busybox sh."""
    if not BUSYBOX.is_file():
        raise Failure(f"{BUSYBOX} missing: install Debian's busybox-static")
    entries = [("dev", 0o40755, b""), ("proc", 0o40755, b""),
               ("sys", 0o40755, b""), ("bin", 0o40755, b""),
               ("bin/busybox", 0o100755, BUSYBOX.read_bytes()),
               ("init", 0o100755, init_script.encode())]
    for name, body in (extra or {}).items():
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
