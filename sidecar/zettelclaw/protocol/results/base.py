"""The base of every result model: camelCase on the wire, unset fields left out; and
``Wire``, a result's wire form built without the model where the model costs too much."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class Result(BaseModel):
    # a model's validator is built on its first use: a CLI command builds its method's only
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True,
                              extra="forbid", defer_build=True)

    def wire(self) -> dict[str, Any]:
        """The JSON object sent: camelCase, unset optional fields left out."""
        return self.model_dump(by_alias=True, exclude_unset=True)


R = TypeVar("R", bound=Result)


@dataclass(frozen=True, slots=True)
class Wire(Generic[R]):
    """A result's wire form, built directly where going through the model costs too much (a
    quick search: bench/README.md). It stands for the model ``model``, which stays the
    contract; tests/protocol/test_results.py holds the two equal over generated answers."""

    model: type[R]
    wire: dict[str, Any]
