"""curl: HTTP(S) transfers through the sandbox's policy-checked client.

Bodies stream chunk by chunk to stdout or a VFS file, so a large download never sits in
memory.  Redirects (-L) are followed here, hop by hop, and each hop dials through the
allow-list backend again.  TLS is always verified; ``-k`` is refused rather than ignored.
"""

from __future__ import annotations

import base64
import io
import posixpath
import time
import urllib.parse
from typing import Any

from vshell.command import Exit, HTTPClient, Invocation
from vshell.commands import curl_file
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import UsageError, parse, switches
from vshell.net import http
from vshell.net.errors import (
    AccessDenied,
    ConnectFailed,
    ConnectTimedOut,
    DecodeFailed,
    InvalidAddress,
    ProtocolBroken,
    ResolveFailed,
    SchemeUnsupported,
    TimedOut,
    TransferFailed,
)
from vshell.records import field, record

SHORT = "sSfLo:OX:H:d:F:GiIu:A:e:b:w:m:vkT:D:r:gVhq#"
LONG = [
    "silent", "show-error", "fail", "fail-with-body", "location", "max-redirs=", "output=",
    "remote-name", "request=", "header=", "data=", "data-ascii=", "data-raw=", "data-binary=",
    "data-urlencode=", "form=", "form-string=", "get", "include", "head", "user=",
    "user-agent=", "referer=", "cookie=", "write-out=", "max-time=", "connect-timeout=",
    "retry=", "retry-delay=", "retry-max-time=", "compressed", "url=", "cacert=", "verbose",
    "insecure", "json=", "upload-file=", "dump-header=", "range=", "create-dirs", "globoff",
    "no-progress-meter", "progress-bar", "http1.1", "version", "location-trusted", "manual",
]
USER_AGENT = "curl/8.5.0"
RETRY_STATUS = {408, 429, 500, 502, 503, 504}
REDIRECT_STATUS = {301, 302, 303, 307, 308}
NO_NET = "network access is not permitted"

HELP = help_text("curl")


class CurlError(Exception):
    """A transfer failure with curl's exit code and message."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@record
class Config:
    """Everything the options say about the transfers."""

    silent: bool = False
    show_error: bool = False
    fail: bool = False
    fail_with_body: bool = False
    location: bool = False
    max_redirs: int = 50
    method: str | None = None
    headers: list[tuple[str, str | None]] = field(default_factory=list)
    data: list[bytes] = field(default_factory=list)
    data_seen: bool = False
    form: list[tuple[str, Any]] = field(default_factory=list)
    get: bool = False
    include: bool = False
    head: bool = False
    user: str | None = None
    write_out: str | None = None
    max_time: float | None = None
    connect_timeout: float | None = None
    retry: int = 0
    retry_delay: float | None = None
    compressed: bool = False
    cacert: str | None = None
    verbose: bool = False
    upload: str | None = None
    dump_header: str | None = None
    create_dirs: bool = False
    location_trusted: bool = False
    urls: list[str] = field(default_factory=list)
    outputs: list[str | None] = field(default_factory=list)  # None = remote name (-O)


@record
class Stats:
    """What -w reports about one transfer."""

    http_code: int = 0
    url_effective: str = ""
    size_download: int = 0
    size_header: int = 0
    content_type: str = ""
    num_redirects: int = 0
    redirect_url: str = ""
    method: str = "GET"
    http_version: str = ""
    started: float = 0.0
    ended: float = 0.0
    exitcode: int = 0
    errormsg: str = ""
    headers: Any = None


def _say(inv: Invocation, cfg: Config | None, text: str) -> None:
    if cfg is None or not cfg.silent or cfg.show_error:
        inv.stderr.write(f"curl: {text}\n".encode("utf-8", "surrogateescape"))


def _usage(inv: Invocation, text: str) -> Exit:
    inv.stderr.write(
        f"curl: {text}\ncurl: try 'curl --help' or 'curl --manual' for more information\n".encode()
    )
    return Exit(2)


def _number(inv: Invocation, opt: str, value: str) -> float:
    try:
        n = float(value)
    except ValueError:
        raise _usage(inv, f"option {opt}: expected a proper numerical parameter") from None
    if n < 0:
        raise _usage(inv, f"option {opt}: expected a proper numerical parameter")
    return n


def _read_source(inv: Invocation, name: str) -> bytes:
    """``@file`` contents through the VFS (``-`` = stdin)."""
    if name == "-":
        return inv.stdin.read()
    try:
        with inv.fs.open(inv.abs(name), "rb") as f:
            return f.read()
    except OSError:
        raise CurlError(26, "Failed to open/read local data from file/application") from None


def _urlencode_item(inv: Invocation, spec: str) -> bytes:
    """--data-urlencode's five forms: content, =content, name=content, @file, name@file."""
    quote = urllib.parse.quote_plus
    if "=" in spec and ("@" not in spec or spec.index("=") < spec.index("@")):
        name, _, content = spec.partition("=")
        text = quote(content, safe="")
        return (f"{name}={text}" if name else text).encode()
    if "@" in spec:
        name, _, path = spec.partition("@")
        raw = _read_source(inv, path)
        text = urllib.parse.quote_plus(raw, safe="")
        return (f"{name}={text}" if name else text).encode()
    return quote(spec, safe="").encode()


