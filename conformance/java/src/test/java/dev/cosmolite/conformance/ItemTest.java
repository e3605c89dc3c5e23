package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import java.time.Instant;
import java.util.Iterator;
import java.util.Map;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cosmolite.conformance.support.CosmosTest;
import dev.cosmolite.conformance.support.Env;
import org.junit.jupiter.api.Test;

/** Item CRUD with etags: create/read/replace/upsert/delete, 409/404/412/413, conditional reads, session tokens. */
public class ItemTest extends CosmosTest {

    static void checkSystemProperties(JsonNode body, String what) {
        assertTrue(body.path("_rid").isTextual(), what + ": _rid");
        assertTrue(body.path("_self").asText().endsWith("/docs/" + body.path("_rid").asText() + "/"),
            what + ": _self ends with /docs/{_rid}/ (" + body.path("_self").asText() + ")");
        String etag = body.path("_etag").asText();
        assertTrue(etag.length() > 2 && etag.startsWith("\"") && etag.endsWith("\""), what + ": _etag quoted: " + etag);
        assertTrue(body.path("_ts").isIntegralNumber(), what + ": _ts integer");
        long now = Instant.now().getEpochSecond();
        assertTrue(Math.abs(body.get("_ts").asLong() - now) < 600, what + ": _ts within 10 minutes of now");
        assertEquals("attachments/", body.path("_attachments").asText(), what + ": _attachments");
    }

    static void checkWriteHeaders(CosmosItemResponse<?> response, String what) {
        assertCharge(response.getRequestCharge(), what);
        assertNotNull(response.getSessionToken(), what + ": session token");
        assertNotNull(response.getETag(), what + ": etag header");
        assertNotNull(response.getActivityId(), what + ": activity id");
    }

    @Test
    void createAnswers201WithSystemProperties() {
        CosmosContainer container = newContainer();
        ObjectNode doc = doc("id", "a", "pk", "p1", "n", 1.5, "nested", Map.of("list", java.util.Arrays.asList(1, "two", null, true)),
            "text", "héllo 漢字");
        CosmosItemResponse<ObjectNode> response = container.createItem(doc);
        assertEquals(201, response.getStatusCode(), "create item");
        checkWriteHeaders(response, "create item");
        ObjectNode body = response.getItem();
        checkSystemProperties(body, "create item");
        assertEquals(body.get("_etag").asText(), response.getETag(), "etag header equals _etag");
        for (Iterator<String> it = doc.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            assertEquals(doc.get(field), body.get(field), "created body " + field);
        }
    }

    @Test
    void readAnswers200WithTheStoredDocument() {
        CosmosContainer container = newContainer();
        ObjectNode created = container.createItem(doc("id", "a", "pk", "p1", "v", 1)).getItem();
        CosmosItemResponse<ObjectNode> read = container.readItem("a", new PartitionKey("p1"), ObjectNode.class);
        assertEquals(200, read.getStatusCode(), "read item");
        assertCharge(read.getRequestCharge(), "read item");
        assertEquals(created.get("_etag").asText(), read.getETag(), "etag header");
        assertEquals(created, read.getItem(), "read body equals created body");
    }

    @Test
    void replaceAnswers200WithANewEtag() {
        CosmosContainer container = newContainer();
        ObjectNode created = container.createItem(doc("id", "a", "pk", "p1", "v", 1)).getItem();
        CosmosItemResponse<ObjectNode> replaced = container.replaceItem(doc("id", "a", "pk", "p1", "v", 2), "a",
            new PartitionKey("p1"), new CosmosItemRequestOptions());
        assertEquals(200, replaced.getStatusCode(), "replace");
        checkWriteHeaders(replaced, "replace");
        checkSystemProperties(replaced.getItem(), "replace");
        assertNotEquals(created.get("_etag"), replaced.getItem().get("_etag"), "_etag changes on replace");
        assertEquals(created.get("_rid"), replaced.getItem().get("_rid"), "_rid kept on replace");
        assertEquals(2, container.readItem("a", new PartitionKey("p1"), ObjectNode.class).getItem().get("v").asInt());
        assertCosmos(404, "replace a missing item", () -> container.replaceItem(doc("id", "nope", "pk", "p1"), "nope",
            new PartitionKey("p1"), new CosmosItemRequestOptions()));
    }

