#include "common/encoding.h"

#include "tests/test_support.h"

using cosmos::Base64Decode;
using cosmos::Base64Encode;
using cosmos::HexDecode;
using cosmos::HexEncode;
using cosmos::PercentDecode;
using cosmos::PercentEncode;

TEST_CASE("base64 round-trips every length", "[encoding]") {
  std::vector<uint8_t> bytes;
  for (int length = 0; length < 20; ++length) {
    auto decoded = Base64Decode(Base64Encode(bytes));
    REQUIRE(decoded);
    CHECK(*decoded == bytes);
    bytes.push_back(static_cast<uint8_t>(length * 37 + 250));
  }
}

TEST_CASE("base64 matches RFC 4648 vectors and rejects malformed text", "[encoding]") {
  CHECK(Base64Encode({'f', 'o', 'o', 'b', 'a'}) == "Zm9vYmE=");
  CHECK(Base64Encode({'f', 'o', 'o', 'b'}) == "Zm9vYg==");
  CHECK_FALSE(Base64Decode("Zm9vYg="));   // length not a multiple of 4
  CHECK_FALSE(Base64Decode("Zm9v*g=="));  // bad character
  CHECK_FALSE(Base64Decode("Zm=vYg=="));  // padding in the middle
}

TEST_CASE("percent-decoding of path segments", "[encoding]") {
  CHECK(*PercentDecode("my%20db") == "my db");
  CHECK(*PercentDecode("a%2Fb%25") == "a/b%");
  CHECK(*PercentDecode("plus+stays") == "plus+stays");
  CHECK_FALSE(PercentDecode("bad%2"));
  CHECK_FALSE(PercentDecode("bad%zz"));
}

TEST_CASE("percent-encoding keeps the unreserved characters and round-trips", "[encoding]") {
  CHECK(PercentEncode("abc-_.~XYZ019") == "abc-_.~XYZ019");
  CHECK(PercentEncode("type=master&ver=1.0&sig=a+b/c=") == "type%3Dmaster%26ver%3D1.0%26sig%3Da%2Bb%2Fc%3D");
  CHECK(PercentEncode("one 1\ntwo") == "one%201%0Atwo");
  const std::string bytes("\x00\xff\xc3\xa9 ;", 6);
  CHECK(*PercentDecode(PercentEncode(bytes)) == bytes);
}

TEST_CASE("hex round-trips any bytes and refuses what is not hex", "[encoding]") {
  const std::string bytes("\x00\xff\x34\x61\x9e", 5);
  CHECK(HexEncode(bytes) == "00ff34619e");
  CHECK(*HexDecode("00ff34619e") == bytes);
  CHECK(*HexDecode("00FF34619E") == bytes);
  CHECK(*HexDecode("") == "");
  CHECK_FALSE(HexDecode("abc"));
  CHECK_FALSE(HexDecode("zz"));
}

TEST_CASE("name=value lists split at their separator; a value may hold '='", "[encoding]") {
  auto pairs = cosmos::SplitNameValues("type=master&ver=1.0&sig=ab==&flag", '&');
  REQUIRE(pairs.size() == 4);
  CHECK(pairs[0].name == "type");
  CHECK(pairs[0].value == "master");
  CHECK(pairs[2].value == "ab==");
  CHECK(pairs[3].name == "flag");
  CHECK_FALSE(pairs[3].has_value);
  CHECK(cosmos::SplitNameValues("", ',').empty());
  auto empty_value = cosmos::SplitNameValues("a=,b=2", ',');
  REQUIRE(empty_value.size() == 2);
  CHECK(empty_value[0].has_value);
  CHECK(empty_value[0].value.empty());
}
