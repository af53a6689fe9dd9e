# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The filters provision.yml checks its variables with before any API call (each documented in its
sidecar ``<filter name>.yml``).

``cidr_within``: a VSwitch's CIDR block lies inside its VPC's (ansible.utils is not a dependency of
this collection).
"""

from __future__ import annotations

import ipaddress

from ansible.errors import AnsibleFilterError


def cidr_within(inner, outer):
    """True when network ``inner`` lies inside network ``outer`` (both IPv4 or both IPv6)."""
    try:
        inner_net = ipaddress.ip_network(str(inner), strict=True)
        outer_net = ipaddress.ip_network(str(outer), strict=True)
    except ValueError as exc:
        raise AnsibleFilterError("cidr_within: %s" % exc) from None
    return inner_net.version == outer_net.version and inner_net.subnet_of(outer_net)


class FilterModule(object):
    """scc.training filters of provision.yml's checks."""

    def filters(self):
        return {"cidr_within": cidr_within}
