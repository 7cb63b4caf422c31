# SPDX-License-Identifier: GPL-2.0
"""A QEMU guest: the process, its serial console and its QMP socket.

The console (serial on stdio) is read by a thread into a log file and a
line queue (console lines, with guest programs' lines that a kernel
message split put back together: see ConsoleLines) that wait_console() searches with a timeout. Every line is
also checked for the kernel's own reports of trouble (BUG, WARNING,
Oops, Call Trace, KASAN, kmemleak), which fail the run; the one stack
that is not trouble is the one the fault-injection framework prints with
each fault it injects on purpose. shell() runs a command in the guest
through the same serial line (see initramfs.init_script()).
"""

from __future__ import annotations

import itertools
import json
import queue
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import TextIO

from guest.qmp import QMP
from lib.common import REPO, TROUBLE, Failure

# The fault-injection framework's own message for a fault it injected on
# purpose; the stack it dumps next is expected, not trouble.
INJECTED = re.compile(r"FAULT_INJECTION: forcing a failure")
# A kernel console record begins with its timestamp (CONFIG_PRINTK_TIME).
KERNEL_RECORD = re.compile(r"\[\s*\d+\.\d{6}\]")

MACHINES = REPO / "qemu-configs"


class ConsoleLines:
    """Serial console bytes, cut into lines, one writer's text per line.

    The kernel writes each message to the console in one piece, but a
    guest program's line goes out through the tty, and a kernel message
    can land in the middle of it: "NICWATCH add ... up=0[   12.3] e1000
    ...", then the rest of the program's line on a line of its own. Such
    a line is cut at the message's timestamp; the program's line is put
    back together from the next line that is not a kernel message, and
    comes out first, since the program began it first: the messages that
    cut into it belong with what happened after it.
    """

    def __init__(self) -> None:
        self._pending: str | None = None
        self._held: list[str] = []

    def feed(self, line: str) -> list[str]:
        """The whole lines that @line (one line of raw console) completes."""
        m = KERNEL_RECORD.search(line)
        if m and m.start() > 0 and not KERNEL_RECORD.match(line):
            # A program's line (or the rest of one) that a message cut.
            self._pending = (self._pending or "") + line[:m.start()]
            line = line[m.start():]
        elif not m and self._pending is not None:
            # The rest of the program's line: it comes out whole, then
            # the messages that cut into it.
            out = [self._pending + line, *self._held]
            self._pending, self._held = None, []
            return out
        pieces = []
        while (m := KERNEL_RECORD.search(line, 1)):
            # Kernel messages one after another whose newline was lost.
            pieces.append(line[:m.start()])
            line = line[m.start():]
        pieces.append(line)
        if self._pending is not None:
            self._held += pieces
            return []
        return pieces

    def flush(self) -> list[str]:
        """What is still waiting when the console closes."""
        out = [] if self._pending is None else [self._pending]
        out, self._pending, self._held = out + self._held, None, []
        return out


class Guest:
    def __init__(self, workdir: Path, kernel: Path, initrd: Path,
                 kernel_args: list[str], machine: str = "pc-acpi-hotplug",
                 boot_timeout: float = 60.0,
                 extra_args: list[str] | None = None) -> None:
        spec = json.loads((MACHINES / f"{machine}.json").read_text())
        workdir.mkdir(parents=True, exist_ok=True)
        self.qmp_path = workdir / "qmp.sock"
        self.qmp_path.unlink(missing_ok=True)
        self.console_log = workdir / "console.log"
        self.trouble: list[str] = []
        self.injected = 0  # faults the guest kernel reported injecting
        self._lines: queue.Queue[str] = queue.Queue()
        self._commands = itertools.count(1)
        cmd = [spec["binary"], *spec["args"],
               "-kernel", str(kernel), "-initrd", str(initrd),
               "-append", " ".join(spec["kernel_args"] + kernel_args),
               "-serial", "stdio",
               "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
               *(extra_args or [])]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            self.qmp = QMP(self.qmp_path, timeout=boot_timeout)
        except Exception:
            self.stop()
            raise

    def _read(self) -> None:
        assert self.proc.stdout is not None
        self._expect_stack = False
        lines = ConsoleLines()
        with self.console_log.open("w") as log:
            for raw in self.proc.stdout:
                for line in lines.feed(raw.decode(errors="replace").rstrip("\r\n")):
                    self._take(line, log)
            for line in lines.flush():
                self._take(line, log)

    def _take(self, line: str, log: TextIO) -> None:
        log.write(line + "\n")
        log.flush()
        if INJECTED.search(line):
            self.injected += 1
            self._expect_stack = True
        elif self._expect_stack and "Call Trace:" in line:
            self._expect_stack = False
        elif TROUBLE.search(line):
            self.trouble.append(line)
        self._lines.put(line)

    def wait_console(self, pattern: str, timeout: float) -> re.Match[str]:
        """First console line from now on that matches @pattern."""
        return self.collect_until(pattern, timeout)[1]

    def collect_until(self, pattern: str, timeout: float,
                      seen: list[str] | None = None) -> tuple[list[str], re.Match[str]]:
        """Console lines from now on up to the first matching @pattern.

        With @seen, the lines go into that list, so that a caller who
        retries after a timeout keeps the ones read before it.
        """
        regex = re.compile(pattern)
        seen = [] if seen is None else seen
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure(f"console: no line matching {pattern!r} within "
                              f"{timeout}s (see {self.console_log})")
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                if self.proc.poll() is not None:
                    raise Failure(f"QEMU exited ({self.proc.returncode}) while "
                                  f"waiting for {pattern!r}; see {self.console_log}")
                continue
            seen.append(line)
            m = regex.search(line)
            if m:
                return seen, m

    def drain(self) -> list[str]:
        """The console lines queued and not yet read, read now."""
        lines = []
        while True:
            try:
                lines.append(self._lines.get_nowait())
            except queue.Empty:
                return lines

    def wait_ready(self, timeout: float) -> None:
        """Wait for the agent and for the shell that runs shell()'s
        commands (initramfs.init_script()), in whichever order they come."""
        waiting = {"SHELL", "NICWATCH"}
        while waiting:
            waiting.discard(self.wait_console(r"(SHELL|NICWATCH) ready",
                                              timeout=timeout).group(1))

    def shell(self, command: str, timeout: float) -> tuple[list[str], int]:
        """Run @command in the guest's shell: its console lines, exit status."""
        tag = f"SHELL{next(self._commands)}"
        # The shell assembles the marker, so the command's own text could
        # never match it, even if the console echoed it.
        script = f'{command}\necho "{tag}""-DONE rc=$?"\n'
        # The emulated 16550 passes received bytes on at its FIFO trigger
        # level, and the tail of a burst below it can wait for more input:
        # blank lines after the command (sh ignores them) push it through.
        self._write(script + "\n" * 16)
        lines: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                _, m = self.collect_until(rf"{tag}-DONE rc=(\d+)", 1.0, lines)
                return lines[:-1], int(m.group(1))
            except Failure:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise Failure(f"guest shell: no end of {command[:60]!r} within "
                                  f"{timeout}s (see {self.console_log})") from None
                # Should the tail still be held (see above), more blank
                # lines push it through.
                self._write("\n" * 16)

    def _write(self, text: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(text.encode())
            self.proc.stdin.flush()
        except OSError as err:
            raise Failure(f"cannot write to the guest console: {err}") from None

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                self.qmp.command("quit", timeout=5)
            except Exception:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._reader.join(timeout=5)
