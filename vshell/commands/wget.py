"""wget: a small companion to curl for the common ``wget -qO- URL`` and ``wget URL`` uses.

Redirects are followed by httpx itself; every hop still dials through the allow-list
backend, so each new host is checked again.  Bodies stream to the VFS in chunks.
"""

from __future__ import annotations

import posixpath
import time
import urllib.parse
from typing import IO, Any

from vshell.command import Exit, Invocation
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.net import http
from vshell.net.errors import (
    AccessDenied,
    ConnectFailed,
    ResolveFailed,
    TooManyRedirects,
    TransferFailed,
)

HELP = help_text("wget")


def _default_name(inv: Invocation, url: str, prefix: str) -> str:
    """The remote file name (index.html for a directory), with wget's ``.N`` on a clash."""
    name = urllib.parse.unquote(posixpath.basename(urllib.parse.urlsplit(url).path))
    base = posixpath.join(prefix, name or "index.html")
    candidate, n = base, 1
    while inv.fs.exists(inv.abs(candidate)):
        candidate = f"{base}.{n}"
        n += 1
    return candidate


def run(inv: Invocation) -> int:
    opts = parse(
        inv, "qO:P:U:T:Snv",
        ["quiet", "output-document=", "directory-prefix=", "user-agent=", "header=",
         "timeout=", "max-redirect=", "server-response", "no-verbose", "verbose",
         "post-data=", "no-check-certificate"],
        help_text=HELP,
    )
    if opts.has("--no-check-certificate"):
        raise Exit(2, "--no-check-certificate: TLS verification cannot be turned off in vshell")
    if not opts.operands:
        inv.stderr.write(b"wget: missing URL\nUsage: wget [OPTION]... [URL]...\n\n"
                         b"Try `wget --help' for more options.\n")
        return 1
    if inv.http is None:
        raise Exit(1, "network access is not permitted")
    quiet = opts.has("-q", "--quiet")
    output = opts.last("-O", "--output-document")
    prefix = opts.last("-P", "--directory-prefix", default="") or ""
    headers = {"User-Agent": opts.last("-U", "--user-agent", default="Wget/1.21.4") or ""}
    for h in opts.all("--header"):
        name, _, value = h.partition(":")
        headers[name.strip()] = value.strip()
    timeout_s = opts.last("-T", "--timeout")
    post = opts.last("--post-data")
    max_redirect = int(opts.last("--max-redirect", default="20") or "20")
    from vshell.net import cancel_scope

    status = 0
    single = None
    try:
        with cancel_scope(inv.cancel):
            for url in opts.operands:
                if "://" not in url:
                    url = "http://" + url
                code, single = _fetch(inv, url, output, prefix, headers, timeout_s, post,
                                      max_redirect, quiet, opts.has("-S", "--server-response"),
                                      single)
                status = code or status
    finally:
        if single is not None and single is not inv.stdout:
            single.close()
    return status


def _fetch(inv: Invocation, url: str, output: str | None, prefix: str, headers: dict[str, str],
           timeout_s: str | None, post: str | None, max_redirect: int, quiet: bool,
           show_response: bool, single: IO[bytes] | None) -> tuple[int, IO[bytes] | None]:
    """One URL; returns (exit status, the shared -O file if one was opened)."""
    def log(text: str) -> None:
        if not quiet:
            inv.stderr.write(text.encode("utf-8", "surrogateescape"))

    timeout = http.timeout(float(timeout_s)) if timeout_s else http.timeout(900.0, connect=60)
    method = "POST" if post is not None else "GET"
    content = post.encode() if post is not None else None
    log(f"--{time.strftime('%Y-%m-%d %H:%M:%S')}--  {url}\n")
    client = inv.http
    assert client is not None  # main() refuses to fetch without a network
    try:
        with http.failures():
            request = client.build_request(method, url, headers=headers, content=content,
                                           timeout=timeout)
            if content is not None:
                request.headers["Content-Type"] = "application/x-www-form-urlencoded"
            response = client.send(request, stream=True, follow_redirects=True)
    except AccessDenied as e:
        log(f"wget: {e}\n".replace("wget: vshell: ", "wget: "))
        return 4, single
    except ResolveFailed as e:
        log(f"wget: unable to resolve host address '{e.host}'\n")
        return 4, single
    except TooManyRedirects:
        log(f"{max_redirect} redirections exceeded.\n")
        return 8, single
    except ConnectFailed as e:
        import ssl

        cause: BaseException | None = e
        while cause is not None:
            if isinstance(cause, ssl.SSLError):
                log(f"ERROR: cannot verify certificate: {cause}\n")
                return 5, single
            cause = cause.__cause__ or cause.__context__
        log(f"failed: {e}.\n")
        return 4, single
    except TransferFailed as e:
        log(f"failed: {e or 'Connection timed out'}.\n")
        return 4, single
    except ValueError:  # InvalidAddress included
        log(f"{url}: Invalid URL.\n")
        return 1, single
    try:
        if len(response.history) > max_redirect:
            log(f"{max_redirect} redirections exceeded.\n")
            return 8, single
        if show_response:
            log(f"  {response.http_version} {response.status_code} {response.reason_phrase}\n")
            for k, v in response.headers.items():
                log(f"  {k}: {v}\n")
        log(f"HTTP request sent, awaiting response... {response.status_code} "
            f"{response.reason_phrase}\n")
        if response.status_code >= 400:
            log(f"{time.strftime('%Y-%m-%d %H:%M:%S')} ERROR {response.status_code}: "
                f"{response.reason_phrase}.\n\n")
            return 8, single
        if output == "-":
            target: Any = inv.stdout
            name = "-"
        elif output is not None:
            if single is None:
                single = inv.fs.open(inv.abs(output), "wb")
            target, name = single, output
        else:
            name = _default_name(inv, str(response.url), prefix)
            target = inv.fs.open(inv.abs(name), "wb")
        log(f"Saving to: '{name}'\n\n")
        size = 0
        try:
            with http.failures():
                for chunk in response.iter_bytes(65536):
                    inv.cancel.check()
                    target.write(chunk)
                    size += len(chunk)
        except TransferFailed as e:
            log(f"Read error ({e}).\n")
            return 4, single
        finally:
            if output is None:
                target.close()
        log(f"{time.strftime('%Y-%m-%d %H:%M:%S')} - '{name}' saved [{size}]\n\n")
        return 0, single
    except OSError as e:
        log(f"{e.filename or output}: {e.strerror}\n")
        return 3, single
    finally:
        response.close()
