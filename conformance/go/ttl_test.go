// Time to live: the container's defaultTtl, an item's ttl overriding it, TTL off, and expired
// items disappearing from reads and queries (the server expires items within about a second).
package conformance

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func ttlContainer(t *testing.T, defaultTTL *int32) *azcosmos.ContainerClient {
	t.Helper()
	_, container := newContainer(t, containerSpec{edit: func(p *azcosmos.ContainerProperties) { p.DefaultTimeToLive = defaultTTL }})
	return container
}

func int32p(v int32) *int32 { return &v }

// gone asserts that an item is no longer readable nor returned by a query.
func gone(t *testing.T, container *azcosmos.ContainerClient, key string, id string) {
	t.Helper()
	_, err := container.ReadItem(ctx(), pk(key), id, nil)
	expectError(t, err, http.StatusNotFound, -1, "read of expired item "+id)
	result := mustQuery(t, container, "SELECT VALUE c.id FROM c WHERE c.id = @id", pk(key),
		&azcosmos.QueryOptions{QueryParameters: params("@id", id)})
	eq(t, len(result.items), 0, "query rows for expired item "+id)
}

func present(t *testing.T, container *azcosmos.ContainerClient, key string, id string) {
	t.Helper()
	_, err := container.ReadItem(ctx(), pk(key), id, nil)
	noErr(t, err, "read of live item "+id)
}

func TestTTL_ContainerDefaultExpiresItems(t *testing.T) {
	t.Parallel()
	container := ttlContainer(t, int32p(2))
	created := decode(t, createItem(t, container, pk("p"), doc{"id": "short", "pk": "p"}).Value)
	_, hasTTL := created["ttl"]
	ok(t, !hasTTL, "the default TTL is not written into the item: %v", created["ttl"])
	present(t, container, "p", "short")
	time.Sleep(3500 * time.Millisecond)
	gone(t, container, "p", "short")
}

func TestTTL_ItemTTLOverridesTheDefault(t *testing.T) {
	t.Parallel()
	container := ttlContainer(t, int32p(2))
	createItem(t, container, pk("p"), doc{"id": "forever", "pk": "p", "ttl": -1})
	createItem(t, container, pk("p"), doc{"id": "longer", "pk": "p", "ttl": 60})
	createItem(t, container, pk("p"), doc{"id": "default", "pk": "p"})
	time.Sleep(3500 * time.Millisecond)
	present(t, container, "p", "forever")
	present(t, container, "p", "longer")
	gone(t, container, "p", "default")
}

func TestTTL_OnWithoutDefaultOnlyItemTTLExpires(t *testing.T) {
	t.Parallel()
	container := ttlContainer(t, int32p(-1))
	createItem(t, container, pk("p"), doc{"id": "kept", "pk": "p"})
	createItem(t, container, pk("p"), doc{"id": "one", "pk": "p", "ttl": 1})
	time.Sleep(2500 * time.Millisecond)
	present(t, container, "p", "kept")
	gone(t, container, "p", "one")
}

func TestTTL_ItemTTLIgnoredWhenTTLIsOff(t *testing.T) {
	t.Parallel()
	container := ttlContainer(t, nil)
	createItem(t, container, pk("p"), doc{"id": "ignored", "pk": "p", "ttl": 1})
	time.Sleep(2500 * time.Millisecond)
	present(t, container, "p", "ignored")
}

func TestTTL_AWriteRestartsTheClock(t *testing.T) {
	t.Parallel()
	container := ttlContainer(t, int32p(-1))
	start := time.Now()
	createItem(t, container, pk("p"), doc{"id": "touched", "pk": "p", "ttl": 4}) // expires by start+4s
	time.Sleep(time.Until(start.Add(2 * time.Second)))
	_, err := container.UpsertItem(ctx(), pk("p"), mustJSON(t, doc{"id": "touched", "pk": "p", "ttl": 4, "v": 2}), nil)
	noErr(t, err, "upsert") // now expires after start+5s
	time.Sleep(time.Until(start.Add(4500 * time.Millisecond)))
	present(t, container, "p", "touched")
	time.Sleep(time.Until(start.Add(7500 * time.Millisecond)))
	gone(t, container, "p", "touched")
}

func TestTTL_EnablingTTLLaterAppliesToExistingItems(t *testing.T) {
	t.Parallel()
	container := ttlContainer(t, nil)
	createItem(t, container, pk("p"), doc{"id": "old", "pk": "p"})
	time.Sleep(1100 * time.Millisecond)
	read, err := container.Read(ctx(), nil)
	noErr(t, err, "read container")
	properties := *read.ContainerProperties
	properties.DefaultTimeToLive = int32p(1)
	_, err = container.Replace(ctx(), properties, nil)
	noErr(t, err, "turn TTL on")
	time.Sleep(2000 * time.Millisecond)
	gone(t, container, "p", "old")
}
