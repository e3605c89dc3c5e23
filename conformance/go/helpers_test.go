// Shared test plumbing: the endpoint under test, SDK clients that trust the served certificate,
// unique names, databases and containers deleted after each test, error inspection, and raw
// master-key-signed REST requests for what the Go SDK cannot express.
package conformance

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	azruntime "github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

const emulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

// The REST API version the raw requests speak (the Go SDK sends the same).
const apiVersion = "2020-11-05"

var (
	endpoint   string
	accountKey string
	managed    bool // the suite started the server (with_server.py): emulator-only checks allowed
	runTag     string
	counter    atomic.Int64

	transportOnce sync.Once
	httpClient    *http.Client
	transportErr  error

	clientOnce   sync.Once
	sharedClient *azcosmos.Client
	clientErr    error
)

func TestMain(m *testing.M) {
	endpoint = os.Getenv("COSMOS_ENDPOINT")
	if endpoint == "" {
		fmt.Fprintln(os.Stderr, "COSMOS_ENDPOINT is not set: run through run.sh (with_server.py) or point it at an account")
		os.Exit(2)
	}
	if !strings.HasSuffix(endpoint, "/") {
		endpoint += "/"
	}
	accountKey = os.Getenv("COSMOS_KEY")
	if accountKey == "" {
		accountKey = emulatorKey
	}
	managed = os.Getenv("COSMOLITE_MANAGED") == "1"
	tag := make([]byte, 3)
	_, _ = rand.Read(tag)
	runTag = hex.EncodeToString(tag)
	code := m.Run()
	reportKnownGaps() // the closing "known gaps: N" line (knowngap_test.go)
	os.Exit(code)
}

// transport trusts the certificate in COSMOS_CERT_PEM (a path to a PEM file) on top of the system
// roots; without it, the system roots alone (the real service).
func transport() (*http.Client, error) {
	transportOnce.Do(func() {
		tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
		if pemPath := os.Getenv("COSMOS_CERT_PEM"); pemPath != "" {
			pem, err := os.ReadFile(pemPath)
			if err != nil {
				transportErr = fmt.Errorf("reading COSMOS_CERT_PEM: %w", err)
				return
			}
			pool, err := x509.SystemCertPool()
			if err != nil || pool == nil {
				pool = x509.NewCertPool()
			}
			if !pool.AppendCertsFromPEM(pem) {
				transportErr = fmt.Errorf("COSMOS_CERT_PEM %s holds no PEM certificate", pemPath)
				return
			}
			tlsConfig.RootCAs = pool
		}
		httpClient = &http.Client{
			Timeout: 60 * time.Second,
			Transport: &http.Transport{
				TLSClientConfig:     tlsConfig,
				MaxIdleConnsPerHost: 16,
				IdleConnTimeout:     30 * time.Second,
			},
		}
	})
	return httpClient, transportErr
}

func clientOptions(t testing.TB) *azcosmos.ClientOptions {
	t.Helper()
	hc, err := transport()
	if err != nil {
		t.Fatalf("transport: %v", err)
	}
	return &azcosmos.ClientOptions{ClientOptions: policy.ClientOptions{Transport: hc}}
}

// newClient builds a fresh client for the given endpoint (the shared one uses COSMOS_ENDPOINT).
func newClientFor(t testing.TB, ep string, options *azcosmos.ClientOptions) *azcosmos.Client {
	t.Helper()
	cred, err := azcosmos.NewKeyCredential(accountKey)
	if err != nil {
		t.Fatalf("NewKeyCredential: %v", err)
	}
	if options == nil {
		options = clientOptions(t)
	}
	client, err := azcosmos.NewClientWithKey(ep, cred, options)
	if err != nil {
		t.Fatalf("NewClientWithKey(%s): %v", ep, err)
	}
	return client
}

