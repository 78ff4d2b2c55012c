"""view_image: through tools.call on a Sandbox (formats, scaling, budget, error codes, the
sandbox's deny rules), and once end to end over stdio with the official SDK client."""

from __future__ import annotations

import base64
import io
import pickle
import struct
import zlib
from pathlib import Path

import pytest

PIL = pytest.importorskip("PIL")
from PIL import Image  # noqa: E402

from vshell.mcp import image, tools  # noqa: E402
from vshell.sandbox import HostMount, Sandbox  # noqa: E402

CFG = tools.ServerConfig()


def encode(im: Image.Image, fmt: str, **kw: object) -> bytes:
    buf = io.BytesIO()
    im.save(buf, fmt, **kw)
    return buf.getvalue()


def gradient(w: int, h: int, mode: str = "RGB") -> Image.Image:
    ramp = Image.linear_gradient("L")
    bands = [ramp.transpose(Image.Transpose.ROTATE_90).resize((w, h)), ramp.resize((w, h)),
             Image.new("L", (w, h), 128), Image.new("L", (w, h), 200)]
    return Image.merge(mode, bands[: len(mode)])


def noise(w: int, h: int) -> Image.Image:
    import random

    return Image.frombytes("RGB", (w, h), random.Random(7).randbytes(w * h * 3))


def png_declaring(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims ``width`` x ``height`` (a decompression bomb)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0"))
            + chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("img")
    small = gradient(40, 30)
    (root / "small.png").write_bytes(encode(small, "PNG"))
    (root / "photo.jpg").write_bytes(encode(gradient(64, 48), "JPEG", quality=90))
    (root / "small.webp").write_bytes(encode(small, "WEBP", lossless=True))
    (root / "small.gif").write_bytes(encode(small.convert("P"), "GIF"))
    frames = [Image.new("RGB", (20, 10), c) for c in ((255, 0, 0), (0, 255, 0), (0, 0, 255))]
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], duration=50)
    (root / "anim.gif").write_bytes(buf.getvalue())
    (root / "pic.bmp").write_bytes(encode(small, "BMP"))
    (root / "pic.tiff").write_bytes(encode(small, "TIFF"))
    (root / "wide.png").write_bytes(encode(gradient(3000, 600), "PNG"))
    (root / "big.jpg").write_bytes(encode(gradient(4000, 3000), "JPEG", quality=80))
    (root / "noise.png").write_bytes(encode(noise(900, 900), "PNG"))
    (root / "alpha.png").write_bytes(encode(gradient(30, 20, "RGBA"), "PNG"))
    (root / "icon.ico").write_bytes(encode(small, "ICO"))
    (root / "broken.png").write_bytes(encode(small, "PNG")[:60])
    (root / "garbage.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really a png at all")
    (root / "bomb.png").write_bytes(png_declaring(30_000, 30_000))  # past Pillow's own guard
    (root / "big.png").write_bytes(png_declaring(12_000, 10_000))  # past ours (100 MP) only
    (root / "notes.txt").write_text("just text\n")
    (root / "secret.png").write_bytes(encode(small, "PNG"))
    return root


@pytest.fixture(scope="module")
def sb(tree: Path):
    with Sandbox(mounts=[HostMount(str(tree), "/img", readonly=True)],
                 deny=["/img/secret.png"], timeout=None) as s:
        yield s


def view(sb: Sandbox, path: str, cfg: tools.ServerConfig = CFG, **kw: object) -> tools.ToolResult:
    return tools.call(sb, cfg, "view_image", {"path": path, **kw})


def decoded(res: tools.ToolResult) -> Image.Image:
    assert len(res.images) == 1, res.text
    return Image.open(io.BytesIO(base64.b64decode(res.images[0].data)))


