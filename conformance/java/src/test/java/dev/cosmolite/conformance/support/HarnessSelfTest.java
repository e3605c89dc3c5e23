package dev.cosmolite.conformance.support;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;

import com.azure.cosmos.CosmosBridgeInternal;
import com.azure.cosmos.CosmosException;
import org.junit.jupiter.api.Test;

/**
 * Checks the suite's own helpers without a server. install.sh runs it (so that surefire fetches everything it needs
 * for offline runs); run.sh leaves it out.
 */
class HarnessSelfTest {

    @Test
    void gatewayCallsAreFoundAtAnyDepth() {
        List<Diagnostics.GatewayCall> calls = Diagnostics.gatewayCalls(CosmosTest.json(
            "{\"a\":{\"gatewayStatisticsList\":[{\"statusCode\":400,\"subStatusCode\":1024,\"partitionKeyRangeId\":null},"
                + "{\"statusCode\":201,\"subStatusCode\":0,\"partitionKeyRangeId\":\"2\",\"sessionToken\":\"2:-1#5\"}]},"
                + "\"b\":[{\"gatewayStatistics\":{\"statusCode\":200,\"subStatusCode\":0}}]}"));
        assertEquals(3, calls.size());
        assertEquals(1024, calls.get(0).subStatusCode);
        assertNull(calls.get(0).partitionKeyRangeId);
        assertEquals("2", calls.get(1).partitionKeyRangeId);
        assertEquals("2:-1#5", calls.get(1).sessionToken);
        assertEquals(200, calls.get(2).statusCode);
    }

    @Test
    void cosmosCauseUnwrapsCompositeExceptions() {
        CosmosException notFound = CosmosBridgeInternal.cosmosException(404, new RuntimeException("gone"));
        RuntimeException composite = reactor.core.Exceptions.multiple(new IllegalStateException("x"), notFound);
        assertSame(notFound, CosmosTest.cosmosCause(composite));
        assertSame(notFound, CosmosTest.cosmosCause(new RuntimeException(notFound)));
        assertNull(CosmosTest.cosmosCause(new IllegalStateException("plain")));
    }

    @Test
    void assertCosmosChecksTheStatus() {
        CosmosException conflict = CosmosBridgeInternal.cosmosException(409, new RuntimeException("dup"));
        assertSame(conflict, CosmosTest.assertCosmos(409, "a 409", () -> { throw conflict; }));
        assertThrows(AssertionError.class, () -> CosmosTest.assertCosmos(404, "expects 404", () -> { throw conflict; }));
        assertThrows(AssertionError.class, () -> CosmosTest.assertCosmos(404, "expects an exception", () -> { }));
    }

    @Test
    void sessionTokenLsnParsing() {
        assertEquals(57, dev.cosmolite.conformance.ItemTest.lsn("0:-1#57"));
        assertEquals(12, dev.cosmolite.conformance.ItemTest.lsn("3:1#12#4=9"));
    }
}
