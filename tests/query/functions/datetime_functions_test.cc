// Date and time functions, pinned to the examples of the Microsoft documentation (each table
// row marked "doc" reproduces a documented call and its documented output).
#include <chrono>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "query/functions/registry.h"

using cosmos::Json;
using namespace cosmos::query;

namespace {

// The instant the AGO and NOW examples assume: 2024-10-14T14:20:30.6668888Z.
std::chrono::system_clock::time_point DocumentedNow() {
  using namespace std::chrono;
  auto since_midnight = hours(14) + minutes(20) + seconds(30) + nanoseconds(666'888'800);
  return time_point_cast<system_clock::duration>(sys_days(year(2024) / October / 14) + since_midnight);
}

// Calls `name` with the elements of the JSON array `args_json` as arguments; the result is
// rendered as compact JSON, or "undefined".
std::string Call(const std::string& name, const std::string& args_json, FunctionContext& ctx) {
  const FunctionDef* def = FunctionRegistry::Instance().Find(name);
  REQUIRE(def != nullptr);
  std::vector<Value> args;
  for (const Json& arg : Json::parse(args_json)) args.push_back(Value::FromJson(arg));
  return def->scalar(args, ctx).ToString();
}

std::string Call(const std::string& name, const std::string& args_json) {
  FunctionContext ctx;
  ctx.query_start = DocumentedNow();
  return Call(name, args_json, ctx);
}

struct Case {
  const char* function;
  const char* args;      // JSON array of arguments
  const char* expected;  // compact JSON of the result, or "undefined"
};

void CheckAll(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    INFO(c.function << c.args);
    CHECK(Call(c.function, c.args) == c.expected);
  }
}

}  // namespace

TEST_CASE("Date and time functions are registered with their documented arity", "[query][datetime]") {
  struct Arity {
    const char* name;
    int min_args, max_args;
  };
  std::vector<Arity> arities = {
      {"GetCurrentDateTime", 0, 0}, {"GetCurrentDateTimeStatic", 0, 0}, {"GetCurrentTicks", 0, 0},
      {"GetCurrentTicksStatic", 0, 0}, {"GetCurrentTimestamp", 0, 0}, {"GetCurrentTimestampStatic", 0, 0},
      {"Now", 0, 2}, {"Ago", 2, 2}, {"DateTimeAdd", 3, 3}, {"DateTimeBin", 2, 4}, {"DateTimeDiff", 3, 3},
      {"DateTimeFormat", 2, 2}, {"DateTimeFromParts", 3, 7}, {"DateTimePart", 2, 2},
      {"DateTimeToTicks", 1, 1}, {"DateTimeToTimestamp", 1, 1}, {"TicksToDateTime", 1, 1},
      {"TimestampToDateTime", 1, 1}, {"Day", 1, 1}, {"Month", 1, 1}, {"Year", 1, 1}};
  for (const Arity& a : arities) {
    INFO(a.name);
    const FunctionDef* def = FunctionRegistry::Instance().Find(a.name);
    REQUIRE(def != nullptr);
    CHECK(def->name == a.name);
    CHECK(def->min_args == a.min_args);
    CHECK(def->max_args == a.max_args);
    CHECK(def->scalar != nullptr);
  }
  CHECK(FunctionRegistry::Instance().Find("DATETIMEADD") != nullptr);  // case-insensitive
}

