"""Contributor tooling for the knowledge base: lint, behaviour cases, docs, schema, templates and stats.

Nothing that runs for users imports this package; it builds on :mod:`triage.kb`
(models, loader) and :mod:`triage.api`. The ``triage kb`` commands use it, on
the checkout around the current directory (see :mod:`triage.authoring.checkout`).
"""
