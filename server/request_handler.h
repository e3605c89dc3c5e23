// RequestHandler: turns one Cosmos REST request into one response. It parses the path, checks
// the master-key signature, hands the request to its route (routes.h), which calls the engine,
// and adds the headers every answer carries. It never sees a socket.
// Thread-safety: Handle may run on many threads at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/account.h"
#include "server/aad_token.h"
#include "server/auth.h"
#include "server/explorer_files.h"
#include "server/http_message.h"
#include "server/request_authorization.h"
#include "server/resource_path.h"

namespace cosmos::server {

struct Route;

struct HandlerOptions {
  std::string authority_pem;  // the certificate clients trust, served at /_explorer/emulator.pem; empty without TLS
  // Where the data explorer's files come from (--explorer-dir): empty, the ones built in.
  std::string explorer_dir;
  // GET / advertises the account's read and write location as {scheme}://{advertised_host}:{port}/,
  // the port the client connected to (its Host header), else listen_port. The official emulator
  // advertises 127.0.0.1; a container's clients may need another name (--advertise-host). Empty:
  // the host named in the request's Host header.
  std::string advertised_host = "127.0.0.1";
  unsigned short listen_port = 8081;
  // Clock for signature dates; replaceable in tests.
  std::function<int64_t()> now_seconds;
  // Keys besides the primary one the handler is built with (base64; one that is not is ignored):
  // the secondary key signs anything; a read-only key signs reads and queries, and a write signed
  // with one gets the 401 of a wrong signature, as the service answers it.
  std::vector<std::string> secondary_keys;
  std::vector<std::string> read_only_keys;
  // Entra ID tokens (aad_token.h): whether and how they are accepted, and the principals (object
  // ids) that are Data Readers rather than Data Contributors.
  AadMode aad_mode = AadMode::kOff;
  std::vector<std::string> aad_reader_principals;
};

// What the handler works out about a request before it touches the store: the path, whether the
// signature holds and, for an item create, upsert or replace, the parsed document. None of it
// needs the store, so the server works it out for a write on an I/O thread, and the write
// thread, which every write waits for, does only the rest.
struct RequestContext {
  std::chrono::steady_clock::time_point started;
  std::string path_text;                     // the target without its query
  std::string activity_id;                   // the client's, or a new one
  std::optional<HttpResponse> operational;   // /alive, /ready, the certificate: answered already
  bool is_admin = false;                     // /_cosmolite/...
  std::optional<ResourcePath> path;          // set when the path parsed (and not admin)
  const Route* route = nullptr;              // its route (routes.h), once path and verb are known
  Status refused;                            // why the path or the signature failed, if either did
  std::optional<Result<engine::ParsedItem>> item;  // an item write's document, checked
};

// A write request with its context, ready for the write thread.
struct PreparedWrite {
  HttpRequest request;
  RequestContext context;
};

class RequestHandler {
 public:
  RequestHandler(engine::Account& account, MasterKeyAuth auth, HandlerOptions options);

  HttpResponse Handle(const HttpRequest& request) const;
  // The store-free part of handling a write (see RequestContext); thread-safe.
  PreparedWrite PrepareWrite(HttpRequest request) const;

  // True for requests that may write: everything but GET, HEAD and queries. The server runs
  // them through HandleWrites, in batches.
  static bool MayWrite(const HttpRequest& request);
  // Handles requests one after another as one write batch (engine::Account::RunWriteBatch):
  // their writes share one commit. If that commit fails, every request of the batch that had
  // succeeded is answered with the commit's error instead, since its write is not durable.
  // The answers still lack the headers every answer carries: CompleteAnswer adds them, so that
  // the write thread need not (the server calls it on the I/O threads).
  std::vector<HttpResponse> HandleWrites(const std::vector<PreparedWrite*>& writes) const;
  // Adds to a write's answer the headers every answer carries (activity id, date, service
  // version, content type, duration so far); thread-safe.
  void CompleteAnswer(HttpResponse& response, const RequestContext& context) const;

 private:
  // Headers every answer carries: activity id, date, service version, content type, duration.
  void AddCommonHeaders(HttpResponse& response, const std::string& activity_id,
                        std::chrono::steady_clock::time_point started) const;
  // The first part of Handle: what needs no store. `parse_item`: also parse an item write's body.
  RequestContext Inspect(const HttpRequest& request, bool parse_item) const;
  // The rest of Handle but the common headers, given the request's context (its parsed item is
  // consumed).
  HttpResponse Finish(const HttpRequest& request, RequestContext& context) const;
  // /_cosmolite/...: administration (splits, the query log, the partition report), with the
  // account key (RequestAuthorizer::AuthorizeAdmin).
  Result<HttpResponse> Admin(const HttpRequest& request, std::string_view path_text) const;

  engine::Account& account_;
  HandlerOptions options_;
  RequestAuthorizer authorizer_;
  ExplorerFiles explorer_files_;
};

}  // namespace cosmos::server
