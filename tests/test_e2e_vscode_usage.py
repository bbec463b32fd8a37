"""Usage in a real VS Code extension host (code-server, headless): after requests through the
bridge the Maestro Bridge extension started, its status bar tooltip gives today's tokens as
GET /v1/usage counts them (read every 30 s), and **Maestro Bridge: Show Usage** opens the
bridge's /usage page inside the editor (a webview framing it), where it shows today's count.

The model is the real Copilot provider's GPT-4.1 against a fake of Copilot's cloud
(tests/copilot_host.py), and the ledger's tokens are the ones that cloud billed. The host keeps
its ledger in a state folder of its own (tests/vscode_harness.py), so the counts are this
module's requests only.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from copilot_cloud import GPT, nonce, output_tokens, prompt_tokens, upstream
from copilot_host import copilot_fixtures
from fake_capi import FakeCapi
from openai import OpenAI
from vscode_host import FIRST_WINDOW, VSCodeHost

pytestmark = pytest.mark.timeout(600)

MODEL = GPT
TOOLTIP_PERIOD = 30  # seconds between the extension's reads of /v1/usage

capi, vscode = copilot_fixtures()


def today_usage(host: VSCodeHost) -> dict[str, Any]:
    url = f"{host.base_url}/usage?since=today&recent=0"
    with urllib.request.urlopen(url, timeout=10) as response:
        body: dict[str, Any] = json.loads(response.read())
    return body


def tooltip(host: VSCodeHost) -> str:
    request = {"tooltip": True}
    return str(host.control_answer(host.send_control(request), request, 30)["tooltip"])


def test_tooltip_gives_todays_tokens_and_show_usage_opens_the_page(
    vscode: VSCodeHost, capi: FakeCapi
) -> None:
    markers = [nonce(), nonce()]
    with OpenAI(base_url=vscode.base_url, api_key="unused", max_retries=0, timeout=60) as sdk:
        answers = [
            sdk.responses.create(model=MODEL, input=f"usage {m}").output_text for m in markers
        ]
    vscode.wait_for(
        lambda: today_usage(vscode)["totals"]["requests"] == 2, 30, "the ledger's two rows"
    )
    body = today_usage(vscode)
    t = body["totals"]
    # The ledger has the tokens Copilot's cloud billed for the two requests.
    billed = sum(prompt_tokens(upstream(capi, m)) for m in markers)
    assert (t["input_tokens"], t["output_tokens"]) == (billed, output_tokens(*answers)), body
    expected = (
        f"Today ({body['until']}): {t['input_tokens']:,} input tokens "
        f"({t['cached_tokens']:,} cached), {t['output_tokens']:,} output tokens, 2 requests."
    )
    assert t["input_tokens"] > 0 and t["output_tokens"] > 0, body
    shown = vscode.wait_for(
        lambda: (lambda text: expected in text and text)(tooltip(vscode)),
        TOOLTIP_PERIOD + 30,
        f"the tooltip to say {expected!r}",
    )
    assert shown.startswith("Maestro Bridge: Responses API at"), shown

    vscode.run_command("maestroBridge.showUsage")
    frames_path = vscode.root / f"frames-{FIRST_WINDOW}.json"

    def usage_frame() -> dict[str, Any] | None:
        try:
            frames = json.loads(frames_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        for frame in frames:
            usage = frame.get("usage")
            if usage and usage.get("updated") and usage.get("requests") == "2":
                return dict(frame)
        return None

    frame = vscode.wait_for(usage_frame, 60, "the usage page in the editor, showing 2 requests")
    assert frame["url"].split("#")[0].endswith("/usage"), frame
