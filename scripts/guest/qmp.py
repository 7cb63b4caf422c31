# SPDX-License-Identifier: GPL-2.0
"""A QMP client on a UNIX socket: ID-routed replies, an event queue, timeouts.

A reader thread takes every message off the socket. Replies go to the
command that sent the matching "id"; events go to a queue that
wait_event() searches, keeping events nobody has asked for yet. Every
wait has a timeout and raises QMPTimeout when it runs out.
"""

from __future__ import annotations

import itertools
import json
import queue
import socket
import threading
import time
from pathlib import Path
from typing import Any, Callable


class QMPError(Exception):
    """QEMU answered a command with an error."""


class QMPTimeout(Exception):
    """A reply or an event did not come in time."""


class QMP:
    def __init__(self, path: Path, timeout: float = 30.0) -> None:
        self._sock = self._connect(path, timeout)
        self._file = self._sock.makefile("rwb", buffering=0)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._replies: dict[str, queue.Queue[dict[str, Any]]] = {}
        self._events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._backlog: list[dict[str, Any]] = []
        self._closed = threading.Event()
        try:
            greeting = json.loads(self._file.readline())
            if "QMP" not in greeting:
                raise QMPError(f"not a QMP greeting: {greeting}")
        except (ValueError, QMPError):
            # The socket is of no use: close it rather than leave it open.
            self._file.close()
            self._sock.close()
            raise
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.command("qmp_capabilities", timeout=timeout)

    @staticmethod
    def _connect(path: Path, timeout: float) -> socket.socket:
        """QEMU creates the socket as it starts: retry until it is there."""
        deadline = time.monotonic() + timeout
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(str(path))
                return sock
            except OSError:
                sock.close()
                if time.monotonic() > deadline:
                    raise QMPTimeout(f"no QMP socket at {path} after {timeout}s")
                time.sleep(0.05)

    def _read(self) -> None:
        try:
            for raw in self._file:
                self._dispatch(json.loads(raw))
        except (OSError, ValueError):
            pass  # the socket was closed under us: QEMU quit or close()
        self._closed.set()

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "event" in msg:
            self._events.put(msg)
            return
        with self._lock:
            box = self._replies.get(str(msg.get("id")))
        if box is not None:
            box.put(msg)

    def command(self, name: str, timeout: float = 10.0, **args: Any) -> Any:
        """Execute @name and return its "return" value."""
        cmd_id = f"cmd-{next(self._ids)}"
        box: queue.Queue[dict[str, Any]] = queue.Queue()
        with self._lock:
            self._replies[cmd_id] = box
        msg: dict[str, Any] = {"execute": name, "id": cmd_id}
        if args:
            msg["arguments"] = args
        try:
            self._file.write(json.dumps(msg).encode() + b"\n")
            reply = box.get(timeout=timeout)
        except queue.Empty:
            raise QMPTimeout(f"no reply to {name} within {timeout}s") from None
        finally:
            with self._lock:
                del self._replies[cmd_id]
        if "error" in reply:
            raise QMPError(f"{name}: {reply['error'].get('desc', reply['error'])}")
        return reply.get("return")

    def wait_event(self, name: str, timeout: float,
                   match: Callable[[dict[str, Any]], object] | None = None) -> dict[str, Any]:
        """Return the first event @name that @match accepts (returns a true
        value for), oldest first."""
        def wanted(ev: dict[str, Any]) -> bool:
            return ev.get("event") == name and (match is None or bool(match(ev)))

        for ev in self._backlog:
            if wanted(ev):
                self._backlog.remove(ev)
                return ev
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise QMPTimeout(f"no {name} event within {timeout}s")
            try:
                ev = self._events.get(timeout=left)
            except queue.Empty:
                continue
            if wanted(ev):
                return ev
            # Keep what nobody waited for yet, but not without bound.
            self._backlog = self._backlog[-999:] + [ev]

    def close(self) -> None:
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
