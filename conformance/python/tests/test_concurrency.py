"""Concurrent clients: optimistic concurrency with etags under contention (every increment lands
once, losers get 412), and parallel writers to many partitions."""
import threading

from azure.core import MatchConditions
from azure.cosmos import exceptions

import cosmos_support as cs

THREADS = 6
INCREMENTS = 8


def test_etag_guarded_counter_under_contention(container):
    container.create_item({"id": "counter", "pk": "p", "n": 0})
    conflicts = []
    errors = []

    def worker():
        client = cs.make_client()
        try:
            proxy = client.get_database_client(container.container_link.split("/")[1]).get_container_client(container.id)
            done = 0
            while done < INCREMENTS:
                current = proxy.read_item("counter", "p")
                try:
                    proxy.replace_item("counter", {"id": "counter", "pk": "p", "n": current["n"] + 1},
                                       etag=current["_etag"], match_condition=MatchConditions.IfNotModified)
                    done += 1
                except exceptions.CosmosAccessConditionFailedError:
                    conflicts.append(1)
        except Exception as error:  # reported below; a thread cannot fail the test itself
            errors.append(error)
        finally:
            client.close()

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    assert not errors, errors
    assert container.read_item("counter", "p")["n"] == THREADS * INCREMENTS
    assert conflicts, "six writers racing on one etag never met a 412"


def test_parallel_writers_to_many_partitions(container4):
    errors = []

    def worker(index):
        try:
            for i in range(20):
                container4.upsert_item({"id": f"w{index}-{i}", "pk": f"k{i % 7}", "v": i})
        except Exception as error:
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(index,)) for index in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    assert not errors, errors
    assert list(container4.query_items("SELECT VALUE COUNT(1) FROM c", enable_cross_partition_query=True)) == [THREADS * 20]
