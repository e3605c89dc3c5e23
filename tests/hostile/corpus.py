"""What a case is, how it becomes bytes on the wire, and how its answer is judged.

A case is data: a request (method, path, headers, body, whether and how to sign it) and what the
service answers (a status, a set of statuses, or by default any 4xx), plus an optional check of
the response. The few cases that need more than one connection (a body that never arrives while
another client asks /ready) are a `scenario`: a function of the runner that returns a failure
reason or None.
"""
import json
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

from wire import API_VERSION, http_date, master_key_authorization, signing_target

AUTO = "auto"  # Content-Length computed from the body


# --- The resources every case aims at ----------------------------------------------------

@dataclass
class Target:
    """Names of the seeded resources (a suffix keeps runs against a shared endpoint apart) and
    the Host header to send."""
    suffix: str = "0"
    host: str = "127.0.0.1:8081"

    @property
    def db(self):
        return "hostile" + self.suffix

    @property
    def victim_db(self):  # a database the destructive cases may try (and must fail) to delete
        return "hostilevictim" + self.suffix

    items = "items"    # partitioned on /pk: d0..d4 and "text" in "p", e0 in "q"
    hier = "hier"      # MultiHash on /tenant, /user: h0 in ["t", "u"]
    victim = "victim"  # a container the destructive cases may try (and must fail) to delete

    def coll(self, name=None):
        return f"/dbs/{self.db}/colls/{name or self.items}"

    def docs(self, name=None):
        return self.coll(name) + "/docs"

    def doc(self, item_id, name=None):
        return self.docs(name) + "/" + item_id


# --- Cases ---------------------------------------------------------------------------------

@dataclass
class Case:
    name: str
    group: str = ""
    method: str = "GET"
    path: object = "/"                # str or bytes, sent verbatim as the request target
    headers: dict = field(default_factory=dict)      # merged over the defaults; None removes one
    extra_headers: list = field(default_factory=list)  # (name, value) lines appended verbatim
    body: bytes = b""
    content_length: object = AUTO     # AUTO, None (no header) or a literal value
    sign: bool = True
    sign_key: Optional[str] = None    # another key to sign with
    sign_verb: Optional[str] = None   # sign for another verb ...
    sign_type: Optional[str] = None   # ... resource type ...
    sign_link: Optional[str] = None   # ... or resource link
    date: Optional[str] = None        # literal x-ms-date (signed as is); default now
    date_offset: int = 0              # or now plus this many seconds
    raw: Optional[bytes] = None       # the exact request bytes ("{host}" is replaced)
    scenario: Optional[Callable] = None  # fn(runner) -> failure reason or None
    prepare: Optional[Callable] = None   # fn(runner) -> dict of fields to replace at run time
    expect: object = None             # None: any 4xx; an int; or a set of ints
    allow_no_response: bool = False   # a closed connection without an answer is acceptable
    check: Optional[Callable] = None  # fn(response) -> failure reason or None
    timeout: float = 15.0             # the answer must be complete within this many seconds
    writes: tuple = ()                # (container, id) it would create if wrongly accepted
    note: str = ""                    # why the expectation is what it is, when not obvious

    def expects_success(self):
        return any(200 <= status < 300 for status in expected_statuses(self.expect))


def expected_statuses(expect):
    if expect is None:
        return set()
    return {expect} if isinstance(expect, int) else set(expect)


def describe_expectation(expect):
    if expect is None:
        return "a 4xx"
    statuses = sorted(expected_statuses(expect))
    return " or ".join(str(status) for status in statuses)


def _as_bytes(value):
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8", "surrogateescape")


def request_bytes(case, target, key):
    """The bytes of the case's request, signed now (or at its date)."""
    if case.raw is not None:
        return case.raw.replace(b"{host}", target.host.encode())
    date = case.date if case.date is not None else http_date(case.date_offset)
    headers = {"host": target.host, "x-ms-date": date, "x-ms-version": API_VERSION,
               "accept": "application/json", "connection": "close"}
    if case.sign:
        resource_type, resource_link = signing_target(case.path)
        headers["authorization"] = master_key_authorization(
            case.sign_key or key, case.sign_verb or case.method,
            resource_type if case.sign_type is None else case.sign_type,
            resource_link if case.sign_link is None else case.sign_link, date)
    for name, value in case.headers.items():
        if value is None:
            headers.pop(name.lower(), None)
        else:
            headers[name.lower()] = value
    lines = [_as_bytes(case.method) + b" " + _as_bytes(case.path) + b" HTTP/1.1"]
    lines += [_as_bytes(name) + b": " + _as_bytes(value) for name, value in headers.items()]
    lines += [_as_bytes(name) + b": " + _as_bytes(value) for name, value in case.extra_headers]
    framed_by_case = any(name.lower() in ("content-length", "transfer-encoding")
                         for name in list(headers) + [str(n) for n, _ in case.extra_headers])
    if case.content_length == AUTO:
        if not framed_by_case and (case.body or case.method in ("POST", "PUT", "PATCH")):
            lines.append(b"content-length: " + str(len(case.body)).encode())
    elif case.content_length is not None:
        lines.append(b"content-length: " + _as_bytes(case.content_length))
    return b"\r\n".join(lines) + b"\r\n\r\n" + case.body


