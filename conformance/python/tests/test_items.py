"""Items: create, read, replace, upsert, delete; etags and preconditions; 404 and 409; partition key
values (null, undefined, numbers, booleans, hierarchical); read many; minimal responses; session
consistency (read your writes from another client)."""
import pytest
from azure.core import MatchConditions
from azure.cosmos import exceptions
from azure.cosmos.partition_key import NonePartitionKeyValue

import cosmos_support as cs


def statuses(wire, mark, method=None):
    """Statuses of the item requests (.../docs...) recorded since mark (the SDK also reads pkranges)."""
    return [e.status for e in wire.since(mark)
            if "/docs" in e.path and (method is None or e.method == method)]


def write_headers_ok(headers, what):
    headers = cs.lower(headers)
    cs.charge(headers, what)
    assert headers.get("x-ms-session-token"), f"{what}: no x-ms-session-token in {sorted(headers)}"
    assert headers.get("etag"), f"{what}: no etag header"
    return headers


def test_create_returns_201_with_system_properties(container, wire):
    doc = {"id": "a", "pk": "p1", "n": 1.5, "nested": {"list": [1, "two", None, True]}, "text": "héllo 漢字"}
    mark = wire.mark()
    created = container.create_item(doc)
    assert statuses(wire, mark, "POST") == [201]
    headers = write_headers_ok(created.get_response_headers(), "create")
    cs.system_properties_ok(created, "create")
    assert created["_attachments"] == "attachments/"
    assert headers["etag"] == created["_etag"]
    assert cs.user_properties(created) == doc


def test_read_returns_the_stored_document(container):
    created = container.create_item({"id": "a", "pk": "p1", "v": 1})
    read = container.read_item("a", partition_key="p1")
    headers = cs.lower(read.get_response_headers())
    cs.charge(headers, "read")
    assert headers.get("x-ms-session-token")
    assert headers["etag"] == created["_etag"]
    assert dict(read) == dict(created)


def test_replace_changes_etag_keeps_rid(container):
    created = container.create_item({"id": "a", "pk": "p1", "v": 1})
    replaced = container.replace_item("a", {"id": "a", "pk": "p1", "v": 2})
    write_headers_ok(replaced.get_response_headers(), "replace")
    assert replaced["_etag"] != created["_etag"]
    assert replaced["_rid"] == created["_rid"]
    assert replaced["_ts"] >= created["_ts"]
    assert container.read_item("a", "p1")["v"] == 2


def test_replace_missing_is_404(container):
    with pytest.raises(exceptions.CosmosResourceNotFoundError) as caught:
        container.replace_item("nope", {"id": "nope", "pk": "p1"})
    assert caught.value.status_code == 404


def test_upsert_inserts_201_then_replaces_200(container, wire):
    mark = wire.mark()
    inserted = container.upsert_item({"id": "u", "pk": "p1", "v": 1})
    replaced = container.upsert_item({"id": "u", "pk": "p1", "v": 2})
    assert statuses(wire, mark, "POST") == [201, 200]
    assert replaced["_rid"] == inserted["_rid"] and replaced["_etag"] != inserted["_etag"]
    assert container.read_item("u", "p1")["v"] == 2


def test_delete_then_404(container, wire):
    container.create_item({"id": "d", "pk": "p1"})
    hook = cs.Hook()
    mark = wire.mark()
    container.delete_item("d", partition_key="p1", response_hook=hook)
    assert statuses(wire, mark, "DELETE") == [204]
    cs.charge(hook.headers, "delete")
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("d", "p1")
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.delete_item("d", partition_key="p1")


def test_duplicate_id_is_409_and_keeps_the_original(container):
    container.create_item({"id": "dup", "pk": "p1", "v": 1})
    with pytest.raises(exceptions.CosmosResourceExistsError) as caught:
        container.create_item({"id": "dup", "pk": "p1", "v": 2})
    assert caught.value.status_code == 409
    assert container.read_item("dup", "p1")["v"] == 1


