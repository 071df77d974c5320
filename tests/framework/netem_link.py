"""A faulty network link between xtalk and the Xen lab's dom0, for the link fault tests
(issue 44): xtalk runs in a network namespace of the test's own, joined to this one by a
veth pair; the namespace's packet filter (nftables: `tc netem` is what one would use,
but this host's kernel has no sch_netem, and nftables' `numgen random` drops as netem's
loss does) drops a share of the packets both ways, or all of them (a partition). A relay
thread here forwards the veth address's port to the lab's ssh port on 127.0.0.1 (QEMU's
forward). `drop_masters` kills the ssh master connections of a control directory every
few seconds, as a flaky network or a restarted sshd would.
Caveat: needs root (ip netns, nft); everything made is removed on exit (the namespace
with its rules), the relay's sockets closed, by name and PID only.
"""
from __future__ import annotations

import os
import selectors
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

HOST_IP, NS_IP = "10.213.7.1", "10.213.7.2"


def _ip(*argv: str) -> None:
    subprocess.run(["ip", *argv], check=True, capture_output=True)


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
    """The namespace, the veth pair, and the relay to `target_port` on 127.0.0.1."""

    def __init__(self, target_port: int):
        tag = os.getpid() % 100000
        self.ns, self.host_end, self.ns_end = f"xtalk-link-{tag}", f"xth{tag}", f"xtn{tag}"
        self.target_port = target_port
        self.stop = threading.Event()

    def __enter__(self) -> "FaultyLink":
        _ip("netns", "add", self.ns)
        try:
            _ip("link", "add", self.host_end, "type", "veth", "peer", "name", self.ns_end)
            _ip("link", "set", self.ns_end, "netns", self.ns)
            _ip("addr", "add", f"{HOST_IP}/30", "dev", self.host_end)
            _ip("link", "set", self.host_end, "up")
            for argv in (("addr", "add", f"{NS_IP}/30", "dev", self.ns_end), ("link", "set", self.ns_end, "up"),
                         ("link", "set", "lo", "up")):
                _ip("netns", "exec", self.ns, "ip", *argv)
            self.listener = socket.create_server((HOST_IP, 0))
            self.port = self.listener.getsockname()[1]
            self.relay = threading.Thread(target=self._relay, daemon=True, name="link relay")
            self.relay.start()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        if hasattr(self, "listener"):
            self.listener.close()
            self.relay.join(timeout=5)
        subprocess.run(["ip", "link", "del", self.host_end], capture_output=True)
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)

    def argv(self, *command: str) -> list[str]:
        """`command` run inside the namespace (its traffic to HOST_IP crosses the link)."""
        return ["ip", "netns", "exec", self.ns, *command]

    def drop(self, percent: int) -> None:
        """Drop `percent` % of the packets into and out of the namespace (0: none)."""
        nft = ["ip", "netns", "exec", self.ns, "nft"]
        subprocess.run([*nft, "delete", "table", "inet", "xtalk_fault"], capture_output=True)
        if not percent:
            return
        rules = ["add table inet xtalk_fault"]
        for hook in ("input", "output"):
            rules += [f"add chain inet xtalk_fault {hook} {{ type filter hook {hook} priority 0 ; }}",
                      f"add rule inet xtalk_fault {hook} numgen random mod 100 < {percent} drop"]
        subprocess.run([*nft, "-f", "-"], input="\n".join(rules) + "\n", text=True, check=True, capture_output=True)

    def partition(self, seconds: float) -> None:
        self.drop(100)
        time.sleep(seconds)
        self.drop(0)

    def _relay(self) -> None:
        self.listener.settimeout(0.2)
        while not self.stop.is_set():
            try:
                client, _ = self.listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._pipe, args=(client,), daemon=True).start()

    def _pipe(self, client: socket.socket) -> None:
        try:
            server = socket.create_connection(("127.0.0.1", self.target_port), timeout=10)
        except OSError:
            client.close()
            return
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


def drop_masters(control_dir: Path, every_s: float, stop: threading.Event, dropped: list[int]) -> None:
    """Kill the ssh master connections under control_dir every `every_s` (their PIDs into
    `dropped`) until `stop`."""
    while not stop.wait(every_s):
        for pid in ssh_processes(control_dir):
            try:
                if b"[mux]" in Path(f"/proc/{pid}/cmdline").read_bytes():  # the master (ControlPersist)
                    os.kill(pid, signal.SIGKILL)
                    dropped.append(pid)
            except OSError:
                pass
