"""``view_image``: an image file in the sandbox, as an image a multimodal model can see.

The file is read through the sandbox's VFS (deny rules, mounts), decoded with Pillow (imported
only here, when the tool runs) and returned either byte-for-byte (png, jpeg, gif and webp,
which models take natively, when no resize is needed) or re-encoded: bmp and tiff converted,
anything over the longest-edge cap downscaled, an animation reduced to its first frame.  A
result never carries half an image: when even a reduced one does not fit the result budget
the call fails with E_TOO_LARGE.  The pixel count is checked from the header before any
pixel buffer exists, so a small file that declares a huge image (a decompression bomb)
costs nothing.
"""

from __future__ import annotations

import base64
import io
import warnings
from typing import TYPE_CHECKING, Any

from vshell.mcp.fileops import ToolError, os_error, resolve, stat_regular
from vshell.records import record

if TYPE_CHECKING:
    from vshell.vfs import VFS

MAX_EDGE = 2000  # longest edge of a returned image (detail "auto" / "high")
LOW_EDGE = 512  # detail "low"
MAX_PIXELS = 100_000_000  # a header declaring more is refused before decoding
MAX_FILE_BYTES = 64 * 1024 * 1024  # files read into memory at most
MAX_BASE64_BYTES = 4_500_000  # the largest image a result carries (what clients accept)
MIN_EDGE = 64  # re-encoding to fit the budget stops shrinking here
SUPPORTED = ["png", "jpeg", "gif", "webp", "bmp", "tiff"]
NATIVE = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
_DECODERS = ["PNG", "JPEG", "GIF", "WEBP", "BMP", "TIFF"]

# signatures of image formats outside the decode set: E_UNSUPPORTED_FORMAT, not E_NOT_IMAGE
_OTHER_IMAGES: list[tuple[int, bytes, str]] = [
    (4, b"ftypavif", "avif"), (4, b"ftypavis", "avif"), (4, b"ftypheic", "heic"),
    (4, b"ftypheix", "heic"), (4, b"ftypmif1", "heif"), (4, b"ftypmsf1", "heif"),
    (0, b"\xff\x0a", "jxl"), (0, b"\x00\x00\x00\x0cJXL ", "jxl"), (0, b"8BPS", "psd"),
    (0, b"\x00\x00\x01\x00", "ico"), (0, b"qoif", "qoi"), (0, b"\x76\x2f\x31\x01", "exr"),
    (0, b"P6", "ppm"), (0, b"P5", "pgm"), (0, b"DDS ", "dds"), (0, b"icns", "icns"),
]
# signatures of the decode set: a file that has one but does not decode is corrupt
_OWN_IMAGES: list[tuple[int, bytes, str]] = [
    (0, b"\x89PNG\r\n\x1a\n", "png"), (0, b"\xff\xd8\xff", "jpeg"), (0, b"GIF87a", "gif"),
    (0, b"GIF89a", "gif"), (8, b"WEBP", "webp"), (0, b"BM", "bmp"), (0, b"II*\x00", "tiff"),
    (0, b"MM\x00*", "tiff"),
]


@record
class ImageError(ToolError):
    """A view_image failure with boxsh's ``detail`` (what the code alone cannot say)."""

    code: str
    message: str
    detail: dict[str, Any] | None = None


@record
class Picture:
    """The image a result carries: base64 data and its MIME type (plain, serialisable)."""

    data: str
    mime_type: str


def _sniff(head: bytes, table: list[tuple[int, bytes, str]]) -> str | None:
    for offset, magic, name in table:
        if head[offset : offset + len(magic)] == magic:
            return name
    return None


def _read(fs: VFS, full: str, path: str) -> bytes:
    info = stat_regular(fs, full, path)
    if info.st_size > MAX_FILE_BYTES:
        raise ImageError("E_TOO_LARGE", f"{path}: {info.st_size} bytes; view_image reads "
                         f"files up to {MAX_FILE_BYTES} bytes", {"file_size": info.st_size})
    try:
        with fs.open(full, "rb") as f:
            data: bytes = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise os_error(e, path) from None
    if len(data) > MAX_FILE_BYTES:  # it grew since the stat
        raise ImageError("E_TOO_LARGE", f"{path}: larger than {MAX_FILE_BYTES} bytes")
    return data


