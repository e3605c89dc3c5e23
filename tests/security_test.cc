// Users, permissions, resource tokens and Entra ID tokens: the access rules alone, the token
// signer, the Entra ID verifier, and requests through the handler in process.
#include <string>
#include <vector>

#include "common/encoding.h"
#include "common/json.h"
#include "engine/security/access_rules.h"
#include "engine/security/resource_token.h"
#include "server/aad_token.h"
#include "tests/in_process_emulator.h"
#include "tests/test_support.h"

using cosmos::ErrorCode;
using cosmos::Json;
using cosmos::engine::AccessRequest;
using cosmos::engine::AccessTarget;
using cosmos::engine::CheckDataPlaneRole;
using cosmos::engine::CheckResourceGrant;
using cosmos::engine::DataPlaneRole;
using cosmos::engine::PermissionScope;
using cosmos::engine::ResolvedTarget;
using cosmos::engine::ResourceTokenSigner;
using cosmos::server::AadMode;
using cosmos::server::AadTokenVerifier;
using cosmos::testing::Emulator;

namespace {

AccessRequest Access(AccessTarget target, std::vector<std::string> ids, bool write, bool feed = false) {
  AccessRequest request;
  request.target = target;
  request.ids = std::move(ids);
  request.write = write;
  request.is_feed = feed;
  request.method = write ? "POST" : "GET";
  request.path = "/test";
  return request;
}

// Container 7 of database 3, read-only unless said otherwise.
PermissionScope ContainerScope(bool read_only = true) {
  PermissionScope scope;
  scope.database_seq = 3;
  scope.container_seq = 7;
  scope.read_only = read_only;
  return scope;
}

constexpr ResolvedTarget kInScope{3, 7};
constexpr ResolvedTarget kOtherContainer{3, 8};

}  // namespace

TEST_CASE("a container permission reaches the container and its documents, reads only under Read", "[security]") {
  auto doc = [](bool write) { return Access(AccessTarget::kDocument, {"db", "c", "a"}, write); };
  CHECK(CheckResourceGrant(ContainerScope(), doc(false), kInScope).ok());
  CHECK(CheckResourceGrant(ContainerScope(), doc(true), kInScope).code() == ErrorCode::kForbidden);
  CHECK(CheckResourceGrant(ContainerScope(false), doc(true), kInScope).ok());
  CHECK(CheckResourceGrant(ContainerScope(), Access(AccessTarget::kContainer, {"db", "c"}, false), kInScope).ok());
  CHECK(CheckResourceGrant(ContainerScope(), Access(AccessTarget::kContainer, {"db", "c"}, true), kInScope).code() ==
        ErrorCode::kForbidden);
  CHECK(CheckResourceGrant(ContainerScope(), Access(AccessTarget::kPartitionKeyRange, {"db", "c"}, false, true),
                           kInScope)
            .ok());
  CHECK(CheckResourceGrant(ContainerScope(), doc(false), kOtherContainer).code() == ErrorCode::kForbidden);
}

TEST_CASE("a resource token never reaches account feeds, databases, offers, users or permissions", "[security]") {
  PermissionScope scope = ContainerScope(false);
  CHECK(CheckResourceGrant(scope, Access(AccessTarget::kAccount, {}, false), {}).ok());  // GET /, the SDKs' start
  CHECK(CheckResourceGrant(scope, Access(AccessTarget::kDatabase, {}, false, true), {}).code() == ErrorCode::kForbidden);
  CHECK(CheckResourceGrant(scope, Access(AccessTarget::kDatabase, {"db"}, false), kInScope).code() ==
        ErrorCode::kForbidden);
  CHECK(CheckResourceGrant(scope, Access(AccessTarget::kOffer, {}, false, true), {}).code() == ErrorCode::kForbidden);
  CHECK(CheckResourceGrant(scope, Access(AccessTarget::kUser, {"db"}, false, true), kInScope).code() ==
        ErrorCode::kForbidden);
  CHECK(CheckResourceGrant(scope, Access(AccessTarget::kPermission, {"db", "u"}, false, true), kInScope).code() ==
        ErrorCode::kForbidden);
  CHECK(CheckResourceGrant(scope, Access(AccessTarget::kDocument, {"db", "c", "a"}, false), {}).code() ==
        ErrorCode::kForbidden);  // a database the token does not know
}

