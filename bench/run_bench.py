#!/usr/bin/env python3
"""Runs the cosmolite benchmark end to end and writes bench/results/results.md (+ results.json).

Targets, each driven by the same load generator (build/bench/cosmolite_bench) over the same
transport (HTTPS, certificate not verified, N keep-alive connections):
  cosmolite       build/cosmolite --data-dir <tmp>  (default durability: WAL + synchronous=NORMAL)
  cosmolite-http  the same over plain HTTP (--no-tls), creates and reads only
  cosmolite-memory  build/cosmolite --in-memory over HTTPS: creates, reads and the telemetry ingest
  peer            @vercel/cosmosdb-server 1.0.1 (Node, in memory), installed into build/bench-peer
  raw-beast       build/bench/bench_raw_server: a minimal Beast server answering a fixed JSON body
  sqlite          build/bench/bench_sqlite: raw SQLite insert and point-select loops, no HTTP
  query-engine    build/bench/bench_query_parse: parse+bind, cached prepare and query-plan rates
  scripts         build/bench/bench_scripts: stored procedures and UDFs in process, beside the same work without
  query-cost      build/bench/bench_query_cost: the IoT lesson's RU at 4 and 40 partitions, indexed queries as the
                  container grows, counts from the index alone (in process)
  search          build/bench/bench_search: vector search by the vector index beside the brute-force floor, full-text
                  search with and without its index (in process)

cosmolite also runs bulk creates (100 operations per request, as the SDKs' bulk mode sends them)
right after its point creates, and the report compares the two per document.

cosmolite and the peer also run the query workloads (single-partition query, cross-partition
ORDER BY, equality + range + ORDER BY, COUNT with an equality) over --query-documents seeded
documents each (10k and 100k by default).

Every throughput figure is the median of --runs runs of --seconds each, after a --warmup; the
telemetry ingest runs once for --telemetry-seconds at --telemetry-rate. Standard library only.
The results file is generated (by bench_report.py), never edited by hand.
"""

import argparse
import datetime
import http.client
import json
import os
import platform
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_report
from bench_report import (BULK_WORKLOAD, CHANGEFEED_WORKLOAD, FANOUT_WORKLOAD, FILTER_WORKLOAD, NARROW_POLICY,
                          PEER_PACKAGE, PEER_VERSION, render)

ROOT = Path(__file__).resolve().parent.parent
# The query workloads cosmolite and the peer both run (the goals and report constants, and the
# workloads with sections of their own, are in bench_report.py).
QUERY_WORKLOADS = ["query-orderby", "query-single", "query-tag-orderby", "query-count"]
# The equality filter scanning: n excluded from the index.
N_EXCLUDED_POLICY = '{"excludedPaths":[{"path":"/n/?"}]}'


def log(message):
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def http_status(port, tls, path, timeout=1.0):
    """The status of GET path, or None when nothing answers."""
    try:
        if tls:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout, context=context)
        else:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        connection.request("GET", path)
        status = connection.getresponse().status
        connection.close()
        return status
    except (OSError, http.client.HTTPException):
        return None


class Server:
    """A server process started for the benchmark and stopped with SIGTERM."""

    def __init__(self, name, argv, port, tls, ready_path, log_dir):
        self.name = name
        self.argv = [str(a) for a in argv]
        self.port = port
        self.tls = tls
        self.ready_path = ready_path
        self.log_path = Path(log_dir) / f"{name}.log"
        self.process = None

    @property
    def pid(self):
        return self.process.pid

    def start(self, timeout=20):
        self.log_file = open(self.log_path, "w")
        self.process = subprocess.Popen(self.argv, stdout=self.log_file, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}; see {self.log_path}")
            if http_status(self.port, self.tls, self.ready_path) == 200:
                return self
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer GET {self.ready_path} within {timeout} s")

    def stop(self):
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log_file.close()
        return self.process.returncode

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def machine_busy_seconds():
    """CPU seconds the whole machine has been busy (steal included), from /proc/stat."""
    with open("/proc/stat") as stat:
        fields = stat.readline().split()
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def machine_load(seconds=2.0):
    """Cores kept busy over the next `seconds` (by anything: call it while our own tools are idle)."""
    before = machine_busy_seconds()
    time.sleep(seconds)
    return (machine_busy_seconds() - before) / seconds


