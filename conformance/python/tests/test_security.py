"""Security through azure-cosmos: users (create / read / replace with a rename / upsert / delete / list /
query, 409, 404, 412) and permissions (system properties and `_token`, `resource_token_expiry_seconds`
bounds, 409, 400), clients built with resource tokens (`credential={link: token}`: All and Read
permissions, a partition-key-scoped and a document-scoped permission, 403 "Forbidden" for the rest,
401 once the permission or its user is deleted, and the one expiry test of the suites: 10 s), Entra ID
(AAD) tokens on HTTPS servers of the test's own (`--aad-tokens emulator|any`, `--aad-readers`, a
server without the flag), and malformed authorization headers over raw HTTP (401/400 with a JSON body,
never 5xx).

azure-cosmos picks a resource token by the request's full name (`dbs/{db}/colls/{c}`), else by the first
key containing a prefix of the request path (auth.py, __get_authorization_token_using_resource_token), so
a container's token is also sent for its database and its users; listing databases sends no token at
all, so that case is a raw request. The SDK sends bearer (AAD) tokens over HTTPS only (azure-core's
BearerTokenCredentialPolicy), so the AAD servers serve TLS and the client trusts their certificate."""
import base64
import contextlib
import json
import os
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from email.utils import formatdate
from urllib.parse import quote

import pytest
from azure.core import MatchConditions
from azure.core.credentials import AccessToken
from azure.cosmos import CosmosClient, PartitionKey
from azure.cosmos.documents import SSLConfiguration

import cosmos_support as cs

FORBIDDEN_MESSAGE = "Insufficient permissions provided in the authorization header"
EMULATOR_OID = "96313034-4739-43cb-93cd-74193adbe5b6"


# --- helpers ---------------------------------------------------------------------------------------

def body_of(error):
    response = getattr(error, "response", None)
    text = response.text() if response is not None else error.http_error_message
    return json.loads(text)


def forbidden(fn, *args, **kwargs):
    """fn(...) must fail with 403, code "Forbidden" and the service's message."""
    error = cs.expect_error(403, fn, *args, **kwargs)
    body = body_of(error)
    assert body["code"] == "Forbidden", body
    assert body["message"].startswith(FORBIDDEN_MESSAGE), body
    return error


def check_token(token, what="permission"):
    assert isinstance(token, str) and token.startswith("type=resource&ver=1.0&sig=") and len(token) > 26, \
        f"{what}: _token {token!r}"


_token_clients = []


def token_client(tokens):
    """A client of the shared endpoint that holds only the given resource tokens (closed after the test)."""
    client = CosmosClient(cs.ENDPOINT, credential=tokens, **cs.tls_kwargs())
    _token_clients.append(client)
    return client


@pytest.fixture(autouse=True)
def _close_token_clients():
    yield
    while _token_clients:
        with contextlib.suppress(Exception):
            _token_clients.pop().close()


class Granted:
    """A container on /pk with items a/p1 (n=1) and b/p2 (n=2), a user and one permission."""

    def __init__(self, database, container, user, permission):
        self.database = database
        self.container = container
        self.user = user
        self.permission = permission.properties
        self.token = self.permission["_token"]

    @property
    def link(self):
        return f"dbs/{self.database.id}/colls/{self.container.id}"

    def client_container(self, tokens=None):
        """The container through a client that holds only this permission's token."""
        client = token_client(tokens or {self.link: self.token})
        return client.get_database_client(self.database.id).get_container_client(self.container.id)


@pytest.fixture
def grant(database, make_container):
    """grant(mode="All", resource=lambda container_props, item_a: ..., resource_partition_key=None, **kwargs)."""

    def make(mode="All", resource=None, resource_partition_key=None, **kwargs):
        container = make_container()
        item_a = container.create_item({"id": "a", "pk": "p1", "n": 1})
        container.create_item({"id": "b", "pk": "p2", "n": 2})
        properties = container.read()
        user = database.create_user({"id": cs.uid("u")})
        body = {"id": cs.uid("perm"), "permissionMode": mode,
                "resource": resource(properties, item_a) if resource else properties["_self"]}
        if resource_partition_key is not None:
            body["resourcePartitionKey"] = resource_partition_key
        permission = user.create_permission(body, **kwargs)
        return Granted(database, container, user, permission)

    return make


