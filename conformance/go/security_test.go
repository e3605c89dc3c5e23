// Entra ID (AAD) tokens through azcosmos.NewClient with an azcore.TokenCredential, which sends
// "type=aad&ver=1.0&sig=<jwt>". The credential makes the JWT the SDK's own emulator tests make
// (azcosmos emulator_test.go, emulatorTokenCredential): header {"typ":"JWT","alg":"RS256",
// "x5t":"CosmosEmulatorPrimaryMaster","kid":"CosmosEmulatorPrimaryMaster"}, the emulator claims, and as
// signature the base64url of the account key's text.
//
// Each top-level test starts an HTTPS cosmolite of its own (in memory) with one set of flags, shares it
// between its subtests and stops it at the end; azcore's bearer policy sends tokens over HTTPS only, so
// the client trusts the certificate downloaded from /_explorer/emulator.pem (over plain HTTP: the server
// serves both on one port). Covered:
//   - --aad-tokens emulator: the account, a database and a container (created with the key) are read, items
//     are created/read/queried/deleted; database/container creation, container deletion and throughput
//     replacement are 403 with substatus 5300; a token signed with another key text, or expired, is 401;
//   - --aad-readers <oid>: that principal reads and queries, its item writes are 403 with substatus 5301;
//   - no --aad-tokens (the default): the token is 401;
//   - --aad-tokens any: any signature is taken, an expired token is 401.
//
// The servers need the binary (COSMOLITE_BIN, set by run.sh), so these tests skip against another endpoint.
package conformance

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// The oid claim of the SDK's emulator token.
const aadEmulatorOID = "96313034-4739-43cb-93cd-74193adbe5b6"

// aadJWT is an emulator-style Entra ID token whose signature part is base64url(signedWith), expiring at exp.
func aadJWT(signedWith string, exp time.Time) string {
	now := time.Now().Unix()
	header := `{"typ":"JWT","alg":"RS256","x5t":"CosmosEmulatorPrimaryMaster","kid":"CosmosEmulatorPrimaryMaster"}`
	claims, _ := json.Marshal(map[string]any{
		"aud": "https://localhost.localhost", "iss": "https://sts.fake-issuer.net/7b1999a1-dfd7-440e-8204-00170979b984",
		"iat": now, "nbf": now, "exp": exp.Unix(), "aio": "", "appid": "localhost", "appidacr": "1",
		"idp": "https://localhost:8081/", "oid": aadEmulatorOID, "rh": "", "sub": "localhost",
		"tid": "EmulatorFederation", "uti": "", "ver": "1.0", "scp": "user_impersonation",
	})
	b64 := base64.RawURLEncoding.EncodeToString
	return b64([]byte(header)) + "." + b64(claims) + "." + b64([]byte(signedWith))
}

// validJWT is the token the SDK's emulator credential makes: signed with the account key, valid for 2 hours.
func validJWT() string { return aadJWT(accountKey, time.Now().Add(2*time.Hour)) }

// staticCredential hands out one JWT, which the SDK may keep for an hour whatever its exp claim.
type staticCredential struct{ jwt string }

func (c staticCredential) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: c.jwt, ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// aadServer is an HTTPS cosmolite of a test's own and a transport that trusts its certificate.
type aadServer struct {
	endpoint string
	hc       *http.Client
	database string // seeded by the key: container "c" on /pk holding {id: a, pk: p, n: 1}
}

