"""Account keys: a read-only key reads and queries, and its writes are refused with 401 (the service
answers them as a wrong signature: learn.microsoft.com, troubleshoot-unauthorized); a secondary key
writes. Needs a server of its own, started with the keys (plain HTTP, in memory)."""
import base64
import os
import socket
import subprocess
import time
import urllib.request

import pytest
from azure.cosmos import CosmosClient, PartitionKey, exceptions

import cosmos_support as cs

READ_ONLY_KEY = base64.b64encode(b"a read-only key for the Python suite").decode()
SECONDARY_KEY = base64.b64encode(b"a secondary key for the Python suite").decode()


@pytest.fixture
def keyed_server():
    """The endpoint of a cosmolite started with --read-only-key and --secondary-key."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    binary = os.environ["COSMOLITE_BIN"]
    process = subprocess.Popen([binary, "--port", str(port), "--in-memory", "--no-tls", "--log-level", "warn",
                                "--read-only-key", READ_ONLY_KEY, "--secondary-key", SECONDARY_KEY])
    endpoint = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(200):
            try:
                with urllib.request.urlopen(endpoint + "ready", timeout=1):
                    break
            except OSError:
                time.sleep(0.02)
        yield endpoint
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.managed
def test_read_only_key_reads_and_queries_and_its_writes_get_401(keyed_server):
    writer = CosmosClient(keyed_server, cs.KEY)
    container = writer.create_database("keys").create_container("c", PartitionKey(path="/pk"))
    container.create_item({"id": "a", "pk": "p", "n": 1})

    reader = CosmosClient(keyed_server, READ_ONLY_KEY).get_database_client("keys").get_container_client("c")
    assert reader.read_item("a", partition_key="p")["n"] == 1
    assert list(reader.query_items("SELECT VALUE c.n FROM c", enable_cross_partition_query=True)) == [1]
    for write in (lambda: reader.create_item({"id": "b", "pk": "p"}),
                  lambda: reader.upsert_item({"id": "a", "pk": "p", "n": 2}),
                  lambda: reader.delete_item("a", partition_key="p")):
        with pytest.raises(exceptions.CosmosHttpResponseError) as refused:
            write()
        assert refused.value.status_code == 401

    secondary = CosmosClient(keyed_server, SECONDARY_KEY).get_database_client("keys").get_container_client("c")
    secondary.create_item({"id": "b", "pk": "p"})
    ids = sorted(container.query_items("SELECT VALUE c.id FROM c", enable_cross_partition_query=True))
    assert ids == ["a", "b"]
    assert container.read_item("a", partition_key="p")["n"] == 1
