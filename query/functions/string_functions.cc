// String functions: CONCAT, CONTAINS, INDEX_OF, SUBSTRING, TRIM, REPLACE, RegexMatch...
//
// Strings are UTF-8 in a Value, but the service counts and indexes strings in UTF-16 code units
// (it is a .NET/JavaScript heritage): LENGTH("😀") is 2 and SUBSTRING/LEFT/RIGHT/INDEX_OF work
// on those units. Functions that only compare or search text work on the UTF-8 bytes directly,
// which gives the same answers because UTF-8 is self-synchronizing.
//
// Arguments of the wrong kind make the result undefined; only a regular expression that is
// invalid or too expensive for its text fails the query (ctx.error).
#include <algorithm>
#include <cmath>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "common/encoding.h"
#include "query/functions/registry.h"

namespace cosmos::query {
namespace {

// Work accounting: ChargeText (registry.h), one unit per call plus one per 64 bytes of text touched.

// ---------------------------------------------------------------------------------------------
// UTF-8 / UTF-16 / code points

constexpr char32_t kReplacementChar = 0xFFFD;

// Decodes the code point at `pos` and advances past it; malformed bytes decode as U+FFFD.
char32_t DecodeUtf8(std::string_view s, size_t& pos) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char lead = byte(pos);
  if (lead < 0x80) {
    ++pos;
    return lead;
  }
  size_t extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
  bool valid = extra > 0 && lead <= 0xF4 && pos + extra < s.size();
  char32_t cp = lead & (0x3F >> extra);
  for (size_t k = 1; valid && k <= extra; ++k) {
    valid = (byte(pos + k) & 0xC0) == 0x80;
    cp = (cp << 6) | (byte(pos + k) & 0x3F);
  }
  static constexpr char32_t kMinForLength[] = {0, 0x80, 0x800, 0x10000};
  if (!valid || cp < kMinForLength[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++pos;
    return kReplacementChar;
  }
  pos += extra + 1;
  return cp;
}

std::u32string ToCodePoints(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t pos = 0; pos < s.size();) out += DecodeUtf8(s, pos);
  return out;
}

std::string FromCodePoints(std::u32string_view cps) {
  std::string out;
  out.reserve(cps.size());
  for (char32_t cp : cps) AppendUtf8(out, cp);
  return out;
}

std::u16string ToUtf16(std::string_view s) {
  std::u16string out;
  out.reserve(s.size());
  for (size_t pos = 0; pos < s.size();) {
    char32_t cp = DecodeUtf8(s, pos);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out += static_cast<char16_t>(0xD800 + (cp >> 10));
      out += static_cast<char16_t>(0xDC00 + (cp & 0x3FF));
    } else {
      out += static_cast<char16_t>(cp);
    }
  }
  return out;
}

// A lone surrogate (a UTF-16 slice that cut a pair in two) has no UTF-8 form: it becomes U+FFFD.
std::string FromUtf16(std::u16string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char32_t unit = s[i];
    if (unit >= 0xD800 && unit <= 0xDBFF && i + 1 < s.size() && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
      AppendUtf8(out, 0x10000 + ((unit - 0xD800) << 10) + (s[i + 1] - 0xDC00));
      ++i;
    } else if (unit >= 0xD800 && unit <= 0xDFFF) {
      AppendUtf8(out, kReplacementChar);
    } else {
      AppendUtf8(out, unit);
    }
  }
  return out;
}

size_t Utf16Length(std::string_view s) {
  size_t units = 0;
  for (size_t pos = 0; pos < s.size();) units += DecodeUtf8(s, pos) >= 0x10000 ? 2 : 1;
  return units;
}

// ---------------------------------------------------------------------------------------------
// Case mapping: Unicode simple (one-to-one) mappings for Latin, Greek, Cyrillic, Armenian and
// fullwidth letters, as the invariant culture does. Characters whose mapping is not one-to-one
// (e.g. 'ß') are left alone.

// Whether `c` lies in [first, last]; used for blocks where upper and lower case alternate.
bool InPairRange(char32_t c, char32_t first, char32_t last) { return c >= first && c <= last; }

