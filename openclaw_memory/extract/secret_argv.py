"""Secrets in command lines: the value after a flag that names a secret.

One rule set for both shapes a command reaches the filter in: an argv list (`["mysql", "-u",
"root", "-pS3cret"]`, a tool event's arguments) and a command written in text (`sshpass -p X ssh
host`). Long flags are judged by their name (`--password X`, `--token=X`, `--api-key X`,
`-Dspring.datasource.password=X`); short flags only for the programs whose short flag takes a
password (`mysql -pX`, `sshpass -p X`, `redis-cli -a X`, `curl -u user:X`, `zip -P X`), because
`-p` is a port or a path elsewhere.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence

from . import secret_patterns as patterns

#: (token index, start, end, kind): the part of argv[index] that is secret
ArgvSpan = tuple[int, int, int, str]

#: words that run a program without being it
_WRAPPERS = frozenset({"sudo", "env", "time", "nohup", "exec", "command", "doas", "nice", "xargs"})
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: a program of the short-flag table named in text (at a word start, a path before it allowed)
_PROGRAM = re.compile(
    r"(?<![\w\-.])(?:[\w.\-]*/)?(?P<cmd>"
    + "|".join(sorted(map(re.escape, patterns.PASSWORD_SHORT_FLAGS), key=len, reverse=True))
    + r")(?![\w\-])"
)
#: one shell word: a quoted string or a run of non-space characters
_WORD = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'|;&]+")
_COMMAND_END = re.compile(r"[\n|;&]")
#: a command line is read this far at most
_COMMAND_CHARS = 4096


def _program(argv: Sequence[str]) -> tuple[str, int]:
    """The program an argv runs (its basename) and its index, skipping sudo/env and VAR=x."""
    for i, word in enumerate(argv):
        base = os.path.basename(word.strip())
        if base in _WRAPPERS or _ASSIGN.match(word) or (i and word.startswith("-")):
            continue
        return base, i
    return "", -1


def _value_span(word: str, start: int, kind: str, *, user_pass: bool) -> tuple[int, int] | None:
    """The secret part of word[start:], or None for a placeholder or a user with no password."""
    value = word[start:]
    if user_pass:
        m = patterns.USER_PASS.match(value)
        if m is None:
            return None
        return start + m.start("pw"), len(word)
    if patterns.PLACEHOLDER.match(value.strip("\"'")):
        return None
    return start, len(word)


def _long_flag(word: str) -> tuple[str, str | None]:
    """(flag name, inline value or None) of `--name=value` / `-name`; ("", None) otherwise."""
    if not word.startswith("-") or len(word) < 3:
        return "", None
    name, eq, value = word.lstrip("-").partition("=")
    return name, (value if eq else None)


def argv_spans(argv: Sequence[str]) -> Iterator[ArgvSpan]:
    """The secret parts of an argv list: values of secret-named flags and of the known
    programs' password flags, attached (`-pX`, `--token=X`) or in the next word."""
    program, at = _program(argv)
    short = patterns.PASSWORD_SHORT_FLAGS.get(program, {})
    needs = patterns.SHORT_FLAG_SUBCOMMAND.get(program)
    if needs is not None and needs not in argv[at + 1 :]:
        short = {}
    i = max(at, 0)
    while i < len(argv):
        word, nxt = argv[i], argv[i + 1] if i + 1 < len(argv) else None
        span, takes_next = _flag_value(word, short)
        if span is not None:
            yield (i, *span)
        elif takes_next is not None and nxt is not None and not nxt.startswith("--"):
            kind, user_pass = takes_next
            inner = _value_span(nxt, 0, kind, user_pass=user_pass)
            if inner is not None:
                yield (i + 1, *inner, kind)
            i += 1
        i += 1


def _flag_value(
    word: str, short: dict[str, bool]
) -> tuple[tuple[int, int, str] | None, tuple[str, bool] | None]:
    """For one word: (its own secret span, or None; what the next word is, if it is a value)."""
    user_pass = word in ("-u", "-U", "--user", "--proxy-user")
    if word in short:
        return None, ("password", user_pass)
    for flag, attached in short.items():
        if attached and word.startswith(flag) and len(word) > len(flag) and len(flag) == 2:
            span = _value_span(word, len(flag), "password", user_pass=False)
            return ((*span, "password") if span else None), None
    name, inline = _long_flag(word)
    # a long flag by its name; a one-dash flag only as a dotted property (-Ddb.password=X)
    if not name or not (word.startswith("--") or "." in name):
        return None, None
    kind = patterns.secret_name(name)
    if kind is None:
        return None, None
    if inline is not None:
        span = _value_span(word, len(word) - len(inline), kind, user_pass=False)
        return ((*span, kind) if span else None), None
    return None, (kind, False)


def command_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of the secret values of the commands of the short-flag table written
    in text (`mysql -u root -pS3cret`, `sshpass -p 'X' ssh host`); long flags are the
    text scanner's (FLAG)."""
    pos = 0
    while (m := _PROGRAM.search(text, pos)) is not None:
        stop = _COMMAND_END.search(text, m.end(), m.end() + _COMMAND_CHARS)
        end = stop.start() if stop else min(len(text), m.end() + _COMMAND_CHARS)
        pos = end  # one program per command: the words after it are its arguments
        words = [(w.group(), w.start()) for w in _WORD.finditer(text, m.start(), end)]
        argv = [w.strip("\"'") if w[:1] in "\"'" else w for w, _ in words]
        for index, start, stop_at, kind in argv_spans(argv):
            offset = words[index][1] + (1 if words[index][0][:1] in "\"'" else 0)
            yield offset + start, offset + stop_at, kind
