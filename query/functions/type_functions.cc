// Type checking and conversion functions: IS_ARRAY ... IS_STRING, IS_FINITE_NUMBER,
// IS_INTEGER, IIF, ObjectToArray, StringToArray/Boolean/Null/Number/Object and ToString.
//
// The IS_* functions answer false (never undefined) for an undefined argument. The StringTo*
// functions parse their argument as JSON text (surrounding whitespace allowed, single-quoted
// strings invalid) and give undefined unless it is valid JSON of the wanted kind.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "common/json_parse.h"
#include "query/functions/registry.h"

namespace cosmos::query {
namespace {

// ---------------------------------------------------------------------------------------------
// IS_* and IIF

Value IsArray(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, 0);
  return Value::Boolean(args[0].is_array());
}
Value IsBool(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, 0);
  return Value::Boolean(args[0].is_boolean());
}
Value IsDefined(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, 0);
  return Value::Boolean(!args[0].is_undefined());
}
Value IsNull(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, 0);
  return Value::Boolean(args[0].is_null());
}
Value IsNumber(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, 0);
  return Value::Boolean(args[0].is_number());
}
Value IsObject(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, 0);
  return Value::Boolean(args[0].is_object());
}
Value IsString(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, 0);
  return Value::Boolean(args[0].is_string());
}
Value IsPrimitive(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, 0);
  const Value& v = args[0];
  return Value::Boolean(v.is_null() || v.is_boolean() || v.is_number() || v.is_string());
}

Value IsFiniteNumber(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, 0);
  return Value::Boolean(args[0].is_number() && std::isfinite(args[0].number()));
}

// True for numbers that are 64-bit signed integers. JSON integers keep their exact value, so
// 9223372036854775807 qualifies while 18446744073709551615 does not.
Value IsInteger(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, 0);
  if (!args[0].is_number()) return Value::Boolean(false);
  const Json& number = args[0].json();
  if (number.is_number_unsigned())
    return Value::Boolean(number.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX));
  if (number.is_number_integer()) return Value::Boolean(true);
  double d = number.get<double>();
  constexpr double kTwoPow63 = 9223372036854775808.0;
  return Value::Boolean(std::trunc(d) == d && d >= -kTwoPow63 && d < kTwoPow63);
}

// IIF(condition, if_true, otherwise): anything but the boolean true picks `otherwise`.
Value Iif(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, 0);
  return IsTrue(args[0]) ? args[1] : args[2];
}

// ObjectToArray(object [, key_name [, value_name]]): one {k, v} object per property.
Value ObjectToArray(std::span<const Value> args, FunctionContext& ctx) {
  ChargeText(ctx, 0);
  if (!args[0].is_object()) return Value();
  for (size_t i = 1; i < args.size(); ++i)
    if (!args[i].is_string()) return Value();
  std::string key_name = args.size() > 1 ? args[1].string() : "k";
  std::string value_name = args.size() > 2 ? args[2].string() : "v";
  Json pairs = Json::array();
  const Json& object = args[0].json();
  for (auto it = object.begin(); it != object.end(); ++it) {
    Json pair = Json::object();
    pair[key_name] = it.key();
    pair[value_name] = it.value();
    pairs.push_back(std::move(pair));
  }
  ctx.work += pairs.size() / 16;
  return Value::FromJson(std::move(pairs));
}

// ---------------------------------------------------------------------------------------------
// StringTo*: parse JSON text, keep it only if it is of the wanted kind.

Value ParseAs(std::span<const Value> args, FunctionContext& ctx, Kind wanted) {
  if (!args[0].is_string()) {
    ChargeText(ctx, 0);
    return Value();
  }
  const std::string& text = args[0].string();
  ChargeText(ctx, text.size());
  // Text nested deeper than a document may be is no value a query could go on with.
  if (ShapeOfJsonText(text).depth > kMaxJsonNesting) return Value();
  Value parsed = Value::FromJson(ParseJson(text));
  if (parsed.kind() != wanted) return Value();
  if (wanted == Kind::kNumber) return Value::Number(parsed.number());
  return parsed;
}

Value StringToArray(std::span<const Value> args, FunctionContext& ctx) {
  return ParseAs(args, ctx, Kind::kArray);
}
Value StringToBoolean(std::span<const Value> args, FunctionContext& ctx) {
  return ParseAs(args, ctx, Kind::kBoolean);
}
Value StringToNull(std::span<const Value> args, FunctionContext& ctx) {
  return ParseAs(args, ctx, Kind::kNull);
}
Value StringToNumber(std::span<const Value> args, FunctionContext& ctx) {
  return ParseAs(args, ctx, Kind::kNumber);
}
Value StringToObject(std::span<const Value> args, FunctionContext& ctx) {
  return ParseAs(args, ctx, Kind::kObject);
}

