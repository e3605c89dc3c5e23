"""Wire parity: behaviours of the real service that an earlier survey found missing or different in
cosmolite, driven through azure-cosmos 4.17.1. Each test asserts what the service does (sources in
the docstrings). Those cosmolite does not do yet are marked
@pytest.mark.xfail(strict=True, reason="known gap: ..."): reported as XFAIL, and failing the run (XPASS)
once cosmolite is fixed, so that the marker gets removed."""
import pytest
from azure.cosmos import PartitionKey, ThroughputProperties, exceptions

import cosmos_support as cs


def seed(container, count=12):
    for i in range(count):
        container.create_item({"id": f"d{i:02d}", "pk": f"p{i % 4}", "n": i})


# --- queries: single-partition by filter, cross-partition refused without the option -----------------

def test_filter_pinned_to_one_partition_key_needs_no_options(container4, wire):
    """A query whose filter pins the partition key is a single-partition query: the gateway serves it
    (ORDER BY and aggregates included) without a partition key header or the cross-partition option.
    (sdk-client-tips: "Queries without a partition key need enable_cross_partition_query=True unless
    the filter pins one key".)"""
    seed(container4)
    assert list(container4.query_items("SELECT VALUE c.n FROM c WHERE c.pk = 'p1' ORDER BY c.n DESC")) == [9, 5, 1]
    assert list(container4.query_items("SELECT VALUE COUNT(1) FROM c WHERE c.pk = @pk",
                                       parameters=[{"name": "@pk", "value": "p2"}])) == [3]
    assert list(container4.query_items("SELECT TOP 1 VALUE c.n FROM c WHERE c.pk = 'p3' ORDER BY c.n")) == [3]


def test_filter_pinned_hierarchical_key_needs_no_options(make_container):
    container = make_container(pk=["/t", "/u"], partitions=4)
    for i in range(8):
        container.create_item({"id": f"h{i}", "t": f"t{i % 2}", "u": f"u{i % 4}", "n": i})
    rows = list(container.query_items("SELECT VALUE c.n FROM c WHERE c.t = 't1' AND c.u = 'u3' ORDER BY c.n"))
    assert rows == [3, 7]


def test_cross_partition_query_without_the_option_is_400_on_four_partitions(container4):
    """The service refuses a query that needs several partitions when x-ms-documentdb-query-
    enablecrosspartition is absent: 400 "Cross partition query is required but disabled..."."""
    seed(container4)
    error = cs.expect_error(400, lambda: list(container4.query_items("SELECT * FROM c WHERE c.n > 3")))
    assert "Cross partition query is required but disabled" in str(error), str(error)


def test_cross_partition_query_without_the_option_is_400_on_one_partition(container):
    """Even when the container has a single physical partition, a query not scoped to one partition
    key needs the option (the service decides by the query, not by the current layout)."""
    seed(container)
    error = cs.expect_error(400, lambda: list(container.query_items("SELECT * FROM c")))
    assert "Cross partition query is required but disabled" in str(error), str(error)


def test_empty_hierarchical_prefix_without_the_option_is_400(make_container):
    """The SDK's own emulator test (test_query_cross_partition*: partition_key=[] on a MultiHash
    container) expects 400 with "Cross partition query is required but disabled"."""
    container = make_container(pk=["/state", "/city"])
    container.create_item({"id": "1", "state": "CA", "city": "Oxnard"})
    error = cs.expect_error(400, lambda: list(container.query_items("Select * from c", partition_key=[])))
    assert "Cross partition query is required but disabled" in str(error), str(error)


def test_unordered_results_come_in_insertion_order(container):
    """Within a physical partition, unordered results come in document _rid (insertion) order."""
    order = ["z", "a", "m", "b", "y", "c", "x"]
    for index, item_id in enumerate(order):
        container.create_item({"id": item_id, "pk": f"p{index % 3}"})
    rows = list(container.query_items("SELECT VALUE c.id FROM c", enable_cross_partition_query=True))
    assert rows == order
    rows = [d["id"] for d in container.read_all_items()]
    assert rows == order
    # Page by page, and after a replace, which keeps an item's place.
    container.replace_item("a", {"id": "a", "pk": "p1", "changed": True})
    rows = [d["id"] for d in container.read_all_items(max_item_count=2)]
    assert rows == order
    rows = list(container.query_items("SELECT VALUE c.id FROM c", enable_cross_partition_query=True, max_item_count=3))
    assert rows == order


# --- headers: partition key range id, session token, Content-Location ------------------------------

