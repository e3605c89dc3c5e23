package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.ThroughputProperties;
import com.azure.cosmos.models.ThroughputResponse;
import dev.cosmolite.conformance.support.CosmosTest;
import org.junit.jupiter.api.Test;

/** Throughput (offers): read, replace, autoscale, the service's minimums and steps. */
class ThroughputTest extends CosmosTest {

    @Test
    void manualThroughputReadAndReplace() {
        CosmosDatabase db = newDatabase();
        CosmosContainer container = newContainer(db, new CosmosContainerProperties(uid("c"), "/pk"),
            ThroughputProperties.createManualThroughput(400));
        ThroughputResponse read = container.readThroughput();
        assertEquals(200, read.getStatusCode(), "read throughput");
        assertEquals(400, read.getProperties().getManualThroughput(), "manual 400");
        assertEquals(400, read.getMinThroughput(), "minimum throughput of a new 400 RU/s container");
        assertCharge(read.getRequestCharge(), "read throughput");
        ThroughputResponse replaced = container.replaceThroughput(ThroughputProperties.createManualThroughput(1000));
        assertEquals(200, replaced.getStatusCode(), "replace throughput");
        assertEquals(1000, replaced.getProperties().getManualThroughput(), "replace answers the new value");
        assertEquals(1000, container.readThroughput().getProperties().getManualThroughput(), "read after replace");
    }

    @Test
    void defaultContainerThroughputIs400() {
        CosmosContainer container = newContainer();
        assertEquals(400, container.readThroughput().getProperties().getManualThroughput(), "a container created without throughput");
    }

    @Test
    void autoscaleReadAndReplace() {
        CosmosDatabase db = newDatabase();
        CosmosContainer container = newContainer(db, new CosmosContainerProperties(uid("c"), "/pk"),
            ThroughputProperties.createAutoscaledThroughput(4000));
        ThroughputResponse read = container.readThroughput();
        assertEquals(4000, read.getProperties().getAutoscaleMaxThroughput(), "autoscale max 4000");
        // the service's autoscale offer also carries offerThroughput: the RU/s currently provisioned, 10%..100% of the max
        Integer current = read.getProperties().getManualThroughput();
        assertTrue(current != null && current >= 400 && current <= 4000, "current throughput of an autoscale offer: " + current);
        ThroughputResponse replaced = container.replaceThroughput(ThroughputProperties.createAutoscaledThroughput(6000));
        assertEquals(6000, replaced.getProperties().getAutoscaleMaxThroughput(), "autoscale max after replace");
        assertEquals(6000, container.readThroughput().getProperties().getAutoscaleMaxThroughput());
    }

    @Test
    void databaseAutoscaleThroughput() {
        String id = uid("java-throughput");
        track(id);
        client().createDatabase(id, ThroughputProperties.createAutoscaledThroughput(1000));
        CosmosDatabase db = client().getDatabase(id);
        assertEquals(1000, db.readThroughput().getProperties().getAutoscaleMaxThroughput(), "database autoscale max");
        db.replaceThroughput(ThroughputProperties.createAutoscaledThroughput(2000));
        assertEquals(2000, db.readThroughput().getProperties().getAutoscaleMaxThroughput(), "database autoscale after replace");
    }

    @Test
    void invalidThroughputAnswers400() {
        CosmosDatabase db = newDatabase();
        assertCosmos(400, "manual throughput below 400", () -> db.createContainer(
            new CosmosContainerProperties(uid("c"), "/pk"), ThroughputProperties.createManualThroughput(300)));
        assertCosmos(400, "manual throughput not a multiple of 100", () -> db.createContainer(
            new CosmosContainerProperties(uid("c"), "/pk"), ThroughputProperties.createManualThroughput(450)));
        assertCosmos(400, "autoscale max not a multiple of 1000", () -> db.createContainer(
            new CosmosContainerProperties(uid("c"), "/pk"), ThroughputProperties.createAutoscaledThroughput(1500)));
        CosmosContainer container = newContainer(db, new CosmosContainerProperties(uid("c"), "/pk"),
            ThroughputProperties.createManualThroughput(400));
        assertCosmos(400, "replace below the minimum", () -> container.replaceThroughput(ThroughputProperties.createManualThroughput(200)));
        assertEquals(400, container.readThroughput().getProperties().getManualThroughput(), "unchanged after a refused replace");
    }
}
