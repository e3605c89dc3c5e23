#!/usr/bin/env python3
"""Runs the hostile request corpus against a live cosmolite (or any Cosmos DB endpoint).

    python3 conformance/with_server.py --no-tls --in-memory -- python3 tests/hostile/run_corpus.py
    python3 tests/hostile/run_corpus.py --list
    python3 tests/hostile/run_corpus.py --filter "continuation"

Reads COSMOS_ENDPOINT, COSMOS_KEY and (for https) COSMOS_CERT_PEM, the CA to trust, as
conformance/with_server.py exports them. Seeds a database, three containers and a few items, then
sends every case on a fresh connection, one after the other. After each case the server must
still answer GET /ready and a point read of a seeded item; at the end, the seeded items must be
unchanged and nothing a refused request tried to create may exist. Prints one line per case
(`ok - name` / `not ok - name: reason`), a summary, and exits 1 if anything failed (2 if the
server died: the case that killed it is named).
"""
import argparse
import collections
import json
import os
import secrets
import sys
import time
from dataclasses import dataclass
from typing import Optional

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases_auth  # noqa: E402
import cases_bodies  # noqa: E402
import cases_headers  # noqa: E402
import cases_patch_batch  # noqa: E402
import cases_paths  # noqa: E402
import cases_queries  # noqa: E402
import cases_resources  # noqa: E402
import cases_transport  # noqa: E402
from corpus import Case, Target, judge, pk_header, query_headers, request_bytes, snippet, to_json  # noqa: E402
from wire import Endpoint, NoResponse, TimedOut, exchange  # noqa: E402

DEFAULT_KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
SCRATCH = "scratch"  # the one seeded item a case may change
CASE_FILES = [cases_auth, cases_paths, cases_headers, cases_bodies, cases_queries, cases_patch_batch,
              cases_resources, cases_transport]


def all_cases(target, key):
    found = []
    for module in CASE_FILES:
        found += module.cases(target, key)
    names = collections.Counter(full_name(case) for case in found)
    duplicates = [name for name, count in names.items() if count > 1]
    if duplicates:
        sys.exit("duplicate case names: " + "; ".join(duplicates))
    return found


def full_name(case):
    return f"{case.group}: {case.name}"


# --- The seeded data ---------------------------------------------------------------------

def seeded_items(target):
    """(container, partition key values, document) the corpus creates first and expects back unchanged."""
    items = [(target.items, ["p"], {"id": f"d{i}", "pk": "p", "n": i, "m": {"k": i}, "arr": [1, 2, 3]})
             for i in range(5)]
    items.append((target.items, ["p"], {"id": "text", "pk": "p", "s": "a" * 20_000, "r": "a" * 28,
                                        "arr": list(range(40))}))
    items.append((target.items, ["q"], {"id": "e0", "pk": "q", "n": 100}))
    items.append((target.items, ["p"], {"id": SCRATCH, "pk": "p"}))  # cases allowed to succeed change it
    items.append((target.hier, ["t", "u"], {"id": "h0", "tenant": "t", "user": "u"}))
    items.append((target.victim, ["p"], {"id": "v0", "pk": "p"}))
    return items


def seeded_containers(target):
    return [
        (target.items, {"paths": ["/pk"], "kind": "Hash", "version": 2}),
        (target.hier, {"paths": ["/tenant", "/user"], "kind": "MultiHash", "version": 2}),
        (target.victim, {"paths": ["/pk"], "kind": "Hash", "version": 2}),
    ]


# --- Running -----------------------------------------------------------------------------

class ServerDied(Exception):
    pass


@dataclass
class Result:
    case: Case
    status: Optional[int] = None   # None: a scenario, no response, or a timeout
    outcome: str = ""              # "400", "timeout", "no response", "scenario", ...
    substatus: Optional[str] = None
    seconds: float = 0.0
    reason: Optional[str] = None   # None when the case passed

    @property
    def passed(self):
        return self.reason is None


