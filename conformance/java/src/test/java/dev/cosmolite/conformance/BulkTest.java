package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosBulkOperationResponse;
import com.azure.cosmos.models.CosmosBulkOperations;
import com.azure.cosmos.models.CosmosItemOperation;
import com.azure.cosmos.models.CosmosItemOperationType;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cosmolite.conformance.support.CosmosTest;
import org.junit.jupiter.api.Test;

/** Bulk (executeBulkOperations): 1,000 mixed operations over four physical partitions, a few of them failing. */
class BulkTest extends CosmosTest {

    private static String pk(int i) {
        return "p" + (i % 40);
    }

    @Test
    void thousandMixedOperationsWithAFewFailures() {
        CosmosContainer container = newPartitionedContainer();
        // 280 items to work on, written in bulk too
        List<CosmosItemOperation> seed = new ArrayList<>();
        for (int i = 0; i < 280; i++) seed.add(CosmosBulkOperations.getCreateItemOperation(doc("id", "s" + i, "pk", pk(i), "v", 0), new PartitionKey(pk(i))));
        for (CosmosBulkOperationResponse<Object> r : container.executeBulkOperations(seed)) {
            assertNotNull(r.getResponse(), "seed response: " + r.getException());
            assertEquals(201, r.getResponse().getStatusCode(), "seed create");
        }

        List<CosmosItemOperation> ops = new ArrayList<>();
        Map<String, Integer> expected = new TreeMap<>();
        for (int i = 0; i < 600; i++) {   // new items
            ops.add(CosmosBulkOperations.getCreateItemOperation(doc("id", "n" + i, "pk", pk(i), "v", 1), new PartitionKey(pk(i))));
            expected.merge("Create 201", 1, Integer::sum);
        }
        for (int i = 0; i < 5; i++) {     // duplicates of seeded items
            ops.add(CosmosBulkOperations.getCreateItemOperation(doc("id", "s" + i, "pk", pk(i), "v", 9), new PartitionKey(pk(i))));
            expected.merge("Create 409", 1, Integer::sum);
        }
        for (int i = 0; i < 150; i++) {   // 100 new, 50 existing
            String id = i < 100 ? "u" + i : "s" + (i - 100);
            int k = i < 100 ? i : i - 100;
            ops.add(CosmosBulkOperations.getUpsertItemOperation(doc("id", id, "pk", pk(k), "v", 2), new PartitionKey(pk(k))));
            expected.merge(i < 100 ? "Upsert 201" : "Upsert 200", 1, Integer::sum);
        }
        for (int i = 50; i < 150; i++) {  // replace existing
            ops.add(CosmosBulkOperations.getReplaceItemOperation("s" + i, doc("id", "s" + i, "pk", pk(i), "v", 3), new PartitionKey(pk(i))));
            expected.merge("Replace 200", 1, Integer::sum);
        }
        for (int i = 0; i < 5; i++) {     // replace missing
            ops.add(CosmosBulkOperations.getReplaceItemOperation("missing" + i, doc("id", "missing" + i, "pk", pk(i)), new PartitionKey(pk(i))));
            expected.merge("Replace 404", 1, Integer::sum);
        }
        for (int i = 150; i < 230; i++) { // delete existing
            ops.add(CosmosBulkOperations.getDeleteItemOperation("s" + i, new PartitionKey(pk(i))));
            expected.merge("Delete 204", 1, Integer::sum);
        }
        for (int i = 0; i < 5; i++) {     // delete missing
            ops.add(CosmosBulkOperations.getDeleteItemOperation("gone" + i, new PartitionKey(pk(i))));
            expected.merge("Delete 404", 1, Integer::sum);
        }
        for (int i = 230; i < 250; i++) { // read existing
            ops.add(CosmosBulkOperations.getReadItemOperation("s" + i, new PartitionKey(pk(i))));
            expected.merge("Read 200", 1, Integer::sum);
        }
        for (int i = 250; i < 280; i++) { // patch existing (untouched by the other operations)
            ops.add(CosmosBulkOperations.getPatchItemOperation("s" + i, new PartitionKey(pk(i)),
                com.azure.cosmos.models.CosmosPatchOperations.create().increment("/v", 10)));
            expected.merge("Patch 200", 1, Integer::sum);
        }
        for (int i = 0; i < 5; i++) {     // read missing
            ops.add(CosmosBulkOperations.getReadItemOperation("nothing" + i, new PartitionKey(pk(i))));
            expected.merge("Read 404", 1, Integer::sum);
        }
        assertEquals(1000, ops.size(), "1,000 operations");

        Map<String, Integer> actual = new TreeMap<>();
        int responses = 0;
        double charge = 0;
        for (CosmosBulkOperationResponse<Object> r : container.executeBulkOperations(ops)) {
            responses++;
            if (r.getResponse() == null) {
                fail("operation " + r.getOperation().getOperationType() + " " + r.getOperation().getId() + " had no response: "
                    + r.getException());
            }
            String type = r.getOperation().getOperationType().toString();
            type = type.substring(0, 1) + type.substring(1).toLowerCase();
            actual.merge(type + " " + r.getResponse().getStatusCode(), 1, Integer::sum);
            charge += r.getResponse().getRequestCharge();
            if (r.getOperation().getOperationType() == CosmosItemOperationType.READ && r.getResponse().getStatusCode() == 200) {
                assertEquals(0, r.getResponse().getItem(ObjectNode.class).get("v").asInt(), "bulk read returns the item");
            }
        }
        assertEquals(1000, responses, "one response per operation");
        assertEquals(expected, actual, "statuses per operation kind");
        assertTrue(charge > 0, "bulk operations report charges");

        int count = container.queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(), JsonNode.class)
            .stream().findFirst().get().asInt();
        assertEquals(280 + 600 + 100 - 80, count, "items after the bulk");
        assertEquals(2, container.readItem("s0", new PartitionKey(pk(0)), ObjectNode.class).getItem().get("v").asInt(),
            "a failed create did not overwrite; the upsert did");
        assertEquals(10, container.readItem("s260", new PartitionKey(pk(260)), ObjectNode.class).getItem().get("v").asInt(),
            "patched in bulk");
    }
}
