"""Group 4, request bodies of item writes.

The service parses an item as one JSON object in UTF-8: anything else (not JSON, truncated, a
byte-order mark, another top-level type, invalid UTF-8, raw control characters) is 400. A
document may nest objects and arrays at most 128 levels deep (400 past that) and weigh at most
2 MB (413 past that; the HTTP layer refuses bodies past 16 MB the same way). The id must be a
non-empty string of at most 1,023 bytes (400 otherwise); '/', '\\', '?' and '#' in an id are
stored as the service stores them. A body on a GET is ignored. Refused writes write nothing.
"""
from corpus import create_case, item_is, nested, read_case, to_json

GROUP = "bodies"


def refused_item(target, name, body, item_id, expect=None, **fields):
    """A create that must be refused; `item_id` is what it would create if accepted."""
    return create_case(target, name, body, group=GROUP, expect=expect,
                       writes=((target.items, item_id),), **fields)


def answer_without_bom(response):
    """Accepting a body that starts with a byte-order mark is allowed; storing the mark is not."""
    if response.status == 201 and response.body.startswith(b"\xef\xbb\xbf"):
        return "201, but the stored document (the answer) still starts with the byte-order mark"
    return None


def deep_document(item_id, depth, opening="[", closing="]"):
    return ('{"id":"%s","pk":"p","v":' % item_id + nested(opening, closing, depth, "1" if opening == '{"a":' else "")
            + "}").encode()


def malformed_json_cases(target):
    cases = []
    for what, body in [
        ("not JSON", b"not json"),
        ("truncated JSON", b'{"id":"b-trunc","pk":"p"'),
        ("a UTF-16 body", '{"id":"b-utf16","pk":"p"}'.encode("utf-16")),
        ("a top-level array", b'[{"id":"b-array","pk":"p"}]'),
        ("a top-level string", b'"b-string"'),
        ("a top-level number", b"123"),
        ("a top-level null", b"null"),
        ("an empty body", b""),
        ("whitespace only", b"   \r\n\t "),
        ("two objects back to back", b'{"id":"b-two","pk":"p"}{"id":"b-two2","pk":"p"}'),
        ("trailing garbage after the object", b'{"id":"b-trailing","pk":"p"} garbage'),
        ("a trailing comma", b'{"id":"b-comma","pk":"p",}'),
        ("single quotes", b"{'id':'b-single','pk':'p'}"),
        ("a comment", b'{"id":"b-comment","pk":"p" /* hi */}'),
        ("NaN", b'{"id":"b-nan","pk":"p","v":NaN}'),
        ("Infinity", b'{"id":"b-inf","pk":"p","v":Infinity}'),
        ("invalid UTF-8 in a value", b'{"id":"b-utf8","pk":"p","s":"\xff\xfe"}'),
        ("invalid UTF-8 in the id", b'{"id":"b-\xc3","pk":"p"}'),
        ("an overlong UTF-8 slash in the id", b'{"id":"b-\xc0\xafx","pk":"p"}'),
        ("an encoded surrogate in raw UTF-8", b'{"id":"b-\xed\xa0\x80","pk":"p"}'),
        ("a raw NUL between tokens", b'{"id":"b-nul1",\x00"pk":"p"}'),
        ("a raw NUL inside a string", b'{"id":"b-nul2","pk":"p","s":"a\x00b"}'),
        ("a raw newline inside a string", b'{"id":"b-newline","pk":"p","s":"a\nb"}'),
        ("an invalid escape", b'{"id":"b-escape","pk":"p","s":"\\x41"}'),
        ("a truncated unicode escape", b'{"id":"b-uescape","pk":"p","s":"\\u12"}'),
    ]:
        item_id = body.split(b'"id":"', 1)[1].split(b'"', 1)[0].decode("utf-8", "replace") if b'"id":"' in body else ""
        cases.append(refused_item(target, f"body: {what}", body, item_id, expect=400))
    return cases


def size_and_depth_cases(target):
    return [
        refused_item(target, "body: arrays nested 200 deep (past the service's 128)", deep_document("b-deep200", 200),
                     "b-deep200", expect=400, note="the service allows 128 levels of nesting in a document"),
        refused_item(target, "body: arrays nested 10,000 deep", deep_document("b-deep10k", 10_000), "b-deep10k",
                     expect=400),
        refused_item(target, "body: arrays nested 1,000,000 deep", deep_document("b-deep1m", 1_000_000), "b-deep1m",
                     expect=400),
        refused_item(target, "body: objects nested 10,000 deep", deep_document("b-obj10k", 10_000, '{"a":', "}"),
                     "b-obj10k", expect=400),
        refused_item(target, "body: objects nested 300,000 deep", deep_document("b-obj300k", 300_000, '{"a":', "}"),
                     "b-obj300k", expect=400),
        refused_item(target, "body: a 3 MB string", to_json({"id": "b-3mb", "pk": "p", "s": "x" * 3 * 1024 * 1024}),
                     "b-3mb", expect=413),
        refused_item(target, "body: 2 MB and 16 bytes",
                     to_json({"id": "b-2mb", "pk": "p", "s": "x" * (2 * 1024 * 1024)}), "b-2mb", expect=413),
        refused_item(target, "body: 17 MB, past the HTTP body limit",
                     to_json({"id": "b-17mb", "pk": "p", "s": "x" * 17 * 1024 * 1024}), "b-17mb", expect=413),
        refused_item(target, "body: a 3 MB replace", to_json({"id": "d3", "pk": "p", "s": "x" * 3 * 1024 * 1024}),
                     "d3", expect=413, method="PUT", path=target.doc("d3")),
        refused_item(target, "body: 300,000 tiny properties (past 2 MB)",
                     to_json({"id": "b-props", "pk": "p", **{f"p{i}": 1 for i in range(300_000)}}), "b-props",
                     expect=413),
    ]


