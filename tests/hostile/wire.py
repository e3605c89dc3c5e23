"""The wire: master-key signing and a minimal HTTP/1.1 client over raw sockets.

The corpus needs to send bytes no ordinary client would (literal spaces or invalid UTF-8 in the
request target, duplicate or conflicting framing headers, bodies shorter than their
Content-Length), so every request is written by hand. Each exchange uses a fresh connection and
reads one response; the server's answer may arrive before the whole body is sent (413), so the
body goes out in pieces and sending stops as soon as the server has answered.
"""
import base64
import email.utils
import hashlib
import hmac
import select
import socket
import ssl
import time
import urllib.parse
from dataclasses import dataclass, field

API_VERSION = "2020-07-15"
SEND_PIECE = 64 * 1024


# --- Signing -------------------------------------------------------------------------------

def http_date(offset_seconds=0):
    """An RFC 1123 date, e.g. 'Tue, 01 Nov 1994 08:12:31 GMT'."""
    return email.utils.formatdate(time.time() + offset_seconds, usegmt=True)


def signing_target(path):
    """(resourceType, resourceLink) as bytes for a request path, as the SDKs compute them: a feed
    (odd number of segments) is signed with its type and parent link, a resource with the type
    before its id and its own link. Segments are percent-decoded; a path that cannot be split
    this way (garbage) is signed with what it has."""
    if isinstance(path, str):
        path = path.encode("utf-8", "surrogateescape")
    path = path.split(b"?", 1)[0]
    segments = [urllib.parse.unquote_to_bytes(s) for s in path.split(b"/") if s]
    if not segments:
        return b"", b""
    if len(segments) == 6 and segments[4] == b"operations":  # signed as the container it operates on
        segments = segments[:4]
    if len(segments) % 2 == 1:
        return segments[-1], b"/".join(segments[:-1])
    return segments[-2], b"/".join(segments)


def master_key_authorization(key_base64, verb, resource_type, resource_link, date):
    """The URL-encoded `type=master&ver=1.0&sig=...` header value."""
    def as_bytes(value):
        return value if isinstance(value, bytes) else value.encode("utf-8")
    payload = (as_bytes(verb).lower() + b"\n" + as_bytes(resource_type).lower() + b"\n" +
               as_bytes(resource_link) + b"\n" + as_bytes(date).lower() + b"\n" + b"\n")
    digest = hmac.new(base64.b64decode(key_base64), payload, hashlib.sha256).digest()
    token = "type=master&ver=1.0&sig=" + base64.b64encode(digest).decode("ascii")
    return urllib.parse.quote(token, safe="")


# --- Responses -----------------------------------------------------------------------------

@dataclass
class Response:
    status: int
    reason: str
    headers: dict = field(default_factory=dict)  # lowercased name -> last value
    body: bytes = b""
    elapsed: float = 0.0

    def json(self):
        """The body parsed as JSON, or None when it is not JSON."""
        import json
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return None


class NoResponse(Exception):
    """The connection closed (or was reset) before a complete response arrived."""


class TimedOut(Exception):
    """No complete response within the case's time limit."""


# --- Connections ---------------------------------------------------------------------------