def test_responses_name_the_serving_partition_key_range(container4):
    """Point operations and query pages carry x-ms-documentdb-partitionkeyrangeid, and the session
    token is scoped to that range: "{rangeId}:{version}#{lsn}"."""
    range_ids = set()
    for i in range(8):
        created = container4.create_item({"id": f"i{i}", "pk": f"key-{i}"})
        headers = cs.lower(created.get_response_headers())
        assert "x-ms-documentdb-partitionkeyrangeid" in headers, f"create: {sorted(headers)}"
        range_id = headers["x-ms-documentdb-partitionkeyrangeid"]
        assert headers["x-ms-session-token"].split(":")[0] == range_id, headers["x-ms-session-token"]
        range_ids.add(range_id)
        read = cs.lower(container4.read_item(f"i{i}", f"key-{i}").get_response_headers())
        assert read.get("x-ms-documentdb-partitionkeyrangeid") == range_id, read
    assert len(range_ids) > 1, f"eight keys over four ranges all answered from {range_ids}"
    pager = container4.query_items("SELECT * FROM c", partition_key="key-0")
    list(pager)
    assert "x-ms-documentdb-partitionkeyrangeid" in cs.lower(pager.get_response_headers())


def test_content_location_on_point_operations(container):
    created = container.create_item({"id": "a", "pk": "p"})
    assert "content-location" in cs.lower(created.get_response_headers()), sorted(created.get_response_headers())
    read = container.read_item("a", "p")
    assert "content-location" in cs.lower(read.get_response_headers()), sorted(read.get_response_headers())


# --- container re-created under a cached client ----------------------------------------------------

def test_container_recreated_while_the_client_caches_the_old_one(database, wire):
    """The SDK sends x-ms-cosmos-intended-collection-rid; the service answers 400/1024 when it names
    a container that no longer exists under that name, and the SDK refreshes its cache and retries
    (azure-cosmos _container_recreate_retry_policy.py)."""
    name = cs.uid("c")
    stale = database.create_container(name, partition_key=PartitionKey(path="/pk"))
    stale.create_item({"id": "before", "pk": "a"})
    other = cs.make_client()
    try:
        other_db = other.get_database_client(database.id)
        other_db.delete_container(name)
        # Same partition key path: the SDK resends the request with the new rid and the key it
        # extracted before (it extracts again only when that failed), so another path would get 1001.
        fresh = other_db.create_container(name, partition_key=PartitionKey(path="/pk"))
        mark = wire.mark()
        stale.create_item({"id": "after", "pk": "a"})
        assert fresh.read_item("after", "a")["id"] == "after"
        answers = [(e.status, e.headers.get("x-ms-substatus")) for e in wire.since(mark) if "/docs" in e.path]
        assert (400, "1024") in answers, f"expected a 400/1024 for the stale container rid, got {answers}"
    finally:
        other.close()


# --- query features -------------------------------------------------------------------------------

def test_index_metrics(container):
    """populate_index_metrics: the service answers x-ms-cosmos-index-utilization, base64 JSON with
    UtilizedSingleIndexes, PotentialSingleIndexes, UtilizedCompositeIndexes, PotentialCompositeIndexes
    (the SDK decodes it; docs: "Use index metrics", only when the query returns items)."""
    seed(container)
    pager = container.query_items("SELECT * FROM c WHERE c.n = 4", partition_key="p0", populate_index_metrics=True)
    assert len(list(pager)) == 1
    headers = cs.lower(pager.get_response_headers())
    assert "x-ms-cosmos-index-utilization" in headers, sorted(headers)
    utilization = headers["x-ms-cosmos-index-utilization"]
    assert isinstance(utilization, dict) and utilization, f"not a decodable base64 JSON: {utilization!r}"
    for section in ("UtilizedSingleIndexes", "PotentialSingleIndexes", "UtilizedCompositeIndexes",
                    "PotentialCompositeIndexes"):
        assert section in utilization, f"{section} missing from {utilization}"
    specs = [entry.get("IndexSpec", "") for entry in utilization["UtilizedSingleIndexes"]]
    assert any("/n/" in spec for spec in specs), utilization


def test_index_only_count_retrieves_no_document(container):
    """The service answers SELECT VALUE COUNT(1) FROM c from the index: its query metrics report
    retrievedDocumentCount=0 (docs: "Get SQL query execution metrics", index-only queries)."""
    seed(container)

    def metrics_of(query):
        pager = container.query_items(query, partition_key="p0", populate_query_metrics=True)
        rows = list(pager)
        header = cs.lower(pager.get_response_headers())["x-ms-documentdb-query-metrics"]
        return rows, dict(part.split("=", 1) for part in header.split(";") if part)

    rows, metrics = metrics_of("SELECT VALUE COUNT(1) FROM c")
    assert rows and rows[0] > 0, rows
    assert int(metrics["retrievedDocumentCount"]) == 0, metrics
    assert int(metrics["retrievedDocumentSize"]) == 0, metrics
    rows, metrics = metrics_of("SELECT * FROM c")
    assert int(metrics["retrievedDocumentCount"]) == len(rows) > 0, metrics


