"""Every word of the store a console page shows, in plain language: one table.

The store speaks in its own words (a memory's type, status, channel and writer, an audit
action, a recall channel, a score component). A page never shows one of them bare: the
`label` filter gives the plain words, and `explain` the sentence shown when the pointer rests on
them (`title`). A word missing from the table is shown as it is, with a line saying it is the
store's own word: a new word of the store stays visible rather than hidden.

The memory list shows "what the agent knows" (`KNOWN_TYPES`) by default; the raw log
(conversation turns and tool calls, `RAW_TYPES`) is one filter away.
"""

from __future__ import annotations

from ..types import MemoryType

#: what the agent knows: the memories it distilled, shown by default
KNOWN_TYPES = tuple(t.value for t in MemoryType if t not in (MemoryType.EPISODE, MemoryType.EVENT))
#: the raw log the knowledge came from: conversation turns as said, tool calls as run
RAW_TYPES = (MemoryType.EPISODE.value, MemoryType.EVENT.value)
#: the list's type choices besides one type: (value, label); "" is every type
VIEWS = (
    ("known", "What the agent knows"),
    ("raw", "Raw conversation turns and tool calls"),
    ("", "Everything"),
)

#: kind -> word -> (plain label, explanation)
LABELS: dict[str, dict[str, tuple[str, str]]] = {
    "type": {
        "profile": ("About the person", "Who the user is: name, home, job, allergies."),
        "preference": ("Preference", "What the user likes, dislikes or wants done a certain way."),
        "fact": ("Fact", "Something true about the user's world: people, things, plans."),
        "event": (
            "Tool call",
            "A tool the agent ran, or a task's status change, as it happened (raw log).",
        ),
        "decision": ("Decision", "Something the user decided."),
        "task": ("Task", "Something to do, with its state."),
        "summary": (
            "Session summary",
            "What a conversation came to, written at its end or when it was compacted.",
        ),
        "procedure": (
            "How a task was done",
            "How the agent did a kind of task: the steps that worked, the step that failed and "
            "its fix, from its tool calls.",
        ),
        "episode": (
            "Conversation turn",
            "What the user said in one turn, kept word for word as evidence (raw log).",
        ),
    },
    "status": {
        "active": ("In use", "Recalled when relevant."),
        "inactive": (
            "Forgotten or replaced",
            "No longer recalled; kept for the audit trail and can be restored.",
        ),
        "archived": (
            "Archived",
            "Old and rarely used: recalled only when the archive is searched (deep recall).",
        ),
        "all": ("Any status", "In use, forgotten or replaced, and archived."),
    },
    "channel": {
        "explicit": (
            "Asked to remember",
            "The user said to remember it, or the agent stored it on request.",
        ),
        "implicit": (
            "Picked up from the conversation",
            "Taken from what the user said, without being asked to remember it.",
        ),
        "tool": ("From a tool call", "Recorded from a tool the agent ran."),
        "summary": ("From a summary", "Written by a session summary."),
        "admin": ("By an operator", "Written by an operator or an admin tool."),
        "imported": (
            "Imported",
            "Brought in from a file (a MEMORY.md workspace or an export); its file and line are kept.",
        ),
    },
    "writer": {
        "after_response": (
            "Captured after a reply",
            "The conversation's capture, after the agent answered.",
        ),
        "save-hook": ("Tool call record", "Written when the agent's tool call finished."),
        "process-node": ("Task status change", "Written when a task or subagent changed state."),
        "summary-hook:end": ("Summary at session end", "Written when the session ended."),
        "summary-hook:compaction": (
            "Summary before compaction",
            "Written before OpenClaw shortened the conversation's context.",
        ),
        "summary-hook:threshold": (
            "Summary of a long conversation",
            "Written when the conversation's recent window grew past its limit.",
        ),
        "memory-tool": ("The agent's memory tool", "Stored by the agent with memory_store."),
        "console": ("This console", "Changed here, by an operator."),
        "cli": ("The command line", "Written with the openclaw-memory command."),
        "cli-import": ("Command-line import", "Imported with openclaw-memory import."),
        "openclaw-import": ("OpenClaw import", "Imported from OpenClaw's memory files."),
        "api": ("The API", "Written through the service's API."),
        "openclaw-memory maintenance": (
            "Maintenance",
            "Scheduled upkeep: expiry, caps, compaction.",
        ),
    },
    "action": {
        "insert": ("Written", "The memory was stored."),
        "update": ("Restated", "The same memory was said again; its text or weight was updated."),
        "supersede": ("Replaced", "A newer version took its place."),
        "deactivate": ("Forgotten or replaced", "It stopped being recalled."),
        "restore": ("Restored", "It is recalled again."),
        "archive": ("Archived", "Moved to the archive (old and rarely used)."),
        "purge": ("Deleted", "Deleted for good."),
        "delete": ("Deleted", "Deleted for good."),
        "edit": ("Edited", "Corrected by hand; a new version."),
    },
    "reason": {
        "new": ("New memory", "Nothing like it was stored before."),
        "new summary": ("New summary", "A summary of the conversation was written."),
        "append episode": ("Turn logged", "The user's words of one turn, kept as said."),
        "append event": ("Tool call logged", "One tool call, kept as it happened."),
        "append summary": ("Summary logged", "One more summary of the conversation."),
    },
    "role": {
        "user": ("User", "What the user said."),
        "assistant": ("Agent", "What the agent answered."),
        "summary": ("Summary", "The summary that replaced earlier turns."),
    },
    "recall": {
        "vector": ("Similar meaning", "Found because it means something close to the request."),
        "keyword": ("Shared words", "Found because it shares words with the request."),
        "subject": ("Same subject", "Found through the subject the request is about."),
        "profile": ("About the person", "The user's profile, given with every request."),
        "summary": ("Recent summaries", "Summaries of recent conversations."),
        "recent": ("Recent", "Among the newest memories."),
        "date": ("The date asked about", "Found through a date or time named in the request."),
        "kind": (
            "The kind asked about",
            "Found through the kind of thing the request asks (a job, a home...).",
        ),
        "speaker": ("The person named", "Found through a person named in the request."),
    },
    "score": {
        "semantic": ("Meaning", "How close in meaning to the request (0-1)."),
        "keyword": ("Words", "How many of the request's words it shares."),
        "recency": ("Recency", "Newer memories score higher; older ones are not erased."),
        "importance": ("Importance", "How much it matters, set when it was written."),
        "trust": ("Trust", "How it entered: asked to remember ranks above picked up."),
        "structure": ("Structure", "Subject, people and dates in common with the request."),
    },
}


def label(word: object, kind: str) -> str:
    """The plain words for a store word of this kind (the word itself when the table lacks it)."""
    text = str(getattr(word, "value", word) or "")
    found = LABELS.get(kind, {}).get(text)
    if found is None and kind == "writer" and text.startswith("summary-hook:"):
        found = ("Summary", "Written by a session summary.")
    return found[0] if found else text


def explain(word: object, kind: str) -> str:
    """The sentence explaining a store word of this kind, with the word itself."""
    text = str(getattr(word, "value", word) or "")
    found = LABELS.get(kind, {}).get(text)
    if found is None:
        return f"{text}: the store's own word" if text else ""
    return f"{found[1]} (stored as {text!r})"