TEST_CASE("DateTimeAdd", "[query][datetime]") {
  const char* base = "\"2020-07-03T00:00:00.0000000\"";
  auto add = [&](const std::string& part, const std::string& n) { return "[\"" + part + "\"," + n + "," + base + "]"; };
  // doc
  CHECK(Call("DateTimeAdd", add("yyyy", "1")) == R"("2021-07-03T00:00:00.0000000Z")");
  CHECK(Call("DateTimeAdd", add("mm", "1")) == R"("2020-08-03T00:00:00.0000000Z")");
  CHECK(Call("DateTimeAdd", add("dd", "1")) == R"("2020-07-04T00:00:00.0000000Z")");
  CHECK(Call("DateTimeAdd", add("hh", "1")) == R"("2020-07-03T01:00:00.0000000Z")");
  CHECK(Call("DateTimeAdd", add("yyyy", "-1")) == R"("2019-07-03T00:00:00.0000000Z")");
  CHECK(Call("DateTimeAdd", add("mm", "-1")) == R"("2020-06-03T00:00:00.0000000Z")");
  CHECK(Call("DateTimeAdd", add("dd", "-1")) == R"("2020-07-02T00:00:00.0000000Z")");
  CHECK(Call("DateTimeAdd", add("hh", "-1")) == R"("2020-07-02T23:00:00.0000000Z")");
  CHECK(Call("DateTimeAdd", add("ss", "-25")) == R"("2020-07-02T23:59:35.0000000Z")");  // 5 * -5

  CheckAll({
      {"DateTimeAdd", R"(["month", 1, "2020-01-31T10:00:00Z"])", R"("2020-02-29T10:00:00.0000000Z")"},
      {"DateTimeAdd", R"(["year", 1, "2020-02-29"])", R"("2021-02-28T00:00:00.0000000Z")"},
      {"DateTimeAdd", R"(["mi", 90, "2020-07-03T00:00:00"])", R"("2020-07-03T01:30:00.0000000Z")"},
      {"DateTimeAdd", R"(["n", 1, "2020-07-03T00:00:00"])", R"("2020-07-03T00:01:00.0000000Z")"},
      {"DateTimeAdd", R"(["ms", 1, "2020-07-03T00:00:00"])", R"("2020-07-03T00:00:00.0010000Z")"},
      {"DateTimeAdd", R"(["mcs", 1, "2020-07-03T00:00:00"])", R"("2020-07-03T00:00:00.0000010Z")"},
      {"DateTimeAdd", R"(["ns", 300, "2020-07-03T00:00:00"])", R"("2020-07-03T00:00:00.0000003Z")"},
      {"DateTimeAdd", R"(["Hour", 1, "2020-07-03T00:00:00"])", R"("2020-07-03T01:00:00.0000000Z")"},
      // Invalid part, non-integer amount, invalid date, out-of-range result.
      {"DateTimeAdd", R"(["week", 1, "2020-07-03T00:00:00"])", "undefined"},
      {"DateTimeAdd", R"(["dd", 1.5, "2020-07-03T00:00:00"])", "undefined"},
      {"DateTimeAdd", R"(["dd", "1", "2020-07-03T00:00:00"])", "undefined"},
      {"DateTimeAdd", R"(["dd", 1, "2020-02-30T00:00:00"])", "undefined"},
      {"DateTimeAdd", R"(["dd", 1, 20200703])", "undefined"},
      {"DateTimeAdd", R"(["yyyy", 1, "9999-06-01T00:00:00"])", "undefined"},
      {"DateTimeAdd", R"(["dd", -1, "0001-01-01T00:00:00"])", "undefined"},
  });
}

TEST_CASE("Date and time strings: accepted and refused forms", "[query][datetime]") {
  CheckAll({
      {"DateTimeToTicks", R"(["1970-01-01"])", "0"},
      {"DateTimeToTicks", R"(["1970-01-01Z"])", "0"},
      {"DateTimeToTicks", R"(["1970-01-01T00:00:01"])", "10000000"},
      {"DateTimeToTicks", R"(["1970-01-01 00:00:01Z"])", "10000000"},
      {"DateTimeToTicks", R"(["1970-01-01T00:00:00.5"])", "5000000"},
      {"DateTimeToTicks", R"(["1970-01-01T00:00:00.1234567Z"])", "1234567"},
      {"DateTimeToTicks", R"(["1970-01-01T00:00:00.12345678Z"])", "undefined"},  // 8 digits
      {"DateTimeToTicks", R"(["1970-01-01T00:00:00."])", "undefined"},
      {"DateTimeToTicks", R"(["1970-01-01T00:00"])", "undefined"},
      {"DateTimeToTicks", R"(["1970-01-01T"])", "undefined"},
      {"DateTimeToTicks", R"(["1970-01-01X00:00:00"])", "undefined"},
      {"DateTimeToTicks", R"(["1970-01-01T00:00:00+01:00"])", "undefined"},
      {"DateTimeToTicks", R"(["1970-1-01"])", "undefined"},
      {"DateTimeToTicks", R"(["1970-13-01"])", "undefined"},
      {"DateTimeToTicks", R"(["1970-01-01T24:00:00"])", "undefined"},
      {"DateTimeToTicks", R"(["0000-01-01"])", "undefined"},
      {"DateTimeToTicks", R"([""])", "undefined"},
      {"DateTimeToTicks", R"([null])", "undefined"},
  });
}

