"""Write a large, realistic, deterministic log.jsonl (and subjects.json) for the benchmarks.

    python bench/generate.py 1000000 bench/out/gen-1m [--seed 7]

What the log looks like (docs/03-log.md):

- sessions of 5-20 entries, each ending with exactly one handoff;
- facts and decisions most common, then tasks (open or done), then questions;
- a few hundred kebab-case subjects at 1M entries (fewer for smaller logs), used with a
  Zipf-like frequency, so some subjects have tens of thousands of entries and some a handful;
  about one entry in seven has no subject;
- content and detail sentences built from templates over word banks (software, tools, people,
  places, preferences). Every bank is sampled with a Zipf-like distribution, so any word of the
  vocabulary is a keyword whose frequency ranges from rare to very common;
- timestamps increasing over about two years, a few seconds to minutes apart within a session;
- replacement chains: about 3% of the entries replace an earlier current entry of the same
  subject (an open task by its done version, a question by its answer, a fact or decision by a
  correction); about a third of them extend an existing chain, so chains of 3+ occur;
- 12-character ids over the nanoid alphabet, UTC second-precision timestamps.

The same N and seed always give the same bytes (for a given Python version). Pure Python with
orjson, written in bulk: about a minute for 1M entries.
"""

from __future__ import annotations

import argparse
import base64
import itertools
import math
import os
import random
import string
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

START = 1_709_251_200  # 2024-03-01T00:00:00Z
SPAN = 2 * 365 * 86_400  # about two years
ZIPF_S = 1.0

# The keyword the benchmark searches for (and greps with rg): a noun of mid rank in NOUNS, in
# about 1% of the entries, a topic a person comes back to now and then. It is a substring of no
# other word of the vocabulary or of a slug, so ``rg KEYWORD`` and the FTS query look for the
# same thing.
KEYWORD = "webhook"

# Ranked banks: earlier words are drawn more often (Zipf, s = 1).
NOUNS = """
config build test release deploy server api database cache queue user account token session
login schema migration endpoint service worker job script report dashboard backup log metric
alert error timeout request response payload webhook retry latency branch commit review ticket
bug feature docs changelog pipeline container image cluster node volume bucket secret
certificate domain proxy gateway router handler middleware plugin module package dependency
library framework version upgrade rollback snapshot index query table column record export
parser formatter linter compiler runtime driver firmware sensor battery screen keyboard laptop
phone printer monitor headset camera microphone network firewall port socket thread process
memory disk quota budget invoice payment subscription refund customer vendor contract meeting
agenda deadline milestone roadmap sprint backlog estimate standup retro demo prototype mockup
wireframe font palette layout component widget modal button checkbox dropdown tooltip sidebar
navbar footer banner icon logo avatar thumbnail upload download attachment calendar reminder
notification newsletter digest feed filter pagination cursor threshold benchmark profiler trace
span heartbeat watchdog scheduler cron batch stream topic partition offset consumer producer
broker replica shard leader follower quorum lease lock mutex semaphore deadlock race leak crash
panic outage incident postmortem runbook oncall pager escalation handover onboarding offboarding
interview hiring salary bonus promotion vacation holiday travel flight hotel train visa passport
apartment lease rent mortgage insurance tax accountant lawyer dentist doctor gym recipe grocery
garden bike car scooter charger adapter cable router modem switch rack datacenter region zone
tenant organization workspace project folder repository monorepo submodule tag label milestone
checklist template playbook policy guideline standard convention style glossary wiki handbook
spreadsheet slide deck memo transcript recording podcast video episode chapter draft manuscript
outline abstract citation reference bibliography dataset corpus embedding vector tokenizer prompt
completion model finetune checkpoint gradient optimizer scheduler epoch eval leaderboard
""".split()

