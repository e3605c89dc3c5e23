"""The change feed through query_items_change_feed: latest version from the beginning, now, a point in
time and a continuation; scopes of a partition key, a hierarchical prefix, a feed range and a
partition key range id; paging; all versions and deletes (create, replace, delete, TTL expiry)."""
import time
from datetime import datetime, timedelta, timezone

import cosmos_support as cs


def continuation_of(container):
    token = container.client_connection.last_response_headers.get("etag")
    assert token, "the change feed gave no continuation (etag)"
    return token


def seed(container, count):
    for i in range(count):
        container.create_item({"id": f"d{i}", "pk": f"p{i % 5}", "n": i})


def ns(rows):
    return sorted(r["n"] for r in rows)


def test_empty_container(container):
    assert list(container.query_items_change_feed()) == []
    continuation_of(container)
    assert list(container.query_items_change_feed(start_time="Beginning")) == []
    continuation_of(container)


def test_from_beginning_every_item_once_in_its_latest_version(container4):
    seed(container4, 12)
    container4.upsert_item({"id": "d3", "pk": "p3", "n": 103})
    rows = list(container4.query_items_change_feed(start_time="Beginning", max_item_count=4))
    assert ns(rows) == [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 103]
    for row in rows:
        assert isinstance(row.get("_lsn"), int), f"_lsn missing or not a number: {row}"
        cs.system_properties_ok(row, "change feed row")


def test_changes_of_one_partition_key_come_in_modification_order(container4):
    for i in range(6):
        container4.upsert_item({"id": f"o{i}", "pk": "same", "n": i})
    container4.upsert_item({"id": "o1", "pk": "same", "n": 100})
    rows = list(container4.query_items_change_feed(start_time="Beginning", partition_key="same"))
    assert [r["n"] for r in rows] == [0, 2, 3, 4, 5, 100]
    lsns = [r["_lsn"] for r in rows]
    assert lsns == sorted(lsns), lsns


def test_continuation_returns_only_later_changes_and_no_deletes(container4):
    seed(container4, 10)
    assert len(list(container4.query_items_change_feed(start_time="Beginning"))) == 10
    token = continuation_of(container4)
    container4.replace_item("d2", {"id": "d2", "pk": "p2", "n": 202})
    container4.create_item({"id": "new", "pk": "p9", "n": 99})
    container4.delete_item("d4", "p4")
    rows = list(container4.query_items_change_feed(continuation=token))
    assert ns(rows) == [99, 202]
    token = continuation_of(container4)
    assert list(container4.query_items_change_feed(continuation=token)) == []


def test_start_from_now_and_from_a_point_in_time(container):
    seed(container, 3)
    assert list(container.query_items_change_feed(start_time="Now")) == []
    now_token = continuation_of(container)
    time.sleep(1.1)  # _ts has one-second resolution
    since = datetime.now(timezone.utc)
    time.sleep(1.1)
    container.create_item({"id": "late", "pk": "p1", "n": 500})
    assert ns(container.query_items_change_feed(continuation=now_token)) == [500]
    assert ns(container.query_items_change_feed(start_time=since)) == [500]
    assert list(container.query_items_change_feed(start_time=since + timedelta(hours=1))) == []


def test_scopes_partition_key_and_feed_ranges(container4):
    seed(container4, 15)
    assert ns(container4.query_items_change_feed(start_time="Beginning", partition_key="p1")) == [1, 6, 11]
    ranges = list(container4.read_feed_ranges())
    assert len(ranges) == 4
    seen = []
    for feed_range in ranges:
        seen.extend(container4.query_items_change_feed(start_time="Beginning", feed_range=feed_range))
    assert ns(seen) == list(range(15))
    key_range = container4.feed_range_from_partition_key("p2")
    assert ns(container4.query_items_change_feed(start_time="Beginning", feed_range=key_range)) == [2, 7, 12]


def test_partition_key_range_id_scope(container):
    seed(container, 4)
    rows = list(container.query_items_change_feed(start_time="Beginning", partition_key_range_id="0"))
    assert ns(rows) == [0, 1, 2, 3]
    token = continuation_of(container)
    container.create_item({"id": "x", "pk": "p0", "n": 40})
    assert ns(container.query_items_change_feed(partition_key_range_id="0", continuation=token)) == [40]


