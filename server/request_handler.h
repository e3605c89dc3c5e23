// RequestHandler: turns one Cosmos REST request into one response. It parses the path, checks
// the master-key signature, reads the Cosmos headers, calls the engine and writes the Cosmos
// response headers. It never sees a socket.
// Thread-safety: Handle may run on many threads at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/account.h"
#include "server/auth.h"
#include "server/http_message.h"
#include "server/resource_path.h"

namespace cosmos::server {

struct HandlerOptions {
  std::string certificate_pem;  // served at /_explorer/emulator.pem; empty without TLS
  std::string fallback_host;    // host:port advertised when a request has no Host header
  // Clock for signature dates; replaceable in tests.
  std::function<int64_t()> now_seconds;
};

class RequestHandler {
 public:
  RequestHandler(engine::Account& account, MasterKeyAuth auth, HandlerOptions options);

  HttpResponse Handle(const HttpRequest& request) const;

  // True for requests that may write: everything but GET, HEAD and queries. The server runs
  // them through HandleWrites, in batches.
  static bool MayWrite(const HttpRequest& request);
  // Handles requests one after another as one write batch (engine::Account::RunWriteBatch):
  // their writes share one commit. If that commit fails, every request of the batch that had
  // succeeded is answered with the commit's error instead, since its write is not durable.
  std::vector<HttpResponse> HandleWrites(const std::vector<const HttpRequest*>& requests) const;

 private:
  // Headers every answer carries: activity id, date, service version, content type, duration.
  void AddCommonHeaders(HttpResponse& response, const std::string& activity_id,
                        std::chrono::steady_clock::time_point started) const;
  Result<HttpResponse> Dispatch(const HttpRequest& request, const ResourcePath& path) const;
  HttpResponse DatabaseAccount(const HttpRequest& request) const;
  Result<HttpResponse> PartitionKeyRanges(const HttpRequest& request, const ResourcePath& path) const;
  // GET .../docs with A-IM: Incremental feed.
  Result<HttpResponse> ChangeFeed(const HttpRequest& request, const ResourcePath& path) const;
  HttpResponse FromRanges(engine::PartitionKeyRangesResponse ranges) const;
  // /_cosmolite/...: administration (splits), unsigned like /alive.
  Result<HttpResponse> Admin(const HttpRequest& request, std::string_view path_text) const;
  // POST .../docs with a query: one page of results, or the SDK's query plan.
  Result<HttpResponse> QueryItems(const HttpRequest& request, const ResourcePath& path) const;

  engine::Account& account_;
  MasterKeyAuth auth_;
  HandlerOptions options_;
};

}  // namespace cosmos::server