def run_json_lines(argv, timeout, stderr_lines=None):
    """Runs a tool that prints JSON objects on stdout (progress on stderr, passed through).

    With a list as `stderr_lines`, stderr is collected into it (and still echoed), so a failure's
    reason can be quoted in the results.
    """
    log("$ " + " ".join(str(a) for a in argv))
    capture = stderr_lines is not None
    try:
        completed = subprocess.run([str(a) for a in argv], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE if capture else None, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        if capture and expired.stderr:
            text = expired.stderr if isinstance(expired.stderr, str) else expired.stderr.decode(errors="replace")
            sys.stderr.write(text)
            stderr_lines.extend(text.splitlines())
        raise
    if capture:
        sys.stderr.write(completed.stderr)
        stderr_lines.extend(completed.stderr.splitlines())
    lines = []
    for line in completed.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            lines.append(json.loads(line))
    if completed.returncode != 0:
        log(f"exit code {completed.returncode} from {Path(str(argv[0])).name}")
    return lines, completed.returncode


def ensure_peer(peer_dir):
    """Installs @vercel/cosmosdb-server 1.0.1 into peer_dir (once) and returns the folder."""
    peer_dir = Path(peer_dir)
    manifest = peer_dir / "node_modules" / PEER_PACKAGE / "package.json"
    if manifest.exists() and json.loads(manifest.read_text()).get("version") == PEER_VERSION:
        return peer_dir
    peer_dir.mkdir(parents=True, exist_ok=True)
    package = peer_dir / "package.json"
    if not package.exists():
        package.write_text(json.dumps({"name": "cosmolite-bench-peer", "private": True}) + "\n")
    log(f"installing {PEER_PACKAGE}@{PEER_VERSION} into {peer_dir}")
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--save-exact", "--loglevel=error",
                    f"{PEER_PACKAGE}@{PEER_VERSION}"], cwd=peer_dir, check=True)
    return peer_dir


def machine_info(data_root):
    models = []
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                models.append(line.split(":", 1)[1].strip())
    memory_kb = 0
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                memory_kb = int(line.split()[1])
    # The file system holding the data: the longest mount point that prefixes the path.
    filesystem, best = "?", ""
    with open("/proc/mounts") as mounts:
        for line in mounts:
            fields = line.split()
            mount_point, fs_type = fields[1], fields[2]
            inside = str(data_root) == mount_point or str(data_root).startswith(mount_point.rstrip("/") + "/")
            if inside and len(mount_point) >= len(best):
                filesystem, best = f"{fs_type} ({mount_point})", mount_point

    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        except OSError:
            return ""

    revision = git("rev-parse", "--short", "HEAD")
    if git("status", "--porcelain", "--", "server", "engine", "storage", "common", "query"):
        revision += " + uncommitted changes"
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    return {
        "cores": os.cpu_count(),
        "cpu_model": models[0] if models else platform.processor(),
        "memory_gib": round(memory_kb / 1024 / 1024, 1),
        "kernel": platform.release(),
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "data_filesystem": filesystem,
        "cosmolite_revision": revision,
        "node": node,
    }


