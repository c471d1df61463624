"""Procedural memory: how a kind of task was done, from the tool calls that did it.

kind.py         the kind of task a request asks for (its verb and object head), both languages
distil.py       a task's tool calls -> one procedure candidate (steps, failure, fix)
tracker.py      the open tasks of each session, and when a procedure is written
consolidate.py  one live procedure per kind: restate, supersede a failed one, keep a working one
recall.py       the procedures of the request's kind, and no other, for the block's section
"""