TEST_CASE("a permission with a partition key allows that logical partition only", "[security]") {
  PermissionScope scope = ContainerScope(false);
  scope.partition_key = Json::array({1});
  AccessRequest write = Access(AccessTarget::kDocument, {"db", "c"}, true, true);
  write.partition_key = "[1]";
  CHECK(CheckResourceGrant(scope, write, kInScope).ok());
  write.partition_key = "[1.0]";  // the same number
  CHECK(CheckResourceGrant(scope, write, kInScope).ok());
  write.partition_key = "[2]";
  CHECK(CheckResourceGrant(scope, write, kInScope).code() == ErrorCode::kForbidden);
  write.partition_key.reset();  // a cross-partition request
  CHECK(CheckResourceGrant(scope, write, kInScope).code() == ErrorCode::kForbidden);
  AccessRequest plan = Access(AccessTarget::kDocument, {"db", "c"}, false, true);
  plan.query_plan = true;  // reads no document
  CHECK(CheckResourceGrant(scope, plan, kInScope).ok());
}

TEST_CASE("a document permission allows that document by id and its container's metadata", "[security]") {
  PermissionScope scope = ContainerScope(false);
  scope.child_type = "docs";
  scope.child_id = "a";
  CHECK(CheckResourceGrant(scope, Access(AccessTarget::kDocument, {"db", "c", "a"}, true), kInScope).ok());
  CHECK(CheckResourceGrant(scope, Access(AccessTarget::kDocument, {"db", "c", "b"}, false), kInScope).code() ==
        ErrorCode::kForbidden);
  CHECK(CheckResourceGrant(scope, Access(AccessTarget::kDocument, {"db", "c"}, false, true), kInScope).code() ==
        ErrorCode::kForbidden);
  CHECK(CheckResourceGrant(scope, Access(AccessTarget::kContainer, {"db", "c"}, false), kInScope).ok());
  CHECK(CheckResourceGrant(scope, Access(AccessTarget::kContainer, {"db", "c"}, true), kInScope).code() ==
        ErrorCode::kForbidden);
}

TEST_CASE("Entra ID roles: management is refused with 5300, a reader's writes with 5301", "[security]") {
  auto reader = DataPlaneRole::kReader;
  auto contributor = DataPlaneRole::kContributor;
  CHECK(CheckDataPlaneRole(reader, "p", Access(AccessTarget::kDocument, {"db", "c"}, false, true)).ok());
  CHECK(CheckDataPlaneRole(contributor, "p", Access(AccessTarget::kDocument, {"db", "c"}, true, true)).ok());
  auto denied = CheckDataPlaneRole(reader, "p", Access(AccessTarget::kDocument, {"db", "c"}, true, true));
  CHECK(denied.code() == ErrorCode::kRbacPermissionMissing);
  CHECK(denied.message().find("principal [p]") != std::string::npos);
  CHECK(CheckDataPlaneRole(contributor, "p", Access(AccessTarget::kContainer, {"db"}, true, true)).code() ==
        ErrorCode::kAadOperationNotAllowed);
  CHECK(CheckDataPlaneRole(contributor, "p", Access(AccessTarget::kUser, {"db"}, false, true)).code() ==
        ErrorCode::kAadOperationNotAllowed);
  CHECK(CheckDataPlaneRole(reader, "p", Access(AccessTarget::kContainer, {"db", "c"}, false)).ok());
}

TEST_CASE("resource tokens open only with the secret that signed them, unaltered", "[security]") {
  ResourceTokenSigner signer("secret one");
  std::string token = signer.Issue({12, 5, 1800000000});
  const std::string prefix = "type=resource&ver=1.0&sig=";
  REQUIRE(token.rfind(prefix, 0) == 0);
  std::string field = token.substr(prefix.size());
  auto claims = signer.Open(field);
  REQUIRE_OK(claims);
  CHECK(claims->permission_seq == 12);
  CHECK(claims->user_seq == 5);
  CHECK(claims->expires_at == 1800000000);
  CHECK(ResourceTokenSigner("secret two").Open(field).status().code() == ErrorCode::kUnauthorized);
  std::string altered = field;
  altered[3] = altered[3] == 'A' ? 'B' : 'A';
  CHECK(signer.Open(altered).status().code() == ErrorCode::kUnauthorized);
  std::string long_claims(5000, 'x');
  long_claims += ";y;";
  for (const std::string& bad : std::vector<std::string>{"", ";", "abc", "abc;def;", long_claims}) {
    CHECK(signer.Open(bad).status().code() == ErrorCode::kUnauthorized);
  }
}

