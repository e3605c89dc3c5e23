// What the Docker image relies on: the official emulator images' environment variables, the
// certificate authority and the server certificate it issues for the names clients use, and the
// HEALTHCHECK probe.
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "server/official_emulator_settings.h"
#include "server/readiness_probe.h"
#include "server/tls_certificate.h"
#include "tests/listening_server.h"
#include "tests/test_support.h"

namespace {

using cosmos::server::OfficialEmulatorSettings;

cosmos::Result<OfficialEmulatorSettings> Read(const std::map<std::string, std::string>& environment) {
  return cosmos::server::ReadOfficialEmulatorSettings([&](const std::string& name) -> std::optional<std::string> {
    auto found = environment.find(name);
    return found == environment.end() ? std::nullopt : std::optional<std::string>(found->second);
  });
}

// The certificates of a PEM chain, in order.
std::vector<X509*> ParseChain(const std::string& pem) {
  std::vector<X509*> chain;
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) chain.push_back(cert);
  BIO_free(bio);
  return chain;
}

void FreeChain(std::vector<X509*>& chain) {
  for (X509* cert : chain) X509_free(cert);
  chain.clear();
}

// Whether `server` verifies against `authority` alone as the trust anchor.
bool VerifiesAgainst(X509* server, X509* authority) {
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, authority);
  X509_STORE_CTX* context = X509_STORE_CTX_new();
  X509_STORE_CTX_init(context, store, server, nullptr);
  X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SSL_SERVER);
  bool verified = X509_verify_cert(context) == 1;
  X509_STORE_CTX_free(context);
  X509_STORE_free(store);
  return verified;
}

}  // namespace

TEST_CASE("official emulator settings: nothing set means nothing changes") {
  auto settings = Read({});
  REQUIRE_OK(settings);
  CHECK_FALSE(settings->port);
  CHECK_FALSE(settings->plain_http);
  CHECK_FALSE(settings->persistence);
  CHECK_FALSE(settings->advertise_host);
  CHECK(settings->ignored.empty());
}

TEST_CASE("official emulator settings: what Testcontainers for Python and Node send") {
  auto python = Read({{"AZURE_COSMOS_EMULATOR_PARTITION_COUNT", "None"},
                      {"AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", "False"},
                      {"AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE", "172.17.0.1"},
                      {"AZURE_COSMOS_EMULATOR_KEY", "a2V5"}});
  REQUIRE_OK(python);
  CHECK(python->persistence == false);
  CHECK(python->advertise_host == "172.17.0.1");
  CHECK(python->certificate_names == std::vector<std::string>{"172.17.0.1"});
  CHECK(python->key == "a2V5");
  REQUIRE(python->ignored.size() == 1);
  CHECK(python->ignored[0].rfind("AZURE_COSMOS_EMULATOR_PARTITION_COUNT=None (", 0) == 0);

  auto node = Read({{"PORT", "34567"}, {"PROTOCOL", "http"}, {"ENABLE_TELEMETRY", "false"}, {"ENABLE_EXPLORER", "false"}});
  REQUIRE_OK(node);
  CHECK(node->port == 34567);
  CHECK(node->plain_http == true);
  CHECK(node->ignored.size() == 2);

  auto https = Read({{"PROTOCOL", "HTTPS"}, {"AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", "true"}});
  REQUIRE_OK(https);
  CHECK(https->plain_http == false);
  CHECK(https->persistence == true);
}

TEST_CASE("official emulator settings: vNext paths, levels and the public endpoint") {
  auto settings = Read({{"DATA_PATH", "/var/cosmos"},
                        {"KEY_FILE", "/run/secrets/key"},
                        {"LOG_LEVEL", "quiet"},
                        {"GATEWAY_PUBLIC_ENDPOINT", "https://cosmos.internal:8081/"},
                        {"CERT_SECRET", "hunter2"}});
  REQUIRE_OK(settings);
  CHECK(settings->data_dir == "/var/cosmos");
  CHECK(settings->key_file == "/run/secrets/key");
  CHECK(settings->log_level == "off");
  CHECK(settings->advertise_host == "cosmos.internal");
  REQUIRE(settings->ignored.size() == 1);
  CHECK(settings->ignored[0].find("hunter2") == std::string::npos);  // a secret never reaches the log

  // The classic image's override wins over the vNext endpoint; both name the certificate.
  auto both = Read({{"GATEWAY_PUBLIC_ENDPOINT", "gateway"}, {"AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE", "10.1.2.3"}});
  REQUIRE_OK(both);
  CHECK(both->advertise_host == "10.1.2.3");
  CHECK(both->certificate_names == std::vector<std::string>{"gateway", "10.1.2.3"});
  // An empty value is unset.
  auto empty = Read({{"PORT", ""}, {"PROTOCOL", ""}});
  REQUIRE_OK(empty);
  CHECK_FALSE(empty->port);
}

