// An in-process emulator for tests: an Account in memory (or on a file) behind the server's
// RequestHandler, answering signed requests as the server does, without sockets.
#pragma once

#include <functional>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/json.h"
#include "server/request_handler.h"
#include "tests/test_support.h"

namespace cosmos::testing {

using cosmos::server::HttpRequest;
using cosmos::server::HttpResponse;
using cosmos::server::MasterKeyAuth;
using cosmos::server::PreparedWrite;
using cosmos::server::RequestHandler;
using cosmos::server::ResourcePath;

inline constexpr char kKey[] = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
inline constexpr int64_t kNow = 1796209200;

class Emulator {
 public:
  // In memory unless `store_options` names a file; `configure` adjusts the handler's options.
  explicit Emulator(const cosmos::storage::StoreOptions& store_options = {},
                    const std::function<void(cosmos::server::HandlerOptions&)>& configure = {}) {
    auto store = cosmos::storage::Store::Open(store_options);
    REQUIRE_OK(store);
    account_ = std::make_unique<cosmos::engine::Account>(std::move(store).value());
    auto auth = MasterKeyAuth::Create(kKey);
    REQUIRE_OK(auth);
    cosmos::server::HandlerOptions options;
    options.now_seconds = [] { return kNow; };
    if (configure) configure(options);
    handler_ = std::make_unique<RequestHandler>(*account_, std::move(auth).value(), options);
  }

  // Answers a signed request as the server does: a write is prepared first and then handled as a
  // batch of one (RequestHandler::PrepareWrite, HandleWrites, CompleteAnswer), anything else by
  // Handle.
  HttpResponse Call(const std::string& method, const std::string& path, const std::string& body = "",
                    std::vector<std::pair<std::string, std::string>> headers = {}) {
    HttpRequest request = Signed(method, path, body, std::move(headers));
    if (!RequestHandler::MayWrite(request)) return handler_->Handle(request);
    PreparedWrite prepared = handler_->PrepareWrite(std::move(request));
    HttpResponse response = handler_->HandleWrites({&prepared}).front();
    handler_->CompleteAnswer(response, prepared.context);
    return response;
  }

  HttpRequest Signed(const std::string& method, const std::string& path, const std::string& body = "",
                     std::vector<std::pair<std::string, std::string>> headers = {}) const {
    HttpRequest request;
    request.method = method;
    request.target = path;
    request.body = body;
    std::string date = cosmos::server::FormatHttpDate(kNow);
    request.headers.Set("x-ms-date", date);
    auto parsed = ResourcePath::Parse(path.substr(0, path.find('?')));
    if (parsed.ok()) {
      auto auth = MasterKeyAuth::Create(kKey);
      std::string sig = auth->Sign(MasterKeyAuth::StringToSign(method, parsed->auth_resource_type,
                                                               parsed->auth_resource_link, date, ""));
      request.headers.Set("authorization", "type%3Dmaster%26ver%3D1.0%26sig%3D" + sig);
    }
    for (auto& [name, value] : headers) request.headers.Set(name, value);
    return request;
  }

  const RequestHandler& handler() const { return *handler_; }

  // Creates database "db" and container "c" partitioned on /pk.
  void CreateContainer(const std::string& extra = "") {
    REQUIRE(Call("POST", "/dbs", R"({"id":"db"})").status == 201);
    REQUIRE(Call("POST", "/dbs/db/colls", R"({"id":"c","partitionKey":{"paths":["/pk"]})" + extra + "}").status == 201);
  }

  HttpResponse CreateItem(const std::string& body, const std::string& pk) {
    return Call("POST", "/dbs/db/colls/c/docs", body, {{"x-ms-documentdb-partitionkey", pk}});
  }

 private:
  std::unique_ptr<cosmos::engine::Account> account_;
  std::unique_ptr<RequestHandler> handler_;
};

inline std::string Header(const HttpResponse& response, const std::string& name) {
  return response.FindHeader(name).value_or("<absent>");
}


}  // namespace cosmos::testing
