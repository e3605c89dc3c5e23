#include "engine/scripts/script_engine.h"

#include <js/Array.h>
#include <js/CallAndConstruct.h>
#include <js/CompilationAndEvaluation.h>
#include <js/ErrorReport.h>
#include <js/Exception.h>
#include <js/GCAPI.h>
#include <js/Initialization.h>
#include <js/Interrupt.h>
#include <js/Promise.h>
#include <js/PropertyAndElement.h>
#include <js/PropertyDescriptor.h>
#include <js/Proxy.h>
#include <js/SourceText.h>
#include <js/Stack.h>
#include <js/ValueArray.h>
#include <js/experimental/JSStencil.h>
#include <jsapi.h>
#include <jsfriendapi.h>

#include <mimalloc.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/json.h"
#include "engine/scripts/server_api.h"

namespace cosmos::engine {
namespace {

JSClass kGlobalClass = {"global", JSCLASS_GLOBAL_FLAGS, &JS::DefaultGlobalClassOps, nullptr, nullptr, nullptr};

std::atomic<size_t> heap_bytes{size_t{64} * 1024 * 1024};

}  // namespace

// Named rather than anonymous: ScriptEngine::Functions::State holds them.
namespace script_threads {

// The engine of this thread: a context with the heap cap, its self-hosted code, one global in its
// realm, the server-side API compiled once (a stencil each run instantiates), and a watchdog
// thread that stops the running script when asked to. JS_Init runs once per process, before the
// first context.
class ThreadEngine {
 public:
  ThreadEngine() {
    static std::once_flag initialized;
    std::call_once(initialized, [] {
      JS_Init();
      // At exit, after every thread's context is gone (thread-local objects are destroyed before
      // static ones and atexit handlers): stops the engine's helper threads, whose locks its static
      // objects would otherwise be destroyed under.
      std::atexit([] { JS_ShutDown(); });
    });
    context_ = JS_NewContext(ScriptEngine::HeapBytes());
    // Promise jobs (async functions, awaits) run when the host runs them, between a script's steps.
    if (context_ == nullptr || !js::UseInternalJobQueues(context_) || !JS::InitSelfHostedCode(context_)) return;
    // Deep recursion ends with "too much recursion" well inside the thread's stack.
    JS_SetNativeStackQuota(context_, kNativeStackQuota);
    JS_AddInterruptCallback(context_, [](JSContext*) { return !ForThisThread().stop_requested_; });
    JS::SetPromiseRejectionTrackerCallback(context_, TrackRejection, this);
    JS::RealmOptions options;
    global_ = new JS::PersistentRootedObject(
        context_, JS_NewGlobalObject(context_, &kGlobalClass, nullptr, JS::FireOnNewGlobalHook, options));
    rejections_ = new JS::PersistentRootedObject(context_);
    watchdog_ = std::thread([this] { WatchLoop(); });
  }
  ThreadEngine(const ThreadEngine&) = delete;
  ThreadEngine& operator=(const ThreadEngine&) = delete;
  ~ThreadEngine() {
    if (watchdog_.joinable()) {
      {
        std::lock_guard lock(mutex_);
        exiting_ = true;
      }
      wake_.notify_all();
      watchdog_.join();
    }
    server_api_ = nullptr;
    delete rejections_;
    delete global_;  // unrooted before the context goes
    if (context_ != nullptr) JS_DestroyContext(context_);
  }

  JSContext* context() const { return context_; }
  // The watchdog's request to stop the running script (read by the interrupt callback).
  void set_stop_requested(bool stop) { stop_requested_ = stop; }
  bool stop_requested() const { return stop_requested_; }
  // Whether the watchdog stopped the run for allocating more than HeapBytes().
  bool out_of_memory() const { return out_of_memory_; }
  JSObject* global() const { return global_ != nullptr ? global_->get() : nullptr; }
  // The collection of the run in progress, which __cosmoliteHost calls.
  void set_host(const ScriptEngine::Host* host) { host_ = host; }
  const ScriptEngine::Host* host() const { return host_; }

  // Asks the watchdog to stop the script once `limit` has passed, unless disarmed first. False
  // when it watches a run already (a UDF of a procedure's query runs under the procedure's limit).
  bool Arm(std::chrono::milliseconds limit) {
    std::lock_guard lock(mutex_);
    if (deadline_) return false;
    stop_requested_ = false;
    out_of_memory_ = false;
    mi_collect(/*force=*/true);
    allocated_at_arm_ = AllocatedBytes();
    deadline_ = std::chrono::steady_clock::now() + limit;
    wake_.notify_all();
    return true;
  }
  void Disarm() {
    std::lock_guard lock(mutex_);
    deadline_.reset();
    wake_.notify_all();
  }

