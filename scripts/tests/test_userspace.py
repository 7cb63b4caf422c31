# SPDX-License-Identifier: GPL-2.0
"""userspace: the settings files docs/userspace.md shows are the ones the guest gets,
the readback of a real run (test_data/userspace-*.log) parses, and plug()
and unplug() hot-plug as the run needs (guest/hotplug.py, on
tests/test_qmp.py's FakeQEMU)."""

from __future__ import annotations

import os
import re
import tempfile
import unittest
from pathlib import Path

from unittest import mock

from guest import initramfs, userland
from guest.initramfs import Symlink
from lib.common import REPO
from tests.test_hotplug import qmp_guest, sent
from userspace import readback, udev

DATA = Path(__file__).parent / "test_data"
# The files docs/userspace.md shows for the guest's /etc: a fenced block whose
# first line names the path.
SHOWN = re.compile(r"^```[\w-]*\n(# /etc/(?:systemd/network|udev/rules\.d)/.*?)^```$",
                   re.M | re.S)


def readme_blocks() -> dict[str, str]:
    text = (REPO / "docs" / "userspace.md").read_text()
    return {udev.install_path(b): b for b in SHOWN.findall(text)}


class ReadmeTest(unittest.TestCase):
    def test_guest_files_are_the_readmes_byte_for_byte(self) -> None:
        shown = readme_blocks()
        used = {f for v in (udev.LINK, udev.RULE) for f in v.files}
        self.assertEqual(sorted(used), sorted(p.name for p in udev.SETTINGS.iterdir()))
        for name in used:
            body = (udev.SETTINGS / name).read_text()
            path = udev.install_path(body)
            with self.subTest(path=path):
                self.assertIn(path, shown, "docs/userspace.md does not show it")
                self.assertEqual(shown[path], body)
        # Nor does the page show a file that never ran.
        ran = {udev.install_path((udev.SETTINGS / n).read_text()) for n in used}
        self.assertEqual(sorted(shown), sorted(ran))

    def test_install_path_refuses_a_file_without_one(self) -> None:
        with self.assertRaises(Exception):
            udev.install_path("[Match]\nPath=pci-0000:00:03.0\n")


class StepsTest(unittest.TestCase):
    def test_each_nic_leaves_before_it_comes_again_in_another_slot(self) -> None:
        steps = udev.steps(20)
        replugged = [slot for nic, slot in steps if nic is udev.REPLUGGED]
        self.assertEqual(len(replugged), 20)
        self.assertTrue(all(a != b for a, b in zip(replugged, replugged[1:])))
        e1000e = [slot for nic, slot in steps if nic is udev.COALESCED]
        self.assertEqual(e1000e, [7, 8, 7])
        self.assertEqual(steps[0], (udev.KEPT, 3))
        self.assertEqual([n for n, _ in steps].count(udev.KEPT), 1)


class ReadbackRecorded(unittest.TestCase):
    """Console excerpts of a real run: one add per variant and control."""

    def lines(self, name: str) -> list[str]:
        return (DATA / f"userspace-{name}.log").read_text().splitlines()

    def test_link_variant_replugged_e1000(self) -> None:
        got = readback.parse(self.lines("link-replugged"))
        self.assertEqual(got.errors, [])
        self.assertEqual(got.link_file, "/etc/systemd/network/10-lan-replugged.link")
        self.assertEqual(readback.mismatches(got, dict(udev.REPLUGGED.want)), [])
        self.assertRegex(got.name, r"^en")

    def test_link_variant_e1000e_coalescing(self) -> None:
        got = readback.parse(self.lines("link-coalesced"))
        self.assertEqual(readback.mismatches(got, dict(udev.COALESCED.want)), [])

    def test_link_variant_kept_advertising(self) -> None:
        got = readback.parse(self.lines("link-kept"))
        self.assertEqual(readback.mismatches(got, dict(udev.KEPT.want)), [])

    def test_control_reads_the_drivers_defaults(self) -> None:
        got = readback.parse(self.lines("control-kept"))
        self.assertEqual(got.link_file, udev.DEFAULT_LINK)
        self.assertEqual(readback.mismatches(got, dict(udev.KEPT.want)),
                         ["tx=256 (want 384)", "rx=256 (want 768)",
                          "advertised=10baseT/Half 10baseT/Full 100baseT/Half "
                          "100baseT/Full 1000baseT/Full "
                          "(want 100baseT/Full 1000baseT/Full)"])

    def test_kernel_lines_among_the_readback_are_skipped(self) -> None:
        lines = self.lines("link-replugged")
        mixed = [x for line in lines for x in (line, "[   12.345678] e1000: RX: 1")]
        self.assertEqual(readback.parse(mixed).fields, readback.parse(lines).fields)

    def test_errors_are_kept(self) -> None:
        got = readback.parse(["NICRB error: udevadm settle: 1",
                              "NICRB ethtool-c netlink error: Operation not supported"])
        self.assertEqual(got.errors, ["udevadm settle: 1"])
        self.assertNotIn("rx_usecs", got.fields)