class Endpoint:
    """Where the server listens, and how to reach it (plain TCP or TLS trusting one CA)."""

    def __init__(self, url, ca_file=None):
        parsed = urllib.parse.urlsplit(url)
        self.tls = parsed.scheme == "https"
        self.host = parsed.hostname or "127.0.0.1"
        self.port = parsed.port or (443 if self.tls else 80)
        self.context = None
        if self.tls:
            self.context = ssl.create_default_context(cafile=ca_file) if ca_file else ssl.create_default_context()

    @property
    def host_header(self):
        return f"{self.host}:{self.port}"

    def connect(self, timeout):
        sock = socket.create_connection((self.host, self.port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.tls:
            sock = self.context.wrap_socket(sock, server_hostname=self.host)
        return sock


def _early_answer(sock):
    """What the server has sent so far without being asked to wait: b"" when nothing, None when
    it closed the connection. Over TLS a readable socket may hold only handshake records (session
    tickets), which are no answer."""
    ready, _, _ = select.select([sock], [], [], 0)
    if not ready and not (isinstance(sock, ssl.SSLSocket) and sock.pending()):
        return b""
    timeout = sock.gettimeout()
    sock.setblocking(False)
    try:
        return sock.recv(65536) or None
    except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
        return b""
    except (ConnectionResetError, ssl.SSLError, OSError):
        return None
    finally:
        sock.settimeout(timeout)


def send_request(sock, data):
    """Sends `data`, stopping early (without error) once the server has started answering or
    has closed the connection. Returns the bytes of the answer already received."""
    view = memoryview(data)
    for start in range(0, len(view), SEND_PIECE):
        if start:
            early = _early_answer(sock)
            if early is None:
                return b""
            if early:
                return early
        try:
            sock.sendall(view[start:start + SEND_PIECE])
        except socket.timeout as error:
            raise TimedOut() from error
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            return b""
    return b""


def _recv(sock, deadline):
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimedOut()
    sock.settimeout(remaining)
    try:
        return sock.recv(65536)
    except socket.timeout as error:
        raise TimedOut() from error
    except (ConnectionResetError, ssl.SSLError, OSError):
        return b""


def read_response(sock, deadline, is_head=False, buffer=b""):
    """Reads one HTTP/1.1 response (Content-Length, chunked, or up to the close); the answer
    to a HEAD has no body whatever its Content-Length says. `buffer` holds what was already read."""
    while b"\r\n\r\n" not in buffer:
        piece = _recv(sock, deadline)
        if not piece:
            raise NoResponse("connection closed with %d bytes of response" % len(buffer))
        buffer += piece
    header_block, rest = buffer.split(b"\r\n\r\n", 1)
    lines = header_block.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        raise NoResponse("unreadable status line %r" % lines[0][:80])
    status, reason = int(parts[1]), parts[2] if len(parts) > 2 else ""
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if is_head or status in (204, 304) or 100 <= status < 200:
        return Response(status, reason, headers, b"")
    if "content-length" in headers:
        length = int(headers["content-length"])
        while len(rest) < length:
            piece = _recv(sock, deadline)
            if not piece:
                break  # a short body is still an answer; the checks judge it
            rest += piece
        return Response(status, reason, headers, rest[:length])
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return Response(status, reason, headers, _read_chunked(sock, rest, deadline))
    while True:
        piece = _recv(sock, deadline)
        if not piece:
            return Response(status, reason, headers, rest)
        rest += piece


def _read_chunked(sock, buffer, deadline):
    body = b""
    while True:
        while b"\r\n" not in buffer:
            piece = _recv(sock, deadline)
            if not piece:
                return body
            buffer += piece
        size_line, buffer = buffer.split(b"\r\n", 1)
        size = int(size_line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            return body
        while len(buffer) < size + 2:
            piece = _recv(sock, deadline)
            if not piece:
                return body + buffer
            buffer += piece
        body += buffer[:size]
        buffer = buffer[size + 2:]


def close_all(sockets):
    """Closes every socket, ignoring those already reset."""
    for sock in sockets:
        try:
            sock.close()
        except OSError:
            pass


def exchange(endpoint, data, timeout, is_head=False):
    """Sends one request on a new connection and reads the response.
    Raises TimedOut, NoResponse, or OSError (cannot connect)."""
    started = time.monotonic()
    deadline = started + timeout
    try:
        sock = endpoint.connect(timeout)
    except socket.timeout as error:
        raise TimedOut() from error
    try:
        early = send_request(sock, data)
        response = read_response(sock, deadline, is_head, early)
        response.elapsed = time.monotonic() - started
        return response
    finally:
        try:
            sock.close()
        except OSError:
            pass
