// Mathematical functions: ABS ... TRUNC, NumberBin and the Int* family.
//
// Arguments that are not numbers give undefined. Results that leave the finite range (SQRT(-1),
// LOG(0), EXP(1000)) stay numbers, NaN or infinite, as in the service: IS_FINITE_NUMBER(SQRT(-1))
// is documented as false. (Reportedly the service answers 400 when such a number has to be
// written into a response; that check belongs to the response writer, not here.)
//
// The Int* functions take 64-bit signed integers (undefined for anything else, e.g. 1.5 or
// 2^64-1) and wrap around on overflow like C++ on two's complement; their results are built as
// JSON integers so that values beyond 2^53 keep every digit.
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <random>

#include "query/functions/registry.h"

namespace cosmos::query {
namespace {

using UnaryMath = double (*)(double);

// Rounding can yield -0 (CEILING(-0.5)), which would print as -0.0; we return 0 instead (the
// service's output for these cases is not documented).
double DropNegativeZero(double d) { return d == 0 ? 0.0 : d; }

// Wrappers rather than pointers to <cmath> functions, whose addresses are not guaranteed.
double Abs(double x) { return std::fabs(x); }
double Acos(double x) { return std::acos(x); }
double Asin(double x) { return std::asin(x); }
double Atan(double x) { return std::atan(x); }
double Cos(double x) { return std::cos(x); }
double Exp(double x) { return std::exp(x); }
double Log10(double x) { return std::log10(x); }
double Sin(double x) { return std::sin(x); }
double Sqrt(double x) { return std::sqrt(x); }
double Tan(double x) { return std::tan(x); }
double Degrees(double radians) { return radians * 180.0 / std::numbers::pi; }
double Radians(double degrees) { return degrees * std::numbers::pi / 180.0; }
double Cotangent(double x) { return 1.0 / std::tan(x); }
double Square(double x) { return x * x; }
double Sign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : x); }  // keeps NaN
double Ceiling(double x) { return DropNegativeZero(std::ceil(x)); }
double Floor(double x) { return DropNegativeZero(std::floor(x)); }
double Truncate(double x) { return DropNegativeZero(std::trunc(x)); }
// std::round rounds halfway cases away from zero, as documented (ROUND(-6.5) = -7).
double Round(double x) { return DropNegativeZero(std::round(x)); }

// One function per unary math operation: a template over the operation keeps the registrations
// a flat table while each entry still gets its own plain function pointer.
template <UnaryMath kOperation>
Value ApplyUnary(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_number()) return Value();
  return Value::Number(kOperation(args[0].number()));
}

Value Atn2(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_number() || !args[1].is_number()) return Value();
  return Value::Number(std::atan2(args[0].number(), args[1].number()));  // ATN2(y, x)
}

Value Power(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_number() || !args[1].is_number()) return Value();
  return Value::Number(std::pow(args[0].number(), args[1].number()));
}

Value Log(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_number()) return Value();
  if (args.size() == 1) return Value::Number(std::log(args[0].number()));
  if (!args[1].is_number()) return Value();
  // Through base-10 logarithms: LOG(2, 10) is documented as 0.3010299956639812, which the
  // natural-log ratio misses by one unit in the last place.
  return Value::Number(std::log10(args[0].number()) / std::log10(args[1].number()));
}

Value Pi(std::span<const Value>, FunctionContext& ctx) {
  ++ctx.work;
  return Value::Number(std::numbers::pi);
}

Value Rand(std::span<const Value>, FunctionContext& ctx) {
  ++ctx.work;
  thread_local std::mt19937_64 generator{std::random_device{}()};
  return Value::Number(std::uniform_real_distribution<double>(0.0, 1.0)(generator));
}

// NumberBin(x [, size]): x rounded down to a multiple of size (default 1); undefined for size 0.
Value NumberBin(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_number()) return Value();
  double bin_size = 1;
  if (args.size() > 1) {
    if (!args[1].is_number()) return Value();
    bin_size = args[1].number();
  }
  if (bin_size == 0) return Value();
  return Value::Number(DropNegativeZero(std::floor(args[0].number() / bin_size) * bin_size));
}

// --- 64-bit integer functions ---

constexpr double kTwoTo63 = 9223372036854775808.0;