class Runner:
    def __init__(self, endpoint, key, target):
        self.endpoint = endpoint
        self.key = key
        self.target = target
        self.snapshot = {}           # (container, id) -> the seeded document as read back
        self.databases_before = set()
        self.containers_before = set()
        self.notes = []              # what the final checks found, printed as comments

    # Requests.
    def request_bytes(self, case):
        return request_bytes(case, self.target, self.key)

    def send(self, case):
        return exchange(self.endpoint, self.request_bytes(case), case.timeout, is_head=case.method == "HEAD")

    def signed(self, method, path, body=b"", headers=None, timeout=15.0):
        return self.send(Case("", method=method, path=path, body=body, headers=headers or {}, timeout=timeout))

    def require(self, response, statuses, what):
        if response.status not in statuses:
            raise RuntimeError(f"{what}: {response.status} {snippet(response.body)}")
        return response

    # Seeding.
    def seed(self):
        target = self.target
        self.databases_before = set(self.list_ids("/dbs", "Databases"))
        for database in (target.db, target.victim_db):
            self.require(self.signed("POST", "/dbs", to_json({"id": database}), {"content-type": "application/json"}),
                         {201}, f"create database {database}")
        for name, partition_key in seeded_containers(target):
            definition = to_json({"id": name, "partitionKey": partition_key})
            self.require(self.signed("POST", f"/dbs/{target.db}/colls", definition,
                                     {"content-type": "application/json"}), {201}, f"create container {name}")
        for container, key, document in seeded_items(target):
            self.require(self.signed("POST", target.docs(container), to_json(document),
                                     {**pk_header(*key), "content-type": "application/json"}), {201},
                         f"create item {document['id']}")
        for container, key, document in seeded_items(target):
            if document["id"] != SCRATCH:
                self.snapshot[(container, document["id"])] = self.read_item(container, document["id"], key)
        self.containers_before = set(self.list_ids(f"/dbs/{target.db}/colls", "DocumentCollections"))

    def read_item(self, container, item_id, key):
        response = self.signed("GET", self.target.doc(item_id, container), headers=pk_header(*key))
        return response.json() if response.status == 200 else None

    def list_ids(self, path, feed_property):
        response = self.require(self.signed("GET", path), {200}, f"list {path}")
        return [resource.get("id") for resource in response.json().get(feed_property, [])]

    def query_all(self, container, text):
        """Every row of a cross-partition query, following continuations."""
        rows, continuation = [], None
        for _ in range(1000):
            headers = {**query_headers(pk=None, cross=True), "x-ms-max-item-count": "1000"}
            if continuation:
                headers["x-ms-continuation"] = continuation
            response = self.signed("POST", self.target.docs(container), to_json({"query": text, "parameters": []}),
                                   headers)
            self.require(response, {200}, f"query {text!r} on {container}")
            rows += response.json().get("Documents", [])
            continuation = response.headers.get("x-ms-continuation")
            if not continuation:
                break
        return rows

    def continuation_header(self, text):
        """For a case's `prepare`: the continuation token of the first page of `text` (one row a page)."""
        response = self.signed("POST", self.target.docs(), to_json({"query": text, "parameters": []}),
                               {**query_headers("p"), "x-ms-max-item-count": "1"})
        self.require(response, {200}, f"query {text!r}")
        token = response.headers.get("x-ms-continuation")
        if not token:
            raise RuntimeError(f"query {text!r} gave no continuation")
        return {"headers": {"x-ms-continuation": token}}

    # Health.
    def ready_problem(self, timeout=5.0):
        """None when GET /ready answers 200, else what happened."""
        try:
            response = exchange(self.endpoint, self.request_bytes(Case("", path="/ready", sign=False)), timeout)
        except TimedOut:
            return f"GET /ready did not answer within {timeout:g} s (the server is stalled)"
        except ConnectionRefusedError:
            return "GET /ready: connection refused (the server process is gone)"
        except (NoResponse, OSError) as error:
            return f"GET /ready failed: {error!r}"
        return None if response.status == 200 else f"GET /ready answered {response.status}"

    def health_problem(self):
        """None when /ready answers 200 and the seeded item d0 reads back; raises ServerDied when
        /ready keeps failing."""
        for attempt in range(3):
            problem = self.ready_problem()
            if not problem:
                break
            time.sleep(0.5 * (attempt + 1))
        else:
            raise ServerDied(problem)
        try:
            response = self.signed("GET", self.target.doc("d0"), headers=pk_header("p"), timeout=10)
        except (TimedOut, NoResponse, OSError) as error:
            return f"the point read of d0 failed: {error!r}"
        if response.status != 200 or (response.json() or {}).get("id") != "d0":
            return f"the point read of d0 answered {response.status}: {snippet(response.body)}"
        return None

    # Cases.
    def prepared(self, case):
        if not case.prepare:
            return case
        updates = case.prepare(self)
        headers = {**case.headers, **updates.pop("headers", {})}
        return Case(**{**case.__dict__, **updates, "headers": headers, "prepare": None})

    def run_case(self, case):
        result = Result(case)
        started = time.monotonic()
        try:
            case = self.prepared(case)
            if case.scenario:
                result.outcome = "scenario"
                result.reason = case.scenario(self)
            else:
                self.exchange_case(case, result)
        except ServerDied as died:  # a scenario's own health check
            result.reason = f"the server died: {died}"
            raise ServerDied(result) from died
        except Exception as error:  # a broken case or a refused connection: report, carry on
            result.outcome = result.outcome or "error"
            result.reason = f"the case could not run: {error!r}"
        result.seconds = time.monotonic() - started
        try:
            problem = self.health_problem()
        except ServerDied as error:
            result.reason = (result.reason + "; " if result.reason else "") + f"the server died: {error}"
            raise ServerDied(result) from error
        if problem:
            result.reason = (result.reason + "; " if result.reason else "") + "afterwards " + problem
        return result

    def exchange_case(self, case, result):
        try:
            response = self.send(case)
        except TimedOut:
            result.outcome = "timeout"
            result.reason = f"no complete answer within {case.timeout:g} s"
            return
        except NoResponse as error:
            result.outcome = "no response"
            result.reason = None if case.allow_no_response else f"no response: {error}"
            return
        except ConnectionRefusedError as error:
            result.outcome = "refused"
            result.reason = f"connection refused: {error}"
            return
        result.status = response.status
        result.outcome = str(response.status)
        result.substatus = response.headers.get("x-ms-substatus")
        result.reason = judge(case, response)

    # Final checks: seeded items unchanged, nothing written by a refused request.
    def final_problems(self, results):
        """(result or None, problem) pairs; a result when the problem is that case's doing."""
        problems = []
        for (container, item_id), before in self.snapshot.items():
            key = next(k for c, k, d in seeded_items(self.target) if c == container and d["id"] == item_id)
            after = self.read_item(container, item_id, key)
            if after != before:
                change = "is gone" if after is None else f"changed to {snippet(to_json(after), 160)}"
                problems.append((None, f"the seeded item {container}/{item_id} {change}"))
        allowed, writers = self.allowed_writes(results)
        for container in (self.target.items, self.target.hier, self.target.victim):
            seeded = {d["id"] for c, _, d in seeded_items(self.target) if c == container}
            rows = self.query_all(container, "SELECT VALUE c.id FROM c")
            created = sum(1 for item_id in rows if (container, item_id) in allowed)
            stray = sum(1 for item_id in rows if item_id not in seeded and (container, item_id) not in allowed)
            counted = self.count(container)
            self.notes.append(f"container {container}: {len(rows)} items listed, of {len(seeded)} seeded "
                              f"{len(seeded & set(rows))} remain, {created} created by cases allowed to succeed, "
                              f"{stray} stray; COUNT(1) answers {counted}")
            for item_id in rows:
                if item_id not in seeded and (container, item_id) not in allowed:
                    problems += self.blame((container, item_id), writers, f"item {container}/{item_id!r:.80}")
            if isinstance(counted, int) and counted != len(rows):
                problems.append((None, f"{container}: COUNT(1) says {counted}, the listing has {len(rows)}"))
        containers = set(self.list_ids(f"/dbs/{self.target.db}/colls", "DocumentCollections"))
        for name in sorted(containers - self.containers_before):
            if ("colls", name) not in allowed:
                problems += self.blame(("colls", name), writers, f"container {name!r:.80}")
        if self.target.victim not in containers:
            problems.append((None, f"the container {self.target.victim} was deleted"))
        databases = set(self.list_ids("/dbs", "Databases"))
        for name in sorted(databases - self.databases_before - {self.target.db, self.target.victim_db}):
            if ("dbs", name) not in allowed:
                problems += self.blame(("dbs", name), writers, f"database {name!r:.80}")
        if self.target.victim_db not in databases:
            problems.append((None, f"the database {self.target.victim_db} was deleted"))
        return problems

    @staticmethod
    def allowed_writes(results):
        """The writes of cases allowed to succeed that did, and who may have made each write."""
        allowed, writers = set(), collections.defaultdict(list)
        for result in results:
            succeeded = result.status is not None and 200 <= result.status < 300
            for write in result.case.writes:
                writers[write].append(result)
                if succeeded and result.case.expects_success():
                    allowed.add(write)
        return allowed, writers

    @staticmethod
    def blame(write, writers, what):
        culprits = writers.get(write)
        if not culprits:
            return [(None, f"{what} exists, and no case meant to create it")]
        return [(result, f"{what} exists although the request was refused") for result in culprits]

    def count(self, container):
        """SELECT VALUE COUNT(1) across partitions: a number, or what came back instead (a
        gateway may answer 400/1004 with a query plan; the listing then stands alone)."""
        response = self.signed("POST", self.target.docs(container),
                               to_json({"query": "SELECT VALUE COUNT(1) FROM c", "parameters": []}),
                               query_headers(pk=None, cross=True))
        counts = (response.json() or {}).get("Documents") if response.status == 200 else None
        if not isinstance(counts, list) or not all(isinstance(n, int) for n in counts):
            return f"status {response.status}"
        return sum(counts)


