#include "server/request_handler.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <random>

#include <spdlog/spdlog.h>

#include "common/encoding.h"
#include "common/json.h"
#include "engine/admission/request_charge.h"
#include "server/error_mapping.h"
#include "server/headers.h"
#include "server/request_reading.h"
#include "server/response_building.h"
#include "server/routes.h"

namespace cosmos::server {
namespace {

constexpr char kServiceVersion[] = "version=2.14.0.0";

std::string NewActivityId() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  uint64_t high = random(), low = random();
  char text[40];
  std::snprintf(text, sizeof text, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(high >> 32),
                static_cast<unsigned>((high >> 16) & 0xFFFF), static_cast<unsigned>(high & 0xFFF),
                static_cast<unsigned>(((low >> 48) & 0x3FFF) | 0x8000),
                static_cast<unsigned long long>(low & 0xFFFFFFFFFFFFULL));
  return text;
}

// The cost report's window from its query string: hourSeconds (seconds of the run billed as one
// hour, 1 to 3600), from and to (epoch seconds); anything else is a 400.
Result<engine::CostWindow> CostWindowOf(std::string_view target) {
  engine::CostWindow window;
  size_t question = target.find('?');
  std::string_view query = question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
  for (const NameValue& pair : SplitNameValues(query, '&')) {
    std::string_view name = pair.name;
    std::string_view text = pair.value;
    int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    bool number = !text.empty() && error == std::errc() && end == text.data() + text.size();
    if (name == "hourSeconds" && number && value >= 1 && value <= 3600) {
      window.hour_seconds = value;
    } else if (name == "from" && number && value >= 0) {
      window.from_second = value;
    } else if (name == "to" && number && value >= 0) {
      window.to_second = value;
    } else {
      return Status::BadRequest("The cost report takes hourSeconds (1 to 3600), from and to (seconds since the "
                                "epoch), not '" + std::string(name) + "=" + std::string(text) + "'.");
    }
  }
  return window;
}

}  // namespace

