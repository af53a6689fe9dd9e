# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
name: ecs
short_description: ECS instances (SCC GPU servers) as inventory hosts
version_added: 0.1.0
description:
  - Lists ECS instances with C(DescribeInstances) (every page) through the collection's one
    client factory, filtered by tags, instance types, VPC, HPC cluster and status.
  - Each host gets its private and RDMA addresses, instance type and GPU count as host variables;
    C(ansible_host) is the first private address.
  - The file name must end in C(ecs.yml) or C(ecs.yaml).
options:
  plugin:
    description: Marks the file as this plugin's.
    type: str
    required: true
    choices: [scc.training.ecs]
  tags:
    description:
      - Only instances carrying every one of these tags; the cluster's C(scc_cloud_tags) (C(managed-by) and
        C(scc-cluster) in C(inventories/cloud/cloud.example.yml)).
      - Required and not empty.
    type: dict
    required: true
  instance_types:
    description:
      - Only instances of these types (any of them). Empty (the default) means any type, as the cluster's tags
        already say which instances are its nodes.
    type: list
    elements: str
    default: []
  vpc_id:
    description: Only instances in this VPC.
    type: str
  hpc_cluster_id:
    description: Only instances in this HPC cluster.
    type: str
  statuses:
    description: Only instances in one of these statuses.
    type: list
    elements: str
    default: [Running]
  hostnames:
    description:
      - What names the inventory host. M(scc.training.ecs_instance) gives all instances of a set
        the same name, so the default is the unique instance ID.
    type: str
    choices: [instance_id, instance_name, host_name, private_ip]
    default: instance_id
  data_prep_tags:
    description:
      - Instances carrying every one of these tags (and O(tags)) are the data-prep ECS that
        C(playbooks/provision.yml) makes (it tags it C(scc-role=data-prep)). They join O(data_prep_group) and no
        other group, whatever O(groups), O(keyed_groups) and O(instance_types) say, so they never become cluster
        nodes (C(scc_cluster), the MPI host file). Empty means no instance is one.
    type: dict
    default: {}
  data_prep_group:
    description: The inventory group of the data-prep ECS (see O(data_prep_tags)).
    type: str
    default: scc_data_prep
  known_hosts_file:
    description:
      - The known_hosts file that C(playbooks/provision.yml) filled with the instances' host keys, read from their
        consoles before any connection (M(scc.training.ecs_host_keys), C(scc_cloud_known_hosts_file)).
      - When set, every host gets C(ansible_ssh_common_args) C(-o UserKnownHostsFile=<file>
        -o StrictHostKeyChecking=yes) (a leading C(~) expanded on the controller), which O(compose) may override.
        Never C(StrictHostKeyChecking=no) or C(accept-new).
    type: path
    version_added: 0.3.0
  bastion_tags:
    description:
      - Instances carrying every one of these tags (and O(tags)) are the bastion that C(playbooks/provision.yml) makes
        with C(scc_cloud_access=bastion) (it tags it C(scc-role=bastion)). It joins O(bastion_group) and no other
        group, with its EIP as C(ansible_host).
      - When the bastion is found, every other host's ssh goes through it. C(ansible_ssh_common_args) gains
        C(-o ProxyCommand="ssh -o UserKnownHostsFile=<file> -o StrictHostKeyChecking=yes -W %h:%p <bastion_user>@<EIP>"),
        so that the jump host's key is checked against O(known_hosts_file) as strictly as the nodes'. ssh's own
        C(ProxyJump) applies none of the command line's C(-o) options to the jump host (ssh_config(5)), so it is not
        used.
        O(known_hosts_file) is then required. Without a bastion the hosts are reached directly (C(scc_cloud_access=vpc)).
      - Two bastions, or one without an EIP, fail the inventory.
      - Empty (the default) means no instance is one.
    type: dict
    default: {}
    version_added: 0.4.0
  bastion_group:
    description: The inventory group of the bastion (see O(bastion_tags)).
    type: str
    default: scc_bastion
    version_added: 0.4.0
  bastion_user:
    description: The user the jump through the bastion logs in as.
    type: str
    default: root
    version_added: 0.4.0
  bastion_private_key_file:
    description:
      - The private key the jump through the bastion logs in with (its own ssh, the ProxyCommand, gets
        C(-i <file> -o IdentitiesOnly=yes)). Ansible's C(ansible_ssh_private_key_file) is given to the nodes' own ssh
        only; without this option the jump offers the controller user's default keys (C(~/.ssh/id_*)) and
        ssh-agent's.
      - A leading C(~) is expanded on the controller. It must be a readable file, checked before any API call.
    type: path
    version_added: 0.5.0
extends_documentation_fragment:
  - scc.training.alicloud.plugins
  - scc.training.alicloud.api
  - ansible.builtin.constructed
  - ansible.builtin.inventory_cache
