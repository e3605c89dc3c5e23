// Partial document update through ContainerClient.PatchItem (PatchOperations: AppendAdd,
// AppendSet, AppendReplace, AppendRemove, AppendIncrement, SetCondition) and If-Match.
package conformance

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

var product = doc{
	"id": "bike", "pk": "road", "name": "R-410 Road Bicycle", "price": 455.95,
	"inventory": map[string]any{"quantity": 15}, "used": false, "tags": []any{"r-series"},
}

func withProduct(t *testing.T) (*azcosmos.ContainerClient, doc) {
	t.Helper()
	_, container := newContainer(t, containerSpec{})
	created := decode(t, createItem(t, container, pk("road"), product).Value)
	return container, created
}

var returnBody = &azcosmos.ItemOptions{EnableContentResponseOnWrite: true}

func patch(t *testing.T, container *azcosmos.ContainerClient, ops azcosmos.PatchOperations) doc {
	t.Helper()
	response, err := container.PatchItem(ctx(), pk("road"), "bike", ops, returnBody)
	noErr(t, err, "patch")
	eq(t, response.RawResponse.StatusCode, http.StatusOK, "patch status")
	return decode(t, response.Value)
}

// refused asserts that a patch answers status and leaves the document as it was.
func refused(t *testing.T, container *azcosmos.ContainerClient, created doc, ops azcosmos.PatchOperations, status int, what string) {
	t.Helper()
	_, err := container.PatchItem(ctx(), pk("road"), "bike", ops, nil)
	expectError(t, err, status, -1, what)
	after := readItem(t, container, pk("road"), "bike")
	eq(t, after["_etag"], created["_etag"], what+": the document must not change")
}

func clientProperties(d doc) doc {
	out := doc{}
	for k, v := range d {
		if !strings.HasPrefix(k, "_") {
			out[k] = v
		}
	}
	return out
}

func TestPatch_EveryOperation(t *testing.T) {
	container, created := withProduct(t)
	ops := azcosmos.PatchOperations{}
	ops.AppendAdd("/color", "silver")
	ops.AppendRemove("/used")
	ops.AppendSet("/price", 355.45)
	ops.AppendIncrement("/inventory/quantity", 10)
	ops.AppendAdd("/tags/-", "featured-bikes")
	ops.AppendReplace("/name", "R-410")
	response, err := container.PatchItem(ctx(), pk("road"), "bike", ops, returnBody)
	noErr(t, err, "patch")
	eq(t, response.RawResponse.StatusCode, http.StatusOK, "status")
	charged(t, response.Response, "patch")
	ok(t, response.SessionToken != nil, "patch: session token")
	body := decode(t, response.Value)
	deepEq(t, clientProperties(body), doc{
		"id": "bike", "pk": "road", "name": "R-410", "price": 355.45, "color": "silver",
		"inventory": map[string]any{"quantity": 25.0}, "tags": []any{"r-series", "featured-bikes"},
	}, "patched document")
	ok(t, body["_etag"] != created["_etag"], "_etag changes")
	eq(t, string(response.ETag), body["_etag"].(string), "ETag header equals _etag")
	eq(t, body["_rid"], created["_rid"], "_rid is kept")
	deepEq(t, readItem(t, container, pk("road"), "bike"), body, "read after patch")
}

func TestPatch_NoBodyByDefault(t *testing.T) {
	container, _ := withProduct(t)
	ops := azcosmos.PatchOperations{}
	ops.AppendSet("/price", 1)
	response, err := container.PatchItem(ctx(), pk("road"), "bike", ops, nil)
	noErr(t, err, "patch")
	eq(t, len(response.Value), 0, "body of a patch without EnableContentResponseOnWrite")
	eq(t, readItem(t, container, pk("road"), "bike")["price"], any(1.0), "applied")
}

