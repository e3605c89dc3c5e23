// Queries without a partition key (NewPartitionKey(): azcosmos sends no partition key header and
// x-ms-documentdb-query-enablecrosspartition: true). azcosmos 1.5 has no client-side query
// pipeline (the query engine integration was removed from the 1.5.0 GA), so what the gateway does
// is what the application sees: plain filters and projections are served across every physical
// partition, and queries that need state across partitions (ORDER BY, TOP, OFFSET LIMIT,
// aggregates, GROUP BY, DISTINCT) get the gateway's 400 with substatus 1004.
package conformance

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func fourPartitionContainer(t *testing.T, items int) (*azcosmos.DatabaseClient, *azcosmos.ContainerClient) {
	t.Helper()
	database, container := newContainer(t, containerSpec{throughput: fourPartitions()})
	seed(t, container, items, items)
	return database, container
}

func TestCrossPartition_FilterIsServedAcrossEveryRange(t *testing.T) {
	database, container := fourPartitionContainer(t, 40)
	// Every range holds some of the 40 documents (one partition key each).
	ranges := partitionKeyRanges(t, database, container)
	ok(t, len(ranges) >= 4, "ranges: %d", len(ranges))
	result := mustQuery(t, container, "SELECT c.id, c.n FROM c WHERE c.n >= @min", azcosmos.NewPartitionKey(),
		&azcosmos.QueryOptions{QueryParameters: params("@min", 10), PageSizeHint: 7})
	got := ids(t, result.items)
	eq(t, len(got), 30, "rows across partitions")
	seen := map[string]bool{}
	for _, id := range got {
		ok(t, !seen[id], "%s returned twice", id)
		seen[id] = true
	}
	for _, page := range result.results {
		ok(t, len(page.Items) <= 7, "a page holds %d rows over PageSizeHint 7", len(page.Items))
	}
	ok(t, result.pages >= 5, "30 rows in pages of at most 7 need at least 5 pages, got %d", result.pages)
}

func TestCrossPartition_ServedQueryResumesFromAContinuationToken(t *testing.T) {
	_, container := fourPartitionContainer(t, 24)
	pager := container.NewQueryItemsPager("SELECT VALUE c.id FROM c", azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{PageSizeHint: 5})
	var first []any
	var token *string
	for pager.More() && token == nil {
		page, err := pager.NextPage(ctx())
		noErr(t, err, "first pages")
		first = append(first, values(t, page.Items)...)
		if len(first) >= 5 {
			token = page.ContinuationToken
		}
	}
	ok(t, token != nil, "a continuation token after %d rows", len(first))
	rest := mustQuery(t, container, "SELECT VALUE c.id FROM c", azcosmos.NewPartitionKey(),
		&azcosmos.QueryOptions{PageSizeHint: 5, ContinuationToken: token})
	all := append(toStrings(first), toStrings(values(t, rest.items))...)
	sort.Strings(all)
	want := []string{}
	for i := 0; i < 24; i++ {
		want = append(want, "d"+itoa(i))
	}
	sort.Strings(want)
	deepEq(t, all, want, "rows before and after resuming, each once")
}

// crossPartitionRefused asserts the gateway's answer to a query it cannot serve across partitions.
func crossPartitionRefused(t *testing.T, container *azcosmos.ContainerClient, query string, check func(queryInfo map[string]any)) {
	t.Helper()
	_, err := queryAll(container, query, azcosmos.NewPartitionKey(), nil)
	expectError(t, err, http.StatusBadRequest, 1004, query)
	body, raw := errorBodyOf(t, err)
	eq(t, body.Code, "BadRequest", query+": error code")
	ok(t, strings.Contains(body.Message, "cross partition query can not be directly served by the gateway"),
		"%s: message %q", query, body.Message)
	// additionalErrorInfo carries the query plan (a JSON string on the wire).
	var envelope map[string]json.RawMessage
	noErr(t, json.Unmarshal([]byte(raw), &envelope), "error body")
	info := envelope["additionalErrorInfo"]
	ok(t, len(info) > 0, "%s: additionalErrorInfo missing: %s", query, truncate(raw, 300))
	var planText string
	var plan map[string]any
	if json.Unmarshal(info, &planText) == nil {
		noErr(t, json.Unmarshal([]byte(planText), &plan), "additionalErrorInfo parses")
	} else {
		noErr(t, json.Unmarshal(info, &plan), "additionalErrorInfo parses")
	}
	queryInfo, _ := plan["queryInfo"].(map[string]any)
	ok(t, queryInfo != nil, "%s: plan without queryInfo: %v", query, plan)
	ranges, _ := plan["queryRanges"].([]any)
	ok(t, len(ranges) >= 1, "%s: plan without queryRanges", query)
	if check != nil {
		check(queryInfo)
	}
}