// startAADServer starts cosmolite with the flags, stopped when t ends (its output logged if t failed).
func startAADServer(t *testing.T, flags ...string) *aadServer {
	t.Helper()
	binary := os.Getenv("COSMOLITE_BIN")
	if !managed || binary == "" {
		t.Skip("starts servers of its own: run through run.sh (COSMOLITE_BIN)")
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	noErr(t, err, "free port")
	port := listener.Addr().(*net.TCPAddr).Port
	listener.Close()

	dir := t.TempDir()
	logFile, err := os.Create(filepath.Join(dir, "cosmolite.log"))
	noErr(t, err, "server log file")
	args := append([]string{"--port", strconv.Itoa(port), "--host", "127.0.0.1", "--key", accountKey,
		"--in-memory", "--data-dir", dir, "--log-level", "warn"}, flags...)
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	noErr(t, cmd.Start(), "start "+binary)
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()

	server := &aadServer{endpoint: fmt.Sprintf("https://127.0.0.1:%d/", port)}
	t.Cleanup(func() {
		if server.hc != nil {
			server.hc.CloseIdleConnections() // the server waits for open connections to drain
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		logFile.Close()
		if t.Failed() {
			output, _ := os.ReadFile(logFile.Name())
			t.Logf("cosmolite %v output:\n%s", flags, truncate(string(output), 20000))
		}
	})

	// The certificate, over plain HTTP on the same port, once the server answers.
	var pem []byte
	for deadline := time.Now().Add(15 * time.Second); pem == nil; time.Sleep(20 * time.Millisecond) {
		select {
		case <-exited:
			t.Fatalf("cosmolite %v exited at start", flags)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("cosmolite %v did not start", flags)
		}
		response, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/_explorer/emulator.pem", port))
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(response.Body)
		response.Body.Close()
		if response.StatusCode == http.StatusOK {
			pem = body
		}
	}
	pool := x509.NewCertPool()
	ok(t, pool.AppendCertsFromPEM(pem), "/_explorer/emulator.pem holds no certificate: %q", truncate(string(pem), 200))
	server.hc = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool},
	}}

	// The data the token clients work on, created with the account key.
	admin := server.admin(t)
	server.database = uid("aad")
	_, err = admin.CreateDatabase(ctx(), azcosmos.DatabaseProperties{ID: server.database}, nil)
	noErr(t, err, "seed: create database with the key")
	database, _ := admin.NewDatabase(server.database)
	_, err = database.CreateContainer(ctx(), azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)
	noErr(t, err, "seed: create container with the key")
	container, _ := database.NewContainer("c")
	createItem(t, container, pk("p"), doc{"id": "a", "pk": "p", "n": 1})
	return server
}

func (s *aadServer) options() *azcosmos.ClientOptions {
	return &azcosmos.ClientOptions{ClientOptions: policy.ClientOptions{Transport: s.hc}}
}

// admin is a master-key client of this server.
func (s *aadServer) admin(t *testing.T) *azcosmos.Client {
	t.Helper()
	return newClientFor(t, s.endpoint, s.options())
}

// aad is a client of this server that authenticates with the given JWT.
func (s *aadServer) aad(t *testing.T, jwt string) *azcosmos.Client {
	t.Helper()
	c, err := azcosmos.NewClient(s.endpoint, staticCredential{jwt}, s.options())
	noErr(t, err, "azcosmos.NewClient with a token credential")
	return c
}

// container is the seeded container through a client of the given JWT.
func (s *aadServer) container(t *testing.T, jwt string) *azcosmos.ContainerClient {
	t.Helper()
	c, err := s.aad(t, jwt).NewContainer(s.database, "c")
	noErr(t, err, "NewContainer")
	return c
}

// getAccount sends GET / with the Authorization header the SDK's bearer policy sets.
func (s *aadServer) getAccount(t *testing.T, jwt string) rawResponse {
	t.Helper()
	request, err := http.NewRequest(http.MethodGet, s.endpoint, nil)
	noErr(t, err, "GET / request")
	request.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	request.Header.Set("x-ms-version", apiVersion)
	request.Header.Set("Authorization", "type=aad&ver=1.0&sig="+jwt)
	response, err := s.hc.Do(request)
	noErr(t, err, "GET /")
	defer response.Body.Close()
	body, _ := io.ReadAll(response.Body)
	return rawResponse{status: response.StatusCode, headers: response.Header, body: body}
}

func queryIDs(t *testing.T, c *azcosmos.ContainerClient) []string {
	t.Helper()
	return ids(t, mustQuery(t, c, "SELECT * FROM r ORDER BY r.id", pk("p"), nil).items)
}