  // The promises of the run in progress rejected with no handler (yet), in a JS array; null while
  // no run tracks them (RejectionScope).
  JS::PersistentRootedObject& rejections() { return *rejections_; }

  // The server-side API (server_api.js) compiled once; null when it does not compile.
  JS::Stencil* ServerApi(const JS::ReadOnlyCompileOptions& options, std::string_view source) {
    if (!server_api_) {
      JS::SourceText<mozilla::Utf8Unit> text;
      if (!text.init(context_, source.data(), source.size(), JS::SourceOwnership::Borrowed)) return nullptr;
      server_api_ = JS::CompileGlobalScriptToStencil(context_, options, text);
    }
    return server_api_.get();
  }

  static ThreadEngine& ForThisThread() {
    thread_local ThreadEngine engine;
    return engine;
  }

 private:
  static constexpr size_t kNativeStackQuota = 1024 * 1024;

  // Keeps rejections() current: a rejected promise without a handler is added, and taken out again
  // (set to null) if it gets one later.
  static void TrackRejection(JSContext* cx, bool, JS::HandleObject promise, JS::PromiseRejectionHandlingState state,
                             void* data) {
    auto* engine = static_cast<ThreadEngine*>(data);
    if (engine->rejections_ == nullptr || engine->rejections_->get() == nullptr) return;
    JS::HandleObject list = *engine->rejections_;
    uint32_t length = 0;
    if (!JS::GetArrayLength(cx, list, &length)) return;
    if (state == JS::PromiseRejectionHandlingState::Unhandled) {
      (void)JS_SetElement(cx, list, length, promise);
      return;
    }
    for (uint32_t index = 0; index < length; ++index) {
      JS::RootedValue element(cx);
      if (JS_GetElement(cx, list, index, &element) && element.isObject() && &element.toObject() == promise) {
        (void)JS_SetElement(cx, list, index, JS::NullHandleValue);
      }
    }
  }

  // What the process's allocator (mimalloc, linked into every executable) has committed from the
  // system. A script's strings live outside the engine's heap cap (their characters are
  // malloc'd), so a run is also watched by how much this grows while it runs. Arm first returns
  // the memory its thread freed to the system (mi_collect): an earlier run's freed strings would
  // otherwise be reused without growing it.
  static size_t AllocatedBytes() {
    size_t elapsed_ms = 0, user_ms = 0, system_ms = 0, rss = 0, peak_rss = 0, commit = 0, peak_commit = 0,
           page_faults = 0;
    mi_process_info(&elapsed_ms, &user_ms, &system_ms, &rss, &peak_rss, &commit, &peak_commit, &page_faults);
    return commit;
  }

  void WatchLoop() {
    constexpr auto kMemoryCheckEvery = std::chrono::milliseconds(10);
    std::unique_lock lock(mutex_);
    while (!exiting_) {
      if (!deadline_) {
        wake_.wait(lock);
        continue;
      }
      if (stop_requested_) {
        // Interrupt, and again every 10 ms until the run is disarmed, since a stopped promise job
        // does not end the others the host runs after it.
        JS_RequestInterruptCallback(context_);
        wake_.wait_for(lock, std::chrono::milliseconds(10));
        continue;
      }
      auto now = std::chrono::steady_clock::now();
      if (now >= *deadline_) {
        stop_requested_ = true;
      } else if (AllocatedBytes() > allocated_at_arm_ + ScriptEngine::HeapBytes()) {
        out_of_memory_ = true;
        stop_requested_ = true;
      } else {
        wake_.wait_until(lock, std::min(*deadline_, now + kMemoryCheckEvery));
      }
    }
  }

  JSContext* context_ = nullptr;
  JS::PersistentRootedObject* global_ = nullptr;
  JS::PersistentRootedObject* rejections_ = nullptr;
  RefPtr<JS::Stencil> server_api_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> out_of_memory_{false};  // why stop_requested_: the run allocated past the limit
  size_t allocated_at_arm_ = 0;             // guarded by mutex_
  const ScriptEngine::Host* host_ = nullptr;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;  // guarded by mutex_
  bool exiting_ = false;                                            // guarded by mutex_
  std::thread watchdog_;  // last: starts once the members above exist
};

// Watches a run for as long as it lives (ThreadEngine::Arm), unless an outer run is watched.
class Watchdog {
 public:
  Watchdog(ThreadEngine& engine, std::chrono::milliseconds limit) : engine_(engine), armed_(engine.Arm(limit)) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() {
    if (armed_) engine_.Disarm();
  }

