#!/usr/bin/env python3
"""Sustained load (issue 31): cosmolite under the `mixed` workload for --minutes, on a data directory.

Starts `cosmolite --data-dir <fresh dir>` (a file store, default durability; HTTPS unless --no-tls) and
runs `cosmolite_bench --workload mixed --stream` over --connections (16) connections: creates, upserts,
point reads, single- and cross-partition queries and deletes (bench/mixed_workload.cc has the mix).
Every --window seconds (10) the generator reports the window's answers; this script adds what it sees
of the server at that moment and prints one line: requests/s, errors, p50/p99 per operation, server
RSS, open descriptors (/proc/PID/fd), WAL size (<data-dir>/*-wal), database size (*.db).

At the end it writes soak.json (every window) and soak.md (targets and a table per minute) into
--out-dir and checks the targets of the issue:
  WAL        the WAL file never above --wal-bound-mb (170: the README's bound, 41,000 pages of 4 KB)
  throughput the last --compare-minutes (1) within --throughput-tolerance (20%) of the first ones after
             --warmup-minutes (1), i.e. minute 1-2 against the last minute (a rise is no miss)
  p99        per operation, the median of the windows' p99 in the last span ≤ --p99-growth (1.5) × the
             first span's, plus --p99-slack-ms (1 ms, so sub-millisecond jitter is no miss)
  RSS        at the end ≤ --rss-growth (1.2) × RSS at the end of the first span (minute 2)
  errors     none
A run too short for both spans marks the throughput, p99 and RSS targets n/a. The exit code is 1 when a
target is missed only with --check; 2 when the soak could not run. Standard library only.
"""

import argparse
import glob
import json
import math
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_bench import ROOT, Server, free_port, machine_info  # noqa: E402

# The mixed workload's kinds of request, in the order of the table's columns.
OPERATIONS = ["create", "upsert", "read", "query-single", "query-cross", "delete"]
COLUMN_NAMES = {"query-single": "q-single", "query-cross": "q-cross"}
MB = 1024 * 1024