def _open(data: bytes, path: str) -> Any:
    """The decoded header (Pillow's lazy image), or the error naming what the file is."""
    from PIL import Image, UnidentifiedImageError

    own = _sniff(data[:16], _OWN_IMAGES)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            return Image.open(io.BytesIO(data), formats=_DECODERS)
    except Image.DecompressionBombError as e:
        raise ImageError("E_TOO_LARGE", f"{path}: {e}") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as e:
        if own is not None:
            raise ImageError("E_UNSUPPORTED_FORMAT", f"{path}: a {own} file that does not "
                             f"decode ({_why(e)})", {"reason": "decode_failed", "format": own,
                                                     "supported": SUPPORTED}) from None
    other = _sniff(data[:16], _OTHER_IMAGES) or _pillow_knows(data)
    if other is not None:
        raise ImageError("E_UNSUPPORTED_FORMAT", f"{path}: {other} images are not supported "
                         f"(supported: {', '.join(SUPPORTED)})",
                         {"format": other, "supported": SUPPORTED})
    raise ImageError("E_NOT_IMAGE", f"{path}: not an image (supported: {', '.join(SUPPORTED)}; "
                     "use read for text, bash with file or xxd for other data)")


def _pillow_knows(data: bytes) -> str | None:
    """The format name when Pillow recognises a format outside the decode set."""
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(data)) as im:
                return str(im.format or "unknown").lower()
    except Exception:  # noqa: BLE001 - anything Pillow cannot open is simply not an image
        return None


def _why(e: BaseException) -> str:
    """Pillow's reason without the repr of our in-memory buffer."""
    text = str(e)
    return "not recognised" if "cannot identify image file" in text else text or type(e).__name__


def _has_alpha(im: Any) -> bool:
    return bool(im.mode in ("RGBA", "LA", "PA") or "transparency" in im.info)


def _encode(im: Any, fmt: str, quality: int = 85) -> bytes:
    buf = io.BytesIO()
    if fmt == "JPEG":
        im.convert("RGB").save(buf, "JPEG", quality=quality, optimize=True)
    else:
        if im.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16"):
            im = im.convert("RGBA" if _has_alpha(im) else "RGB")
        im.save(buf, "PNG", optimize=True)
    return buf.getvalue()


def _smallest(im: Any, quality: int = 85) -> tuple[bytes, str]:
    """PNG or JPEG, whichever is smaller (JPEG only for an image without transparency)."""
    png = _encode(im, "PNG")
    if _has_alpha(im):
        return png, "PNG"
    jpeg = _encode(im, "JPEG", quality)
    return (jpeg, "JPEG") if len(jpeg) < len(png) else (png, "PNG")


def _scaled(im: Any, edge: int) -> Any:
    w, h = im.size
    if max(w, h) <= edge:
        return im
    from PIL import Image

    ratio = edge / max(w, h)
    size = (max(1, round(w * ratio)), max(1, round(h * ratio)))
    if im.mode in ("P", "1"):
        im = im.convert("RGBA" if _has_alpha(im) else "RGB")
    return im.resize(size, Image.Resampling.LANCZOS)


def _b64_len(n: int) -> int:
    return (n + 2) // 3 * 4