class Bench:
    def __init__(self, args):
        self.args = args
        self.build = Path(args.build_dir).resolve()
        self.cosmolite = self.build / "cosmolite"
        self.generator = self.build / "bench" / "cosmolite_bench"
        self.raw_server = self.build / "bench" / "bench_raw_server"
        self.sqlite = self.build / "bench" / "bench_sqlite"
        self.query_parse = self.build / "bench" / "bench_query_parse"
        self.scripts = self.build / "bench" / "bench_scripts"
        self.query_cost = self.build / "bench" / "bench_query_cost"
        self.search = self.build / "bench" / "bench_search"
        self.work = Path(tempfile.mkdtemp(prefix="cosmolite-bench-"))
        self.log_dir = self.build / "bench-logs"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.records = []
        self.problems = []
        self.retry_budget_s = args.retry_budget
        self.workloads = set(args.workloads.split(",")) if args.workloads else None

    def selected(self, workload):
        """Whether --workloads (empty: everything) asks for this workload."""
        return self.workloads is None or workload in self.workloads

    def wait_for_quiet(self, what):
        """Waits (up to --quiet-wait s) until other work on the shared machine stops."""
        deadline = time.monotonic() + self.args.quiet_wait
        load = machine_load()
        while load > self.args.noise_threshold:
            if time.monotonic() > deadline:
                self.problems.append(f"{what}: started while the machine was busy ({load:.2f} cores by others)")
                return
            log(f"machine busy ({load:.2f} cores used by other work); waiting before {what}")
            load = machine_load(5.0)

    def noisy_runs(self, lines):
        return [r for r in lines if r.get("other_load_cores", 0) > self.args.noise_threshold]

    def point_timeout(self):
        return self.args.warmup + self.args.runs * self.args.seconds + 300

    def generate(self, label, workload, port, tls, server_pid, extra=(), note="", timeout=None, what=None,
                 alone=True):
        """Runs one workload; returns False when the generator timed out. With `alone` false (other
        load runs on purpose) it neither waits for a quiet machine nor measures noisy runs again.
        A workload that --workloads leaves out is skipped (and counts as done)."""
        if not self.selected(workload):
            return True
        connections = self.args.connections
        if workload == "telemetry":
            connections = self.args.telemetry_connections
        elif workload in QUERY_WORKLOADS or workload in (FANOUT_WORKLOAD, CHANGEFEED_WORKLOAD, FILTER_WORKLOAD):
            connections = self.args.query_connections
        argv = [self.generator, "--label", label, "--workload", workload, "--port", port,
                "--connections", connections, "--threads", self.args.client_threads]
        if tls:
            argv.append("--tls")
        if server_pid:
            argv += ["--server-pid", server_pid]
        if workload == "telemetry":
            argv += ["--rate", self.args.telemetry_rate, "--seconds", self.args.telemetry_seconds]
            timeout = self.args.telemetry_seconds + 900
        else:
            argv += ["--warmup", self.args.warmup, "--seconds", self.args.seconds, "--runs", self.args.runs]
            timeout = timeout or self.point_timeout()
        argv += list(extra)
        what = what or f"{label} {workload}"
        if alone:
            self.wait_for_quiet(what)
        stderr_lines = []
        try:
            started = time.monotonic()
            lines, code = run_json_lines(argv, timeout, stderr_lines)
            # Other work took the CPU during most runs: measure once more if the budget allows.
            noisy = self.noisy_runs(lines)
            took = time.monotonic() - started
            if (alone and workload != "telemetry" and lines and 2 * len(noisy) > len(lines)
                    and took < self.retry_budget_s):
                self.retry_budget_s -= took
                log(f"{label} {workload}: {len(noisy)} of {len(lines)} runs shared the machine with other work; "
                    f"measuring again")
                self.wait_for_quiet(f"{what} (again)")
                try:
                    retry_lines, retry_code = run_json_lines(argv, timeout)
                    if retry_lines and len(self.noisy_runs(retry_lines)) < len(noisy):
                        lines, code = retry_lines, retry_code
                except subprocess.TimeoutExpired:
                    log(f"{what}: the second measurement timed out; keeping the first")
        except subprocess.TimeoutExpired:
            self.problems.append(f"{what}: the load generator timed out after {timeout:g} s{note}")
            return False
        if code != 0 and not lines:
            # The generator's last words say why (e.g. "prepare failed: query check: 400 ...").
            reason = next((line for line in reversed(stderr_lines) if line.strip()), "")
            self.problems.append(f"{what}: the load generator failed (exit {code}){': ' + reason[:300] if reason else ''}")
        for line in lines:
            if line.get("verify_error"):
                self.problems.append(f"{what}: {line['verify_error']}{note}")
        self.records.extend(lines)
        return True

    def query_workloads(self, label, server, timeout=None, note=""):
        """The query workloads at each --query-documents size, the ORDER BY first (it is the one
        with a goal). Both share one container per size, seeded by whichever runs first; a size
        whose first workload times out is abandoned (its seeding would be paid again)."""
        if self.args.skip_queries:
            return
        workloads = QUERY_WORKLOADS + ([FANOUT_WORKLOAD, CHANGEFEED_WORKLOAD] if label == "cosmolite" else [])
        for documents in self.args.query_documents:
            for workload in workloads:
                extra = ["--seed-docs", documents]
                if timeout:
                    extra += ["--setup-timeout", timeout]
                if not self.generate(label, workload, server.port, server.tls, server.pid, extra, note, timeout,
                                     what=f"{label} {workload} ({documents:,} documents)"):
                    log(f"{label}: skipping the rest of the {documents:,}-document queries")
                    break

    def indexing_workloads(self, server):
        """Write throughput under the default and a narrow policy; the equality filter with and
        without an index on n, at each --query-documents size."""
        if not self.args.queries_only and self.selected("indexing"):
            self.generate("cosmolite-default-index", "create", server.port, server.tls, server.pid,
                          ["--container", "c-default-index"])
            self.generate("cosmolite-narrow-index", "create", server.port, server.tls, server.pid,
                          ["--container", "c-narrow-index", "--indexing-policy", NARROW_POLICY])
        if self.args.skip_queries:
            return
        for documents in self.args.query_documents:
            for label, policy in (("cosmolite-indexed", []), ("cosmolite-unindexed", ["--indexing-policy", N_EXCLUDED_POLICY])):
                self.generate(label, FILTER_WORKLOAD, server.port, server.tls, server.pid,
                              ["--seed-docs", documents, *policy], what=f"{label} {FILTER_WORKLOAD} ({documents:,} documents)")

    def writes_beside_scans(self, server):
        """1 KB creates while two connections keep running the unindexed equality filter over the
        smallest --query-documents container (each query a scan of every document): reads run on
        snapshots of their own, so they must not hold up the writer."""
        documents = min(self.args.query_documents)
        scan_argv = [self.generator, "--workload", FILTER_WORKLOAD, "--port", server.port, "--connections", 2,
                     "--seed-docs", documents, "--indexing-policy", N_EXCLUDED_POLICY, "--runs", 1]
        if server.tls:
            scan_argv.append("--tls")
        what = f"creates beside scanning queries ({documents:,} documents)"
        self.wait_for_quiet(what)
        try:  # seeds the container when the filter workloads have not
            run_json_lines(scan_argv + ["--label", "cosmolite-scan-setup", "--warmup", 0, "--seconds", 1],
                           self.point_timeout())
        except subprocess.TimeoutExpired:
            self.problems.append(f"{what}: seeding timed out")
            return
        scan_seconds = self.args.warmup + self.args.runs * self.args.seconds + 3
        scan_argv += ["--label", "cosmolite-scans", "--warmup", 0, "--seconds", scan_seconds]
        log("$ " + " ".join(str(a) for a in scan_argv) + " &")
        scans = subprocess.Popen([str(a) for a in scan_argv], stdout=subprocess.PIPE, text=True)
        time.sleep(1.0)  # its clock runs from here
        self.generate("cosmolite-beside-scans", "create", server.port, server.tls, server.pid,
                      ["--container", "c-beside-scans"], what=what, alone=False)
        try:
            out, _ = scans.communicate(timeout=scan_seconds + 120)
            self.records.extend(json.loads(line) for line in out.splitlines() if line.strip().startswith("{"))
        except subprocess.TimeoutExpired:
            scans.kill()
            self.problems.append(f"{what}: the scanning queries did not finish")

    def reads_beside_endless_queries(self, server):
        """Point reads while 4 connections keep sending a query that cannot end its page early
        (workload query-endless: abandoned at the server's --query-time-limit with 408, then sent
        again). Reads are answered on the I/O threads and queries run at nice 5 on threads of their
        own, so the reads' p99 must barely move."""
        what = "point reads beside endless queries"
        self.wait_for_quiet(what)
        seconds = self.args.warmup + self.args.runs * self.args.seconds + 3
        endless_argv = [self.generator, "--workload", "query-endless", "--port", server.port, "--connections", 4,
                        "--runs", 1, "--warmup", 0, "--seconds", seconds, "--label", "cosmolite-endless"]
        if server.tls:
            endless_argv.append("--tls")
        log("$ " + " ".join(str(a) for a in endless_argv) + " &")
        endless = subprocess.Popen([str(a) for a in endless_argv], stdout=subprocess.DEVNULL)
        time.sleep(2.0)  # its documents are written and its first queries running
        self.generate("cosmolite-beside-endless", "read", server.port, server.tls, server.pid, what=what, alone=False)
        try:  # each query in flight still runs to the server's time limit
            endless.wait(timeout=seconds + 120)
        except subprocess.TimeoutExpired:
            endless.kill()
            self.problems.append(f"{what}: the endless queries' generator did not finish")

    def startup(self, label, command, tls, ready_path, starts):
        if not self.selected("startup"):
            return
        argv = [self.generator, "--workload", "startup", "--label", label, "--starts", starts,
                "--idle-ms", self.args.idle_ms, "--ready-path", ready_path]
        if tls:
            argv.append("--tls")
        argv += ["--", *command]
        self.wait_for_quiet(f"{label} startup")
        try:
            lines, code = run_json_lines(argv, 60 + starts * 20)
        except subprocess.TimeoutExpired:
            lines, code = [], -1
        if code != 0:
            self.problems.append(f"{label} startup: {starts - len(lines)} of {starts} starts failed")
        self.records.extend(lines)

    def point_workloads(self, label, server, workloads):
        for workload in workloads:
            self.generate(label, workload, server.port, server.tls, server.pid)

    def run_cosmolite(self):
        cosmolite_cmd = [self.cosmolite, "--port", "{port}", "--data-dir", "{dir}"]
        if not self.args.queries_only:
            self.startup("cosmolite", cosmolite_cmd, True, "/ready", self.args.starts)
        data_dir = self.work / "cosmolite-data"
        port = free_port()
        with Server("cosmolite", [self.cosmolite, "--port", port, "--data-dir", data_dir], port, True, "/ready",
                    self.log_dir) as server:
            if not self.args.queries_only:
                self.point_workloads("cosmolite", server, ["create", BULK_WORKLOAD, "read", "upsert"])
            if not self.args.skip_telemetry and not self.args.queries_only:
                self.generate("cosmolite", "telemetry", server.port, True, server.pid)
            self.query_workloads("cosmolite", server)
            self.indexing_workloads(server)
            if not self.args.queries_only and not self.args.skip_queries and self.selected("beside-scans"):
                self.writes_beside_scans(server)
            if not self.args.queries_only and self.selected("beside-endless"):
                self.reads_beside_endless_queries(server)
        code = server.stop()
        if code not in (0, None):
            self.problems.append(f"cosmolite exited with {code} after SIGTERM")
        shutil.rmtree(data_dir, ignore_errors=True)

    def run_cosmolite_http(self):
        data_dir = self.work / "cosmolite-http-data"
        port = free_port()
        with Server("cosmolite-http", [self.cosmolite, "--port", port, "--data-dir", data_dir, "--no-tls"], port,
                    False, "/ready", self.log_dir) as server:
            self.point_workloads("cosmolite-http", server, ["create", "read"])
        shutil.rmtree(data_dir, ignore_errors=True)

    def run_cosmolite_memory(self):
        port = free_port()
        with Server("cosmolite-memory", [self.cosmolite, "--port", port, "--in-memory"], port, True, "/ready",
                    self.log_dir) as server:
            self.point_workloads("cosmolite-memory", server, ["create", "read"])
            if not self.args.skip_telemetry:
                self.generate("cosmolite-memory", "telemetry", server.port, True, server.pid)

    def run_peer(self):
        peer_dir = ensure_peer(self.args.peer_dir)
        start_script = ROOT / "bench" / "start_peer.js"
        peer_cmd = ["node", start_script, "--module-dir", peer_dir, "--port"]
        if not self.args.queries_only:
            self.startup("peer", [*peer_cmd, "{port}"], True, "/", self.args.peer_starts)
        port = free_port()
        with Server("peer", [*peer_cmd, port], port, True, "/", self.log_dir) as server:
            if not self.args.queries_only:
                self.point_workloads("peer", server, ["create", "read", "upsert"])
            if not self.args.skip_telemetry and not self.args.queries_only:
                # The peer's read feed re-runs SELECT * over every document for each page, which takes
                # minutes for a telemetry run's worth: give the count a bounded budget.
                self.generate("peer", "telemetry", server.port, True, server.pid,
                              ["--setup-timeout", self.args.peer_count_timeout],
                              note=f" (each read-feed page may take {self.args.peer_count_timeout:g} s; the "
                                   f"peer re-runs SELECT * over every document for each page)")
        # The queries get a fresh peer: after the telemetry run the old one holds hundreds of
        # thousands of documents in memory and keeps a core busy answering the abandoned count.
        # The peer runs every query over a copy of all its documents: at 100k documents seeding
        # and a few queries may not fit in the budget, and the table then says n/a.
        port = free_port()
        with Server("peer-queries", [*peer_cmd, port], port, True, "/", self.log_dir) as server:
            self.query_workloads("peer", server, self.args.peer_query_timeout,
                                 note=f" (budget --peer-query-timeout {self.args.peer_query_timeout:g} s, seeding "
                                      f"included)")

    def run_raw_beast(self):
        for label, tls in [("raw-beast", True), ("raw-beast-http", False)]:
            if tls is False and self.args.skip_plain_http:
                continue
            port = free_port()
            argv = [self.raw_server, "--port", port, "--threads", self.args.server_threads]
            if tls:
                argv.append("--tls")
            with Server(label, argv, port, tls, "/", self.log_dir) as server:
                # Seeding is pointless against a server that stores nothing.
                for workload in ["create", "read"]:
                    self.generate(label, workload, server.port, tls, server.pid, ["--seed-docs", "1"])

    def run_sqlite(self):
        database = self.work / "sqlite-baseline" / "bench.db"
        database.parent.mkdir(parents=True, exist_ok=True)
        argv = [self.sqlite, "--db", database, "--warmup", self.args.warmup, "--seconds", self.args.seconds,
                "--runs", self.args.runs]
        self.wait_for_quiet("sqlite")
        lines, code = run_json_lines(argv, 2 * self.point_timeout())
        if code != 0:
            self.problems.append(f"sqlite baseline failed (exit {code})")
        self.records.extend(lines)
        shutil.rmtree(database.parent, ignore_errors=True)

    def run_tool(self, tool, name, argv, timeout):
        """One of the in-process benchmarks: built if `make bench` predates it, run once the machine is quiet."""
        if not tool.exists():
            log(f"building {tool.name}")
            subprocess.run(["cmake", "--build", self.build, "--target", tool.name], check=True,
                           stdout=subprocess.DEVNULL)
        self.wait_for_quiet(name)
        stderr_lines = []
        lines, code = run_json_lines([tool, *argv], timeout, stderr_lines)
        if code != 0:
            reason = stderr_lines[-1] if stderr_lines else ""
            self.problems.append(f"{name} benchmark failed (exit {code}) {reason[:300]}")
        self.records.extend(lines)

    def run_query_parse(self):
        self.run_tool(self.query_parse, "query parse", ["--seconds", self.args.parse_seconds],
                      10 * self.args.parse_seconds + 60)

    def run_scripts(self):
        self.run_tool(self.scripts, "scripts", ["--seconds", self.args.parse_seconds],
                      20 * self.args.parse_seconds + 120)

    def run_query_cost(self):
        self.run_tool(self.query_cost, "query cost", ["--seconds", self.args.parse_seconds / 2], 900)

    def run_search(self):
        self.run_tool(self.search, "search", ["--seconds", self.args.parse_seconds / 2], 1200)

    def run(self):
        steps = [("cosmolite", self.run_cosmolite), ("peer", self.run_peer), ("raw-beast", self.run_raw_beast),
                 ("sqlite", self.run_sqlite), ("query-engine", self.run_query_parse), ("scripts", self.run_scripts),
                 ("query-cost", self.run_query_cost), ("search", self.run_search)]
        if not self.args.skip_plain_http:
            steps.insert(1, ("cosmolite-http", self.run_cosmolite_http))
        if not self.args.queries_only:
            steps.insert(1, ("cosmolite-memory", self.run_cosmolite_memory))
        only = set(self.args.only.split(",")) if self.args.only else None
        started = time.monotonic()
        info = machine_info(self.work)
        for name, step in steps:
            if only and name not in only:
                continue
            log(f"== {name}")
            try:
                step()
            except Exception as error:  # one target failing must not lose the others' figures
                self.problems.append(f"{name}: {error}")
                log(f"{name} failed: {error}")
        shutil.rmtree(self.work, ignore_errors=True)
        info["bench_minutes"] = round((time.monotonic() - started) / 60, 1)
        return info


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    parser.add_argument("--peer-dir", default=None, help="where the peer is installed (default BUILD/bench-peer)")
    parser.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--client-threads", type=int, default=1)
    parser.add_argument("--server-threads", type=int, default=max(2, os.cpu_count() or 2),
                        help="raw Beast server threads (cosmolite's default: cores, at least 2)")
    parser.add_argument("--telemetry-rate", type=int, default=18_000)
    parser.add_argument("--telemetry-seconds", type=float, default=60)
    parser.add_argument("--telemetry-connections", type=int, default=64)
    parser.add_argument("--starts", type=int, default=7, help="cosmolite starts for start-to-ready")
    parser.add_argument("--peer-starts", type=int, default=3)
    parser.add_argument("--idle-ms", type=int, default=1000)
    parser.add_argument("--peer-count-timeout", type=float, default=30,
                        help="seconds allowed to count the peer's telemetry documents")
    parser.add_argument("--noise-threshold", type=float, default=0.25,
                        help="cores of other work above which a run counts as noisy")
    parser.add_argument("--quiet-wait", type=float, default=120,
                        help="seconds to wait for the machine to be quiet before each measurement")
    parser.add_argument("--retry-budget", type=float, default=240,
                        help="seconds that re-measuring noisy figures may add in total")
    parser.add_argument("--query-documents", default="10000,100000",
                        type=lambda text: [int(v) for v in text.split(",") if v],
                        help="comma-separated document counts the query workloads run over")
    parser.add_argument("--query-connections", type=int, default=8,
                        help="connections of the query workloads (queries are slow: fewer connections keep "
                             "latencies readable at the same throughput)")
    parser.add_argument("--peer-query-timeout", type=float, default=300,
                        help="seconds allowed for each peer query workload run, seeding included")
    parser.add_argument("--parse-seconds", type=float, default=2,
                        help="length of each bench_query_parse measurement")
    parser.add_argument("--skip-queries", action="store_true")
    parser.add_argument("--queries-only", action="store_true",
                        help="on cosmolite and the peer, run only the query workloads (no start-up, point or "
                             "telemetry runs); combine with --only cosmolite,peer,query-engine")
    parser.add_argument("--skip-telemetry", action="store_true")
    parser.add_argument("--render-only", action="store_true",
                        help="rewrite results.md from the results.json of the last run, measuring nothing")
    parser.add_argument("--skip-plain-http", action="store_true")
    parser.add_argument("--workloads", default="",
                        help="comma-separated subset of the workloads to run on each target, e.g. "
                             "create,bulk-create (names as cosmolite_bench --workload; also startup, and "
                             "indexing, beside-scans and beside-endless for those sections' extra runs)")
    parser.add_argument("--only", default="", help="comma-separated subset: cosmolite,cosmolite-memory,cosmolite-http,peer,"
                                                   "raw-beast,sqlite,query-engine,scripts,query-cost (the report then lacks the "
                                                   "others)")
    args = parser.parse_args()
    bench_report.NOISE_THRESHOLD = args.noise_threshold
    if args.peer_dir is None:
        args.peer_dir = str(Path(args.build_dir) / "bench-peer")

    if args.render_only:
        # Rewrites results.md from results.json (after a change to the report, not to the figures).
        out_dir = Path(args.out_dir)
        saved = json.loads((out_dir / "results.json").read_text())
        report = render(saved["machine"], saved["records"], saved["problems"], argparse.Namespace(**saved["settings"]))
        (out_dir / "results.md").write_text(report + "\n")
        log(f"rewrote {out_dir / 'results.md'} from results.json")
        return 0

    bench = Bench(args)
    only = set(args.only.split(",")) if args.only else None
    needed = [bench.cosmolite, bench.generator]
    needed += [bench.raw_server] if not only or "raw-beast" in only else []
    needed += [bench.sqlite] if not only or "sqlite" in only else []
    for binary in needed:
        if not binary.exists():
            sys.exit(f"missing {binary}: build first (make bench does)")
    info = bench.run()
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    report = render(info, bench.records, bench.problems, args)
    (out_dir / "results.md").write_text(report + "\n")
    (out_dir / "results.json").write_text(json.dumps(
        {"machine": info, "settings": vars(args), "records": bench.records, "problems": bench.problems},
        indent=1) + "\n")
    print(report)
    log(f"wrote {out_dir / 'results.md'} and results.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
