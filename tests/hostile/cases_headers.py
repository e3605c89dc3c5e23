"""Group 3, request headers.

The service answers 400 for a header it cannot read: x-ms-max-item-count that is not -1 or a
positive integer, a partition key that is not a JSON array of as many values as the container's
key has paths (a prefix only where a query allows it, values of at most 2 KB), a consistency level
that is not one of the five or is stronger than the account's, an x-ms-version it does not know,
a session token or continuation token it did not issue. A precondition (If-Match) that does not
match is 412, a content type it cannot read 415. Whitespace around a header value is HTTP's and
is stripped, so " 5" is 5. The headers together may take 64 KB; past that the request is 400
(or 431), below it any number of unknown headers is ignored.
"""
from corpus import Case, create_case, nested, pk_header, query_case, read_case, to_json

GROUP = "headers"


def feed_read(target, name, headers, **fields):
    return Case(name, group=GROUP, method="GET", path=target.docs(), headers={**pk_header("p"), **headers}, **fields)


def max_item_count_cases(target):
    found = []
    for value in ["abc", "-5", "-2", "0", "99999999999999999999", "5.5", "0x10", "+5", "5 5", "1e3", "５", "5,5"]:
        found.append(feed_read(target, f"x-ms-max-item-count {value!r} on the read feed",
                               {"x-ms-max-item-count": value}, expect=400))
    found.append(query_case(target, "x-ms-max-item-count 'ten' on a query", "SELECT * FROM c",
                            headers={"x-ms-max-item-count": "ten"}, group=GROUP, expect=400))
    for value in [" 5", "5 "]:
        found.append(feed_read(target, f"x-ms-max-item-count {value!r} (HTTP strips the whitespace: 200)",
                               {"x-ms-max-item-count": value}, expect=200))
    return found


def partition_key_values():
    """(what, header value) of partition keys that cannot address an item of a /pk container."""
    return [
        ("not JSON", "p"),
        ("a truncated array", "[p"),
        ("an unterminated string", '["p'),
        ("a JSON object", '{"a":1}'),
        ("a JSON string", '"p"'),
        ("true", "true"),
        ("a nested array", '[["p"]]'),
        ("an object component", '[{"a":1}]'),
        ("arrays nested 1,000 deep", nested("[", "]", 1000)),
        ("arrays nested 20,000 deep", nested("[", "]", 20_000)),
        ("two components for one path", '["p","q"]'),
        ("5,000 components", to_json(["p"] * 5000).decode()),
        ("a number past double range", "[1e400]"),
        ("NaN", "[NaN]"),
        ("a trailing comma", '["p",]'),
        ("a 60 KB value", '["' + "k" * 60_000 + '"]'),
        ("invalid UTF-8", b'["\xff\xfe"]'),
        ("an escaped NUL", '["p\\u0000"]'),
        ("an empty array", "[]"),
        ("null", "[null]"),
    ]


def partition_key_cases(target):
    found = []
    for what, value in partition_key_values():
        found.append(read_case(target, f"partition key {what} on a point read", pk=None,
                               headers={"x-ms-documentdb-partitionkey": value}, group=GROUP))
    found.append(create_case(target, "partition key not JSON on a create", to_json({"id": "hdr-pk-create", "pk": "p"}),
                             pk=None, headers={"x-ms-documentdb-partitionkey": "p"}, group=GROUP, expect=400,
                             writes=((target.items, "hdr-pk-create"),)))
    found.append(create_case(target, "partition key of two components on a create",
                             to_json({"id": "hdr-pk-two", "pk": "p"}), pk=("p", "q"), group=GROUP, expect=400,
                             writes=((target.items, "hdr-pk-two"),)))
    found.append(query_case(target, "partition key garbage on a query", "SELECT * FROM c", pk=None,
                            headers={"x-ms-documentdb-partitionkey": "garbage"}, group=GROUP, expect=400))
    # The hierarchical container: a point operation needs the full key; at most three components.
    for what, value in [
        ("a prefix", '["t"]'),
        ("three components for two paths", '["t","u","x"]'),
        ("four components", '["t","u","x","y"]'),
        ("nested components", '[["t"],["u"]]'),
    ]:
        found.append(read_case(target, f"hierarchical partition key {what} on a point read", item_id="h0", pk=None,
                               coll=target.hier, headers={"x-ms-documentdb-partitionkey": value}, group=GROUP))
    found.append(Case("two x-ms-documentdb-partitionkey headers", group=GROUP, path=target.doc("d0"),
                      extra_headers=[("x-ms-documentdb-partitionkey", '["p"]'),
                                     ("x-ms-documentdb-partitionkey", '["q"]')],
                      note="HTTP joins repeated headers with commas: '[\"p\"],[\"q\"]' is not JSON"))
    return found