// client is the client shared by the tests (as an application would share one).
func client(t testing.TB) *azcosmos.Client {
	t.Helper()
	clientOnce.Do(func() {
		cred, err := azcosmos.NewKeyCredential(accountKey)
		if err != nil {
			clientErr = err
			return
		}
		hc, err := transport()
		if err != nil {
			clientErr = err
			return
		}
		sharedClient, clientErr = azcosmos.NewClientWithKey(endpoint, cred,
			&azcosmos.ClientOptions{ClientOptions: policy.ClientOptions{Transport: hc}})
	})
	if clientErr != nil {
		t.Fatalf("client: %v", clientErr)
	}
	return sharedClient
}

func ctx() context.Context { return context.Background() }

// uid returns a name unique to this run and call.
func uid(prefix string) string {
	return fmt.Sprintf("%s-go-%s-%d", prefix, runTag, counter.Add(1))
}

// newDatabase creates a uniquely named database, deleted when the test ends.
func newDatabase(t testing.TB) *azcosmos.DatabaseClient {
	t.Helper()
	c := client(t)
	id := uid("db")
	response, err := c.CreateDatabase(ctx(), azcosmos.DatabaseProperties{ID: id}, nil)
	if err != nil {
		t.Fatalf("setup: create database %s: %v", id, err)
	}
	if response.RawResponse.StatusCode != http.StatusCreated {
		t.Fatalf("setup: create database %s answered %d", id, response.RawResponse.StatusCode)
	}
	database, err := c.NewDatabase(id)
	if err != nil {
		t.Fatalf("NewDatabase: %v", err)
	}
	t.Cleanup(func() {
		_, err := database.Delete(ctx(), nil)
		if err != nil && statusOf(err) != http.StatusNotFound {
			t.Errorf("cleanup: delete database %s: %v", id, err)
		}
	})
	return database
}

type containerSpec struct {
	paths      []string // default /pk
	kind       azcosmos.PartitionKeyKind
	version    int
	throughput *azcosmos.ThroughputProperties
	edit       func(*azcosmos.ContainerProperties)
}

// newContainer creates a database and a container in it (partitioned on /pk unless told otherwise).
func newContainer(t testing.TB, spec containerSpec) (*azcosmos.DatabaseClient, *azcosmos.ContainerClient) {
	t.Helper()
	database := newDatabase(t)
	return database, createContainer(t, database, spec)
}

func createContainer(t testing.TB, database *azcosmos.DatabaseClient, spec containerSpec) *azcosmos.ContainerClient {
	t.Helper()
	paths := spec.paths
	if len(paths) == 0 {
		paths = []string{"/pk"}
	}
	properties := azcosmos.ContainerProperties{
		ID:                     uid("c"),
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: paths, Kind: spec.kind, Version: spec.version},
	}
	if spec.edit != nil {
		spec.edit(&properties)
	}
	var options *azcosmos.CreateContainerOptions
	if spec.throughput != nil {
		options = &azcosmos.CreateContainerOptions{ThroughputProperties: spec.throughput}
	}
	response, err := database.CreateContainer(ctx(), properties, options)
	if err != nil {
		t.Fatalf("setup: create container %s: %v", properties.ID, err)
	}
	if response.RawResponse.StatusCode != http.StatusCreated {
		t.Fatalf("setup: create container answered %d", response.RawResponse.StatusCode)
	}
	container, err := database.NewContainer(properties.ID)
	if err != nil {
		t.Fatalf("NewContainer: %v", err)
	}
	return container
}

// fourPartitions is the throughput that gives a container 4 physical partitions (10,000 RU/s each).
func fourPartitions() *azcosmos.ThroughputProperties {
	tp := azcosmos.NewManualThroughputProperties(40000)
	return &tp
}

// ---------------------------------------------------------------------------------------------
// Items

type doc map[string]any

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return b
}

func decode(t testing.TB, b []byte) doc {
	t.Helper()
	var d doc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("decode %q: %v", truncate(string(b), 300), err)
	}
	return d
}

func pk(s string) azcosmos.PartitionKey { return azcosmos.NewPartitionKeyString(s) }