# --- users -------------------------------------------------------------------------------------------

def test_create_user_returns_system_properties(database):
    user = database.create_user({"id": "alice"})
    properties = user.read()
    cs.system_properties_ok(properties, "user")
    db_rid = database.read()["_rid"]
    assert properties["id"] == "alice"
    assert properties["_self"] == f"dbs/{db_rid}/users/{properties['_rid']}/", properties
    assert properties["_permissions"] == "permissions/", properties


def test_create_user_answers_201_and_a_duplicate_409(database, wire):
    mark = wire.mark()
    database.create_user({"id": "alice"})
    assert [e.status for e in wire.since(mark) if e.method == "POST"] == [201]
    cs.expect_error(409, database.create_user, {"id": "alice"})


def test_read_list_and_query_users(database):
    database.create_user({"id": "alice"})
    database.create_user({"id": "bob"})
    assert database.get_user_client("alice").read()["id"] == "alice"
    assert sorted(u["id"] for u in database.list_users()) == ["alice", "bob"]
    found = list(database.query_users("SELECT * FROM root r WHERE r.id = @id",
                                      parameters=[{"name": "@id", "value": "bob"}]))
    assert [u["id"] for u in found] == ["bob"]


def test_replace_user_renames_it(database):
    created = database.create_user({"id": "alice"}).read()
    replaced = database.replace_user("alice", {"id": "carol"}).read()
    assert replaced["id"] == "carol" and replaced["_rid"] == created["_rid"], replaced
    assert database.get_user_client("carol").read()["_rid"] == created["_rid"]
    cs.expect_error(404, database.get_user_client("alice").read)


def test_upsert_user_creates_then_replaces(database, wire):
    mark = wire.mark()
    database.upsert_user({"id": "alice"})
    database.upsert_user({"id": "alice"})
    assert [e.status for e in wire.since(mark) if e.method == "POST"] == [201, 200]
    assert [u["id"] for u in database.list_users()] == ["alice"]


def test_missing_user_is_404(database):
    cs.expect_error(404, database.get_user_client("nobody").read)
    cs.expect_error(404, database.replace_user, "nobody", {"id": "nobody"})
    cs.expect_error(404, database.delete_user, "nobody")


def test_stale_etag_on_user_replace_and_delete_is_412(database):
    stale = database.create_user({"id": "alice"}).read()["_etag"]
    database.replace_user("alice", {"id": "alice"})
    cs.expect_error(412, database.replace_user, "alice", {"id": "alice"},
                    etag=stale, match_condition=MatchConditions.IfNotModified)
    cs.expect_error(412, database.delete_user, "alice", etag=stale, match_condition=MatchConditions.IfNotModified)
    current = database.get_user_client("alice").read()["_etag"]
    database.delete_user("alice", etag=current, match_condition=MatchConditions.IfNotModified)
    assert list(database.list_users()) == []


# --- permissions --------------------------------------------------------------------------------------

def test_create_permission_echoes_the_body_with_a_token(database, container):
    container_self = container.read()["_self"]
    user = database.create_user({"id": "alice"})
    user_self = user.read()["_self"]
    body = {"id": "p", "permissionMode": "Read", "resource": container_self, "resourcePartitionKey": ["p1"]}
    permission = user.create_permission(body).properties
    cs.system_properties_ok(permission, "permission")
    assert permission["id"] == "p" and permission["permissionMode"] == "Read", permission
    assert permission["resource"] == container_self, permission
    assert permission["resourcePartitionKey"] == ["p1"], permission
    assert permission["_self"] == f"{user_self}permissions/{permission['_rid']}/", permission
    check_token(permission["_token"])