char32_t SimpleLower(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  if ((c >= 0xC0 && c <= 0xDE && c != 0xD7)) return c + 32;
  if (c == 0x130) return 'i';
  if (c == 0x178) return 0xFF;
  // Latin Extended-A: pairs with the upper case on the even code point...
  if ((InPairRange(c, 0x100, 0x12F) || InPairRange(c, 0x132, 0x137) || InPairRange(c, 0x14A, 0x177)) &&
      c % 2 == 0)
    return c + 1;
  // ...or on the odd one.
  if ((InPairRange(c, 0x139, 0x148) || InPairRange(c, 0x179, 0x17E)) && c % 2 == 1) return c + 1;
  if (c == 0x386) return 0x3AC;
  if (c >= 0x388 && c <= 0x38A) return c + 37;
  if (c == 0x38C) return 0x3CC;
  if (c == 0x38E || c == 0x38F) return c + 63;
  if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if ((InPairRange(c, 0x460, 0x481) || InPairRange(c, 0x48A, 0x4BF) || InPairRange(c, 0x4D0, 0x52F)) &&
      c % 2 == 0)
    return c + 1;
  if (c == 0x4C0) return 0x4CF;
  if (InPairRange(c, 0x4C1, 0x4CE) && c % 2 == 1) return c + 1;
  if (c >= 0x531 && c <= 0x556) return c + 48;
  if ((InPairRange(c, 0x1E00, 0x1E95) || InPairRange(c, 0x1EA0, 0x1EFF)) && c % 2 == 0) return c + 1;
  if (c >= 0xFF21 && c <= 0xFF3A) return c + 32;
  return c;
}

char32_t SimpleUpper(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') ? c - 32 : c;
  if ((c >= 0xE0 && c <= 0xFE && c != 0xF7)) return c - 32;
  if (c == 0xFF) return 0x178;
  if (c == 0x131) return 'I';
  if (c == 0x17F) return 'S';
  if ((InPairRange(c, 0x100, 0x12F) || InPairRange(c, 0x132, 0x137) || InPairRange(c, 0x14A, 0x177)) &&
      c % 2 == 1)
    return c - 1;
  if ((InPairRange(c, 0x139, 0x148) || InPairRange(c, 0x179, 0x17E)) && c % 2 == 0) return c - 1;
  if (c == 0x3AC) return 0x386;
  if (c >= 0x3AD && c <= 0x3AF) return c - 37;
  if (c == 0x3CC) return 0x38C;
  if (c == 0x3CD || c == 0x3CE) return c - 63;
  if (c == 0x3C2) return 0x3A3;  // final sigma
  if (c >= 0x3B1 && c <= 0x3CB) return c - 32;
  if (c >= 0x430 && c <= 0x44F) return c - 32;
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  if ((InPairRange(c, 0x460, 0x481) || InPairRange(c, 0x48A, 0x4BF) || InPairRange(c, 0x4D0, 0x52F)) &&
      c % 2 == 1)
    return c - 1;
  if (c == 0x4CF) return 0x4C0;
  if (InPairRange(c, 0x4C1, 0x4CE) && c % 2 == 0) return c - 1;
  if (c >= 0x561 && c <= 0x586) return c - 48;
  if ((InPairRange(c, 0x1E00, 0x1E95) || InPairRange(c, 0x1EA0, 0x1EFF)) && c % 2 == 1) return c - 1;
  if (c >= 0xFF41 && c <= 0xFF5A) return c - 32;
  return c;
}

template <typename Mapping>
std::string MapCodePoints(std::string_view s, Mapping map) {
  std::string out;
  out.reserve(s.size());
  for (size_t pos = 0; pos < s.size();) AppendUtf8(out, map(DecodeUtf8(s, pos)));
  return out;
}

std::string ToLower(std::string_view s) { return MapCodePoints(s, SimpleLower); }
std::string ToUpper(std::string_view s) { return MapCodePoints(s, SimpleUpper); }

// Case-insensitive comparisons fold to upper case, as ordinal-ignore-case comparison does.
std::string FoldCase(std::string_view s) { return ToUpper(s); }

// The characters .NET's Char.IsWhiteSpace accepts (Unicode White_Space).
bool IsWhitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

// ---------------------------------------------------------------------------------------------
// Argument helpers

bool AllStrings(std::span<const Value> args) {
  return std::all_of(args.begin(), args.end(), [](const Value& v) { return v.is_string(); });
}

