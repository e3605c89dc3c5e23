"""Group 1, authentication.

The service answers 401 when the authorization header is missing, malformed, of a type it does
not serve (cosmolite serves master keys only: AAD and resource tokens are 401), or does not match
the request (wrong key, verb, resource type or link, or an x-ms-date it cannot parse); and 403
when a correctly signed x-ms-date is more than 15 minutes away from the server's clock. A refused
write writes nothing.
"""
import base64
import os
import urllib.parse

from corpus import Case, create_case, read_case, to_json

GROUP = "auth"


def token(text):
    return urllib.parse.quote(text, safe="")


def random_key():
    return base64.b64encode(os.urandom(64)).decode()


def garbled_authorizations():
    """(what, header value) pairs that are not a usable master-key token."""
    return [
        ("empty", ""),
        ("a single space", " "),
        ("plain garbage", "garbage"),
        ("an invalid percent escape", "%ZZ"),
        ("a lone percent sign", "%"),
        ("no signature", token("type=master&ver=1.0")),
        ("an empty signature", token("type=master&ver=1.0&sig=")),
        ("a signature that is not base64", token("type=master&ver=1.0&sig=!!!not-base64!!!")),
        ("a short base64 signature", token("type=master&ver=1.0&sig=AAAA")),
        ("no type", token("ver=1.0&sig=" + "A" * 44)),
        ("version 2.0", token("type=master&ver=2.0&sig=" + "A" * 44)),
        ("type=aad with a bearer token", token("type=aad&ver=1.0&sig=eyJhbGciOiJub25lIn0.e30.")),
        ("type=resource with a resource token", token("type=resource&ver=1.0&sig=" + "A" * 44)),
        ("an unknown type", token("type=unknown&ver=1.0&sig=" + "A" * 44)),
        ("Type=Master in capitals", token("Type=Master&Ver=1.0&Sig=" + "A" * 44)),
        ("type given twice, master then aad", token("type=master&type=aad&ver=1.0&sig=" + "A" * 44)),
        ("fields without '='", token("type&ver&sig")),
        ("a 10 KB signature", token("type=master&ver=1.0&sig=" + "A" * 10_000)),
        ("a 60 KB header", "A" * 60_000),
        ("NUL bytes percent-encoded", token("type=master\0&ver=1.0&sig=" + "A" * 44)),
        ("a Bearer token", "Bearer eyJhbGciOiJub25lIn0.e30."),
        ("HTTP Basic credentials", "Basic " + base64.b64encode(b"user:pass").decode()),
    ]


def truncated_valid_token(target, key):
    """The first half of a correct signature of the seeded item read."""
    from wire import http_date, master_key_authorization, signing_target
    resource_type, link = signing_target(target.doc("d0"))
    full = master_key_authorization(key, "GET", resource_type, link, http_date())
    return full[: len(full) // 2]


def cases(target, key):
    found = []
    read = lambda name, **fields: read_case(target, name, group=GROUP, **fields)  # noqa: E731

    found.append(read("no authorization header", sign=False, expect=401))
    for what, value in garbled_authorizations():
        found.append(read(f"authorization: {what}", sign=False, headers={"authorization": value}, expect=401))
    found.append(read("authorization: a correct token cut in half", sign=False,
                      headers={"authorization": truncated_valid_token(target, key)}, expect=401))

    # A well-formed token that signs something else.
    found.append(read("signed with another key", sign_key=random_key(), expect=401))
    found.append(read("signed for another verb (post)", sign_verb="POST", expect=401))
    found.append(read("signed for another resource type (colls)", sign_type="colls", expect=401))
    found.append(read("signed for another item", sign_link=f"dbs/{target.db}/colls/{target.items}/docs/d1",
                      expect=401))
    found.append(read("signed for the link in upper case", sign_link=f"DBS/{target.db}/COLLS/{target.items}/DOCS/D0",
                      expect=401))
    found.append(read("signed for the feed instead of the item", sign_type="docs",
                      sign_link=f"dbs/{target.db}/colls/{target.items}", expect=401))

    # Dates: correctly signed but far off the server's clock (403), or unreadable (401).
    found.append(read("x-ms-date 20 minutes in the past", date_offset=-20 * 60, expect=403))
    found.append(read("x-ms-date 20 minutes in the future", date_offset=20 * 60, expect=403))
    found.append(read("x-ms-date in 1970", date="Thu, 01 Jan 1970 00:00:00 GMT", expect=403))
    found.append(read("x-ms-date in the year 9999", date="Fri, 31 Dec 9999 23:59:59 GMT", expect=403))
    for what, date in [
        ("unparseable", "yesterday at noon"),
        ("empty", ""),
        ("day 32", "Tue, 32 Nov 2022 08:12:31 GMT"),
        ("hour 25", "Tue, 01 Nov 2022 25:12:31 GMT"),
        ("a month that does not exist", "Tue, 01 Foo 2022 08:12:31 GMT"),
        ("a year past 32 bits", "Tue, 01 Nov 99999999999 08:12:31 GMT"),
        ("a negative day", "Tue, -5 Nov 2022 08:12:31 GMT"),
        ("in PST", "Tue, 01 Nov 2022 08:12:31 PST"),
        ("ISO 8601", "2022-11-01T08:12:31Z"),
        ("10 KB long", "Tue, 01 Nov 2022 08:12:31 GMT" + " " * 10_000 + "x"),
    ]:
        found.append(read(f"x-ms-date {what}", date=date, expect=(401, 403)))
    found.append(read("no x-ms-date and no Date header", headers={"x-ms-date": None}, expect=401))

    # Refused writes write nothing.
    found.append(create_case(target, "create signed with another key", to_json({"id": "auth-wrong-key", "pk": "p"}),
                             group=GROUP, sign_key=random_key(), expect=401,
                             writes=((target.items, "auth-wrong-key"),)))
    found.append(create_case(target, "create without authorization", to_json({"id": "auth-unsigned", "pk": "p"}),
                             group=GROUP, sign=False, expect=401, writes=((target.items, "auth-unsigned"),)))
    found.append(create_case(target, "create with a stale x-ms-date", to_json({"id": "auth-stale", "pk": "p"}),
                             group=GROUP, date_offset=-3600, expect=403, writes=((target.items, "auth-stale"),)))
    found.append(Case("delete signed with another key", group=GROUP, method="DELETE", path=target.doc("d1"),
                      headers={"x-ms-documentdb-partitionkey": '["p"]'}, sign_key=random_key(), expect=401))
    found.append(Case("delete signed as a GET", group=GROUP, method="DELETE", path=target.doc("d1"),
                      headers={"x-ms-documentdb-partitionkey": '["p"]'}, sign_verb="GET", expect=401))
    found.append(Case("delete the database without authorization", group=GROUP, method="DELETE",
                      path=f"/dbs/{target.victim_db}", sign=False, expect=401))
    return found
