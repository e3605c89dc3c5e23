// Items: create/read/replace/upsert/delete with system properties, etags and If-Match, session
// tokens, partition key types, 409/404/412/400/413.
package conformance

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func checkSystemProperties(t *testing.T, body doc, what string) {
	t.Helper()
	rid, _ := body["_rid"].(string)
	ok(t, rid != "", "%s: _rid missing", what)
	self, _ := body["_self"].(string)
	ok(t, strings.HasSuffix(self, "/docs/"+rid+"/"), "%s: _self %q should end with /docs/%s/", what, self, rid)
	etag, _ := body["_etag"].(string)
	ok(t, len(etag) > 2 && strings.HasPrefix(etag, `"`) && strings.HasSuffix(etag, `"`), "%s: _etag should be quoted: %q", what, etag)
	ts, isNumber := body["_ts"].(float64)
	ok(t, isNumber && ts == float64(int64(ts)), "%s: _ts should be an integer: %v", what, body["_ts"])
	ok(t, time.Since(time.Unix(int64(ts), 0)).Abs() < 10*time.Minute, "%s: _ts %v is not close to now", what, ts)
	eq(t, body["_attachments"], any("attachments/"), what+": _attachments")
}

func TestItems_CreateReturnsSystemPropertiesAndHeaders(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	item := doc{"id": "a", "pk": "p1", "n": 1.5, "nested": map[string]any{"list": []any{1.0, "two", nil, true}}, "text": "héllo 漢字"}
	response := createItem(t, container, pk("p1"), item)
	eq(t, response.RawResponse.StatusCode, http.StatusCreated, "status")
	charged(t, response.Response, "create")
	ok(t, response.SessionToken != nil && *response.SessionToken != "", "create: session token missing")
	ok(t, response.ActivityID != "", "create: activity id missing")
	body := decode(t, response.Value)
	checkSystemProperties(t, body, "create")
	eq(t, string(response.ETag), body["_etag"].(string), "ETag header equals _etag")
	for k, v := range item {
		deepEq(t, body[k], v, "created "+k)
	}
}

func TestItems_WritesReturnNoBodyUnlessAsked(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	response, err := container.CreateItem(ctx(), pk("p"), mustJSON(t, doc{"id": "m", "pk": "p"}), nil)
	noErr(t, err, "create")
	eq(t, response.RawResponse.StatusCode, http.StatusCreated, "status")
	eq(t, len(response.Value), 0, "body length of a minimal create (Prefer: return=minimal)")
	ok(t, response.ETag != "", "minimal create: ETag header missing")
	charged(t, response.Response, "minimal create")
	eq(t, readItem(t, container, pk("p"), "m")["id"], any("m"), "the item exists")
}

func TestItems_ReadReturnsTheStoredDocument(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	created := decode(t, createItem(t, container, pk("p1"), doc{"id": "a", "pk": "p1", "v": 1.0}).Value)
	response, err := container.ReadItem(ctx(), pk("p1"), "a", nil)
	noErr(t, err, "read")
	eq(t, response.RawResponse.StatusCode, http.StatusOK, "status")
	charged(t, response.Response, "read")
	ok(t, response.SessionToken != nil, "read: session token missing")
	eq(t, string(response.ETag), created["_etag"].(string), "read ETag")
	deepEq(t, decode(t, response.Value), created, "read body equals created body")
}

func TestItems_ReplaceChangesTheEtag(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	created := decode(t, createItem(t, container, pk("p1"), doc{"id": "a", "pk": "p1", "v": 1.0}).Value)
	response, err := container.ReplaceItem(ctx(), pk("p1"), "a", mustJSON(t, doc{"id": "a", "pk": "p1", "v": 2.0}),
		&azcosmos.ItemOptions{EnableContentResponseOnWrite: true})
	noErr(t, err, "replace")
	eq(t, response.RawResponse.StatusCode, http.StatusOK, "status")
	charged(t, response.Response, "replace")
	body := decode(t, response.Value)
	checkSystemProperties(t, body, "replace")
	ok(t, body["_etag"] != created["_etag"], "_etag should change on replace")
	eq(t, body["_rid"], created["_rid"], "_rid is kept")
	eq(t, readItem(t, container, pk("p1"), "a")["v"], any(2.0), "value after replace")

	_, err = container.ReplaceItem(ctx(), pk("p1"), "nope", mustJSON(t, doc{"id": "nope", "pk": "p1"}), nil)
	expectError(t, err, http.StatusNotFound, -1, "replace a missing item")
}