size_t TotalBytes(std::span<const Value> args) {
  size_t bytes = 0;
  for (const Value& v : args)
    if (v.is_string()) bytes += v.string().size();
  return bytes;
}

// The optional trailing "ignore case" argument: absent means false; present must be a boolean.
std::optional<bool> IgnoreCaseArg(std::span<const Value> args, size_t index) {
  if (args.size() <= index) return false;
  if (!args[index].is_boolean()) return std::nullopt;
  return args[index].boolean();
}

// A numeric position or count, truncated toward zero; nullopt for non-numbers and non-finite.
std::optional<double> WholeNumberArg(const Value& v) {
  if (!v.is_number()) return std::nullopt;
  double d = v.number();
  if (!std::isfinite(d)) return std::nullopt;
  return std::trunc(d);
}

// Clamps a whole number into [0, size].
size_t ClampToSize(double d, size_t size) {
  if (d <= 0) return 0;
  if (d >= static_cast<double>(size)) return size;
  return static_cast<size_t>(d);
}

Value NumberFromIndex(size_t index) {
  return Value::Number(index == std::string::npos ? -1.0 : static_cast<double>(index));
}

// ---------------------------------------------------------------------------------------------
// Concatenation, containment, equality

Value Concat(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  if (!AllStrings(args)) return Value();
  std::string out;
  for (const Value& v : args) out += v.string();
  return Value::String(std::move(out));
}

enum class Match { kContains, kStartsWith, kEndsWith };

bool Matches(std::string_view text, std::string_view part, Match how) {
  switch (how) {
    case Match::kContains: return text.find(part) != std::string_view::npos;
    case Match::kStartsWith: return text.starts_with(part);
    case Match::kEndsWith: return text.ends_with(part);
  }
  return false;
}

Value MatchWithCase(std::span<const Value> args, FunctionContext& ctx, Match how) {
  ChargeText(ctx, TotalBytes(args));
  std::optional<bool> ignore_case = IgnoreCaseArg(args, 2);
  if (!args[0].is_string() || !args[1].is_string() || !ignore_case) return Value();
  if (*ignore_case) return Value::Boolean(Matches(FoldCase(args[0].string()), FoldCase(args[1].string()), how));
  return Value::Boolean(Matches(args[0].string(), args[1].string(), how));
}

Value Contains(std::span<const Value> args, FunctionContext& ctx) {
  return MatchWithCase(args, ctx, Match::kContains);
}
Value StartsWith(std::span<const Value> args, FunctionContext& ctx) {
  return MatchWithCase(args, ctx, Match::kStartsWith);
}
Value EndsWith(std::span<const Value> args, FunctionContext& ctx) {
  return MatchWithCase(args, ctx, Match::kEndsWith);
}

// CONTAINS_ANY_* / CONTAINS_ALL_*: the OR / AND of CONTAINS(text, each needle), with the
// language's three-valued logic (a non-string needle contributes undefined).
Value ContainsMany(std::span<const Value> args, FunctionContext& ctx, bool ignore_case, bool all) {
  ChargeText(ctx, TotalBytes(args));
  bool saw_undefined = false;
  std::string text = args[0].is_string() ? (ignore_case ? FoldCase(args[0].string()) : args[0].string()) : "";
  for (size_t i = 1; i < args.size(); ++i) {
    if (!args[0].is_string() || !args[i].is_string()) {
      saw_undefined = true;
      continue;
    }
    bool found = text.find(ignore_case ? FoldCase(args[i].string()) : args[i].string()) != std::string::npos;
    if (all && !found) return Value::Boolean(false);
    if (!all && found) return Value::Boolean(true);
  }
  if (saw_undefined) return Value();
  return Value::Boolean(all);
}

Value ContainsAnyCi(std::span<const Value> args, FunctionContext& ctx) {
  return ContainsMany(args, ctx, /*ignore_case=*/true, /*all=*/false);
}
Value ContainsAnyCs(std::span<const Value> args, FunctionContext& ctx) {
  return ContainsMany(args, ctx, /*ignore_case=*/false, /*all=*/false);
}
Value ContainsAllCi(std::span<const Value> args, FunctionContext& ctx) {
  return ContainsMany(args, ctx, /*ignore_case=*/true, /*all=*/true);
}
Value ContainsAllCs(std::span<const Value> args, FunctionContext& ctx) {
  return ContainsMany(args, ctx, /*ignore_case=*/false, /*all=*/true);
}

