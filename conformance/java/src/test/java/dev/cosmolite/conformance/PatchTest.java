package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosPatchItemRequestOptions;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cosmolite.conformance.support.CosmosTest;
import org.junit.jupiter.api.Test;

/** Partial document update (patchItem): every operation, arrays, conditions (filter predicate), If-Match, errors. */
class PatchTest extends CosmosTest {

    private CosmosContainer seeded() {
        CosmosContainer container = newContainer();
        container.createItem(doc("id", "a", "pk", "p", "n", 1, "name", "old", "obj", Map.of("x", 1, "y", 2),
            "list", List.of(1, 2, 3), "gone", true));
        return container;
    }

    private static CosmosItemResponse<ObjectNode> patch(CosmosContainer c, CosmosPatchOperations ops) {
        return c.patchItem("a", new PartitionKey("p"), ops, ObjectNode.class);
    }

    @Test
    void everyOperationInOnePatch() {
        CosmosContainer container = seeded();
        CosmosPatchOperations ops = CosmosPatchOperations.create()
            .add("/added", "new")
            .set("/name", "renamed")
            .replace("/obj/x", 10)
            .remove("/gone")
            .increment("/n", 5)
            .move("/obj/y", "/moved");
        CosmosItemResponse<ObjectNode> response = patch(container, ops);
        assertEquals(200, response.getStatusCode(), "patch");
        assertCharge(response.getRequestCharge(), "patch");
        ObjectNode body = response.getItem();
        assertEquals("new", body.get("added").asText(), "add");
        assertEquals("renamed", body.get("name").asText(), "set");
        assertEquals(10, body.get("obj").get("x").asInt(), "replace");
        assertFalse(body.has("gone"), "remove");
        assertEquals(6, body.get("n").asInt(), "increment");
        assertEquals(2, body.get("moved").asInt(), "move: value at the new path");
        assertFalse(body.get("obj").has("y"), "move: old path removed");
        assertEquals(body, container.readItem("a", new PartitionKey("p"), ObjectNode.class).getItem(), "stored as answered");
        assertNotEquals(container.readItem("a", new PartitionKey("p"), ObjectNode.class).getETag(), null);
    }

    @Test
    void arrayOperations() {
        CosmosContainer container = seeded();
        ObjectNode body = patch(container, CosmosPatchOperations.create()
            .add("/list/0", 0)        // insert at the front
            .add("/list/-", 4)        // append
            .remove("/list/2")        // remove the element now at index 2 (the old 2)
            .set("/list/1", 100)).getItem();
        assertEquals(json("[0,100,3,4]"), body.get("list"), "array after add/append/remove/set");
        ObjectNode incremented = patch(container, CosmosPatchOperations.create().increment("/n", 2.5)).getItem();
        assertEquals(3.5, incremented.get("n").asDouble(), 1e-9, "increment by a fraction");
    }

    @Test
    void setCreatesAndAddReplacesScalars() {
        CosmosContainer container = seeded();
        ObjectNode body = patch(container, CosmosPatchOperations.create()
            .set("/brand", Map.of("new", 1)).add("/name", "added-over").set("/obj/z", 3)).getItem();
        assertEquals("added-over", body.get("name").asText(), "add on an existing property replaces it");
        assertEquals(1, body.path("brand").path("new").asInt(), "set creates a missing property");
        assertEquals(3, body.path("obj").path("z").asInt(), "set creates a missing member of an existing object");
        assertCosmos(400, "set below a missing parent", () -> patch(container, CosmosPatchOperations.create().set("/no/such", 1)));
    }

