"""STAND-IN for perseus.torch, for tests only: it is NOT AIACC."""
