package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosBatch;
import com.azure.cosmos.models.CosmosBatchItemRequestOptions;
import com.azure.cosmos.models.CosmosBatchOperationResult;
import com.azure.cosmos.models.CosmosBatchResponse;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cosmolite.conformance.support.CosmosTest;
import org.junit.jupiter.api.Test;

/** Transactional batch (executeCosmosBatch): all operations succeed together, or none applies (207, 424s). */
class BatchTest extends CosmosTest {

    private static int status(CosmosBatchResponse response, int index) {
        return response.getResults().get(index).getStatusCode();
    }

    private static boolean exists(CosmosContainer container, String id, String pk) {
        try {
            container.readItem(id, new PartitionKey(pk), ObjectNode.class);
            return true;
        } catch (com.azure.cosmos.CosmosException e) {
            assertEquals(404, e.getStatusCode());
            return false;
        }
    }

    @Test
    void everyOperationKindSucceedsTogether() {
        CosmosContainer container = newPartitionedContainer();
        container.createItem(doc("id", "r", "pk", "p", "v", 1));
        container.createItem(doc("id", "u", "pk", "p", "v", 1));
        container.createItem(doc("id", "d", "pk", "p"));
        container.createItem(doc("id", "pt", "pk", "p", "n", 1));
        CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey("p"));
        batch.createItemOperation(doc("id", "c", "pk", "p", "v", 1));
        batch.upsertItemOperation(doc("id", "u", "pk", "p", "v", 2));
        batch.readItemOperation("r");
        batch.replaceItemOperation("r", doc("id", "r", "pk", "p", "v", 3));
        batch.deleteItemOperation("d");
        batch.patchItemOperation("pt", CosmosPatchOperations.create().increment("/n", 41));
        CosmosBatchResponse response = container.executeCosmosBatch(batch);
        assertTrue(response.isSuccessStatusCode(), "batch succeeded: " + response.getStatusCode() + " " + response.getErrorMessage());
        assertEquals(200, response.getStatusCode(), "batch status");
        assertEquals(6, response.size(), "one result per operation");
        assertEquals(List.of(201, 200, 200, 200, 204, 200),
            List.of(status(response, 0), status(response, 1), status(response, 2), status(response, 3), status(response, 4),
                status(response, 5)), "per-operation statuses");
        assertCharge(response.getRequestCharge(), "batch");
        assertNotNull(response.getSessionToken(), "batch session token");
        CosmosBatchOperationResult read = response.getResults().get(2);
        assertEquals(1, read.getItem(ObjectNode.class).get("v").asInt(), "the read sees the state before the replace");
        assertNotNull(response.getResults().get(0).getETag(), "etag of the created item");
        assertEquals(3, container.readItem("r", new PartitionKey("p"), ObjectNode.class).getItem().get("v").asInt());
        assertEquals(2, container.readItem("u", new PartitionKey("p"), ObjectNode.class).getItem().get("v").asInt());
        assertEquals(42, container.readItem("pt", new PartitionKey("p"), ObjectNode.class).getItem().get("n").asInt());
        assertFalse(exists(container, "d", "p"), "deleted in the batch");
        assertTrue(exists(container, "c", "p"), "created in the batch");
    }

    @Test
    void aFailingOperationRollsEverythingBack() {
        CosmosContainer container = newContainer();
        container.createItem(doc("id", "existing", "pk", "p", "v", 1));
        container.createItem(doc("id", "victim", "pk", "p", "v", 1));
        CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey("p"));
        batch.createItemOperation(doc("id", "new1", "pk", "p"));
        batch.replaceItemOperation("victim", doc("id", "victim", "pk", "p", "v", 2));
        batch.createItemOperation(doc("id", "existing", "pk", "p", "v", 99)); // 409
        batch.deleteItemOperation("victim");
        CosmosBatchResponse response = container.executeCosmosBatch(batch);
        assertFalse(response.isSuccessStatusCode(), "the batch failed");
        assertEquals(409, response.getStatusCode(), "the batch reports the failing operation's status");
        assertEquals(4, response.size());
        assertEquals(424, status(response, 0), "operations before the failure: 424 Failed Dependency");
        assertEquals(424, status(response, 1));
        assertEquals(409, status(response, 2), "the failing operation carries its own status");
        assertEquals(424, status(response, 3), "operations after the failure: 424");
        assertFalse(exists(container, "new1", "p"), "the create before the failure was rolled back");
        assertEquals(1, container.readItem("victim", new PartitionKey("p"), ObjectNode.class).getItem().get("v").asInt(),
            "the replace was rolled back and the delete never ran");
        assertEquals(1, container.readItem("existing", new PartitionKey("p"), ObjectNode.class).getItem().get("v").asInt());
    }

    @Test
    void staleIfMatchInsideABatchAnswers412() {
        CosmosContainer container = newContainer();
        String oldEtag = container.createItem(doc("id", "x", "pk", "p", "v", 1)).getETag();
        container.upsertItem(doc("id", "x", "pk", "p", "v", 2));
        CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey("p"));
        batch.createItemOperation(doc("id", "y", "pk", "p"));
        batch.replaceItemOperation("x", doc("id", "x", "pk", "p", "v", 3),
            new CosmosBatchItemRequestOptions().setIfMatchETag(oldEtag));
        CosmosBatchResponse response = container.executeCosmosBatch(batch);
        assertEquals(412, response.getStatusCode(), "batch status");
        assertEquals(424, status(response, 0));
        assertEquals(412, status(response, 1), "stale If-Match inside the batch");
        assertFalse(exists(container, "y", "p"));
    }

    @Test
    void missingItemInsideABatchAnswers404() {
        CosmosContainer container = newContainer();
        CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey("p"));
        batch.createItemOperation(doc("id", "z", "pk", "p"));
        batch.readItemOperation("missing");
        CosmosBatchResponse response = container.executeCosmosBatch(batch);
        assertEquals(404, response.getStatusCode(), "batch status");
        assertEquals(List.of(424, 404), List.of(status(response, 0), status(response, 1)));
        assertFalse(exists(container, "z", "p"));
    }

    @Test
    void operationOutsideTheBatchPartitionKeyAnswers400() {
        CosmosContainer container = newContainer();
        CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey("p"));
        batch.createItemOperation(doc("id", "ok", "pk", "p"));
        batch.createItemOperation(doc("id", "other", "pk", "q"));
        CosmosBatchResponse response = container.executeCosmosBatch(batch);
        assertFalse(response.isSuccessStatusCode(), "a batch with an item of another partition key fails");
        assertEquals(400, response.getStatusCode(), "batch status");
        assertFalse(exists(container, "ok", "p"), "nothing applied");
    }
}
