// The database account (GET /). azcosmos 1.5 reads it internally (global endpoint manager) but
// exposes no public accessor, so the shape is checked with a signed raw GET / and the SDK's use of
// it is checked by running operations through clients on different endpoint spellings.
package conformance

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func TestAccount_GetRootHasTheAccountShape(t *testing.T) {
	response := raw(t, http.MethodGet, "/", nil, nil)
	eq(t, response.status, http.StatusOK, "GET /")
	body := response.json(t)
	_, isString := body["id"].(string)
	ok(t, isString, "id should be a string: %v", body["id"])
	_, isString = body["_rid"].(string)
	ok(t, isString, "_rid should be a string")
	eq(t, body["_dbs"], any("//dbs/"), "_dbs")
	for _, field := range []string{"writableLocations", "readableLocations"} {
		locations, isArray := body[field].([]any)
		ok(t, isArray && len(locations) >= 1, "%s should be a non-empty array: %v", field, body[field])
		for _, l := range locations {
			location := l.(map[string]any)
			_, hasName := location["name"].(string)
			ok(t, hasName, "%s[].name missing: %v", field, location)
			ep, _ := location["databaseAccountEndpoint"].(string)
			parsed, err := url.Parse(ep)
			ok(t, err == nil && (parsed.Scheme == "https" || parsed.Scheme == "http") && parsed.Host != "",
				"%s[].databaseAccountEndpoint is not a URL: %q", field, ep)
		}
	}
	policy, _ := body["userConsistencyPolicy"].(map[string]any)
	ok(t, policy != nil, "userConsistencyPolicy missing")
	if managed {
		eq(t, policy["defaultConsistencyLevel"], any("Session"), "userConsistencyPolicy.defaultConsistencyLevel (server default)")
	}
	_, isBool := body["enableMultipleWriteLocations"].(bool)
	ok(t, isBool, "enableMultipleWriteLocations should be a boolean")
	configText, isString := body["queryEngineConfiguration"].(string)
	ok(t, isString, "queryEngineConfiguration should be a JSON string")
	var config map[string]any
	noErr(t, json.Unmarshal([]byte(configText), &config), "queryEngineConfiguration parses")
	_, isNumber := config["maxSqlQueryInputLength"].(float64)
	ok(t, isNumber, "queryEngineConfiguration.maxSqlQueryInputLength missing: %v", config)
}

func TestAccount_ClientEndpointAndDiscoveryWork(t *testing.T) {
	// A fresh client reads the account (GET /) before its first operation and routes through the
	// advertised locations: the operation must still reach this server.
	c := newClientFor(t, endpoint, nil)
	eq(t, c.Endpoint(), endpoint, "Client.Endpoint()")
	id := uid("db")
	response, err := c.CreateDatabase(ctx(), azcosmos.DatabaseProperties{ID: id}, nil)
	noErr(t, err, "create database through a fresh client")
	database, _ := c.NewDatabase(id)
	t.Cleanup(func() { _, _ = database.Delete(ctx(), nil) })
	eq(t, response.RawResponse.StatusCode, http.StatusCreated, "create status")
	read, err := database.Read(ctx(), nil)
	noErr(t, err, "read it back")
	eq(t, read.DatabaseProperties.ID, id, "id")
}

func TestAccount_ClientThroughLocalhostEndpoint(t *testing.T) {
	if !managed {
		t.Skip("only meaningful against a local server (the endpoint is rewritten to localhost)")
	}
	u, _ := url.Parse(endpoint)
	local := u.Scheme + "://localhost:" + u.Port() + "/"
	c := newClientFor(t, local, nil)
	id := uid("db")
	_, err := c.CreateDatabase(ctx(), azcosmos.DatabaseProperties{ID: id}, nil)
	noErr(t, err, "create database through https://localhost:port/")
	database, _ := c.NewDatabase(id)
	t.Cleanup(func() { _, _ = database.Delete(ctx(), nil) })
	read, err := database.Read(ctx(), nil)
	noErr(t, err, "read through localhost")
	eq(t, read.DatabaseProperties.ID, id, "id")
}

func TestAccount_UnauthorizedWithAWrongKey(t *testing.T) {
	cred, err := azcosmos.NewKeyCredential("dGhpcyBpcyBub3QgdGhlIGtleSB0aGlzIGlzIG5vdCB0aGUga2V5IHRoaXMgaXMgbm90IHRoZSBrZXkhISE=")
	noErr(t, err, "credential")
	c, err := azcosmos.NewClientWithKey(endpoint, cred, clientOptions(t))
	noErr(t, err, "client")
	database, _ := c.NewDatabase(uid("db"))
	_, err = database.Read(ctx(), nil)
	expectError(t, err, http.StatusUnauthorized, -1, "read with a wrong key")
}