TECH = """
postgres redis sqlite kafka nginx docker kubernetes terraform python rust typescript react
grafana prometheus sentry github ansible django fastapi golang javascript svelte vue rails flask
celery airflow clickhouse duckdb mongodb elasticsearch cloudflare vercel netlify heroku gitlab
jenkins buildkite bazel cmake gradle maven pnpm yarn poetry ruff mypy pytest jest vitest
playwright cypress whisper ollama llama stripe twilio sendgrid mailgun slack discord telegram
matrix zoom notion obsidian linear jira confluence figma tailwind graphql grpc protobuf websocket
oauth saml ldap vault consul etcd haproxy envoy istio spark flink pandas numpy polars tokio trio
asyncio nodejs deno bun webpack vite esbuild rollup babel eslint prettier black isort pydantic
sqlalchemy alembic prisma supabase firebase dynamodb cassandra rabbitmq nats mqtt zigbee
homeassistant tailscale wireguard openvpn caddy traefik minio backblaze restic borg syncthing
neovim emacs vscode tmux zsh fish kitty alacritty ghostty hammerspoon raycast alfred
""".split()

FIRST_NAMES = """
max sarah leo mia jonas emma noah lena paul anna ben clara tom julia felix nina david laura
sam hannah lucas sofia jan marie elias lea oskar ida theo ella anton greta karl rosa emil
frieda jakob luise moritz mila finn zoe henry alice oliver chloe arthur maya hugo iris victor
nora adam eva simon ruth daniel irene peter olga martin vera thomas agnes andreas marta stefan
priya arjun wei mei hiroshi yuki kenji aiko omar fatima ali layla diego lucia mateo camila
sven ingrid lars astrid pierre amelie marco giulia pavel katya tariq amara kwame ngozi
""".split()

LAST_NAMES = """
chen mueller schmidt garcia kim nguyen patel rossi novak silva tanaka okafor andersen dubois
kowalski haddad moreau fischer weber wagner becker hoffmann klein wolf neumann schwarz zimmermann
""".split()

PLACES = """
berlin lisbon london paris amsterdam tokyo seattle toronto vienna zurich munich hamburg madrid
barcelona rome milan prague warsaw copenhagen stockholm oslo helsinki dublin edinburgh brussels
boston chicago austin denver portland montreal vancouver sydney melbourne auckland singapore
seoul osaka kyoto taipei bangkok lagos nairobi cairo istanbul athens budapest krakow porto
valencia seville lyon marseille cologne leipzig dresden bern geneva basel antwerp rotterdam
utrecht bologna naples tallinn riga vilnius reykjavik
""".split()

PREFERENCES = [
    "dark mode", "tabs over spaces", "short emails", "bullet points", "async updates",
    "morning meetings", "no meetings on fridays", "oat milk", "espresso", "green tea",
    "metric units", "24-hour time", "window seats", "vegetarian food", "sushi", "long walks",
    "cycling to work", "jazz while coding", "podcasts on the train", "paper notebooks",
    "mechanical keyboards", "a standing desk", "plain text notes", "monospace fonts",
    "squash merges", "small pull requests", "written specs", "video off in calls",
    "early flights", "aisle seats", "quiet hotels", "spicy food", "decaf after noon",
    "weekly reviews", "inbox zero", "voice memos", "handwritten cards", "trail running",
    "bouldering", "sourdough", "film cameras", "vinyl records", "board games", "crossword puzzles",
]

VERBS = """
fix update review write migrate refactor document test deploy upgrade benchmark profile
investigate rename split merge archive backfill rotate audit debug patch automate schedule
clean draft send book call renew cancel order pay move pin bump remove replace configure
monitor measure compare prototype ship release announce schedule reschedule confirm
""".split()

ADJECTIVES = """
slow flaky broken stale noisy expensive critical legacy experimental stable deprecated manual
nightly weekly internal external shared redundant missing duplicate partial urgent blocked
cheap fast large small new old primary secondary temporary permanent optional mandatory
encrypted unencrypted public private cached uncached async sync verbose quiet
""".split()

WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
MONTHS = ("january february march april may june july august september october november "
          "december").split()
FREQUENCIES = ["hourly", "daily", "nightly", "weekly", "every two weeks", "monthly",
               "on every push", "on demand"]