def _form_item(inv: Invocation, spec: str, literal: bool) -> tuple[str, Any]:
    """-F name=value, name=@file[;type=x], name=<file (contents as a plain field)."""
    name, eq, value = spec.partition("=")
    if not eq:
        raise _usage(inv, "option -F: is badly used here")
    if literal:
        return name, (None, value.encode())
    if value.startswith("@"):
        path, _, params = value[1:].partition(";")
        ctype = None
        filename = posixpath.basename(path)
        for p in params.split(";"):
            key, _, val = p.partition("=")
            if key.strip() == "type":
                ctype = val.strip()
            elif key.strip() == "filename":
                filename = val.strip().strip('"')
        content = _read_source(inv, path)
        return name, (filename, content, ctype or "application/octet-stream")
    if value.startswith("<"):
        return name, (None, _read_source(inv, value[1:]))
    return name, (None, value.encode())


# the options that only turn a setting on
_SWITCHES = switches(silent="-s --silent", show_error="-S --show-error", fail="-f --fail",
                     fail_with_body="--fail-with-body", location="-L --location", get="-G --get",
                     include="-i --include", head="-I --head", compressed="--compressed",
                     verbose="-v --verbose", create_dirs="--create-dirs")


def _parse(inv: Invocation) -> Config:
    shim = Invocation(inv.name, inv.args, inv.dir, inv.stdin, io.BytesIO(), io.BytesIO(),
                      {}, inv.fs, inv.cancel)
    try:
        opts = parse(shim, SHORT, LONG, usage_status=2, help_text=HELP)
    except UsageError:
        first = shim.stderr.getvalue().decode(errors="replace").split("\n", 1)[0]  # type: ignore[attr-defined]  # the shim streams are BytesIO
        raise _usage(inv, _option_message(first.removeprefix("curl: "))) from None
    except Exit:
        inv.stdout.write(shim.stdout.getvalue())  # type: ignore[attr-defined]  # the shim streams are BytesIO
        raise
    cfg = Config()
    for key, val in opts.items:
        v = val or ""
        if key in _SWITCHES:
            setattr(cfg, _SWITCHES[key], True)
        elif key == "--location-trusted":
            cfg.location = cfg.location_trusted = True
        elif key == "--max-redirs":
            cfg.max_redirs = int(_number(inv, key, v))
        elif key in ("-o", "--output"):
            cfg.outputs.append(v)
        elif key in ("-O", "--remote-name"):
            cfg.outputs.append(None)
        elif key in ("-X", "--request"):
            cfg.method = v
        elif key in ("-H", "--header"):
            cfg.headers.append(_header(v))
        elif key in ("-d", "--data", "--data-ascii"):
            cfg.data_seen = True
            if v.startswith("@"):
                cfg.data.append(_read_source(inv, v[1:]).replace(b"\r", b"").replace(b"\n", b""))
            else:
                cfg.data.append(v.encode("utf-8", "surrogateescape"))
        elif key == "--data-binary":
            cfg.data_seen = True
            cfg.data.append(
                _read_source(inv, v[1:]) if v.startswith("@")
                else v.encode("utf-8", "surrogateescape")
            )
        elif key == "--data-raw":
            cfg.data_seen = True
            cfg.data.append(v.encode("utf-8", "surrogateescape"))
        elif key == "--data-urlencode":
            cfg.data_seen = True
            cfg.data.append(_urlencode_item(inv, v))
        elif key == "--json":
            cfg.data_seen = True
            cfg.data.append(_read_source(inv, v[1:]) if v.startswith("@") else v.encode())
            cfg.headers.append(("Content-Type", "application/json"))
            cfg.headers.append(("Accept", "application/json"))
        elif key in ("-F", "--form", "--form-string"):
            cfg.form.append(_form_item(inv, v, key == "--form-string"))
        elif key in ("-u", "--user"):
            cfg.user = v
        elif key in ("-A", "--user-agent"):
            cfg.headers.append(("User-Agent", v))
        elif key in ("-e", "--referer"):
            cfg.headers.append(("Referer", v))
        elif key in ("-b", "--cookie"):
            cfg.headers.append(("Cookie", v if "=" in v else _cookie_file(inv, v)))
        elif key in ("-w", "--write-out"):
            cfg.write_out = _read_source(inv, v[1:]).decode() if v.startswith("@") else v
        elif key in ("-m", "--max-time"):
            cfg.max_time = _number(inv, key, v) or None
        elif key == "--connect-timeout":
            cfg.connect_timeout = _number(inv, key, v) or None
        elif key == "--retry":
            cfg.retry = int(_number(inv, key, v))
        elif key == "--retry-delay":
            cfg.retry_delay = _number(inv, key, v)
        elif key == "--url":
            cfg.urls.append(v)
        elif key == "--cacert":
            cfg.cacert = v
        elif key in ("-k", "--insecure"):
            raise _usage(
                inv,
                f"option {key}: TLS certificate verification cannot be turned off in vshell;"
                " use --cacert FILE to trust a private CA",
            )
        elif key in ("-T", "--upload-file"):
            cfg.upload = v
        elif key in ("-D", "--dump-header"):
            cfg.dump_header = v
        elif key in ("-r", "--range"):
            cfg.headers.append(("Range", f"bytes={v}"))
        elif key in ("-V", "--version"):
            inv.stdout.write(f"{USER_AGENT} (vshell)\nProtocols: http https\n".encode())
            raise Exit(0)
        elif key in ("-h", "--manual"):
            inv.stdout.write(HELP.encode())
            raise Exit(0)
        # -g, -q, -#, --globoff, --no-progress-meter, --progress-bar, --http1.1: no effect here.
    cfg.urls.extend(opts.operands)
    return cfg


