"""The Gemini dialect: Google's Generative Language API (`/v1beta/models/...`) on editor models."""
