#!/usr/bin/env python3
"""Runs the cosmolite benchmark end to end and writes bench/results/results.md (+ results.json).

Targets, each driven by the same load generator (build/bench/cosmolite_bench) over the same
transport (HTTPS, certificate not verified, N keep-alive connections):
  cosmolite       build/cosmolite --data-dir <tmp>  (default durability: WAL + synchronous=NORMAL)
  cosmolite-http  the same over plain HTTP (--no-tls), creates and reads only
  peer            @vercel/cosmosdb-server 1.0.1 (Node, in memory), installed into build/bench-peer
  raw-beast       build/bench/bench_raw_server: a minimal Beast server answering a fixed JSON body
  sqlite          build/bench/bench_sqlite: raw SQLite insert and point-select loops, no HTTP
  query-engine    build/bench/bench_query_parse: parse+bind, cached prepare and query-plan rates

cosmolite also runs bulk creates (100 operations per request, as the SDKs' bulk mode sends them)
right after its point creates, and the report compares the two per document.

cosmolite and the peer also run the query workloads (single-partition query, cross-partition
ORDER BY) over --query-documents seeded documents each (10k and 100k by default).

Every throughput figure is the median of --runs runs of --seconds each, after a --warmup; the
telemetry ingest runs once for --telemetry-seconds at --telemetry-rate. Standard library only.
The results file is generated, never edited by hand.
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
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEER_PACKAGE = "@vercel/cosmosdb-server"
PEER_VERSION = "1.0.1"

# Goals from the benchmark issue; the table prints PASS or MISS for each.
GOAL_CREATES_PER_S = 20_000
GOAL_CREATES_VS_PEER = 2.0
GOAL_READS_VS_PEER = 3.0
GOAL_VS_RAW_BEAST = 0.5
GOAL_TELEMETRY_PER_S = 18_000
GOAL_TELEMETRY_MAX_LAG_MS = 1000
GOAL_READY_MS = 100
GOAL_IDLE_RSS_MB = 15
GOAL_ORDERBY_VS_PEER = 30
GOAL_ORDERBY_SCALING = 12  # time per ORDER BY query at 100k documents ÷ at 10k
QUERY_WORKLOADS = ["query-orderby", "query-single"]
# cosmolite only: the same ORDER BY run range by range on four physical partitions, as an SDK
# runs it after the gateway's 400/1004 (the peer has one partition key range and no query plan).
FANOUT_WORKLOAD = "query-fanout"
# cosmolite only: the latest-version change feed of the same four-range container.
CHANGEFEED_WORKLOAD = "changefeed"
# cosmolite only: what the indexing policy costs and buys. Creates under the default policy and under
# one that indexes only the partition key; an equality filter with n indexed and with n excluded.
NARROW_POLICY = '{"includedPaths":[{"path":"/pk/?"}],"excludedPaths":[{"path":"/*"}]}'
N_EXCLUDED_POLICY = '{"excludedPaths":[{"path":"/n/?"}]}'
FILTER_WORKLOAD = "query-filter"
# cosmolite only: 1 KB creates in bulk requests of BULK_OPERATIONS each (the SDKs' bulk mode), run right
# after the point creates so the two compare per document.
BULK_WORKLOAD = "bulk-create"
BULK_OPERATIONS = 100


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

    def run_query_parse(self):
        if not self.query_parse.exists():
            # `make bench` may predate this tool: build it (the query library is already built).
            log(f"building {self.query_parse.name}")
            subprocess.run(["cmake", "--build", self.build, "--target", "bench_query_parse"], check=True,
                           stdout=subprocess.DEVNULL)
        self.wait_for_quiet("query parse")
        stderr_lines = []
        lines, code = run_json_lines([self.query_parse, "--seconds", self.args.parse_seconds],
                                     10 * self.args.parse_seconds + 60, stderr_lines)
        if code != 0:
            reason = stderr_lines[-1] if stderr_lines else ""
            self.problems.append(f"query parse benchmark failed (exit {code}) {reason[:300]}")
        self.records.extend(lines)

    def run(self):
        steps = [("cosmolite", self.run_cosmolite), ("peer", self.run_peer), ("raw-beast", self.run_raw_beast),
                 ("sqlite", self.run_sqlite), ("query-engine", self.run_query_parse)]
        if not self.args.skip_plain_http:
            steps.insert(1, ("cosmolite-http", self.run_cosmolite_http))
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


# ---------------------------------------------------------------------------------------------
# Report


NOISE_THRESHOLD = 0.25  # replaced by --noise-threshold


def quiet(records):
    """The runs during which other work used at most NOISE_THRESHOLD cores; all runs if none did."""
    calm = [r for r in records if r.get("other_load_cores", 0) <= NOISE_THRESHOLD]
    return calm or records


def median_of(records, target, workload, key, documents=None):
    runs = quiet(runs_of(records, target, workload, documents))
    values = [r[key] for r in runs if r.get(key) is not None and r[key] >= 0]
    return statistics.median(values) if values else None


def runs_of(records, target, workload, documents=None):
    """A target's runs of a workload; `documents` picks the query workloads' size."""
    return [r for r in records if r.get("target") == target and r.get("workload") == workload
            and (documents is None or r.get("documents") == documents)]


def fmt(value, digits=0, suffix=""):
    if value is None:
        return "n/a"
    if digits == 0:
        return f"{value:,.0f}{suffix}"
    return f"{value:,.{digits}f}{suffix}"


def times_text(value):
    """A ratio written as 2.5×, or n/a."""
    return "n/a" if value is None else f"{value:,.1f}×"


def ratio(numerator, denominator):
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def verdict(ok):
    if ok is None:
        return "n/a"
    return "PASS" if ok else "MISS"


# workload -> (short name, the query it sends)
QUERY_ROWS = {
    "query-single": ("single-partition query",
                     "`SELECT * FROM c WHERE c.pk = @pk AND c.n >= @lo` with the partition-key header, first page "
                     "(x-ms-max-item-count 10)"),
    "query-orderby": ("cross-partition ORDER BY",
                      "`SELECT TOP 10 c.id, c.n FROM c WHERE c.n >= @lo ORDER BY c.n` with "
                      "x-ms-documentdb-query-enablecrosspartition"),
}

POINT_ROWS = [
    # (label, target, workload)
    ("point creates (1 KB)", "cosmolite", "create"),
    ("point creates (1 KB)", "cosmolite-http", "create"),
    ("point creates (1 KB)", "peer", "create"),
    ("create-shaped POST", "raw-beast", "create"),
    ("create-shaped POST", "raw-beast-http", "create"),
    ("INSERT, 1 txn each", "sqlite", "insert"),
    ("point reads", "cosmolite", "read"),
    ("point reads", "cosmolite-http", "read"),
    ("point reads", "peer", "read"),
    ("read-shaped GET", "raw-beast", "read"),
    ("read-shaped GET", "raw-beast-http", "read"),
    ("SELECT by key", "sqlite", "select"),
    ("upserts (replace, 1 KB)", "cosmolite", "upsert"),
    ("upserts (replace, 1 KB)", "peer", "upsert"),
]

TARGET_NAMES = {
    "cosmolite": "cosmolite (HTTPS)",
    "cosmolite-http": "cosmolite (plain HTTP)",
    "peer": f"peer {PEER_PACKAGE} {PEER_VERSION} (HTTPS)",
    "raw-beast": "raw Beast server (HTTPS)",
    "raw-beast-http": "raw Beast server (plain HTTP)",
    "sqlite": "raw SQLite (no HTTP)",
}


def render_bulk(w, records, args):
    """Bulk creates beside point creates on the same server, per document."""
    bulk_runs = runs_of(records, "cosmolite", BULK_WORKLOAD)
    if not bulk_runs:
        return
    m = lambda workload, key: median_of(records, "cosmolite", workload, key)  # noqa: E731
    per_request = bulk_runs[0].get("operations_per_request", BULK_OPERATIONS)
    w("## Bulk creates vs point creates (cosmolite, HTTPS, 1 KB documents, medians)")
    w("")
    w(f"Bulk: `POST …/docs` with `x-ms-cosmos-is-batch-request: True`, `x-ms-cosmos-batch-atomic: False`, "
      f"`x-ms-cosmos-batch-continue-on-error: True` and `x-ms-documentdb-partitionkeyrangeid` (as the Java and "
      f".NET SDKs group bulk operations per physical partition), {per_request} `Create` operations per request "
      f"over partition keys p0…p99, into a fresh one-partition container; the same documents as the point "
      f"creates, {args.connections} connections. A request counts only when all its operations applied (200).")
    w("")
    w("| creates | docs/s | runs (docs/s) | requests/s | p50 ms per request | p99 ms per request "
      "| server CPU µs/doc | server CPU cores | client CPU µs/doc | RU per doc | errors | other load cores |")
    w("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    point_runs = runs_of(records, "cosmolite", "create")
    rows = [("point (one per request)", "create", point_runs, 1),
            (f"bulk ({per_request} per request)", BULK_WORKLOAD, bulk_runs, per_request)]
    docs_per_s = {}
    cpu_per_doc = {}
    for name, workload, runs, per in rows:
        if not runs:
            continue
        per_run = " / ".join(fmt(r.get("ops_per_s", 0) * per) +
                             ("†" if r.get("other_load_cores", 0) > NOISE_THRESHOLD else "") for r in runs)
        requests = m(workload, "ops_per_s")
        cpu = m(workload, "server_cpu_us_per_op")
        client = m(workload, "client_cpu_us_per_op")
        charge = m(workload, "charge_mean")
        docs_per_s[workload] = requests and requests * per
        cpu_per_doc[workload] = cpu and cpu / per
        w(f"| {name} | {fmt(docs_per_s[workload])} | {per_run} | {fmt(requests)} | {fmt(m(workload, 'p50_ms'), 2)} "
          f"| {fmt(m(workload, 'p99_ms'), 2)} | {fmt(cpu_per_doc[workload], 1)} "
          f"| {fmt(m(workload, 'server_cpu_cores'), 2)} | {fmt(client and client / per, 1)} "
          f"| {fmt(charge and charge / per, 2)} | {sum(r.get('errors', 0) for r in runs)} "
          f"| {fmt(m(workload, 'other_load_cores'), 2)} |")
    w("")
    speed = ratio(docs_per_s.get(BULK_WORKLOAD), docs_per_s.get("create"))
    cpu_saving = ratio(cpu_per_doc.get("create"), cpu_per_doc.get(BULK_WORKLOAD))
    w(f"Bulk is {times_text(speed)} faster per document than point creates (docs/s), and the server spends "
      f"{times_text(cpu_saving)} less CPU per document (point ÷ bulk µs/doc). The server applies each bulk "
      f"operation as if it were sent alone (`RunBulk` in engine/items/batch.cc): bulk saves the per-request "
      f"work (TLS records, HTTP parsing, the signature check, routing, response headers), not the storage work.")
    w("")


def render_queries(w, records, args):
    m = lambda target, workload, key, documents: median_of(records, target, workload, key, documents)  # noqa: E731
    if not any(r.get("workload") in QUERY_ROWS for r in records):
        return
    w("## Queries (medians)")
    w("")
    for workload, (what, query) in QUERY_ROWS.items():
        w(f"- **{what}**: {query}.")
    w("")
    w("| query | documents | target | queries/s | runs (queries/s) | p50 ms | p99 ms | RU per query "
      "| server CPU µs/query | server RSS MB | errors | set-up s | other load cores |")
    w("|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for documents in args.query_documents:
        for workload, (what, _query) in QUERY_ROWS.items():
            for target in ["cosmolite", "peer"]:
                runs = runs_of(records, target, workload, documents)
                if not runs:
                    w(f"| {what} | {documents:,} | {TARGET_NAMES[target]} | n/a | did not finish (see problems) "
                      f"| | | | | | | | |")
                    continue
                per_run = " / ".join(fmt(r.get("ops_per_s"), 1) +
                                     ("†" if r.get("other_load_cores", 0) > NOISE_THRESHOLD else "") for r in runs)
                setup = runs[0]
                setup_text = (f"{fmt(setup.get('setup_seconds'), 1)} "
                              f"({'seeded' if setup.get('seeded') else 'reused'})")
                w(f"| {what} | {documents:,} | {TARGET_NAMES[target]} "
                  f"| {fmt(m(target, workload, 'ops_per_s', documents), 1)} | {per_run} "
                  f"| {fmt(m(target, workload, 'p50_ms', documents), 2)} "
                  f"| {fmt(m(target, workload, 'p99_ms', documents), 2)} "
                  f"| {fmt(m(target, workload, 'charge_mean', documents), 2)} "
                  f"| {fmt(m(target, workload, 'server_cpu_us_per_op', documents))} "
                  f"| {fmt(m(target, workload, 'server_rss_mb', documents), 1)} "
                  f"| {sum(r.get('errors', 0) for r in runs)} | {setup_text} "
                  f"| {fmt(m(target, workload, 'other_load_cores', documents), 2)} |")
    w("")
    if len(args.query_documents) >= 2:
        small, large = min(args.query_documents), max(args.query_documents)
        w(f"Time per query, {large:,} ÷ {small:,} documents (the ratio of queries/s): "
          + "; ".join(f"{TARGET_NAMES[target]}: " + ", ".join(
              f"{QUERY_ROWS[workload][0]} "
              f"{times_text(ratio(m(target, workload, 'ops_per_s', small), m(target, workload, 'ops_per_s', large)))}"
              for workload in QUERY_ROWS) for target in ["cosmolite", "peer"]) + ".")
        w("")
    w("Documents are 256 bytes (`seed-N` with `\"n\": N`, partition key `p{N mod 100}`), upserted before the clock "
      "into a container named after the count and reused when it already holds them (set-up s: counting, "
      "plus seeding when it happened). Before the clock, one answer is checked against the seeded data "
      "(rows, order, partition). RU per query: mean `x-ms-request-charge` of a page (the peer always answers 1). "
      "The peer evaluates every query over a copy of all its documents, single-partition ones included.")
    w("")


def render_fanout(w, records, args):
    m = lambda key, documents: median_of(records, "cosmolite", FANOUT_WORKLOAD, key, documents)  # noqa: E731
    if not runs_of(records, "cosmolite", FANOUT_WORKLOAD):
        return
    w("## Cross-partition ORDER BY on four physical partitions (cosmolite, medians)")
    w("")
    w("`SELECT TOP 10 c.id, c.n FROM c WHERE c.n >= @lo ORDER BY c.n` on a container created with 40,000 RU/s (four "
      "partition key ranges), run as an SDK runs it after the gateway's 400/1004: the plan's rewritten query "
      "(`orderByItems` + `payload`) once per range with `x-ms-documentdb-partitionkeyrangeid`. One query is four "
      "requests; the figures below are per query (requests/s ÷ 4, RU and CPU × 4).")
    w("")
    w("| documents | queries/s | p50 ms per range request | RU per query | server CPU ms per query | server RSS MB |")
    w("|---:|---:|---:|---:|---:|---:|")
    rates = {}
    for documents in args.query_documents:
        ops = m("ops_per_s", documents)
        rates[documents] = ops / 4 if ops else None
        charge = m("charge_mean", documents)
        cpu = m("server_cpu_us_per_op", documents)
        w(f"| {documents:,} | {fmt(rates[documents], 1)} | {fmt(m('p50_ms', documents), 1)} "
          f"| {fmt(charge * 4 if charge else None, 0)} | {fmt(cpu * 4 / 1000 if cpu else None, 1)} "
          f"| {fmt(m('server_rss_mb', documents), 1)} |")
    w("")
    if len(args.query_documents) >= 2:
        small, large = min(args.query_documents), max(args.query_documents)
        w(f"Time per query, {large:,} ÷ {small:,} documents: {times_text(ratio(rates[small], rates[large]))} "
          f"(goal ≤ {GOAL_ORDERBY_SCALING}×).")
        w("")


def render_changefeed(w, records, args):
    m = lambda key, documents: median_of(records, "cosmolite", CHANGEFEED_WORKLOAD, key, documents)  # noqa: E731
    if not runs_of(records, "cosmolite", CHANGEFEED_WORKLOAD):
        return
    w("## Change feed, latest version (cosmolite, the four-range query container)")
    w("")
    w("Drain: one consumer reads every range from the beginning, 1,000 items a page, until 304, before the clock "
      "(it must see every document exactly once). Pages: the timed load reads 1,000-item pages from random points "
      "of the feed on all four ranges.")
    w("")
    w("| documents | drain items/s | drain s | pages/s | p50 ms per page | RU per page | server CPU µs per page |")
    w("|---:|---:|---:|---:|---:|---:|---:|")
    for documents in args.query_documents:
        w(f"| {documents:,} | {fmt(m('drain_items_per_s', documents))} | {fmt(m('drain_seconds', documents), 2)} "
          f"| {fmt(m('ops_per_s', documents), 1)} | {fmt(m('p50_ms', documents), 1)} "
          f"| {fmt(m('charge_mean', documents), 1)} | {fmt(m('server_cpu_us_per_op', documents))} |")
    w("")


def render_indexing(w, records, args):
    m = lambda target, workload, key, documents=None: median_of(records, target, workload, key, documents)  # noqa: E731
    if runs_of(records, "cosmolite-default-index", "create"):
        w("## Indexing policy and write cost (cosmolite, 1 KB point creates, medians)")
        w("")
        w(f"Default policy versus one that indexes only `/pk/?` (`{NARROW_POLICY}`).")
        w("")
        w("| policy | creates/s | RU per create | p50 ms | server CPU µs/op |")
        w("|---|---:|---:|---:|---:|")
        for label, name in (("cosmolite-default-index", "default"), ("cosmolite-narrow-index", "narrow")):
            w(f"| {name} | {fmt(m(label, 'create', 'ops_per_s'))} | {fmt(m(label, 'create', 'charge_mean'), 2)} "
              f"| {fmt(m(label, 'create', 'p50_ms'), 2)} | {fmt(m(label, 'create', 'server_cpu_us_per_op'))} |")
        w("")
    if runs_of(records, "cosmolite-indexed", FILTER_WORKLOAD):
        w("## An equality filter with and without an index (cosmolite, `SELECT * FROM c WHERE c.n = @n`, medians)")
        w("")
        w("| documents | index on n | queries/s | RU per query | p50 ms | server CPU µs/query |")
        w("|---:|---|---:|---:|---:|---:|")
        for documents in args.query_documents:
            for label, name in (("cosmolite-indexed", "yes"), ("cosmolite-unindexed", "excluded")):
                w(f"| {documents:,} | {name} | {fmt(m(label, FILTER_WORKLOAD, 'ops_per_s', documents), 1)} "
                  f"| {fmt(m(label, FILTER_WORKLOAD, 'charge_mean', documents), 2)} "
                  f"| {fmt(m(label, FILTER_WORKLOAD, 'p50_ms', documents), 2)} "
                  f"| {fmt(m(label, FILTER_WORKLOAD, 'server_cpu_us_per_op', documents))} |")
        w("")


def render_writes_beside_scans(w, records, args):
    m = lambda target, workload, key, documents=None: median_of(records, target, workload, key, documents)  # noqa: E731
    if not runs_of(records, "cosmolite-beside-scans", "create"):
        return
    documents = min(args.query_documents)
    w("## Writes beside scanning queries (cosmolite, medians)")
    w("")
    w(f"1 KB point creates on {args.connections} connections while 2 more connections keep running the "
      f"unindexed equality filter of the table above over {documents:,} documents (each query reads every "
      "document). Reads run on SQLite snapshots of their own, beside the writer.")
    w("")
    w("| creates | creates/s | p50 ms | p99 ms | server CPU cores | scanning queries/s |")
    w("|---|---:|---:|---:|---:|---:|")
    w(f"| alone (default policy, above) | {fmt(m('cosmolite-default-index', 'create', 'ops_per_s'))} "
      f"| {fmt(m('cosmolite-default-index', 'create', 'p50_ms'), 2)} "
      f"| {fmt(m('cosmolite-default-index', 'create', 'p99_ms'), 2)} "
      f"| {fmt(m('cosmolite-default-index', 'create', 'server_cpu_cores'), 2)} "
      f"| alone: {fmt(m('cosmolite-unindexed', FILTER_WORKLOAD, 'ops_per_s', documents), 1)} |")
    w(f"| beside the scans | {fmt(m('cosmolite-beside-scans', 'create', 'ops_per_s'))} "
      f"| {fmt(m('cosmolite-beside-scans', 'create', 'p50_ms'), 2)} "
      f"| {fmt(m('cosmolite-beside-scans', 'create', 'p99_ms'), 2)} "
      f"| {fmt(m('cosmolite-beside-scans', 'create', 'server_cpu_cores'), 2)} "
      f"| meanwhile: {fmt(m('cosmolite-scans', FILTER_WORKLOAD, 'ops_per_s', documents), 1)} |")
    w("")


def render_query_engine(w, records):
    engine = next(iter(runs_of(records, "query-engine", "parse")), None)
    if engine is None:
        return
    w(f"## Query front end (`bench_query_parse`, {engine.get('queries')} representative queries, one thread)")
    w("")
    w("| step | per second | µs per query |")
    w("|---|---:|---:|")
    for key, what in [("parse_bind", "parse + bind, fresh each time (no cache)"),
                      ("cached_prepare", "PreparedQueryCache::Prepare, already cached"),
                      ("parse_bind_plan", "parse + bind + SDK query plan")]:
        if engine.get(f"{key}_per_s") is not None:
            w(f"| {what} | {fmt(engine.get(f'{key}_per_s'))} | {fmt(engine.get(f'{key}_us'), 2)} |")
    w("")


def telemetry_verdict(record, rate, seconds):
    if record is None:
        return None
    expected = round(rate * seconds)
    return (record.get("errors", 1) == 0 and record.get("lost", 1) == 0 and record.get("issued") == expected
            and record.get("acknowledged") == expected and record.get("stored") == expected
            and record.get("max_lag_ms", 1e9) <= GOAL_TELEMETRY_MAX_LAG_MS)


def render(info, records, problems, args):
    m = lambda target, workload, key, documents=None: median_of(records, target, workload, key, documents)  # noqa: E731
    out = []
    w = out.append
    w("# cosmolite benchmark results")
    w("")
    w("Generated by `make bench` (`bench/run_bench.py`); do not edit by hand, rerun it. "
      "See `bench/README.md` for what each figure means.")
    w("")
    w(f"- **Date**: {info['date_utc']}; the whole run took {info.get('bench_minutes', '?')} min.")
    w(f"- **Machine**: {info['cores']} cores, {info['cpu_model']}, {info['memory_gib']} GiB, Linux "
      f"{info['kernel']}. Shared and noisy; the load generator runs on the same cores as the server.")
    w(f"- **cosmolite**: revision {info['cosmolite_revision']}, `build/cosmolite --data-dir <tmp>` with "
      f"default flags: durability **WAL + synchronous=NORMAL** (survives a process crash, not a power "
      f"loss), data on {info['data_filesystem']}, {args.server_threads} I/O threads (the default on this "
      f"machine).")
    w(f"- **Peer**: `{PEER_PACKAGE}` {PEER_VERSION} on Node {info['node']}, in memory, HTTPS with keep-alive "
      f"(`bench/start_peer.js`).")
    w(f"- **Load**: `cosmolite_bench`, {args.connections} keep-alive connections on {args.client_threads} client "
      f"thread(s), HTTPS (TLS, certificate not verified) for every HTTP target unless marked plain HTTP; "
      f"each figure is the **median of {args.runs} runs × {args.seconds:g} s** after a {args.warmup:g} s "
      f"warm-up, closed loop. Telemetry: {args.telemetry_rate:,} docs/s offered for "
      f"{args.telemetry_seconds:g} s over {args.telemetry_connections} connections, then counted through "
      f"the read feed. Before each measurement the harness waits for the machine to be quiet (other work "
      f"≤ {args.noise_threshold:g} cores, up to {args.quiet_wait:g} s) and measures again, once, a figure most "
      f"of whose runs shared the CPU with other work. Queries: {args.query_connections} connections, one page "
      f"per request, over {' and '.join(f'{d:,}' for d in args.query_documents)} seeded documents.")
    w("")

    creates = m("cosmolite", "create", "ops_per_s")
    reads = m("cosmolite", "read", "ops_per_s")
    peer_creates = m("peer", "create", "ops_per_s")
    peer_reads = m("peer", "read", "ops_per_s")
    raw_creates = m("raw-beast", "create", "ops_per_s")
    raw_reads = m("raw-beast", "read", "ops_per_s")
    telemetry = next(iter(runs_of(records, "cosmolite", "telemetry")), None)
    ready = m("cosmolite", "startup", "ready_ms")
    idle_rss = m("cosmolite", "startup", "idle_rss_mb")

    def goal_row(name, measured, goal, ok):
        w(f"| {name} | {measured} | {goal} | {verdict(ok)} |")

    w("## Targets")
    w("")
    w("| target | measured | goal | result |")
    w("|---|---|---|---|")
    r = ratio(creates, peer_creates)
    goal_row("point creates vs peer", f"{fmt(r, 2)}× ({fmt(creates)} vs {fmt(peer_creates)} /s)",
             f"≥ {GOAL_CREATES_VS_PEER:g}×", None if r is None else r >= GOAL_CREATES_VS_PEER)
    goal_row("point creates", f"{fmt(creates)} /s", f"≥ {GOAL_CREATES_PER_S:,} /s",
             None if creates is None else creates >= GOAL_CREATES_PER_S)
    r = ratio(reads, peer_reads)
    goal_row("point reads vs peer", f"{fmt(r, 2)}× ({fmt(reads)} vs {fmt(peer_reads)} /s)",
             f"≥ {GOAL_READS_VS_PEER:g}×", None if r is None else r >= GOAL_READS_VS_PEER)
    r = ratio(creates, raw_creates)
    goal_row("point creates vs raw Beast server", f"{fmt(r and r * 100)}% ({fmt(creates)} vs {fmt(raw_creates)} /s)",
             f"≥ {GOAL_VS_RAW_BEAST:.0%}", None if r is None else r >= GOAL_VS_RAW_BEAST)
    r = ratio(reads, raw_reads)
    goal_row("point reads vs raw Beast server", f"{fmt(r and r * 100)}% ({fmt(reads)} vs {fmt(raw_reads)} /s)",
             f"≥ {GOAL_VS_RAW_BEAST:.0%}", None if r is None else r >= GOAL_VS_RAW_BEAST)
    if telemetry and telemetry_verdict(telemetry, args.telemetry_rate, args.telemetry_seconds):
        measured = (f"{args.telemetry_rate:,} /s offered; all {fmt(telemetry.get('stored'))} sent on time (max lag "
                    f"{fmt(telemetry.get('max_lag_ms'))} ms), acknowledged and counted")
    elif telemetry:
        measured = (f"{fmt(telemetry.get('ops_per_s'))} /s achieved; {fmt(telemetry.get('stored'))} of "
                    f"{fmt(round(args.telemetry_rate * args.telemetry_seconds))} stored; max lag "
                    f"{fmt(telemetry.get('max_lag_ms'))} ms")
    else:
        measured = "n/a"
    goal_row(f"telemetry ingest for {args.telemetry_seconds:g} s", measured,
             f"≥ {GOAL_TELEMETRY_PER_S:,} /s sustained, nothing lost",
             telemetry_verdict(telemetry, args.telemetry_rate, args.telemetry_seconds))
    goal_row("start to ready (empty data dir)", f"{fmt(ready, 1)} ms", f"≤ {GOAL_READY_MS} ms",
             None if ready is None else ready <= GOAL_READY_MS)
    goal_row("idle RSS", f"{fmt(idle_rss, 1)} MB", f"≤ {GOAL_IDLE_RSS_MB} MB",
             None if idle_rss is None else idle_rss <= GOAL_IDLE_RSS_MB)
    small, large = 10_000, 100_000
    orderby_small = m("cosmolite", "query-orderby", "ops_per_s", small)
    orderby_large = m("cosmolite", "query-orderby", "ops_per_s", large)
    scaling = ratio(orderby_small, orderby_large)
    peer_orderby_small = m("peer", "query-orderby", "ops_per_s", small)
    r = ratio(orderby_small, peer_orderby_small)
    goal_row(f"cross-partition ORDER BY vs peer, {small:,} documents",
             f"{fmt(r, 0)}× ({fmt(orderby_small, 1)} vs {fmt(peer_orderby_small, 1)} queries/s)",
             f"≥ {GOAL_ORDERBY_VS_PEER}×", None if r is None else r >= GOAL_ORDERBY_VS_PEER)
    goal_row(f"ORDER BY query time, {large:,} ÷ {small:,} documents",
             f"{times_text(scaling)} ({fmt(orderby_small, 1)} vs {fmt(orderby_large, 1)} queries/s)",
             f"≤ {GOAL_ORDERBY_SCALING}×", None if scaling is None else scaling <= GOAL_ORDERBY_SCALING)
    w("")
    w(f"Telemetry passes when all {fmt(round(args.telemetry_rate * args.telemetry_seconds))} scheduled "
      f"documents were sent no more than {GOAL_TELEMETRY_MAX_LAG_MS} ms behind schedule (the server absorbed "
      f"the offered rate), every one was acknowledged with a 2xx, and the read feed counts exactly as many.")
    w("")

    w("## Throughput and latency (medians)")
    w("")
    w("| workload | target | ops/s | runs (ops/s) | p50 ms | p99 ms | server CPU µs/op | server CPU cores "
      "| server RSS MB | errors | client CPU µs/op | other load cores |")
    w("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, target, workload in POINT_ROWS:
        runs = runs_of(records, target, workload)
        if not runs:
            continue
        per_run = " / ".join(fmt(r.get("ops_per_s")) + ("†" if r.get("other_load_cores", 0) > NOISE_THRESHOLD else "")
                             for r in runs)
        errors = sum(r.get("errors", 0) for r in runs)
        client = m(target, workload, "client_cpu_us_per_op")
        w(f"| {name} | {TARGET_NAMES[target]} | {fmt(m(target, workload, 'ops_per_s'))} | {per_run} "
          f"| {fmt(m(target, workload, 'p50_ms'), 2)} | {fmt(m(target, workload, 'p99_ms'), 2)} "
          f"| {fmt(m(target, workload, 'server_cpu_us_per_op'), 1)} "
          f"| {fmt(m(target, workload, 'server_cpu_cores'), 2)} | {fmt(m(target, workload, 'server_rss_mb'), 1)} "
          f"| {errors} | {fmt(client, 1) if target != 'sqlite' else '—'} "
          f"| {fmt(m(target, workload, 'other_load_cores'), 2) if target != 'sqlite' else '—'} |")
    w("")
    w("For raw SQLite the CPU and RSS columns are the loop's own process (it is the whole \"server\"). "
      "Other load = CPU used by other processes plus hypervisor steal during the run, in cores: the machine's "
      f"noise (about 0.05 when nothing else runs). Runs marked † had more than {NOISE_THRESHOLD:g} cores of "
      "other load and are left out of the medians when the same figure has quieter runs.")
    w("")

    w("## Ratios (medians)")
    w("")
    w("| workload | cosmolite ÷ peer | cosmolite ÷ raw Beast server | cosmolite ÷ raw SQLite |")
    w("|---|---:|---:|---:|")
    sqlite_insert = m("sqlite", "insert", "ops_per_s")
    sqlite_select = m("sqlite", "select", "ops_per_s")
    w(f"| point creates | {fmt(ratio(creates, peer_creates), 2)} | {fmt(ratio(creates, raw_creates), 2)} "
      f"| {fmt(ratio(creates, sqlite_insert), 2)} |")
    w(f"| point reads | {fmt(ratio(reads, peer_reads), 2)} | {fmt(ratio(reads, raw_reads), 2)} "
      f"| {fmt(ratio(reads, sqlite_select), 2)} |")
    for workload, what in [("create", "point creates, plain HTTP"), ("read", "point reads, plain HTTP")]:
        plain = m("cosmolite-http", workload, "ops_per_s")
        if plain is not None:
            w(f"| {what} | — | {fmt(ratio(plain, m('raw-beast-http', workload, 'ops_per_s')), 2)} | — |")
    w(f"| upserts | {fmt(ratio(m('cosmolite', 'upsert', 'ops_per_s'), m('peer', 'upsert', 'ops_per_s')), 2)} "
      f"| — | — |")
    peer_telemetry = next(iter(runs_of(records, "peer", "telemetry")), None)
    w(f"| telemetry ingest (achieved docs/s) | "
      f"{fmt(ratio(telemetry and telemetry.get('ops_per_s'), peer_telemetry and peer_telemetry.get('ops_per_s')), 2)}"
      f" | — | — |")
    for documents in args.query_documents:
        for workload, (what, _query) in QUERY_ROWS.items():
            mine = m("cosmolite", workload, "ops_per_s", documents)
            theirs = m("peer", workload, "ops_per_s", documents)
            if mine is not None or theirs is not None:
                w(f"| {what}, {documents:,} documents | {fmt(ratio(mine, theirs), 2)} | — | — |")
    w("")

    render_bulk(w, records, args)
    render_queries(w, records, args)
    render_fanout(w, records, args)
    render_changefeed(w, records, args)
    render_indexing(w, records, args)
    render_writes_beside_scans(w, records, args)
    render_query_engine(w, records)

    w(f"## Telemetry ingest ({args.telemetry_rate:,} docs/s of 300 bytes offered for {args.telemetry_seconds:g} s)")
    w("")
    w("| target | sent | acknowledged | stored (read feed) | lost | errors | achieved docs/s | slowest second "
      "| max lag ms | p50 ms | p99 ms | server CPU µs/op | server RSS MB | count took s | other load cores "
      "| result |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for target in ["cosmolite", "peer"]:
        t = next(iter(runs_of(records, target, "telemetry")), None)
        if t is None:
            continue
        stored = t.get("stored")
        stored_text = fmt(stored) if stored is not None and stored >= 0 else "not counted (see problems)"
        w(f"| {TARGET_NAMES[target]} | {fmt(t.get('issued'))} | {fmt(t.get('acknowledged'))} "
          f"| {stored_text} | {fmt(t.get('lost'))} | {fmt(t.get('errors'))} | {fmt(t.get('ops_per_s'))} "
          f"| {fmt(t.get('slowest_second_ops'))} | {fmt(t.get('max_lag_ms'))} | {fmt(t.get('p50_ms'), 2)} "
          f"| {fmt(t.get('p99_ms'), 2)} | {fmt(t.get('server_cpu_us_per_op'), 1)} | {fmt(t.get('server_rss_mb'), 1)} "
          f"| {fmt(t.get('count_seconds'), 1)} | {fmt(t.get('other_load_cores'), 2)} "
          f"| {verdict(telemetry_verdict(t, args.telemetry_rate, args.telemetry_seconds))} |")
    w("")
    w("Achieved = acknowledged ÷ time from the first send to the last answer (the generator keeps sending up "
      "to 5 s past the schedule when the server falls behind). Slowest second = answers in the worst "
      "one-second slice of the schedule.")
    w("")

    w("## Start-up and idle memory")
    w("")
    w("| target | start → first 200 (median) | min – max | idle RSS MB (median) | starts |")
    w("|---|---:|---:|---:|---:|")
    for target, what in [("cosmolite", "`GET /ready`, HTTPS, empty data dir (certificate generated)"),
                         ("peer", "`GET /`, HTTPS")]:
        starts = runs_of(records, target, "startup")
        if not starts:
            continue
        times = [s["ready_ms"] for s in starts]
        w(f"| {TARGET_NAMES[target]}: {what} | {fmt(statistics.median(times), 1)} ms "
          f"| {fmt(min(times), 1)} – {fmt(max(times), 1)} ms "
          f"| {fmt(statistics.median(s['idle_rss_mb'] for s in starts), 1)} | {len(starts)} |")
    w("")
    w(f"Spawn → first 200 is timed by the generator (posix_spawn, then polling every millisecond); idle RSS is "
      f"read from /proc/<pid>/status {args.idle_ms} ms after ready.")
    w("")
    if problems:
        w("## Problems during this run")
        w("")
        for problem in problems:
            w(f"- {problem}")
        w("")
    return "\n".join(out)


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
                             "indexing and beside-scans for those sections' extra create runs)")
    parser.add_argument("--only", default="", help="comma-separated subset: cosmolite,cosmolite-http,peer,"
                                                   "raw-beast,sqlite,query-engine (the report then lacks the "
                                                   "others)")
    args = parser.parse_args()
    global NOISE_THRESHOLD
    NOISE_THRESHOLD = args.noise_threshold
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
