// Databases: create, read, query, delete, throughput, 409/404/400.
package conformance

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func TestDatabases_CreateReturnsSystemProperties(t *testing.T) {
	c := client(t)
	id := uid("db")
	response, err := c.CreateDatabase(ctx(), azcosmos.DatabaseProperties{ID: id}, nil)
	noErr(t, err, "create database")
	database, _ := c.NewDatabase(id)
	t.Cleanup(func() { _, _ = database.Delete(ctx(), nil) })
	eq(t, response.RawResponse.StatusCode, http.StatusCreated, "status")
	charged(t, response.Response, "create database")
	p := response.DatabaseProperties
	ok(t, p != nil, "DatabaseProperties missing")
	eq(t, p.ID, id, "id")
	ok(t, p.ResourceID != "", "_rid missing")
	ok(t, p.ETag != nil && strings.HasPrefix(string(*p.ETag), `"`), "_etag should be a quoted string: %v", p.ETag)
	ok(t, strings.HasPrefix(p.SelfLink, "dbs/"+p.ResourceID), "_self %q should be dbs/%s/", p.SelfLink, p.ResourceID)
	ok(t, time.Since(p.LastModified) < 10*time.Minute && time.Until(p.LastModified) < 10*time.Minute,
		"_ts %v is not close to now", p.LastModified)
	ok(t, response.ActivityID != "", "x-ms-activity-id missing")
}

func TestDatabases_ReadReturnsTheSameResource(t *testing.T) {
	database := newDatabase(t)
	first, err := database.Read(ctx(), nil)
	noErr(t, err, "read")
	eq(t, first.RawResponse.StatusCode, http.StatusOK, "status")
	charged(t, first.Response, "read database")
	second, err := database.Read(ctx(), nil)
	noErr(t, err, "read again")
	eq(t, second.DatabaseProperties.ResourceID, first.DatabaseProperties.ResourceID, "_rid is stable")
	eq(t, second.DatabaseProperties.ID, database.ID(), "id")
}

func TestDatabases_DuplicateIdIs409(t *testing.T) {
	database := newDatabase(t)
	_, err := client(t).CreateDatabase(ctx(), azcosmos.DatabaseProperties{ID: database.ID()}, nil)
	expectError(t, err, http.StatusConflict, -1, "create duplicate database")
}

func TestDatabases_MissingIs404(t *testing.T) {
	database, _ := client(t).NewDatabase(uid("missing"))
	_, err := database.Read(ctx(), nil)
	expectError(t, err, http.StatusNotFound, -1, "read missing database")
	_, err = database.Delete(ctx(), nil)
	expectError(t, err, http.StatusNotFound, -1, "delete missing database")
}

func TestDatabases_QueryWithParameters(t *testing.T) {
	database := newDatabase(t)
	other := newDatabase(t)
	c := client(t)
	pager := c.NewQueryDatabasesPager("SELECT * FROM root r WHERE r.id = @id",
		&azcosmos.QueryDatabasesOptions{QueryParameters: params("@id", database.ID())})
	var found []string
	for pager.More() {
		page, err := pager.NextPage(ctx())
		noErr(t, err, "query databases")
		for _, d := range page.Databases {
			found = append(found, d.ID)
		}
	}
	deepEq(t, found, []string{database.ID()}, "databases matching @id")

	// A query over every database lists both of this test's databases.
	pager = c.NewQueryDatabasesPager("SELECT * FROM root r", nil)
	seen := map[string]bool{}
	for pager.More() {
		page, err := pager.NextPage(ctx())
		noErr(t, err, "list databases")
		for _, d := range page.Databases {
			seen[d.ID] = true
		}
	}
	ok(t, seen[database.ID()] && seen[other.ID()], "SELECT * FROM root lists both databases")
}

func TestDatabases_QueryWithSystemFunction(t *testing.T) {
	prefix := uid("dbpage")
	c := client(t)
	for i := 0; i < 3; i++ {
		id := prefix + "-" + string(rune('a'+i))
		_, err := c.CreateDatabase(ctx(), azcosmos.DatabaseProperties{ID: id}, nil)
		noErr(t, err, "create "+id)
		database, _ := c.NewDatabase(id)
		t.Cleanup(func() { _, _ = database.Delete(ctx(), nil) })
	}
	pager := c.NewQueryDatabasesPager("SELECT * FROM root r WHERE STARTSWITH(r.id, @p)",
		&azcosmos.QueryDatabasesOptions{QueryParameters: params("@p", prefix)})
	var found []string
	for pager.More() {
		page, err := pager.NextPage(ctx())
		noErr(t, err, "query databases page")
		for _, d := range page.Databases {
			found = append(found, d.ID)
		}
	}
	eq(t, len(found), 3, "databases found")
}

