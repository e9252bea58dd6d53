"""Renderers: a diagnosis as JSON (the contract), plain text for 80 columns, or GitHub markdown."""
