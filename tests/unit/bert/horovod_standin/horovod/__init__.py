"""STAND-IN for the horovod package, for tests only: it is NOT Horovod (see horovod/torch)."""
