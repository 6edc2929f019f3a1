"""A deterministic, realistic personal-memory corpus for the retrieval-quality evaluation.

    python -m tests.quality.generate OUT_DIR [--seed N] [--end YYYY-MM-DD]

writes ``OUT_DIR/data`` (log.jsonl, subjects.json) and ``OUT_DIR/workspace`` (MEMORY.md and
eleven notes under memory/). What the log looks like:

- about 3,000 entries over 18 months, in sessions of 5-15 entries that each end with one
  handoff; facts most common, then tasks (open or done), decisions, questions;
- 41 subjects: software projects, people, home, health, travel, finances, hobbies (a tenth of
  the entries have none); some subjects live only in a window of time (a trip, a renovation);
- content from per-subject sentences and per-kind templates over word banks, so that the words
  of a target are also the words of its neighbours (BM25 is not trivially right) and several
  entries are about the same thing without answering the same question;
- replacement chains (about 3 % of the entries): an open task by its done version, a question
  by its answer, a fact by a correction, a decision by a new one;
- *planted* entries (``PLANTED``): the answers of the evaluation's queries (tests/quality/
  queries.py), each the one entry that answers its question. Their ids derive from their labels
  (``planted_id``), so the queries do not depend on the random draws. Two of them replace an
  earlier planted entry (a moved appointment, a changed decision): the replaced ones are not
  answers, since search leaves replaced entries out.

Timestamps end at ``end`` (a fixed date by default, so the same seed gives the same bytes);
search ranks by recency against the real clock, so the evaluation passes today's date to keep
the ages of the entries, and with them the figures, the same whenever it runs.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

SEED = 1859
END = datetime(2025, 11, 30, 18, 0, tzinfo=UTC)
SPAN_DAYS = 545  # about 18 months
BACKGROUND_SESSIONS = 285
REPLACE_RATE = 0.04
DETAIL_RATE = 0.35
NO_SUBJECT_RATE = 0.1
ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-"


@dataclass(frozen=True)
class Subject:
    slug: str
    display: str
    kind: str  # software, person, home, health, travel, finance, hobby
    weight: float
    window: tuple[int, int] = (0, SPAN_DAYS)  # ages in days (0 = the end) it is talked about
    things: tuple[str, ...] = ()  # what its entries are about
    gear: tuple[str, ...] = ()  # what can be bought (hobbies); else the things


def _subject(slug: str, display: str, kind: str, weight: float, things: str, *,
             window: tuple[int, int] = (0, SPAN_DAYS), gear: str = "") -> Subject:
    def split(text: str) -> tuple[str, ...]:
        return tuple(t.strip() for t in text.split(";") if t.strip())

    return Subject(slug, display, kind, weight, window, split(things), split(gear))


SUBJECTS: tuple[Subject, ...] = (
    # software: work projects and two side projects
    _subject("billing-service", "Billing Service", "software", 9,
             "invoice generator; usage metering; tax calculation; refund handler; "
             "subscription ledger; proration logic; PDF renderer; webhook receiver"),
    _subject("mobile-app", "Mobile App", "software", 8,
             "onboarding flow; push notification service; offline sync; settings screen; "
             "image cache; deep link router; crash reporter; login screen"),
    _subject("data-pipeline", "Data Pipeline", "software", 7,
             "ingestion worker; dedup step; warehouse loader; schema registry; backfill script; "
             "partitioning scheme; event parser; archive exporter"),
    _subject("website-redesign", "Website Redesign", "software", 5,
             "landing page; pricing page; navigation menu; footer; blog template; contact form; "
             "font stack; image optimizer", window=(120, 420)),
    _subject("search-api", "Search API", "software", 6,
             "query parser; ranking function; index builder; autocomplete endpoint; "
             "synonym list; rate limiter; response cache; spell checker"),
    _subject("ci-infrastructure", "CI Infrastructure", "software", 5,
             "build cache; runner pool; artifact store; release pipeline; lint stage; "
             "Docker base image; test sharding; nightly build"),
    _subject("auth-migration", "Auth Migration", "software", 5,
             "session store; password hashing; SSO integration; token refresh; "
             "user import script; MFA enrollment; role mapping; login audit log",
             window=(180, 480)),
    _subject("analytics-dashboard", "Analytics Dashboard", "software", 4,
             "retention chart; funnel view; CSV export; date picker; cohort query; KPI tiles; "
             "permissions model; embed widget"),
    _subject("budget-tracker", "Budget Tracker", "software", 3,
             "bank import; category rules; monthly report; SQLite schema; receipt scanner; "
             "recurring transactions; chart component; backup script"),
    _subject("home-automation", "Home Automation", "software", 3,
             "Zigbee hub; hallway motion sensor; thermostat schedule; dashboard tablet; "
             "garage door relay; porch light automation; energy monitor; blind controller"),
    # people
    _subject("maya", "Maya", "person", 5,
             "the pottery class; her new job at the design studio; the climbing gym; "
             "her sister's visit; the book club; the bike commute"),
    _subject("dad", "Dad", "person", 3,
             "his hearing aids; the allotment; the boat engine; his blood pressure tablets; "
             "the retirement do; the fence repair"),
    _subject("grandma-ruth", "Grandma Ruth", "person", 2,
             "the move to sheltered housing; her knitting group; her eyesight; "
             "the family recipes; her tomato plants"),
    _subject("sam-okafor", "Sam Okafor", "person", 3,
             "the on-call rotation; his conference talk; the code review backlog; "
             "his parental leave; the Rust rewrite idea"),
    _subject("priya-shah", "Priya Shah", "person", 3,
             "the quarterly planning; the hiring plan; my promotion case; the team offsite; "
             "the budget review"),
    _subject("leo", "Leo", "person", 2,
             "his band's gig; the climbing trip; his new flat; the board game nights; "
             "his startup idea"),
    _subject("nina", "Nina", "person", 2,
             "her master's thesis; the move to Rotterdam; her cat; the driving test; "
             "the job interviews"),
    # home
    _subject("kitchen-renovation", "Kitchen Renovation", "home", 4,
             "cabinet doors; tiling; extractor hood; under-cupboard lighting; flooring; "
             "dishwasher; pantry shelves; electrics", window=(40, 330)),
    _subject("garden", "Garden", "home", 3,
             "compost bin; lawn; apple tree; greenhouse; hedge; bird feeder; shed roof; "
             "herb pots"),
    _subject("home-office", "Home Office", "home", 3,
             "monitor arm; desk lamp; standing desk; webcam; cable tray; bookshelf; headset; "
             "docking station"),
    _subject("car", "Car", "home", 3,
             "winter tyres; brake pads; air conditioning; windscreen chip; parking sensor; "
             "roof box; battery; wiper blades"),
    _subject("apartment", "Apartment", "home", 3,
             "extractor fan; radiator valves; front door lock; boiler; window seals; "
             "smoke alarm; washing machine; balcony drain"),
    # health
    _subject("dental-care", "Dental Care", "health", 2,
             "gum sensitivity; the night guard; flossing; the electric toothbrush heads; "
             "the wisdom tooth; whitening"),
    _subject("running", "Running", "health", 4,
             "long runs; interval sessions; cadence; the new trail shoes; hill repeats; "
             "the foam roller; easy pace"),
    _subject("sleep", "Sleep", "health", 2,
             "caffeine after lunch; screen time before bed; the blackout blinds; "
             "the sleep tracker; magnesium; weekend lie-ins"),
    _subject("knee-physio", "Knee Physio", "health", 2,
             "the clamshell exercise; knee swelling; the resistance bands; stairs; "
             "the ice pack; single-leg squats", window=(150, 420)),
    _subject("nutrition", "Nutrition", "health", 2,
             "protein at breakfast; sugary snacks; meal prep; iron levels; "
             "the vitamin D supplement; alcohol"),
    # travel
    _subject("japan-trip", "Japan Trip", "travel", 7,
             "the flights to Tokyo; the hotel in Shinjuku; the teamLab tickets; "
             "a pocket Wi-Fi router; the Kyoto guesthouse; the Nara day trip; "
             "the Hakone ropeway; the rail pass", window=(0, 220)),
    _subject("lisbon-weekend", "Lisbon Weekend", "travel", 4,
             "the tram 28 ride; the Alfama apartment; the Sintra day trip; the fado dinner; "
             "the airport transfer; the pastry tour", window=(300, 400)),
    _subject("camping", "Camping", "travel", 4,
             "the tent footprint; the campsite in the Lake District; the gas stove; "
             "the sleeping mats; the cool box; the fire pit", window=(370, 470)),
    _subject("austin-wedding", "Austin Wedding", "travel", 6,
             "the hotel block; the rehearsal dinner; the suit alterations; the wedding gift; "
             "the rental car; the flights to Austin", window=(140, 260)),
    # finances
    _subject("taxes", "Taxes", "finance", 3,
             "the home office deduction; the freelance invoices; the estimated payment; "
             "the accountant's fee; the capital gains report; the mileage log"),
    _subject("pension", "Pension", "finance", 2,
             "the index fund; the employer match; the old pension pot; the annual statement; "
             "the fund fees"),
    _subject("insurance", "Insurance", "finance", 2,
             "the car insurance; the travel insurance; the contents cover; "
             "the life insurance policy; the excess; the no-claims discount"),
    _subject("household-budget", "Household Budget", "finance", 3,
             "groceries; the energy bill; eating out; the streaming subscriptions; "
             "the council tax; the mobile plans; the gym memberships"),
    # hobbies
    _subject("guitar", "Guitar", "hobby", 3,
             "barre chords; scales in fifth position; strumming patterns; ear training; "
             "chord changes", gear="new strings; a capo; a small practice amp; a gig bag"),
    _subject("sourdough", "Sourdough", "hobby", 3,
             "scoring; shaping; bulk fermentation; the starter routine; the overnight retard",
             gear="a banneton; a Dutch oven; a proofing box; a bread lame"),
    _subject("photography", "Photography", "hobby", 3,
             "street photography; Lightroom editing; golden hour shooting; composition; "
             "developing film", gear="the 35mm prime; a tripod; a camera bag; a film scanner"),
    _subject("chess", "Chess", "hobby", 2,
             "the Sicilian; endgame drills; tactics puzzles; rapid games; opening preparation",
             gear="a wooden board; a chess clock; an endgame manual; a premium membership"),
    _subject("reading", "Reading", "hobby", 2,
             "the book club pick; audiobooks; the non-fiction stack; reading before bed",
             gear="the e-reader; a reading lamp; a bookstand; the annotated Middlemarch"),
    _subject("woodworking", "Woodworking", "hobby", 2,
             "dovetail joints; sanding; the bookshelf project; hand planing; sharpening",
             gear="a bench vise; the chisel set; a shop vac; a block plane"),
)
BY_SLUG = {s.slug: s for s in SUBJECTS}
SUBJECT_TYPES = {"software": "project", "person": "person", "home": "home", "health": "health",
                 "travel": "trip", "finance": "finance", "hobby": "hobby"}

# -- templates ------------------------------------------------------------------------------------
# One template a line: "F " fact, "D " decision, "T " task, "Q " question. Slots: {display},
# {thing}, {thing2}, {gear}, {person}, {n}, {num}, {pct}, {price}, {day}, {month}, {version},
# {time}, {code}, {event}.

KIND_TEMPLATES: dict[str, str] = {
    "software": """
