"""Hosts on one machine for the multi-host test: a network namespace per host on a bridge.

The layout (docs/multi-host.md, "How the test builds it"):

- The bridge ``cmh-lan`` in the root namespace is the LAN (10.231.0.0/24). The root namespace
  is the services host at 10.231.0.1: the real PostgreSQL and Redis run there, listening on
  127.0.0.1 only, so a ``socat`` forwarder per service listens on 10.231.0.1 and relays each
  connection to 127.0.0.1. That is the simplest robust way to reach them: no change to the
  shared servers' configuration, no routing or NAT, no second PostgreSQL or Redis to start.
  The test's HTTP client (a load balancer's place) also lives there.
- Each host is a namespace ``cmh-<name>`` with its own loopback, its own address on the LAN
  (a veth pair whose other end is on the bridge), its own UTS namespace (hostname), its own
  working directory (its "disk": var/, the beat schedule) and its processes started from the
  Procfile's lines through ``sh -c``, as a Procfile runner does.

Killing a host kills every process in its namespace (SIGKILL, nothing is told) and deletes the
namespace, so its address stops answering. Everything is torn down at the end, and whatever a
crashed earlier run left (namespaces, the bridge) is removed before a new one starts. The
names and addresses are fixed, so runs on one machine take turns (a lock file).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

from tests.integration.processes import ROOT, wait_until

PREFIX = "cmh-"
BRIDGE = f"{PREFIX}lan"
NETWORK = "10.231.0"
SERVICES_ADDRESS = f"{NETWORK}.1"
PREFIX_LENGTH = 24
VENV_BIN = Path(sys.executable).parent
_LOCK_DIR = Path("/run/lock") if Path("/run/lock").is_dir() else Path(tempfile.gettempdir())
LOCK_FILE = _LOCK_DIR / "canasta-multihost.lock"


def ip_run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check, timeout=20)


def tools_missing() -> str | None:
    """Why this machine cannot build the hosts, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    for tool in ("ip", "socat", "unshare"):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed (apt-get install -y iproute2 socat util-linux)"
    probe = f"{PREFIX}probe"
    ip_run("netns", "del", probe, check=False)
    made = ip_run("netns", "add", probe, check=False)
    ip_run("netns", "del", probe, check=False)
    if made.returncode != 0:
        return f"`ip netns add` does not work here: {made.stderr.strip()}"
    return None


def procfile() -> dict[str, str]:
    """The Procfile's process types and their command lines."""
    lines = (ROOT / "Procfile").read_text().splitlines()
    return {
        name.strip(): command.strip()
        for name, _, command in (line.partition(":") for line in lines)
        if command.strip() and not name.startswith("#")
    }


def _namespace_pids(namespace: str) -> list[int]:
    listed = ip_run("netns", "pids", namespace, check=False)
    return [int(pid) for pid in listed.stdout.split()] if listed.returncode == 0 else []


def _namespace_kill(namespace: str) -> None:
    """SIGKILL every process of the namespace until none is left (a dying parent may fork)."""
    for _ in range(50):
        pids = _namespace_pids(namespace)
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)


def _connections_closed(address: str) -> None:
    """Wait (up to 5 s) until no connection to `address` is established on this side: every
    peer of the host's killed processes (the services' forwarders, the test's clients) has
    seen its close."""
    for _ in range(50):
        listed = subprocess.run(
            ["ss", "-Htn", "state", "established", "dst", address],
            capture_output=True,
            text=True,
            check=False,
        )
        if not listed.stdout.strip():
            return
        time.sleep(0.1)


def _namespace_delete(namespace: str) -> None:
    _namespace_kill(namespace)
    # The root end of its veth pair, explicitly: a deleted namespace can linger unnamed in
    # the kernel for a while, and its veth with it (seen on Linux 6.18).
    ip_run("link", "del", namespace, check=False)
    ip_run("netns", "del", namespace, check=False)


def stale_remove() -> None:
    """Remove what an earlier run that could not clean up left behind."""
    listed = ip_run("netns", "list", check=False).stdout.split("\n")
    for line in listed:
        name = line.split(" ")[0]
        if name.startswith(PREFIX):
            _namespace_delete(name)
    for line in ip_run("-o", "link", "show", check=False).stdout.splitlines():
        name = line.split(":")[1].strip().split("@")[0]
        if name.startswith(PREFIX):
            ip_run("link", "del", name, check=False)


