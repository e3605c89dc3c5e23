"""Server-side JavaScript through azure-cosmos: a stored procedure that writes in its partition as one
transaction (created documents committed, a throw rolling everything back with the thrown number as the
substatus), script logging, and a pre-trigger that stamps the document a create writes and one that
refuses it (`pre_trigger_include`)."""
import urllib.parse

import pytest
from azure.cosmos import exceptions

import cosmos_support as cs

IMPORT = """function importAll(docs, failAfter) {
  const collection = getContext().getCollection();
  let count = 0;
  const next = () => {
    if (count === failAfter) throw new Error(409, "stopping after " + count);
    if (count === docs.length) return getContext().getResponse().setBody({ count });
    const accepted = collection.createDocument(collection.getSelfLink(), docs[count], (err) => {
      if (err) throw err;
      console.log("created %s", docs[count].id);
      count++;
      next();
    });
    if (!accepted) getContext().getResponse().setBody({ count });
  };
  next();
}"""

STAMP = """function stamp() {
  const request = getContext().getRequest();
  const doc = request.getBody();
  if (doc.forbidden) throw new Error("forbidden documents are refused");
  doc.stamped = request.getOperationType();
  request.setBody(doc);
}"""


def test_stored_procedure_writes_one_transaction(container):
    scripts = container.scripts
    scripts.create_stored_procedure({"id": "importAll", "body": IMPORT})
    docs = [{"id": f"d{i}", "pk": "p"} for i in range(3)]
    result = scripts.execute_stored_procedure("importAll", partition_key="p", params=[docs, -1],
                                              enable_script_logging=True)
    assert result == {"count": 3}
    headers = cs.lower(container.client_connection.last_response_headers)
    cs.charge(headers, "execute")
    logged = urllib.parse.unquote(headers["x-ms-documentdb-script-log-results"])
    assert logged == "created d0\ncreated d1\ncreated d2"
    assert sorted(d["id"] for d in container.query_items("SELECT * FROM c", partition_key="p")) == ["d0", "d1", "d2"]

    more = [{"id": f"e{i}", "pk": "p"} for i in range(3)]
    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        scripts.execute_stored_procedure("importAll", partition_key="p", params=[more, 2])
    assert caught.value.status_code == 400
    assert caught.value.sub_status == 409
    assert "stopping after 2" in str(caught.value)
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("e0", "p")


def test_pre_trigger_stamps_and_refuses(container):
    container.scripts.create_trigger({"id": "stamp", "body": STAMP, "triggerType": "Pre",
                                      "triggerOperation": "All"})
    created = container.create_item({"id": "a", "pk": "p"}, pre_trigger_include="stamp")
    assert created["stamped"] == "Create"
    assert container.read_item("a", "p")["stamped"] == "Create"
    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        container.create_item({"id": "b", "pk": "p", "forbidden": True}, pre_trigger_include="stamp")
    assert caught.value.status_code == 400
    assert "forbidden documents are refused" in str(caught.value)
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("b", "p")
