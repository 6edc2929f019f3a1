"""``hook.*``: what the host tells the sidecar as conversations happen.

``hook.sessionEnd`` and ``hook.beforeReset`` only spool (in a worker thread, under the data lock)
and wake the extraction loop: they answer in milliseconds and never wait for the model (OpenClaw
gives all session_end handlers two seconds in total at shutdown). ``hook.gatewayStart`` is the
sweep. ``hook.beforePromptBuild`` runs before every agent turn: it stays on the event loop and
answers from the cached handoff.

Each hook acts on the memory of the agent it names (``agentId`` or the session key's agent;
none: ``main``). The host's hooks may name an agent the sidecar has not seen yet: its memory is
created. A hook that carries ``workspaceDir`` also tells where that agent's workspace is.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict
from functools import partial

import trio

from zettelclaw.agent_ids import MAIN, AgentIdError
from zettelclaw.agents.pool import Agents
from zettelclaw.extraction.intake import Accepted, HookCall
from zettelclaw.extraction.sweep import HostSession
from zettelclaw.methods import turn
from zettelclaw.methods.agents import register_workspace
from zettelclaw.methods.edge import from_domain, heard
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import (
    BeforePromptBuildParams,
    GatewayStartParams,
    HookTranscriptParams,
    TurnFactsParams,
)
from zettelclaw.protocol.results import (
    FactsNoted,
    Intake,
    PromptContext,
    Sweep,
    SweepError,
    SweepSkip,
)

logger = logging.getLogger(__name__)


async def transcript(agents: Agents, trigger: str, params: HookTranscriptParams) -> Intake:
    """``hook.sessionEnd`` and ``hook.beforeReset`` (``trigger``)."""
    agent = params.agent()
    await register_workspace(agents, agent, params.workspace_dir)
    call = HookCall(trigger=trigger, session_id=params.session_id,
                    session_key=params.session_key, agent_id=agent,
                    reason=params.reason, messages=params.messages,
                    transcript_path=params.transcript_path,
                    read_at=params.read_at_ms(), channel=params.channel,
                    sender_id=params.sender_id)
    async with agents.lease(agent, create=True) as app:  # the host's agent: created
        result = intake_result(await trio.to_thread.run_sync(app.extraction.intake.accept, call))
        if result.job_id is not None:
            app.wake()
            # one line per conversation handed over: what a missing extraction is
            # traced back to (the job's own line follows when its entries are in)
            logger.info("agent %s: %s of session %s: %d new message(s), job %s", agent,
                        trigger, params.session_id, result.messages, result.job_id)
    return result


def intake_result(accepted: Accepted) -> Intake:
    """The wire form: ``accepted`` always true (the hook was heard), the rest when known."""
    return Intake(accepted=True, **{k: v for k, v in asdict(accepted).items() if v is not None})


async def gateway_start(agents: Agents, params: GatewayStartParams) -> Sweep:
    by_agent: dict[str, list[HostSession]] = {}
    unnamed: list[SweepSkip] = []
    for session in params.sessions:
        try:
            agent = session.agent()
        except AgentIdError as exc:  # that one session is skipped, named; the rest go on
            unnamed.append(SweepSkip(session_id=session.session_id, reason=str(exc)))
            continue
        by_agent.setdefault(agent, []).append(HostSession(
            session_id=session.session_id, session_key=session.session_key,
            agent_id=session.agent_id, updated_at=session.updated_at_ms()))
    if not by_agent:
        by_agent[MAIN] = []  # still retry main's failed jobs
    merged = Sweep(sessions=[], skipped=unnamed, retried=[], errors=[])
    for agent, sessions in sorted(by_agent.items()):
        try:
            async with agents.lease(agent, create=True) as app:
                result = from_domain(Sweep,
                    await trio.to_thread.run_sync(app.extraction.sweep, sessions))
                if result.retried:
                    app.wake()
        except Exception as exc:
            # One agent's memory that cannot open (its directory unwritable, a full disk)
            # must not keep the others' missed conversations from being swept: the host
            # sends what it got, and sweeps again later for this one (protocol.md).
            logger.exception("agent %s: sweep failed", agent)
            merged.errors.append(SweepError(agent_id=agent,
                                            message=f"{type(exc).__name__}: {exc}"))
            continue
        # `retried`: failed jobs made due once more, not model calls made; with no model
        # to ask now they wait for one (a host's offer or a key), and the line says so
        choice = app.extraction.router.choose() if result.retried else None
        waits = (f" (no model now, they wait for one: {choice.reason})"
                 if choice is not None and choice.route is None else "")
        logger.info("agent %s: sweep: %d session(s) listed, %d to send, %d skipped, %d "
                    "failed job(s) due for another try%s", agent, len(sessions),
                    len(result.sessions), len(result.skipped), len(result.retried), waits)
        merged.sessions.extend(s.model_copy(update={"agent_id": agent}) for s in result.sessions)
        merged.skipped.extend(result.skipped)
        merged.retried.extend(result.retried)
    return merged


async def before_prompt_build(agents: Agents, params: BeforePromptBuildParams) -> PromptContext:
    params = heard(agents, params)
    agent = params.agent()
    await register_workspace(agents, agent, params.workspace_dir)
    async with agents.lease(agent, create=params.workspace_dir is not None) as app:
        await app.syncer.fresh_for_hook()  # never waits for a catch-up (index/syncer.py)
        return PromptContext(prepend_context=turn.prepend(app, params))


async def turn_facts(agents: Agents, params: TurnFactsParams) -> FactsNoted:
    """Note the host's facts of a turn for the session's calls that come without them (the
    prompt hook has neither the owner nor the group bit); what they mean is decided when a
    call uses them (``AudienceParams.restriction``)."""
    agents.turn_facts.note(params.session_key, time.monotonic(), is_group=params.is_group,
                           chat_type=params.chat_type, sender_is_owner=params.sender_is_owner,
                           session_id=params.session_id)
    return FactsNoted(noted=True)


def methods(agents: Agents) -> dict[str, Method]:
    return {
        "hook.sessionEnd": Method(HookTranscriptParams, partial(transcript, agents, "sessionEnd")),
        "hook.beforeReset": Method(HookTranscriptParams,
                                   partial(transcript, agents, "beforeReset")),
        "hook.gatewayStart": Method(GatewayStartParams, partial(gateway_start, agents)),
        "hook.turnFacts": Method(TurnFactsParams, partial(turn_facts, agents)),
        "hook.beforePromptBuild": Method(BeforePromptBuildParams,
                                         partial(before_prompt_build, agents)),
    }
