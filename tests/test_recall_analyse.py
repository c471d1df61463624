"""The request analysed once (recall/analyse.py), English and Chinese side by side: what recall
and relevance gating read of a request's text is read when the query is built, and no stage of
the read path reads the request's text again."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import openclaw_memory
from openclaw_memory.recall.query import RecallQuery, build_query

PACKAGE = Path(openclaw_memory.__file__).resolve().parent

# (request, recent user turns) per language: a request about the user, with quoted material, a
# hyphenated word, a time ahead and an attribute; a thanks after turns that say nothing
REQUESTS = {
    "en": ("Do I still go to the gym for my check-up next week?", "Thanks!"),
    "zh": ("我下周还去健身房吗？", "谢谢！"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_what_a_request_says_is_read_when_the_query_is_built(lang):
    request, thanks = REQUESTS[lang]
    read = build_query(request).analysis
    assert read.request == request and read.lower == request.lower()
    assert read.unspaced is (lang == "zh") and read.code == lang
    assert read.personal and not read.asks_nothing
    assert "exercise" in read.attributes  # the gym is a value of exercise, in either language
    assert read.ahead  # next week, 下周
    thanked = build_query(thanks, [{"role": "user", "content": "ok"}]).analysis
    assert thanked.asks_nothing and not thanked.personal and not thanked.attributes


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_request_is_the_current_input_and_the_text_carries_the_recent_turns(lang):
    request, thanks = REQUESTS[lang]
    read = build_query(thanks, [{"role": "user", "content": request}]).analysis
    assert read.request == thanks and not read.personal
    # a thanks after a turn that says something asks something: the recent turn is read
    assert not read.asks_nothing


def test_quoted_text_is_material_not_what_the_request_is_about():
    en = build_query("Translate 'my check-up next week' into French").analysis
    zh = build_query("把“我下周去健身房”翻译成法语").analysis
    for read in (en, zh):
        assert not read.personal and not read.ahead and not read.asked
    assert not en.hyphenated and "check" not in en.topic_tokens


def test_a_hyphenated_word_is_found_whole():
    (word,) = build_query("When is my next check-up?").analysis.hyphenated
    assert word.whole.search("booked the checkup for Monday") and {"check", "up"} <= word.tokens


def test_a_query_made_by_hand_reads_its_text_as_build_query_does_and_keeps_it_when_replaced():
    request = REQUESTS["zh"][0]
    built = build_query(request)
    by_hand = RecallQuery(built.text, built.terms, current=built.current)
    assert by_hand.analysis == built.analysis
    again = dataclasses.replace(built, deep=True, kinds=())
    assert again.analysis is built.analysis


#: calls of the read path that pass the request's text on as it is, without reading it: the
#: embedded text, the keyword search and the plan's record of the query
PASSED_ON = {"_propose", "keyword_search", "InjectionPlan"}


def _reads_of_the_request_text(path: Path) -> list[str]:
    """The calls in a module that read `query.text` or `query.current` (as an argument, or as
    the object of a method) other than those that pass it on, and the names bound to them (to be
    read later)."""

    def request_text(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Attribute)
            and node.attr in ("text", "current")
            and ast.unparse(node.value).split(".")[-1] in ("query", "q")
        )

    found = []
    for call in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        bound = isinstance(call, ast.Assign) and not isinstance(call.value, ast.Call)
        if bound and any(map(request_text, ast.walk(call.value))):
            found.append(f"{path.name}:{call.lineno} {ast.unparse(call)[:80]}")
        if not isinstance(call, ast.Call):
            continue
        name = call.func.attr if isinstance(call.func, ast.Attribute) else ast.unparse(call.func)
        args = [*call.args, *(k.value for k in call.keywords)]
        inside = [n for a in args for n in ast.walk(a) if request_text(n)]
        method_of = isinstance(call.func, ast.Attribute) and request_text(call.func.value)
        if method_of or (inside and name not in PASSED_ON):
            found.append(f"{path.name}:{call.lineno} {ast.unparse(call)[:80]}")
    return found


def test_no_stage_of_the_read_path_reads_the_request_text_again():
    modules = [
        p
        for stage in ("recall", "inject")
        for p in sorted((PACKAGE / stage).glob("*.py"))
        if p.name not in ("query.py", "analyse.py")  # where the request is read
    ]
    assert [f for p in modules for f in _reads_of_the_request_text(p)] == []


def test_a_read_of_the_request_text_is_found(tmp_path):
    module = tmp_path / "stage.py"
    module.write_text(
        "def f(query, pool):\n"
        "    low = query.text.lower()\n"
        "    text = query.current or query.text\n"
        "    return unspaced(query.current or query.text), low, text\n",
        encoding="utf-8",
    )
    assert len(_reads_of_the_request_text(module)) == 3