class PlugTest(unittest.TestCase):
    """plug() and unplug() on a guest whose QMP is FakeQEMU and whose
    shell answers nic-readback with a recorded read-back."""

    def test_plug_reads_back_and_unplug_waits_for_the_release(self) -> None:
        guest, qemu = qmp_guest(self, {"device_del": ["NICWATCH del ifindex=5 name=enp0s4"]})
        commands: list[str] = []
        recorded = (DATA / "userspace-link-replugged.log").read_text().splitlines()

        def shell(command: str, timeout: float) -> tuple[list[str], int]:
            commands.append(command)
            return recorded, 0

        setattr(guest, "shell", shell)
        self.assertEqual(udev.plug(guest, udev.REPLUGGED, 4, udev.LINK), [])
        self.assertEqual(commands, ["nic-readback 0000:00:04.0"])
        self.assertEqual(sent(qemu, "device_add"), [{
            "driver": "e1000", "id": "replugged", "mac": "52:54:00:00:00:0b",
            "bus": "pci.0", "addr": "0x4"}])
        self.assertEqual(list(sent(qemu, "device_add")[0]),
                         ["driver", "id", "mac", "bus", "addr"])
        udev.unplug(guest, udev.REPLUGGED)
        self.assertEqual(sent(qemu, "device_del"), [{"id": "replugged"}])
        # DEVICE_DELETED is all it waits for: the agent's line is unread.
        self.assertEqual(guest.drain(), ["NICWATCH del ifindex=5 name=enp0s4"])


class UserlandTest(unittest.TestCase):
    """guest.userland: what ldd names, and paths kept inside the root."""

    def test_ldd_lines(self) -> None:
        out = ("\tlinux-vdso.so.1 (0x00007ffd)\n"
               "\tlibkmod.so.2 => /lib/x86_64-linux-gnu/libkmod.so.2 (0x00007f28032a4000)\n"
               "\t/lib64/ld-linux-x86-64.so.2 (0x00007f2803419000)\n")
        self.assertEqual([m.group(1) for line in out.splitlines()
                          if (m := userland.LDD_LINE.match(line))],
                         ["/lib/x86_64-linux-gnu/libkmod.so.2",
                          "/lib64/ld-linux-x86-64.so.2"])

    def test_merged_usr_names_and_links_stay_in_the_root(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "usr" / "lib" / "x").mkdir(parents=True)
            (root / "lib").symlink_to("usr/lib")
            (root / "usr" / "lib" / "x" / "libc.so.6").write_bytes(b"libc")
            (root / "usr" / "lib" / "x" / "libc.so").symlink_to("libc.so.6")
            self.assertEqual(userland._name(root, "/lib/x/libc.so.6"),
                             "usr/lib/x/libc.so.6")
            self.assertEqual(userland._read(root, "/lib/x/libc.so"), b"libc")
            (root / "usr" / "lib" / "out").symlink_to("/etc")
            with self.assertRaises(Exception):
                userland._name(root, "/lib/out/passwd")
            self.assertTrue(os.path.islink(root / "lib"))

    def test_archive_keeps_links_as_links(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            busybox = Path(tmp, "busybox")
            busybox.write_bytes(b"busybox")
            with mock.patch.object(initramfs, "BUSYBOX", busybox):
                archive = initramfs.write(
                    Path(tmp, "a.cpio"), "#!/bin/sh\n",
                    {"usr/lib/systemd/systemd-udevd": Symlink("/usr/bin/udevadm"),
                     "usr/bin/udevadm": b"\x7fELF"}).read_bytes()
        entries = {}
        at = 0
        while True:
            head = archive[at:at + 110]
            mode, size, namesize = (int(head[i:i + 8], 16) for i in (14, 54, 94))
            name_end = at + 110 + namesize - 1
            name = archive[at + 110:name_end].decode()
            body_at = (name_end + 1 + 3) & ~3
            entries[name] = (mode, archive[body_at:body_at + size])
            at = (body_at + size + 3) & ~3
            if name == "TRAILER!!!":
                break
        self.assertEqual(entries["usr/lib/systemd/systemd-udevd"],
                         (0o120777, b"/usr/bin/udevadm"))
        self.assertEqual(entries["usr/bin/udevadm"], (0o100755, b"\x7fELF"))
        self.assertEqual(entries["usr"][0], 0o40755)


if __name__ == "__main__":
    unittest.main()