# Subjects: projects and systems (word-suffix), people, places. Words from NOUNS/TECH mixed in.
PROJECT_SUFFIXES = """
migration rewrite service app redesign launch cleanup integration upgrade pipeline bot sync
dashboard api portal tracker importer exporter gateway cli sdk plugin website blog newsletter
""".split()
PROJECT_PREFIXES = """
auth billing search payments onboarding checkout inventory analytics reporting notifications
mobile desktop infra data ml voice chat calendar email home garden finance travel health
family wedding house music photo video podcast book thesis course garage kitchen
""".split()

FMT = string.Formatter()

TEMPLATES: dict[str, list[str]] = {
    "fact": [
        "{S} uses {t} for the {n} and {t2} for the {n2}",
        "{P} prefers {pref}",
        "{P} prefers {pref} over {pref2}",
        "The {a} {n} in {S} takes about {num} seconds under load",
        "{P} owns the {n} of {S}",
        "The {n} for {S} is hosted in {pl} on {t}",
        "The {n} limit for {t} is {num} per minute",
        "{P} and {P2} meet every {wd} about the {n}",
        "{S} had {num} {a} {n} failures last week",
        "{P} works from {pl} and is usually offline after {hour}",
        "{P} is moving to {pl} in {mon}",
        "The {n} of {S} depends on the {a} {n2} in {t}",
        "User prefers {pref} and {pref2}",
        "The {t} {n} was upgraded to version {num}.{num2}",
        "{P} recommended {t} for the {n}",
        "{S} {n} backups are kept for {num} days in {pl}",
        "The {n} is {a} because the {n2} is {a2}",
    ],
    "decision": [
        "Use {t} for the {n} in {S} instead of {t2}",
        "Move the {n} from {t} to {t2}",
        "Keep the {a} {n} until {S} ships",
        "Drop the {n} from {S}; {P} handles the {n2} manually",
        "Run the {n} {freq} instead of {freq2}",
        "Adopt {pref} as the default for {S}",
        "{S} releases go out on {wd}s from now on",
        "Queue-based retries for the {n} instead of synchronous ones",
        "Store the {n} in {t} and cache it in {t2}",
        "{P} leads the {n} work for {S}",
        "Hold the {S} offsite in {pl} in {mon}",
        "Split the {n} out of {S} into its own {n2}",
    ],
    "task": [
        "{v} the {n} for {S}",
        "{v} the {a} {n} in {t}",
        "Ask {P} about the {n} in {pl}",
        "Write a {n} script for the {num} {a} {n2} jobs",
        "Book the trip to {pl} for the {S} kickoff",
        "{v} the {n} before the {mon} {n2}",
        "{v} the {t} {n} and {v2} the {n2}",
        "Send {P} the {n} notes from {wd}",
        "{v} the {n} {freq} until the {a} {n2} is fixed",
    ],
    "question": [
        "Should {S} use {t} or {t2} for the {n}?",
        "Is the {n} {a} enough for {num} {n2} requests per minute?",
        "Who owns the {n} after {P} leaves?",
        "Does {P} still prefer {pref}?",
        "Why is the {n} in {t} {a} on {wd}s?",
        "Can the {n} of {S} move to {pl} before {mon}?",
        "What does {P} need from the {n} team?",
        "Is {t} still worth it for the {a} {n}?",
    ],
    "handoff": [
        "{S}: {n} done, {n2} in progress, {n3} blocked on {P}",
        "{S} — {n} work with {t}, {n2} not started",
        "{S}: reviewed the {n} with {P}; {n2} next",
        "Wrapped up the {a} {n} for {S}; {n2} still open",
    ],
}

