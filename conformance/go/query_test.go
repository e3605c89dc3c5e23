// Single-partition queries (NewQueryItemsPager with a partition key): parameters, filters,
// projections, ORDER BY, TOP, aggregates, GROUP BY, DISTINCT, OFFSET LIMIT, JOIN, subqueries,
// query metrics and index metrics on every page.
package conformance

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// queryContainer holds 12 items in partition "a" (n 0..11, g g0..g2, tags) and 4 in "b".
func queryContainer(t *testing.T) *azcosmos.ContainerClient {
	t.Helper()
	_, container := newContainer(t, containerSpec{})
	for i := 0; i < 12; i++ {
		createItem(t, container, pk("a"), doc{
			"id": "a" + itoa(i), "pk": "a", "n": i, "g": "g" + itoa(i%3), "name": string(rune('z' - i)),
			"tags": []any{"t" + itoa(i%2), "all"}, "nested": map[string]any{"x": i * 10},
		})
	}
	for i := 0; i < 4; i++ {
		createItem(t, container, pk("b"), doc{"id": "b" + itoa(i), "pk": "b", "n": 100 + i, "g": "g0"})
	}
	return container
}

func TestQuery_ParametersAndFilters(t *testing.T) {
	container := queryContainer(t)
	result := mustQuery(t, container, "SELECT * FROM c WHERE c.n >= @min AND c.g = @g", pk("a"),
		&azcosmos.QueryOptions{QueryParameters: params("@min", 4, "@g", "g1")})
	got := ids(t, result.items)
	sort.Strings(got)
	deepEq(t, got, []string{"a10", "a4", "a7"}, "filtered ids")
	// The partition key scopes the query: "b" rows never appear.
	result = mustQuery(t, container, "SELECT VALUE c.id FROM c WHERE c.g = 'g0'", pk("a"), nil)
	ok(t, len(result.items) == 4, "4 rows of g0 in partition a, got %v", values(t, result.items))
	result = mustQuery(t, container, "SELECT VALUE c.id FROM c WHERE c.g = @g", pk("b"),
		&azcosmos.QueryOptions{QueryParameters: params("@g", "g0")})
	eq(t, len(result.items), 4, "rows of g0 in partition b")
	// Parameters of every JSON type.
	result = mustQuery(t, container, "SELECT VALUE [@s, @n, @b, @nul, @arr, @obj]", pk("a"),
		&azcosmos.QueryOptions{QueryParameters: params("@s", "x", "@n", 1.5, "@b", true, "@nul", nil,
			"@arr", []any{1, 2}, "@obj", map[string]any{"k": "v"})})
	deepEq(t, values(t, result.items), []any{[]any{"x", 1.5, true, nil, []any{1.0, 2.0}, map[string]any{"k": "v"}}},
		"parameter round-trip")
}

func TestQuery_ProjectionsAndFunctions(t *testing.T) {
	container := queryContainer(t)
	result := mustQuery(t, container, "SELECT c.id, c.nested.x AS x, UPPER(c.g) AS G FROM c WHERE c.n = 3", pk("a"), nil)
	deepEq(t, values(t, result.items), []any{map[string]any{"id": "a3", "x": 30.0, "G": "G0"}}, "projection")
	result = mustQuery(t, container,
		"SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(c.tags, 't1') AND STARTSWITH(c.id, 'a1') AND IS_DEFINED(c.nested)", pk("a"), nil)
	got := toStrings(values(t, result.items))
	sort.Strings(got)
	deepEq(t, got, []string{"a1", "a11"}, "ARRAY_CONTAINS / STARTSWITH / IS_DEFINED")
	result = mustQuery(t, container, "SELECT VALUE c.n FROM c WHERE c.n IN (1, 5, 99) OR c.n BETWEEN 10 AND 11", pk("a"), nil)
	got = toStrings(values(t, result.items))
	sort.Strings(got)
	deepEq(t, got, []string{"1", "10", "11", "5"}, "IN / BETWEEN")
}

