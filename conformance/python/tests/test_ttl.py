"""Time to live: the container's default TTL (-1, N seconds, off) and the item's ttl (-1, N, ignored
while TTL is off). An expired item is gone from point reads, queries, the read feed and the change
feed (the server expires documents within about a second); turning TTL on later applies to the
items already there; an expired id can be created again."""
import time

import pytest
from azure.cosmos import PartitionKey, exceptions

import cosmos_support as cs


def ids(container):
    return sorted(container.query_items("SELECT VALUE c.id FROM c", enable_cross_partition_query=True))


def gone(container, item_id, pk):
    try:
        container.read_item(item_id, pk)
        return False
    except exceptions.CosmosResourceNotFoundError:
        return True


def test_item_ttl_under_default_minus_one(make_container):
    container = make_container(default_ttl=-1)
    container.create_item({"id": "short", "pk": "a", "ttl": 2})
    container.create_item({"id": "forever", "pk": "a", "ttl": -1})
    container.create_item({"id": "default", "pk": "b"})
    assert ids(container) == ["default", "forever", "short"]
    cs.wait_until(lambda: gone(container, "short", "a"), timeout=8, what="the ttl=2 item expiring")
    assert ids(container) == ["default", "forever"]
    assert sorted(d["id"] for d in container.read_all_items()) == ["default", "forever"]
    assert sorted(d["id"] for d in container.query_items_change_feed(start_time="Beginning")) == ["default", "forever"]
    # The expired id can be used again.
    container.create_item({"id": "short", "pk": "a"})
    assert container.read_item("short", "a")["id"] == "short"


def test_default_ttl_seconds_and_item_overrides(make_container):
    container = make_container(default_ttl=2)
    container.create_item({"id": "inherits", "pk": "p"})
    container.create_item({"id": "never", "pk": "p", "ttl": -1})
    container.create_item({"id": "longer", "pk": "p", "ttl": 600})
    cs.wait_until(lambda: gone(container, "inherits", "p"), timeout=8, what="the default TTL expiring an item")
    assert ids(container) == ["longer", "never"]


def test_item_ttl_is_ignored_while_ttl_is_off(container):
    container.create_item({"id": "kept", "pk": "p", "ttl": 1})
    assert "defaultTtl" not in container.read()
    time.sleep(2.5)
    assert container.read_item("kept", "p")["ttl"] == 1


def test_turning_ttl_on_later_applies_to_existing_items(database):
    container = database.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk"))
    container.create_item({"id": "old", "pk": "p"})
    container.create_item({"id": "own", "pk": "p", "ttl": 600})
    database.replace_container(container, partition_key=PartitionKey(path="/pk"), default_ttl=1)
    cs.wait_until(lambda: gone(container, "old", "p"), timeout=8, what="an existing item expiring after TTL was turned on")
    assert ids(container) == ["own"]


def test_ttl_values_are_validated(make_container):
    container = make_container(default_ttl=-1)
    for bad in (0, -2, "10"):
        with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
            container.create_item({"id": cs.uid("bad"), "pk": "p", "ttl": bad})
        assert caught.value.status_code == 400, f"ttl={bad!r}: {caught.value}"
