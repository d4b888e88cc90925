"""LangChain's ChatOpenAI against Mnemo, changing only base_url: ``with_structured_output``
(json_schema, with and without strict; function calling) and ``bind_tools``, invoked and
streamed. Nothing here is special-cased on the server: these are the requests LangChain makes."""

from __future__ import annotations

from typing import Literal

import pydantic
import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_openai import ChatOpenAI


class Pet(pydantic.BaseModel):
    """A pet."""

    kind: Literal["cat", "dog", "ferret"]
    legs: int = pydantic.Field(ge=0, le=8)


@pytest.fixture(scope="module")
def llm(live, model_id):
    return ChatOpenAI(base_url=live.url + "/v1", api_key="unused", model=model_id,
                      temperature=0, max_tokens=64, max_retries=0, timeout=60)


@pytest.mark.parametrize("method, strict", [("json_schema", True), ("json_schema", None),
                                            ("function_calling", True),
                                            ("function_calling", None)])
def test_with_structured_output_returns_the_model(llm, method, strict):
    chain = llm.with_structured_output(Pet, method=method, strict=strict)
    pet = chain.invoke("Describe a pet.")
    assert isinstance(pet, Pet)
    streamed = list(chain.stream("Describe a pet."))
    assert streamed and streamed[-1] == pet


def test_with_structured_output_from_a_json_schema_dict(llm):
    schema = {"title": "colour", "description": "A colour", "type": "object",
              "properties": {"name": {"enum": ["red", "green", "blue"]}}, "required": ["name"]}
    out = llm.with_structured_output(schema, method="json_schema", strict=True).invoke("A colour?")
    assert out["name"] in ("red", "green", "blue")


def test_bind_tools_round_trip(llm):
    @pydantic.validate_call
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    class Add(pydantic.BaseModel):
        """Add two integers."""

        a: int = pydantic.Field(ge=-99, le=99)
        b: int = pydantic.Field(ge=-99, le=99)

    bound = llm.bind_tools([Add], tool_choice="Add")
    question = HumanMessage("What is 2 plus 3?")
    reply = bound.invoke([question])
    assert [c["name"] for c in reply.tool_calls] == ["Add"]
    call = reply.tool_calls[0]
    result = ToolMessage(str(add(**call["args"])), tool_call_id=call["id"])
    answer = llm.bind_tools([Add]).invoke([question, reply, result])
    assert answer.response_metadata["finish_reason"] in ("stop", "length", "tool_calls")
    chunks = list(bound.stream([question]))
    merged = chunks[0]
    for c in chunks[1:]:
        merged += c
    assert [c["name"] for c in merged.tool_calls] == ["Add"]
    assert merged.tool_calls[0]["args"] == call["args"]
