"""The citation pipeline: parse a citation, ask the databases, decide whether it is real.

Inputs are read by :mod:`.inputs` and parsed by :mod:`.parsing`; :mod:`.planner` decides
which sources to ask, :mod:`.plan_run` asks them through the session's source clients,
:mod:`.verdict` applies the two-source agreement rule, and :mod:`.discrepancies` and
:mod:`.corrections` say what the citation got wrong.
"""
