#include "query/execution/executor.h"

#include <algorithm>

#include "common/encoding.h"
#include "common/json_parse.h"
#include "query/execution/select_runner.h"
#include "query/full_text_search.h"
#include "query/vector_search.h"

namespace cosmos::query {
namespace {

constexpr int kTokenVersion = 1;
// A streaming page looks at the clock once per this many documents.
constexpr uint64_t kDocumentsPerClockCheck = 32;

std::string Serialize(const Value& v) {
  return v.json().dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

// A document the source loaded counts as retrieved; one it answered from the index alone does
// not (the source counts that as an index entry read).
void CountLoaded(const SourceDocument& doc, ExecutionStats& stats) {
  if (doc.index_only) return;
  stats.documents_loaded++;
  stats.document_bytes += doc.bytes;
}

// Counts in a token stay far below this: a larger one was not issued by this server.
constexpr uint64_t kMaxTokenCount = uint64_t{1} << 40;

bool IsCount(const Json* value) {
  return value != nullptr && value->is_number_unsigned() && value->get<uint64_t>() < kMaxTokenCount;
}

// The member `name` of a token, or nullptr. (Json::value() would throw on a member of another
// type than its default.)
const Json* Member(const Json& token, const char* name) {
  auto found = token.find(name);
  return found == token.end() ? nullptr : &*found;
}

bool IsKind(const Json& token, const char* kind) {
  const Json* member = Member(token, "k");
  return member != nullptr && member->is_string() && member->get_ref<const std::string&>() == kind;
}

// Whether `token` is one this executor issues for `query`'s shape: a streaming token names a
// document position and counts; a materialized one a row index and, for an ORDER BY, one
// encoded key per ORDER BY item.
bool IsTokenOf(const BoundQuery& query, const Json& token) {
  if (!token.is_object()) return false;
  const Json* version = Member(token, "v");
  if (version == nullptr || !version->is_number_integer() || *version != kTokenVersion) return false;
  if (query.is_streaming()) {
    return IsKind(token, "s") && token.contains("p") && IsCount(Member(token, "r")) && IsCount(Member(token, "n"));
  }
  if (!IsKind(token, "m") || !IsCount(Member(token, "s"))) return false;
  const Json* keys = Member(token, "key");
  if (keys == nullptr) return true;
  if (!keys->is_array() || keys->size() != query.root().order_by.size() || !IsCount(Member(token, "r")) ||
      !token.contains("p")) {
    return false;
  }
  for (const Json& key : *keys) {
    if (!key.is_object() || key.size() > 1 || (key.size() == 1 && !key.contains("v"))) return false;
  }
  const Json* sort_key = Member(token, "sk");
  return sort_key == nullptr || (sort_key->is_string() && HexDecode(sort_key->get_ref<const std::string&>()).has_value());
}

Status MalformedToken() { return Status::BadRequest("Invalid Continuation Token: the query cannot resume from it."); }

// Adds `row` to the page when it fits; false when the page is full.
bool AddToPage(QueryPage& page, const Value& row, const PageRequest& request, size_t& page_bytes) {
  if (page.rows.size() >= request.max_items) return false;
  std::string text = Serialize(row);
  if (!page.rows.empty() && page_bytes + text.size() > request.max_bytes) return false;
  page_bytes += text.size();
  page.rows.push_back(std::move(text));
  return true;
}

Result<QueryPage> StreamingPage(const BoundQuery& query, EvalContext& ctx, const OpenSource& open_source,
                                const PageRequest& request, const Json& token, uint64_t offset, uint64_t end) {
  const SelectQuery& q = query.root();
  QueryPage page;
  size_t page_bytes = 0;
  SelectRunner runner(q, ctx);
  std::vector<Value> produced_rows;

  if (q.from.empty()) {  // SELECT without FROM: one input row, no documents
    Row row;
    COSMOS_RETURN_IF_ERROR(runner.Consume(row, &produced_rows));
    for (uint64_t i = offset; i < produced_rows.size() && i < end; ++i) {
      if (!AddToPage(page, produced_rows[i], request, page_bytes)) break;
    }
    return page;
  }

  const Json* start = token.is_object() ? &token["p"] : nullptr;
  uint64_t skip_in_first = token.is_object() ? token["r"].get<uint64_t>() : 0;
  uint64_t produced = token.is_object() ? token["n"].get<uint64_t>() : 0;
  COSMOS_ASSIGN_OR_RETURN(auto source, open_source(start));
  const auto deadline = std::chrono::steady_clock::now() + request.time_budget;
  SourceDocument doc;
  bool first_document = true;
  for (uint64_t documents = 0; produced < end; ++documents) {
    if (documents > 0 && documents % kDocumentsPerClockCheck == 0 && std::chrono::steady_clock::now() > deadline) {
      // Resume at the document just read, past every row it produced.
      page.continuation = Json{{"v", kTokenVersion}, {"k", "s"}, {"p", doc.position}, {"r", produced_rows.size()},
                               {"n", produced}}.dump();
      return page;
    }
    COSMOS_ASSIGN_OR_RETURN(bool more, source->Next(doc));
    if (!more) break;
    CountLoaded(doc, ctx.stats);
    Row row(1);
    row[0] = Value::View(doc.json, *doc.json);
    produced_rows.clear();
    runner.SetWhereSatisfied(doc.satisfies_where);
    COSMOS_RETURN_IF_ERROR(runner.Consume(row, &produced_rows));
    size_t first = 0;
    if (first_document && start != nullptr && doc.position == *start) first = skip_in_first;
    first_document = false;
    for (size_t i = first; i < produced_rows.size() && produced < end; ++i, ++produced) {
      if (produced < offset) continue;
      if (!AddToPage(page, produced_rows[i], request, page_bytes)) {
        page.continuation = Json{{"v", kTokenVersion}, {"k", "s"}, {"p", doc.position}, {"r", i}, {"n", produced}}.dump();
        return page;
      }
    }
  }
  return page;
}

// A sorted page's request to start after the last row of the page before (MaterializedPage).
struct ResumeAfter {
  Json at;            // what OpenSource receives: {"sort_key": ..., "position": ...}
  uint64_t keep = 0;  // rows to keep when the source takes it: those after the last one returned
  bool taken = false;  // set when the source yields only the documents after it
};

// Evaluates `q` over the whole container (TOP/OFFSET/LIMIT applied). A container subquery in
// FROM is evaluated first, and its rows become this select's input.
Status EvaluateOverContainer(const SelectQuery& q, EvalContext& ctx, const OpenSource& open_source,
                             std::optional<uint64_t> keep, std::vector<Value>& out,
                             std::vector<RowOrigin>* origins = nullptr, ResumeAfter* resume = nullptr) {
  std::vector<Value> streamed;
  if (q.from.empty()) {
    SelectRunner runner(q, ctx, keep);
    Row row;
    COSMOS_RETURN_IF_ERROR(runner.Consume(row, &streamed));
    return runner.Finish(streamed, out, origins);
  }
  if (ctx.query->info(q).container_subquery) {
    SelectRunner runner(q, ctx, keep);
    std::vector<Value> inner;
    COSMOS_RETURN_IF_ERROR(EvaluateOverContainer(*q.from[0].collection->subquery, ctx, open_source, std::nullopt, inner));
    for (const Value& v : inner) COSMOS_RETURN_IF_ERROR(runner.ConsumeFirstSource(v, &streamed));
    return runner.Finish(streamed, out, origins);
  }
  COSMOS_ASSIGN_OR_RETURN(auto source, open_source(resume != nullptr ? &resume->at : nullptr));
  if (resume != nullptr && source->resumed()) {
    resume->taken = true;
    keep = resume->keep;
  }
  SelectRunner runner(q, ctx, keep);
  // A source in ORDER BY order: once the runner holds `keep` rows, only documents whose key ties
  // with the one that filled it can still sort among them.
  bool ordered = keep.has_value() && source->in_order_by_order();
  std::optional<std::string> boundary;
  SourceDocument doc;
  while (true) {
    COSMOS_ASSIGN_OR_RETURN(bool more, source->Next(doc));
    if (!more) break;
    if (boundary && doc.sort_key != *boundary) break;
    CountLoaded(doc, ctx.stats);
    Row row(1);
    row[0] = Value::View(doc.json, *doc.json);
    ctx.document_position = &doc.position;
    ctx.document_sort_key = ordered ? &doc.sort_key : nullptr;
    ctx.document_order_keys = doc.order_keys.empty() ? nullptr : &doc.order_keys;
    runner.SetWhereSatisfied(doc.satisfies_where);
    Status consumed = runner.Consume(row, &streamed);
    ctx.document_position = nullptr;
    ctx.document_sort_key = nullptr;
    ctx.document_order_keys = nullptr;
    COSMOS_RETURN_IF_ERROR(consumed);
    if (ordered && !boundary && runner.rows_collected() >= *keep) boundary = doc.sort_key;
  }
  return runner.Finish(streamed, out, origins);
}

// ORDER BY keys in a continuation token: {"v": value}, or {} for undefined.
Json EncodeKeys(const std::vector<Value>& keys) {
  Json encoded = Json::array();
  for (const Value& key : keys) encoded.push_back(key.is_undefined() ? Json::object() : Json{{"v", key.ToJson()}});
  return encoded;
}

std::vector<Value> DecodeKeys(const Json& encoded) {
  std::vector<Value> keys;
  for (const Json& key : encoded) keys.push_back(key.contains("v") ? Value::FromJson(key["v"]) : Value());
  return keys;
}

// Compares a row's origin with the one a token names, in the select's sort order: keys in their
// directions, then document position (equal keys keep source order).
int CompareOrigins(const RowOrigin& a, const RowOrigin& b, const std::vector<bool>& descending) {
  for (size_t i = 0; i < descending.size() && i < a.keys.size() && i < b.keys.size(); ++i) {
    int c = CompareTotal(a.keys[i], b.keys[i]);
    if (c != 0) return descending[i] ? -c : c;
  }
  if (a.position < b.position) return -1;
  if (b.position < a.position) return 1;
  return 0;
}

// Materialized selects are recomputed for every page. ORDER BY pages resume after the last row's
// (keys, document position), which stays right when the source shrank to a part of the documents
// (a child range after a split); other shapes skip the number of rows already returned. A source
// in ORDER BY order starts after the last row instead (its sort key, "sk"), so a page reads only
// its own rows; OFFSET counts rows from the first, so a query with one recomputes.
Result<QueryPage> MaterializedPage(const BoundQuery& query, EvalContext& ctx, const OpenSource& open_source,
                                   const PageRequest& request, const Json& token, uint64_t offset, uint64_t end) {
  const SelectQuery& q = query.root();
  uint64_t skip = token.is_object() ? token["s"].get<uint64_t>() : 0;
  // Rows past the end of this page (plus one to know whether more follow) can be dropped early.
  uint64_t keep = std::min(end, offset + skip + request.max_items + 1);
  bool keyset = SelectRunner::TracksOrigins(q, ctx.query->info(q));
  const uint64_t left = end - std::min(end, skip);  // rows TOP or LIMIT still allow
  std::optional<ResumeAfter> resume;
  if (keyset && offset == 0 && token.is_object() && token.contains("sk") && token.contains("key")) {
    resume.emplace();
    resume->at = Json{{"sort_key", token["sk"]}, {"position", token["p"]}};
    resume->keep = std::min(left, request.max_items + 1);
  }
  std::vector<Value> rows;
  std::vector<RowOrigin> origins;
  COSMOS_RETURN_IF_ERROR(EvaluateOverContainer(q, ctx, open_source, keep, rows, keyset ? &origins : nullptr,
                                               resume ? &*resume : nullptr));
  // Rows returned before the first of `rows`: none when the source started after them, whose
  // rows the query's TOP or LIMIT then cuts at what is left of it.
  uint64_t returned_before = resume && resume->taken ? skip : 0;
  if (resume && resume->taken && rows.size() > left) {
    rows.resize(left);
    origins.resize(rows.size());
  }
  const std::vector<bool> descending = OrderDescending(q, ctx);
  uint64_t index = skip;  // a token with keys (every resumed one) finds its place below
  if (keyset && token.is_object() && token.contains("key")) {
    RowOrigin last{DecodeKeys(token["key"]), token["p"], std::string()};
    uint64_t repeats = token["r"].get<uint64_t>();  // rows at exactly `last` already returned
    index = 0;
    while (index < rows.size()) {
      int c = CompareOrigins(origins[index], last, descending);
      if (c > 0 || (c == 0 && repeats == 0)) break;
      if (c == 0) --repeats;
      ++index;
    }
  }
  QueryPage page;
  size_t page_bytes = 0;
  uint64_t first = index;
  for (; index < rows.size(); ++index) {
    if (!AddToPage(page, rows[index], request, page_bytes)) break;
  }
  if (index < rows.size()) {
    Json next{{"v", kTokenVersion}, {"k", "m"}, {"s", returned_before + index}};
    if (keyset && index > first) {
      const RowOrigin& last = origins[index - 1];
      uint64_t repeats = 0;  // rows of the same document with the same keys, up to the last
      for (uint64_t i = index; i-- > 0 && CompareOrigins(origins[i], last, descending) == 0;) ++repeats;
      next["key"] = EncodeKeys(last.keys);
      next["p"] = last.position;
      next["r"] = repeats;
      if (!last.sort_key.empty()) next["sk"] = HexEncode(last.sort_key);
    } else if (keyset && token.is_object() && token.contains("key")) {
      for (const char* member : {"key", "p", "r", "sk"}) {
        if (token.contains(member)) next[member] = token[member];
      }
    }
    page.continuation = next.dump();
  }
  return page;
}

}  // namespace

Result<std::unordered_map<std::string, Value>> ParseParameters(const Json& parameters) {
  std::unordered_map<std::string, Value> result;
  if (parameters.is_null()) return result;
  if (!parameters.is_array()) return Status::BadRequest("The query parameters must be an array.");
  for (const auto& p : parameters) {
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string()) {
      return Status::BadRequest("Each query parameter needs a string 'name'.");
    }
    auto value = p.find("value");
    result[p["name"].get<std::string>()] = value == p.end() ? Value() : Value::FromJson(*value);
  }
  return result;
}

Result<QueryPage> ExecutePage(const BoundQuery& query, const Json& parameters, const OpenSource& open_source,
                              const PageRequest& request) {
  COSMOS_ASSIGN_OR_RETURN(auto params, ParseParameters(parameters));
  EvalContext ctx;
  ctx.query = &query;
  ctx.parameters = &params;
  ctx.functions.query_start = request.now;
  ctx.functions.user_functions = request.user_functions;
  const auto vector_metrics =
      ResolveVectorMetrics(query.root(), parameters, request.vector_embedding_policy ? *request.vector_embedding_policy : Json());
  ctx.functions.vector_metrics = &vector_metrics;
  const auto packed_vector_calls =
      PackedVectorCalls(query.root(), request.vector_embedding_policy ? *request.vector_embedding_policy : Json());
  ctx.functions.packed_vector_calls = &packed_vector_calls;
  if (request.vector_embedding_policy != nullptr) {
    COSMOS_RETURN_IF_ERROR(CheckQueryVectors(query.root(), parameters, *request.vector_embedding_policy));
  }
  const auto text_languages =
      ResolveTextLanguages(query.root(), request.full_text_policy ? *request.full_text_policy : Json());
  ctx.functions.text_languages = &text_languages;
  std::unordered_map<const Expr*, Bm25Statistics> full_text_statistics = request.known_full_text_statistics;
  const std::vector<const Expr*> ranked = RankComponentsOf(query.root()).scores;
  if (std::any_of(ranked.begin(), ranked.end(), [&](const Expr* s) {
        return IsSystemCall(*s, "FullTextScore") && !full_text_statistics.contains(s);
      })) {
    auto documents = request.open_all_documents ? request.open_all_documents() : open_source(nullptr);
    if (!documents.ok()) return documents.status();
    uint64_t documents_read = 0;
    COSMOS_ASSIGN_OR_RETURN(auto gathered, GatherFullTextStatistics(query.root(), parameters, text_languages,
                                                                    **documents, documents_read));
    full_text_statistics.merge(gathered);
    ctx.stats.documents_loaded += documents_read;
  }
  ctx.functions.full_text_statistics = &full_text_statistics;
  ctx.cancellation = Cancellation(request.cancel_at, request.stop);

  Json token;
  if (request.continuation && !request.continuation->empty()) {
    token = ParseJson(*request.continuation);
    if (!IsTokenOf(query, token)) return MalformedToken();
  }

  std::optional<uint64_t> top, limit;
  uint64_t offset = 0;
  COSMOS_RETURN_IF_ERROR(SelectRunner::Counts(query.root(), ctx, top, offset, limit));
  uint64_t end = UINT64_MAX;
  if (top) end = std::min(end, *top);
  if (limit) end = std::min(end, offset + *limit);

  auto page = query.is_streaming() ? StreamingPage(query, ctx, open_source, request, token, offset, end)
                                   : MaterializedPage(query, ctx, open_source, request, token, offset, end);
  if (!page.ok()) return page;
  page->stats = ctx.stats;
  page->stats.output_rows = page->rows.size();
  for (const auto& r : page->rows) page->stats.output_bytes += r.size();
  page->function_work = ctx.functions.work;
  return page;
}

}  // namespace cosmos::query
