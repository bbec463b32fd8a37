"""What GitHub Copilot, the provider behind `vscode.lm`, takes: request.py is the one step."""