def id_cases(target):
    cases = []
    for what, value, item_id in [
        ("1,024 bytes long", "x" * 1024, "x" * 1024),
        ("512 two-byte characters (1,024 bytes)", "é" * 512, "é" * 512),
        ("10 KB long", "y" * 10_240, "y" * 10_240),
        ("empty", "", ""),
        ("a number", 5, "5"),
        ("null", None, "null"),
        ("true", True, "true"),
        ("an object", {"a": 1}, ""),
        ("an array", ["b-id-array"], "b-id-array"),
    ]:
        cases.append(refused_item(target, f"id {what}", to_json({"id": value, "pk": "p"}), item_id, expect=400))
    cases.append(refused_item(target, "id missing", to_json({"pk": "p", "v": "no id"}), "", expect=400))
    # Stored, as the service stores them (the JavaScript conformance suite checks the same).
    for what, item_id in [("a slash", "b/slash"), ("a backslash", "b\\back"), ("a question mark", "b?q"),
                          ("a hash", "b#h")]:
        cases.append(create_case(target, f"id with {what} (stored: 201)", to_json({"id": item_id, "pk": "p"}),
                                 group=GROUP, expect=201, writes=((target.items, item_id),)))
    cases.append(create_case(target, "a byte-order mark before the object", b'\xef\xbb\xbf{"id":"b-bom","pk":"p"}',
                             group=GROUP, expect=(201, 400), check=answer_without_bom,
                             writes=((target.items, "b-bom"),)))
    cases.append(create_case(target, "id with an escaped NUL", to_json({"id": "b\u0000nul", "pk": "p"}),
                             group=GROUP, expect=(201, 400), writes=((target.items, "b\u0000nul"),)))
    cases.append(create_case(target, "a value with an escaped NUL (valid JSON: 201)",
                             to_json({"id": "b-escaped-nul", "pk": "p", "s": "a\u0000b"}), group=GROUP, expect=201,
                             writes=((target.items, "b-escaped-nul"),)))
    cases.append(create_case(target, "a lone surrogate escape", b'{"id":"b-surrogate","pk":"p","s":"\\ud800"}',
                             group=GROUP, expect=(201, 400), writes=((target.items, "b-surrogate"),)))
    cases.append(create_case(target, "duplicate id keys", b'{"id":"b-dup1","id":"b-dup2","pk":"p"}', group=GROUP,
                             expect=(201, 400), writes=((target.items, "b-dup1"), (target.items, "b-dup2"))))
    cases.append(refused_item(target, "duplicate partition key properties disagreeing with the header",
                              b'{"id":"b-duppk","pk":"q","pk":"q"}', "b-duppk", expect=400))
    cases.append(create_case(target, "a number past double range", b'{"id":"b-huge-number","pk":"p","v":1e400}',
                             group=GROUP, expect=(201, 400), writes=((target.items, "b-huge-number"),)))
    return cases


def other_write_cases(target):
    replace = {"method": "PUT", "path": target.doc("d3")}
    return [
        # (A replace whose body names another id renames the item, as the service does: the SDK suites test it.)
        refused_item(target, "replace with a body that is not JSON", b"{nope", "d3", expect=400, **replace),
        refused_item(target, "replace with a top-level array", b"[]", "d3", expect=400, **replace),
        refused_item(target, "upsert of a body that is not JSON", b"{nope", "", expect=400,
                     headers={"x-ms-documentdb-is-upsert": "true"}),
        refused_item(target, "create whose partition key disagrees with the header",
                     to_json({"id": "b-mismatch", "pk": "q"}), "b-mismatch", expect=400),
        refused_item(target, "create without a partition key header", to_json({"id": "b-nopk", "pk": "p"}), "b-nopk",
                     pk=None, expect=400),
        refused_item(target, "create in the hierarchical container with a prefix key",
                     to_json({"id": "b-prefix", "tenant": "t", "user": "u"}), "b-prefix", pk=("t",),
                     coll=target.hier, expect=400),
    ]


def body_on_get_cases(target):
    return [
        read_case(target, "a body on a GET is ignored", group=GROUP, body=to_json({"id": "other"}),
                  content_length=len(to_json({"id": "other"})), expect=200, check=item_is("d0")),
        read_case(target, "a 5 MB body on a GET", group=GROUP, body=b"x" * 5 * 1024 * 1024, expect=(200, 413)),
    ]


def cases(target, key):
    return (malformed_json_cases(target) + size_and_depth_cases(target) + id_cases(target) +
            other_write_cases(target) + body_on_get_cases(target))
