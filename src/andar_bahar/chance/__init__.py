"""The chance layer: exact odds, the simulator and its compiled kernels, the shuffle audit, charts.

It imports the engine; numpy, numba, scipy and matplotlib are needed only by the simulator,
the audit and the charts (the ``sim`` extra), never by the exact odds.
"""
