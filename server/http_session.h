// The sessions that serve the HttpServer's connections, one per connection (as in Beast's
// advanced_server_flex example): a session tells a TLS handshake from plain HTTP, then reads
// request after request in phases under deadlines, hands each to the request handler (GET and
// HEAD on its I/O thread, queries to the QueryPool, other requests to the WriteBatcher), and
// writes the answers, with HTTP/1.1 keep-alive. Also ServerState, what every session shares with
// the server. Internal to server/: the listener (http_server.cc) starts a session per accepted
// connection; the public API is http_server.h.
// Thread-safety: a session runs on its connection's strand (one I/O thread), and keeps itself
// alive while an operation of its is pending. ServerState is shared by every thread of the server:
// its options and handler are read-only, `stopping` is atomic, the registry and the two worker
// kinds lock for themselves.
#pragma once

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "server/connection_registry.h"
#include "server/http_server.h"
#include "server/query_pool.h"
#include "server/request_handler.h"
#include "server/write_batcher.h"

namespace cosmos::server {

using SteadyClock = std::chrono::steady_clock;

struct ServerState {
  ServerState(const ServerOptions& o, const RequestHandler& h, int query_threads)
      : options(o), handler(h), queries(query_threads), writes(h) {}

  const ServerOptions& options;  // the timeouts
  const RequestHandler& handler;
  QueryPool queries;    // runs queries, which may take long, off the I/O threads
  WriteBatcher writes;  // runs every other request that is not a GET or HEAD
  std::atomic<bool> stopping{false};
  // Shared with every connection's ticket, which may outlive this state when a shutdown abandons
  // requests still running after its grace period.
  std::shared_ptr<ConnectionRegistry> connections = std::make_shared<ConnectionRegistry>();

  void CloseAll() {
    for (auto& session : connections->Sessions()) session->CloseWhenIdle();
  }

  // How long `bytes` of a body or a response may take to cross: body_timeout, plus 1 s for every
  // min_bytes_per_second.
  SteadyClock::duration TransferAllowance(size_t bytes) const {
    size_t rate = std::max<size_t>(1, options.min_bytes_per_second);
    return options.body_timeout + std::chrono::milliseconds(static_cast<int64_t>(bytes / rate * 1000 +
                                                                                 bytes % rate * 1000 / rate));
  }
};

// Serves an accepted connection, registered under `ticket`, until it closes: over plain HTTP when
// `tls_context` is null; otherwise the connection's first bytes decide between HTTPS (with
// `tls_context`, which must outlive the session) and plain HTTP. The session runs on the socket's
// executor, the connection's strand.
void ServeConnection(ServerState& state, ConnectionTicket ticket, boost::asio::ip::tcp::socket&& socket,
                     boost::asio::ssl::context* tls_context);

}  // namespace cosmos::server