# --- Reporting ---------------------------------------------------------------------------

def describe(result):
    details = [result.outcome or "?"]
    if result.substatus:
        details.append(f"substatus {result.substatus}")
    details.append(f"{result.seconds * 1000:.0f} ms")
    return ", ".join(details)


def print_result(result):
    name = full_name(result.case)
    if result.passed:
        print(f"ok - {name}  # {describe(result)}", flush=True)
    else:
        note = f" (note: {result.case.note})" if result.case.note else ""
        print(f"not ok - {name}: {result.reason}{note}  # {describe(result)}", flush=True)


def summarize(results, extra_problems, elapsed):
    failed = [r for r in results if not r.passed]
    by_outcome = collections.Counter(r.outcome for r in results)
    print(f"\n{len(results)} cases: {len(results) - len(failed)} passed, {len(failed)} failed ({elapsed:.1f} s)")
    print("by status: " + ", ".join(f"{outcome}: {count}" for outcome, count in sorted(by_outcome.items())))
    by_group = collections.Counter(r.case.group for r in results)
    failed_by_group = collections.Counter(r.case.group for r in failed)
    print("by group: " + ", ".join(f"{group} {by_group[group] - failed_by_group[group]}/{by_group[group]}"
                                   for group in by_group))
    for problem in extra_problems:
        print(f"final check failed: {problem}")


