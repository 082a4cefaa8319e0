"""The generator of the Walters & Wilder world, in parts (see ``bench/ww_world.py``, its
public face and command line, and ``bench/WW_WORLD.md``, its rules)."""
