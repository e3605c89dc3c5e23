"""Group 5, queries.

The service answers 400 (with an SC error code) for a query it cannot parse or bind: syntax
errors, unknown functions, wrong argument counts, a text longer than 262,144 characters, more
than 16,000 IN items, more JOINs or ANDs than its limits, negative or fractional TOP, OFFSET and
LIMIT, and a query body or parameter list of the wrong shape. Functions are total: parsing text
that is not usable JSON (StringToArray of a million brackets) is undefined, not an error, so such
queries answer 200 with no rows. Matching (LIKE, RegexMatch) must not backtrack without bound:
each answer arrives within seconds, whatever the pattern.
"""
from corpus import documents_are, has_documents, nested, query_case, to_json

GROUP = "queries"
FAST = 5.0      # seconds: a linear-time matcher answers these at once
REGEX = 10.0    # seconds: the regular-expression engine is being replaced; any answer in time


def refused(target, name, text, **fields):
    return query_case(target, name, text, group=GROUP, expect=400, **fields)


def answered(target, name, text, expect=200, check=has_documents, **fields):
    return query_case(target, name, text, group=GROUP, expect=expect, check=check, **fields)


def syntax_error_cases(target):
    texts = [
        ("a misspelled SELECT", "SELEC * FROM c"),
        ("FROM without a source", "SELECT * FROM"),
        ("WHERE without a condition", "SELECT * FROM c WHERE"),
        ("an unterminated string", "SELECT * FROM c WHERE c.id = 'unterminated"),
        ("a dangling operator", "SELECT VALUE 1 +"),
        ("an unbalanced parenthesis", "SELECT VALUE (1 FROM c"),
        ("a stray closing parenthesis", "SELECT VALUE 1) FROM c"),
        ("ORDER without BY", "SELECT * FROM c ORDER c.id"),
        ("three aliases", "SELECT * FROM c c c"),
        ("an empty query", ""),
        ("whitespace only", "   \t\n "),
        ("a NUL character", "SELECT * FROM c\u0000"),
        ("emoji as an identifier", "SELECT * FROM \U0001F600"),
        ("an invalid escape in a string", "SELECT VALUE '\\u00' FROM c"),
        ("GROUP BY with ORDER BY", "SELECT c.n FROM c GROUP BY c.n ORDER BY c.n"),
        ("an identifier not in scope", "SELECT VALUE d.id FROM c"),
        ("a text of 270,000 characters", "SELECT * FROM c WHERE c.s = '" + "a" * 270_000 + "'"),
    ]
    return [refused(target, f"syntax: {what}", text) for what, text in texts]


def body_shape_cases(target):
    shapes = [
        ("not JSON", b"{not json"),
        ("an array", b"[]"),
        ("no query property", b'{"parameters":[]}'),
        ("a numeric query", b'{"query":5}'),
        ("a null query", b'{"query":null}'),
        ("parameters that are a string", b'{"query":"SELECT 1","parameters":"x"}'),
        ("a parameter without a name", to_json({"query": "SELECT VALUE 1", "parameters": [{"value": 1}]})),
        ("a parameter name that is a number", to_json({"query": "SELECT VALUE 1", "parameters": [{"name": 5}]})),
        ("a parameter nested 200 deep (past 128)",
         b'{"query":"SELECT VALUE @x","parameters":[{"name":"@x","value":' + nested("[", "]", 200).encode() + b"}]}"),
        ("a parameter nested 500,000 deep",
         b'{"query":"SELECT * FROM c","parameters":[{"name":"@x","value":' + nested("[", "]", 500_000).encode()
         + b"}]}"),
        ("a parameter of objects nested 500,000 deep",
         b'{"query":"SELECT * FROM c","parameters":[{"name":"@x","value":' + nested('{"a":', "}", 500_000, "1").encode()
         + b"}]}"),
        ("a body nested 100,000 deep around the query", nested('{"a":', "}", 100_000, '{"query":"SELECT 1"}').encode()),
        ("invalid UTF-8 in the query", b'{"query":"SELECT \xff FROM c"}'),
        ("TOP @n with a string parameter",
         to_json({"query": "SELECT TOP @n * FROM c", "parameters": [{"name": "@n", "value": "x"}]})),
    ]
    cases = [query_case(target, f"body: {what}", body=body, group=GROUP, expect=400) for what, body in shapes]
    cases += [query_case(target, f"body: {what}", body=body, group=GROUP, expect=(200, 400)) for what, body in [
        ("a parameter without '@'", to_json({"query": "SELECT VALUE @x", "parameters": [{"name": "x", "value": 1}]})),
        ("a parameter name of 60 KB", to_json({"query": "SELECT VALUE 1",
                                               "parameters": [{"name": "@" + "p" * 60_000, "value": 1}]})),
    ]]
    return cases


