"""The database account (GET /): properties, locations, headers, auth, and the endpoint forms a
client may use (127.0.0.1, localhost, plain http on the same port)."""
from urllib.parse import urlparse

import pytest
from azure.cosmos import CosmosClient, PartitionKey, exceptions

import cosmos_support as cs

CONSISTENCY_LEVELS = {"Strong", "BoundedStaleness", "Session", "ConsistentPrefix", "Eventual"}


def test_get_database_account_properties(client):
    hook = cs.Hook()
    account = client.get_database_account(response_hook=hook)
    assert account.ConsistencyPolicy["defaultConsistencyLevel"] in CONSISTENCY_LEVELS, account.ConsistencyPolicy
    assert account.WritableLocations, "no writable location"
    assert account.ReadableLocations, "no readable location"
    for location in account.WritableLocations + account.ReadableLocations:
        assert location.get("name"), location
        endpoint = urlparse(location["databaseAccountEndpoint"])
        assert endpoint.scheme in ("http", "https") and endpoint.netloc, location
    headers = hook.headers
    assert "x-ms-activity-id" in headers, sorted(headers)
    # The account read carries the media quota headers that the SDK turns into properties.
    assert "x-ms-max-media-storage-usage-mb" in headers, sorted(headers)
    assert int(account.MaxMediaStorageUsageInMB) > 0


@pytest.mark.managed
def test_account_locations_echo_the_endpoint_used(client):
    account = client.get_database_account()
    used = urlparse(cs.ENDPOINT)
    for location in account.WritableLocations + account.ReadableLocations:
        advertised = urlparse(location["databaseAccountEndpoint"])
        assert (advertised.scheme, advertised.netloc) == (used.scheme, used.netloc), \
            f"advertised {location['databaseAccountEndpoint']}, the client used {cs.ENDPOINT}"


def test_last_response_headers_follow_each_request(client, database):
    container = database.create_container_if_not_exists("c", partition_key=PartitionKey(path="/pk"))
    container.create_item({"id": "a", "pk": "p"})
    container.read_item("a", "p")
    headers = cs.lower(client.client_connection.last_response_headers)
    for name in ("x-ms-request-charge", "x-ms-activity-id", "x-ms-session-token", "etag"):
        assert name in headers, f"{name} missing from last_response_headers: {sorted(headers)}"


def test_wrong_key_is_401():
    bad_key = "A" * 86 + "=="
    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        client = CosmosClient(cs.ENDPOINT, credential=bad_key, **cs.tls_kwargs())
        client.get_database_account()
        list(client.list_databases())
    assert caught.value.status_code == 401, caught.value


@pytest.mark.managed
@pytest.mark.skipif(not cs.TLS, reason="the endpoint under test is plain http")
def test_localhost_name_with_certificate_verification(database):
    endpoint = cs.ENDPOINT.replace("127.0.0.1", "localhost")
    client = CosmosClient(endpoint, credential=cs.KEY, **cs.tls_kwargs())
    account = client.get_database_account()
    # As the official emulator, the account advertises 127.0.0.1 whatever name the client used; the SDK
    # then talks to 127.0.0.1, which the certificate names too.
    assert urlparse(account.WritableLocations[0]["databaseAccountEndpoint"]).hostname == "127.0.0.1"
    proxy = client.get_database_client(database.id)
    assert proxy.read()["id"] == database.id
    client.close()


@pytest.mark.managed
@pytest.mark.skipif(not cs.TLS, reason="the endpoint under test is already plain http")
def test_plain_http_on_the_same_port(database):
    endpoint = cs.ENDPOINT.replace("https://", "http://")
    client = CosmosClient(endpoint, credential=cs.KEY)
    account = client.get_database_account()
    assert account.WritableLocations[0]["databaseAccountEndpoint"].startswith("http://"), account.WritableLocations
    container = client.get_database_client(database.id).create_container("plain", partition_key=PartitionKey(path="/pk"))
    container.create_item({"id": "x", "pk": "p", "v": 1})
    assert container.read_item("x", "p")["v"] == 1
    client.close()


def test_https_certificate_is_verified():
    """The client really verifies the certificate: without trusting it, the TLS handshake fails."""
    if not (cs.TLS and cs.CERT_PEM and cs.MANAGED):
        pytest.skip("only meaningful against the managed HTTPS server with its own certificate")
    from azure.cosmos.documents import SSLConfiguration
    from azure.core.exceptions import ServiceRequestError
    ssl = SSLConfiguration()
    ssl.SSLCaCerts = True  # the system trust store, which does not know the emulator's certificate
    with pytest.raises((ServiceRequestError, exceptions.CosmosHttpResponseError, OSError)):
        CosmosClient(cs.ENDPOINT, credential=cs.KEY, ssl_config=ssl, connection_verify=True,
                     retry_total=0, retry_connect=0).get_database_account()
