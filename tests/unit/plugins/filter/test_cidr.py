"""cidr_within: the check provision.yml makes before any API call."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter.cidr import cidr_within


@pytest.mark.parametrize(
    "inner,outer,expected",
    [
        ("192.168.1.0/24", "192.168.0.0/16", True),
        ("192.168.0.0/16", "192.168.0.0/16", True),
        ("10.0.0.0/24", "192.168.0.0/16", False),
        ("192.168.0.0/15", "192.168.0.0/16", False),
        ("fd00::/64", "192.168.0.0/16", False),
    ],
)
def test_cidr_within(inner, outer, expected):
    assert cidr_within(inner, outer) is expected


def test_cidr_within_names_a_bad_network():
    with pytest.raises(AnsibleFilterError, match="cidr_within"):
        cidr_within("192.168.1.5/24", "192.168.0.0/16")
