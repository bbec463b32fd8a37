"""The error answers of a FAKE of GitHub Copilot's cloud (CAPI), in the bodies the real cloud
sends (the real cloud cannot be reached here). Copilot's chatMLFetcher.ts reads them: the
`error` object's `message` and `code`; 402 is a quota (`quota_exceeded`, per plan messages in
commonTypes.ts), 429 a rate limit with `retry-after` (codes such as `user_model_rate_limited`).
"""

from __future__ import annotations

import json

from aiohttp import web


def error_json(
    status: int, message: str, code: str, headers: dict[str, str] | None = None
) -> web.Response:
    body = json.dumps({"error": {"message": message, "code": code}})
    return web.Response(status=status, text=body, content_type="application/json", headers=headers)


def blank(status: int = 400) -> web.Response:
    """What CAPI answers a body it refuses without saying why: the status, nothing else."""
    return web.Response(status=status, body=b"")


def bad_request() -> web.Response:
    return error_json(
        400, "Bad request: the fake CAPI was asked to refuse ([capi 400])", "invalid_request_body"
    )


def quota() -> web.Response:
    return error_json(
        402,
        "You have no quota remaining for premium requests. Wait for your allowance to renew.",
        "quota_exceeded",
    )


def rate_limited(retry_after: int) -> web.Response:
    return error_json(
        429,
        "Sorry, you have exceeded the rate limit for this model. Please try again later.",
        "user_model_rate_limited",
        headers={"retry-after": str(retry_after)},
    )


def context_exceeded(tokens: int, limit: int) -> web.Response:
    return error_json(
        400,
        f"prompt token count of {tokens} exceeds the limit of {limit}",
        "model_max_prompt_tokens_exceeded",
    )


def unknown_model(model: str) -> web.Response:
    return error_json(400, f"The requested model is not supported: {model}", "model_not_supported")
