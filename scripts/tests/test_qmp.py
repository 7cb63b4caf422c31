# SPDX-License-Identifier: GPL-2.0
"""guest.qmp.QMP against a fake QMP server on a UNIX socket.

The server speaks what QEMU does: a greeting, then one JSON object a line
each way; replies carry the command's "id"; events come whenever.
"""

from __future__ import annotations

import json
import socket
import tempfile
import threading
import time
import unittest
from pathlib import Path
from typing import Any, Callable

from guest.qmp import QMP, QMPError, QMPTimeout

GREETING = {"QMP": {"version": {"qemu": {"major": 9, "minor": 2, "micro": 0},
                                "package": ""}, "capabilities": ["oob"]}}


def event(name: str, **data: Any) -> dict[str, Any]:
    return {"event": name, "data": data,
            "timestamp": {"seconds": 1700000000, "microseconds": 1}}


class FakeQEMU:
    """One QMP connection served by a thread, with scripted answers.

    @guest, when given, is told of each command as it arrives, before
    QEMU answers: what the guest does about it (a probe's console lines,
    tests/test_hotplug.py). A device in @unreleased is one the guest never
    ejects: device_del is answered, DEVICE_DELETED never comes.
    """

    def __init__(self, path: Path,
                 guest: Callable[[str, dict[str, Any]], None] | None = None,
                 unreleased: tuple[str, ...] = ()) -> None:
        self.received: list[dict[str, Any]] = []
        self.guest = guest
        self.unreleased = set(unreleased)
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(path))
        self._server.listen(1)
        self._held: dict[str, str] = {}  # command name -> id not answered yet
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        conn, _ = self._server.accept()
        with conn, conn.makefile("rwb", buffering=0) as f:
            def send(msg: dict[str, Any]) -> None:
                f.write(json.dumps(msg).encode() + b"\r\n")

            send(GREETING)
            for raw in f:
                msg = json.loads(raw)
                self.received.append(msg)
                if self.guest is not None:
                    self.guest(msg["execute"], msg.get("arguments", {}))
                for out in self.answer(msg["execute"], msg.get("id"),
                                       msg.get("arguments", {})):
                    send(out)

    def answer(self, name: str, cmd_id: Any,
               args: dict[str, Any]) -> list[dict[str, Any]]:
        """The messages QEMU sends after command @name."""
        if name == "qmp_capabilities":
            return [{"return": {}, "id": cmd_id}]
        if name == "query-status":
            return [{"return": {"status": "running", "running": True}, "id": cmd_id}]
        if name == "device_add" and args.get("driver") == "nonesuch":
            return [{"error": {"class": "GenericError",
                               "desc": "'nonesuch' is not a valid device model name"},
                     "id": cmd_id}]
        if name == "device_add":
            return [{"return": {}, "id": cmd_id}]
        if name == "device_del" and args["id"] in self.unreleased:
            return [{"return": {}, "id": cmd_id}]
        if name == "device_del":
            # QEMU's order on a quick unplug: the events, then the reply.
            return [event("DEVICE_DELETED", path=f"/machine/peripheral/{args['id']}/virtio-backend"),
                    event("DEVICE_DELETED", device=args["id"],
                          path=f"/machine/peripheral/{args['id']}"),
                    {"return": {}, "id": cmd_id}]
        if name in ("hang", "slow"):
            self._held[name] = cmd_id  # answered later, or never
            return []
        if name == "fast":
            # A stray reply with an id nobody waits for, the held "slow"
            # reply, then this command's own, out of order.
            out = [{"return": "stray", "id": "cmd-999"}]
            if "slow" in self._held:
                out.append({"return": "slow done", "id": self._held.pop("slow")})
            return out + [{"return": "fast done", "id": cmd_id}]
        if name == "after-hang":
            # The reply to the command that timed out comes late.
            return [{"return": "late", "id": self._held.pop("hang")},
                    {"return": "mine", "id": cmd_id}]
        if name == "emit":
            return [event("RESET", guest=True, reason="guest-reset"),
                    {"return": {}, "id": cmd_id},
                    event("POWERDOWN")]
        return [{"error": {"class": "CommandNotFound",
                           "desc": f"The command {name} has not been found"},
                 "id": cmd_id}]

    def close(self) -> None:
        self._server.close()
        self._thread.join(timeout=5)