TEST_CASE("DateTimeBin", "[query][datetime]") {
  CheckAll({
      // doc
      {"DateTimeBin", R"(["2021-01-08T18:35:00.0000000", "dd"])", R"("2021-01-08T00:00:00.0000000Z")"},
      {"DateTimeBin", R"(["2021-01-08T18:35:00.0000000", "hh"])", R"("2021-01-08T18:00:00.0000000Z")"},
      {"DateTimeBin", R"(["2021-01-08T18:35:00.0000000", "ss"])", R"("2021-01-08T18:35:00.0000000Z")"},
      {"DateTimeBin", R"(["2021-01-08T18:35:00.0000000", "hh", 5])", R"("2021-01-08T15:00:00.0000000Z")"},
      {"DateTimeBin", R"(["2021-01-08T18:35:00.0000000", "dd", 7])", R"("2021-01-07T00:00:00.0000000Z")"},
      {"DateTimeBin", R"(["2021-01-08T18:35:00.0000000", "dd", 7, "1601-01-01T00:00:00.0000000"])",
       R"("2021-01-04T00:00:00.0000000Z")"},
      // Before the origin, bins still start on a multiple of the size from it.
      {"DateTimeBin", R"(["1969-12-31T23:59:59", "hh", 2])", R"("1969-12-31T22:00:00.0000000Z")"},
      {"DateTimeBin", R"(["2021-01-08T18:35:00.1234567", "ms"])", R"("2021-01-08T18:35:00.1230000Z")"},
      {"DateTimeBin", R"(["2021-01-08T18:35:00.1234567", "ns", 200])", R"("2021-01-08T18:35:00.1234566Z")"},
      // Invalid part (years and months are not binnable), size and origin.
      {"DateTimeBin", R"(["2021-01-08T18:35:00", "yyyy"])", "undefined"},
      {"DateTimeBin", R"(["2021-01-08T18:35:00", "mm"])", "undefined"},
      {"DateTimeBin", R"(["2021-01-08T18:35:00", "dd", 0])", "undefined"},
      {"DateTimeBin", R"(["2021-01-08T18:35:00", "dd", -1])", "undefined"},
      {"DateTimeBin", R"(["2021-01-08T18:35:00", "dd", 1.5])", "undefined"},
      {"DateTimeBin", R"(["2021-01-08T18:35:00", "dd", 1, "1600-12-31T00:00:00"])", "undefined"},
      {"DateTimeBin", R"(["2021-01-08T18:35:00", "dd", 1, "x"])", "undefined"},
      {"DateTimeBin", R"(["2021-01-08", "bogus"])", "undefined"},
  });
}