def test_read_list_query_replace_upsert_permission_return_tokens(grant):
    g = grant()
    pid = g.permission["id"]
    check_token(g.user.get_permission(pid).properties["_token"], "read")
    listed = list(g.user.list_permissions())
    assert [p["id"] for p in listed] == [pid]
    check_token(listed[0]["_token"], "list")
    queried = list(g.user.query_permissions("SELECT * FROM root r WHERE r.id = @id",
                                            parameters=[{"name": "@id", "value": pid}]))
    assert [p["id"] for p in queried] == [pid]
    check_token(queried[0]["_token"], "query")
    replaced = g.user.replace_permission(pid, {"id": pid, "permissionMode": "Read",
                                               "resource": g.permission["resource"]}).properties
    assert replaced["permissionMode"] == "Read"
    check_token(replaced["_token"], "replace")
    upserted = g.user.upsert_permission({"id": pid, "permissionMode": "All", "resource": g.permission["resource"]})
    assert upserted.properties["permissionMode"] == "All"
    check_token(upserted.properties["_token"], "upsert")


def test_resource_token_expiry_bounds(database, container, wire):
    container_self = container.read()["_self"]
    user = database.create_user({"id": "alice"})
    for seconds in (10, 18000):
        mark = wire.mark()
        permission = user.create_permission({"id": f"ok-{seconds}", "permissionMode": "Read", "resource": container_self},
                                            resource_token_expiry_seconds=seconds)
        check_token(permission.properties["_token"], f"expiry {seconds}")
        sent = [e.request_headers.get("x-ms-documentdb-expiry-seconds") for e in wire.since(mark) if e.method == "POST"]
        assert sent == [str(seconds)], sent
        user.delete_permission(f"ok-{seconds}")
    for seconds in (9, 18001):
        cs.expect_error(400, user.create_permission,
                        {"id": f"bad-{seconds}", "permissionMode": "Read", "resource": container_self},
                        resource_token_expiry_seconds=seconds)
    assert list(user.list_permissions()) == []


def test_duplicate_permission_id_and_second_permission_on_a_resource_are_409(grant, make_container):
    g = grant()
    other_self = make_container().read()["_self"]
    cs.expect_error(409, g.user.create_permission,
                    {"id": g.permission["id"], "permissionMode": "Read", "resource": other_self})
    cs.expect_error(409, g.user.create_permission,
                    {"id": cs.uid("perm"), "permissionMode": "Read", "resource": g.permission["resource"]})


def test_invalid_permission_mode_or_resource_is_400(database, container):
    user = database.create_user({"id": "alice"})
    container_self = container.read()["_self"]
    cs.expect_error(400, user.create_permission, {"id": "p1", "permissionMode": "Write", "resource": container_self})
    cs.expect_error(400, user.create_permission,
                    {"id": "p2", "permissionMode": "All", "resource": f"dbs/{database.id}/colls/no-such-container"})
    assert list(user.list_permissions()) == []


# --- resource tokens ----------------------------------------------------------------------------------

def test_all_token_reads_container_and_does_item_crud_and_queries(grant):
    g = grant()
    c = g.client_container()
    assert c.read()["id"] == g.container.id
    assert c.read_item("a", partition_key="p1")["n"] == 1
    c.create_item({"id": "c", "pk": "p1", "n": 3})
    c.replace_item("c", {"id": "c", "pk": "p1", "n": 4})
    c.upsert_item({"id": "d", "pk": "p2", "n": 5})
    assert sorted(c.query_items("SELECT VALUE r.n FROM r", enable_cross_partition_query=True)) == [1, 2, 4, 5]
    assert sorted(c.query_items("SELECT VALUE r.id FROM r", partition_key="p2")) == ["b", "d"]
    c.delete_item("c", partition_key="p1")
    assert sorted(g.container.query_items("SELECT VALUE r.id FROM r", enable_cross_partition_query=True)) == ["a", "b", "d"]


