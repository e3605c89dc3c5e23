// bench_raw_server: the transport baseline. A minimal Boost.Beast HTTP/1.1 server (keep-alive,
// plain or TLS with a throwaway self-signed P-256 certificate) that answers every request with
// the same small JSON body, so the benchmark can show what the transport alone costs on this
// machine. It prints "ready" on stdout once listening; SIGINT/SIGTERM stop it.
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <iostream>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

constexpr char kBody[] = R"({"id":"raw","_rid":"AAAAAA==","_etag":"\"00000000-0000-0000-0000-000000000000\"","_ts":0})";

// Puts a fresh self-signed P-256 certificate for "localhost" into `context`.
bool UseSelfSignedCertificate(ssl::context& context) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* certificate = X509_new();
  bool ok = key != nullptr && certificate != nullptr;
  if (ok) {
    X509_set_version(certificate, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(certificate), 1);
    X509_gmtime_adj(X509_getm_notBefore(certificate), -60);
    X509_gmtime_adj(X509_getm_notAfter(certificate), 7 * 24 * 3600);
    X509_set_pubkey(certificate, key);
    X509_NAME* name = X509_get_subject_name(certificate);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1,
                               -1, 0);
    X509_set_issuer_name(certificate, name);
    ok = X509_sign(certificate, key, EVP_sha256()) > 0 &&
         SSL_CTX_use_certificate(context.native_handle(), certificate) == 1 &&
         SSL_CTX_use_PrivateKey(context.native_handle(), key) == 1;
  }
  X509_free(certificate);
  EVP_PKEY_free(key);
  return ok;
}

// One connection: read a request, answer the fixed body, repeat while keep-alive holds.
template <class Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
 public:
  template <class... Args>
  explicit Session(Args&&... args) : stream_(std::forward<Args>(args)...) {}

  void Start() {
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      Read();
    } else {
      stream_.async_handshake(ssl::stream_base::server, [self = this->shared_from_this()](beast::error_code ec) {
        if (!ec) self->Read();
      });
    }
  }

 private:
  void Read() {
    request_ = {};
    http::async_read(stream_, buffer_, request_,
                     [self = this->shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    if (ec) return Close();
    response_ = {};
    response_.result(http::status::ok);
    response_.version(request_.version());
    response_.set(http::field::content_type, "application/json");
    response_.set("x-ms-request-charge", "1");
    response_.set("x-ms-activity-id", "00000000-0000-0000-0000-000000000000");
    response_.body() = kBody;
    response_.keep_alive(request_.keep_alive());
    response_.prepare_payload();
    http::async_write(stream_, response_, [self = this->shared_from_this()](beast::error_code write_ec, size_t) {
      if (write_ec || !self->response_.keep_alive()) return self->Close();
      self->Read();
    });
  }

  void Close() {
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_send, ignored);
    beast::get_lowest_layer(stream_).socket().close(ignored);
  }

  Stream stream_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string host = "127.0.0.1";
  unsigned short port = 0;
  int threads = 2;
  bool tls = false;
  CLI::App app{"bench_raw_server: answers every HTTP request with a fixed small JSON body"};
  app.add_option("--host", host)->capture_default_str();
  app.add_option("--port", port, "0: any free port (printed)")->capture_default_str();
  app.add_option("--threads", threads)->capture_default_str()->check(CLI::Range(1, 64));
  app.add_flag("--tls", tls, "HTTPS with a throwaway self-signed certificate");
  CLI11_PARSE(app, argc, argv);

  net::io_context io(threads);
  ssl::context tls_context(ssl::context::tls_server);
  if (tls && !UseSelfSignedCertificate(tls_context)) {
    std::cerr << "cannot create the certificate\n";
    return 1;
  }
  tcp::acceptor acceptor(io);
  tcp::endpoint endpoint(net::ip::make_address(host), port);
  acceptor.open(endpoint.protocol());
  acceptor.set_option(net::socket_base::reuse_address(true));
  acceptor.bind(endpoint);
  acceptor.listen(net::socket_base::max_listen_connections);

  std::function<void()> accept = [&] {
    acceptor.async_accept(net::make_strand(io), [&](beast::error_code ec, tcp::socket socket) {
      if (ec) return;
      socket.set_option(tcp::no_delay(true), ec);
      if (tls) {
        std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(std::move(socket), tls_context)->Start();
      } else {
        std::make_shared<Session<beast::tcp_stream>>(std::move(socket))->Start();
      }
      accept();
    });
  };
  accept();

  net::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](beast::error_code, int) { io.stop(); });
  std::cout << "ready on " << host << ":" << acceptor.local_endpoint().port() << std::endl;

  std::vector<std::thread> runners;
  for (int i = 1; i < threads; ++i) runners.emplace_back([&io] { io.run(); });
  io.run();
  for (auto& runner : runners) runner.join();
  return 0;
}