func TestQuery_OrderByTopAndOffsetLimit(t *testing.T) {
	container := queryContainer(t)
	result := mustQuery(t, container, "SELECT VALUE c.n FROM c ORDER BY c.n DESC", pk("a"), &azcosmos.QueryOptions{PageSizeHint: 5})
	deepEq(t, values(t, result.items), []any{11.0, 10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0}, "ORDER BY DESC")
	eq(t, result.pages, 3, "pages of 5 over 12 rows")
	result = mustQuery(t, container, "SELECT c.id FROM c ORDER BY c.name", pk("a"), nil)
	deepEq(t, ids(t, result.items), []string{"a11", "a10", "a9", "a8", "a7", "a6", "a5", "a4", "a3", "a2", "a1", "a0"}, "ORDER BY a string")
	result = mustQuery(t, container, "SELECT TOP 3 VALUE c.n FROM c ORDER BY c.n", pk("a"), nil)
	deepEq(t, values(t, result.items), []any{0.0, 1.0, 2.0}, "TOP 3")
	result = mustQuery(t, container, "SELECT TOP @k VALUE c.n FROM c ORDER BY c.n DESC", pk("a"),
		&azcosmos.QueryOptions{QueryParameters: params("@k", 2)})
	deepEq(t, values(t, result.items), []any{11.0, 10.0}, "TOP @k")
	result = mustQuery(t, container, "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 4 LIMIT 3", pk("a"), nil)
	deepEq(t, values(t, result.items), []any{4.0, 5.0, 6.0}, "OFFSET 4 LIMIT 3")
	result = mustQuery(t, container, "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET @o LIMIT @l", pk("a"),
		&azcosmos.QueryOptions{QueryParameters: params("@o", 10, "@l", 5), PageSizeHint: 1})
	deepEq(t, values(t, result.items), []any{10.0, 11.0}, "OFFSET @o LIMIT @l with pages of 1")
}

func TestQuery_Aggregates(t *testing.T) {
	container := queryContainer(t)
	check := func(query string, want any) {
		t.Helper()
		result := mustQuery(t, container, query, pk("a"), nil)
		deepEq(t, values(t, result.items), []any{want}, query)
	}
	check("SELECT VALUE COUNT(1) FROM c", 12.0)
	check("SELECT VALUE SUM(c.n) FROM c", 66.0)
	check("SELECT VALUE AVG(c.n) FROM c", 5.5)
	check("SELECT VALUE MIN(c.n) FROM c", 0.0)
	check("SELECT VALUE MAX(c.id) FROM c", "a9")
	check("SELECT VALUE COUNT(1) FROM c WHERE c.n > 100", 0.0)
	check("SELECT COUNT(1) AS total, SUM(c.n) AS s FROM c", map[string]any{"total": 12.0, "s": 66.0})
	// Over no rows MAX is undefined, and an undefined VALUE is not returned.
	result := mustQuery(t, container, "SELECT VALUE MAX(c.n) FROM c WHERE c.n > 1000", pk("a"), nil)
	deepEq(t, values(t, result.items), []any{}, "MAX over no rows")
}

func TestQuery_GroupByAndDistinct(t *testing.T) {
	container := queryContainer(t)
	result := mustQuery(t, container, "SELECT c.g, COUNT(1) AS n, SUM(c.n) AS total FROM c GROUP BY c.g", pk("a"), nil)
	rows := values(t, result.items)
	sort.Slice(rows, func(i, j int) bool {
		return rows[i].(map[string]any)["g"].(string) < rows[j].(map[string]any)["g"].(string)
	})
	deepEq(t, rows, []any{
		map[string]any{"g": "g0", "n": 4.0, "total": 18.0},
		map[string]any{"g": "g1", "n": 4.0, "total": 22.0},
		map[string]any{"g": "g2", "n": 4.0, "total": 26.0},
	}, "GROUP BY")
	result = mustQuery(t, container, "SELECT DISTINCT VALUE c.g FROM c", pk("a"), nil)
	got := toStrings(values(t, result.items))
	sort.Strings(got)
	deepEq(t, got, []string{"g0", "g1", "g2"}, "DISTINCT VALUE")
	result = mustQuery(t, container, "SELECT DISTINCT c.g FROM c ORDER BY c.g DESC", pk("a"), nil)
	deepEq(t, values(t, result.items), []any{map[string]any{"g": "g2"}, map[string]any{"g": "g1"}, map[string]any{"g": "g0"}},
		"DISTINCT with ORDER BY")
}

