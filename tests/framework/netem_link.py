"""A faulty network link between xtalk and what it drives, for the link fault tests
(issue 44): xtalk runs in a network namespace of the test's own, joined to this one by a
veth pair; the namespace's packet filter (nftables: `tc netem` is what one would use,
but this host's kernel has no sch_netem, and nftables' `numgen random` drops as netem's
loss does) drops a share of the packets both ways, or all of them (a partition). Relay
threads here forward ports of the veth address to ports on 127.0.0.1: one given at the
start (the Xen lab's ssh port, QEMU's forward: `port`), and any more asked for with
`relay(port)` (the fleet lab's coordinator, boards' sshd, power switch and consoles).
`cut(ports)` closes the relayed connections to those ports at once (a connection lost in
the network: each end sees it closed). `drop_masters` kills the ssh master connections
of a control directory every few seconds, as a flaky network or a restarted sshd would.
Each link has a /30 of 10.213.0.0/16 of its own (from its PID on, the first that no
interface here holds): two links at once (two test workers) on one subnet would have the
host's replies for one namespace routed into the other's, whose connections then fail.
Caveat: needs root (ip netns, nft); everything made is removed on exit (the namespace
with its rules), the relay's sockets closed, by name and PID only.
"""
from __future__ import annotations

import ipaddress
import itertools
import os
import selectors
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

LINK_NETS = ipaddress.ip_network("10.213.0.0/16")
MADE = itertools.count()  # links made by this process: each its own namespace and veth names


def _ip(*argv: str) -> None:
    subprocess.run(["ip", *argv], check=True, capture_output=True)


def free_subnet(start: int) -> tuple[str, str]:
    """(host end's address, namespace end's) of the first /30 of LINK_NETS, from the
    `start`-th on, whose host address no interface here has."""
    used = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True, check=True).stdout
    count = LINK_NETS.num_addresses // 4
    for i in range(count):
        base = LINK_NETS.network_address + 4 * ((start + i) % count)
        if f" {base + 1}/" not in used:
            return str(base + 1), str(base + 2)
    raise RuntimeError(f"every /30 of {LINK_NETS} is in use on this host")


def usable() -> str | None:
    """None where a namespace and netem can be made here, else why not."""
    name = f"xtalk-probe-{os.getpid()}"
    try:
        _ip("netns", "add", name)
    except (subprocess.CalledProcessError, FileNotFoundError) as err:
        return f"no network namespace here ({err})"
    try:
        subprocess.run(["ip", "netns", "exec", name, "nft", "add", "table", "inet", "probe"], check=True,
                       capture_output=True)
    except (subprocess.CalledProcessError, FileNotFoundError) as err:
        return f"no nftables here to drop packets with ({err}; apt-get install nftables)"
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True)
    return None


