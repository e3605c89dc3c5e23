package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import com.azure.cosmos.ConsistencyLevel;
import com.azure.cosmos.CosmosBridgeInternal;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.implementation.DatabaseAccount;
import com.azure.cosmos.implementation.DatabaseAccountLocation;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cosmolite.conformance.support.CosmosTest;
import dev.cosmolite.conformance.support.Env;
import org.junit.jupiter.api.Test;

/**
 * The database account (GET /) as the SDK reads it at start-up: locations, consistency, query engine configuration.
 * The public Java API has no "read account" call; the account the client discovered is read through the SDK's own
 * AsyncDocumentClient (CosmosBridgeInternal), which issues GET / with the master key.
 */
class AccountTest extends CosmosTest {

    private static DatabaseAccount account() {
        return CosmosBridgeInternal.getAsyncDocumentClient(client()).getDatabaseAccount().block();
    }

    private static List<DatabaseAccountLocation> listOf(Iterable<DatabaseAccountLocation> it) {
        List<DatabaseAccountLocation> out = new ArrayList<>();
        if (it != null) it.forEach(out::add);
        return out;
    }

    @Test
    void accountAdvertisesTheEndpointTheClientUsesAsWriteAndReadLocation() {
        DatabaseAccount account = account();
        assertNotNull(account, "GET / answered");
        List<DatabaseAccountLocation> writable = listOf(account.getWritableLocations());
        List<DatabaseAccountLocation> readable = listOf(account.getReadableLocations());
        assertFalse(writable.isEmpty(), "writableLocations is not empty");
        assertFalse(readable.isEmpty(), "readableLocations is not empty");
        URI used = URI.create(Env.ENDPOINT);
        for (DatabaseAccountLocation location : writable) {
            assertFalse(location.getName() == null || location.getName().isEmpty(), "location name");
            URI advertised = URI.create(location.getEndpoint());
            assertEquals(used.getScheme(), advertised.getScheme(), "scheme of the writable location " + advertised);
            assertEquals(used.getPort(), advertised.getPort(), "port of the writable location " + advertised);
        }
        assertFalse(account.getEnableMultipleWriteLocations(), "a single-region account has no multi-region writes");
    }

    @Test
    void accountDescribesConsistencyAndQueryEngine() {
        DatabaseAccount account = account();
        assertNotNull(account.getConsistencyPolicy(), "userConsistencyPolicy");
        assertEquals(ConsistencyLevel.SESSION, account.getConsistencyPolicy().getDefaultConsistencyLevel(),
            "default consistency of the account");
        assertNotNull(account.getQueryEngineConfiguration(), "queryEngineConfiguration");
        assertFalse(account.getQueryEngineConfiguration().isEmpty(), "queryEngineConfiguration is a non-empty object");
        assertTrue(account.getQueryEngineConfiguration().containsKey("maxSqlQueryInputLength"),
            "queryEngineConfiguration.maxSqlQueryInputLength");
        assertNotNull(account.getId(), "account id");
        assertNotNull(account.getResourceId(), "account _rid");
    }

    @Test
    void operationsReportTheRegionTheyContacted() {
        DatabaseAccount account = account();
        String region = listOf(account.getWritableLocations()).get(0).getName();
        CosmosContainer container = newContainer();
        CosmosItemResponse<ObjectNode> created = container.createItem(doc("id", "a", "pk", "p"));
        assertEquals(201, created.getStatusCode());
        assertTrue(created.getDiagnostics().getContactedRegionNames().stream().anyMatch(region::equalsIgnoreCase),
            "contacted regions " + created.getDiagnostics().getContactedRegionNames() + " name the account region " + region);
        CosmosItemResponse<ObjectNode> read = container.readItem("a", new PartitionKey("p"), ObjectNode.class);
        assertEquals(1, read.getDiagnostics().getContactedRegionNames().size(), "one region contacted");
    }
}
