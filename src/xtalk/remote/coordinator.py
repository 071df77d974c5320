"""The labgrid coordinator through labgrid's own client API (labgrid.remote.client's
ClientSession over gRPC, labgrid >= 25): find places by name or tags, reserve them
(one reservation per place, filter name=PLACE: labgrid's fair queue between users),
acquire (lock) them, read their resources, release them. The fleet holds its boards'
places through it (fleet/lease.py), an instrument its analyser's place (xtalk.instruments).

xtalk is known to the coordinator as HOST/USER (LG_HOSTNAME, LG_USERNAME override them,
as for labgrid-client). Releases name that identity (`fromuser`), so a release never
takes a place that someone else holds.
Caveat: the session's event loop only runs inside these calls; a session is opened for
a few calls (start, end of a campaign) and closed, never held across a campaign.
"""
from __future__ import annotations

import logging
import time

import grpc
from labgrid.remote.client import Error as LabgridError
from labgrid.remote.client import start_session
from labgrid.remote.common import Reservation, ReservationState
from labgrid.remote.generated import labgrid_coordinator_pb2 as pb

from ..errors import InfrastructureError

POLL_S = 0.5
logging.getLogger("grpc").setLevel(logging.CRITICAL)


class Coordinator:
    def __init__(self, address: str):
        self.address = address
        logging.disable(logging.ERROR)  # labgrid logs an unreachable coordinator itself; we say it once
        try:
            self.session = start_session(address)
        except (LabgridError, OSError, grpc.RpcError) as err:
            raise InfrastructureError(f"labgrid coordinator {address}: cannot connect ({err})") from None
        finally:
            logging.disable(logging.NOTSET)
        self.identity = f"{self.session.gethostname()}/{self.session.getuser()}"

    def __enter__(self) -> "Coordinator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        loop = self.session.loop
        try:
            loop.run_until_complete(self.session.stop())
            loop.run_until_complete(self.session.close())
        except Exception:  # noqa: BLE001 - a coordinator gone away: nothing left to close
            pass

    def call(self, coro, what: str):
        try:
            return self.session.loop.run_until_complete(coro)
        except grpc.aio.AioRpcError as err:
            raise InfrastructureError(f"labgrid coordinator {self.address}: {what}: {err.details()}") from None

    def sync(self) -> None:
        self.call(self.session.sync_with_coordinator(), "sync")

    def select(self, names: list[str], tags: dict[str, str], where: str) -> list[str]:
        """Places by their names (each must exist), or without names every place with the tags."""
        places = self.session.places
        if names:
            missing = [p for p in names if p not in places]
            if missing:
                raise InfrastructureError(f"{where}: no place {', '.join(missing)} at the labgrid coordinator "
                                          f"{self.address} (places: {', '.join(sorted(places)) or 'none'})")
            return list(names)
        found = sorted(n for n, p in places.items() if all(p.tags.get(k) == v for k, v in tags.items()))
        if not found:
            raise InfrastructureError(f"{where}: no place at {self.address} has the tags "
                                      + ", ".join(f"{k}={v}" for k, v in tags.items()))
        return found

    def reserve(self, names: list[str], timeout_s: float, granted) -> None:
        """Reserve every place and wait until labgrid allocates them all; `granted(token)`
        is told each token as soon as it exists. Raises after timeout_s naming who holds
        the places still waiting."""
        tokens = {}
        for name in names:
            request = pb.CreateReservationRequest(filters={"main": pb.Reservation.Filter(filter={"name": name})})
            res = Reservation.from_pb2(self.call(self.session.stub.CreateReservation(request), "reserve").reservation)
            tokens[name] = res.token
            granted(res.token)
        end = time.monotonic() + timeout_s
        waiting = list(names)
        while waiting:
            for name in list(waiting):
                request = pb.PollReservationRequest(token=tokens[name])
                res = Reservation.from_pb2(self.call(self.session.stub.PollReservation(request), "poll").reservation)
                if res.state in (ReservationState.allocated, ReservationState.acquired):
                    waiting.remove(name)
                elif res.state is not ReservationState.waiting:
                    raise InfrastructureError(f"labgrid reservation of place {name} is {res.state.name}")
            if waiting and time.monotonic() > end:
                self.sync()
                held = [f"{n} (held by {self.session.places[n].acquired or 'another reservation'})" for n in waiting]
                raise InfrastructureError(f"labgrid did not allocate {', '.join(held)} within "
                                          f"reserve_timeout_s = {timeout_s:g} s")
            if waiting:
                time.sleep(POLL_S)

    def acquire(self, name: str) -> None:
        self.call(self.session.stub.AcquirePlace(pb.AcquirePlaceRequest(placename=name)), f"acquire {name}")
        self.sync()

    def resources(self, name: str) -> list[dict]:
        """The place's resources as a labgrid target config's `resources` list."""
        try:
            return self.session.get_target_config(self.session.places[name])["resources"]
        except LabgridError as err:
            raise InfrastructureError(f"labgrid place {name}: {err}") from None

    def release(self, places: list[str], tokens: list[str]) -> list[str]:
        """Release the places (if still ours) and cancel the reservations; never raises:
        returns what could not be done."""
        problems = []
        for name in places:
            request = pb.ReleasePlaceRequest(placename=name, fromuser=self.identity)
            try:
                self.session.loop.run_until_complete(self.session.stub.ReleasePlace(request))
            except grpc.aio.AioRpcError as err:
                problems.append(f"release {name}: {err.details()}")
        for token in tokens:
            try:
                self.session.loop.run_until_complete(
                    self.session.stub.CancelReservation(pb.CancelReservationRequest(token=token)))
            except grpc.aio.AioRpcError as err:
                if "does not exist" not in (err.details() or ""):  # expired or cancelled already
                    problems.append(f"cancel reservation {token}: {err.details()}")
        return problems
