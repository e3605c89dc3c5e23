// Date and time functions: GetCurrent*(Static), Now, Ago, DateTimeAdd/Bin/Diff/Format/
// FromParts/Part/ToTicks/ToTimestamp, TicksToDateTime, TimestampToDateTime, Day, Month, Year.
//
// Date and time values are ISO 8601 UTC strings. Accepted input forms (as IS_DATETIME documents):
// `YYYY-MM-DD`, optionally followed by `Z`, or by `T` or a space and `hh:mm:ss`, an optional
// fraction of 1 to 7 digits and an optional `Z`. Outputs always have the form
// `YYYY-MM-DDThh:mm:ss.fffffffZ`. Anything else, and any argument of the wrong kind, gives
// undefined. Years run from 0001 to 9999.
//
// Internally an instant is a count of 100 ns ticks since 0001-01-01T00:00:00 (never negative);
// the "ticks" and "timestamp" the functions expose count from the Unix epoch instead, as the
// documentation's examples show (DateTimeToTicks("2015-05-19T12:00:00") = 14320368000000000).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/encoding.h"
#include "query/functions/registry.h"

namespace cosmos::query {
namespace {

using Int128 = __int128;  // for nanosecond arithmetic over the whole 0001..9999 range

constexpr int64_t kTicksPerMicrosecond = 10;
constexpr int64_t kTicksPerMillisecond = 10'000;
constexpr int64_t kTicksPerSecond = 10'000'000;
constexpr int64_t kTicksPerMinute = 60 * kTicksPerSecond;
constexpr int64_t kTicksPerHour = 60 * kTicksPerMinute;
constexpr int64_t kTicksPerDay = 24 * kTicksPerHour;
// 1970-01-01 counted from 0001-01-01: 719162 days.
constexpr int64_t kUnixEpochTicks = 719'162 * kTicksPerDay;
// 9999-12-31T23:59:59.9999999, the last representable instant.
constexpr int64_t kMaxTicks = 3'652'059 * kTicksPerDay - 1;
// DateTimeBin refuses bin origins before the Windows epoch (1601-01-01).
constexpr int64_t kWindowsEpochTicks = 584'388 * kTicksPerDay;

constexpr std::chrono::sys_days kFirstDay = std::chrono::sys_days(
    std::chrono::year_month_day(std::chrono::year(1), std::chrono::January, std::chrono::day(1)));

bool InRange(int64_t ticks) { return ticks >= 0 && ticks <= kMaxTicks; }

// Broken-down form of an instant.
struct CivilTime {
  int year = 1, month = 1, day = 1;
  int hour = 0, minute = 0, second = 0;
  int64_t fraction = 0;  // ticks within the second, 0..9999999
};

std::optional<int64_t> ToTicks(const CivilTime& c) {
  if (c.year < 1 || c.year > 9999 || c.month < 1 || c.month > 12 || c.hour < 0 || c.hour > 23 ||
      c.minute < 0 || c.minute > 59 || c.second < 0 || c.second > 59 || c.fraction < 0 ||
      c.fraction >= kTicksPerSecond || c.day < 1)
    return std::nullopt;
  std::chrono::year_month_day ymd{std::chrono::year(c.year),
                                  std::chrono::month(static_cast<unsigned>(c.month)),
                                  std::chrono::day(static_cast<unsigned>(c.day))};
  if (!ymd.ok()) return std::nullopt;
  int64_t days = (std::chrono::sys_days(ymd) - kFirstDay).count();
  return days * kTicksPerDay + c.hour * kTicksPerHour + c.minute * kTicksPerMinute +
         c.second * kTicksPerSecond + c.fraction;
}

CivilTime ToCivil(int64_t ticks) {
  int64_t days = ticks / kTicksPerDay;
  int64_t rest = ticks % kTicksPerDay;
  std::chrono::year_month_day ymd{kFirstDay + std::chrono::days(days)};
  CivilTime c;
  c.year = static_cast<int>(ymd.year());
  c.month = static_cast<int>(static_cast<unsigned>(ymd.month()));
  c.day = static_cast<int>(static_cast<unsigned>(ymd.day()));
  c.hour = static_cast<int>(rest / kTicksPerHour);
  c.minute = static_cast<int>(rest % kTicksPerHour / kTicksPerMinute);
  c.second = static_cast<int>(rest % kTicksPerMinute / kTicksPerSecond);
  c.fraction = rest % kTicksPerSecond;
  return c;
}

int LastDayOfMonth(int year, int month) {
  std::chrono::year_month_day_last last{std::chrono::year(year) /
                                        std::chrono::month(static_cast<unsigned>(month)) /
                                        std::chrono::last};
  return static_cast<int>(static_cast<unsigned>(last.day()));
}

// Reads exactly `width` decimal digits at `pos`.
std::optional<int> ReadDigits(std::string_view s, size_t pos, size_t width) {
  if (pos + width > s.size()) return std::nullopt;
  int value = 0;
  for (size_t i = pos; i < pos + width; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    value = value * 10 + (s[i] - '0');
  }
  return value;
}

std::optional<int64_t> ParseDateTime(std::string_view s) {
  CivilTime c;
  auto year = ReadDigits(s, 0, 4), month = ReadDigits(s, 5, 2), day = ReadDigits(s, 8, 2);
  if (!year || !month || !day || s[4] != '-' || s[7] != '-') return std::nullopt;
  c.year = *year;
  c.month = *month;
  c.day = *day;
  size_t pos = 10;
  if (pos < s.size() && (s[pos] == 'T' || s[pos] == ' ')) {
    auto hour = ReadDigits(s, pos + 1, 2), minute = ReadDigits(s, pos + 4, 2),
         second = ReadDigits(s, pos + 7, 2);
    if (!hour || !minute || !second || s[pos + 3] != ':' || s[pos + 6] != ':') return std::nullopt;
    c.hour = *hour;
    c.minute = *minute;
    c.second = *second;
    pos += 9;
    if (pos < s.size() && s[pos] == '.') {
      ++pos;
      int64_t scale = kTicksPerSecond;
      size_t digits = 0;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
        if (++digits > 7) return std::nullopt;
        scale /= 10;
        c.fraction += (s[pos] - '0') * scale;
        ++pos;
      }
      if (digits == 0) return std::nullopt;
    }
  }
  if (pos < s.size() && s[pos] == 'Z') ++pos;
  if (pos != s.size()) return std::nullopt;
  return ToTicks(c);
}

std::optional<int64_t> DateTimeArg(const Value& v) {
  if (!v.is_string()) return std::nullopt;
  return ParseDateTime(v.string());
}

std::string TwoDigits(int v) { return {static_cast<char>('0' + v / 10), static_cast<char>('0' + v % 10)}; }

std::string PaddedNumber(int64_t v, size_t width) {
  std::string digits = std::to_string(v);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

std::string FormatDateTime(int64_t ticks) {
  CivilTime c = ToCivil(ticks);
  return PaddedNumber(c.year, 4) + '-' + TwoDigits(c.month) + '-' + TwoDigits(c.day) + 'T' +
         TwoDigits(c.hour) + ':' + TwoDigits(c.minute) + ':' + TwoDigits(c.second) + '.' +
         PaddedNumber(c.fraction, 7) + 'Z';
}

Value DateTimeValue(std::optional<int64_t> ticks) {
  if (!ticks || !InRange(*ticks)) return Value();
  return Value::String(FormatDateTime(*ticks));
}

// Ticks beyond ±2^53 (every current instant) would lose their integer form as a double.
Value IntegerValue(int64_t v) {
  constexpr int64_t kMaxExact = int64_t{1} << 53;
  if (v >= -kMaxExact && v <= kMaxExact) return Value::Number(static_cast<double>(v));
  return Value::FromJson(Json(v));
}

// A number with no fractional part that fits in 64 bits.
std::optional<int64_t> IntegerArg(const Value& v) {
  if (!v.is_number()) return std::nullopt;
  double d = v.number();
  if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) >= 9.2e18) return std::nullopt;
  return static_cast<int64_t>(d);
}