// ---------------------------------------------------------------------------------------------
// ToString

// Formats a number the way the service (and JavaScript's Number#toString) does: the shortest
// digits that round-trip, integral values without a fraction, exponent notation only for very
// large or small magnitudes ("1e+21", "1e-7"), and "NaN" / "Infinity" for non-finite values.
std::string FormatNumber(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d < 0 ? "-Infinity" : "Infinity";
  if (d == 0) return "0";

  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), d, std::chars_format::scientific);
  std::string_view scientific(buffer, result.ptr - buffer);  // e.g. "-1.2345e+02"
  std::string sign = scientific.front() == '-' ? "-" : "";
  if (!sign.empty()) scientific.remove_prefix(1);
  size_t e = scientific.find('e');
  std::string digits;
  for (char c : scientific.substr(0, e))
    if (c != '.') digits += c;
  int exponent = 0;
  std::string_view exponent_text = scientific.substr(e + 1);
  if (exponent_text.front() == '+') exponent_text.remove_prefix(1);
  std::from_chars(exponent_text.data(), exponent_text.data() + exponent_text.size(), exponent);

  // The value is 0.DIGITS x 10^point. Built by appending (GCC 12 misreports chained '+').
  int point = exponent + 1;
  int count = static_cast<int>(digits.size());
  std::string out = sign;
  if (count <= point && point <= 21) {
    out.append(digits).append(point - count, '0');
  } else if (0 < point && point <= 21) {
    out.append(digits, 0, point).append(1, '.').append(digits, point);
  } else if (-6 < point && point <= 0) {
    out.append("0.").append(-point, '0').append(digits);
  } else {
    out.append(1, digits[0]);
    if (count > 1) out.append(1, '.').append(digits, 1);
    int shown = point - 1;
    out.append(1, 'e').append(1, shown >= 0 ? '+' : '-').append(std::to_string(std::abs(shown)));
  }
  return out;
}

// Compact JSON with numbers formatted as FormatNumber does.
void AppendJson(const Json& value, std::string& out) {
  switch (value.type()) {
    case Json::value_t::null: out += "null"; break;
    case Json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; break;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: out += FormatNumber(value.get<double>()); break;
    case Json::value_t::string:
      out += value.dump(-1, ' ', false, Json::error_handler_t::replace);
      break;
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const Json& element : value) {
        if (!first) out += ',';
        first = false;
        AppendJson(element, out);
      }
      out += ']';
      break;
    }
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) out += ',';
        first = false;
        out += Json(it.key()).dump(-1, ' ', false, Json::error_handler_t::replace);
        out += ':';
        AppendJson(it.value(), out);
      }
      out += '}';
      break;
    }
    default: break;  // binary and discarded values do not occur in query values
  }
}

Value ToString(std::span<const Value> args, FunctionContext& ctx) {
  const Value& v = args[0];
  if (v.is_undefined()) {
    ChargeText(ctx, 0);
    return Value();
  }
  if (v.is_string()) {
    ChargeText(ctx, 0);
    return v;
  }
  std::string text;
  AppendJson(v.json(), text);
  ChargeText(ctx, text.size());
  return Value::String(std::move(text));
}

}  // namespace

void RegisterTypeFunctions(FunctionRegistry& registry) {
  registry.AddScalar("IS_ARRAY", 1, 1, IsArray);
  registry.AddScalar("IS_BOOL", 1, 1, IsBool);
  // Undocumented, but the service answers it: the Java SDK's ORDER BY continuation filters use it.
  registry.AddScalar("IS_BOOLEAN", 1, 1, IsBool);
  registry.AddScalar("IS_DEFINED", 1, 1, IsDefined);
  registry.AddScalar("IS_FINITE_NUMBER", 1, 1, IsFiniteNumber);
  registry.AddScalar("IS_INTEGER", 1, 1, IsInteger);
  registry.AddScalar("IS_NULL", 1, 1, IsNull);
  registry.AddScalar("IS_NUMBER", 1, 1, IsNumber);
  registry.AddScalar("IS_OBJECT", 1, 1, IsObject);
  registry.AddScalar("IS_PRIMITIVE", 1, 1, IsPrimitive);
  registry.AddScalar("IS_STRING", 1, 1, IsString);
  registry.AddScalar("IIF", 3, 3, Iif);
  registry.AddScalar("ObjectToArray", 1, 3, ObjectToArray);
  registry.AddScalar("StringToArray", 1, 1, StringToArray);
  registry.AddScalar("StringToBoolean", 1, 1, StringToBoolean);
  registry.AddScalar("StringToNull", 1, 1, StringToNull);
  registry.AddScalar("StringToNumber", 1, 1, StringToNumber);
  registry.AddScalar("StringToObject", 1, 1, StringToObject);
  registry.AddScalar("ToString", 1, 1, ToString);
}

}  // namespace cosmos::query