DETAILS: dict[str, list[str]] = {
    "fact": [
        "{P} mentioned it during the {wd} {n}",
        "Seen in the {t} {n} after the {mon} {n2}",
        "Background: the {n} was {a} for {num} days",
        "Confirmed with {P} in {pl}",
        "Measured on the {a} {n} with {t}",
    ],
    "decision": [
        "{t2} was {a} for {n} sizes above {num} MB",
        "{P} pointed out that the {n} was {a} during the {mon} outage",
        "Cheaper than {t2}; the {n} stays the same",
        "Fewer moving parts: one {n} instead of {num}",
        "The {a} {n} kept failing under load; {P} agreed",
        "{P} and {P2} both preferred it after the {n} review",
    ],
    "task": [
        "Blocked on {P} until the {n} is {a}",
        "Needs the {n} from {t} first",
        "Due before {wd}; {P} is waiting for it",
        "{num} {n2} items left",
    ],
    "question": [
        "Came up when the {n} was {a} on {wd}",
        "{P} asked during the {n} review",
        "Prompted by the {a} {n2} in {t}",
    ],
    "handoff": [
        "Worked on the {n} with {t}. The {n2} is still {a}. Next: {v} the {n3}, then "
        "{v2} the {n4}. {P} is reviewing the {n5}.",
        "Spent the session on the {a} {n}. {P} confirmed the {n2} numbers ({num} per "
        "{wd}). Not done yet: {n3}, {n4}.",
        "The {n} is deployed to {pl}. Still need the {n2} for the {num} {a} {n3} jobs, then "
        "a {t} {n4}. Load testing not done yet.",
    ],
}
DETAIL_PROBABILITY = {"fact": 0.45, "decision": 0.85, "task": 0.35, "question": 0.4,
                      "handoff": 0.95}
# Weights of the types of the entries before a session's handoff.
TYPE_WEIGHTS = (("fact", 40), ("decision", 27), ("task", 20), ("question", 13))
OPEN_TASK_SHARE = 0.65
REPLACE_SHARE = 0.03
EXTEND_CHAIN_SHARE = 0.35
NO_SUBJECT_SHARE = 0.15
OTHER_SUBJECT_SHARE = 0.2
POOL_CAP = 64


def _dedupe(words: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(words))


def zipf_cum_weights(n: int, s: float = ZIPF_S) -> list[float]:
    return list(itertools.accumulate(1.0 / (rank ** s) for rank in range(1, n + 1)))


class Sampler:
    """Zipf-distributed draws from a ranked population, in buffered bulk (fast)."""

    def __init__(self, rng: random.Random, population: Sequence[str], s: float = ZIPF_S,
                 batch: int = 1 << 15) -> None:
        self.rng = rng
        self.population = list(population)
        self.cum = zipf_cum_weights(len(self.population), s)
        self.batch = batch
        self.buffer: list[str] = []

    def __call__(self) -> str:
        if not self.buffer:
            self.buffer = self.rng.choices(self.population, cum_weights=self.cum, k=self.batch)
        return self.buffer.pop()


def subject_count(n: int) -> int:
    """A few hundred subjects at 1M entries, fewer for smaller logs."""
    return max(12, min(1000, round(12 * math.sqrt(math.sqrt(n)))))


def make_subjects(rng: random.Random, count: int) -> dict[str, tuple[str, str]]:
    """``{slug: (display, type)}``, in the order of their popularity (most used first)."""
    candidates: list[tuple[str, str, str]] = []
    for prefix, suffix in itertools.product(PROJECT_PREFIXES, PROJECT_SUFFIXES):
        candidates.append((f"{prefix}-{suffix}", f"{prefix.title()} {suffix.title()}",
                           "project"))
    for tech in TECH:
        candidates.append((tech, tech.title(), "system"))
    for first, last in itertools.product(FIRST_NAMES, LAST_NAMES):
        candidates.append((f"{first}-{last}", f"{first.title()} {last.title()}", "person"))
    for place in PLACES:
        candidates.append((f"{place}-office", f"{place.title()} Office", "place"))
    rng.shuffle(candidates)
    # A mix dominated by projects, as an agent's memory would be.
    by_type: dict[str, list[tuple[str, str, str]]] = {}
    for slug, display, kind in candidates:
        by_type.setdefault(kind, []).append((slug, display, kind))
    share = {"project": 0.6, "person": 0.2, "system": 0.12, "place": 0.08}
    chosen: list[tuple[str, str, str]] = []
    for kind, fraction in share.items():
        chosen += by_type[kind][: max(1, round(count * fraction))]
    rng.shuffle(chosen)
    return {slug: (display, kind) for slug, display, kind in chosen[:count]}


