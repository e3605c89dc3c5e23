// Transactional batch: NewTransactionalBatch / ExecuteTransactionalBatch. Success applies every
// operation; a failing operation rolls everything back, the response has Success=false, the
// failing operation's status and 424 Failed Dependency for the others.
package conformance

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func azcore_ETag(s string) azcore.ETag { return azcore.ETag(s) }

func TestBatch_EveryOperationSucceeds(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	existing := createItem(t, container, pk("p"), doc{"id": "existing", "pk": "p", "v": 1.0})
	createItem(t, container, pk("p"), doc{"id": "doomed", "pk": "p"})
	createItem(t, container, pk("p"), doc{"id": "patched", "pk": "p", "n": 1})

	batch := container.NewTransactionalBatch(pk("p"))
	batch.CreateItem(mustJSON(t, doc{"id": "new", "pk": "p", "v": 1.0}), nil)
	batch.UpsertItem(mustJSON(t, doc{"id": "upserted", "pk": "p"}), nil)
	etag := existing.ETag
	batch.ReplaceItem("existing", mustJSON(t, doc{"id": "existing", "pk": "p", "v": 2.0}),
		&azcosmos.TransactionalBatchItemOptions{IfMatchETag: &etag})
	batch.ReadItem("existing", nil)
	batch.DeleteItem("doomed", nil)
	ops := azcosmos.PatchOperations{}
	ops.AppendIncrement("/n", 5)
	batch.PatchItem("patched", ops, nil)

	response, err := container.ExecuteTransactionalBatch(ctx(), batch, nil)
	noErr(t, err, "execute batch")
	ok(t, response.Success, "the batch succeeds")
	eq(t, response.RawResponse.StatusCode, http.StatusOK, "batch status")
	ok(t, response.SessionToken != "", "batch session token")
	ok(t, response.RequestCharge > 0, "batch request charge")
	eq(t, len(response.OperationResults), 6, "one result per operation")
	statuses := []int32{}
	for _, r := range response.OperationResults {
		statuses = append(statuses, r.StatusCode)
		ok(t, r.RequestCharge > 0, "each operation has a request charge")
	}
	deepEq(t, statuses, []int32{201, 201, 200, 200, 204, 200}, "per-operation statuses")
	// The read returns the replaced document (operations apply in order); a Read forces content.
	read := decode(t, response.OperationResults[3].ResourceBody)
	eq(t, read["v"], any(2.0), "the batch's read sees the batch's replace")
	ok(t, response.OperationResults[0].ETag != "", "a create result carries its etag")

	eq(t, readItem(t, container, pk("p"), "new")["v"], any(1.0), "created")
	eq(t, readItem(t, container, pk("p"), "existing")["v"], any(2.0), "replaced")
	eq(t, readItem(t, container, pk("p"), "patched")["n"], any(6.0), "patched")
	_, err = container.ReadItem(ctx(), pk("p"), "doomed", nil)
	expectError(t, err, http.StatusNotFound, -1, "deleted by the batch")
}

func TestBatch_AFailingOperationRollsEverythingBack(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	createItem(t, container, pk("p"), doc{"id": "dup", "pk": "p", "v": 1.0})
	createItem(t, container, pk("p"), doc{"id": "kept", "pk": "p", "v": 1.0})

	batch := container.NewTransactionalBatch(pk("p"))
	batch.CreateItem(mustJSON(t, doc{"id": "new", "pk": "p"}), nil)
	batch.ReplaceItem("kept", mustJSON(t, doc{"id": "kept", "pk": "p", "v": 2.0}), nil)
	batch.CreateItem(mustJSON(t, doc{"id": "dup", "pk": "p", "v": 2.0}), nil) // 409
	batch.DeleteItem("kept", nil)
	response, err := container.ExecuteTransactionalBatch(ctx(), batch, nil)
	noErr(t, err, "a failed batch is a response, not an error")
	ok(t, !response.Success, "Success is false")
	eq(t, response.RawResponse.StatusCode, http.StatusMultiStatus, "batch status")
	statuses := []int32{}
	for _, r := range response.OperationResults {
		statuses = append(statuses, r.StatusCode)
	}
	deepEq(t, statuses, []int32{424, 424, 409, 424}, "the failing operation's status and 424 for the others")

	_, err = container.ReadItem(ctx(), pk("p"), "new", nil)
	expectError(t, err, http.StatusNotFound, -1, "the batch's create was rolled back")
	eq(t, readItem(t, container, pk("p"), "kept")["v"], any(1.0), "the batch's replace was rolled back")
	eq(t, readItem(t, container, pk("p"), "dup")["v"], any(1.0), "the duplicate kept its value")
}

