"""Developer scripts run as modules (`python -m scripts.reference`)."""