def test_native_formats_are_returned_byte_for_byte(sb: Sandbox, tree: Path) -> None:
    for name, mime in [("small.png", "image/png"), ("photo.jpg", "image/jpeg"),
                       ("small.webp", "image/webp"), ("small.gif", "image/gif")]:
        res = view(sb, f"/img/{name}")
        assert not res.is_error, res.text
        assert res.images[0].mime_type == mime
        assert base64.b64decode(res.images[0].data) == (tree / name).read_bytes()
        meta = res.structured
        assert meta is not None
        assert (meta["converted"], meta["was_resized"], meta["animated"]) == (False, False, False)
        with Image.open(tree / name) as src:
            assert (meta["width"], meta["height"]) == src.size
            assert (meta["original_width"], meta["original_height"]) == src.size


def test_bmp_and_tiff_are_converted_losslessly(sb: Sandbox, tree: Path) -> None:
    for name in ("pic.bmp", "pic.tiff"):
        res = view(sb, f"/img/{name}")
        assert res.structured is not None and res.structured["converted"] is True
        assert res.images[0].mime_type in ("image/png", "image/jpeg")
        with Image.open(tree / name) as src:
            got = decoded(res)
            assert got.size == src.size
            if got.format == "PNG":  # lossless: the very same pixels
                assert got.convert("RGB").tobytes() == src.convert("RGB").tobytes()


def test_large_images_are_downscaled_to_the_edge(sb: Sandbox) -> None:
    res = view(sb, "/img/wide.png")
    meta = res.structured
    assert meta is not None
    assert (meta["original_width"], meta["original_height"]) == (3000, 600)
    assert (meta["width"], meta["height"]) == (2000, 400) == decoded(res).size
    assert meta["was_resized"] is True
    low = view(sb, "/img/wide.png", detail="low").structured
    assert low is not None and (low["width"], low["height"]) == (512, 102)
    res = view(sb, "/img/big.jpg")  # decoded at a reduced scale first (JPEG draft mode)
    assert res.images[0].mime_type == "image/jpeg"
    assert decoded(res).size == (2000, 1500)
    assert res.structured is not None and res.structured["original_width"] == 4000
    small_low = view(sb, "/img/small.png", detail="low").structured
    assert small_low is not None and small_low["was_resized"] is False


def test_animation_gives_its_first_frame(sb: Sandbox) -> None:
    res = view(sb, "/img/anim.gif")
    meta = res.structured
    assert meta is not None and meta["animated"] is True
    got = decoded(res)
    assert getattr(got, "n_frames", 1) == 1
    assert meta["converted"] is True and got.format != "GIF"


def test_transparency_is_kept(sb: Sandbox) -> None:
    res = view(sb, "/img/alpha.png", detail="low")
    assert decoded(res).mode in ("RGBA", "LA", "P")


def test_error_codes(sb: Sandbox) -> None:
    res = view(sb, "/img/notes.txt")
    assert res.is_error and res.text.startswith("E_NOT_IMAGE: ")
    res = view(sb, "/img/icon.ico")
    assert res.is_error and res.text.startswith("E_UNSUPPORTED_FORMAT: ")
    assert res.structured is not None
    assert res.structured["detail"]["supported"] == image.SUPPORTED
    assert "reason" not in res.structured["detail"]
    for name in ("broken.png", "garbage.png"):
        res = view(sb, f"/img/{name}")
        assert res.is_error and res.text.startswith("E_UNSUPPORTED_FORMAT: "), res.text
        assert res.structured is not None
        assert res.structured["detail"]["reason"] == "decode_failed"
    for name in ("bomb.png", "big.png"):
        res = view(sb, f"/img/{name}")
        assert res.is_error and res.text.startswith("E_TOO_LARGE: "), res.text
    res = view(sb, "/img/nope.png")
    assert res.is_error and res.text.startswith("E_NOT_FOUND: ")
    res = view(sb, "/img")
    assert res.is_error and res.text.startswith("E_IS_DIRECTORY: ")
    res = tools.call(sb, CFG, "view_image", {"path": "/img/small.png", "detail": "huge"})
    assert res.is_error and res.text.startswith("E_INVALID_ARGUMENT: ")


def test_deny_rules_hold(sb: Sandbox) -> None:
    res = view(sb, "/img/secret.png")
    assert res.is_error and res.text.split(":")[0] in ("E_DENIED", "E_NOT_FOUND"), res.text
    assert not res.images


