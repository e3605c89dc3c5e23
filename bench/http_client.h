// Keep-alive HTTP/1.1 client connections for the benchmark, over plain TCP or TLS. The TLS
// client does not verify certificates: every target is a local server with a self-signed one.
// Thread-safety: an AsyncConnection and a SyncClient belong to one thread (the one running
// their io_context); the TLS context may be shared.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace cosmos::bench {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// Where the requests go.
struct Target {
  std::string host = "127.0.0.1";
  unsigned short port = 8081;
  bool tls = false;

  std::string HostHeader() const { return host + ":" + std::to_string(port); }
};

// A client TLS context that accepts any certificate.
std::unique_ptr<net::ssl::context> MakeClientTlsContext();

// Resolves the target once (it is a loopback address or "localhost").
tcp::endpoint ResolveTarget(const Target& target);

// One connection; connects (and handshakes) lazily before the first request and again after an
// error or a "Connection: close" answer. One request at a time.
class AsyncConnection {
 public:
  using Handler = std::function<void(beast::error_code, Response&&)>;

  // `tls_context` null: plain HTTP. Both references must outlive the connection.
  AsyncConnection(net::io_context& io, tcp::endpoint endpoint, net::ssl::context* tls_context,
                  std::chrono::milliseconds timeout = std::chrono::seconds(60));

  // Sends `request` and calls `handler` once with the response or a transport error.
  void Send(Request request, Handler handler);
  void Close();

 private:
  beast::tcp_stream& Lowest();
  void Connect();
  void Write();
  void Read();
  void Finish(beast::error_code ec);

  net::io_context& io_;
  tcp::endpoint endpoint_;
  net::ssl::context* tls_context_;
  std::chrono::milliseconds timeout_;
  std::optional<beast::tcp_stream> plain_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls_;
  bool connected_ = false;
  beast::flat_buffer buffer_;
  Request request_;
  std::optional<http::response_parser<http::string_body>> parser_;
  Handler handler_;
};

// Blocking requests on one connection of its own (setup, counting, readiness probes).
class SyncClient {
 public:
  SyncClient(const Target& target, net::ssl::context* tls_context,
             std::chrono::milliseconds timeout = std::chrono::seconds(120));

  // Returns the transport error, if any; `response` holds the answer otherwise.
  beast::error_code Send(Request request, Response& response);

 private:
  net::io_context io_;
  AsyncConnection connection_;
};

}  // namespace cosmos::bench
