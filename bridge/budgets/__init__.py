"""Token budgets: caps on the input + output tokens agents spend through the bridge.

- (`bridge/core/budget_spec.py`: a budget (who it counts, over which period, how many tokens)
  and its periods; in the core, as the settings that hold budgets are read below this folder);
- `guard`: the tokens each budget has used (the usage ledger, read off the event loop and
  cached briefly, plus this process's own rows since), the 80 % warning, the refusal;
- `refusal`: the 429 a request over a budget gets;
- `command`: `serve`'s budget options;
- `wiring`: the guard in the application (the check each dialect's prepare step calls).
"""
