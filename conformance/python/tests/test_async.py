"""The async client (azure.cosmos.aio over aiohttp): CRUD, a cross-partition query, the change feed,
patch, batch and throughput, against the same endpoint with the same certificate handling."""
import asyncio

import pytest
from azure.core.pipeline.transport import AioHttpTransport
from azure.cosmos import PartitionKey, exceptions
from azure.cosmos.aio import CosmosClient

import cosmos_support as cs


class _Transport(AioHttpTransport):
    """azure-cosmos passes the SSLConfiguration's client certificate as connection_cert=(None, None);
    azure-core's aiohttp transport then calls load_cert_chain(None, None) and fails ("certfile should
    be a valid filesystem path"). No client certificate is meant: drop the empty pair."""

    def _build_ssl_config(self, cert, verify):  # pylint: disable=arguments-renamed
        if cert and not any(cert):
            cert = None
        return super()._build_ssl_config(cert, verify)


def make_async_client():
    kwargs = cs.tls_kwargs()
    if kwargs:
        kwargs["transport"] = _Transport()
    return CosmosClient(cs.ENDPOINT, credential=cs.KEY, **kwargs)


def run(coroutine):
    return asyncio.run(coroutine)


async def with_database(body):
    async with make_async_client() as client:
        database = await client.create_database(cs.uid("adb"))
        try:
            await body(client, database)
        finally:
            await client.delete_database(database.id)


def test_async_crud_and_errors():
    async def body(client, database):
        container = await database.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk"))
        created = await container.create_item({"id": "a", "pk": "p", "v": 1})
        cs.system_properties_ok(created, "async create")
        cs.charge(created.get_response_headers(), "async create")
        assert (await container.read_item("a", "p"))["v"] == 1
        replaced = await container.replace_item("a", {"id": "a", "pk": "p", "v": 2})
        assert replaced["_etag"] != created["_etag"]
        await container.upsert_item({"id": "b", "pk": "p", "v": 3})
        with pytest.raises(exceptions.CosmosResourceExistsError):
            await container.create_item({"id": "a", "pk": "p"})
        await container.delete_item("a", "p")
        with pytest.raises(exceptions.CosmosResourceNotFoundError):
            await container.read_item("a", "p")
    run(with_database(body))


def test_async_cross_partition_query_and_change_feed():
    async def body(client, database):
        container = await database.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk"),
                                                    offer_throughput=40_000)
        for i in range(12):
            await container.create_item({"id": f"d{i}", "pk": f"p{i % 5}", "n": i})
        ordered = [n async for n in container.query_items("SELECT VALUE c.n FROM c ORDER BY c.n DESC")]
        assert ordered == list(range(11, -1, -1))
        count = [n async for n in container.query_items("SELECT VALUE COUNT(1) FROM c")]
        assert count == [12]
        top = [n async for n in container.query_items("SELECT TOP 3 VALUE c.n FROM c ORDER BY c.n",
                                                       max_item_count=1)]
        assert top == [0, 1, 2]
        ranges = [r async for r in container.read_feed_ranges()]
        assert len(ranges) == 4
        changes = [d async for d in container.query_items_change_feed(start_time="Beginning")]
        assert sorted(d["n"] for d in changes) == list(range(12))
        scoped = [d async for d in container.query_items_change_feed(start_time="Beginning", partition_key="p1")]
        assert sorted(d["n"] for d in scoped) == [1, 6, 11]
    run(with_database(body))


def test_async_patch_batch_partition_delete_and_throughput():
    async def body(client, database):
        container = await database.create_container(cs.uid("c"), partition_key=PartitionKey(path="/pk"))
        await container.create_item({"id": "a", "pk": "p", "n": 1})
        patched = await container.patch_item("a", "p", [{"op": "incr", "path": "/n", "value": 4}],
                                             filter_predicate="from c where c.n = 1")
        assert patched["n"] == 5
        with pytest.raises(exceptions.CosmosAccessConditionFailedError):
            await container.patch_item("a", "p", [{"op": "incr", "path": "/n", "value": 4}],
                                       filter_predicate="from c where c.n = 1")
        results = await container.execute_item_batch([
            ("create", ({"id": "b", "pk": "p"},)),
            ("read", ("a",)),
        ], partition_key="p")
        assert [r["statusCode"] for r in results] == [201, 200]
        with pytest.raises(exceptions.CosmosBatchOperationError) as caught:
            await container.execute_item_batch([("create", ({"id": "c", "pk": "p"},)), ("create", ({"id": "b", "pk": "p"},))],
                                               partition_key="p")
        assert [r["statusCode"] for r in caught.value.operation_responses] == [424, 409]
        await container.delete_all_items_by_partition_key("p")
        assert [d async for d in container.read_all_items()] == []
        throughput = await container.get_throughput()
        assert throughput.offer_throughput == 400
        await container.replace_throughput(500)
        assert (await container.get_throughput()).offer_throughput == 500
    run(with_database(body))
