"""A QEMU guest: the process, its serial console and its QMP socket.

The console (serial on stdio) is read by a thread into a log file and a
line queue that wait_console() searches with a timeout. Every line is
also checked for the kernel's own reports of trouble (BUG, WARNING,
Oops, Call Trace, KASAN, kmemleak), which fail the run.
"""

from __future__ import annotations

import json
import queue
import re
import subprocess
import threading
import time
from pathlib import Path

from common import REPO, TROUBLE, Failure
from qmp import QMP

MACHINES = REPO / "qemu-configs"


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
        self._lines: queue.Queue[str] = queue.Queue()
        cmd = [spec["binary"], *spec["args"],
               "-kernel", str(kernel), "-initrd", str(initrd),
               "-append", " ".join(spec["kernel_args"] + kernel_args),
               "-serial", "stdio",
               "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
               *(extra_args or [])]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
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
        with self.console_log.open("w") as log:
            for raw in self.proc.stdout:
                line = raw.decode(errors="replace").rstrip("\r\n")
                log.write(line + "\n")
                log.flush()
                if TROUBLE.search(line):
                    self.trouble.append(line)
                self._lines.put(line)

    def wait_console(self, pattern: str, timeout: float) -> re.Match[str]:
        """First console line from now on that matches @pattern."""
        return self.collect_until(pattern, timeout)[1]

    def collect_until(self, pattern: str,
                      timeout: float) -> tuple[list[str], re.Match[str]]:
        """Console lines from now on up to the first matching @pattern."""
        regex = re.compile(pattern)
        seen: list[str] = []
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