# what the GNU option parser says, and how curl says it ({} is the option)
_GNU_TO_CURL = (
    (r"unrecognized option '(--[^=']*)", "option {}: is unknown"),
    (r"invalid option -- '(.)'", "option -{}: is unknown"),
    (r"option requires an argument -- '(.)'", "option -{}: requires parameter"),
    (r"option '(--[^']*)' requires an argument", "option {}: requires parameter"),
)


def _option_message(gnu: str) -> str:
    """curl's wording for what the GNU parser reported."""
    import re

    for pattern, wording in _GNU_TO_CURL:
        m = re.match(pattern, gnu)
        if m:
            return wording.format(m.group(1))
    return gnu


def _header(text: str) -> tuple[str, str | None]:
    """-H forms: ``Name: value``; ``Name:`` removes a header; ``Name;`` sends it empty."""
    if ":" in text:
        name, _, value = text.partition(":")
        value = value.strip()
        return name.strip(), value if value else None
    if text.endswith(";"):
        return text[:-1].strip(), ""
    return text.strip(), None


def _cookie_file(inv: Invocation, name: str) -> str:
    """Cookies from a Netscape cookie file (tab-separated, name and value last)."""
    try:
        text = _read_source(inv, name).decode("utf-8", "replace")
    except CurlError:
        return ""
    pairs = []
    for line in text.splitlines():
        if line.startswith("#HttpOnly_"):
            line = line[len("#HttpOnly_"):]
        elif line.startswith("#") or not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) >= 7:
            pairs.append(f"{cols[5]}={cols[6]}")
    return "; ".join(pairs)