    @Test
    void conditionalPatchWithAFilterPredicate() {
        CosmosContainer container = seeded();
        CosmosPatchItemRequestOptions holds = new CosmosPatchItemRequestOptions();
        holds.setFilterPredicate("FROM c WHERE c.n = 1");
        assertEquals(200, container.patchItem("a", new PartitionKey("p"), CosmosPatchOperations.create().set("/name", "cond"),
            holds, ObjectNode.class).getStatusCode(), "condition true");
        CosmosPatchItemRequestOptions fails = new CosmosPatchItemRequestOptions();
        fails.setFilterPredicate("FROM c WHERE c.n > 100");
        assertCosmos(412, "condition false", () -> container.patchItem("a", new PartitionKey("p"),
            CosmosPatchOperations.create().set("/name", "never"), fails, ObjectNode.class));
        assertEquals("cond", container.readItem("a", new PartitionKey("p"), ObjectNode.class).getItem().get("name").asText(),
            "a failed condition changes nothing");
    }

    @Test
    void ifMatchOnPatch() {
        CosmosContainer container = seeded();
        String etag = container.readItem("a", new PartitionKey("p"), ObjectNode.class).getETag();
        CosmosPatchItemRequestOptions current = new CosmosPatchItemRequestOptions();
        current.setIfMatchETag(etag);
        CosmosItemResponse<ObjectNode> ok = container.patchItem("a", new PartitionKey("p"),
            CosmosPatchOperations.create().increment("/n", 1), current, ObjectNode.class);
        assertEquals(200, ok.getStatusCode(), "If-Match with the current etag");
        assertNotEquals(etag, ok.getETag(), "a new etag after the patch");
        assertCosmos(412, "If-Match with the old etag", () -> container.patchItem("a", new PartitionKey("p"),
            CosmosPatchOperations.create().increment("/n", 1), current, ObjectNode.class));
        assertEquals(2, container.readItem("a", new PartitionKey("p"), ObjectNode.class).getItem().get("n").asInt());
    }

    @Test
    void invalidPatchesAnswer400AndChangeNothing() {
        CosmosContainer container = seeded();
        assertCosmos(400, "replace of a missing path", () -> patch(container, CosmosPatchOperations.create().replace("/nope", 1)));
        assertCosmos(400, "remove of a missing path", () -> patch(container, CosmosPatchOperations.create().remove("/nope")));
        assertCosmos(400, "increment of a string", () -> patch(container, CosmosPatchOperations.create().increment("/name", 1)));
        assertCosmos(400, "patch of the id", () -> patch(container, CosmosPatchOperations.create().set("/id", "b")));
        assertCosmos(400, "patch of the partition key", () -> patch(container, CosmosPatchOperations.create().set("/pk", "q")));
        CosmosPatchOperations eleven = CosmosPatchOperations.create();
        for (int i = 0; i < 11; i++) eleven.set("/f" + i, i);
        CosmosException tooMany = assertCosmos(400, "eleven operations", () -> patch(container, eleven));
        assertNotNull(tooMany.getMessage());
        assertCosmos(400, "one bad operation fails the whole patch", () -> patch(container,
            CosmosPatchOperations.create().set("/name", "partial").replace("/nope", 1)));
        JsonNode stored = container.readItem("a", new PartitionKey("p"), ObjectNode.class).getItem();
        assertEquals("old", stored.get("name").asText(), "nothing applied");
        assertEquals(1, stored.get("n").asInt());
    }

    @Test
    void patchOfAMissingItemAnswers404() {
        CosmosContainer container = seeded();
        assertCosmos(404, "patch a missing id", () -> container.patchItem("missing", new PartitionKey("p"),
            CosmosPatchOperations.create().set("/x", 1), ObjectNode.class));
        assertCosmos(404, "patch in another partition", () -> container.patchItem("a", new PartitionKey("q"),
            CosmosPatchOperations.create().set("/x", 1), ObjectNode.class));
    }

    @Test
    void patchIsVisibleInTheChangeFeedAndQueries() {
        CosmosContainer container = seeded();
        patch(container, CosmosPatchOperations.create().set("/name", "queried"));
        assertEquals(1, container.queryItems("SELECT * FROM c WHERE c.name = 'queried'",
            new com.azure.cosmos.models.CosmosQueryRequestOptions(), JsonNode.class).stream().count(),
            "the patched value is indexed and queryable");
    }
}
