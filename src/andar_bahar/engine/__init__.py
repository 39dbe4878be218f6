"""The pure game: cards, procedures, bets, money, paytables, settlement, the round.

No I/O, no clock, no global randomness: everything else imports this layer, never the reverse.
"""
