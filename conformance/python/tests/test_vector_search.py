"""Vector search through azure-cosmos: a container with a vector embedding policy and a vector index,
VectorDistance scores, and TOP k ORDER BY VectorDistance in one logical partition and across four
physical partitions (the SDK asks for the query plan and merges each range's top k)."""
import math

import pytest
from azure.cosmos import PartitionKey, exceptions

DIMENSIONS = 6
INDEXING = {"indexingMode": "consistent", "automatic": True, "includedPaths": [{"path": "/*"}],
            "excludedPaths": [{"path": '/"_etag"/?'}, {"path": "/embedding/*"}],
            "vectorIndexes": [{"path": "/embedding", "type": "flat"}]}
QUERY_VECTOR = [0.8, 0.1, 0.0, 0.3, 0.0, 0.2]


def policy(distance_function):
    return {"vectorEmbeddings": [{"path": "/embedding", "dataType": "float32", "dimensions": DIMENSIONS,
                                  "distanceFunction": distance_function}]}


def vector_of(i):
    v = [((i * 7 + d * 3) % 10) / 50 for d in range(DIMENSIONS)]
    v[i % DIMENSIONS] += 1
    return v


def score(metric, x, y):
    dot = sum(a * b for a, b in zip(x, y))
    if metric == "dotproduct":
        return dot
    if metric == "euclidean":
        return math.sqrt(sum((a - b) ** 2 for a, b in zip(x, y)))
    return dot / (math.sqrt(sum(a * a for a in x)) * math.sqrt(sum(b * b for b in y)))


def seeded(make_container, metric, partitions=1):
    container = make_container(partitions=partitions, vector_embedding_policy=policy(metric), indexing_policy=INDEXING)
    docs = [{"id": f"d{i}", "pk": f"p{i % 4}", "embedding": vector_of(i)} for i in range(30)]
    for doc in docs:
        container.create_item(doc)
    return container, docs


def expected_top(docs, metric, k, keep=lambda d: True):
    ranked = sorted((d for d in docs if keep(d)), key=lambda d: score(metric, d["embedding"], QUERY_VECTOR),
                    reverse=metric != "euclidean")
    return [(d["id"], score(metric, d["embedding"], QUERY_VECTOR)) for d in ranked[:k]]


def assert_same(rows, expected):
    # The container keeps embeddings as float32 (the policy's dataType) and scores them in float32,
    # as the service does: scores agree with these double-precision ones to about 1e-7.
    assert [r["id"] for r in rows] == [e[0] for e in expected]
    for row, (_, value) in zip(rows, expected):
        assert row["score"] == pytest.approx(value, abs=1e-6)


TOP_QUERY = ("SELECT TOP {k} c.id, VectorDistance(c.embedding, @q) AS score FROM c "
             "ORDER BY VectorDistance(c.embedding, @q)")


@pytest.mark.parametrize("metric", ["cosine", "dotproduct", "euclidean"])
def test_top_k_by_vector_distance_lists_the_most_similar_first(make_container, metric):
    container, docs = seeded(make_container, metric)
    properties = container.read()
    assert properties["vectorEmbeddingPolicy"] == policy(metric)
    assert properties["indexingPolicy"]["vectorIndexes"] == INDEXING["vectorIndexes"]
    rows = list(container.query_items(TOP_QUERY.format(k=5), parameters=[{"name": "@q", "value": QUERY_VECTOR}],
                                      enable_cross_partition_query=True))
    assert_same(rows, expected_top(docs, metric, 5))


def test_vector_search_across_four_physical_partitions_and_in_one_logical_partition(make_container):
    container, docs = seeded(make_container, "cosine", partitions=4)
    parameters = [{"name": "@q", "value": QUERY_VECTOR}]
    rows = list(container.query_items(TOP_QUERY.format(k=6), parameters=parameters, enable_cross_partition_query=True))
    assert_same(rows, expected_top(docs, "cosine", 6))
    rows = list(container.query_items(TOP_QUERY.format(k=3), parameters=parameters, partition_key="p1"))
    assert_same(rows, expected_top(docs, "cosine", 3, keep=lambda d: d["pk"] == "p1"))


def test_an_index_without_its_embedding_is_refused(database):
    with pytest.raises(exceptions.CosmosHttpResponseError) as refused:
        database.create_container(id="refused", partition_key=PartitionKey(path="/pk"),
                                  indexing_policy={"vectorIndexes": [{"path": "/vector1", "type": "flat"}]})
    assert refused.value.status_code == 400
    assert "vector1 not matching in Embedding's path" in refused.value.http_error_message