class Host:
    """One machine: a namespace with an address on the LAN and the processes it runs."""

    def __init__(self, name: str, address: str, disk: Path) -> None:
        self.name = name
        self.address = address
        self.namespace = f"{PREFIX}{name}"
        self.disk = disk
        self.processes: list[subprocess.Popen[bytes]] = []
        self.logs: list[Path] = []

    def start(self, kind: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
        """Run the Procfile's ``kind`` line on this host, as `sh -c` runs it for a Procfile
        runner (so ``${PORT:-8000}`` and the like expand), under the host's own hostname."""
        command = procfile()[kind]
        log = self.disk / f"{kind}.log"
        argv = [
            "ip", "netns", "exec", self.namespace,
            "unshare", "--uts",
            "sh", "-c", f'hostname "$CANASTA_TEST_HOSTNAME" && exec {command}',
        ]  # fmt: skip
        env = {**env, "CANASTA_TEST_HOSTNAME": self.name}
        with log.open("ab") as out:
            process = subprocess.Popen(
                argv,
                cwd=self.disk,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.processes.append(process)
        self.logs.append(log)
        return process

    def check_running(self) -> None:
        for process, log in zip(self.processes, self.logs, strict=True):
            if process.poll() is not None:
                raise AssertionError(
                    f"{log.name} on {self.name} exited ({process.returncode}):\n"
                    + log.read_text(errors="replace")[-3000:]
                )

    def log_text(self) -> str:
        return "\n".join(log.read_text(errors="replace") for log in self.logs)

    def kill(self) -> None:
        """The host dies: every process is killed at once, then its network is gone.

        The killed processes' connections close as they die; the network goes once their
        closing packets have left the host (`_connections_closed`). Deleted sooner, it took
        them along now and then: PostgreSQL kept a killed web process's session, inside a
        move's transaction, with that game's row locked, and the survivor's next move of that
        game waited past the client's timeout. That is a host vanishing from the network,
        which docs/multi-host.md covers apart and this test does not simulate."""
        _namespace_kill(self.namespace)
        _connections_closed(self.address)
        _namespace_delete(self.namespace)
        for process in self.processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)


class Lan:
    """The bridge, the services' forwarders and the hosts; ``down()`` removes everything."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.hosts: dict[str, Host] = {}
        self.forwarders: list[subprocess.Popen[bytes]] = []
        self._lock: IO[bytes] | None = None

    def up(self) -> None:
        # One run at a time on a machine (the names and addresses are fixed): a second run
        # waits here for the first to finish, instead of removing its hosts as stale.
        self._lock = LOCK_FILE.open("ab")
        fcntl.flock(self._lock, fcntl.LOCK_EX)
        stale_remove()
        ip_run("link", "add", BRIDGE, "type", "bridge")
        ip_run("addr", "add", f"{SERVICES_ADDRESS}/{PREFIX_LENGTH}", "dev", BRIDGE)
        ip_run("link", "set", BRIDGE, "up")

    def host(self, name: str) -> Host:
        address = f"{NETWORK}.{11 + len(self.hosts)}"
        host = Host(name, address, self.root / name)
        # A checkout's writable var/ (docs/deployment.md): the beat schedule and the like.
        (host.disk / "var").mkdir(parents=True)
        self.hosts[name] = host
        namespace = host.namespace
        ip_run("netns", "add", namespace)
        # The root end is named after the host (on the bridge); the host's end is its eth0.
        ip_run("link", "add", namespace, "type", "veth", "peer", "name", "eth0", "netns", namespace)
        ip_run("link", "set", namespace, "master", BRIDGE, "up")
        ip_run("-n", namespace, "addr", "add", f"{address}/{PREFIX_LENGTH}", "dev", "eth0")
        ip_run("-n", namespace, "link", "set", "eth0", "up")
        ip_run("-n", namespace, "link", "set", "lo", "up")
        return host

    def forward(self, target: str, port: int) -> int:
        """Expose ``target``:``port`` (a service of this, the services host) on the LAN;
        the port it has there."""
        with socket.socket() as probe:
            probe.bind((SERVICES_ADDRESS, 0))
            lan_port = int(probe.getsockname()[1])
        log = (self.root / f"forward-{port}.log").open("ab")
        with log:
            forwarder = subprocess.Popen(
                [
                    "socat",
                    f"TCP-LISTEN:{lan_port},bind={SERVICES_ADDRESS},fork,reuseaddr,backlog=256",
                    f"TCP:{target}:{port}",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.forwarders.append(forwarder)
        wait_until(
            lambda: _connects(SERVICES_ADDRESS, lan_port),
            timeout=10,
            what=f"the forwarder of port {port}",
        )
        return lan_port

    def down(self) -> None:
        for host in self.hosts.values():
            host.kill()
        for forwarder in self.forwarders:
            # Its process group: the listener and the children serving open connections.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(forwarder.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                forwarder.wait(timeout=10)
        ip_run("link", "del", BRIDGE, check=False)
        if self._lock is not None:
            self._lock.close()  # releases the flock


def _connects(address: str, port: int) -> bool:
    try:
        socket.create_connection((address, port), timeout=1).close()
    except OSError:
        return False
    return True
