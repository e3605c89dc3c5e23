// HttpServer: the Boost.Beast listener and one session per connection. Sessions read a request,
// hand it to the RequestHandler and write the answer, with HTTP/1.1 keep-alive. With TLS on,
// each connection is sniffed: a TLS handshake gets HTTPS, anything else plain HTTP.
// Thread-safety: Run() drives the io_context on N threads; Shutdown() may be called from any
// thread (it is what SIGINT/SIGTERM trigger).
// The listener is http_server.cc; what it uses is internal to server/: the sessions
// (http_session.h), the connection registry (connection_registry.h), the query threads
// (query_pool.h) and the write thread (write_batcher.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/result.h"
#include "server/descriptor_limit.h"  // RaiseDescriptorLimit, DefaultMaxConnections, ...
#include "server/request_handler.h"

namespace cosmos::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  unsigned short port = 8081;          // 0: any free port (see BoundPort)
  int threads = 2;                     // I/O threads; reads are answered on them
  int worker_threads = 4;              // threads that run queries (writes have one thread of their own)
  std::string certificate_pem;         // empty: plain HTTP only
  std::string private_key_pem;

  // Connections served at once; 0: DefaultMaxConnections of the descriptor limit. At the cap a new
  // connection closes the connection that has waited longest between requests (the SDKs'
  // keep-alive pools reopen one when they need it; one that has had no request yet only after a
  // second), or, when every connection is in a request, is refused with a reset.
  size_t max_connections = 0;
  // A keep-alive connection may wait this long for the first byte of its next request (and a new
  // one for its first byte). Longer than the SDKs' own pool idle timeouts (Go 90 s, .NET and Java
  // 60 s), so that clients close idle connections first and never send into one being closed.
  std::chrono::milliseconds idle_timeout = std::chrono::seconds(120);
  // From a request's first byte to the end of its header block.
  std::chrono::milliseconds header_timeout = std::chrono::seconds(10);
  // A request body must arrive within body_timeout of its headers plus 1 s for every
  // min_bytes_per_second received (after 30 s, an average of at least 64 KB/s); a response must be
  // taken by the client within the same allowance for its size.
  std::chrono::milliseconds body_timeout = std::chrono::seconds(30);
  size_t min_bytes_per_second = 64 * 1024;
  // With TLS on: from a connection's first byte to the end of its TLS handshake.
  std::chrono::milliseconds tls_handshake_timeout = std::chrono::seconds(10);

  // Called once, on the thread that calls Shutdown() (the signal's I/O thread for SIGINT/SIGTERM),
  // as Shutdown() begins, before requests in flight are waited for. May be empty.
  std::function<void()> on_shutdown;
};

// Largest request body accepted on the wire: a 2 MB document plus envelope, with room for
// batches. Bodies beyond it are answered 413 and the connection is closed.
inline constexpr size_t kMaxRequestBodyBytes = 16 * 1024 * 1024;
// Largest request header block (session tokens can be long).
inline constexpr size_t kMaxRequestHeaderBytes = 64 * 1024;

class HttpServer {
 public:
  HttpServer(ServerOptions options, const RequestHandler& handler);
  ~HttpServer();

  // Binds and listens. Returns kInternal if the address cannot be bound or TLS set up.
  Status Listen();
  unsigned short BoundPort() const;
  // Serves until Shutdown(): then stops accepting, lets requests in flight finish, closes idle
  // connections, and returns.
  void Run();
  void Shutdown();
  // Connections open now (accepted and not yet closed); for tests and diagnostics.
  size_t ConnectionCount() const;
  // The connection cap in force (ServerOptions::max_connections or its derived default).
  size_t MaxConnections() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosmos::server