 private:
  ThreadEngine& engine_;
  const bool armed_;
};

}  // namespace script_threads

using script_threads::ThreadEngine;
using script_threads::Watchdog;

namespace {

// __cosmoliteHost(text): one operation of the running script's collection (server_api.js).
bool HostCall(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  const ScriptEngine::Host* host = ThreadEngine::ForThisThread().host();
  if (host == nullptr || args.length() != 1 || !args[0].isString()) {
    JS_ReportErrorASCII(cx, "The collection is not reachable from here.");
    return false;
  }
  JS::RootedString request(cx, args[0].toString());
  JS::UniqueChars chars = JS_EncodeStringToUTF8(cx, request);
  if (!chars) return false;
  std::string answer = (*host)(chars.get());
  // Stopped while the host worked (by a script it ran in turn, a UDF, that took the interrupt):
  // the run ends here, uncatchably, as the interrupt would have ended it.
  if (ThreadEngine::ForThisThread().stop_requested()) return false;
  JSString* text = JS_NewStringCopyUTF8N(cx, JS::UTF8Chars(answer.data(), answer.size()));
  if (text == nullptr) return false;
  args.rval().setString(text);
  return true;
}

// Sets the host of a run for as long as it lasts.
class HostScope {
 public:
  HostScope(ThreadEngine& engine, const ScriptEngine::Host* host) : engine_(engine) { engine_.set_host(host); }
  HostScope(const HostScope&) = delete;
  HostScope& operator=(const HostScope&) = delete;
  ~HostScope() { engine_.set_host(nullptr); }

 private:
  ThreadEngine& engine_;
};

// Tracks the promises a run rejects without a handler (ThreadEngine::rejections) while it lives.
class RejectionScope {
 public:
  explicit RejectionScope(ThreadEngine& engine) : engine_(engine) {
    engine_.rejections() = JS::NewArrayObject(engine_.context(), 0);
  }
  RejectionScope(const RejectionScope&) = delete;
  RejectionScope& operator=(const RejectionScope&) = delete;
  ~RejectionScope() { engine_.rejections() = nullptr; }

  // Makes the reason of the first promise still unhandled the pending exception; false when none is.
  bool RaiseFirst(JSContext* cx) {
    if (engine_.rejections().get() == nullptr) return false;
    JS::HandleObject list = engine_.rejections();
    uint32_t length = 0;
    if (!JS::GetArrayLength(cx, list, &length)) return false;
    for (uint32_t index = 0; index < length; ++index) {
      JS::RootedValue element(cx);
      if (!JS_GetElement(cx, list, index, &element) || !element.isObject()) continue;
      JS::RootedObject promise(cx, &element.toObject());
      JS::RootedValue reason(cx, JS::GetPromiseResult(promise));
      JS_SetPendingException(cx, reason);
      return true;
    }
    return false;
  }