def log(message):
    print(f"[soak {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def file_sizes_mb(data_dir, pattern):
    return sum(os.path.getsize(path) for path in glob.glob(os.path.join(data_dir, pattern))) / MB


def open_descriptors(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


class LineReader:
    """The generator's stdout, one JSON line at a time, with a deadline (a hung generator must not
    hang the soak)."""

    def __init__(self, stream):
        self.fd = stream.fileno()
        self.pending = b""

    def next_line(self, timeout_s):
        """The next line (without newline); None at end of file; raises TimeoutError."""
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return self.pending.decode(errors="replace") or None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode(errors="replace")


def window_row(report, window_s, server_pid, data_dir):
    """One window: the generator's figures for it and the server's state as this script sees it now
    (just after the window's end)."""
    operations = report.get("operations", {})
    return {
        "t_s": round(report.get("run", 0) * window_s, 1),  # the window's end, from the load's start
        "ops_per_s": report.get("ops_per_s", 0),
        "ok": report.get("ok", 0),
        "errors": report.get("errors", 0),
        "error_statuses": report.get("error_statuses", {}),
        "p50_ms": report.get("p50_ms"),
        "p99_ms": report.get("p99_ms"),
        "operations": {name: {key: operations.get(name, {}).get(key) for key in
                              ("ops_per_s", "p50_ms", "p99_ms", "mean_ms", "errors")} for name in OPERATIONS},
        "rss_mb": report.get("server_rss_mb", -1),
        "server_cpu_cores": report.get("server_cpu_cores", -1),
        "other_load_cores": report.get("other_load_cores", -1),
        "fds": open_descriptors(server_pid),
        "wal_mb": round(file_sizes_mb(data_dir, "*-wal"), 2),
        "db_mb": round(file_sizes_mb(data_dir, "*.db"), 2),
        "documents": report.get("documents", 0) + report.get("created_not_deleted", 0),
    }


def header_line():
    columns = "".join(f"{COLUMN_NAMES.get(name, name):>12}" for name in OPERATIONS)
    return (f"{'time':>6} {'req/s':>7} {'err':>4}{columns}   {'RSS MB':>7} {'fds':>4} {'WAL MB':>8} {'DB MB':>7} "
            f"{'docs':>7} {'other':>5}\n{'':>18}{'p50/p99 ms of each operation':^72}")


def latency_pair(p50, p99):
    return "-" if p50 is None or p99 is None else f"{p50:.1f}/{p99:.1f}"


def row_line(row):
    ops = "".join(f"{latency_pair(row['operations'][n]['p50_ms'], row['operations'][n]['p99_ms']):>12}"
                  for n in OPERATIONS)
    return (f"{row['t_s']:>5.0f}s {row['ops_per_s']:>7.0f} {row['errors']:>4}{ops}   {row['rss_mb']:>7.1f} "
            f"{row['fds']:>4} {row['wal_mb']:>8.1f} {row['db_mb']:>7.1f} {row['documents']:>7} "
            f"{row['other_load_cores']:>5.2f}")


def run_soak(args, paths):
    """Runs the server and the generator; returns the windows' rows, the problems met and the mix
    the generator reported."""
    rows, problems, mix = [], [], {}
    port = free_port()
    tls = not args.no_tls
    server_argv = [paths["server"], "--port", port, "--data-dir", paths["data_dir"], "--log-level", "warn"]
    server_argv += [] if tls else ["--no-tls"]
    server = Server("soak-cosmolite", server_argv + args.server_arg, port, tls, "/ready", paths["log_dir"])
    server.start()
    windows = max(1, math.ceil(args.minutes * 60 / args.window - 1e-9))
    generator_argv = [paths["bench"], "--workload", "mixed", "--label", "soak", "--port", port,
                      "--connections", args.connections, "--seed-docs", args.seed_docs, "--warmup", 0,
                      "--seconds", args.window, "--runs", windows, "--stream", "--server-pid", server.pid]
    generator_argv += ["--tls"] if tls else []
    log("$ " + " ".join(str(a) for a in generator_argv))
    generator_log = open(Path(paths["log_dir"]) / "soak-generator.log", "w")
    generator = subprocess.Popen([str(a) for a in generator_argv], stdout=subprocess.PIPE, stderr=generator_log,
                                 stdin=subprocess.DEVNULL)
    reader = LineReader(generator.stdout)
    finished = False
    try:
        print(header_line(), flush=True)
        # Seeding comes before the first window: allow it --setup-timeout.
        timeout = args.setup_timeout + args.window
        while True:
            line = reader.next_line(timeout)
            if line is None:
                finished = True
                break
            if not line.startswith("{"):
                continue
            report = json.loads(line)
            mix = report.get("mix_percent", mix)
            row = window_row(report, args.window, server.pid, paths["data_dir"])
            rows.append(row)
            print(row_line(row), flush=True)
            timeout = 3 * args.window + 30
            if server.process.poll() is not None:
                problems.append(f"the server exited with {server.process.returncode} during the soak")
                break
    except TimeoutError:
        problems.append(f"the generator printed nothing for {timeout:g} s")
    finally:
        if not finished and generator.poll() is None:
            generator.send_signal(signal.SIGTERM)
        try:
            code = generator.wait(timeout=60)
        except subprocess.TimeoutExpired:
            generator.kill()
            code = generator.wait()
        generator_log.close()
        server_code = server.stop()
    if code != 0:
        tail = Path(paths["log_dir"], "soak-generator.log").read_text(errors="replace").strip().splitlines()[-1:]
        problems.append(f"the generator exited with {code}{': ' + tail[0][:300] if tail else ''}")
    if server_code not in (0, None):
        problems.append(f"cosmolite exited with {server_code} after SIGTERM")
    return rows, problems, mix


def span(rows, start_s, end_s):
    """The windows that ended in (start_s, end_s]."""
    return [row for row in rows if start_s < row["t_s"] <= end_s + 0.5]


def check_targets(rows, args):
    """The issue's targets: a list of {name, measured, bound, ok} (ok None: not measurable)."""
    targets = []
    warmup_s, compare_s = args.warmup_minutes * 60, args.compare_minutes * 60
    end_s = rows[-1]["t_s"] if rows else 0
    first = span(rows, warmup_s, warmup_s + compare_s)
    last = span(rows, max(end_s - compare_s, warmup_s + compare_s), end_s)
    enough = bool(first and last) and end_s - compare_s >= warmup_s + compare_s - 0.5
    first_name = f"{warmup_s / 60:g}-{(warmup_s + compare_s) / 60:g} min"
    last_name = f"the last {compare_s / 60:g} min"

    wal_max = max((row["wal_mb"] for row in rows), default=0)
    targets.append({"name": "WAL size, every window", "measured": f"max {wal_max:,.1f} MB",
                    "bound": f"≤ {args.wal_bound_mb:g} MB", "ok": wal_max <= args.wal_bound_mb})
    errors = sum(row["errors"] for row in rows)
    targets.append({"name": "errors", "measured": f"{errors:,}", "bound": "0", "ok": errors == 0})
    if not enough:
        reason = f"n/a: the run needs {(warmup_s + 2 * compare_s) / 60:g} min (warm-up + two spans)"
        for name in ("throughput", "p99 per operation", "RSS"):
            targets.append({"name": name, "measured": reason, "bound": "", "ok": None})
        return targets

    first_rate = statistics.mean(row["ops_per_s"] for row in first)
    last_rate = statistics.mean(row["ops_per_s"] for row in last)
    ratio = last_rate / first_rate if first_rate else 0
    targets.append({"name": f"throughput, {last_name} vs {first_name}",
                    "measured": f"{last_rate:,.0f} vs {first_rate:,.0f} req/s ({ratio:.2f}×)",
                    "bound": f"≥ {1 - args.throughput_tolerance:.2f}×", "ok": ratio >= 1 - args.throughput_tolerance})

    def median_p99(rows_of_span, name):
        values = [row["operations"][name]["p99_ms"] for row in rows_of_span
                  if row["operations"][name]["p99_ms"] is not None]
        return statistics.median(values) if values else None

    worst, all_ok, details = None, True, []
    for name in OPERATIONS:
        before, after = median_p99(first, name), median_p99(last, name)
        if before is None or after is None:
            continue
        ok = after <= args.p99_growth * before + args.p99_slack_ms
        all_ok &= ok
        details.append(f"{name} {before:.1f}→{after:.1f}")
        growth = after / before if before else math.inf
        if worst is None or growth > worst[1]:
            worst = (name, growth, before, after)
    measured = "; ".join(details) + " ms" if details else "no answers"
    if worst:
        measured += f" (worst {worst[0]} {worst[1]:.2f}×)"
    targets.append({"name": f"p99 per operation (median of the 10-s p99s), {last_name} vs {first_name}",
                    "measured": measured, "bound": f"≤ {args.p99_growth:g}× + {args.p99_slack_ms:g} ms",
                    "ok": all_ok and bool(details)})

    reference = first[-1]["rss_mb"]
    final = rows[-1]["rss_mb"]
    targets.append({"name": f"server RSS at the end vs at {(warmup_s + compare_s) / 60:g} min",
                    "measured": f"{final:.1f} vs {reference:.1f} MB ({final / reference if reference > 0 else 0:.2f}×)",
                    "bound": f"≤ {args.rss_growth:g}×", "ok": reference > 0 and final <= args.rss_growth * reference})
    return targets


def p99_trend_ms_per_min(rows, warmup_s):
    """Least-squares slope of the whole load's p99 over the windows after the warm-up."""
    points = [(row["t_s"] / 60, row["p99_ms"]) for row in rows if row["t_s"] > warmup_s and row["p99_ms"] is not None]
    if len(points) < 2:
        return None
    mean_x = statistics.mean(x for x, _ in points)
    mean_y = statistics.mean(y for _, y in points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else None


def verdict(ok):
    return "n/a" if ok is None else ("PASS" if ok else "MISS")


def table_rows(rows):
    """Rows of the Markdown table: one per minute (per window for runs under 5 minutes). A minute
    shows the mean req/s, the median of its windows' p99s, the end state and the WAL's maximum."""
    if not rows or rows[-1]["t_s"] < 300:
        return [(f"{row['t_s']:.0f} s", [row]) for row in rows]
    minutes = {}
    for row in rows:
        minutes.setdefault(max(0, math.ceil(row["t_s"] / 60 - 1e-6) - 1), []).append(row)
    return [(f"{minute}-{minute + 1} min", group) for minute, group in sorted(minutes.items())]


def render_markdown(result):
    settings, rows = result["settings"], result["windows"]
    machine = result["machine"]
    w = []
    w.append("# Soak: cosmolite under the mixed workload")
    w.append("")
    w.append(f"Generated by `bench/soak.py`; do not edit. {machine.get('date_utc', '')}, cosmolite "
             f"{machine.get('cosmolite_revision', '?')}, {machine.get('cores', '?')} cores "
             f"({machine.get('cpu_model', '?')}), data on {machine.get('data_filesystem', '?')}.")
    w.append("")
    transport = "plain HTTP" if settings["no_tls"] else "HTTPS"
    w.append(f"{settings['minutes']:g} min, {settings['connections']} connections over {transport}, a fresh data "
             f"directory (default durability: WAL + synchronous=NORMAL), {settings['seed_docs']:,} seeded 1 KB "
             f"documents. Mix: " + ", ".join(f"{name} {result['mix_percent'][name]}%" for name in OPERATIONS
                                        if name in result["mix_percent"]) + ".")
    w.append("")
    w.append("| target | measured | bound | result |")
    w.append("|---|---|---|---|")
    for target in result["targets"]:
        w.append(f"| {target['name']} | {target['measured']} | {target['bound']} | {verdict(target['ok'])} |")
    if result["p99_trend_ms_per_min"] is not None:
        w.append("")
        w.append(f"Trend of the whole load's p99 after the warm-up: {result['p99_trend_ms_per_min']:+.2f} ms per minute.")
    for problem in result["problems"]:
        w.append(f"\n**Problem:** {problem}")
    w.append("")
    columns = " | ".join(f"{COLUMN_NAMES.get(n, n)} p50/p99 ms" for n in OPERATIONS)
    w.append(f"| time | req/s | errors | {columns} | RSS MB | fds | WAL MB (max) | DB MB | other load |")
    w.append("|" + "---|" * (8 + len(OPERATIONS)))
    for label, group in table_rows(rows):
        end = group[-1]

        def median(values):
            values = [v for v in values if v is not None]
            return statistics.median(values) if values else None

        latencies = " | ".join(latency_pair(median(r["operations"][n]["p50_ms"] for r in group),
                                            median(r["operations"][n]["p99_ms"] for r in group)) for n in OPERATIONS)
        w.append(f"| {label} | {statistics.mean(r['ops_per_s'] for r in group):,.0f} | "
                 f"{sum(r['errors'] for r in group)} | {latencies} | {end['rss_mb']:.1f} | {end['fds']} | "
                 f"{max(r['wal_mb'] for r in group):,.1f} | {end['db_mb']:,.1f} | "
                 f"{max(r['other_load_cores'] for r in group):.2f} |")
    return "\n".join(w)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--window", type=float, default=10, help="seconds per reported line")
    parser.add_argument("--seed-docs", type=int, default=10_000, help="1 KB documents seeded before the clock")
    parser.add_argument("--no-tls", action="store_true", help="plain HTTP (default HTTPS, as the SDKs connect)")
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    parser.add_argument("--server", help="cosmolite binary (default BUILD/cosmolite)")
    parser.add_argument("--bench", help="cosmolite_bench binary (default BUILD/bench/cosmolite_bench)")
    parser.add_argument("--server-arg", action="append", default=[],
                        help="one more cosmolite flag (repeatable), e.g. --server-arg=--sync-full")
    parser.add_argument("--data-root", help="where the fresh data directory is made (default BUILD)")
    parser.add_argument("--keep-data", action="store_true", help="leave the data directory behind")
    parser.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    parser.add_argument("--setup-timeout", type=float, default=300, help="seconds allowed for seeding")
    parser.add_argument("--wal-bound-mb", type=float, default=170)
    parser.add_argument("--warmup-minutes", type=float, default=1)
    parser.add_argument("--compare-minutes", type=float, default=1,
                        help="length of the first (after the warm-up) and last spans compared")
    parser.add_argument("--throughput-tolerance", type=float, default=0.2)
    parser.add_argument("--p99-growth", type=float, default=1.5)
    parser.add_argument("--p99-slack-ms", type=float, default=1.0)
    parser.add_argument("--rss-growth", type=float, default=1.2)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()

    build = Path(args.build_dir).resolve()
    paths = {"server": Path(args.server or build / "cosmolite").resolve(),
             "bench": Path(args.bench or build / "bench" / "cosmolite_bench").resolve(),
             "log_dir": build / "bench-logs"}
    for binary in (paths["server"], paths["bench"]):
        if not binary.exists():
            sys.exit(f"missing {binary}: build first (make soak does)")
    paths["log_dir"].mkdir(parents=True, exist_ok=True)
    data_root = Path(args.data_root or build).resolve()
    data_root.mkdir(parents=True, exist_ok=True)
    paths["data_dir"] = tempfile.mkdtemp(prefix="soak-data-", dir=data_root)
    log(f"data directory {paths['data_dir']}; logs in {paths['log_dir']}")

    try:
        rows, problems, mix = run_soak(args, paths)
    except (RuntimeError, OSError) as error:
        rows, problems, mix = [], [str(error)], {}
    machine = {}
    try:
        machine = machine_info(paths["data_dir"])
    except OSError:
        pass
    if not args.keep_data:
        shutil.rmtree(paths["data_dir"], ignore_errors=True)
    if not rows:
        log("the soak did not run: " + "; ".join(problems))
        return 2

    result = {"settings": {**vars(args), "server": str(paths["server"]), "bench": str(paths["bench"])},
              "machine": machine, "mix_percent": mix, "windows": rows, "problems": problems,
              "targets": check_targets(rows, args),
              "p99_trend_ms_per_min": p99_trend_ms_per_min(rows, args.warmup_minutes * 60)}
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "soak.json").write_text(json.dumps(result, indent=1) + "\n")
    markdown = render_markdown(result)
    (out_dir / "soak.md").write_text(markdown + "\n")
    print()
    for target in result["targets"]:
        print(f"{verdict(target['ok']):>4}  {target['name']}: {target['measured']} (bound {target['bound']})")
    for problem in problems:
        print(f"problem: {problem}")
    log(f"wrote {out_dir / 'soak.md'} and soak.json")
    missed = problems or any(target["ok"] is False for target in result["targets"])
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
