"""Who may use the bridge: its API key, kept in the user's state folder."""