def _compile(templates: dict[str, list[str]]) -> dict[str, list[tuple[str, tuple[str, ...]]]]:
    """Each template with the names of its fields, parsed once."""
    return {kind: [(text, tuple(dict.fromkeys(f for _, f, _, _ in FMT.parse(text) if f)))
                   for text in texts] for kind, texts in templates.items()}


class Writer:
    """Builds the sentences: one sampler per field kind (``n2`` draws like ``n``)."""

    def __init__(self, rng: random.Random, subjects: dict[str, tuple[str, str]]) -> None:
        self.rng = rng
        nouns, tech = Sampler(rng, _dedupe(NOUNS)), Sampler(rng, _dedupe(TECH))
        first, last = Sampler(rng, FIRST_NAMES), Sampler(rng, LAST_NAMES)
        places, prefs = Sampler(rng, PLACES), Sampler(rng, PREFERENCES)
        verbs, adjectives = Sampler(rng, VERBS), Sampler(rng, ADJECTIVES)
        weekdays, months = Sampler(rng, WEEKDAYS, 0.3), Sampler(rng, MONTHS, 0.2)
        freqs = Sampler(rng, FREQUENCIES, 0.7)
        numbers = Sampler(rng, [str(i) for i in range(1, 500)], 1.1)
        hours = Sampler(rng, ["5pm", "6pm", "7pm", "8pm", "noon", "4pm", "9pm"], 0.5)
        displays = Sampler(rng, [d for d, _ in subjects.values()])

        def person() -> str:
            name = first().title()
            return f"{name} {last().title()}" if rng.random() < 0.3 else name

        self.fields: dict[str, Callable[[], str]] = {
            "n": nouns, "t": tech, "P": person, "pl": lambda: places().title(), "pref": prefs,
            "v": verbs, "a": adjectives, "wd": lambda: weekdays().title(),
            "mon": lambda: months().title(), "freq": freqs, "num": numbers, "hour": hours,
            "S": displays,
        }
        self.templates = _compile(TEMPLATES)
        self.details = _compile(DETAILS)

    def _fill(self, template: tuple[str, tuple[str, ...]], subject: str | None) -> str:
        text, names = template
        values = {}
        for name in names:
            if name == "S" and subject is not None:
                values[name] = subject
            else:
                values[name] = self.fields[name.rstrip("0123456789")]()
        out = text.format_map(values)
        return out[0].upper() + out[1:]

    def content(self, kind: str, subject: str | None) -> str:
        return self._fill(self.rng.choice(self.templates[kind]), subject)

    def detail(self, kind: str, subject: str | None) -> str | None:
        if self.rng.random() >= DETAIL_PROBABILITY[kind]:
            return None
        return self._fill(self.rng.choice(self.details[kind]), subject)


