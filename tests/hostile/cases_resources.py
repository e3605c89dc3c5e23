"""Group 7, databases, containers and offers.

The service validates a definition before creating anything: an id of 1 to 255 characters
without '/', '\\', '?' or '#'; a partition key of 1 path (Hash) or 1 to 3 paths (MultiHash), each
starting with '/', of a known kind and version; an indexing policy of known modes and well-formed
paths, composite indexes of at least two paths; a positive defaultTtl or -1; throughput either
manual (at least 400, in steps of 100) or autoscale (at least 1,000, in steps of 1,000), never
both. Each refusal is 400 and creates nothing; a replace may not change the partition key.
Destructive requests aim at sacrificial resources, which must survive.
"""
from corpus import Case, to_json

GROUP = "resources"


def create_container(target, name, definition, expect=400, headers=None):
    """A container create; a dict `definition` is sent as JSON, bytes as they are. The id it
    names (when a string) is what it would create if wrongly accepted."""
    body = to_json(definition) if isinstance(definition, dict) else definition
    container_id = definition.get("id") if isinstance(definition, dict) else None
    writes = (("colls", container_id),) if isinstance(container_id, str) else ()
    merged = {"content-type": "application/json", **(headers or {})}
    return Case(f"container: {name}", group=GROUP, method="POST", path=f"/dbs/{target.db}/colls", headers=merged,
                body=body, expect=expect, writes=writes)


def create_database(target, name, body, expect=400, headers=None, database_id=None):
    merged = {"content-type": "application/json", **(headers or {})}
    writes = (("dbs", database_id),) if database_id else ()
    return Case(f"database: {name}", group=GROUP, method="POST", path="/dbs", headers=merged, body=body,
                expect=expect, writes=writes)


PK = {"paths": ["/pk"], "kind": "Hash", "version": 2}


def with_id(container_id, definition):
    """The definition with an id first, unless it names its own or is raw bytes."""
    if not isinstance(definition, dict) or "id" in definition:
        return definition
    return {"id": container_id, **definition}


def partition_key_cases(target):
    definitions = [
        ("no partition key", {}),
        ("a partition key with no paths", {"partitionKey": {"paths": []}}),
        ("a partition key path without '/'", {"partitionKey": {"paths": ["pk"]}}),
        ("a partition key path '/'", {"partitionKey": {"paths": ["/"]}}),
        ("a partition key path with a trailing '/'", {"partitionKey": {"paths": ["/pk/"]}}),
        ("a partition key path with a wildcard", {"partitionKey": {"paths": ["/pk/*"]}}),
        ("4 hierarchical paths", {"partitionKey": {"paths": ["/a", "/b", "/c", "/d"], "kind": "MultiHash",
                                                   "version": 2}}),
        ("2 paths of kind Hash", {"partitionKey": {"paths": ["/a", "/b"], "kind": "Hash", "version": 2}}),
        ("kind Garbage", {"partitionKey": {"paths": ["/pk"], "kind": "Garbage"}}),
        ("kind that is a number", {"partitionKey": {"paths": ["/pk"], "kind": 5}}),
        ("version 3", {"partitionKey": {"paths": ["/pk"], "version": 3}}),
        ("version 'x'", {"partitionKey": {"paths": ["/pk"], "version": "x"}}),
        ("paths that are a string", {"partitionKey": {"paths": "/pk"}}),
        ("a path that is a number", {"partitionKey": {"paths": [5]}}),
        ("a partition key that is a string", {"partitionKey": "/pk"}),
        ("paths nested 10,000 deep", b'{"id":"rc-deep","partitionKey":{"paths":' + b"[" * 10_000 + b"]" * 10_000
         + b"}}"),
    ]
    cases = [create_container(target, name, with_id(f"rc-pk-{index}", definition))
             for index, (name, definition) in enumerate(definitions)]
    # Definitions the service's documentation does not settle: any answer but a crash.
    cases += [create_container(target, name, definition, expect=(201, 400)) for name, definition in [
        ("a partition key path of 10 KB", {"id": "rc-pk-long", "partitionKey": {"paths": ["/" + "p" * 10_000]}}),
        ("the same hierarchical path twice", {"id": "rc-pk-twice", "partitionKey": {
            "paths": ["/a", "/a"], "kind": "MultiHash", "version": 2}}),
    ]]
    return cases