func TestPatch_ArraysAndNestedPaths(t *testing.T) {
	container, _ := withProduct(t)
	ops := azcosmos.PatchOperations{}
	ops.AppendAdd("/tags/0", "first")
	ops.AppendAdd("/tags/2", "last")
	ops.AppendSet("/tags/1", "middle")
	ops.AppendAdd("/name", "renamed")
	ops.AppendSet("/inventory/color", map[string]any{"frame": "red"})
	body := patch(t, container, ops)
	deepEq(t, body["tags"], []any{"first", "middle", "last"}, "tags")
	eq(t, body["name"], any("renamed"), "add on an existing property replaces it")
	deepEq(t, body["inventory"], map[string]any{"quantity": 15.0, "color": map[string]any{"frame": "red"}}, "nested set")

	ops = azcosmos.PatchOperations{}
	ops.AppendRemove("/tags/0")
	ops.AppendReplace("/tags/0", "c")
	ops.AppendRemove("/inventory/color/frame")
	body = patch(t, container, ops)
	deepEq(t, body["tags"], []any{"c", "last"}, "tags after remove and replace")
	deepEq(t, body["inventory"], map[string]any{"quantity": 15.0, "color": map[string]any{}}, "nested remove")
}

func TestPatch_IncrementKeepsIntegersAndCreatesMissingProperties(t *testing.T) {
	container, _ := withProduct(t)
	ops := azcosmos.PatchOperations{}
	ops.AppendIncrement("/inventory/quantity", -20)
	ops.AppendIncrement("/views", 7)
	body := patch(t, container, ops)
	deepEq(t, body["inventory"], map[string]any{"quantity": -5.0}, "integer increment")
	eq(t, body["views"], any(7.0), "increment of a missing property creates it")
	response, err := container.ReadItem(ctx(), pk("road"), "bike", nil)
	noErr(t, err, "read")
	ok(t, strings.Contains(string(response.Value), `"quantity":-5`) && !strings.Contains(string(response.Value), `"quantity":-5.0`),
		"the incremented integer stays an integer on the wire: %s", response.Value)
}

func TestPatch_EscapedPropertyNames(t *testing.T) {
	container, _ := withProduct(t)
	ops := azcosmos.PatchOperations{}
	ops.AppendAdd("/a~1b", 1)
	ops.AppendAdd("/c~0d", 2)
	body := patch(t, container, ops)
	eq(t, body["a/b"], any(1.0), "a/b")
	eq(t, body["c~d"], any(2.0), "c~d")
}

func TestPatch_OperationsThatCannotApplyAre400(t *testing.T) {
	container, created := withProduct(t)
	one := func(build func(*azcosmos.PatchOperations)) azcosmos.PatchOperations {
		ops := azcosmos.PatchOperations{}
		build(&ops)
		return ops
	}
	refused(t, container, created, one(func(o *azcosmos.PatchOperations) { o.AppendReplace("/missing", 1) }), 400, "replace of a missing path")
	refused(t, container, created, one(func(o *azcosmos.PatchOperations) { o.AppendRemove("/missing") }), 400, "remove of a missing path")
	refused(t, container, created, one(func(o *azcosmos.PatchOperations) { o.AppendAdd("/no/such/parent", 1) }), 400, "add below a missing parent")
	refused(t, container, created, one(func(o *azcosmos.PatchOperations) { o.AppendAdd("/tags/5", "x") }), 400, "add past the end of an array")
	refused(t, container, created, one(func(o *azcosmos.PatchOperations) { o.AppendIncrement("/name", 1) }), 400, "increment of a string")
	refused(t, container, created, one(func(o *azcosmos.PatchOperations) {
		o.AppendSet("/price", 1)
		o.AppendRemove("/missing")
	}), 400, "a failing second operation refuses the first too")
	refused(t, container, created, one(func(o *azcosmos.PatchOperations) { o.AppendSet("/id", "other") }), 400, "patching the id")
	refused(t, container, created, one(func(o *azcosmos.PatchOperations) { o.AppendSet("/pk", "other") }), 400, "patching the partition key")
	refused(t, container, created, one(func(o *azcosmos.PatchOperations) { o.AppendSet("x", 1) }), 400, "a path without a leading /")
	refused(t, container, created, one(func(o *azcosmos.PatchOperations) {
		for i := 0; i < 11; i++ {
			o.AppendSet(fmt.Sprintf("/p%d", i), i)
		}
	}), 400, "11 operations")
	refused(t, container, created, azcosmos.PatchOperations{}, 400, "no operations")
	ten := azcosmos.PatchOperations{}
	for i := 0; i < 10; i++ {
		ten.AppendSet(fmt.Sprintf("/p%d", i), i)
	}
	eq(t, patch(t, container, ten)["p9"], any(9.0), "10 operations are allowed")
}