def test_name_based_resource_link_grants_access(database, make_container):
    container = make_container()
    container.create_item({"id": "a", "pk": "p1", "n": 1})
    user = database.create_user({"id": "alice"})
    link = f"dbs/{database.id}/colls/{container.id}"
    token = user.create_permission({"id": "p", "permissionMode": "All", "resource": link}).properties["_token"]
    c = token_client({link: token}).get_database_client(database.id).get_container_client(container.id)
    assert c.read_item("a", partition_key="p1")["n"] == 1
    c.create_item({"id": "b", "pk": "p1"})


def test_read_token_reads_and_queries_and_its_writes_are_403(grant):
    g = grant(mode="Read")
    c = g.client_container()
    assert c.read_item("a", partition_key="p1")["n"] == 1
    assert sorted(c.query_items("SELECT VALUE r.id FROM r", enable_cross_partition_query=True)) == ["a", "b"]
    forbidden(c.create_item, {"id": "c", "pk": "p1"})
    forbidden(c.upsert_item, {"id": "a", "pk": "p1", "n": 9})
    forbidden(c.replace_item, "a", {"id": "a", "pk": "p1", "n": 9})
    forbidden(c.delete_item, "a", partition_key="p1")
    assert g.container.read_item("a", partition_key="p1")["n"] == 1


def test_read_token_cannot_delete_the_container(grant):
    g = grant(mode="Read")
    client = token_client({g.link: g.token})
    forbidden(client.get_database_client(g.database.id).delete_container, g.container.id)
    assert g.container.read()["id"] == g.container.id


def test_partition_scoped_token_allows_its_logical_partition_only(grant):
    g = grant(resource_partition_key=["p1"])
    c = g.client_container()
    assert c.read_item("a", partition_key="p1")["n"] == 1
    c.create_item({"id": "c", "pk": "p1"})
    assert sorted(c.query_items("SELECT VALUE r.id FROM r", partition_key="p1")) == ["a", "c"]
    forbidden(c.read_item, "b", partition_key="p2")
    forbidden(c.create_item, {"id": "d", "pk": "p2"})
    forbidden(lambda: list(c.query_items("SELECT * FROM r", enable_cross_partition_query=True)))


def test_container_token_does_not_open_another_container(grant, make_container):
    g = grant()
    other = make_container()
    other.create_item({"id": "x", "pk": "p"})
    b = token_client({f"dbs/{g.database.id}/colls/{other.id}": g.token}) \
        .get_database_client(g.database.id).get_container_client(other.id)
    forbidden(b.read_item, "x", partition_key="p")
    forbidden(b.create_item, {"id": "y", "pk": "p"})


def test_container_token_cannot_read_the_database_or_its_users(grant):
    g = grant()
    db = token_client({g.link: g.token}).get_database_client(g.database.id)
    forbidden(db.read)
    forbidden(lambda: list(db.list_users()))
    forbidden(db.create_user, {"id": "intruder"})
    forbidden(db.get_user_client(g.user.id).read)
    forbidden(lambda: list(db.get_user_client(g.user.id).list_permissions()))


def test_container_token_cannot_list_databases(grant):
    """azure-cosmos sends no token for GET /dbs with resource tokens, so this is a raw request."""
    g = grant()
    status, body = raw_get("/dbs", quote(g.token, safe=""))
    assert status == 403, (status, body)
    assert body["code"] == "Forbidden" and body["message"].startswith(FORBIDDEN_MESSAGE), body


def test_document_scoped_token_reads_that_document_and_the_container_metadata_only(grant):
    g = grant(resource=lambda props, item: item["_self"])
    c = g.client_container({f"{g.link}/docs/a": g.token})
    assert c.read_item("a", partition_key="p1")["n"] == 1
    c.replace_item("a", {"id": "a", "pk": "p1", "n": 7})
    assert c.read()["id"] == g.container.id
    assert len(list(c.read_feed_ranges())) >= 1
    forbidden(c.read_item, "b", partition_key="p2")
    forbidden(c.create_item, {"id": "c", "pk": "p1"})
    forbidden(lambda: list(c.query_items("SELECT * FROM r", enable_cross_partition_query=True)))


def test_deleting_the_user_revokes_its_tokens(grant):
    g = grant()
    c = g.client_container()
    assert c.read_item("a", partition_key="p1")["n"] == 1
    g.database.delete_user(g.user.id)
    cs.expect_error(401, c.read_item, "a", partition_key="p1")