RequestHandler::RequestHandler(engine::Account& account, MasterKeyAuth auth, HandlerOptions options)
    : account_(account),
      options_(std::move(options)),
      authorizer_(account, std::move(auth), options_),
      explorer_files_(options_.explorer_dir.empty() ? ExplorerFiles::Embedded()
                                                    : ExplorerFiles::FromDirectory(options_.explorer_dir)) {
  if (!options_.now_seconds) {
    options_.now_seconds = [] {
      return std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
}

HttpResponse RequestHandler::Handle(const HttpRequest& request) const {
  RequestContext context = Inspect(request, /*parse_item=*/false);
  HttpResponse response = Finish(request, context);
  CompleteAnswer(response, context);
  return response;
}

PreparedWrite RequestHandler::PrepareWrite(HttpRequest request) const {
  PreparedWrite prepared{std::move(request), {}};
  prepared.context = Inspect(prepared.request, /*parse_item=*/true);
  return prepared;
}

RequestContext RequestHandler::Inspect(const HttpRequest& request, bool parse_item) const {
  RequestContext context;
  context.started = std::chrono::steady_clock::now();
  context.path_text = request.target.substr(0, request.target.find('?'));
  const std::string& path_text = context.path_text;

  // Operational endpoints: no signature, as with the official emulators.
  if (request.method == "GET" && (path_text == "/alive" || path_text == "/ready")) {
    context.operational = PlainText(200, "text/plain", "OK");
    return context;
  }
  if (request.method == "GET" && path_text == "/_explorer/emulator.pem") {
    context.operational = options_.authority_pem.empty()
                              ? PlainText(404, "text/plain", "TLS is off\n")
                              : PlainText(200, "application/x-pem-file", options_.authority_pem);
    return context;
  }

  // The explorer's files: static, holding no data, so unsigned (the page signs what it asks the
  // API for). /_explorer itself redirects, so that the page's relative links resolve.
  constexpr std::string_view kExplorer = "/_explorer/";
  if ((request.method == "GET" || request.method == "HEAD") && path_text == "/_explorer") {
    HttpResponse redirect = PlainText(301, "text/plain", "");
    redirect.AddHeader("Location", std::string(kExplorer));
    context.operational = std::move(redirect);
    return context;
  }
  if ((request.method == "GET" || request.method == "HEAD") && path_text.rfind(kExplorer, 0) == 0) {
    std::optional<ExplorerFile> file = explorer_files_.Find(std::string_view(path_text).substr(kExplorer.size()));
    HttpResponse response = file ? PlainText(200, file->content_type, std::move(file->body))
                                 : PlainText(404, "text/plain", "No such explorer file.\n");
    response.AddHeader("Content-Security-Policy", ExplorerFiles::kContentSecurityPolicy);
    response.AddHeader("X-Content-Type-Options", "nosniff");
    response.AddHeader("Cache-Control", "no-cache");
    context.operational = std::move(response);
    return context;
  }

  context.activity_id = request.headers.Get(headers::kActivityId).value_or("");
  if (context.activity_id.empty()) context.activity_id = NewActivityId();

  context.is_admin = path_text.rfind("/_cosmolite/", 0) == 0;
  if (context.is_admin) {
    context.refused = authorizer_.AuthorizeAdmin(request, options_.now_seconds());
    return context;
  }
  Result<ResourcePath> path = ResourcePath::Parse(path_text);
  if (!path.ok()) {
    context.refused = path.status();
    return context;
  }
  Verb verb = VerbOf(request);
  bool write = verb != Verb::kGet && verb != Verb::kHead && verb != Verb::kQuery;
  context.refused = authorizer_.Authorize(request, *path, write, options_.now_seconds());
  if (context.refused.ok()) context.refused = CheckCommonHeaders(request);
  context.route = FindRoute(*path, verb);
  // With the container's cached policy, the document's index entries are computed here too.
  if (parse_item && context.refused.ok() && context.route && context.route->parses_item) {
    context.item = account_.ParseItemFor(ContainerOf(*path), request.body);
  }
  context.path = std::move(path.value());
  return context;
}

HttpResponse RequestHandler::Finish(const HttpRequest& request, RequestContext& context) const {
  if (context.operational) return std::move(*context.operational);
  HttpResponse response;
  Status status = context.refused;
  if (status.ok()) {
    try {
      Result<HttpResponse> dispatched =
          context.is_admin ? Admin(request, context.path_text)
                           : Dispatch(RouteCall{account_, options_, request, *context.path, context});
      if (dispatched.ok()) {
        response = std::move(dispatched.value());
      } else {
        status = dispatched.status();
      }
    } catch (const std::exception& error) {  // a bug: answer 500 rather than lose the process
      status = Status::Internal(std::string("Internal error: ") + error.what());
    }
  }
  if (status.code() == ErrorCode::kInternal) {
    spdlog::error("activity {}: {} {}: {}", context.activity_id, request.method, context.path_text, status.message());
  }
  if (!status.ok()) {
    response = ErrorResponse(status, context.activity_id);
    // Unauthenticated and throttled requests consume nothing.
    bool charged = engine::IsChargedFailure(status.code());
    response.AddHeader(headers::kRequestCharge, FormatCharge(charged ? engine::FailedRequestCharge() : 0.0));
  }

  return response;
}

void RequestHandler::CompleteAnswer(HttpResponse& response, const RequestContext& context) const {
  if (context.operational) return;  // /ready and the certificate: plain answers
  AddCommonHeaders(response, context.activity_id, context.started);
}

void RequestHandler::AddCommonHeaders(HttpResponse& response, const std::string& activity_id,
                                      std::chrono::steady_clock::time_point started) const {
  response.AddHeader(headers::kActivityId, activity_id);
  response.AddHeader(headers::kResponseDate, FormatHttpDate(options_.now_seconds()));
  response.AddHeader(headers::kServiceVersion, kServiceVersion);
  if (!response.body.empty() && !response.FindHeader(headers::kResponseContentType)) {
    response.AddHeader(headers::kResponseContentType, "application/json");
  }
  double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.3f", elapsed_ms);
  response.AddHeader(headers::kRequestDurationMs, duration);
}

bool RequestHandler::MayWrite(const HttpRequest& request) {
  Verb verb = VerbOf(request);
  return verb != Verb::kGet && verb != Verb::kHead && verb != Verb::kQuery;
}

std::vector<HttpResponse> RequestHandler::HandleWrites(const std::vector<PreparedWrite*>& writes) const {
  std::vector<HttpResponse> responses;
  responses.reserve(writes.size());
  Status committed = account_.RunWriteBatch([&] {
    for (PreparedWrite* write : writes) responses.push_back(Finish(write->request, write->context));
  });
  if (!committed.ok()) {
    spdlog::error("a write batch of {} requests failed to commit: {}", writes.size(), committed.message());
    for (size_t index = 0; index < writes.size(); ++index) {
      HttpResponse& response = responses[index];
      if (response.status >= 300) continue;
      const RequestContext& context = writes[index]->context;
      response = ErrorResponse(committed, context.activity_id);
      response.AddHeader(headers::kRequestCharge, FormatCharge(0.0));
    }
  }
  return responses;
}

// Administration, outside the Cosmos REST surface (documented in the README), with the account key
// (AuthorizeAdmin): POST /_cosmolite/dbs/{db}/colls/{coll}/pkranges/{id}/split splits a physical
// partition; GET /_cosmolite/queries lists recent queries with their cost and fan-out;
// GET /_cosmolite/partitions reports every container's physical and largest logical partitions;
// GET /_cosmolite/cost-report[?hourSeconds=&from=&to=] prices the RU consumed per partition per
// second (DELETE forgets them, to start a new measurement).
Result<HttpResponse> RequestHandler::Admin(const HttpRequest& request, std::string_view path_text) const {
  constexpr std::string_view kPrefix = "/_cosmolite/";
  constexpr std::string_view kSplitSuffix = "/split";
  std::string_view rest = path_text.substr(kPrefix.size());
  if (request.method == "POST" && rest.size() > kSplitSuffix.size() &&
      rest.substr(rest.size() - kSplitSuffix.size()) == kSplitSuffix) {
    rest.remove_suffix(kSplitSuffix.size());
    size_t slash = rest.rfind('/');
    std::string_view id_text = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
    int64_t range_id = -1;
    auto [end, error] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), range_id);
    // The ranges feed path (rest is "dbs/{db}/colls/{container}/pkranges/{id}" without the prefix's '/').
    std::string feed_path(path_text.substr(kPrefix.size() - 1, slash == std::string_view::npos ? 0 : slash + 1));
    COSMOS_ASSIGN_OR_RETURN(auto ranges_path, ResourcePath::Parse(feed_path));
    if (error != std::errc() || end != id_text.data() + id_text.size() ||
        ranges_path.kind != ResourceKind::kPartitionKeyRange || !ranges_path.is_feed) {
      return Status::BadRequest("Use POST /_cosmolite/dbs/{db}/colls/{container}/pkranges/{range id}/split.");
    }
    COSMOS_ASSIGN_OR_RETURN(auto ranges, account_.SplitPartitionKeyRange(ContainerOf(ranges_path), range_id));
    return FromRanges(std::move(ranges));
  }
  if (request.method == "GET" && path_text == "/_cosmolite/queries") {
    HttpResponse response;
    response.body = account_.query_log().Recent().dump(2);
    return response;
  }
  if (request.method == "GET" && path_text == "/_cosmolite/partitions") {
    constexpr int64_t kLargestLogicalPartitions = 5;
    HttpResponse response;
    COSMOS_ASSIGN_OR_RETURN(response.body, account_.PartitionReport(kLargestLogicalPartitions));
    return response;
  }
  if (request.method == "GET" && path_text == "/_cosmolite/cost-report") {
    COSMOS_ASSIGN_OR_RETURN(auto window, CostWindowOf(request.target));
    HttpResponse response;
    COSMOS_ASSIGN_OR_RETURN(response.body, account_.CostReport(window));
    return response;
  }
  if (request.method == "DELETE" && path_text == "/_cosmolite/cost-report") {
    account_.ClearUsageHistory();
    HttpResponse response;
    response.status = 204;
    return response;
  }
  return Status::NotFound("No such cosmolite administration endpoint: " + request.method + " " +
                          std::string(path_text));
}

}  // namespace cosmos::server
