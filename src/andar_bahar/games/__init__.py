"""The games people play on top of the engine: the teaching game, the club game, the drills.

Pure: the adapters (terminal, web) drive them and store what they return.
"""
