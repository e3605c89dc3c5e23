"""Containers: create (one and four physical partitions, hierarchical keys), read, replace, delete,
list and query; 409, 404 and 400; feed ranges; quota headers."""
import pytest
from azure.cosmos import PartitionKey, exceptions

import cosmos_support as cs


def covering(ranges):
    """The feed ranges as sorted (min, max) pairs; asserts they tile ["", "FF") without gaps."""
    pairs = sorted((r["Range"]["min"], r["Range"]["max"]) for r in ranges)
    assert pairs[0][0] == "", pairs
    assert pairs[-1][1] == "FF", pairs
    for (_, high), (low, _) in zip(pairs, pairs[1:]):
        assert high == low, f"gap or overlap between ranges: {pairs}"
    for r in ranges:
        assert r["Range"]["isMinInclusive"] is True and r["Range"]["isMaxInclusive"] is False, r
    return pairs


def test_create_with_partition_key_and_defaults(database):
    hook = cs.Hook()
    container = database.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk"), response_hook=hook)
    cs.charge(hook.headers, "create container")
    properties = container.read()
    assert properties["partitionKey"]["paths"] == ["/pk"]
    assert properties["partitionKey"]["kind"] == "Hash"
    assert properties["partitionKey"].get("version") == 2, properties["partitionKey"]  # the Python SDK asks for V2
    policy = properties["indexingPolicy"]
    assert policy["indexingMode"].lower() == "consistent", policy
    assert policy["automatic"] is True, policy
    assert [p["path"] for p in policy["includedPaths"]] == ["/*"], policy
    assert {"path": '/"_etag"/?'} in policy["excludedPaths"], policy
    for key in ("_rid", "_self", "_etag", "_ts", "_docs", "_sprocs", "_triggers", "_udfs", "_conflicts"):
        assert key in properties, f"{key} missing from container properties {sorted(properties)}"
    assert properties["_self"] == f"dbs/{database.read()['_rid']}/colls/{properties['_rid']}/"


def test_create_hierarchical_partition_key(database):
    container = database.create_container(cs.uid("c"), partition_key=PartitionKey(path=["/tenant", "/user"], kind="MultiHash"))
    key = container.read()["partitionKey"]
    assert key["paths"] == ["/tenant", "/user"] and key["kind"] == "MultiHash" and key["version"] == 2, key


def test_default_ttl_and_unique_keys_are_stored(database):
    container = database.create_container(
        cs.uid("c"), partition_key=PartitionKey(path="/pk"), default_ttl=3600,
        unique_key_policy={"uniqueKeys": [{"paths": ["/email"]}, {"paths": ["/first", "/last"]}]})
    properties = container.read()
    assert properties["defaultTtl"] == 3600
    assert properties["uniqueKeyPolicy"]["uniqueKeys"] == [{"paths": ["/email"]}, {"paths": ["/first", "/last"]}]
    container.create_item({"id": "1", "pk": "p", "email": "a@x"})
    with pytest.raises(exceptions.CosmosResourceExistsError):
        container.create_item({"id": "2", "pk": "p", "email": "a@x"})
    # Unique keys are per logical partition.
    container.create_item({"id": "2", "pk": "q", "email": "a@x"})


