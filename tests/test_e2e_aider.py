"""The real Aider changes a file through the bridge's Chat Completions dialect, and Aider's
captured requests are answered by a real `maestro-bridge serve`.

Aider runs with its defaults (streaming, the edit format it picks for the model's name, auto
commits) in a fresh git repository, against `serve --script FILE --default-model sim-echo`.
One rule answers the edit request with an edit in that format, another the commit-message
request (the only one that holds `# Diffs:`, so it comes first: that request quotes the
user's prompt too). Aider applies the edit and commits it, so the file on disk and the git log
say whether both answers went through.

Which text a rule sees is the last editor message: for the `diff` format that is Aider's
SEARCH/REPLACE rules (a `system` message after the user's, which the bridge passes on as a
labelled user message), for the `whole` format the user's prompt with the rules appended.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aider_cli import AiderRun, aider_or_skip, run_aider
from aider_scenario import (
    AFTER,
    COMMIT_MESSAGE,
    DIFF_MARKER,
    DIFF_RULES_MARKER,
    FILE_NAME,
    FIRST_COMMIT,
    GPT_41,
    PROMPT,
    SIM_ECHO,
    AiderModel,
    commit_subjects,
    committed_file,
    git,
    make_repository,
)
from anthropic_http import post
from conftest import StartServer
from record_aider import fixture_path

REPLAY_TEXT = "Replayed through the bridge."
# Headers of the capture that belong to that connection, not to the request.
CONNECTION_HEADERS = {"host", "content-length", "connection", "accept-encoding", "authorization"}


def text_rule(match: str, text: str, times: int | None = None) -> dict[str, Any]:
    rule: dict[str, Any] = {"match": match, "reply": [{"type": "text", "text": text}]}
    if times is not None:
        rule["times"] = times
    return rule


def edit_rules(model: AiderModel) -> list[dict[str, Any]]:
    """The commit-message rule first, then the edit (once: a second ask gets no rule)."""
    edit_match = DIFF_RULES_MARKER if model.edit_format == "diff" else "fix the typo"
    return [text_rule(DIFF_MARKER, COMMIT_MESSAGE), text_rule(edit_match, model.edit, times=1)]


def run_edit(start: StartServer, model: AiderModel, root: Path) -> tuple[AiderRun, Path, Path]:
    aider = aider_or_skip()
    workdir, home = root / "work", root / "home"
    target = make_repository(workdir, home)
    server = start("--default-model", "sim-echo", script={"rules": edit_rules(model)})
    run = run_aider(
        aider,
        server.base_url,
        PROMPT,
        cwd=workdir,
        home=home,
        model=model.name,
        known_model=model.known,
        files=(FILE_NAME,),
        timeout=90,
    )
    assert target.read_text(encoding="utf-8") == AFTER, run.report
    return run, workdir, home


@pytest.mark.parametrize("model", [GPT_41, SIM_ECHO], ids=lambda model: model.edit_format)
def test_aider_edits_the_file_and_commits_it(
    bridge_server_factory: StartServer, tmp_path: Path, model: AiderModel
) -> None:
    run, workdir, home = run_edit(bridge_server_factory, model, tmp_path)
    assert run.returncode == 0, run.report
    assert f"with {model.edit_format} edit format" in run.stdout, run.report
    assert f"Applied edit to {FILE_NAME}" in run.stdout, run.report
    assert commit_subjects(workdir, home) == [COMMIT_MESSAGE, FIRST_COMMIT], run.report
    assert committed_file(workdir, home) == AFTER
    # Aider's commit holds the edit and nothing else.
    changed = git(workdir, home, "show", "--name-only", "--format=", "HEAD").split()
    assert changed == [FILE_NAME]


def replay_headers(capture: dict[str, Any]) -> dict[str, str]:
    headers: dict[str, str] = capture["headers"]
    return {name: value for name, value in headers.items() if name not in CONNECTION_HEADERS}


def sse_data(text: str) -> list[str]:
    """The `data:` payloads of an SSE body, in order (comments and blank lines left out)."""
    return [line[len("data: ") :] for line in text.splitlines() if line.startswith("data: ")]


def test_the_captured_edit_request_streams_a_valid_answer(
    bridge_server_factory: StartServer,
) -> None:
    capture = json.loads(fixture_path(1).read_text(encoding="utf-8"))
    server = bridge_server_factory(
        "--default-model", "sim-echo", script={"rules": [text_rule(".", REPLAY_TEXT)]}
    )
    reply = post(
        server.base_url + "/chat/completions", capture["body"], headers=replay_headers(capture)
    )
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/event-stream")
    payloads = sse_data(reply.text)
    assert payloads[-1] == "[DONE]"
    chunks = [json.loads(payload) for payload in payloads[:-1]]
    assert {chunk["object"] for chunk in chunks} == {"chat.completion.chunk"}
    assert len({chunk["id"] for chunk in chunks}) == 1
    assert chunks[0]["id"].startswith("chatcmpl-AM-")
    assert {chunk["model"] for chunk in chunks} == {capture["body"]["model"]}
    # No usage chunk: Aider asks for none (no stream_options).
    assert all(len(chunk["choices"]) == 1 for chunk in chunks)
    deltas = [chunk["choices"][0]["delta"] for chunk in chunks]
    assert deltas[0].get("role") == "assistant"
    assert "".join(delta.get("content") or "" for delta in deltas) == REPLAY_TEXT
    finishes = [chunk["choices"][0].get("finish_reason") for chunk in chunks]
    assert finishes[-1] == "stop" and set(finishes[:-1]) <= {None}


def test_the_captured_commit_message_request_gets_one_completion(
    bridge_server_factory: StartServer,
) -> None:
    capture = json.loads(fixture_path(2).read_text(encoding="utf-8"))
    server = bridge_server_factory(
        "--default-model", "sim-echo", script={"rules": [text_rule(".", REPLAY_TEXT)]}
    )
    reply = post(
        server.base_url + "/chat/completions", capture["body"], headers=replay_headers(capture)
    )
    assert reply.status_code == 200, reply.text
    completion = reply.json()
    assert completion["object"] == "chat.completion"
    assert completion["id"].startswith("chatcmpl-AM-")
    assert completion["model"] == GPT_41.weak_model
    [choice] = completion["choices"]
    assert choice["message"]["role"] == "assistant"
    assert choice["message"]["content"] == REPLAY_TEXT
    assert choice["finish_reason"] == "stop"
    usage = completion["usage"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
