"""host/leases.py: CPU and campaign-directory leases, each a flock on a file in the lock
directory; refused, queued, taken over from a dead holder, given back on the way out."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

import pytest

from tests.framework.repo import ROOT
from tests.framework.specs import MINIMAL_SPEC
from xtalk.running.campaign import used_cpus
from xtalk.errors import UsageError
from xtalk.host import leases
from xtalk.host.leases import Holder, Leases, cpu_leases, directory_lease, lock_dir
from xtalk.spec.plan import plan
from xtalk.spec.load import parse_campaign

CPU0 = cpu_leases("", [0])


@pytest.fixture
def locks(tmp_path, monkeypatch):
    monkeypatch.setenv(leases.ENV, str(tmp_path / "locks"))
    return tmp_path / "locks"


PIDS = {"other": 4242, "first": 4242, "second": 4243, "third": 4244}  # other processes (one process shares what it holds)


def other(campaign: str = "other") -> Leases:
    return Leases(Holder(PIDS[campaign], campaign, "results in /elsewhere"))


def test_a_held_cpu_is_refused_naming_it_and_its_holder(locks):
    with other() as first:
        first.take(cpu_leases("", [0, 1]))
        record = json.loads((locks / "cpu1.lock").read_text())
        assert record == {"pid": 4242, "campaign": "other", "where": "results in /elsewhere", "lease": "CPU 1"}
        with pytest.raises(UsageError) as refused, Leases(Holder.me("mine", "results in out")) as second:
            second.take(cpu_leases("", [1, 2]))
    assert "CPU 1 is in use by campaign 'other' (PID 4242, results in /elsewhere)" in str(refused.value)
    assert "--wait" in str(refused.value) and "CPU 2" not in str(refused.value)
    assert not list(locks.iterdir())  # every lease given back, its file removed


def test_all_or_none_a_refused_take_holds_nothing(locks):
    with other() as first, other("third") as third:
        first.take(cpu_leases("", [1]))
        with pytest.raises(UsageError):
            other("second").take(cpu_leases("", [0, 1]))
        third.take(CPU0)  # the refused one did not keep CPU 0
        assert third.held


def test_a_dead_holders_file_is_taken_over(locks):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    locks.mkdir()
    (locks / "cpu0.lock").write_text(json.dumps({"pid": int(dead.stdout), "campaign": "gone", "where": "x"}))
    with Leases(Holder.me("mine", "results in out")) as mine:
        mine.take(CPU0)
        assert json.loads((locks / "cpu0.lock").read_text())["pid"] == os.getpid()


def test_a_sigkilled_holders_lease_is_free(locks):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from xtalk.host.leases import *\n"
         "l = Leases(Holder.me('killed', 'results in x')); l.take(cpu_leases('', [0])); print('held', flush=True)\n"
         "sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))
    assert holder.stdout.readline() == "held\n"
    with pytest.raises(UsageError, match=f"'killed' \\(PID {holder.pid},"):
        other().take(CPU0)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    with other() as after:
        after.take(CPU0)


def test_wait_tells_once_and_takes_it_when_given_back(locks, monkeypatch):
    monkeypatch.setattr(leases, "POLL_S", 0.01)
    told: list[str] = []
    waiting = threading.Event()
    first = other("first")
    first.take(CPU0)
    second = Leases(Holder.me("second", "results in out"), wait=True,
                    tell=lambda line: (told.append(line), waiting.set()))
    taker = threading.Thread(target=second.take, args=(CPU0,))
    taker.start()
    assert waiting.wait(30)
    assert taker.is_alive()
    first.release()
    taker.join(30)
    assert not taker.is_alive() and second.held
    assert told == ["xtalk: waiting: CPU 0 is in use by campaign 'first' (PID 4242, results in /elsewhere)"]
    second.release()


def test_a_file_given_back_while_it_was_being_locked_is_locked_afresh(locks, monkeypatch):
    real, calls = leases._open, []

    def given_back_between_open_and_lock(path):
        fd = real(path)
        if not calls:
            path.unlink()  # its holder gave it back: the lock below is on a file nobody else sees
        calls.append(path)
        return fd

    monkeypatch.setattr(leases, "_open", given_back_between_open_and_lock)
    with other() as mine:
        mine.take(CPU0)
        assert len(calls) == 2
        with pytest.raises(UsageError, match="CPU 0 is in use"):
            other("second").take(CPU0)


def test_a_process_takes_again_what_it_holds_until_the_last_gives_it_back(locks):
    with Leases(Holder.me("search", "results in out")) as whole:
        whole.take(cpu_leases("", [0, 1]))
        with Leases(Holder.me("trial", "results in out")) as trial:
            trial.take(cpu_leases("", [1]))
            with pytest.raises(UsageError, match="CPU 0 is in use by campaign 'search'"):
                other().take(CPU0)
        assert (locks / "cpu1.lock").exists()  # the trial ended: the search holds it still
        with pytest.raises(UsageError, match="CPU 1 is in use"):
            other().take(cpu_leases("", [1]))
    assert not list(locks.iterdir())
    with other() as after:
        after.take(cpu_leases("", [0, 1]))


def test_names_say_whose_cpus_and_which_directory(tmp_path):
    assert cpu_leases("xen root@board:22", [3, 1, 3]) == {"xen-root-board-22-cpu1": "CPU 1 of xen root@board:22",
                                                          "xen-root-board-22-cpu3": "CPU 3 of xen root@board:22"}
    (tmp_path / "c").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "c")
    assert directory_lease(tmp_path / "link") == directory_lease(tmp_path / "c")
    assert list(directory_lease(tmp_path / "c").values()) == [f"campaign directory {tmp_path / 'c'}"]


def test_the_lock_directory_is_the_env_or_a_shared_one(tmp_path, monkeypatch):
    monkeypatch.setenv(leases.ENV, str(tmp_path / "mine"))
    assert lock_dir() == tmp_path / "mine" and (tmp_path / "mine").is_dir()
    monkeypatch.delenv(leases.ENV)
    monkeypatch.setattr(leases, "SYSTEM_DIR", tmp_path / "no-run-lock")
    monkeypatch.setattr(leases.tempfile, "gettempdir", lambda: str(tmp_path))
    assert lock_dir() == tmp_path / "xtalk-locks"
    assert (tmp_path / "xtalk-locks").stat().st_mode & 0o7777 == 0o1777
    monkeypatch.setattr(leases, "SYSTEM_DIR", tmp_path)
    assert lock_dir() == tmp_path / "xtalk"


def test_an_unmakeable_lock_directory_is_a_usage_error(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv(leases.ENV, str(tmp_path / "file" / "locks"))
    with pytest.raises(UsageError, match=f"lock directory {tmp_path / 'file' / 'locks'}"):
        other().take(CPU0)


def test_a_campaign_leases_the_cpus_its_guests_use():
    text = MINIMAL_SPEC.replace("cpus = [0, 1]", "cpus = [0, 1, 2]") + '[matrix]\nplacement = ["solo", "same-core"]\n'
    assert list(used_cpus(plan(*parse_campaign(text, "spec.toml")))) == ["cpu0"]  # CPU 1, 2: no guest there
    other_core = text.replace('"same-core"', '"other-core"')
    assert list(used_cpus(plan(*parse_campaign(other_core, "spec.toml")))) == ["cpu0", "cpu1"]
    xen = text + '[backend]\nkind = "xen"\nexecutor = "ssh"\nssh_host = "root@board"\n'
    assert list(used_cpus(plan(*parse_campaign(xen, "spec.toml")))) == ["xen-root-board-22-cpu0"]


def test_a_lease_file_that_is_a_link_is_refused_and_not_followed(locks, tmp_path):
    """Issue 43: a root xtalk truncated and overwrote a root-only file a planted symlink
    pointed to (the files were opened without O_NOFOLLOW)."""
    victim = tmp_path / "victim"
    victim.write_text("root's own\n")
    locks.mkdir()
    (locks / "cpu0.lock").symlink_to(victim)
    with pytest.raises(UsageError, match="cpu0.lock is a symbolic link: refused, not followed"):
        other().take(CPU0)
    assert victim.read_text() == "root's own\n"
    (locks / "cpu0.lock").unlink()
    os.mkfifo(locks / "cpu0.lock")  # nor anything else that is not a regular file
    with pytest.raises(UsageError, match="cpu0.lock is not a regular file"):
        other().take(CPU0)
    (locks / "cpu0.lock").unlink()
    os.link(victim, locks / "cpu0.lock")  # issue 58: another name of the victim was overwritten
    with pytest.raises(UsageError, match=r"cpu0.lock is a hard link \(2 names"):
        other().take(CPU0)
    assert victim.read_text() == "root's own\n"
    (locks / "cpu0.lock").unlink()
    (locks / "cpu0.lock").mkdir()  # was "Is a directory", exit 3
    with pytest.raises(UsageError, match="cpu0.lock is not a regular file"):
        other().take(CPU0)


def test_a_lock_directory_others_could_rewrite_is_refused(tmp_path, monkeypatch):
    unsafe = tmp_path / "open"
    unsafe.mkdir()
    unsafe.chmod(0o777)  # writable by every user, without the sticky bit
    monkeypatch.setenv(leases.ENV, str(unsafe))
    with pytest.raises(UsageError, match="others may write to it \\(mode 777\\) without the sticky bit"):
        other().take(CPU0)
    (tmp_path / "link").symlink_to(tmp_path / "mine")
    (tmp_path / "mine").mkdir()
    monkeypatch.setenv(leases.ENV, str(tmp_path / "link"))
    with pytest.raises(UsageError, match="a symbolic link"):
        lock_dir()


def test_a_shared_lock_directory_made_by_another_user_is_not_used(tmp_path, monkeypatch):
    monkeypatch.delenv(leases.ENV)
    monkeypatch.setattr(leases, "SYSTEM_DIR", tmp_path / "no-run-lock")
    monkeypatch.setattr(leases.tempfile, "gettempdir", lambda: str(tmp_path))
    theirs = tmp_path / "xtalk-locks"
    theirs.mkdir(mode=0o1777)
    os.chown(theirs, 12345, 12345)  # another user came first: they could replace the files in it
    mine = lock_dir()
    assert mine == tmp_path / f"xtalk-locks-{os.geteuid()}" and mine.stat().st_mode & 0o777 == 0o700


def test_a_lease_stays_held_when_its_file_is_deleted_under_it(locks):
    """Issue 43: deleting the lease files under a running campaign let a second campaign run
    on the same CPUs; the lease's socket has no file to delete."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from xtalk.host.leases import *\n"
         "l = Leases(Holder.me('running', 'results in x')); l.take(cpu_leases('', [0])); print('held', flush=True)\n"
         "sys.stdin.read(); l.release()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))
    try:
        assert holder.stdout.readline() == "held\n"
        (locks / "cpu0.lock").unlink()  # a tmp cleaner, or `rm`
        with pytest.raises(UsageError, match=f"CPU 0 is in use by another xtalk \\(PID {holder.pid}; its lease file "):
            other().take(CPU0)
        (locks / "cpu0.lock").write_text('{"pid": 1, "campaign": "imposter", "where": "nowhere"}')
        with pytest.raises(UsageError, match=f"in use by another xtalk \\(PID {holder.pid}\\); its lease file names "
                                             "campaign 'imposter' \\(PID 1, nowhere\\), which does not hold it"):
            other().take(CPU0)  # a file anyone can rewrite is not believed over the socket
    finally:
        holder.communicate("")
    with other() as after:  # given back by its holder: free
        after.take(CPU0)