def with_updates(case, updates):
    return replace(case, **updates) if updates else case


# --- Judging an answer ---------------------------------------------------------------------

def snippet(body, limit=240):
    text = body[:limit].decode("utf-8", "replace").replace("\r", "\\r").replace("\n", "\\n")
    return text + ("..." if len(body) > limit else "")


def cosmos_error_problem(response):
    """None when the body is the service's error shape: an object with string code and message."""
    body = response.json()
    if not isinstance(body, dict):
        return "the error body is not a JSON object: " + snippet(response.body)
    for name in ("code", "message"):
        if not isinstance(body.get(name), str):
            return f"the error body has no string '{name}': " + snippet(response.body)
    return None


def judge(case, response):
    """The reason the response fails the case, or None."""
    expected = expected_statuses(case.expect)
    status = response.status
    status_ok = (400 <= status < 500) if case.expect is None else status in expected
    if not status_ok:
        return f"expected {describe_expectation(case.expect)}, got {status}: {snippet(response.body)}"
    if 400 <= status < 500 and case.method != "HEAD":  # the answer to a HEAD has no body
        problem = cosmos_error_problem(response)
        if problem:
            return f"status {status}, but {problem}"
    if case.check:
        return case.check(response)
    return None


# --- Builders shared by the case files -----------------------------------------------------

def to_json(value):
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def nested(opening, closing, depth, inner=""):
    """Text nested `depth` levels: nested('[', ']', 3) == '[[[]]]'."""
    return opening * depth + inner + closing * depth


def pk_header(*values):
    return {"x-ms-documentdb-partitionkey": json.dumps(list(values))}


def query_headers(pk="p", cross=False):
    headers = {"x-ms-documentdb-isquery": "true", "content-type": "application/query+json"}
    if pk is not None:
        headers.update(pk_header(pk))
    if cross:
        headers["x-ms-documentdb-query-enablecrosspartition"] = "true"
    return headers


def query_case(target, name, text=None, body=None, pk="p", cross=False, headers=None, coll=None, path=None,
               **fields):
    """A query on a container's documents (or on `path`): `text` becomes {"query": text}, or
    `body` is sent as is."""
    if body is None:
        body = to_json({"query": text, "parameters": []})
    merged = query_headers(pk, cross)
    merged.update(headers or {})
    return Case(name, method="POST", path=path or target.docs(coll), headers=merged, body=body, **fields)


def create_case(target, name, body, pk=("p",), coll=None, headers=None, **fields):
    """An item create (POST .../docs) with a partition key header (None: none); `method` and
    `path` may make it a replace."""
    merged = pk_header(*pk) if pk is not None else {}
    merged["content-type"] = "application/json"
    merged.update(headers or {})
    fields.setdefault("method", "POST")
    fields.setdefault("path", target.docs(coll))
    return Case(name, headers=merged, body=body, **fields)


def read_case(target, name, item_id="d0", pk=("p",), coll=None, headers=None, **fields):
    """A point read of a seeded item."""
    merged = pk_header(*pk) if pk is not None else {}
    merged.update(headers or {})
    return Case(name, method="GET", path=target.doc(item_id, coll), headers=merged, **fields)


def documents_are(expected):
    """A check: the query answered these documents."""
    def check(response):
        body = response.json()
        documents = body.get("Documents") if isinstance(body, dict) else None
        if documents != expected:
            return f"expected Documents {expected!r}, got {snippet(response.body)}"
        return None
    return check


def has_documents(response):
    body = response.json()
    if not isinstance(body, dict) or not isinstance(body.get("Documents"), list):
        return "a 200 without a Documents array: " + snippet(response.body)
    return None


def item_is(item_id):
    """A check: the answer is the item with this id."""
    def check(response):
        body = response.json()
        if not isinstance(body, dict) or body.get("id") != item_id:
            return f"expected the item {item_id!r}, got {snippet(response.body)}"
        return None
    return check