func TestDatabases_DeleteThenReadIs404(t *testing.T) {
	c := client(t)
	id := uid("db")
	_, err := c.CreateDatabase(ctx(), azcosmos.DatabaseProperties{ID: id}, nil)
	noErr(t, err, "create")
	database, _ := c.NewDatabase(id)
	t.Cleanup(func() { _, _ = database.Delete(ctx(), nil) })
	container := createContainer(t, database, containerSpec{})
	createItem(t, container, pk("p"), doc{"id": "x", "pk": "p"})
	deleted, err := database.Delete(ctx(), nil)
	noErr(t, err, "delete")
	eq(t, deleted.RawResponse.StatusCode, http.StatusNoContent, "delete status")
	_, err = database.Read(ctx(), nil)
	expectError(t, err, http.StatusNotFound, -1, "read deleted database")
	// Recreating the same id gives an empty database.
	_, err = c.CreateDatabase(ctx(), azcosmos.DatabaseProperties{ID: id}, nil)
	noErr(t, err, "recreate")
	_, err = container.Read(ctx(), nil)
	expectError(t, err, http.StatusNotFound, -1, "container of the deleted database")
}

func TestDatabases_InvalidIdsAre400(t *testing.T) {
	c := client(t)
	// The SDK writes the id into its JSON unescaped, so a backslash goes through a raw request.
	response := raw(t, http.MethodPost, "/dbs", nil, map[string]any{"id": `a\b`})
	if response.status == http.StatusCreated {
		raw(t, http.MethodDelete, "/dbs/"+seg(`a\b`), nil, nil)
	}
	eq(t, response.status, http.StatusBadRequest, `create database with id a\b`)
	for _, id := range []string{"a/b", "a?b", "a#b", "", strings.Repeat("d", 256)} {
		_, err := c.CreateDatabase(ctx(), azcosmos.DatabaseProperties{ID: id}, nil)
		if err == nil {
			database, _ := c.NewDatabase(id)
			_, _ = database.Delete(ctx(), nil)
		}
		expectError(t, err, http.StatusBadRequest, -1, "create database with id "+truncate(id, 12))
	}
}

func TestDatabases_SharedThroughput(t *testing.T) {
	c := client(t)
	id := uid("db")
	throughput := azcosmos.NewManualThroughputProperties(400)
	_, err := c.CreateDatabase(ctx(), azcosmos.DatabaseProperties{ID: id},
		&azcosmos.CreateDatabaseOptions{ThroughputProperties: &throughput})
	noErr(t, err, "create database with 400 RU/s")
	database, _ := c.NewDatabase(id)
	t.Cleanup(func() { _, _ = database.Delete(ctx(), nil) })

	read, err := database.ReadThroughput(ctx(), nil)
	noErr(t, err, "read database throughput")
	manual, isManual := read.ThroughputProperties.ManualThroughput()
	ok(t, isManual, "manual throughput expected")
	eq(t, manual, int32(400), "database throughput")

	replaced, err := database.ReplaceThroughput(ctx(), azcosmos.NewManualThroughputProperties(600), nil)
	noErr(t, err, "replace database throughput")
	manual, _ = replaced.ThroughputProperties.ManualThroughput()
	eq(t, manual, int32(600), "replaced throughput")
	read, err = database.ReadThroughput(ctx(), nil)
	noErr(t, err, "read again")
	manual, _ = read.ThroughputProperties.ManualThroughput()
	eq(t, manual, int32(600), "throughput after replace")

	// A container in a shared-throughput database has no offer of its own.
	container := createContainer(t, database, containerSpec{})
	createItem(t, container, pk("p"), doc{"id": "x", "pk": "p"})
	_, err = container.ReadThroughput(ctx(), nil)
	expectError(t, err, http.StatusNotFound, -1, "container without its own offer")
}

func TestDatabases_WithoutThroughputHasNoOffer(t *testing.T) {
	database := newDatabase(t)
	_, err := database.ReadThroughput(ctx(), nil)
	expectError(t, err, http.StatusNotFound, -1, "read throughput of a database without shared throughput")
}
