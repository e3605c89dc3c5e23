#include "engine/scripts/script_engine.h"

#include <js/CompilationAndEvaluation.h>
#include <js/ErrorReport.h>
#include <js/Exception.h>
#include <js/GCAPI.h>
#include <js/Initialization.h>
#include <js/Interrupt.h>
#include <js/PropertyDescriptor.h>
#include <js/Proxy.h>
#include <js/SourceText.h>
#include <js/Stack.h>
#include <jsapi.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "common/json.h"
#include "engine/scripts/server_api.h"

namespace cosmos::engine {
namespace {

JSClass kGlobalClass = {"global", JSCLASS_GLOBAL_FLAGS, &JS::DefaultGlobalClassOps, nullptr, nullptr, nullptr};

// The engine of this thread: a context with the heap cap, its self-hosted code, and one global
// in its realm. JS_Init runs once per process, before the first context.
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
    context_ = JS_NewContext(ScriptEngine::kHeapBytes);
    if (context_ == nullptr || !JS::InitSelfHostedCode(context_)) return;
    // Deep recursion ends with "too much recursion" well inside the thread's stack.
    JS_SetNativeStackQuota(context_, kNativeStackQuota);
    JS_AddInterruptCallback(context_, [](JSContext*) { return !ForThisThread().stop_requested_; });
    JS::RealmOptions options;
    global_ = new JS::PersistentRootedObject(
        context_, JS_NewGlobalObject(context_, &kGlobalClass, nullptr, JS::FireOnNewGlobalHook, options));
  }
  ThreadEngine(const ThreadEngine&) = delete;
  ThreadEngine& operator=(const ThreadEngine&) = delete;
  ~ThreadEngine() {
    delete global_;  // unrooted before the context goes
    if (context_ != nullptr) JS_DestroyContext(context_);
  }

  JSContext* context() const { return context_; }
  // The watchdog's request to stop the running script (read by the interrupt callback).
  void set_stop_requested(bool stop) { stop_requested_ = stop; }
  bool stop_requested() const { return stop_requested_; }
  JSObject* global() const { return global_ != nullptr ? global_->get() : nullptr; }
  // The collection of the run in progress, which __cosmoliteHost calls.
  void set_host(const ScriptEngine::Host* host) { host_ = host; }
  const ScriptEngine::Host* host() const { return host_; }

  static ThreadEngine& ForThisThread() {
    thread_local ThreadEngine engine;
    return engine;
  }

 private:
  static constexpr size_t kNativeStackQuota = 1024 * 1024;

  JSContext* context_ = nullptr;
  JS::PersistentRootedObject* global_ = nullptr;
  std::atomic<bool> stop_requested_{false};
  const ScriptEngine::Host* host_ = nullptr;
};

// Asks the engine of the calling thread to stop its script once `limit` has passed, unless
// disarmed first (at destruction).
class Watchdog {
 public:
  Watchdog(ThreadEngine& engine, std::chrono::milliseconds limit) : engine_(engine) {
    engine_.set_stop_requested(false);
    thread_ = std::thread([this, limit] {
      std::unique_lock lock(mutex_);
      if (!done_cv_.wait_for(lock, limit, [this] { return done_; })) {
        engine_.set_stop_requested(true);
        JS_RequestInterruptCallback(engine_.context());
      }
    });
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_all();
    thread_.join();
  }

 private:
  ThreadEngine& engine_;
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread thread_;
};

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
  // A global of its own per execution: nothing one execution leaves is visible to the next.
  JS::RealmOptions realm_options;
  JS::RootedObject global(cx, JS_NewGlobalObject(cx, &kGlobalClass, nullptr, JS::FireOnNewGlobalHook, realm_options));
  if (!global) return Status::Internal("the JavaScript engine could not make a global");
  JSAutoRealm realm(cx, global);
  JS::RootedValue value(cx);
  HostScope host(engine, run.host);
  std::string setup = "globalThis.__cosmoliteSetup = " + run.setup + ";";
  if (!JS_DefineFunction(cx, global, "__cosmoliteHost", HostCall, 1, 0) ||
      !Evaluate(cx, setup, "setup", &value) || !Evaluate(cx, std::string(ServerApiSource()), "server_api.js", &value)) {
    unsigned line = 0;
    return Status::Internal("the script's context failed: " + TakeException(cx, &line));
  }
  std::string arguments = run.kind == Run::Kind::kProcedure && !run.arguments.empty() ? std::string(run.arguments)
                                                                                       : std::string("[]");
  std::string source = "__cosmoliteRun((" + std::string(run.body) + "\n), " + arguments + ");";
  bool finished = false;
  {
    Watchdog watchdog(engine, run.time_limit);
    finished = Evaluate(cx, source, "script", &value);
  }
  // A failed run may have filled the heap (out of memory, a loop stopped mid-allocation): collect
  // it now, or the thread's next script would find it full. After a clean run the engine decides.
  struct Collect {
    JSContext* cx;
    bool full;
    ~Collect() { full ? JS_GC(cx, JS::GCReason::API) : JS_MaybeGC(cx); }
  } collect{cx, !finished};
  if (!finished) {
    if (!JS_IsExceptionPending(cx)) {  // stopped by the watchdog (or uncatchable out of memory)
      bool timed_out = engine.stop_requested();
      engine.set_stop_requested(false);
      if (timed_out) {
        return Status::RequestTimeout("The requested operation exceeded maximum alloted time. The script ran past "
                                      "its limit of " + std::to_string(run.time_limit.count()) +
                                      " ms (--script-time-limit), was stopped and changed nothing.");
      }
      return Status::BadRequest("Encountered exception while executing Javascript. Exception = out of memory");
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

}  // namespace cosmos::engine