func TestItems_UpsertInsertsThenReplaces(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	options := &azcosmos.ItemOptions{EnableContentResponseOnWrite: true}
	inserted, err := container.UpsertItem(ctx(), pk("p"), mustJSON(t, doc{"id": "u", "pk": "p", "v": 1.0}), options)
	noErr(t, err, "upsert (insert)")
	eq(t, inserted.RawResponse.StatusCode, http.StatusCreated, "upsert insert status")
	replaced, err := container.UpsertItem(ctx(), pk("p"), mustJSON(t, doc{"id": "u", "pk": "p", "v": 2.0}), options)
	noErr(t, err, "upsert (replace)")
	eq(t, replaced.RawResponse.StatusCode, http.StatusOK, "upsert replace status")
	a, b := decode(t, inserted.Value), decode(t, replaced.Value)
	eq(t, a["_rid"], b["_rid"], "_rid kept by upsert")
	ok(t, a["_etag"] != b["_etag"], "_etag changes on upsert")
	eq(t, readItem(t, container, pk("p"), "u")["v"], any(2.0), "value after upsert")
}

func TestItems_DeleteThen404(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	createItem(t, container, pk("p"), doc{"id": "d", "pk": "p"})
	deleted, err := container.DeleteItem(ctx(), pk("p"), "d", nil)
	noErr(t, err, "delete")
	eq(t, deleted.RawResponse.StatusCode, http.StatusNoContent, "delete status")
	charged(t, deleted.Response, "delete")
	eq(t, len(deleted.Value), 0, "delete body")
	_, err = container.ReadItem(ctx(), pk("p"), "d", nil)
	re := expectError(t, err, http.StatusNotFound, 0, "read deleted item")
	body, _ := errorBodyOf(t, err)
	eq(t, body.Code, "NotFound", "error body code")
	ok(t, re.RawResponse.Header.Get("x-ms-request-charge") != "", "a 404 carries x-ms-request-charge")
	_, err = container.DeleteItem(ctx(), pk("p"), "d", nil)
	expectError(t, err, http.StatusNotFound, -1, "delete deleted item")
}

func TestItems_DuplicateIdIs409OnlyWithinALogicalPartition(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	createItem(t, container, pk("p1"), doc{"id": "same", "pk": "p1", "v": 1.0})
	_, err := container.CreateItem(ctx(), pk("p1"), mustJSON(t, doc{"id": "same", "pk": "p1", "v": 2.0}), nil)
	expectError(t, err, http.StatusConflict, -1, "duplicate id in the same partition")
	body, _ := errorBodyOf(t, err)
	eq(t, body.Code, "Conflict", "error body code")
	createItem(t, container, pk("p2"), doc{"id": "same", "pk": "p2", "v": 2.0})
	eq(t, readItem(t, container, pk("p1"), "same")["v"], any(1.0), "p1 keeps its value")
	eq(t, readItem(t, container, pk("p2"), "same")["v"], any(2.0), "p2 has its own")
	_, err = container.ReadItem(ctx(), pk("p3"), "same", nil)
	expectError(t, err, http.StatusNotFound, -1, "same id under an unused key")
}