def range_and_epk_cases(target):
    found = []
    for value in ["abc", "-1", "99999", "0,1", '{"a":1}', "99999999999999999999"]:
        found.append(query_case(target, f"x-ms-documentdb-partitionkeyrangeid {value[:24]!r} on a query",
                                "SELECT * FROM c", pk=None, cross=True, group=GROUP,
                                headers={"x-ms-documentdb-partitionkeyrangeid": value}))
    found.append(feed_read(target, "x-ms-documentdb-partitionkeyrangeid 'abc' on the read feed",
                           {"x-ms-documentdb-partitionkeyrangeid": "abc", "x-ms-documentdb-partitionkey": None}))
    for what, start, end in [
        ("not hex", "zz", "FF"),
        ("10 KB long", "A" * 10_000, "FF"),
    ]:
        found.append(query_case(target, f"x-ms-start-epk/x-ms-end-epk {what}", "SELECT * FROM c", pk=None, cross=True,
                                headers={"x-ms-start-epk": start, "x-ms-end-epk": end,
                                         "x-ms-documentdb-partitionkeyrangeid": "0"}, group=GROUP,
                                expect=(200, 400), note="SDK-internal headers: any answer but a crash"))
    return found


def misc_header_cases(target):
    read = lambda name, headers, **fields: read_case(target, name, headers=headers, group=GROUP, **fields)  # noqa: E731
    found = [
        read("x-ms-consistency-level garbage", {"x-ms-consistency-level": "Garbage"}, expect=400),
        read("x-ms-consistency-level Strong on a Session account", {"x-ms-consistency-level": "Strong"}, expect=400),
        read("x-ms-consistency-level two levels", {"x-ms-consistency-level": "Session,Eventual"}, expect=400),
        read("x-ms-consistency-level 10 KB", {"x-ms-consistency-level": "E" * 10_000}, expect=400),
        read("x-ms-session-token garbage", {"x-ms-session-token": "garbage"}, expect=400),
        read("x-ms-session-token with a non-numeric LSN", {"x-ms-session-token": "0:-1#abc"}, expect=400),
        read("x-ms-version garbage", {"x-ms-version": "garbage"}, expect=400),
        read("x-ms-version from the far future", {"x-ms-version": "9999-12-31"}, expect=400),
        read("x-ms-cosmos-intended-collection-rid garbage", {"x-ms-cosmos-intended-collection-rid": "garbage"},
             expect=400),
        read("a 62 KB unknown header (under the limit: served)", {"x-junk": "j" * 62_000}, expect=200),
        read("a 70 KB unknown header (past the limit)", {"x-junk": "j" * 70_000}),
        read("x-ms-activity-id of 10 KB", {"x-ms-activity-id": "a" * 10_000}, expect=(200, 400)),
        read("a header value with a raw NUL byte", {"x-ms-consistency-level": b"Session\x00Strong"}),
        read("a header value with a raw DEL and controls", {"x-junk": b"\x7f\x01\x02"}),
        read("a header name with a space", {"x junk": "1"}),
        read("a header name of 10 KB", {"x-" + "n" * 10_000: "1"}, expect=(200, 400, 431)),
    ]
    found.append(Case("1,000 unknown headers (24 KB: served)", group=GROUP, path=target.doc("d0"),
                      headers=pk_header("p"), extra_headers=[(f"x-junk-{i}", "value") for i in range(1000)],
                      expect=200))
    found.append(Case("10,000 unknown headers (past the limit)", group=GROUP, path=target.doc("d0"),
                      headers=pk_header("p"), extra_headers=[(f"x-junk-{i}", "value") for i in range(10_000)]))
    found.append(Case("two authorization headers, one garbage", group=GROUP, path=target.doc("d0"),
                      headers=pk_header("p"), extra_headers=[("authorization", "garbage")], expect=401))
    found.append(create_case(target, "content-type text/plain on a create", to_json({"id": "hdr-text", "pk": "p"}),
                             headers={"content-type": "text/plain"}, group=GROUP, writes=((target.items, "hdr-text"),)))
    found.append(create_case(target, "content-type of 10 KB on a create", to_json({"id": "hdr-ct-long", "pk": "p"}),
                             headers={"content-type": "application/" + "x" * 10_000}, group=GROUP,
                             writes=((target.items, "hdr-ct-long"),)))
    found.append(query_case(target, "content-type application/xml on a query", "SELECT * FROM c",
                            headers={"content-type": "application/xml"}, group=GROUP, expect=415))
    return found


