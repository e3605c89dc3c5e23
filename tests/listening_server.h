// A real HttpServer over an in-memory Account, listening on a free loopback port and run on a
// background thread for the life of a test: what the socket-level tests (http_server_test,
// connection_limits_test) talk to. Signed with tests' master key, kListeningServerKey.
#pragma once

#include <functional>
#include <memory>
#include <thread>
#include <utility>

#include "server/http_server.h"
#include "server/tls_certificate.h"
#include "tests/test_support.h"

namespace cosmos::testing {

inline constexpr char kListeningServerKey[] =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

class ListeningServer {
 public:
  using Configure = std::function<void(cosmos::server::ServerOptions&)>;

  // `configure` adjusts the options (2 I/O threads, a free port, TLS with a fresh self-signed
  // certificate when `tls`) before the server starts.
  explicit ListeningServer(bool tls, const Configure& configure = {}) {
    auto store = cosmos::storage::Store::Open({});
    REQUIRE_OK(store);
    account_ = std::make_unique<cosmos::engine::Account>(std::move(store).value());
    cosmos::server::ServerOptions options;
    options.port = 0;
    options.threads = 2;
    std::string authority_pem;  // what /_explorer/emulator.pem serves
    if (tls) {
      auto material = cosmos::server::GenerateSelfSignedCertificate();
      REQUIRE_OK(material);
      options.certificate_pem = material->certificate_pem;
      options.private_key_pem = material->private_key_pem;
      authority_pem = material->authority_pem;
    }
    if (configure) configure(options);
    cosmos::server::HandlerOptions handler_options;
    handler_options.authority_pem = authority_pem;
    handler_ = std::make_unique<cosmos::server::RequestHandler>(
        *account_, cosmos::server::MasterKeyAuth::Create(kListeningServerKey).value(), handler_options);
    server_ = std::make_unique<cosmos::server::HttpServer>(options, *handler_);
    REQUIRE_OK(server_->Listen());
    port_ = server_->BoundPort();
    thread_ = std::thread([this] { server_->Run(); });
  }
  ~ListeningServer() {
    server_->Shutdown();
    if (thread_.joinable()) thread_.join();
  }
  ListeningServer(const ListeningServer&) = delete;
  ListeningServer& operator=(const ListeningServer&) = delete;

  unsigned short port() const { return port_; }
  cosmos::server::HttpServer& http() { return *server_; }
  void Shutdown() { server_->Shutdown(); }

 private:
  std::unique_ptr<cosmos::engine::Account> account_;
  std::unique_ptr<cosmos::server::RequestHandler> handler_;
  std::unique_ptr<cosmos::server::HttpServer> server_;
  unsigned short port_ = 0;
  std::thread thread_;
};

}  // namespace cosmos::testing