def test_same_id_in_two_partitions(container):
    container.create_item({"id": "same", "pk": "p1", "v": 1})
    container.create_item({"id": "same", "pk": "p2", "v": 2})
    assert container.read_item("same", "p1")["v"] == 1
    assert container.read_item("same", "p2")["v"] == 2
    container.delete_item("same", "p1")
    assert container.read_item("same", "p2")["v"] == 2
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("same", "p3")


def test_if_match_with_a_stale_etag_is_412(container):
    created = container.create_item({"id": "e", "pk": "p", "v": 1})
    current = container.replace_item("e", {"id": "e", "pk": "p", "v": 2},
                                     etag=created["_etag"], match_condition=MatchConditions.IfNotModified)
    assert current["v"] == 2
    with pytest.raises(exceptions.CosmosAccessConditionFailedError) as caught:
        container.replace_item("e", {"id": "e", "pk": "p", "v": 3},
                               etag=created["_etag"], match_condition=MatchConditions.IfNotModified)
    assert caught.value.status_code == 412
    with pytest.raises(exceptions.CosmosAccessConditionFailedError):
        container.upsert_item({"id": "e", "pk": "p", "v": 4},
                              etag=created["_etag"], match_condition=MatchConditions.IfNotModified)
    with pytest.raises(exceptions.CosmosAccessConditionFailedError):
        container.delete_item("e", "p", etag=created["_etag"], match_condition=MatchConditions.IfNotModified)
    assert container.read_item("e", "p")["v"] == 2
    container.delete_item("e", "p", etag=current["_etag"], match_condition=MatchConditions.IfNotModified)


def test_if_none_match_read_is_304_when_unchanged(container, wire):
    created = container.create_item({"id": "e", "pk": "p", "v": 1})
    mark = wire.mark()
    unchanged = container.read_item("e", "p", etag=created["_etag"], match_condition=MatchConditions.IfModified)
    assert statuses(wire, mark, "GET") == [304]
    assert dict(unchanged) == {}, "a 304 has no body"
    container.replace_item("e", {"id": "e", "pk": "p", "v": 2})
    changed = container.read_item("e", "p", etag=created["_etag"], match_condition=MatchConditions.IfModified)
    assert changed["v"] == 2


def test_item_without_the_partition_key_property(container):
    container.create_item({"id": "nopk", "v": 1})
    read = container.read_item("nopk", partition_key=NonePartitionKeyValue)
    assert read["v"] == 1 and "pk" not in read
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("nopk", partition_key="")
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("nopk", partition_key=None)  # None is the JSON null key
    container.replace_item("nopk", {"id": "nopk", "v": 2})
    assert container.read_item("nopk", NonePartitionKeyValue)["v"] == 2
    container.delete_item("nopk", partition_key=NonePartitionKeyValue)


def test_null_undefined_number_boolean_keys_are_distinct(container):
    docs = [({"id": "k", "pk": None, "v": "null"}, None),
            ({"id": "k", "v": "undefined"}, NonePartitionKeyValue),
            ({"id": "k", "pk": 5, "v": "five"}, 5),
            ({"id": "k", "pk": True, "v": "true"}, True),
            ({"id": "k", "pk": "5", "v": "string5"}, "5")]
    for doc, _ in docs:
        container.create_item(doc)
    for doc, key in docs:
        assert container.read_item("k", partition_key=key)["v"] == doc["v"], f"partition key {key!r}"


def test_nested_partition_key_path(make_container):
    container = make_container(pk="/a/b")
    container.create_item({"id": "n", "a": {"b": "deep"}})
    assert container.read_item("n", "deep")["a"] == {"b": "deep"}
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("n", "other")


def test_hierarchical_partition_key(make_container):
    container = make_container(pk=["/tenant", "/user"])
    created = container.create_item({"id": "h", "tenant": "a", "user": "b", "v": 1})
    cs.system_properties_ok(created, "hierarchical create")
    assert container.read_item("h", ["a", "b"])["v"] == 1
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("h", ["a", "c"])
    container.create_item({"id": "h", "tenant": "a", "user": "c", "v": 2})
    container.replace_item("h", {"id": "h", "tenant": "a", "user": "b", "v": 3})
    container.delete_item("h", ["a", "b"])
    assert container.read_item("h", ["a", "c"])["v"] == 2


