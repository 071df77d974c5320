"""The link fault tests' faulty link (tests/framework/netem_link.py): two links at once
(the fleet's and the Xen lab's link fault tests on two workers) each get a subnet of their
own, and a client in each namespace reaches 127.0.0.1 here through its own relay. On one
subnet for both, the host's replies for one namespace went into the other's, and the
fleet's coordinator connection failed while the Xen lab's link test ran."""
from __future__ import annotations

import socket
import subprocess
import sys
import threading

import pytest

from tests.framework import netem_link

CLIENT = ("import socket, sys; s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10); "
          "s.sendall(b'ping'); print(s.recv(16).decode())")


@pytest.fixture
def echo_port():
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"echo " + conn.recv(16))
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


def test_two_links_at_once_each_reach_this_host_through_their_own_subnet(echo_port):
    why = netem_link.usable()
    if why:
        pytest.skip(why)
    with netem_link.FaultyLink() as first, netem_link.FaultyLink() as second:
        assert first.host_ip != second.host_ip
        for link in (second, first):
            address, port = link.reach(echo_port)
            res = subprocess.run(link.argv(sys.executable, "-c", CLIENT, address, str(port)),
                                 capture_output=True, text=True, timeout=30)
            assert res.stdout.strip() == "echo ping", res.stderr
