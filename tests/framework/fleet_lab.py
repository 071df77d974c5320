"""A labgrid lab on loopback for the fleet tests: a coordinator and an exporter on
127.0.0.1, and "boards" that are this machine reached over ssh (a user-run sshd each, on
its own port with its own host key, an authorized key made here), exported as places
with a NetworkService, a NetworkPowerPort (labgrid's `simplerest` model), a
NetworkSerialPort (raw TCP, as a ser2net serves it) and tags.

The power switch is a small HTTP server here: /relay/<i>/1 starts board i's sshd,
/relay/<i>/0 kills it and every process under it (its sessions, the worker, the
workloads), as a power cut would. Each board's serial console is a TCP server (a
thread) that sends every connected client what the board prints: a boot banner at
power-on, then `<board> tick N` every 0.25 s while it is on. Everything is stopped by
`close()`.

Every address a client of the lab is given (the coordinator's in the fleet file, the
places' NetworkService, power switch and serial console, the boards' known hosts) comes
from `reach(port)`: 127.0.0.1 and the port itself by default, a relay's address and port
where the client runs behind one (netem_link.FaultyLink.reach: the link fault tests). The
exporter and the lab's own labgrid-client calls stay on 127.0.0.1.
"""
from __future__ import annotations

import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import yaml
from labgrid.remote.client import start_session
from labgrid.remote.generated import labgrid_coordinator_pb2 as pb

from tests.framework.fleet_checks import LAB_MARK
from tests.framework.repo import ROOT

BIN = Path(sys.executable).parent
SSHD = shutil.which("sshd") or "/usr/sbin/sshd"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


class FakeConsole:
    """A board's serial console as ser2net serves it over raw TCP: what the board prints
    goes to every client connected then; with none connected it is lost."""

    def __init__(self, board: "FakeBoard"):
        self.board = board
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.clients: list[socket.socket] = []
        self.lock = threading.Lock()
        self.closed = threading.Event()
        for loop in (self._accept, self._tick):
            threading.Thread(target=loop, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with self.lock:
                self.clients.append(conn)

    def _tick(self) -> None:
        n = 0
        while not self.closed.wait(0.25):
            if self.board.on:
                n += 1
                self.print(f"{self.board.name} tick {n}")

    def print(self, line: str) -> None:
        with self.lock:
            for conn in list(self.clients):
                try:
                    conn.sendall(line.encode() + b"\r\n")
                except OSError:
                    self.clients.remove(conn)
                    conn.close()

    def hang_up(self) -> None:
        """Close every client's connection (a ser2net restarted)."""
        with self.lock:
            for conn in self.clients:
                conn.shutdown(socket.SHUT_RDWR)
                conn.close()
            self.clients.clear()

    def close(self) -> None:
        self.closed.set()
        self.server.shutdown(socket.SHUT_RDWR)
        self.server.close()
        self.hang_up()


class FakeBoard:
    def __init__(self, index: int, root: Path, client_pub: str):
        self.index, self.name, self.port = index, f"board-{'ab'[index]}", free_port()
        self.dir = root / self.name
        self.dir.mkdir()
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", self.dir / "host_key"], check=True)
        (self.dir / "authorized_keys").write_text(client_pub)
        (self.dir / "sshd_config").write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {self.dir / 'host_key'}\n"
            f"PidFile {self.dir / 'sshd.pid'}\nAuthorizedKeysFile {self.dir / 'authorized_keys'}\n"
            "StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            "PermitRootLogin prohibit-password\nLogLevel ERROR\n"
            # bash skips ~/.bashrc when SHLVL says it is not the login's first shell: the host
            # user's start-up files (pyenv rehash and its lock, which a power cut leaves behind
            # for every later login to wait 60 s on) are not a board's
            # each board stands for a host of its own: its own xtalk leases (host/leases.py)
            f"SetEnv SHLVL=1 XTALK_LOCK_DIR={self.dir / 'locks'}\n")
        self.proc: subprocess.Popen | None = None
        self.console = FakeConsole(self)

    def known_host(self, at: tuple[str, int] | None = None) -> str:
        """Its known_hosts line, for ssh to `at` (address, port; default 127.0.0.1 and its port)."""
        host, port = at or ("127.0.0.1", self.port)
        kind, key = (self.dir / "host_key.pub").read_text().split()[:2]
        return f"[{host}]:{port} {kind} {key}\n"

    @property
    def on(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def power_on(self) -> None:
        if not self.on:
            self.console.print(f"{self.name} power on: booting")
            self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", self.dir / "sshd_config"],
                                         stderr=open(self.dir / "sshd.log", "ab"))
            wait_port(self.port)

    def power_off(self) -> None:
        if self.proc is not None:
            for pid in [self.proc.pid, *descendants(self.proc.pid)]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.wait()
            self.proc = None


class PowerSwitch(http.server.ThreadingHTTPServer):
    """labgrid's simplerest model: GET /relay/<index>/<0|1> switches, /relay/<index> reads."""

    def __init__(self, boards: list[FakeBoard]):
        self.boards, self.log = boards, []
        super().__init__(("127.0.0.1", free_port()), _SwitchHandler)
        threading.Thread(target=self.serve_forever, daemon=True).start()


class _SwitchHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        parts = self.path.strip("/").split("/")
        board = self.server.boards[int(parts[1])]
        if len(parts) == 3:
            self.server.log.append((board.name, parts[2]))
            board.power_on() if parts[2] == "1" else board.power_off()
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"1" if board.on else b"0")

    def log_message(self, *args):
        pass