TEST_CASE("DateTimeDiff counts boundaries crossed", "[query][datetime]") {
  const char* past = R"("2019-02-04T16:00:00.0000000", "2018-03-05T05:00:00.0000000")";
  const char* future = R"("2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")";
  auto diff = [](const char* part, const char* dates) {
    return Call("DateTimeDiff", std::string("[\"") + part + "\"," + dates + "]");
  };
  // doc
  CHECK(diff("yyyy", past) == "-1");
  CHECK(diff("mm", past) == "-11");
  CHECK(diff("diffDays", past) == "undefined");
  CHECK(diff("hh", past) == "-8075");
  CHECK(diff("ss", past) == "-29070000");
  CHECK(diff("yyyy", future) == "1");
  CHECK(diff("mm", future) == "11");
  CHECK(diff("diffDays", future) == "undefined");
  CHECK(diff("hh", future) == "8075");
  CHECK(diff("ss", future) == "29070000");

  CheckAll({
      {"DateTimeDiff", R"(["dd", "2020-01-01T23:59:59", "2020-01-02T00:00:00"])", "1"},
      {"DateTimeDiff", R"(["yyyy", "2020-12-31T23:59:59", "2021-01-01T00:00:00"])", "1"},
      {"DateTimeDiff", R"(["ms", "2020-01-01T00:00:00.0009999", "2020-01-01T00:00:00.0010000"])", "1"},
      {"DateTimeDiff", R"(["mcs", "2020-01-01T00:00:00", "2020-01-01T00:00:00.0000010"])", "1"},
      {"DateTimeDiff", R"(["ns", "2020-01-01T00:00:00", "2020-01-01T00:00:00.0000001"])", "100"},
      {"DateTimeDiff", R"(["mi", "2020-01-01T00:00:59", "2020-01-01T00:01:00"])", "1"},
      {"DateTimeDiff", R"(["dd", "2020-01-01", 5])", "undefined"},
  });
}

TEST_CASE("DateTimeFromParts", "[query][datetime]") {
  CheckAll({
      // doc
      {"DateTimeFromParts", "[2017, 4, 20]", R"("2017-04-20T00:00:00.0000000Z")"},
      {"DateTimeFromParts", "[2017, 4, 20, 0, 0, 0, 0]", R"("2017-04-20T00:00:00.0000000Z")"},
      {"DateTimeFromParts", "[2017, 4, 20, 13, 15, 20, 3456789]", R"("2017-04-20T13:15:20.3456789Z")"},
      {"DateTimeFromParts", "[2017, 4, 20, 13, 15]", R"("2017-04-20T13:15:00.0000000Z")"},
      {"DateTimeFromParts", "[-2000, -1, -1]", "undefined"},
      // Out-of-range or non-integer parts.
      {"DateTimeFromParts", "[2017, 2, 29]", "undefined"},
      {"DateTimeFromParts", "[2017, 4, 20, 24]", "undefined"},
      {"DateTimeFromParts", "[2017, 4, 20, 0, 60]", "undefined"},
      {"DateTimeFromParts", "[2017, 4, 20, 0, 0, 0, 10000000]", "undefined"},
      {"DateTimeFromParts", "[2017.5, 4, 20]", "undefined"},
      {"DateTimeFromParts", R"(["2017", 4, 20])", "undefined"},
  });
}

TEST_CASE("DateTimePart and Day, Month, Year", "[query][datetime]") {
  const char* date = "\"2016-05-29T08:30:00.1301617\"";
  auto part = [&](const char* name) { return Call("DateTimePart", std::string("[\"") + name + "\"," + date + "]"); };
  // doc
  CHECK(part("yyyy") == "2016");
  CHECK(part("mm") == "5");
  CHECK(part("dd") == "29");
  CHECK(part("hh") == "8");
  CHECK(part("mi") == "30");
  CHECK(part("ss") == "0");
  CHECK(part("ms") == "130");
  CHECK(part("mcs") == "130161");
  CHECK(part("ns") == "130161700");
  CHECK(part("week") == "undefined");

  CheckAll({
      // doc
      {"Day", R"(["2024-01-10"])", "10"},
      {"Day", R"(["2000-12-12T10:00:00"])", "12"},
      {"Day", R"(["1989-03-03T12:12:12.1234567Z"])", "3"},
      {"Month", R"(["2024-01-10"])", "1"},
      {"Month", R"(["2000-12-12T10:00:00"])", "12"},
      {"Month", R"(["1989-03-03T12:12:12.1234567Z"])", "3"},
      {"Year", R"(["2000-10-10"])", "2000"},
      {"Year", R"(["2024-01-10T14:15:20"])", "2024"},
      {"Year", R"(["1989-03-03T12:12:12.1234567Z"])", "1989"},
      {"Year", R"(["not a date"])", "undefined"},
      {"Day", "[17]", "undefined"},
  });
}

