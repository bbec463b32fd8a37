"""The OpenAI Chat Completions dialect: `POST /v1/chat/completions`."""
