#include "query/execution/evaluator.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "query/vector_search.h"

namespace cosmos::query {
namespace {

std::optional<bool> AsBool(const Value& v) {
  if (v.is_boolean()) return v.boolean();
  return std::nullopt;
}

Value FromOptionalBool(std::optional<bool> b) { return b ? Value::Boolean(*b) : Value(); }

Value NumberOrUndefined(double d) { return std::isfinite(d) ? Value::Number(d) : Value(); }

// Bitwise operators work on 32-bit integers, as in JavaScript.
int32_t ToInt32(double d) {
  if (!std::isfinite(d)) return 0;
  double t = std::fmod(std::trunc(d), 4294967296.0);
  if (t < 0) t += 4294967296.0;
  return static_cast<int32_t>(static_cast<uint32_t>(t));
}

Value EvaluateBinary(const Expr& e, const Row& row, EvalContext& ctx) {
  BinaryOp op = e.binary_op;
  if (op == BinaryOp::kAnd || op == BinaryOp::kOr) {
    std::optional<bool> left = AsBool(Evaluate(*e.children[0], row, ctx));
    bool dominant = op == BinaryOp::kOr;  // true decides OR, false decides AND
    if (left == dominant) return Value::Boolean(dominant);
    std::optional<bool> right = AsBool(Evaluate(*e.children[1], row, ctx));
    if (right == dominant) return Value::Boolean(dominant);
    if (left && right) return Value::Boolean(!dominant);
    return Value();
  }
  Value a = Evaluate(*e.children[0], row, ctx);
  Value b = Evaluate(*e.children[1], row, ctx);
  switch (op) {
    case BinaryOp::kEq: return FromOptionalBool(Equals(a, b));
    case BinaryOp::kNotEq: {
      // Documented: != between two objects or two arrays is undefined, although = compares them.
      if ((a.is_array() && b.is_array()) || (a.is_object() && b.is_object())) return Value();
      auto eq = Equals(a, b);
      return eq ? Value::Boolean(!*eq) : Value();
    }
    case BinaryOp::kLt:
    case BinaryOp::kLtEq:
    case BinaryOp::kGt:
    case BinaryOp::kGtEq: {
      auto c = CompareSameKind(a, b);
      if (!c) return Value();
      bool r = op == BinaryOp::kLt ? *c < 0 : op == BinaryOp::kLtEq ? *c <= 0 : op == BinaryOp::kGt ? *c > 0 : *c >= 0;
      return Value::Boolean(r);
    }
    case BinaryOp::kConcat:
      if (!a.is_string() || !b.is_string()) return Value();
      return Value::String(a.string() + b.string());
    default: break;
  }
  if (!a.is_number() || !b.is_number()) return Value();
  double x = a.number(), y = b.number();
  switch (op) {
    case BinaryOp::kAdd: return NumberOrUndefined(x + y);
    case BinaryOp::kSub: return NumberOrUndefined(x - y);
    case BinaryOp::kMul: return NumberOrUndefined(x * y);
    case BinaryOp::kDiv: return NumberOrUndefined(x / y);
    case BinaryOp::kMod: return NumberOrUndefined(std::fmod(x, y));
    case BinaryOp::kBitAnd: return Value::Number(ToInt32(x) & ToInt32(y));
    case BinaryOp::kBitOr: return Value::Number(ToInt32(x) | ToInt32(y));
    case BinaryOp::kBitXor: return Value::Number(ToInt32(x) ^ ToInt32(y));
    case BinaryOp::kShiftLeft:
      return Value::Number(static_cast<int32_t>(static_cast<uint32_t>(ToInt32(x)) << (ToInt32(y) & 31)));
    case BinaryOp::kShiftRight: return Value::Number(ToInt32(x) >> (ToInt32(y) & 31));
    case BinaryOp::kShiftRightZeroFill:
      return Value::Number(static_cast<double>(static_cast<uint32_t>(ToInt32(x)) >> (ToInt32(y) & 31)));
    default: return Value();
  }
}

Value EvaluateUnary(const Expr& e, const Row& row, EvalContext& ctx) {
  Value v = Evaluate(*e.children[0], row, ctx);
  switch (e.unary_op) {
    case UnaryOp::kNot: return v.is_boolean() ? Value::Boolean(!v.boolean()) : Value();
    case UnaryOp::kNegate: return v.is_number() ? Value::Number(-v.number()) : Value();
    case UnaryOp::kPlus: return v.is_number() ? v : Value();
    case UnaryOp::kBitNot: return v.is_number() ? Value::Number(~ToInt32(v.number())) : Value();
  }
  return Value();
}

// Decodes one UTF-8 code point starting at text[i], advancing i.
char32_t NextCodePoint(std::string_view text, size_t& i) {
  unsigned char c = static_cast<unsigned char>(text[i]);
  int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
  char32_t cp = extra == 0 ? c : c & (0x3F >> extra);
  ++i;
  for (int k = 0; k < extra && i < text.size(); ++k, ++i) cp = (cp << 6) | (static_cast<unsigned char>(text[i]) & 0x3F);
  return cp;
}

std::u32string Decode(std::string_view text) {
  std::u32string out;
  for (size_t i = 0; i < text.size();) out.push_back(NextCodePoint(text, i));
  return out;
}

// One element of a LIKE pattern: a run of '%', or a test of exactly one character.
struct LikeToken {
  enum class Kind : uint8_t { kAnyRun, kAnyChar, kLiteral, kSet };
  Kind kind = Kind::kLiteral;
  bool negate = false;     // kSet written [^...]
  char32_t literal = 0;    // kLiteral
  size_t set_begin = 0;    // kSet: its members are pattern[set_begin, set_end)
  size_t set_end = 0;
};

// Splits the pattern once, left to right. The escape character makes the next one literal
// (but is itself literal at the end of the pattern); '[' without a later ']' is a literal '[';
// inside brackets neither the escape nor '%' and '_' are special.
std::vector<LikeToken> TokenizeLike(const std::u32string& p, std::optional<char32_t> escape) {
  std::vector<LikeToken> tokens;
  for (size_t pi = 0; pi < p.size();) {
    char32_t c = p[pi];
    LikeToken token;
    size_t close = std::u32string::npos;
    if (escape && c == *escape && pi + 1 < p.size()) {
      token.literal = p[pi + 1];
      pi += 2;
    } else if (c == U'%') {
      ++pi;
      if (!tokens.empty() && tokens.back().kind == LikeToken::Kind::kAnyRun) continue;  // %% is %
      token.kind = LikeToken::Kind::kAnyRun;
    } else if (c == U'_') {
      token.kind = LikeToken::Kind::kAnyChar;
      ++pi;
    } else if (c == U'[' && (close = p.find(U']', pi + 1)) != std::u32string::npos) {
      token.kind = LikeToken::Kind::kSet;
      size_t k = pi + 1;
      token.negate = k < close && p[k] == U'^';
      token.set_begin = token.negate ? k + 1 : k;
      token.set_end = close;
      pi = close + 1;
    } else {
      token.literal = c;
      ++pi;
    }
    tokens.push_back(token);
  }
  return tokens;
}

// Whether a one-character token accepts `ch`. A set lists characters and ranges a-z; "[]" accepts
// nothing and "[^]" anything.
bool LikeAccepts(const LikeToken& token, const std::u32string& p, char32_t ch) {
  switch (token.kind) {
    case LikeToken::Kind::kAnyChar: return true;
    case LikeToken::Kind::kLiteral: return ch == token.literal;
    case LikeToken::Kind::kSet: {
      bool member = false;
      for (size_t k = token.set_begin; k < token.set_end && !member; ++k) {
        if (k + 2 < token.set_end && p[k + 1] == U'-') {
          member = ch >= p[k] && ch <= p[k + 2];
          k += 2;
        } else {
          member = ch == p[k];
        }
      }
      return member != token.negate;
    }
    case LikeToken::Kind::kAnyRun: break;
  }
  return false;
}

// Every token but '%' consumes exactly one character, so the classic greedy wildcard match is
// exact: on a mismatch only the most recent '%' needs to take one more character (an earlier
// '%' could not do better: the tokens since then already matched at their earliest place).
// No recursion, and at worst O(len(text) x len(pattern)) steps.
bool LikeMatchesDecoded(const std::u32string& s, const std::u32string& p, std::optional<char32_t> escape) {
  std::vector<LikeToken> tokens = TokenizeLike(p, escape);
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t si = 0, ti = 0;
  size_t star = kNone, star_si = 0;  // the last '%' seen and where its run currently ends
  while (si < s.size()) {
    if (ti < tokens.size() && tokens[ti].kind == LikeToken::Kind::kAnyRun) {
      star = ti++;
      star_si = si;
    } else if (ti < tokens.size() && LikeAccepts(tokens[ti], p, s[si])) {
      ++ti;
      ++si;
    } else if (star != kNone) {
      ti = star + 1;
      si = ++star_si;
    } else {
      return false;
    }
  }
  if (ti < tokens.size() && tokens[ti].kind == LikeToken::Kind::kAnyRun) ++ti;
  return ti == tokens.size();
}

Value LiteralValue(const Expr& e, EvalContext& ctx) {
  if (e.literal_undefined) return Value();
  // A view into the shared query tree: no copy of the literal per row.
  const auto& owner = ctx.query->root_ptr();
  return Value::View(std::shared_ptr<const Json>(owner, &e.literal), e.literal);
}

// udf.name(args): the arguments as evaluated (undefined ones included, as the service passes
// them), to the caller's user functions. A failure fails the query.
Value CallUserFunction(const Expr& e, const Row& row, EvalContext& ctx) {
  std::vector<Value> args;
  args.reserve(e.children.size());
  for (const auto& c : e.children) args.push_back(Evaluate(*c, row, ctx));
  auto started = std::chrono::steady_clock::now();
  Result<Value> result = ctx.functions.user_functions != nullptr
                             ? ctx.functions.user_functions->Call(e.name, args)
                             : Result<Value>(Status::BadRequest("'udf." + e.name +
                                                                "' is not a recognized user-defined function name."));
  // A call's work: one unit, and one more for every 4 µs it ran (scripts cost their time: 0.5 RU a
  // millisecond, as a stored procedure's, at 0.002 RU a unit).
  auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
  ctx.functions.work += 1 + static_cast<uint64_t>(elapsed.count()) / 4;
  if (!result.ok()) {
    if (ctx.functions.error.ok()) ctx.functions.error = result.status();
    return Value();
  }
  return std::move(*result);
}

}  // namespace

bool LikeMatches(std::string_view text, std::string_view pattern, std::optional<char32_t> escape) {
  return LikeMatchesDecoded(Decode(text), Decode(pattern), escape);
}

Value Evaluate(const Expr& e, const Row& row, EvalContext& ctx) {
  ++ctx.stats.expressions;
  switch (e.kind) {
    case ExprKind::kLiteral: return LiteralValue(e, ctx);
    case ExprKind::kParameter: {
      auto it = ctx.parameters->find(e.name);
      return it == ctx.parameters->end() ? Value() : it->second;
    }
    case ExprKind::kIdentifier: return row[static_cast<size_t>(e.slot)];
    case ExprKind::kProperty: return Evaluate(*e.children[0], row, ctx).Property(e.name);
    case ExprKind::kIndex: {
      Value base = Evaluate(*e.children[0], row, ctx);
      Value index = Evaluate(*e.children[1], row, ctx);
      if (index.is_string()) return base.Property(index.string());
      if (index.is_number()) return base.Element(index.number());
      return Value();
    }
    case ExprKind::kUnary: return EvaluateUnary(e, row, ctx);
    case ExprKind::kBinary: return EvaluateBinary(e, row, ctx);
    case ExprKind::kBetween: {
      Value v = Evaluate(*e.children[0], row, ctx);
      auto low = CompareSameKind(v, Evaluate(*e.children[1], row, ctx));
      auto high = CompareSameKind(v, Evaluate(*e.children[2], row, ctx));
      if (!low || !high) return Value();
      bool inside = *low >= 0 && *high <= 0;
      return Value::Boolean(inside != e.negated);
    }
    case ExprKind::kIn: {
      Value v = Evaluate(*e.children[0], row, ctx);
      if (v.is_undefined()) return Value();
      bool found = false;
      for (size_t i = 1; i < e.children.size() && !found; ++i) {
        found = Equals(v, Evaluate(*e.children[i], row, ctx)) == true;
      }
      return Value::Boolean(found != e.negated);
    }
    case ExprKind::kLike: {
      Value v = Evaluate(*e.children[0], row, ctx);
      Value pattern = Evaluate(*e.children[1], row, ctx);
      if (!v.is_string() || !pattern.is_string()) return Value();
      std::optional<char32_t> escape;
      if (e.children.size() > 2) {
        Value esc = Evaluate(*e.children[2], row, ctx);
        if (!esc.is_string() || esc.string().empty()) return Value();
        size_t i = 0;
        escape = NextCodePoint(esc.string(), i);
      }
      ctx.functions.work += 1 + v.string().size() / 64;
      return Value::Boolean(LikeMatches(v.string(), pattern.string(), escape) != e.negated);
    }
    case ExprKind::kConditional: {
      Value cond = Evaluate(*e.children[0], row, ctx);
      return Evaluate(IsTrue(cond) ? *e.children[1] : *e.children[2], row, ctx);
    }
    case ExprKind::kCoalesce: {
      Value v = Evaluate(*e.children[0], row, ctx);
      return v.is_undefined() ? Evaluate(*e.children[1], row, ctx) : v;
    }
    case ExprKind::kFunctionCall: {
      if (e.udf) return CallUserFunction(e, row, ctx);
      if (e.function->is_aggregate()) {
        return ctx.aggregate_results ? (*ctx.aggregate_results)[static_cast<size_t>(e.slot)] : Value();
      }
      std::vector<Value> args;
      args.reserve(e.children.size());
      for (const auto& c : e.children) args.push_back(Evaluate(*c, row, ctx));
      ctx.functions.call = &e;
      return e.function->scalar(args, ctx.functions);
    }
    case ExprKind::kArrayLiteral: {
      Json array = Json::array();
      for (const auto& c : e.children) {
        Value v = Evaluate(*c, row, ctx);
        if (!v.is_undefined()) array.push_back(v.ToJson());
      }
      return Value::FromJson(std::move(array));
    }
    case ExprKind::kObjectLiteral: {
      Json object = Json::object();
      for (const auto& [name, value_expr] : e.fields) {
        Value v = Evaluate(*value_expr, row, ctx);
        if (!v.is_undefined()) object[name] = v.ToJson();
      }
      return Value::FromJson(std::move(object));
    }
    case ExprKind::kScalarSubquery:
    case ExprKind::kExists:
    case ExprKind::kArraySubquery: {
      std::vector<Value> results;
      Status status = RunSubquery(*e.subquery, row, ctx, results);
      if (!status.ok()) {
        if (ctx.functions.error.ok()) ctx.functions.error = status;
        return Value();
      }
      if (e.kind == ExprKind::kExists) return Value::Boolean(!results.empty());
      if (e.kind == ExprKind::kScalarSubquery) return results.empty() ? Value() : results.front();
      Json array = Json::array();
      for (const auto& v : results) array.push_back(v.ToJson());
      return Value::FromJson(std::move(array));
    }
  }
  return Value();
}

bool ScoreDescends(const Expr& score, const EvalContext& ctx) {
  if (!IsSystemCall(score, "VectorDistance") && !IsSystemCall(score, "_VectorScore")) return true;
  VectorMetric metric = VectorMetric::kCosine;
  if (ctx.functions.vector_metrics != nullptr) {
    if (auto found = ctx.functions.vector_metrics->find(&score); found != ctx.functions.vector_metrics->end()) {
      metric = found->second;
    }
  }
  return MostSimilarFirstDescends(metric);
}

std::vector<bool> OrderDescending(const SelectQuery& q, const EvalContext& ctx) {
  std::vector<bool> descending;
  descending.reserve(q.order_by.size());
  for (const OrderByItem& item : q.order_by) {
    bool descends = item.descending;
    if (IsSimilarityOrder(item)) descends = ScoreDescends(*item.expr, ctx);
    // RANK: the score's own direction; a fused rank (RRF) is a score too.
    if (IsSystemCall(*item.expr, "RANK") && !item.expr->children.empty()) {
      descends = ScoreDescends(*item.expr->children[0], ctx);
    }
    descending.push_back(descends);
  }
  return descending;
}

}  // namespace cosmos::query
