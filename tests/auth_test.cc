#include "server/auth.h"

#include "server/headers.h"
#include "tests/test_support.h"

using cosmos::ErrorCode;
using cosmos::server::FormatHttpDate;
using cosmos::server::HttpRequest;
using cosmos::server::KeyFingerprint;
using cosmos::server::MasterKeyAuth;
using cosmos::server::ParseHttpDate;

namespace {

constexpr char kEmulatorKey[] =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

std::string UrlEncode(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') {
      out += c;
    } else {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
      out += escaped;
    }
  }
  return out;
}

HttpRequest SignedRequest(const MasterKeyAuth& auth, const std::string& verb, const std::string& type,
                          const std::string& link, const std::string& date) {
  HttpRequest request;
  request.method = verb;
  request.headers.Set("x-ms-date", date);
  std::string sig = auth.Sign(MasterKeyAuth::StringToSign(verb, type, link, date, ""));
  request.headers.Set("authorization", UrlEncode("type=master&ver=1.0&sig=" + sig));
  return request;
}

}  // namespace

TEST_CASE("string-to-sign follows the REST reference", "[auth]") {
  // The payload a real 401 quotes for GET /dbs.
  CHECK(MasterKeyAuth::StringToSign("GET", "dbs", "", "Fri, 20 Jan 2017 03:43:55 GMT", "") ==
        "get\ndbs\n\nfri, 20 jan 2017 03:43:55 gmt\n\n");
  // The link keeps its case; verb, type and date are lowercased.
  CHECK(MasterKeyAuth::StringToSign("POST", "docs", "dbs/MyDb/colls/MyColl", "Wed, 02 Dec 2026 11:00:00 GMT", "") ==
        "post\ndocs\ndbs/MyDb/colls/MyColl\nwed, 02 dec 2026 11:00:00 gmt\n\n");
}

TEST_CASE("signatures match HMAC-SHA256 computed independently", "[auth]") {
  auto auth = MasterKeyAuth::Create(kEmulatorKey);
  REQUIRE_OK(auth);
  // Expected values computed with Python's hmac module over the same strings.
  CHECK(auth->Sign("get\ndbs\n\nfri, 20 jan 2017 03:43:55 gmt\n\n") ==
        "dfK6mECDzXw24rVxZC7LMrMjTHKQEseo95Xet1CGtJI=");
  CHECK(auth->Sign("post\ndocs\ndbs/MyDb/colls/MyColl\nwed, 02 dec 2026 11:00:00 gmt\n\n") ==
        "H1BOCb9a6HW8yB6IguwPQTVhgpCI1PYPLJqvJ2WoPAY=");
}

TEST_CASE("HTTP dates parse and format as RFC 1123", "[auth]") {
  auto parsed = ParseHttpDate("Fri, 20 Jan 2017 03:43:55 GMT");
  REQUIRE(parsed);
  CHECK(*parsed == 1484883835);
  CHECK(FormatHttpDate(1484883835) == "Fri, 20 Jan 2017 03:43:55 GMT");
  CHECK_FALSE(ParseHttpDate("2017-01-20T03:43:55Z"));
  CHECK_FALSE(ParseHttpDate("Fri, 20 Foo 2017 03:43:55 GMT"));
}

TEST_CASE("verification accepts good signatures and explains bad ones", "[auth]") {
  auto auth = MasterKeyAuth::Create(kEmulatorKey);
  REQUIRE_OK(auth);
  const int64_t now = 1796209200;  // Wed, 02 Dec 2026 11:00:00 GMT
  const std::string date = FormatHttpDate(now);

  SECTION("a correct signature passes, encoded or not") {
    HttpRequest request = SignedRequest(*auth, "POST", "docs", "dbs/MyDb/colls/MyColl", date);
    REQUIRE_OK(auth->Verify(request, "docs", "dbs/MyDb/colls/MyColl", now));
    std::string sig = auth->Sign(MasterKeyAuth::StringToSign("POST", "docs", "dbs/MyDb/colls/MyColl", date, ""));
    request.headers.Set("authorization", "type=master&ver=1.0&sig=" + sig);
    REQUIRE_OK(auth->Verify(request, "docs", "dbs/MyDb/colls/MyColl", now));
  }
  SECTION("the Date header is used when x-ms-date is absent") {
    HttpRequest request;
    request.method = "GET";
    request.headers.Set("date", date);
    std::string sig = auth->Sign(MasterKeyAuth::StringToSign("GET", "dbs", "", "", date));
    request.headers.Set("authorization", UrlEncode("type=master&ver=1.0&sig=" + sig));
    REQUIRE_OK(auth->Verify(request, "dbs", "", now));
  }
  SECTION("a wrong signature is 401 quoting the server's string-to-sign") {
    HttpRequest request = SignedRequest(*auth, "GET", "dbs", "dbs/other", date);
    cosmos::Status status = auth->Verify(request, "dbs", "dbs/MyDb", now);
    CHECK(status.code() == ErrorCode::kUnauthorized);
    CHECK_THAT(status.message(), Catch::Contains("Server used the following payload to sign: "
                                                 "'get\\ndbs\\ndbs/MyDb\\nwed, 02 dec 2026 11:00:00 gmt\\n\\n'"));
  }
  SECTION("a missing or malformed header is 401") {
    HttpRequest request;
    request.method = "GET";
    request.headers.Set("x-ms-date", date);
    CHECK(auth->Verify(request, "dbs", "", now).code() == ErrorCode::kUnauthorized);
    request.headers.Set("authorization", "garbage");
    CHECK(auth->Verify(request, "dbs", "", now).code() == ErrorCode::kUnauthorized);
    request.headers.Set("authorization", "type=resource&ver=1.0&sig=abc");
    CHECK(auth->Verify(request, "dbs", "", now).code() == ErrorCode::kUnauthorized);
  }
  SECTION("a missing date is 401") {
    HttpRequest request = SignedRequest(*auth, "GET", "dbs", "", date);
    request.headers.Set("x-ms-date", "");
    CHECK(auth->Verify(request, "dbs", "", now).code() == ErrorCode::kUnauthorized);
  }
  SECTION("a date more than 15 minutes off is 403, within is fine") {
    for (int64_t offset : {-16 * 60, 16 * 60}) {
      HttpRequest request = SignedRequest(*auth, "GET", "dbs", "", FormatHttpDate(now + offset));
      CHECK(auth->Verify(request, "dbs", "", now).code() == ErrorCode::kForbidden);
    }
    for (int64_t offset : {-14 * 60, 14 * 60}) {
      HttpRequest request = SignedRequest(*auth, "GET", "dbs", "", FormatHttpDate(now + offset));
      REQUIRE_OK(auth->Verify(request, "dbs", "", now));
    }
  }
}

TEST_CASE("an account key must be base64", "[auth]") {
  CHECK_FALSE(MasterKeyAuth::Create("not base64!").ok());
}

TEST_CASE("logs name a key by a fingerprint that does not reveal it", "[auth]") {
  std::string key = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
  std::string fingerprint = KeyFingerprint(key);
  CHECK(fingerprint.rfind("sha256:", 0) == 0);
  CHECK(fingerprint.size() == 7 + 12);
  CHECK(fingerprint.find(key.substr(0, 6)) == std::string::npos);
  CHECK(KeyFingerprint(key) == fingerprint);
  CHECK(KeyFingerprint(key + "x") != fingerprint);
}