TEST_CASE("official emulator settings: values that cannot be meant are refused, naming the variable") {
  for (auto [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"PORT", "http"}, {"PORT", "0"}, {"PORT", "65536"}, {"PORT", "80 "}, {"PROTOCOL", "ftp"},
           {"AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", "maybe"}, {"LOG_LEVEL", "loud"}}) {
    auto settings = Read({{name, value}});
    INFO(name << "=" << value);
    REQUIRE_FALSE(settings.ok());
    CHECK(settings.status().message().find(name + "='" + value + "'") != std::string::npos);
  }
}

TEST_CASE("certificate names: the local names, then extra names sorted into DNS names and addresses") {
  auto names = cosmos::server::LocalCertificateNames({"cosmolite", "10.0.0.5", "FD00::0:7", "cosmolite", ""});
  REQUIRE_OK(names);
  CHECK(names->dns_names.front() == "localhost");
  CHECK(std::count(names->dns_names.begin(), names->dns_names.end(), "cosmolite") == 1);
  CHECK(std::count(names->ip_addresses.begin(), names->ip_addresses.end(), "127.0.0.1") == 1);
  CHECK(std::count(names->ip_addresses.begin(), names->ip_addresses.end(), "::1") == 1);
  CHECK(std::count(names->ip_addresses.begin(), names->ip_addresses.end(), "10.0.0.5") == 1);
  CHECK(std::count(names->ip_addresses.begin(), names->ip_addresses.end(), "fd00::7") == 1);  // canonical form
  CHECK_FALSE(cosmos::server::LocalCertificateNames({"bad name"}).ok());
  CHECK_FALSE(cosmos::server::LocalCertificateNames({"https://x/"}).ok());
}

TEST_CASE("certificate: the authority stays in the data dir; each start issues a server certificate it signs") {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("cosmolite-cert-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto names = cosmos::server::LocalCertificateNames({"cosmolite.test", "10.20.30.40"});
  REQUIRE_OK(names);

  auto first = cosmos::server::LoadOrCreateCertificate("", "", dir.string(), *names);
  REQUIRE_OK(first);
  auto second = cosmos::server::LoadOrCreateCertificate("", "", dir.string(), *names);
  REQUIRE_OK(second);
  CHECK(first->authority_pem == second->authority_pem);
  CHECK(first->certificate_pem != second->certificate_pem);
  CHECK(first->authority_path == (dir / "cosmolite-cert.pem").string());

  std::vector<X509*> authority = ParseChain(second->authority_pem);
  std::vector<X509*> chain = ParseChain(second->certificate_pem);
  REQUIRE(authority.size() == 1);
  REQUIRE(chain.size() == 2);  // the server certificate, then its issuer
  CHECK(X509_cmp(chain[1], authority[0]) == 0);
  CHECK(X509_check_ca(authority[0]) >= 1);
  CHECK(X509_check_ca(chain[0]) == 0);
  CHECK(VerifiesAgainst(chain[0], authority[0]));
  for (const char* host : {"localhost", "cosmolite.test"}) {
    INFO(host);
    CHECK(X509_check_host(chain[0], host, 0, 0, nullptr) == 1);
  }
  CHECK(X509_check_host(chain[0], "elsewhere.test", 0, 0, nullptr) != 1);
  for (const char* ip : {"127.0.0.1", "::1", "10.20.30.40"}) {
    INFO(ip);
    CHECK(X509_check_ip_asc(chain[0], ip, 0) == 1);
  }
  // Another authority's server certificate does not verify against this one.
  auto stranger = cosmos::server::GenerateSelfSignedCertificate();
  REQUIRE_OK(stranger);
  std::vector<X509*> stranger_chain = ParseChain(stranger->certificate_pem);
  CHECK_FALSE(VerifiesAgainst(stranger_chain[0], authority[0]));
  FreeChain(stranger_chain);
  FreeChain(chain);
  FreeChain(authority);

  // A key that does not match the authority is an error, not a silent new authority.
  std::filesystem::copy_file(dir / "cosmolite-key.pem", dir / "saved-key.pem");
  {
    std::ofstream key(dir / "cosmolite-key.pem", std::ios::trunc);
    key << stranger->private_key_pem;
  }
  CHECK_FALSE(cosmos::server::LoadOrCreateCertificate("", "", dir.string(), *names).ok());
  std::filesystem::remove_all(dir);
}

TEST_CASE("readiness probe: 0 from a listening server, a reason from a closed port") {
  std::string problem;
  unsigned short port = 0;
  {
    cosmos::testing::ListeningServer server(/*tls=*/true);
    port = server.port();
    CHECK(cosmos::server::ProbeReady("0.0.0.0", port, std::chrono::seconds(3), problem));
    CHECK(cosmos::server::ProbeReady("127.0.0.1", port, std::chrono::seconds(3), problem));
  }
  CHECK_FALSE(cosmos::server::ProbeReady("127.0.0.1", port, std::chrono::milliseconds(500), problem));
  CHECK(problem.find("cannot connect") != std::string::npos);
  CHECK_FALSE(cosmos::server::ProbeReady("localhost", port, std::chrono::milliseconds(500), problem));
  CHECK(problem.find("not an address") != std::string::npos);
}
