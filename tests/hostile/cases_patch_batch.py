"""Group 6, partial updates (PATCH) and transactional batches.

A patch is {"operations": [...]} of at most 10 operations (add, set, replace, remove, incr, move)
on JSON-Pointer paths, with an optional `condition` ("from c where ..."); it is all or nothing,
and the id, the partition key and system properties (_etag, _rid, _ts, ...) cannot be patched:
400 for any of these, 412 when the condition does not hold, 404 for a missing item. Every patch
here aims at the seeded item d0, which must be unchanged at the end.

A transactional batch is a JSON array of at most 100 operations in one logical partition: 400
when the request itself is malformed (not an array, too many operations, two partition keys);
when one operation fails, none applies and the answer is 207 with its status (424 for the
others). Either way nothing is written.
"""
from corpus import Case, nested, pk_header, to_json

GROUP = "patch/batch"


def patch(target, name, body, expect=400, item_id="d0", headers=None, **fields):
    merged = {**pk_header("p"), "content-type": "application/json", **(headers or {})}
    return Case(f"patch: {name}", group=GROUP, method="PATCH", path=target.doc(item_id), headers=merged, body=body,
                expect=expect, **fields)


def operations(*ops):
    return to_json({"operations": list(ops)})


def set_op(path, value=1):
    return {"op": "set", "path": path, "value": value}


def patch_cases(target):
    cases = [patch(target, what, operations(*ops)) for what, ops in [
        ("11 operations", [set_op(f"/p{i}", i) for i in range(11)]),
        ("1,000 operations", [set_op(f"/p{i}", i) for i in range(1000)]),
        ("an unknown op", [{"op": "frobnicate", "path": "/x", "value": 1}]),
        ("op missing", [{"path": "/x", "value": 1}]),
        ("op that is a number", [{"op": 5, "path": "/x", "value": 1}]),
        ("op in upper case", [{"op": "SET", "path": "/x", "value": 1}]),
        ("a path without '/'", [set_op("x")]),
        ("an empty path", [set_op("")]),
        ("the root path", [set_op("/")]),
        ("a path 5,000 levels deep", [set_op("/a" * 5000)]),
        ("an invalid ~ escape", [set_op("/a~2")]),
        ("a path that is a number", [{"op": "set", "path": 5, "value": 1}]),
        ("set without a value", [{"op": "set", "path": "/x"}]),
        ("add at array index -1", [{"op": "add", "path": "/arr/-1", "value": 1}]),
        ("add at array index past 64 bits", [{"op": "add", "path": "/arr/99999999999999999999", "value": 1}]),
        ("set /id", [set_op("/id", "other")]),
        ("remove /id", [{"op": "remove", "path": "/id"}]),
        ("set /pk", [set_op("/pk", "q")]),
        ("remove /pk", [{"op": "remove", "path": "/pk"}]),
        ("move /id away", [{"op": "move", "from": "/id", "path": "/x"}]),
        ("move into /pk", [{"op": "move", "from": "/n", "path": "/pk"}]),
        ("remove /_etag", [{"op": "remove", "path": "/_etag"}]),
        ("set /_rid", [set_op("/_rid", "AAAA")]),
        ("set /_ts", [set_op("/_ts", 0)]),
        ("set /_self", [set_op("/_self", "x")]),
        ("incr of a string value", [{"op": "incr", "path": "/n", "value": "1"}]),
        ("move a path into its own child", [{"op": "move", "from": "/m", "path": "/m/child"}]),
        ("a good set followed by a bad remove", [set_op("/x"), {"op": "remove", "path": "/missing"}]),
        ("remove of a missing path", [{"op": "remove", "path": "/missing"}]),
    ]]
    cases += [patch(target, what, body) for what, body in [
        ("operations that are an object", b'{"operations":{}}'),
        ("operations that are a string", b'{"operations":"x"}'),
        ("no operations property", b"{}"),
        ("an empty operations array", b'{"operations":[]}'),
        ("a top-level array", b"[]"),
        ("a body that is not JSON", b"{nope"),
        ("an operation that is a number", b'{"operations":[5]}'),
        ("a value nested 10,000 deep", b'{"operations":[{"op":"set","path":"/v","value":'
         + nested("[", "]", 10_000).encode() + b"}]}"),
        ("a value nested 1,000,000 deep", b'{"operations":[{"op":"set","path":"/v","value":'
         + nested("[", "]", 1_000_000).encode() + b"}]}"),
        ("incr by 1e400", b'{"operations":[{"op":"incr","path":"/n","value":1e400}]}'),
        ("a condition that does not parse", to_json({"condition": "from c where ((", "operations": [set_op("/x")]})),
        ("a condition nested 100,000 deep",
         to_json({"condition": "from c where " + nested("(", ")", 100_000, "true"), "operations": [set_op("/x")]})),
        ("a condition that is a number", to_json({"condition": 5, "operations": [set_op("/x")]})),
        ("a condition that is a full query", to_json({"condition": "SELECT * FROM c", "operations": [set_op("/x")]})),
    ]]
    cases += [
        patch(target, "a condition that does not hold", to_json({"condition": "from c where c.n = 999",
                                                                 "operations": [set_op("/x")]}), expect=412),
        patch(target, "a 3 MB value", operations(set_op("/big", "x" * 3 * 1024 * 1024)), expect=(400, 413)),
        patch(target, "a missing item", operations(set_op("/x")), item_id="nope", expect=404),
        patch(target, "no partition key header", operations(set_op("/x")),
              headers={"x-ms-documentdb-partitionkey": None}),
        # Allowed to succeed, so aimed at the scratch item rather than d0.
        patch(target, "a 10 KB path", operations(set_op("/" + "a" * 10_000)), item_id="scratch", expect=(200, 400),
              note="the service documents no limit on property names but the document's size"),
        patch(target, "content-type text/plain", operations(set_op("/x")), headers={"content-type": "text/plain"},
              item_id="scratch", expect=(200, 400, 415)),
    ]
    return cases