Value StringEquals(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  std::optional<bool> ignore_case = IgnoreCaseArg(args, 2);
  if (!args[0].is_string() || !args[1].is_string() || !ignore_case) return Value();
  if (*ignore_case) return Value::Boolean(FoldCase(args[0].string()) == FoldCase(args[1].string()));
  return Value::Boolean(args[0].string() == args[1].string());
}

// ---------------------------------------------------------------------------------------------
// Positions and slices (UTF-16 code units)

Value Length(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  if (!args[0].is_string()) return Value();
  return Value::Number(static_cast<double>(Utf16Length(args[0].string())));
}

Value IndexOf(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  if (!args[0].is_string() || !args[1].is_string()) return Value();
  std::u16string text = ToUtf16(args[0].string());
  std::u16string part = ToUtf16(args[1].string());
  size_t start = 0;
  if (args.size() > 2) {
    std::optional<double> from = WholeNumberArg(args[2]);
    if (!from) return Value();
    if (*from > static_cast<double>(text.size())) return Value::Number(-1);
    start = ClampToSize(*from, text.size());  // a negative start searches from the beginning
  }
  return NumberFromIndex(text.find(part, start));
}

// LASTINDEXOF(text, part [, start]): the last match lying entirely within text[0..start].
Value LastIndexOf(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  if (!args[0].is_string() || !args[1].is_string()) return Value();
  std::u16string text = ToUtf16(args[0].string());
  std::u16string part = ToUtf16(args[1].string());
  if (args.size() < 3) return NumberFromIndex(text.rfind(part));
  std::optional<double> from = WholeNumberArg(args[2]);
  if (!from) return Value();
  if (*from < 0) return Value::Number(-1);
  double last_start = std::min(*from, static_cast<double>(text.size()) - 1) - static_cast<double>(part.size()) + 1;
  if (last_start < 0) return Value::Number(-1);
  return NumberFromIndex(text.rfind(part, static_cast<size_t>(last_start)));
}

Value Substring(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  std::optional<double> start = WholeNumberArg(args[1]);
  std::optional<double> length = WholeNumberArg(args[2]);
  if (!args[0].is_string() || !start || !length) return Value();
  std::u16string text = ToUtf16(args[0].string());
  size_t begin = ClampToSize(*start, text.size());
  size_t count = ClampToSize(*length, text.size() - begin);
  return Value::String(FromUtf16(std::u16string_view(text).substr(begin, count)));
}

Value Left(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  std::optional<double> count = WholeNumberArg(args[1]);
  if (!args[0].is_string() || !count) return Value();
  std::u16string text = ToUtf16(args[0].string());
  return Value::String(FromUtf16(std::u16string_view(text).substr(0, ClampToSize(*count, text.size()))));
}

Value Right(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  std::optional<double> count = WholeNumberArg(args[1]);
  if (!args[0].is_string() || !count) return Value();
  std::u16string text = ToUtf16(args[0].string());
  size_t keep = ClampToSize(*count, text.size());
  return Value::String(FromUtf16(std::u16string_view(text).substr(text.size() - keep)));
}

// Reverses characters, keeping each surrogate pair (one astral character) in order.
Value Reverse(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  if (!args[0].is_string()) return Value();
  std::u32string cps = ToCodePoints(args[0].string());
  std::reverse(cps.begin(), cps.end());
  return Value::String(FromCodePoints(cps));
}

// ---------------------------------------------------------------------------------------------
// Case and trimming

Value Lower(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  if (!args[0].is_string()) return Value();
  return Value::String(ToLower(args[0].string()));
}

Value Upper(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  if (!args[0].is_string()) return Value();
  return Value::String(ToUpper(args[0].string()));
}

