"""Group 8, HTTP framing and connections (part of group 4's Content-Length mismatches).

The HTTP layer answers a request it cannot parse (a garbage request line, a header without a
colon, a Content-Length that is not a number or disagrees with another, an unknown transfer
coding) with 400 and a Cosmos-shaped body, and a body past 16 MB with 413, then closes the
connection. A client that stops sending in the middle of a request, never finishes its headers,
or never reads its answers holds only its own connection: every other client, /ready included,
is served meanwhile.
"""
import socket
import time

from corpus import Case, pk_header, to_json
from wire import close_all

GROUP = "transport"
CLOSE_WITHIN = 10  # seconds; the server's idle timeout is 120 s, its TLS shutdown timeout 5 s


def raw(name, data, expect=None, allow_no_response=False, **fields):
    return Case(f"framing: {name}", group=GROUP, raw=data, expect=expect, allow_no_response=allow_no_response,
                **fields)


def framing_cases(target):
    body = to_json({"id": "tr-framing", "pk": "p"})
    writes = ((target.items, "tr-framing"),)

    def framed(name, framing, payload, expect=None):
        """A correctly signed create whose framing headers are `framing`: were the framing
        accepted, the create would succeed, so a refusal is the framing's."""
        return Case(f"framing: {name}", group=GROUP, method="POST", path=target.docs(), body=payload,
                    content_length=None, headers={**pk_header("p"), "content-type": "application/json"},
                    extra_headers=framing, expect=expect, writes=writes)

    chunked = b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"
    return [
        raw("a garbage request line", b"HELLO\r\n\r\n"),
        raw("an HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", allow_no_response=True),
        raw("HTTP version 9.9", b"GET /ready HTTP/9.9\r\nhost: {host}\r\n\r\n", expect=(400, 505)),
        raw("a header without a colon", b"GET /ready HTTP/1.1\r\nhost: {host}\r\nnot a header\r\n\r\n"),
        raw("an obsolete folded header", b"GET /ready HTTP/1.1\r\nhost: {host}\r\nx-a: 1\r\n  folded\r\n\r\n",
            expect=(200, 400), note="RFC 7230 lets a server reject or unfold obs-fold"),
        raw("a NUL byte in the request line", b"GET /re\x00ady HTTP/1.1\r\nhost: {host}\r\n\r\n"),
        raw("whitespace before the first header", b"GET /ready HTTP/1.1\r\n host: {host}\r\n\r\n"),
        raw("a TLS ClientHello inside the connection", b"\x16\x03\x01\x00\x05\x01\x00\x00\x01\x00" * 3,
            allow_no_response=True),
        framed("Content-Length 'abc'", [("content-length", "abc")], body),
        framed("Content-Length -1", [("content-length", "-1")], body),
        framed("Content-Length past 64 bits", [("content-length", "99999999999999999999")], body),
        framed("two different Content-Lengths", [("content-length", str(len(body))), ("content-length", "5")], body),
        framed("Content-Length and Transfer-Encoding together",
               [("content-length", "4"), ("transfer-encoding", "chunked")], chunked),
        framed("a chunk size that is not hex", [("transfer-encoding", "chunked")],
               b"zz\r\n" + body + b"\r\n0\r\n\r\n"),
        framed("a chunk size past 64 bits", [("transfer-encoding", "chunked")],
               b"ffffffffffffffffff\r\n" + body + b"\r\n0\r\n\r\n"),
        framed("Transfer-Encoding gzip", [("transfer-encoding", "gzip")], body, expect=(400, 501)),
        framed("Transfer-Encoding chunked, chunked", [("transfer-encoding", "chunked, chunked")], chunked),
        framed("Content-Length of 17 MB with no body", [("content-length", "17825792")], b"", expect=413),
        framed("a body longer than its Content-Length", [("content-length", "10")], body),
    ]


# --- Scenarios: connections held open while other clients are served -------------------------

def hold_open(runner, pieces, connections=1):
    """Opens `connections` connections, sends `pieces` on each and leaves them open; returns them."""
    held = []
    for _ in range(connections):
        sock = runner.endpoint.connect(timeout=10)
        sock.sendall(pieces)
        held.append(sock)
    return held


def served_while_held(runner, pieces_of, connections=1):
    """Holds connections open with partial requests and checks others are served meanwhile."""
    held = []
    try:
        held = hold_open(runner, pieces_of(runner), connections)
        time.sleep(0.2)
        problem = runner.health_problem()
        return f"while {connections} connection(s) stalled: {problem}" if problem else None
    finally:
        close_all(held)


def partial_create(target, declared, sent):
    def pieces(runner):
        body = to_json({"id": "tr-partial", "pk": "p", "pad": "x" * 200})
        head = runner.request_bytes(Case("", method="POST", path=target.docs(), body=b"", content_length=declared,
                                         headers={**pk_header("p"), "content-type": "application/json",
                                                  "connection": "keep-alive"}))
        return head + body[:sent]
    return pieces


