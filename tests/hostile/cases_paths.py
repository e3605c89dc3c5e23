"""Group 2, paths and methods.

The service routes /dbs/{db}/colls/{coll}/docs/{id} (and offers, pkranges, conflicts,
operations/partitionkeydelete); any other path is 404, an empty segment is 404, a malformed
percent escape is 400, and a verb a resource does not serve is 405. Ids are compared after
percent-decoding, so encoded slashes, '..' and NUL bytes name (missing) resources rather than
escaping their container. The request line itself is limited by the header limit (64 KB): past
it the answer is 400 (or 414/431). The /_cosmolite/ administration endpoints take the account key
(the x-cosmolite-key header here), refuse a request without it with 401, and refuse what they do not
understand with 400 or 404.
"""
from corpus import Case, pk_header, to_json

GROUP = "paths"


def unknown_paths(target):
    """(what, path) of paths that name no resource, each answered 404 (or 400 for bad escapes)."""
    db, items = target.db, target.items
    docs = target.docs()
    return [
        ("an unknown top-level type", "/foo"),
        ("an unknown type under a database", f"/dbs/{db}/foo"),
        ("an unknown type under a container", f"/dbs/{db}/colls/{items}/bar/x"),
        ("permissions below a container (only users hold them)", f"/dbs/{db}/colls/{items}/permissions"),
        ("documents below a user", f"/dbs/{db}/users/u/docs"),
        ("stored procedures below a user", f"/dbs/{db}/users/u/sprocs"),
        ("attachments below an item", f"{docs}/d0/attachments"),
        ("an item's child segments", f"{docs}/d0/x/y"),
        ("60 segments", f"{docs}/d0" + "/a/b" * 30),
        ("an empty database id", "/dbs//colls"),
        ("an empty container id", f"/dbs/{db}/colls//docs"),
        ("only slashes", "////"),
        ("a '..' segment as a type", f"/dbs/../dbs/{db}"),
        ("'..' after the docs feed", f"{docs}/../../colls"),
        ("'.' segments", f"/dbs/{db}/./colls/{items}"),
        ("offers below a database", f"/dbs/{db}/offers"),
        ("an offer path with a child", "/offers/abc/def"),
        ("the partitionkeydelete operation under another name", f"/dbs/{db}/colls/{items}/operations/drop"),
        ("the operations feed", f"/dbs/{db}/colls/{items}/operations"),
        ("types in upper case", f"/DBS/{db}/COLLS/{items}/DOCS/d0"),
        ("a backslash as separator", f"/dbs\\{db}\\colls\\{items}"),
        ("a 10 KB database id", "/dbs/" + "a" * 10_000),
        ("30,000 one-letter segments", "/a" * 30_000),
    ]


def escaped_ids(target):
    """(what, path) of item reads whose ids come from percent escapes; none may escape the container."""
    docs = target.docs()
    return [
        ("'..' as the item id", f"{docs}/.."),
        ("an encoded '../..' item id", f"{docs}/%2E%2E%2F%2E%2E"),
        ("an encoded slash in the database id",
         f"/dbs/{target.db}%2Fcolls%2F{target.items}/colls/{target.items}/docs/d0"),
        ("a NUL byte after the item id", f"{docs}/d0%00"),
        ("a NUL byte in the database id", f"/dbs/{target.db}%00/colls/{target.items}/docs/d0"),
        ("an overlong UTF-8 slash (%C0%AF)", f"{docs}/d0%C0%AFx"),
        ("an overlong 3-byte slash (%E0%80%AF)", f"{docs}/%E0%80%AF"),
        ("an encoded UTF-16 surrogate (%ED%A0%80)", f"{docs}/%ED%A0%80"),
        ("bytes that are never UTF-8 (%FF%FE)", f"{docs}/%FF%FE"),
        ("an id of 10,000 encoded NULs", f"{docs}/" + "%00" * 10_000),
    ]


def malformed_escapes(target):
    docs = target.docs()
    return [
        ("an invalid escape %zz", f"{docs}/%zz"),
        ("a truncated escape at the end", f"{docs}/d0%"),
        ("a one-digit escape", f"{docs}/d0%2"),
        ("an invalid escape in the database id", f"/dbs/%G0/colls/{target.items}/docs/d0"),
    ]


def wrong_methods(target):
    """(method, path, body) the service does not serve there: 405 (or 400/404)."""
    db, coll, docs = f"/dbs/{target.db}", target.coll(), target.docs()
    body = to_json({"id": "paths-wrong-method", "pk": "p"})
    return [
        ("DELETE", "/dbs", b""),
        ("PUT", "/dbs", to_json({"id": "x"})),
        ("POST", db, to_json({"id": "x"})),
        ("PUT", db, to_json({"id": target.db})),
        ("PATCH", db, b"{}"),
        ("PATCH", coll, b"{}"),
        ("POST", coll, to_json({"id": "x"})),
        ("DELETE", docs, b""),
        ("PUT", docs, body),
        ("PATCH", docs, to_json({"operations": []})),
        ("POST", target.doc("d0"), body),
        ("HEAD", target.doc("d0"), b""),
        ("OPTIONS", docs, b""),
        ("TRACE", docs, b""),
        ("BREW", docs, b""),
        ("get", target.doc("d0"), b""),
        ("POST", "/offers", to_json({"id": "x"})),
        ("DELETE", "/offers", b""),
        ("GET", f"{coll}/operations/partitionkeydelete", b""),
        ("PUT", f"{coll}/pkranges", b"{}"),
        ("DELETE", f"{coll}/conflicts", b""),
    ]


