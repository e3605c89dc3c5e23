#include "engine/scripts/script_engine.h"

#include <js/CompilationAndEvaluation.h>
#include <js/ErrorReport.h>
#include <js/Exception.h>
#include <js/Initialization.h>
#include <js/SourceText.h>
#include <jsapi.h>

#include <cstdlib>
#include <mutex>
#include <string>

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
  JSObject* global() const { return global_ != nullptr ? global_->get() : nullptr; }

  static ThreadEngine& ForThisThread() {
    thread_local ThreadEngine engine;
    return engine;
  }

 private:
  JSContext* context_ = nullptr;
  JS::PersistentRootedObject* global_ = nullptr;
};

// The pending exception as "<name>: <message>" with its line, and cleared.
std::string TakeException(JSContext* cx, unsigned* line) {
  JS::ExceptionStack stack(cx);
  if (!JS::StealPendingExceptionStack(cx, &stack)) return "unknown error";
  JS::ErrorReportBuilder report(cx);
  if (!report.init(cx, stack, JS::ErrorReportBuilder::NoSideEffects)) {
    JS_ClearPendingException(cx);
    return "unknown error";
  }
  *line = report.report() != nullptr ? report.report()->lineno : 0;
  const char* text = report.toStringResult().c_str();
  return text != nullptr ? text : "unknown error";
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

}  // namespace cosmos::engine
