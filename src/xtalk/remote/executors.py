"""Where the xen backend runs its commands (`xl`, `tail`, ...): in dom0 itself (local),
or in a dom0 reached over ssh (a board, or the QEMU lab).

Commands are always argument vectors. Locally they are exec'd without a shell. Over
ssh the remote side runs a shell on the command string, so every argument is quoted
with shlex.quote (POSIX single quotes; dom0's /bin/sh, busybox or dash, honours them)
and arguments with control characters are refused: no spec value ever becomes shell
syntax. Ssh is OpenSSH's client (the system's, well kept, with the user's config and
agent when wanted), always with BatchMode and StrictHostKeyChecking=yes: an unknown or
changed host key is an error, never accepted silently. One master connection per
executor (ControlMaster) keeps each command's cost at one round trip. When that master
goes away, every command in flight ends with status 255 and no message, its start mark
lost too although it may have run: the reporting shell (REPORTING_SHELL) is how run()
tells that apart from a remote failure, and the claim (CLAIMED_SHELL) is how a command
sent again after it runs at most once. Each send carries a token that dom0's shell
claims atomically (a noclobber file) before it runs the command, keeping its exit status
and output beside the claim; a resend of the same token finds the claim and returns the
kept outcome, or raises TransportError ("outcome unknown") when the first send never
finished. A command safe to repeat (`repeatable`: reads, and scripts written to be
idempotent) skips the claim. The kept files go FORGET_AFTER commands at a time, with a
later claimed command.
Caveat: a command's output is kept in dom0's temporary directory until then, so a large
read is sent `repeatable`.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import re
import secrets
import shlex
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import InfrastructureError

# Wraps every command run over ssh: a start mark and the exit status on stderr.
REPORTING_SHELL = 'printf "@@XTGO\\n" >&2; "$@"; rc=$?; printf "\\n@@XTRC %d\\n" "$rc" >&2; exit "$rc"'
# argv: TOKEN FORGET CMD...: REPORTING_SHELL's marks, CMD run only by the first send of
# TOKEN (a noclobber claim in dom0's temporary directory), deaf to the hang-up of its
# connection from its first step (a start mark written to a connection already gone must
# not kill the shell between its claim and the command), its status and output kept for a
# resend, which prints @@XTAGAIN and the kept outcome (waiting up to ~50 s while the first
# send's shell, its PID in TOKEN.p, still runs), or @@XTUNKNOWN when the first send ended
# without one (killed). FORGET: the tokens (hex, space-separated) whose kept files can go. Few
# processes (a fork costs ~10 ms in an emulated dom0): no subshell for the claim, no cat
# of an empty output; kept files go FORGET_AFTER at a time.
CLAIMED_SHELL = (
    'trap "" HUP PIPE; d="${TMPDIR:-/tmp}/xtalk-claims-${USER:-$(id -u)}"; t="$d/$1"; forget=$2; shift 2; '
    '[ -d "$d" ] || mkdir -p -m 700 "$d" 2>/dev/null; '
    'if [ -n "$forget" ]; then f=; for o in $forget; do f="$f $o.c $o.p $o.o $o.e $o.r"; done; (cd "$d" && rm -f $f); fi; '
    'set -C; if { true > "$t.c"; } 2>/dev/null; then set +C; echo "$$" > "$t.p"; printf "@@XTGO\\n" >&2; '
    '"$@" > "$t.o" 2> "$t.e"; rc=$?; echo "$rc" > "$t.r"; '
    'elif set +C; [ -e "$t.c" ]; then printf "@@XTAGAIN\\n" >&2; '
    'i=0; while [ ! -s "$t.r" ] && [ $i -lt 250 ] && kill -0 "$(cat "$t.p" 2>/dev/null)" 2>/dev/null; do '
    'sleep 0.2 2>/dev/null || sleep 1; i=$((i+1)); done; '
    'if [ ! -s "$t.r" ]; then cat "$t.o" 2>/dev/null; printf "@@XTUNKNOWN\\n" >&2; exit 255; fi; '
    'printf "@@XTGO\\n" >&2; read -r rc < "$t.r"; '
    'else printf "@@XTNOCLAIM %s\\n" "$d" >&2; exit 255; fi; '
    '[ ! -s "$t.o" ] || cat "$t.o"; [ ! -s "$t.e" ] || cat "$t.e" >&2; printf "\\n@@XTRC %d\\n" "$rc" >&2; '
    'exit "$rc"')
CONNECT_ATTEMPTS = 3
FORGET_AFTER = 8  # kept outcomes forgotten in one go


class TransportError(InfrastructureError):
    """The connection to dom0 failed while `command` ran: its outcome is unknown.
    stdout: what it printed before; detail: what ssh and the command said."""

    def __init__(self, label: str, command: str, detail: str, stdout: str = ""):
        super().__init__(f"ssh to {label}: {command[:200]} started but ended without reporting its exit "
                         f"status ({detail})")
        self.label, self.detail, self.stdout = label, detail, stdout


def parse_reported(stderr: str) -> tuple[bool, int | None, str]:
    """(started, exit status or None, the command's own stderr) from REPORTING_SHELL's marks."""
    before, sep, body = ("\n" + stderr).partition("\n@@XTGO\n")  # after ssh's own warnings, if any
    if not sep:
        return False, None, stderr
    if before:
        body = before[1:] + "\n" + body
    head, sep, last = body.rstrip("\n").rpartition("\n@@XTRC ")
    return (True, int(last), head) if sep and last.isdigit() else (True, None, body)


def tail(text: str, lines: int = 4) -> str:
    return " | ".join(text.strip().splitlines()[-lines:])


@dataclass
class Result:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def check(self) -> "Result":
        if self.returncode != 0:
            raise InfrastructureError(f"{' '.join(self.argv)} failed (status {self.returncode}): "
                                      f"{tail(self.stderr or self.stdout, 6)}")
        return self


class Stream:
    """A long-running command whose stdout is a readable, non-blocking fd; its stderr
    goes to a temporary file (error_text() once it ended)."""

    def __init__(self, proc: subprocess.Popen, stderr_file=None):
        self.proc = proc
        self.fd = proc.stdout.fileno()
        self.stderr_file = stderr_file
        os.set_blocking(self.fd, False)

    def error_text(self) -> str:
        """Exit status and the last lines of stderr of a stream that ended."""
        try:
            code = self.proc.wait(timeout=5)  # its output ended: it is exiting
        except subprocess.TimeoutExpired:
            code = None
        text = ""
        if self.stderr_file is not None:
            self.stderr_file.seek(0)
            text = tail(self.stderr_file.read().decode(errors="replace"))
        return f"follower ended (status {code}){': ' + text if text else ''}"

    def close(self) -> None:
        if self.proc.stdin and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()  # EOF: the remote side ends the command
            except OSError:
                pass
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout and not self.proc.stdout.closed:
            self.proc.stdout.close()
        if self.stderr_file is not None:
            self.stderr_file.close()


def check_arg(arg: object) -> str:
    text = str(arg)
    if any(ord(c) < 0x20 or ord(c) == 0x7f for c in text):
        raise InfrastructureError(f"refusing a command argument with control characters: {text!r}")
    return text


def quote_argv(argv: list) -> str:
    """The shell command line that runs exactly argv (each word single-quoted as needed)."""
    if not argv:
        raise ValueError("empty command")
    return " ".join(shlex.quote(check_arg(a)) for a in argv)


class Executor:
    label = "executor"

    def run(self, argv: list, input: bytes | None = None, timeout: float = 60.0,
            repeatable: bool = False) -> Result:
        """Run argv in dom0; `repeatable`: safe to run twice (a read, an idempotent script)."""
        raise NotImplementedError

    def stream(self, argv: list) -> Stream:
        raise NotImplementedError

    def put(self, path: str, data: bytes, mode: int = 0o644) -> None:
        """Write a file in dom0 (atomically: a temporary name, then rename)."""
        tmp = f"{path}.xtalk-tmp"
        self.run(["sh", "-c", 'cat > "$1" && chmod "$2" "$1" && mv -f "$1" "$3"', "put", tmp,
                  f"{mode:o}", path], input=data, repeatable=True).check()

    def run_many(self, commands: list[list], input: bytes | None = None, timeout: float = 120.0) -> list[Result]:
        """Several commands in one round trip, in order, stopping at the first failure.
        The first command gets `input` on stdin, the others /dev/null; each one's stdout
        and stderr come back merged. The script is built from quoted argument vectors only.
        A connection that drops after the script's last command reported its end (every
        command, or one that failed) loses nothing: the results are those reported. One
        that drops earlier raises TransportError naming the command it cut."""
        lines = []
        for i, argv in enumerate(commands):
            redirect = "" if i == 0 else " </dev/null"
            lines.append(f"printf '\\n@@XTS {i}\\n'; {quote_argv(argv)}{redirect} 2>&1; rc=$?; "
                         f"printf '\\n@@XTE {i} %d\\n' $rc; [ $rc -eq 0 ] || exit $rc")
        try:
            whole = self.run(["sh", "-c", "; ".join(lines)], input=input, timeout=timeout)
        except TransportError as err:
            ended = [int(rc) for rc in re.findall(r"\n@@XTE \d+ (-?\d+)\n", err.stdout)]
            if len(ended) == len(commands) or (ended and ended[-1] != 0):  # the script had ended: all is known
                return self._results(commands, Result(["sh"], ended[-1], err.stdout, ""))
            cut = quote_argv(commands[len(ended)])  # name the command that was cut, not the whole script
            raise TransportError(err.label, f"{cut} (command {len(ended) + 1} of {len(commands)})", err.detail,
                                 err.stdout) from None
        return self._results(commands, whole)

    @staticmethod
    def _results(commands: list[list], whole: Result) -> list[Result]:
        """Each command's result from the script's marked output (run_many)."""
        results = []
        for i, argv in enumerate(commands):
            start = whole.stdout.find(f"\n@@XTS {i}\n")
            end = whole.stdout.find(f"\n@@XTE {i} ", start + 1)
            if start < 0 or end < 0:
                break
            body = whole.stdout[start + len(f"\n@@XTS {i}\n"):end]
            rc = int(whole.stdout[end:].split("\n", 2)[1].split()[2])
            results.append(Result([str(a) for a in argv], rc, body, body if rc else ""))
        if len(results) < len(commands) and (not results or results[-1].ok):
            results.append(Result([str(a) for a in commands[len(results)]], whole.returncode or 1,
                                  "", whole.stderr or "the command script ended early"))
        return results

    def describe(self) -> dict:
        return {"kind": self.label}

    def close(self) -> None:
        pass


class LocalExecutor(Executor):
    """Commands run right here (xtalk runs in dom0)."""

    label = "local"

    def run(self, argv: list, input: bytes | None = None, timeout: float = 60.0,
            repeatable: bool = False) -> Result:
        argv = [check_arg(a) for a in argv]
        try:
            p = subprocess.run(argv, input=input if input is not None else b"", capture_output=True,
                               timeout=timeout)
        except FileNotFoundError:
            return Result(argv, 127, "", f"{argv[0]}: not found")
        except subprocess.TimeoutExpired:
            raise InfrastructureError(f"{' '.join(argv)} took more than {timeout:g} s") from None
        return Result(argv, p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))

    def stream(self, argv: list) -> Stream:
        argv = [check_arg(a) for a in argv]
        return Stream(subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, start_new_session=True))


class SshExecutor(Executor):
    """Commands run in dom0 over ssh (OpenSSH client, host key verified)."""

    label = "ssh"

    def __init__(self, host: str, port: int | None = None, user: str | None = None,
                 identity: Path | None = None, known_hosts: Path | None = None,
                 host_key_alias: str | None = None, control_dir: Path | None = None,
                 use_user_config: bool = True, connect_timeout: float = 15.0, label: str | None = None):
        self.host, self.port, self.user = host, port, user
        self.identity, self.known_hosts, self.alias = identity, known_hosts, host_key_alias
        self.use_user_config = use_user_config
        if control_dir is None:
            control_dir = Path(tempfile.gettempdir()) / f"xtalk-ssh-{os.getuid()}"
        control_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        tag = hashlib.sha256(f"{user}@{host}:{port}".encode()).hexdigest()[:12]
        self.control = control_dir / f"ssh-{tag}.ctl"
        self.connect_timeout = connect_timeout
        self.retries: list[str] = []  # connection failures retried (a run's metadata keeps them)
        self.resends: list[str] = []  # resends that found their first send's outcome kept
        self.kept: list[str] = []  # tokens whose outcome dom0 keeps: forgotten FORGET_AFTER at a time
        if label:
            self.label = label

    def ssh_argv(self, shared: bool = True) -> list[str]:
        """ssh's argv up to the remote command; shared: through the master connection."""
        argv = ["ssh"]
        if not self.use_user_config:
            argv += ["-F", "/dev/null"]
        argv += ["-T", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
                 "-o", f"ConnectTimeout={int(self.connect_timeout)}", "-o", "ServerAliveInterval=5",
                 "-o", "ServerAliveCountMax=6"]
        argv += (["-o", "ControlMaster=auto", "-o", f"ControlPath={self.control}", "-o", "ControlPersist=60"]
                 if shared else ["-o", "ControlMaster=no", "-o", "ControlPath=none"])
        if self.port:
            argv += ["-p", str(self.port)]
        if self.identity:
            argv += ["-i", str(self.identity), "-o", "IdentitiesOnly=yes"]
        if self.known_hosts:
            argv += ["-o", f"UserKnownHostsFile={self.known_hosts}", "-o", "GlobalKnownHostsFile=/dev/null"]
        if self.alias:
            argv += ["-o", f"HostKeyAlias={self.alias}"]
        target = f"{self.user}@{self.host}" if self.user else self.host
        return argv + [target, "--"]

    def run(self, argv: list, input: bytes | None = None, timeout: float = 60.0,
            repeatable: bool = False) -> Result:
        """Run argv in dom0, at most once unless `repeatable` (the module's docstring). The
        remote shell reports, on stderr, that the command started and its exit status;
        ssh's own status 255 is ambiguous (connection failure, remote exit 255, remote
        killed by a signal, or the master connection gone). A send whose status did not
        come back is sent again, with the same token, up to CONNECT_ATTEMPTS sends: the
        resend runs the command if no send did, else returns what it did. Raises
        TransportError when its outcome stays unknown (started, never ended, or a
        repeatable command cut after it started), with what it printed so far."""
        argv = [str(a) for a in argv]
        token, forget = secrets.token_hex(8), list(self.kept) if len(self.kept) >= FORGET_AFTER else []
        shell = ["sh", "-c", REPORTING_SHELL, "xtalk"] if repeatable else \
            ["sh", "-c", CLAIMED_SHELL, "xtalk", token, " ".join(forget)]
        command = self.ssh_argv() + [quote_argv([*shell, *argv])]
        shown, ran = " ".join(argv)[:200], False
        for attempt in range(1, CONNECT_ATTEMPTS + 1):
            try:
                p = subprocess.run(command, input=input if input is not None else b"", capture_output=True,
                                   timeout=timeout)
            except subprocess.TimeoutExpired:
                raise InfrastructureError(f"{self.label}: {shown} took more than {timeout:g} s") from None
            out, raw = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
            started, status, err = parse_reported(raw)
            if "\n@@XTNOCLAIM " in "\n" + raw:
                raise InfrastructureError(f"{self.label}: cannot claim {shown} in dom0: its directory "
                                          f"{raw.split('@@XTNOCLAIM ', 1)[1].splitlines()[0]} is not writable")
            if status is not None:
                if not repeatable:
                    self.kept = [t for t in self.kept if t not in forget] + [token]
                if "\n@@XTAGAIN\n" in "\n" + raw:
                    self.resends.append(f"{shown[:80]}: sent again, its first send's outcome kept (status {status})")
                return Result(argv, status, out, err.replace("@@XTAGAIN\n", ""))
            if "\n@@XTUNKNOWN\n" in "\n" + raw:
                raise TransportError(self.label, shown, "sent again after its connection dropped: the first send "
                                     "ended without its outcome, or did not end within 50 s (outcome unknown, not "
                                     f"run twice); its stdout so far: {tail(out)}", out)
            if repeatable and (started or p.returncode != 255):
                raise TransportError(self.label, shown, f"ssh status {p.returncode}: the remote shell was killed or "
                                     f"the connection dropped; stdout: {tail(out)}; stderr: {tail(err)}", out)
            if p.returncode != 255 and not started:
                raise TransportError(self.label, shown, f"ssh status {p.returncode} and no exit status: "
                                     f"stderr: {tail(err)}", out)
            ran = ran or started
            self.retries.append(f"attempt {attempt}: {shown[:80]}: {tail(err) or 'status 255'}"
                                + (" (it had started: sent again for its outcome)" if started else ""))
            if attempt < CONNECT_ATTEMPTS:
                time.sleep(0.5 * attempt)
        if ran:
            raise TransportError(self.label, shown, f"it started, and {CONNECT_ATTEMPTS - 1} resends for its outcome "
                                 f"failed to connect: {tail(err) or 'status 255'}", out)
        raise InfrastructureError(f"ssh to {self.label} failed before running {shown} "
                                  f"({CONNECT_ATTEMPTS} attempts): {tail(err) or 'status 255'}")

    def stream(self, argv: list) -> Stream:
        # The remote command dies with the connection: a shell runs it in the background
        # and kills it when its stdin (kept open by us) reaches EOF. Without this a
        # `tail -F` would outlive its ssh channel (and dropbear would keep the channel).
        wrapped = ["sh", "-c", '"$@" & p=$!; cat >/dev/null; kill $p 2>/dev/null; wait $p', "follow",
                   *[str(a) for a in argv]]
        # Its own connection: a long follower never depends on a master another xtalk
        # process started (and may end) or shares its channel limit.
        command = self.ssh_argv(shared=False) + [quote_argv(wrapped)]
        err = tempfile.TemporaryFile()
        return Stream(subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=err, start_new_session=True), err)

    def describe(self) -> dict:
        return {"kind": "ssh", "host": self.host, "port": self.port, "user": self.user,
                "host_key_alias": self.alias, "label": self.label}

    def close(self) -> None:
        """End the master connection (if any): its socket is local, so this is quick even
        when dom0 is gone."""
        if self.control.exists():
            subprocess.run(["ssh", "-o", f"ControlPath={self.control}", "-O", "exit", self.host],
                           capture_output=True, timeout=10)


class LabLock:
    """An advisory lock (flock) so two campaigns never drive one dom0 at once."""

    def __init__(self, path: Path):
        self.path = path
        self.fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            self.fd = None
            raise InfrastructureError(f"another xtalk campaign is using this dom0 (lock {self.path})") from None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