enum class DatePart { kYear, kMonth, kDay, kHour, kMinute, kSecond, kMillisecond, kMicrosecond, kNanosecond };

// The documented names and abbreviations; matched case-insensitively like function names.
std::optional<DatePart> ParseDatePart(const Value& v) {
  if (!v.is_string()) return std::nullopt;
  struct Name {
    std::string_view text;
    DatePart part;
  };
  static constexpr std::array<Name, 23> kNames = {{
      {"year", DatePart::kYear}, {"yyyy", DatePart::kYear}, {"yy", DatePart::kYear},
      {"month", DatePart::kMonth}, {"mm", DatePart::kMonth}, {"m", DatePart::kMonth},
      {"day", DatePart::kDay}, {"dd", DatePart::kDay}, {"d", DatePart::kDay},
      {"hour", DatePart::kHour}, {"hh", DatePart::kHour},
      {"minute", DatePart::kMinute}, {"mi", DatePart::kMinute}, {"n", DatePart::kMinute},
      {"second", DatePart::kSecond}, {"ss", DatePart::kSecond}, {"s", DatePart::kSecond},
      {"millisecond", DatePart::kMillisecond}, {"ms", DatePart::kMillisecond},
      {"microsecond", DatePart::kMicrosecond}, {"mcs", DatePart::kMicrosecond},
      {"nanosecond", DatePart::kNanosecond}, {"ns", DatePart::kNanosecond},
  }};
  const std::string& text = v.string();
  for (const Name& name : kNames)
    if (EqualsIgnoreCaseAscii(text, name.text)) return name.part;
  return std::nullopt;
}