def nesting_cases(target):
    return [
        refused(target, "nesting: 100,000 chained ['a'] accessors", "SELECT VALUE c" + "['a']" * 100_000 + " FROM c"),
        refused(target, "nesting: 100,000 chained [1] accessors", "SELECT VALUE c.x" + "[1]" * 100_000 + " FROM c"),
        refused(target, "nesting: 40,000 chained .a accessors", "SELECT VALUE c" + ".a" * 40_000 + " FROM c"),
        refused(target, "nesting: 100,000 nested parentheses", "SELECT VALUE " + nested("(", ")", 100_000, "1")),
        refused(target, "nesting: 60,000 nested array literals", "SELECT VALUE " + nested("[", "]", 60_000)),
        refused(target, "nesting: 20,000 nested object literals",
                "SELECT VALUE " + nested("{'a':", "}", 20_000, "1")),
        refused(target, "nesting: 10,000 nested scalar subqueries",
                "SELECT VALUE " + nested("(SELECT VALUE ", ")", 10_000, "1")),
        refused(target, "nesting: 100,000 unary minus signs", "SELECT VALUE " + "- " * 100_000 + "1"),
        refused(target, "nesting: 50,000 NOTs", "SELECT VALUE " + "NOT " * 50_000 + "true"),
        refused(target, "nesting: 100,000 additions in a chain", "SELECT VALUE " + "+".join(["1"] * 100_000)),
        refused(target, "nesting: 20,000 nested function calls", "SELECT VALUE " + nested("ABS(", ")", 20_000, "1")),
        refused(target, "nesting: 50,000 ternaries", "SELECT VALUE " + "true ? 1 : " * 50_000 + "0"),
        refused(target, "nesting: 37,000 coalesces", "SELECT VALUE " + "c.a ?? " * 37_000 + "1 FROM c"),
    ]


def function_cases(target):
    cases = [refused(target, f"function: {what}", text) for what, text in [
        ("an unknown function", "SELECT VALUE FOO(1) FROM c"),
        ("an unknown spatial function", "SELECT VALUE ST_FOO(c.p) FROM c"),
        ("a UDF (not served)", "SELECT VALUE udf.f(1) FROM c"),
        ("ABS without arguments", "SELECT VALUE ABS() FROM c"),
        ("ABS with two arguments", "SELECT VALUE ABS(1, 2) FROM c"),
        ("SUBSTRING with one argument", "SELECT VALUE SUBSTRING('a') FROM c"),
        ("CONCAT with one argument", "SELECT VALUE CONCAT('a') FROM c"),
        ("IS_DEFINED without arguments", "SELECT VALUE IS_DEFINED() FROM c"),
        ("COUNT of two arguments", "SELECT VALUE COUNT(1, 2) FROM c"),
        ("an aggregate in WHERE", "SELECT * FROM c WHERE COUNT(1) > 0"),
    ]]
    one = {"pk": "p", "check": documents_are([])}
    cases += [
        answered(target, "function: StringToArray of 100,000 nested brackets (undefined: 200)",
                 "SELECT VALUE StringToArray('" + nested("[", "]", 100_000) + "') FROM c WHERE c.id = 'd0'", **one),
        answered(target, "function: StringToArray of 1,000 nested brackets (undefined: 200)",
                 "SELECT VALUE StringToArray('" + nested("[", "]", 1000) + "') FROM c WHERE c.id = 'd0'", **one),
        answered(target, "function: StringToObject of 40,000 nested objects (undefined: 200)",
                 "SELECT VALUE StringToObject('" + nested('{"a":', "}", 40_000, "1") + "') FROM c WHERE c.id = 'd0'",
                 **one),
        answered(target, "function: StringToArray of an unterminated array (undefined: 200)",
                 "SELECT VALUE StringToArray('[1,2') FROM c WHERE c.id = 'd0'", **one),
        answered(target, "function: REPLICATE 2^31 times", "SELECT VALUE REPLICATE('a', 2147483647) FROM c "
                 "WHERE c.id = 'd0'", expect=(200, 400), check=None, timeout=FAST),
        answered(target, "function: REPLICATE of a REPLICATE (100 M characters)",
                 "SELECT VALUE REPLICATE(REPLICATE('a', 10000), 10000) FROM c WHERE c.id = 'd0'",
                 expect=(200, 400), check=None, timeout=FAST),
        answered(target, "function: SUBSTRING with offsets past 64 bits",
                 "SELECT VALUE SUBSTRING('abc', -99999999999999999999, 99999999999999999999) FROM c "
                 "WHERE c.id = 'd0'", expect=(200, 400), check=None),
        answered(target, "function: LEFT with the largest integer",
                 "SELECT VALUE LEFT('abc', 9223372036854775807) FROM c WHERE c.id = 'd0'", expect=(200, 400),
                 check=None),
        answered(target, "function: DateTimeAdd of a billion years",
                 "SELECT VALUE DateTimeAdd('yyyy', 999999999, '2020-01-01T00:00:00Z') FROM c WHERE c.id = 'd0'",
                 expect=(200, 400), check=None),
        answered(target, "function: CONCAT of 20,000 arguments",
                 "SELECT VALUE CONCAT(" + ",".join(["'a'"] * 20_000) + ") FROM c WHERE c.id = 'd0'",
                 expect=(200, 400), check=None),
    ]
    return cases


