"""Derived indexes under a running sidecar: the term index deleted, or a file,
a link or a directory where it or its lock should be. At caac987, deleting ``HOME/terms/`` made
every search and rebuild answer -32603 until a restart; a file at ``terms/`` or a directory at
``terms.lock`` stopped the sidecar at start; a link at ``terms/`` was followed out of HOME."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.conftest import entry
from tests.direct import open_app
from zettelclaw.client import AsyncClient
from zettelclaw.errors import DataDirError, IndexNotReadyError
from zettelclaw.home import Home
from zettelclaw.index.terms import TermIndex
from zettelclaw.methods.memory import request_of
from zettelclaw.protocol.params import SearchParams
from zettelclaw.serve import Ready, ServerConfig, serve


async def search_count(client: AsyncClient, query: str = "xylophones") -> int:
    return len((await client.call("memory.search", {"query": query}))["results"])


@pytest.fixture
def three(write_log: Callable[..., list[dict[str, Any]]]) -> None:
    write_log(*(entry(content=f"fact {i} about xylophones") for i in range(3)))


@pytest.mark.usefixtures("three")
async def test_a_term_index_deleted_under_the_sidecar_is_made_again(
        server: Ready, home: Home) -> None:
    async with await AsyncClient.connect(server.socket) as client:
        assert await search_count(client) == 3
        shutil.rmtree(home.terms)
        assert await search_count(client) == 3  # caac987: -32603, until a restart
        assert home.terms.is_dir()
        shutil.rmtree(home.terms)
        rebuilt = await client.call("index.rebuild")  # caac987: -32603 too
        assert rebuilt["entries"] == 3
        assert await search_count(client) == 3


@pytest.mark.usefixtures("three")
async def test_a_link_put_at_terms_while_serving_is_not_followed(
        server: Ready, home: Home, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    async with await AsyncClient.connect(server.socket) as client:
        assert await search_count(client) == 3
        shutil.rmtree(home.terms)
        home.terms.symlink_to(outside)
        assert await search_count(client) == 3
    assert not home.terms.is_symlink()
    assert list(outside.iterdir()) == []  # nothing written outside HOME


@pytest.mark.parametrize("what", ["file", "link", "lock-dir"])
async def test_a_file_or_link_where_the_term_index_goes_is_replaced_at_start(
        server_config: ServerConfig, home: Home, tmp_path: Path, what: str,
        write_log: Callable[..., list[dict[str, Any]]]) -> None:
    write_log(*(entry(content=f"fact {i} about xylophones") for i in range(3)))
    outside = tmp_path / "outside"
    outside.mkdir()
    if what == "file":
        home.terms.write_text("not an index")
    elif what == "link":
        home.terms.symlink_to(outside)
    else:
        (home.root / "terms.lock").mkdir()
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, server_config)
        async with await AsyncClient.connect(ready.socket) as client:
            assert await search_count(client) == 3
        nursery.cancel_scope.cancel()
    assert home.terms.is_dir()
    assert not home.terms.is_symlink()
    assert list(outside.iterdir()) == []
    assert (home.root / "terms.lock").is_file()


def test_a_lock_path_holding_something_is_refused_by_name(home: Home) -> None:
    home.ensure()
    (home.root / "terms.lock").mkdir()
    (home.root / "terms.lock" / "keep").write_text("someone's")
    with pytest.raises(DataDirError, match=r"terms\.lock is not a file"):
        TermIndex(home.terms)
    assert (home.root / "terms.lock" / "keep").exists()


def test_intact_is_two_lstats_and_sees_a_directory_swapped(home: Home) -> None:
    home.ensure()
    terms = TermIndex(home.terms)
    assert terms.intact()
    os.rename(home.terms, home.root / "old-terms")
    home.terms.mkdir()
    assert not terms.intact()
    assert terms.heal()
    assert terms.intact()


def test_a_term_index_removed_between_the_check_and_the_search_is_a_retryable_error(
        home: Home, workspace: Path, write_log: Callable[..., list[dict[str, Any]]]) -> None:
    write_log(*(entry(content=f"fact {i} about xylophones") for i in range(3)))
    app = open_app(home, workspace)
    try:
        app.freshness.sync()
        request = request_of(SearchParams.model_validate({"query": "xylophones"}))
        assert len(app.searcher.search(request).hits) == 3
        shutil.rmtree(home.terms)  # after the freshness check, before the search
        with pytest.raises(IndexNotReadyError, match="being made again"):
            app.searcher.search(request)
        with pytest.raises(IndexNotReadyError):
            app.searcher.search_now(request)
        app.freshness.sync()  # the next search's check makes it again
        assert len(app.searcher.search(request).hits) == 3
    finally:
        app.close()