def run(inv: Invocation) -> int:
    try:
        cfg = _parse(inv)
    except CurlError as e:
        _say(inv, None, f"({e.code}) {e.message}")
        return e.code
    if not cfg.urls:
        raise _usage(inv, "no URL specified")
    if inv.http is None and not all(curl_file.is_file_url(u) for u in cfg.urls):
        raise Exit(1, NO_NET)
    client = inv.http
    own_client = None
    if cfg.cacert is not None and client is not None:
        try:
            pem = _read_source(inv, cfg.cacert).decode("ascii", "replace")
            own_client = client = client.with_ca(pem)
        except CurlError:
            _say(inv, cfg, f"(77) error setting certificate file: {cfg.cacert}")
            return 77
        except Exception as e:  # noqa: BLE001 - a bad PEM is the user's input error
            _say(inv, cfg, f"(77) error setting certificate verify locations: {e}")
            return 77
    if not _header_file_ok(inv, cfg):
        if own_client is not None:
            own_client.close()
        _say(inv, cfg, "(23) Failed writing received data to disk/application")
        return 23
    from vshell.net import cancel_scope

    status = 0
    try:
        with cancel_scope(inv.cancel):
            for i, url in enumerate(cfg.urls):
                out = cfg.outputs[i] if i < len(cfg.outputs) else ""
                code = _transfer_with_retry(inv, cfg, client, url, out)
                status = code or status
    finally:
        if own_client is not None:
            own_client.close()
    return status


def _transfer_with_retry(inv: Invocation, cfg: Config, client: HTTPClient | None, url: str,
                         out: str | None) -> int:
    delay = cfg.retry_delay if cfg.retry_delay is not None else 1.0
    attempt = 0
    while True:
        stats = Stats(started=time.monotonic())
        sink = _Sink(inv, cfg, url, out)
        try:
            if curl_file.is_file_url(url):  # served from the sandbox filesystem
                curl_file.transfer(inv, cfg, url, sink, stats, CurlError, _read_source)
                retryable = None
            else:  # run() refused network URLs when the sandbox has no client
                assert client is not None
                retryable = _transfer(inv, cfg, client, url, sink, stats, attempt < cfg.retry)
            code = 0
            if retryable is not None:
                code = retryable.code
                raise retryable
        except CurlError as e:
            code = e.code
            stats.exitcode, stats.errormsg = e.code, e.message
            can_retry = (code in (6, 7, 28, 52, 56) and "allow list" not in e.message
                         or code == 22 and stats.http_code in RETRY_STATUS)
            if attempt < cfg.retry and can_retry and not sink.wrote:
                attempt += 1
                left = cfg.retry - attempt + 1
                if not cfg.silent:
                    what = "timeout" if code == 28 else (
                        f"HTTP error {stats.http_code}" if code == 22 else "connection problem")
                    inv.stderr.write(
                        f"Warning: Problem : {what}. Will retry in {delay:g} seconds. {left} "
                        f"retries left.\n".encode()
                    )
                _sleep(inv, delay)
                if cfg.retry_delay is None:
                    delay = min(delay * 2, 600)
                sink.discard()
                continue
            if code != 22 or cfg.fail or cfg.fail_with_body:
                _say(inv, cfg, f"({code}) {e.message}")
        finally:
            stats.ended = time.monotonic()
            sink.close()
        if cfg.write_out is not None:
            stats.exitcode = code
            _write_out(inv, cfg.write_out, stats)
        return code


def _sleep(inv: Invocation, seconds: float) -> None:
    end = time.monotonic() + seconds
    while True:
        inv.cancel.waiting()
        left = end - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.05))


class _Sink:
    """Where a body goes: stdout, or a VFS file opened only when the response is wanted."""

    def __init__(self, inv: Invocation, cfg: Config, url: str, out: str | None) -> None:
        self.inv, self.cfg, self.url, self.out = inv, cfg, url, out
        self.file: Any = None
        self.wrote = False
        self.path: str | None = None

    def open(self) -> None:
        if self.out == "" or self.out == "-" or self.file is not None:
            return
        name = self.out
        if name is None:
            path = urllib.parse.urlsplit(self.url).path
            name = urllib.parse.unquote(posixpath.basename(path))
            if not name:
                raise CurlError(23, "Remote file name has no length")
        self.path = self.inv.abs(name)
        try:
            if self.cfg.create_dirs:
                parent = posixpath.dirname(self.path)
                if parent and not self.inv.fs.isdir(parent):
                    self.inv.fs.makedirs(parent, exist_ok=True)
            self.file = self.inv.fs.open(self.path, "wb")
        except OSError as e:
            if not self.cfg.silent or self.cfg.show_error:
                self.inv.stderr.write(
                    f"Warning: Failed to open the file {name}: {e.strerror}\n".encode()
                )
            raise CurlError(23, "Failure writing output to destination") from None

    def write(self, data: bytes) -> None:
        if not data:
            return
        self.open()
        self.wrote = True
        if self.file is None:
            self.inv.stdout.write(data)
            return
        try:
            self.file.write(data)
        except OSError:
            raise CurlError(23, "Failure writing output to destination") from None

    def discard(self) -> None:
        self.close()
        self.file = None

    def close(self) -> None:
        if self.file is not None:
            try:
                self.file.close()
            except OSError:
                pass