func TestBatch_StaleIfMatchFailsWith412(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	created := createItem(t, container, pk("p"), doc{"id": "x", "pk": "p", "v": 1.0})
	stale := created.ETag
	_, err := container.ReplaceItem(ctx(), pk("p"), "x", mustJSON(t, doc{"id": "x", "pk": "p", "v": 2.0}), nil)
	noErr(t, err, "replace")
	batch := container.NewTransactionalBatch(pk("p"))
	batch.CreateItem(mustJSON(t, doc{"id": "y", "pk": "p"}), nil)
	batch.ReplaceItem("x", mustJSON(t, doc{"id": "x", "pk": "p", "v": 3.0}), &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &stale})
	response, err := container.ExecuteTransactionalBatch(ctx(), batch, nil)
	noErr(t, err, "execute")
	ok(t, !response.Success, "Success is false")
	eq(t, len(response.OperationResults), 2, "results")
	eq(t, response.OperationResults[0].StatusCode, int32(424), "the create depends on the failure")
	eq(t, response.OperationResults[1].StatusCode, int32(412), "the stale replace")
	eq(t, readItem(t, container, pk("p"), "x")["v"], any(2.0), "unchanged")
	_, err = container.ReadItem(ctx(), pk("p"), "y", nil)
	expectError(t, err, http.StatusNotFound, -1, "the create was rolled back")
}

func TestBatch_ReadOfAMissingItemFailsTheBatch(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	batch := container.NewTransactionalBatch(pk("p"))
	batch.UpsertItem(mustJSON(t, doc{"id": "a", "pk": "p"}), nil)
	batch.ReadItem("missing", nil)
	response, err := container.ExecuteTransactionalBatch(ctx(), batch, nil)
	noErr(t, err, "execute")
	ok(t, !response.Success, "Success is false")
	eq(t, response.OperationResults[1].StatusCode, int32(404), "the read of a missing item")
	eq(t, response.OperationResults[0].StatusCode, int32(424), "the upsert depends on the failure")
	_, err = container.ReadItem(ctx(), pk("p"), "a", nil)
	expectError(t, err, http.StatusNotFound, -1, "the upsert was rolled back")
}

func TestBatch_LimitsAndPartitionKeys(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	batch := container.NewTransactionalBatch(pk("p"))
	for i := 0; i < 101; i++ {
		batch.CreateItem(mustJSON(t, doc{"id": "i" + itoa(i), "pk": "p"}), nil)
	}
	_, err := container.ExecuteTransactionalBatch(ctx(), batch, nil)
	expectError(t, err, http.StatusBadRequest, -1, "a batch of 101 operations")

	// An operation whose document belongs to another partition key than the batch's.
	batch = container.NewTransactionalBatch(pk("p"))
	batch.CreateItem(mustJSON(t, doc{"id": "a", "pk": "p"}), nil)
	batch.CreateItem(mustJSON(t, doc{"id": "b", "pk": "q"}), nil)
	response, err := container.ExecuteTransactionalBatch(ctx(), batch, nil)
	if err == nil {
		ok(t, !response.Success, "a batch with a document of another partition key must fail")
		eq(t, response.OperationResults[1].StatusCode, int32(400), "the mismatching operation")
	} else {
		expectError(t, err, http.StatusBadRequest, -1, "a batch with a document of another partition key")
	}
	_, err = container.ReadItem(ctx(), pk("p"), "a", nil)
	expectError(t, err, http.StatusNotFound, -1, "nothing applied")

	batch = container.NewTransactionalBatch(pk("p"))
	for i := 0; i < 100; i++ {
		batch.CreateItem(mustJSON(t, doc{"id": "i" + itoa(i), "pk": "p"}), nil)
	}
	response, err = container.ExecuteTransactionalBatch(ctx(), batch, nil)
	noErr(t, err, "a batch of 100 operations")
	ok(t, response.Success, "100 operations succeed")
	result := mustQuery(t, container, "SELECT VALUE COUNT(1) FROM c", pk("p"), nil)
	deepEq(t, values(t, result.items), []any{100.0}, "items created by the batch")

	_, err = container.ExecuteTransactionalBatch(ctx(), container.NewTransactionalBatch(pk("p")), nil)
	ok(t, err != nil, "an empty batch is refused by the SDK")
}