F The {thing} in {display} takes about {num} ms at p95 since the last deploy.
F {person} owns the {thing} and wants a heads-up before anyone changes it.
F The {thing} test suite has {n} flaky cases; they fail mostly on busy {day} mornings.
F {display} has {num} open issues, roughly {pct}% of them about the {thing}.
F Error rate on the {thing} went up to {n} per thousand requests after the {version} rollout.
F The {thing} still reads its settings from environment variables, not from the config service.
F {person} found that the {thing} retries forever when the upstream call times out.
F The {thing} was written in a hurry before the {month} launch and nobody has touched it since.
F Memory use of the {thing} grows by about {num} MB a day until the pod restarts.
D Split the {thing} out of {display} into its own module.
D Ship {display} {version} on {day} and keep the old {thing} for one more release.
D Stop hand-editing the {thing}; generate it from the schema instead.
D Pair with {person} on the {thing} refactor rather than doing it alone.
D Keep the {thing} behind a feature flag until errors stay flat for a week.
D No new features in the {thing} until the test coverage is above {pct}%.
T Write integration tests for the {thing} in {display}.
T Review {person}'s pull request that touches the {thing}.
T Upgrade the {thing} dependencies to their latest minor versions.
T Add metrics and an alert for the {thing}.
T Clean up the dead code left in the {thing} after the refactor.
T Write a short design note on the {thing} for the team wiki.
T Reproduce the {thing} bug {person} reported on {day}.
Q Why does the {thing} slow down every {day}?
Q Does the {thing} need its own database, or can it share one with the {thing2}?
Q Who signs off on changes to the {thing} now that {person} moved teams?
Q Is the {thing} still used by anything besides {display}?
""",
    "person": """
F {display} started {thing} this month and is enjoying it so far.
F {display} mentioned being stressed about {thing}.
F Talked to {display} on {day}; mostly about {thing}.
F {display} will be away for {n} days around {month}.
F {display} recommended a podcast episode about {thing}.
F {display} is much happier now that {thing} is sorted.
D Call {display} every other {day} instead of only texting.
D Visit {display} in {month} rather than over the holidays.
D Let {display} handle {thing} and stay out of it unless asked.
T Call {display} back about {thing}.
T Send {display} the pictures from {event}.
T Ask {display} how {thing} went.
T Help {display} with {thing} on {day}.
Q Does {display} still want help with {thing}?
Q What did {display} decide about {thing} in the end?
Q Is {display} coming to {event}?
""",
    "home": """
F The {thing} was last serviced in {month}; the next check is due in {n} months.
F Measured for the {thing}: {num} cm wide, a bit less than expected.
F The {thing} cost {price} in the end, {pct}% over the estimate.
F The {thing} has been making a rattling noise since {day}.
F Warranty on the {thing} runs for {n} years from purchase.
F The {thing} is the same model the neighbours have, and theirs broke after {n} years.
D Replace the {thing} rather than repairing it again.
D Postpone the {thing} work until after {month}.
D Do the {thing} ourselves instead of paying someone.
T Get a second quote for the {thing}.
T Clean and check the {thing}.
T Buy spare parts for the {thing}.
T Measure the {thing} before ordering anything.
Q Is the {thing} still under warranty?
Q Would a smart plug on the {thing} be worth it?
Q Who did the {thing} for the neighbours, and were they any good?
""",
    "health": """