def definition_cases(target):
    definitions = [
        ("an id of 256 characters", {"id": "c" * 256, "partitionKey": PK}),
        ("an id of 10 KB", {"id": "c" * 10_240, "partitionKey": PK}),
        ("an empty id", {"id": "", "partitionKey": PK}),
        ("an id that is a number", {"id": 5, "partitionKey": PK}),
        ("no id", to_json({"partitionKey": PK, "defaultTtl": -1})),
        ("an id with '/'", {"id": "rc/slash", "partitionKey": PK}),
        ("an id with '\\'", {"id": "rc\\back", "partitionKey": PK}),
        ("an id with '?'", {"id": "rc?q", "partitionKey": PK}),
        ("an id with '#'", {"id": "rc#h", "partitionKey": PK}),
        ("defaultTtl 0", {"partitionKey": PK, "defaultTtl": 0}),
        ("defaultTtl -2", {"partitionKey": PK, "defaultTtl": -2}),
        ("defaultTtl 'x'", {"partitionKey": PK, "defaultTtl": "x"}),
        ("defaultTtl 1e20", {"partitionKey": PK, "defaultTtl": 1e20}),
        ("an indexing policy that is a string", {"partitionKey": PK, "indexingPolicy": "x"}),
        ("indexingMode garbage", {"partitionKey": PK, "indexingPolicy": {"indexingMode": "garbage"}}),
        # (indexingMode none with automatic true: the service's answer is not documented; cosmolite accepts it.)
        ("includedPaths that are a string", {"partitionKey": PK, "indexingPolicy": {"includedPaths": "x"}}),
        ("an included path without '/'", {"partitionKey": PK, "indexingPolicy": {"includedPaths": [{"path": "nope"}]}}),
        ("an excluded path with '??'", {"partitionKey": PK, "indexingPolicy": {"excludedPaths": [{"path": "/a/??"}]}}),
        ("a composite index of one path", {"partitionKey": PK, "indexingPolicy": {
            "compositeIndexes": [[{"path": "/a"}]]}}),
        ("a composite index ordered sideways", {"partitionKey": PK, "indexingPolicy": {
            "compositeIndexes": [[{"path": "/a", "order": "sideways"}, {"path": "/b"}]]}}),
        ("spatial index types garbage", {"partitionKey": PK, "indexingPolicy": {
            "spatialIndexes": [{"path": "/loc/*", "types": ["Garbage"]}]}}),
        ("a unique key policy that is a string", {"partitionKey": PK, "uniqueKeyPolicy": {"uniqueKeys": "x"}}),
        ("a unique key with no paths", {"partitionKey": PK, "uniqueKeyPolicy": {"uniqueKeys": [{"paths": []}]}}),
        ("a computed property without a query", {"partitionKey": PK, "computedProperties": [{"name": "x"}]}),
        ("a computed property nested 100,000 deep", {"partitionKey": PK, "computedProperties": [{
            "name": "cp", "query": "SELECT VALUE " + "(" * 100_000 + "1" + ")" * 100_000 + " FROM c"}]}),
        ("a body that is not JSON", b"{nope"),
        ("a body that is an array", b"[]"),
    ]
    return [create_container(target, name, with_id(f"rc-def-{index}", definition))
            for index, (name, definition) in enumerate(definitions)]


