// Response building: turns what the engine answers (a resource, a feed page, a query page or
// plan, the partition key ranges) into an HttpResponse with the Cosmos headers that go with it
// (request charge, etag, owner paths, item count, continuation, session token and LSNs). The
// headers every answer carries are the request handler's (AddCommonHeaders), not these.
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "engine/account.h"
#include "server/http_message.h"

namespace cosmos::server {

// A request charge as the service writes it: two decimals.
std::string FormatCharge(double charge);

// `with_lsn`: add the session token and LSN headers (items and what holds them, which the
// SDKs read with session consistency).
HttpResponse FromResource(engine::ResourceResponse resource, int status, bool with_lsn);
HttpResponse FromFeed(engine::FeedResponse feed, bool with_lsn);
// A query page, with its metrics and the fan-out headers (x-cosmolite-*).
HttpResponse FromQuery(engine::QueryResponse page, bool with_lsn);
// The SDK's query plan, with the partitions it reaches (x-cosmolite-*).
HttpResponse FromQueryPlan(engine::QueryPlanResponse plan);
// The partition key ranges feed, or 304 when the client's etag is current.
HttpResponse FromRanges(engine::PartitionKeyRangesResponse ranges);
// A batch or bulk answer: 200 when every operation applied, else 207 Multi-Status; the body is
// one result per operation ({statusCode, subStatusCode?, requestCharge, eTag?, resourceBody?,
// retryAfterMilliseconds?}), an operation that did not run 424. `minimal`: no resource bodies.
HttpResponse FromBatch(engine::BatchResponse batch, bool minimal);
// A body that is not a Cosmos resource (/alive, the certificate).
HttpResponse PlainText(int status, std::string content_type, std::string body);

}  // namespace cosmos::server