class FleetLab:
    """`places`: more places to export, name -> labgrid resources (e.g. a Xen lab's
    NetworkService), each tagged board=NAME; `unpowered`: the boards exported without their
    NetworkPowerPort (xtalk cannot restart them; the switch still works for the tests);
    `reach`: a port on 127.0.0.1 -> the (address, port) xtalk reaches it at."""

    def __init__(self, root: Path, boards: int = 2, places: dict[str, dict] | None = None,
                 unpowered: tuple[str, ...] = (), reach: Callable[[int], tuple[str, int]] | None = None):
        self.root = root
        self.reach = reach or (lambda port: ("127.0.0.1", port))
        self.procs: list[subprocess.Popen] = []
        key = root / "client_key"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
        Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation directory (as root)
        self.boards = [FakeBoard(i, root, (root / "client_key.pub").read_text()) for i in range(boards)]
        (root / "known_hosts").write_text("".join(b.known_host(self.reach(b.port)) for b in self.boards))
        self.switch = PowerSwitch(self.boards)
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.reached = "{}:{}".format(*self.reach(self.port))  # the coordinator as the fleet file names it
        self._start([BIN / "labgrid-coordinator", "-l", self.address])
        wait_port(self.port)
        switch = "{}:{}".format(*self.reach(self.switch.server_port))
        exported = {b.name: {
            "NetworkService": dict(zip(("address", "port"), self.reach(b.port)),
                                   username=os.environ.get("USER", "root")),
            **({} if b.name in unpowered else {"NetworkPowerPort": {
                "model": "simplerest", "index": b.index, "host": f"http://{switch}/relay/{{index}}/{{value}}"}}),
            "NetworkSerialPort": {**dict(zip(("host", "port"), self.reach(b.console.port))), "protocol": "raw"},
        } for b in self.boards}
        (root / "exporter.yaml").write_text(yaml.safe_dump(exported | (places or {})))
        self._start([BIN / "labgrid-exporter", "-c", self.address, "-n", "xtalk-test", "--hostname", "127.0.0.1",
                     root / "exporter.yaml"])
        for board in self.boards:
            board.power_on()
        self._places({**{b.name: "loopback" for b in self.boards}, **{name: name for name in places or {}}})

    def _start(self, argv: list) -> None:
        log = open(self.root / f"{Path(argv[0]).name}.log", "ab")
        self.procs.append(subprocess.Popen(argv, cwd=self.root, stdout=log, stderr=log))

    def _places(self, tags: dict[str, str]) -> None:
        """A place per exported group, tagged board=TAG."""
        session = start_session(self.address)
        stub, loop = session.stub, session.loop
        end = time.monotonic() + 20
        while len(session.resources.get("xtalk-test", {})) < len(tags):
            assert time.monotonic() < end, "the exporter did not register its boards"
            loop.run_until_complete(session.sync_with_coordinator())
            time.sleep(0.1)
        for name, tag in tags.items():
            loop.run_until_complete(stub.AddPlace(pb.AddPlaceRequest(name=name)))
            loop.run_until_complete(stub.AddPlaceMatch(pb.AddPlaceMatchRequest(placename=name,
                                                                               pattern=f"xtalk-test/{name}/*")))
            loop.run_until_complete(stub.SetPlaceTags(pb.SetPlaceTagsRequest(placename=name, tags={"board": tag})))
        loop.run_until_complete(session.stop())
        loop.run_until_complete(session.close())

    def fleet(self, mode: str = "spread", extra: str = "", sends: dict[str, str] | None = None, top: str = "") -> Path:
        """The fleet file: one kind of every board, with `extra` in it, and `top` keys above it.
        `sends`: board name -> a case of tests/framework/crafted_tar.py: that board is a kind
        of its own, whose worker sends that tar stream instead of running anything."""
        sends = sends or {}
        rest = [b.name for b in self.boards if b.name not in sends]
        select = f"places = {json.dumps(rest)}" if sends else 'tags = { board = "loopback" }'
        kinds = [self._kind("loopback", select, "xtalk.cli.main") + extra] if rest else []
        kinds += [self._kind(f"sends-{name}", f'places = ["{name}"]', f"tests.framework.crafted_tar {case}")
                  for name, case in sends.items()]
        path = self.root / f"fleet-{mode}.toml"
        path.write_text(f'coordinator = "{self.reached}"\nmode = "{mode}"\nreserve_timeout_s = 20\n{top}\n'
                        + "\n".join(kinds))
        return path

    def _kind(self, name: str, select: str, module: str) -> str:
        """A kind of board reached by its worker, which carries LAB_MARK (fleet_checks.workers)."""
        return (f'[[kinds]]\nname = "{name}"\n{select}\nreach = "worker"\n'
                f'ssh_identity = "client_key"\nssh_known_hosts = "known_hosts"\n'
                f'worker_command = "env {LAB_MARK}={self.root} PYTHONPATH={ROOT / "src"}:{ROOT} {sys.executable} '
                f'-m {module}"\n'
                f'worker_dir = "{ROOT}"\nboot_timeout_s = 20\n')

    def client(self, *args: str) -> str:
        """labgrid-client's own answer (how a user checks what is held)."""
        return subprocess.run([BIN / "labgrid-client", "-x", self.address, *args], capture_output=True, text=True,
                              timeout=60).stdout

    def close(self) -> None:
        for board in self.boards:
            board.power_off()
            board.console.close()
        self.switch.shutdown()
        for proc in reversed(self.procs):
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