def throughput_cases(target):
    headers_list = [
        ("manual throughput -400", {"x-ms-offer-throughput": "-400"}),
        ("manual throughput 'abc'", {"x-ms-offer-throughput": "abc"}),
        ("manual throughput 0", {"x-ms-offer-throughput": "0"}),
        ("manual throughput 399", {"x-ms-offer-throughput": "399"}),
        ("manual throughput 450", {"x-ms-offer-throughput": "450"}),
        ("manual throughput past 64 bits", {"x-ms-offer-throughput": "99999999999999999999"}),
        ("manual throughput 1e6 as a float", {"x-ms-offer-throughput": "1e6"}),
        ("manual and autoscale together", {"x-ms-offer-throughput": "400",
                                           "x-ms-cosmos-offer-autopilot-settings": '{"maxThroughput":4000}'}),
        ("autoscale 999", {"x-ms-cosmos-offer-autopilot-settings": '{"maxThroughput":999}'}),
        ("autoscale -1000", {"x-ms-cosmos-offer-autopilot-settings": '{"maxThroughput":-1000}'}),
        ("autoscale garbage", {"x-ms-cosmos-offer-autopilot-settings": "garbage"}),
        ("autoscale {}", {"x-ms-cosmos-offer-autopilot-settings": "{}"}),
        ("autoscale as a string", {"x-ms-cosmos-offer-autopilot-settings": '{"maxThroughput":"4000"}'}),
        ("autoscale nested 10,000 deep", {"x-ms-cosmos-offer-autopilot-settings": "[" * 10_000 + "]" * 10_000}),
    ]
    cases = []
    for index, (name, headers) in enumerate(headers_list):
        container_id = f"rc-throughput-{index}"
        cases.append(create_container(target, name, {"id": container_id, "partitionKey": PK}, headers=headers))
        if index in (0, 7, 8):  # the same headers on a database
            database_id = f"rd-throughput-{index}"
            cases.append(create_database(target, f"{name} on a database", to_json({"id": database_id}),
                                         headers=headers, database_id=database_id))
    return cases


def database_cases(target):
    return [create_database(target, name, body, database_id=database_id) for name, body, database_id in [
        ("a body that is not JSON", b"{nope", None),
        ("a body that is an array", b"[]", None),
        ("an id that is a number", to_json({"id": 5}), "5"),
        ("an empty id", to_json({"id": ""}), None),
        ("an id with '/'", to_json({"id": "rd/slash"}), "rd/slash"),
        ("an id of 256 characters", to_json({"id": "d" * 256}), "d" * 256),
        ("an id nested in 10,000 arrays", b'{"id":' + b"[" * 10_000 + b"]" * 10_000 + b"}", None),
    ]]


def replace_and_delete_cases(target):
    items = target.coll()
    current = {"id": target.items, "partitionKey": {"paths": ["/pk"], "kind": "Hash", "version": 2}}
    replace = lambda name, body, **fields: Case(  # noqa: E731
        f"container: {name}", group=GROUP, method="PUT", path=items, headers={"content-type": "application/json"},
        body=body, **fields)
    return [
        replace("a replace that changes the partition key", to_json({**current, "partitionKey": {
            "paths": ["/other"], "kind": "Hash", "version": 2}}), expect=400),
        replace("a replace with a body that is not JSON", b"{nope", expect=400),
        replace("a replace whose body names another container", to_json({**current, "id": "other"}), expect=400),
        replace("a replace with an indexing policy that is garbage", to_json({**current, "indexingPolicy": "x"}),
                expect=400),
        replace("a replace with defaultTtl 0", to_json({**current, "defaultTtl": 0}), expect=400),
        Case("container: a delete of a missing container", group=GROUP, method="DELETE",
             path=f"/dbs/{target.db}/colls/nope", expect=404),
        Case("offer: a replace of an offer that does not exist", group=GROUP, method="PUT", path="/offers/garbage",
             headers={"content-type": "application/json"}, body=b'{"content":{"offerThroughput":400}}'),
        Case("offer: a query that does not parse", group=GROUP, method="POST", path="/offers",
             headers={"x-ms-documentdb-isquery": "true", "content-type": "application/query+json"},
             body=to_json({"query": "SELEC * FORM c"}), expect=400),
        Case("partition key delete: a key that is not JSON", group=GROUP, method="POST",
             path=f"{target.coll(target.victim)}/operations/partitionkeydelete",
             headers={"x-ms-documentdb-partitionkey": "p", "content-type": "application/json"}, body=b""),
        Case("partition key delete: no key", group=GROUP, method="POST",
             path=f"{target.coll(target.victim)}/operations/partitionkeydelete",
             headers={"content-type": "application/json"}, body=b""),
        Case("partition key delete: a key nested 10,000 deep", group=GROUP, method="POST",
             path=f"{target.coll(target.victim)}/operations/partitionkeydelete",
             headers={"x-ms-documentdb-partitionkey": "[" * 10_000 + "]" * 10_000,
                      "content-type": "application/json"}, body=b""),
    ]


def cases(target, key):
    return (partition_key_cases(target) + definition_cases(target) + throughput_cases(target) +
            database_cases(target) + replace_and_delete_cases(target))
