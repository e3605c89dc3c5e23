#!/usr/bin/env python3
"""Queries that would run for minutes: the time limit ends them, and so does SIGTERM (issues 30, 31).

    python3 tests/lifecycle/stuck_queries_test.py --server build/cosmolite

Starts cosmolite on a fresh data directory (plain HTTP, 2 query workers) and writes a document
whose array makes `COUNT(1)` over a triple JOIN a billion rows.
1. With `--query-time-limit 2`: such a query gets 408 RequestTimeout after about 2 s, and point
   reads keep being answered meanwhile.
2. Restarted with a limit of 10 minutes, so that only the shutdown can end them, and --sync-full:
   four such queries (two run, two wait for a worker), then SIGTERM. The server must exit with status 0 within EXIT_BOUND_S, every query must
get an answer (503 ServiceUnavailable, Cosmos-shaped) or a closed connection, never a hang; the
data file must be closed cleanly (no WAL left, integrity check ok), and a restarted server must
still hold the document. Standard library only; exits 1 on a failure.
"""
import argparse
import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
from wire import http_date, master_key_authorization, signing_target  # noqa: E402

KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
EXIT_BOUND_S = 5.0  # README: "SIGTERM … exits within 5 s"
ENDLESS_QUERY = "SELECT VALUE COUNT(1) FROM c JOIN a IN c.arr JOIN b IN c.arr JOIN d IN c.arr"

failures = []


def check(condition, message):
    print(("ok - " if condition else "not ok - ") + message, flush=True)
    if not condition:
        failures.append(message)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request(port, method, path, body=None, headers=None, timeout=30):
    date = http_date()
    resource_type, resource_link = signing_target(path)
    all_headers = {"x-ms-date": date, "x-ms-version": "2020-07-15",
                   "authorization": master_key_authorization(KEY, method, resource_type, resource_link, date)}
    all_headers.update(headers or {})
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=all_headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def start(server, data_dir, port, query_time_limit_s=600, extra=()):
    return subprocess.Popen([server, "--data-dir", data_dir, "--no-tls", "--port", str(port), "--workers", "2",
                             "--query-time-limit", str(query_time_limit_s), "--log-level", "warn", *extra])


def endless_query(port, timeout=60):
    return request(port, "POST", "/dbs/db/colls/c/docs", json.dumps({"query": ENDLESS_QUERY}),
                   {"x-ms-documentdb-isquery": "True", "content-type": "application/query+json",
                    "x-ms-documentdb-partitionkey": '["p"]'}, timeout=timeout)


def point_read(port):
    return request(port, "GET", "/dbs/db/colls/c/docs/big", headers={"x-ms-documentdb-partitionkey": '["p"]'})


def wait_ready(port, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", "/ready")
            if connection.getresponse().status == 200:
                return True
        except OSError:
            time.sleep(0.05)
    return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default=os.environ.get("COSMOLITE_BIN", "build/cosmolite"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="cosmolite-shutdown-") as data_dir:
        port = free_port()
        server = start(args.server, data_dir, port, query_time_limit_s=2)
        try:
            if not wait_ready(port):
                sys.exit("the server did not become ready")
            request(port, "POST", "/dbs", json.dumps({"id": "db"}))
            request(port, "POST", "/dbs/db/colls",
                    json.dumps({"id": "c", "partitionKey": {"paths": ["/pk"], "kind": "Hash", "version": 2}}))
            document = {"id": "big", "pk": "p", "arr": list(range(1000))}
            status, _ = request(port, "POST", "/dbs/db/colls/c/docs", json.dumps(document),
                                {"x-ms-documentdb-partitionkey": '["p"]', "content-type": "application/json"})
            check(status == 201, f"the document was created ({status})")

            timed_out = []

            def time_query():
                answer = endless_query(port)
                timed_out.append((time.monotonic(), answer))

            thread = threading.Thread(target=time_query)
            started = time.monotonic()
            thread.start()
            reads = []
            while thread.is_alive() and time.monotonic() - started < 30:
                read_started = time.monotonic()
                status, _ = point_read(port)
                reads.append((status, time.monotonic() - read_started))
                time.sleep(0.05)
            thread.join()
            ended, (status, body) = timed_out[0]
            check(status == 408 and json.loads(body).get("code") == "RequestTimeout",
                  f"past --query-time-limit the query got 408 RequestTimeout ({status} {body[:120]})")
            check(1.5 <= ended - started <= 10, f"after {ended - started:.2f} s (limit 2 s)")
            slowest = max((seconds for _, seconds in reads), default=None)
            check(len(reads) >= 10 and all(status == 200 for status, _ in reads) and slowest < 1.0,
                  f"meanwhile {len(reads)} point reads were answered 200, the slowest in {slowest:.3f} s")
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)

        port = free_port()
        # --sync-full: its clean stop must leave no WAL behind either (issue 31 found 10.5 MB).
        server = start(args.server, data_dir, port, extra=["--sync-full"])
        try:
            check(wait_ready(port), "the server restarts with a query time limit of 10 minutes and --sync-full")
            answers = [None] * 4

            def run_query(slot):
                try:
                    answers[slot] = endless_query(port)
                except (OSError, http.client.HTTPException) as error:
                    answers[slot] = ("closed", repr(error))

            threads = [threading.Thread(target=run_query, args=(slot,)) for slot in range(4)]
            for thread in threads:
                thread.start()
            time.sleep(1.5)
            check(all(answer is None for answer in answers), "the queries are still running 1.5 s later")

            signalled = time.monotonic()
            server.send_signal(signal.SIGTERM)
            try:
                code = server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                code = None
            took = time.monotonic() - signalled
            check(code == 0, f"the server exited with status 0 after SIGTERM ({code})")
            check(took <= EXIT_BOUND_S, f"it exited {took:.2f} s after SIGTERM (bound {EXIT_BOUND_S} s)")
            for thread in threads:
                thread.join(timeout=10)
            for slot, answer in enumerate(answers):
                if answer is not None and answer[0] == 503:
                    body = json.loads(answer[1])
                    check(body.get("code") == "ServiceUnavailable" and "shutting down" in body.get("message", ""),
                          f"query {slot}: 503 ServiceUnavailable, shutting down")
                else:
                    check(answer is not None and answer[0] == "closed",
                          f"query {slot}: 503 or a closed connection, got {str(answer)[:200]}")
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()

        leftovers = sorted(name for name in os.listdir(data_dir) if name.endswith(("-wal", "-shm")))
        check(not leftovers, f"the data file was closed cleanly (left: {leftovers})")
        with sqlite3.connect(os.path.join(data_dir, "cosmolite.db")) as db:
            check(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "the data file passes an integrity check")

        port = free_port()
        server = start(args.server, data_dir, port)
        try:
            check(wait_ready(port), "a restarted server becomes ready")
            status, body = point_read(port)
            check(status == 200 and json.loads(body)["arr"][-1] == 999, f"the document survived ({status})")
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)

    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
