#!/usr/bin/env python3
"""ctest connections_emfile: the server out of file descriptors neither spins nor stays deaf.

Starts the real binary under `ulimit -n 64` (soft and hard, so the server cannot raise it) with
--max-connections far above what 64 descriptors allow, so that accepts fail with EMFILE:

1. Starved by busy connections: opens 100 connections that each send half a request header (busy,
   so none can be closed to make room) and, for 3 s, a new connection every 50 ms. The server's
   CPU time over those 3 s (/proc/PID/stat utime + stime) must stay under 5% of one core, and each
   newcomer must be refused (reset or closed) within 2 s instead of hanging unanswered. Then the
   busy connections close, and the server must answer GET /ready again within 3 s.
   (A newcomer may be answered instead, when one that came before was answered and idles: it is
   closed to make room.)
2. Starved by idle connections: opens 100 connections that send nothing. Out of descriptors, the
   server closes the idlest to make room, so a request after them is answered within 3 s; CPU
   stays under 5% meanwhile too.
3. SIGTERM: the server exits 0.

    python3 tests/connections/emfile_test.py --server build/cosmolite
"""
import argparse
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
from wire import close_all  # noqa: E402

DESCRIPTOR_LIMIT = 64
HELD = 100
CPU_WINDOW = 3.0
CPU_LIMIT = 0.05  # of one core
NEWCOMER_INTERVAL = 0.05
REFUSE_WITHIN = 2.0
ANSWER_AGAIN_WITHIN = 3.0

failures = []


