"""Transactional batch (execute_item_batch): every operation kind in one logical partition, all or
nothing with the failing operation's status and 424 for the others, per-operation preconditions,
and the limits. (azure-cosmos 4.17 has no bulk API.)"""
import pytest
from azure.cosmos import exceptions

import cosmos_support as cs


def ids(container):
    return sorted(container.query_items("SELECT VALUE c.id FROM c", enable_cross_partition_query=True))


def batch_statuses(wire, mark):
    return [e.status for e in wire.since(mark)
            if e.method == "POST" and e.request_headers.get("x-ms-cosmos-is-batch-request", "").lower() == "true"]


def test_batch_applies_every_operation(container, wire):
    container.create_item({"id": "old", "pk": "p", "v": 1})
    container.create_item({"id": "gone", "pk": "p"})
    hook = cs.Hook()
    mark = wire.mark()
    results = container.execute_item_batch([
        ("create", ({"id": "a", "pk": "p", "n": 1},)),
        ("upsert", ({"id": "b", "pk": "p", "n": 2},)),
        ("read", ("old",)),
        ("replace", ("old", {"id": "old", "pk": "p", "v": 2})),
        ("delete", ("gone",)),
        ("patch", ("a", [{"op": "incr", "path": "/n", "value": 10}])),
    ], partition_key="p", response_hook=hook)
    assert batch_statuses(wire, mark) == [200]
    exchange = [e for e in wire.since(mark) if e.status == 200 and e.method == "POST"][-1]
    assert exchange.request_headers.get("x-ms-cosmos-batch-atomic", "").lower() == "true"
    cs.charge(results.get_response_headers(), "batch")
    assert [r["statusCode"] for r in results] == [201, 201, 200, 200, 204, 200]
    for r in results:
        assert r["requestCharge"] > 0, r
    assert results[0]["resourceBody"]["id"] == "a"
    assert results[0]["eTag"].startswith('"') and results[0]["eTag"].endswith('"')
    assert results[2]["resourceBody"]["v"] == 1, "the read sees the state before the replace"
    assert results[5]["resourceBody"]["n"] == 11, "the patch sees the create of the same batch"
    assert ids(container) == ["a", "b", "old"]
    assert container.read_item("old", "p")["v"] == 2
    assert hook.calls and len(hook.calls[-1][1]) == 6


def test_failing_operation_rolls_back_everything(container, wire):
    container.create_item({"id": "taken", "pk": "p", "v": 1})
    mark = wire.mark()
    with pytest.raises(exceptions.CosmosBatchOperationError) as caught:
        container.execute_item_batch([
            ("create", ({"id": "new", "pk": "p"},)),
            ("replace", ("taken", {"id": "taken", "pk": "p", "v": 2})),
            ("create", ({"id": "taken", "pk": "p"},)),
            ("delete", ("taken",)),
        ], partition_key="p")
    assert batch_statuses(wire, mark) == [207]
    error = caught.value
    assert error.error_index == 2
    assert error.status_code == 409
    assert [r["statusCode"] for r in error.operation_responses] == [424, 424, 409, 424]
    assert ids(container) == ["taken"]
    assert container.read_item("taken", "p")["v"] == 1
    assert list(container.query_items("SELECT VALUE COUNT(1) FROM c WHERE c.id = 'new'", partition_key="p")) == [0]


def test_stale_if_match_fails_the_batch_with_412(container):
    created = container.create_item({"id": "x", "pk": "p", "v": 1})
    container.replace_item("x", {"id": "x", "pk": "p", "v": 2})
    with pytest.raises(exceptions.CosmosBatchOperationError) as caught:
        container.execute_item_batch([
            ("upsert", ({"id": "y", "pk": "p"},)),
            ("replace", ("x", {"id": "x", "pk": "p", "v": 3}), {"if_match_etag": created["_etag"]}),
        ], partition_key="p")
    assert [r["statusCode"] for r in caught.value.operation_responses] == [424, 412]
    assert ids(container) == ["x"]


def test_missing_item_in_a_batch_is_404(container):
    with pytest.raises(exceptions.CosmosBatchOperationError) as caught:
        container.execute_item_batch([
            ("create", ({"id": "a", "pk": "p"},)),
            ("read", ("missing",)),
        ], partition_key="p")
    assert [r["statusCode"] for r in caught.value.operation_responses] == [424, 404]
    assert ids(container) == []


def test_patch_in_a_batch_with_a_false_filter_predicate_is_412(container):
    container.create_item({"id": "a", "pk": "p", "n": 1})
    with pytest.raises(exceptions.CosmosBatchOperationError) as caught:
        container.execute_item_batch([
            ("patch", ("a", [{"op": "set", "path": "/n", "value": 2}]), {"filter_predicate": "from c where c.n > 5"}),
        ], partition_key="p")
    assert [r["statusCode"] for r in caught.value.operation_responses] == [412]
    assert container.read_item("a", "p")["n"] == 1


def test_more_than_100_operations(container):
    operations = [("create", ({"id": f"i{i}", "pk": "p"},)) for i in range(101)]
    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        container.execute_item_batch(operations, partition_key="p")
    assert caught.value.status_code == 400, caught.value
    assert ids(container) == []
    results = container.execute_item_batch(operations[:100], partition_key="p")
    assert len(results) == 100 and len(ids(container)) == 100


def test_operation_with_another_partition_key_is_refused(container):
    with pytest.raises((exceptions.CosmosHttpResponseError, exceptions.CosmosBatchOperationError)) as caught:
        container.execute_item_batch([
            ("create", ({"id": "1", "pk": "p"},)),
            ("create", ({"id": "2", "pk": "q"},)),
        ], partition_key="p")
    assert caught.value.status_code == 400, caught.value
    assert ids(container) == []


def test_batch_on_four_partitions_and_hierarchical_keys(container4, make_container):
    for key in ("a", "b", "c", "d"):
        results = container4.execute_item_batch([("create", ({"id": f"{key}{i}", "pk": key},)) for i in range(3)],
                                                partition_key=key)
        assert [r["statusCode"] for r in results] == [201, 201, 201]
    assert len(ids(container4)) == 12
    hierarchical = make_container(pk=["/t", "/u"])
    results = hierarchical.execute_item_batch([
        ("create", ({"id": "1", "t": "x", "u": "y"},)),
        ("upsert", ({"id": "2", "t": "x", "u": "y"},)),
    ], partition_key=["x", "y"])
    assert [r["statusCode"] for r in results] == [201, 201]
    assert hierarchical.read_item("2", ["x", "y"])["id"] == "2"
