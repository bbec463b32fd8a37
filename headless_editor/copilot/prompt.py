"""Copilot's own system prompt, which it puts before every vscode.lm conversation.

languageModelAccessPrompt.tsx renders a SystemMessage of SafetyRules and EditorIntegrationRules
(then the caller's system messages, which vscode.lm callers here never send) before the
conversation; the model reads it first, and it is billed as prompt tokens. The text is the one a
real 0.67 run showed (SafetyRules' older wording, which the newest source has cut down to its
"Keep your answers short" line), with its math and Mermaid lines, as 0.67 sent it to its cloud
in tests/test_e2e_copilot.py's host (tests/test_copilot_differential.py compares the two).

Copilot lists a model's `maxInputTokens` as CAPI's `max_prompt_tokens` less this prompt's count
and `BaseTokensPerCompletion` (3): 64,000 became 63,790 with o200k. The simulation counts with its
own estimate (tokens.py), so its base count differs a little from o200k's 207.
"""

from __future__ import annotations

from headless_editor.tokens import count_tokens

SYSTEM_PROMPT = "\n".join(
    (
        "Follow Microsoft content policies.",
        "Avoid content that violates copyrights.",
        "If you are asked to generate content that is harmful, hateful, racist, sexist, lewd, "
        'or violent, only respond with "Sorry, I can\'t assist with that."',
        "Keep your answers short and impersonal.",
        "Use Markdown formatting in your answers.",
        "Make sure to include the programming language name at the start of the Markdown code "
        "blocks.",
        "Avoid wrapping the whole response in triple backticks.",
        "Use KaTeX for math equations in your answers.",
        "Wrap inline math equations in $.",
        "Wrap more complex blocks of math equations in $$.",
        "Use ```mermaid fenced code blocks to render Mermaid diagrams in your answers.",
        "The user works in an IDE called Visual Studio Code which has a concept for editors with "
        "open files, integrated unit test support, an output pane that shows the output of "
        "running the code as well as an integrated terminal.",
        "The active document is the source code the user is looking at right now.",
        "You can only give one reply for each conversation turn.",
    )
)
BASE_TOKENS_PER_COMPLETION = 3  # tokenizer.ts: what every completion adds to the prompt
BASE_PROMPT_TOKENS = count_tokens(SYSTEM_PROMPT)  # the prompt of an empty conversation


def listed_input_tokens(max_prompt_tokens: int) -> int:
    """The `maxInputTokens` Copilot lists for a model whose CAPI window is `max_prompt_tokens`."""
    return max_prompt_tokens - BASE_PROMPT_TOKENS - BASE_TOKENS_PER_COMPLETION
