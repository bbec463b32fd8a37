"""The headless editor: a Python stand-in for VS Code that launches the language server
and answers with a simulated model."""