def test_unicode_and_1023_byte_ids(container):
    for item_id in ("é-漢字-🙂", "with space", "a.b-c_d~e", "x" * 1023):
        container.create_item({"id": item_id, "pk": "p"})
        assert container.read_item(item_id, "p")["id"] == item_id


def test_ids_are_case_sensitive(container):
    container.create_item({"id": "Case", "pk": "p", "v": 1})
    container.create_item({"id": "case", "pk": "p", "v": 2})
    assert container.read_item("Case", "p")["v"] == 1
    assert container.read_item("case", "p")["v"] == 2
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("CASE", "p")


def test_no_response_write_is_minimal(container, wire):
    mark = wire.mark()
    result = container.create_item({"id": "m", "pk": "p"}, no_response=True)
    exchanges = [e for e in wire.since(mark) if e.method == "POST" and "/docs" in e.path]
    assert [e.status for e in exchanges] == [201]
    assert exchanges[0].request_headers.get("prefer") == "return=minimal"
    assert dict(result) == {}, result
    assert result.get_response_headers().get("etag"), "a minimal write still has its etag header"
    assert container.read_item("m", "p")["id"] == "m"


def test_read_many(container):
    for i in range(6):
        container.create_item({"id": f"r{i}", "pk": f"p{i % 3}", "n": i})
    found = container.read_items([("r0", "p0"), ("r4", "p1"), ("r5", "p2"), ("missing", "p0"), ("r1", "p0")])
    assert sorted(doc["n"] for doc in found) == [0, 4, 5]


def test_read_all_items_pages(container):
    for i in range(5):
        container.create_item({"id": f"i{i}", "pk": "p", "n": i})
    pages = [list(page) for page in container.read_all_items(max_item_count=2).by_page()]
    assert [len(p) for p in pages] == [2, 2, 1], [len(p) for p in pages]
    assert sorted(d["n"] for p in pages for d in p) == list(range(5))


def test_session_read_your_writes_from_another_client(container):
    other = cs.make_client()
    try:
        created = container.create_item({"id": "s", "pk": "p", "v": 1})
        token = created.get_response_headers()["x-ms-session-token"]
        database_id = container.container_link.split("/")[1]
        proxy = other.get_database_client(database_id).get_container_client(container.id)
        assert proxy.read_item("s", "p", session_token=token)["v"] == 1
        replaced = container.replace_item("s", {"id": "s", "pk": "p", "v": 2})
        token = replaced.get_response_headers()["x-ms-session-token"]
        assert proxy.read_item("s", "p", session_token=token)["v"] == 2
    finally:
        other.close()


def test_session_tokens_do_not_go_backwards(container):
    def lsn(token):
        return int(token.split(":", 1)[1].split("#")[1])

    tokens = [container.upsert_item({"id": f"w{i}", "pk": "p"}).get_response_headers()["x-ms-session-token"]
              for i in range(5)]
    numbers = [lsn(t) for t in tokens]
    assert numbers == sorted(numbers) and len(set(numbers)) == 5, tokens


def test_document_over_2_mb_is_413(container):
    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        container.create_item({"id": "big", "pk": "p", "blob": "x" * (2 * 1024 * 1024 + 10)})
    assert caught.value.status_code == 413, caught.value



def test_eventual_consistency_client_reads(container, wire):
    """A client may relax the account's consistency: every read carries x-ms-consistency-level."""
    container.create_item({"id": "e", "pk": "p", "v": 1})
    relaxed_wire = cs.Wire()
    relaxed = cs.make_client(wire=relaxed_wire, consistency_level="Eventual")
    try:
        database_id = container.container_link.split("/")[1]
        proxy = relaxed.get_database_client(database_id).get_container_client(container.id)
        assert proxy.read_item("e", "p")["v"] == 1
        reads = [e for e in relaxed_wire.exchanges if e.method == "GET" and "/docs/" in e.path]
        assert reads and reads[-1].request_headers.get("x-ms-consistency-level") == "Eventual", reads
        assert reads[-1].status == 200
    finally:
        relaxed.close()
