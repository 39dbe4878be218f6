"""Renderers of text: a round's layout, a settlement, a paytable, the odds tables.

Pure functions from results to text in the user's language; adapters print what they return.
"""