func TestItems_IfMatchOnWrites(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	first := createItem(t, container, pk("p"), doc{"id": "o", "pk": "p", "v": 1.0})
	stale := first.ETag
	second, err := container.ReplaceItem(ctx(), pk("p"), "o", mustJSON(t, doc{"id": "o", "pk": "p", "v": 2.0}), nil)
	noErr(t, err, "replace")
	current := second.ETag
	ok(t, current != stale, "etag changes")

	_, err = container.ReplaceItem(ctx(), pk("p"), "o", mustJSON(t, doc{"id": "o", "pk": "p", "v": 3.0}),
		&azcosmos.ItemOptions{IfMatchEtag: &stale})
	expectError(t, err, http.StatusPreconditionFailed, -1, "replace with a stale If-Match")
	body, _ := errorBodyOf(t, err)
	eq(t, body.Code, "PreconditionFailed", "error body code")
	_, err = container.UpsertItem(ctx(), pk("p"), mustJSON(t, doc{"id": "o", "pk": "p", "v": 3.0}),
		&azcosmos.ItemOptions{IfMatchEtag: &stale})
	expectError(t, err, http.StatusPreconditionFailed, -1, "upsert with a stale If-Match")
	_, err = container.DeleteItem(ctx(), pk("p"), "o", &azcosmos.ItemOptions{IfMatchEtag: &stale})
	expectError(t, err, http.StatusPreconditionFailed, -1, "delete with a stale If-Match")
	eq(t, readItem(t, container, pk("p"), "o")["v"], any(2.0), "nothing changed by the failed writes")

	// A read with the current etag as If-Match is served.
	read, err := container.ReadItem(ctx(), pk("p"), "o", &azcosmos.ItemOptions{IfMatchEtag: &current})
	noErr(t, err, "read with the current If-Match")
	eq(t, read.ETag, current, "read etag")

	replaced, err := container.ReplaceItem(ctx(), pk("p"), "o", mustJSON(t, doc{"id": "o", "pk": "p", "v": 3.0}),
		&azcosmos.ItemOptions{IfMatchEtag: &current})
	noErr(t, err, "replace with the current If-Match")
	eq(t, replaced.RawResponse.StatusCode, http.StatusOK, "status")
	latest := replaced.ETag
	deleted, err := container.DeleteItem(ctx(), pk("p"), "o", &azcosmos.ItemOptions{IfMatchEtag: &latest})
	noErr(t, err, "delete with the current If-Match")
	eq(t, deleted.RawResponse.StatusCode, http.StatusNoContent, "status")

	// Upsert with If-Match of a missing item creates it (the precondition applies to replace).
	ghost := azcore.ETag(`"00000000-0000-0000-0000-000000000000"`)
	created, err := container.UpsertItem(ctx(), pk("p"), mustJSON(t, doc{"id": "ghost", "pk": "p"}),
		&azcosmos.ItemOptions{IfMatchEtag: &ghost})
	noErr(t, err, "upsert with If-Match of a missing item")
	eq(t, created.RawResponse.StatusCode, http.StatusCreated, "status")
}

func TestItems_SessionTokenReadYourWrites(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	written := createItem(t, container, pk("p"), doc{"id": "s", "pk": "p", "v": 1.0})
	ok(t, written.SessionToken != nil, "create: session token")
	token := *written.SessionToken
	ok(t, strings.Contains(token, ":"), "session token %q should be {pkRangeId}:{token}", token)
	replaced, err := container.ReplaceItem(ctx(), pk("p"), "s", mustJSON(t, doc{"id": "s", "pk": "p", "v": 2.0}), nil)
	noErr(t, err, "replace")
	ok(t, replaced.SessionToken != nil && *replaced.SessionToken != token, "the session token advances with a write: %v -> %v",
		token, replaced.SessionToken)
	read, err := container.ReadItem(ctx(), pk("p"), "s", &azcosmos.ItemOptions{SessionToken: replaced.SessionToken})
	noErr(t, err, "read with the write's session token")
	eq(t, decode(t, read.Value)["v"], any(2.0), "read-your-writes")
	// A query with the session token sees the write too.
	result := mustQuery(t, container, "SELECT VALUE c.v FROM c WHERE c.id = 's'", pk("p"),
		&azcosmos.QueryOptions{SessionToken: replaced.SessionToken})
	deepEq(t, values(t, result.items), []any{2.0}, "query with the session token")
}

