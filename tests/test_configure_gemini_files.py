"""Gemini CLI's files as `configure gemini` merges them: the .env (read as dotenv reads it:
comments, `export`, quotes, values over several lines, duplicates, CRLF, a byte order mark),
settings.json, the folder, and the bridge URL written.

tests/test_configure_gemini.py runs the command; tests/test_configure_gemini_cli.py runs the
real Gemini CLI with what it wrote.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.configure.bridge_models import bridge_root
from bridge.configure.config_file import ConfigError
from bridge.configure.gemini_command import PLACEHOLDER_KEY
from bridge.configure.gemini_env import dotenv_value, merge_env, parse_dotenv
from bridge.configure.gemini_settings import gemini_dir, merge_settings

OURS = {
    "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:23335",
    "GEMINI_API_KEY": PLACEHOLDER_KEY,
    "GEMINI_MODEL": "gemini-2.5-pro",
}

# --------------------------------------------------------------------------- the .env merge


def test_merge_into_nothing_writes_our_three_lines() -> None:
    text, changes = merge_env("", OURS)
    assert text == "".join(f"{key}={value}\n" for key, value in OURS.items())
    assert [(c.key, c.old, c.new) for c in changes] == [(k, None, v) for k, v in OURS.items()]
    assert merge_env(text, OURS) == (text, [])


EXISTING = """\
# my Gemini settings
FOO=bar # a comment of mine
export GEMINI_MODEL=gemini-1.5-flash   # the old model

MULTI="first line
GEMINI_MODEL=not-an-entry
last line"
GEMINI_API_KEY='AIza-old'
GEMINI_MODEL=gemini-2.0-flash
# the end"""


def test_merge_replaces_only_our_entries_and_keeps_everything_else() -> None:
    text, changes = merge_env(EXISTING, OURS)
    assert text == (
        "# my Gemini settings\n"
        "FOO=bar # a comment of mine\n"
        "export GEMINI_MODEL=gemini-2.5-pro # the old model\n"
        "\n"
        'MULTI="first line\n'
        "GEMINI_MODEL=not-an-entry\n"
        'last line"\n'
        f"GEMINI_API_KEY={PLACEHOLDER_KEY}\n"
        "# the end\n"
        "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:23335\n"
    )
    # The old values as Gemini CLI read them: the last entry of a name wins.
    assert {c.key: c.old for c in changes} == {
        "GOOGLE_GEMINI_BASE_URL": None,
        "GEMINI_API_KEY": "AIza-old",
        "GEMINI_MODEL": "gemini-2.0-flash",
    }
    read = parse_dotenv(text)
    assert (
        read["FOO"] == "bar" and read["MULTI"] == "first line\nGEMINI_MODEL=not-an-entry\nlast line"
    )
    assert {key: read[key] for key in OURS} == OURS
    assert merge_env(text, OURS) == (text, [])


def test_merge_keeps_crlf_line_breaks() -> None:
    text, changes = merge_env("A=1\r\nGEMINI_MODEL=old\r\n", {"GEMINI_MODEL": "new"})
    assert text == "A=1\r\nGEMINI_MODEL=new\r\n"
    assert [(c.key, c.old, c.new) for c in changes] == [("GEMINI_MODEL", "old", "new")]


def test_a_byte_order_mark_does_not_hide_the_first_entry() -> None:
    text, _ = merge_env("\ufeffGEMINI_MODEL=old\n", {"GEMINI_MODEL": "new"})
    assert text == "\ufeffGEMINI_MODEL=new\n"


def test_a_value_with_a_colon_separator_or_spaces_is_found() -> None:
    assert parse_dotenv("GEMINI_MODEL: x\n  GEMINI_API_KEY = ' k ' \n") == {
        "GEMINI_MODEL": "x",
        "GEMINI_API_KEY": " k ",
    }
    text, _ = merge_env("GEMINI_MODEL: x\n", {"GEMINI_MODEL": "y"})
    assert text == "GEMINI_MODEL=y\n"


@pytest.mark.parametrize(
    "value",
    ["sim-echo", "http://127.0.0.1:9", "a key with spaces", "has#hash", "it's", "both'\"", " pad "],
)
def test_values_are_written_so_that_dotenv_reads_them_back(value: str) -> None:
    written = dotenv_value(value)
    assert parse_dotenv(f"GEMINI_API_KEY={written}\n") == {"GEMINI_API_KEY": value}


@pytest.mark.parametrize("value", ["two\nlines", "ends with \\", "all'\"`"])
def test_a_value_dotenv_cannot_hold_is_refused(value: str) -> None:
    with pytest.raises(ConfigError, match=r"cannot be written into a \.env file"):
        merge_env("", {"GEMINI_API_KEY": value})


# --------------------------------------------------------------------------- settings.json


def test_settings_merge_sets_the_api_key_sign_in_and_keeps_the_rest() -> None:
    existing = {
        "ui": {"theme": "Dracula"},
        "security": {"auth": {"selectedType": "oauth-personal"}},
    }
    text, changes = merge_settings(json.dumps(existing))
    assert json.loads(text) == {
        "ui": {"theme": "Dracula"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
    }
    assert [(c.key, c.old, c.new) for c in changes] == [
        ("security.auth.selectedType", "oauth-personal", "gemini-api-key")
    ]
    assert merge_settings(text) == (text, [])
    fresh, _ = merge_settings("")
    assert (
        fresh
        == json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}, indent=2) + "\n"
    )


@pytest.mark.parametrize(
    ("existing", "message"),
    [
        ('{"ui": {},}', "not valid JSON"),
        ('// Gemini CLI allows comments\n{"ui": {}}', "allows comments there"),
        ("[1]", "not a JSON object"),
        ('{"security": "x"}', "`security` is not an object"),
        ('{"security": {"auth": []}}', "`security.auth` is not an object"),
    ],
)
def test_settings_merge_refuses_a_file_it_cannot_edit(existing: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        merge_settings(existing)


def test_the_folder_is_found_as_gemini_cli_finds_it(tmp_path: Path) -> None:
    assert gemini_dir({}) == Path.home() / ".gemini"
    assert gemini_dir({"GEMINI_CLI_HOME": ""}) == Path.home() / ".gemini"
    assert gemini_dir({"GEMINI_CLI_HOME": str(tmp_path)}) == tmp_path / ".gemini"


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/", "/v1beta", "/v1beta/"])
def test_the_base_url_is_the_bridge_without_a_version(suffix: str) -> None:
    assert bridge_root(f"http://127.0.0.1:9{suffix}") == "http://127.0.0.1:9"
