"""fmt against GNU coreutils on this host (random paragraphs, every option)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import make_root, same, write_files  # noqa: E402

WORDS = (
    "the quick brown fox jumps over a lazy dog. Hello, world! (parenthetical) remark; end? x "
    'supercalifragilistic antidisestablishmentarianism e.g. "quoted." it\'s'
).split()
FLAGS = [
    [],
    ["-w", "40"],
    ["-u"],
    ["-s"],
    ["-w", "20", "-g", "15"],
    ["-c"],
    ["-t"],
    ["-p", "  "],
    ["-p", "#"],
    ["-60"],
    ["-g", "50"],
    ["-w", "x"],
    ["-w", "10", "-g", "20"],
]


def _text(rnd: random.Random) -> str:
    paras = []
    for _ in range(rnd.randint(1, 4)):
        indent = rnd.choice(["", "", "  ", "\t", "# "])
        lines = []
        for _ in range(rnd.randint(1, 6)):
            ws = [rnd.choice(WORDS) for _ in range(rnd.randint(1, 14))]
            lines.append(indent + "".join(w + rnd.choice([" ", " ", "  "]) for w in ws).rstrip())
        paras.append("\n".join(lines))
    return "\n\n".join(paras) + "\n"


@pytest.mark.parametrize("seed", range(4))
def test_fmt_random(tmp_path, seed):
    rnd = random.Random(seed)
    for _ in range(6):
        write_files(tmp_path, {"t": _text(rnd)})
        for flags in FLAGS:
            same(tmp_path, ["fmt", *flags, "t"])


def test_fmt_long_paragraph(tmp_path_factory):
    rnd = random.Random(9)
    root = make_root(
        tmp_path_factory,
        {
            "long": " ".join(rnd.choice(WORDS) for _ in range(2500)) + "\n",
            "chars": " ".join("w" * rnd.randint(1, 30) for _ in range(600)) + "\n",
        },
    )
    for f in ("long", "chars"):
        same(root, ["fmt", f])
        same(root, ["fmt", "-w", "30", f])
    same(root, ["fmt", "nope"])
    same(root, ["fmt", "--help"])
    same(root, ["fmt"], b"from stdin.  Two  spaces.\n\n\n   indented\n")
