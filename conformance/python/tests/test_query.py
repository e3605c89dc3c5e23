"""SQL queries through the SDK: single-partition with parameters, cross-partition over four physical
partitions (filters, ORDER BY, TOP, aggregates, DISTINCT, GROUP BY, OFFSET LIMIT, JOIN), paging and
continuation tokens, feed ranges, hierarchical prefixes, query metrics, response headers
and query errors."""
import pytest
from azure.cosmos import exceptions

import cosmos_support as cs

COLORS = ["red", "green", "blue"]


def seed(container, count=20):
    docs = []
    for i in range(count):
        doc = {"id": f"d{i:02d}", "pk": f"p{i % 5}", "n": i, "color": COLORS[i % 3],
               "tags": [f"t{i % 2}", f"u{i % 4}"], "nested": {"half": i // 2}}
        if i % 7 == 0:
            doc["rare"] = True
        container.create_item(doc)
        docs.append(doc)
    return docs


def xq(container, query, parameters=None, **kwargs):
    return list(container.query_items(query, parameters=parameters, enable_cross_partition_query=True, **kwargs))


@pytest.fixture
def seeded4(container4):
    seed(container4)
    return container4


def test_single_partition_query_with_parameters(container):
    seed(container)
    rows = list(container.query_items("SELECT VALUE c.n FROM c WHERE c.n > @min ORDER BY c.n",
                                      parameters=[{"name": "@min", "value": 5}], partition_key="p1"))
    assert rows == [6, 11, 16]
    kinds = [("@s", "red", "c.color = @s", 7), ("@b", True, "c.rare = @b", 3), ("@a", [1, 2], "ARRAY_CONTAINS(@a, c.n)", 2),
             ("@o", {"half": 3}, "c.nested = @o", 2), ("@z", None, "c.missing = @z", 0)]
    for name, value, predicate, expected in kinds:
        found = xq(container, f"SELECT VALUE c.id FROM c WHERE {predicate}", [{"name": name, "value": value}])
        assert len(found) == expected, f"{predicate} with {value!r}: {found}"


def test_select_star_returns_system_properties(container):
    container.create_item({"id": "a", "pk": "p", "v": 1})
    (row,) = list(container.query_items("SELECT * FROM c", partition_key="p"))
    cs.system_properties_ok(row, "query row")
    assert row["v"] == 1


def test_cross_partition_filter_and_projection(seeded4):
    rows = xq(seeded4, "SELECT c.id, c.nested.half AS h FROM c WHERE c.color = 'blue' AND c.n >= 5")
    assert sorted((r["id"], r["h"]) for r in rows) == [("d05", 2), ("d08", 4), ("d11", 5), ("d14", 7), ("d17", 8)]


def test_cross_partition_order_by(seeded4):
    assert xq(seeded4, "SELECT VALUE c.n FROM c ORDER BY c.n") == list(range(20))
    assert xq(seeded4, "SELECT VALUE c.n FROM c ORDER BY c.n DESC") == list(range(19, -1, -1))
    ids = xq(seeded4, "SELECT c.id FROM c ORDER BY c.id DESC", max_item_count=3)
    assert [r["id"] for r in ids] == sorted((f"d{i:02d}" for i in range(20)), reverse=True)


def test_cross_partition_top_and_offset_limit(seeded4):
    assert xq(seeded4, "SELECT TOP 4 VALUE c.n FROM c ORDER BY c.n DESC") == [19, 18, 17, 16]
    assert xq(seeded4, "SELECT TOP @k VALUE c.n FROM c ORDER BY c.n", [{"name": "@k", "value": 3}]) == [0, 1, 2]
    assert len(xq(seeded4, "SELECT TOP 50 * FROM c")) == 20
    assert xq(seeded4, "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 5 LIMIT 3") == [5, 6, 7]
    assert xq(seeded4, "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 18 LIMIT 10") == [18, 19]


def test_cross_partition_value_aggregates(seeded4):
    assert xq(seeded4, "SELECT VALUE COUNT(1) FROM c") == [20]
    assert xq(seeded4, "SELECT VALUE SUM(c.n) FROM c") == [190]
    assert xq(seeded4, "SELECT VALUE AVG(c.n) FROM c") == [9.5]
    assert xq(seeded4, "SELECT VALUE MIN(c.n) FROM c") == [0]
    assert xq(seeded4, "SELECT VALUE MAX(c.id) FROM c") == ["d19"]
    assert xq(seeded4, "SELECT VALUE COUNT(1) FROM c WHERE c.color = 'red'") == [7]
    assert xq(seeded4, "SELECT VALUE COUNT(1) FROM c WHERE c.n > 100") == [0]


def test_single_partition_aggregate_without_value(container):
    seed(container)
    rows = list(container.query_items("SELECT COUNT(1) AS n, MAX(c.n) AS hi FROM c", partition_key="p2"))
    assert rows == [{"n": 4, "hi": 17}]


def test_cross_partition_distinct(seeded4):
    assert sorted(xq(seeded4, "SELECT DISTINCT VALUE c.color FROM c")) == sorted(COLORS)
    rows = xq(seeded4, "SELECT DISTINCT c.color FROM c ORDER BY c.color")
    assert rows == [{"color": "blue"}, {"color": "green"}, {"color": "red"}]


def test_group_by_in_one_partition(container):
    seed(container)
    rows = list(container.query_items("SELECT c.color, COUNT(1) AS n, SUM(c.n) AS total FROM c GROUP BY c.color",
                                      partition_key="p0"))
    # p0 holds n = 0, 5, 10, 15: red 0 and 15, blue 5, green 10.
    assert sorted((r["color"], r["n"], r["total"]) for r in rows) == [("blue", 1, 5), ("green", 1, 10), ("red", 2, 15)]


def test_cross_partition_group_by_is_refused_for_this_sdk(seeded4):
    """azure-cosmos 4.17 does not declare GroupBy (nor non-VALUE aggregates) in its supported query
    features, so the service's query plan answers 400 naming the features the client lacks."""
    error = cs.expect_error(400, lambda: xq(seeded4, "SELECT c.color, COUNT(1) AS n FROM c GROUP BY c.color"))
    assert "GroupBy" in str(error), str(error)


def test_join_and_subqueries(seeded4):
    rows = xq(seeded4, "SELECT c.id, t AS tag FROM c JOIN t IN c.tags WHERE t = 'u3'")
    assert sorted(r["id"] for r in rows) == ["d03", "d07", "d11", "d15", "d19"]
    rows = xq(seeded4, "SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = 'u1') AND c.n < 10")
    assert sorted(rows) == ["d01", "d05", "d09"]
    rows = xq(seeded4, "SELECT VALUE ARRAY(SELECT VALUE t FROM t IN c.tags WHERE STARTSWITH(t, 'u')) FROM c WHERE c.n = 6")
    assert rows == [["u2"]]


def test_functions_and_like(seeded4):
    assert sorted(xq(seeded4, "SELECT VALUE c.id FROM c WHERE c.id LIKE 'd1_' AND c.n % 4 = 0")) == ["d12", "d16"]
    assert xq(seeded4, "SELECT VALUE UPPER(c.color) FROM c WHERE c.n = 1") == ["GREEN"]
    assert xq(seeded4, "SELECT VALUE IS_DEFINED(c.rare) FROM c WHERE c.n = 7") == [True]
    assert sorted(xq(seeded4, "SELECT VALUE c.n FROM c WHERE c.n IN (3, 4, 99) OR c.n BETWEEN 18 AND 19")) == [3, 4, 18, 19]


def test_partition_key_option_scopes_the_query(seeded4):
    rows = list(seeded4.query_items("SELECT VALUE c.n FROM c", partition_key="p3"))
    assert sorted(rows) == [3, 8, 13, 18]
    rows = list(seeded4.query_items("SELECT VALUE COUNT(1) FROM c", partition_key="p3"))
    assert rows == [4]


def test_paging_with_max_item_count(seeded4):
    for size in (1, 3, 7):
        pages = [list(p) for p in seeded4.query_items("SELECT VALUE c.n FROM c WHERE c.n >= 2",
                                                      enable_cross_partition_query=True,
                                                      max_item_count=size).by_page()]
        assert all(len(p) <= size for p in pages), (size, [len(p) for p in pages])
        assert sorted(n for p in pages for n in p) == list(range(2, 20)), size
        ordered = [n for p in seeded4.query_items("SELECT VALUE c.n FROM c ORDER BY c.n DESC",
                                                  enable_cross_partition_query=True,
                                                  max_item_count=size).by_page() for n in p]
        assert ordered == list(range(19, -1, -1)), size


def test_continuation_token_single_partition(container):
    seed(container, 25)
    query = "SELECT VALUE c.n FROM c ORDER BY c.n"
    pager = container.query_items(query, partition_key="p0", max_item_count=2).by_page()
    first = list(next(pager))
    token = pager.continuation_token
    assert first == [0, 5] and token, (first, token)
    rest = [n for page in container.query_items(query, partition_key="p0", max_item_count=2).by_page(token)
            for n in page]
    assert rest == [10, 15, 20]


def test_continuation_token_cross_partition(seeded4):
    query = "SELECT VALUE c.n FROM c WHERE c.n < 15"
    pager = seeded4.query_items(query, enable_cross_partition_query=True, max_item_count=4).by_page()
    first = list(next(pager))
    token = pager.continuation_token
    assert token, "a cross-partition query with more rows gives a continuation token"
    rest = [n for page in seeded4.query_items(query, enable_cross_partition_query=True,
                                              max_item_count=4).by_page(token) for n in page]
    assert sorted(first + rest) == list(range(15)), (first, rest)


def test_last_page_has_no_continuation(container):
    seed(container, 5)
    pager = container.query_items("SELECT * FROM c", partition_key="p0", max_item_count=10).by_page()
    list(next(pager))
    assert not pager.continuation_token


def test_query_by_feed_range(seeded4):
    ranges = list(seeded4.read_feed_ranges())
    assert len(ranges) == 4
    seen = []
    for feed_range in ranges:
        seen.extend(seeded4.query_items("SELECT VALUE c.n FROM c", feed_range=feed_range))
    assert sorted(seen) == list(range(20))


def test_hierarchical_prefix_query(make_container):
    container = make_container(pk=["/tenant", "/user"], partitions=4)
    for i in range(12):
        container.create_item({"id": f"h{i}", "tenant": f"t{i % 3}", "user": f"u{i % 2}", "n": i})
    assert sorted(container.query_items("SELECT VALUE c.n FROM c", partition_key=["t1"])) == [1, 4, 7, 10]
    assert sorted(container.query_items("SELECT VALUE c.n FROM c", partition_key=["t1", "u0"])) == [4, 10]
    assert list(container.query_items("SELECT VALUE COUNT(1) FROM c", partition_key=["t2", "u1"])) == [2]


def test_response_headers_and_charges(seeded4):
    hook = cs.Hook()
    pager = seeded4.query_items("SELECT * FROM c WHERE c.n < 10", enable_cross_partition_query=True, response_hook=hook)
    assert len(list(pager)) == 10
    assert hook.calls, "the query's response_hook was never called"
    for headers, _ in hook.calls:
        cs.charge(headers, "query page")
    headers = cs.lower(pager.get_response_headers())
    cs.charge(headers, "query (get_response_headers)")
    assert "x-ms-activity-id" in headers


def test_query_metrics(container):
    seed(container)
    pager = container.query_items("SELECT * FROM c WHERE c.color = 'red'", partition_key="p0",
                                  populate_query_metrics=True)
    rows = list(pager)
    headers = cs.lower(pager.get_response_headers())
    assert "x-ms-documentdb-query-metrics" in headers, sorted(headers)
    metrics = dict(part.split("=", 1) for part in headers["x-ms-documentdb-query-metrics"].split(";") if part)
    for key in ("totalExecutionTimeInMs", "queryCompileTimeInMs", "retrievedDocumentCount",
                "retrievedDocumentSize", "outputDocumentCount", "indexLookupTimeInMs"):
        assert key in metrics, f"{key} missing from query metrics {metrics}"
    assert int(metrics["outputDocumentCount"]) == len(rows)
    # Without the option there are none.
    pager = container.query_items("SELECT * FROM c", partition_key="p0")
    list(pager)
    assert "x-ms-documentdb-query-metrics" not in cs.lower(pager.get_response_headers())


def test_syntax_error_is_400_with_message(container):
    error = cs.expect_error(400, lambda: list(container.query_items("SELECT * FORM c", partition_key="p")))
    assert "Syntax error" in str(error), str(error)


def test_semantic_errors_are_400(container):
    for query in ("SELECT * FROM c WHERE NO_SUCH_FUNCTION(c.x)",
                  "SELECT * FROM c WHERE d.x = 1",
                  "SELECT ABS(1, 2) FROM c"):
        cs.expect_error(400, lambda q=query: list(container.query_items(q, partition_key="p")))


def test_query_on_missing_container_is_404(database):
    ghost = database.get_container_client(cs.uid("missing"))
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        list(ghost.query_items("SELECT * FROM c", enable_cross_partition_query=True))


def test_query_sees_current_versions_only(seeded4):
    seeded4.upsert_item({"id": "d03", "pk": "p3", "n": 103, "color": "gold"})
    seeded4.delete_item("d04", "p4")
    assert xq(seeded4, "SELECT VALUE c.id FROM c WHERE c.color = 'gold'") == ["d03"]
    assert xq(seeded4, "SELECT VALUE c.id FROM c WHERE c.n = 3 OR c.n = 4") == []
    assert xq(seeded4, "SELECT VALUE MAX(c.n) FROM c") == [103]
