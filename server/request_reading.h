// Request reading: what a Cosmos request asks for, read from its path and headers — the
// container it addresses, feed and query options, preconditions, throughput, whether a POST
// is a query — and the checks of its content type. It calls no engine.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>

#include "common/result.h"
#include "engine/account.h"
#include "server/http_message.h"
#include "server/resource_path.h"

namespace cosmos::server {

// The id at `index` of the path (0: database, 1: container, 2: document).
engine::ResourceName NameAt(const ResourcePath& path, size_t index);
engine::ContainerAddress ContainerOf(const ResourcePath& path);

// 415 unless the body is JSON (or its type is not said).
Status RequireJsonBody(const HttpRequest& request);

// Headers every signed request may carry, checked before it is routed: x-ms-version must name an
// API version (a date, optionally "-preview"), x-ms-session-token must be a session token.
Status CheckCommonHeaders(const HttpRequest& request);
// A POST that carries a query rather than a resource to create.
bool IsQuery(const HttpRequest& request);
// The checks of a POST that creates: 400 for a batch (not supported yet), then RequireJsonBody.
Status RejectUnsupportedPost(const HttpRequest& request);

// x-ms-max-item-count, x-ms-continuation and x-ms-consistency-level.
Result<engine::FeedOptions> FeedOptionsOf(const HttpRequest& request);
// The query headers of a POST carrying a query (the body is the request's, not copied).
Result<engine::QueryRequest> QueryRequestOf(const HttpRequest& request, engine::ContainerAddress container);
// If-Match and If-None-Match.
engine::Preconditions PreconditionsOf(const HttpRequest& request);
// Prefer: return=minimal (a write answered without its body).
bool WantsMinimalResponse(const HttpRequest& request);
// Throughput asked for on database or container create: x-ms-offer-throughput (manual RU/s) or
// x-ms-cosmos-offer-autopilot-settings {"maxThroughput": N} (autoscale).
Result<engine::ContainerThroughput> ContainerThroughputOf(const HttpRequest& request);

}  // namespace cosmos::server
