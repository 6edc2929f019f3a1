"""The evaluation's queries, each with the one target that answers it.

A target is a planted log entry (``Entry``: its label in ``generate.PLANTED``; its id is
``generate.planted_id(label)``) or lines of a workspace Markdown file (``Lines``: the path, the
1-based inclusive line range, and a piece of its text so that a stale line number is caught).

Every target is asked about twice, the way a person or an agent would ask:

- ``keyword``: the question shares distinctive words with the target (not always all of them,
  and often with words the target does not have);
- ``corrected``: the question asks about something that was corrected later (an entry whose
  ``replaces`` names the earlier one) and shares words with both versions: the current one must
  rank first (the replaced one is hidden). Asked only this way (``CORRECTED``).
- ``paraphrase``: the question shares no content word with the target: after lower-casing,
  stemming and dropping stopwords, no word of the question is a word of the target (its content,
  detail and subject name, or its lines), and no word of it matches the target in the FTS index.
  tests/quality/test_quality.py enforces this, so keyword search alone cannot find these targets.

``about`` says what the target is: fact, decision, task (open), question, or note (Markdown).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["keyword", "paraphrase", "corrected"]
About = Literal["fact", "decision", "task", "question", "note"]


@dataclass(frozen=True)
class Entry:
    label: str  # generate.PLANTED


@dataclass(frozen=True)
class Lines:
    path: str  # relative to the workspace
    start: int
    end: int
    anchor: str  # text found in those lines


Target = Entry | Lines


@dataclass(frozen=True)
class Query:
    text: str
    kind: Kind
    target: Target
    about: About


def _pair(target: Target, about: About, keyword: str, paraphrase: str) -> tuple[Query, Query]:
    return Query(keyword, "keyword", target, about), Query(paraphrase, "paraphrase", target, about)


_PAIRS: tuple[tuple[Query, Query], ...] = (
    # -- facts --------------------------------------------------------------------------------
    _pair(Entry("dentist"), "fact",
          "when is the dental cleaning with Dr. Lindqvist?",
          "when do I next get my teeth looked at?"),
    _pair(Entry("guest-wifi"), "fact",
          "what is the guest wifi password?",
          "how do visitors get online at our place?"),
    _pair(Entry("tyre-pressure"), "fact",
          "tyre pressure for the Golf",
          "how much air should go in the wheels of the VW?"),
    _pair(Entry("stripe-secret"), "fact",
          "where is the Stripe webhook signing secret stored?",
          "where is the key for checking that payment provider callbacks are genuine stored?"),
    _pair(Entry("passport"), "fact",
          "when does my passport expire?",
          "is my travel document good for the Tokyo visit?"),
    _pair(Entry("leo-allergy"), "fact",
          "is Leo allergic to anything?",
          "which seafood can our friend not eat?"),
    _pair(Entry("etl-schedule"), "fact",
          "what time does the nightly ETL finish?",
          "how long does the overnight batch job take to complete?"),
    _pair(Entry("resting-hr"), "fact",
          "what is my resting heart rate these days?",
          "has my pulse improved with all the training?"),
    # -- decisions ----------------------------------------------------------------------------
    _pair(Entry("chair"), "decision",
          "which office chair did we buy in the end?",
          "what did we settle on for the seat at my desk?"),
    _pair(Entry("keycloak"), "decision",
          "Keycloak or Auth0 for the auth migration?",
          "which identity provider did we choose for sign-in, and why?"),
    _pair(Entry("skip-osaka"), "decision",
          "are we still going to Osaka?",
          "which city got cut from the itinerary?"),
    _pair(Entry("android-8"), "decision",
          "minimum Android version for the mobile app 4.0",
          "which ancient handsets lose compatibility with the upcoming major release?"),
    _pair(Entry("hydration"), "decision",
          "what hydration are we using for the sourdough?",
          "how much water relative to flour do I put in the bread now?"),
    _pair(Entry("pension-8"), "decision",
          "what pension contribution did we decide on?",
          "what share of my pay am I saving for retirement?"),
    _pair(Entry("teal-palette"), "decision",
          "which colour palette did we pick for the website redesign?",
          "what colours did we go with for the new site, and what happened to the rotating "
          "banner?"),
    # -- open tasks ---------------------------------------------------------------------------
    _pair(Entry("leaky-tap"), "task",
          "did I email the landlord about the bathroom tap?",
          "remind me to tell the property owner about the leaking faucet"),
    _pair(Entry("donation-receipts"), "task",
          "charity donation receipts for taxes",
          "I still need paperwork proving what I gave to good causes for the yearly filing"),
    _pair(Entry("deploy-key"), "task",
          "rotate the CI deploy key",
          "swap out the exposed credential our build machines use to ship releases"),
    _pair(Entry("photo-album"), "task",
          "photo album for Grandma Ruth's birthday",
          "make a physical book of pictures for the big family celebration"),
    _pair(Entry("drip-irrigation"), "task",
          "drip irrigation for the raised beds",
          "buy a watering system for the vegetable planters"),
    _pair(Entry("blackbird"), "task",
          "Blackbird fingerpicking practice",
          "keep practising that Beatles song on the acoustic until it is up to speed"),
    # -- questions ----------------------------------------------------------------------------
    _pair(Entry("water-damage"), "question",
          "does home insurance cover water damage?",
          "if the flat above floods ours, are we protected?"),
    _pair(Entry("cursor-pagination"), "question",
          "cursor or offset pagination in the search API",
          "how should the lookup endpoint return huge answer sets in pages?"),
    _pair(Entry("xt5-upgrade"), "question",
          "Fujifilm X-T5 upgrade",
          "would a newer camera body help with dim indoor pictures?"),
    _pair(Entry("sink-permit"), "question",
          "do we need a permit to move the kitchen sink?",
          "is council approval required to relocate where we wash the dishes?"),
    # -- Markdown notes -----------------------------------------------------------------------
    _pair(Lines("MEMORY.md", 19, 19, "flat white"), "note",
          "how do I take my coffee?",
          "what is my usual order at a café?"),
    _pair(Lines("MEMORY.md", 11, 11, "half marathon"), "note",
          "half marathon goal time",
          "what race finish am I aiming for this autumn?"),
    _pair(Lines("memory/meetings/2025-10-07-billing-roadmap.md", 19, 19, "dunning email"), "note",
          "who owns the dunning emails?",
          "who is writing the messages to customers whose card payment failed?"),
    _pair(Lines("memory/trips/japan-2026.md", 14, 15, "Kenroku-en"), "note",
          "Kanazawa plans, Kenroku-en and the museum",
          "where do we eat seafood and look at modern paintings on that leg of the holiday?"),
    _pair(Lines("memory/reading-list.md", 6, 7, "The Overstory"), "note",
          "what book did Leo recommend?",
          "which novel about forests did our friend suggest?"),
    _pair(Lines("memory/recipes/weeknight-dinners.md", 13, 13, "Miso salmon"), "note",
          "miso salmon oven time",
          "how long does the glazed fish need to bake?"),
    _pair(Lines("memory/home/kitchen-quotes.md", 7, 7, "Hartley Joinery"), "note",
          "Hartley Joinery quote",
          "how much did the cabinet makers ask for the complete job, and how long is their "
          "wait?"),
    _pair(Lines("memory/work/oncall-runbook.md", 13, 14, "kubectl scale"), "note",
          "how to scale the billing workers when the queue backs up",
          "what should I do on call when jobs pile up waiting to be processed?"),
    _pair(Lines("memory/people/gift-ideas.md", 5, 5, "pour-over"), "note",
          "pour-over set for Maya",
          "what present would my partner like, that coffee dripper she kept looking at?"),
    _pair(Lines("memory/health/physio-plan.md", 11, 11, "Step-downs"), "note",
          "physio step-downs sets and reps",
          "what new movement joins the rehab routine in the second fortnight?"),
    _pair(Lines("MEMORY.md", 24, 24, "coriander"), "note",
          "do I eat coriander?",
          "which herb do I dislike in meals?"),
    _pair(Lines("memory/meetings/2025-10-07-billing-roadmap.md", 23, 23, "unsubscribe"), "note",
          "do the reminder emails need an unsubscribe link?",
          "who is asking the lawyers if customers must be able to opt out of those messages?"),
    _pair(Lines("memory/finances/2026-budget.md", 6, 6, "Rent"), "note",
          "how much is the rent?",
          "what do we pay to live in our flat each month?"),
    _pair(Lines("memory/meetings/2025-06-18-team-offsite.md", 19, 19, "No deploys"), "note",
          "are deploys allowed on Friday afternoon?",
          "can I ship to production late in the week?"),
)

CORRECTED: tuple[Query, ...] = (
    Query("dental cleaning with Dr. Lindqvist: what date and time?", "corrected",
          Entry("dentist"), "fact"),
    Query("what is the home Wi-Fi password?", "corrected", Entry("wifi"), "fact"),
    Query("what time is the data pipeline standup?", "corrected", Entry("standup"), "fact"),
    Query("when is the knee physio appointment with Ines?", "corrected", Entry("physio"),
          "fact"),
    Query("which database does the billing ledger use?", "corrected", Entry("ledger-db"),
          "decision"),
    Query("office chair: which one did we order?", "corrected", Entry("chair"), "decision"),
)

QUERIES: tuple[Query, ...] = (*(q for pair in _PAIRS for q in pair), *CORRECTED)