def view_image(fs: VFS, cwd: str, path: Any, detail: Any = None,
               budget: int = 0) -> tuple[str, dict[str, Any], Picture]:
    """The image at ``path`` (model text, metadata, picture); ``budget`` bounds the base64
    size (0: only the fixed cap)."""
    full = resolve(cwd, path)
    if detail is None:
        detail = "auto"
    if detail not in ("auto", "low", "high"):
        raise ToolError("E_INVALID_ARGUMENT", "detail must be one of auto, low, high")
    data = _read(fs, full, path)
    room = MAX_BASE64_BYTES if budget <= 0 else min(MAX_BASE64_BYTES, budget)
    im = _open(data, path)
    with im:
        width, height = im.size
        if width * height > MAX_PIXELS:
            raise ImageError("E_TOO_LARGE", f"{path}: {width}x{height} is more than "
                             f"{MAX_PIXELS // 1_000_000} megapixels",
                             {"width": width, "height": height, "max_pixels": MAX_PIXELS})
        source = str(im.format)
        animated = bool(getattr(im, "is_animated", False)) and getattr(im, "n_frames", 1) > 1
        edge = LOW_EDGE if detail == "low" else MAX_EDGE
        if source == "JPEG" and max(width, height) > edge:
            im.draft("RGB", (edge, edge))  # decode at 1/2, 1/4 or 1/8 scale: less memory
        frame = _first_frame(im, path, source)  # decoded even when sent as is: never corrupt
        keep = source in NATIVE and not animated and max(width, height) <= edge \
            and _b64_len(len(data)) <= room
        if keep:
            out, fmt, size = data, source, (width, height)
        else:
            out, fmt, size = _reencode(frame, path, source, edge, room)
    meta = {"encoding": "image", "path": full, "mime_type": NATIVE[fmt], "width": size[0],
            "height": size[1], "original_width": width, "original_height": height,
            "was_resized": size != (width, height), "size": len(out), "file_size": len(data),
            "animated": animated, "converted": fmt != source, "format": source.lower()}
    note = f"view_image: {path} ({source.lower()} {width}x{height}"
    if meta["was_resized"] or meta["converted"]:
        note += f", sent as {fmt.lower()} {size[0]}x{size[1]}"
    if animated:
        note += ", first frame of an animation"
    note += f", {len(out)} bytes)"
    return note, meta, Picture(base64.b64encode(out).decode("ascii"), NATIVE[fmt])


def _first_frame(im: Any, path: str, source: str) -> Any:
    """The first frame's pixels, or E_UNSUPPORTED_FORMAT (decode_failed) for a corrupt file."""
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            im.seek(0)
            im.load()
            frame = im.copy()
    except Image.DecompressionBombError as e:
        raise ImageError("E_TOO_LARGE", f"{path}: {e}") from None
    except (OSError, ValueError, SyntaxError, EOFError) as e:
        raise ImageError("E_UNSUPPORTED_FORMAT", f"{path}: a {source.lower()} file that does "
                         f"not decode ({_why(e)})", {"reason": "decode_failed",
                                               "format": source.lower(),
                                               "supported": SUPPORTED}) from None
    if frame.mode in ("I;16", "I", "F", "CMYK", "YCbCr", "LAB", "HSV"):
        frame = frame.convert("RGB")
    return frame


def _reencode(frame: Any, path: str, source: str, edge: int,
              room: int) -> tuple[bytes, str, tuple[int, int]]:
    """Scale ``frame`` to ``edge`` and encode it within ``room`` base64 bytes: lower JPEG
    quality first, then smaller sizes; E_TOO_LARGE past MIN_EDGE."""
    while True:
        scaled = _scaled(frame, edge)
        for quality in (85, 70, 50):
            if source == "JPEG" and not _has_alpha(scaled):
                out, fmt = _encode(scaled, "JPEG", quality), "JPEG"
            else:
                out, fmt = _smallest(scaled, quality)
            if _b64_len(len(out)) <= room:
                return out, fmt, scaled.size
            if _has_alpha(scaled):
                break  # PNG has no quality to lower
        if edge <= MIN_EDGE:
            raise ImageError("E_TOO_LARGE", f"{path}: no encoding of this image fits the "
                             f"result budget of {room} bytes", {"budget_bytes": room})
        edge = max(MIN_EDGE, int(min(edge, max(scaled.size)) * 0.7))
