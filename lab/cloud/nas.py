"""NAS 2017-06-26 actions for CPFS: file systems, mount targets, the NFS protocol service."""

from __future__ import annotations

VERSION = "2017-06-26"
PRODUCT = "NAS"

ACTIONS: dict = {}
CLIENT_TOKEN: set = set()


def host_id(region: str) -> str:
    return f"nas.{region}.aliyuncs.com" if region else "nas.aliyuncs.com"


def dry_run_reply(action: str):
    return {}
