// ScriptEngine: the JavaScript engine behind stored procedures, triggers and user-defined
// functions. It is SpiderMonkey 102 ESR, Debian's libmozjs-102: the modern syntax real scripts use
// (const/let, arrow functions, template literals, classes), and an interrupt callback and heap cap
// for the sandbox. Each thread that uses it gets a JSContext of its own (SpiderMonkey's rule), made
// on first use.
// Thread-safety: every function may be called from any thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace cosmos::engine {

class ScriptEngine {
 public:
  // The memory one execution may use (a thread runs one at a time): the cap of its engine's heap,
  // past which an allocation fails with "out of memory", and how far the process's malloc'd memory
  // may grow while it runs (a script's string characters live outside the heap), past which the
  // watchdog stops it with the same error. 64 MB unless SetHeapBytes said otherwise.
  static size_t HeapBytes();
  // Sets the heap of the engines threads make from now on (--script-memory-limit). Call it at
  // start, before any script runs.
  static void SetHeapBytes(size_t bytes);

  // Compiles `body`, a script definition's body, as the function expression it must be
  // ("function name(args) { … }" or an anonymous one), without running any of it. kBadRequest
  // with the engine's message and line when it does not compile or is not one function.
  static Status CheckFunction(std::string_view body);

  // One operation of the script's collection (engine/scripts/partition_collection.h): a JSON
  // request's text in, the JSON answer's text out.
  using Host = std::function<std::string(std::string_view request)>;

  // A script to run: a stored procedure with its arguments, or a trigger around a write.
  struct Run {
    enum class Kind { kProcedure, kPreTrigger, kPostTrigger };
    Kind kind = Kind::kProcedure;
    std::string_view body;       // the script's function
    std::string_view arguments;  // a procedure's: a JSON array's text
    // What getContext() shows (server_api.js, __cosmoliteSetup): the collection's links, and a
    // trigger's request body and operation, or a post-trigger's response body. JSON text.
    std::string setup;
    std::chrono::milliseconds time_limit{5000};
    const Host* host = nullptr;  // the collection; must outlive the run
  };

  // What a script left: the response body it set (JSON text; empty when none), a pre-trigger's
  // new request body (empty when unchanged), and what it logged with console.log (lines joined
  // with newlines).
  struct Outcome {
    std::string response_body;
    std::string request_body;
    std::string log;
  };

  // Runs a script in a global of its own (nothing of another execution is visible), with the
  // server-side API of server_api.js; the collection's operations go to `run.host`. kBadRequest
  // with the script's error (a throw, a syntax error, too much recursion, out of memory);
  // kRequestTimeout when it runs past `run.time_limit`, when it is stopped wherever it is.
  static Result<Outcome> Execute(const Run& run);

  // User-defined functions compiled once into a global of their own, then called many times:
  // the UDFs of one query page. They see no context and no collection (UDFs compute only). Made,
  // called and destroyed on one thread.
  class Functions {
   public:
    // `bodies`: (name, function body). kBadRequest when one does not compile. Calls fail with
    // kRequestTimeout once `time_limit` has passed since this call.
    static Result<std::unique_ptr<Functions>> Compile(const std::vector<std::pair<std::string, std::string>>& bodies,
                                                      std::chrono::milliseconds time_limit);
    ~Functions();
    Functions(const Functions&) = delete;
    Functions& operator=(const Functions&) = delete;

    // Calls `name` with `arguments`, a JSON array's text, in which the positions `undefined_at`
    // lists are passed as undefined. The JSON text of the result, or nullopt for undefined.
    // kBadRequest when it throws (or `name` is not one of them); kRequestTimeout past the limit.
    Result<std::optional<std::string>> Call(const std::string& name, const std::string& arguments,
                                            const std::vector<size_t>& undefined_at);

   private:
    struct State;
    explicit Functions(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
  };
};

}  // namespace cosmos::engine
