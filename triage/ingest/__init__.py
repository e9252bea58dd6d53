"""Readers for what users already have: OOM messages and logs, environment reports, training configs,
free text in English and Chinese. Every reader produces typed facts with their provenance.

The entry point is :func:`triage.ingest.inputs.gather`.
"""
