package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cosmolite.conformance.support.CosmosTest;
import org.junit.jupiter.api.Test;

/** Error shapes as the SDK surfaces them: status, substatus, the service's message, activity id and charge. */
class ErrorsTest extends CosmosTest {

    private static void checkShape(CosmosException e, String what) {
        assertNotNull(e.getActivityId(), what + ": activity id");
        assertFalse(e.getActivityId().isEmpty(), what + ": activity id");
        assertNotNull(e.getResponseHeaders().get("x-ms-request-charge"), what + ": x-ms-request-charge on an error");
        assertNotNull(e.getShortMessage(), what + ": message");
    }

    @Test
    void notFoundCarriesTheServiceMessage() {
        CosmosContainer container = newContainer();
        CosmosException e = assertCosmos(404, 0, "read a missing item",
            () -> container.readItem("missing", new PartitionKey("p"), ObjectNode.class));
        checkShape(e, "404");
        assertTrue(e.getShortMessage().contains("Entity with the specified id does not exist in the system"),
            "404 message: " + shortMessage(e));
    }

    @Test
    void conflictCarriesTheServiceMessage() {
        CosmosContainer container = newContainer();
        container.createItem(doc("id", "a", "pk", "p"));
        CosmosException e = assertCosmos(409, 0, "create a duplicate", () -> container.createItem(doc("id", "a", "pk", "p")));
        checkShape(e, "409");
        assertTrue(e.getShortMessage().contains("Entity with the specified id already exists in the system"),
            "409 message: " + shortMessage(e));
    }

    @Test
    void preconditionFailedCarriesTheServiceMessage() {
        CosmosContainer container = newContainer();
        container.createItem(doc("id", "a", "pk", "p"));
        CosmosException e = assertCosmos(412, 0, "replace with a wrong If-Match", () -> container.replaceItem(doc("id", "a", "pk", "p"),
            "a", new PartitionKey("p"), new CosmosItemRequestOptions().setIfMatchETag("\"00000000-0000-0000-0000-000000000000\"")));
        checkShape(e, "412");
        assertTrue(e.getShortMessage().contains("precondition"), "412 message: " + shortMessage(e));
    }

    @Test
    void badQueryCarriesTheSyntaxErrorAndItsPosition() {
        CosmosContainer container = newContainer();
        CosmosException e = assertCosmos(400, "query with a syntax error", () -> container.queryItems("SELECT * FROM c WHERE",
            new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p")), JsonNode.class).stream().count());
        checkShape(e, "400 query");
        String message = e.getShortMessage();
        assertTrue(message.contains("SC1001"), "error code SC1001 in " + message);
        assertTrue(message.contains("\"location\""), "error location in " + message);
        assertTrue(message.contains("Syntax error"), "syntax error text in " + message);
    }

    @Test
    void crossPartitionBadQueryFailsAtTheQueryPlan() {
        CosmosContainer container = newPartitionedContainer();
        CosmosException e = assertCosmos(400, "cross-partition query with an unknown function", () -> container.queryItems(
            "SELECT VALUE ABSOLUTELY(c.n) FROM c", new CosmosQueryRequestOptions(), JsonNode.class).stream().count());
        assertTrue(e.getShortMessage().contains("SC2005") && e.getShortMessage().contains("ABSOLUTELY"),
            "SC2005 names the unknown function: " + shortMessage(e));
    }
}