    @Test
    void upsertAnswers201ThenReplaces200() {
        CosmosContainer container = newContainer();
        CosmosItemResponse<ObjectNode> inserted = container.upsertItem(doc("id", "u", "pk", "p1", "v", 1));
        assertEquals(201, inserted.getStatusCode(), "upsert inserting");
        checkWriteHeaders(inserted, "upsert inserting");
        CosmosItemResponse<ObjectNode> replaced = container.upsertItem(doc("id", "u", "pk", "p1", "v", 2));
        assertEquals(200, replaced.getStatusCode(), "upsert replacing");
        assertNotEquals(inserted.getETag(), replaced.getETag(), "etag after upsert");
        assertEquals(inserted.getItem().get("_rid"), replaced.getItem().get("_rid"), "_rid after upsert");
        assertEquals(2, container.readItem("u", new PartitionKey("p1"), ObjectNode.class).getItem().get("v").asInt());
    }

    @Test
    void deleteAnswers204ThenReadAndDeleteAnswer404() {
        CosmosContainer container = newContainer();
        container.createItem(doc("id", "d", "pk", "p1"));
        CosmosItemResponse<Object> deleted = container.deleteItem("d", new PartitionKey("p1"), new CosmosItemRequestOptions());
        assertEquals(204, deleted.getStatusCode(), "delete");
        assertCharge(deleted.getRequestCharge(), "delete");
        assertCosmos(404, "read a deleted item", () -> container.readItem("d", new PartitionKey("p1"), ObjectNode.class));
        assertCosmos(404, "delete a deleted item",
            () -> container.deleteItem("d", new PartitionKey("p1"), new CosmosItemRequestOptions()));
    }

    @Test
    void duplicateIdInTheSamePartitionAnswers409() {
        CosmosContainer container = newContainer();
        container.createItem(doc("id", "dup", "pk", "p1", "v", 1));
        assertCosmos(409, "create a duplicate id", () -> container.createItem(doc("id", "dup", "pk", "p1", "v", 2)));
        assertEquals(1, container.readItem("dup", new PartitionKey("p1"), ObjectNode.class).getItem().get("v").asInt(),
            "original kept");
    }

    @Test
    void sameIdInTwoLogicalPartitionsAreIndependent() {
        CosmosContainer container = newContainer();
        assertEquals(201, container.createItem(doc("id", "same", "pk", "p1", "v", 1)).getStatusCode());
        assertEquals(201, container.createItem(doc("id", "same", "pk", "p2", "v", 2)).getStatusCode());
        assertEquals(1, container.readItem("same", new PartitionKey("p1"), ObjectNode.class).getItem().get("v").asInt());
        assertEquals(2, container.readItem("same", new PartitionKey("p2"), ObjectNode.class).getItem().get("v").asInt());
        container.deleteItem("same", new PartitionKey("p1"), new CosmosItemRequestOptions());
        assertEquals(200, container.readItem("same", new PartitionKey("p2"), ObjectNode.class).getStatusCode());
        assertCosmos(404, "the same id in an unused partition",
            () -> container.readItem("same", new PartitionKey("p3"), ObjectNode.class));
    }