def admin_paths(target):
    """(what, method, path) of administration requests that name nothing splittable."""
    ranges = f"/_cosmolite/dbs/{target.db}/colls/{target.items}/pkranges"
    return [
        ("an unknown administration path", "GET", "/_cosmolite/nothing"),
        ("a split of a range id that is not a number", "POST", f"{ranges}/abc/split"),
        ("a split of a range id past 64 bits", "POST", f"{ranges}/99999999999999999999999/split"),
        ("a split of range -1", "POST", f"{ranges}/-1/split"),
        ("a split of a range that does not exist", "POST", f"{ranges}/12345/split"),
        ("a split in a missing container", "POST", "/_cosmolite/dbs/nope/colls/nope/pkranges/0/split"),
        ("a split without a range", "POST", "/_cosmolite/x/split"),
        ("a split of the whole administration root", "POST", "/_cosmolite//split"),
        ("a split path with a malformed escape", "POST", "/_cosmolite/dbs/%zz/colls/x/pkranges/0/split"),
        ("the query log with a DELETE", "DELETE", "/_cosmolite/queries"),
    ]


def cases(target, key):
    found = []
    for what, path in unknown_paths(target):
        found.append(Case(f"path: {what}", group=GROUP, path=path, headers=pk_header("p")))
    for what, path in escaped_ids(target):
        found.append(Case(f"path: {what}", group=GROUP, path=path, headers=pk_header("p")))
    for what, path in malformed_escapes(target):
        found.append(Case(f"path: {what}", group=GROUP, path=path, headers=pk_header("p"), expect=400))
    found.append(Case("path: 100 KB, past the header limit", group=GROUP, path="/dbs/" + "a" * 100_000))
    found.append(Case("path: absolute-form request target", group=GROUP,
                      path=f"http://{target.host}{target.doc('d0')}", headers=pk_header("p")))
    found.append(Case("path: '*' as the request target", group=GROUP, method="OPTIONS", path="*"))
    found.append(Case("path: a literal non-ASCII item id (raw UTF-8)", group=GROUP,
                      path=(target.docs() + "/é").encode("utf-8"), headers=pk_header("p")))
    found.append(Case("path: a raw 0xFF byte in the target", group=GROUP,
                      path=target.docs().encode() + b"/\xff", headers=pk_header("p")))
    # Error messages quote the path: raw bytes that are not UTF-8 must not break the JSON answer.
    found.append(Case("path: raw bytes that are not UTF-8 in an unknown type", group=GROUP,
                      path=f"/dbs/{target.db}/".encode() + b"\xff\xfe"))
    found.append(Case("path: raw bytes that are not UTF-8 before a malformed escape", group=GROUP,
                      path=f"/dbs/{target.db}/".encode() + b"\xff%zz", expect=400))
    found.append(Case("admin: raw bytes that are not UTF-8 in a split path", group=GROUP, method="POST", sign=False,
                      headers={"x-cosmolite-key": key}, path=b"/_cosmolite/dbs/\xff%zz/colls/x/pkranges/0/split"))
    for method, path, body in wrong_methods(target):
        writes = ((target.items, "paths-wrong-method"),) if b"paths-wrong-method" in body else ()
        found.append(Case(f"method: {method} {path.replace(target.db, '{db}')}", group=GROUP, method=method,
                          path=path, body=body, headers={**pk_header("p"), "content-type": "application/json"},
                          writes=writes))
    found.append(Case("method: a 10 KB method name", group=GROUP, method="X" * 10_000, path=target.docs()))
    for what, method, path in admin_paths(target):
        found.append(Case(f"admin: {what}", group=GROUP, method=method, path=path, sign=False,
                          headers={"x-cosmolite-key": key}))
    ranges = f"/_cosmolite/dbs/{target.db}/colls/{target.items}/pkranges/0/split"
    for what, method, path in (("the query log", "GET", "/_cosmolite/queries"), ("a split", "POST", ranges)):
        found.append(Case(f"admin: {what} without the key", group=GROUP, method=method, path=path, sign=False,
                          expect=401))
        found.append(Case(f"admin: {what} with another key", group=GROUP, method=method, path=path, sign=False,
                          headers={"x-cosmolite-key": "bm90IHRoZSBrZXk="}, expect=401))
        found.append(Case(f"admin: {what} with a key that is not base64", group=GROUP, method=method, path=path,
                          sign=False, headers={"x-cosmolite-key": "%%%"}, expect=401))
        found.append(Case(f"admin: {what} signed with another key", group=GROUP, method=method, path=path,
                          sign_key="bm90IHRoZSBrZXk=", sign_type="", sign_link="", expect=401))
    return found
