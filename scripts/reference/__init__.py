"""The documentation's reference pages, generated from the code (docs/reference/).

`python -m scripts.reference` writes them; `--check` fails when a checked-in page differs from
what the code generates now, and so does tests/test_docs_reference.py in CI.
"""
