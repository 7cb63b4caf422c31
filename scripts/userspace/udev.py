# SPDX-License-Identifier: GPL-2.0
"""The userspace path: hot-plugged NICs configured by udev, as users do it.

  userspace.udev [--replugs 50]

What netdev asks of per-board module parameters is that hot-plugged NICs
be configured from userspace instead. This run shows that path with the
tools users run and no module parameter at all: Debian 12's systemd-udevd
(guest/userland.py), started in the guest the way an initramfs starts it,
with Debian's own rules and 99-default.link, applies the settings; after
every add, Debian's ethtool reads them back (nic-readback, readback.py).

Two variants, each with docs/userspace.md's files byte for byte (settings/;
each file's first line is the path it is installed at, and a harness test
compares them with that page):

  link   the three .link files: one e1000 matched by Path= (slot 3),
         one e1000 matched by MACAddress=, one e1000e matched by
         MACAddress=;
  rule   the udev rule that runs ethtool for the same three NICs.

In each, the e1000 at slot 3 is plugged once and stays; the e1000 matched
by MAC is hot-plugged --replugs times into slots 4, 5 and 6 in turn; the
e1000e into slot 7, re-plugged into slots 8 and 7 every tenth cycle. After
every add its ring sizes and the other settings must read back as the
files set them, and in the link variant ID_NET_LINK_FILE must name its
.link file.

Each variant has a control: the same guest without its files, where
each NIC must be caught at its first add with every setting the check
reads at the driver's default. The plain kernel is
no control here: userspace configuration never depended on board
numbers, which is its point.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from guest import agent, hotplug, initramfs, kernel as guest_kernel, userland
from guest.machine import Guest
from guest.session import Kernel, boot, finish, side_by_side
from lib import results
from lib.common import Config, Failure, config, log, main_guard
from model.verdict import Tally
from userspace import readback

HERE = Path(__file__).parent
SETTINGS = HERE / "settings"
TIMEOUT = 90.0
# How the guest starts udev: as initramfs-tools' init-top/udev does, and
# then makes sure that it answers.
START_UDEV = """mkdir -p /run /etc/systemd/network /etc/udev/rules.d &&
/usr/lib/systemd/systemd-udevd --daemon --resolve-names=never &&
/usr/bin/udevadm trigger --type=subsystems --action=add &&
/usr/bin/udevadm trigger --type=devices --action=add &&
/usr/bin/udevadm settle --timeout=60 &&
/usr/bin/udevadm control --ping"""


@dataclass(frozen=True)
class Nic:
    device_id: str
    model: str  # the QEMU device
    mac: str
    link_file: str  # the .link file that matches it
    want: tuple[tuple[str, str], ...]  # readback field, value the files set


KEPT = Nic("kept", "e1000", "52:54:00:00:00:0a", "10-lan-slot3.link",
           (("tx", "384"), ("rx", "768"), ("advertised", "100baseT/Full 1000baseT/Full")))
REPLUGGED = Nic("replugged", "e1000", "52:54:00:00:00:0b", "10-lan-replugged.link",
                (("tx", "512"), ("rx", "1024"), ("autoneg", "off"),
                 ("rx_pause", "off"), ("tx_pause", "off"), ("rx_csum", "on")))
COALESCED = Nic("coalesced", "e1000e", "52:54:00:00:00:0c", "10-lan-coalesced.link",
                (("tx", "512"), ("rx", "512"), ("rx_usecs", "125")))
KEPT_SLOT = 3
REPLUG_SLOTS = (4, 5, 6)
E1000E_SLOTS = (7, 8)
E1000E_EVERY = 10  # cycles between the e1000e's re-plugs
DEFAULT_LINK = "/usr/lib/systemd/network/99-default.link"


@dataclass(frozen=True)
class Variant:
    name: str
    files: tuple[str, ...]  # under settings/


LINK = Variant("link", ("10-lan-slot3.link", "10-lan-replugged.link",
                        "10-lan-coalesced.link"))
RULE = Variant("rule", ("90-nic-settings.rules",))


def out_dir(cfg: Config) -> Path:
    """build/BASE/userspace: the guests' consoles and initramfs."""
    return cfg.build / "userspace"


def install_path(text: str) -> str:
    """Where a settings file goes: the path its first line names."""
    first = text.splitlines()[0] if text else ""
    if not first.startswith("# /etc/"):
        raise Failure(f"a settings file must begin with '# /etc/...', not {first!r}")
    return first[2:].strip()


def initrd(cfg: Config, built: guest_kernel.GuestKernel, name: str,
           files: tuple[str, ...]) -> Path:
    """@built's initramfs with udev, ethtool, nic-readback and @files."""
    extra: dict[str, bytes | initramfs.Symlink] = {
        **userland.files(),
        "bin/nic-readback": (HERE / "nic-readback").read_bytes()}
    for f in files:
        body = (SETTINGS / f).read_bytes()
        extra[install_path(body.decode()).lstrip("/")] = body
    return initramfs.for_kernel(out_dir(cfg) / f"initramfs-{name}.cpio", built,
                                agent.build(cfg).read_bytes(), [], extra)


