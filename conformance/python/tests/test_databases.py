"""Databases: create, read, list, query, create-if-not-exists, delete; 409 and 404; shared throughput."""
import pytest
from azure.cosmos import PartitionKey, ThroughputProperties, exceptions

import cosmos_support as cs


def test_create_returns_system_properties(client, databases):
    database_id = cs.uid("db")
    hook = cs.Hook()
    database = client.create_database(database_id, response_hook=hook)
    databases.ids.append(database_id)
    properties = database.read()
    assert properties["id"] == database_id
    for key in ("_rid", "_self", "_etag", "_ts"):
        assert key in properties, f"{key} missing from {properties}"
    assert properties["_self"] == f"dbs/{properties['_rid']}/"
    cs.charge(hook.headers, "create database")


def test_create_existing_is_409(client, database):
    with pytest.raises(exceptions.CosmosResourceExistsError) as caught:
        client.create_database(database.id)
    assert caught.value.status_code == 409


def test_read_and_read_missing(client, database):
    first = database.read()
    again = client.get_database_client(database.id).read()
    assert again["_rid"] == first["_rid"]
    missing = client.get_database_client(cs.uid("missing"))
    with pytest.raises(exceptions.CosmosResourceNotFoundError) as caught:
        missing.read()
    assert caught.value.status_code == 404


def test_list_and_query(client, databases):
    ids = [databases.create().id for _ in range(3)]
    listed = {d["id"] for d in client.list_databases()}
    assert set(ids) <= listed
    found = list(client.query_databases(query="SELECT * FROM root r WHERE r.id = @id",
                                        parameters=[{"name": "@id", "value": ids[1]}]))
    assert [d["id"] for d in found] == [ids[1]]
    assert list(client.query_databases(query="SELECT * FROM root r WHERE r.id = @id",
                                       parameters=[{"name": "@id", "value": cs.uid("nodb")}])) == []
    # Paging through the feed with a small page size still lists every database once.
    paged = [d["id"] for page in client.list_databases(max_item_count=1).by_page() for d in page]
    assert len(paged) == len(set(paged)) and set(ids) <= set(paged)


def test_create_if_not_exists_twice(client, databases):
    database_id = cs.uid("db")
    databases.ids.append(database_id)
    first = client.create_database_if_not_exists(database_id).read()
    second = client.create_database_if_not_exists(database_id).read()
    assert first["_rid"] == second["_rid"]


def test_delete_then_404(client, databases):
    database = databases.create()
    client.delete_database(database.id)
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        database.read()
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        client.delete_database(database.id)


def test_delete_removes_containers_and_items(client, databases):
    database = databases.create()
    container = database.create_container("c", partition_key=PartitionKey(path="/pk"))
    container.create_item({"id": "a", "pk": "p"})
    client.delete_database(database.id)
    again = client.create_database(database.id)
    assert list(again.list_containers()) == []
    fresh = again.create_container("c", partition_key=PartitionKey(path="/pk"))
    assert list(fresh.read_all_items()) == []


def test_id_of_256_characters_is_400(client, databases):
    database_id = "d" * 256
    try:
        client.create_database(database_id)
    except exceptions.CosmosHttpResponseError as error:
        assert error.status_code == 400, error
        return
    databases.ids.append(database_id)
    pytest.fail("a 256-character database id was accepted (the service limit is 255)")


def test_shared_throughput_database(client, databases):
    database = databases.create(offer_throughput=400)
    throughput = database.get_throughput()
    assert throughput.offer_throughput == 400
    replaced = database.replace_throughput(1000)
    assert replaced.offer_throughput == 1000
    assert database.get_throughput().offer_throughput == 1000
    container = database.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk"))
    # A container without its own throughput shares the database's and has no offer of its own.
    cs.expect_no_offer(container.get_throughput)


def test_autoscale_database(client, databases):
    database = databases.create(offer_throughput=ThroughputProperties(auto_scale_max_throughput=4000))
    throughput = database.get_throughput()
    assert throughput.auto_scale_max_throughput == 4000, throughput.properties
    autopilot = throughput.properties["content"]["offerAutopilotSettings"]
    assert autopilot["maxThroughput"] == 4000
