// Containers: create (1 and 4 physical partitions, hierarchical keys), read, replace, delete,
// query, feed ranges, quota info, unique keys, 409/404/400.
package conformance

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func TestContainers_CreateAndReadProperties(t *testing.T) {
	database := newDatabase(t)
	id := uid("c")
	response, err := database.CreateContainer(ctx(), azcosmos.ContainerProperties{
		ID:                     id,
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
	}, nil)
	noErr(t, err, "create container")
	eq(t, response.RawResponse.StatusCode, http.StatusCreated, "status")
	charged(t, response.Response, "create container")
	p := response.ContainerProperties
	eq(t, p.ID, id, "id")
	deepEq(t, p.PartitionKeyDefinition.Paths, []string{"/pk"}, "partition key paths")
	eq(t, p.PartitionKeyDefinition.Kind, azcosmos.PartitionKeyKindHash, "partition key kind")
	ok(t, p.ResourceID != "", "_rid missing")
	ok(t, p.ETag != nil && *p.ETag != "", "_etag missing")
	ok(t, strings.Contains(p.SelfLink, "/colls/"+p.ResourceID), "_self %q should name the container rid", p.SelfLink)
	ok(t, p.DefaultTimeToLive == nil, "no defaultTtl unless asked, got %v", p.DefaultTimeToLive)

	container, _ := database.NewContainer(id)
	read, err := container.Read(ctx(), nil)
	noErr(t, err, "read container")
	eq(t, read.RawResponse.StatusCode, http.StatusOK, "read status")
	r := read.ContainerProperties
	eq(t, r.ResourceID, p.ResourceID, "_rid is stable")
	// The default indexing policy: consistent, automatic, everything included, _etag excluded.
	ok(t, r.IndexingPolicy != nil, "indexingPolicy missing")
	ok(t, strings.EqualFold(string(r.IndexingPolicy.IndexingMode), "consistent"), "indexingMode: %q", r.IndexingPolicy.IndexingMode)
	eq(t, r.IndexingPolicy.Automatic, true, "automatic")
	ok(t, slices.ContainsFunc(r.IndexingPolicy.IncludedPaths, func(p azcosmos.IncludedPath) bool { return p.Path == "/*" }),
		"includedPaths should hold /*: %+v", r.IndexingPolicy.IncludedPaths)
	ok(t, slices.ContainsFunc(r.IndexingPolicy.ExcludedPaths, func(p azcosmos.ExcludedPath) bool { return p.Path == `/"_etag"/?` }),
		`excludedPaths should hold /"_etag"/?: %+v`, r.IndexingPolicy.ExcludedPaths)
	ok(t, r.ConflictResolutionPolicy != nil && r.ConflictResolutionPolicy.Mode == azcosmos.ConflictResolutionModeLastWriteWins,
		"conflictResolutionPolicy should default to LastWriterWins: %+v", r.ConflictResolutionPolicy)
}

func TestContainers_HierarchicalPartitionKey(t *testing.T) {
	database := newDatabase(t)
	container := createContainer(t, database, containerSpec{
		paths: []string{"/tenant", "/user", "/session"}, kind: azcosmos.PartitionKeyKindMultiHash, version: 2})
	read, err := container.Read(ctx(), nil)
	noErr(t, err, "read")
	def := read.ContainerProperties.PartitionKeyDefinition
	eq(t, def.Kind, azcosmos.PartitionKeyKindMultiHash, "kind")
	eq(t, def.Version, 2, "version")
	deepEq(t, def.Paths, []string{"/tenant", "/user", "/session"}, "paths")
}

