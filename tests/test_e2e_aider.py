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
from aider_cli import DUMMY_KEY, AiderRun, aider_or_skip, run_aider
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
from chat_validation import check_stream, parse_sse, validate_completion
from conftest import StartServer
from plain_http import post
from record_aider import fixture_path

REPLAY_TEXT = "Replayed through the bridge."
BRIDGE_KEY = "aider-bridge-key"
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


def run_edit(
    start: StartServer,
    model: AiderModel,
    root: Path,
    rules: list[dict[str, Any]] | None = None,
    serve_args: tuple[str, ...] = (),
    api_key: str = DUMMY_KEY,
) -> tuple[AiderRun, Path, Path]:
    """Aider (with `api_key`) fixing the typo against `serve SERVE_ARGS` answering by `rules`
    (default: edit_rules); the file must be fixed on disk."""
    aider = aider_or_skip()
    workdir, home = root / "work", root / "home"
    target = make_repository(workdir, home)
    script = {"rules": rules if rules is not None else edit_rules(model)}
    server = start("--default-model", "sim-echo", *serve_args, script=script)
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
        api_key=api_key,
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


def test_aider_sends_its_key_to_a_bridge_that_wants_one(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    key = ("--api-key", BRIDGE_KEY)
    run, workdir, home = run_edit(
        bridge_server_factory, SIM_ECHO, tmp_path, serve_args=key, api_key=BRIDGE_KEY
    )
    assert run.returncode == 0, run.report
    assert commit_subjects(workdir, home)[0] == COMMIT_MESSAGE, run.report


def test_a_slow_model_with_keepalive_comments_still_edits_the_file(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    """Silent for 3 s before its answer, with a `: keepalive` line every 0.5 s meanwhile."""
    slow = {
        "match": DIFF_RULES_MARKER,
        "times": 1,
        "reply": [{"type": "pause", "seconds": 3}, {"type": "text", "text": GPT_41.edit}],
    }
    rules = [text_rule(DIFF_MARKER, COMMIT_MESSAGE), slow]
    keepalive = ("--keepalive-seconds", "0.5")
    run, workdir, home = run_edit(
        bridge_server_factory, GPT_41, tmp_path, rules, serve_args=keepalive
    )
    assert run.returncode == 0, run.report
    assert commit_subjects(workdir, home)[0] == COMMIT_MESSAGE, run.report


def test_a_thinking_answer_edits_the_file_and_aider_shows_the_thinking(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    thought = "The word wrold is a typo of world."
    edit = {
        "match": DIFF_RULES_MARKER,
        "times": 1,
        "reply": [{"type": "thinking", "text": thought}, {"type": "text", "text": GPT_41.edit}],
    }
    rules = [text_rule(DIFF_MARKER, COMMIT_MESSAGE), edit]
    run, workdir, home = run_edit(bridge_server_factory, GPT_41, tmp_path, rules)
    assert run.returncode == 0, run.report
    # `reasoning_content` deltas: Aider prints them apart and keeps them out of the edit.
    assert "THINKING" in run.stdout and thought in run.stdout, run.report
    assert commit_subjects(workdir, home)[0] == COMMIT_MESSAGE, run.report


def test_an_edit_that_does_not_apply_is_reported_back_and_the_retry_fixes_the_file(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    """Aider's reflection: it tells the model which SEARCH block failed, in a new request that
    holds the whole exchange so far (an assistant turn and Aider's report), and applies the
    answer to that."""
    wrong = GPT_41.edit.replace("wrold", "wurld", 1)  # a SEARCH text the file does not hold
    rules = [
        text_rule(DIFF_MARKER, COMMIT_MESSAGE),
        text_rule(DIFF_RULES_MARKER, wrong, times=1),
        text_rule(DIFF_RULES_MARKER, GPT_41.edit, times=1),
    ]
    run, workdir, home = run_edit(bridge_server_factory, GPT_41, tmp_path, rules)
    assert run.returncode == 0, run.report
    assert "SearchReplaceNoExactMatch" in run.stdout, run.report
    assert commit_subjects(workdir, home) == [COMMIT_MESSAGE, FIRST_COMMIT], run.report


def replay_headers(capture: dict[str, Any]) -> dict[str, str]:
    headers: dict[str, str] = capture["headers"]
    return {name: value for name, value in headers.items() if name not in CONNECTION_HEADERS}


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
    chunks = parse_sse(reply.text).chunks
    # Every chunk and the rules across them (tests/chat_validation.py); no usage chunk, as
    # Aider asks for none (no stream_options).
    completion = check_stream(chunks, include_usage=False)
    assert completion["id"].startswith("chatcmpl-AM-")
    assert completion["model"] == capture["body"]["model"]
    [choice] = completion["choices"]
    assert choice["message"]["content"] == REPLAY_TEXT
    assert choice["finish_reason"] == "stop"
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"


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
    validate_completion(completion)
    assert completion["id"].startswith("chatcmpl-AM-")
    assert completion["model"] == GPT_41.weak_model
    [choice] = completion["choices"]
    assert choice["message"]["role"] == "assistant"
    assert choice["message"]["content"] == REPLAY_TEXT
    assert choice["finish_reason"] == "stop"
    assert completion["usage"]["prompt_tokens"] > 0