def precondition_cases(target):
    replace_body = to_json({"id": "d1", "pk": "p", "n": 1, "replaced": True})
    found = []
    for what, value in [
        ("garbage", "garbage"),
        ("a zero etag", '"00000000-0000-0000-0000-000000000000"'),
        ("a list with garbage", '*,"garbage"'),
        ("60 KB", '"' + "e" * 60_000 + '"'),
        ("with invalid UTF-8", b'"\xff\xfe"'),
    ]:
        found.append(Case(f"If-Match {what} on a replace", group=GROUP, method="PUT", path=target.doc("d1"),
                          headers={**pk_header("p"), "content-type": "application/json", "if-match": value},
                          body=replace_body, expect=412))
    found.append(Case("If-Match garbage on a delete", group=GROUP, method="DELETE", path=target.doc("d2"),
                      headers={**pk_header("p"), "if-match": "garbage"}, expect=412))
    found.append(Case("If-Match garbage on a patch", group=GROUP, method="PATCH", path=target.doc("d0"),
                      headers={**pk_header("p"), "content-type": "application/json", "if-match": "garbage"},
                      body=to_json({"operations": [{"op": "set", "path": "/x", "value": 1}]}), expect=412))
    found.append(Case("If-Match garbage on a container delete", group=GROUP, method="DELETE",
                      path=target.coll(target.victim), headers={"if-match": "garbage"}, expect=412))
    found.append(Case("If-Match garbage on a database delete", group=GROUP, method="DELETE",
                      path=f"/dbs/{target.victim_db}", headers={"if-match": "garbage"}, expect=412))
    return found


def continuation_values():
    """(what, token) of continuation tokens this server never issued."""
    return [
        ("random text", "not a continuation token"),
        ("a lone brace", "{"),
        ("null", "null"),
        ("an empty array", "[]"),
        ("a number", "123"),
        ("a JSON string", '"text"'),
        ("an object without a kind", '{"v":1}'),
        ("a streaming token without ranges", '{"v":1,"k":"s"}'),
        ("arrays nested 4,000 deep", nested("[", "]", 4000)),
        ("objects nested 4,000 deep", nested('{"a":', "}", 4000, "1")),
        ("arrays nested 20,000 deep", nested("[", "]", 20_000)),
        ("a skip of 1e309", '{"v":1,"k":"s","p":[1,"","FF"],"r":0,"n":1e309}'),
        ("a negative skip", '{"v":1,"k":"s","p":[1,"","FF"],"r":0,"n":-1}'),
        ("a range index past 64 bits", '{"v":1,"k":"s","p":[1,"","FF"],"r":99999999999999999999,"n":0}'),
        ("ranges of the wrong type", '{"v":1,"k":"s","p":"everything","r":0,"n":0}'),
        ("an inverted range", '{"v":1,"k":"s","p":[1,"FF",""],"r":0,"n":0}'),
        ("an ORDER BY token of a huge skip", '{"v":1,"k":"m","s":18446744073709551615}'),
        ("60 KB of letters", "A" * 60_000),
        ("invalid UTF-8", b"\xff\xfe{"),
        ("base64 of garbage", "eyJnYXJiYWdlIjp0cnVlfQ=="),
    ]