func TestContainers_ReplaceIndexingPolicyAndDefaultTTL(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	read, err := container.Read(ctx(), nil)
	noErr(t, err, "read")
	properties := *read.ContainerProperties
	ttl := int32(3600)
	properties.DefaultTimeToLive = &ttl
	properties.IndexingPolicy = &azcosmos.IndexingPolicy{
		Automatic:     true,
		IndexingMode:  azcosmos.IndexingModeConsistent,
		IncludedPaths: []azcosmos.IncludedPath{{Path: "/name/?"}},
		ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/*"}},
		CompositeIndexes: [][]azcosmos.CompositeIndex{{
			{Path: "/name", Order: azcosmos.CompositeIndexAscending},
			{Path: "/age", Order: azcosmos.CompositeIndexDescending},
		}},
	}
	replaced, err := container.Replace(ctx(), properties, nil)
	noErr(t, err, "replace container")
	eq(t, replaced.RawResponse.StatusCode, http.StatusOK, "replace status")
	ok(t, replaced.ContainerProperties.ETag != nil && *replaced.ContainerProperties.ETag != *read.ContainerProperties.ETag,
		"_etag should change on replace")

	again, err := container.Read(ctx(), nil)
	noErr(t, err, "read after replace")
	p := again.ContainerProperties
	ok(t, p.DefaultTimeToLive != nil && *p.DefaultTimeToLive == 3600, "defaultTtl after replace: %v", p.DefaultTimeToLive)
	ok(t, slices.ContainsFunc(p.IndexingPolicy.IncludedPaths, func(i azcosmos.IncludedPath) bool { return i.Path == "/name/?" }),
		"includedPaths after replace: %+v", p.IndexingPolicy.IncludedPaths)
	ok(t, slices.ContainsFunc(p.IndexingPolicy.ExcludedPaths, func(e azcosmos.ExcludedPath) bool { return e.Path == "/*" }),
		"excludedPaths after replace: %+v", p.IndexingPolicy.ExcludedPaths)
	eq(t, len(p.IndexingPolicy.CompositeIndexes), 1, "composite indexes after replace")
	deepEq(t, p.IndexingPolicy.CompositeIndexes[0], []azcosmos.CompositeIndex{
		{Path: "/name", Order: azcosmos.CompositeIndexAscending},
		{Path: "/age", Order: azcosmos.CompositeIndexDescending}}, "composite index")

	// Turning TTL off again (defaultTtl absent).
	p.DefaultTimeToLive = nil
	_, err = container.Replace(ctx(), *p, nil)
	noErr(t, err, "replace without defaultTtl")
	again, err = container.Read(ctx(), nil)
	noErr(t, err, "read")
	ok(t, again.ContainerProperties.DefaultTimeToLive == nil, "defaultTtl should be gone: %v", again.ContainerProperties.DefaultTimeToLive)
}

func TestContainers_ReplaceWithADifferentPartitionKeyIs400(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	read, err := container.Read(ctx(), nil)
	noErr(t, err, "read")
	properties := *read.ContainerProperties
	properties.PartitionKeyDefinition = azcosmos.PartitionKeyDefinition{Paths: []string{"/other"}}
	_, err = container.Replace(ctx(), properties, nil)
	expectError(t, err, http.StatusBadRequest, -1, "replace the partition key")
}

func TestContainers_DeleteThen404(t *testing.T) {
	database, container := newContainer(t, containerSpec{})
	createItem(t, container, pk("p"), doc{"id": "i", "pk": "p"})
	deleted, err := container.Delete(ctx(), nil)
	noErr(t, err, "delete")
	eq(t, deleted.RawResponse.StatusCode, http.StatusNoContent, "delete status")
	_, err = container.Read(ctx(), nil)
	expectError(t, err, http.StatusNotFound, -1, "read deleted container")
	_, err = container.Delete(ctx(), nil)
	expectError(t, err, http.StatusNotFound, -1, "delete deleted container")
	// Recreated with the same id, it is empty.
	_, err = database.CreateContainer(ctx(), azcosmos.ContainerProperties{ID: container.ID(),
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)
	noErr(t, err, "recreate")
	_, err = container.ReadItem(ctx(), pk("p"), "i", nil)
	expectError(t, err, http.StatusNotFound, -1, "item of the deleted container")
}

func TestContainers_DuplicateIs409AndMissingDatabaseIs404(t *testing.T) {
	database, container := newContainer(t, containerSpec{})
	_, err := database.CreateContainer(ctx(), azcosmos.ContainerProperties{ID: container.ID(),
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)
	expectError(t, err, http.StatusConflict, -1, "duplicate container")

	missing, _ := client(t).NewDatabase(uid("missing"))
	_, err = missing.CreateContainer(ctx(), azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)
	expectError(t, err, http.StatusNotFound, 1003, "create container in a missing database")
	c, _ := database.NewContainer(uid("missing"))
	_, err = c.Read(ctx(), nil)
	expectError(t, err, http.StatusNotFound, -1, "read missing container")
}

func TestContainers_QueryWithParameters(t *testing.T) {
	database := newDatabase(t)
	a := createContainer(t, database, containerSpec{})
	b := createContainer(t, database, containerSpec{})
	pager := database.NewQueryContainersPager("SELECT * FROM root r WHERE r.id = @id",
		&azcosmos.QueryContainersOptions{QueryParameters: params("@id", a.ID())})
	var found []string
	for pager.More() {
		page, err := pager.NextPage(ctx())
		noErr(t, err, "query containers")
		for _, c := range page.Containers {
			found = append(found, c.ID)
			deepEq(t, c.PartitionKeyDefinition.Paths, []string{"/pk"}, "queried container partition key")
		}
	}
	deepEq(t, found, []string{a.ID()}, "containers matching @id")

	pager = database.NewQueryContainersPager("SELECT * FROM root r", nil)
	found = nil
	for pager.More() {
		page, err := pager.NextPage(ctx())
		noErr(t, err, "list containers")
		for _, c := range page.Containers {
			found = append(found, c.ID)
		}
	}
	slices.Sort(found)
	want := []string{a.ID(), b.ID()}
	slices.Sort(want)
	deepEq(t, found, want, "every container of the database")
}

func TestContainers_InvalidDefinitionsAre400(t *testing.T) {
	database := newDatabase(t)
	zero, minusTwo := int32(0), int32(-2)
	cases := []struct {
		what       string
		properties azcosmos.ContainerProperties
	}{
		{"partition key path without a leading slash",
			azcosmos.ContainerProperties{ID: uid("c"), PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"pk"}}}},
		{"more than 3 hierarchical paths", azcosmos.ContainerProperties{ID: uid("c"), PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{
			Paths: []string{"/a", "/b", "/c", "/d"}, Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2}}},
		{"defaultTtl 0", azcosmos.ContainerProperties{ID: uid("c"), DefaultTimeToLive: &zero,
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}},
		{"defaultTtl -2", azcosmos.ContainerProperties{ID: uid("c"), DefaultTimeToLive: &minusTwo,
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}},
		{"id of 256 characters", azcosmos.ContainerProperties{ID: strings.Repeat("c", 256),
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}},
		{"id with '/'", azcosmos.ContainerProperties{ID: "a/b",
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}},
	}
	for _, c := range cases {
		_, err := database.CreateContainer(ctx(), c.properties, nil)
		expectError(t, err, http.StatusBadRequest, -1, c.what)
	}
}

func TestContainers_UniqueKeysAreEnforced(t *testing.T) {
	_, container := newContainer(t, containerSpec{edit: func(p *azcosmos.ContainerProperties) {
		p.UniqueKeyPolicy = &azcosmos.UniqueKeyPolicy{UniqueKeys: []azcosmos.UniqueKey{{Paths: []string{"/email"}}}}
	}})
	read, err := container.Read(ctx(), nil)
	noErr(t, err, "read")
	ok(t, read.ContainerProperties.UniqueKeyPolicy != nil && len(read.ContainerProperties.UniqueKeyPolicy.UniqueKeys) == 1,
		"uniqueKeyPolicy stored: %+v", read.ContainerProperties.UniqueKeyPolicy)
	createItem(t, container, pk("p"), doc{"id": "a", "pk": "p", "email": "x@example.com"})
	_, err = container.CreateItem(ctx(), pk("p"), mustJSON(t, doc{"id": "b", "pk": "p", "email": "x@example.com"}), nil)
	expectError(t, err, http.StatusConflict, -1, "unique key violation in the same logical partition")
	// Unique keys are scoped to a logical partition.
	createItem(t, container, pk("q"), doc{"id": "b", "pk": "q", "email": "x@example.com"})
}

func TestContainers_FeedRangesOfOnePhysicalPartition(t *testing.T) {
	if !managed {
		t.Skip("the number of physical partitions of a 400 RU/s container is only known on the managed server")
	}
	_, container := newContainer(t, containerSpec{})
	ranges, err := container.ReadFeedRanges(ctx(), nil)
	noErr(t, err, "ReadFeedRanges")
	eq(t, len(ranges), 1, "feed ranges of a 400 RU/s container")
	eq(t, ranges[0].MinInclusive, "", "min")
	eq(t, ranges[0].MaxExclusive, "FF", "max")
}

func TestContainers_FourPhysicalPartitions(t *testing.T) {
	database, container := newContainer(t, containerSpec{throughput: fourPartitions()})
	ranges, err := container.ReadFeedRanges(ctx(), nil)
	noErr(t, err, "ReadFeedRanges")
	ok(t, len(ranges) >= 4, "40,000 RU/s should give at least 4 physical partitions, got %d", len(ranges))
	if managed {
		eq(t, len(ranges), 4, "feed ranges of a 40,000 RU/s container")
	}
	slices.SortFunc(ranges, func(a, b azcosmos.FeedRange) int { return strings.Compare(a.MinInclusive, b.MinInclusive) })
	eq(t, ranges[0].MinInclusive, "", "the first range starts at the minimum")
	eq(t, ranges[len(ranges)-1].MaxExclusive, "FF", "the last range ends at FF")
	for i := 1; i < len(ranges); i++ {
		eq(t, ranges[i].MinInclusive, ranges[i-1].MaxExclusive, "ranges tile the key space")
	}
	// The raw ranges feed agrees.
	rawRanges := partitionKeyRanges(t, database, container)
	eq(t, len(rawRanges), len(ranges), "pkranges feed size")
	throughput, err := container.ReadThroughput(ctx(), nil)
	noErr(t, err, "read throughput")
	manual, _ := throughput.ThroughputProperties.ManualThroughput()
	eq(t, manual, int32(40000), "throughput")
}

func TestContainers_PopulateQuotaInfo(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	createItem(t, container, pk("p"), doc{"id": "a", "pk": "p"})
	read, err := container.Read(ctx(), &azcosmos.ReadContainerOptions{PopulateQuotaInfo: true})
	noErr(t, err, "read with quota info")
	quota := read.RawResponse.Header.Get("x-ms-resource-quota")
	usage := read.RawResponse.Header.Get("x-ms-resource-usage")
	ok(t, strings.Contains(quota, "documentsSize="), "x-ms-resource-quota should list documentsSize: %q", quota)
	ok(t, strings.Contains(usage, "documentsCount="), "x-ms-resource-usage should list documentsCount: %q", usage)
}
