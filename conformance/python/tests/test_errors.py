"""Error shapes through the SDK: the exception types and status/substatus codes, the JSON body
({code, message}) and headers an error carries, and the requests the service refuses (400, 404/1003)."""
import json

import pytest
from azure.core import MatchConditions
from azure.cosmos import PartitionKey, exceptions

import cosmos_support as cs


def body_of(error):
    """The service's error body as the SDK kept it (JSON with code and message)."""
    response = getattr(error, "response", None)
    text = response.text() if response is not None else error.http_error_message
    return json.loads(text)


def test_not_found_error_shape(container):
    with pytest.raises(exceptions.CosmosResourceNotFoundError) as caught:
        container.read_item("missing", "p")
    error = caught.value
    assert error.status_code == 404
    body = body_of(error)
    assert body["code"] == "NotFound" and body["message"], body
    headers = cs.lower(error.headers)
    assert headers.get("x-ms-activity-id"), sorted(headers)
    assert "x-ms-request-charge" in headers, sorted(headers)


def test_conflict_and_precondition_error_shapes(container):
    created = container.create_item({"id": "a", "pk": "p"})
    with pytest.raises(exceptions.CosmosResourceExistsError) as caught:
        container.create_item({"id": "a", "pk": "p"})
    assert body_of(caught.value)["code"] == "Conflict"
    container.replace_item("a", {"id": "a", "pk": "p", "v": 2})
    with pytest.raises(exceptions.CosmosAccessConditionFailedError) as caught:
        container.replace_item("a", {"id": "a", "pk": "p"}, etag=created["_etag"], match_condition=MatchConditions.IfNotModified)
    assert body_of(caught.value)["code"] == "PreconditionFailed"


def test_bad_request_body_for_a_bad_query(container):
    error = cs.expect_error(400, lambda: list(container.query_items("SELECT * FROM c WHERE", partition_key="p")))
    body = body_of(error)
    assert body["code"] == "BadRequest", body
    assert "Syntax error" in body["message"], body


def test_missing_or_empty_id_is_400(container):
    for doc in ({"pk": "p", "v": 1}, {"id": "", "pk": "p"}):
        error = cs.expect_error(400, container.create_item, doc)
        assert body_of(error)["code"] == "BadRequest"
    assert list(container.read_all_items()) == []


def test_item_in_a_container_deleted_by_another_client_is_404_1003(database):
    name = cs.uid("c")
    container = database.create_container(name, partition_key=PartitionKey(path="/pk"))
    container.create_item({"id": "a", "pk": "p"})
    other = cs.make_client()
    try:
        other.get_database_client(database.id).delete_container(name)
    finally:
        other.close()
    error = cs.expect_error(404, container.read_item, "a", "p")
    assert error.sub_status == 1003, f"a read in a missing container: substatus {error.sub_status}"


def test_unique_key_violation_on_replace_and_upsert_is_409(make_container):
    container = make_container(unique_key_policy={"uniqueKeys": [{"paths": ["/email"]}]})
    container.create_item({"id": "1", "pk": "p", "email": "a@x"})
    container.create_item({"id": "2", "pk": "p", "email": "b@x"})
    cs.expect_error(409, container.replace_item, "2", {"id": "2", "pk": "p", "email": "a@x"})
    cs.expect_error(409, container.upsert_item, {"id": "3", "pk": "p", "email": "a@x"})
    assert container.read_item("2", "p")["email"] == "b@x"


def test_wrong_partition_key_for_an_existing_id_is_404(container):
    container.create_item({"id": "a", "pk": "p"})
    cs.expect_error(404, container.read_item, "a", "q")
    cs.expect_error(404, container.delete_item, "a", "q")
    cs.expect_error(404, container.patch_item, "a", "q", [{"op": "set", "path": "/x", "value": 1}])