F Kept notes on {thing} for {n} days; no clear pattern yet.
F Noticed that {thing} is worse after late dinners.
F The numbers on {thing} look steady over the last {n} weeks.
F {thing}: better this week than last, no obvious reason why.
F The GP asked about {thing} at the check-up; nothing alarming.
D Pay more attention to {thing} for the next {n} weeks and see what changes.
D Write down {thing} every morning instead of guessing.
D Stop worrying about {thing} unless it gets worse.
T Book a follow-up about {thing}.
T Ask the pharmacist about {thing}.
T Keep a diary of {thing} for a week before the next appointment.
Q Is {thing} something to worry about, or normal?
Q Would the health plan pay for anything to do with {thing}?
""",
    "travel": """
F {thing} for {display}: {price} per person.
F The confirmation number for {thing} is {code}.
F {thing} opens at {time} and closes early on {day}s.
F Maya found a cheaper option for {thing}, about {pct}% less.
D Book {thing} now instead of waiting for a sale.
D Skip {thing} this time; not worth the detour.
D Carry-on bags only for {display}.
T Book {thing} for {display}.
T Print the confirmation for {thing}.
T Share the details of {thing} with Maya.
T Compare prices for {thing}.
Q Is {thing} worth it for {display}?
Q Do we need to reserve {thing} in advance?
""",
    "finance": """
F {thing} came to {price} this year.
F The statement for {thing} shows {pct}% more than last year.
F {thing} is due on the {n}th of each month.
F Moved {price} to cover {thing}.
D Pay {thing} annually instead of monthly; it saves {pct}%.
D Keep {thing} with the current provider for another year.
D Stop paying for {thing} after the current term ends.
T Download the statements for {thing} for {month}.
T Compare offers for {thing}.
T Set up a standing order for {thing}.
Q Is {thing} deductible?
Q Can {thing} come out of the joint account?
""",
    "hobby": """
F Spent {n} hours on {thing} this week.
F {thing} finally clicked after {n} sessions.
F Found a good video on {thing} by {person}.
F {gear} costs about {price} for something decent.
F Borrowed {gear} from {person} to try before buying.
D Focus on {thing} for the next month before anything new.
D Buy {gear} second-hand rather than new.
D Join a local group for {thing}.
T Practise {thing} for twenty minutes a day.
T Order {gear}.
T Watch the tutorial on {thing} again.
Q Is {gear} worth the money at this stage?
Q How do other people get better at {thing}?
""",
}

SUBJECT_TEMPLATES: dict[str, str] = {
    "billing-service": """
F Invoices for annual plans are generated on the 1st at 06:00 UTC.
F The refund handler processes about {num} refunds a week, mostly partial.
F Finance wants every invoice PDF archived for seven years.
D Round tax amounts per line item, not per invoice.
D Move proration into the subscription ledger so both paths use one formula.
T Backfill the missing VAT numbers on EU invoices.
Q Should failed card charges retry on a fixed schedule or with backoff?
""",
    "mobile-app": """
F The iOS build takes {n} minutes on CI, twice the Android one.
F Crash-free sessions are at {pct}.{n}% this week.
D Release the mobile app every second {day} instead of whenever something is ready.
T Update the App Store screenshots for the new onboarding.
Q Is the dark mode bug on tablets the same as the one on phones?
""",
    "data-pipeline": """
F The event parser drops about {num} malformed events an hour, mostly from old clients.
F Backfills run on a separate queue so they do not starve the live ingestion.
D Partition the warehouse tables by day instead of by month.
T Write a runbook for rerunning a failed backfill.
Q Do we still need the archive exporter now that the warehouse keeps everything?
""",
    "website-redesign": """
F The new landing page loads in {n}.{n} seconds on a mid-range phone.
F The copywriter delivers the new pricing page text on {day}.
D Use system fonts instead of the custom font stack to save a request.
T Collect feedback on the navigation menu from {person}.
Q Should the blog move to the new template now or after launch?
""",
    "search-api": """
F The synonym list has {num} entries, half of them product names.
F Autocomplete answers in under {n}0 ms for most prefixes.
D Cache popular queries for five minutes at the edge.
T Benchmark the new ranking function against last month's click logs.
Q Should typo tolerance be on by default for short queries?
""",
    "ci-infrastructure": """
F The build cache hit rate is {pct}% on main and much lower on branches.
F Runners are autoscaled between {n} and {num} instances.
D Run the full test suite only on main; branches get the fast subset.
T Move the release pipeline to the new runner images.
Q Can we drop the macOS runners once the desktop build is retired?
""",
    "auth-migration": """
F {num} users still log in with the legacy password hashes.
F The SSO integration needs a new certificate every year in {month}.
D Force a password reset for accounts idle for more than two years.
T Dry-run the user import script against a copy of production.
Q How long do old session tokens stay valid after the cutover?
""",
    "analytics-dashboard": """
F The retention chart query scans {num} million rows and takes {n} seconds.
D Precompute the cohort tables nightly instead of querying live.
T Add a CSV export to the funnel view.
Q Who should be allowed to see revenue numbers on the dashboard?
""",
    "budget-tracker": """
F The bank import understands CSV from two banks; the third uses a different date format.
D Store amounts in cents as integers, never floats.
T Write category rules for the supermarket transactions.
""",
    "home-automation": """
F The hallway motion sensor battery lasts about {n} months.
D Turn the porch light on at sunset instead of at a fixed time.
T Pair the new blind controller with the Zigbee hub.
""",
    "maya": """
F Maya's favourite restaurant is the little Georgian place on Mill Road.
F Maya is working late on {day}s until the studio's launch.
D Cook together on {day}s and order in on Fridays.
T Book a table for Maya and me for our anniversary in {month}.
""",
    "dad": """
F Dad's hearing aid batteries are size 312.
D Drive up to see Dad on the first weekend of each month.
T Help Dad set up video calls on his tablet.
""",
    "grandma-ruth": """
F Grandma Ruth likes phone calls on Sunday mornings, before church.
T Write down Grandma Ruth's lemon cake recipe before it is lost.
""",
    "sam-okafor": """
F Sam Okafor takes over as tech lead for the payments team in {month}.
T Give Sam feedback on the draft of his conference talk.
""",
    "priya-shah": """
F Priya Shah holds one-to-ones every second {day} at {time}.
D Bring a written summary to each one-to-one with Priya instead of improvising.
T Send Priya the self-review before the promotion committee.
""",
    "leo": """
F Leo's band plays at the Grain Barge on the last Friday of the month.
T Return the climbing rope Leo lent me.
""",
    "nina": """
F Nina moved into a flat near the university with two other students.
T Send Nina the spare bike lights.
""",
    "kitchen-renovation": """
F The electrician needs a full day to add the new circuits.
D Go with matt tiles rather than gloss; gloss showed every splash.
T Choose the handles for the cabinet doors.
""",
    "garden": """
F The apple tree gave about {n}0 kg of fruit this autumn.
D Let part of the lawn grow into a wildflower meadow.
T Prune the hedge before the birds start nesting.
""",
    "home-office": """
F The standing desk's memory presets are 72 cm sitting and 112 cm standing.
D Keep work papers in the office and nowhere else in the flat.
T Mount the webcam above the middle monitor.
""",
    "car": """
