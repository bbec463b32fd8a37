"""`usage_counts`: the editor's usage report is used only when it can be trusted."""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

import pytest

from bridge.core.backend import DataPart, TextPart
from bridge.core.editor_usage import usage_counts
from bridge.responses.events import ResponseEventBuilder
from bridge.responses.request import parse_create_request
from bridge.responses.response_object import new_response, usage_object


def encoded(report: Any) -> str:
    return base64.b64encode(json.dumps(report).encode()).decode()


def test_a_full_report_is_used() -> None:
    report = {
        "prompt_tokens": 120,
        "completion_tokens": 30,
        "prompt_tokens_details": {"cached_tokens": 100},
        "completion_tokens_details": {"reasoning_tokens": 12},
    }
    counts = usage_counts(encoded(report))
    assert counts is not None
    assert usage_object(*counts) == usage_object(120, 30, 12, 100)


def test_zero_prompt_tokens_are_a_count() -> None:
    counts = usage_counts(encoded({"prompt_tokens": 0}))
    assert counts is not None
    assert usage_object(*counts) == usage_object(0, 0)


@pytest.mark.parametrize(
    "report",
    [
        {"completion_tokens": 5},
        {"prompt_tokens": -1, "completion_tokens": 5},
        {"prompt_tokens": 10, "completion_tokens": -5},
        {"prompt_tokens": 10, "completion_tokens_details": {"reasoning_tokens": -1}},
        {"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": -3}},
        {"prompt_tokens": 10.5},
        {"prompt_tokens": True},
    ],
    ids=[
        "no-prompt-tokens",
        "negative-prompt",
        "negative-completion",
        "negative-reasoning",
        "negative-cached",
        "fraction",
        "boolean",
    ],
)
def test_untrustworthy_reports_are_ignored(
    report: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="bridge.core.editor_usage")
    assert usage_counts(encoded(report)) is None
    assert "usage part" in caplog.text


def test_the_builder_leaves_an_ignored_report_to_counting() -> None:
    """`usage` stays None, so the responder counts with the editor's tokenizer."""
    parsed = parse_create_request({"model": "sim-echo", "input": "hi"})
    builder = ResponseEventBuilder(new_response(parsed, "resp_AM-1-x", [], "auto"), {}, False)
    builder.start()
    part = DataPart(mimeType="usage", data=encoded({"completion_tokens": 5}))
    builder.add([TextPart(value="hi"), part])
    assert builder.usage is None


def test_cache_writes_are_read_and_billed_apart_in_anthropic_usage() -> None:
    """Copilot's Messages path reports what the prompt wrote to Anthropic's cache beside what
    it read; Anthropic's usage gives both apart from the plain input."""
    from bridge.anthropic.events import usage_fields
    from bridge.core.editor_usage import usage_counts

    raw = {
        "prompt_tokens": 5000,
        "completion_tokens": 20,
        "prompt_tokens_details": {"cached_tokens": 1000, "cache_creation_input_tokens": 3000},
    }
    counts = usage_counts(base64.b64encode(json.dumps(raw).encode()).decode())
    assert counts is not None and counts.cache_write_tokens == 3000
    assert usage_fields(counts) == {
        "input_tokens": 1000,
        "output_tokens": 20,
        "cache_creation_input_tokens": 3000,
        "cache_read_input_tokens": 1000,
    }