// LTRIM/RTRIM/TRIM(text [, chars]): without `chars`, trims whitespace; with it, trims any of
// the characters it contains (a set, not a prefix: TRIM("-_-x-_-", "-_") is "x").
Value TrimSides(std::span<const Value> args, FunctionContext& ctx, bool left, bool right) {
  ChargeText(ctx, TotalBytes(args));
  if (!args[0].is_string() || (args.size() > 1 && !args[1].is_string())) return Value();
  std::u32string trim_set = args.size() > 1 ? ToCodePoints(args[1].string()) : std::u32string();
  auto trimmed = [&](char32_t c) {
    return args.size() > 1 ? trim_set.find(c) != std::u32string::npos : IsWhitespace(c);
  };
  std::u32string cps = ToCodePoints(args[0].string());
  size_t begin = 0, end = cps.size();
  if (left)
    while (begin < end && trimmed(cps[begin])) ++begin;
  if (right)
    while (end > begin && trimmed(cps[end - 1])) --end;
  return Value::String(FromCodePoints(std::u32string_view(cps).substr(begin, end - begin)));
}

Value LTrim(std::span<const Value> args, FunctionContext& ctx) { return TrimSides(args, ctx, true, false); }
Value RTrim(std::span<const Value> args, FunctionContext& ctx) { return TrimSides(args, ctx, false, true); }
Value Trim(std::span<const Value> args, FunctionContext& ctx) { return TrimSides(args, ctx, true, true); }

// ---------------------------------------------------------------------------------------------
// Building strings

Value Replace(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  if (!AllStrings(args)) return Value();
  const std::string& text = args[0].string();
  const std::string& from = args[1].string();
  const std::string& to = args[2].string();
  if (from.empty()) return args[0];  // nothing to find
  std::string out;
  size_t pos = 0;
  for (size_t hit; (hit = text.find(from, pos)) != std::string::npos; pos = hit + from.size()) {
    out.append(text, pos, hit - pos);
    out += to;
  }
  out.append(text, pos, std::string::npos);
  return Value::String(std::move(out));
}

// The documented cap on REPLICATE's result, in characters.
constexpr double kMaxReplicateLength = 10000;

Value Replicate(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  std::optional<double> times = WholeNumberArg(args[1]);
  if (!args[0].is_string() || !times || *times < 0) return Value();
  const std::string& unit = args[0].string();
  if (static_cast<double>(Utf16Length(unit)) * *times > kMaxReplicateLength) return Value();
  std::string out;
  out.reserve(unit.size() * static_cast<size_t>(*times));
  for (size_t i = 0; i < static_cast<size_t>(*times); ++i) out += unit;
  ctx.work += out.size() / 64;
  return Value::String(std::move(out));
}

Value StringJoin(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  if (!args[0].is_array() || !args[1].is_string()) return Value();
  std::string out;
  for (size_t i = 0; i < args[0].size(); ++i) {
    Value item = args[0].At(i);
    if (!item.is_string()) return Value();  // only strings can be joined
    if (i > 0) out += args[1].string();
    out += item.string();
  }
  ctx.work += out.size() / 64;
  return Value::String(std::move(out));
}

Value StringSplit(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, TotalBytes(args));
  if (!AllStrings(args)) return Value();
  const std::string& text = args[0].string();
  const std::string& separator = args[1].string();
  Json parts = Json::array();
  if (separator.empty()) {
    parts.push_back(text);  // nothing to split on: the whole string
  } else {
    size_t pos = 0;
    for (size_t hit; (hit = text.find(separator, pos)) != std::string::npos; pos = hit + separator.size())
      parts.push_back(text.substr(pos, hit - pos));
    parts.push_back(text.substr(pos));
  }
  return Value::FromJson(std::move(parts));
}

// SUBSTRINGBEFORE / SUBSTRINGAFTER and their LAST* forms split at the first or last occurrence
// of the delimiter. When the delimiter does not occur, the result is "" (XPath's
// substring-before/after, which these functions are named after).
Value SplitAtDelimiter(std::span<const Value> args, FunctionContext& ctx, bool last, bool after) {
  ChargeText(ctx, TotalBytes(args));
  if (!AllStrings(args)) return Value();
  const std::string& text = args[0].string();
  const std::string& delimiter = args[1].string();
  size_t hit = last ? text.rfind(delimiter) : text.find(delimiter);
  if (hit == std::string::npos) return Value::String("");
  return Value::String(after ? text.substr(hit + delimiter.size()) : text.substr(0, hit));
}

