// Error shapes through azcore.ResponseError: status, x-ms-substatus, the {code, message} body and
// the service's texts for query errors.
package conformance

import (
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func queryError(t *testing.T, container *azcosmos.ContainerClient, query string, fragments ...string) {
	t.Helper()
	_, err := queryAll(container, query, pk("p"), nil)
	re := expectError(t, err, http.StatusBadRequest, -1, query)
	body, raw := errorBodyOf(t, err)
	eq(t, body.Code, "BadRequest", query+": code")
	for _, fragment := range fragments {
		ok(t, strings.Contains(body.Message, fragment), "%s: message should contain %q: %s", query, fragment, truncate(raw, 400))
	}
	ok(t, re.RawResponse.Header.Get("x-ms-activity-id") != "", "%s: x-ms-activity-id on an error", query)
	ok(t, strings.Contains(re.Error(), "BadRequest"), "%s: ResponseError.Error() shows the body", query)
}

func TestErrors_QuerySyntaxAndSemanticErrors(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	createItem(t, container, pk("p"), doc{"id": "a", "pk": "p"})
	queryError(t, container, "SELECT * FROM c WHERE", "SC1001", "Syntax error")
	queryError(t, container, "SELEC * FROM c", "SC1001")
	queryError(t, container, "SELECT NOSUCHFUNCTION(c.id) FROM c", "SC2005")
	queryError(t, container, "SELECT * FROM c WHERE d.id = 'a'", "SC2001")
	queryError(t, container, "SELECT * FROM c ORDER BY c.a, c.b", "composite index")
}

func TestErrors_OrderByOnAnExcludedPath(t *testing.T) {
	_, container := newContainer(t, containerSpec{edit: func(p *azcosmos.ContainerProperties) {
		p.IndexingPolicy = &azcosmos.IndexingPolicy{
			Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/n/?"}},
			ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/*"}},
		}
	}})
	createItem(t, container, pk("p"), doc{"id": "a", "pk": "p", "n": 1, "name": "x"})
	result := mustQuery(t, container, "SELECT VALUE c.id FROM c ORDER BY c.n", pk("p"), nil)
	deepEq(t, values(t, result.items), []any{"a"}, "ORDER BY on an indexed path")
	// A filter on an excluded path still works (by scanning).
	result = mustQuery(t, container, "SELECT VALUE c.id FROM c WHERE c.name = 'x'", pk("p"), nil)
	deepEq(t, values(t, result.items), []any{"a"}, "filter on an excluded path")
	queryError(t, container, "SELECT * FROM c ORDER BY c.name", "order-by item is excluded")
}

func TestErrors_NotFoundAndConflictBodies(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	_, err := container.ReadItem(ctx(), pk("p"), "missing", nil)
	re := expectError(t, err, http.StatusNotFound, 0, "read a missing item")
	body, _ := errorBodyOf(t, err)
	eq(t, body.Code, "NotFound", "code")
	ok(t, body.Message != "", "a 404 has a message")
	ok(t, re.RawResponse.Header.Get("x-ms-activity-id") != "", "activity id")
	createItem(t, container, pk("p"), doc{"id": "a", "pk": "p"})
	_, err = container.CreateItem(ctx(), pk("p"), mustJSON(t, doc{"id": "a", "pk": "p"}), nil)
	expectError(t, err, http.StatusConflict, -1, "duplicate")
	body, _ = errorBodyOf(t, err)
	eq(t, body.Code, "Conflict", "code")
	ok(t, strings.Contains(body.Message, "Entity with the specified id already exists in the system"), "message: %q", body.Message)
}

func TestErrors_QueryOnAMissingContainer(t *testing.T) {
	database := newDatabase(t)
	container, _ := database.NewContainer(uid("missing"))
	_, err := queryAll(container, "SELECT * FROM c", pk("p"), nil)
	expectError(t, err, http.StatusNotFound, -1, "query a missing container")
}
