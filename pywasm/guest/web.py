"""urllib.request over the sandbox's own HTTP client (vshell's ``curl``, through the door).

Why: the guest has no sockets, so ``urllib.request.urlopen`` (and what is built on it:
``pandas.read_csv(url)``, ``json.load(urlopen(...))``) failed deep inside ``socket`` with an
AttributeError.  Here ``http:`` and ``https:`` requests run vshell's ``curl`` in the same
sandbox, so the network policy (``allow_net``), its limits and the run's deadline apply
exactly as they do to the shell; nothing new reaches the network.  A refused or failed
request raises ``urllib.error.URLError`` with curl's message; status codes, headers,
redirects (urllib's own handler follows them, each hop checked again by the policy) and
``HTTPError`` behave as with a socket.  ``http.client`` and ``socket`` themselves still have
no network.
"""

import email.parser
import http.client
import io
import subprocess
import urllib.error
import urllib.response


def _curl_argv(req, timeout):
    """The curl command that performs ``req`` (headers shown with ``-i``)."""
    method = req.get_method()
    argv = ["curl", "-sS", "-i"]
    if method == "HEAD":
        argv.append("-I")
    else:
        argv += ["-X", method]
    for name, value in req.header_items():
        argv += ["-H", f"{name}: {value}"]
    if req.data is not None:
        argv += ["--data-binary", "@-"]
    if timeout is not None and timeout > 0:
        argv += ["--max-time", str(timeout)]
    argv += ["--", req.full_url]
    return argv


def _body_bytes(data):
    """The request body as bytes (urllib accepts bytes, file objects and iterables)."""
    if data is None:
        return None
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    if hasattr(data, "read"):
        chunk = data.read()
        return chunk.encode("iso-8859-1") if isinstance(chunk, str) else bytes(chunk)
    return b"".join(bytes(part) for part in data)


def _split_response(raw):
    """(status, reason, header text, body) of curl's ``-i`` output (1xx blocks skipped)."""
    while True:
        head, sep, rest = raw.partition(b"\r\n\r\n")
        if not sep:
            head, sep, rest = raw.partition(b"\n\n")
        status_line, _, header_text = head.partition(b"\n")
        parts = status_line.decode("iso-8859-1").strip().split(None, 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            raise urllib.error.URLError("malformed response from the sandbox's HTTP client")
        code = int(parts[1])
        if 100 <= code < 200 and rest.startswith(b"HTTP/"):
            raw = rest
            continue
        reason = parts[2] if len(parts) > 2 else ""
        return code, reason, header_text.decode("iso-8859-1"), rest


def fetch(req):
    """Run ``req`` through the sandbox's curl; an ``addinfourl`` as urllib's handlers give."""
    timeout = getattr(req, "timeout", None)
    if not isinstance(timeout, (int, float)):
        timeout = None
    try:
        done = subprocess.run(_curl_argv(req, timeout), input=_body_bytes(req.data),
                              capture_output=True)
    except OSError as err:
        raise urllib.error.URLError(err) from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        if message.startswith("curl: "):
            message = message[len("curl: "):]
        raise urllib.error.URLError(message or f"request failed (curl status {done.returncode})")
    code, reason, header_text, body = _split_response(done.stdout)
    headers = email.parser.Parser(_class=http.client.HTTPMessage).parsestr(header_text)
    resp = urllib.response.addinfourl(io.BytesIO(body), headers, req.full_url, code)
    resp.msg = reason
    resp.reason = reason
    return resp


def patch_urllib(module):
    """Put a handler of sandbox requests into every opener ``module`` (urllib.request, still
    being imported: reached by argument, not as ``urllib.request``) builds from now on."""

    class SandboxHTTPHandler(module.BaseHandler):
        """Answers ``http:`` and ``https:`` before urllib's socket handlers would try."""

        handler_order = 100

        def http_open(self, req):
            return fetch(req)

        def https_open(self, req):
            return fetch(req)

    original = module.build_opener

    def build_opener(*handlers):
        return original(SandboxHTTPHandler, *handlers)

    build_opener.__doc__ = original.__doc__
    module.build_opener = build_opener
    module.SandboxHTTPHandler = SandboxHTTPHandler
    module._opener = None  # urlopen builds its default opener through build_opener