def batch(target, name, body, expect=400, pk=("p",), writes=(), headers=None, **fields):
    merged = {"x-ms-cosmos-is-batch-request": "true", "x-ms-cosmos-batch-atomic": "true",
              "content-type": "application/json"}
    if pk is not None:
        merged.update(pk_header(*pk))
    merged.update(headers or {})
    return Case(f"batch: {name}", group=GROUP, method="POST", path=target.docs(), headers=merged, body=body,
                expect=expect, writes=tuple((target.items, item_id) for item_id in writes), **fields)


def create_op(item_id, pk="p", **extra):
    return {"operationType": "Create", "resourceBody": {"id": item_id, "pk": pk, **extra}}


def batch_cases(target):
    failed_op = (207, 400)  # a request the service reads, with an operation that fails: none applies
    ids_101 = [f"bt-101-{i}" for i in range(101)]
    ids_1000 = [f"bt-1000-{i}" for i in range(1000)]
    return [
        batch(target, "101 operations", to_json([create_op(i) for i in ids_101]), writes=ids_101),
        batch(target, "1,000 operations", to_json([create_op(i) for i in ids_1000]), writes=ids_1000),
        batch(target, "two partition keys", to_json([
            {**create_op("bt-mixed-1"), "partitionKey": '["p"]'},
            {**create_op("bt-mixed-2", pk="q"), "partitionKey": '["q"]'}]), writes=("bt-mixed-1", "bt-mixed-2")),
        batch(target, "a body that is an object", to_json({"operationType": "Create"})),
        batch(target, "a body that is a string", b'"x"'),
        batch(target, "a body that is not JSON", b"[{"),
        batch(target, "a body that is null", b"null"),
        batch(target, "an empty array", b"[]"),
        batch(target, "operations that are numbers", b"[1,2,3]"),
        batch(target, "an unknown operationType", to_json([{"operationType": "Frobnicate", "resourceBody": {}}]),
              expect=failed_op),
        batch(target, "a create without resourceBody", to_json([{"operationType": "Create"}]), expect=failed_op),
        batch(target, "a create whose body is in another partition", to_json([create_op("bt-other-pk", pk="q")]),
              expect=failed_op, writes=("bt-other-pk",)),
        batch(target, "a good create then an id of 1,024 bytes",
              to_json([create_op("bt-rollback"), create_op("x" * 1024)]), expect=failed_op,
              writes=("bt-rollback", "x" * 1024)),
        batch(target, "a good create then a duplicate of a seeded id",
              to_json([create_op("bt-rollback2"), create_op("d0")]), expect=(207, 409),
              writes=("bt-rollback2",)),
        batch(target, "a create nested 10,000 deep", b'[{"operationType":"Create","resourceBody":{"id":"bt-deep",'
              b'"pk":"p","v":' + nested("[", "]", 10_000).encode() + b"}}]", expect=(207, 400), writes=("bt-deep",)),
        batch(target, "a patch of 11 operations", to_json([{"operationType": "Patch", "id": "d0", "resourceBody": {
            "operations": [set_op(f"/p{i}", i) for i in range(11)]}}]), expect=failed_op),
        batch(target, "a patch of the id", to_json([{"operationType": "Patch", "id": "d0", "resourceBody": {
            "operations": [set_op("/id", "x")]}}]), expect=failed_op),
        batch(target, "a replace with an ifMatch that is garbage", to_json([{
            "operationType": "Replace", "id": "d1", "ifMatch": "garbage",
            "resourceBody": {"id": "d1", "pk": "p", "replaced": True}}]), expect=(207, 412)),
        batch(target, "three operations of 1 MB (3 MB)", to_json([create_op(f"bt-big-{i}", s="x" * 1024 * 1024)
                                                                   for i in range(3)]),
              expect=(400, 413), writes=("bt-big-0", "bt-big-1", "bt-big-2")),
        batch(target, "no partition key header", to_json([create_op("bt-nopk")]), pk=None, writes=("bt-nopk",)),
        batch(target, "a partition key header that is not JSON", to_json([create_op("bt-badpk")]), pk=None,
              headers={"x-ms-documentdb-partitionkey": "p"}, writes=("bt-badpk",)),
        Case("batch: on the container feed instead of its items", group=GROUP, method="POST",
             path=f"/dbs/{target.db}/colls", body=to_json([create_op("bt-db")]),
             headers={"x-ms-cosmos-is-batch-request": "true", "x-ms-cosmos-batch-atomic": "true",
                      "content-type": "application/json"}),
    ]


def bulk_cases(target):
    """A non-atomic batch (bulk) applies each operation on its own; these all fail, so nothing is
    written either."""
    return [
        batch(target, "bulk: 101 creates of ids of 1,024 bytes",
              to_json([create_op(f"{i:04d}" + "x" * 1020) for i in range(101)]),
              headers={"x-ms-cosmos-batch-atomic": "false"}, expect=(207, 400)),
        batch(target, "bulk: continue-on-error with unknown operations",
              to_json([{"operationType": "Frobnicate"}] * 5),
              headers={"x-ms-cosmos-batch-atomic": "false", "x-ms-cosmos-batch-continue-on-error": "true"},
              expect=(207, 400)),
    ]


def cases(target, key):
    return patch_cases(target) + batch_cases(target) + bulk_cases(target)