def test_hierarchical_prefix_scope(make_container):
    container = make_container(pk=["/t", "/u"], partitions=4)
    for i in range(6):
        container.create_item({"id": f"h{i}", "t": f"t{i % 2}", "u": f"u{i}", "n": i})
    assert ns(container.query_items_change_feed(start_time="Beginning", partition_key=["t1"])) == [1, 3, 5]
    assert ns(container.query_items_change_feed(start_time="Beginning", partition_key=["t0", "u2"])) == [2]


def test_pages_follow_max_item_count(container):
    for i in range(7):
        container.create_item({"id": f"d{i}", "pk": "p", "n": i})
    pages = [list(page) for page in container.query_items_change_feed(start_time="Beginning",
                                                                      max_item_count=3).by_page()]
    pages = [p for p in pages if p]
    assert [len(p) for p in pages] == [3, 3, 1], [len(p) for p in pages]
    assert [r["n"] for p in pages for r in p] == list(range(7))


def test_checkpoint_and_restart_sees_every_change(container4):
    seen = {}
    token = None
    written = 0
    for _ in range(4):
        for _ in range(5):
            container4.upsert_item({"id": f"w{written % 7}", "pk": f"p{written % 3}", "v": written})
            written += 1
        if token is None:
            rows = list(container4.query_items_change_feed(start_time="Beginning", max_item_count=3))
        else:
            rows = list(container4.query_items_change_feed(continuation=token, max_item_count=3))
        for row in rows:
            key = (row["id"], row["pk"])
            seen[key] = max(seen.get(key, -1), row["v"])
        token = continuation_of(container4)
    current = {(d["id"], d["pk"]): d["v"] for d in container4.read_all_items()}
    assert seen == current


def test_response_hook_sees_each_page(container):
    seed(container, 3)
    hook = cs.Hook()
    rows = list(container.query_items_change_feed(start_time="Beginning", response_hook=hook))
    assert len(rows) == 3
    assert hook.calls, "response_hook never called"
    for headers, _ in hook.calls:
        headers = cs.lower(headers)
        assert headers.get("etag"), f"change feed page without etag: {sorted(headers)}"


def test_all_versions_and_deletes(make_container):
    container = make_container(change_feed_policy={"retentionDuration": 10}, default_ttl=-1)
    assert list(container.query_items_change_feed(mode="AllVersionsAndDeletes")) == []
    token = continuation_of(container)
    container.create_item({"id": "a", "pk": "x", "v": 1})
    container.upsert_item({"id": "a", "pk": "x", "v": 2})
    container.delete_item("a", "x")
    container.create_item({"id": "t", "pk": "x", "ttl": 1})
    rows = []

    def collect():
        nonlocal token
        rows.extend(container.query_items_change_feed(mode="AllVersionsAndDeletes", continuation=token))
        token = continuation_of(container)
        return len(rows) >= 5

    cs.wait_until(collect, timeout=8, interval=0.5, what="five all-versions changes (the TTL expiry included)")
    seen = [(r["metadata"]["operationType"],
             (r.get("current") or {}).get("v"),
             r["metadata"].get("id") or (r.get("current") or {}).get("id")) for r in rows]
    assert seen == [("create", 1, "a"), ("replace", 2, "a"), ("delete", None, "a"), ("create", None, "t"),
                    ("delete", None, "t")], seen
    created, replaced, deleted, _, expired = rows
    assert created["metadata"]["lsn"] < replaced["metadata"]["lsn"] < deleted["metadata"]["lsn"]
    assert replaced["metadata"]["previousImageLSN"] == created["metadata"]["lsn"]
    assert deleted["metadata"]["previousImageLSN"] == replaced["metadata"]["lsn"]
    assert deleted["metadata"]["partitionKey"] == {"pk": "x"}
    assert isinstance(created["metadata"]["crts"], int)
    assert expired["metadata"].get("timeToLiveExpired") is True, expired
    assert created["current"]["id"] == "a" and created["current"]["_etag"]


def test_all_versions_and_deletes_scoped_to_a_partition_key(make_container):
    container = make_container(change_feed_policy={"retentionDuration": 10}, partitions=4)
    list(container.query_items_change_feed(mode="AllVersionsAndDeletes", partition_key="CA"))
    token = continuation_of(container)
    for state in ("CA", "OR", "CA"):
        container.upsert_item({"id": f"i-{state}", "pk": state})
    container.delete_item("i-OR", "OR")
    container.delete_item("i-CA", "CA")
    rows = list(container.query_items_change_feed(mode="AllVersionsAndDeletes", continuation=token))
    assert [r["metadata"]["operationType"] for r in rows] == ["create", "replace", "delete"], rows
