// Generated from sidecar/zettelclaw/protocol/tools.py by
// `python -m zettelclaw.protocol.tools --write`: do not edit
// (tests/protocol/test_tool_schemas.py fails when this file is not what the definition
// generates). Each tool's parameters are its method's params (protocol/params/), as the
// sidecar validates them; the MCP server's tools are the same.
export const TOOLS = {
    "memory_search": {
        "name": "memory_search",
        "label": "Memory Search",
        "description": "Mandatory recall step: search long-term memory (Zettelclaw's log of facts, decisions, tasks, questions and session handoffs, and MEMORY.md / memory/*.md) before answering questions about prior work, decisions, dates, people, preferences or todos. Best matches first; filter log entries by type, subject and task status. Corrected entries are hidden unless includeReplaced. A log result's path is its entry id, a file result's path its file: pass either to memory_get.",
        "parameters": {
            "additionalProperties": false,
            "properties": {
                "query": {
                    "description": "Keywords. An empty string with filters lists the matching entries, newest first.",
                    "maxLength": 2000,
                    "type": "string"
                },
                "maxResults": {
                    "maximum": 1000,
                    "minimum": 1,
                    "type": "integer",
                    "description": "At most this many results (default 10)."
                },
                "minScore": {
                    "maximum": 1.0,
                    "minimum": 0.0,
                    "type": "number",
                    "description": "Leave out results scoring below this (0..1)."
                },
                "corpus": {
                    "enum": [
                        "all",
                        "log",
                        "files",
                        "memory",
                        "sessions",
                        "wiki"
                    ],
                    "type": "string",
                    "description": "What to search: all (default), log (the entries), files (MEMORY.md and memory/*.md). memory-core's names are accepted too: memory = all, sessions = log, wiki = files."
                },
                "type": {
                    "enum": [
                        "task",
                        "fact",
                        "decision",
                        "question",
                        "handoff"
                    ],
                    "type": "string",
                    "description": "Only entries of this type."
                },
                "subject": {
                    "maxLength": 80,
                    "pattern": "^[a-z0-9]+(?:-[a-z0-9]+)*$",
                    "type": "string",
                    "description": "Only entries about this subject (a kebab-case slug, e.g. auth-migration)."
                },
                "status": {
                    "enum": [
                        "open",
                        "done"
                    ],
                    "type": "string",
                    "description": "Only tasks with this status."
                },
                "includeReplaced": {
                    "type": "boolean",
                    "description": "Also return entries that were corrected later (default false)."
                }
            },
            "required": [
                "query"
            ],
            "type": "object"
        },
        "routes": [
            {
                "method": "memory.search",
                "params": [
                    "query",
                    "maxResults",
                    "minScore",
                    "corpus",
                    "type",
                    "subject",
                    "status",
                    "includeReplaced"
                ]
            }
        ]
    },
    "memory_get": {
        "name": "memory_get",
        "label": "Memory Get",
        "description": "Safe exact read from memory: a log entry by its id (with the versions it replaced or that replaced it), the conversation an entry came from (`session:<sessionId>`), or MEMORY.md and memory/*.md by path.",
        "parameters": {
            "additionalProperties": false,
            "properties": {
                "path": {
                    "description": "An entry id from memory_search (12 characters), `session:<sessionId>` for the conversation an entry came from, or MEMORY.md / memory/*.md.",
                    "maxLength": 4096,
                    "minLength": 1,
                    "type": "string"
                },
                "from": {
                    "minimum": 1,
                    "type": "integer",
                    "description": "First line to return (files and sessions)."
                },
                "lines": {
                    "maximum": 100000,
                    "minimum": 1,
                    "type": "integer",
                    "description": "How many lines to return."
                },
                "corpus": {
                    "enum": [
                        "memory",
                        "wiki",
                        "all"
                    ],
                    "type": "string",
                    "description": "Accepted for compatibility with memory-core; ignored."
                }
            },
            "required": [
                "path"
            ],
            "type": "object"
        },
        "routes": [
            {
                "method": "memory.get",
                "params": [
                    "path",
                    "from",
                    "lines",
                    "corpus"
                ]
            }
        ]
    },
    "memory_remember": {
        "name": "memory_remember",
        "label": "Memory Remember",
        "description": "Write one entry to long-term memory now, when the user explicitly asks you to remember something (\"remember that...\", \"note this\", \"don't forget...\"). Do not use it for things merely mentioned: conversations are extracted into memory automatically when they end, and an entry written here is not extracted again. One fact or decision per call. Answers the entry's id: tell the user it was remembered.",
        "parameters": {
            "additionalProperties": false,
            "properties": {
                "type": {
                    "description": "fact (learned), decision (chosen, why in detail), task, question (open), handoff.",
                    "enum": [
                        "task",
                        "fact",
                        "decision",
                        "question",
                        "handoff"
                    ],
                    "type": "string"
                },
                "content": {
                    "description": "The entry, one sentence to a short paragraph, in the user's terms.",
                    "maxLength": 16384,
                    "minLength": 1,
                    "type": "string"
                },
                "detail": {
                    "maxLength": 16384,
                    "type": "string",
                    "description": "Why, background, constraints (optional)."
                },
                "subject": {
                    "maxLength": 80,
                    "pattern": "^[a-z0-9]+(?:-[a-z0-9]+)*$",
                    "type": "string",
                    "description": "A kebab-case slug, e.g. auth-migration (optional)."
                },
                "status": {
                    "enum": [
                        "open",
                        "done"
                    ],
                    "type": "string",
                    "description": "A task's status (default open)."
                },
                "replaces": {
                    "pattern": "^[0-9A-Za-z_-]{12}$",
                    "type": "string",
                    "description": "The id of the entry this one corrects (from memory_search)."
                }
            },
            "required": [
                "type",
                "content"
            ],
            "type": "object"
        },
        "routes": [
            {
                "method": "memory.remember",
                "params": [
                    "type",
                    "content",
                    "detail",
                    "subject",
                    "status",
                    "replaces"
                ]
            }
        ]
    },
    "memory_forget": {
        "name": "memory_forget",
        "label": "Memory Forget",
        "description": "Remove entries from long-term memory when the user asks to forget something (\"forget that\", \"that's wrong, drop it\", after a \"Remembered from your last conversation\" line). Choose by ids (from memory_search or the receipt line), session, subject or text; call with dryRun first and confirm with the user unless they named exact ids. By default entries are hidden from recall (undo: true gives them back); purge: true erases them from disk for good, only when the user asks for that. To correct an entry instead, use memory_remember with replaces.",
        "parameters": {
            "additionalProperties": false,
            "properties": {
                "ids": {
                    "items": {
                        "pattern": "^[0-9A-Za-z_-]{12}$",
                        "type": "string"
                    },
                    "maxItems": 1000,
                    "minItems": 1,
                    "type": "array",
                    "description": "Entry ids (from memory_search or a receipt line)."
                },
                "session": {
                    "maxLength": 200,
                    "minLength": 1,
                    "pattern": "^[^\\x00-\\x1f]+$",
                    "type": "string",
                    "description": "Every entry of this session id."
                },
                "subject": {
                    "maxLength": 80,
                    "pattern": "^[a-z0-9]+(?:-[a-z0-9]+)*$",
                    "type": "string",
                    "description": "Every entry of this subject slug."
                },
                "text": {
                    "maxLength": 2000,
                    "minLength": 3,
                    "type": "string",
                    "description": "Entries whose content contains this text (any case, at least 3 characters)."
                },
                "purge": {
                    "type": "boolean",
                    "description": "Remove from disk (cannot be undone) instead of hiding (default false). Only when the user asks to erase or delete for good."
                },
                "dryRun": {
                    "type": "boolean",
                    "description": "List what would be forgotten and change nothing. Use it first unless the user named exact ids."
                },
                "undo": {
                    "type": "boolean",
                    "description": "Give hidden entries back (ids only): the user changed their mind."
                }
            },
            "type": "object"
        },
        "routes": [
            {
                "method": "memory.unforget",
                "when": "undo",
                "params": [
                    "ids",
                    "dryRun"
                ]
            },
            {
                "method": "memory.forget",
                "params": [
                    "ids",
                    "session",
                    "subject",
                    "text",
                    "purge",
                    "dryRun"
                ]
            }
        ]
    }
};
