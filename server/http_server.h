// HttpServer: the Boost.Beast listener and one session per connection. Sessions read a request,
// hand it to the RequestHandler and write the answer, with HTTP/1.1 keep-alive. With TLS on,
// each connection is sniffed: a TLS handshake gets HTTPS, anything else plain HTTP.
// Thread-safety: Run() drives the io_context on N threads; Shutdown() may be called from any
// thread (it is what SIGINT/SIGTERM trigger).
#pragma once

#include <memory>
#include <string>

#include "common/result.h"
#include "server/request_handler.h"

namespace cosmos::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  unsigned short port = 8081;          // 0: any free port (see BoundPort)
  int threads = 2;                     // I/O threads; reads are answered on them
  int worker_threads = 4;              // threads that run queries (writes have one thread of their own)
  std::string certificate_pem;         // empty: plain HTTP only
  std::string private_key_pem;
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

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosmos::server
