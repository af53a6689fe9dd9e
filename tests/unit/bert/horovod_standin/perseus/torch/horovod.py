"""STAND-IN for perseus.torch.horovod (AIACC-Training's Horovod API), for tests only.

It is NOT AIACC: it re-exports the horovod.torch stand-in, which runs on torch.distributed gloo,
and records that the script imported it under AIACC's module name.
"""

from horovod.torch import *  # noqa: F403  pylint: disable=wildcard-import,unused-wildcard-import
from horovod.torch import _set_module_name

_set_module_name(__name__)
