"""STAND-IN for AIACC-Training's perseus package, for tests only: it is NOT AIACC."""