def _effective_method(cfg: Config) -> str:
    if cfg.method:
        return cfg.method
    if cfg.head:
        return "HEAD"
    if cfg.upload is not None:
        return "PUT"
    if (cfg.data_seen and not cfg.get) or cfg.form:
        return "POST"
    return "GET"


def _normalize_url(url: str, cfg: Config) -> str:
    if "://" not in url:
        url = "http://" + url
    scheme = url.split("://", 1)[0].lower()
    if scheme not in ("http", "https"):
        raise CurlError(1, f'Protocol "{scheme}" not supported')
    if cfg.get and cfg.data:
        joined = b"&".join(cfg.data).decode("utf-8", "surrogateescape")
        url += ("&" if "?" in url else "?") + joined
    if cfg.upload is not None and url.endswith("/"):
        url += posixpath.basename(cfg.upload)
    return url


def _build_headers(cfg: Config) -> list[tuple[str, str]]:
    headers: list[tuple[str, str | None]] = [("User-Agent", USER_AGENT), ("Accept", "*/*")]
    if cfg.compressed:
        headers.append(("Accept-Encoding", "gzip, deflate"))
    if cfg.user is not None:
        user, _, pw = cfg.user.partition(":")
        token = base64.b64encode(f"{user}:{pw}".encode()).decode()
        headers.append(("Authorization", f"Basic {token}"))
    if cfg.data and not cfg.get and not cfg.form:
        headers.append(("Content-Type", "application/x-www-form-urlencoded"))
    for name, value in cfg.headers:
        headers = [(n, v) for n, v in headers if n.lower() != name.lower()]
        headers.append((name, value))
    return [(n, v) for n, v in headers if v is not None]


def _timeout(cfg: Config, deadline: float | None) -> http.Timeout:
    left = None if deadline is None else max(0.001, deadline - time.monotonic())
    connect = cfg.connect_timeout or 300.0
    if left is not None:
        connect = min(connect, left)
    return http.timeout(left if left is not None else 600.0, connect=connect)


def _transfer(inv: Invocation, cfg: Config, client: HTTPClient, url: str, sink: _Sink,
              stats: Stats, may_retry: bool = False) -> CurlError | None:
    """One URL, redirects included; returns a retryable HTTP failure (22) or raises."""
    deadline = None if cfg.max_time is None else stats.started + cfg.max_time
    url = sink.url = _normalize_url(url, cfg)
    method = _effective_method(cfg)
    headers = _build_headers(cfg)
    body: bytes | None = None
    files = None
    if cfg.upload is not None:
        body = _read_source(inv, cfg.upload)
    elif cfg.form:
        files = cfg.form
    elif cfg.data and not cfg.get:
        body = b"&".join(cfg.data)
    dumped: list[bytes] = []
    while True:
        stats.url_effective = url
        stats.method = method
        try:
            with http.failures():
                request = client.build_request(
                    method, url, headers=headers, content=body, files=files,
                    timeout=_timeout(cfg, deadline),
                )
        except (InvalidAddress, SchemeUnsupported, ValueError, TypeError):
            raise CurlError(3, "URL rejected: Malformed input to a URL function") from None
        if not cfg.compressed:
            request.headers.pop("Accept-Encoding", None)
        for name, value in cfg.headers:  # -H 'Name:' also removes the client's defaults
            if value is None and name.lower() != "host":
                request.headers.pop(name, None)
        if cfg.verbose:
            _verbose_request(inv, request)
        response = _send(client, request, cfg, stats, deadline)
        try:
            head = _status_block(response)
            stats.http_code = response.status_code
            stats.http_version = response.http_version
            stats.content_type = response.headers.get("content-type", "")
            stats.size_header += len(head)
            stats.headers = response.headers
            if cfg.verbose:
                for line in head.decode("latin-1").splitlines():
                    inv.stderr.write(f"< {line}\n".encode("latin-1"))
            dumped.append(head)
            location = response.headers.get("location")
            stats.redirect_url = str(response.url.join(location)) if location else ""
            follow = (cfg.location and response.status_code in REDIRECT_STATUS
                      and location is not None)
            if may_retry and response.status_code in RETRY_STATUS:
                return CurlError(22, f"The requested URL returned error: {response.status_code}")
            if cfg.include or cfg.head:
                if not (cfg.fail and response.status_code >= 400):
                    sink.write(head)
            if follow:
                if stats.num_redirects >= cfg.max_redirs:
                    raise CurlError(47, f"Maximum ({cfg.max_redirs}) redirects followed")
                stats.num_redirects += 1
                new_url = stats.redirect_url
                if response.status_code == 303 and method != "HEAD" or (
                        response.status_code in (301, 302) and method == "POST"
                        and not cfg.method):
                    method, body, files = "GET", None, None
                    headers = [(n, v) for n, v in headers if n.lower() != "content-type"]
                if not cfg.location_trusted and _origin(new_url) != _origin(url):
                    headers = [(n, v) for n, v in headers
                               if n.lower() not in ("authorization", "cookie")]
                url = new_url
                continue
            failed = response.status_code >= 400 and (cfg.fail or cfg.fail_with_body)
            if failed and not cfg.fail_with_body:
                _dump(inv, cfg, dumped)
                return CurlError(22, f"The requested URL returned error: {response.status_code}")
            if method != "HEAD" and not cfg.head:
                _stream_body(inv, cfg, response, sink, stats, deadline)
            sink.open()  # an empty body still creates the -o file, as curl does
            _dump(inv, cfg, dumped)
            if failed:
                return CurlError(22, f"The requested URL returned error: {response.status_code}")
            return None
        finally:
            response.close()