def test_join_on_object_to_array(container):
    container.create_item({"id": "a", "pk": "p", "props": {"color": "red", "size": 3}})
    rows = list(container.query_items("SELECT p.k, p.v FROM c JOIN p IN ObjectToArray(c.props)", partition_key="p"))
    assert sorted((r["k"], r["v"]) for r in rows) == [("color", "red"), ("size", 3)]


def test_computed_properties(database):
    container = database.create_container(
        cs.uid("c"), partition_key=PartitionKey(path="/pk"),
        computed_properties=[{"name": "cp_lower", "query": "SELECT VALUE LOWER(c.name) FROM c"}])
    assert container.read()["computedProperties"] == [{"name": "cp_lower", "query": "SELECT VALUE LOWER(c.name) FROM c"}]
    container.create_item({"id": "1", "pk": "p", "name": "Alice"})
    container.create_item({"id": "2", "pk": "p", "name": "BOB"})
    assert list(container.query_items("SELECT VALUE c.id FROM c WHERE c.cp_lower = 'bob'", partition_key="p")) == ["2"]
    assert list(container.query_items("SELECT VALUE c.cp_lower FROM c WHERE c.id = '1'", partition_key="p")) == ["alice"]
    assert "cp_lower" not in container.read_item("1", "p"), "computed properties are not stored in the item"


# --- indexing policy shapes -----------------------------------------------------------------------

def test_legacy_indexes_with_kind_data_type_precision(database):
    policy = {"indexingMode": "consistent", "automatic": True,
              "includedPaths": [{"path": "/*", "indexes": [
                  {"kind": "Range", "dataType": "Number", "precision": -1},
                  {"kind": "Hash", "dataType": "String", "precision": 3}]}],
              "excludedPaths": []}
    container = database.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk"), indexing_policy=policy)
    container.create_item({"id": "1", "pk": "p", "n": 5})
    assert list(container.query_items("SELECT VALUE c.id FROM c WHERE c.n > 1", partition_key="p")) == ["1"]


def test_legacy_root_included_path(database):
    policy = {"indexingMode": "consistent", "automatic": True,
              "includedPaths": [{"path": "/", "indexes": [{"kind": "Range", "dataType": "Number", "precision": -1}]}]}
    container = database.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk"), indexing_policy=policy)
    assert container.read()["indexingPolicy"]["includedPaths"], container.read()["indexingPolicy"]


def test_spatial_index_paths(database):
    policy = {"indexingMode": "consistent", "automatic": True, "includedPaths": [{"path": "/*"}],
              "spatialIndexes": [{"path": "/location/*", "types": ["Point", "Polygon"]}]}
    container = database.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk"), indexing_policy=policy)
    spatial = container.read()["indexingPolicy"]["spatialIndexes"]
    assert spatial[0]["path"] == "/location/*" and "Point" in spatial[0]["types"], spatial
    container.create_item({"id": "1", "pk": "p", "location": {"type": "Point", "coordinates": [-122.12, 47.66]}})
    rows = list(container.query_items(
        "SELECT VALUE c.id FROM c WHERE ST_DISTANCE(c.location, {'type': 'Point', 'coordinates': [-122.11, 47.66]}) < 5000",
        partition_key="p"))
    assert rows == ["1"]


# --- partition keys -------------------------------------------------------------------------------

def test_partition_key_path_with_quoted_special_characters(database):
    path = '/"level\' 1*()"/"le/vel2"'
    container = database.create_container(cs.uid("c"), partition_key=PartitionKey(path=path))
    assert container.read()["partitionKey"]["paths"] == [path]
    container.create_item({"id": "1", "level' 1*()": {"le/vel2": "v1"}})
    container.create_item({"id": "2", "level' 1*()": {"le/vel2": "v2"}})
    assert container.read_item("1", "v1")["id"] == "1"
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("1", "v2")
    assert list(container.query_items("SELECT VALUE c.id FROM c", partition_key="v2")) == ["2"]


def test_more_than_three_hierarchical_paths_is_400(database):
    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        database.create_container(cs.uid("c"), partition_key=PartitionKey(path=["/a", "/b", "/c", "/d"], kind="MultiHash"))
    assert caught.value.status_code == 400, caught.value


def test_hierarchical_path_without_leading_slash_is_400(database):
    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        database.create_container(cs.uid("c"), partition_key=PartitionKey(path=["/a", "b"], kind="MultiHash"))
    assert caught.value.status_code == 400, caught.value


def test_incomplete_hierarchical_key_on_a_point_read_is_400_1001(make_container):
    container = make_container(pk=["/t", "/u"])
    container.create_item({"id": "h", "t": "a", "u": "b"})
    cs.expect_error(400, container.read_item, "h", ["a"], substatus=1001)