def test_deleting_the_permission_revokes_its_token(grant):
    g = grant()
    c = g.client_container()
    assert c.read_item("a", partition_key="p1")["n"] == 1
    g.user.delete_permission(g.permission["id"])
    cs.expect_error(401, c.read_item, "a", partition_key="p1")


def test_resource_token_expires(grant):
    """The one expiry test of the suites: a 10 s token works, and 11 s later answers 401."""
    g = grant(resource_token_expiry_seconds=10)
    c = g.client_container()
    assert c.read_item("a", partition_key="p1")["n"] == 1
    time.sleep(11)
    cs.expect_error(401, c.read_item, "a", partition_key="p1")


# --- raw requests ---------------------------------------------------------------------------------------

def raw_get(path, authorization, endpoint=None, pem=None):
    """GET with the given authorization header value; returns (status, parsed JSON body or text)."""
    endpoint = endpoint or cs.ENDPOINT
    pem = pem if endpoint != cs.ENDPOINT else cs.CERT_PEM
    context = ssl.create_default_context(cafile=pem) if endpoint.startswith("https:") else None
    headers = {"x-ms-date": formatdate(usegmt=True), "x-ms-version": "2020-07-15", "accept": "application/json",
               "authorization": authorization}
    request = urllib.request.Request(endpoint.rstrip("/") + path, method="GET", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30, context=context) as response:
            status, text = response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode("utf-8", "replace")
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


MALFORMED = {
    "missing parts": quote("type=master&ver=1.0", safe=""),
    "unknown type": quote("type=foo&ver=1.0&sig=abc", safe=""),
    "bad base64 signature": quote("type=master&ver=1.0&sig=@@@###", safe=""),
    "version 2.0": quote("type=master&ver=2.0&sig=AAAA", safe=""),
    "bad percent escape": "type%zz=master%26ver%3D1.0%26sig%3DAAAA",
    "garbage resource token": quote("type=resource&ver=1.0&sig=garbage", safe=""),
    "aad not a jwt": quote("type=aad&ver=1.0&sig=not-a-jwt", safe=""),
    "aad a.b.c": quote("type=aad&ver=1.0&sig=a.b.c", safe=""),
    "30 KB": quote("type=master&ver=1.0&sig=" + "A" * 30 * 1024, safe=""),
    "empty": "",
}


@pytest.mark.parametrize("authorization", list(MALFORMED.values()), ids=list(MALFORMED))
def test_malformed_authorization_is_401_with_a_json_body(authorization, client):
    status, body = raw_get("/dbs", authorization)
    assert status in (401, 400), (status, body)
    assert isinstance(body, dict) and isinstance(body.get("code"), str) and body.get("message"), body
    list(client.list_databases())  # the server keeps answering


# --- Entra ID (AAD) tokens, servers of the test's own -----------------------------------------------------