TEST_CASE("Ticks and timestamps count from the Unix epoch", "[query][datetime]") {
  CheckAll({
      // doc
      {"DateTimeToTicks", R"(["2015-05-19T12:00:00.0000000"])", "14320368000000000"},
      {"DateTimeToTimestamp", R"(["2015-05-19T12:00:00.0000000"])", "1432036800000"},
      {"TicksToDateTime", "[15973607943002652]", R"("2020-08-13T23:19:54.3002652Z")"},
      {"TicksToDateTime", "[0]", R"("1970-01-01T00:00:00.0000000Z")"},
      {"TicksToDateTime", "[-116444736000000000]", R"("1601-01-01T00:00:00.0000000Z")"},
      {"TimestampToDateTime", "[1597360794300]", R"("2020-08-13T23:19:54.3000000Z")"},
      {"TimestampToDateTime", "[0]", R"("1970-01-01T00:00:00.0000000Z")"},
      {"TimestampToDateTime", "[-11644473600000]", R"("1601-01-01T00:00:00.0000000Z")"},

      {"DateTimeToTimestamp", R"(["1969-12-31T23:59:59.9999999"])", "-1"},  // rounds down
      {"DateTimeToTicks", R"(["0001-01-01"])", "-621355968000000000"},
      {"TimestampToDateTime", "[1.9]", R"("1970-01-01T00:00:00.0010000Z")"},
      {"TicksToDateTime", "[1e30]", "undefined"},
      {"TicksToDateTime", "[-621355968000010000]", "undefined"},
      {"TicksToDateTime", R"(["0"])", "undefined"},
      {"TimestampToDateTime", "[253402300800000]", "undefined"},  // 10000-01-01
  });
}

TEST_CASE("Current-time functions see the query's one instant", "[query][datetime]") {
  FunctionContext ctx;
  ctx.query_start = DocumentedNow();
  CHECK(Call("GetCurrentDateTime", "[]", ctx) == R"("2024-10-14T14:20:30.6668888Z")");
  CHECK(Call("GetCurrentDateTimeStatic", "[]", ctx) == R"("2024-10-14T14:20:30.6668888Z")");
  CHECK(Call("GetCurrentTicks", "[]", ctx) == "17289156306668888");
  CHECK(Call("GetCurrentTicksStatic", "[]", ctx) == "17289156306668888");
  CHECK(Call("GetCurrentTimestamp", "[]", ctx) == "1728915630666");
  CHECK(Call("GetCurrentTimestampStatic", "[]", ctx) == "1728915630666");
  // Evaluating again for another row gives the same instant.
  CHECK(Call("GetCurrentDateTime", "[]", ctx) == R"("2024-10-14T14:20:30.6668888Z")");
  CHECK(ctx.work >= 7);

  CheckAll({
      // doc (current instant 2024-10-14T14:20:30.6668888Z)
      {"Now", "[]", R"("2024-10-14T14:20:30.6668888Z")"},
      {"Now", R"(["yyyy", 1])", R"("2025-10-14T14:20:30.6668888Z")"},
      {"Now", R"(["yyyy", -1])", R"("2023-10-14T14:20:30.6668888Z")"},
      {"Now", R"(["ss", 30])", R"("2024-10-14T14:21:00.6668888Z")"},
      {"Now", R"(["ms", 4])", R"("2024-10-14T14:20:30.6708888Z")"},
      {"Ago", R"(["yyyy", 1])", R"("2023-10-14T14:20:30.6668888Z")"},
      {"Ago", R"(["yyyy", -1])", R"("2025-10-14T14:20:30.6668888Z")"},
      {"Ago", R"(["ss", 30])", R"("2024-10-14T14:20:00.6668888Z")"},
      {"Ago", R"(["ms", 4])", R"("2024-10-14T14:20:30.6628888Z")"},

      {"Now", R"(["yyyy"])", "undefined"},
      {"Now", R"(["yyyy", 1.5])", "undefined"},
      {"Ago", R"(["fortnight", 1])", "undefined"},
      {"Ago", R"(["dd", "1"])", "undefined"},
  });
}