F The car's service interval is {num}00 km or a year, whichever comes first.
D Keep the winter tyres on the spare rims to save on fitting.
T Fix the windscreen chip before it spreads.
""",
    "apartment": """
F The boiler pressure should sit between 1 and 1.5 bar.
F The building's bin collection is on {day} mornings.
T Bleed the radiators before the heating season.
""",
    "dental-care": """
F The night guard case lives in the bathroom drawer.
D Switch to the softer toothbrush heads for the gum sensitivity.
""",
    "running": """
F Long runs this month averaged {n}{n} km at an easy pace.
D Run the long run on Sunday mornings, intervals on {day}s.
T Replace the trail shoes after about 800 km.
""",
    "sleep": """
F Falling asleep takes longer after screens in bed.
D No caffeine after 2pm on weekdays.
""",
    "knee-physio": """
F The physio said the knee swelling should settle within {n} weeks.
T Do the clamshell exercise three times a week.
""",
    "nutrition": """
F Iron levels were at the low end of normal in the {month} blood test.
D Batch-cook lunches on Sundays.
""",
    "japan-trip": """
F The flights to Tokyo land at Haneda at {time} local time.
F The Kyoto guesthouse has a shared bathroom and a small garden.
D Buy the seven-day rail pass rather than single tickets.
T Download the offline maps of Tokyo and Kyoto.
""",
    "lisbon-weekend": """
F The Alfama apartment has a steep staircase and no lift.
D Take the tram 28 early in the morning before the crowds.
""",
    "camping": """
F The campsite in the Lake District only takes cash for firewood.
T Check the tent poles before packing.
""",
    "austin-wedding": """
F The wedding ceremony starts at 4pm at the ranch, dinner at 6.
D Stay two extra nights in Austin after the wedding.
""",
    "taxes": """
F The accountant wants everything by the end of {month}.
D File the return ourselves this year and ask the accountant only about capital gains.
""",
    "pension": """
F The old pension pot from the first job is worth about {price}.
Q Would consolidating the old pension pot save on fees?
""",
    "insurance": """
F The car insurance renews in {month}; the excess is {price}.
T Add the new bike to the contents cover.
""",
    "household-budget": """
F Groceries averaged {price} a month this quarter.
D Cancel one of the three streaming subscriptions.
""",
    "guitar": """
F The guitar shop setup lowered the action and fixed the buzzing on the third fret.
D Learn songs by ear first, tabs only to check.
""",
    "sourdough": """
F The starter peaks about six hours after feeding at room temperature.
D Bake on Saturdays and freeze half the loaf.
""",
    "photography": """
F The 35mm prime is the lens on the camera nine times out of ten.
D Shoot in RAW and keep the presets minimal.
""",
    "chess": """
F The online rapid rating is around {num}0 after the club tournament.
D Play one long game a week instead of lots of blitz.
""",
    "reading": """
F The library allows {n} holds at a time.
D Read one non-fiction book for every two novels.
""",
    "woodworking": """
