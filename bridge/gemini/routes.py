"""The Gemini dialect's routes, under `/v1beta` (Google's Generative Language API).

`POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent`, `:countTokens`
(bridge/gemini/handlers.py, imported on the first such request or by the warm-up after start:
bridge/http/lazy_handler.py), and the model list (bridge/gemini/models.py). Errors under
`/v1beta` are written in Google's envelope.
"""

from __future__ import annotations

from aiohttp import web

from bridge.core.request_limits import takes_model_slot
from bridge.gemini import models
from bridge.gemini.errors import gemini_error_body
from bridge.http import error_shapes, model_routes
from bridge.http.lazy_handler import lazy_handler

PREFIX = "/v1beta"
GOOGLE_KEY_HEADER = "x-goog-api-key"  # what only Google's clients send
# The POSTs that ask the model or its token counter (a model slot each).
MODEL_ACTIONS = r"/v1(beta)?/models/.+:(generateContent|streamGenerateContent|countTokens)"
# google-genai (Python, 3.x) asks the Gemini API's `v1` by default; Gemini CLI `v1beta`. Only the
# POSTs are mounted under `/v1` (its GETs are OpenAI's, bridge/http/model_routes.py).
VERSION_PREFIXES = (PREFIX, "/v1")


def mount(app: web.Application) -> None:
    """Mount the dialect on `app`, with Google's error envelope for `/v1beta`."""
    error_shapes.register(app, (PREFIX,), gemini_error_body, header=GOOGLE_KEY_HEADER)
    # Google's SDKs send their key in this header, and google-genai (Python, 3.x) asks the
    # Gemini API's `v1` by default: `GET /v1/models` is then theirs, in Google's shape.
    model_routes.answer_by_header(app, GOOGLE_KEY_HEADER, models.list_models, models.answer_model)
    takes_model_slot(app, pattern=MODEL_ACTIONS)
    app.router.add_get(f"{PREFIX}/models", models.list_models)
    app.router.add_get(f"{PREFIX}/models/{{name:.+}}", models.get_model)
    model_action = lazy_handler(app, "bridge.gemini.handlers", "model_action")
    for prefix in VERSION_PREFIXES:
        app.router.add_post(f"{prefix}/models/{{name:.+}}", model_action)