// The value as a 64-bit signed integer, or nullopt when it is not an integer in that range.
std::optional<int64_t> AsInt64(const Value& v) {
  if (!v.is_number()) return std::nullopt;
  const Json& json = v.json();
  if (json.is_number_integer() && !json.is_number_unsigned()) return json.get<int64_t>();
  if (json.is_number_unsigned()) {
    uint64_t u = json.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  double d = json.get<double>();
  if (!std::isfinite(d) || std::trunc(d) != d || d < -kTwoTo63 || d >= kTwoTo63) return std::nullopt;
  return static_cast<int64_t>(d);
}

Value IntResult(int64_t n) { return Value::FromJson(Json(n)); }

// Two's complement wrap-around without signed-overflow undefined behaviour.
int64_t Wrap(uint64_t bits) { return static_cast<int64_t>(bits); }
uint64_t Bits(int64_t n) { return static_cast<uint64_t>(n); }

// Shift counts use their low six bits, as the x86 shift instructions the service runs on do.
int ShiftCount(int64_t n) { return static_cast<int>(n & 63); }

using IntOperation = std::optional<int64_t> (*)(int64_t, int64_t);

std::optional<int64_t> Add(int64_t a, int64_t b) { return Wrap(Bits(a) + Bits(b)); }
std::optional<int64_t> Subtract(int64_t a, int64_t b) { return Wrap(Bits(a) - Bits(b)); }
std::optional<int64_t> Multiply(int64_t a, int64_t b) { return Wrap(Bits(a) * Bits(b)); }
std::optional<int64_t> Divide(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;  // documented: IntDiv(10, 0) is undefined
  if (b == -1) return Wrap(0 - Bits(a));  // INT64_MIN / -1 wraps to INT64_MIN
  return a / b;
}
std::optional<int64_t> Modulo(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;  // documented: IntMod(12, 0) is undefined
  if (b == -1) return 0;            // avoids the INT64_MIN % -1 trap
  return a % b;                     // sign of the dividend, as in C++
}
std::optional<int64_t> BitAnd(int64_t a, int64_t b) { return a & b; }
std::optional<int64_t> BitOr(int64_t a, int64_t b) { return a | b; }
std::optional<int64_t> BitXor(int64_t a, int64_t b) { return a ^ b; }
std::optional<int64_t> LeftShift(int64_t a, int64_t b) { return Wrap(Bits(a) << ShiftCount(b)); }
std::optional<int64_t> RightShift(int64_t a, int64_t b) { return a >> ShiftCount(b); }  // arithmetic

template <IntOperation kOperation>
Value ApplyInt(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  std::optional<int64_t> a = AsInt64(args[0]), b = AsInt64(args[1]);
  if (!a || !b) return Value();
  std::optional<int64_t> result = kOperation(*a, *b);
  return result ? IntResult(*result) : Value();
}

Value IntBitNot(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  std::optional<int64_t> a = AsInt64(args[0]);
  return a ? IntResult(~*a) : Value();
}

}  // namespace

void RegisterMathFunctions(FunctionRegistry& registry) {
  struct Unary {
    const char* name;
    ScalarFunction function;
  };
  const Unary unary[] = {
      {"ABS", ApplyUnary<Abs>},
      {"ACOS", ApplyUnary<Acos>},
      {"ASIN", ApplyUnary<Asin>},
      {"ATAN", ApplyUnary<Atan>},
      {"CEILING", ApplyUnary<Ceiling>},
      {"COS", ApplyUnary<Cos>},
      {"COT", ApplyUnary<Cotangent>},
      {"DEGREES", ApplyUnary<Degrees>},
      {"EXP", ApplyUnary<Exp>},
      {"FLOOR", ApplyUnary<Floor>},
      {"LOG10", ApplyUnary<Log10>},
      {"RADIANS", ApplyUnary<Radians>},
      {"ROUND", ApplyUnary<Round>},
      {"SIGN", ApplyUnary<Sign>},
      {"SIN", ApplyUnary<Sin>},
      {"SQRT", ApplyUnary<Sqrt>},
      {"SQUARE", ApplyUnary<Square>},
      {"TAN", ApplyUnary<Tan>},
      {"TRUNC", ApplyUnary<Truncate>},
  };
  for (const Unary& entry : unary) registry.AddScalar(entry.name, 1, 1, entry.function);

  registry.AddScalar("ATN2", 2, 2, Atn2);
  registry.AddScalar("LOG", 1, 2, Log);
  registry.AddScalar("NumberBin", 1, 2, NumberBin);
  registry.AddScalar("PI", 0, 0, Pi);
  registry.AddScalar("POWER", 2, 2, Power);
  registry.AddScalar("RAND", 0, 0, Rand);

  registry.AddScalar("IntAdd", 2, 2, ApplyInt<Add>);
  registry.AddScalar("IntSub", 2, 2, ApplyInt<Subtract>);
  registry.AddScalar("IntMul", 2, 2, ApplyInt<Multiply>);
  registry.AddScalar("IntDiv", 2, 2, ApplyInt<Divide>);
  registry.AddScalar("IntMod", 2, 2, ApplyInt<Modulo>);
  registry.AddScalar("IntBitAnd", 2, 2, ApplyInt<BitAnd>);
  registry.AddScalar("IntBitOr", 2, 2, ApplyInt<BitOr>);
  registry.AddScalar("IntBitXor", 2, 2, ApplyInt<BitXor>);
  registry.AddScalar("IntBitLeftShift", 2, 2, ApplyInt<LeftShift>);
  registry.AddScalar("IntBitRightShift", 2, 2, ApplyInt<RightShift>);
  registry.AddScalar("IntBitNot", 1, 1, IntBitNot);
}

}  // namespace cosmos::query