func TestItems_ConsistencyCanOnlyBeRelaxed(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	createItem(t, container, pk("p"), doc{"id": "c", "pk": "p"})
	eventual := azcosmos.ConsistencyLevelEventual
	_, err := container.ReadItem(ctx(), pk("p"), "c", &azcosmos.ItemOptions{ConsistencyLevel: &eventual})
	noErr(t, err, "read at Eventual on a Session account")
	if managed {
		// The managed server's account is Session: a stronger level on one request is refused.
		strong := azcosmos.ConsistencyLevelStrong
		_, err = container.ReadItem(ctx(), pk("p"), "c", &azcosmos.ItemOptions{ConsistencyLevel: &strong})
		expectError(t, err, http.StatusBadRequest, -1, "read at Strong on a Session account")
	}
}

func TestItems_PartitionKeyValueTypes(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	cases := []struct {
		key  azcosmos.PartitionKey
		item doc
	}{
		{azcosmos.NullPartitionKey, doc{"id": "k", "pk": nil, "v": "null"}},
		{azcosmos.NewPartitionKeyNumber(5), doc{"id": "k", "pk": 5, "v": "five"}},
		{azcosmos.NewPartitionKeyBool(true), doc{"id": "k", "pk": true, "v": "true"}},
		{pk("5"), doc{"id": "k", "pk": "5", "v": "string5"}},
		{pk(""), doc{"id": "k", "pk": "", "v": "empty"}},
	}
	for _, c := range cases {
		createItem(t, container, c.key, c.item)
	}
	for _, c := range cases {
		response, err := container.ReadItem(ctx(), c.key, "k", nil)
		noErr(t, err, "read "+c.item["v"].(string))
		eq(t, decode(t, response.Value)["v"], c.item["v"], "value under key "+c.item["v"].(string))
	}
}

func TestItems_PartitionKeyMismatchIs400With1001(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	_, err := container.CreateItem(ctx(), pk("a"), mustJSON(t, doc{"id": "x", "pk": "b"}), nil)
	expectError(t, err, http.StatusBadRequest, 1001, "create with a partition key header that differs from the body")
	_, err = container.CreateItem(ctx(), azcosmos.NewPartitionKeyNumber(1), mustJSON(t, doc{"id": "x", "pk": "1"}), nil)
	expectError(t, err, http.StatusBadRequest, 1001, "number key for a string value")
}

func TestItems_NestedPartitionKeyPath(t *testing.T) {
	_, container := newContainer(t, containerSpec{paths: []string{"/a/b"}})
	createItem(t, container, pk("deep"), doc{"id": "n", "a": map[string]any{"b": "deep"}})
	eq(t, readItem(t, container, pk("deep"), "n")["id"], any("n"), "read by nested key")
	_, err := container.ReadItem(ctx(), pk("other"), "n", nil)
	expectError(t, err, http.StatusNotFound, -1, "read with a wrong nested key")
}

func TestItems_HierarchicalPartitionKeyCRUD(t *testing.T) {
	_, container := newContainer(t, containerSpec{paths: []string{"/tenant", "/user"}, kind: azcosmos.PartitionKeyKindMultiHash, version: 2})
	ab := pk("a").AppendString("b")
	ac := pk("a").AppendString("c")
	created := createItem(t, container, ab, doc{"id": "h", "tenant": "a", "user": "b", "v": 1.0})
	checkSystemProperties(t, decode(t, created.Value), "hierarchical create")
	eq(t, readItem(t, container, ab, "h")["v"], any(1.0), "read [a,b]")
	_, err := container.ReadItem(ctx(), ac, "h", nil)
	expectError(t, err, http.StatusNotFound, -1, "read [a,c]")
	createItem(t, container, ac, doc{"id": "h", "tenant": "a", "user": "c", "v": 2.0})
	_, err = container.ReplaceItem(ctx(), ab, "h", mustJSON(t, doc{"id": "h", "tenant": "a", "user": "b", "v": 3.0}), nil)
	noErr(t, err, "replace [a,b]")
	eq(t, readItem(t, container, ab, "h")["v"], any(3.0), "replaced")
	_, err = container.DeleteItem(ctx(), ab, "h", nil)
	noErr(t, err, "delete [a,b]")
	eq(t, readItem(t, container, ac, "h")["v"], any(2.0), "[a,c] survives")
}