func createItem(t testing.TB, c *azcosmos.ContainerClient, key azcosmos.PartitionKey, item doc) azcosmos.ItemResponse {
	t.Helper()
	response, err := c.CreateItem(ctx(), key, mustJSON(t, item), &azcosmos.ItemOptions{EnableContentResponseOnWrite: true})
	if err != nil {
		t.Fatalf("create item %v: %v", item["id"], err)
	}
	return response
}

func readItem(t testing.TB, c *azcosmos.ContainerClient, key azcosmos.PartitionKey, id string) doc {
	t.Helper()
	response, err := c.ReadItem(ctx(), key, id, nil)
	if err != nil {
		t.Fatalf("read item %s: %v", id, err)
	}
	return decode(t, response.Value)
}

// seed creates n items {id: d<i>, pk: p<i % keys>, n: i, g: g<i%3>}.
func seed(t testing.TB, c *azcosmos.ContainerClient, n, keys int) {
	t.Helper()
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("p%d", i%keys)
		item := doc{"id": fmt.Sprintf("d%d", i), "pk": key, "n": i, "g": fmt.Sprintf("g%d", i%3)}
		if _, err := c.CreateItem(ctx(), pk(key), mustJSON(t, item), nil); err != nil {
			t.Fatalf("seed item %d: %v", i, err)
		}
	}
}

// ---------------------------------------------------------------------------------------------
// Queries

type queryResult struct {
	items   [][]byte
	pages   int
	charge  float32
	last    azcosmos.QueryItemsResponse
	results []azcosmos.QueryItemsResponse
}

// queryAll runs a query through every page.
func queryAll(c *azcosmos.ContainerClient, query string, key azcosmos.PartitionKey, options *azcosmos.QueryOptions) (queryResult, error) {
	var result queryResult
	pager := c.NewQueryItemsPager(query, key, options)
	for pager.More() {
		page, err := pager.NextPage(ctx())
		if err != nil {
			return result, err
		}
		result.pages++
		result.charge += page.RequestCharge
		result.items = append(result.items, page.Items...)
		result.last = page
		result.results = append(result.results, page)
		if result.pages > 1000 {
			return result, errors.New("query never ends (over 1000 pages)")
		}
	}
	return result, nil
}

func mustQuery(t testing.TB, c *azcosmos.ContainerClient, query string, key azcosmos.PartitionKey, options *azcosmos.QueryOptions) queryResult {
	t.Helper()
	result, err := queryAll(c, query, key, options)
	if err != nil {
		t.Fatalf("query %q: %v", query, err)
	}
	return result
}

// values decodes every row as a JSON value.
func values(t testing.TB, rows [][]byte) []any {
	t.Helper()
	out := make([]any, 0, len(rows))
	for _, row := range rows {
		var v any
		if err := json.Unmarshal(row, &v); err != nil {
			t.Fatalf("decode row %q: %v", row, err)
		}
		out = append(out, v)
	}
	return out
}

func ids(t testing.TB, rows [][]byte) []string {
	t.Helper()
	out := make([]string, 0, len(rows))
	for _, row := range rows {
		out = append(out, fmt.Sprint(decode(t, row)["id"]))
	}
	return out
}