F The workbench top is beech, finished with hard wax oil.
T Sharpen the chisel set before starting the dovetails.
""",
}

GENERAL_TEMPLATES = """
F The weekly review happens on {day} evenings.
F Prefers short, direct answers without long preambles.
F The shared calendar is the source of truth for plans with Maya.
F {person} from the old job got in touch about meeting up in {month}.
F The phone contract ends in {month}; the current plan costs {price} a month.
F Energy use was {pct}% lower this month than the same month last year.
F The recycling centre is closed on {day}s.
D Keep {day} evenings free of work messages.
D Write things down the same day, even if only a line.
D Check email twice a day instead of keeping it open.
D Say no to new commitments until the end of {month}.
T Clear out the downloads folder and the desktop.
T Renew the library card.
T Update the password manager's emergency contact.
T Reply to {person}'s message from {day}.
T Back up the phone photos to the external drive.
T Sort out the pile of post on the hall table.
Q Is it worth switching phone providers when the contract ends in {month}?
Q Should the weekly review move to {day}?
Q What happened to the spare house keys?
"""

KIND_DETAILS: dict[str, tuple[str, ...]] = {
    "software": (
        "{person} agreed in standup.",
        "Measured on staging with production-like data.",
        "The old approach cost us {n} hours of debugging last month.",
        "Blocked until the {thing2} change lands.",
        "Came up during the incident review on {day}.",
        "See the thread in the team channel from {day}.",
        "Not urgent, but it keeps coming back.",
    ),
    "person": (
        "Came up on the phone on {day}.",
        "Maya reminded me.",
        "Worth writing down; it keeps slipping my mind.",
        "They sounded tired but fine.",
    ),
    "home": (
        "The estimate was {price}.",
        "The neighbours recommended someone for this.",
        "Needs a dry {day} to do it.",
        "Photos are in the shared album.",
    ),
    "health": (
        "The GP said to keep an eye on it.",
        "Tracked in the notes app.",
        "Feels better on days with a walk at lunch.",
    ),
    "travel": (
        "Prices go up after {month}.",
        "Maya agreed.",
        "Booked with the credit card that has travel cover.",
        "Cheaper midweek.",
    ),
    "finance": (
        "Checked against the bank statements.",
        "The accountant's advice from {month}.",
        "Worth reviewing again next year.",
    ),
    "hobby": (
        "Recommended in the forum thread.",
        "Keep it fun, not a chore.",
        "About {n} sessions so far.",
    ),
    "general": ("Just a habit worth keeping.", "Came up in the weekly review."),
}

PEOPLE = ("Sam", "Priya", "Jonas", "Aisha", "Marco", "Elena", "Tom", "Yuki", "Ravi", "Hannah",
          "Felix", "Chloe", "Omar", "Ines")
EVENTS = ("the summer barbecue", "the hiking weekend", "New Year's Eve", "the concert",
          "the beach day", "the housewarming", "the street party")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
ANSWERS = ("yes, for now", "no, not this quarter", "only if it stays cheap",
           "yes, after checking with Maya", "no; it was not worth it", "partly: see the detail",
           "yes, confirmed by email")
HANDOFFS = (
    "Session on {subjects}: {facts} notes and {decisions} decisions logged. Next: {next}.",
    "Wrapped up {subjects}. Still open: {next}.",
    "Worked through {subjects}; {done} things done. Pick up next time with: {next}.",
    "Quick check-in about {subjects}, nothing blocking. Next: {next}.",
    "Went over {subjects} and wrote down what changed. First thing next time: {next}.",
)
NOTHING_NEXT = ("nothing pressing", "review the open tasks", "see what comes up")


# -- planted entries: the answers of the evaluation's queries -----------------------------------


@dataclass(frozen=True)
class Planted:
    label: str
    subject: str | None
    type: str
    age_days: float
    content: str
    detail: str | None = None
    status: str | None = None
    replaces: str | None = None  # the label of an earlier planted entry

    @property
    def id(self) -> str:
        return planted_id(self.label)


def planted_id(label: str) -> str:
    """The id of a planted entry: 12 characters of the nanoid alphabet, from its label."""
    digest = hashlib.blake2b(label.encode(), digest_size=9).digest()
    return base64.urlsafe_b64encode(digest).decode()


PLANTED: tuple[Planted, ...] = (
    # facts
    Planted("dentist-old", "dental-care", "fact", 75,
            "Dental cleaning booked with Dr. Lindqvist for March 7 at 8:00."),
    Planted("dentist", "dental-care", "fact", 61,
            "Dental cleaning moved to Friday March 14 at 9:30 with Dr. Lindqvist; the clinic is "
            "now on Elm Street.", replaces="dentist-old"),
    Planted("guest-wifi", "apartment", "fact", 300,
            "Guest Wi-Fi is called Lantern-Guest; the password is on the card taped inside the "
            "hallway cupboard."),
    Planted("tyre-pressure", "car", "fact", 420,
            "The Golf's tyres take 2.5 bar at the front and 2.3 bar at the rear, per the sticker "
            "in the driver's door frame."),
    Planted("stripe-secret", "billing-service", "fact", 230,
            "Stripe webhook signatures for the billing service are verified with the signing "
            "secret kept in Vault at billing/stripe-signing."),
    Planted("passport", "japan-trip", "fact", 150,
            "Passport expires on 2 August 2026, which covers the whole Japan stay with months to "
            "spare."),
    Planted("leo-allergy", "leo", "fact", 380,
            "Leo is allergic to shellfish, prawns and crab included; keep them off the menu when "
            "he comes over for dinner."),
    Planted("etl-schedule", "data-pipeline", "fact", 90,
            "The nightly ETL kicks off at 02:00 UTC and normally wraps up by 03:40; the "
            "warehouse load is the slowest step."),
    Planted("resting-hr", "running", "fact", 40,
            "Resting heart rate is down from 64 to 57 bpm since starting the base-building "
            "block in spring."),
    Planted("wifi-old", "apartment", "fact", 140,
            "Home Wi-Fi password is sunflower42, written on the router's sticker."),
    Planted("wifi", "apartment", "fact", 35,
            "Home Wi-Fi password changed to marigold77 after the router swap; the sticker is "
            "out of date.", replaces="wifi-old"),
    Planted("standup-old", "data-pipeline", "fact", 210,
            "The data pipeline team's standup is at 9:30 on weekdays in the small meeting room."),
    Planted("standup", "data-pipeline", "fact", 50,
            "The data pipeline team's standup moved to 10:15 on weekdays, on a video call from "
            "now on.", replaces="standup-old"),
    Planted("physio-old", "knee-physio", "fact", 30,
            "Knee physio appointment with Ines is on June 3 at 11:00."),
    Planted("physio", "knee-physio", "fact", 22,
            "Knee physio appointment with Ines moved to June 10 at 16:00.",
            replaces="physio-old"),
    # decisions
    Planted("ledger-db-old", "billing-service", "decision", 250,
            "Billing ledger database: MySQL, since the team knows it best."),
    Planted("ledger-db", "billing-service", "decision", 95,
            "Billing ledger database: switched to PostgreSQL for transactional DDL and "
            "stricter constraints.", replaces="ledger-db-old"),
    Planted("chair-old", "home-office", "decision", 200,
            "Office chair: ordering the Herman Miller Aeron in size B from the outlet shop."),
    Planted("chair", "home-office", "decision", 185,
            "Office chair: switched to a refurbished Steelcase Leap V2 from a used-furniture "
            "dealer for $420.", detail="The Aeron's mesh edge dug into my legs.",
            replaces="chair-old"),
    Planted("keycloak", "auth-migration", "decision", 330,
            "Auth migration goes with self-hosted Keycloak rather than Auth0: no per-user pricing "
            "and the data stays on our servers."),
    Planted("skip-osaka", "japan-trip", "decision", 120,
            "Drop Osaka from the Japan route and spend the two extra days in Kanazawa instead."),
    Planted("android-8", "mobile-app", "decision", 260,
            "Mobile app 4.0 drops support for Android 8 and older; those versions are under 2% "
            "of active users."),
    Planted("hydration", "sourdough", "decision", 170,
            "Sourdough goes to 75% hydration with 10% whole rye; the 80% dough was too slack to "
            "shape."),
    Planted("pension-8", "pension", "decision", 55,
            "Raise the workplace pension contribution to 8% of gross salary from January."),
    Planted("teal-palette", "website-redesign", "decision", 210,
            "Website redesign uses the teal palette from mockup two, and the homepage carousel "
            "is gone."),
    # open tasks
    Planted("leaky-tap", "apartment", "task", 12,
            "Email the landlord about the dripping bathroom tap before the end of the month.",
            status="open"),
    Planted("donation-receipts", "taxes", "task", 25,
            "Collect the charity donation receipts for the 2025 tax return.", status="open"),
    Planted("deploy-key", "ci-infrastructure", "task", 8,
            "Rotate the deploy key on the CI runners; it leaked in a screenshot posted to the "
            "vendor's forum.", status="open"),
    Planted("photo-album", "grandma-ruth", "task", 30,
            "Print a photo album for Grandma Ruth's 90th birthday party.", status="open"),
    Planted("drip-irrigation", "garden", "task", 20,
            "Order the drip irrigation kit for the raised beds before the July heatwave.",
            status="open"),
    Planted("blackbird", "guitar", "task", 45,
            "Get the fingerpicking pattern for Blackbird clean at 90 bpm.", status="open"),
    # questions
    Planted("water-damage", "insurance", "question", 100,
            "Does the home insurance policy cover water damage coming from the upstairs "
            "neighbour?"),
    Planted("cursor-pagination", "search-api", "question", 140,
            "Should the search API paginate with cursors or offsets once a query passes 10k "
            "hits?"),
    Planted("xt5-upgrade", "photography", "question", 70,
            "Is the Fujifilm X-T5 worth upgrading to from the X-T2 for low-light shooting?"),
    Planted("sink-permit", "kitchen-renovation", "question", 160,
            "Do we need building control sign-off to move the sink onto the island?"),
)
PLANTED_BY_LABEL = {p.label: p for p in PLANTED}


# -- the log ------------------------------------------------------------------------------------


@dataclass
class Corpus:
    data_dir: Path
    workspace: Path
    entries: list[dict[str, Any]]
    subjects: dict[str, dict[str, str]]
    end: datetime

    @property
    def by_id(self) -> dict[str, dict[str, Any]]:
        return {e["id"]: e for e in self.entries}


@dataclass
class _Session:
    start: datetime
    subjects: list[Subject | None]
    size: int
    planted: list[Planted] = field(default_factory=list)


@dataclass
class _Draft:
    type: str
    content: str
    subject: Subject | None
    status: str | None = None
    detail: str | None = None
    replaces: str | None = None
    planted: bool = False
    template: str | None = None  # to write a correction of a fact
    id: str = ""


class _Writer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.templates = {kind: _parse(text) for kind, text in KIND_TEMPLATES.items()}
        self.own = {slug: _parse(text) for slug, text in SUBJECT_TEMPLATES.items()}
        self.general = _parse(GENERAL_TEMPLATES)
        self.current: dict[str | None, list[_Draft]] = {}  # replaceable entries by subject
        self.used: dict[str, int] = {}

    def slots(self, subject: Subject | None) -> dict[str, str]:
        rng = self.rng
        things = list(subject.things) if subject else ["it"]
        thing = rng.choice(things)
        others = [t for t in things if t != thing] or things
        return {
            "display": subject.display if subject else "",
            "thing": thing,
            "gear": rng.choice(subject.gear or things) if subject else "it",
            "thing2": rng.choice(others),
            "person": rng.choice(PEOPLE),
            "n": str(rng.randint(2, 9)),
            "num": str(rng.choice((12, 18, 25, 40, 64, 90, 120, 150, 240, 310, 480, 750))),
            "pct": str(rng.randint(3, 45)),
            "price": rng.choice(("$", "£", "€")) + str(rng.choice(
                (35, 60, 85, 120, 180, 240, 320, 450, 600, 950, 1200, 2400))),
            "day": rng.choice(DAYS),
            "month": rng.choice(MONTHS),
            "version": f"{rng.randint(1, 5)}.{rng.randint(0, 12)}",
            "time": f"{rng.randint(7, 21)}:{rng.choice(('00', '15', '30', '45'))}",
            "code": "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6)),
            "event": rng.choice(EVENTS),
        }

    def fill(self, template: str, subject: Subject | None) -> str:
        text = template.format_map(self.slots(subject))
        return text[0].upper() + text[1:]

    def draft(self, subject: Subject | None) -> _Draft:
        rng = self.rng
        kind = rng.choices(("fact", "decision", "task", "question"), (40, 19, 29, 12))[0]
        if subject is None:
            pool = self.general
        else:
            own = self.own.get(subject.slug, {})
            pool = own if own.get(kind) and rng.random() < 0.2 else self.templates[subject.kind]
        if not pool.get(kind):
            pool = self.templates[subject.kind] if subject else self.general
        template = rng.choice(pool[kind])
        for _ in range(8):  # a sentence without slots is written down once or twice, not weekly
            if "{" in template or self.used.get(template, 0) < 2:
                break
            template = rng.choice((self.templates[subject.kind] if subject else pool)[kind])
        self.used[template] = self.used.get(template, 0) + 1
        status = None
        if kind == "task":
            status = "open" if rng.random() < 0.55 else "done"
        detail = None
        if rng.random() < DETAIL_RATE:
            details = KIND_DETAILS[subject.kind if subject else "general"]
            detail = self.fill(rng.choice(details), subject)
        return _Draft(kind, self.fill(template, subject), subject, status, detail,
                      template=template)

    def replacement(self, subject: Subject | None) -> _Draft | None:
        """A new version of an earlier current entry of ``subject``, or None."""
        candidates = self.current.get(subject.slug if subject else None, [])
        if not candidates:
            return None
        old = self.rng.choice(candidates)
        candidates.remove(old)
        new: _Draft | None = None
        if old.type == "task" and old.status == "open":
            new = _Draft("task", old.content, subject, "done", self.rng.choice(
                ("Done.", f"Finished on {self.rng.choice(DAYS)}.", "Done, took longer than "
                 "expected.")))
        elif old.type == "question":
            answer = self.rng.choice(ANSWERS)
            new = _Draft("fact", f"Answered: {old.content.rstrip('?')}: {answer}.", subject)
        elif old.type == "fact" and old.template and "{" in old.template:
            new = _Draft("fact", self.fill(old.template, subject), subject,
                         detail="Corrected: the earlier note was wrong.", template=old.template)
        elif old.type == "decision":
            new = self.draft(subject)
            new.detail = "Replaces the earlier call on this."
            if new.type != "decision":
                new = None
        if new is not None:
            new.replaces = old.id
        return new


def _parse(text: str) -> dict[str, list[str]]:
    kinds = {"F": "fact", "D": "decision", "T": "task", "Q": "question"}
    out: dict[str, list[str]] = {}
    for raw in text.strip().splitlines():
        code, _, template = raw.partition(" ")
        out.setdefault(kinds[code], []).append(template)
    return out


def _new_id(rng: random.Random) -> str:
    return "".join(rng.choice(ID_ALPHABET) for _ in range(12))


def _weighted_subject(rng: random.Random, age: float, kinds: Sequence[str] | None = None
                      ) -> Subject | None:
    pool = [s for s in SUBJECTS if s.window[0] <= age <= s.window[1]
            and (kinds is None or s.kind in kinds)]
    return rng.choices(pool, [s.weight for s in pool])[0] if pool else None


def _sessions(rng: random.Random, end: datetime) -> list[_Session]:
    sessions = []
    for _ in range(BACKGROUND_SESSIONS):
        age = rng.uniform(0.5, SPAN_DAYS)
        main = _weighted_subject(rng, age)
        subjects = [main]
        if main is not None and rng.random() < 0.35:
            other = _weighted_subject(rng, age, (main.kind,))
            if other is not None and other != main:
                subjects.append(other)
        sessions.append(_Session(_at(rng, end, age), subjects, rng.randint(5, 15)))
    for p in PLANTED:
        subject = BY_SLUG[p.subject] if p.subject else None
        sessions.append(_Session(_at(rng, end, p.age_days), [subject], rng.randint(5, 12), [p]))
    sessions.sort(key=lambda s: s.start)
    return sessions


def _at(rng: random.Random, end: datetime, age: float) -> datetime:
    day = end - timedelta(days=age)
    hour = rng.choice((8, 9, 10, 11, 13, 14, 15, 16, 17, 19, 20, 21))
    return day.replace(hour=hour, minute=rng.randint(0, 59), second=rng.randint(0, 59))


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def build_log(seed: int = SEED, end: datetime = END) -> list[dict[str, Any]]:
    """The log's entries, in order."""
    rng = random.Random(seed)
    writer = _Writer(rng)
    entries: list[dict[str, Any]] = []
    clock = end - timedelta(days=SPAN_DAYS + 1)
    for session in _sessions(rng, end):
        clock = max(clock + timedelta(minutes=20), session.start)
        name = f"s-{clock:%Y%m%d}-{rng.getrandbits(24):06x}"
        drafts: list[_Draft] = []
        for _ in range(session.size - 1 - len(session.planted)):
            subject = None if rng.random() < NO_SUBJECT_RATE else rng.choice(session.subjects)
            draft = writer.replacement(subject) if rng.random() < REPLACE_RATE else None
            drafts.append(draft or writer.draft(subject))
        for p in session.planted:
            at = rng.randint(0, len(drafts))
            drafts.insert(at, _Draft(p.type, p.content, BY_SLUG.get(p.subject or ""), p.status,
                                     p.detail, planted_id(p.replaces) if p.replaces else None,
                                     planted=True, id=p.id))
        drafts.append(_handoff(rng, session, drafts))
        for d in drafts:
            clock += timedelta(seconds=rng.randint(25, 420))
            d.id = d.id or _new_id(rng)
            entry = {"id": d.id, "timestamp": _stamp(clock), "type": d.type,
                     "content": d.content, "status": d.status, "detail": d.detail,
                     "subject": d.subject.slug if d.subject else None, "replaces": d.replaces,
                     "session": name}
            entries.append({k: v for k, v in entry.items() if v is not None})
            if not d.planted and (d.type in ("fact", "decision", "question")
                                  or d.status == "open"):
                writer.current.setdefault(d.subject.slug if d.subject else None, []).append(d)
    return entries