def b64url(data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def emulator_jwt(key=cs.DEFAULT_KEY, exp=None, oid=EMULATOR_OID, signature=None):
    """A JWT shaped like the Cosmos DB emulator's Entra ID test tokens (azure-cosmos' test_aad.py): the
    signature part is the base64url of the account key text."""
    now = int(time.time())
    header = {"typ": "JWT", "alg": "RS256", "x5t": "CosmosEmulatorPrimaryMaster", "kid": "CosmosEmulatorPrimaryMaster"}
    claims = {"aud": "https://localhost.localhost",
              "iss": "https://sts.fake-issuer.net/7b1999a1-dfd7-440e-8204-00170979b984",
              "iat": now, "nbf": now, "exp": now + 7200 if exp is None else exp, "aio": "", "appid": "localhost",
              "appidacr": "1", "idp": "https://localhost:8081/", "oid": oid, "rh": "", "sub": "localhost",
              "tid": "EmulatorFederation", "uti": "", "ver": "1.0", "scp": "user_impersonation"}
    return ".".join([b64url(json.dumps(header)), b64url(json.dumps(claims)),
                     signature if signature is not None else b64url(key)])


class StaticCredential:
    """A TokenCredential that hands out one JWT (valid for the SDK for an hour, whatever its exp claim)."""

    def __init__(self, jwt):
        self.jwt = jwt

    def get_token(self, *scopes, **kwargs):
        return AccessToken(self.jwt, int(time.time()) + 3600)


class OwnServer:
    def __init__(self, endpoint, pem):
        self.endpoint = endpoint
        self.pem = pem
        self.clients = []

    def kwargs(self):
        config = SSLConfiguration()
        config.SSLCaCerts = self.pem
        return {"ssl_config": config, "connection_verify": self.pem}

    def _keep(self, client):
        self.clients.append(client)
        return client

    def admin(self):
        return self._keep(CosmosClient(self.endpoint, cs.DEFAULT_KEY, **self.kwargs()))

    def aad(self, jwt):
        return self._keep(CosmosClient(self.endpoint, StaticCredential(jwt), **self.kwargs()))

    def seed(self):
        """A database with container "c" (/pk, 400 RU/s) holding item a/p (n=1), created with the key;
        returns the database id (unique: tests share the server of their flags)."""
        database_id = cs.uid("aad")
        container = self.admin().create_database(database_id).create_container("c", PartitionKey(path="/pk"),
                                                                                offer_throughput=400)
        container.create_item({"id": "a", "pk": "p", "n": 1})
        return database_id


@pytest.fixture(scope="module")
def own_server():
    """own_server(*flags) -> OwnServer: an HTTPS cosmolite (in memory) with the flags, one per set of flags,
    shared by this module's tests and stopped after them."""
    servers = {}
    processes = []
    directory = tempfile.TemporaryDirectory(prefix="cosmolite-security-")

    def start(*flags):
        if flags in servers:
            return servers[flags]
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        process = subprocess.Popen([os.environ["COSMOLITE_BIN"], "--port", str(port), "--host", "127.0.0.1",
                                    "--key", cs.DEFAULT_KEY, "--in-memory", "--log-level", "warn", *flags])
        processes.append(process)
        endpoint = f"https://127.0.0.1:{port}/"
        unverified = ssl._create_unverified_context()  # only to fetch the certificate then trusted
        for _ in range(500):
            try:
                with urllib.request.urlopen(endpoint + "_explorer/emulator.pem", timeout=1, context=unverified) as r:
                    pem_bytes = r.read()
                break
            except OSError:
                assert process.poll() is None, f"cosmolite {flags} exited with {process.returncode}"
                time.sleep(0.02)
        else:
            raise AssertionError(f"cosmolite {flags} did not start")
        pem = os.path.join(directory.name, f"{port}.pem")
        with open(pem, "wb") as out:
            out.write(pem_bytes)
        servers[flags] = OwnServer(endpoint, pem)
        return servers[flags]

    try:
        yield start
    finally:
        for server in servers.values():
            for client in server.clients:
                with contextlib.suppress(Exception):
                    client.close()
        for process in processes:  # all at once: a server waits for open TLS connections to drain
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        directory.cleanup()


@pytest.mark.managed
def test_aad_emulator_token_reads_and_does_item_crud(own_server):
    server = own_server("--aad-tokens", "emulator")
    database_id = server.seed()
    client = server.aad(emulator_jwt())
    assert client.get_database_account() is not None
    database = client.get_database_client(database_id)
    assert database.read()["id"] == database_id
    container = database.get_container_client("c")
    assert container.read()["id"] == "c"
    assert container.read_item("a", partition_key="p")["n"] == 1
    container.create_item({"id": "b", "pk": "p", "n": 2})
    assert sorted(container.query_items("SELECT VALUE r.n FROM r", enable_cross_partition_query=True)) == [1, 2]
    container.delete_item("b", partition_key="p")
    assert [i["id"] for i in container.read_all_items()] == ["a"]


@pytest.mark.managed
def test_aad_emulator_token_control_plane_is_403_5300(own_server):
    server = own_server("--aad-tokens", "emulator")
    database_id = server.seed()
    client = server.aad(emulator_jwt())
    database = client.get_database_client(database_id)
    cs.expect_error(403, client.create_database, cs.uid("other"), substatus=5300)
    cs.expect_error(403, database.create_container, "c2", PartitionKey(path="/pk"), substatus=5300)
    cs.expect_error(403, database.delete_container, "c", substatus=5300)
    cs.expect_error(403, database.get_container_client("c").replace_throughput, 500, substatus=5300)
    cs.expect_error(403, database.create_user, {"id": "u"}, substatus=5300)
    cs.expect_error(403, lambda: list(database.list_users()), substatus=5300)
    admin_database = server.admin().get_database_client(database_id)
    assert [c["id"] for c in admin_database.list_containers()] == ["c"]
    assert admin_database.get_container_client("c").get_throughput().offer_throughput == 400
    assert list(admin_database.list_users()) == []


@pytest.mark.managed
def test_aad_token_signed_with_another_key_is_401(own_server):
    server = own_server("--aad-tokens", "emulator")
    database_id = server.seed()
    jwt = emulator_jwt(key="not the account key")
    cs.expect_error(401, lambda: server.aad(jwt).get_database_client(database_id).get_container_client("c")
                    .read_item("a", partition_key="p"))


@pytest.mark.managed
def test_expired_aad_token_is_401(own_server):
    server = own_server("--aad-tokens", "emulator")
    database_id = server.seed()
    jwt = emulator_jwt(exp=int(time.time()) - 600)
    cs.expect_error(401, lambda: server.aad(jwt).get_database_client(database_id).get_container_client("c")
                    .read_item("a", partition_key="p"))


@pytest.mark.managed
def test_aad_reader_reads_and_its_item_writes_are_403_5301(own_server):
    server = own_server("--aad-tokens", "emulator", "--aad-readers", EMULATOR_OID)
    database_id = server.seed()
    container = server.aad(emulator_jwt()).get_database_client(database_id).get_container_client("c")
    assert container.read_item("a", partition_key="p")["n"] == 1
    assert list(container.query_items("SELECT VALUE r.id FROM r", enable_cross_partition_query=True)) == ["a"]
    cs.expect_error(403, container.create_item, {"id": "b", "pk": "p"}, substatus=5301)
    cs.expect_error(403, container.upsert_item, {"id": "a", "pk": "p", "n": 2}, substatus=5301)
    cs.expect_error(403, container.delete_item, "a", partition_key="p", substatus=5301)


@pytest.mark.managed
def test_server_without_aad_tokens_refuses_an_emulator_token_with_401(own_server):
    server = own_server()
    database_id = server.seed()
    cs.expect_error(401, lambda: server.aad(emulator_jwt()).get_database_client(database_id).read())


@pytest.mark.managed
def test_aad_any_accepts_any_signature_but_not_an_expired_token(own_server):
    server = own_server("--aad-tokens", "any")
    database_id = server.seed()
    container = server.aad(emulator_jwt(signature=b64url("any signature"))) \
        .get_database_client(database_id).get_container_client("c")
    assert container.read_item("a", partition_key="p")["n"] == 1
    container.create_item({"id": "b", "pk": "p"})
    expired = emulator_jwt(signature="x", exp=int(time.time()) - 600)
    cs.expect_error(401, lambda: server.aad(expired).get_database_client(database_id).read())


@pytest.mark.managed
def test_aad_any_refuses_malformed_jwts_with_401(own_server):
    server = own_server("--aad-tokens", "any")
    for jwt in ("not-a-jwt", "a.b.c", f"{b64url('{not json')}.{b64url('[1,2')}.sig", "..", "a.b.c.d"):
        status, body = raw_get("/dbs", quote(f"type=aad&ver=1.0&sig={jwt}", safe=""), server.endpoint, server.pem)
        assert status in (401, 400), (jwt, status, body)
        assert isinstance(body, dict) and body.get("code") and body.get("message"), (jwt, body)
    list(server.admin().list_databases())  # the server keeps answering