def _origin(url: str) -> tuple[str, str]:
    parts = urllib.parse.urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def _dump(inv: Invocation, cfg: Config, blocks: list[bytes]) -> None:
    if cfg.dump_header is None:
        return
    data = b"".join(blocks)
    if cfg.dump_header == "-":
        inv.stdout.write(data)
        return
    try:
        with inv.fs.open(inv.abs(cfg.dump_header), "wb") as f:
            f.write(data)
    except OSError:
        raise CurlError(23, "Failed writing received data to disk/application") from None


def _header_file_ok(inv: Invocation, cfg: Config) -> bool:
    """curl opens the ``-D`` file before the transfer: a file it cannot write stops it."""
    if cfg.dump_header is None or cfg.dump_header == "-":
        return True
    try:
        with inv.fs.open(inv.abs(cfg.dump_header), "wb"):
            pass
    except OSError:
        if not cfg.silent or cfg.show_error:
            inv.stderr.write(f"Warning: Failed to open {cfg.dump_header}\n".encode(
                "utf-8", "surrogateescape"))
        return False
    return True


def _status_block(response: http.Response) -> bytes:
    version = response.http_version or "HTTP/1.1"
    if version == "HTTP/2":
        first = f"HTTP/2 {response.status_code} \r\n"
    else:
        first = f"{version} {response.status_code} {response.reason_phrase}\r\n"
    lines = [first.encode("latin-1", "replace")]
    for name, value in response.headers.raw:
        lines.append(name + b": " + value + b"\r\n")
    lines.append(b"\r\n")
    return b"".join(lines)


def _verbose_request(inv: Invocation, request: http.Request) -> None:
    target = request.url.raw_path.decode("ascii", "replace")
    lines = [f"> {request.method} {target} HTTP/1.1"]
    lines += [f"> {k}: {v}" for k, v in request.headers.items()]
    lines.append(">")
    inv.stderr.write(("\n".join(lines) + "\n").encode("utf-8", "replace"))


def _elapsed_ms(stats: Stats) -> int:
    return int((time.monotonic() - stats.started) * 1000)


def _send(client: HTTPClient, request: http.Request, cfg: Config, stats: Stats,
          deadline: float | None) -> http.Response:
    host = request.url.host
    port = request.url.port or (443 if request.url.scheme == "https" else 80)
    try:
        with http.failures():
            return client.send(request, stream=True, follow_redirects=False)
    except AccessDenied as e:
        raise CurlError(7, e.detail) from None
    except ResolveFailed:
        raise CurlError(6, f"Could not resolve host: {host}") from None
    except ConnectTimedOut:
        raise CurlError(28, f"Connection timed out after {_elapsed_ms(stats)} milliseconds"
                        ) from None
    except ConnectFailed as e:
        raise _connect_error(e, host, port, stats) from None
    except TimedOut:
        raise CurlError(28, f"Operation timed out after {_elapsed_ms(stats)} milliseconds with 0"
                        " bytes received") from None
    except ProtocolBroken:
        raise CurlError(52, "Empty reply from server") from None
    except SchemeUnsupported:
        raise CurlError(1, f'Protocol "{request.url.scheme}" not supported') from None
    except TransferFailed as e:
        raise CurlError(56, f"Recv failure: {e}") from None