 private:
  ThreadEngine& engine_;
};

std::string_view ServerApiSource() {
  return std::string_view(reinterpret_cast<const char*>(kServerApiFiles[0].data), kServerApiFiles[0].size);
}

// The `number` an exception carries as its own data property (new Error(404, "…"), or a collection
// call's error passed on); 0 when none. Proxies are not asked: their traps would run script code.
int ErrorNumberOf(JSContext* cx, JS::HandleValue exception) {
  if (!exception.isObject() || js::IsProxy(&exception.toObject())) return 0;
  JS::RootedObject object(cx, &exception.toObject());
  JS::Rooted<mozilla::Maybe<JS::PropertyDescriptor>> descriptor(cx);
  if (!JS_GetOwnPropertyDescriptor(cx, object, "number", &descriptor)) {
    JS_ClearPendingException(cx);
    return 0;
  }
  if (descriptor.isNothing() || !descriptor->isDataDescriptor() || !descriptor->value().isNumber()) return 0;
  double number = descriptor->value().toNumber();
  return number >= 1 && number <= 65535 ? static_cast<int>(number) : 0;
}

// The pending exception as "<name>: <message>" with its line and `number` (ErrorNumberOf), and
// cleared.
std::string TakeException(JSContext* cx, unsigned* line, int* number = nullptr) {
  JS::ExceptionStack stack(cx);
  if (!JS::StealPendingExceptionStack(cx, &stack)) return "unknown error";
  if (number != nullptr) *number = ErrorNumberOf(cx, stack.exception());
  JS::ErrorReportBuilder report(cx);
  if (!report.init(cx, stack, JS::ErrorReportBuilder::NoSideEffects)) {
    JS_ClearPendingException(cx);
    return "unknown error";
  }
  *line = report.report() != nullptr ? report.report()->lineno : 0;
  const char* text = report.toStringResult().c_str();
  return text != nullptr ? text : "unknown error";
}

// Evaluates `source` in the current realm into `value`; false when it threw or was stopped.
bool Evaluate(JSContext* cx, const std::string& source, const char* file, JS::MutableHandleValue value) {
  JS::CompileOptions options(cx);
  options.setFileAndLine(file, 1);
  JS::SourceText<mozilla::Utf8Unit> text;
  if (!text.init(cx, source.data(), source.size(), JS::SourceOwnership::Borrowed)) return false;
  return JS::Evaluate(cx, options, text, value);
}

}  // namespace

size_t ScriptEngine::HeapBytes() { return heap_bytes.load(); }

void ScriptEngine::SetHeapBytes(size_t bytes) { heap_bytes.store(bytes); }

Status ScriptEngine::CheckFunction(std::string_view body) {
  ThreadEngine& engine = ThreadEngine::ForThisThread();
  JSContext* cx = engine.context();
  if (cx == nullptr || engine.global() == nullptr) return Status::Internal("the JavaScript engine did not start");
  JSAutoRealm realm(cx, engine.global());
  // Parenthesised, the body must be one expression; compiling runs nothing of it.
  std::string source = "(" + std::string(body) + "\n)";
  JS::CompileOptions options(cx);
  options.setFileAndLine("script", 1);
  JS::SourceText<mozilla::Utf8Unit> text;
  if (!text.init(cx, source.data(), source.size(), JS::SourceOwnership::Borrowed)) {
    JS_ClearPendingException(cx);
    return Status::BadRequest("The script body is too large to compile.");
  }
  JS::RootedScript script(cx, JS::Compile(cx, options, text));
  if (!script) {
    unsigned line = 0;
    std::string error = TakeException(cx, &line);
    return Status::BadRequest("Encountered exception while compiling Javascript. Exception = " + error +
                              " (line " + std::to_string(line) + ").");
  }
  return Status();
}

Result<ScriptEngine::Outcome> ScriptEngine::Execute(const Run& run) {
  ThreadEngine& engine = ThreadEngine::ForThisThread();
  JSContext* cx = engine.context();
  if (cx == nullptr) return Status::Internal("the JavaScript engine did not start");
  // A global of its own per execution: nothing one execution leaves is visible to the next. It
  // shares the thread's zone (its GC heap), which halves the cost of an execution (0.9 → 0.45 ms
  // in bench_scripts); no object of one execution is reachable from another's global.
  JS::RealmOptions realm_options;
  realm_options.creationOptions().setNewCompartmentInExistingZone(engine.global());
  JS::RootedObject global(cx, JS_NewGlobalObject(cx, &kGlobalClass, nullptr, JS::FireOnNewGlobalHook, realm_options));
  if (!global) return Status::Internal("the JavaScript engine could not make a global");
  JSAutoRealm realm(cx, global);
  JS::RootedValue value(cx);
  HostScope host(engine, run.host);
  std::string setup = "globalThis.__cosmoliteSetup = " + run.setup + ";";
  JS::CompileOptions api_options(cx);
  api_options.setFileAndLine("server_api.js", 1);
  JS::Stencil* server_api = engine.ServerApi(api_options, ServerApiSource());
  JS::RootedScript api(cx, server_api != nullptr ? JS::InstantiateGlobalStencil(cx, JS::InstantiateOptions(api_options),
                                                                                server_api)
                                                 : nullptr);
  if (!api || !JS_DefineFunction(cx, global, "__cosmoliteHost", HostCall, 1, 0) ||
      !Evaluate(cx, setup, "setup", &value) || !JS_ExecuteScript(cx, api, &value)) {
    unsigned line = 0;
    return Status::Internal("the script's context failed: " + TakeException(cx, &line));
  }
  std::string arguments = run.kind == Run::Kind::kProcedure && !run.arguments.empty() ? std::string(run.arguments)
                                                                                       : std::string("[]");
  std::string source = "__cosmoliteStart((" + std::string(run.body) + "\n), " + arguments + ");";
  bool finished = false;
  {
    Watchdog watchdog(engine, run.time_limit);
    RejectionScope rejections(engine);
    // The script, then its promise jobs and queued callbacks, one step at a time, until neither
    // is left (server_api.js).
    finished = Evaluate(cx, source, "script", &value);
    while (finished) {
      js::RunJobs(cx);
      if (engine.stop_requested()) {
        finished = false;
        break;
      }
      JS::RootedValue more(cx);
      finished = JS_CallFunctionName(cx, global, "__cosmoliteStep", JS::HandleValueArray::empty(), &more);
      if (!more.isTrue()) break;
    }
    // A promise rejected with nobody to handle it fails the run as a throw would.
    if (finished) finished = !rejections.RaiseFirst(cx);
    if (finished) {
      finished = JS_CallFunctionName(cx, global, "__cosmoliteOutcome", JS::HandleValueArray::empty(), &value);
    }
  }
  // A failed run may have filled the heap (out of memory, a loop stopped mid-allocation), and the
  // globals of earlier runs pile up faster than the engine's own pace collects them: past a quarter
  // of the cap, or after a failure, collect everything now, or the thread's next script would find
  // the heap full. Otherwise the engine decides.
  struct Collect {
    JSContext* cx;
    bool failed;
    ~Collect() {
      if (failed || JS_GetGCParameter(cx, JSGC_BYTES) > ScriptEngine::HeapBytes() / 4) {
        JS_GC(cx, JS::GCReason::API);
      } else {
        JS_MaybeGC(cx);
      }
    }
  } collect{cx, !finished};
  if (!finished) {
    if (!JS_IsExceptionPending(cx)) {  // stopped by the watchdog (or uncatchable out of memory)
      bool timed_out = engine.stop_requested() && !engine.out_of_memory();
      engine.set_stop_requested(false);
      if (timed_out) {
        return Status::RequestTimeout("The requested operation exceeded maximum alloted time. The script ran past "
                                      "its limit of " + std::to_string(run.time_limit.count()) +
                                      " ms (--script-time-limit), was stopped and changed nothing.");
      }
      return Status::BadRequest("Encountered exception while executing Javascript. Exception = out of memory (the "
                                "script used more than --script-memory-limit, " +
                                std::to_string(HeapBytes() / (1024 * 1024)) + " MB)");
    }
    unsigned line = 0;
    int number = 0;
    std::string error = TakeException(cx, &line, &number);
    return Status::ScriptFailed("Encountered exception while executing Javascript. Exception = " + error +
                                    (line != 0 ? " (line " + std::to_string(line) + ")" : std::string()),
                                number);
  }
  if (!value.isString()) return Status::Internal("the script's outcome is not text");
  JS::RootedString outcome_text(cx, value.toString());
  JS::UniqueChars chars = JS_EncodeStringToUTF8(cx, outcome_text);
  if (!chars) return Status::Internal("the script's outcome could not be read");
  Json outcome = Json::parse(chars.get(), nullptr, /*allow_exceptions=*/false);
  if (!outcome.is_object()) return Status::Internal("the script's outcome is not JSON");
  Outcome result;
  if (outcome["responseBody"].is_string()) result.response_body = outcome["responseBody"].get<std::string>();
  if (outcome["requestBody"].is_string()) result.request_body = outcome["requestBody"].get<std::string>();
  result.log = outcome.value("log", std::string());
  return result;
}

struct ScriptEngine::Functions::State {
  State(ThreadEngine& engine, JSObject* global, std::chrono::milliseconds limit)
      : engine(engine), global(engine.context(), global), watchdog(engine, limit) {}
  ThreadEngine& engine;
  JS::PersistentRootedObject global;
  Watchdog watchdog;
};

ScriptEngine::Functions::Functions(std::unique_ptr<State> state) : state_(std::move(state)) {}

ScriptEngine::Functions::~Functions() {
  JSContext* cx = state_->engine.context();
  state_.reset();
  if (JS_GetGCParameter(cx, JSGC_BYTES) > HeapBytes() / 4) {
    JS_GC(cx, JS::GCReason::API);
  } else {
    JS_MaybeGC(cx);
  }
}

Result<std::unique_ptr<ScriptEngine::Functions>> ScriptEngine::Functions::Compile(
    const std::vector<std::pair<std::string, std::string>>& bodies, std::chrono::milliseconds time_limit) {
  ThreadEngine& engine = ThreadEngine::ForThisThread();
  JSContext* cx = engine.context();
  if (cx == nullptr) return Status::Internal("the JavaScript engine did not start");
  JS::RealmOptions realm_options;
  JS::RootedObject global(cx, JS_NewGlobalObject(cx, &kGlobalClass, nullptr, JS::FireOnNewGlobalHook, realm_options));
  if (!global) return Status::Internal("the JavaScript engine could not make a global");
  auto state = std::make_unique<State>(engine, global, time_limit);
  JSAutoRealm realm(cx, global);
  // Each function under its name; __cosmoliteCall(name, argumentsText, undefinedAt) calls one
  // and answers its result's JSON text, or undefined.
  std::string source = "globalThis.__cosmoliteFunctions = Object.create(null);\n";
  for (const auto& [name, body] : bodies) {
    source += "__cosmoliteFunctions[" + Json(name).dump() + "] = (" + body + "\n);\n";
  }
  source +=
      "globalThis.__cosmoliteCall = (name, text, undefinedAt) => {\n"
      "  const args = JSON.parse(text);\n"
      "  for (const i of undefinedAt) args[i] = undefined;\n"
      "  const result = __cosmoliteFunctions[name].apply(undefined, args);\n"
      "  return result === undefined ? undefined : JSON.stringify(result);\n"
      "};";
  JS::RootedValue value(cx);
  if (!Evaluate(cx, source, "udfs", &value)) {
    unsigned line = 0;
    std::string error = JS_IsExceptionPending(cx) ? TakeException(cx, &line) : std::string("stopped");
    return Status::BadRequest("Encountered exception while compiling user-defined functions. Exception = " + error);
  }
  return std::unique_ptr<Functions>(new Functions(std::move(state)));
}

Result<std::optional<std::string>> ScriptEngine::Functions::Call(const std::string& name, const std::string& arguments,
                                                                const std::vector<size_t>& undefined_at) {
  ThreadEngine& engine = state_->engine;
  JSContext* cx = engine.context();
  if (engine.out_of_memory()) {
    return Status::BadRequest("Encountered exception while executing function udf." + name + ". Exception = out of memory");
  }
  if (engine.stop_requested()) return Status::RequestTimeout("The user-defined functions ran past the query's time limit.");
  JSAutoRealm realm(cx, state_->global);
  JS::RootedObject global(cx, state_->global);
  JS::RootedValueArray<3> args(cx);
  JSString* name_text = JS_NewStringCopyUTF8N(cx, JS::UTF8Chars(name.data(), name.size()));
  JSString* arguments_text = JS_NewStringCopyUTF8N(cx, JS::UTF8Chars(arguments.data(), arguments.size()));
  JS::RootedObject positions(cx, JS::NewArrayObject(cx, undefined_at.size()));
  if (name_text == nullptr || arguments_text == nullptr || !positions) return Status::Internal("out of memory");
  for (size_t index = 0; index < undefined_at.size(); ++index) {
    if (!JS_SetElement(cx, positions, static_cast<uint32_t>(index), static_cast<double>(undefined_at[index]))) {
      return Status::Internal("out of memory");
    }
  }
  args[0].setString(name_text);
  args[1].setString(arguments_text);
  args[2].setObject(*positions);
  JS::RootedValue result(cx);
  if (!JS_CallFunctionName(cx, global, "__cosmoliteCall", args, &result)) {
    if (!JS_IsExceptionPending(cx)) {
      if (engine.stop_requested() && !engine.out_of_memory()) {
        return Status::RequestTimeout("The user-defined function udf." + name + " ran past the query's time limit.");
      }
      return Status::BadRequest("Encountered exception while executing function udf." + name + ". Exception = out of memory");
    }
    unsigned line = 0;
    return Status::BadRequest("Encountered exception while executing function udf." + name + ". Exception = " +
                              TakeException(cx, &line));
  }
  if (result.isUndefined()) return std::optional<std::string>();
  JS::RootedString text(cx, result.toString());
  JS::UniqueChars chars = JS_EncodeStringToUTF8(cx, text);
  if (!chars) return Status::Internal("a user-defined function's result could not be read");
  return std::optional<std::string>(chars.get());
}

}  // namespace cosmos::engine