def check(name, ok, detail=""):
    print(f"{'ok' if ok else 'not ok'} - {name}{': ' + detail if detail else ''}", flush=True)
    if not ok:
        failures.append(name)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    # Fields 14 and 15 of stat(5) (utime, stime); fields[0] is field 3 (state).
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def get_ready(port, timeout):
    """GET /ready on a new connection: the status, or None when refused, reset or timed out."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            sock.sendall(b"GET /ready HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            answer = sock.recv(4096)
            if not answer.startswith(b"HTTP/1.1 "):
                return None
            return int(answer.split()[1])
    except OSError:
        return None


def await_answer(port, within):
    """Polls GET /ready until it answers 200; the seconds it took, or None."""
    started = time.monotonic()
    while time.monotonic() - started < within:
        if get_ready(port, timeout=max(0.1, within - (time.monotonic() - started))) == 200:
            return time.monotonic() - started
        time.sleep(0.02)
    return None


def connect(port, payload=b""):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    if payload:
        sock.sendall(payload)
    return sock


class Newcomers:
    """Connections that send a request while the server is starved, and how each fared: answered
    (an idle connection made room), refused (reset or closed unanswered), or still waiting."""

    def __init__(self):
        self.opened = {}
        self.outcome = {}  # socket -> ("answered" | "refused", seconds from connect)

    def add(self, sock):
        self.opened[sock] = time.monotonic()

    def poll(self, timeout):
        pending = [sock for sock in self.opened if sock not in self.outcome]
        if not pending:
            time.sleep(timeout)
            return
        readable, _, errored = select.select(pending, [], pending, timeout)
        for sock in set(readable) | set(errored):
            try:
                answered = bool(sock.recv(4096))
            except OSError:
                answered = False
            self.outcome[sock] = ("answered" if answered else "refused", time.monotonic() - self.opened[sock])

    def waiting(self):
        return len(self.opened) - len(self.outcome)

    def times(self, kind):
        return [after for outcome, after in self.outcome.values() if outcome == kind]

    def close(self):
        close_all(self.opened)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True, help="the cosmolite binary")
    args = parser.parse_args()
    binary = os.path.abspath(args.server)
    port = free_port()
    log = tempfile.TemporaryFile(mode="w+")
    # `ulimit -n` sets the soft and the hard limit: the server cannot raise it.
    server = subprocess.Popen(
        ["bash", "-c", f'ulimit -n {DESCRIPTOR_LIMIT} && exec "$0" "$@"', binary, "--in-memory", "--no-tls",
         "--host", "127.0.0.1", "--port", str(port), "--max-connections", "10000", "--log-level", "info"],
        stdout=log, stderr=subprocess.STDOUT)
    held = []
    try:
        ready_in = await_answer(port, within=15)
        check("the server starts under ulimit -n 64", ready_in is not None)
        if ready_in is None:
            return
        with open(f"/proc/{server.pid}/limits") as limits:
            line = next(line for line in limits if line.startswith("Max open files"))
        check("its descriptor limit is 64", line.split()[3] == str(DESCRIPTOR_LIMIT), line.strip())

        # 1. Starved by busy connections.
        for _ in range(HELD):
            try:
                held.append(connect(port, b"GET /ready HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
            except OSError:
                pass
        time.sleep(0.5)
        descriptors = open_descriptors(server.pid)
        check("busy connections take every descriptor", descriptors >= DESCRIPTOR_LIMIT - 2,
              f"{descriptors} of {DESCRIPTOR_LIMIT} open")
        newcomers = Newcomers()
        cpu_before = cpu_seconds(server.pid)
        started = time.monotonic()
        next_newcomer = started
        while time.monotonic() - started < CPU_WINDOW:
            if time.monotonic() >= next_newcomer:
                next_newcomer += NEWCOMER_INTERVAL
                try:
                    newcomers.add(connect(port, b"GET /ready HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
                except OSError:
                    pass
            newcomers.poll(0.01)
        cpu = (cpu_seconds(server.pid) - cpu_before) / (time.monotonic() - started)
        check("starved, the server uses under 5% of a core", cpu < CPU_LIMIT, f"{cpu * 100:.2f}% of one core")
        deadline = time.monotonic() + REFUSE_WITHIN
        while newcomers.waiting() and time.monotonic() < deadline:
            newcomers.poll(0.05)
        refused, answered = newcomers.times("refused"), newcomers.times("answered")
        slowest = max(refused + answered, default=0)
        check("starved, every newcomer is refused (or answered) rather than left hanging",
              newcomers.waiting() == 0 and slowest < REFUSE_WITHIN,
              f"of {len(newcomers.opened)}: {len(refused)} refused (on average after "
              f"{sum(refused) / max(1, len(refused)):.2f} s), {len(answered)} answered, {newcomers.waiting()} waiting; "
              f"the slowest after {slowest:.2f} s")
        newcomers.close()
        close_all(held)
        held = []
        answered_in = await_answer(port, within=ANSWER_AGAIN_WITHIN)
        check("once the busy connections close, the server answers again", answered_in is not None,
              f"after {answered_in:.2f} s" if answered_in is not None else "no answer")

        # 2. Starved by idle connections: the idlest make room.
        for _ in range(HELD):
            try:
                held.append(connect(port))
            except OSError:
                pass
        time.sleep(0.5)
        cpu_before = cpu_seconds(server.pid)
        started = time.monotonic()
        answered_in = await_answer(port, within=ANSWER_AGAIN_WITHIN)
        check("with idle connections holding every descriptor, a request is answered", answered_in is not None,
              f"after {answered_in:.2f} s" if answered_in is not None else "no answer")
        time.sleep(max(0.0, CPU_WINDOW - (time.monotonic() - started)))
        cpu = (cpu_seconds(server.pid) - cpu_before) / (time.monotonic() - started)
        check("meanwhile the server uses under 5% of a core", cpu < CPU_LIMIT, f"{cpu * 100:.2f}% of one core")
        close_all(held)
        held = []
        check("and it answers after they close", await_answer(port, within=ANSWER_AGAIN_WITHIN) is not None)
    finally:
        close_all(held)
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            code = server.wait()
        check("SIGTERM: the server exits 0", code == 0, f"exit {code}")
        log.seek(0)
        output = log.read()
        warnings = [line for line in output.splitlines() if " warn" in line]
        check("out-of-descriptor warnings are rate limited", len(warnings) <= 6, f"{len(warnings)} warnings")
        if failures:
            sys.stderr.write(f"--- cosmolite output ---\n{output[-20000:]}\n")
    print(f"{len(failures)} failed" if failures else "all passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