def _connect_error(exc: Exception, host: str, port: int, stats: Stats) -> CurlError:
    import ssl

    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ssl.SSLCertVerificationError):
            reason = cause.verify_message or str(cause)
            return CurlError(60, f"SSL certificate problem: {reason}")
        if isinstance(cause, ssl.SSLError):
            return CurlError(35, f"SSL connect error: {cause.reason or cause}")
        cause = cause.__cause__ or cause.__context__
    return CurlError(7, f"Failed to connect to {host} port {port} after {_elapsed_ms(stats)} ms:"
                     " Couldn't connect to server")


def _stream_body(inv: Invocation, cfg: Config, response: http.Response, sink: _Sink,
                 stats: Stats, deadline: float | None) -> None:
    chunks = response.iter_bytes(65536) if cfg.compressed else response.iter_raw(65536)
    try:
        with http.failures():
            for chunk in chunks:
                inv.cancel.check()
                sink.write(chunk)
                stats.size_download += len(chunk)
                if deadline is not None and time.monotonic() >= deadline:
                    raise CurlError(28, _timed_out(stats))
    except TimedOut:
        raise CurlError(28, _timed_out(stats)) from None
    except DecodeFailed:
        raise CurlError(61, "Error while processing content unencoding") from None
    except ProtocolBroken:
        raise CurlError(18, "transfer closed with outstanding read data remaining") from None
    except TransferFailed as e:
        raise CurlError(56, f"Recv failure: {e}") from None


def _timed_out(stats: Stats) -> str:
    return (f"Operation timed out after {_elapsed_ms(stats)} milliseconds with "
            f"{stats.size_download} bytes received")


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}


def _write_out(inv: Invocation, fmt: str, stats: Stats) -> None:
    """Expand -w's ``%{var}``, ``%{header{name}}``, ``%%`` and backslash escapes."""
    total = max(0.0, stats.ended - stats.started)
    values: dict[str, str] = {
        "http_code": f"{stats.http_code:03d}",
        "response_code": f"{stats.http_code:03d}",
        "url_effective": stats.url_effective,
        "url": stats.url_effective,
        "size_download": str(stats.size_download),
        "size_header": str(stats.size_header),
        "content_type": stats.content_type,
        "time_total": f"{total:.6f}",
        "num_redirects": str(stats.num_redirects),
        "redirect_url": stats.redirect_url,
        "method": stats.method,
        "exitcode": str(stats.exitcode),
        "errormsg": stats.errormsg,
        "http_version": stats.http_version.removeprefix("HTTP/"),
        "scheme": urllib.parse.urlsplit(stats.url_effective).scheme.upper(),
    }
    out: list[str] = []
    stream = inv.stdout
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch == "%" and fmt.startswith("%{", i):
            end = fmt.find("}", i)
            name = fmt[i + 2 : end] if end > 0 else ""
            if name.startswith("header{"):
                end = fmt.find("}}", i)
                hname = fmt[i + 9 : end]
                if stats.headers is not None:
                    out.append(stats.headers.get(hname, ""))
                i = end + 2
                continue
            if end < 0:
                out.append(fmt[i:])
                break
            if name in values:
                out.append(values[name])
            elif name in ("stderr", "stdout"):
                stream.write("".join(out).encode("utf-8", "surrogateescape"))
                out = []
                stream = inv.stderr if name == "stderr" else inv.stdout
            else:
                inv.stderr.write(f"curl: unknown --write-out variable: '{name}'\n".encode())
            i = end + 1
        elif ch == "%" and fmt.startswith("%%", i):
            out.append("%")
            i += 2
        elif ch == "\\" and i + 1 < len(fmt) and fmt[i + 1] in _ESCAPES:
            out.append(_ESCAPES[fmt[i + 1]])
            i += 2
        else:
            out.append(ch)
            i += 1
    stream.write("".join(out).encode("utf-8", "surrogateescape"))
