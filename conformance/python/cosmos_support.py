"""Shared helpers of the Python conformance suite: the endpoint under test, client construction,
unique names, a wire recorder (every HTTP exchange the SDK makes) and small assertion helpers.

The endpoint comes from the environment that conformance/with_server.py sets:
    COSMOS_ENDPOINT, COSMOS_KEY, COSMOS_CERT_PEM (TLS, the served certificate), COSMOLITE_MANAGED.
"""
import os
import threading
import time
import uuid

import pytest
from azure.cosmos import CosmosClient, exceptions
from azure.cosmos.documents import SSLConfiguration

DEFAULT_KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

ENDPOINT = os.environ.get("COSMOS_ENDPOINT", "")
KEY = os.environ.get("COSMOS_KEY") or DEFAULT_KEY
CERT_PEM = os.environ.get("COSMOS_CERT_PEM")
MANAGED = os.environ.get("COSMOLITE_MANAGED") == "1"
TLS = ENDPOINT.startswith("https:")

RUN_TAG = uuid.uuid4().hex[:6]
_counter = [0]
_counter_lock = threading.Lock()


def uid(prefix="t"):
    """A name unique to this run and call, short enough for every id limit."""
    with _counter_lock:
        _counter[0] += 1
        return f"{prefix}-{RUN_TAG}-{_counter[0]}"


def tls_kwargs():
    """Client keyword arguments that make the SDK verify the served certificate.

    azure-cosmos turns certificate verification off by itself for the hosts 127.0.0.1 and localhost
    unless an SSLConfiguration is given (_synchronized_request.py: is_ssl_enabled); with one, the CA
    file it names is what `requests`/aiohttp verify against, so the certificate is really checked.
    """
    if not TLS or not CERT_PEM:
        return {}  # plain HTTP, or an external endpoint with a publicly trusted certificate
    ssl = SSLConfiguration()
    ssl.SSLCaCerts = CERT_PEM
    return {"ssl_config": ssl, "connection_verify": CERT_PEM}


class Exchange:
    """One HTTP request/response pair as the SDK's pipeline saw it."""

    def __init__(self, pipeline_response):
        request = pipeline_response.http_request
        response = pipeline_response.http_response
        self.method = request.method
        self.url = request.url
        self.request_headers = {k.lower(): v for k, v in request.headers.items()}
        self.status = response.status_code
        self.headers = {k.lower(): v for k, v in response.headers.items()}

    @property
    def path(self):
        from urllib.parse import unquote, urlparse
        return unquote(urlparse(self.url).path)

    def __repr__(self):
        sub = self.headers.get("x-ms-substatus")
        return f"<{self.method} {self.path} -> {self.status}{'/' + sub if sub else ''}>"


class Wire:
    """Records every exchange of a client (azure-core's raw_response_hook on the client)."""

    def __init__(self):
        self.exchanges = []
        self._lock = threading.Lock()

    def __call__(self, pipeline_response):
        with self._lock:
            self.exchanges.append(Exchange(pipeline_response))

    def mark(self):
        with self._lock:
            return len(self.exchanges)

    def since(self, mark):
        with self._lock:
            return list(self.exchanges[mark:])


def make_client(wire=None, **extra):
    if not ENDPOINT:
        pytest.exit("COSMOS_ENDPOINT is not set: run ./run.sh, or set COSMOS_ENDPOINT and COSMOS_KEY", 2)
    kwargs = dict(tls_kwargs())
    if wire is not None:
        kwargs["raw_response_hook"] = wire
    kwargs.update(extra)
    return CosmosClient(ENDPOINT, credential=KEY, **kwargs)


class Hook:
    """A response_hook that keeps every (headers, body) it is given."""

    def __init__(self):
        self.calls = []

    def __call__(self, headers, body=None):
        self.calls.append((dict(headers) if headers is not None else {}, body))

    @property
    def headers(self):
        assert self.calls, "the response_hook was never called"
        return {k.lower(): v for k, v in self.calls[-1][0].items()}


def lower(headers):
    return {k.lower(): v for k, v in dict(headers).items()}


def charge(headers, what="response"):
    headers = lower(headers)
    assert "x-ms-request-charge" in headers, f"{what}: no x-ms-request-charge header in {sorted(headers)}"
    value = float(headers["x-ms-request-charge"])
    assert value > 0, f"{what}: x-ms-request-charge should be positive, got {value}"
    return value


def expect_error(status, fn, *args, substatus=None, exc_type=exceptions.CosmosHttpResponseError, **kwargs):
    """Calls fn, expects a CosmosHttpResponseError with `status` (and substatus); returns it."""
    try:
        result = fn(*args, **kwargs)
        if hasattr(result, "__iter__") and not isinstance(result, (dict, str, bytes)):
            result = list(result)
    except exc_type as error:
        assert error.status_code == status, \
            f"expected status {status}, got {error.status_code} (substatus {getattr(error, 'sub_status', None)}): {error}"
        if substatus is not None:
            assert error.sub_status == substatus, \
                f"expected substatus {substatus}, got {error.sub_status}: {error}"
        return error
    raise AssertionError(f"expected an error with status {status}, got a success: {str(result)[:300]}")


def system_properties_ok(doc, what="document"):
    for key in ("_rid", "_self", "_etag", "_ts"):
        assert key in doc, f"{what}: {key} missing in {sorted(doc)}"
    assert doc["_etag"].startswith('"') and doc["_etag"].endswith('"'), f"{what}: _etag {doc['_etag']!r} is not quoted"
    assert isinstance(doc["_ts"], int), f"{what}: _ts should be an integer, got {doc['_ts']!r}"
    assert abs(doc["_ts"] - time.time()) < 600, f"{what}: _ts {doc['_ts']} is not within 10 minutes of now"


def user_properties(doc):
    return {k: v for k, v in doc.items() if not k.startswith("_")}


def wait_until(predicate, timeout=10.0, interval=0.25, what="condition"):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"{what} not reached within {timeout} s (last value: {last!r})")


def expect_no_offer(get_throughput):
    """get_throughput() of a resource without its own offer: the service answers an empty offers
    query, which azure-cosmos turns into CosmosResourceNotFoundError with its own substatus 10004.
    In 4.17.1 its container-recreate retry policy then trips over that error (AttributeError on a
    None link): an SDK bug, so the 404/10004 is looked for as the AttributeError's context too."""
    try:
        result = get_throughput()
    except (exceptions.CosmosResourceNotFoundError, AttributeError) as error:
        if isinstance(error, AttributeError):
            error = error.__context__
        assert isinstance(error, exceptions.CosmosResourceNotFoundError) and error.sub_status == 10004, repr(error)
        return
    raise AssertionError(f"expected no offer, got {getattr(result, 'properties', result)}")


def admin_post(path):
    """POST to cosmolite's admin API (/_cosmolite/...) with the key in x-cosmolite-key; returns (status, parsed JSON body)."""
    import json
    import ssl
    import urllib.error
    import urllib.request
    from urllib.parse import quote
    url = ENDPOINT.rstrip("/") + quote(path)
    context = ssl.create_default_context(cafile=CERT_PEM) if TLS and CERT_PEM else None
    request = urllib.request.Request(url, data=b"", method="POST", headers={"x-cosmolite-key": KEY})
    try:
        with urllib.request.urlopen(request, timeout=30, context=context) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")
