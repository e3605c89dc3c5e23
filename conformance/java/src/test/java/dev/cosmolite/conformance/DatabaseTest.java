package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.stream.Collectors;

import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosDatabaseProperties;
import com.azure.cosmos.models.CosmosDatabaseResponse;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.azure.cosmos.models.ThroughputProperties;
import dev.cosmolite.conformance.support.CosmosTest;
import org.junit.jupiter.api.Test;

/** Databases: create, read, list, query, delete; 409 on a duplicate id, 404 on a missing one. */
class DatabaseTest extends CosmosTest {

    @Test
    void createAnswers201WithSystemProperties() {
        String id = uid("java-db");
        track(id);
        CosmosDatabaseResponse response = client().createDatabase(id);
        assertEquals(201, response.getStatusCode(), "create database");
        assertCharge(response.getRequestCharge(), "create database");
        CosmosDatabaseProperties properties = response.getProperties();
        assertEquals(id, properties.getId());
        assertNotNull(properties.getResourceId(), "_rid");
        assertNotNull(properties.getETag(), "_etag");
        assertNotNull(properties.getTimestamp(), "_ts");
        assertTrue(properties.getETag().startsWith("\"") && properties.getETag().endsWith("\""), "_etag is quoted");
    }

    @Test
    void readAnswers200WithTheSameRid() {
        CosmosDatabase database = newDatabase();
        CosmosDatabaseResponse read = database.read();
        assertEquals(200, read.getStatusCode(), "read database");
        assertEquals(database.getId(), read.getProperties().getId());
        assertNotNull(read.getProperties().getResourceId());
        assertCharge(read.getRequestCharge(), "read database");
    }

    @Test
    void duplicateIdAnswers409() {
        CosmosDatabase database = newDatabase();
        assertCosmos(409, "create an existing database", () -> client().createDatabase(database.getId()));
    }

    @Test
    void createIfNotExistsIsIdempotent() {
        String id = uid("java-db");
        track(id);
        assertEquals(201, client().createDatabaseIfNotExists(id).getStatusCode(), "first createIfNotExists");
        assertEquals(200, client().createDatabaseIfNotExists(id).getStatusCode(), "second createIfNotExists reads it");
    }

    @Test
    void missingDatabaseAnswers404() {
        CosmosDatabase missing = client().getDatabase(uid("java-missing"));
        assertCosmos(404, "read a missing database", missing::read);
        assertCosmos(404, "delete a missing database", missing::delete);
    }

    @Test
    void listAndQueryFindTheDatabase() {
        CosmosDatabase database = newDatabase();
        List<String> all = client().readAllDatabases().stream().map(CosmosDatabaseProperties::getId).collect(Collectors.toList());
        assertTrue(all.contains(database.getId()), "readAllDatabases lists " + database.getId());
        SqlQuerySpec spec = new SqlQuerySpec("SELECT * FROM root r WHERE r.id = @id",
            List.of(new SqlParameter("@id", database.getId())));
        List<CosmosDatabaseProperties> found = client().queryDatabases(spec, new CosmosQueryRequestOptions()).stream()
            .collect(Collectors.toList());
        assertEquals(1, found.size(), "query by id finds exactly one database");
        assertEquals(database.getId(), found.get(0).getId());
        assertEquals(0, client().queryDatabases("SELECT * FROM root r WHERE r.id = 'no-such-db-" + uid("x") + "'",
            new CosmosQueryRequestOptions()).stream().count(), "query for a missing id finds nothing");
    }

    @Test
    void deleteAnswers204AndTheDatabaseIsGone() {
        CosmosDatabase database = newDatabase();
        CosmosDatabaseResponse deleted = database.delete();
        assertEquals(204, deleted.getStatusCode(), "delete database");
        assertCosmos(404, "read after delete", database::read);
        assertFalse(client().readAllDatabases().stream().anyMatch(d -> d.getId().equals(database.getId())),
            "deleted database no longer listed");
    }

    @Test
    void databaseWithSharedThroughput() {
        String id = uid("java-db");
        track(id);
        client().createDatabase(id, ThroughputProperties.createManualThroughput(600));
        CosmosDatabase database = client().getDatabase(id);
        assertEquals(600, database.readThroughput().getProperties().getManualThroughput(), "database offer");
        database.createContainer(uid("c"), "/pk");
        database.createContainer(uid("c"), "/pk");
        assertEquals(2, database.readAllContainers().stream().count(), "two containers share the database throughput");
    }

    @Test
    void databaseWithoutThroughputHasNoOffer() {
        CosmosDatabase database = newDatabase();
        // the SDK queries the offers feed for the database's _rid and answers 400 "No offers found" when it is empty
        CosmosException e = assertCosmos(400, "read the throughput of a database without an offer", database::readThroughput);
        assertTrue(e.getMessage().contains("No offers found"), "message: " + shortMessage(e));
    }

    @Test
    void databaseIdLongerThan255CharactersAnswers400() {
        String id = "d".repeat(256);
        track(id);
        // The service: "Ensure to provide a unique non-empty string less than '255' characters." (azure-sdk-for-python#36569)
        assertCosmos(400, "create a database with a 256-character id", () -> client().createDatabase(id));
    }
}