author:
  - scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
# inventories/example.ecs.yml
plugin: scc.training.ecs
region: cn-shanghai
# the cluster's scc_cloud_tags: the nodes of any instance family
tags:
  managed-by: scc.training
  scc-cluster: bert
known_hosts_file: ~/.ssh/scc-bert.known_hosts
groups:
  scc_cluster: true
# provision.yml's data-prep ECS: in scc_data_prep only, never in scc_cluster
data_prep_tags:
  scc-role: data-prep
# provision.yml's bastion (scc_cloud_access: bastion): in scc_bastion only; every other host's ssh goes through it
bastion_tags:
  scc-role: bastion
keyed_groups:
  - key: ecs_instance_type
    prefix: type
  - key: ecs_hpc_cluster_id
    prefix: hpc
compose:
  ansible_user: "'root'"
"""

import os
import shlex

from ansible.errors import AnsibleError
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    INSTANCE,
    AlicloudApi,
    AlicloudApiError,
    find_all,
)


def host_vars(view):
    """The host variables of one instance (``ecs_*``), from the shared instance view."""
    private = view["private_ip_addresses"]
    return {
        "ansible_host": private[0] if private else None,
        "ecs_instance_id": view["instance_id"],
        "ecs_instance_name": view["instance_name"],
        "ecs_instance_type": view["instance_type"],
        "ecs_status": view["status"],
        "ecs_zone_id": view["zone_id"],
        "ecs_vpc_id": view["vpc_id"],
        "ecs_vswitch_id": view["vswitch_id"],
        "ecs_hpc_cluster_id": view["hpc_cluster_id"],
        "ecs_private_ip": private[0] if private else None,
        "ecs_private_ips": private,
        "ecs_rdma_ips": view["rdma_ip_addresses"],
        "ecs_gpu_count": view["gpu_amount"] or 0,
        "ecs_gpu_spec": view["gpu_spec"],
        "ecs_tags": view["tags"],
    }


def ssh_strict_args(known_hosts_file, jump=None, jump_user="root", jump_key=None):
    """The ssh options that trust only the keys in ``known_hosts_file`` (a leading ``~`` expanded here); with ``jump``
    (the bastion's address), through it, its own key checked against the same file; with ``jump_key``, the jump logs
    in with that private key only (``-i <key> -o IdentitiesOnly=yes``).

    The jump is a ProxyCommand (``ssh ... -W %h:%p user@jump``), the connection ProxyJump makes, with the strict
    options on the jump itself: ProxyJump applies none of the command line's ``-o`` options to the jump host
    ("the configuration for the destination host (either supplied via the command-line or the configuration file) is
    not generally applied to jump hosts", ssh_config(5), ProxyJump, OpenSSH 9.2), so it would check the bastion's key
    against the user's own known_hosts, or ask."""
    path = os.path.abspath(os.path.expanduser(known_hosts_file))
    strict = "-o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes" % shlex.quote(path)
    if not jump:
        return strict
    identity = ""
    if jump_key:
        key = os.path.abspath(os.path.expanduser(jump_key))
        identity = "-i %s -o IdentitiesOnly=yes " % shlex.quote(key)
    proxy = "ssh %s%s -W %%h:%%p %s@%s" % (identity, strict, jump_user, jump)
    return "%s -o %s" % (strict, shlex.quote("ProxyCommand=" + proxy))


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):
    NAME = "scc.training.ecs"

    def verify_file(self, path):
        return super().verify_file(path) and path.endswith(("ecs.yml", "ecs.yaml"))

    def _require_tags(self):
        """The nodes are the instances with the cluster's tags: none given would make every instance one."""
        if not self.get_option("tags"):
            raise AnsibleError(
                "scc.training.ecs: tags is empty; give the cluster's tags (scc_cloud_tags of provision.yml, e.g."
                " managed-by: scc.training and scc-cluster: <scc_cloud_name>), else every instance of the account"
                " would be a node"
            )

    def _check_jump_key(self):
        """bastion_private_key_file, when set, names a readable file (checked before any API call)."""
        key = self.get_option("bastion_private_key_file")
        if not key:
            return
        path = os.path.abspath(os.path.expanduser(key))
        if not os.path.isfile(path) or not os.access(path, os.R_OK):
            raise AnsibleError(
                "scc.training.ecs: bastion_private_key_file %s is not a readable file (the private key the jump"
                " through the bastion logs in with)" % path
            )

    def _fetch(self):
        try:
            api = AlicloudApi(
                self.get_option("access_key"),
                self.get_option("secret_key"),
                self.get_option("region"),
                security_token=self.get_option("security_token"),
                ecs_endpoint=self.get_option("ecs_endpoint"),
                connect_timeout=self.get_option("connect_timeout"),
                read_timeout=self.get_option("read_timeout"),
                api_retries=self.get_option("api_retries"),
            )
            filters = {"VpcId": self.get_option("vpc_id"), "HpcClusterId": self.get_option("hpc_cluster_id")}
            found = find_all(api, INSTANCE, filters, tags=self.get_option("tags"))
        except AlicloudApiError as exc:
            raise AnsibleError("scc.training.ecs: %s (RequestId %s)" % (exc, exc.request_id)) from None
        views = [INSTANCE.view(i) for i in found]
        types = set(self.get_option("instance_types"))
        statuses = set(self.get_option("statuses"))
        # instance_types chooses the cluster's nodes; the data-prep ECS and the bastion are of other types.
        return [
            v
            for v in views
            if (not types or v["instance_type"] in types or self._data_prep(v) or self._bastion(v))
            and (not statuses or v["status"] in statuses)
        ]

    def _bastion(self, view):
        """Whether the instance is the bastion: it carries every tag of ``bastion_tags``."""
        wanted = self.get_option("bastion_tags")
        return bool(wanted) and all(view["tags"].get(k) == v for k, v in wanted.items())

    def _jump(self, views):
        """The bastion's EIP, or None when there is no bastion; two bastions, or one without an EIP, fail."""
        bastions = [v for v in views if self._bastion(v)]
        if not bastions:
            return None
        if len(bastions) > 1:
            raise AnsibleError(
                "scc.training.ecs: %d instances carry bastion_tags (%s); which one to jump through is not guessed"
                % (len(bastions), ", ".join(v["instance_id"] for v in bastions))
            )
        if not bastions[0]["eip_address"]:
            raise AnsibleError(
                "scc.training.ecs: the bastion %s has no EIP (provision.yml associates <scc_cloud_name>-bastion-eip)"
                % bastions[0]["instance_id"]
            )
        if not self.get_option("known_hosts_file"):
            raise AnsibleError(
                "scc.training.ecs: bastion_tags found the bastion %s, but known_hosts_file is not set; the jump through"
                " it checks its host key against that file only" % bastions[0]["instance_id"]
            )
        return bastions[0]["eip_address"]

    def _data_prep(self, view):
        """Whether the instance is the data-prep ECS: it carries every tag of ``data_prep_tags``."""
        wanted = self.get_option("data_prep_tags")
        return bool(wanted) and all(view["tags"].get(k) == v for k, v in wanted.items())

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        self._read_config_data(path)
        self._require_tags()
        self._check_jump_key()
        cache_key = self.get_cache_key(path)
        use_cache = self.get_option("cache") and cache
        views = None
        if use_cache:
            try:
                views = self._cache[cache_key]
            except KeyError:
                views = None
        if views is None:
            views = self._fetch()
            if self.get_option("cache"):
                self._cache[cache_key] = views
        self._populate(views)

    def _populate(self, views):
        strict = self.get_option("strict")
        name_of = {
            "instance_name": lambda v: v["instance_name"],
            "instance_id": lambda v: v["instance_id"],
            "host_name": lambda v: v["host_name"],
            "private_ip": lambda v: (v["private_ip_addresses"] or [None])[0],
        }[self.get_option("hostnames")]
        jump = self._jump(views)
        known_hosts = self.get_option("known_hosts_file")
        for view in sorted(views, key=lambda v: (v["instance_name"] or "", v["instance_id"])):
            host = name_of(view) or view["instance_id"]
            if self.inventory.get_host(host) is not None:
                raise AnsibleError(
                    "scc.training.ecs: two instances would both be host %s; set hostnames: instance_id" % host
                )
            self.inventory.add_host(host)
            variables = host_vars(view)
            bastion = self._bastion(view)
            if bastion:
                # Reached at its EIP, directly; its key is in known_hosts under that address (ecs_host_keys).
                variables["ansible_host"] = view["eip_address"]
                variables["ecs_eip_address"] = view["eip_address"]
            if known_hosts:
                through = None if bastion else jump
                variables["ansible_ssh_common_args"] = ssh_strict_args(
                    known_hosts, through, self.get_option("bastion_user"), self.get_option("bastion_private_key_file")
                )
            for key, value in variables.items():
                self.inventory.set_variable(host, key, value)
            self._set_composite_vars(self.get_option("compose"), variables, host, strict=strict)
            if bastion:
                self.inventory.add_group(self.get_option("bastion_group"))
                self.inventory.add_child(self.get_option("bastion_group"), host)
                continue
            if self._data_prep(view):
                self.inventory.add_group(self.get_option("data_prep_group"))
                self.inventory.add_child(self.get_option("data_prep_group"), host)
                continue
            self._add_host_to_composed_groups(self.get_option("groups"), variables, host, strict=strict)
            self._add_host_to_keyed_groups(self.get_option("keyed_groups"), variables, host, strict=strict)