// Length of one unit in nanoseconds, for the parts of fixed length (day and below).
int64_t NanosecondsPer(DatePart part) {
  switch (part) {
    case DatePart::kDay: return kTicksPerDay * 100;
    case DatePart::kHour: return kTicksPerHour * 100;
    case DatePart::kMinute: return kTicksPerMinute * 100;
    case DatePart::kSecond: return kTicksPerSecond * 100;
    case DatePart::kMillisecond: return 1'000'000;
    case DatePart::kMicrosecond: return 1'000;
    case DatePart::kNanosecond: return 1;
    default: return 0;  // years and months vary in length
  }
}

Int128 FloorDiv(Int128 a, Int128 b) {
  Int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Calendar months are added with the day clamped to the target month's length
// (2020-01-31 plus one month is 2020-02-29).
std::optional<int64_t> AddMonths(int64_t ticks, int64_t months) {
  if (months > 120'000 || months < -120'000) return std::nullopt;
  CivilTime c = ToCivil(ticks);
  int64_t total = int64_t{c.year} * 12 + (c.month - 1) + months;
  int64_t year = total / 12;  // total stays positive for any valid result; checked below
  if (total < 12 || year > 9999) return std::nullopt;
  c.year = static_cast<int>(year);
  c.month = static_cast<int>(total % 12) + 1;
  c.day = std::min(c.day, LastDayOfMonth(c.year, c.month));
  return ToTicks(c);
}

std::optional<int64_t> AddPart(DatePart part, int64_t amount, int64_t ticks) {
  if (part == DatePart::kYear) {
    if (amount > 10'000 || amount < -10'000) return std::nullopt;
    return AddMonths(ticks, amount * 12);
  }
  if (part == DatePart::kMonth) return AddMonths(ticks, amount);
  // Ticks are the finest resolution: whole ticks of a nanosecond amount are kept.
  Int128 delta = Int128{amount} * NanosecondsPer(part) / 100;
  Int128 result = Int128{ticks} + delta;
  if (result < 0 || result > kMaxTicks) return std::nullopt;
  return static_cast<int64_t>(result);
}

int64_t CurrentTicks(const FunctionContext& ctx) {
  using Ticks = std::chrono::duration<int64_t, std::ratio<1, kTicksPerSecond>>;
  return std::chrono::floor<Ticks>(ctx.query_start.time_since_epoch()).count() + kUnixEpochTicks;
}

// --- the functions ---

Value GetCurrentDateTime(std::span<const Value>, FunctionContext& ctx) {
  ctx.work += 1;
  return DateTimeValue(CurrentTicks(ctx));
}

Value GetCurrentTicks(std::span<const Value>, FunctionContext& ctx) {
  ctx.work += 1;
  return IntegerValue(CurrentTicks(ctx) - kUnixEpochTicks);
}

Value GetCurrentTimestamp(std::span<const Value>, FunctionContext& ctx) {
  ctx.work += 1;
  return IntegerValue((CurrentTicks(ctx) - kUnixEpochTicks) / kTicksPerMillisecond);
}

// NOW() or NOW(part, amount): the current instant, optionally moved forward.
Value Now(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  if (args.empty()) return DateTimeValue(CurrentTicks(ctx));
  if (args.size() != 2) return Value();
  auto part = ParseDatePart(args[0]);
  auto amount = IntegerArg(args[1]);
  if (!part || !amount) return Value();
  return DateTimeValue(AddPart(*part, *amount, CurrentTicks(ctx)));
}

// AGO(part, amount): the current instant moved back.
Value Ago(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  auto part = ParseDatePart(args[0]);
  auto amount = IntegerArg(args[1]);
  if (!part || !amount) return Value();
  return DateTimeValue(AddPart(*part, -*amount, CurrentTicks(ctx)));
}

Value DateTimeAdd(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  auto part = ParseDatePart(args[0]);
  auto amount = IntegerArg(args[1]);
  auto ticks = DateTimeArg(args[2]);
  if (!part || !amount || !ticks) return Value();
  return DateTimeValue(AddPart(*part, *amount, *ticks));
}

// DateTimeBin(date_time, part [, bin_size [, bin_start]]): the start of the bin holding
// date_time, bins being bin_size parts long and aligned on bin_start (the Unix epoch by default).
Value DateTimeBin(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  auto ticks = DateTimeArg(args[0]);
  auto part = ParseDatePart(args[1]);
  if (!ticks || !part) return Value();
  int64_t unit_ns = NanosecondsPer(*part);
  if (unit_ns == 0) return Value();  // the documented granularities run from days down
  int64_t size = 1;
  if (args.size() > 2) {
    auto given = IntegerArg(args[2]);
    if (!given || *given <= 0) return Value();
    size = *given;
  }
  int64_t origin = kUnixEpochTicks;
  if (args.size() > 3) {
    auto given = DateTimeArg(args[3]);
    if (!given || *given < kWindowsEpochTicks) return Value();
    origin = *given;
  }
  Int128 bin_ns = Int128{size} * unit_ns;
  Int128 offset_ns = (Int128{*ticks} - origin) * 100;
  Int128 start_ns = FloorDiv(offset_ns, bin_ns) * bin_ns;
  Int128 result = Int128{origin} + FloorDiv(start_ns, 100);
  if (result < 0 || result > kMaxTicks) return Value();
  return DateTimeValue(static_cast<int64_t>(result));
}

// The number of part boundaries crossed from start to end (not the elapsed time).
Value DateTimeDiff(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  auto part = ParseDatePart(args[0]);
  auto start = DateTimeArg(args[1]);
  auto end = DateTimeArg(args[2]);
  if (!part || !start || !end) return Value();
  CivilTime s = ToCivil(*start), e = ToCivil(*end);
  switch (*part) {
    case DatePart::kYear: return Value::Number(e.year - s.year);
    case DatePart::kMonth: return Value::Number((e.year - s.year) * 12 + (e.month - s.month));
    case DatePart::kNanosecond: return IntegerValue((*end - *start) * 100);
    default: {
      int64_t unit_ticks = NanosecondsPer(*part) / 100;  // ticks are never negative here
      return IntegerValue(*end / unit_ticks - *start / unit_ticks);
    }
  }
}

// DateTimeFromParts(year, month, day [, hour [, minute [, second [, fraction_in_ticks]]]]).
Value DateTimeFromParts(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  std::array<int64_t, 7> parts = {0, 0, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < args.size(); ++i) {
    auto v = IntegerArg(args[i]);
    if (!v || *v < 0 || *v > 9'999'999) return Value();
    parts[i] = *v;
  }
  CivilTime c;
  c.year = static_cast<int>(parts[0]);
  c.month = static_cast<int>(parts[1]);
  c.day = static_cast<int>(parts[2]);
  c.hour = static_cast<int>(parts[3]);
  c.minute = static_cast<int>(parts[4]);
  c.second = static_cast<int>(parts[5]);
  c.fraction = parts[6];
  return DateTimeValue(ToTicks(c));
}

std::optional<int64_t> PartOf(DatePart part, int64_t ticks) {
  CivilTime c = ToCivil(ticks);
  switch (part) {
    case DatePart::kYear: return c.year;
    case DatePart::kMonth: return c.month;
    case DatePart::kDay: return c.day;
    case DatePart::kHour: return c.hour;
    case DatePart::kMinute: return c.minute;
    case DatePart::kSecond: return c.second;
    case DatePart::kMillisecond: return c.fraction / kTicksPerMillisecond;
    case DatePart::kMicrosecond: return c.fraction / kTicksPerMicrosecond;
    case DatePart::kNanosecond: return c.fraction * 100;
  }
  return std::nullopt;
}

Value DateTimePart(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  auto part = ParseDatePart(args[0]);
  auto ticks = DateTimeArg(args[1]);
  if (!part || !ticks) return Value();
  return IntegerValue(*PartOf(*part, *ticks));
}

template <DatePart kPart>
Value SinglePart(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  auto ticks = DateTimeArg(args[0]);
  if (!ticks) return Value();
  return IntegerValue(*PartOf(kPart, *ticks));
}

// IS_DATETIME: whether a value is a date and time string the other functions accept.
Value IsDateTime(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  return Value::Boolean(args[0].is_string() && ParseDateTime(args[0].string()).has_value());
}

Value DateTimeToTicks(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  auto ticks = DateTimeArg(args[0]);
  if (!ticks) return Value();
  return IntegerValue(*ticks - kUnixEpochTicks);
}

Value DateTimeToTimestamp(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  auto ticks = DateTimeArg(args[0]);
  if (!ticks) return Value();
  // Counted from year 1 the division floors, so instants before 1970 round down too.
  return IntegerValue(*ticks / kTicksPerMillisecond - kUnixEpochTicks / kTicksPerMillisecond);
}

// A number of `unit_ticks` units since the Unix epoch, as an instant. Fractions of a unit
// are dropped.
std::optional<int64_t> FromUnixCount(const Value& v, int64_t unit_ticks) {
  if (!v.is_number() || !std::isfinite(v.number())) return std::nullopt;
  double count = std::trunc(v.number());
  double limit = static_cast<double>(kMaxTicks) / static_cast<double>(unit_ticks);
  if (std::fabs(count) > limit) return std::nullopt;
  return static_cast<int64_t>(count) * unit_ticks + kUnixEpochTicks;
}

Value TicksToDateTime(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  return DateTimeValue(FromUnixCount(args[0], 1));
}

Value TimestampToDateTime(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  return DateTimeValue(FromUnixCount(args[0], kTicksPerMillisecond));
}

// --- DateTimeFormat: .NET-style custom format strings (invariant culture) ---

constexpr std::array<std::string_view, 12> kMonthNames = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};
constexpr std::array<std::string_view, 7> kDayNames = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                       "Thursday", "Friday", "Saturday"};