Value SubstringBefore(std::span<const Value> args, FunctionContext& ctx) {
  return SplitAtDelimiter(args, ctx, false, false);
}
Value SubstringAfter(std::span<const Value> args, FunctionContext& ctx) {
  return SplitAtDelimiter(args, ctx, false, true);
}
Value LastSubstringBefore(std::span<const Value> args, FunctionContext& ctx) {
  return SplitAtDelimiter(args, ctx, true, false);
}
Value LastSubstringAfter(std::span<const Value> args, FunctionContext& ctx) {
  return SplitAtDelimiter(args, ctx, true, true);
}

// ---------------------------------------------------------------------------------------------
// RegexMatch
//
// The service uses PCRE, and so do we: PCRE2 in UTF mode over the UTF-8 text, so lookbehind,
// backreferences, named groups, inline flags such as (?i) and \A \z \Z are its own syntax. The
// modifiers are compile options: i caseless, m multiline (^ $ at line breaks), s dot-all, x
// extended (whitespace and #-comments outside classes are ignored). No PCRE2_UCP, as in PCRE's
// default: \d \w \s \b stay ASCII (the service documents nothing else); caseless matching folds
// all of Unicode all the same (UTF mode does that).
//
// No pattern may crash or stall a worker, so matching runs in PCRE2's interpreter (no JIT),
// which keeps its backtracking state on the heap, never on the C stack, within limits:
//   - parentheses nest at most kRegexNestLimit deep (the compiler recurses on them);
//   - the match limit caps the backtracking from one start position, the depth and heap limits
//     the memory of its backtracking frames;
//   - PCRE2 gives every start position a fresh match limit, and a character scan or a
//     backreference counts as one step, so a search can still be quadratic (a*[bc] against
//     200,000 a's ran 20 s). A callout before each pattern item (PCRE2_AUTO_CALLOUT) charges the
//     whole search one step per item, and one per kRegexCharsPerStep characters the matcher moved
//     over since the previous item (scanning is cheaper than an item), up to kRegexWorkBase plus
//     kRegexWorkPerByte per byte of text: a second at most, far more than any linear search
//     needs. The callouts cost ~15% and make the compiled pattern four times larger: its
//     64 KiB cap (link size 2) admits ~8,000 items.
// A search that reaches a limit fails the query with 400, as an invalid pattern does.

constexpr uint32_t kRegexNestLimit = 250;
constexpr uint32_t kRegexMatchLimit = 1'000'000;    // tens of milliseconds from one start position
constexpr uint32_t kRegexDepthLimit = 500'000;      // frames: (a|b)* takes two per character
constexpr uint32_t kRegexHeapLimitKib = 64 * 1024;  // ~450,000 frames of a pattern with few groups
constexpr uint64_t kRegexWorkBase = 5'000'000;      // steps: 20-60 ns each
constexpr uint64_t kRegexWorkPerByte = 4;           // a linear search takes 1-3 per byte
constexpr uint64_t kRegexCharsPerStep = 16;

struct Pcre2Free {
  void operator()(pcre2_code* code) const { pcre2_code_free(code); }
  void operator()(pcre2_compile_context* context) const { pcre2_compile_context_free(context); }
  void operator()(pcre2_match_context* context) const { pcre2_match_context_free(context); }
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};
template <typename T>
using Pcre2Ptr = std::unique_ptr<T, Pcre2Free>;

std::string Pcre2Message(int error) {
  PCRE2_UCHAR buffer[256];
  int length = pcre2_get_error_message(error, buffer, sizeof(buffer));
  if (length < 0) return "PCRE2 error " + std::to_string(error);
  return std::string(reinterpret_cast<const char*>(buffer), static_cast<size_t>(length));
}

// Compiling is expensive and queries apply the same pattern to every row, so each thread keeps
// the most recently used patterns.
class RegexCache {
 public:
  std::shared_ptr<const pcre2_code> Find(const std::string& key) {
    auto it = entries_.find(key);
    if (it == entries_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second.second);
    return it->second.first;
  }
  void Put(const std::string& key, std::shared_ptr<const pcre2_code> code) {
    if (entries_.size() >= kCapacity) {
      entries_.erase(order_.back());
      order_.pop_back();
    }
    order_.push_front(key);
    entries_[key] = {std::move(code), order_.begin()};
  }

 private:
  static constexpr size_t kCapacity = 64;
  std::list<std::string> order_;
  std::unordered_map<std::string, std::pair<std::shared_ptr<const pcre2_code>, std::list<std::string>::iterator>>
      entries_;
};

