// The server-side JavaScript API of Azure Cosmos DB as stored procedures and triggers see it:
// getContext() with its request, response and collection (also named `__`), console.log and
// ErrorCodes. script_engine.cc evaluates this file first in every execution's fresh global, after
// defining two names:
//   __cosmoliteHost(text)  runs one operation on the collection's documents, inside the
//                          execution's transaction: a JSON request in, a JSON answer out
//                          (engine/scripts/partition_collection.h says which).
//   __cosmoliteSetup       what the execution is: {kind: "procedure"|"pre"|"post", selfLink,
//                          altLink, requestBody, operation, responseBody, maxResponseBodySize}.
// It leaves __cosmoliteStart(fn, args), which calls the script, __cosmoliteStep(), which runs the
// callback of the next operation it queued, and __cosmoliteOutcome(), its outcome as JSON text;
// the host runs the promise jobs (async functions, awaits) between the steps.
//
// As on the service, the collection's calls are asynchronous: each answers at once whether it was
// accepted (false once the execution's budget is spent: the script should then stop and report how
// far it got), and its callback runs after the current function returns. Without a callback a
// failed operation throws, which fails the execution.
(function (host, setup) {
  "use strict";

  // The service's codes, exactly.
  const ErrorCodes = Object.freeze({
    BadRequest: 400,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    PreconditionFailed: 412,
    RequestEntityTooLarge: 413,
    RetryWith: 449,
    InternalServerError: 500,
  });

  // The service's scripts write `new Error(404, "message")` (the engine it runs them on reads a
  // number first as the error's number), and so do its samples: a number and a message make an
  // Error with that `number`. Anything else is the standard Error.
  const StandardError = Error;
  // An Error located where the script's code made it (not in this file), so that its message
  // names the script's line.
  function locatedError(message) {
    const frames = new StandardError().stack.split("\n");
    const caller = frames.find((frame) => frame.includes("@") && !frame.includes("server_api.js"));
    const where = caller && /@(.*):(\d+):\d+$/.exec(caller);
    return where ? new StandardError(message, where[1], Number(where[2])) : new StandardError(message);
  }
  const CosmosError = function Error(...args) {
    if (new.target !== undefined && new.target !== CosmosError) return Reflect.construct(StandardError, args, new.target);
    if (typeof args[0] === "number" && args.length >= 2) {
      const error = locatedError(String(args[1]));
      error.number = args[0];
      return error;
    }
    return args.length <= 1 ? locatedError(args.length === 0 ? "" : args[0]) : new StandardError(...args);
  };
  CosmosError.prototype = StandardError.prototype;
  Object.defineProperty(StandardError.prototype, "constructor", { value: CosmosError, writable: true, configurable: true });
  Object.setPrototypeOf(CosmosError, StandardError);

  function newError(number, message) {
    const error = locatedError(message);
    error.number = number;
    return error;
  }

  // Callbacks of accepted operations, run in order once the current function returns.
  const queued = [];
  // Set by getContext().abort(error): {error}.
  let aborted;

  // A failed operation's error as the service gives it: the status as `number`, and its message
  // as the service words it, {"Errors":["…"]}, in `message` and `body`.
  function errorOf(failure) {
    const text = JSON.stringify({ Errors: [failure.message] });
    const error = newError(failure.number, text);
    error.body = text;
    return error;
  }

  // Sends one operation to the host; queues what its callback will see.
  function submit(request, deliver) {
    const answer = JSON.parse(host(JSON.stringify(request)));
    if (!answer.accepted) return false;
    queued.push(() => deliver(answer));
    return true;
  }

  // `options` may be left out: (link, callback) means no options.
  function split(options, callback) {
    if (typeof options === "function" && callback === undefined) return [{}, options];
    if (options !== undefined && options !== null && typeof options !== "object") {
      throw newError(400, `The "options" parameter must be of type "object". Actual type is: "${typeof options}".`);
    }
    if (callback !== undefined && callback !== null && typeof callback !== "function") {
      throw newError(400, `The "callback" parameter must be of type "function". Actual type is: "${typeof callback}".`);
    }
    return [options || {}, callback || undefined];
  }

  // A create's or upsert's document: an object or its JSON text, given an id unless told not to
  // (a shallow copy then: the script's object stays as it was).
  function documentOf(body, options) {
    if (typeof body === "string") body = JSON.parse(body);
    if (body === null || typeof body !== "object") {
      throw newError(400, "The document body must be an object or a string representing a JSON-serialized object.");
    }
    if (!body.id && options.disableAutomaticIdGeneration !== true) {
      const hex = (length) => Array.from({ length }, () => Math.floor(Math.random() * 16).toString(16)).join("");
      body = Object.assign({}, body, { id: `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}` });
    }
    return body;
  }

  function fail(answer, callback) {
    const error = errorOf(answer.error);
    if (!callback) throw error;
    callback(error);
  }

  function linkOf(link, what) {
    if (typeof link !== "string" || link.length === 0) throw newError(400, `Invalid ${what} link: "${link}".`);
    return link;
  }

  // The queries of the chain API run in JavaScript over every document of the partition.
  function allDocuments() {
    const documents = [];
    let continuation;
    do {
      const answer = JSON.parse(host(JSON.stringify({
        op: "query", link: setup.selfLink, query: "SELECT * FROM root", options: { continuation, pageSize: 1000 },
      })));
      if (!answer.accepted) return undefined;
      if (answer.error) throw errorOf(answer.error);
      documents.push(...answer.resources);
      continuation = answer.options.continuation;
    } while (continuation);
    return documents;
  }

  function sortKey(selector) {
    if (typeof selector === "function") return selector;
    if (typeof selector === "string") return (document) => document[selector];
    throw newError(400, "The predicate/transform function must be provided.");
  }

  function compareValues(left, right) {
    if (left === right) return 0;
    if (left === undefined) return -1;
    if (right === undefined) return 1;
    return left < right ? -1 : left > right ? 1 : 0;
  }

  // One step of a chain, applied to the documents (or values) the steps before it left.
  const chainSteps = {
    filter: (values, predicate) => values.filter((value) => predicate.call(undefined, value)),
    map: (values, mapper) => values.map((value) => mapper.call(undefined, value)),
    pluck: (values, name) => values.map((value) => (value === null || value === undefined ? undefined : value[name])),
    sortBy: (values, selector) => {
      const key = sortKey(selector);
      return values.slice().sort((a, b) => compareValues(key(a), key(b)));
    },
    sortByDescending: (values, selector) => {
      const key = sortKey(selector);
      return values.slice().sort((a, b) => compareValues(key(b), key(a)));
    },
    flatten: (values, isShallow) => {
      const flat = [];
      const add = (value, depth) => {
        if (Array.isArray(value) && (depth === 0 || !isShallow)) {
          for (const item of value) add(item, depth + 1);
        } else {
          flat.push(value);
        }
      };
      for (const value of values) add(value, 0);
      return flat;
    },
    unwind: (values, innerSelector, resultSelector) => {
      const select = sortKey(innerSelector);
      const unwound = [];
      for (const value of values) {
        const inner = select(value);
        if (!Array.isArray(inner)) continue;
        for (const item of inner) unwound.push(resultSelector ? resultSelector(value, item) : [value, item]);
      }
      return unwound;
    },
  };

  // Runs `steps` over the partition's documents; the callback gets (error, results, options).
  function runChain(steps, options, callback) {
    [options, callback] = split(options, callback);
    const documents = allDocuments();
    if (documents === undefined) return { isAccepted: false };
    let values = documents;
    for (const [name, args] of steps) values = chainSteps[name](values, ...args);
    const results = values;
    if (!callback && setup.kind === "pre") {
      throw newError(400, "The callback function must be provided for scenarios, such as pre-trigger, when response object is not available.");
    }
    // Without a callback the results go to the response body, as the service's do.
    queued.push(() => (callback ? callback(undefined, results, {}) : response.appendBody(JSON.stringify(results))));
    return { isAccepted: true };
  }

  class Chain {
    constructor() { this.steps = []; }
    value(options, callback) { return runChain(this.steps, options, callback); }
  }
  for (const name of Object.keys(chainSteps)) {
    Chain.prototype[name] = function (...args) {
      this.steps.push([name, args]);
      return this;
    };
  }

  const collection = {
    getSelfLink: () => setup.selfLink,
    getAltLink: () => setup.altLink,

    createDocument(link, body, options, callback) {
      [options, callback] = split(options, callback);
      return submit({ op: "create", link: linkOf(link, "collection"), body: documentOf(body, options), options },
        (answer) => (answer.error ? fail(answer, callback) : callback && callback(undefined, answer.resource, answer.options)));
    },
    upsertDocument(link, body, options, callback) {
      [options, callback] = split(options, callback);
      return submit({ op: "upsert", link: linkOf(link, "collection"), body: documentOf(body, options), options },
        (answer) => (answer.error ? fail(answer, callback) : callback && callback(undefined, answer.resource, answer.options)));
    },
    replaceDocument(link, body, options, callback) {
      [options, callback] = split(options, callback);
      return submit({ op: "replace", link: linkOf(link, "document"), body, options },
        (answer) => (answer.error ? fail(answer, callback) : callback && callback(undefined, answer.resource, answer.options)));
    },
    deleteDocument(link, options, callback) {
      [options, callback] = split(options, callback);
      return submit({ op: "delete", link: linkOf(link, "document"), options },
        (answer) => (answer.error ? fail(answer, callback) : callback && callback(undefined, answer.options)));
    },
    readDocument(link, options, callback) {
      [options, callback] = split(options, callback);
      return submit({ op: "read", link: linkOf(link, "document"), options },
        (answer) => (answer.error ? fail(answer, callback) : callback && callback(undefined, answer.resource, answer.options)));
    },
    readDocuments(link, options, callback) {
      [options, callback] = split(options, callback);
      return submit({ op: "query", link: linkOf(link, "collection"), query: "SELECT * FROM root", options },
        (answer) => (answer.error ? fail(answer, callback) : callback && callback(undefined, answer.resources, answer.options)));
    },
    queryDocuments(link, query, options, callback) {
      [options, callback] = split(options, callback);
      if (typeof query !== "string" && (query === null || typeof query !== "object")) {
        throw newError(400, `The "filterQuery" parameter must be of type "string" or "object". Actual type is: "${typeof query}".`);
      }
      return submit({ op: "query", link: linkOf(link, "collection"), query, options },
        (answer) => (answer.error ? fail(answer, callback) : callback && callback(undefined, answer.resources, answer.options)));
    },

    chain: () => new Chain(),
    value: (options, callback) => new Chain().value(options, callback),
  };
  for (const name of Object.keys(chainSteps)) {
    // __.filter(predicate, options, callback) and the like: a chain of one step, run at once.
    collection[name] = function (...args) {
      const arity = name === "unwind" ? 2 : 1;
      const stepArgs = args.slice(0, arity);
      const [options, callback] = args.slice(arity);
      const chain = new Chain();
      chain[name](...stepArgs);
      return chain.value(options, callback);
    };
  }

  // The request and the response are maps of named values, of which only "Body" is served: a
  // pre-trigger's request body is the document being written (setBody changes what is written), a
  // post-trigger's response body the document written; a procedure's response body starts empty.
  // What the script sets goes back as JSON.
  function valueMap(values, writable) {
    const map = {
      getValue(name) { return values[name]; },
      getBody() { return values.Body; },
    };
    if (writable) {
      map.setValue = (name, value) => {
        if (name !== "Body") throw newError(400, `Cannot set new values: ${name}`);
        values[name] = value;
        values.changed = true;
      };
      map.appendValue = (name, value) => {
        const old = values[name];
        map.setValue(name, old === undefined || old === null ? value : old + value);
      };
      map.setBody = (value) => map.setValue("Body", value);
      map.appendBody = (value) => map.appendValue("Body", value);
    } else {
      map.setValue = () => { throw newError(403, "Not a writable property: Body"); };
      map.setBody = map.setValue;
    }
    return map;
  }
  const requestValues = { Body: setup.requestBody, changed: false };
  const responseValues = { Body: setup.kind === "procedure" ? "" : setup.responseBody, changed: false };
  const request = valueMap(requestValues, setup.kind === "pre");
  request.getOperationType = () => setup.operation;
  const response = valueMap(responseValues, true);
  response.getMaxResponseBodySize = () => setup.maxResponseBodySize;
  const context = {
    getCollection: () => collection,
    // Ends the script and rolls back everything it did, as a throw does — also from a promise's
    // handler (the documented async pattern: main().catch((err) => getContext().abort(err))).
    abort(error) {
      aborted = { error: error !== undefined ? error : newError(400, "The script aborted.") };
      throw aborted.error;
    },
  };
  context.getRequest = () => request;
  if (setup.kind !== "pre") context.getResponse = () => response;
  Object.freeze(context);
  collection.request = request;  // __.request, __.response
  if (setup.kind !== "pre") collection.response = response;

  // console.log("format %s", value): %s takes the next value; the rest are appended.
  const log = [];
  const show = (value) => (typeof value === "string" ? value : JSON.stringify(value));
  function logLine(...values) {
    if (values.length > 1 && typeof values[0] !== "string") {
      throw newError(400, "First argument to console.log should be a string containing zero or more substitution strings.");
    }
    let rest = values.slice(1);
    let line = values.length === 0 ? "" : show(values[0]).replace(/%s/g, () => (rest.length > 0 ? show(rest.shift()) : "%s"));
    for (const value of rest) line += " " + show(value);
    log.push(line);
  }

  Object.defineProperties(globalThis, {
    Error: { value: CosmosError, writable: true, configurable: true },
    getContext: { value: () => context },
    __: { value: collection },
    ErrorCodes: { value: ErrorCodes },
    console: { value: Object.freeze({ log: logLine }) },
    // The host drives a run: __cosmoliteStart, then __cosmoliteStep until it answers false (running
    // the promise jobs in between), then __cosmoliteOutcome. A getContext().abort() — from a
    // promise's handler, where a throw would be swallowed — fails the step or outcome after it.
    __cosmoliteStart: {
      value(script, args) {
        script.apply(undefined, args);
      },
    },
    __cosmoliteStep: {
      value() {
        if (aborted) throw aborted.error;
        if (queued.length === 0) return false;
        queued.shift()();
        return true;
      },
    },
    __cosmoliteOutcome: {
      value() {
        if (aborted) throw aborted.error;
        const body = responseValues.Body;
        return JSON.stringify({
          responseBody: responseValues.changed && body !== undefined ? JSON.stringify(body) ?? null : null,
          requestBody: requestValues.changed ? JSON.stringify(requestValues.Body) ?? null : null,
          log: log.join("\n"),
        });
      },
    },
  });
})(__cosmoliteHost, __cosmoliteSetup);