func TestCrossPartition_StatefulQueriesGet400With1004(t *testing.T) {
	_, container := fourPartitionContainer(t, 12)
	crossPartitionRefused(t, container, "SELECT * FROM c ORDER BY c.n", func(q map[string]any) {
		deepEq(t, q["orderBy"], []any{"Ascending"}, "orderBy")
		deepEq(t, q["orderByExpressions"], []any{"c.n"}, "orderByExpressions")
	})
	crossPartitionRefused(t, container, "SELECT TOP 3 * FROM c", func(q map[string]any) {
		eq(t, q["top"], any(3.0), "top")
	})
	crossPartitionRefused(t, container, "SELECT VALUE COUNT(1) FROM c", func(q map[string]any) {
		deepEq(t, q["aggregates"], []any{"Count"}, "aggregates")
		eq(t, q["hasSelectValue"], any(true), "hasSelectValue")
	})
	crossPartitionRefused(t, container, "SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g", func(q map[string]any) {
		deepEq(t, q["groupByExpressions"], []any{"c.g"}, "groupByExpressions")
	})
	crossPartitionRefused(t, container, "SELECT DISTINCT VALUE c.g FROM c", func(q map[string]any) {
		eq(t, q["distinctType"], any("Unordered"), "distinctType")
	})
	crossPartitionRefused(t, container, "SELECT * FROM c OFFSET 2 LIMIT 3", func(q map[string]any) {
		eq(t, q["offset"], any(2.0), "offset")
		eq(t, q["limit"], any(3.0), "limit")
	})
}

func TestCrossPartition_DisabledIsRefused(t *testing.T) {
	_, container := fourPartitionContainer(t, 8)
	disabled := false
	_, err := queryAll(container, "SELECT * FROM c", azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{EnableCrossPartitionQuery: &disabled})
	expectError(t, err, http.StatusBadRequest, -1, "cross-partition query with EnableCrossPartitionQuery=false")
	body, _ := errorBodyOf(t, err)
	ok(t, strings.Contains(body.Message, "Cross partition query is required but disabled"), "message: %q", body.Message)
	// With a partition key the same option is fine.
	result := mustQuery(t, container, "SELECT * FROM c", pk("p3"), &azcosmos.QueryOptions{EnableCrossPartitionQuery: &disabled})
	deepEq(t, ids(t, result.items), []string{"d3"}, "single-partition query with EnableCrossPartitionQuery=false")
}

func TestCrossPartition_PartitionKeyQueriesOnFourPartitions(t *testing.T) {
	_, container := fourPartitionContainer(t, 40)
	// Every logical partition is found through its key, wherever its range is; ORDER BY and
	// aggregates are fine within one partition key.
	for _, i := range []int{0, 9, 17, 26, 39} {
		key := "p" + itoa(i)
		result := mustQuery(t, container, "SELECT VALUE c.id FROM c ORDER BY c.n DESC", pk(key), nil)
		deepEq(t, values(t, result.items), []any{"d" + itoa(i)}, "query under "+key)
		result = mustQuery(t, container, "SELECT VALUE COUNT(1) FROM c", pk(key), nil)
		deepEq(t, values(t, result.items), []any{1.0}, "COUNT under "+key)
	}
}

func TestCrossPartition_HierarchicalPrefixQuery(t *testing.T) {
	_, container := newContainer(t, containerSpec{paths: []string{"/tenant", "/user"}, kind: azcosmos.PartitionKeyKindMultiHash,
		version: 2, throughput: fourPartitions()})
	for i := 0; i < 12; i++ {
		tenant := "t" + itoa(i%3)
		user := "u" + itoa(i)
		createItem(t, container, pk(tenant).AppendString(user), doc{"id": "h" + itoa(i), "tenant": tenant, "user": user})
	}
	// A filter on the first level only: a prefix, possibly several ranges; served as a filter.
	result := mustQuery(t, container, "SELECT VALUE c.id FROM c WHERE c.tenant = 't1'", azcosmos.NewPartitionKey(), nil)
	got := toStrings(values(t, result.items))
	sort.Strings(got)
	deepEq(t, got, []string{"h1", "h10", "h4", "h7"}, "prefix filter")
	// The full key as the query's partition key.
	result = mustQuery(t, container, "SELECT VALUE c.id FROM c", pk("t2").AppendString("u5"), nil)
	deepEq(t, values(t, result.items), []any{"h5"}, "full hierarchical key")
}