// Returns the compiled pattern, or sets ctx.error and returns null when it is invalid.
std::shared_ptr<const pcre2_code> CompileRegex(const std::string& pattern, const std::string& modifiers,
                                               FunctionContext& ctx) {
  thread_local RegexCache cache;
  std::string key = modifiers + '\0' + pattern;
  if (auto hit = cache.Find(key)) return hit;

  // \C could stop inside a UTF-8 sequence; the callouts feed the work budget.
  uint32_t options = PCRE2_UTF | PCRE2_NEVER_BACKSLASH_C | PCRE2_AUTO_CALLOUT;
  for (char m : modifiers) {
    switch (m) {
      case 'i': options |= PCRE2_CASELESS; break;
      case 'm': options |= PCRE2_MULTILINE; break;
      case 's': options |= PCRE2_DOTALL; break;
      case 'x': options |= PCRE2_EXTENDED; break;
      default:
        ctx.error = Status::BadRequest("Invalid regular expression modifier '" + std::string(1, m) +
                                       "' in RegexMatch: the supported modifiers are m, s, i and x.");
        return nullptr;
    }
  }
  Pcre2Ptr<pcre2_compile_context> context(pcre2_compile_context_create(nullptr));
  if (!context) {
    ctx.error = Status::Internal("RegexMatch: out of memory.");
    return nullptr;
  }
  pcre2_set_parens_nest_limit(context.get(), kRegexNestLimit);
  pcre2_set_newline(context.get(), PCRE2_NEWLINE_LF);  // whatever the library was built with
  int error = 0;
  PCRE2_SIZE offset = 0;
  Pcre2Ptr<pcre2_code> code(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options,
                                          &error, &offset, context.get()));
  if (!code) {
    ctx.error = Status::BadRequest("Invalid regular expression '" + pattern + "' in RegexMatch: " +
                                   Pcre2Message(error) + " at offset " + std::to_string(offset) + ".");
    return nullptr;
  }
  std::shared_ptr<const pcre2_code> compiled(std::move(code));
  cache.Put(key, compiled);
  return compiled;
}

struct RegexWork {
  uint64_t items = 0;
  uint64_t chars = 0;
  uint64_t limit = 0;
  PCRE2_SIZE position = 0;
};

// Called before every pattern item (PCRE2_AUTO_CALLOUT): charges the item and the characters
// the matcher moved over since the previous one, and abandons the search past the budget.
int ChargeRegexWork(pcre2_callout_block* block, void* data) {
  auto& work = *static_cast<RegexWork*>(data);
  PCRE2_SIZE position = block->current_position;
  ++work.items;
  work.chars += position > work.position ? position - work.position : work.position - position;
  work.position = position;
  return work.items + work.chars / kRegexCharsPerStep > work.limit ? PCRE2_ERROR_CALLOUT : 0;
}

pcre2_match_context* RegexMatchContext() {
  thread_local Pcre2Ptr<pcre2_match_context> context = [] {
    Pcre2Ptr<pcre2_match_context> c(pcre2_match_context_create(nullptr));
    if (c) {
      pcre2_set_match_limit(c.get(), kRegexMatchLimit);
      pcre2_set_depth_limit(c.get(), kRegexDepthLimit);
      pcre2_set_heap_limit(c.get(), kRegexHeapLimitKib);
    }
    return c;
  }();
  return context.get();
}