func TestItems_UnicodeAndLongIds(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	for _, id := range []string{"é-漢字-🙂", "with space", "a.b-c_d~e", "WithAllowedSpecial,=.:~+-@()^${}[]!_Chars", strings.Repeat("x", 1023)} {
		createItem(t, container, pk("p"), doc{"id": id, "pk": "p"})
		eq(t, readItem(t, container, pk("p"), id)["id"], any(id), "id round-trip "+truncate(id, 20))
		_, err := container.DeleteItem(ctx(), pk("p"), id, nil)
		noErr(t, err, "delete "+truncate(id, 20))
	}
}

func TestItems_IdsAreCaseSensitive(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	createItem(t, container, pk("p"), doc{"id": "Case", "pk": "p", "v": 1.0})
	createItem(t, container, pk("p"), doc{"id": "case", "pk": "p", "v": 2.0})
	eq(t, readItem(t, container, pk("p"), "Case")["v"], any(1.0), "Case")
	eq(t, readItem(t, container, pk("p"), "case")["v"], any(2.0), "case")
	_, err := container.ReadItem(ctx(), pk("p"), "CASE", nil)
	expectError(t, err, http.StatusNotFound, -1, "CASE")
}

func TestItems_TooLargeIs413(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	_, err := container.CreateItem(ctx(), pk("p"), mustJSON(t, doc{"id": "big", "pk": "p", "blob": strings.Repeat("z", 2*1024*1024+10)}), nil)
	expectError(t, err, http.StatusRequestEntityTooLarge, -1, "create a 2 MB+ item")
}

func TestItems_InvalidBodiesAre400(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	_, err := container.CreateItem(ctx(), pk("p"), []byte(`{"id": "x", "pk": "p"`), nil)
	expectError(t, err, http.StatusBadRequest, -1, "malformed JSON")
	_, err = container.CreateItem(ctx(), pk("p"), mustJSON(t, doc{"pk": "p", "v": 1}), nil)
	expectError(t, err, http.StatusBadRequest, -1, "item without an id")
	_, err = container.CreateItem(ctx(), pk("p"), mustJSON(t, doc{"id": 5, "pk": "p"}), nil)
	expectError(t, err, http.StatusBadRequest, -1, "numeric id")
}

func TestItems_MissingContainerIs404(t *testing.T) {
	database := newDatabase(t)
	container, _ := database.NewContainer(uid("missing"))
	_, err := container.CreateItem(ctx(), pk("p"), mustJSON(t, doc{"id": "x", "pk": "p"}), nil)
	expectError(t, err, http.StatusNotFound, 1003, "create in a missing container")
	_, err = container.ReadItem(ctx(), pk("p"), "x", nil)
	expectError(t, err, http.StatusNotFound, 1003, "read in a missing container")
}

func TestItems_ReadManyItems(t *testing.T) {
	// Version 2 hashing: azcosmos 1.5 routes ReadManyItems by computing effective partition keys
	// itself, and its V1 hash (internal/epk ComputeV1: 12 zero bytes + murmur32) is not the
	// service's V1 encoding, so on a multi-partition V1 container it sends items to the wrong ranges.
	_, container := newContainer(t, containerSpec{throughput: fourPartitions(), version: 2})
	seed(t, container, 40, 40)
	identities := []azcosmos.ItemIdentity{}
	for _, i := range []int{0, 7, 13, 21, 39} {
		identities = append(identities, azcosmos.ItemIdentity{ID: "d" + itoa(i), PartitionKey: pk("p" + itoa(i))})
	}
	identities = append(identities, azcosmos.ItemIdentity{ID: "d1", PartitionKey: pk("p2")}) // wrong key: absent
	identities = append(identities, azcosmos.ItemIdentity{ID: "nope", PartitionKey: pk("p3")})
	response, err := container.ReadManyItems(ctx(), identities, nil)
	noErr(t, err, "ReadManyItems")
	got := ids(t, response.Items)
	want := []string{"d0", "d7", "d13", "d21", "d39"}
	ok(t, sameSet(got, want), "ReadManyItems over 4 physical partitions (client-side EPK routing): got %v, want %v", got, want)
	ok(t, response.RequestCharge > 0, "ReadManyItems request charge")
}
