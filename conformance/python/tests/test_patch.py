"""Partial document update (patch_item): every operation, escaping, the refused cases (400, nothing
changed), 404, filter_predicate conditions (412), If-Match, and what queries, the change feed and
unique keys see afterwards."""
import pytest
from azure.core import MatchConditions
from azure.cosmos import exceptions

import cosmos_support as cs

PRODUCT = {"id": "bike", "pk": "road", "name": "R-410 Road Bicycle", "price": 455.95,
           "inventory": {"quantity": 15}, "used": False, "tags": ["r-series"]}


@pytest.fixture
def product(container):
    return container, container.create_item(dict(PRODUCT))


def refused(container, created, operations, status, what, **kwargs):
    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        container.patch_item("bike", "road", operations, **kwargs)
    assert caught.value.status_code == status, f"{what}: {caught.value}"
    assert container.read_item("bike", "road")["_etag"] == created["_etag"], f"{what}: the document changed"
    return caught.value


def test_documented_example(product):
    container, created = product
    patched = container.patch_item("bike", "road", [
        {"op": "add", "path": "/color", "value": "silver"},
        {"op": "remove", "path": "/used"},
        {"op": "set", "path": "/price", "value": 355.45},
        {"op": "incr", "path": "/inventory/quantity", "value": 10},
        {"op": "add", "path": "/tags/-", "value": "featured-bikes"},
        {"op": "move", "from": "/color", "path": "/inventory/color"},
    ])
    headers = cs.lower(patched.get_response_headers())
    cs.charge(headers, "patch")
    assert headers.get("x-ms-session-token")
    assert cs.user_properties(patched) == {
        "id": "bike", "pk": "road", "name": "R-410 Road Bicycle", "price": 355.45,
        "inventory": {"quantity": 25, "color": "silver"}, "tags": ["r-series", "featured-bikes"]}
    assert patched["_etag"] != created["_etag"] and headers["etag"] == patched["_etag"]
    assert patched["_rid"] == created["_rid"]
    assert dict(container.read_item("bike", "road")) == dict(patched)


def test_add_inserts_into_arrays_and_replaces_properties(product):
    container, _ = product
    patched = container.patch_item("bike", "road", [
        {"op": "add", "path": "/tags/0", "value": "first"},
        {"op": "add", "path": "/tags/2", "value": "last"},
        {"op": "add", "path": "/name", "value": "renamed"},
        {"op": "set", "path": "/tags/1", "value": "middle"},
    ])
    assert patched["tags"] == ["first", "middle", "last"]
    assert patched["name"] == "renamed"


def test_replace_and_remove(product):
    container, _ = product
    patched = container.patch_item("bike", "road", [
        {"op": "replace", "path": "/inventory/quantity", "value": 3},
        {"op": "add", "path": "/tags/-", "value": "b"},
        {"op": "remove", "path": "/tags/0"},
        {"op": "replace", "path": "/tags/0", "value": "c"},
    ])
    assert patched["inventory"]["quantity"] == 3
    assert patched["tags"] == ["c"]


def test_incr_integers_floats_and_missing(product):
    container, _ = product
    patched = container.patch_item("bike", "road", [
        {"op": "incr", "path": "/inventory/quantity", "value": -20},
        {"op": "incr", "path": "/price", "value": 0.05},
        {"op": "incr", "path": "/views", "value": 7},
    ])
    assert patched["inventory"]["quantity"] == -5 and isinstance(patched["inventory"]["quantity"], int)
    assert abs(patched["price"] - 456.0) < 1e-9
    assert patched["views"] == 7


def test_escaped_property_names(product):
    container, _ = product
    patched = container.patch_item("bike", "road", [
        {"op": "add", "path": "/a~1b", "value": 1},
        {"op": "add", "path": "/c~0d", "value": 2},
    ])
    assert patched["a/b"] == 1 and patched["c~d"] == 2


