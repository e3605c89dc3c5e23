#!/usr/bin/env python3
"""ctest bench_smoke: a tiny run of the benchmark tools against an in-memory cosmolite.

Starts `cosmolite --in-memory --no-tls` on a free port, runs a few hundred creates, reads and
upserts, 20 bulk requests of 100 creates, a 2-second telemetry run at a low rate and a few dozen
queries of each query workload through cosmolite_bench --check (zero errors, every response
charged, every acknowledged telemetry or bulk document counted in the read feed, the first query's
rows checked against the seed), 2 seconds of the soak's mixed workload reported window by window
(--stream), one start-to-ready probe, and stops the server, which must exit 0. Takes a few seconds.
"""

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_bench import Server, free_port, run_json_lines  # noqa: E402

TELEMETRY_RATE = 250
TELEMETRY_SECONDS = 2
POINT_REQUESTS = 300
BULK_REQUESTS = 20  # of 100 creates each
QUERY_REQUESTS = 40
MIXED_WINDOWS = 2  # of one second each
MIXED_OPERATIONS = ["create", "upsert", "read", "query-single", "query-cross", "delete"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True, help="the cosmolite binary")
    parser.add_argument("--bench", required=True, help="the cosmolite_bench binary")
    args = parser.parse_args()

    failures = []
    passed = 0

    def check(name, ok, detail=""):
        nonlocal passed
        if ok:
            passed += 1
            print(f"ok - {name}")
        else:
            failures.append(name)
            print(f"not ok - {name}: {detail}")

    log_dir = Path(args.bench).resolve().parent
    port = free_port()
    server = Server("bench-smoke-cosmolite", [args.server, "--in-memory", "--no-tls", "--port", port,
                                              "--log-level", "warn"], port, False, "/ready", log_dir)
    server.start()
    try:
        common = [args.bench, "--port", port, "--label", "smoke", "--connections", 8, "--server-pid", server.pid,
                  "--check"]
        for workload, expected, extra in [
                ("create", POINT_REQUESTS, ["--requests", POINT_REQUESTS]),
                ("bulk-create", BULK_REQUESTS, ["--requests", BULK_REQUESTS]),
                ("read", POINT_REQUESTS, ["--requests", POINT_REQUESTS, "--seed-docs", 100]),
                ("upsert", POINT_REQUESTS, ["--requests", POINT_REQUESTS, "--seed-docs", 100]),
                ("telemetry", TELEMETRY_RATE * TELEMETRY_SECONDS,
                 ["--rate", TELEMETRY_RATE, "--seconds", TELEMETRY_SECONDS]),
                # 500 documents over 20 partitions: pages of the single-partition query fill up.
                ("query-single", QUERY_REQUESTS,
                 ["--requests", QUERY_REQUESTS, "--seed-docs", 500, "--partitions", 20]),
                ("query-orderby", QUERY_REQUESTS,
                 ["--requests", QUERY_REQUESTS, "--seed-docs", 500, "--partitions", 20]),
                # The same ORDER BY, range by range on a container of four physical partitions.
                ("query-fanout", QUERY_REQUESTS,
                 ["--requests", QUERY_REQUESTS, "--seed-docs", 500, "--partitions", 20]),
                # An equality filter answered through the index, and the same one scanning (n not indexed).
                ("query-filter", QUERY_REQUESTS,
                 ["--requests", QUERY_REQUESTS, "--seed-docs", 500, "--partitions", 20]),
                ("query-filter", QUERY_REQUESTS,
                 ["--requests", QUERY_REQUESTS, "--seed-docs", 500, "--partitions", 20,
                  "--indexing-policy", '{"excludedPaths":[{"path":"/n/?"}]}']),
                # Drains the change feed of that container before the clock (it must see all 500 once).
                ("changefeed", QUERY_REQUESTS,
                 ["--requests", QUERY_REQUESTS, "--seed-docs", 500, "--partitions", 20])]:
            lines, code = run_json_lines([*common, "--workload", workload, *extra], timeout=30)
            report = lines[0] if lines else {}
            check(f"{workload}: exit code 0", code == 0, f"exit {code}")
            check(f"{workload}: {expected} answered with 2xx, no errors",
                  report.get("ok") == expected and report.get("errors") == 0, str(report))
            check(f"{workload}: every answer has x-ms-request-charge", report.get("missing_charge") == 0, str(report))
            check(f"{workload}: server CPU and RSS sampled",
                  report.get("server_cpu_us_per_op", -1) >= 0 and report.get("server_rss_mb", -1) > 0, str(report))
            if workload == "telemetry":
                check("telemetry: read feed counts every acknowledged document",
                      report.get("stored") == expected and report.get("lost") == 0, str(report))
            if workload == "bulk-create":
                check("bulk-create: every document of every request is stored",
                      report.get("stored") == BULK_REQUESTS * 100 and report.get("docs_per_s", 0) > 0, str(report))
            if workload == "changefeed":
                check("changefeed: the drain saw every document once", report.get("drained") == 500, str(report))
            if workload == "query-orderby":
                # query-single seeded the container; this one must count the documents and reuse them.
                check("query-orderby: reuses the container query-single seeded",
                      report.get("seeded") is False and report.get("found_documents") == 500, str(report))
        # The soak's workload, streamed: one line per one-second window, each kind of request answered.
        lines, code = run_json_lines([*common, "--workload", "mixed", "--seed-docs", 100, "--warmup", 0,
                                      "--seconds", 1, "--runs", MIXED_WINDOWS, "--stream"], timeout=30)
        check("mixed: exit code 0", code == 0, f"exit {code}")
        check(f"mixed: {MIXED_WINDOWS} windows streamed, in order",
              [line.get("run") for line in lines] == list(range(1, MIXED_WINDOWS + 1)), str(lines)[:500])
        check("mixed: answers in every window, no errors, every answer charged",
              all(line.get("ok", 0) > 0 and line.get("errors") == 0 and line.get("missing_charge") == 0
                  for line in lines), str(lines)[:500])
        answered = {name: sum(line.get("operations", {}).get(name, {}).get("ok", 0) for line in lines)
                    for name in MIXED_OPERATIONS}
        check("mixed: every kind of request answered, with its own latency",
              all(count > 0 for count in answered.values())
              and all(line["operations"][name]["p99_ms"] > 0 for line in lines for name in MIXED_OPERATIONS
                      if line["operations"][name]["ok"] > 0), str(answered))
    finally:
        code = server.stop()
    check("server exits 0 on SIGTERM", code == 0, f"exit {code}")

    lines, code = run_json_lines([args.bench, "--workload", "startup", "--label", "smoke", "--starts", 1,
                                  "--idle-ms", 100, "--", args.server, "--in-memory", "--no-tls", "--port", "{port}",
                                  "--log-level", "warn"], timeout=30)
    check("startup probe: one start measured", code == 0 and len(lines) == 1 and lines[0].get("ready_ms", -1) > 0
          and lines[0].get("idle_rss_mb", -1) > 0, str(lines))

    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (subprocess.SubprocessError, RuntimeError, OSError) as error:
        print(f"not ok - smoke run: {error}")
        print("0 passed, 1 failed")
        sys.exit(1)