def matching_cases(target):
    like_long = "SELECT VALUE c.id FROM c WHERE c.s LIKE '" + "%a" * 30 + "%b'"
    return [
        refused(target, "LIKE with 300,000 '%a' segments", "SELECT * FROM c WHERE c.s LIKE '" + "%a" * 300_000 + "'",
                timeout=FAST),
        answered(target, "LIKE '%a%a...%b' (30 segments) against 20,000 a's answers at once", like_long,
                 check=documents_are([]), timeout=FAST),
        answered(target, "LIKE with 60 '%_' segments against 20,000 a's answers at once",
                 "SELECT VALUE c.id FROM c WHERE c.s LIKE '" + "%_" * 60 + "b'", check=documents_are([]),
                 timeout=FAST),
        answered(target, "LIKE with an escape clause of two characters",
                 "SELECT VALUE c.id FROM c WHERE c.s LIKE 'a' ESCAPE 'ab'", expect=(200, 400), check=None),
        answered(target, "RegexMatch (a*)*\\1b on 28 a's",
                 "SELECT VALUE c.id FROM c WHERE RegexMatch(c.r, '(a*)*\\\\1b')",
                 expect=(200, 400), check=None, timeout=REGEX),
        answered(target, "RegexMatch (a|a)*b on 28 a's", "SELECT VALUE c.id FROM c WHERE RegexMatch(c.r, '(a|a)*b')",
                 expect=(200, 400), check=None, timeout=REGEX),
        answered(target, "RegexMatch (a+)+b on 20,000 a's", "SELECT VALUE c.id FROM c WHERE RegexMatch(c.s, '(a+)+b')",
                 expect=(200, 400), check=None, timeout=REGEX),
        answered(target, "RegexMatch with 20,000 nested groups",
                 "SELECT VALUE c.id FROM c WHERE RegexMatch(c.r, '" + nested("(", ")", 20_000, "a") + "')",
                 expect=(200, 400), check=None, timeout=REGEX),
        answered(target, "RegexMatch with a{1000}{1000}",
                 "SELECT VALUE c.id FROM c WHERE RegexMatch(c.r, 'a{1000}{1000}')",
                 expect=(200, 400), check=None, timeout=REGEX),
        answered(target, "RegexMatch with an unbalanced pattern", "SELECT VALUE c.id FROM c WHERE RegexMatch(c.r, '(')",
                 expect=(200, 400), check=None, timeout=REGEX),
        answered(target, "RegexMatch with unknown modifiers",
                 "SELECT VALUE c.id FROM c WHERE RegexMatch(c.r, 'a', 'zq')",
                 expect=(200, 400), check=None, timeout=REGEX),
    ]