def continuation_cases(target):
    found = []
    for what, token in continuation_values():
        found.append(query_case(target, f"continuation {what} on a query", "SELECT * FROM c", group=GROUP,
                                headers={"x-ms-continuation": token, "x-ms-max-item-count": "1"}))
    for what, token in [("random text", "garbage"), ("arrays nested 4,000 deep", nested("[", "]", 4000)),
                        ("a negative offset", '{"v":1,"k":"f","n":-1}')]:
        found.append(feed_read(target, f"continuation {what} on the read feed", {"x-ms-continuation": token}))
    found.append(feed_read(target, "change feed from an If-None-Match etag that is garbage",
                           {"a-im": "Incremental feed", "if-none-match": "garbage"}))
    found.append(feed_read(target, "change feed from an If-Modified-Since that is garbage",
                           {"a-im": "Incremental feed", "if-modified-since": "yesterday"}))
    found += borrowed_continuation_cases(target)
    return found


def borrowed_continuation_cases(target):
    """Real tokens, taken at run time from one query and offered to another of another shape."""
    streaming = "SELECT * FROM c"
    ordered = "SELECT * FROM c ORDER BY c.n"

    def borrowing(name, text, from_query):
        case = query_case(target, name, text, group=GROUP, headers={"x-ms-max-item-count": "1"}, expect=400)
        case.prepare = lambda runner: runner.continuation_header(from_query)
        return case

    return [
        borrowing("a streaming query's continuation on an ORDER BY query", ordered, streaming),
        borrowing("an ORDER BY query's continuation on a streaming query", streaming, ordered),
        borrowing("an ORDER BY query's continuation on a GROUP BY query",
                  "SELECT c.n FROM c GROUP BY c.n", ordered),
        borrowing("a streaming query's continuation on a DISTINCT query", "SELECT DISTINCT c.n FROM c", streaming),
    ]


INVALID_UTF8 = b"\xff\xfe\xc3"