func TestPatch_MissingItemIs404(t *testing.T) {
	container, _ := withProduct(t)
	ops := azcosmos.PatchOperations{}
	ops.AppendSet("/a", 1)
	_, err := container.PatchItem(ctx(), pk("road"), "nope", ops, nil)
	expectError(t, err, http.StatusNotFound, -1, "patch a missing item")
}

func TestPatch_Condition(t *testing.T) {
	container, created := withProduct(t)
	ops := azcosmos.PatchOperations{}
	ops.SetCondition("from c where c.inventory.quantity > 100")
	ops.AppendSet("/price", 1)
	refused(t, container, created, ops, http.StatusPreconditionFailed, "a false condition")

	ops = azcosmos.PatchOperations{}
	ops.SetCondition("FROM products p WHERE p.used = false AND ARRAY_CONTAINS(p.tags, 'r-series')")
	ops.AppendSet("/price", 1)
	eq(t, patch(t, container, ops)["price"], any(1.0), "patched under a true condition")

	ops = azcosmos.PatchOperations{}
	ops.SetCondition("from c where")
	ops.AppendSet("/a", 1)
	_, err := container.PatchItem(ctx(), pk("road"), "bike", ops, nil)
	expectError(t, err, http.StatusBadRequest, -1, "a condition that is not SQL")
}

func TestPatch_IfMatch(t *testing.T) {
	container, created := withProduct(t)
	etag := azcore_ETag(created["_etag"].(string))
	ops := azcosmos.PatchOperations{}
	ops.AppendSet("/price", 1)
	response, err := container.PatchItem(ctx(), pk("road"), "bike", ops, &azcosmos.ItemOptions{IfMatchEtag: &etag})
	noErr(t, err, "patch with the current etag")
	eq(t, response.RawResponse.StatusCode, http.StatusOK, "status")
	ops = azcosmos.PatchOperations{}
	ops.AppendSet("/price", 2)
	_, err = container.PatchItem(ctx(), pk("road"), "bike", ops, &azcosmos.ItemOptions{IfMatchEtag: &etag})
	expectError(t, err, http.StatusPreconditionFailed, -1, "patch with a stale etag")
	eq(t, readItem(t, container, pk("road"), "bike")["price"], any(1.0), "the stale patch changed nothing")
}

func TestPatch_QueriesAndUniqueKeysSeeThePatchedDocument(t *testing.T) {
	_, container := newContainer(t, containerSpec{edit: func(p *azcosmos.ContainerProperties) {
		p.UniqueKeyPolicy = &azcosmos.UniqueKeyPolicy{UniqueKeys: []azcosmos.UniqueKey{{Paths: []string{"/sku"}}}}
	}})
	createItem(t, container, pk("road"), product)
	createItem(t, container, pk("road"), doc{"id": "other", "pk": "road", "sku": "taken"})
	ops := azcosmos.PatchOperations{}
	ops.AppendSet("/price", 99)
	ops.AppendAdd("/sku", "mine")
	patch(t, container, ops)
	result := mustQuery(t, container, "SELECT VALUE c.id FROM c WHERE c.price = 99", pk("road"), nil)
	deepEq(t, values(t, result.items), []any{"bike"}, "query by the patched value")
	result = mustQuery(t, container, "SELECT VALUE c.id FROM c WHERE c.price = 455.95", pk("road"), nil)
	deepEq(t, values(t, result.items), []any{}, "query by the old value")
	ops = azcosmos.PatchOperations{}
	ops.AppendSet("/sku", "taken")
	_, err := container.PatchItem(ctx(), pk("road"), "bike", ops, nil)
	expectError(t, err, http.StatusConflict, -1, "a patch that breaks a unique key")
}