def plug(guest: Guest, nic: Nic, slot: int, variant: Variant | None) -> list[str]:
    """Hot-add @nic at @slot and read it back: what differs from what
    @variant's files set ("field=read (want value)"); with None (a
    control), the .link file wanted is Debian's default."""
    pci = f"0000:00:{slot:02x}.0"
    # No console wait: nic-readback waits for udev to finish with the NIC.
    hotplug.device_add(guest, nic.model, nic.device_id, mac=nic.mac, bus="pci.0",
                       addr=hex(slot))
    lines, rc = guest.shell(f"nic-readback {pci}", TIMEOUT)
    got = readback.parse(lines)
    if rc != 0 or got.errors:
        raise Failure(f"{nic.device_id} at {pci}: {'; '.join(got.errors) or f'rc={rc}'}")
    wrong = readback.mismatches(got, dict(nic.want))
    link = "/etc/systemd/network/" + nic.link_file if variant is LINK else DEFAULT_LINK
    if got.link_file != link:
        wrong.append(f"ID_NET_LINK_FILE={got.link_file or 'missing'} (want {link})")
    return wrong


def unplug(guest: Guest, nic: Nic) -> None:
    """Hot-remove @nic, until QEMU says the guest released it."""
    hotplug.remove(guest, nic.device_id, TIMEOUT, gone=None)


def steps(replugs: int) -> list[tuple[Nic, int]]:
    """The adds of one run, in order: each NIC but KEPT leaves before it
    comes again."""
    out = [(KEPT, KEPT_SLOT), (COALESCED, E1000E_SLOTS[0])]
    for i in range(replugs):
        out.append((REPLUGGED, REPLUG_SLOTS[i % len(REPLUG_SLOTS)]))
        if (i + 1) % E1000E_EVERY == 0:
            out.append((COALESCED, E1000E_SLOTS[(i + 1) // E1000E_EVERY % len(E1000E_SLOTS)]))
    return out


def run_one(cfg: Config, built: guest_kernel.GuestKernel, variant: Variant,
            control: bool, replugs: int) -> tuple[Tally, dict[str, int], str]:
    """Boot @variant's guest, start udev and plug: the tally, the adds
    checked per NIC, and the first add that read back otherwise.

    A @control boots without the variant's files and plugs each NIC
    once; an add counts as checked when every setting the files would
    set reads back otherwise (the driver's default), so that each field
    the variant checks is shown to catch a NIC left unconfigured.
    """
    name = f"{variant.name}-control" if control else variant.name
    k = Kernel(cfg, "patched", built.image,
               initrd(cfg, built, name, () if control else variant.files))
    guest = boot(k, f"userspace-{name}", [], out=out_dir(cfg))
    checked = {n.device_id: 0 for n in (KEPT, REPLUGGED, COALESCED)}
    tally, first = Tally(), ""
    try:
        _, rc = guest.shell(START_UDEV, TIMEOUT)
        if rc != 0:
            raise Failure(f"starting udev in the guest failed (rc={rc}); see "
                          f"{guest.console_log}")
        plugged: set[str] = set()
        todo = steps(replugs)
        if control:
            todo = [next(s for s in todo if s[0] is n) for n in (KEPT, COALESCED, REPLUGGED)]
        for cycle, (nic, slot) in enumerate(todo, 1):
            if nic.device_id in plugged:
                unplug(guest, nic)
            wrong = plug(guest, nic, slot, None if control else variant)
            plugged.add(nic.device_id)
            where = f"add {cycle} ({nic.device_id}, slot {slot})"
            if control:
                unset = [key for key, _ in nic.want
                         if not any(w.startswith(key + "=") for w in wrong)]
                if unset:
                    first = first or f"{where}: {', '.join(unset)} read back as configured"
                else:
                    checked[nic.device_id] += 1
            elif wrong:
                first = f"{where}: {', '.join(wrong)}"
                break
            else:
                checked[nic.device_id] += 1
    finally:
        finish(guest, k, tally)
    return tally, checked, first


def run(cfg: Config, replugs: int = 50) -> list[tuple[str, bool, str]]:
    # Built once, before the guests run two at a time.
    built = guest_kernel.build(cfg, "patched")
    userland.files()
    runs = {f"{v.name}{'-control' if c else ''}": (v, c) for v in (LINK, RULE)
            for c in (False, True)}
    ran = side_by_side(lambda vc: run_one(cfg, built, vc[0], vc[1], replugs), runs)
    rows = []
    for key, (variant, control) in runs.items():
        tally, checked, first = ran[key]
        what = ".link files" if variant is LINK else "udev rule running ethtool"
        trouble = f"kernel trouble: {tally.notes[:1]}" if tally.reports else ""
        if control:
            caught = not first and not trouble and all(checked.values())
            rows.append((f"userspace {variant.name} control", caught,
                         f"without the {what}: every NIC caught at its first add, "
                         "each setting at the driver's default" if caught else
                         f"without the {what}: {first or trouble}: this test is broken"))
            continue
        adds = sum(checked.values())
        ok = not first and not trouble and checked[REPLUGGED.device_id] == replugs
        rows.append((f"userspace {variant.name}", ok,
                     f"{what}: {adds} adds checked ({REPLUGGED.mac} by MAC "
                     f"{checked[REPLUGGED.device_id]} times into slots "
                     f"{', '.join(map(str, REPLUG_SLOTS))}; e1000e "
                     f"{checked[COALESCED.device_id]} adds; slot {KEPT_SLOT} by path "
                     f"once), every setting read back by ethtool; no module parameters"
                     if ok else first or trouble))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replugs", type=int, default=50)
    args = parser.parse_args()
    log("userspace path: systemd-udevd with .link files, and a udev rule "
        "running ethtool; no module parameters")
    cfg = config()
    rows = run(cfg, args.replugs)
    results.save(cfg, "userspace", rows)
    return results.report("userspace", rows, 22)


if __name__ == "__main__":
    main_guard(main)