def limit_cases(target):
    cases = [refused(target, f"limits: {what}", text) for what, text in [
        ("IN with 16,001 items", "SELECT * FROM c WHERE c.n IN (" + ",".join(["1"] * 16_001) + ")"),
        ("IN with 100,000 items", "SELECT * FROM c WHERE c.n IN (" + ",".join(["1"] * 100_000) + ")"),
        ("11 JOINs", "SELECT VALUE 1 FROM c" + "".join(f" JOIN a{i} IN c.arr" for i in range(11))),
        ("1,000 ANDs", "SELECT * FROM c WHERE " + " AND ".join(["c.n = 1"] * 1000)),
        ("TOP -1", "SELECT TOP -1 * FROM c"),
        ("TOP 1.5", "SELECT TOP 1.5 * FROM c"),
        ("TOP past 64 bits", "SELECT TOP 99999999999999999999 * FROM c"),
        ("TOP 'a'", "SELECT TOP 'a' * FROM c"),
        ("OFFSET -1", "SELECT * FROM c OFFSET -1 LIMIT 1"),
        ("LIMIT -1", "SELECT * FROM c OFFSET 0 LIMIT -1"),
        ("OFFSET past 64 bits", "SELECT * FROM c OFFSET 99999999999999999999 LIMIT 1"),
        ("LIMIT 1.5", "SELECT * FROM c OFFSET 0 LIMIT 1.5"),
        ("ORDER BY a constant", "SELECT * FROM c ORDER BY 1"),
        ("ORDER BY 20 paths without a composite index",
         "SELECT * FROM c ORDER BY " + ", ".join(f"c.p{i}" for i in range(20))),
    ]]
    cases += [
        answered(target, "limits: IN with 10,000 items is served", "SELECT VALUE c.id FROM c WHERE c.n IN ("
                 + ",".join(str(i + 100) for i in range(10_000)) + ")", check=documents_are([])),
        answered(target, "limits: ORDER BY an undefined path is served", "SELECT VALUE c.id FROM c ORDER BY c.nope"),
        answered(target, "limits: ORDER BY an undefined nested path is served",
                 "SELECT VALUE c.id FROM c ORDER BY c.nope.x[5]"),
        answered(target, "limits: OFFSET 2^62 LIMIT 1 is served", "SELECT * FROM c OFFSET 4611686018427387904 LIMIT 1",
                 expect=(200, 400), check=None),
        answered(target, "limits: 1,000 ORs", "SELECT VALUE c.id FROM c WHERE "
                 + " OR ".join(f"c.n = {i + 100}" for i in range(1000)), expect=(200, 400), check=None),
        answered(target, "limits: 4 JOINs over 40 elements (2.5 M rows) answer in time",
                 "SELECT VALUE COUNT(1) FROM c" + "".join(f" JOIN a{i} IN c.arr" for i in range(4)),
                 expect=(200, 400, 408, 429), check=None),
    ]
    return cases


def routing_cases(target):
    return [
        refused(target, "routing: a query without a partition key or cross-partition", "SELECT * FROM c", pk=None),
        refused(target, "routing: cross-partition 'maybe'", "SELECT * FROM c", pk=None,
                headers={"x-ms-documentdb-query-enablecrosspartition": "maybe"}),
        query_case(target, "routing: a query with content-type text/plain", "SELECT * FROM c", group=GROUP,
                   headers={"content-type": "text/plain"}, expect=(400, 415)),
        query_case(target, "routing: a query-plan request for a syntax error", "SELEC * FORM c", pk=None, group=GROUP,
                   headers={"x-ms-cosmos-is-query-plan-request": "true",
                            "x-ms-cosmos-supported-query-features": "Aggregate,OrderBy"}, expect=400),
        query_case(target, "routing: a query on a missing container", "SELECT * FROM c", coll="nope", group=GROUP,
                   expect=404),
        query_case(target, "routing: a syntax error on the container feed", "SELEC * FORM c", pk=None, group=GROUP,
                   expect=400, path=f"/dbs/{target.db}/colls"),
        query_case(target, "routing: a syntax error on the database feed", "SELEC * FORM c", pk=None, group=GROUP,
                   expect=400, path="/dbs"),
        query_case(target, "routing: a syntax error on the offers feed", "SELEC * FORM c", pk=None, group=GROUP,
                   expect=400, path="/offers"),
    ]


def cases(target, key):
    return (syntax_error_cases(target) + body_shape_cases(target) + nesting_cases(target) +
            function_cases(target) + matching_cases(target) + limit_cases(target) + routing_cases(target))
