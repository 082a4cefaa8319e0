"""Language models as sources: decision and chat interfaces, backends, the offline model.

See :mod:`.types` for the values every backend speaks.
"""