def invalid_utf8_cases(target):
    """Bytes that are not UTF-8 in a header the server may quote back in its error message (or
    echo in a header): the answer must still be a JSON error, which cannot hold them as they are."""
    bad = INVALID_UTF8
    found = [read_case(target, f"invalid UTF-8 in {name} on a point read", headers={name: value}, group=GROUP,
                       expect=expect)
             for name, value, expect in [
                 ("x-ms-max-item-count", bad, (200, 400)),  # a point read has no use for it
                 ("x-ms-consistency-level", bad, 400),
                 ("x-ms-session-token", bad, 400),
                 ("x-ms-version", bad, 400),
                 ("x-ms-cosmos-intended-collection-rid", bad, 400),
                 ("a-im", bad, (200, 400)),
                 ("x-ms-activity-id", bad, (200, 400)),
             ]]
    found.append(read_case(target, "invalid UTF-8 in x-ms-activity-id on a read that fails", item_id="nope",
                           headers={"x-ms-activity-id": bad}, group=GROUP))
    found.append(feed_read(target, "invalid UTF-8 in x-ms-max-item-count on the read feed",
                           {"x-ms-max-item-count": bad}, expect=400))
    found.append(create_case(target, "invalid UTF-8 in the partition key of a create",
                             to_json({"id": "u8-create", "pk": "p"}),
                             pk=None, headers={"x-ms-documentdb-partitionkey": b'["' + bad + b'"]'}, group=GROUP,
                             writes=((target.items, "u8-create"),)))
    found.append(create_case(target, "invalid UTF-8 in the content-type of a create",
                             to_json({"id": "u8-ct", "pk": "p"}),
                             headers={"content-type": b"application/" + bad}, group=GROUP,
                             writes=((target.items, "u8-ct"),)))
    found.append(query_case(target, "invalid UTF-8 in the partition key of a query", "SELECT * FROM c", pk=None,
                            headers={"x-ms-documentdb-partitionkey": b'["' + bad + b'"]'}, group=GROUP,
                            expect=(200, 400)))
    found.append(query_case(target, "invalid UTF-8 in the content-type of a query", "SELECT * FROM c",
                            headers={"content-type": b"application/" + bad}, group=GROUP))
    found.append(query_case(target, "invalid UTF-8 in x-ms-documentdb-partitionkeyrangeid", "SELECT * FROM c",
                            pk=None, cross=True, headers={"x-ms-documentdb-partitionkeyrangeid": bad}, group=GROUP))
    found.append(query_case(target, "invalid UTF-8 in x-ms-start-epk", "SELECT * FROM c", pk=None, cross=True,
                            headers={"x-ms-start-epk": bad, "x-ms-end-epk": "FF",
                                     "x-ms-documentdb-partitionkeyrangeid": "0"}, group=GROUP, expect=(200, 400)))
    found.append(Case("invalid UTF-8 in the partition key of a patch", group=GROUP, method="PATCH",
                      path=target.doc("d0"), body=to_json({"operations": [{"op": "set", "path": "/x", "value": 1}]}),
                      headers={"x-ms-documentdb-partitionkey": b'["' + bad + b'"]',
                               "content-type": "application/json"}))
    found.append(Case("invalid UTF-8 in the partition key of a batch", group=GROUP, method="POST",
                      path=target.docs(), body=to_json([{"operationType": "Create",
                                                         "resourceBody": {"id": "u8-batch", "pk": "p"}}]),
                      headers={"x-ms-documentdb-partitionkey": b'["' + bad + b'"]',
                               "x-ms-cosmos-is-batch-request": "true", "x-ms-cosmos-batch-atomic": "true",
                               "content-type": "application/json"}, writes=((target.items, "u8-batch"),)))
    for header in ("x-ms-offer-throughput", "x-ms-cosmos-offer-autopilot-settings"):
        container_id = "u8-" + header[-10:]
        found.append(Case(f"invalid UTF-8 in {header} of a container create", group=GROUP, method="POST",
                          path=f"/dbs/{target.db}/colls", headers={header: bad, "content-type": "application/json"},
                          body=to_json({"id": container_id, "partitionKey": {"paths": ["/pk"]}}), expect=400,
                          writes=(("colls", container_id),)))
    found.append(read_case(target, "invalid UTF-8 in the authorization type", sign=False, group=GROUP,
                           headers={"authorization": "type%3D%FF%FE%26ver%3D1.0%26sig%3DAAAA"}, expect=401))
    found.append(read_case(target, "invalid UTF-8 in the authorization version", sign=False, group=GROUP,
                           headers={"authorization": "type%3Dmaster%26ver%3D%FF%FE%26sig%3DAAAA"}, expect=401))
    found.append(Case("a wrong signature for an item id that is not UTF-8", group=GROUP,
                      path=target.docs() + "/%FF%FE", headers=pk_header("p"), sign_key=DIFFERENT_KEY, expect=401))
    found.append(Case("a wrong signature for a database id that is not UTF-8", group=GROUP,
                      path="/dbs/%C3%28", sign_key=DIFFERENT_KEY, expect=401))
    return found


DIFFERENT_KEY = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="


def cases(target, key):
    return (max_item_count_cases(target) + partition_key_cases(target) + range_and_epk_cases(target) +
            misc_header_cases(target) + precondition_cases(target) + continuation_cases(target) +
            invalid_utf8_cases(target))