class FaultyLink:
    """The namespace, the veth pair, and relays from `host_ip` (the host's end) to ports on
    127.0.0.1 (`target_port`'s relay, if given, is `port`)."""

    def __init__(self, target_port: int | None = None):
        tag = f"{os.getpid() % 100000}x{next(MADE)}"  # (an interface's name is at most 15 bytes)
        self.ns, self.host_end, self.ns_end = f"xtalk-link-{tag}", f"xth{tag}", f"xtn{tag}"
        self.target_port = target_port
        self.stop = threading.Event()
        self.relays: dict[int, tuple[socket.socket, threading.Thread]] = {}  # target port -> listener, its thread
        self.live: dict[int, set[socket.socket]] = {}  # target port -> the relayed connections' sockets
        self.lock = threading.Lock()
        self.dropped = 0  # packets the filter dropped, counted when its rules are replaced

    def __enter__(self) -> "FaultyLink":
        self.host_ip, self.ns_ip = free_subnet(os.getpid())
        _ip("netns", "add", self.ns)
        try:
            _ip("link", "add", self.host_end, "type", "veth", "peer", "name", self.ns_end)
            _ip("link", "set", self.ns_end, "netns", self.ns)
            _ip("addr", "add", f"{self.host_ip}/30", "dev", self.host_end)
            _ip("link", "set", self.host_end, "up")
            for argv in (("addr", "add", f"{self.ns_ip}/30", "dev", self.ns_end), ("link", "set", self.ns_end, "up"),
                         ("link", "set", "lo", "up")):
                _ip("netns", "exec", self.ns, "ip", *argv)
            if self.target_port is not None:
                self.port = self.relay(self.target_port)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for listener, thread in self.relays.values():
            listener.close()
            thread.join(timeout=5)
        self.cut(*self.live)
        subprocess.run(["ip", "link", "del", self.host_end], capture_output=True)
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)

    def relay(self, target_port: int) -> int:
        """The port on host_ip that reaches 127.0.0.1:`target_port` (made on first ask)."""
        if target_port not in self.relays:
            listener = socket.create_server((self.host_ip, 0))
            listener.settimeout(0.2)  # its thread sees `stop` between accepts
            thread = threading.Thread(target=self._accept, args=(listener, target_port), daemon=True,
                                      name=f"link relay {target_port}")
            self.relays[target_port] = (listener, thread)
            self.live[target_port] = set()
            thread.start()
        return self.relays[target_port][0].getsockname()[1]

    def reach(self, target_port: int) -> tuple[str, int]:
        """(address, port) that reaches 127.0.0.1:`target_port` from inside the namespace."""
        return self.host_ip, self.relay(target_port)

    def cut(self, *target_ports: int) -> int:
        """Close every relayed connection to these ports, both ends; how many were."""
        with self.lock:
            doomed = [s for port in target_ports for s in self.live.get(port, ())]
        for sock in doomed:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        return len(doomed) // 2

    def argv(self, *command: str) -> list[str]:
        """`command` run inside the namespace (its traffic to host_ip crosses the link)."""
        return ["ip", "netns", "exec", self.ns, *command]

    def drop(self, percent: int) -> None:
        """Drop `percent` % of the packets into and out of the namespace (0: none; 100: all,
        a partition); the packets dropped so far are added to `dropped`."""
        nft = ["ip", "netns", "exec", self.ns, "nft"]
        listed = subprocess.run([*nft, "list", "table", "inet", "xtalk_fault"], capture_output=True, text=True)
        self.dropped += sum(
            int(w.split()[1]) for w in listed.stdout.split("counter")[1:])  # "counter packets N bytes M drop"
        subprocess.run([*nft, "delete", "table", "inet", "xtalk_fault"], capture_output=True)
        if not percent:
            return
        which = "" if percent >= 100 else f"numgen random mod 100 < {percent} "  # nft: mod 100 is 0..99
        rules = ["add table inet xtalk_fault"]
        for hook in ("input", "output"):
            rules += [f"add chain inet xtalk_fault {hook} {{ type filter hook {hook} priority 0 ; }}",
                      f"add rule inet xtalk_fault {hook} {which}counter drop"]
        subprocess.run([*nft, "-f", "-"], input="\n".join(rules) + "\n", text=True, check=True, capture_output=True)

    def partition(self, seconds: float) -> None:
        self.drop(100)
        time.sleep(seconds)
        self.drop(0)

    def _accept(self, listener: socket.socket, target_port: int) -> None:
        while not self.stop.is_set():
            try:
                client, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._pipe, args=(client, target_port), daemon=True).start()

    def _pipe(self, client: socket.socket, target_port: int) -> None:
        try:
            server = socket.create_connection(("127.0.0.1", target_port), timeout=10)
        except OSError:
            client.close()
            return
        with self.lock:
            self.live[target_port] |= {client, server}
        sel = selectors.DefaultSelector()
        for a, b in ((client, server), (server, client)):
            a.setblocking(False)
            sel.register(a, selectors.EVENT_READ, b)
        try:
            while not self.stop.is_set():
                for key, _ in sel.select(0.2):
                    try:
                        data = key.fileobj.recv(65536)
                    except BlockingIOError:
                        continue
                    if not data:
                        return
                    key.data.setblocking(True)
                    key.data.sendall(data)
                    key.data.setblocking(False)
        except OSError:
            return
        finally:
            with self.lock:
                self.live[target_port] -= {client, server}
            sel.close()
            client.close()
            server.close()


def ssh_processes(control_dir: Path) -> list[int]:
    """PIDs of ssh processes whose command line names `control_dir` (masters and clients)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        name = cmdline[0] if cmdline else b""
        # a client's argv[0] is its path; a ControlPersist master's title is "ssh: <control path> [mux]"
        if (name.endswith(b"ssh") or name.startswith(b"ssh: ")) and any(str(control_dir).encode() in a for a in cmdline):
            found.append(int(proc.name))
    return found


def is_master(pid: int) -> bool:
    """Whether `pid` is an ssh master connection (ControlPersist's title ends "[mux]")."""
    try:
        return b"[mux]" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def drop_masters(control_dir: Path, every_s: float, stop: threading.Event, dropped: list[int]) -> None:
    """Kill the ssh master connections under control_dir every `every_s` (their PIDs into
    `dropped`) until `stop`."""
    while not stop.wait(every_s):
        for pid in filter(is_master, ssh_processes(control_dir)):
            try:
                os.kill(pid, signal.SIGKILL)
                dropped.append(pid)
            except OSError:
                pass
