"""urllib.request inside the Python guest goes out through the sandbox's policy-checked curl.

The guest has no sockets; before this, ``urlopen`` failed with an AttributeError from deep
inside ``socket``.  Each test runs a real guest against a loopback server started here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from netserver import LoopServer, serve

from vshell import MemoryMount, Sandbox


@pytest.fixture
def srv() -> Iterator[LoopServer]:
    with serve() as s:
        yield s


def _py(sb: Sandbox, program: str) -> tuple[int, str, str]:
    r = sb.exec("cat > /work/p.py && python3 /work/p.py", stdin=program.encode())
    return r.exit_code, r.stdout.decode(), r.stderr.decode()


@pytest.fixture
def sb() -> Iterator[Sandbox]:
    with Sandbox(allow_net=["127.0.0.1"], mounts=[MemoryMount("/work")], timeout=120) as s:
        yield s


def test_get_status_headers_and_body(srv: LoopServer, sb: Sandbox) -> None:
    code, out, err = _py(sb, f"""
import urllib.request
with urllib.request.urlopen({srv.url('/hello')!r}, timeout=10) as r:
    print(r.status, r.reason, r.headers["Content-Type"], r.read(), r.geturl())
""")
    assert (code, err) == (0, "")
    assert out == f"200 OK text/plain b'hello\\n' {srv.url('/hello')}\n"


def test_post_with_headers_reaches_the_server(srv: LoopServer, sb: Sandbox) -> None:
    code, out, err = _py(sb, f"""
import urllib.request
req = urllib.request.Request({srv.url('/echo')!r}, data=b"a=1&b=2", headers={{"X-Probe": "7"}})
print(urllib.request.urlopen(req).read().decode())
""")
    assert (code, err) == (0, "")
    seen = json.loads(out)
    assert seen["method"] == "POST" and seen["body"] == "a=1&b=2"
    assert seen["headers"]["x-probe"] == "7"
    assert seen["headers"]["content-type"] == "application/x-www-form-urlencoded"
    assert seen["headers"]["user-agent"].startswith("Python-urllib/")


def test_put_method_and_large_body(srv: LoopServer, sb: Sandbox) -> None:
    code, out, err = _py(sb, f"""
import urllib.request
req = urllib.request.Request({srv.url('/echo')!r}, data=b"x" * 50000, method="PUT")
import json
seen = json.loads(urllib.request.urlopen(req).read())
print(seen["method"], len(seen["body"]))
with urllib.request.urlopen({srv.url('/big?n=300000')!r}) as r:
    print(len(r.read()))
""")
    assert (code, err, out) == (0, "", "PUT 50000\n300000\n")


def test_redirects_and_http_errors(srv: LoopServer, sb: Sandbox) -> None:
    code, out, err = _py(sb, f"""
import urllib.error, urllib.request
print(urllib.request.urlopen({srv.url('/redirect?to=/hello')!r}).geturl())
try:
    urllib.request.urlopen({srv.url('/status/404')!r})
except urllib.error.HTTPError as e:
    print("HTTPError", e.code, e.read())
""")
    assert (code, err) == (0, "")
    assert out == f"{srv.url('/hello')}\nHTTPError 404 b'status 404\\n'\n"


def test_the_allow_list_holds(srv: LoopServer) -> None:
    program = f"""
import urllib.error, urllib.request
try:
    urllib.request.urlopen({srv.url('/hello')!r}, timeout=5)
    print("fetched")
except urllib.error.URLError as e:
    print("refused:", e.reason)
"""
    with Sandbox(allow_net=["10.0.0.0/8"], mounts=[MemoryMount("/work")], timeout=120) as s:
        code, out, err = _py(s, program)
    assert (code, err) == (0, "")
    assert out == "refused: (7) network access to 127.0.0.1 is not permitted by the allow list\n"
    with Sandbox(mounts=[MemoryMount("/work")], timeout=120) as s:  # no network at all
        code, out, err = _py(s, program)
    assert (code, err, out) == (0, "", "refused: network access is not permitted\n")


def test_pandas_reads_a_csv_from_a_url(srv: LoopServer, sb: Sandbox) -> None:
    code, out, err = _py(sb, f"""
import pandas as pd
df = pd.read_csv({srv.url('/big?n=20')!r}, header=None)
print(df.shape)
""")
    assert (code, err) == (0, "")
    assert out == "(1, 1)\n"