namespace {

std::string Base64Url(const std::string& text) {
  std::string encoded = cosmos::Base64Encode(std::vector<uint8_t>(text.begin(), text.end()));
  std::string url;
  for (char c : encoded) {
    if (c == '+') url += '-';
    else if (c == '/') url += '_';
    else if (c != '=') url += c;
  }
  return url;
}

std::string Jwt(const Json& claims, const std::string& signature) {
  return Base64Url(R"({"typ":"JWT","alg":"RS256"})") + "." + Base64Url(claims.dump()) + "." + Base64Url(signature);
}

AadTokenVerifier Verifier(AadMode mode) {
  return AadTokenVerifier(
      mode,
      [](std::string_view key) -> std::optional<DataPlaneRole> {
        if (key == "writable-key") return DataPlaneRole::kContributor;
        if (key == "read-only-key") return DataPlaneRole::kReader;
        return std::nullopt;
      },
      {"reader-principal"});
}

constexpr int64_t kClock = 1800000000;

}  // namespace

TEST_CASE("Entra ID tokens: emulator mode checks the key, any mode only the shape, off refuses all", "[security]") {
  Json claims = {{"oid", "someone"}, {"exp", kClock + 3600}, {"nbf", kClock - 10}};
  auto emulator = Verifier(AadMode::kEmulator);
  auto principal = emulator.Verify(Jwt(claims, "writable-key"), kClock);
  REQUIRE_OK(principal);
  CHECK(principal->object_id == "someone");
  CHECK(principal->role == DataPlaneRole::kContributor);
  CHECK(emulator.Verify(Jwt(claims, "read-only-key"), kClock)->role == DataPlaneRole::kReader);
  CHECK(emulator.Verify(Jwt(claims, "another key"), kClock).status().code() == ErrorCode::kUnauthorized);
  Json reader = claims;
  reader["oid"] = "reader-principal";
  CHECK(emulator.Verify(Jwt(reader, "writable-key"), kClock)->role == DataPlaneRole::kReader);

  CHECK(Verifier(AadMode::kAny).Verify(Jwt(claims, "anything at all"), kClock).ok());
  CHECK(Verifier(AadMode::kOff).Verify(Jwt(claims, "writable-key"), kClock).status().code() ==
        ErrorCode::kUnauthorized);
}

TEST_CASE("Entra ID tokens that are expired, early or malformed get 401", "[security]") {
  auto any = Verifier(AadMode::kAny);
  CHECK(any.Verify(Jwt({{"exp", kClock - 3600}}, "s"), kClock).status().code() == ErrorCode::kUnauthorized);
  CHECK(any.Verify(Jwt({{"exp", kClock + 3600}, {"nbf", kClock + 3600}}, "s"), kClock).status().code() ==
        ErrorCode::kUnauthorized);
  std::string good = Jwt({{"exp", kClock + 60}}, "s");
  for (std::string bad : {std::string(), std::string("a.b"), std::string("a.b.c.d"), std::string("!!.??.s"),
                          Base64Url("[1]") + "." + Base64Url("{}") + ".s", Jwt({{"no_exp", 1}}, "s"),
                          Base64Url("{}") + "." + Base64Url(R"({"exp":1})") + ".s", good + "x.y",
                          std::string(20000, 'a') + good}) {
    INFO(bad.substr(0, 80));
    CHECK(any.Verify(bad, kClock).status().code() == ErrorCode::kUnauthorized);
  }
}