def _handoff(rng: random.Random, session: _Session, drafts: list[_Draft]) -> _Draft:
    background = [d for d in drafts if not d.planted]
    open_tasks = [d for d in background if d.type == "task" and d.status == "open"]
    named = [s.display for s in session.subjects if s is not None] or ["general things"]
    nxt = open_tasks[-1].content.rstrip(".") if open_tasks else rng.choice(NOTHING_NEXT)
    text = rng.choice(HANDOFFS).format(
        subjects=" and ".join(dict.fromkeys(named)),
        facts=sum(d.type == "fact" for d in drafts),
        decisions=sum(d.type == "decision" for d in drafts),
        done=sum(d.status == "done" for d in drafts), next=nxt[0].lower() + nxt[1:])
    questions = [d.content for d in background if d.type == "question"]
    detail = f"Open question: {questions[0]}" if questions and rng.random() < 0.5 else None
    return _Draft("handoff", text, session.subjects[0], detail=detail)


def subjects_json() -> dict[str, dict[str, str]]:
    return {s.slug: {"display": s.display, "type": SUBJECT_TYPES[s.kind]} for s in SUBJECTS}


# -- the workspace -------------------------------------------------------------------------------

MEMORY_MD = """\
# MEMORY.md

Long-term notes for the assistant. The sections below are written by hand; keep them short.

## About me
- Alex Morgan, backend engineer at a payments start-up; works from home three days a week.
- Lives in Bristol with Maya (partner, product designer). Sister Nina studies in Rotterdam.
- Time zone: Europe/London. Usually online 8:30-17:30, offline on Friday afternoons.

## Goals for 2026
- Run a half marathon in under 1:50 before October.
- Read 24 books, at least eight of them non-fiction.
- Ship the budget tracker to the app store, even if only friends use it.
- Get the knee strong enough to run downhill without pain.
- Save an emergency fund worth six months of expenses.
- Learn enough Japanese to order food and ask for directions.

## Preferences
- Coffee: flat white with oat milk, no sugar; decaf after 2pm.
- Answers: short and direct, with the command or the link first and the reasoning after.
- Code review: prefers small pull requests, comments as questions rather than orders.
- Meetings: none before 10:00; keep Wednesdays meeting-free when possible.
- Writing: British spelling, no exclamation marks in work emails.
- Food: mostly vegetarian at home; fish is fine; no coriander.
- Travel: window seat, carry-on only, trains over planes under five hours.
- Reminders: the evening before, never on the day itself.
- Music while working: instrumental only, nothing with lyrics.
- Gifts: experiences over things; ask before buying anything big.

## People
- Maya: partner. Birthday 12 May. Allergic to cats.
- Dad: lives in Shrewsbury; calls on Sunday evenings.
- Grandma Ruth: lives near Dad; turns 90 next spring.
- Sam Okafor: teammate, on-call partner. Priya Shah: manager.
- Leo: old university friend, plays bass in a band.

## Working agreements
- Log decisions with the reason, not just the outcome.
- Anything with money or health: write it down the same day.
- Open tasks older than a month get reviewed on the first Monday of the month.
- Never store passwords or keys in notes; say where they live instead.
"""

