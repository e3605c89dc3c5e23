// Paging: PageSizeHint, continuation tokens (resume a query later, in another pager), and the
// read feed (GET .../docs, which azcosmos does not expose: raw signed requests).
package conformance

import (
	"encoding/json"
	"net/http"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func TestPaging_ContinuationTokenResumesAQuery(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	seed(t, container, 25, 1) // all under p0
	options := &azcosmos.QueryOptions{PageSizeHint: 4}
	pager := container.NewQueryItemsPager("SELECT VALUE c.n FROM c ORDER BY c.n", pk("p0"), options)
	first, err := pager.NextPage(ctx())
	noErr(t, err, "first page")
	deepEq(t, values(t, first.Items), []any{0.0, 1.0, 2.0, 3.0}, "first page")
	ok(t, first.ContinuationToken != nil, "first page continuation")
	second, err := pager.NextPage(ctx())
	noErr(t, err, "second page")
	deepEq(t, values(t, second.Items), []any{4.0, 5.0, 6.0, 7.0}, "second page")
	// A new pager resumes from the second page's token (as a web request would, later).
	rest := mustQuery(t, container, "SELECT VALUE c.n FROM c ORDER BY c.n", pk("p0"),
		&azcosmos.QueryOptions{PageSizeHint: 4, ContinuationToken: second.ContinuationToken})
	want := []any{}
	for i := 8; i < 25; i++ {
		want = append(want, float64(i))
	}
	deepEq(t, values(t, rest.items), want, "rows after resuming")
	eq(t, rest.pages, 5, "pages of 4 over the last 17 rows")
	// The token can be used again: it is a position, not a cursor.
	again := mustQuery(t, container, "SELECT VALUE c.n FROM c ORDER BY c.n", pk("p0"),
		&azcosmos.QueryOptions{PageSizeHint: 4, ContinuationToken: second.ContinuationToken})
	deepEq(t, values(t, again.items), want, "rows after resuming a second time")
}

func TestPaging_EveryQueryShapePagesWithinAPartition(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	seed(t, container, 20, 1)
	cases := []struct {
		query string
		want  int
	}{
		{"SELECT * FROM c", 20},
		{"SELECT c.id FROM c WHERE c.n % 2 = 0", 10},
		{"SELECT VALUE c.n FROM c ORDER BY c.n DESC", 20},
		{"SELECT TOP 7 c.id FROM c ORDER BY c.id", 7},
		{"SELECT c.id FROM c ORDER BY c.n OFFSET 3 LIMIT 9", 9},
		{"SELECT DISTINCT VALUE c.g FROM c", 3},
		{"SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g", 3},
		{"SELECT VALUE {id: c.id, half: c.n / 2} FROM c WHERE c.n < 10", 10},
	}
	for _, c := range cases {
		result := mustQuery(t, container, c.query, pk("p0"), &azcosmos.QueryOptions{PageSizeHint: 2})
		eq(t, len(result.items), c.want, c.query+": rows")
		for i, page := range result.results {
			ok(t, len(page.Items) <= 2, "%s: page %d holds %d rows over PageSizeHint 2", c.query, i, len(page.Items))
		}
		seen := map[string]bool{}
		for _, row := range result.items {
			ok(t, !seen[string(row)], "%s: row %s returned twice", c.query, row)
			seen[string(row)] = true
		}
	}
}

// readFeed pages GET .../docs with x-ms-max-item-count and x-ms-continuation.
func readFeed(t *testing.T, database *azcosmos.DatabaseClient, container *azcosmos.ContainerClient, pageSize int,
	extra map[string]string) (ids []string, pages int) {
	t.Helper()
	continuation := ""
	for pages = 0; pages < 200; {
		headers := map[string]string{"x-ms-max-item-count": itoa(pageSize)}
		for k, v := range extra {
			headers[k] = v
		}
		if continuation != "" {
			headers["x-ms-continuation"] = continuation
		}
		response := raw(t, http.MethodGet, collPath(database, container)+"/docs", headers, nil)
		eq(t, response.status, http.StatusOK, "read feed page")
		var feed struct {
			Rid       string            `json:"_rid"`
			Documents []json.RawMessage `json:"Documents"`
			Count     int               `json:"_count"`
		}
		noErr(t, json.Unmarshal(response.body, &feed), "read feed body")
		pages++
		ok(t, len(feed.Documents) <= pageSize, "read feed page of %d over max %d", len(feed.Documents), pageSize)
		eq(t, feed.Count, len(feed.Documents), "_count")
		eq(t, response.headers.Get("x-ms-item-count"), itoa(len(feed.Documents)), "x-ms-item-count")
		ok(t, response.headers.Get("x-ms-request-charge") != "", "read feed charge")
		for _, d := range feed.Documents {
			ids = append(ids, decode(t, d)["id"].(string))
		}
		continuation = response.headers.Get("x-ms-continuation")
		if continuation == "" {
			return ids, pages
		}
	}
	t.Fatalf("the read feed never ends")
	return nil, 0
}

func TestPaging_ReadFeedOfAContainer(t *testing.T) {
	database, container := newContainer(t, containerSpec{throughput: fourPartitions()})
	seed(t, container, 23, 23)
	got, pages := readFeed(t, database, container, 5, nil)
	sort.Strings(got)
	want := []string{}
	for i := 0; i < 23; i++ {
		want = append(want, "d"+itoa(i))
	}
	sort.Strings(want)
	deepEq(t, got, want, "read feed over 4 physical partitions: every item once")
	ok(t, pages >= 5, "23 items in pages of 5: at least 5 pages, got %d", pages)
	// Scoped to one logical partition by the partition key header.
	got, _ = readFeed(t, database, container, 5, map[string]string{"x-ms-documentdb-partitionkey": `["p7"]`})
	deepEq(t, got, []string{"d7"}, "read feed of one partition key")
}