TEST_CASE("DateTimeFormat", "[query][datetime]") {
  CheckAll({
      // doc
      {"DateTimeFormat", R"(["2024-10-10 14:40:20", "yyyyMMdd"])", R"("20241010")"},
      {"DateTimeFormat", R"(["2024-10-10 14:40:20", "yyyy-MM-dd [HH:mm:ss]"])", R"("2024-10-10 [14:40:20]")"},
      {"DateTimeFormat", R"(["2024-10-10 14:40:20", "To\\da\\y i\\s: yyyy-MM-ddTHH:mm:ss.fff"])",
       R"("Today is: 2024-10-10T14:40:20.000")"},
      {"DateTimeFormat", R"(["2024-10-10 14:40:20", "To\\da\\y i\\s: yyyy-MM-ddTHH:mm:ss.FFF"])",
       R"("Today is: 2024-10-10T14:40:20.")"},

      {"DateTimeFormat", R"(["2024-03-05T07:08:09.1200000Z", "d/M/yy h:m:s tt"])", R"("5/3/24 7:8:9 AM")"},
      {"DateTimeFormat", R"(["2024-03-05T19:08:09.1200000Z", "ddd dddd MMM MMMM hh t"])",
       R"("Tue Tuesday Mar March 07 P")"},
      {"DateTimeFormat", R"(["2024-03-05T19:08:09.1200000Z", "ss.FFFFFFF 'yyyy' \"MM\" %d K zzz"])",
       R"("09.12 yyyy MM 5 Z +00:00")"},
      {"DateTimeFormat", R"(["2024-03-05T19:08:09Z", "hhh:mmm:sss HHH ttt"])", R"("07:08:09 19 PM")"},
      {"DateTimeFormat", R"(["2024-03-05T19:08:09.1200000Z", "o"])", R"("2024-03-05T19:08:09.1200000Z")"},
      {"DateTimeFormat", R"(["2024-03-05T19:08:09.1200000Z", "s"])", R"("2024-03-05T19:08:09")"},
      // Malformed patterns and arguments.
      {"DateTimeFormat", R"(["2024-03-05", "ffffffff"])", "undefined"},
      {"DateTimeFormat", R"(["2024-03-05", "'unterminated"])", "undefined"},
      {"DateTimeFormat", R"(["2024-03-05", "yyyy\\"])", "undefined"},
      {"DateTimeFormat", R"(["2024-03-05", "Q"])", "undefined"},
      {"DateTimeFormat", R"(["2024-03-05", 5])", "undefined"},
      {"DateTimeFormat", R"(["2024-3-05", "yyyy"])", "undefined"},
  });
}

TEST_CASE("Date and time functions return undefined for undefined arguments", "[query][datetime]") {
  FunctionContext ctx;
  std::vector<Value> args = {Value(), Value(), Value()};
  for (const char* name : {"DateTimeAdd", "DateTimeDiff", "DateTimeFromParts"}) {
    INFO(name);
    CHECK(FunctionRegistry::Instance().Find(name)->scalar(args, ctx).is_undefined());
  }
  std::vector<Value> one = {Value()};
  for (const char* name : {"DateTimeToTicks", "DateTimeToTimestamp", "TicksToDateTime", "TimestampToDateTime",
                           "Day", "Month", "Year"}) {
    INFO(name);
    CHECK(FunctionRegistry::Instance().Find(name)->scalar(one, ctx).is_undefined());
  }
}