NOTES: dict[str, str] = {
    "memory/meetings/2025-10-07-billing-roadmap.md": """\
# Billing roadmap review, 7 October 2025

Attendees: Priya Shah, Sam Okafor, Elena (finance), Jonas (support), me.

## Context
Involuntary churn went up again in Q3: about 4% of monthly subscriptions end because a card
charge fails and nobody follows up. Finance wants it under 2% by the end of Q1.
Support gets around thirty tickets a week from customers who did not notice their plan lapsed.

## Discussion
- Elena showed the numbers per region: the EU is worse, mostly expired cards.
- Jonas asked for a clear banner in the app when a charge fails, not only an email.
- We agreed that the retry schedule stays as it is until we have data from the new emails.
- Sam pointed out that the ledger cannot tell a paused plan from a lapsed one; that needs a
  schema change before any of this ships.
- Priya wants one owner per item and a date, no shared ownership.

## Actions
- Sam drafts the dunning email sequence (3 reminders over 10 days) by Oct 21.
- Me: add the paused/lapsed state to the subscription ledger, design note first.
- Jonas: list the ten most common support macros about failed charges.
- Elena: monthly report of involuntary churn by region, first one in November.
- Priya: check with legal whether the reminder emails need an unsubscribe link.

## Next review
4 November, same room. Bring the first churn report and the email drafts.
""",
    "memory/meetings/2025-06-18-team-offsite.md": """\
# Team offsite, 18 June 2025

Location: the old brewery in Bedminster. Whole team, plus two people from product.

## Morning: retro on the first half
- What went well: the search API launch, fewer pages at night, onboarding of two new people.
- What did not: too many projects at once; the auth migration slipped twice.
- We spend too much time in status meetings. Proposal: written updates on Mondays instead.

## Afternoon: priorities for the second half
1. Finish the auth migration before the end of September.
2. Billing: reduce failed payments (see the October review).
3. Mobile app 4.0 with the new onboarding.
4. Analytics dashboard for the sales team, if time allows.

## Team agreements
- Written status updates every Monday by noon, in the team channel.
- Every project has one directly responsible person.
- No deploys after 3pm on Fridays.
- On-call handovers happen on Tuesday mornings, not Mondays.

## Social
Dinner at the Lebanese place on North Street; vegetarian options were good.
Next offsite: December, somewhere with a view.
""",
    "memory/trips/japan-2026.md": """\
# Japan, spring 2026

Two weeks, Maya and me. Fly into Haneda, out of Haneda. Rail pass for the middle week.

## Before we go
- Money: most places take cards now, but keep some cash for temples and small restaurants.
- Phrases: thank you, excuse me, the bill please, where is the station.
- Luggage forwarding between Tokyo and Kyoto so we can travel light on the train.

## Itinerary
- Days 1-4, Tokyo: Shinjuku hotel. Meiji shrine, teamLab, Yanaka old town, a day in Kamakura.
- Day 5, Hakone: ropeway and the open-air sculpture museum, one night in a ryokan with an onsen.
- Days 6-8, Kyoto: the guesthouse near Gion. Fushimi Inari at dawn, Arashiyama, a day in Nara.
- Days 9-10, Kanazawa: stroll Kenroku-en at opening time, then the contemporary art museum;
  lunch at Omicho fish market.
- Days 11-13, Tokyo again: shopping, the Ghibli museum if tickets are available, a last
  izakaya dinner with Yuki.
- Day 14: fly home in the evening.

## Food to try
- Okonomiyaki, proper ramen, kaiseki once (the ryokan dinner counts), a depachika food hall.
- Matcha everything in Kyoto.

## Still to sort out
- Which temples need advance booking.
- A day pack that fits under the train seat.
""",
    "memory/reading-list.md": """\
# Reading list

Goal for 2026: 24 books, at least eight non-fiction. Library first, then second-hand.

## To read
- The Overstory, Richard Powers: Leo's recommendation, the one about trees and the people
  who protect them.
- Project Hail Mary, Andy Weir: for the train journeys.
- Thinking in Systems, Donella Meadows: short, for work.
- The Dispossessed, Ursula K. Le Guin: book club pick for January.
- Four Thousand Weeks, Oliver Burkeman.
- The Mountain in the Sea, Ray Nayler.

## Reading now
- Designing Data-Intensive Applications, second edition: two chapters left.
- A Psalm for the Wild-Built, Becky Chambers (audiobook, on runs).

## Finished this year
- Piranesi, Susanna Clarke: strange and lovely.
- The Pragmatic Programmer, 20th anniversary edition.
- Klara and the Sun, Kazuo Ishiguro.
- Educated, Tara Westover.
- Sea of Tranquility, Emily St. John Mandel.
- How to Take Smart Notes, Sönke Ahrens.

## Maybe
- War and Peace, in the Briggs translation, one chapter a day.
""",
    "memory/recipes/weeknight-dinners.md": """\
# Weeknight dinners

Things that take under 40 minutes and that Maya and I both like. Mostly vegetarian.

## Regulars
- Dal with spinach: red lentils, tinned tomatoes, cumin, garam masala; rice on the side.
- Pasta with roasted cherry tomatoes and ricotta; basil if there is any.
- Halloumi traybake: peppers, red onion, chickpeas, smoked paprika, 30 minutes at 200°C.
- Egg fried rice with whatever vegetables are left, soy and sesame oil.
- Black bean tacos with quick-pickled onions and lime.

## Fish night
Miso salmon: brush with miso, honey and rice vinegar, then 12 minutes at 220°C.
Serve with steamed greens and sticky rice; spring onions on top.

## Soups for the freezer
- Roasted squash and ginger.
- Minestrone with whatever beans are in the cupboard.
- Leek and potato, the easiest one.

## Notes
- Double the dal and freeze half; it keeps three months.
- The big roasting tin is too big for the small oven shelf: use the blue one.
""",
    "memory/home/kitchen-quotes.md": """\
# Kitchen quotes

What we asked for: new cabinet fronts and worktops, keep the carcasses, move the sink to the
island if building control allows, new extractor, under-cupboard lights.

## Quotes
- Hartley Joinery: £14,200 all-in including fitting, six-week lead time, solid oak fronts.
- Kitchen Depot: £9,800 for the units, fitting quoted separately at about £2,500;
  eight to ten weeks; foil fronts, which we did not like in the showroom.
- Brook & Son: £16,900, painted fronts, can start in January; they also do the plastering.

## What the neighbours said
- Number 14 used Brook & Son: tidy, on time, slightly over budget.
- Nobody we know has used Hartley; reviews online are good.

## Open points
- Whether the electrics need upgrading for the induction hob.
- Worktop material: oak, quartz, or laminate for the budget.
""",
    "memory/work/oncall-runbook.md": """\
# On-call runbook (billing)

First stop for pages from the billing service. Keep it current; date every change.

## Before anything else
- Acknowledge the page within five minutes so it does not escalate.
- Check the status page of the payment provider; half of our incidents are theirs.
- Post in the incident channel what you are looking at, even if it is nothing yet.

## Known problems
- Invoices stuck in "pending": usually the PDF renderer; restart it, they will be picked up.
- Duplicate charge reports: check the idempotency keys in the ledger before refunding anything.
- If the billing queue backs up past 5,000 messages, scale the workers:
  `kubectl scale deploy/billing-worker --replicas=6`.
- Slow dashboard for support: the read replica lags; it catches up on its own within minutes.

## Escalation
- Sam Okafor is the secondary; Priya Shah after that.
- Anything about money leaving customer accounts: page finance on-call as well.

## After the incident
- Write the timeline the same day.
- Add anything new to this page.
""",
    "memory/people/gift-ideas.md": """\
# Gift ideas

Write them down when they come up; nobody remembers in December.

- Maya: the ceramic pour-over set from the Saturday market (she picked it up twice).
- Dad: a proper tide clock for the boat, or a day out at the motor museum.
- Nina: a warm winter coat for Rotterdam; she keeps saying hers is too thin.
- Leo: tickets to see a jazz trio at the Fleece.
- Grandma Ruth: large-print crossword books, and an afternoon together.
- Sam (leaving do, if it happens): a good notebook and a fountain pen.

## Given already
- Maya, anniversary: weekend in the Brecon Beacons.
- Dad, birthday: the fishing vest.
""",
    "memory/health/physio-plan.md": """\
# Knee physio plan

From the sessions with the physio at the sports clinic. Left knee, patellofemoral pain.

## Weeks 1-2
- Clamshells with the band: 3 sets of 15, each side.
- Straight-leg raises: 3 sets of 10.
- Wall sits: 3 times 30 seconds.

## Weeks 3-4
- Step-downs from a 20 cm box, 3 sets of 12, slow on the way down.
- Bridges on one leg: 3 sets of 8.

## Weeks 5-8
- Split squats, then walking lunges.
- Easy running again: 10 minutes, every other day, flat routes only.

## Rules
- Pain up to 3 out of 10 during exercise is fine; it should settle by the next morning.
- Ice for ten minutes after runs if it feels warm.
""",
    "memory/finances/2026-budget.md": """\
# Budget for 2026

Net income per month after tax and pension, both of us: about £5,900.

## Fixed costs per month
- Rent: £1,650.
- Council tax: £190.
- Energy: £140 on the fixed tariff until March.
- Broadband and phones: £78.
- Insurance (contents, car, travel): about £95.

## Variable
- Groceries: aim for £520.
- Eating out and takeaways: cap at £200.
- Transport: £120 including train tickets.

## Savings
- Emergency fund: £400 a month until it reaches six months of expenses.
- Japan trip pot: £300 a month until April.
- Kitchen: whatever is left at the end of each month.

## Rules
- Anything over £250 that is not in the plan: talk about it first.
- Review the budget on the first Sunday of each quarter.
""",
    "memory/2025-11-02.md": """\
# 2 November 2025

- Long run in the morning, 16 km, knee fine.
- Afternoon at the allotment with Dad; the shed roof needs felt before winter.
- Started the new Le Guin for book club.
- Maya's studio has a launch on Thursday; she will be late all week.
- Idea: a small script that exports the budget tracker data to the accountant's format.
""",
}