class QMPTest(unittest.TestCase):
    """Commands, replies and events through the client."""

    def setUp(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="qmp-test-")
        path = Path(self._dir.name) / "qmp.sock"
        self.qemu = FakeQEMU(path)
        self.qmp = QMP(path, timeout=5)

    def tearDown(self) -> None:
        self.qmp.close()
        self.qemu.close()
        self._dir.cleanup()

    def test_handshake(self) -> None:
        """The client reads the greeting and negotiates capabilities first,
        with an id."""
        self.assertEqual(self.qemu.received[0]["execute"], "qmp_capabilities")
        self.assertIn("id", self.qemu.received[0])

    def test_command_returns_its_reply(self) -> None:
        """command() returns the "return" value of the reply with its id,
        and sends the arguments."""
        self.assertEqual(self.qmp.command("query-status"),
                         {"status": "running", "running": True})
        self.assertEqual(self.qmp.command("device_del", id="nic0"), {})
        self.assertEqual(self.qemu.received[-1]["arguments"], {"id": "nic0"})
        ids = [m["id"] for m in self.qemu.received]
        self.assertEqual(len(ids), len(set(ids)))

    def test_replies_routed_by_id(self) -> None:
        """Two commands in flight, answered out of order with a stray reply
        between: each gets its own."""
        slow: list[Any] = []
        thread = threading.Thread(target=lambda: slow.append(self.qmp.command("slow")))
        thread.start()
        deadline = time.monotonic() + 5
        while not any(m["execute"] == "slow" for m in self.qemu.received):
            self.assertLess(time.monotonic(), deadline, "slow never reached the server")
            time.sleep(0.01)
        self.assertEqual(self.qmp.command("fast"), "fast done")
        thread.join(timeout=5)
        self.assertEqual(slow, ["slow done"])

    def test_error_reply_raises(self) -> None:
        """An error reply raises QMPError with QEMU's description."""
        with self.assertRaisesRegex(QMPError, "not a valid device model"):
            self.qmp.command("device_add", driver="nonesuch", id="x")
        with self.assertRaisesRegex(QMPError, "has not been found"):
            self.qmp.command("no-such-command")

    def test_event_before_reply(self) -> None:
        """Events sent before a command's reply do not take its place, and
        wait_event() finds them afterwards, the one @match accepts."""
        self.assertEqual(self.qmp.command("device_del", id="nic0"), {})
        ev = self.qmp.wait_event("DEVICE_DELETED", 1,
                                 match=lambda e: e["data"].get("device") == "nic0")
        self.assertEqual(ev["data"]["path"], "/machine/peripheral/nic0")

    def test_skipped_events_kept(self) -> None:
        """Events passed over while waiting for another stay for a later
        wait_event(), oldest first."""
        self.qmp.command("emit")
        self.assertEqual(self.qmp.wait_event("POWERDOWN", 1)["event"], "POWERDOWN")
        self.assertEqual(self.qmp.wait_event("RESET", 0.1)["data"]["reason"],
                         "guest-reset")
        with self.assertRaises(QMPTimeout):
            self.qmp.wait_event("RESET", 0.1)

    def test_wait_event_times_out(self) -> None:
        """No event: QMPTimeout, after about the timeout."""
        began = time.monotonic()
        with self.assertRaisesRegex(QMPTimeout, "SHUTDOWN"):
            self.qmp.wait_event("SHUTDOWN", 0.2)
        self.assertLess(time.monotonic() - began, 2)

    def test_match_rejects(self) -> None:
        """An event of the name that @match refuses is not returned."""
        self.qmp.command("device_del", id="nic1")
        with self.assertRaises(QMPTimeout):
            self.qmp.wait_event("DEVICE_DELETED", 0.2,
                                match=lambda e: e["data"].get("device") == "nic9")

    def test_reply_never_comes(self) -> None:
        """A command QEMU never answers raises QMPTimeout; its late reply
        is dropped, and the next command gets its own reply."""
        began = time.monotonic()
        with self.assertRaisesRegex(QMPTimeout, "no reply to hang"):
            self.qmp.command("hang", timeout=0.2)
        self.assertLess(time.monotonic() - began, 2)
        self.assertEqual(self.qmp.command("after-hang"), "mine")


class QMPConnectTest(unittest.TestCase):
    """Connecting to a socket that is not there (yet)."""

    def test_no_socket_times_out(self) -> None:
        """No QEMU behind the path: QMPTimeout after the timeout."""
        with tempfile.TemporaryDirectory(prefix="qmp-test-") as tmp:
            with self.assertRaises(QMPTimeout):
                QMP(Path(tmp) / "absent.sock", timeout=0.2)

    def test_not_a_greeting(self) -> None:
        """Something that does not greet as QMP is refused."""
        with tempfile.TemporaryDirectory(prefix="qmp-test-") as tmp:
            path = Path(tmp) / "other.sock"
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind(str(path))
            server.listen(1)

            def serve() -> None:
                conn, _ = server.accept()
                with conn:
                    conn.sendall(b'{"hello": "world"}\n')

            thread = threading.Thread(target=serve, daemon=True)
            thread.start()
            with self.assertRaisesRegex(QMPError, "not a QMP greeting"):
                QMP(path, timeout=2)
            server.close()
            thread.join(timeout=5)


if __name__ == "__main__":
    unittest.main()