def write_json(path, results, extra_problems, crashed_by):
    rows = [{"name": full_name(r.case), "group": r.case.group, "status": r.status, "outcome": r.outcome,
             "substatus": r.substatus, "seconds": round(r.seconds, 3), "passed": r.passed, "reason": r.reason}
            for r in results]
    with open(path, "w") as out:
        json.dump({"results": rows, "final_problems": extra_problems, "server_died_after": crashed_by}, out, indent=1)


# --- Main --------------------------------------------------------------------------------

UNHEALTHY_STREAK = 3  # cases in a row after which d0 no longer reads back: the server is wedged


def run_all(runner, cases):
    """Runs the cases in order; stops when the server dies (or /ready stalls), or when the point
    read has failed after UNHEALTHY_STREAK cases in a row. Returns the results and the name of
    the case that broke the server, if one did."""
    results, streak = [], []
    for case in cases:
        try:
            result = runner.run_case(case)
        except ServerDied as died:
            result = died.args[0]
            print_result(result)
            results.append(result)
            return results, full_name(streak[0].case if streak else case)
        print_result(result)
        results.append(result)
        streak = streak + [result] if result.reason and "point read of d0" in result.reason else []
        if len(streak) >= UNHEALTHY_STREAK:
            return results, full_name(streak[0].case)
    return results, None


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filter", metavar="TEXT",
                        help="run only the cases whose 'group: name' contains this text (any case)")
    parser.add_argument("--skip", action="append", metavar="TEXT",
                        help="leave out the cases whose 'group: name' contains this text (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    return parser.parse_args()


def main():
    arguments = parse_arguments()
    endpoint_url = os.environ.get("COSMOS_ENDPOINT", "")
    key = os.environ.get("COSMOS_KEY", DEFAULT_KEY)
    suffix = "" if os.environ.get("COSMOLITE_MANAGED") == "1" else secrets.token_hex(3)
    endpoint = Endpoint(endpoint_url or "http://127.0.0.1:8081/", os.environ.get("COSMOS_CERT_PEM"))
    target = Target(suffix=suffix, host=endpoint.host_header)
    cases = all_cases(target, key)
    if arguments.filter:
        cases = [case for case in cases if arguments.filter.lower() in full_name(case).lower()]
    for text in arguments.skip or []:
        cases = [case for case in cases if text.lower() not in full_name(case).lower()]
    if arguments.list:
        for case in cases:
            print(full_name(case))
        print(f"{len(cases)} cases")
        return 0
    if not endpoint_url:
        sys.exit("COSMOS_ENDPOINT is not set: run through conformance/with_server.py (see --help)")

    runner = Runner(endpoint, key, target)
    started = time.monotonic()
    print(f"# hostile corpus: {len(cases)} cases against {endpoint_url}", flush=True)
    runner.seed()
    results, crashed_by = run_all(runner, cases)

    extra = []
    if crashed_by:
        print(f"\nBail out! the server stopped serving after the case '{crashed_by}'", flush=True)
    else:
        try:
            final = runner.final_problems(results)
        except (TimedOut, NoResponse, OSError, RuntimeError) as error:
            final = [(None, f"the final checks could not run: {error!r} (is the server wedged?)")]
        for result, problem in final:
            if result is None:
                extra.append(problem)
            else:
                result.reason = (result.reason + "; " if result.reason else "") + problem
                print(f"not ok - {full_name(result.case)}: {problem}", flush=True)
        for note in runner.notes:
            print(f"# {note}")
    summarize(results, extra, time.monotonic() - started)
    if arguments.json:
        write_json(arguments.json, results, extra, crashed_by)
    if crashed_by:
        return 2
    return 1 if extra or any(not r.passed for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