def test_list_and_query_containers(database):
    ids = sorted(database.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk")).id for _ in range(3))
    assert sorted(c["id"] for c in database.list_containers()) == ids
    found = list(database.query_containers(query="SELECT * FROM root r WHERE r.id = @id",
                                           parameters=[{"name": "@id", "value": ids[2]}]))
    assert [c["id"] for c in found] == [ids[2]]
    paged = [c["id"] for page in database.list_containers(max_item_count=2).by_page() for c in page]
    assert sorted(paged) == ids


def test_replace_indexing_policy_and_ttl(database):
    container = database.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk"))
    policy = {
        "indexingMode": "consistent",
        "automatic": True,
        "includedPaths": [{"path": "/name/?"}],
        "excludedPaths": [{"path": "/*"}],
    }
    hook = cs.Hook()
    database.replace_container(container, partition_key=PartitionKey(path="/pk"), indexing_policy=policy,
                               default_ttl=120, response_hook=hook)
    cs.charge(hook.headers, "replace container")
    properties = container.read()
    assert properties["defaultTtl"] == 120
    assert [p["path"] for p in properties["indexingPolicy"]["includedPaths"]] == ["/name/?"], properties["indexingPolicy"]
    assert {"path": "/*"} in properties["indexingPolicy"]["excludedPaths"], properties["indexingPolicy"]
    # Replacing without default_ttl turns TTL off again (properties not given are reset).
    database.replace_container(container, partition_key=PartitionKey(path="/pk"), indexing_policy=policy)
    assert "defaultTtl" not in container.read()


def test_replace_with_another_partition_key_is_400(database):
    container = database.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk"))
    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        database.replace_container(container, partition_key=PartitionKey(path="/other"))
    assert caught.value.status_code == 400, caught.value


def test_delete_then_404(database):
    container = database.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk"))
    database.delete_container(container)
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read()
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        database.delete_container(container.id)


def test_delete_removes_items(database):
    name = cs.uid("c")
    container = database.create_container(name, partition_key=PartitionKey(path="/pk"))
    container.create_item({"id": "a", "pk": "p"})
    database.delete_container(name)
    again = database.create_container(name, partition_key=PartitionKey(path="/pk"))
    assert list(again.read_all_items()) == []


def test_create_existing_is_409_and_if_not_exists(database):
    name = cs.uid("c")
    first = database.create_container(name, partition_key=PartitionKey(path="/pk")).read()
    with pytest.raises(exceptions.CosmosResourceExistsError):
        database.create_container(name, partition_key=PartitionKey(path="/pk"))
    again = database.create_container_if_not_exists(name, partition_key=PartitionKey(path="/pk")).read()
    assert again["_rid"] == first["_rid"]


def test_create_in_missing_database_is_404(client):
    missing = client.get_database_client(cs.uid("nodb"))
    with pytest.raises(exceptions.CosmosResourceNotFoundError) as caught:
        missing.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk"))
    assert caught.value.status_code == 404


def test_invalid_definitions_are_400(database):
    cases = {
        "a partition key path without a leading slash": dict(partition_key=PartitionKey(path="pk")),
        "a unique key path without a leading slash": dict(partition_key=PartitionKey(path="/pk"),
                                                            unique_key_policy={"uniqueKeys": [{"paths": ["email"]}]}),
        "an indexing policy with an unknown mode": dict(partition_key=PartitionKey(path="/pk"),
                                                         indexing_policy={"indexingMode": "sometimes"}),
        "a negative default TTL other than -1": dict(partition_key=PartitionKey(path="/pk"), default_ttl=-5),
        "a default TTL of 0": dict(partition_key=PartitionKey(path="/pk"), default_ttl=0),
    }
    for what, kwargs in cases.items():
        with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
            database.create_container(cs.uid("c"), **kwargs)
        assert caught.value.status_code == 400, f"{what}: {caught.value}"


def test_feed_ranges_of_one_partition(container):
    ranges = list(container.read_feed_ranges())
    assert covering(ranges) == [("", "FF")]


def test_feed_ranges_of_four_partitions(container4):
    ranges = list(container4.read_feed_ranges(force_refresh=True))
    assert len(covering(ranges)) == 4, ranges
    # Each partition key's feed range lies in exactly one physical range.
    for key in ("a", "b", "c", 1, True):
        pk_range = container4.feed_range_from_partition_key(key)
        holders = [r for r in ranges if container4.is_feed_range_subset(r, pk_range)]
        assert len(holders) == 1, f"partition key {key!r}: {pk_range} lies in {holders}"


def test_throughput_decides_physical_partitions(make_container):
    for throughput, expected in ((400, 1), (10_000, 1), (20_000, 2), (30_000, 3)):
        container = make_container(offer_throughput=throughput)
        assert len(list(container.read_feed_ranges())) == expected, f"{throughput} RU/s"


def test_quota_info_headers(container):
    container.create_item({"id": "a", "pk": "p"})
    hook = cs.Hook()
    container.read(populate_quota_info=True, response_hook=hook)
    headers = hook.headers
    for name in ("x-ms-resource-quota", "x-ms-resource-usage"):
        assert name in headers, f"{name} missing: {sorted(headers)}"
    usage = dict(part.split("=", 1) for part in headers["x-ms-resource-usage"].strip(";").split(";"))
    assert "documentsCount" in usage or "documentsSizeInKB" in usage, usage