def write_workspace(workspace: Path) -> None:
    (workspace / "memory").mkdir(parents=True, exist_ok=True)
    (workspace / "MEMORY.md").write_text(MEMORY_MD)
    for relative, text in NOTES.items():
        path = workspace / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


# -- everything --------------------------------------------------------------------------------


def generate(out: Path, *, seed: int = SEED, end: datetime = END) -> Corpus:
    """Write ``out/data`` (log.jsonl, subjects.json) and ``out/workspace``."""
    data, workspace = out / "data", out / "workspace"
    data.mkdir(parents=True, exist_ok=True)
    entries = build_log(seed, end)
    with (data / "log.jsonl").open("wb") as f:
        f.writelines(orjson.dumps(e) + b"\n" for e in entries)
    subjects = subjects_json()
    (data / "subjects.json").write_bytes(orjson.dumps(subjects, option=orjson.OPT_INDENT_2))
    write_workspace(workspace)
    return Corpus(data, workspace, entries, subjects, end)


def _date(value: str) -> datetime:
    return datetime.fromisoformat(value).replace(hour=18, tzinfo=UTC)


def main(argv: Sequence[str] | None = None, echo: Callable[[str], None] = print) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--end", type=_date, default=END, help="date of the last session")
    args = parser.parse_args(argv)
    corpus = generate(args.out, seed=args.seed, end=args.end)
    types: dict[str, int] = {}
    for e in corpus.entries:
        types[e["type"]] = types.get(e["type"], 0) + 1
    replaced = sum("replaces" in e for e in corpus.entries)
    echo(f"{len(corpus.entries)} entries {types}, {replaced} replacements, "
         f"{len({e['session'] for e in corpus.entries})} sessions, {len(NOTES) + 1} memory files")


if __name__ == "__main__":
    main()