    @Test
    void ifMatchWithAStaleEtagAnswers412() {
        CosmosContainer container = newContainer();
        String first = container.createItem(doc("id", "e", "pk", "p", "v", 1)).getETag();
        String second = container.upsertItem(doc("id", "e", "pk", "p", "v", 2)).getETag();
        assertNotEquals(first, second);
        CosmosItemRequestOptions stale = new CosmosItemRequestOptions().setIfMatchETag(first);
        assertCosmos(412, "replace with a stale If-Match",
            () -> container.replaceItem(doc("id", "e", "pk", "p", "v", 3), "e", new PartitionKey("p"), stale));
        assertCosmos(412, "upsert with a stale If-Match",
            () -> container.upsertItem(doc("id", "e", "pk", "p", "v", 3), new PartitionKey("p"), stale));
        assertCosmos(412, "delete with a stale If-Match",
            () -> container.deleteItem("e", new PartitionKey("p"), stale));
        assertEquals(2, container.readItem("e", new PartitionKey("p"), ObjectNode.class).getItem().get("v").asInt(),
            "nothing changed");
        CosmosItemRequestOptions current = new CosmosItemRequestOptions().setIfMatchETag(second);
        CosmosItemResponse<ObjectNode> ok = container.replaceItem(doc("id", "e", "pk", "p", "v", 4), "e", new PartitionKey("p"), current);
        assertEquals(200, ok.getStatusCode(), "replace with the current If-Match");
        assertEquals(204, container.deleteItem("e", new PartitionKey("p"),
            new CosmosItemRequestOptions().setIfMatchETag(ok.getETag())).getStatusCode(), "delete with the current If-Match");
    }

    @Test
    void readWithIfNoneMatchAnswers304WhenUnchanged() {
        CosmosContainer container = newContainer();
        String etag = container.createItem(doc("id", "c", "pk", "p", "v", 1)).getETag();
        CosmosItemResponse<ObjectNode> notModified = container.readItem("c", new PartitionKey("p"),
            new CosmosItemRequestOptions().setIfNoneMatchETag(etag), ObjectNode.class);
        assertEquals(304, notModified.getStatusCode(), "read with If-None-Match of the current etag");
        container.upsertItem(doc("id", "c", "pk", "p", "v", 2));
        CosmosItemResponse<ObjectNode> modified = container.readItem("c", new PartitionKey("p"),
            new CosmosItemRequestOptions().setIfNoneMatchETag(etag), ObjectNode.class);
        assertEquals(200, modified.getStatusCode(), "read with If-None-Match of an old etag");
        assertEquals(2, modified.getItem().get("v").asInt());
    }

    @Test
    void sessionTokenGivesReadYourWritesOnAnotherClient() {
        CosmosContainer container = newContainer();
        CosmosItemResponse<ObjectNode> first = container.createItem(doc("id", "s", "pk", "p", "v", 1));
        CosmosItemResponse<ObjectNode> second = container.upsertItem(doc("id", "s", "pk", "p", "v", 2));
        String token = second.getSessionToken();
        assertTrue(token.matches("[^:,]+:(-?\\d+#)?\\d+(#.*)?"), "session token {range}:{version}#{lsn}: " + token);
        assertTrue(lsn(token) > lsn(first.getSessionToken()), "the LSN grows with each write: " + first.getSessionToken()
            + " then " + token);
        try (CosmosClient other = Env.newClient()) {
            CosmosContainer same = other.getDatabase(database.getId()).getContainer(container.getId());
            CosmosItemResponse<ObjectNode> read = same.readItem("s", new PartitionKey("p"),
                new CosmosItemRequestOptions().setSessionToken(token), ObjectNode.class);
            assertEquals(2, read.getItem().get("v").asInt(), "a read with the writer's session token sees the write");
            assertTrue(lsn(read.getSessionToken()) >= lsn(token), "the read's session token is not older than the write's");
        }
    }

    public static long lsn(String sessionToken) {
        String token = sessionToken.substring(sessionToken.indexOf(':') + 1);
        String[] parts = token.split("#");
        return Long.parseLong(parts.length >= 2 ? parts[1] : parts[0]);
    }

    @Test
    void minimalResponseOnWriteHasNoBody() {
        CosmosContainer container = newContainer();
        CosmosItemRequestOptions minimal = new CosmosItemRequestOptions().setContentResponseOnWriteEnabled(false);
        CosmosItemResponse<ObjectNode> created = container.createItem(doc("id", "m", "pk", "p"), new PartitionKey("p"), minimal);
        assertEquals(201, created.getStatusCode());
        assertNull(created.getItem(), "Prefer: return=minimal leaves the body out");
        assertNotNull(created.getETag(), "etag still returned");
        assertEquals(200, container.readItem("m", new PartitionKey("p"), ObjectNode.class).getStatusCode());
    }

