// Throughput (offers): ReadThroughput / ReplaceThroughput on containers, manual and autoscale,
// the service's minimums, and physical partitions following the provisioned RU/s.
package conformance

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func TestThroughput_ManualReadAndReplace(t *testing.T) {
	manual := azcosmos.NewManualThroughputProperties(400)
	_, container := newContainer(t, containerSpec{throughput: &manual})
	read, err := container.ReadThroughput(ctx(), nil)
	noErr(t, err, "read throughput")
	eq(t, read.RawResponse.StatusCode, http.StatusOK, "status")
	ru, isManual := read.ThroughputProperties.ManualThroughput()
	ok(t, isManual, "manual throughput expected")
	eq(t, ru, int32(400), "throughput")
	_, isAutoscale := read.ThroughputProperties.AutoscaleMaxThroughput()
	ok(t, !isAutoscale, "no autoscale settings on a manual offer")
	ok(t, read.ThroughputProperties.ETag != nil && *read.ThroughputProperties.ETag != "", "offer _etag")
	ok(t, read.RequestCharge > 0, "the offer read is charged")

	replaced, err := container.ReplaceThroughput(ctx(), azcosmos.NewManualThroughputProperties(1000), nil)
	noErr(t, err, "replace throughput")
	eq(t, replaced.RawResponse.StatusCode, http.StatusOK, "replace status")
	ru, _ = replaced.ThroughputProperties.ManualThroughput()
	eq(t, ru, int32(1000), "replaced throughput")
	read, err = container.ReadThroughput(ctx(), nil)
	noErr(t, err, "read again")
	ru, _ = read.ThroughputProperties.ManualThroughput()
	eq(t, ru, int32(1000), "throughput after replace")
}

func TestThroughput_DefaultContainerOffer(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	read, err := container.ReadThroughput(ctx(), nil)
	noErr(t, err, "read throughput of a container created without throughput")
	ru, isManual := read.ThroughputProperties.ManualThroughput()
	ok(t, isManual, "manual")
	eq(t, ru, int32(400), "default container throughput")
}

func TestThroughput_BelowTheMinimumIs400(t *testing.T) {
	_, container := newContainer(t, containerSpec{})
	_, err := container.ReplaceThroughput(ctx(), azcosmos.NewManualThroughputProperties(300), nil)
	expectError(t, err, http.StatusBadRequest, -1, "replace with 300 RU/s")
	_, err = container.ReplaceThroughput(ctx(), azcosmos.NewManualThroughputProperties(450), nil)
	expectError(t, err, http.StatusBadRequest, -1, "replace with 450 RU/s (not a multiple of 100)")
	database := newDatabase(t)
	low := azcosmos.NewManualThroughputProperties(100)
	_, err = database.CreateContainer(ctx(), azcosmos.ContainerProperties{ID: uid("c"),
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}},
		&azcosmos.CreateContainerOptions{ThroughputProperties: &low})
	expectError(t, err, http.StatusBadRequest, -1, "create with 100 RU/s")
}

func TestThroughput_AutoscaleReadAndReplace(t *testing.T) {
	autoscale := azcosmos.NewAutoscaleThroughputProperties(4000)
	_, container := newContainer(t, containerSpec{throughput: &autoscale})
	read, err := container.ReadThroughput(ctx(), nil)
	noErr(t, err, "read autoscale throughput")
	maxRU, isAutoscale := read.ThroughputProperties.AutoscaleMaxThroughput()
	ok(t, isAutoscale, "autoscale settings expected")
	eq(t, maxRU, int32(4000), "autoscale max")

	replaced, err := container.ReplaceThroughput(ctx(), azcosmos.NewAutoscaleThroughputProperties(6000), nil)
	noErr(t, err, "replace autoscale max")
	maxRU, _ = replaced.ThroughputProperties.AutoscaleMaxThroughput()
	eq(t, maxRU, int32(6000), "replaced autoscale max")
	read, err = container.ReadThroughput(ctx(), nil)
	noErr(t, err, "read again")
	maxRU, _ = read.ThroughputProperties.AutoscaleMaxThroughput()
	eq(t, maxRU, int32(6000), "autoscale max after replace")

	_, err = container.ReplaceThroughput(ctx(), azcosmos.NewAutoscaleThroughputProperties(1500), nil)
	expectError(t, err, http.StatusBadRequest, -1, "autoscale max not a multiple of 1,000")
}

func TestThroughput_RaisingThroughputSplitsPartitions(t *testing.T) {
	database, container := newContainer(t, containerSpec{})
	seed(t, container, 20, 20)
	before := len(partitionKeyRanges(t, database, container))
	if managed {
		eq(t, before, 1, "ranges at 400 RU/s")
	}
	_, err := container.ReplaceThroughput(ctx(), azcosmos.NewManualThroughputProperties(30000), nil)
	noErr(t, err, "raise to 30,000 RU/s")
	if managed {
		// The service splits asynchronously (minutes to hours); cosmolite splits at once.
		after := partitionKeyRanges(t, database, container)
		eq(t, len(after), 3, "ranges at 30,000 RU/s")
	}
	// Whatever the layout, every item is still there.
	result := mustQuery(t, container, "SELECT VALUE c.id FROM c", azcosmos.NewPartitionKey(), nil)
	eq(t, len(result.items), 20, "items after raising the throughput")
	for _, i := range []int{0, 11, 19} {
		present(t, container, "p"+itoa(i), "d"+itoa(i))
	}
}
