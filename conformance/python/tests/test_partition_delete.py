"""delete_all_items_by_partition_key: one logical partition goes and no other; hierarchical
prefixes; an empty partition; a missing container; the all-versions change feed records each
delete."""
import pytest
from azure.cosmos import exceptions

import cosmos_support as cs


def ids(container):
    return sorted(container.query_items("SELECT VALUE c.id FROM c", enable_cross_partition_query=True))


def test_deletes_that_partition_only(container4):
    for item_id, pk in (("1", "WA"), ("2", "WA"), ("3", "WA"), ("4", "IL"), ("5", "IL")):
        container4.create_item({"id": item_id, "pk": pk, "city": f"city {item_id}"})
    hook = cs.Hook()
    container4.delete_all_items_by_partition_key("WA", response_hook=hook)
    cs.charge(hook.headers, "delete by partition key")
    assert ids(container4) == ["4", "5"]
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container4.read_item("1", "WA")
    assert container4.read_item("4", "IL")["city"] == "city 4"
    container4.create_item({"id": "1", "pk": "WA"})
    assert container4.read_item("1", "WA")["id"] == "1"


def test_hierarchical_prefix_and_full_key(make_container):
    container = make_container(pk=["/tenant", "/user"])
    for item_id, tenant, user in (("1", "a", "x"), ("2", "a", "y"), ("3", "b", "x"), ("4", "b", "y")):
        container.create_item({"id": item_id, "tenant": tenant, "user": user})
    container.delete_all_items_by_partition_key(["a"])
    assert ids(container) == ["3", "4"]
    container.delete_all_items_by_partition_key(["b", "x"])
    assert ids(container) == ["4"]


def test_empty_partition_and_missing_container(database, container):
    container.delete_all_items_by_partition_key("nobody")
    ghost = database.get_container_client(cs.uid("missing"))
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        ghost.delete_all_items_by_partition_key("x")


def test_all_versions_change_feed_records_each_delete(make_container):
    container = make_container(change_feed_policy={"retentionDuration": 10})
    list(container.query_items_change_feed(mode="AllVersionsAndDeletes"))
    token = container.client_connection.last_response_headers["etag"]
    container.create_item({"id": "1", "pk": "WA"})
    container.create_item({"id": "2", "pk": "WA"})
    container.create_item({"id": "3", "pk": "OR"})
    container.delete_all_items_by_partition_key("WA")
    changes = list(container.query_items_change_feed(mode="AllVersionsAndDeletes", continuation=token))
    deletes = [c for c in changes if c["metadata"]["operationType"] == "delete"]
    assert sorted(c["metadata"]["id"] for c in deletes) == ["1", "2"]
    for change in deletes:
        assert change["metadata"]["partitionKey"] == {"pk": "WA"}, change