    @Test
    void partitionKeyValuesOfEveryType() {
        CosmosContainer container = newContainer();
        container.createItem(doc("id", "num", "pk", 42));
        container.createItem(doc("id", "bool", "pk", true));
        ObjectNode withNull = doc("id", "nul");
        withNull.putNull("pk");
        container.createItem(withNull);
        container.createItem(doc("id", "none"), PartitionKey.NONE, new CosmosItemRequestOptions());
        assertEquals(200, container.readItem("num", new PartitionKey(42), ObjectNode.class).getStatusCode(), "number key");
        assertEquals(200, container.readItem("bool", new PartitionKey(true), ObjectNode.class).getStatusCode(), "boolean key");
        assertEquals(200, container.readItem("nul", new PartitionKey(null), ObjectNode.class).getStatusCode(), "null key");
        assertEquals(200, container.readItem("none", PartitionKey.NONE, ObjectNode.class).getStatusCode(), "undefined key");
        assertCosmos(404, "the null key is not the undefined key",
            () -> container.readItem("none", new PartitionKey(null), ObjectNode.class));
        assertCosmos(404, "the number 42 is not the string \"42\"",
            () -> container.readItem("num", new PartitionKey("42"), ObjectNode.class));
    }

    @Test
    void partitionKeyDisagreeingWithTheBodyAnswers400With1001() {
        CosmosContainer container = newContainer();
        assertCosmos(400, 1001, "create with a partition key that differs from the body",
            () -> container.createItem(doc("id", "x", "pk", "right"), new PartitionKey("wrong"), new CosmosItemRequestOptions()));
        container.createItem(doc("id", "x", "pk", "right"));
        assertCosmos(400, 1001, "replace with a partition key that differs from the body",
            () -> container.replaceItem(doc("id", "x", "pk", "right"), "x", new PartitionKey("wrong"), new CosmosItemRequestOptions()));
    }

    @Test
    void documentOver2MbAnswers413() {
        CosmosContainer container = newContainer();
        String blob = "x".repeat(2 * 1024 * 1024 + 16);
        assertCosmos(413, "create an item over 2 MB", () -> container.createItem(doc("id", "big", "pk", "p", "blob", blob)));
        assertCosmos(404, "the oversized item was not stored",
            () -> container.readItem("big", new PartitionKey("p"), ObjectNode.class));
        String almost = "x".repeat(2 * 1024 * 1024 - 4096);
        assertEquals(201, container.createItem(doc("id", "almost", "pk", "p", "blob", almost)).getStatusCode(),
            "an item just under 2 MB");
    }

    @Test
    void itemInAMissingContainerAnswers404() {
        CosmosContainer missing = newDatabase().getContainer(uid("missing"));
        assertCosmos(404, "create in a missing container", () -> missing.createItem(doc("id", "x", "pk", "p")));
        assertCosmos(404, "read in a missing container", () -> missing.readItem("x", new PartitionKey("p"), ObjectNode.class));
    }

    @Test
    void unicodeAndSpecialIdsRoundTrip() {
        CosmosContainer container = newContainer();
        for (String id : new String[] {"with space", "ünïcödé-漢字", "a+b=c&d", "percent%20", "quote'\"", "emoji-😀"}) {
            assertEquals(201, container.createItem(doc("id", id, "pk", "p")).getStatusCode(), "create " + id);
            assertEquals(id, container.readItem(id, new PartitionKey("p"), ObjectNode.class).getItem().get("id").asText(),
                "read " + id);
            assertEquals(204, container.deleteItem(id, new PartitionKey("p"), new CosmosItemRequestOptions()).getStatusCode(),
                "delete " + id);
        }
    }
}
