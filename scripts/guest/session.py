# SPDX-License-Identifier: GPL-2.0
"""A guest kernel with its initramfs, booted for one run, and ended.

e2e, the reliability runs and the userspace path boot their guests the
same way, with boot(): a built kernel (guest/kernel.py) and an initramfs
holding the agent (guest/initramfs.py), the machine's kernel and QEMU
arguments (qemu-configs/pc-acpi-hotplug.json: the serial console,
panic=-1, -no-reboot), the run's and the variant's, and a wait for the
agent; on the debug kernel, boot's own leaks are marked first. finish()
ends a guest: a kmemleak scan on the debug kernel, then the kernel's
reports of trouble, both into the run's Tally.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

from guest import kernel as guest_kernel, kmemleak
from guest.machine import Guest
from lib.common import Config
from model.verdict import Tally

K = TypeVar("K")
T = TypeVar("T")


def rel_out(cfg: Config) -> Path:
    """build/BASE/rel: the reliability runs' guests and initramfs."""
    return cfg.build / "rel"


@dataclass(frozen=True)
class Kernel:
    cfg: Config  # the base it was built for: where its runs write
    flavour: str
    image: Path
    initrd: Path
    variant: str | None = None

    @property
    def name(self) -> str:
        return f"{self.flavour}-{self.variant}" if self.variant else self.flavour


def boot(kernel: Kernel, run: str, params: list[str],
         qemu_args: list[str] | None = None, memory: int | None = None,
         timeout: float = 180.0, out: Path | None = None,
         qmp_timeout: float | None = None, workdir: Path | None = None) -> Guest:
    """Boot @kernel for @run and wait for the agent; a guest that does not
    get that far is stopped.

    Its console and QMP socket are in @workdir, by default @out/RUN-KERNEL/
    (@out by default the kernel's base's rel_out()).
    The kernel command line is the machine's, @params, then the variant's
    arguments not among them; QEMU's arguments are the machine's, then
    @qemu_args, the variant's and @memory. QEMU has @qmp_timeout (by
    default @timeout) to open its QMP socket; the agent, and on the debug
    kernel the kmemleak mark, have @timeout each.
    """
    kernel_args, args = guest_kernel.variant_args(kernel.variant)
    args = [*(qemu_args or []), *args, *(["-m", str(memory)] if memory else [])]
    where = workdir or (out or rel_out(kernel.cfg)) / f"{run}-{kernel.name}"
    guest = Guest(where, kernel.image, kernel.initrd,
                  params + [a for a in kernel_args if a not in params],
                  extra_args=args,
                  boot_timeout=timeout if qmp_timeout is None else qmp_timeout)
    try:
        guest.wait_ready(timeout)
        if kernel.variant:
            kmemleak.mark_boot(guest, timeout)
    except Exception:
        guest.stop()
        raise
    return guest


def finish(guest: Guest, kernel: Kernel, tally: Tally) -> None:
    """Stop @guest, noting the kernel's reports of trouble in @tally; on the
    debug kernel, a kmemleak scan comes first."""
    try:
        if kernel.variant and guest.proc.poll() is None:
            tally.note_leaks(kmemleak.scan(guest))
    finally:
        guest.stop()
        tally.note_trouble(guest.trouble)


def side_by_side(work: Callable[[K], T], items: dict[str, K]) -> dict[str, T]:
    """work(item) for every item of @items, two at a time: a TCG guest
    uses one core and the machine has two, so the patched run and its
    negative control on the plain kernel go side by side. The results
    are keyed as @items; the first exception a run raises is raised here
    once both are done."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {key: pool.submit(work, item) for key, item in items.items()}
        return {key: future.result() for key, future in futures.items()}