// Searches `text`; sets ctx.error and returns nullopt when the search gave up.
std::optional<bool> SearchRegex(const pcre2_code* code, const std::string& text, FunctionContext& ctx) {
  pcre2_match_context* context = RegexMatchContext();
  // Per call, so that the frames of a deep search are freed with it.
  Pcre2Ptr<pcre2_match_data> match(pcre2_match_data_create(1, nullptr));
  if (!context || !match) {
    ctx.error = Status::Internal("RegexMatch: out of memory.");
    return std::nullopt;
  }
  RegexWork work{.limit = kRegexWorkBase + kRegexWorkPerByte * text.size()};
  pcre2_set_callout(context, ChargeRegexWork, &work);
  int rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0, match.get(), context);
  if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21) {
    // Strings from JSON are valid UTF-8; anything else reads its malformed bytes as U+FFFD.
    std::string valid = FromCodePoints(ToCodePoints(text));
    work = RegexWork{.limit = kRegexWorkBase + kRegexWorkPerByte * valid.size()};
    rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(valid.data()), valid.size(), 0, 0, match.get(), context);
  }
  if (rc >= 0) return true;  // 0 too: a match with more groups than the match data holds
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  std::string reason;
  switch (rc) {
    case PCRE2_ERROR_MATCHLIMIT: reason = "needs too much backtracking (match limit reached)"; break;
    case PCRE2_ERROR_DEPTHLIMIT: reason = "nests its backtracking too deeply (depth limit reached)"; break;
    case PCRE2_ERROR_HEAPLIMIT: reason = "needs too much memory for backtracking (heap limit reached)"; break;
    case PCRE2_ERROR_CALLOUT: reason = "takes too many steps to search it (work limit reached)"; break;
    default: reason = "could not be evaluated on it: " + Pcre2Message(rc); break;
  }
  ctx.error = Status::BadRequest("RegexMatch gave up on a text of " + std::to_string(text.size()) +
                                 " bytes: the pattern " + reason + ".");
  return std::nullopt;
}

Value RegexMatch(std::span<const Value> args, FunctionContext& ctx) {
  // Regular expressions cost more than plain scans.
  ctx.work += 4 * (TotalBytes(args) / 64) + 4;
  if (!AllStrings(args)) return Value();
  std::string modifiers = args.size() > 2 ? args[2].string() : std::string();
  std::shared_ptr<const pcre2_code> compiled = CompileRegex(args[1].string(), modifiers, ctx);
  if (!compiled) return Value();
  std::optional<bool> found = SearchRegex(compiled.get(), args[0].string(), ctx);
  return found ? Value::Boolean(*found) : Value();
}

}  // namespace

void RegisterStringFunctions(FunctionRegistry& registry) {
  registry.AddScalar("CONCAT", 2, -1, Concat);
  registry.AddScalar("CONTAINS", 2, 3, Contains);
  registry.AddScalar("CONTAINS_ALL_CI", 2, -1, ContainsAllCi);
  registry.AddScalar("CONTAINS_ALL_CS", 2, -1, ContainsAllCs);
  registry.AddScalar("CONTAINS_ANY_CI", 2, -1, ContainsAnyCi);
  registry.AddScalar("CONTAINS_ANY_CS", 2, -1, ContainsAnyCs);
  registry.AddScalar("ENDSWITH", 2, 3, EndsWith);
  registry.AddScalar("INDEX_OF", 2, 3, IndexOf);
  registry.AddScalar("LASTINDEXOF", 2, 3, LastIndexOf);
  registry.AddScalar("LASTSUBSTRINGAFTER", 2, 2, LastSubstringAfter);
  registry.AddScalar("LASTSUBSTRINGBEFORE", 2, 2, LastSubstringBefore);
  registry.AddScalar("LEFT", 2, 2, Left);
  registry.AddScalar("LENGTH", 1, 1, Length);
  registry.AddScalar("LOWER", 1, 1, Lower);
  registry.AddScalar("LTRIM", 1, 2, LTrim);
  registry.AddScalar("RegexMatch", 2, 3, RegexMatch);
  registry.AddScalar("REPLACE", 3, 3, Replace);
  registry.AddScalar("REPLICATE", 2, 2, Replicate);
  registry.AddScalar("REVERSE", 1, 1, Reverse);
  registry.AddScalar("RIGHT", 2, 2, Right);
  registry.AddScalar("RTRIM", 1, 2, RTrim);
  registry.AddScalar("STARTSWITH", 2, 3, StartsWith);
  registry.AddScalar("StringEquals", 2, 3, StringEquals);
  registry.AddScalar("StringJoin", 2, 2, StringJoin);
  registry.AddScalar("StringSplit", 2, 2, StringSplit);
  registry.AddScalar("SUBSTRING", 3, 3, Substring);
  registry.AddScalar("SUBSTRINGAFTER", 2, 2, SubstringAfter);
  registry.AddScalar("SUBSTRINGBEFORE", 2, 2, SubstringBefore);
  registry.AddScalar("TRIM", 1, 2, Trim);
  registry.AddScalar("UPPER", 1, 1, Upper);
}

}  // namespace cosmos::query
