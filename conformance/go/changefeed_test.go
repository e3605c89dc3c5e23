// Change feed (latest version) through ContainerClient.ReadChangeFeed: from the beginning over the
// whole container and per feed range, continuation tokens, a point in time (StartFrom →
// If-Modified-Since), a logical partition, and the 304 answer when nothing is new.
package conformance

import (
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

var wholeContainer = azcosmos.FeedRange{MinInclusive: "", MaxExclusive: "FF"}

// drainChangeFeed reads until a call returns no items; it returns the items and the last
// continuation token.
func drainChangeFeed(t *testing.T, container *azcosmos.ContainerClient, options azcosmos.ChangeFeedOptions) ([]doc, string) {
	t.Helper()
	var items []doc
	for calls := 0; calls < 100; calls++ {
		o := options
		response, err := container.ReadChangeFeed(ctx(), &o)
		noErr(t, err, "ReadChangeFeed")
		ok(t, response.ContinuationToken != "", "ReadChangeFeed returned no continuation token")
		for _, raw := range response.Items {
			items = append(items, decode(t, raw))
		}
		options.Continuation = &response.ContinuationToken
		options.FeedRange = nil
		if len(response.Items) == 0 {
			return items, response.ContinuationToken
		}
		eq(t, response.Count, len(response.Items), "_count")
		ok(t, response.ResourceID != "", "change feed page _rid")
		ok(t, response.ETag != "", "change feed page ETag (the continuation)")
	}
	t.Fatalf("the change feed never drains")
	return nil, ""
}

func idsOf(items []doc) []string {
	out := make([]string, 0, len(items))
	for _, d := range items {
		out = append(out, d["id"].(string))
	}
	sort.Strings(out)
	return out
}

func TestChangeFeed_FromTheBeginningLatestVersion(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	for i := 0; i < 5; i++ {
		createItem(t, container, pk("p"+itoa(i%2)), doc{"id": "c" + itoa(i), "pk": "p" + itoa(i%2), "v": 1.0})
	}
	_, err := container.ReplaceItem(ctx(), pk("p0"), "c2", mustJSON(t, doc{"id": "c2", "pk": "p0", "v": 2.0}), nil)
	noErr(t, err, "replace c2")
	_, err = container.DeleteItem(ctx(), pk("p1"), "c3", nil)
	noErr(t, err, "delete c3")
	items, _ := drainChangeFeed(t, container, azcosmos.ChangeFeedOptions{FeedRange: &wholeContainer})
	deepEq(t, idsOf(items), []string{"c0", "c1", "c2", "c4"}, "each live item once, deletes not listed")
	var lastLSN float64
	for _, item := range items {
		lsn, isNumber := item["_lsn"].(float64)
		ok(t, isNumber && lsn > 0, "item %v: _lsn missing", item["id"])
		ok(t, lsn > lastLSN, "items in LSN order within a range: %v after %v", lsn, lastLSN)
		lastLSN = lsn
		if item["id"] == "c2" {
			eq(t, item["v"], any(2.0), "c2 in its latest version")
		}
		_, hasEtag := item["_etag"].(string)
		ok(t, hasEtag, "item %v: _etag missing", item["id"])
	}
}

func TestChangeFeed_ContinuationSeesOnlyNewChanges(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	createItem(t, container, pk("p"), doc{"id": "a", "pk": "p"})
	items, token := drainChangeFeed(t, container, azcosmos.ChangeFeedOptions{FeedRange: &wholeContainer})
	deepEq(t, idsOf(items), []string{"a"}, "first drain")

	// Nothing new: the next read is empty (the service answers 304 Not Modified with an ETag).
	response, err := container.ReadChangeFeed(ctx(), &azcosmos.ChangeFeedOptions{Continuation: &token})
	noErr(t, err, "read with nothing new")
	eq(t, len(response.Items), 0, "items when nothing changed")
	eq(t, response.RawResponse.StatusCode, http.StatusNotModified, "status when nothing changed")
	ok(t, response.ETag != "", "a 304 keeps the ETag")

	createItem(t, container, pk("p"), doc{"id": "b", "pk": "p"})
	_, err = container.UpsertItem(ctx(), pk("p"), mustJSON(t, doc{"id": "a", "pk": "p", "v": 2.0}), nil)
	noErr(t, err, "upsert a")
	items, token = drainChangeFeed(t, container, azcosmos.ChangeFeedOptions{Continuation: &response.ContinuationToken})
	deepEq(t, idsOf(items), []string{"a", "b"}, "changes after the token")
	items, _ = drainChangeFeed(t, container, azcosmos.ChangeFeedOptions{Continuation: &token})
	eq(t, len(items), 0, "nothing after the last token")
}

func TestChangeFeed_PerFeedRangeOnFourPartitions(t *testing.T) {
	_, container := newContainer(t, containerSpec{throughput: fourPartitions()})
	seed(t, container, 24, 24)
	ranges, err := container.ReadFeedRanges(ctx(), nil)
	noErr(t, err, "ReadFeedRanges")
	ok(t, len(ranges) >= 4, "feed ranges: %d", len(ranges))
	seen := map[string]int{}
	nonEmpty := 0
	for i := range ranges {
		items, _ := drainChangeFeed(t, container, azcosmos.ChangeFeedOptions{FeedRange: &ranges[i], MaxItemCount: 4})
		if len(items) > 0 {
			nonEmpty++
		}
		for _, item := range items {
			seen[item["id"].(string)]++
		}
	}
	eq(t, len(seen), 24, "items over all feed ranges")
	for id, n := range seen {
		eq(t, n, 1, id+" appears in exactly one feed range")
	}
	ok(t, nonEmpty >= 2, "24 keys spread over at least 2 ranges, got %d", nonEmpty)

	// The whole container at once gives the same set.
	items, _ := drainChangeFeed(t, container, azcosmos.ChangeFeedOptions{FeedRange: &wholeContainer, MaxItemCount: 5})
	eq(t, len(idsOf(items)), 24, "items over the whole container")
}

func TestChangeFeed_MaxItemCountPages(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	seed(t, container, 7, 1)
	options := azcosmos.ChangeFeedOptions{FeedRange: &wholeContainer, MaxItemCount: 3}
	var sizes []int
	for calls := 0; calls < 10; calls++ {
		o := options
		response, err := container.ReadChangeFeed(ctx(), &o)
		noErr(t, err, "ReadChangeFeed")
		sizes = append(sizes, len(response.Items))
		if len(response.Items) == 0 {
			break
		}
		options.Continuation = &response.ContinuationToken
		options.FeedRange = nil
	}
	deepEq(t, sizes, []int{3, 3, 1, 0}, "page sizes with MaxItemCount 3")
}

func TestChangeFeed_PartitionKeyScope(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	seed(t, container, 9, 3)
	key := pk("p1")
	items, _ := drainChangeFeed(t, container, azcosmos.ChangeFeedOptions{FeedRange: &wholeContainer, PartitionKey: &key})
	deepEq(t, idsOf(items), []string{"d1", "d4", "d7"}, "change feed of one logical partition")
}

func TestChangeFeed_StartFromAPointInTime(t *testing.T) {
	t.Parallel()
	_, container := newContainer(t, containerSpec{})
	createItem(t, container, pk("p"), doc{"id": "before", "pk": "p"})
	time.Sleep(1100 * time.Millisecond)
	start := time.Now().UTC().Truncate(time.Second).Add(time.Second)
	// _ts has one-second resolution: write "after" in the second after start.
	time.Sleep(time.Until(start) + 1100*time.Millisecond)
	createItem(t, container, pk("p"), doc{"id": "after", "pk": "p"})
	items, _ := drainChangeFeed(t, container, azcosmos.ChangeFeedOptions{FeedRange: &wholeContainer, StartFrom: &start})
	deepEq(t, idsOf(items), []string{"after"}, "changes since StartFrom")
	future := time.Now().Add(time.Hour)
	items, _ = drainChangeFeed(t, container, azcosmos.ChangeFeedOptions{FeedRange: &wholeContainer, StartFrom: &future})
	eq(t, len(items), 0, "changes since a future time")
}