def test_result_budget_re_encodes_smaller_or_refuses(sb: Sandbox, tree: Path) -> None:
    size = len((tree / "noise.png").read_bytes())
    budget = 200_000
    assert image._b64_len(size) > budget  # the file itself would not fit
    res = view(sb, "/img/noise.png", tools.ServerConfig(max_result_bytes=budget))
    assert not res.is_error, res.text
    assert len(res.images[0].data) <= budget
    assert decoded(res).size[0] <= 900
    res = view(sb, "/img/noise.png", tools.ServerConfig(max_result_bytes=6500))
    assert res.is_error and res.text.startswith("E_TOO_LARGE: "), res.text
    assert not res.images


def test_result_is_plain_data(sb: Sandbox) -> None:
    res = view(sb, "/img/small.png")
    again = pickle.loads(pickle.dumps(res))
    assert again.images[0].data == res.images[0].data


def test_a_matplotlib_chart_saved_by_the_guest(tmp_path: Path) -> None:
    with Sandbox(mounts=[HostMount(str(tmp_path), "/work")], timeout=None) as s:
        r = s.exec("python3 -c \"import matplotlib; matplotlib.use('Agg'); "
                   "import matplotlib.pyplot as plt; plt.plot([1, 2, 3], [3, 1, 2]); "
                   "plt.savefig('chart.png', dpi=50)\"", timeout=300)
        assert r.exit_code == 0, r.stderr
        res = tools.call(s, CFG, "view_image", {"path": "chart.png"})
        assert not res.is_error, res.text
        assert res.images[0].mime_type == "image/png"
        assert base64.b64decode(res.images[0].data) == (tmp_path / "chart.png").read_bytes()
        assert res.structured is not None and res.structured["width"] == 320


def test_view_image_over_stdio(tree: Path) -> None:
    pytest.importorskip("mcp.client.stdio")
    from mcp_harness import SyncClient, check_schema

    c = SyncClient().open_stdio(["--mount", f"{tree}:/img:ro"])
    try:
        res = c.call("view_image", {"path": "/img/wide.png", "detail": "low"})
        assert not res.is_error
        check_schema(c, "view_image", res)
        kinds = [x.type for x in res.content]
        assert kinds == ["text", "image"]
        img = res.content[1]
        assert img.mime_type == res.structured_content["mime_type"]
        assert Image.open(io.BytesIO(base64.b64decode(img.data))).size == (512, 102)
        bad = c.call("view_image", {"path": "/img/notes.txt"})
        assert bad.is_error and bad.content[0].text.startswith("E_NOT_IMAGE: ")
    finally:
        c.close()


def test_without_pillow_the_error_says_so(sb: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "PIL", None)  # import PIL now fails
    res = view(sb, "/img/small.png")
    assert res.is_error and res.text.startswith("E_UNAVAILABLE: ") and "pip install" in res.text


def test_links_and_paths_do_not_reach_past_the_sandbox(tmp_path: Path) -> None:
    """A link out of the mount, a link to a denied name, `..` past the root and a path of
    a nested read-only mount: view_image sees what the shell sees, nothing more."""
    from PIL import Image

    outside = tmp_path / "outside"
    outside.mkdir()
    Image.new("RGB", (8, 8)).save(outside / "host.png")
    work = tmp_path / "work"
    (work / "ro").mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(work / "secret.png")
    Image.new("RGB", (8, 8)).save(work / "ro" / "ok.png")
    (work / "out.png").symlink_to(outside / "host.png")
    (work / "alias.png").symlink_to(work / "secret.png")
    mounts = [HostMount(str(work), "/work"), HostMount(str(work / "ro"), "/work/ro",
                                                        readonly=True)]
    with Sandbox(mounts=mounts, deny=["**/secret.png"]) as s:
        for path in ("/work/out.png", "/work/alias.png", "/work/secret.png",
                     "/work/../" + str(outside / "host.png"), str(outside / "host.png")):
            res = view(s, path)
            assert res.is_error and not res.images, (path, res.text)
            assert s.exec(f"cat {path}").exit_code != 0, path  # the shell agrees
        assert not view(s, "/work/ro/ok.png").is_error