# --- throughput, statistics, conflicts ------------------------------------------------------------

def test_autoscale_offer_carries_auto_upgrade_policy(make_container):
    """The SDK's own emulator tests (test_auto_scale.py) create with auto_scale_increment_percent=0
    and read it back from offerAutopilotSettings.autoUpgradePolicy.throughputPolicy.incrementPercent."""
    container = make_container(offer_throughput=ThroughputProperties(auto_scale_max_throughput=7000,
                                                                     auto_scale_increment_percent=0))
    throughput = container.get_throughput()
    assert throughput.auto_scale_max_throughput == 7000
    assert throughput.auto_scale_increment_percent == 0, throughput.properties
    container.replace_throughput(ThroughputProperties(auto_scale_max_throughput=8000, auto_scale_increment_percent=20))
    throughput = container.get_throughput()
    assert (throughput.auto_scale_max_throughput, throughput.auto_scale_increment_percent) == (8000, 20), \
        throughput.properties


def test_autoscale_maximum_below_minimum_is_400(database):
    error = cs.expect_error(400, database.create_container, cs.uid("c"), partition_key=PartitionKey(path="/id"),
                            offer_throughput=ThroughputProperties(auto_scale_max_throughput=-200,
                                                                  auto_scale_increment_percent=0))
    assert "Requested throughput -200 is less than" in str(error), str(error)


def test_partition_key_range_statistics(container4):
    for i in range(8):
        container4.create_item({"id": f"s{i}", "pk": f"k{i}"})
    properties = container4.read(populate_partition_key_range_statistics=True)
    statistics = properties.get("statistics")
    assert isinstance(statistics, list) and len(statistics) == 4, f"statistics: {statistics!r}"
    for entry in statistics:
        for key in ("id", "sizeInKB", "documentCount"):
            assert key in entry, f"{key} missing from {entry}"
    assert sum(entry["documentCount"] for entry in statistics) == 8


def test_conflicts_feed_is_empty(container):
    container.create_item({"id": "a", "pk": "p"})
    assert list(container.list_conflicts()) == []
    assert list(container.query_conflicts("SELECT * FROM c", enable_cross_partition_query=True)) == []


# --- items ---------------------------------------------------------------------------------------

def test_item_id_longer_than_1023_bytes_is_400(container):
    """Per-item limits: the id is at most 1,023 bytes (database and container names: 255 characters)."""
    container.create_item({"id": "x" * 1023, "pk": "p"})
    cs.expect_error(400, container.create_item, {"id": "x" * 1024, "pk": "p"})
    cs.expect_error(400, container.create_item, {"id": "é" * 512, "pk": "p"})  # 512 characters, 1,024 bytes


def test_container_name_longer_than_255_characters_is_400(database):
    cs.expect_error(400, database.create_container, "c" * 256, partition_key=PartitionKey(path="/pk"))


def test_item_ttl_null_is_400(make_container):
    container = make_container(default_ttl=-1)
    cs.expect_error(400, container.create_item, {"id": "n", "pk": "p", "ttl": None})


def test_replace_may_change_the_id(container):
    """ReplaceItemAsync "allows updating the id value; only the partition key value is required to be
    the same" (azure-cosmos-dotnet-v3 PRs #870 and #1375)."""
    created = container.create_item({"id": "a", "pk": "p", "v": 1})
    replaced = container.replace_item("a", {"id": "b", "pk": "p", "v": 2})
    assert replaced["id"] == "b" and replaced["_rid"] == created["_rid"]
    assert container.read_item("b", "p")["v"] == 2
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("a", "p")


def test_all_versions_and_deletes_without_a_retention_setting(container):
    """The SDK's sample (change_feed_management.py) reads AllVersionsAndDeletes on a container
    created without a changeFeedPolicy; delete entries carry "current": {} with the id and partition
    key in the metadata."""
    list(container.query_items_change_feed(mode="AllVersionsAndDeletes"))
    token = container.client_connection.last_response_headers["etag"]
    container.create_item({"id": "a", "pk": "x"})
    container.delete_item("a", "x")
    rows = list(container.query_items_change_feed(mode="AllVersionsAndDeletes", continuation=token))
    assert [r["metadata"]["operationType"] for r in rows] == ["create", "delete"], rows
    assert rows[1].get("current") == {}, rows[1]
    assert rows[1]["metadata"]["id"] == "a"


def test_invalid_continuation_token_message(container):
    seed(container)
    error = cs.expect_error(400, lambda: [r for page in container.query_items(
        "SELECT * FROM c", partition_key="p0", max_item_count=1).by_page("not-a-token") for r in page])
    assert "invalid continuation token" in str(error).lower(), str(error)