func TestSecurity_AADEmulatorTokens(t *testing.T) {
	server := startAADServer(t, "--aad-tokens", "emulator")

	t.Run("ReadsMetadataAndDoesItemCRUD", func(t *testing.T) {
		account := server.getAccount(t, validJWT())
		eq(t, account.status, http.StatusOK, "GET / with the token: "+truncate(string(account.body), 300))
		_, isString := account.json(t)["id"].(string)
		ok(t, isString, "GET /: no account id")

		client := server.aad(t, validJWT())
		database, _ := client.NewDatabase(server.database)
		read, err := database.Read(ctx(), nil)
		noErr(t, err, "read the database")
		eq(t, read.DatabaseProperties.ID, server.database, "database id")
		container, _ := database.NewContainer("c")
		properties, err := container.Read(ctx(), nil)
		noErr(t, err, "read the container")
		eq(t, properties.ContainerProperties.ID, "c", "container id")

		eq(t, readItem(t, container, pk("p"), "a")["n"], any(1.0), "item a")
		createItem(t, container, pk("p"), doc{"id": "b", "pk": "p", "n": 2})
		deepEq(t, values(t, mustQuery(t, container, "SELECT VALUE r.n FROM r", pk("p"), nil).items), []any{1, 2},
			"query after the create")
		_, err = container.DeleteItem(ctx(), pk("p"), "b", nil)
		noErr(t, err, "delete item b")
		deepEq(t, queryIDs(t, container), []string{"a"}, "ids after the delete")
	})

	t.Run("ControlPlaneIs403With5300", func(t *testing.T) {
		client := server.aad(t, validJWT())
		_, err := client.CreateDatabase(ctx(), azcosmos.DatabaseProperties{ID: uid("other")}, nil)
		expectError(t, err, http.StatusForbidden, 5300, "create a database with a token")
		database, _ := client.NewDatabase(server.database)
		_, err = database.CreateContainer(ctx(), azcosmos.ContainerProperties{ID: "c2",
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)
		expectError(t, err, http.StatusForbidden, 5300, "create a container with a token")
		container, _ := database.NewContainer("c")
		_, err = container.Delete(ctx(), nil)
		expectError(t, err, http.StatusForbidden, 5300, "delete the container with a token")
		_, err = container.ReplaceThroughput(ctx(), azcosmos.NewManualThroughputProperties(500), nil)
		expectError(t, err, http.StatusForbidden, 5300, "replace the container's throughput with a token")

		// Nothing changed.
		adminContainer, _ := server.admin(t).NewContainer(server.database, "c")
		throughput, err := adminContainer.ReadThroughput(ctx(), nil)
		noErr(t, err, "the container still exists (read its throughput with the key)")
		manual, _ := throughput.ThroughputProperties.ManualThroughput()
		eq(t, manual, int32(400), "throughput")
	})

	t.Run("TokenSignedWithAnotherKeyIs401", func(t *testing.T) {
		_, err := server.container(t, aadJWT("not the account key", time.Now().Add(2*time.Hour))).
			ReadItem(ctx(), pk("p"), "a", nil)
		expectError(t, err, http.StatusUnauthorized, -1, "read an item with a token signed with another key")
	})

	t.Run("ExpiredTokenIs401", func(t *testing.T) {
		_, err := server.container(t, aadJWT(accountKey, time.Now().Add(-10*time.Minute))).
			ReadItem(ctx(), pk("p"), "a", nil)
		expectError(t, err, http.StatusUnauthorized, -1, "read an item with an expired token")
	})
}

func TestSecurity_AADReaderReadsAndItsWritesAre403With5301(t *testing.T) {
	server := startAADServer(t, "--aad-tokens", "emulator", "--aad-readers", aadEmulatorOID)
	container := server.container(t, validJWT())

	eq(t, readItem(t, container, pk("p"), "a")["n"], any(1.0), "read item a")
	deepEq(t, queryIDs(t, container), []string{"a"}, "query")
	_, err := container.CreateItem(ctx(), pk("p"), mustJSON(t, doc{"id": "b", "pk": "p"}), nil)
	expectError(t, err, http.StatusForbidden, 5301, "a reader creates an item")
	_, err = container.UpsertItem(ctx(), pk("p"), mustJSON(t, doc{"id": "a", "pk": "p", "n": 2}), nil)
	expectError(t, err, http.StatusForbidden, 5301, "a reader upserts an item")
	_, err = container.DeleteItem(ctx(), pk("p"), "a", nil)
	expectError(t, err, http.StatusForbidden, 5301, "a reader deletes an item")

	adminContainer, _ := server.admin(t).NewContainer(server.database, "c")
	deepEq(t, readItem(t, adminContainer, pk("p"), "a")["n"], 1, "item a unchanged (read with the key)")
}

func TestSecurity_AADTokensAreOffByDefault(t *testing.T) {
	server := startAADServer(t)
	database, _ := server.aad(t, validJWT()).NewDatabase(server.database)
	_, err := database.Read(ctx(), nil)
	expectError(t, err, http.StatusUnauthorized, -1, "read the database with a token, no --aad-tokens")
	eq(t, server.getAccount(t, validJWT()).status, http.StatusUnauthorized, "GET / with a token, no --aad-tokens")
}

func TestSecurity_AADAnyTakesAnySignatureButNotAnExpiredToken(t *testing.T) {
	server := startAADServer(t, "--aad-tokens", "any")
	container := server.container(t, aadJWT("any signature", time.Now().Add(2*time.Hour)))
	eq(t, readItem(t, container, pk("p"), "a")["n"], any(1.0), "read item a")
	createItem(t, container, pk("p"), doc{"id": "b", "pk": "p"})
	deepEq(t, queryIDs(t, container), []string{"a", "b"}, "ids after the create")

	database, _ := server.aad(t, aadJWT("x", time.Now().Add(-10*time.Minute))).NewDatabase(server.database)
	_, err := database.Read(ctx(), nil)
	expectError(t, err, http.StatusUnauthorized, -1, "read the database with an expired token")
}