// The single-letter standard formats, spelled as the custom patterns they stand for.
std::optional<std::string_view> StandardPattern(char letter) {
  switch (letter) {
    case 'd': return "MM/dd/yyyy";
    case 'D': return "dddd, dd MMMM yyyy";
    case 'f': return "dddd, dd MMMM yyyy HH:mm";
    case 'F': return "dddd, dd MMMM yyyy HH:mm:ss";
    case 'g': return "MM/dd/yyyy HH:mm";
    case 'G': return "MM/dd/yyyy HH:mm:ss";
    case 'M': case 'm': return "MMMM dd";
    case 'O': case 'o': return "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK";
    case 'R': case 'r': return "ddd, dd MMM yyyy HH':'mm':'ss 'GMT'";
    case 's': return "yyyy'-'MM'-'dd'T'HH':'mm':'ss";
    case 't': return "HH:mm";
    case 'T': return "HH:mm:ss";
    case 'u': return "yyyy'-'MM'-'dd HH':'mm':'ss'Z'";
    case 'U': return "dddd, dd MMMM yyyy HH:mm:ss";
    case 'Y': case 'y': return "yyyy MMMM";
    default: return std::nullopt;
  }
}

// Expands `pattern` for the instant; nullopt for a malformed pattern (.NET would throw).
std::optional<std::string> FormatCustom(std::string_view pattern, int64_t ticks) {
  CivilTime c = ToCivil(ticks);
  int weekday = static_cast<int>(
      std::chrono::weekday(kFirstDay + std::chrono::days(ticks / kTicksPerDay)).c_encoding());
  std::string out;
  size_t i = 0;
  while (i < pattern.size()) {
    char ch = pattern[i];
    size_t run = 1;
    while (i + run < pattern.size() && pattern[i + run] == ch) ++run;
    // As in .NET, a run of one letter is one specifier: "hhh" prints like "hh".
    switch (ch) {
      case 'd':
        if (run == 1) out += std::to_string(c.day);
        else if (run == 2) out += TwoDigits(c.day);
        else if (run == 3) out += kDayNames[weekday].substr(0, 3);
        else out += kDayNames[weekday];
        break;
      case 'M':
        if (run == 1) out += std::to_string(c.month);
        else if (run == 2) out += TwoDigits(c.month);
        else if (run == 3) out += kMonthNames[c.month - 1].substr(0, 3);
        else out += kMonthNames[c.month - 1];
        break;
      case 'y':
        if (run == 1) out += std::to_string(c.year % 100);
        else if (run == 2) out += TwoDigits(c.year % 100);
        else out += PaddedNumber(c.year, run);
        break;
      case 'h': {
        int hour12 = c.hour % 12 == 0 ? 12 : c.hour % 12;
        out += run == 1 ? std::to_string(hour12) : TwoDigits(hour12);
        break;
      }
      case 'H':
        out += run == 1 ? std::to_string(c.hour) : TwoDigits(c.hour);
        break;
      case 'm':
        out += run == 1 ? std::to_string(c.minute) : TwoDigits(c.minute);
        break;
      case 's':
        out += run == 1 ? std::to_string(c.second) : TwoDigits(c.second);
        break;
      case 'f':
      case 'F': {
        if (run > 7) return std::nullopt;
        std::string digits = PaddedNumber(c.fraction, 7).substr(0, run);
        // 'F' drops trailing zeros; unlike .NET, the documented example keeps the '.' before it.
        if (ch == 'F') digits.erase(digits.find_last_not_of('0') + 1);
        out += digits;
        break;
      }
      case 't':
        out += c.hour < 12 ? (run == 1 ? "A" : "AM") : (run == 1 ? "P" : "PM");
        break;
      case 'g':
        out += "A.D.";
        break;
      case 'K':
        out += 'Z';
        run = 1;
        break;
      case 'z':
        out += run == 1 ? "+0" : run == 2 ? "+00" : "+00:00";
        break;
      case '\'':
      case '"': {
        size_t close = pattern.find(ch, i + 1);
        if (close == std::string_view::npos) return std::nullopt;
        out += pattern.substr(i + 1, close - i - 1);
        run = close - i + 1;
        break;
      }
      case '\\':
        if (i + 1 >= pattern.size()) return std::nullopt;
        out += pattern[i + 1];
        run = 2;
        break;
      case '%': {
        // "%d" is the custom specifier d on its own, not the standard format "d".
        if (i + 1 >= pattern.size() || pattern[i + 1] == '%') return std::nullopt;
        auto one = FormatCustom(pattern.substr(i + 1, 1), ticks);
        if (!one) return std::nullopt;
        out += *one;
        run = 2;
        break;
      }
      default:
        out += ch;
        run = 1;
        break;
    }
    i += run;
  }
  return out;
}