def partial_read(target):
    def pieces(runner):
        return runner.request_bytes(Case("", method="GET", path=target.doc("d0"), headers=pk_header("p"),
                                         content_length=100, body=b"0123456789"))
    return pieces


def partial_headers(runner):
    return f"GET /ready HTTP/1.1\r\nhost: {runner.target.host}\r\nx-slow: ".encode()


def unterminated_chunks(target):
    def pieces(runner):
        return runner.request_bytes(Case("", method="POST", path=target.docs(), body=b"a\r\n{\"id\":\"tr-\r\n",
                                         content_length=None,
                                         headers={**pk_header("p"), "content-type": "application/json",
                                                  "transfer-encoding": "chunked"}))
    return pieces


def expect_continue(target):
    def pieces(runner):
        return runner.request_bytes(Case("", method="POST", path=target.docs(), body=b"", content_length=50,
                                         headers={**pk_header("p"), "content-type": "application/json",
                                                  "expect": "100-continue"}))
    return pieces


def half_closed_mid_body(target):
    """Sends half a body, then closes its sending side: the server sees the end of the stream
    and must answer (4xx) or close soon, not wait for its idle timeout (over TLS it may wait
    up to 5 s for the client's close_notify, which never comes)."""
    def scenario(runner):
        sock = runner.endpoint.connect(timeout=10)
        try:
            sock.sendall(partial_create(target, 300, 20)(runner))
            sock.shutdown(socket.SHUT_WR)
            sock.settimeout(CLOSE_WITHIN)
            try:
                while sock.recv(65536):
                    pass
            except socket.timeout:
                return f"the connection was still open {CLOSE_WITHIN} s after the client finished sending"
            except OSError:
                pass
            return None
        finally:
            close_all([sock])
    return scenario


def never_reads_answers(target):
    """Pipelines 300 read-feed requests and never reads the answers (the socket buffers fill):
    the server must go on serving other clients."""
    def scenario(runner):
        request = runner.request_bytes(Case("", method="GET", path=target.docs(), content_length=None,
                                            headers={**pk_header("p"), "connection": "keep-alive",
                                                     "x-ms-max-item-count": "-1"}))
        sock = runner.endpoint.connect(timeout=10)
        try:
            sock.settimeout(5)
            try:
                for _ in range(300):
                    sock.sendall(request)
            except (socket.timeout, OSError):
                pass  # the server stopped reading: the buffers are full, as intended
            problem = runner.health_problem()
            return f"while a client did not read its answers: {problem}" if problem else None
        finally:
            close_all([sock])
    return scenario


def pipelined_flood(runner):
    """1,000 pipelined GET /ready on one connection are all answered."""
    request = f"GET /ready HTTP/1.1\r\nhost: {runner.target.host}\r\n\r\n".encode()
    sock = runner.endpoint.connect(timeout=10)
    try:
        sock.sendall(request * 1000)
        sock.settimeout(10)
        received = b""
        deadline = time.monotonic() + 10
        while received.count(b"HTTP/1.1 200") < 1000 and time.monotonic() < deadline:
            piece = sock.recv(65536)
            if not piece:
                break
            received += piece
        answered = received.count(b"HTTP/1.1 200")
        return None if answered == 1000 else f"{answered} of 1,000 pipelined requests answered"
    except (socket.timeout, OSError) as error:
        return f"pipelined requests: {error!r}"
    finally:
        close_all([sock])


def scenario_cases(target):
    def held(name, pieces_of, connections=1, writes=()):
        return Case(f"connections: {name}", group=GROUP, writes=writes,
                    scenario=lambda runner: served_while_held(runner, pieces_of, connections))
    partial = ((target.items, "tr-partial"),)
    return [
        held("a create body shorter than its Content-Length, held open", partial_create(target, 300, 20),
             writes=partial),
        held("a read with a body shorter than its Content-Length, held open", partial_read(target)),
        held("100 creates with bodies shorter than their Content-Length", partial_create(target, 300, 20), 100,
             writes=partial),
        held("200 connections that never finish their headers", partial_headers, 200),
        held("a chunked body that never ends", unterminated_chunks(target)),
        held("Expect: 100-continue and no body", expect_continue(target)),
        Case("connections: a client closes its side in the middle of a body", group=GROUP, writes=partial,
             scenario=half_closed_mid_body(target)),
        Case("connections: a client that never reads its answers", group=GROUP, scenario=never_reads_answers(target)),
        Case("connections: 1,000 pipelined requests", group=GROUP, scenario=pipelined_flood),
    ]


def cases(target, key):
    return framing_cases(target) + scenario_cases(target)