def _iso(ts: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def generate(n: int, out_dir: Path, seed: int = 1,  # noqa: PLR0912, PLR0915
             common: Mapping[str, float] | None = None) -> dict[str, Any]:
    """``common``: words put into that share of the entries' content (``{"atlas": 0.35}``), the
    way a project's name or "deploy" fills a real log: the hard case for keyword search. They
    come from a random stream of their own, so the rest of the log is the same without them."""
    started = time.perf_counter()
    rng = random.Random(seed)
    common_rng = random.Random(f"{seed}-common")
    common_words = sorted((common or {}).items())
    subjects = make_subjects(rng, subject_count(n))
    slugs = list(subjects)
    displays = {slug: display for slug, (display, _) in subjects.items()}
    writer = Writer(rng, subjects)
    subject_of_session = Sampler(rng, slugs)
    other_subject = Sampler(rng, slugs, 0.8)
    kinds = [k for k, _ in TYPE_WEIGHTS]
    kind_cum = list(itertools.accumulate(w for _, w in TYPE_WEIGHTS))

    n_sessions_est = max(1, n / 12.5)
    step = max(1, min(120, SPAN // n // 4))  # mean seconds between entries of a session
    gap = max(1.0, (SPAN - n * step) / n_sessions_est)  # mean seconds between sessions
    ids: set[str] = set()

    def new_id() -> str:
        while True:
            value = base64.urlsafe_b64encode(rng.getrandbits(72).to_bytes(9, "big")).decode()
            if value not in ids:
                ids.add(value)
                return value

    # Per subject: current entries that may be replaced (id, type, content), and chain length.
    pools: dict[str, list[tuple[str, str, str]]] = {}
    heads: dict[str, list[tuple[str, str, str]]] = {}
    chain_len: dict[str, int] = {}
    types: Counter[str] = Counter()
    chains: Counter[int] = Counter()
    replaced = 0

    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = out_dir / "log.jsonl.tmp"
    size = 0
    written = 0
    sessions = 0
    ts = START
    buffer: list[bytes] = []
    with open(tmp, "wb") as out:
        while written < n:
            sessions += 1
            session = f"{rng.getrandbits(128):032x}"
            session = (f"{session[:8]}-{session[8:12]}-4{session[13:16]}-{session[16:20]}-"
                       f"{session[20:]}")
            length = min(rng.randint(5, 20), n - written)
            main = subject_of_session()
            ts += max(1, int(rng.expovariate(1.0 / gap)))
            for position in range(length):
                ts += rng.randint(1, 2 * step)
                handoff = position == length - 1
                if handoff:
                    kind = "handoff"
                    subject: str | None = main if rng.random() < 0.9 else None
                else:
                    kind = rng.choices(kinds, cum_weights=kind_cum)[0]
                    roll = rng.random()
                    subject = (None if roll < NO_SUBJECT_SHARE else other_subject()
                               if roll < NO_SUBJECT_SHARE + OTHER_SUBJECT_SHARE else main)
                entry_id = new_id()
                replaces = None
                status = None
                content = None
                if subject is not None and not handoff and rng.random() < REPLACE_SHARE:
                    target = _pick_target(rng, pools.get(subject), heads.get(subject))
                    if target is not None:
                        target_id, target_kind, target_content = target
                        replaces = target_id
                        if target_kind == "task":
                            kind, status = "task", "done"
                            content = target_content
                        elif target_kind == "question":
                            kind = rng.choice(("decision", "fact"))
                        else:
                            kind = target_kind
                        _discard(pools, heads, subject, target)
                        chain_len[entry_id] = chain_len.get(target_id, 1) + 1
                        replaced += 1
                shown = displays[subject] if subject is not None else None
                if content is None:
                    content = writer.content(kind, shown)
                for word, share in common_words:
                    if common_rng.random() < share:
                        content = f"{content} ({word})"
                if kind == "task" and status is None:
                    status = "open" if rng.random() < OPEN_TASK_SHARE else "done"
                entry: dict[str, str] = {"id": entry_id, "timestamp": _iso(ts), "type": kind,
                                         "content": content}
                if status is not None:
                    entry["status"] = status
                detail = writer.detail(kind, shown)
                if detail is not None:
                    entry["detail"] = detail
                if subject is not None:
                    entry["subject"] = subject
                if replaces is not None:
                    entry["replaces"] = replaces
                entry["session"] = session
                line = orjson.dumps(entry) + b"\n"
                buffer.append(line)
                size += len(line)
                written += 1
                types[kind] += 1
                if subject is not None and kind != "handoff":
                    item = (entry_id, kind, content)
                    pool = pools.setdefault(subject, [])
                    pool.append(item)
                    if len(pool) > POOL_CAP:
                        del pool[: POOL_CAP // 2]
                    if replaces is not None:
                        head_list = heads.setdefault(subject, [])
                        head_list.append(item)
                        if len(head_list) > POOL_CAP:
                            del head_list[: POOL_CAP // 2]
            if len(buffer) >= 50_000:
                out.write(b"".join(buffer))
                buffer.clear()
        out.write(b"".join(buffer))
    os.replace(tmp, out_dir / "log.jsonl")
    registry = {slug: {"display": display, "type": kind}
                for slug, (display, kind) in sorted(subjects.items())}
    (out_dir / "subjects.json").write_bytes(orjson.dumps(registry, option=orjson.OPT_INDENT_2))
    for length in chain_len.values():
        chains[length] += 1
    return {"entries": written, "bytes": size, "sessions": sessions, "subjects": len(subjects),
            "types": dict(types), "replacing": replaced,
            "chains3plus": sum(c for length, c in chains.items() if length >= 3),
            "longestChain": max(chains, default=1), "first": _iso(START), "last": _iso(ts),
            "seconds": time.perf_counter() - started}


def _pick_target(rng: random.Random, pool: list[tuple[str, str, str]] | None,
                 head_list: list[tuple[str, str, str]] | None) -> tuple[str, str, str] | None:
    if head_list and rng.random() < EXTEND_CHAIN_SHARE:
        return rng.choice(head_list)
    if pool:
        return rng.choice(pool)
    return None


def _discard(pools: dict[str, list[tuple[str, str, str]]],
             heads: dict[str, list[tuple[str, str, str]]], subject: str,
             target: tuple[str, str, str]) -> None:
    """The replaced entry is no longer current: it cannot be replaced again."""
    for table in (pools, heads):
        items = table.get(subject)
        if items and target in items:
            items.remove(target)


def daily_notes(workspace: Path, days: int, seed: int = 1) -> None:
    """``memory/YYYY-MM-DD.md`` for ``days`` days ending at the log's end, a few bullets each:
    the files OpenClaw's agents write day by day, which every search brings up to date."""
    rng = random.Random(seed)
    folder = workspace / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    end = START + SPAN
    for back in range(days):
        day = time.strftime("%Y-%m-%d", time.gmtime(end - back * 86_400))
        bullets = [f"- {rng.choice(VERBS).capitalize()} the {rng.choice(ADJECTIVES)} "
                   f"{rng.choice(TECH)} with {rng.choice(FIRST_NAMES)} "
                   f"({rng.choice(FREQUENCIES)})." for _ in range(rng.randint(3, 8))]
        (folder / f"{day}.md").write_text(f"# {day}\n\n" + "\n".join(bullets) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", type=int, help="number of entries")
    parser.add_argument("out_dir", type=Path, help="where log.jsonl and subjects.json go")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--common", default="", metavar="WORD=SHARE,...",
                        help="words put into that share of the entries, e.g. atlas=0.35,"
                             "deploy=0.3 (the hard case for keyword search)")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("N must be at least 1")
    try:
        common = {w: float(share) for w, _, share in
                  (part.partition("=") for part in args.common.split(",") if part)}
    except ValueError:
        parser.error("--common takes WORD=SHARE pairs, e.g. atlas=0.35,deploy=0.3")
    if any(not 0 < share <= 1 or not word.isalpha() for word, share in common.items()):
        parser.error("--common: each word is letters only, each share in (0, 1]")
    stats = generate(args.n, args.out_dir, args.seed, common)
    print(f"wrote {stats['entries']:,} entries, {stats['bytes']:,} bytes "
          f"({stats['bytes'] / 1e6:.1f} MB) to {args.out_dir / 'log.jsonl'} "
          f"in {stats['seconds']:.1f} s")
    print(f"  {stats['sessions']:,} sessions, {stats['subjects']} subjects, types {stats['types']}")
    print(f"  {stats['replacing']:,} replacing entries, {stats['chains3plus']:,} at chain "
          f"length 3+, longest chain {stats['longestChain']}; {stats['first']} .. {stats['last']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