func TestQuery_JoinAndSubqueries(t *testing.T) {
	container := queryContainer(t)
	result := mustQuery(t, container, "SELECT c.id, t AS tag FROM c JOIN t IN c.tags WHERE c.n < 2 AND t != 'all'", pk("a"), nil)
	deepEq(t, values(t, result.items), []any{map[string]any{"id": "a0", "tag": "t0"}, map[string]any{"id": "a1", "tag": "t1"}},
		"JOIN")
	result = mustQuery(t, container,
		"SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = 't1') AND c.n < 5", pk("a"), nil)
	got := toStrings(values(t, result.items))
	sort.Strings(got)
	deepEq(t, got, []string{"a1", "a3"}, "EXISTS subquery")
	result = mustQuery(t, container, "SELECT c.id, ARRAY(SELECT VALUE t FROM t IN c.tags WHERE t != 'all') AS own FROM c WHERE c.n = 2", pk("a"), nil)
	deepEq(t, values(t, result.items), []any{map[string]any{"id": "a2", "own": []any{"t0"}}}, "ARRAY subquery")
}

func TestQuery_MetricsOnEveryPage(t *testing.T) {
	container := queryContainer(t)
	options := &azcosmos.QueryOptions{PageSizeHint: 4}
	result := mustQuery(t, container, "SELECT * FROM c ORDER BY c.n", pk("a"), options)
	eq(t, result.pages, 3, "pages")
	for i, page := range result.results {
		// azcosmos always sends x-ms-documentdb-populatequerymetrics: true (QueryOptions.toHeaders).
		ok(t, page.QueryMetrics != nil, "page %d: x-ms-documentdb-query-metrics missing", i)
		for _, field := range []string{"totalExecutionTimeInMs=", "retrievedDocumentCount=", "outputDocumentCount="} {
			ok(t, strings.Contains(*page.QueryMetrics, field), "page %d: query metrics %q lack %s", i, *page.QueryMetrics, field)
		}
		ok(t, page.IndexMetrics == nil, "page %d: index metrics returned without being asked", i)
		ok(t, page.ActivityID != "", "page %d: activity id", i)
		ok(t, page.RequestCharge > 0, "page %d: request charge", i)
		ok(t, len(page.Items) <= 4, "page %d: %d items over PageSizeHint 4", i, len(page.Items))
		if i < result.pages-1 {
			ok(t, page.ContinuationToken != nil, "page %d: continuation token missing", i)
		}
	}
	ok(t, result.last.ContinuationToken == nil, "the last page has no continuation")
	ok(t, options.ContinuationToken == nil, "the caller's QueryOptions are not modified")
}

func TestQuery_QueryWithoutResultsHasOneEmptyPage(t *testing.T) {
	container := queryContainer(t)
	result := mustQuery(t, container, "SELECT * FROM c WHERE c.n = -1", pk("a"), nil)
	eq(t, result.pages, 1, "pages")
	eq(t, len(result.items), 0, "rows")
	result = mustQuery(t, container, "SELECT * FROM c", pk("nobody"), nil)
	eq(t, len(result.items), 0, "rows of an unused partition key")
}

func toStrings(vs []any) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case float64:
			out = append(out, strconv.FormatFloat(x, 'f', -1, 64))
		default:
			out = append(out, "?")
		}
	}
	return out
}