TEST_CASE("users and permissions through the handler: CRUD, tokens, scope and revocation", "[security]") {
  Emulator emulator;
  emulator.CreateContainer();
  REQUIRE(emulator.Call("POST", "/dbs/db/colls", R"({"id":"other","partitionKey":{"paths":["/pk"]}})").status == 201);
  REQUIRE(emulator.CreateItem(R"({"id":"a","pk":"p"})", R"(["p"])").status == 201);

  auto user = emulator.Call("POST", "/dbs/db/users", R"({"id":"alice"})");
  REQUIRE(user.status == 201);
  CHECK(Json::parse(user.body)["_permissions"] == "permissions/");
  CHECK(emulator.Call("POST", "/dbs/db/users", R"({"id":"alice"})").status == 409);
  CHECK(emulator.Call("GET", "/dbs/db/users/bob").status == 404);
  CHECK(emulator.Call("POST", "/dbs/nodb/users", R"({"id":"x"})").status == 404);

  auto created = emulator.Call("POST", "/dbs/db/users/alice/permissions",
                               R"({"id":"read-c","permissionMode":"Read","resource":"dbs/db/colls/c"})");
  REQUIRE(created.status == 201);
  std::string token = Json::parse(created.body)["_token"].get<std::string>();
  CHECK(emulator.Call("POST", "/dbs/db/users/alice/permissions",
                      R"({"id":"again","permissionMode":"All","resource":"/dbs/db/colls/c/"})")
            .status == 409);  // one permission per resource and user
  CHECK(emulator.Call("POST", "/dbs/db/users/alice/permissions",
                      R"({"id":"bad","permissionMode":"Write","resource":"dbs/db/colls/c"})")
            .status == 400);
  CHECK(emulator.Call("POST", "/dbs/db/users/alice/permissions",
                      R"({"id":"bad","permissionMode":"All","resource":"dbs/db/colls/nothing"})")
            .status == 400);
  CHECK(emulator.Call("GET", "/dbs/db/users/alice/permissions/read-c", "",
                      {{"x-ms-documentdb-expiry-seconds", "5"}})
            .status == 400);

  // A request that presents the token instead of a master signature.
  auto with_token = [&](const std::string& method, const std::string& path, const std::string& body,
                        std::vector<std::pair<std::string, std::string>> headers = {}) {
    headers.emplace_back("x-ms-documentdb-partitionkey", R"(["p"])");
    auto request = emulator.Signed(method, path, body, headers);
    request.headers.Set("authorization", cosmos::PercentEncode(token));
    return emulator.handler().Handle(request);
  };
  CHECK(with_token("GET", "/dbs/db/colls/c/docs/a", "").status == 200);
  CHECK(with_token("GET", "/", "").status == 200);
  CHECK(with_token("GET", "/dbs/db/colls/other/docs/a", "").status == 403);
  CHECK(with_token("GET", "/dbs", "").status == 403);
  CHECK(with_token("GET", "/dbs/db/users", "").status == 403);
  auto write = emulator.handler().PrepareWrite([&] {
    auto request = emulator.Signed("DELETE", "/dbs/db/colls/c/docs/a", "", {{"x-ms-documentdb-partitionkey", R"(["p"])"}});
    request.headers.Set("authorization", cosmos::PercentEncode(token));
    return request;
  }());
  CHECK(emulator.handler().HandleWrites({&write}).front().status == 403);  // Read permission

  std::string tampered = token;
  tampered[tampered.find("sig=") + 5] ^= 1;
  std::swap(token, tampered);
  CHECK(with_token("GET", "/dbs/db/colls/c/docs/a", "").status == 401);
  std::swap(token, tampered);

  REQUIRE(emulator.Call("DELETE", "/dbs/db/users/alice").status == 204);
  auto revoked = with_token("GET", "/dbs/db/colls/c/docs/a", "");
  CHECK(revoked.status == 401);
  CHECK(emulator.Call("GET", "/dbs/db/users/alice/permissions/read-c").status == 404);
}

TEST_CASE("malformed authorization headers of every kind get 401, never 500", "[security]") {
  Emulator emulator({}, [](cosmos::server::HandlerOptions& options) { options.aad_mode = AadMode::kAny; });
  emulator.CreateContainer();
  std::vector<std::string> headers = {
      "",
      "type%3Dmaster%26ver%3D1.0",
      "type%3Dfoo%26ver%3D1.0%26sig%3Dabc",
      "type%3Dmaster%26ver%3D2.0%26sig%3Dabc",
      "type%3Dmaster%26ver%3D1.0%26sig%3D%25%25%25notbase64",
      "type%zz",
      "type%3Dresource%26ver%3D1.0%26sig%3Dgarbage",
      "type%3Dresource%26ver%3D1.0%26sig%3D%3B%3B",
      "type%3Daad%26ver%3D1.0%26sig%3Dnot-a-jwt",
      "type%3Daad%26ver%3D1.0%26sig%3Da.b.c",
      "type=master&ver=1.0&sig=" + std::string(30000, 'A'),
      "type=resource&ver=1.0&sig=" + std::string(30000, ';'),
      "type=aad&ver=1.0&sig=" + std::string(30000, '.'),
      "sig=a&sig=b&type=master",
      "&&&",
      "====",
  };
  for (const std::string& header : headers) {
    INFO(header.substr(0, 60));
    auto request = emulator.Signed("GET", "/dbs/db/colls/c", "");
    request.headers.Set("authorization", header);
    auto response = emulator.handler().Handle(request);
    CHECK(response.status == 401);
    Json body = Json::parse(response.body);
    CHECK(body.contains("code"));
    CHECK(body.contains("message"));
  }
}
