class LabError(Exception):
    """A condition the user can fix; printed as one clear message, without a traceback."""
