"""Offline evaluation (``evaluate``): the plan, the cases, uploads, progress and its API calls."""