func params(kv ...any) []azcosmos.QueryParameter {
	var out []azcosmos.QueryParameter
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, azcosmos.QueryParameter{Name: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

// ---------------------------------------------------------------------------------------------
// Errors

func responseError(err error) *azcore.ResponseError {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re
	}
	return nil
}

func statusOf(err error) int {
	if re := responseError(err); re != nil {
		return re.StatusCode
	}
	return 0
}

func substatusOf(err error) string {
	if re := responseError(err); re != nil && re.RawResponse != nil {
		return re.RawResponse.Header.Get("x-ms-substatus")
	}
	return ""
}

// errorBody is the service's error body {code, message, additionalErrorInfo?}.
type errorBody struct {
	Code                string `json:"code"`
	Message             string `json:"message"`
	AdditionalErrorInfo string `json:"additionalErrorInfo"`
}

func errorBodyOf(t testing.TB, err error) (errorBody, string) {
	t.Helper()
	re := responseError(err)
	if re == nil || re.RawResponse == nil {
		return errorBody{}, ""
	}
	raw, readErr := azruntime.Payload(re.RawResponse)
	if readErr != nil {
		t.Fatalf("reading the error body: %v", readErr)
	}
	var body errorBody
	_ = json.Unmarshal(raw, &body)
	return body, string(raw)
}

// expectError asserts that err is a ResponseError with the status (and substatus when not -1).
// It returns the error for further checks.
func expectError(t testing.TB, err error, status int, substatus int, what string) *azcore.ResponseError {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: expected HTTP %d, the operation succeeded", what, status)
	}
	re := responseError(err)
	if re == nil {
		t.Fatalf("%s: expected an *azcore.ResponseError with HTTP %d, got %T: %v", what, status, err, err)
	}
	_, raw := errorBodyOf(t, err)
	if re.StatusCode != status {
		t.Fatalf("%s: expected HTTP %d, got %d (substatus %q) body %s", what, status, re.StatusCode,
			re.RawResponse.Header.Get("x-ms-substatus"), truncate(raw, 600))
	}
	if substatus >= 0 {
		got := re.RawResponse.Header.Get("x-ms-substatus")
		if got == "" {
			got = "0"
		}
		if got != strconv.Itoa(substatus) {
			t.Fatalf("%s: HTTP %d as expected, but x-ms-substatus %q, expected %d; body %s", what, status, got, substatus,
				truncate(raw, 600))
		}
	}
	return re
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ---------------------------------------------------------------------------------------------
// Assertions

func eq[T comparable](t testing.TB, got, want T, what string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func deepEq(t testing.TB, got, want any, what string) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Fatalf("%s:\n  got  %s\n  want %s", what, g, w)
	}
}

func ok(t testing.TB, cond bool, format string, args ...any) {
	t.Helper()
	if !cond {
		t.Fatalf(format, args...)
	}
}

func noErr(t testing.TB, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// charged asserts a positive request charge.
func charged(t testing.TB, r azcosmos.Response, what string) {
	t.Helper()
	if r.RequestCharge <= 0 {
		t.Fatalf("%s: x-ms-request-charge should be positive, got %v (header %q)", what, r.RequestCharge,
			r.RawResponse.Header.Get("x-ms-request-charge"))
	}
}

// ---------------------------------------------------------------------------------------------
// Raw signed REST requests (for what the SDK does not expose)

type rawResponse struct {
	status  int
	headers http.Header
	body    []byte
}

func (r rawResponse) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response body is not a JSON object (%d): %q", r.status, truncate(string(r.body), 300))
	}
	return m
}

func (r rawResponse) substatus() string { return r.headers.Get("x-ms-substatus") }

// signingTarget derives the resource type and link signed for a URL path (feed: type = last
// segment, link = its parent; resource: type = the segment before the id, link = the whole path).
func signingTarget(escapedPath string) (string, string) {
	var segments []string
	for _, s := range strings.Split(strings.Trim(escapedPath, "/"), "/") {
		if s == "" {
			continue
		}
		decoded, err := url.PathUnescape(s)
		if err != nil {
			decoded = s
		}
		segments = append(segments, decoded)
	}
	if len(segments) == 0 {
		return "", ""
	}
	if len(segments)%2 == 1 {
		return segments[len(segments)-1], strings.Join(segments[:len(segments)-1], "/")
	}
	return segments[len(segments)-2], strings.Join(segments, "/")
}

func masterKeyAuthorization(key, verb, resourceType, resourceLink, date string) string {
	payload := strings.ToLower(verb) + "\n" + strings.ToLower(resourceType) + "\n" + resourceLink + "\n" +
		strings.ToLower(date) + "\n\n"
	secret, _ := base64.StdEncoding.DecodeString(key)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(payload))
	signature := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	return url.QueryEscape("type=master&ver=1.0&sig=" + signature)
}

// seg escapes one id for a URL path segment.
func seg(id string) string { return url.PathEscape(id) }

