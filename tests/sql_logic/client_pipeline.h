// A model of what an SDK does with a cross-partition query that the gateway will not serve alone:
// given the query plan of the 400/1004 answer (ErrorCode::kQueryNeedsClientPlan), it reads the
// partition key ranges, runs the plan's rewritten query on every range the plan's queryRanges
// overlap (paging each through its own continuation), and merges the rows on the client:
// ORDER BY as a k-way merge, then GROUP BY and aggregates, DISTINCT, TOP, OFFSET/LIMIT
// (sdk-wire.md §4). The stages, their order and the requests they make follow @azure/cosmos
// 4.9.3 (src/queryExecutionContext/pipelinedQueryExecutionContext.ts and what it builds on).
//
// Where that SDK is wrong we model the service's semantics instead, as the .NET SDK does, so that
// a test states what Cosmos DB answers rather than one client's bugs:
//  - ORDER BY merges with the service's total type order (undefined < null < booleans < numbers <
//    strings < arrays < objects); the JS SDK throws on mixed types, null, arrays and objects.
//  - DISTINCT keeps falsy rows (0, "", false, null); the JS SDK drops them.
//  - An aggregate a range reports as undefined (SUM or AVG over a non-number, MIN or MAX over an
//    array or object) makes the aggregate of its group undefined, as on one partition; the JS SDK
//    skips that range for AVG, MIN and MAX, adds SUM's as null, and drops every row of a query
//    whose VALUE SUM is undefined on some range.
//  - MAKESET removes repeats by value; the JS SDK's Set keeps equal arrays and objects.
// A plan with dCountInfo (COUNT over a DISTINCT subquery), which the JS SDK never asks for, is
// counted as the .NET SDK does.
// A non-streaming ORDER BY (vector search) is merged as ORDER BY is: the SDK's priority queue
// gives the same rows, ties apart.
// A hybrid search plan (ORDER BY RANK) runs as hybrid_pipeline.h models it.
// Not modelled: continuation tokens handed back to the caller and splits during the query (a 410
// is returned as an error).
// Thread-compatible: one call runs one query.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "engine/account.h"

namespace cosmos_sql_test {

// What the client pipeline produced, and what it cost.
struct ClientPipelineRun {
  std::vector<cosmos::Json> rows;   // the query's result, in the order the SDK returns it
  std::vector<size_t> page_counts;  // rows of every page the ranges returned, in request order
  double charge = 0;                // request charges of those pages together
};

// Runs `request`, a cross-partition query that failed with kQueryNeedsClientPlan, as the SDK does
// with `plan`, the error's additional_error_info() (the PartitionedQueryExecutionInfo JSON text).
// Every range is paged with the request's max_item_count. Returns the first error a range
// answers with (e.g. kBadRequest for a query that fails at run time, kPartitionKeyRangeGone after
// a split), or kInternal for a plan or a range answer the SDK could not use (the message says
// what was wrong with it).
cosmos::Result<ClientPipelineRun> RunClientPipeline(cosmos::engine::Account& account,
                                                    const cosmos::engine::QueryRequest& request,
                                                    const std::string& plan);

}  // namespace cosmos_sql_test