def test_operations_that_cannot_apply_are_400(product):
    container, created = product
    cases = {
        "replace of a missing path": [{"op": "replace", "path": "/missing", "value": 1}],
        "remove of a missing path": [{"op": "remove", "path": "/missing"}],
        "add below a missing parent": [{"op": "add", "path": "/no/such/parent", "value": 1}],
        "add past the end of an array": [{"op": "add", "path": "/tags/5", "value": "x"}],
        "incr of a string": [{"op": "incr", "path": "/name", "value": 1}],
        "move from a missing path": [{"op": "move", "from": "/missing", "path": "/x"}],
        "a failing second operation": [{"op": "set", "path": "/price", "value": 1}, {"op": "remove", "path": "/missing"}],
    }
    for what, operations in cases.items():
        refused(container, created, operations, 400, what)


def test_malformed_and_forbidden_operations_are_400(product):
    container, created = product
    eleven = [{"op": "set", "path": f"/p{i}", "value": i} for i in range(11)]
    refused(container, created, eleven, 400, "11 operations")
    refused(container, created, [{"op": "frobnicate", "path": "/x", "value": 1}], 400, "an unknown op")
    refused(container, created, [{"op": "set", "path": "x", "value": 1}], 400, "a path without '/'")
    refused(container, created, [{"op": "set", "path": "/id", "value": "other"}], 400, "the id")
    refused(container, created, [{"op": "set", "path": "/pk", "value": "other"}], 400, "the partition key")
    refused(container, created, [{"op": "remove", "path": "/_etag"}], 400, "a system property")
    ten = [{"op": "set", "path": f"/p{i}", "value": i} for i in range(10)]
    assert container.patch_item("bike", "road", ten)["p9"] == 9


def test_missing_item_is_404(product):
    container, _ = product
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.patch_item("nope", "road", [{"op": "set", "path": "/a", "value": 1}])


def test_filter_predicate(product):
    container, created = product
    refused(container, created, [{"op": "set", "path": "/price", "value": 1}], 412, "a false condition",
            filter_predicate="from c where c.inventory.quantity > 100")
    patched = container.patch_item("bike", "road", [{"op": "set", "path": "/price", "value": 1}],
                                   filter_predicate="FROM products p WHERE p.used = false AND ARRAY_CONTAINS(p.tags, 'r-series')")
    assert patched["price"] == 1
    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        container.patch_item("bike", "road", [{"op": "set", "path": "/a", "value": 1}], filter_predicate="from c where")
    assert caught.value.status_code == 400


def test_if_match(product):
    container, created = product
    container.patch_item("bike", "road", [{"op": "set", "path": "/price", "value": 1}],
                         etag=created["_etag"], match_condition=MatchConditions.IfNotModified)
    with pytest.raises(exceptions.CosmosAccessConditionFailedError):
        container.patch_item("bike", "road", [{"op": "set", "path": "/price", "value": 2}],
                             etag=created["_etag"], match_condition=MatchConditions.IfNotModified)
    assert container.read_item("bike", "road")["price"] == 1


def test_queries_change_feed_and_unique_keys_see_the_patch(make_container):
    container = make_container(unique_key_policy={"uniqueKeys": [{"paths": ["/sku"]}]})
    container.create_item(dict(PRODUCT))
    container.create_item({"id": "other", "pk": "road", "sku": "taken"})
    container.patch_item("bike", "road", [{"op": "set", "path": "/price", "value": 99},
                                          {"op": "add", "path": "/sku", "value": "mine"}])
    assert list(container.query_items("SELECT VALUE c.id FROM c WHERE c.price = 99", partition_key="road")) == ["bike"]
    assert list(container.query_items("SELECT VALUE c.id FROM c WHERE c.price = 455.95", partition_key="road")) == []
    with pytest.raises(exceptions.CosmosResourceExistsError):
        container.patch_item("bike", "road", [{"op": "set", "path": "/sku", "value": "taken"}])
    bike = [d for d in container.query_items_change_feed(start_time="Beginning") if d["id"] == "bike"]
    assert len(bike) == 1 and bike[0]["price"] == 99


def test_patch_with_no_response(product, wire):
    container, _ = product
    result = container.patch_item("bike", "road", [{"op": "set", "path": "/price", "value": 5}], no_response=True)
    assert dict(result) == {}
    assert container.read_item("bike", "road")["price"] == 5