// raw sends one signed request. path is already escaped ("/dbs/x/colls/y/docs"); body may be nil,
// []byte/string (sent as is) or any value (JSON-encoded).
func raw(t testing.TB, method, path string, headers map[string]string, body any) rawResponse {
	t.Helper()
	return rawTo(t, endpoint, method, path, headers, body)
}

func rawTo(t testing.TB, base, method, path string, headers map[string]string, body any) rawResponse {
	t.Helper()
	hc, err := transport()
	if err != nil {
		t.Fatalf("transport: %v", err)
	}
	var payload []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		payload = b
	case string:
		payload = []byte(b)
	default:
		payload = mustJSON(t, b)
	}
	target := strings.TrimSuffix(base, "/") + path
	request, err := http.NewRequest(method, target, bytes.NewReader(payload))
	if err != nil {
		t.Fatalf("raw request %s %s: %v", method, path, err)
	}
	if payload == nil {
		request.Body = nil
		request.ContentLength = 0
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	request.Header.Set("x-ms-date", date)
	request.Header.Set("x-ms-version", apiVersion)
	request.Header.Set("Accept", "application/json")
	if payload != nil {
		request.Header.Set("Content-Type", "application/json")
	}
	resourceType, resourceLink := signingTarget(strings.SplitN(path, "?", 2)[0])
	request.Header.Set("Authorization", masterKeyAuthorization(accountKey, method, resourceType, resourceLink, date))
	for name, value := range headers {
		if name == "Host" || name == "host" {
			request.Host = value
			continue
		}
		request.Header.Set(name, value)
	}
	response, err := hc.Do(request)
	if err != nil {
		t.Fatalf("raw request %s %s: %v", method, path, err)
	}
	defer response.Body.Close()
	data, err := io.ReadAll(response.Body)
	if err != nil {
		t.Fatalf("raw request %s %s: reading body: %v", method, path, err)
	}
	return rawResponse{status: response.StatusCode, headers: response.Header, body: data}
}

func dbPath(database *azcosmos.DatabaseClient) string { return "/dbs/" + seg(database.ID()) }

func collPath(database *azcosmos.DatabaseClient, container *azcosmos.ContainerClient) string {
	return dbPath(database) + "/colls/" + seg(container.ID())
}

// rawQuery posts a query as the SDKs do.
func rawQuery(t testing.TB, database *azcosmos.DatabaseClient, container *azcosmos.ContainerClient, query string,
	headers map[string]string) rawResponse {
	t.Helper()
	h := map[string]string{
		"Content-Type":                               "application/query+json",
		"x-ms-documentdb-isquery":                    "True",
		"x-ms-documentdb-query-enablecrosspartition": "True",
	}
	for k, v := range headers {
		h[k] = v
	}
	body := mustJSON(t, map[string]any{"query": query, "parameters": []any{}})
	response := raw(t, http.MethodPost, collPath(database, container)+"/docs", h, body)
	return response
}

// partitionKeyRanges reads the container's ranges feed.
type pkRange struct {
	ID           string   `json:"id"`
	MinInclusive string   `json:"minInclusive"`
	MaxExclusive string   `json:"maxExclusive"`
	Parents      []string `json:"parents"`
}

func partitionKeyRanges(t testing.TB, database *azcosmos.DatabaseClient, container *azcosmos.ContainerClient) []pkRange {
	t.Helper()
	response := raw(t, http.MethodGet, collPath(database, container)+"/pkranges", nil, nil)
	if response.status != http.StatusOK {
		t.Fatalf("GET pkranges: %d %s", response.status, truncate(string(response.body), 300))
	}
	var feed struct {
		PartitionKeyRanges []pkRange `json:"PartitionKeyRanges"`
	}
	if err := json.Unmarshal(response.body, &feed); err != nil {
		t.Fatalf("pkranges body: %v", err)
	}
	return feed.PartitionKeyRanges
}

func itoa(i int) string { return strconv.Itoa(i) }

// sameSet reports whether a and b hold the same strings, ignoring order.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
		if count[s] < 0 {
			return false
		}
	}
	return true
}