Value DateTimeFormat(std::span<const Value> args, FunctionContext& ctx) {
  ctx.work += 1;
  auto ticks = DateTimeArg(args[0]);
  if (!ticks || !args[1].is_string()) return Value();
  std::string_view pattern = args[1].string();
  ctx.work += pattern.size() / 16;
  if (pattern.size() == 1) {
    auto standard = StandardPattern(pattern[0]);
    if (!standard) return Value();
    pattern = *standard;
  }
  auto text = FormatCustom(pattern, *ticks);
  if (!text) return Value();
  return Value::String(std::move(*text));
}

}  // namespace

void RegisterDateTimeFunctions(FunctionRegistry& registry) {
  // The *Static variants are evaluated once per partition by the service; here every call of a
  // query already sees the same instant (ctx.query_start), so they share the implementation.
  registry.Add({.name = "GetCurrentDateTime", .min_args = 0, .max_args = 0, .scalar = GetCurrentDateTime});
  registry.Add({.name = "GetCurrentDateTimeStatic", .min_args = 0, .max_args = 0, .scalar = GetCurrentDateTime});
  registry.Add({.name = "GetCurrentTicks", .min_args = 0, .max_args = 0, .scalar = GetCurrentTicks});
  registry.Add({.name = "GetCurrentTicksStatic", .min_args = 0, .max_args = 0, .scalar = GetCurrentTicks});
  registry.Add({.name = "GetCurrentTimestamp", .min_args = 0, .max_args = 0, .scalar = GetCurrentTimestamp});
  registry.Add({.name = "GetCurrentTimestampStatic", .min_args = 0, .max_args = 0, .scalar = GetCurrentTimestamp});
  registry.Add({.name = "Now", .min_args = 0, .max_args = 2, .scalar = Now});
  registry.Add({.name = "Ago", .min_args = 2, .max_args = 2, .scalar = Ago});
  registry.Add({.name = "DateTimeAdd", .min_args = 3, .max_args = 3, .scalar = DateTimeAdd});
  registry.Add({.name = "DateTimeBin", .min_args = 2, .max_args = 4, .scalar = DateTimeBin});
  registry.Add({.name = "DateTimeDiff", .min_args = 3, .max_args = 3, .scalar = DateTimeDiff});
  registry.Add({.name = "DateTimeFormat", .min_args = 2, .max_args = 2, .scalar = DateTimeFormat});
  registry.Add({.name = "DateTimeFromParts", .min_args = 3, .max_args = 7, .scalar = DateTimeFromParts});
  registry.Add({.name = "DateTimePart", .min_args = 2, .max_args = 2, .scalar = DateTimePart});
  registry.Add({.name = "IS_DATETIME", .min_args = 1, .max_args = 1, .scalar = IsDateTime});
  registry.Add({.name = "DateTimeToTicks", .min_args = 1, .max_args = 1, .scalar = DateTimeToTicks});
  registry.Add({.name = "DateTimeToTimestamp", .min_args = 1, .max_args = 1, .scalar = DateTimeToTimestamp});
  registry.Add({.name = "TicksToDateTime", .min_args = 1, .max_args = 1, .scalar = TicksToDateTime});
  registry.Add({.name = "TimestampToDateTime", .min_args = 1, .max_args = 1, .scalar = TimestampToDateTime});
  registry.Add({.name = "Day", .min_args = 1, .max_args = 1, .scalar = SinglePart<DatePart::kDay>});
  registry.Add({.name = "Month", .min_args = 1, .max_args = 1, .scalar = SinglePart<DatePart::kMonth>});
  registry.Add({.name = "Year", .min_args = 1, .max_args = 1, .scalar = SinglePart<DatePart::kYear>});
}

}  // namespace cosmos::query
